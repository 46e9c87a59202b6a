package js_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/js"
	"rea/ports"
)

// The helpers as esbuild 0.28 emits them with --minify, and as older
// versions did (no try/catch).
const (
	cjsNew = `(o,t)=>()=>{try{return t||o((t={exports:{}}).exports,t),t.exports}catch(n){throw t=0,n}}`
	esmNew = `(o,t,n)=>()=>{if(n)throw n[0];try{return o&&(t=o(o=0)),t}catch(r){throw n=[r],r}}`
	cjsOld = `(e,t)=>()=>(t||e((t={exports:{}}).exports,t),t.exports)`
	esmOld = `(e,t)=>()=>(e&&(t=e(e=0)),t)`
)

type modView struct {
	id       string
	requires string
}

func modulesOf(f *ports.JSFacts) []modView {
	var out []modView
	for _, m := range f.Modules {
		out = append(out, modView{m.ID, strings.Join(m.Requires, ",")})
	}
	return out
}

func TestEsbuildMinifiedHelpersByShape(t *testing.T) {
	body := `var u=C((e,c)=>{e.x=1;c.exports.y=function(o,t){return o+t}});
var x={};function a(o){return o}var l,i=E(()=>{l=2});var g=C(function(e,c){var q=u();i();c.exports=q});`
	cases := []struct{ name, src string }{
		{"new", "var E=" + esmNew + ";\nvar C=" + cjsNew + ",b=(o,t)=>{};\n" + body},
		{"old", "var E=" + esmOld + ",C=" + cjsOld + ";\n" + body},
		{"function expressions", `var C=function(o,t){return function(){return t||o((t={exports:{}}).exports,t),t.exports}},
E=function(o,t){return function(){return o&&(t=o(o=0)),t}};` + body},
		{"iife", `"use strict";(()=>{var E=` + esmNew + `;var C=` + cjsNew + `;` + body + `})();`},
		{"iife with a global name", `var app=(function(){var E=` + esmOld + `;var C=` + cjsOld + `;` + body + `return g()})();`},
	}
	var first []modView
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			f := facts(t, c.src)
			is.Equal(f.Bundler, "esbuild")
			got := modulesOf(f)
			is.Equal(len(got), 3)
			is.True(strings.HasPrefix(got[0].id, "esbuild:cjs:"))
			is.Equal(len(got[0].id), len("esbuild:cjs:")+12)
			is.True(strings.HasPrefix(got[1].id, "esbuild:esm:"))
			is.True(strings.HasPrefix(got[2].id, "esbuild:cjs:"))
			is.Equal(got[2].requires, got[0].id+","+got[1].id)
			for _, m := range f.Modules {
				is.True(m.Start >= 0 && m.End > m.Start)
			}
			// The start is the binding's name.
			is.True(strings.HasPrefix(c.src[f.Modules[0].Start:], "u=C("))
			// The IDs depend on the modules, not on the helpers or the wrapper.
			if first == nil {
				first = got
			}
			is.Equal(got, first)
		})
	}
}

func TestEsbuildMinifiedIDs(t *testing.T) {
	is := is.New(t)
	helpers := "var C=" + cjsNew + ";"
	one := facts(t, helpers+`var a=C((e,c)=>{c.exports=1}),b=C((e,c)=>{c.exports=1}),d=C((e,c)=>{c.exports=2}),z=C((e,c)=>{c.exports=1});`)
	// Renamed locals, a moved module and a different helper name keep the IDs.
	two := facts(t, "var K="+cjsOld+";"+`var q=K((x,y)=>{y.exports=2});var r=K((m,n)=>{n.exports=1});var s=K((m,n)=>{n.exports=1});var t=K((m,n)=>{n.exports=1});`)
	ids := func(f *ports.JSFacts) []string {
		var out []string
		for _, m := range f.Modules {
			out = append(out, m.ID)
		}
		return out
	}
	a := ids(one)
	is.Equal(len(a), 4)
	is.Equal(a[1], a[0]+"-2") // same shape: numbered in file order
	is.Equal(a[3], a[0]+"-3")
	is.True(a[2] != a[0])
	b := ids(two)
	is.Equal(b[0], a[2])
	is.Equal(b[1:], []string{a[0], a[1], a[3]})
	is.Equal(one.Modules[0].Fingerprint[:12], strings.TrimPrefix(a[0], "esbuild:cjs:"))
}

func TestEsbuildShapeNegatives(t *testing.T) {
	cases := []struct{ name, src string }{
		{"memoize", `var m=(o,t)=>()=>(t||(t=o()),t);var a=m(()=>1);`},
		{"once", `var once=(f,r)=>()=>(f&&(r=f()),r);var a=once(()=>1);`},
		{"exports not empty", `var C=(o,t)=>()=>(t||o((t={exports:{a:1}}).exports,t),t.exports);var a=C((e,c)=>{});`},
		{"wrong returned value", `var C=(o,t)=>()=>(t||o((t={exports:{}}).exports,t),t);var a=C((e,c)=>{});`},
		{"esm without reset", `var E=(o,t)=>()=>(o&&(t=o(1)),t);var a=E(()=>{});`},
		{"inner takes parameters", `var C=(o,t)=>(n)=>(t||o((t={exports:{}}).exports,t),t.exports);var a=C((e,c)=>{});`},
		{"async", `var C=(o,t)=>async()=>(t||o((t={exports:{}}).exports,t),t.exports);var a=C((e,c)=>{});`},
		{"never called", `var C=` + cjsNew + `;var E=` + esmNew + `;var x=C;`},
		{"called without a function", `var C=` + cjsNew + `;var a=C(1),b=C(x),d=C((e,c)=>{},2);C((e,c)=>{});`},
		{"not at module scope", `var C=` + cjsNew + `;function f(){var a=C((e,c)=>{c.exports=1});return a}{var b=C((e,c)=>{})}`},
		{"helper not at module scope", `function f(){var C=` + cjsNew + `;var a=C((e,c)=>{});}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			f := facts(t, c.src)
			is.True(f.Parsed)
			is.Equal(f.Bundler, "")
			is.Equal(len(f.Modules), 0)
		})
	}
}

func TestEsbuildMinifiedModuleLimit(t *testing.T) {
	is := is.New(t)
	src := "var C=" + cjsNew + ";var a=C((e,c)=>{a2()}),b=C((e,c)=>{a()}),d=C((e,c)=>{b()});"
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Source: []byte(src), Limits: ports.JSLimits{MaxModules: 2}})
	is.NoErr(err)
	is.Equal(len(f.Modules), 2)
	is.Equal(f.ModulesOmitted, 1)
	is.Equal(f.Modules[1].Requires, []string{f.Modules[0].ID})
	is.True(strings.Contains(strings.Join(f.Limitations, " "), "1 bundled modules beyond the first 2"))
}

// TestEsbuildFixtures reads the committed outputs of the pinned esbuild
// (see testdata/esbuild/README).
func TestEsbuildFixtures(t *testing.T) {
	paths, _ := filepath.Glob("testdata/esbuild/*.js")
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	var want []modView
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			is := is.New(t)
			b, err := os.ReadFile(p)
			is.NoErr(err)
			f := facts(t, string(b))
			checkEntryBundle(t, f, b)
			if want == nil {
				want = modulesOf(f)
			}
			is.Equal(modulesOf(f), want)
		})
	}
}

// checkEntryBundle checks the three modules of testdata/esbuild/src: a.js
// (CommonJS), b.js (ESM, lazily initialised), c.js (requires both).
func checkEntryBundle(t *testing.T, f *ports.JSFacts, src []byte) {
	t.Helper()
	is := is.New(t)
	is.Equal(f.Bundler, "esbuild")
	is.Equal(len(f.Modules), 3)
	ms := f.Modules
	if strings.HasPrefix(ms[0].ID, "esbuild:") {
		is.True(strings.HasPrefix(ms[0].ID, "esbuild:cjs:"))
		is.True(strings.HasPrefix(ms[1].ID, "esbuild:esm:"))
		is.True(strings.HasPrefix(ms[2].ID, "esbuild:cjs:"))
	} else {
		is.Equal([]string{ms[0].ID, ms[1].ID, ms[2].ID}, []string{"src/a.js", "src/b.js", "src/c.js"})
	}
	is.Equal(ms[2].Requires, []string{ms[0].ID, ms[1].ID})
	for i, m := range ms {
		is.True(m.Start >= 0 && m.End > m.Start && m.End <= int64(len(src)))
		if i > 0 {
			is.True(m.Start >= ms[i-1].End)
		}
	}
}

// TestEsbuildGenerated bundles testdata/esbuild/src with the pinned esbuild
// under every minify flag, format and platform; it skips without npm ci.
func TestEsbuildGenerated(t *testing.T) {
	bin, err := filepath.Abs("../../node_modules/.bin/esbuild")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node_modules/.bin/esbuild is missing in CI: run npm ci")
		}
		t.Skip("node_modules/.bin/esbuild is missing: run npm ci at the repository root")
	}
	dir := t.TempDir()
	minIDs := map[string]bool{}
	for _, flags := range []string{"", "--minify", "--minify-syntax", "--minify-identifiers", "--minify-whitespace",
		"--minify-syntax --minify-identifiers", "--minify-whitespace --minify-identifiers"} {
		for _, format := range []string{"iife", "cjs", "esm"} {
			for _, platform := range []string{"browser", "node"} {
				name := strings.NewReplacer("--", "", " ", "+").Replace(flags) + "-" + format + "-" + platform
				t.Run(name, func(t *testing.T) {
					out := filepath.Join(dir, name+".js")
					args := append(strings.Fields(flags), "src/entry.js", "--bundle", "--log-level=error",
						"--format="+format, "--platform="+platform, "--outfile="+out)
					cmd := exec.Command(bin, args...)
					cmd.Dir = "testdata/esbuild"
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("esbuild %v: %v\n%s", args, err, b)
					}
					src, err := os.ReadFile(out)
					if err != nil {
						t.Fatal(err)
					}
					f := facts(t, string(src))
					checkEntryBundle(t, f, src)
					if id := f.Modules[0].ID; strings.HasPrefix(id, "esbuild:") {
						minIDs[id+" "+f.Modules[1].ID+" "+f.Modules[2].ID] = true
					}
				})
			}
		}
	}
	// Every keyless build names the modules alike.
	if len(minIDs) != 1 {
		t.Errorf("keyless builds disagree on module IDs: %v", minIDs)
	}
}

// TestEsbuildRenamedKeyedHelper: the unminified helpers under other names
// (--minify-identifiers of old esbuild versions) keep the key IDs.
func TestEsbuildRenamedKeyedHelper(t *testing.T) {
	is := is.New(t)
	f := facts(t, `var n=Object.getOwnPropertyNames;
var K=(cb,mod)=>function(){try{return mod||(0,cb[n(cb)[0]])((mod={exports:{}}).exports,mod),mod.exports}catch(e){throw mod=0,e}};
var I=(fn,res,err)=>function(){if(err)throw err[0];try{return fn&&(res=(0,fn[n(fn)[0]])(fn=0)),res}catch(e){throw err=[e],e}};
var r=K({"src/a.js"(e,m){s()}}),s=I({"src/b.js"(){}});`)
	is.Equal(f.Bundler, "esbuild")
	is.Equal(modulesOf(f), []modView{{"src/a.js", "src/b.js"}, {"src/b.js", ""}})
}

// TestEsbuildSameShapeTellsRequiresApart: two modules of one shape that
// require different modules get different IDs, whatever their order.
func TestEsbuildSameShapeTellsRequiresApart(t *testing.T) {
	is := is.New(t)
	head := `var f=(o,t)=>()=>(t||o((t={exports:{}}).exports,t),t.exports);var a=f((e,m)=>{m.exports=1});var b=f((e,m)=>{m.exports="two"});`
	x := `var x=f((e,m)=>{m.exports=a()});`
	y := `var y=f((e,m)=>{m.exports=b()});`
	ids := func(src string) map[string]string { // required id -> requiring module id
		out := map[string]string{}
		for _, m := range facts(t, src).Modules {
			for _, r := range m.Requires {
				out[r] = m.ID
			}
		}
		return out
	}
	one, two := ids(head+x+y+"x();y();"), ids(head+y+x+"x();y();")
	is.Equal(len(one), 2)
	is.Equal(one, two)
	var requiring []string
	for _, id := range one {
		requiring = append(requiring, id)
	}
	is.True(requiring[0] != requiring[1])
	for _, id := range one {
		is.True(!strings.Contains(id, "-")) // told apart without file-order numbers
	}
}
