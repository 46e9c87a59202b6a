package main

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"rea/core/jsapp"
)

// A trace from a channel goes through its handler into what the handler
// does and stops at the file that defines it: the file's other handlers
// and imports are not the channel's. Before, the handler's defined_in
// edge led on into everything main.js does (log:write's append,
// lib/store.js). From the file outward the trace still reaches its
// handlers' writes (TestTraceReachesEachComputedStorageKey).
func TestChannelTraceStopsAtTheHandlersFile(t *testing.T) {
	for _, dir := range []string{"outgoing", "both"} {
		var ends, all []string
		for _, p := range storageTrace(t, map[string]any{"kind": "ipc-channel", "value": "notes:save"}, dir) {
			ends = append(ends, p.Labels[len(p.Labels)-1])
			all = append(all, p.Labels...)
		}
		for _, not := range []string{"ipc log:write", "fs ${logFile}", "lib/store.js"} {
			if slices.Contains(all, not) {
				t.Errorf("%s trace from notes:save reaches %s: %q", dir, not, ends)
			}
		}
		if !slices.Contains(ends, "main.js") || !slices.ContainsFunc(all, func(s string) bool { return strings.HasPrefix(s, "fs.writeFileSync(") }) {
			t.Errorf("%s trace from notes:save ends at %q, want it through the handler's write and to its file main.js", dir, ends)
		}
	}
	// Inward, a handler's trace goes up to its file and what loads it,
	// not down into the file's other handlers.
	var into []string
	for _, p := range storageTrace(t, map[string]any{"kind": "string", "value": "${logFile}"}, "incoming") {
		into = append(into, strings.Join(p.Labels, " < "))
	}
	want := []string{`fs ${logFile} < function ipcMain.on("log:write") handler in main.js < ipc log:write`,
		`fs ${logFile} < function ipcMain.on("log:write") handler in main.js < main.js < main process main.js`}
	if !slices.Equal(into, want) {
		t.Errorf("incoming trace from logFile:\n got %q\nwant %q", into, want)
	}
}

// sinkApp is an Electron main process whose handlers hand renderer values
// to the system: a URL to shell.openExternal, a command to
// child_process.exec, a computed URL to loadURL; and two handlers it
// imports (a require's member, an ESM import) that write files.
var sinkApp = map[string]string{
	"package.json": `{"name":"sink","main":"main.js","devDependencies":{"electron":"31"}}`,
	"main.js": `const { app, BrowserWindow, ipcMain, shell } = require("electron");
const { exec } = require("child_process");
let win;
app.whenReady().then(() => { win = new BrowserWindow({}); win.loadFile("index.html"); });
ipcMain.handle("open-url", async (event, url) => {
  await shell.openExternal(url);
});
ipcMain.handle("run", (event, cmd) => exec(cmd));
ipcMain.on("navigate", (event, where) => win.loadURL("https://app.example.com/" + where));
ipcMain.handle("help", () => shell.openExternal("https://example.com/help"));
ipcMain.handle("save", require("./handlers/save").run);
`,
	"handlers/save.js": `const fs = require("fs");
fs.mkdirSync("/tmp/sink-data", { recursive: true });
exports.run = async (event, name, text) => {
  fs.writeFileSync("/tmp/sink-data/" + name, text);
};
`,
	"index.html": "<!doctype html><p>x</p>\n",
}

// An IPC handler that hands a renderer's value to the system is a path
// from the channel through the handler to a system-api node named by the
// API and the argument as written (shell.openExternal(url)), and the
// analysis counts them; a literal argument is a node of its own. An
// imported handler's own calls go from it: the save channel reaches the
// write its body makes, not the file's mkdirSync. Before, no system API
// was in the graph, and an imported handler's calls went from its file.
func TestHandlersReachSystemAPIs(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, sinkApp)})
	var res struct {
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(ev.NormalizedResult, &res); err != nil {
		t.Fatal(err)
	}
	if res.Summary["system_apis"] != float64(4) {
		t.Errorf("summary counts %v system APIs, want 4 (openExternal(url), exec(cmd), loadURL, openExternal(literal))", res.Summary["system_apis"])
	}
	handler := func(ch string) string {
		return `ipc ` + ch + ` > function ipcMain.handle("` + ch + `") handler in main.js`
	}
	for ch, want := range map[string][]string{
		"open-url": {handler("open-url") + " > main.js", handler("open-url") + " > shell.openExternal(url)"},
		"run":      {handler("run") + " > child_process.exec(cmd)", handler("run") + " > main.js"},
		"navigate": {`ipc navigate > function ipcMain.on("navigate") handler in main.js > loadURL(` + "`https://app.example.com/${where}`)",
			`ipc navigate > function ipcMain.on("navigate") handler in main.js > main.js`},
		"help": {handler("help") + ` > main.js`, handler("help") + ` > shell.openExternal("https://example.com/help")`},
		"save": {`ipc save > function run in handlers/save.js > fs /tmp/sink-data/${name}`, `ipc save > function run in handlers/save.js > handlers/save.js`},
	} {
		if got := channelPaths(t, s, ev, ch); !slices.Equal(got, want) {
			t.Errorf("outgoing trace from %s:\n got %q\nwant %q", ch, got, want)
		}
	}
	var seeded []string
	for _, p := range traceOf(t, s, ev, map[string]any{"kind": "string", "value": "shell.openExternal", "match": "prefix"}, "incoming") {
		seeded = append(seeded, strings.Join(p.Labels, " < "))
	}
	sort.Strings(seeded)
	// One path per call, through its handler; up from the handler to its
	// file and its process, not down into the file's other handlers.
	want := []string{`shell.openExternal("https://example.com/help") < function ipcMain.handle("help") handler in main.js < ipc help`,
		`shell.openExternal(url) < function ipcMain.handle("open-url") handler in main.js < ipc open-url`,
		`shell.openExternal(url) < function ipcMain.handle("open-url") handler in main.js < main.js < main process main.js`}
	if !slices.Equal(seeded, want) {
		t.Errorf("incoming trace from shell.openExternal:\n got %q\nwant %q", seeded, want)
	}
}

// Each way of reaching a system API is one: a child_process binding, a
// member of require's value, a renamed or ESM import, a namespace; a
// RegExp's exec is none.
func TestSystemAPIForms(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"forms","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const cp = require("child_process");
const { shell } = require("electron");
cp.spawn("ls", ["-la"]);
require("child_process").execFileSync(tool);
require("electron").shell.openPath(p);
const m = /x(y)/.exec(s);
const re = new RegExp("a"); re.exec(s);
shell.showItemInFolder(` + "`${dir}/out.txt`" + `);
const { execSync: run } = require("node:child_process");
run("git status");
`,
		"esm.mjs": `import { execFile } from "node:child_process";
import * as child from "child_process";
execFile("/bin/true");
child.fork("./w.js");
`})})
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.Nodes {
		if n.Kind == "system-api" {
			got = append(got, *n.Observations[0].Label)
		}
	}
	sort.Strings(got)
	want := []string{`child_process.execFile("/bin/true")`, "child_process.execFileSync(tool)", `child_process.execSync("git status")`,
		`child_process.fork("./w.js")`, `child_process.spawn("ls", ["-la"])`, "shell.openPath(p)", "shell.showItemInFolder(`${dir}/out.txt`)"}
	if !slices.Equal(got, want) {
		t.Errorf("system APIs:\n got %q\nwant %q", got, want)
	}
}

// A handler that calls a function another file of the app exports
// (store.save(n) after const store = require("./lib/store")) calls that
// function's node, whose body's write goes from it: a trace out of the
// renderer reaches the write in lib/store.js. Before, the engine did not
// record store.save (no selector named it), the handler's body held no
// call, and the path ended at main.js.
func TestHandlerReachesAnImportedFunctionsWrite(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"notes","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { app, BrowserWindow, ipcMain } = require("electron");
const path = require("path");
const store = require("./lib/store");
app.whenReady().then(() => { const w = new BrowserWindow({ webPreferences: { preload: path.join(__dirname, "preload.js") } }); w.loadFile("index.html"); });
ipcMain.handle("notes:save", (e, n) => store.save(n));
`,
		"lib/store.js": `const fs = require("fs");
exports.save = function save(n) { fs.writeFileSync("/tmp/notes/n.txt", n); };
`,
		"preload.js": `const { contextBridge, ipcRenderer } = require("electron");
contextBridge.exposeInMainWorld("notes", { save: (n) => ipcRenderer.invoke("notes:save", n) });
`,
		"index.html":  `<script src="renderer.js"></script>`,
		"renderer.js": "window.notes.save(\"hi\");\n",
	})})
	var got []string
	for _, p := range traceOf(t, s, ev, map[string]any{"kind": "module", "value": "renderer.js"}, "outgoing") {
		got = append(got, strings.Join(p.Labels, " > "))
	}
	slices.Sort(got)
	handler := `renderer.js > window.notes {save} > ipc notes:save > function ipcMain.handle("notes:save") handler in main.js`
	want := []string{
		handler + " > function save in lib/store.js > fs /tmp/notes/n.txt",
		handler + " > function save in lib/store.js > lib/store.js",
		handler + " > main.js",
	}
	if !slices.Equal(got, want) {
		t.Errorf("outgoing trace from renderer.js:\n got %q\nwant %q", got, want)
	}
}

// A handler declared before its registration and passed by name
// (function onSave(e, n) { store.save(n) } ipcMain.handle("notes:save",
// onSave)) calls the function lib/store.js exports, as one written in the
// registration does: the channel's trace reaches the write in
// lib/store.js. So does a const arrow passed by name. Before, the engine
// recorded the calls to a relative module only inside a function written
// as an argument, and the path ended at main.js. A member path one level
// deeper (store.db.put(n), lib/index.mjs passing on ./db.mjs as db)
// reaches lib/db.mjs's function; before, it ended at backup.mjs.
func TestNamedHandlerReachesAnImportedFunctionsWrite(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"notes","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { app, BrowserWindow, ipcMain } = require("electron");
const store = require("./lib/store");
function onSave(e, n) { store.save(n); }
const onLoad = async (e, id) => store.load(id);
function unused(n) { store.save(n); }
app.whenReady().then(() => new BrowserWindow({}).loadFile("index.html"));
ipcMain.handle("notes:save", onSave);
ipcMain.handle("notes:load", onLoad);
`,
		"lib/store.js": `const fs = require("fs");
exports.save = function save(n) { fs.writeFileSync("/tmp/notes/n.txt", n); };
exports.load = function load(id) { return fs.readFileSync("/tmp/notes/" + id); };
`,
		"backup.mjs": `import { ipcMain } from "electron";
import * as store from "./lib/index.mjs";
ipcMain.handle("notes:backup", (e, n) => store.db.put(n));
`,
		"lib/index.mjs": `export * as db from "./db.mjs";
`,
		"lib/db.mjs": `import fs from "fs";
export function put(n) { fs.writeFileSync("/tmp/notes/backup.txt", n); }
`,
		"index.html": `<p>notes</p>`,
	})})
	backup := `ipc notes:backup > function ipcMain.handle("notes:backup") handler in backup.mjs`
	for ch, want := range map[string][]string{
		"notes:save": {
			"ipc notes:save > function onSave in main.js > function save in lib/store.js > fs /tmp/notes/n.txt",
			"ipc notes:save > function onSave in main.js > function save in lib/store.js > lib/store.js",
			"ipc notes:save > function onSave in main.js > main.js",
		},
		"notes:load": {
			"ipc notes:load > function onLoad in main.js > function load in lib/store.js > fs /tmp/notes/${id}",
			"ipc notes:load > function onLoad in main.js > function load in lib/store.js > lib/store.js",
			"ipc notes:load > function onLoad in main.js > main.js",
		},
		"notes:backup": {
			backup + " > backup.mjs",
			backup + " > function put in lib/db.mjs > fs /tmp/notes/backup.txt",
			backup + " > function put in lib/db.mjs > lib/db.mjs",
		},
	} {
		if got := channelPaths(t, s, ev, ch); !slices.Equal(got, want) {
			t.Errorf("outgoing trace from %s:\n got %q\nwant %q", ch, got, want)
		}
	}
}
