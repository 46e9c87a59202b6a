package js_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/js"
	"rea/ports"
)

func facts(t *testing.T, src string) *ports.JSFacts {
	t.Helper()
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestImportsAndExports(t *testing.T) {
	is := is.New(t)
	src := `import a, {b as c} from "m";
import * as ns from './n.js';
export * from "./x.js";
export * as q from "./y.js";
export {c as e} from "./z.js";
export function f() {}
export default 1;
const r = require('fs');
import('./lazy.js');
import(name);
new Worker(new URL('./w.js', import.meta.url));
new SharedWorker('./sw.js');
navigator.serviceWorker.register('/sw.js');
importScripts('a.js', 'b.js');
`
	f := facts(t, src)
	is.True(f.Parsed)
	is.Equal(f.ModuleType, "esm")
	type im struct{ kind, spec string }
	var got []im
	for _, i := range f.Imports {
		got = append(got, im{i.Kind, i.Specifier})
		if !i.Dynamic {
			// Every literal import has the offset of its quoted specifier.
			is.True(i.Offset >= 0)
			is.True(strings.HasPrefix(src[i.Offset:], `"`+i.Specifier) || strings.HasPrefix(src[i.Offset:], `'`+i.Specifier))
		}
	}
	want := []im{{"import", "m"}, {"import", "./n.js"}, {"export-all", "./x.js"}, {"export-all", "./y.js"}, {"export-from", "./z.js"},
		{"require", "fs"}, {"dynamic-import", "./lazy.js"}, {"dynamic-import", ""}, {"worker", "./w.js"}, {"shared-worker", "./sw.js"},
		{"service-worker", "/sw.js"}, {"import-scripts", "a.js"}, {"import-scripts", "b.js"}}
	is.Equal(len(got), len(want))
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("missing import %v in %v", w, got)
		}
	}
	var names []string
	for _, e := range f.Exports {
		names = append(names, e.Kind+":"+e.Name)
	}
	for _, w := range []string{"export-all:*", "export-all:q", "re-export:e", "named:f", "default:default"} {
		if !strings.Contains(strings.Join(names, " "), w) {
			t.Errorf("missing export %s in %v", w, names)
		}
	}
}

func TestCallsWithAliases(t *testing.T) {
	is := is.New(t)
	src := `const { ipcMain: i, BrowserWindow } = require("electron");
const path = require('path');
i.handle("ch:one", () => 1);
new BrowserWindow({ webPreferences: { preload: path.join(__dirname, "preload.js"), sandbox: true } });
require("electron").ipcMain.on("ch:two", f);
const addon = require('./x.node');
addon.compute(1, "two");
`
	f := facts(t, src)
	is.True(f.Parsed)
	byCallee := map[string]ports.JSCall{}
	for _, c := range f.Calls {
		byCallee[c.Callee] = c
	}
	h := byCallee["i.handle"]
	is.Equal(h.Module, "electron")
	is.Equal(h.Member, "ipcMain.handle")
	is.Equal(h.Args[0].Value, "ch:one")
	is.Equal(src[h.Args[0].Offset:h.Args[0].Offset+8], `"ch:one"`)
	bw := byCallee["BrowserWindow"]
	is.True(bw.New)
	is.Equal(bw.Member, "BrowserWindow")
	pre := bw.Args[0].Props[0].Value.Props[0]
	is.Equal(pre.Key, "preload")
	is.Equal(pre.Value.Kind, ports.JSValCall)
	is.Equal(pre.Value.Value, "path.join")
	is.Equal(pre.Value.Args[0].Value, "__dirname")
	is.Equal(pre.Value.Args[1].Value, "preload.js")
	on := byCallee[`require("electron").ipcMain.on`]
	is.Equal(on.Member, "ipcMain.on")
	nc := byCallee["addon.compute"]
	is.Equal(nc.Module, "./x.node")
	is.Equal(nc.Member, "compute")
}

func TestStringsAndTemplates(t *testing.T) {
	is := is.New(t)
	src := "const a = 'it\\'s', b = \"\\u0041\\x42\\u{1F600}\", c = `plain`, d = `x${a}y`;"
	f := facts(t, src)
	var vals []string
	for _, s := range f.Strings {
		vals = append(vals, s.Value)
		is.True(s.Offset >= 0)
	}
	is.Equal(vals, []string{"it's", "AB😀", "plain"})
}

func TestWebpackModuleTable(t *testing.T) {
	is := is.New(t)
	src := `(() => { var __webpack_modules__ = ({
"./src/a.js": ((m, e, __webpack_require__) => { __webpack_require__.d(e, { run: () => run }); var b = __webpack_require__("./src/b.js"); function run() { return "a"; } }),
"./src/b.js": ((m, e, r) => { r.d(e, { x: () => 1 }); })
}); })();`
	f := facts(t, src)
	is.Equal(f.Bundler, "webpack")
	is.Equal(len(f.Modules), 2)
	a := f.Modules[0]
	is.Equal(a.ID, "./src/a.js")
	is.Equal(a.Requires, []string{"./src/b.js"})
	is.Equal(len(a.Exports), 1)
	is.Equal(a.Exports[0].Name, "run")
	is.Equal(a.Exports[0].Value, ports.JSValueShape{Kind: ports.JSValueFunction, Params: 0}) // the getter's local function
	is.True(strings.HasPrefix(src[a.Exports[0].Offset:], "run:"))
	is.True(a.Start >= 0 && a.End > a.Start)
	is.Equal(len(a.Fingerprint), 64)
	is.Equal(len(f.Modules[1].Exports), 1)
	is.Equal(f.Modules[1].Exports[0].Name, "x")
	is.Equal(f.Modules[1].Exports[0].Value.Kind, ports.JSValueNumber)
}

func TestMinifiedWebpackFingerprintIgnoresNames(t *testing.T) {
	is := is.New(t)
	one := facts(t, `var __webpack_require__;({1:(e,t,n)=>{n(2);t.x="v"},2:(e,t,n)=>{}})`)
	two := facts(t, `var __webpack_require__;({1:(a,b,c)=>{c(2);b.x="v"},2:(a,b,c)=>{}})`)
	is.Equal(len(one.Modules), 2)
	is.Equal(one.Modules[0].Requires, []string{"2"})
	is.Equal(one.Modules[0].Fingerprint, two.Modules[0].Fingerprint)
}

func TestEsbuildCommonJS(t *testing.T) {
	is := is.New(t)
	src := `var __commonJS = (cb, mod) => function () { return mod; };
var require_b = __commonJS({ "node_modules/b/index.js"(exports, module) { module.exports = 1; } });
var require_a = __commonJS({ "src/a.js"(exports, module) { var b = require_b(); } });
`
	f := facts(t, src)
	is.Equal(f.Bundler, "esbuild")
	is.Equal(len(f.Modules), 2)
	is.Equal(f.Modules[1].ID, "src/a.js")
	is.Equal(f.Modules[1].Requires, []string{"node_modules/b/index.js"})
}

func TestSourceMapComment(t *testing.T) {
	is := is.New(t)
	f := facts(t, "var a;\n//# sourceMappingURL=a.js.map\n")
	is.Equal(f.SourceMap.URL, "a.js.map")
	f = facts(t, "var a;\n/*# sourceMappingURL=data:application/json;base64,e30= */\n")
	is.Equal(f.SourceMap.URL, "data:application/json;base64,e30=")
}

func TestBadInput(t *testing.T) {
	deep := strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000)
	deepArr := strings.Repeat("[", 3000) + strings.Repeat("]", 3000)
	deepFn := strings.Repeat("function f(){", 2000) + strings.Repeat("}", 2000)
	cases := []struct {
		name, src string
		parsed    bool
		errors    bool
		limit     string
	}{
		{"syntax error", "function ( {", false, true, ""},
		{"deep parens", deep, false, true, ""},
		{"deep arrays", deepArr, false, true, ""},
		{"deep functions", deepFn, false, true, ""},
		{"binary", "\x00\x01\x02ELF", false, false, "not JavaScript text"},
		{"invalid utf-8", "var a = '\xff\xfe\xfd';", false, false, "not valid UTF-8"},
		{"empty", "", true, false, ""},
		{"unterminated string", "var a = 'abc", false, true, ""},
		{"regexp and division", "var a = b / c / d; var r = /x\\/y/g.test(a);", true, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			f := facts(t, c.src)
			is.Equal(f.Parsed, c.parsed)
			is.Equal(len(f.Errors) > 0, c.errors)
			if c.limit != "" {
				is.True(strings.Contains(strings.Join(f.Limitations, " "), c.limit))
			}
		})
	}
}

func TestSizeLimitAndCancellation(t *testing.T) {
	is := is.New(t)
	src := bytes.Repeat([]byte("a+"), 600)
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Source: src, Limits: ports.JSLimits{MaxSourceBytes: 1000}})
	is.NoErr(err)
	is.True(!f.Parsed)
	is.True(strings.Contains(f.Limitations[0], "parse limit"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = js.New().Facts(ctx, ports.JSRequest{Source: []byte("var a")})
	is.True(err != nil)
}

func TestSourceNotModified(t *testing.T) {
	is := is.New(t)
	src := make([]byte, 5, 10)
	copy(src, "var a")
	full := src[:10]
	for i := 5; i < 10; i++ {
		full[i] = 'z'
	}
	_, err := js.New().Facts(context.Background(), ports.JSRequest{Source: src})
	is.NoErr(err)
	is.Equal(string(full), "var azzzzz")
}

func TestLimitsStrings(t *testing.T) {
	is := is.New(t)
	var sb strings.Builder
	for i := 0; i < 50; i++ {
		sb.WriteString(`x("s");`)
	}
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Source: []byte(sb.String()), Limits: ports.JSLimits{MaxStrings: 10, MaxCalls: 5}})
	is.NoErr(err)
	is.Equal(len(f.Strings), 10)
	is.Equal(f.StringsOmitted, 40)
	is.Equal(len(f.Calls), 5)
	is.Equal(f.CallsOmitted, 45)
}

// TestTopLevelReturn: Node wraps CommonJS files in a function, so a
// top-level return parses (shebang or not); in an ES module it stays an
// error.
func TestTopLevelReturn(t *testing.T) {
	is := is.New(t)
	src := "#!/usr/bin/env node\n'use strict';\nvar test = require('tape');\nif (typeof Symbol !== 'function') { return; }\nexports.ok = function (a) {};\n"
	f := facts(t, src)
	is.True(f.Parsed)
	is.Equal(len(f.Errors), 0)
	is.Equal(f.ModuleType, "commonjs")
	is.Equal(len(f.Imports), 1)
	is.True(strings.HasPrefix(src[f.Imports[0].Offset:], "'tape'")) // offsets are the source's
	is.Equal(f.Exports[0].Value.Kind, ports.JSValueFunction)
	g := facts(t, "import x from 'y';\nreturn;\n")
	is.True(!g.Parsed)
	is.True(len(g.Errors) > 0)
}

// TestWebpackMethodTableAndRuntimeRequires: webpack 5's method-shorthand
// tables (numeric ids once minified), the runtime's require function found
// by the call that runs a module, its direct and bound calls outside the
// table, and CommonJS exports written through a module's own parameters.
func TestWebpackMethodTableAndRuntimeRequires(t *testing.T) {
	is := is.New(t)
	src := `(()=>{var e={416(e,t){t.S=function(e,n){return"v="+e}},7(e){e.exports={a:1,b(){}}},"./x.js"(m,x,q){q(416);x.y=q.bind(q,7)}};const t={};` +
		`function r(n){const o=t[n];if(void 0!==o)return o.exports;const s=t[n]={exports:{}};return e[n](s,s.exports,r),s.exports}` +
		`r.e=()=>Promise.resolve();var n=r(416);r.e(480).then(r.bind(r,480));f(416);})();`
	f := facts(t, src)
	is.Equal(f.Bundler, "webpack")
	is.Equal(len(f.Modules), 3)
	byID := map[string]ports.JSBundledModule{}
	for _, m := range f.Modules {
		byID[m.ID] = m
	}
	is.Equal(byID["416"].Exports[0].Name, "S")
	is.Equal(byID["416"].Exports[0].Value, ports.JSValueShape{Kind: ports.JSValueFunction, Params: 2})
	is.Equal(len(byID["7"].Exports), 2) // module.exports = {a, b() {}}
	is.Equal(byID["./x.js"].Requires, []string{"416", "7"})
	var entry []string
	for _, r := range f.EntryRequires {
		entry = append(entry, r.ID)
		is.True(r.Offset > 0 && strings.HasPrefix(src[r.Offset:], r.ID))
	}
	is.Equal(entry, []string{"416", "480"}) // f(416) is not the runtime's require
	is.Equal(len(f.Exports), 0)             // the modules' exports are not the file's
}

// TestWebpackExternals: a table module that only re-exports
// require("electron") is an external; requiring its id through the
// bundle's require function (in a module or in the entry code) aliases
// electron, so renamed bindings and new X().m() calls are reported with
// their electron members, even under a call selector.
func TestWebpackExternals(t *testing.T) {
	is := is.New(t)
	src := `(()=>{var e={731(e,t,r){const{ipcMain:s}=r(157);s.handle("items:list",()=>1)},157(e){"use strict";e.exports=require("electron")},` +
		`electron(e){e.exports=require("electron")}};const t={};function r(s){const n=t[s];if(void 0!==n)return n.exports;const o=t[s]={exports:{}};return e[s](o,o.exports,r),o.exports}` +
		`const{BrowserWindow:n}=r(157);new n({}).loadFile("index.html");r(731)})();`
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Source: []byte(src),
		Calls: &ports.JSCallSelector{LastNames: []string{"handle", "BrowserWindow", "loadFile"}}})
	is.NoErr(err)
	is.Equal(len(f.Modules), 3) // "electron" is a key without a path, accepted as an external
	got := map[string]string{}
	for _, c := range f.Calls {
		got[c.Callee] = c.Module + " " + c.Member
	}
	is.Equal(got["s.handle"], "electron ipcMain.handle")
	is.Equal(got["n"], "electron BrowserWindow")
	is.Equal(got["new n.loadFile"], "electron BrowserWindow.loadFile")
}

// TestWebpackEvalModules: module code kept in eval strings (webpack's eval
// devtools) is parsed with the module's parameters, so its requires,
// exports and literals are facts, with offsets inside the eval literal.
func TestWebpackEvalModules(t *testing.T) {
	is := is.New(t)
	src := `(()=>{var __webpack_modules__={"./a.js"(module,exports,__webpack_require__){eval("{const b = __webpack_require__(\"./b.js\");\nexports.go = function (x) { return fetch(\"https://api.example.com/\\u00e9\"); };\n}\n//# sourceURL=webpack://app/./a.js\n//# sourceMappingURL=data:application/json;base64,e30=\n")},` +
		`"./b.js"(module){eval("module.exports = 1;")}};function __webpack_require__(id){return __webpack_modules__[id](m,m.exports,__webpack_require__)}__webpack_require__("./a.js")})();`
	f := facts(t, src)
	is.Equal(len(f.Modules), 2)
	a := f.Modules[0]
	is.Equal(a.Requires, []string{"./b.js"})
	is.Equal(len(a.Exports), 1)
	is.Equal(a.Exports[0].Value.Kind, ports.JSValueFunction)
	is.Equal(a.SourceURL, "webpack://app/./a.js")
	is.True(a.SourceMap != nil && strings.HasPrefix(src[a.SourceMap.Offset:], "data:application/json;base64,e30="))
	is.True(f.SourceMap == nil) // the comment inside the eval string is not the file's
	found := false
	for _, s := range f.Strings {
		if s.Value == "https://api.example.com/\u00e9" {
			found = true
			is.True(strings.HasPrefix(src[s.Offset:], `\"https://api.example.com/`)) // the literal's opening quote, escaped in the eval string
		}
	}
	is.True(found)
}

// TestBundlerMarkers: the runtime names and marks that name a bundler, and
// words that do not.
func TestBundlerMarkers(t *testing.T) {
	for src, want := range map[string]string{
		`__webpack_require__("./a.js")`:                                  "webpack",
		`(self.webpackChunkapp = self.webpackChunkapp || [])`:            "webpack",
		`window.webpackJsonp = []`:                                       "webpack",
		`__webpack_require__.ruid = "bundler=rspack@1.6.2";`:             "rspack",
		`__webpack_require__.rv = () => "1.6.2"; var rspack_version = 1`: "rspack",
		`self.rspackChunkx = []`:                                         "rspack",
		`var a = __toESM(require("x"));`:                                 "esbuild",
		`console.log("built with webpack and rspack, packed")`:           "",
		`var backpack = 1, webpackage = 2;`:                              "",
	} {
		if got := facts(t, src).Bundler; got != want {
			t.Errorf("%s: bundler %q, want %q", src, got, want)
		}
	}
	f := facts(t, `(self.webpackChunkmy_app$1 = self.webpackChunkmy_app$1 || []).push([[1], {}])`)
	if f.ChunkGlobal != "webpackChunkmy_app$1" {
		t.Errorf("chunk global %q", f.ChunkGlobal)
	}
}

// TestImportBindingsAlias: the parser leaves ES import bindings
// undeclared; they still alias their module, renamed or not.
func TestImportBindingsAlias(t *testing.T) {
	is := is.New(t)
	f := facts(t, `import { ipcRenderer as r } from "electron"; import fs from "node:fs"; import * as e from "electron";
r.send("a"); fs.writeFileSync("/tmp/x", "y"); e.ipcRenderer.invoke("b");`)
	got := map[string]string{}
	for _, c := range f.Calls {
		got[c.Callee] = c.Module + " " + c.Member
	}
	is.Equal(got["r.send"], "electron ipcRenderer.send")
	is.Equal(got["fs.writeFileSync"], "node:fs writeFileSync")
	is.Equal(got["e.ipcRenderer.invoke"], "electron ipcRenderer.invoke")
}

// TestASIAfterArrowBlock: a line starting with [ or ( after an arrow
// function's block body is a new statement (npm's own base-cmd.js has one);
// the parser misses that semicolon, the engine supplies it, offsets kept.
func TestASIAfterArrowBlock(t *testing.T) {
	is := is.New(t)
	src := "const gen = (x) => {\n  return x\n}\n\n[1, 2].forEach(gen)\nconst h = () => {}\n(function () { require('./after.js') })()\n"
	f := facts(t, src)
	is.True(f.Parsed)
	is.Equal(len(f.Errors), 0)
	is.Equal(len(f.Imports), 1)
	is.True(strings.HasPrefix(src[f.Imports[0].Offset:], "'./after.js'"))
	g := facts(t, "a = b\n]") // a real error stays one
	is.True(!g.Parsed)
}

// TestWebpackChunkWorkerNames: require.u written as a concatenation, with
// a per-chunk map of hashes, names the worker's chunk file.
func TestWebpackChunkWorkerNames(t *testing.T) {
	is := is.New(t)
	src := `(()=>{var e={};function r(n){return e[n](o,o.exports,r)}r.u=e=>"js/"+e+"."+{447:"9f1c",339:"aa00"}[e]+".chunk.js";` +
		`new Worker(new URL(r.p+r.u(447),r.b));new Worker(new URL(r.p+r.u(999),r.b))})();`
	f := facts(t, src)
	var specs []string
	dynamic := 0
	for _, im := range f.Imports {
		if im.Kind == ports.JSWorker {
			if im.Dynamic {
				dynamic++
			} else {
				specs = append(specs, im.Specifier)
				is.True(strings.HasPrefix(src[im.Offset:], "447"))
			}
		}
	}
	is.Equal(specs, []string{"./js/447.9f1c.chunk.js"})
	is.Equal(dynamic, 1) // an id the map does not hold stays unknown
}

// TestOwnedSourceGivesTheSameFacts: a source handed over with room for the
// parser's NUL is parsed in place and gives the facts of a copied one
// (offsets, strings, a top-level return, an ASI retry, a syntax error),
// and its bytes are unchanged.
func TestOwnedSourceGivesTheSameFacts(t *testing.T) {
	for _, src := range []string{
		"import a from 'm';\nconst r = require(\"./r.js\");\nipcMain.handle('chan', () => 1);\nexport default `t${a}`;\n",
		"#!/usr/bin/env node\nvar t = require('tape');\nif (!t) { return; }\nexports.ok = function () {};\n",
		"const gen = (x) => {\n  return x\n}\n\n[1, 2].forEach(gen)\n(function () { require('./after.js') })()\n",
		"a = b\n]",
		"",
	} {
		want, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src), Calls: &ports.JSCallSelector{LastNames: []string{"handle"}}})
		if err != nil {
			t.Fatal(err)
		}
		owned := make([]byte, len(src), len(src)+1)
		copy(owned, src)
		got, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: owned, SourceOwned: true, Calls: &ports.JSCallSelector{LastNames: []string{"handle"}}})
		if err != nil {
			t.Fatal(err)
		}
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if !bytes.Equal(wj, gj) {
			t.Errorf("%q: owned source gives\n%s\nwant\n%s", src, gj, wj)
		}
		if string(owned) != src {
			t.Errorf("%q: the owned bytes changed to %q", src, owned)
		}
	}
}

// TestCalleeOffset: a call without a literal argument is located by its
// callee's name: a member's property at the call, a plain name inside a
// function at its first use in the call's scope (a token of the same
// function); a plain name at the top level is not located, since its
// first use may lie anywhere in the file.
func TestCalleeOffset(t *testing.T) {
	is := is.New(t)
	src := "fetch(u);\n" +
		"function a(e) { return new WebSocket(e); }\n" +
		"function b(x) { if (x) { fetch(x); } return fetch(x + 1); }\n" +
		"(0, api.ipc.send)(ch);\n" +
		"api[\"send\"](ch);\n"
	f := facts(t, src)
	is.True(f.Parsed)
	got := map[string][]string{}
	for _, c := range f.Calls {
		at := "-"
		if c.CalleeOffset >= 0 {
			name, _, _ := strings.Cut(src[c.CalleeOffset:], "(")
			at = fmt.Sprintf("%d:%s", strings.Count(src[:c.CalleeOffset], "\n")+1, strings.Trim(name, "\")]"))
		}
		got[c.Callee] = append(got[c.Callee], at)
	}
	is.Equal(got, map[string][]string{
		"fetch":        {"-", "3:fetch", "3:fetch"}, // the second fetch in b is located at the first
		"WebSocket":    {"2:WebSocket"},
		"api.ipc.send": {"4:send"},
		"api.send":     {"5:send"},
	})
}

// TestWebpackModuleWorkers: a table module calls u on its own require
// parameter, so the runtime's u names the chunk; serviceWorker.register
// takes a new URL as a worker does. A chunk file without the runtime's u
// leaves its worker dynamic, with the chunk id for core to name.
func TestWebpackModuleWorkers(t *testing.T) {
	is := is.New(t)
	src := `(()=>{var e={166(e,t,n){new Worker(new URL(n.p+n.u(447),n.b));navigator.serviceWorker.register(new URL(n.p+n.u(495),n.b))}};` +
		`function n(r){return e[r](o,o.exports,n)}n.u=e=>e+".chunk.js";n(166)})();navigator.serviceWorker.register(new URL("./sw.js",import.meta.url));`
	f := facts(t, src)
	var got []string
	for _, im := range f.Imports {
		got = append(got, fmt.Sprintf("%s %s %d", im.Kind, im.Specifier, im.InModule))
	}
	is.Equal(got, []string{"service-worker ./sw.js -1", "worker ./447.chunk.js 0", "service-worker ./495.chunk.js 0"})
	is.Equal([]string{f.Imports[0].Chunk, f.Imports[1].Chunk, f.Imports[2].Chunk}, []string{"", "447", "495"})
	g := facts(t, `(self.webpackChunk=self.webpackChunk||[]).push([[339],{339(e,t,n){new Worker(new URL(n.p+n.u(447),n.b))}}]);`)
	is.Equal(len(g.Imports), 1)
	is.True(g.Imports[0].Dynamic)
	is.Equal(g.Imports[0].Chunk, "447")
	is.Equal(g.Imports[0].InModule, 0)
	is.Equal(g.ChunkNames, nil)
}

// TestWebpackChunkNames: a runtime file reports its chunk file name
// function as a template, in the forms webpack writes (production,
// development, content hashes in a table), for the chunks of its build's
// other files; a file that is no webpack runtime, or holds two such
// functions, reports none, and a worker in the runtime's own file is
// still named there.
func TestWebpackChunkNames(t *testing.T) {
	runtime := func(u string) string {
		return `(()=>{var e={};function r(o){const s={exports:{}};return e[o](s,s.exports,r),s.exports}` + u +
			`;const o=Array.isArray(self.webpackChunkwp)?self.webpackChunkwp:self.webpackChunkwp=[];})();`
	}
	for _, tc := range []struct {
		name, src string
		want      map[string]string // chunk id -> name; "" when not named
	}{
		{"production", runtime(`r.u=e=>"chunks/"+e+".chunk.js"`), map[string]string{"447": "chunks/447.chunk.js", "worker_js": "chunks/worker_js.chunk.js"}},
		{"development", runtime(`__webpack_require__.u = (chunkId) => ("chunks/" + chunkId + ".chunk.js")`), map[string]string{"447": "chunks/447.chunk.js"}},
		{"function", runtime(`r.u=function(e){return ""+e+".js"}`), map[string]string{"12": "12.js"}},
		{"hashed", runtime(`r.u=e=>e+"."+{299:"54adc968",447:"c8c91425","a_js":"9a24"}[e]+".js"`),
			map[string]string{"447": "447.c8c91425.js", "a_js": "a_js.9a24.js", "12": ""}},
		{"hashed entries", runtime(`r.u=e=>({1:"x/"+e,2:"y"}[e])+".js"`), map[string]string{"1": "x/1.js", "2": "y.js", "3": ""}},
		// Named chunks (webpackChunkName): the other chunks are named by id.
		{"one named", runtime(`r.u=e=>(812===e?"lazyname":e)+"."+{447:"a7",812:"11"}[e]+".js"`),
			map[string]string{"812": "lazyname.11.js", "447": "447.a7.js", "12": ""}},
		{"one named, development", runtime(`__webpack_require__.u = (chunkId) => ((chunkId === 812 ? "lazyname" : chunkId) + ".chunk.js")`),
			map[string]string{"812": "lazyname.chunk.js", "447": "447.chunk.js"}},
		{"one named, negated", runtime(`r.u=function(e){return("a"!=e?e:"n/"+"x")+".js"}`), map[string]string{"a": "n/x.js", "b": "b.js"}},
		{"several named", runtime(`r.u=e=>(({714:"othername",812:"lazyname"}[e]||e)+"."+{447:"a7",714:"75",812:"11"}[e]+".js")`),
			map[string]string{"714": "othername.75.js", "812": "lazyname.11.js", "447": "447.a7.js", "12": ""}},
		{"several named, an empty name", runtime(`r.u=e=>({1:"",2:"b",1:"a",3:"c",3:""}[e]||e)+".js"`), map[string]string{"1": "a.js", "2": "b.js", "3": "3.js", "4": "4.js"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			f := facts(t, tc.src)
			is.Equal(f.ChunkGlobal, "webpackChunkwp")
			is.True(f.ChunkNames != nil)
			for id, want := range tc.want {
				got, ok := f.ChunkNames.Name(id)
				is.Equal(ok, want != "")
				is.Equal(got, want)
			}
		})
	}
	for _, src := range []string{
		`var x={};x.u=e=>e+".js";`,                        // no webpack runtime
		runtime(`r.u=e=>e+".js";const v={u:e=>e+".css"}`), // two functions
		runtime(`r.u=e=>e.toString()+".js"`),              // a form not read
		// Named chunk forms whose fallback is not the id, or whose name
		// is not a name (a number, a call, a computed key).
		runtime(`r.u=e=>(812===e?"lazyname":"x")+".js"`),
		runtime(`r.u=e=>(e===e?"lazyname":e)+".js"`),
		runtime(`r.u=e=>(812<e?"lazyname":e)+".js"`),
		runtime(`r.u=e=>(812===e?0:e)+".js"`),
		runtime(`r.u=e=>(812===e?f():e)+".js"`),
		runtime(`r.u=e=>({812:"a"}[e]||"x")+".js"`),
		runtime(`r.u=e=>({812:0}[e]||e)+".js"`),
		runtime(`r.u=e=>({[k]:"a"}[e]||e)+".js"`),
		runtime(`r.u=e=>({812:"a"}[k]||e)+".js"`),
	} {
		if f := facts(t, src); f.ChunkNames != nil {
			t.Errorf("%s: chunk names %+v", src, f.ChunkNames)
		}
	}
	// The runtime's own worker is named in its file, as before.
	is := is.New(t)
	f := facts(t, runtime(`r.u=e=>e+".chunk.js";new Worker(new URL(r.p+r.u(447),r.b))`))
	is.Equal(len(f.Imports), 1)
	is.Equal(f.Imports[0].Specifier, "./447.chunk.js")
	is.Equal(f.Imports[0].Chunk, "447")
	// And through a named chunk's name.
	f = facts(t, runtime(`r.u=e=>(447===e?"w":e)+".chunk.js";new Worker(new URL(r.p+r.u(447),r.b));new Worker(new URL(r.p+r.u(5),r.b))`))
	is.Equal(len(f.Imports), 2)
	is.Equal([]string{f.Imports[0].Specifier, f.Imports[1].Specifier}, []string{"./w.chunk.js", "./5.chunk.js"})
}
