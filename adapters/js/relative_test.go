package js_test

import (
	"context"
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
