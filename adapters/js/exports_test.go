package js_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// shapes renders each export as "name=kind/params[+rest]" (params only for
// functions and classes), sorted.
func shapes(f *ports.JSFacts) string {
	var out []string
	for _, e := range f.Exports {
		s := e.Name + "=" + e.Value.Kind
		if e.Value.Params >= 0 {
			s += fmt.Sprintf("/%d", e.Value.Params)
		}
		if e.Value.Rest {
			s += "+rest"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func TestESMExportShapes(t *testing.T) {
	is := is.New(t)
	f := facts(t, `
export function plain(a, b) {}
export async function later(a) {}
export function* gen() {}
export async function* agen(...xs) {}
export const arrow = (a, b = 1, ...rest) => a;
export const asyncArrow = async x => x;
export class Base {}
export class WithCtor { constructor(a, b) {} method(x) {} }
export class Derived extends Base {}
export let n = -1, big = 10n, s = "x", tpl = `+"`t`"+`, yes = !0, nil = null, re = /a/g, obj = {}, arr = [], nothing = void 0;
export let later2;
const local = function (p, q, r) {};
const alias = local;
export { alias as renamed, hoisted, missing, };
function hoisted(a) {}
export default class { constructor(x) {} }
export { x } from "./other.js";
`)
	is.True(f.Parsed)
	is.Equal(shapes(f), "Base=class/0 Derived=class WithCtor=class/2 agen=async-generator/0+rest arr=array arrow=function/2+rest "+
		"asyncArrow=async-function/1 big=bigint default=class/1 gen=generator/0 hoisted=function/1 later2=unknown "+
		"later=async-function/1 missing=unknown n=number nil=null nothing=undefined obj=object plain=function/2 re=regexp "+
		"renamed=function/3 s=string tpl=string x=unknown yes=boolean")
}

func TestCommonJSExportShapes(t *testing.T) {
	is := is.New(t)
	f := facts(t, `"use strict";
exports.a = exports.b = void 0;
exports.a = a;
exports.b = class { constructor(x, y, z) {} };
module.exports.c = async function (p) {};
function a(x, y) {}
(function () {
  function inner(q) {}
  exports.d = inner;
  exports.e = unknownGlobal;
  exports.f = require("x");
})();
`)
	is.True(f.Parsed)
	// Placeholder assignments (void 0) are kept as observations; the core
	// layer decides between several observations of one name.
	is.Equal(shapes(f), "a=function/2 a=undefined b=class/3 b=undefined c=async-function/1 d=function/1 e=unknown f=unknown")

	g := facts(t, `module.exports = { one, two() {}, get three() { return 3 }, four: 4, ...more };
function one(a, b, c) {}`)
	is.Equal(shapes(g), "four=number one=function/3 three=unknown two=function/0")

	h := facts(t, `module.exports = function main(a) {};`)
	is.Equal(shapes(h), "default=function/1")
}

func TestExportShapeAliasCycleEnds(t *testing.T) {
	is := is.New(t)
	f := facts(t, `var a = b; var b = a; exports.x = a;`)
	is.Equal(shapes(f), "x=unknown")
}

// TestExportOffsetsNameTheExport checks that every export the source names
// has the offset of that name (the exported binding, the declared name, the
// exports property), so a definition can be located; an anonymous default
// export names nothing and keeps -1.
func TestExportOffsetsNameTheExport(t *testing.T) {
	is := is.New(t)
	src := "// é 😀\n" + `export function plain(a) {}
export class Base {}
export const one = 1, two = 2;
export let { destr } = {};
const local = 1;
export { local as renamed, local };
export default function main() {}
export { x } from "./other.js";
exports.cjs = 1;
module.exports.more = 2;
`
	f := facts(t, src)
	is.True(f.Parsed)
	want := map[string]string{"plain": "plain", "Base": "Base", "one": "one", "two": "two", "destr": "destr", "renamed": "local",
		"local": "local", "default": "main", "x": "x", "cjs": "cjs", "more": "more"}
	for _, e := range f.Exports {
		w, ok := want[e.Name]
		if !ok {
			t.Errorf("unexpected export %q", e.Name)
			continue
		}
		if e.Offset < 0 || int(e.Offset)+len(w) > len(src) || src[e.Offset:int(e.Offset)+len(w)] != w {
			t.Errorf("export %s (%s): offset %d does not name %q", e.Name, e.Kind, e.Offset, w)
		}
	}
	// An export clause naming a declaration is located at the declaration
	// (where a bundle's source map maps it), not in the clause.
	d := facts(t, "const local = 1;\nfunction f() {}\nexport { local as renamed, f, h, imp };\nfunction h() {}\nimport { imp } from \"m\";\n")
	want = map[string]string{"renamed": "6", "f": "26", "h": "82", "imp": "66"}
	for _, e := range d.Exports {
		// e.Name's declaration; an imported name has none in the file and
		// stays where the parser first met it (here the clause).
		is.Equal(fmt.Sprint(e.Offset), want[e.Name])
		// Only the one left in the clause says so: a bundle's map may
		// not map the clause.
		is.Equal(e.InClause, e.Name == "imp")
	}
	// An imported name has no declaration even when its import comes
	// first (esbuild writes an external's re-export as import { join }
	// ...; export { join }): it stays in the clause.
	src = "import { join } from \"node:path\";\nexport { join };\n"
	for _, e := range facts(t, src).Exports {
		is.Equal(e.Offset, int64(strings.LastIndex(src, "join")))
		is.True(e.InClause)
	}
	g := facts(t, "export default class {}\nmodule.exports = function () {};\n")
	for _, e := range g.Exports {
		if e.Name == "default" && e.Kind == "default" {
			is.Equal(e.Offset, int64(-1)) // nothing names an anonymous default export
		}
	}
}

// An import binding exported through a clause is a re-export of the name in
// its module, as export {a as b} from "./x" is: the definition lies there
// and the clause is where this file re-exports it. Before, it was a named
// export of this file located at the clause, so a question for b's
// definition ended at the clause.
func TestClauseReexportsAnImportBinding(t *testing.T) {
	src := "import { a, c as d } from \"./x.js\";\nimport def, * as ns from \"./y.js\";\nconst own = 1;\n" +
		"export { a, a as b, d as e, def, ns as space, own };\n"
	f := facts(t, src)
	var got []string
	for _, e := range f.Exports {
		at := "-"
		if e.Offset >= 0 {
			at = src[e.Offset : e.Offset+int64(len(e.Name))]
		}
		got = append(got, fmt.Sprintf("%s %s %s:%s @%s %v", e.Name, e.Kind, e.Source, e.Local, at, e.InClause))
	}
	want := []string{
		"a re-export ./x.js:a @a true",
		"b re-export ./x.js:a @b true",
		"e re-export ./x.js:c @e true",
		"def re-export ./y.js:default @def true",
		"space export-all ./y.js:* @space true",
		"own named : @own false", // its declaration
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("exports:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
