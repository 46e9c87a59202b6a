package js_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestFunctionArguments: a function passed to a call (an Electron IPC
// handler) is a function value: one the file declares and passes by name
// carries its name, at the name's first token in its scope; a named
// function expression is at its name; an arrow is a function with no
// place. A name bound to anything else stays a name.
func TestFunctionArguments(t *testing.T) {
	is := is.New(t)
	src := `const { ipcMain } = require("electron");
const lib = require("./lib");
let other = 1;
ipcMain.handle("save", async (e, doc) => doc);
ipcMain.handle("open", function onOpen(e) { return 1; });
ipcMain.on("quit", lib.quit);
ipcMain.handle("other", other);
function onLoad(e, name) { return name; }
ipcMain.handle("load", onLoad);
`
	f := facts(t, src)
	handlers := map[string]ports.JSValue{}
	for _, c := range f.Calls {
		if strings.HasPrefix(c.Callee, "ipcMain.") && len(c.Args) == 2 {
			handlers[c.Args[0].Value] = c.Args[1]
		}
	}
	is.Equal(handlers["save"], ports.JSValue{Kind: ports.JSValFunction, Offset: -1})
	is.Equal(handlers["open"], ports.JSValue{Kind: ports.JSValFunction, Offset: int64(strings.Index(src, "onOpen"))})
	is.Equal(handlers["load"], ports.JSValue{Kind: ports.JSValFunction, Value: "onLoad", Offset: int64(strings.Index(src, "onLoad"))})
	is.Equal(handlers["quit"].Kind, ports.JSValName)
	is.Equal(handlers["quit"].Value, "lib.quit")
	is.Equal(handlers["other"].Kind, ports.JSValName)
}

// TestFunctionBodies: the calls a function argument's body holds are
// given by their indices (JSFacts.Functions), whether the function is
// written in the call or declared in the file, before or after the call
// that names it; a call outside every body is in none, and a body that
// holds no recorded call is left out.
func TestFunctionBodies(t *testing.T) {
	is := is.New(t)
	src := `const { ipcMain, shell } = require("electron");
const fs = require("fs");
function before(e, p) { return fs.readFile(p); }
ipcMain.handle("read", before);
ipcMain.handle("save", async (e, doc) => { fs.writeFileSync(doc.path, doc.text); e.sender.send("saved", 1); });
ipcMain.handle("open", (function (e, u) { return fetch(u); }));
ipcMain.handle("later", later);
ipcMain.handle("empty", () => 1);
fs.readFileSync("outside");
function later(e, p) { return fs.existsSync(p) || fs.statSync(p); }
`
	f := facts(t, src)
	idx := map[string]int{} // channel -> the handles call
	for i, c := range f.Calls {
		if c.Callee == "ipcMain.handle" {
			idx[c.Args[0].Value] = i
		}
	}
	body := map[string][]string{} // channel -> callees of the body
	for _, fn := range f.Functions {
		is.Equal(fn.Arg, 1)
		ch := f.Calls[fn.Call].Args[0].Value
		is.Equal(idx[ch], fn.Call)
		for _, c := range f.Calls[fn.First:fn.End] {
			body[ch] = append(body[ch], c.Callee)
		}
	}
	is.Equal(body, map[string][]string{
		"read":  {"fs.readFile"},
		"save":  {"fs.writeFileSync", "e.sender.send"},
		"open":  {"fetch"},
		"later": {"fs.existsSync", "fs.statSync"},
	})
}

// TestNamedHandlerAtDeclaration: a function the file declares and passes
// by name is placed at its declaration's name, not at the name's first
// use in its scope (the call, when the function is declared after it), and
// each of two functions of one name in two scopes at its own.
func TestNamedHandlerAtDeclaration(t *testing.T) {
	is := is.New(t)
	src := `const { ipcMain } = require("electron");
// function onLoad() is below
ipcMain.handle("load", onLoad);
const s = "function onLoad(";
async function onLoad(e, name) { return name; }
function a() { ipcMain.on("a", f); function f() { return 1; } }
function b() { function f() { return 2; } ipcMain.on("b", f); }
`
	f := facts(t, src)
	at := map[string]int64{}
	for _, c := range f.Calls {
		if strings.HasPrefix(c.Callee, "ipcMain.") {
			is.Equal(c.Args[1].Kind, ports.JSValFunction)
			at[c.Args[0].Value] = c.Args[1].Offset
		}
	}
	is.Equal(at["load"], int64(strings.Index(src, "function onLoad(e")+len("function ")))
	is.Equal(at["a"], int64(strings.Index(src, "function f() { return 1")+len("function ")))
	is.Equal(at["b"], int64(strings.Index(src, "function f() { return 2")+len("function ")))
}

// TestConstHandlers: a const bound to an arrow or a function expression
// and passed by name is a function, named, whose body's calls are given;
// a let may be assigned again and stays a name.
func TestConstHandlers(t *testing.T) {
	is := is.New(t)
	src := `const { ipcMain } = require("electron");
const fs = require("fs");
const onSave = async (e, p) => fs.writeFileSync(p, "x");
const onOpen = function (e, p) { return fs.readFileSync(p); };
let onQuit = () => fs.rmSync("/tmp/q");
ipcMain.handle("save", onSave);
ipcMain.handle("open", onOpen);
ipcMain.on("quit", onQuit);
`
	f := facts(t, src)
	args, body := handlerArgs(f)
	is.Equal(args["save"], ports.JSValue{Kind: ports.JSValFunction, Value: "onSave", Offset: int64(strings.Index(src, "onSave"))})
	is.Equal(args["open"], ports.JSValue{Kind: ports.JSValFunction, Value: "onOpen", Offset: int64(strings.Index(src, "onOpen"))})
	is.Equal(args["quit"].Kind, ports.JSValName)
	is.Equal(body, map[string][]string{"save": {"fs.writeFileSync"}, "open": {"fs.readFileSync"}})
}

// TestImportedHandlers: a handler named through a relative require or
// import is given by its module and member, with no body; a package's
// binding is not.
func TestImportedHandlers(t *testing.T) {
	is := is.New(t)
	src := `import { ipcMain } from "electron";
import { open } from "./handlers/open.js";
import lib from "lodash";
const h = require("../h");
const { save } = require("./save");
ipcMain.handle("open", open);
ipcMain.handle("close", h.close);
ipcMain.handle("save", save);
ipcMain.handle("pkg", lib.noop);
`
	f := facts(t, src)
	got := map[string][2]string{}
	for _, fn := range f.Functions {
		is.Equal(fn.First, fn.End)
		got[f.Calls[fn.Call].Args[0].Value] = [2]string{fn.Module, fn.Member}
	}
	is.Equal(got, map[string][2]string{"open": {"./handlers/open.js", "open"}, "close": {"../h", "close"}, "save": {"./save", "save"}})
}

// TestExportedFunctionBodies: the calls an exported function's body
// holds are given with its export (ports.JSExport First and End), so the
// file that imports it as a handler can tell its calls from the other
// calls of its file: a function expression assigned to exports, a
// declaration or const arrow exported by name, an object literal's method,
// arrow and shorthand name, ESM declarations, clauses and defaults. An
// export that is no function, or whose body holds no recorded call, has
// none (First == End).
func TestExportedFunctionBodies(t *testing.T) {
	is := is.New(t)
	body := func(f *ports.JSFacts) map[string][]string {
		got := map[string][]string{}
		for _, e := range f.Exports {
			if e.End > e.First {
				for _, c := range f.Calls[e.First:e.End] {
					got[e.Name] = append(got[e.Name], c.Callee)
				}
			}
		}
		return got
	}
	cjs := `const { shell } = require("electron");
const fs = require("fs");
fs.existsSync("before");
exports.open = async function (e, u) { await shell.openExternal(u); };
module.exports.save = (e, p) => fs.writeFileSync(p, "x");
function read(e, p) { return fs.readFileSync(p); }
exports.read = read;
const del = (e, p) => { fs.rmSync(p); fs.existsSync(p); };
exports.del = del;
exports.none = () => 1;
exports.n = 1;
fs.existsSync("after");
`
	is.Equal(body(facts(t, cjs)), map[string][]string{"open": {"shell.openExternal"}, "save": {"fs.writeFileSync"}, "read": {"fs.readFileSync"}, "del": {"fs.rmSync", "fs.existsSync"}})
	obj := `const fs = require("fs");
function c(p) { fs.statSync(p); }
module.exports = { a(e, p) { fs.readFileSync(p); }, b: async (e, p) => fs.unlinkSync(p), c };
`
	is.Equal(body(facts(t, obj)), map[string][]string{"a": {"fs.readFileSync"}, "b": {"fs.unlinkSync"}, "c": {"fs.statSync"}})
	esm := `import { shell } from "electron";
import fs from "fs";
export function run(e, u) { shell.openExternal(u); }
export const go = async (e, p) => fs.writeFileSync(p, "x");
function g(e, p) { fs.mkdirSync(p); }
export { g as make };
export default function (e, p) { fs.rmSync(p); }
fs.existsSync("top");
`
	is.Equal(body(facts(t, esm)), map[string][]string{"run": {"shell.openExternal"}, "go": {"fs.writeFileSync"}, "make": {"fs.mkdirSync"}, "default": {"fs.rmSync"}})
}

// TestConstObjectMemberHandlers: a function member of a const object
// literal (a method, a key bound to an arrow or a function expression)
// passed by its member path is a function, named by the path, at its key,
// whose body's calls are given. A member that is no function, a getter,
// one a later spread may replace, one of a let object, or one not written
// stays a name.
func TestConstObjectMemberHandlers(t *testing.T) {
	is := is.New(t)
	src := `const { ipcMain } = require("electron");
const fs = require("fs");
const handlers = {
  open(e, p) { return fs.readFileSync(p); },
  save: async (e, p) => { fs.writeFileSync(p, "x"); },
  "del": function (e, p) { fs.rmSync(p); },
  n: 1,
  get g() { return fs.statSync("g"); },
};
const spread = { a(e) { fs.existsSync("a"); }, ...other };
let mutable = { m(e) { fs.mkdirSync("m"); } };
fs.existsSync("outside");
ipcMain.handle("x:open", handlers.open);
ipcMain.handle("x:save", handlers.save);
ipcMain.handle("x:del", handlers.del);
ipcMain.handle("x:n", handlers.n);
ipcMain.handle("x:g", handlers.g);
ipcMain.handle("x:none", handlers.none);
ipcMain.handle("x:a", spread.a);
ipcMain.handle("x:m", mutable.m);
`
	f := facts(t, src)
	args, body := handlerArgs(f)
	is.Equal(args["x:open"], ports.JSValue{Kind: ports.JSValFunction, Value: "handlers.open", Offset: int64(strings.Index(src, "open(e"))})
	is.Equal(args["x:save"], ports.JSValue{Kind: ports.JSValFunction, Value: "handlers.save", Offset: int64(strings.Index(src, "save:"))})
	is.Equal(args["x:del"], ports.JSValue{Kind: ports.JSValFunction, Value: "handlers.del", Offset: int64(strings.Index(src, `del"`))})
	for _, ch := range []string{"x:n", "x:g", "x:none", "x:a", "x:m"} {
		is.Equal(args[ch].Kind, ports.JSValName) // not a function member
	}
	is.Equal(body, map[string][]string{"x:open": {"fs.readFileSync"}, "x:save": {"fs.writeFileSync"}, "x:del": {"fs.rmSync"}})
}

// TestConstObjectMemberScanIsBounded: an object literal of more members
// than a table of handlers holds is not noted, so a member path into it
// stays a name (each argument naming a member scans the object).
func TestConstObjectMemberScanIsBounded(t *testing.T) {
	is := is.New(t)
	var sb strings.Builder
	sb.WriteString("const { ipcMain } = require(\"electron\");\nconst big = {")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&sb, " m%d(e) { return %d; },", i, i)
	}
	sb.WriteString(" };\nconst small = { m0(e) { return 0; } };\nipcMain.handle(\"big\", big.m0);\nipcMain.handle(\"small\", small.m0);\n")
	f := facts(t, sb.String())
	kinds := map[string]string{}
	for _, c := range f.Calls {
		if c.Callee == "ipcMain.handle" {
			kinds[c.Args[0].Value] = c.Args[1].Kind
		}
	}
	is.Equal(kinds, map[string]string{"big": ports.JSValName, "small": ports.JSValFunction})
}

// handlerArgs is each ipcMain call's handler argument and the callees its
// function's body calls (f.Functions' ranges), both by channel.
func handlerArgs(f *ports.JSFacts) (map[string]ports.JSValue, map[string][]string) {
	args, idx := map[string]ports.JSValue{}, map[int]string{}
	for i, c := range f.Calls {
		if strings.HasPrefix(c.Callee, "ipcMain.") {
			args[c.Args[0].Value], idx[i] = c.Args[1], c.Args[0].Value
		}
	}
	body := map[string][]string{}
	for _, fn := range f.Functions {
		for _, c := range f.Calls[fn.First:fn.End] {
			body[idx[fn.Call]] = append(body[idx[fn.Call]], c.Callee)
		}
	}
	return args, body
}
