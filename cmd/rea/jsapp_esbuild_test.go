package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// esbuildSources are small modules for a minified bundle: CommonJS (a, d,
// c), an ES module that c requires (so esbuild wraps it in __esm), and two
// modules of the same shape (a and d differ only in local names).
var esbuildSources = map[string]string{
	"package.json": `{}`,
	"entry.js":     "import c from \"./c.js\";\nimport * as a from \"./a.js\";\nimport d from \"./d.js\";\nconsole.log(c(), a.x, d.y(1, 2));\n",
	"a.js":         "exports.x = 1;\nmodule.exports.y = function (o, t) { return o + t; };\n",
	"d.js":         "exports.x = 1;\nmodule.exports.y = function (p, q) { return p + q; };\n",
	"b.js":         "export function f(o) { return o * 2; }\nexport let b;\nb = \"two\";\n",
	"c.js":         "const a = require(\"./a.js\");\nmodule.exports = function c() { return a.y(1, 2) + require(\"./b.js\").f(3); };\n",
}

// TestJSAppMinifiedEsbuild analyses minified esbuild bundles with source
// maps: the modules are found by the helpers' shape, their requires become
// edges, and each maps to its own original source.
func TestJSAppMinifiedEsbuild(t *testing.T) {
	root := needNodeModule(t, "esbuild")
	srcDir := writeTree(t, esbuildSources)
	s := jaSession(t)
	for _, build := range [][]string{
		{"--format=iife"},
		{"--format=esm", "--platform=node"},
		{"--format=cjs", "--sourcemap=inline"},
	} {
		t.Run(strings.Join(build, " "), func(t *testing.T) {
			is := is.New(t)
			app := t.TempDir()
			args := append([]string{"entry.js", "--bundle", "--minify", "--sourcemap", "--log-level=error",
				"--outfile=" + filepath.Join(app, "dist", "bundle.js")}, build...)
			cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), args...)
			cmd.Dir = srcDir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("esbuild: %v\n%s", err, out)
			}
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": app}))
			ids := map[string]string{}     // module node -> module ID
			sources := map[string]string{} // source-module node -> base name
			for _, n := range r.Graph.Nodes {
				switch n.Kind {
				case "javascript-module":
					ids[n.NodeID] = n.Observations[0].Properties["module_id"].(string)
				case "source-module":
					sources[n.NodeID] = path.Base(n.Identity["original_source"].(string))
				}
			}
			is.Equal(len(ids), 4)         // a, b, c, d; the entry is not wrapped
			byFile := map[string]string{} // original base name -> module ID
			node := map[string]string{}   // module ID -> node
			requires := map[string][]string{}
			for _, e := range r.Graph.Edges {
				if id, ok := ids[e.Source]; ok && e.Relation == "maps_to" {
					file := sources[e.Target]
					is.Equal(byFile[file], "") // one module per source
					byFile[file] = id
				}
				if id, ok := ids[e.Source]; ok && e.Relation == "imports" {
					requires[id] = append(requires[id], ids[e.Target])
				}
			}
			for n, id := range ids {
				node[id] = n
			}
			is.Equal(len(byFile), 4)
			for _, f := range []string{"a.js", "c.js", "d.js"} {
				is.True(strings.HasPrefix(byFile[f], "esbuild:cjs:"))
			}
			is.True(strings.HasPrefix(byFile["b.js"], "esbuild:esm:"))
			// a and d have one shape: one ID, numbered in file order.
			is.True(byFile["d.js"] == byFile["a.js"]+"-2" || byFile["a.js"] == byFile["d.js"]+"-2")
			got := requires[byFile["c.js"]]
			sort.Strings(got)
			want := []string{byFile["a.js"], byFile["b.js"]}
			sort.Strings(want)
			is.Equal(got, want)
			is.Equal(len(requires[byFile["a.js"]])+len(requires[byFile["b.js"]])+len(requires[byFile["d.js"]]), 0)
			for _, u := range r.Unknowns {
				is.True(u["kind"] != "unresolved-bundle-module")
			}
		})
	}
}

// TestJSAppEsbuildSplitting: with --splitting, esbuild moves its helpers
// into a shared chunk and each entry imports them; the entries' modules are
// still found, through the chunk's exported helpers.
func TestJSAppEsbuildSplitting(t *testing.T) {
	is := is.New(t)
	root := needNodeModule(t, "esbuild")
	src := writeTree(t, map[string]string{
		"one.js": "const a = require('./a1.cjs');\nexport function one() { return a.x + 1; }\n",
		"two.js": "const a = require('./a2.cjs');\nexport function two() { return a.y + 2; }\n",
		"a1.cjs": "exports.x = 1;\n", "a2.cjs": "exports.y = 2;\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), "one.js", "two.js", "--bundle", "--splitting", "--format=esm", "--minify",
		"--log-level=error", "--outdir="+out)
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, b)
	}
	r := decodeApp(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": out}))
	got := map[string][]any{}
	for _, n := range r.Graph.Nodes {
		if n.Kind == "javascript-module" {
			p := n.Observations[0].Properties
			got[p["asset"].(string)], _ = p["exports"].([]any)
		}
	}
	is.Equal(got, map[string][]any{"one.js": {"x"}, "two.js": {"y"}})
}

// apiSources are modules of a small web client. Minified, esbuild hoists
// the config's bindings into var e="https://...", read by every call; the
// region is assigned again, so its reads stay computed.
var apiSources = map[string]string{
	"package.json":      `{}`,
	"src/config.js":     "export const BASE = \"https://api.example.com\";\nexport const SOCKET = \"wss://push.example.com/ws\";\nexport let region = \"https://eu.example.com\";\nexport function setRegion(r) { region = r; }\n",
	"src/api/orders.js": "import { BASE } from \"../config.js\";\nexport function listOrders(page) {\n  localStorage.setItem(\"lastPage\", String(page));\n  return fetch(BASE + \"/orders?page=\" + page).then((r) => r.json());\n}\n",
	"src/api/users.js":  "import { BASE, SOCKET } from \"../config.js\";\nexport function getUser(id) {\n  return fetch(`${BASE}/users/${id}`);\n}\nexport function live(onMessage) {\n  const ws = new WebSocket(SOCKET);\n  ws.onmessage = onMessage;\n  return ws;\n}\n",
	"src/api/stats.js":  "import { region } from \"../config.js\";\nexport function stats() {\n  return fetch(region + \"/stats\");\n}\n",
	"src/entry.js":      "import { listOrders } from \"./api/orders.js\";\nimport { getUser, live } from \"./api/users.js\";\nimport { stats } from \"./api/stats.js\";\nimport { setRegion } from \"./config.js\";\nwindow.app = { listOrders, getUser, live, stats, setRegion };\n",
}

// buildAPIApp bundles apiSources with the pinned esbuild, minified, with a
// source map, into an application directory.
func buildAPIApp(t *testing.T) string {
	t.Helper()
	root := needNodeModule(t, "esbuild")
	src := writeTree(t, apiSources)
	app := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), "src/entry.js", "--bundle", "--minify", "--sourcemap",
		"--log-level=error", "--outfile="+filepath.Join(app, "dist", "app.js"))
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, b)
	}
	return app
}

// TestJSAppMinifiedBindings: the endpoints and the WebSocket URL of a
// minified bundle come out whole through its var bindings; a binding
// assigned again stays computed.
func TestJSAppMinifiedBindings(t *testing.T) {
	is := is.New(t)
	r := decodeApp(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": buildAPIApp(t)}))
	var got []string
	for _, l := range r.labels() {
		if strings.HasPrefix(l, "endpoint ") {
			got = append(got, strings.TrimPrefix(l, "endpoint "))
		}
	}
	is.Equal(got, []string{"${}/stats", "https://api.example.com/orders?page=${}", "https://api.example.com/users/${}", "wss://push.example.com/ws"})
	for _, u := range r.Unknowns {
		is.True(u["kind"] != "dynamic-endpoint")
	}
}

// TestJSAppEndpointsBySourceMap: in a scope-hoisted bundle with a source
// map, an endpoint is called from the original source at its call site,
// so a trace from src/api/orders.js reaches the orders endpoint and not
// the users one, and a trace from an endpoint names its one source.
func TestJSAppEndpointsBySourceMap(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	app := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": buildAPIApp(t)})
	r := decodeApp(t, app)
	kinds := map[string]string{}
	names := map[string]string{} // source-module -> base name, endpoint -> url
	for _, n := range r.Graph.Nodes {
		kinds[n.NodeID] = n.Kind
		switch n.Kind {
		case "source-module":
			names[n.NodeID] = path.Base(n.Identity["original_source"].(string))
		case "endpoint":
			names[n.NodeID] = n.Observations[0].Properties["url"].(string)
		}
	}
	callers := map[string][]string{} // endpoint url -> callers (source base name or node kind)
	for _, e := range r.Graph.Edges {
		if e.Relation == "calls" && kinds[e.Target] == "endpoint" {
			from := kinds[e.Source]
			if from == "source-module" {
				from = names[e.Source]
			}
			callers[names[e.Target]] = append(callers[names[e.Target]], from)
		}
	}
	// A storage call is attributed the same way.
	var writers []string
	for _, e := range r.Graph.Edges {
		if e.Relation == "persists_to" {
			writers = append(writers, names[e.Source])
		}
	}
	is.Equal(writers, []string{"orders.js"})
	is.Equal(callers, map[string][]string{
		"https://api.example.com/orders?page=${}": {"orders.js"},
		"https://api.example.com/users/${}":       {"users.js"},
		"${}/stats":                               {"stats.js"},
		// new WebSocket(e) has no literal: its callee's name locates it.
		"wss://push.example.com/ws": {"users.js"},
	})

	type traced struct {
		Graph struct {
			Nodes []struct{ Kind, Label string }
		}
	}
	trace := func(seed map[string]any) (sources, endpoints []string) {
		var tr traced
		ev := jaCall(t, s, "trace_application_feature", map[string]any{"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(app.EvidenceID)}, "seed": seed})
		is.NoErr(json.Unmarshal(ev.NormalizedResult, &tr))
		for _, n := range tr.Graph.Nodes {
			switch n.Kind {
			case "source-module":
				orig, _, _ := strings.Cut(n.Label, " (in ") // src/api/orders.js (in dist/app.js.map)
				sources = append(sources, path.Base(orig))
			case "endpoint":
				endpoints = append(endpoints, n.Label)
			}
		}
		sort.Strings(sources)
		sort.Strings(endpoints)
		return sources, endpoints
	}
	sources, endpoints := trace(map[string]any{"kind": "module", "value": "src/api/orders.js", "match": "substring"})
	is.Equal(sources, []string{"orders.js"})
	is.Equal(endpoints, []string{"https://api.example.com/orders?page=${}"})
	sources, endpoints = trace(map[string]any{"kind": "route", "value": "https://api.example.com/users/${}"})
	is.Equal(sources, []string{"users.js"})
	is.Equal(endpoints, []string{"https://api.example.com/users/${}", "wss://push.example.com/ws"}) // the second through users.js
}

// ipcSources are an Electron app's main process and preload, each split
// over several modules that esbuild hoists into one scope.
var ipcSources = map[string]string{
	"package.json":          `{"name": "ipcapp", "main": "dist/main.js", "devDependencies": {"electron": "30.0.0"}}`,
	"src/main/index.js":     "import { app, BrowserWindow } from \"electron\";\nimport { registerOrders } from \"./orders.js\";\nimport { registerUsers } from \"./users.js\";\napp.whenReady().then(() => {\n  const win = new BrowserWindow({ webPreferences: { preload: __dirname + \"/preload.js\" } });\n  registerOrders();\n  registerUsers(win);\n});\n",
	"src/main/orders.js":    "import { ipcMain } from \"electron\";\nexport function registerOrders() {\n  ipcMain.handle(\"orders:list\", async () => []);\n}\n",
	"src/main/users.js":     "import { ipcMain } from \"electron\";\nexport function registerUsers(win) {\n  ipcMain.on(\"users:save\", (event, user) => console.log(user));\n  win.webContents.send(\"users:changed\", 1);\n}\n",
	"src/preload/index.js":  "import { contextBridge } from \"electron\";\nimport { orders } from \"./orders.js\";\nimport { users } from \"./users.js\";\ncontextBridge.exposeInMainWorld(\"api\", { orders, users });\n",
	"src/preload/orders.js": "import { ipcRenderer } from \"electron\";\nexport const orders = { list: () => ipcRenderer.invoke(\"orders:list\") };\n",
	"src/preload/users.js":  "import { ipcRenderer } from \"electron\";\nconst SAVE = \"users:save\";\nexport const users = {\n  save: (user) => ipcRenderer.send(SAVE, user),\n  onChange: (f) => ipcRenderer.on(\"users:changed\", f),\n};\n",
}

// TestJSAppIPCBySourceMap: in scope-hoisted main and preload bundles with
// source maps, each IPC channel's senders and handlers, and the
// context-bridge API, are the original sources at their call sites.
func TestJSAppIPCBySourceMap(t *testing.T) {
	is := is.New(t)
	root := needNodeModule(t, "esbuild")
	src := writeTree(t, ipcSources)
	app := writeTree(t, map[string]string{"package.json": ipcSources["package.json"]})
	for _, proc := range []string{"main", "preload"} {
		cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), "src/"+proc+"/index.js", "--bundle", "--minify", "--sourcemap",
			"--platform=node", "--format=cjs", "--external:electron", "--log-level=error", "--outfile="+filepath.Join(app, "dist", proc+".js"))
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("esbuild: %v\n%s", err, b)
		}
	}
	r := decodeApp(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": app}))
	names := map[string]string{} // source-module -> src/..., other nodes -> kind
	label := map[string]string{} // ipc-channel and context-bridge-api -> name
	for _, n := range r.Graph.Nodes {
		names[n.NodeID] = n.Kind
		switch n.Kind {
		case "source-module":
			s := n.Identity["original_source"].(string)
			names[n.NodeID] = s[strings.Index(s, "src/"):]
		case "ipc-channel", "context-bridge-api":
			label[n.NodeID] = *n.Observations[0].Label
		}
	}
	definedIn := map[string]string{} // a handler function -> the node that defines it
	for _, e := range r.Graph.Edges {
		if e.Relation == "defined_in" {
			definedIn[e.Source] = e.Target
		}
	}
	got := map[string][]string{} // "relation channel" -> call sites
	for _, e := range r.Graph.Edges {
		switch e.Relation {
		case "handles":
			if ch, ok := label[e.Source]; ok {
				site := e.Target
				if names[site] == "javascript-function" {
					site = definedIn[site] // the handler, in its source
				}
				got["handles "+ch] = append(got["handles "+ch], names[site])
			}
		case "sends", "invokes", "exposes":
			got[e.Relation+" "+label[e.Target]] = append(got[e.Relation+" "+label[e.Target]], names[e.Source])
		}
	}
	for _, l := range got {
		sort.Strings(l)
	}
	is.Equal(got, map[string][]string{
		"handles orders:list":   {"src/main/orders.js"},
		"invokes orders:list":   {"src/preload/orders.js"},
		"handles users:save":    {"src/main/users.js"},
		"sends users:save":      {"src/preload/users.js"}, // ipcRenderer.send(SAVE, user), located by its callee's name
		"sends users:changed":   {"src/main/users.js"},
		"handles users:changed": {"src/preload/users.js"},
		"exposes api":           {"src/preload/index.js"},
	})
}

// TestJSAppESMBundleBindings: esbuild's --format=esm bundle of an app has
// no import or export left, and hoists the config's consts into
// top-level vars. Named .mjs, or .js in a package of type module, or
// loaded by an HTML document's module script tag (not one in a comment, in
// another element's text or in a template), it is an ES module, so
// those vars are the module's own and the endpoints come out whole; a .js
// file nothing says is a module reads as a script, whose top-level vars
// are globals another script may assign.
func TestJSAppESMBundleBindings(t *testing.T) {
	root := needNodeModule(t, "esbuild")
	src := writeTree(t, apiSources)
	whole := []string{"${}/stats", "https://api.example.com/orders?page=${}", "https://api.example.com/users/${}", "wss://push.example.com/ws"}
	script := []string{"${}/orders?page=${}", "${}/stats", "${}/users/${}"}
	for _, tc := range []struct {
		name, pkg, html string
		want            []string
	}{
		{"app.mjs", `{}`, "", whole},
		{"app.js", `{"type": "module"}`, "", whole},
		{"app.js", `{}`, "", script},
		{"app.js", `{}`, `<script type="module" src="app.js"></script>`, whole},
		{"app.js", `{}`, `<SCRIPT crossorigin type=module src="/app.js?v=2"></SCRIPT>`, whole}, // as a bundler writes it, the page's directory its root
		{"app.js", `{}`, `<script src="app.js"></script><script type="module" data-src="app.js"></script>`, script},
		{"app.js", `{}`, `<!-- <script type="module" src="app.js"></script> --><script src="app.js"></script>`, script}, // a commented tag is not run
		{"app.js", `{}`, `<!-- <script src="old.js"></script> --><script type="module" src="app.js"></script>`, whole},
		// A tag in another element's text, or in a template, is not run;
		// a real one after it is.
		{"app.js", `{}`, `<script>document.write('<script type="module" src="app.js"><\/script>')</script><script src="app.js"></script>`, script},
		{"app.js", `{}`, `<template><script type="module" src="app.js"></script></template><noscript><script type="module" src="app.js"></script></noscript><script src="app.js"></script>`, script},
		{"app.js", `{}`, `<title><script src="app.js"></script></title><script type="module" src="app.js"></script>`, whole},
	} {
		for _, minify := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s %s %s minify=%v", tc.name, tc.pkg, tc.html, minify), func(t *testing.T) {
				is := is.New(t)
				files := map[string]string{"package.json": tc.pkg}
				if tc.html != "" {
					files["dist/index.html"] = "<!doctype html>\n<html><head>" + tc.html + "</head><body></body></html>\n"
				}
				app := writeTree(t, files)
				args := []string{"src/entry.js", "--bundle", "--format=esm", "--sourcemap", "--log-level=error", "--outfile=" + filepath.Join(app, "dist", tc.name)}
				if minify {
					args = append(args, "--minify")
				}
				cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), args...)
				cmd.Dir = src
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("esbuild: %v\n%s", err, b)
				}
				r := decodeApp(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": app}))
				var got []string
				for _, l := range r.labels() {
					if strings.HasPrefix(l, "endpoint ") {
						got = append(got, strings.TrimPrefix(l, "endpoint "))
					}
				}
				is.Equal(got, tc.want)
			})
		}
	}
}

// electronSources are an Electron app's main, preload and renderer, each
// split over several modules that esbuild hoists into one scope. about.js
// comes first in the main bundle, so its loadURL precedes any window there
// and goes from the call site, not from a window.
var electronSources = map[string]string{
	"package.json":           `{"name": "winapp", "main": "dist/main.js", "devDependencies": {"electron": "30.0.0"}}`,
	"src/main/index.js":      "import { app } from \"electron\";\nimport { showAbout } from \"./about.js\";\nimport { createWindow } from \"./window.js\";\nimport { startUtility } from \"./util.js\";\nimport { digest } from \"./native.js\";\napp.whenReady().then(() => {\n  showAbout(globalThis.view);\n  createWindow();\n  startUtility();\n  console.log(digest(\"x\"));\n});\n",
	"src/main/about.js":      "export function showAbout(view) {\n  view.webContents.loadURL(\"https://example.com/about\");\n}\n",
	"src/main/window.js":     "import { BrowserWindow } from \"electron\";\nimport path from \"path\";\nexport function createWindow() {\n  const win = new BrowserWindow({ webPreferences: { preload: path.join(__dirname, \"preload.js\") } });\n  win.loadFile(path.join(__dirname, \"index.html\"));\n  return win;\n}\n",
	"src/main/util.js":       "import { utilityProcess } from \"electron\";\nimport path from \"path\";\nexport function startUtility() {\n  return utilityProcess.fork(path.join(__dirname, \"helper.js\"));\n}\n",
	"src/main/native.js":     "const addon = require(\"../build/addon.node\");\nexport function digest(s) {\n  return addon.digest(s);\n}\n",
	"src/preload/index.js":   "import { contextBridge, ipcRenderer } from \"electron\";\nimport { orders } from \"./orders.js\";\ncontextBridge.exposeInMainWorld(\"api\", { orders, ping: () => ipcRenderer.invoke(\"ping\") });\n",
	"src/preload/orders.js":  "import { ipcRenderer } from \"electron\";\nexport const orders = { list: () => ipcRenderer.invoke(\"orders:list\") };\n",
	"src/renderer/index.js":  "import { showOrders } from \"./orders.js\";\nimport { startJobs } from \"./jobs.js\";\nshowOrders();\nstartJobs();\n",
	"src/renderer/orders.js": "export async function showOrders() {\n  document.body.textContent = JSON.stringify(await window.api.orders.list());\n}\n",
	"src/renderer/jobs.js":   "export function startJobs() {\n  return new Worker(\"./worker.js\");\n}\n",
}

// TestJSAppElectronCallsBySourceMap: in scope-hoisted main, preload and
// renderer bundles with source maps, the edges a call makes (a window's
// creation, a load with no window, a utility process, a native export, a
// renderer's call into an exposed API, a worker) go from the original
// source at the call site. A load after a window goes from the window.
func TestJSAppElectronCallsBySourceMap(t *testing.T) {
	is := is.New(t)
	root := needNodeModule(t, "esbuild")
	src := writeTree(t, electronSources)
	app := writeTree(t, map[string]string{"package.json": electronSources["package.json"], "dist/index.html": "<script src=\"renderer.js\"></script>\n",
		"dist/helper.js": "process.parentPort.postMessage(1);\n", "dist/worker.js": "postMessage(1);\n", "build/addon.node": "\x7fELF"})
	for _, b := range []struct{ entry, out, platform string }{
		{"src/main/index.js", "main.js", "node"}, {"src/preload/index.js", "preload.js", "node"}, {"src/renderer/index.js", "renderer.js", "browser"},
	} {
		cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), b.entry, "--bundle", "--minify", "--sourcemap",
			"--platform="+b.platform, "--format=cjs", "--external:electron", "--external:*.node", "--log-level=error", "--outfile="+filepath.Join(app, "dist", b.out))
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("esbuild: %v\n%s", err, out)
		}
	}
	r := decodeApp(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": app}))
	names := map[string]string{} // source-module -> src/..., other nodes -> kind
	for _, n := range r.Graph.Nodes {
		names[n.NodeID] = n.Kind
		if n.Kind == "source-module" {
			s := n.Identity["original_source"].(string)
			names[n.NodeID] = s[strings.Index(s, "src/"):]
		}
	}
	got := map[string][]string{} // "relation target-kind" -> sources
	for _, e := range r.Graph.Edges {
		switch to := names[e.Target]; {
		case e.Relation == "calls" && to != "endpoint", e.Relation == "exposes" && to == "context-bridge-api",
			e.Relation == "loads" && (to == "worker" || to == "target" || to == "electron-renderer"):
			k := e.Relation + " " + to
			got[k] = append(got[k], names[e.Source])
		}
	}
	for _, l := range got {
		sort.Strings(l)
	}
	is.Equal(got, map[string][]string{
		"calls browser-window":       {"src/main/window.js"},
		"loads target":               {"src/main/about.js"},
		"loads electron-renderer":    {"browser-window"}, // a load after a window goes from the window
		"calls electron-utility":     {"src/main/util.js"},
		"calls native-export":        {"src/main/native.js"},
		"exposes context-bridge-api": {"src/preload/index.js"},
		"calls context-bridge-api":   {"src/renderer/orders.js"},
		"loads worker":               {"src/renderer/jobs.js"},
	})
}

// TestJSAppEsbuildModuleWorker: a worker created inside an esbuild
// __commonJS module's function, with a literal script, is a worker node
// whose loads edge starts at that module; a script the app lacks is an
// unresolved-worker unknown of the module.
func TestJSAppEsbuildModuleWorker(t *testing.T) {
	root := needNodeModule(t, "esbuild")
	srcDir := writeTree(t, map[string]string{
		"entry.js": "const spawn = require('./spawn.cjs');\nspawn();\n",
		"spawn.cjs": "module.exports = function spawn() {\n  const w = new Worker('./worker.js');\n" +
			"  if (!w) new SharedWorker('./missing.js');\n  return w;\n};\n",
	})
	for _, minify := range []bool{false, true} {
		t.Run(fmt.Sprint("minify=", minify), func(t *testing.T) {
			is := is.New(t)
			app := t.TempDir()
			args := []string{"entry.js", "--bundle", "--sourcemap", "--log-level=error", "--outfile=" + filepath.Join(app, "dist", "bundle.js")}
			if minify {
				args = append(args, "--minify")
			}
			cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), args...)
			cmd.Dir = srcDir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("esbuild: %v\n%s", err, out)
			}
			writeTreeFile(t, filepath.Join(app, "dist", "worker.js"), []byte("self.onmessage = () => {};\n"))
			r := decodeApp(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": app}))
			label := map[string]string{}
			for _, n := range r.Graph.Nodes {
				if l := n.Observations[0].Label; l != nil {
					label[n.NodeID] = n.Kind + ":" + *l
				}
			}
			var loads []string
			for _, e := range r.Graph.Edges {
				if e.Relation == "loads" && strings.HasPrefix(label[e.Target], "worker:") {
					script := ""
					for _, f := range r.Graph.Edges {
						if f.Source == e.Target && f.Relation == "loads" {
							script = label[f.Target]
						}
					}
					loads = append(loads, filepath.Base(srcOf(r, label, e.Source))+" -> "+label[e.Target]+" -> "+script)
				}
			}
			sort.Strings(loads)
			is.Equal(loads, []string{"spawn.cjs -> worker:./missing.js -> ", "spawn.cjs -> worker:dist/worker.js -> javascript-asset:dist/worker.js"})
			var unresolved []string
			for _, u := range r.Unknowns {
				if u["kind"] == "unresolved-worker" {
					n, _ := u["node_id"].(string)
					unresolved = append(unresolved, filepath.Base(srcOf(r, label, n)))
				}
			}
			is.Equal(unresolved, []string{"spawn.cjs"})
		})
	}
}
