package main

import (
	"slices"
	"strings"
	"testing"

	"rea/core/jsapp"
)

// A handler written as a member of a const object literal of the file
// (handlers.open, a method; handlers.save, an async arrow) is that
// function, placed at its key: the channel is handled by it, and a trace
// from the channel goes through it to what its body does, not to the
// file's other calls. Before, the member stayed unresolved and the
// channel was handled by main.js as a whole.
func TestMemberHandlersAreFunctions(t *testing.T) {
	src := `const { ipcMain } = require("electron");
const fs = require("fs");
const handlers = {
  open(e, p) { return fs.readFileSync("/tmp/members/open.txt"); },
  save: async (e, p) => { fs.writeFileSync("/tmp/members/save.txt", p); },
};
fs.mkdirSync("/tmp/members/boot");
ipcMain.handle("x:open", handlers.open);
ipcMain.handle("x:save", handlers.save);
`
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"members","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js":      src})})
	for ch, want := range map[string][]string{
		"x:open": {"ipc x:open > function handlers.open in main.js > fs /tmp/members/open.txt", "ipc x:open > function handlers.open in main.js > main.js"},
		"x:save": {"ipc x:save > function handlers.save in main.js > fs /tmp/members/save.txt", "ipc x:save > function handlers.save in main.js > main.js"},
	} {
		if got := channelPaths(t, s, ev, ch); !slices.Equal(got, want) {
			t.Errorf("outgoing trace from %s:\n got %q\nwant %q", ch, got, want)
		}
	}
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int64{}
	for _, n := range g.Nodes {
		if o := n.Observations[0]; n.Kind == "javascript-function" && o.Label != nil && len(o.Evidence.Locations) > 0 && o.Evidence.Locations[0].Offset != nil {
			at[*o.Label] = *o.Evidence.Locations[0].Offset
		}
	}
	want := map[string]int64{"handlers.open": int64(strings.Index(src, "open(e")), "handlers.save": int64(strings.Index(src, "save:"))}
	if !(at["handlers.open"] == want["handlers.open"] && at["handlers.save"] == want["handlers.save"]) {
		t.Errorf("handler functions at offsets %v, want %v (their keys)", at, want)
	}
}

// A member registered before and after it is assigned again is two
// handlers: the literal's function for the first channel, the one
// assigned for the second, each tracing to its own body's read and the
// second labelled as assigned, at its line. Before, both registrations
// were one node, handlers.open, holding both bodies, so each channel
// reached both files.
func TestReassignedMemberHandlerIsTwoFunctions(t *testing.T) {
	src := `const { ipcMain } = require("electron");
const fs = require("fs");
const handlers = {
  open(e, p) { return fs.readFileSync("/tmp/members/first.txt"); },
};
ipcMain.handle("x:first", handlers.open);
handlers.open = (e, p) => fs.readFileSync("/tmp/members/second.txt");
ipcMain.handle("x:second", handlers.open);
ipcMain.handle("x:again", handlers.open);
`
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"members","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js":      src})})
	for ch, want := range map[string][]string{
		"x:first":  {"ipc x:first > function handlers.open in main.js > fs /tmp/members/first.txt", "ipc x:first > function handlers.open in main.js > main.js"},
		"x:second": {"ipc x:second > function handlers.open (assigned at line 7) in main.js > fs /tmp/members/second.txt", "ipc x:second > function handlers.open (assigned at line 7) in main.js > main.js"},
		"x:again":  {"ipc x:again > function handlers.open (assigned at line 7) in main.js > fs /tmp/members/second.txt", "ipc x:again > function handlers.open (assigned at line 7) in main.js > main.js"},
	} {
		if got := channelPaths(t, s, ev, ch); !slices.Equal(got, want) {
			t.Errorf("outgoing trace from %s:\n got %q\nwant %q", ch, got, want)
		}
	}
}
