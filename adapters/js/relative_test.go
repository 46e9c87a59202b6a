package js_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/js"
	"rea/ports"
)

// RelativeInArguments selects a call on a binding from a relative
// specifier only inside a function written as an argument of a selected
// call (a handler), so its body holds it; not at the top level, not on a
// package's binding, and not without the option.
func TestRelativeCallsInArgumentsAreSelected(t *testing.T) {
	src := `const store = require("./lib/store");
const { save } = require("../up");
const pkg = require("pkg");
store.init();
ipcMain.handle("a", (e, n) => { store.save(n); save(n); pkg.save(n); });
`
	for _, on := range []bool{true, false} {
		is := is.New(t)
		f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src),
			Calls: &ports.JSCallSelector{LastNames: []string{"handle"}, RelativeInArguments: on}})
		is.NoErr(err)
		var got []string
		for _, c := range f.Calls {
			got = append(got, c.Callee)
		}
		if !on {
			is.Equal(got, []string{"ipcMain.handle"})
			is.Equal(len(f.Functions), 0) // a body that holds no recorded call is left out
			continue
		}
		is.Equal(got, []string{"ipcMain.handle", "store.save", "save"})
		is.Equal(len(f.Functions), 1)
		is.Equal([]int{f.Functions[0].First, f.Functions[0].End}, []int{1, 3})
	}
}

// RelativeInArguments also selects such a call inside a function the
// file declares (or binds to a const) before the call that passes it by
// name, since the walk meets its body before it knows: the handler's body
// (ports.JSFunction) holds it. Outside a function argument it is recorded
// without its arguments (only its callee is followed), so a cut in them is
// no limitation there, while one in a handler written in its registration
// is.
func TestRelativeCallsInNamedFunctionsAreSelected(t *testing.T) {
	is := is.New(t)
	src := `const store = require("./lib/store");
function onSave(e, n) { store.save(n); }
const onLoad = (e, id) => store.load(id);
function unused() { store.log(1, 2, 3, 4, 5, 6, 7, 8, 9); }
ipcMain.handle("save", onSave);
ipcMain.handle("load", onLoad);
ipcMain.handle("log", () => store.log(1, 2, 3, 4, 5, 6, 7, 8, 9));
store.init();
`
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src),
		Calls: &ports.JSCallSelector{LastNames: []string{"handle"}, RelativeInArguments: true}})
	is.NoErr(err)
	var got []string
	for _, c := range f.Calls {
		got = append(got, c.Callee)
	}
	is.Equal(got, []string{"store.save", "store.load", "store.log", "ipcMain.handle", "ipcMain.handle", "ipcMain.handle", "store.log"})
	is.Equal(len(f.Calls[2].Args), 0) // in a declaration: no arguments
	is.Equal(len(f.Calls[6].Args), 9) // in an argument: cut at 8, then "…"
	var bodies [][3]int
	for _, fn := range f.Functions {
		bodies = append(bodies, [3]int{fn.Call, fn.First, fn.End})
	}
	is.Equal(bodies, [][3]int{{3, 0, 1}, {4, 1, 2}, {5, 6, 7}})
	var lims []string
	for _, l := range f.Limitations {
		if strings.Contains(l, " cut at ") {
			lims = append(lims, l)
		}
	}
	is.Equal(lims, []string{"Recorded calls' arguments cut at 8, the rest not recorded (\"…\" ends each): 1."})
}
