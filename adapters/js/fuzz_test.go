package js_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rea/adapters/js"
	"rea/ports"
)

// FuzzFacts checks that no source makes the engine panic, fail, or report
// an offset outside the source.
func FuzzFacts(f *testing.F) {
	seeds, _ := filepath.Glob("../../cmd/rea/testdata/jsapp/*/*.js")
	more, _ := filepath.Glob("../../cmd/rea/testdata/jsapp/*/*/*.js")
	esb, _ := filepath.Glob("testdata/esbuild/*.js")
	for _, p := range append(append(seeds, more...), esb...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"", "(", "`${", "import(", "new Worker(new URL(", "a?.b?.(c)", "//# sourceMappingURL=",
		`({1:(e,t,n)=>{n(1)}})__webpack_require__`, `o["f"](/a*/,"x");(0,f)(a,"b");new a.b.C;f(/*)*/"c");f?.(...a,"d")`, `var r=__commonJS({"a"(e,m){r()}})`, "\"\\u{110000}\"", "'\\ud800'",
		// esbuild's minified helpers, new and old, and their modules.
		`var s=(o,t,n)=>()=>{if(n)throw n[0];try{return o&&(t=o(o=0)),t}catch(r){throw n=[r],r}};var f=(o,t)=>()=>{try{return t||o((t={exports:{}}).exports,t),t.exports}catch(n){throw t=0,n}};var u=f((e,c)=>{e.x=1}),i=s(()=>{u()});var g=u();`,
		`(()=>{var f=(e,t)=>()=>(t||e((t={exports:{}}).exports,t),t.exports),s=(e,t)=>()=>(e&&(t=e(e=0)),t);var a=f(function(e,c){b()}),b=s(()=>{a()});})();`,
		`var f=(e,t)=>()=>(t||e((t={exports:{}}).exports,t),t.exports);var a=f({"k.js"(e,c){}}),b=f(a),c=f(`,
		"var a = b; var b = a; exports.x = a;", "export {a as b,}; function a(x, ...y) {}", "module.exports = {f() {}, get g() {}, ...h}",
		"exports.a = exports.b = void 0; exports.a = -1n;", "export default class extends B { constructor(a) {} }",
		`(()=>{var e={416(e,t){t.S=1},"./a.js"(m,x,q){q(416);q.bind(q,7)}};function r(n){return e[n](s,s.exports,r)}r(416)})()`,
		`(()=>{var __webpack_modules__={"./a.js"(module,exports,__webpack_require__){eval("exports.a = __webpack_require__(\"./b.js\");\n//# sourceMappingURL=data:,x\n")},"electron"(e){e.exports=require("electron")}};})()`,
		// a webpack runtime's chunk file names, and a chunk file's worker
		`(()=>{var e={};function r(o){return e[o](s,s.exports,r)}r.u=e=>"c/"+e+"."+{1:"a",b:"x"+e}[e]+".js";self.webpackChunkx=[]})()`,
		`(self.webpackChunkx=self.webpackChunkx||[]).push([[3],{3(e,t,n){new Worker(new URL(n.p+n.u(1),n.b))}}]);`,
		// named chunks: one name, several, with the runtime's own worker
		`(()=>{var e={};function r(o){return e[o](s,s.exports,r)}r.u=e=>(812===e?"lazy":e)+"."+{812:"a",3:"b"}[e]+".js";new Worker(new URL(r.p+r.u(812),r.b));self.webpackChunkx=[]})()`,
		`(()=>{var e={};function r(o){return e[o](s,s.exports,r)}r.u=e=>(({7:"a",8:"",9:0}[e]||e)+".js");new Worker(new URL(r.p+r.u(7),r.b));self.webpackChunkx=[]})()`,
		// route tables as data, and navigator bindings (routes.go, globals.go)
		`const routes=[{path:"/",children:c},{path:":id",children:[{path:"e",children:routes}]}],c=[{path:"x"}];createRouter({routes});useRoutes(c)`,
		`var n=navigator,{registerTool:r}=n.modelContext;let m=self.navigator.modelContext;m.registerTool({name:"a"});r({});m=1;new n.x.y(routes)`,
		// CommonJS re-exports, members by name, reassigned members, a cut array
		`module.exports=require("./h");const g=require("./x");exports.a=g.b;exports.c=require("./y").c;const{d}=require("./z");module.exports={d,e}`,
		`const h={o(){f()}},k={};h.o=function(){g()};k.p=()=>1;if(x){k.q=()=>2}function s(){h.o=0}on("a",h.o,k.p,k.q);w(()=>on("b",h.o));h.o=()=>3`,
		`const o=(p)=>i.invoke("x",p);const{m}=require("./m");contextBridge.exposeInMainWorld("a",{o,m,n:n,s});function s(){}f([1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,[18]])`,
		// cut arguments and objects
		`let v=1;f(v,2,3,4,5,6,7,g(1,2,3,4,5,6,7,8,9),9,10);new G({a,b:1,c:2,d:3,e:4,f:5,g:6,h:7,i:8,j:9,k:0,l:1,m:2,n:3,o:4,p:5,q:6,r:7,s:8,t:9,u:0,v:1,w:2,x:3,y:4,z:5,A:6,B:7,C:8,D:9,E:0,F:1,G:2,H:3})`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		facts, err := js.New().Facts(context.Background(), ports.JSRequest{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		// Handed over with room for the parser's NUL, the source is parsed
		// in place, to the same facts, and keeps its bytes.
		owned := append(make([]byte, 0, len(src)+1), src...)
		inPlace, err := js.New().Facts(context.Background(), ports.JSRequest{Source: owned, SourceOwned: true})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustJSON(t, facts), mustJSON(t, inPlace); a != b || !bytes.Equal(owned, src) {
			t.Fatalf("parsed in place: %s\ncopied: %s\nbytes kept: %v", b, a, bytes.Equal(owned, src))
		}
		n := int64(len(src))
		check := func(what string, off int64) {
			if off < -1 || off > n {
				t.Fatalf("%s offset %d outside a %d-byte source", what, off, n)
			}
		}
		for _, i := range facts.Imports {
			check("import", i.Offset)
		}
		for _, s := range facts.Strings {
			check("string", s.Offset)
		}
		for _, c := range facts.Calls {
			check("call", c.Offset)
			check("callee", int64(c.CalleeOffset))
			check("position", int64(c.Position))
		}
		for i, r := range facts.Routes {
			check("route", r.Offset)
			if r.Parent < -1 || r.Parent >= i {
				t.Fatalf("route %d has parent %d", i, r.Parent)
			}
		}
		for _, m := range facts.Modules {
			check("module start", m.Start)
			check("module end", m.End)
		}
		for _, e := range facts.Errors {
			check("error", e.Offset)
			if strings.HasPrefix(e.Message, "engine failure") {
				t.Fatalf("rea's walk panicked: %s", e.Message) // the parser's own panics are tolerated and reported
			}
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
