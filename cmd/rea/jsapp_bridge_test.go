package main

import (
	"slices"
	"strings"
	"testing"
)

// bridgeApp's preload exposes two APIs whose members invoke one channel
// each: window.notes.open invokes notes:open, whose handler opens a URL,
// and window.prefs.get invokes prefs:get. renderer.js calls the first,
// settings.js the second.
var bridgeApp = map[string]string{
	"package.json": `{"name":"open","main":"main.js","devDependencies":{"electron":"31"}}`,
	"main.js": `const { app, BrowserWindow, ipcMain, shell } = require("electron");
const path = require("path");
app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: path.join(__dirname, "preload.js") } }).loadFile("index.html"));
ipcMain.handle("notes:open", (event, url) => shell.openExternal(url));
ipcMain.handle("prefs:get", (event, key) => key);
`,
	"preload.js": `const { contextBridge, ipcRenderer } = require("electron");
contextBridge.exposeInMainWorld("notes", { open: (url) => ipcRenderer.invoke("notes:open", url) });
contextBridge.exposeInMainWorld("prefs", { get(key) { return ipcRenderer.invoke("prefs:get", key); } });
`,
	"index.html":  `<!doctype html><script src="renderer.js"></script><script src="settings.js"></script>`,
	"renderer.js": "document.querySelector(\"a\").onclick = (e) => window.notes.open(e.target.href);\n",
	"settings.js": "window.prefs.get(\"theme\");\n",
}

// An exposed API's member is linked to the channel its function invokes:
// an outgoing trace from the renderer follows window.notes.open to the
// channel, its handler and the URL it opens, and an incoming trace from
// that sink reaches the renderer through window.notes alone, not through
// the preload to window.prefs and settings.js. Before, the API had no edge
// to the channel (the preload file invoked it): the outgoing trace ended at
// window.notes and the incoming one crossed to every API the preload
// exposes.
func TestExposedAPIMemberInvokesItsChannel(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, bridgeApp)})
	var out []string
	for _, p := range traceOf(t, s, ev, map[string]any{"kind": "module", "value": "renderer.js"}, "outgoing") {
		out = append(out, strings.Join(p.Labels, " > ")+" | "+strings.Join(p.Relations, ", "))
	}
	want := `renderer.js > window.notes {open} > ipc notes:open > function ipcMain.handle("notes:open") handler in main.js > shell.openExternal(url) | calls, invokes, handles, calls`
	if !slices.Contains(out, want) {
		t.Errorf("outgoing trace from renderer.js:\n got %q\nwant a path %q", out, want)
	}
	var in []string
	for _, p := range traceOf(t, s, ev, map[string]any{"kind": "string", "value": "shell.openExternal", "match": "prefix"}, "incoming") {
		in = append(in, strings.Join(p.Labels, " < ")+" | "+strings.Join(p.Relations, ", "))
		for _, l := range p.Labels {
			if strings.Contains(l, "prefs") || strings.Contains(l, "settings.js") {
				t.Errorf("incoming trace from shell.openExternal crosses to another API: %q", in[len(in)-1])
			}
		}
	}
	want = `shell.openExternal(url) < function ipcMain.handle("notes:open") handler in main.js < ipc notes:open < window.notes {open} < renderer.js < renderer process index.html | calls by, handles by, invokes by, calls by, loads by`
	if !slices.Contains(in, want) {
		t.Errorf("incoming trace from shell.openExternal:\n got %q\nwant a path %q", in, want)
	}
	// A method member is a member of the API: window.prefs {get}.
	var prefs []string
	for _, p := range traceOf(t, s, ev, map[string]any{"kind": "module", "value": "settings.js"}, "outgoing") {
		prefs = append(prefs, strings.Join(p.Labels, " > "))
	}
	if want := `settings.js > window.prefs {get} > ipc prefs:get`; !slices.ContainsFunc(prefs, func(p string) bool { return strings.HasPrefix(p, want) }) {
		t.Errorf("outgoing trace from settings.js:\n got %q\nwant a path from %q", prefs, want)
	}
}

// A preload that binds its API to a const object literal before exposing
// it (const api = {...}; contextBridge.exposeInMainWorld("api", api)), the
// commonest way preloads are written, links each member to the channel
// its function invokes, as an inline object does: an arrow, a method and
// a const arrow named in the literal. The const-object rules hold: a let
// binding, a const object whose member is assigned after the call, and a
// const declared after the function that exposes it are not followed, so
// their preload file invokes the channel. An outgoing trace from the
// renderer's window.api.save call reaches the main process's handler.
// Before, only an object written in the call was linked: every channel
// here was the preload file's, and the trace stopped at window.api.
func TestJSAppExposedConstObject(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"constapi","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": `const { app, BrowserWindow, ipcMain } = require("electron");
const fs = require("fs");
const path = require("path");
app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: path.join(__dirname, "preload.js") } }).loadFile("index.html"));
ipcMain.handle("notes:save", (event, n) => fs.writeFileSync("/tmp/constapi/notes.txt", n));
`,
		"preload.js": `const { contextBridge, ipcRenderer } = require("electron");
const open = (p) => ipcRenderer.invoke("notes:open", p);
const api = {
  save: (n) => ipcRenderer.invoke("notes:save", n),
  list() { return ipcRenderer.invoke("notes:list"); },
  open,
};
contextBridge.exposeInMainWorld("api", api);
let loose = { ping: () => ipcRenderer.send("x:ping") };
contextBridge.exposeInMainWorld("loose", loose);
const changed = { go: () => ipcRenderer.send("x:go") };
contextBridge.exposeInMainWorld("changed", changed);
changed.go = () => ipcRenderer.send("x:other");
function early() { contextBridge.exposeInMainWorld("early", later); }
const later = { run: () => ipcRenderer.send("x:run") };
early();
`,
		"index.html":  `<!doctype html><script src="renderer.js"></script>`,
		"renderer.js": "document.querySelector(\"button\").onclick = () => window.api.save(\"hello\");\n",
	})})
	got := channelEdges(t, ev)
	want := []string{"api list > notes:list", "api open > notes:open", "api save > notes:save",
		"preload.js  > x:go", "preload.js  > x:other", "preload.js  > x:ping", "preload.js  > x:run"}
	if !slices.Equal(got, want) {
		t.Errorf("invokes and sends:\n got %q\nwant %q", got, want)
	}
	var out []string
	for _, p := range traceOf(t, s, ev, map[string]any{"kind": "module", "value": "renderer.js"}, "outgoing") {
		out = append(out, strings.Join(p.Labels, " > ")+" | "+strings.Join(p.Relations, ", "))
	}
	wantPath := `renderer.js > window.api {list, open, save} > ipc notes:save > function ipcMain.handle("notes:save") handler in main.js > fs /tmp/constapi/notes.txt | calls, invokes, handles, persists_to`
	if !slices.Contains(out, wantPath) {
		t.Errorf("outgoing trace from renderer.js:\n got %q\nwant a path %q", out, wantPath)
	}
}
