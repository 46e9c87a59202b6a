package js_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/js"
	"rea/ports"
)

// TestModuleLastNamesSelectByModule: a "module:name" pair selects a call
// whose root binding came from that module (node: aside, a member path
// or a renamed binding alike), and no call of that name on anything else.
func TestModuleLastNamesSelectByModule(t *testing.T) {
	is := is.New(t)
	src := `const fs = require("fs");
const fsp = require("node:fs/promises");
const { cpSync: copy } = require("fs");
const other = require("other");
fs.cpSync("a", "b");
fs.promises.cp("c", "d");
fsp.cp("e", "f");
copy("g", "h");
other.cp("no");
o.cp("no");
function f(fs) { fs.cp("no"); }
`
	sel := &ports.JSCallSelector{LastNames: []string{"unused"}, ModuleLastNames: []string{"fs:cp", "fs:cpSync", "fs/promises:cp"}}
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src), Calls: sel})
	is.NoErr(err)
	var got []string
	for _, c := range f.Calls {
		got = append(got, c.Callee+" "+c.Module+" "+c.Member)
	}
	is.Equal(got, []string{"fs.cpSync fs cpSync", "fs.promises.cp fs promises.cp", "fsp.cp node:fs/promises cp", "copy fs cpSync"})
}
