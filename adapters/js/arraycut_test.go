package js_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestArrayArgumentCutIsMarked: an array argument longer than the items
// the engine keeps ends with an item of kind other, "…", and the file has
// a limitation saying so; one within the bound is whole and unmarked.
// Before, the items past the 16th were dropped silently, and the array
// read as written out in full.
func TestArrayArgumentCutIsMarked(t *testing.T) {
	is := is.New(t)
	var long []string
	for i := range 20 {
		long = append(long, `"a`+string(rune('a'+i))+`"`)
	}
	// the third call's array reads a let string, so its arguments are
	// captured twice (settled at the end of the walk): still one array cut
	src := "let v = \"a\";\nspawn(\"tool\", [" + strings.Join(long, ", ") + "]);\nspawn(\"short\", [\"x\", \"y\"]);\nspawn(\"var\", [v, " + strings.Join(long, ", ") + "]);\n"
	f := facts(t, src)
	is.Equal(len(f.Calls), 3)
	cut, whole := f.Calls[0].Args[1], f.Calls[1].Args[1]
	is.Equal(len(cut.Items), 17)
	is.Equal(cut.Items[15].Value, "ap")
	is.Equal(cut.Items[16], ports.JSValue{Kind: ports.JSValOther, Value: "…", Offset: -1})
	is.Equal(len(whole.Items), 2)
	is.Equal(whole.Items[1].Value, "y")
	is.Equal(len(f.Calls[2].Args[1].Items), 17)
	n := 0
	for _, l := range f.Limitations {
		if strings.HasPrefix(l, "Array arguments") {
			n++
			is.Equal(l, "Array arguments of recorded calls cut at 16 items, the rest not recorded (\"…\" ends each): 2.")
		}
	}
	is.Equal(n, 1)
}
