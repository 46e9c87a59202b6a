package js_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestFunctionArguments: a function passed to a call (an Electron IPC
// handler) is a function value: one the file declares and passes by name
// carries its name, at the name's first token in its scope; a named
// function expression is at its name; an arrow is a function with no
// place. A name bound to anything else stays a name.
func TestFunctionArguments(t *testing.T) {
	is := is.New(t)
	src := `const { ipcMain } = require("electron");
const lib = require("./lib");
let other = 1;
ipcMain.handle("save", async (e, doc) => doc);
ipcMain.handle("open", function onOpen(e) { return 1; });
ipcMain.on("quit", lib.quit);
ipcMain.handle("other", other);
function onLoad(e, name) { return name; }
ipcMain.handle("load", onLoad);
`
	f := facts(t, src)
	handlers := map[string]ports.JSValue{}
	for _, c := range f.Calls {
		if strings.HasPrefix(c.Callee, "ipcMain.") && len(c.Args) == 2 {
			handlers[c.Args[0].Value] = c.Args[1]
		}
	}
	is.Equal(handlers["save"], ports.JSValue{Kind: ports.JSValFunction, Offset: -1})
	is.Equal(handlers["open"], ports.JSValue{Kind: ports.JSValFunction, Offset: int64(strings.Index(src, "onOpen"))})
	is.Equal(handlers["load"], ports.JSValue{Kind: ports.JSValFunction, Value: "onLoad", Offset: int64(strings.Index(src, "onLoad"))})
	is.Equal(handlers["quit"].Kind, ports.JSValName)
	is.Equal(handlers["quit"].Value, "lib.quit")
	is.Equal(handlers["other"].Kind, ports.JSValName)
}
