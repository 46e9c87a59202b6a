package js_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/js"
	"rea/ports"
)

// TestConstStringsAreFollowed: a const bound to a string literal is that
// string where a call's argument reads it, alone, in a template or in a
// concatenation, located at the literal; a let binding of a script's top
// level (a global other scripts may assign) is not followed, nor is a
// const bound to anything else but an object literal (constobjs.go).
func TestConstStringsAreFollowed(t *testing.T) {
	is := is.New(t)
	src := `const BASE = "https://api.example.com";
const CH = 'get-user';
const OBJ = [];
let mutable = "/maybe";
function f(id) {
  fetch(` + "`${BASE}/users/${id}`" + `);
  fetch(BASE + "/items/" + id);
  fetch(mutable);
  fetch(OBJ);
  ipcMain.handle(CH, () => {});
}
`
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src),
		Calls: &ports.JSCallSelector{LastNames: []string{"fetch", "handle"}}})
	is.NoErr(err)
	var got []string
	for _, c := range f.Calls {
		a := c.Args[0]
		got = append(got, c.Callee+" "+a.Kind+" "+a.Value)
		if c.Callee == "ipcMain.handle" {
			is.Equal(a.Offset, int64(strings.Index(src, `'get-user'`))) // the declaration's literal
		}
		if a.Kind == ports.JSValTemplate {
			is.Equal(len(a.Parts), 1) // id alone is still a substitution
		}
	}
	is.Equal(got, []string{
		"fetch template https://api.example.com/users/${}",
		"fetch template https://api.example.com/items/${}",
		"fetch name mutable",
		"fetch name OBJ",
		"ipcMain.handle string get-user",
	})
}

// TestVarAndLetStringsAreFollowed: a var or let bound to a string literal
// and never written again is followed as a const is; any other write in
// the file, before or after the read in the walk, keeps the read a name,
// and so does a parameter that shadows the binding.
func TestVarAndLetStringsAreFollowed(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"var", `var e="https://api.example.com";fetch(e+"/orders")`, "template https://api.example.com/orders"},
		{"let", `let e="https://api.example.com";fetch(` + "`${e}/x`" + `)`, "template https://api.example.com/x"},
		{"alone", `var e="wss://x/ws";fetch(e)`, "string wss://x/ws"},
		{"in a closure", `var e="/a";return ()=>fetch(e)`, "string /a"},
		{"assigned after", `var e="/a";fetch(e);e="/b"`, "name e"},
		{"assigned in a later function", `var e="/a";fetch(e);function g(){e="/b"}`, "name e"},
		{"assigned before", `var e="/a";e="/b";fetch(e)`, "name e"},
		{"compound", `var e="/a";fetch(e);e+="/b"`, "name e"},
		{"incremented", `var e="/a";fetch(e);e++`, "name e"},
		{"array pattern", `var e="/a";fetch(e);[e]=x`, "name e"},
		{"object pattern", `var e="/a";fetch(e);({k:e}=x)`, "name e"},
		{"shorthand pattern", `let e="/a";fetch(e);({e}=x)`, "name e"},
		{"for-in", `var e="/a";fetch(e);for(e in x);`, "name e"},
		{"declared again", `var e="/a";fetch(e);var e="/b"`, "name e"},
		{"declared before", `var e;var e="/a";fetch(e)`, "name e"},
		{"function of the name", `var e="/a";fetch(e);function e(){}`, "name e"},
		{"in a block", `if(x){var e="/a"}fetch(e)`, "name e"},
		{"direct eval", `var e="/a";fetch(e);eval(x)`, "name e"},
		{"shadowing parameter", `var e="/a";function g(e){fetch(e)}`, "name e"},
		{"parameter declared as var", `function g(e){var e="/a";fetch(e)}`, "name e"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			// A function body: a script's top-level bindings are globals.
			src := "(function(){" + tc.body + "})();"
			a := fetchArg(t, src)
			is.Equal(a.Kind+" "+a.Value, tc.want)
			if a.Kind == ports.JSValString {
				is.Equal(a.Offset, int64(strings.Index(src, `"`))) // the declaration's literal
			}
		})
	}
}

// TestTopLevelVarsOfModules: a script's top-level var is a global, not
// followed; a module's is followed unless it is exported.
func TestTopLevelVarsOfModules(t *testing.T) {
	is := is.New(t)
	arg := func(src string) string {
		a := fetchArg(t, src)
		return a.Kind + " " + a.Value
	}
	is.Equal(arg(`var e="/a";fetch(e)`), "name e")
	is.Equal(arg(`import x from "x";var e="/a";fetch(e)`), "string /a")
	is.Equal(arg(`var e=require("x"),u="/a";fetch(u)`), "string /a")
	is.Equal(arg(`export let e="/a";fetch(e)`), "name e")
	is.Equal(arg(`var e="/a";fetch(e);export {e}`), "name e")
	is.Equal(arg(`const e="/a";fetch(e);export {e}`), "string /a")
}

// fetchArg is the argument of src's one fetch call.
func fetchArg(t *testing.T, src string) ports.JSValue {
	t.Helper()
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src),
		Calls: &ports.JSCallSelector{LastNames: []string{"fetch"}}})
	if err != nil || len(f.Calls) != 1 || len(f.Calls[0].Args) != 1 {
		t.Fatalf("%s: want one fetch call with one argument, got %v, %+v", src, err, f.Calls)
	}
	return f.Calls[0].Args[0]
}

// TestModuleTopLevelBindingsAreFollowed: a top-level var of a script is a
// global another script may assign, so it is not followed; in an ES module
// it is the module's own, whether the caller says the source is one (an
// esbuild --format=esm bundle named .mjs has no import or export) or the
// source reads import.meta.
func TestModuleTopLevelBindingsAreFollowed(t *testing.T) {
	src := "var e = \"https://api.example.com\";\nfunction f(id) { return fetch(e + \"/users/\" + id); }\n"
	for _, tc := range []struct {
		name, moduleType, src, want, got string
	}{
		{name: "script", src: src, want: "${}/users/${}", got: "script"},
		{name: "told esm", moduleType: "esm", src: src, want: "https://api.example.com/users/${}", got: "esm"},
		{name: "import.meta", src: src + "console.log(import.meta.url);\n", want: "https://api.example.com/users/${}", got: "esm"},
		{name: "told commonjs", moduleType: "commonjs", src: src, want: "https://api.example.com/users/${}", got: "commonjs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(tc.src), ModuleType: tc.moduleType,
				Calls: &ports.JSCallSelector{LastNames: []string{"fetch"}}})
			is.NoErr(err)
			is.Equal(f.ModuleType, tc.got)
			is.Equal(len(f.Calls), 1)
			is.Equal(f.Calls[0].Args[0].Value, tc.want)
		})
	}
}
