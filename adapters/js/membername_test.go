package js_test

import (
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestExposedMembersByName: a member of the exposed object passed by
// name is a JSFunction with its key: a const arrow or a function declared
// after the call with the body's calls, an imported binding with its
// module and member (no body); a name bound to no function is left out.
func TestExposedMembersByName(t *testing.T) {
	is := is.New(t)
	src := `const { contextBridge, ipcRenderer } = require("electron");
const { more } = require("./more");
const open = (p) => ipcRenderer.invoke("open", p);
const n = 1;
contextBridge.exposeInMainWorld("api", { open, save: save, more, n });
function save(p) { return ipcRenderer.invoke("save", p); }
`
	f := facts(t, src)
	expose := -1
	for i, c := range f.Calls {
		if c.Callee == "contextBridge.exposeInMainWorld" {
			expose = i
		}
	}
	got := map[string]ports.JSFunction{}
	for _, fn := range f.Functions {
		if fn.Call == expose {
			got[fn.Prop] = fn
		}
	}
	is.Equal(len(got), 3)
	is.Equal(f.Calls[got["open"].First].Args[0].Value, "open")
	is.Equal(got["open"].End, got["open"].First+1)
	is.Equal(f.Calls[got["save"].First].Args[0].Value, "save")
	is.Equal(got["more"], ports.JSFunction{Call: expose, Arg: 1, Module: "./more", Member: "more", Prop: "more"})
}
