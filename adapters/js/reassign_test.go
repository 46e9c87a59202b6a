package js_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestReassignedMembers: a const object's member passed by its path is
// the function last assigned to it in top-level code before the call,
// placed at the assignment's name, with that function's calls; assigned
// in a block, it is a name whose JSFunction says why it is not known.
func TestReassignedMembers(t *testing.T) {
	is := is.New(t)
	src := `const h = { open(e) { read("literal"); } };
h.open = function (e) { read("assigned"); };
on("a", h.open);
const c = {};
if (x) { c.save = () => read("cond"); }
on("b", c.save);
`
	f := facts(t, src)
	var a, b int
	for i, c := range f.Calls {
		if c.Callee == "on" {
			if c.Args[0].Value == "a" {
				a = i
			} else {
				b = i
			}
		}
	}
	is.Equal(f.Calls[a].Args[1], ports.JSValue{Kind: ports.JSValFunction, Value: "h.open", Offset: int64(strings.Index(src, "open ="))})
	is.Equal(f.Calls[b].Args[1].Kind, ports.JSValName)
	var got []string
	for _, fn := range f.Functions {
		switch fn.Call {
		case a:
			for _, c := range f.Calls[fn.First:fn.End] {
				got = append(got, c.Args[0].Value)
			}
		case b:
			is.Equal(fn, ports.JSFunction{Call: b, Arg: 1, Unknown: "it is assigned in a block (a condition, a loop), which may not run"})
			got = append(got, "unknown")
		}
	}
	is.Equal(got, []string{"assigned", "unknown"})
}
