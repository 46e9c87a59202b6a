package js_test

import (
	"testing"

	"github.com/matryer/is"
)

// TestCommonJSReexports: a CommonJS module that passes on another's
// exports by assignment reports them as their ES forms do: the name's
// export with Source and Local (export {open} from "./x"), and for a
// whole module assigned to module.exports its default plus an export *.
// A name of the file, a deeper path and a plain value stay plain exports.
func TestCommonJSReexports(t *testing.T) {
	is := is.New(t)
	type ex struct{ name, kind, source, local string }
	for _, c := range []struct {
		src  string
		want []ex
	}{
		{`module.exports = require("./h");`, []ex{{"default", "commonjs", "", ""}, {"*", "export-all", "./h", ""}}},
		{`const h = require("./h"); module.exports = h;`, []ex{{"default", "commonjs", "", ""}, {"*", "export-all", "./h", ""}}},
		{`exports.open = require("./x").open;`, []ex{{"open", "commonjs", "./x", "open"}}},
		{`const h = require("./x"); exports.save = h.store;`, []ex{{"save", "commonjs", "./x", "store"}}},
		{`const {open} = require("./x"); function save() {} module.exports = {open, save, n: 1};`, []ex{{"open", "commonjs", "./x", "open"}, {"save", "commonjs", "", ""}, {"n", "commonjs", "", ""}}},
		{`exports.deep = require("./x").a.b; exports.ns = require("./x");`, []ex{{"deep", "commonjs", "", ""}, {"ns", "commonjs", "", ""}}},
	} {
		var got []ex
		for _, e := range facts(t, c.src).Exports {
			got = append(got, ex{e.Name, e.Kind, e.Source, e.Local})
		}
		is.Equal(got, c.want) // c.src
	}
}
