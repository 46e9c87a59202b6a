package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// webpackSources: an entry that imports an ES module and a CommonJS one and
// loads a third as a separate chunk, which calls an endpoint.
var webpackSources = map[string]string{
	"package.json": `{"name":"wp","version":"1.0.0"}`,
	"index.js":     "import { add } from './math.js';\nimport util from './util.cjs';\nimport('./lazy.js').then(m => m.run());\nexport function main(a, b) { return util.fmt(add(a, b)); }\nmain(1, 2);\n",
	"math.js":      "export function add(a, b) { return a + b; }\nexport const PI = 3.14;\n",
	"util.cjs":     "exports.fmt = function (x) { return 'v=' + x; };\n",
	"lazy.js":      "export function run() { return fetch('https://api.example.com/items'); }\n",
}

// TestJSAppRealWebpack analyses what the pinned webpack 5 writes (method
// shorthand module tables, minified or not, a lazily loaded chunk, source
// maps): the table modules, their exports, the bundle's own requires
// (across chunks too) and the original sources they map to.
func TestJSAppRealWebpack(t *testing.T) {
	root := needNodeModule(t, "webpack")
	src := writeTree(t, webpackSources)
	s := jaSession(t)
	for _, build := range []struct{ mode, devtool string }{
		{"development", "source-map"},
		{"production", "source-map"},
		{"development", "none"},            // webpack's default: module code in eval strings
		{"development", "eval-source-map"}, // eval strings with a source map each
	} {
		mode := build.mode
		t.Run(mode+" "+build.devtool, func(t *testing.T) {
			is := is.New(t)
			out := filepath.Join(t.TempDir(), "dist")
			cmd := exec.Command("node", filepath.Join(root, "cmd/rea/testdata/jsapp/webpack-build.cjs"), src, out, mode, "web", build.devtool)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("webpack: %v\n%s", err, b)
			}
			bundleEv := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": out})
			r := decodeApp(t, bundleEv)
			label := map[string]string{}
			for _, n := range r.Graph.Nodes {
				if l := n.Observations[0].Label; l != nil {
					label[n.NodeID] = n.Kind + ":" + *l
				}
			}
			// Every table module maps to its own original source.
			var mapped []string
			for _, e := range r.Graph.Edges {
				if e.Relation == "maps_to" && strings.HasPrefix(label[e.Source], "javascript-module:") && strings.HasPrefix(label[e.Target], "source-module:") {
					base, _, _ := strings.Cut(filepath.Base(label[e.Target]), "?") // eval-source-map adds ?hash
					mapped = append(mapped, base)
				}
			}
			sort.Strings(mapped)
			var requires []string
			for _, e := range r.Graph.Edges {
				if e.Relation == "imports" && e.Properties["kind"] == "bundle-require" {
					requires = append(requires, strings.TrimPrefix(label[e.Source], "javascript-asset:")+" -> "+filepath.Base(srcOf(r, label, e.Target)))
				}
			}
			sort.Strings(requires)
			exports := map[string][]any{}
			for _, n := range r.Graph.Nodes {
				if n.Kind == "javascript-module" {
					if ex, ok := n.Observations[0].Properties["exports"].([]any); ok {
						exports[filepath.Base(srcOf(r, label, n.NodeID))] = ex
					}
				}
			}
			switch {
			case build.devtool == "none":
				// No source map at all: the modules keep their paths as ids,
				// and their code, read from the eval strings, gives exports
				// and the endpoint. The entry cannot be inlined under eval.
				is.Equal(len(mapped), 0)
				is.Equal(exports["math.js"], []any{"PI", "add"})
				is.Equal(exports["util.cjs"], []any{"fmt"})
				is.Equal(exports["lazy.js"], []any{"run"})
				is.Equal(r.Summary["endpoints"], 1)
				is.Equal(r.Statistics["bundled_modules"], 4)
				return
			case build.devtool == "eval-source-map":
				// Each eval string carries the module's own map.
				is.Equal(mapped, []string{"index.js", "lazy.js", "math.js", "util.cjs"})
				is.Equal(r.Statistics["source_maps"], 4)
				for _, u := range r.Unknowns {
					is.True(u["kind"] != "invalid-source-map") // the comments inside eval strings are not the file's
				}
				is.Equal(r.Summary["endpoints"], 1)
				// Its sources are named webpack://wp/./math.js?5a03; they still
				// match the files they came from.
				srcApp := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": src})
				var cmp struct {
					Summary map[string]int `json:"summary"`
				}
				ev := jaCall(t, s, "compare_source_to_bundle", map[string]any{"left": map[string]any{"kind": "retained-evidence", "evidence_id": string(srcApp.EvidenceID)},
					"right": map[string]any{"kind": "retained-evidence", "evidence_id": string(bundleEv.EvidenceID)}})
				is.NoErr(json.Unmarshal(ev.NormalizedResult, &cmp))
				is.Equal(cmp.Summary["unchanged"], 4)
				is.Equal(cmp.Summary["removed"], 0)
				return
			case mode == "development":
				// Keyed by path; math.js stays a module; its getters give its
				// exports with their shapes.
				is.Equal(mapped, []string{"lazy.js", "math.js", "util.cjs"})
				is.Equal(requires, []string{"main.js -> lazy.js", "main.js -> math.js", "main.js -> util.cjs"})
				is.Equal(exports["math.js"], []any{"PI", "add"})
				is.Equal(exports["util.cjs"], []any{"fmt"})
				// A module is selected by the original source it maps to.
				ref := map[string]any{"kind": "retained-evidence", "evidence_id": string(bundleEv.EvidenceID)}
				var sh struct {
					Left    map[string]any `json:"left"`
					Summary map[string]int `json:"summary"`
				}
				ev := jaCall(t, s, "compare_javascript_export_shapes", map[string]any{"left": ref, "right": ref, "left_module_path": "./math.js", "right_module_path": "webpack://wp/./math.js"})
				is.NoErr(json.Unmarshal(ev.NormalizedResult, &sh))
				is.Equal(sh.Left["status"], "selected")
				is.Equal(sh.Summary["unchanged"], 2)
			default:
				// Numeric ids; webpack inlines math.js into the entry and
				// mangles util's export name.
				is.Equal(mapped, []string{"lazy.js", "util.cjs"})
				is.Equal(requires, []string{"main.js -> lazy.js", "main.js -> util.cjs"})
				is.Equal(len(exports["util.cjs"]), 1)
			}
			is.Equal(exports["lazy.js"], []any{"run"})
			is.Equal(r.Statistics["bundled_modules"], len(mapped))
			for _, u := range r.Unknowns {
				if u["kind"] == "unresolved-bundle-module" {
					t.Errorf("unresolved: %v", u)
				}
			}
		})
	}
}

// srcOf is the original source a module node maps to (its label when none).
func srcOf(r jaResult, label map[string]string, node string) string {
	for _, e := range r.Graph.Edges {
		if e.Source == node && e.Relation == "maps_to" {
			return label[e.Target]
		}
	}
	return label[node]
}

// TestJSAppWebpackedElectronMain: an Electron main process bundled by the
// pinned webpack (target electron-main), minified and not. electron is a
// webpack external (a table module that re-exports require("electron"));
// the IPC handler lives in another table module, so the channel's handler
// edge starts at that module, which maps to its original source, and the
// plain preload's invoke pairs with it.
func TestJSAppWebpackedElectronMain(t *testing.T) {
	root := needNodeModule(t, "webpack")
	src := writeTree(t, map[string]string{
		"index.js": "const { app, BrowserWindow } = require('electron');\nconst path = require('path');\nrequire('./ipc.js');\n" +
			"app.whenReady().then(() => { const w = new BrowserWindow({ webPreferences: { preload: path.join(__dirname, '../preload.js') } }); w.loadFile('index.html'); });\n",
		"ipc.js": "const { ipcMain } = require('electron');\nmodule.exports = function register() {};\nipcMain.handle('items:list', async () => fetch('https://api.example.com/items'));\n",
	})
	s := jaSession(t)
	for _, mode := range []string{"development", "production"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			app := t.TempDir()
			cmd := exec.Command("node", filepath.Join(root, "cmd/rea/testdata/jsapp/webpack-build.cjs"), src, filepath.Join(app, "dist"), mode, "electron-main")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("webpack: %v\n%s", err, b)
			}
			is.NoErr(os.WriteFile(filepath.Join(app, "package.json"), []byte(`{"name":"wpe","main":"dist/main.js","devDependencies":{"electron":"*"}}`), 0o644))
			is.NoErr(os.WriteFile(filepath.Join(app, "preload.js"), []byte("const { contextBridge, ipcRenderer } = require('electron');\ncontextBridge.exposeInMainWorld('items', { list: () => ipcRenderer.invoke('items:list') });\n"), 0o644))
			is.NoErr(os.WriteFile(filepath.Join(app, "index.html"), []byte("<html><body></body></html>"), 0o644))
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": app}))
			label := map[string]string{}
			for _, n := range r.Graph.Nodes {
				if l := n.Observations[0].Label; l != nil {
					label[n.NodeID] = n.Kind + ":" + *l
				}
			}
			handler := ""
			for _, e := range r.Graph.Edges {
				if e.Relation == "handles" && label[e.Source] == "ipc-channel:items:list" {
					handler = e.Target
				}
			}
			is.True(strings.HasPrefix(label[handler], "javascript-module:"))
			is.True(strings.HasSuffix(srcOf(r, label, handler), "/ipc.js"))
			is.Equal(r.Electron["ipc"].(map[string]any)["paired"], []any{"items:list"})
			is.Equal(r.Summary["browser_windows"], 1) // new BrowserWindow through the external
			calls := false
			for _, e := range r.Graph.Edges {
				calls = calls || (e.Source == handler && e.Relation == "calls" && label[e.Target] == "endpoint:https://api.example.com/items")
			}
			is.True(calls) // the endpoint is called from the same module
		})
	}
}

// TestJSAppRealRspack: what rspack 1.6.2 wrote (testdata/jsapp/rspack,
// see its README) uses webpack's runtime names; its marker names the
// bundler, and its tables, requires across chunks, exports and source maps
// read as webpack's do.
func TestJSAppRealRspack(t *testing.T) {
	s := jaSession(t)
	for _, build := range []string{"development", "production", "eval"} {
		t.Run(build, func(t *testing.T) {
			is := is.New(t)
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": filepath.Join("testdata/jsapp/rspack", build)}))
			var exports []string
			mods := 0
			for _, n := range r.Graph.Nodes {
				if n.Kind == "javascript-module" {
					p := n.Observations[0].Properties
					is.Equal(p["bundler"], "rspack") // chunk files too, through the chunk global
					mods++
					if ex, ok := p["exports"].([]any); ok {
						for _, e := range ex {
							exports = append(exports, e.(string))
						}
					}
				}
			}
			sort.Strings(exports)
			is.True(mods >= 2)
			is.True(strings.Contains(strings.Join(exports, " "), "run")) // lazy.js, in its own chunk
			is.Equal(r.Summary["endpoints"], 1)
			for _, u := range r.Unknowns {
				if u["kind"] == "unresolved-bundle-module" || u["kind"] == "invalid-source-map" {
					t.Errorf("%v", u)
				}
			}
			requires := 0
			for _, e := range r.Graph.Edges {
				if e.Relation == "imports" && e.Properties["kind"] == "bundle-require" {
					requires++
				}
			}
			is.True(requires >= 2)
			if build == "eval" {
				is.Equal(exports, []string{"PI", "add", "fmt", "main", "run"}) // read from the eval strings
			}
		})
	}
}

// TestJSAppWebpackWorker: webpack turns new Worker(new URL('./worker.js',
// import.meta.url)) into new Worker(new URL(require.p + require.u(id),
// require.b)); the chunk's file name is computed from the runtime's
// require.u, so the worker is found in both modes.
func TestJSAppWebpackWorker(t *testing.T) {
	root := needNodeModule(t, "webpack")
	src := writeTree(t, map[string]string{
		"index.js":  "const w = new Worker(new URL('./worker.js', import.meta.url));\nw.postMessage(1);\n",
		"worker.js": "self.onmessage = e => fetch('https://w.example.com/' + e.data);\n",
	})
	s := jaSession(t)
	for _, mode := range []string{"development", "production"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			out := filepath.Join(t.TempDir(), "dist")
			cmd := exec.Command("node", filepath.Join(root, "cmd/rea/testdata/jsapp/webpack-build.cjs"), src, out, mode, "web", "source-map")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("webpack: %v\n%s", err, b)
			}
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": out}))
			is.Equal(r.Summary["workers"], 1)
			is.Equal(r.Summary["endpoints"], 1) // the worker chunk's fetch
			for _, u := range r.Unknowns {
				is.True(u["kind"] != "dynamic-worker")
			}
		})
	}
}

// TestJSAppWebpackModuleWorker: workers created inside a table module's
// function (spawn.js, which two chunks import, so webpack keeps it a table
// module) are worker nodes whose loads edges start at that module, not at
// the bundle, and whose scripts are the chunks webpack emitted for them,
// named through the runtime's require.u: new Worker and new SharedWorker
// of new URL(r.p + r.u(id), r.b), and serviceWorker.register of the same
// URL, in module functions and in eval strings.
func TestJSAppWebpackModuleWorker(t *testing.T) {
	root := needNodeModule(t, "webpack")
	src := writeTree(t, map[string]string{
		"index.js": "import { start } from './spawn.js';\nimport('./lazy.js').then(m => m.run());\nstart();\n",
		"lazy.js": "import { start } from './spawn.js';\n" +
			"export function run() { new Worker(new URL('./other.js', import.meta.url)); return start(); }\n",
		"other.js": "self.onmessage = e => console.log('other-marker');\n",
		"spawn.js": "export function start() {\n  const w = new Worker(new URL('./worker.js', import.meta.url));\n" +
			"  const s = new SharedWorker(new URL('./shared.js', import.meta.url));\n" +
			"  navigator.serviceWorker.register(new URL('./sw.js', import.meta.url));\n  w.postMessage(1);\n  return [w, s];\n}\n",
		"worker.js": "self.onmessage = e => fetch('https://w.example.com/' + e.data);\n",
		"shared.js": "onconnect = e => e.ports[0].postMessage('shared-marker');\n",
		"sw.js":     "self.addEventListener('fetch', e => console.log('sw-marker'));\n",
	})
	s := jaSession(t)
	for _, build := range []struct{ mode, devtool string }{
		{"development", "source-map"},
		{"production", "source-map"},
		{"development", "none"}, // module code in eval strings
	} {
		t.Run(build.mode+" "+build.devtool, func(t *testing.T) {
			is := is.New(t)
			out := filepath.Join(t.TempDir(), "dist")
			cmd := exec.Command("node", filepath.Join(root, "cmd/rea/testdata/jsapp/webpack-build.cjs"), src, out, build.mode, "web", build.devtool)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("webpack: %v\n%s", err, b)
			}
			// The chunk webpack emitted for each worker script (production
			// numbers chunks, development names them by path).
			chunk := map[string]string{}
			matches, _ := filepath.Glob(filepath.Join(out, "*.chunk.js"))
			for _, m := range matches {
				b, _ := os.ReadFile(m)
				for marker, script := range map[string]string{"w.example.com": "worker", "shared-marker": "shared", "sw-marker": "sw"} {
					if strings.Contains(string(b), marker) {
						chunk[script] = filepath.Base(m)
					}
				}
			}
			is.Equal(len(chunk), 3)
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": out}))
			label := map[string]string{}
			for _, n := range r.Graph.Nodes {
				if l := n.Observations[0].Label; l != nil {
					label[n.NodeID] = n.Kind + ":" + *l
				}
			}
			var loads []string
			for _, e := range r.Graph.Edges {
				to := label[e.Target]
				if e.Relation != "loads" || !strings.HasPrefix(to, "worker:") && !strings.HasPrefix(to, "service-worker:") {
					continue
				}
				from := label[e.Source]
				if strings.HasPrefix(from, "javascript-module:") {
					from = "module " + filepath.Base(srcOf(r, label, e.Source))
				}
				script := ""
				for _, f := range r.Graph.Edges {
					if f.Source == e.Target && f.Relation == "loads" {
						script += label[f.Target]
					}
				}
				loads = append(loads, from+" -> "+to+" -> "+script)
			}
			sort.Strings(loads)
			want := []string{
				"module spawn.js -> service-worker:" + chunk["sw"] + " -> javascript-asset:" + chunk["sw"],
				"module spawn.js -> worker:" + chunk["shared"] + " -> javascript-asset:" + chunk["shared"],
				"module spawn.js -> worker:" + chunk["worker"] + " -> javascript-asset:" + chunk["worker"],
			}
			sort.Strings(want)
			is.Equal(loads, want)
			is.Equal(r.Summary["workers"], 3)
			// lazy.js's worker: its chunk file holds no runtime, so no u
			// names the worker's chunk; the unknown is lazy.js's.
			var dynamic []string
			for _, u := range r.Unknowns {
				if u["kind"] == "dynamic-worker" || u["kind"] == "dynamic-service-worker" {
					n, _ := u["node_id"].(string)
					dynamic = append(dynamic, u["kind"].(string)+" "+filepath.Base(srcOf(r, label, n)))
				}
			}
			is.Equal(dynamic, []string{"dynamic-worker lazy.js"})
		})
	}
}
