package jsapp

import (
	"strings"
	"testing"

	"rea/ports"
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
	nodes := map[string]*Node{}
	for _, n := range res.Graph.Nodes {
		nodes[n.NodeID] = n
	}
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
