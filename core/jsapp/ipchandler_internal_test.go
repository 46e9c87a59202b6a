package jsapp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rea/ports"
	"rea/ports/portstest"
)

// TestIPCHandlersAreFunctions: an Electron main process's handlers are
// traced to the function that handles each channel, not to the file: an
// inline function expression (by the call that registers it), a function
// the file declares and passes by name (by its name). A handler that is
// no function of the file (an imported one, a member) keeps the
// file-level edge, which says the handler was not resolved.
func TestIPCHandlersAreFunctions(t *testing.T) {
	src := "const { ipcMain } = require(\"electron\");\n" +
		"const lib = require(\"./lib\");\n" +
		"ipcMain.handle(\"save\", async (e, doc) => doc);\n" +
		"ipcMain.handle(\"load\", onLoad);\n" +
		"ipcMain.on(\"quit\", lib.quit);\n" +
		"function onLoad(e, name) { return name; }\n" +
		"ipcMain.handle(\"save\", () => 2);\n"
	at := func(s string) int64 { return int64(strings.Index(src, s)) }
	call := func(ch string, handler ports.JSValue) ports.JSCall {
		member := "ipcMain.handle"
		if ch == "quit" {
			member = "ipcMain.on"
		}
		return ports.JSCall{Callee: member, Module: "electron", Member: member, Offset: at(`"` + ch + `"`), CalleeOffset: -1, Position: -1, InModule: -1,
			Args: []ports.JSValue{{Kind: ports.JSValString, Value: ch, Offset: at(`"` + ch + `"`)}, handler}}
	}
	facts := ports.JSFacts{
		Parsed: true, ModuleType: "commonjs",
		Imports: []ports.JSImport{{Kind: ports.JSRequire, Specifier: "electron", Offset: at(`"electron"`), InModule: -1, Names: []string{"ipcMain"}}},
		Calls: []ports.JSCall{
			call("save", ports.JSValue{Kind: ports.JSValFunction, Offset: -1}),
			call("load", ports.JSValue{Kind: ports.JSValFunction, Value: "onLoad", Offset: at("onLoad")}),
			call("quit", ports.JSValue{Kind: ports.JSValName, Value: "lib.quit", Offset: -1}),
			{Callee: "ipcMain.handle", Module: "electron", Member: "ipcMain.handle", Offset: int64(strings.LastIndex(src, `"save"`)), CalleeOffset: -1, Position: -1, InModule: -1,
				Args: []ports.JSValue{{Kind: ports.JSValString, Value: "save", Offset: int64(strings.LastIndex(src, `"save"`))}, {Kind: ports.JSValFunction, Offset: -1}}},
		},
	}
	res := analyzeOne(t, map[string]string{"package.json": `{"name":"e","main":"main.js","devDependencies":{"electron":"31"}}`, "main.js": src, "lib.js": "x"}, "main.js", facts)
	nodes := nodesByID(res)
	handled := map[string]*Node{} // channel -> handler node (the first)
	var handles = map[string]*Edge{}
	saves := map[string]bool{}
	for _, e := range res.Graph.Edges {
		if e.Relation != "handles" {
			continue
		}
		ch := nodes[e.SourceNodeID].propString("channel")
		if ch == "save" {
			saves[e.TargetNodeID] = true
		}
		if handled[ch] == nil {
			handled[ch], handles[ch] = nodes[e.TargetNodeID], e
		}
	}
	if len(saves) != 2 {
		t.Errorf("the two handlers of save are %d nodes, want 2", len(saves))
	}
	for ch, want := range map[string]string{"save": `ipcMain.handle("save") handler`, "load": "onLoad"} {
		n := handled[ch]
		if n == nil || n.Kind != "javascript-function" || n.label() != want {
			t.Fatalf("channel %s handled by %+v, want the function %s", ch, n, want)
		}
		var defined bool
		for _, e := range res.Graph.Edges {
			defined = defined || (e.Relation == "defined_in" && e.SourceNodeID == n.NodeID && nodes[e.TargetNodeID].Kind == "javascript-asset")
		}
		if !defined {
			t.Errorf("the handler of %s is defined in no file", ch)
		}
	}
	if l := handles["load"].Evidence.Locations; len(l) == 0 || l[0].Offset == nil || *l[0].Offset != at(`"load"`) {
		t.Errorf("load's handles edge at %+v, want the channel literal", l)
	}
	if l := handled["load"].Observations[0].Evidence.Locations; len(l) == 0 || l[0].Offset == nil || *l[0].Offset != at("onLoad") || l[0].Line != 4 {
		t.Errorf("onLoad located at %+v, want its name, line 4", l)
	}
	if n := handled["quit"]; n == nil || n.Kind != "javascript-asset" {
		t.Fatalf("quit handled by %+v, want the file (lib.quit is no function of main.js)", n)
	}
	if p := handles["quit"].Properties; p["handler"] != "unresolved" || p["handler_argument"] != "lib.quit" {
		t.Errorf("quit's file-level edge says %v, want the handler unresolved, written lib.quit", p)
	}
}

// TestIPCHandlerCallsGoFromTheHandler: the calls a handler's body holds
// (ports.JSFacts.Functions) go from the handler's function node, so a
// trace from the channel reaches what the handler reads and sends; a call
// of the file outside every handler still goes from the file.
func TestIPCHandlerCallsGoFromTheHandler(t *testing.T) {
	src := "const { ipcMain } = require(\"electron\");\n" +
		"const fs = require(\"fs\");\n" +
		"ipcMain.handle(\"read\", async (e) => { win.webContents.send(\"progress\", 1); return fs.readFileSync(\"/etc/app.conf\"); });\n" +
		"fs.writeFileSync(\"/tmp/boot.log\", \"x\");\n"
	at := func(s string) int64 { return int64(strings.Index(src, s)) }
	lit := func(s string) ports.JSValue {
		return ports.JSValue{Kind: ports.JSValString, Value: s, Offset: at(`"` + s + `"`)}
	}
	call := func(callee, module, member string, args ...ports.JSValue) ports.JSCall {
		return ports.JSCall{Callee: callee, Module: module, Member: member, Offset: args[0].Offset, CalleeOffset: -1, Position: -1, InModule: -1, Args: args}
	}
	facts := ports.JSFacts{
		Parsed: true, ModuleType: "commonjs",
		Imports: []ports.JSImport{{Kind: ports.JSRequire, Specifier: "electron", Offset: at(`"electron"`), InModule: -1, Names: []string{"ipcMain"}},
			{Kind: ports.JSRequire, Specifier: "fs", Offset: at(`"fs"`), InModule: -1}},
		Calls: []ports.JSCall{
			call("ipcMain.handle", "electron", "ipcMain.handle", lit("read"), ports.JSValue{Kind: ports.JSValFunction, Offset: -1}),
			call("win.webContents.send", "", "", lit("progress"), ports.JSValue{Kind: ports.JSValNumber, Value: "1", Offset: -1}),
			call("fs.readFileSync", "fs", "readFileSync", lit("/etc/app.conf")),
			call("fs.writeFileSync", "fs", "writeFileSync", lit("/tmp/boot.log"), lit("x")),
		},
		Functions: []ports.JSFunction{{Call: 0, Arg: 1, First: 1, End: 3}},
	}
	res := analyzeOne(t, map[string]string{"package.json": `{"name":"e","main":"main.js","devDependencies":{"electron":"31"}}`, "main.js": src}, "main.js", facts)
	nodes := nodesByID(res)
	var handler string
	from := map[string]*Node{} // target label -> source of the edge
	for _, e := range res.Graph.Edges {
		if e.Relation == "handles" && nodes[e.SourceNodeID].label() == "read" {
			handler = e.TargetNodeID
		}
		if e.Relation == "persists_to" || e.Relation == "sends" {
			from[nodes[e.TargetNodeID].label()] = nodes[e.SourceNodeID]
		}
	}
	if n := nodes[handler]; n == nil || n.Kind != "javascript-function" {
		t.Fatalf("read handled by %+v, want a function", n)
	}
	for _, l := range []string{"fs:/etc/app.conf", "progress"} {
		if n := from[l]; n == nil || n.NodeID != handler {
			t.Errorf("the edge to %s goes from %v, want the handler", l, kindOf(n))
		}
	}
	if n := from["fs:/tmp/boot.log"]; n == nil || n.Kind != "javascript-asset" {
		t.Errorf("the write outside the handler goes from %v, want the file", kindOf(n))
	}
}

func kindOf(n *Node) string {
	if n == nil {
		return "nothing"
	}
	return n.Kind + " " + n.label()
}

// filesEngine gives each file named in it its facts, the fake's to others.
type filesEngine struct {
	portstest.FakeJS
	facts map[string]ports.JSFacts
}

func (e filesEngine) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	f, ok := e.facts[filepath.Base(req.Path)]
	if !ok {
		return e.FakeJS.Facts(ctx, req)
	}
	return &f, nil
}

// TestIPCHandlerImported: a handler imported from another file of the
// app (ports.JSFunction.Module) is the function that file exports, defined
// in it; one the file does not export as a function keeps the file-level
// edge of the file that registers it.
func TestIPCHandlerImported(t *testing.T) {
	src := "const { ipcMain } = require(\"electron\");\n" +
		"const { open, notFn, gone } = require(\"./h\");\n" +
		"ipcMain.handle(\"open\", open);\nipcMain.handle(\"nofn\", notFn);\nipcMain.handle(\"gone\", gone);\n"
	hsrc := "exports.open = async function (e, p) { return p; };\nexports.notFn = 1;\n"
	at := func(s string) int64 { return int64(strings.Index(src, s)) }
	var calls []ports.JSCall
	var fns []ports.JSFunction
	for i, ch := range []string{"open", "nofn", "gone"} {
		name := map[string]string{"open": "open", "nofn": "notFn", "gone": "gone"}[ch]
		calls = append(calls, ports.JSCall{Callee: "ipcMain.handle", Module: "electron", Member: "ipcMain.handle", Offset: at(`"` + ch + `"`), CalleeOffset: -1, Position: -1, InModule: -1,
			Args: []ports.JSValue{{Kind: ports.JSValString, Value: ch, Offset: at(`"` + ch + `"`)}, {Kind: ports.JSValName, Value: name, Offset: -1}}})
		fns = append(fns, ports.JSFunction{Call: i, Arg: 1, Module: "./h", Member: name})
	}
	main := ports.JSFacts{Parsed: true, ModuleType: "commonjs", Calls: calls, Functions: fns,
		Imports: []ports.JSImport{{Kind: ports.JSRequire, Specifier: "electron", Offset: at(`"electron"`), InModule: -1}, {Kind: ports.JSRequire, Specifier: "./h", Offset: at(`"./h"`), InModule: -1}}}
	h := ports.JSFacts{Parsed: true, ModuleType: "commonjs", Exports: []ports.JSExport{
		{Name: "open", Kind: "commonjs", Offset: int64(strings.Index(hsrc, "open")), Value: ports.JSValueShape{Kind: ports.JSValueAsyncFunction, Params: 2}},
		{Name: "notFn", Kind: "commonjs", Offset: int64(strings.Index(hsrc, "notFn")), Value: ports.JSValueShape{Kind: ports.JSValueNumber, Params: -1}}}}
	dir := electronApp(t, map[string]string{"main.js": src, "h.js": hsrc})
	res := analyzedWith(t, dir, filesEngine{facts: map[string]ports.JSFacts{"main.js": main, "h.js": h}})
	nodes := nodesByID(res)
	handled, defined := map[string]*Node{}, map[string]*Node{}
	for _, e := range res.Graph.Edges {
		if e.Relation == "handles" {
			handled[nodes[e.SourceNodeID].propString("channel")] = nodes[e.TargetNodeID]
		}
		if e.Relation == "defined_in" {
			defined[e.SourceNodeID] = nodes[e.TargetNodeID]
		}
	}
	if n := handled["open"]; n == nil || n.Kind != "javascript-function" || n.label() != "open" || n.propString("path") != "h.js" {
		t.Fatalf("open handled by %v, want the function open of h.js", kindOf(n))
	}
	if d := defined[handled["open"].NodeID]; d == nil || d.propString("path") != "h.js" {
		t.Errorf("open is defined in %v, want h.js", kindOf(d))
	}
	for _, ch := range []string{"nofn", "gone"} {
		if n := handled[ch]; n == nil || n.Kind != "javascript-asset" || n.propString("path") != "main.js" {
			t.Errorf("%s handled by %v, want main.js (no function of h.js)", ch, kindOf(n))
		}
	}
}

// TestIPCHandlerImportedCallsGoFromIt: the calls an imported handler's
// body holds (its export's First and End in the file that defines it) go
// from the handler's function node, so a trace from the channel reaches
// them; the defining file's other calls still go from the file. Before,
// an imported handler's calls went from its file, like all the others.
func TestIPCHandlerImportedCallsGoFromIt(t *testing.T) {
	src := "const { ipcMain } = require(\"electron\");\nconst { save } = require(\"./h\");\nipcMain.handle(\"save\", save);\n"
	hsrc := "const fs = require(\"fs\");\nfs.writeFileSync(\"/tmp/boot.log\", \"x\");\nexports.save = (e, p) => fs.writeFileSync(\"/tmp/notes.json\", p);\n"
	at := func(s, text string) int64 { return int64(strings.Index(s, text)) }
	main := ports.JSFacts{Parsed: true, ModuleType: "commonjs",
		Calls: []ports.JSCall{{Callee: "ipcMain.handle", Module: "electron", Member: "ipcMain.handle", Offset: at(src, `"save"`), CalleeOffset: -1, Position: -1, InModule: -1,
			Args: []ports.JSValue{{Kind: ports.JSValString, Value: "save", Offset: at(src, `"save"`)}, {Kind: ports.JSValName, Value: "save", Offset: -1}}}},
		Functions: []ports.JSFunction{{Call: 0, Arg: 1, Module: "./h", Member: "save"}},
		Imports:   []ports.JSImport{{Kind: ports.JSRequire, Specifier: "electron", Offset: at(src, `"electron"`), InModule: -1}, {Kind: ports.JSRequire, Specifier: "./h", Offset: at(src, `"./h"`), InModule: -1}}}
	write := func(path string) ports.JSCall {
		return ports.JSCall{Callee: "fs.writeFileSync", Module: "fs", Member: "writeFileSync", Offset: at(hsrc, `"`+path+`"`), CalleeOffset: -1, Position: -1, InModule: -1,
			Args: []ports.JSValue{{Kind: ports.JSValString, Value: path, Offset: at(hsrc, `"`+path+`"`)}, {Kind: ports.JSValName, Value: "p", Offset: -1}}}
	}
	h := ports.JSFacts{Parsed: true, ModuleType: "commonjs",
		Imports: []ports.JSImport{{Kind: ports.JSRequire, Specifier: "fs", Offset: at(hsrc, `"fs"`), InModule: -1}},
		Calls:   []ports.JSCall{write("/tmp/boot.log"), write("/tmp/notes.json")},
		Exports: []ports.JSExport{{Name: "save", Kind: "commonjs", Offset: at(hsrc, "save"), Value: ports.JSValueShape{Kind: ports.JSValueFunction, Params: 2}, First: 1, End: 2}}}
	dir := electronApp(t, map[string]string{"main.js": src, "h.js": hsrc})
	res := analyzedWith(t, dir, filesEngine{facts: map[string]ports.JSFacts{"main.js": main, "h.js": h}})
	nodes := nodesByID(res)
	var handler string
	from := map[string]*Node{}
	for _, e := range res.Graph.Edges {
		if e.Relation == "handles" {
			handler = e.TargetNodeID
		}
		if e.Relation == "persists_to" {
			from[nodes[e.TargetNodeID].label()] = nodes[e.SourceNodeID]
		}
	}
	if n := nodes[handler]; n == nil || n.Kind != "javascript-function" || n.propString("path") != "h.js" {
		t.Fatalf("save handled by %v, want the function save of h.js", kindOf(n))
	}
	if n := from["fs:/tmp/notes.json"]; n == nil || n.NodeID != handler {
		t.Errorf("the handler's write goes from %v, want the handler", kindOf(n))
	}
	if n := from["fs:/tmp/boot.log"]; n == nil || n.Kind != "javascript-asset" || n.propString("path") != "h.js" {
		t.Errorf("h.js's write outside the handler goes from %v, want h.js", kindOf(n))
	}
}

// TestIPCHandlerReexported: a handler imported from a barrel is the
// function the module it re-exports from defines (export {save} from,
// export * from), with that module's calls; a name two export * pass on
// is not known. Before, a re-exported handler stayed unresolved.
func TestIPCHandlerReexported(t *testing.T) {
	src := "const { ipcMain } = require(\"electron\");\nconst h = require(\"./index\");\nipcMain.handle(\"save\", h.save);\nipcMain.handle(\"wipe\", h.wipe);\nipcMain.handle(\"both\", h.both);\n"
	at := func(s, text string) int64 { return int64(strings.Index(s, text)) }
	var calls []ports.JSCall
	var fns []ports.JSFunction
	for i, ch := range []string{"save", "wipe", "both"} {
		calls = append(calls, ports.JSCall{Callee: "ipcMain.handle", Module: "electron", Member: "ipcMain.handle", Offset: at(src, `"`+ch+`"`), CalleeOffset: -1, Position: -1, InModule: -1,
			Args: []ports.JSValue{{Kind: ports.JSValString, Value: ch, Offset: at(src, `"`+ch+`"`)}, {Kind: ports.JSValName, Value: "h." + ch, Offset: -1}}})
		fns = append(fns, ports.JSFunction{Call: i, Arg: 1, Module: "./index", Member: ch})
	}
	main := ports.JSFacts{Parsed: true, ModuleType: "commonjs", Calls: calls, Functions: fns,
		Imports: []ports.JSImport{{Kind: ports.JSRequire, Specifier: "electron", Offset: at(src, `"electron"`), InModule: -1}, {Kind: ports.JSRequire, Specifier: "./index", Offset: at(src, `"./index"`), InModule: -1}}}
	isrc := "export { store as save } from \"./save.js\";\nexport * from \"./more.js\";\nexport * from \"./other.js\";\n"
	index := ports.JSFacts{Parsed: true, ModuleType: "esm",
		Imports: []ports.JSImport{{Kind: ports.JSExportFrom, Specifier: "./save.js", Offset: at(isrc, `"./save.js"`), InModule: -1},
			{Kind: ports.JSExportAll, Specifier: "./more.js", Offset: at(isrc, `"./more.js"`), InModule: -1}, {Kind: ports.JSExportAll, Specifier: "./other.js", Offset: at(isrc, `"./other.js"`), InModule: -1}},
		Exports: []ports.JSExport{{Name: "save", Kind: "re-export", Source: "./save.js", Local: "store", Offset: at(isrc, "save")},
			{Name: "*", Kind: "export-all", Source: "./more.js", Offset: at(isrc, `"./more.js"`)}, {Name: "*", Kind: "export-all", Source: "./other.js", Offset: at(isrc, `"./other.js"`)}}}
	fn := ports.JSValueShape{Kind: ports.JSValueFunction, Params: 2}
	write := func(s, path string) ports.JSCall {
		return ports.JSCall{Callee: "fs.writeFileSync", Module: "fs", Member: "writeFileSync", Offset: at(s, `"`+path+`"`), CalleeOffset: -1, Position: -1, InModule: -1,
			Args: []ports.JSValue{{Kind: ports.JSValString, Value: path, Offset: at(s, `"`+path+`"`)}}}
	}
	ssrc := "import fs from \"fs\";\nexport function store(e, p) { fs.writeFileSync(\"/tmp/a\"); }\n"
	save := ports.JSFacts{Parsed: true, ModuleType: "esm", Calls: []ports.JSCall{write(ssrc, "/tmp/a")},
		Exports: []ports.JSExport{{Name: "store", Kind: "named", Offset: at(ssrc, "store"), Value: fn, First: 0, End: 1}}}
	msrc := "import fs from \"fs\";\nexport function wipe(e) { fs.writeFileSync(\"/tmp/b\"); }\nexport function both() {}\n"
	more := ports.JSFacts{Parsed: true, ModuleType: "esm", Calls: []ports.JSCall{write(msrc, "/tmp/b")},
		Exports: []ports.JSExport{{Name: "wipe", Kind: "named", Offset: at(msrc, "wipe"), Value: fn, First: 0, End: 1}, {Name: "both", Kind: "named", Offset: at(msrc, "both"), Value: fn}}}
	osrc := "export function both() {}\n"
	other := ports.JSFacts{Parsed: true, ModuleType: "esm", Exports: []ports.JSExport{{Name: "both", Kind: "named", Offset: at(osrc, "both"), Value: fn}}}
	dir := electronApp(t, map[string]string{"main.js": src, "index.js": isrc, "save.js": ssrc, "more.js": msrc, "other.js": osrc})
	res := analyzedWith(t, dir, filesEngine{facts: map[string]ports.JSFacts{"main.js": main, "index.js": index, "save.js": save, "more.js": more, "other.js": other}})
	nodes := nodesByID(res)
	handled, from := map[string]*Node{}, map[string]*Node{}
	for _, e := range res.Graph.Edges {
		if e.Relation == "handles" {
			handled[nodes[e.SourceNodeID].propString("channel")] = nodes[e.TargetNodeID]
		}
		if e.Relation == "persists_to" {
			from[nodes[e.TargetNodeID].label()] = nodes[e.SourceNodeID]
		}
	}
	for ch, want := range map[string][2]string{"save": {"store", "save.js"}, "wipe": {"wipe", "more.js"}} {
		if n := handled[ch]; n == nil || n.Kind != "javascript-function" || n.label() != want[0] || n.propString("path") != want[1] {
			t.Errorf("%s handled by %v, want the function %s of %s", ch, kindOf(n), want[0], want[1])
		}
	}
	if handled["save"] != nil && from["fs:/tmp/a"] != handled["save"] || handled["wipe"] != nil && from["fs:/tmp/b"] != handled["wipe"] {
		t.Errorf("the writes go from %v and %v, want their handlers", kindOf(from["fs:/tmp/a"]), kindOf(from["fs:/tmp/b"]))
	}
	if n := handled["both"]; n == nil || n.Kind != "javascript-asset" || n.propString("path") != "main.js" {
		t.Errorf("both handled by %v, want main.js (two modules pass the name on)", kindOf(n))
	}
}

// electronApp writes an Electron app whose package.json names main.js as
// its entry, with files (name to text), into a new test directory.
func electronApp(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["package.json"] = `{"name":"e","main":"main.js","devDependencies":{"electron":"31"}}`
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// nodesByID indexes an analysis's graph nodes by node ID.
func nodesByID(res *appResult) map[string]*Node {
	nodes := make(map[string]*Node, len(res.Graph.Nodes))
	for _, n := range res.Graph.Nodes {
		nodes[n.NodeID] = n
	}
	return nodes
}
