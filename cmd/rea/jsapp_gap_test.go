package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/core"
	"rea/core/jsapp"
)

// A long array passed to a system call is cut at the items the engine
// keeps, and the result says so: the call's text ends the array with
// "…", the system-api node is not literal (its arguments are not all
// written out), and the result has a limitation naming the file. Before,
// the array was cut silently at 16 items, and the call read as literal.
func TestJSAppCutArrayIsMarked(t *testing.T) {
	var items []string
	for i := 1; i <= 18; i++ {
		items = append(items, strconv.Itoa(i))
	}
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"cut","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js":      "const { spawn } = require(\"child_process\");\nspawn(\"tool\", [" + strings.Join(items, ", ") + "]);\n"})})
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, n := range g.Nodes {
		if n.Kind != "system-api" {
			continue
		}
		found = true
		o := n.Observations[0]
		want := "child_process.spawn(\"tool\", [" + strings.Join(items[:16], ", ") + ", …])"
		if o.Label == nil || *o.Label != want || o.Properties["literal"] != false {
			t.Errorf("system-api node %q literal %v, want %q, not literal", *o.Label, o.Properties["literal"], want)
		}
	}
	if !found {
		t.Fatal("no system-api node")
	}
	if !slices.ContainsFunc(g.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "main.js: Array arguments of recorded calls cut at 16 items")
	}) {
		t.Errorf("limitations %q, want one naming main.js's cut array", g.Limitations)
	}
}

// A system call with more arguments than the engine keeps, and one with
// an object argument of more properties than it keeps, are marked as the
// cut array is: the arguments end with "…" (not trimmed as a trailing
// callback's is), the node is not literal, and the result has a
// limitation per kind naming the file. Before, both were cut silently:
// execFile("tool", "1", ..., "7") read as a literal call of 8 arguments.
func TestJSAppCutArgumentsAreMarked(t *testing.T) {
	var args, props []string
	for i := 1; i <= 9; i++ {
		args = append(args, strconv.Quote(strconv.Itoa(i)))
	}
	for i := 1; i <= 33; i++ {
		props = append(props, "k"+strconv.Itoa(i)+": 1")
	}
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"cut","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": "const { execFile, spawn } = require(\"child_process\");\nexecFile(\"tool\", " + strings.Join(args, ", ") + ");\n" +
			"spawn(\"other\", [], {" + strings.Join(props, ", ") + "});\n"})})
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]any{}
	for _, n := range g.Nodes {
		if n.Kind == "system-api" && n.Observations[0].Label != nil {
			labels[*n.Observations[0].Label] = n.Observations[0].Properties["literal"]
		}
	}
	want := "child_process.execFile(\"tool\", " + strings.Join(args[:7], ", ") + ", …)"
	if lit, ok := labels[want]; !ok || lit != false {
		t.Errorf("system-api nodes %v, want %q not literal", labels, want)
	}
	for _, w := range []string{"main.js: Recorded calls' arguments cut at 8", "main.js: Object arguments of recorded calls cut at 32 properties"} {
		if !slices.ContainsFunc(g.Limitations, func(l string) bool { return strings.HasPrefix(l, w) }) {
			t.Errorf("limitations %q, want one starting %q", g.Limitations, w)
		}
	}
}

// fs's recursive copies are storage with a source and a destination, as
// copyFile is, on a binding that provably came from fs (require("fs"),
// node:fs/promises, fs.promises, a renamed binding); a cp of anything
// else (an object's method, a parameter named fs) is not storage, since
// cp is a common minified name. Before, no cp call was selected at all.
func TestJSAppFsCopyIsStorage(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"cp","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const fs = require("fs");
const fsp = require("node:fs/promises");
const { cpSync: copy } = require("fs");
fs.cpSync("/tmp/cp/a", "/tmp/cp/b", { recursive: true });
fsp.cp("/tmp/cp/c", "/tmp/cp/d");
fs.promises.cp("/tmp/cp/e", "/tmp/cp/f");
copy("/tmp/cp/g", "/tmp/cp/h");
const o = { cp(a, b) {} };
o.cp("/tmp/cp/no1", "/tmp/cp/no2");
function f(fs) { fs.cp("/tmp/cp/no3", "/tmp/cp/no4"); }
`})})
	got := persistsTo(t, ev, true)
	want := []string{"fs:/tmp/cp/a fs.cpSync cpSync source", "fs:/tmp/cp/b fs.cpSync cpSync destination",
		"fs:/tmp/cp/c fsp.cp cp source", "fs:/tmp/cp/d fsp.cp cp destination",
		"fs:/tmp/cp/e fs.promises.cp cp source", "fs:/tmp/cp/f fs.promises.cp cp destination",
		"fs:/tmp/cp/g copy cpSync source", "fs:/tmp/cp/h copy cpSync destination"}
	if !slices.Equal(got, want) {
		t.Errorf("persists_to edges:\n got %q\nwant %q", got, want)
	}
}

// fs's storage operations are storage by the binding's module, whatever
// the file named it: a renamed destructured binding (w), a renamed import
// of node:fs/promises (wf), fs.promises on a renamed require (files); a
// call on a local object or a parameter that is merely named fs or fsp is
// not. Before, the callee's text decided: the renamed bindings were not
// storage, and the local fs and fsp were. A binding chosen between fs and
// Electron's original-fs (or fs under two names) is fs's; one chosen
// between fs and another module is neither.
func TestJSAppFsBindingIsStorage(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"fsbind","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { writeFileSync: w } = require("fs");
const files = require("fs");
require("./store.mjs");
w("/tmp/fsb/a", "x");
files.promises.readFile("/tmp/fsb/c");
const fs = { writeFileSync(p, d) {} };
fs.writeFileSync("/tmp/fsb/no1", "x");
function f(fsp) { return fsp.readFile("/tmp/fsb/no2"); }
const rfs = process.versions.electron ? require("original-fs") : require("fs");
rfs.writeFileSync("/tmp/fsb/d", "x");
const { readFileSync: r } = process.env.X ? require("fs") : require("node:fs");
r("/tmp/fsb/e");
const mixed = process.env.Y ? require("./fake-fs") : require("fs");
mixed.writeFileSync("/tmp/fsb/no3", "x");
`,
		"store.mjs": `import { writeFile as wf } from "node:fs/promises";
wf("/tmp/fsb/b", "x");
`})})
	got := persistsTo(t, ev, false)
	want := []string{"fs:/tmp/fsb/a w writeFileSync", "fs:/tmp/fsb/b wf writeFile", "fs:/tmp/fsb/c files.promises.readFile readFile",
		"fs:/tmp/fsb/d rfs.writeFileSync writeFileSync", "fs:/tmp/fsb/e r readFileSync"}
	if !slices.Equal(got, want) {
		t.Errorf("persists_to edges:\n got %q\nwant %q", got, want)
	}
}

// A member the preload exposes by name is linked to the channel its
// function invokes, with the member, as an inline member is: a const
// arrow ({open}), a function declared after the call ({save: save}), and
// a function imported from another preload file ({more}, defined in
// preload2.js, whose other call stays the file's). Before, only members
// written inline in the object were linked; these channels were invoked
// by the preload files.
func TestJSAppExposedMembersByName(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"byname","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { app, BrowserWindow } = require("electron");
const path = require("path");
app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: path.join(__dirname, "preload.js") } }));
`,
		"preload.js": `const { contextBridge, ipcRenderer } = require("electron");
const { more } = require("./preload2");
const open = (p) => ipcRenderer.invoke("x:open", p);
contextBridge.exposeInMainWorld("api", { open, save: save, more });
function save(p) { return ipcRenderer.invoke("x:save", p); }
ipcRenderer.send("x:ready");
`,
		"preload2.js": `const { ipcRenderer } = require("electron");
ipcRenderer.send("x:loaded");
exports.more = (p) => ipcRenderer.invoke("x:more", p);
`})})
	got := channelEdges(t, ev)
	want := []string{"api more > x:more", "api open > x:open", "api save > x:save", "preload.js  > x:ready", "preload2.js  > x:loaded"}
	if !slices.Equal(got, want) {
		t.Errorf("invokes and sends:\n got %q\nwant %q", got, want)
	}
}

// IPC handlers a CommonJS module passes on from another are the function
// that module defines, with its calls: a barrel assigning the whole
// module (module.exports = require("./handlers")), a name assigned from
// another's (exports.open = require("./x").open), and an object of
// names one file defines and another requires (module.exports = {open,
// save} in h.js, ipcMain.handle("c", require("./h").save)). Before, the
// first two were unresolved: main.js handled the channel, and a trace
// from it reached every call of the app.
func TestJSAppCommonJSReexportedHandlers(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"cjs","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { ipcMain } = require("electron");
const all = require("./barrel");
ipcMain.handle("a:open", all.open);
ipcMain.handle("b:open", require("./x2").open);
ipcMain.handle("c:save", require("./h").save);
`,
		"barrel.js":   "module.exports = require(\"./handlers\");\n",
		"handlers.js": "const fs = require(\"fs\");\nexports.open = (e, p) => fs.readFileSync(\"/tmp/cjs/a.txt\");\n",
		"x2.js":       "exports.open = require(\"./x\").open;\n",
		"x.js":        "const fs = require(\"fs\");\nexports.open = (e) => fs.readFileSync(\"/tmp/cjs/b.txt\");\n",
		"h.js":        "const fs = require(\"fs\");\nfunction open(e) { return 1; }\nfunction save(e, p) { fs.writeFileSync(\"/tmp/cjs/c.txt\", p); }\nmodule.exports = { open, save };\n",
	})})
	for ch, want := range map[string][]string{
		"a:open": {"ipc a:open > function open in handlers.js > fs /tmp/cjs/a.txt", "ipc a:open > function open in handlers.js > handlers.js"},
		"b:open": {"ipc b:open > function open in x.js > fs /tmp/cjs/b.txt", "ipc b:open > function open in x.js > x.js"},
		"c:save": {"ipc c:save > function save in h.js > fs /tmp/cjs/c.txt", "ipc c:save > function save in h.js > h.js"},
	} {
		if got := channelPaths(t, s, ev, ch); !slices.Equal(got, want) {
			t.Errorf("outgoing trace from %s:\n got %q\nwant %q", ch, got, want)
		}
	}
}

// A handler passed as a member of a const object is the function last
// assigned to that member in straight-line top-level code before the
// registration (the literal's when none is), an empty literal's members
// included; where that is not known (assigned in a function, or
// registered in a function and assigned again later) the file handles
// the channel and an unknown says why. (A member registered both before
// and after an assignment is two function nodes:
// TestReassignedMemberHandlerIsTwoFunctions.) Before, the literal's function
// was taken whatever was assigned since, so a trace from d:open reached
// a read the handler never makes.
func TestJSAppReassignedMemberHandlers(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"reassign","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { app, ipcMain } = require("electron");
const fs = require("fs");
const first = { open(e) { fs.readFileSync("/tmp/ra/literal.txt"); } };
ipcMain.handle("before", first.open);
first.open = function (e) { fs.readFileSync("/tmp/ra/first.txt"); };
const h = { open(e) { fs.readFileSync("/tmp/ra/h-literal.txt"); } };
h.open = function (e) { fs.readFileSync("/tmp/ra/assigned.txt"); };
ipcMain.handle("after", h.open);
const empty = {};
empty.save = (e, p) => fs.writeFileSync("/tmp/ra/empty.txt", p);
ipcMain.handle("empty", empty.save);
const inFn = { open(e) { fs.readFileSync("/tmp/ra/infn-literal.txt"); } };
function setup() { inFn.open = (e) => fs.readFileSync("/tmp/ra/infn.txt"); }
ipcMain.handle("infn", inFn.open);
const later = { open(e) { fs.readFileSync("/tmp/ra/later-literal.txt"); } };
app.whenReady().then(() => ipcMain.handle("later", later.open));
later.open = (e) => fs.readFileSync("/tmp/ra/later.txt");
`})})
	for ch, want := range map[string][]string{
		"before": {"ipc before > function first.open in main.js > fs /tmp/ra/literal.txt", "ipc before > function first.open in main.js > main.js"},
		"after":  {"ipc after > function h.open in main.js > fs /tmp/ra/assigned.txt", "ipc after > function h.open in main.js > main.js"},
		"empty":  {"ipc empty > function empty.save in main.js > fs /tmp/ra/empty.txt", "ipc empty > function empty.save in main.js > main.js"},
	} {
		if got := channelPaths(t, s, ev, ch); !slices.Equal(got, want) {
			t.Errorf("outgoing trace from %s:\n got %q\nwant %q", ch, got, want)
		}
	}
	// Where the handler is not known, a trace from its channel stops at
	// the file, through a node standing for the member, and says why.
	// Before, it went on from the file to everything main.js does.
	for ch, member := range map[string]string{"infn": "inFn.open", "later": "later.open"} {
		tr := jaCall(t, s, "trace_application_feature", map[string]any{
			"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)},
			"seed":        map[string]any{"kind": "ipc-channel", "value": ch}, "direction": "outgoing"})
		var out struct {
			Paths []tracePath `json:"paths"`
		}
		if err := json.Unmarshal(tr.NormalizedResult, &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range out.Paths {
			got = append(got, strings.Join(p.Labels, " > "))
		}
		if want := []string{"ipc " + ch + " > function " + member + " in main.js > main.js"}; !slices.Equal(got, want) {
			t.Errorf("outgoing trace from %s:\n got %q\nwant %q", ch, got, want)
		}
		if !slices.ContainsFunc(tr.Limitations, func(l string) bool {
			return strings.HasPrefix(l, "The trace stops at main.js for the handler that is not known (ipcMain.handle(\""+ch+"\") handler ")
		}) {
			t.Errorf("trace from %s limitations %q, want one naming the unknown handler", ch, tr.Limitations)
		}
	}
	var why []string
	for _, u := range decodeApp(t, ev).Unknowns {
		if u["kind"] == "unresolved-handler" {
			why = append(why, u["detail"].(string))
		}
	}
	slices.Sort(why)
	want := []string{
		`ipcMain.handle("infn") handler inFn.open is not known: it is assigned inside a function, which may run before or after the call that passes it`,
		`ipcMain.handle("later") handler later.open is not known: it is assigned again later in the file, and the call that passes it is in a function, which may run after that`,
	}
	if !slices.Equal(why, want) {
		t.Errorf("unresolved-handler unknowns:\n got %q\nwant %q", why, want)
	}
}

// labelledGraph decodes an analysis record's graph and maps each labelled
// node's ID to its label.
// channelEdges are the graph's invokes and sends edges as "SOURCE MEMBER >
// CHANNEL" (the member an exposed API's call goes through, or none),
// sorted.
func channelEdges(t *testing.T, ev *core.Evidence) []string {
	t.Helper()
	g, label := labelledGraph(t, ev)
	var got []string
	for _, e := range g.Edges {
		if e.Relation == "invokes" || e.Relation == "sends" {
			m, _ := e.Properties["member"].(string)
			got = append(got, label[e.SourceNodeID]+" "+m+" > "+label[e.TargetNodeID])
		}
	}
	slices.Sort(got)
	return got
}

func labelledGraph(t *testing.T, ev *core.Evidence) (*jsapp.Graph, map[string]string) {
	t.Helper()
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	label := map[string]string{}
	for _, n := range g.Nodes {
		if n.Observations[0].Label != nil {
			label[n.NodeID] = *n.Observations[0].Label
		}
	}
	return g, label
}

// persistsTo lists an analysis's persists_to edges, sorted, each as its
// storage node's label, its API and operation, and with role its role.
func persistsTo(t *testing.T, ev *core.Evidence, role bool) []string {
	t.Helper()
	g, label := labelledGraph(t, ev)
	var got []string
	for _, e := range g.Edges {
		if e.Relation == "persists_to" {
			s := label[e.TargetNodeID] + " " + e.Properties["api"].(string) + " " + e.Properties["operation"].(string)
			if role {
				s += " " + e.Properties["role"].(string)
			}
			got = append(got, s)
		}
	}
	slices.Sort(got)
	return got
}
