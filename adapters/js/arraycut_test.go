package js_test

import (
	"strconv"
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

// TestObjectAndArgumentsCutAreMarked: an object argument with more
// properties than the engine keeps has PropsCut and no property standing
// for the rest (Props stays the object's keys); a call with more
// arguments than it keeps, at the top or nested, ends them with an item
// of kind other, "…"; the file has one limitation per kind, counting
// each. Before, both were dropped silently.
func TestObjectAndArgumentsCutAreMarked(t *testing.T) {
	is := is.New(t)
	var props, args []string
	for i := range 34 {
		props = append(props, "k"+strconv.Itoa(i)+": "+strconv.Itoa(i))
	}
	for i := range 10 {
		args = append(args, strconv.Itoa(i))
	}
	src := "spawn({" + strings.Join(props, ", ") + "});\nspawn({a: 1}, " + strings.Join(args, ", ") + ");\nspawn(\"x\", f(" + strings.Join(args, ", ") + "));\nspawn(\"y\", new G(" + strings.Join(args, ", ") + "));\nspawn(" + strings.Join(args[:8], ", ") + ");\n"
	f := facts(t, src)
	var calls []ports.JSCall // the nested calls are recorded too
	for _, c := range f.Calls {
		if c.Callee == "spawn" {
			calls = append(calls, c)
		}
	}
	is.Equal(len(calls), 5)
	f.Calls = calls
	obj := f.Calls[0].Args[0]
	is.Equal(len(obj.Props), 32)
	is.True(obj.PropsCut)
	is.Equal(obj.Props[31].Key, "k31")
	is.True(!f.Calls[1].Args[0].PropsCut)
	is.Equal(len(f.Calls[1].Args), 9)
	is.Equal(f.Calls[1].Args[7].Value, "6")
	is.Equal(f.Calls[1].Args[8], ports.JSValue{Kind: ports.JSValOther, Value: "…", Offset: -1})
	for _, c := range f.Calls[2:4] {
		in := c.Args[1]
		is.Equal(len(in.Args), 9)
		is.Equal(in.Args[8], ports.JSValue{Kind: ports.JSValOther, Value: "…", Offset: -1})
	}
	is.Equal(len(f.Calls[4].Args), 8) // at the bound: whole, unmarked
	is.Equal(f.Calls[4].Args[7].Value, "7")
	var lims []string
	for _, l := range f.Limitations {
		if strings.Contains(l, " cut at ") {
			lims = append(lims, l)
		}
	}
	is.Equal(lims, []string{
		"Object arguments of recorded calls cut at 32 properties, the rest not recorded: 1.",
		"Recorded calls' arguments cut at 8, the rest not recorded (\"…\" ends each): 3.",
	})
}
