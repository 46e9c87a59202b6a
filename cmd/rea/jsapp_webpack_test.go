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
			// The handler is a function, defined in the module.
			is.True(strings.HasPrefix(label[handler], "javascript-function:"))
			module := ""
			for _, e := range r.Graph.Edges {
				if e.Relation == "defined_in" && e.Source == handler {
					module = e.Target
				}
			}
			is.True(strings.HasPrefix(label[module], "javascript-module:"))
			is.True(strings.HasSuffix(srcOf(r, label, module), "/ipc.js"))
			is.Equal(r.Electron["ipc"].(map[string]any)["paired"], []any{"items:list"})
			is.Equal(r.Summary["browser_windows"], 1) // new BrowserWindow through the external
			calls := false
			for _, e := range r.Graph.Edges {
				calls = calls || (e.Source == handler && e.Relation == "calls" && label[e.Target] == "endpoint:https://api.example.com/items")
			}
			is.True(calls) // the endpoint is called from the handler, whose body holds the fetch
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
// URL, in module functions and in eval strings. lazy.js's worker is in a
// chunk file, whose u is main.js's (the runtime that shares its chunk
// global).
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
			chunk := chunksByMarker(t, out, "*.chunk.js", map[string]string{
				"w.example.com": "worker", "shared-marker": "shared", "sw-marker": "sw", "other-marker": "other"})
			is.Equal(len(chunk), 4)
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": out}))
			want := []string{
				"module lazy.js -> worker:" + chunk["other"] + " -> javascript-asset:" + chunk["other"] + " (runtime main.js)",
				"module spawn.js -> service-worker:" + chunk["sw"] + " -> javascript-asset:" + chunk["sw"],
				"module spawn.js -> worker:" + chunk["shared"] + " -> javascript-asset:" + chunk["shared"],
				"module spawn.js -> worker:" + chunk["worker"] + " -> javascript-asset:" + chunk["worker"],
			}
			sort.Strings(want)
			is.Equal(workerLoads(r), want)
			is.Equal(r.Summary["workers"], 4)
			is.Equal(dynamicWorkers(r), nil)
		})
	}
}

// TestJSAppWebpackRuntimeChunkWorker: when the runtime is not in the file
// that creates a worker (the runtime in its own file, runtime.js, or a
// lazily loaded chunk's worker), the chunk file holds no require.u; the
// runtime file's names the worker's chunk. The name is relative to the
// runtime's public path: the runtime's directory, or, for a runtime
// written under static/js/, the output directory above it. In module
// functions and in eval strings; the entry's own worker too (in main.js,
// or in the runtime file itself when main.js holds the runtime).
func TestJSAppWebpackRuntimeChunkWorker(t *testing.T) {
	root := needNodeModule(t, "webpack")
	src := writeTree(t, map[string]string{
		"index.js":  "import('./lazy.js').then(m => m.run());\nnew Worker(new URL('./first.js', import.meta.url));\n",
		"lazy.js":   "export function run() {\n  const w = new Worker(new URL('./worker.js', import.meta.url));\n  w.postMessage(1);\n  return w;\n}\n",
		"worker.js": "self.onmessage = e => fetch('https://w.example.com/' + e.data);\n",
		"first.js":  "self.onmessage = e => console.log('first-marker');\n",
	})
	s := jaSession(t)
	for _, build := range []struct{ mode, devtool, layout string }{
		{"development", "source-map", "runtime"},
		{"production", "source-map", "runtime"},
		{"development", "none", "runtime"},
		{"production", "source-map", "static"},
		{"production", "source-map", "static-runtime"},
		{"development", "none", "static-runtime"},
	} {
		t.Run(build.mode+" "+build.devtool+" "+build.layout, func(t *testing.T) {
			is := is.New(t)
			out := filepath.Join(t.TempDir(), "dist")
			cmd := exec.Command("node", filepath.Join(root, "cmd/rea/testdata/jsapp/webpack-build.cjs"), src, out, build.mode, "web", build.devtool, build.layout)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("webpack: %v\n%s", err, b)
			}
			dir, runtime := "chunks/", "runtime.js"
			switch build.layout {
			case "static":
				dir, runtime = "static/js/", "static/js/main.js"
			case "static-runtime":
				dir, runtime = "static/js/", "static/js/runtime.js"
			}
			chunk := chunksByMarker(t, out, dir+"*.chunk.js", map[string]string{"w.example.com": "worker", "first-marker": "first", "new URL": "lazy"})
			is.Equal(len(chunk), 3)
			// What the test is about: the chunk that creates the worker
			// holds no chunk file name function; the runtime file does.
			for file, want := range map[string]bool{dir + chunk["lazy"]: false, runtime: true} {
				b, err := os.ReadFile(filepath.Join(out, file))
				is.NoErr(err)
				is.Equal(strings.Contains(strings.ReplaceAll(string(b), " ", ""), ".u="), want) // file
			}
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": out}))
			// The entry's worker: in main.js, a chunk file beside its
			// runtime; where main.js holds the runtime, inlined in it,
			// named by its own u and mapped to index.js by the source map.
			first := "module index.js -> worker:" + dir + chunk["first"] + " -> javascript-asset:" + dir + chunk["first"] + " (runtime " + runtime + ")"
			if build.layout == "static" {
				first = "source-module:webpack:///./index.js -> worker:" + dir + chunk["first"] + " -> javascript-asset:" + dir + chunk["first"]
			}
			want := []string{first, "module lazy.js -> worker:" + dir + chunk["worker"] + " -> javascript-asset:" + dir + chunk["worker"] + " (runtime " + runtime + ")"}
			sort.Strings(want)
			is.Equal(workerLoads(r), want)
			is.Equal(r.Summary["workers"], 2)
			if build.devtool != "none" { // rea finds no endpoint in an eval string
				is.Equal(r.Summary["endpoints"], 1) // the worker chunk's fetch
			}
			is.Equal(dynamicWorkers(r), nil)
		})
	}
}

// TestJSAppWebpackNamedChunkWorker: once a chunk is named
// (webpackChunkName), production webpack names the chunk files by
// (812===e?"lazyname":e) for one named chunk, ({812:"lazyname",...}[e]||e)
// for several: the named chunks by their names, the others by their ids.
// Both workers (the entry's, and the named lazy chunk's, whose runtime is
// another file) resolve to the chunks webpack emitted, whether the worker's
// own chunk is named or not, with the runtime in main.js or in its own file.
func TestJSAppWebpackNamedChunkWorker(t *testing.T) {
	root := needNodeModule(t, "webpack")
	lazy := func(name string) string {
		return "export function run() {\n  const w = new Worker(" + name + "new URL('./worker.js', import.meta.url));\n  w.postMessage(1);\n  return w;\n}\n"
	}
	base := map[string]string{
		"index.js":  "import(/* webpackChunkName: \"lazyname\" */ './lazy.js').then(m => m.run());\nnew Worker(new URL('./first.js', import.meta.url));\n",
		"lazy.js":   lazy(""),
		"worker.js": "self.onmessage = e => fetch('https://w.example.com/' + e.data);\n",
		"first.js":  "self.onmessage = e => console.log('first-marker');\n",
	}
	several := map[string]string{"lazy.js": lazy(`/* webpackChunkName: "workername" */ `)}
	for k, v := range base {
		if several[k] == "" {
			several[k] = v
		}
	}
	s := jaSession(t)
	for _, build := range []struct {
		sources          string
		mode, layout, fn string // fn: what the runtime's u holds
	}{
		{"one", "production", "named", `(812===e?"lazyname":e)`},
		{"one", "production", "named-runtime", `(812===e?"lazyname":e)`},
		{"several", "production", "named", `"lazyname"}[e]||e)`},
		{"several", "production", "named-runtime", `"lazyname"}[e]||e)`},
		{"several", "development", "named-runtime", `{"lazyname":`}, // names are the ids
	} {
		t.Run(build.sources+" "+build.mode+" "+build.layout, func(t *testing.T) {
			is := is.New(t)
			src := writeTree(t, map[string]map[string]string{"one": base, "several": several}[build.sources])
			out := filepath.Join(t.TempDir(), "dist")
			cmd := exec.Command("node", filepath.Join(root, "cmd/rea/testdata/jsapp/webpack-build.cjs"), src, out, build.mode, "web", "source-map", build.layout)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("webpack: %v\n%s", err, b)
			}
			runtime := "main.js"
			if build.layout == "named-runtime" {
				runtime = "runtime.js"
			}
			chunk := chunksByMarker(t, out, "*.*.js", map[string]string{"w.example.com": "worker", "first-marker": "first", "new URL": "lazy"})
			is.Equal(len(chunk), 3)
			is.True(strings.HasPrefix(chunk["lazy"], "lazyname."))
			is.Equal(strings.HasPrefix(chunk["worker"], "workername."), build.sources == "several")
			b, err := os.ReadFile(filepath.Join(out, runtime))
			is.NoErr(err)
			is.True(strings.Contains(strings.ReplaceAll(string(b), " ", ""), build.fn)) // the form the test is about
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": out}))
			first := "module index.js -> worker:" + chunk["first"] + " -> javascript-asset:" + chunk["first"] + " (runtime runtime.js)"
			if runtime == "main.js" {
				first = "source-module:webpack:///./index.js -> worker:" + chunk["first"] + " -> javascript-asset:" + chunk["first"]
			}
			want := []string{first, "module lazy.js -> worker:" + chunk["worker"] + " -> javascript-asset:" + chunk["worker"] + " (runtime " + runtime + ")"}
			sort.Strings(want)
			is.Equal(workerLoads(r), want)
			is.Equal(r.Summary["workers"], 2)
			is.Equal(dynamicWorkers(r), nil)
		})
	}
}

// chunksByMarker maps each marker's script to the base name of the file
// matching glob under out that holds the marker.
func chunksByMarker(t *testing.T, out, glob string, markers map[string]string) map[string]string {
	t.Helper()
	chunk := map[string]string{}
	matches, _ := filepath.Glob(filepath.Join(out, glob))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for marker, script := range markers {
			if strings.Contains(string(b), marker) {
				chunk[script] = filepath.Base(m)
			}
		}
	}
	return chunk
}

// workerLoads lists the loads edges to worker nodes, sorted, as "from ->
// worker -> script" (a module named by the source it maps to), with the
// runtime file that named a chunk file's worker.
func workerLoads(r jaResult) []string {
	label := jaLabels(r)
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
		l := from + " -> " + to + " -> " + script
		if rt, ok := e.Properties["runtime"].(string); ok {
			l += " (runtime " + rt + ")"
		}
		loads = append(loads, l)
	}
	sort.Strings(loads)
	return loads
}

// dynamicWorkers lists the dynamic worker unknowns as "kind source" (the
// source their node maps to).
func dynamicWorkers(r jaResult) []string {
	label := jaLabels(r)
	var dynamic []string
	for _, u := range r.Unknowns {
		if u["kind"] == "dynamic-worker" || u["kind"] == "dynamic-service-worker" {
			n, _ := u["node_id"].(string)
			dynamic = append(dynamic, u["kind"].(string)+" "+filepath.Base(srcOf(r, label, n)))
		}
	}
	sort.Strings(dynamic)
	return dynamic
}

// jaLabels maps node IDs to "kind:label".
func jaLabels(r jaResult) map[string]string {
	label := map[string]string{}
	for _, n := range r.Graph.Nodes {
		if l := n.Observations[0].Label; l != nil {
			label[n.NodeID] = n.Kind + ":" + *l
		}
	}
	return label
}

// TestJSAppChunkWorkerRuntimes: which runtime file names a chunk file's
// worker, on hand-written webpack-shaped files: the one whose chunk global
// the chunk file shares, its name relative to that runtime's directory or
// the nearest one above that holds it; runtimes that agree on the file
// name it, runtimes that name different files, or only a runtime of
// another global, leave the worker dynamic. A name the app has no file
// for is an unresolved worker.
func TestJSAppChunkWorkerRuntimes(t *testing.T) {
	runtime := func(global, u string) string {
		return `(()=>{var e={};function r(o){const s={exports:{}};return e[o](s,s.exports,r),s.exports}r.u=` + u +
			`;const o=Array.isArray(self.` + global + `)?self.` + global + `:self.` + global + `=[];})();`
	}
	chunk := `(self.webpackChunkapp=self.webpackChunkapp||[]).push([[339],{339(e,t,n){new Worker(new URL(n.p+n.u(447),n.b))}}]);`
	worker := "self.onmessage=e=>e;\n"
	s := jaSession(t)
	for _, tc := range []struct {
		name    string
		files   map[string]string
		loads   []string
		dynamic []string
	}{
		{"one runtime", map[string]string{
			"runtime.js": runtime("webpackChunkapp", `e=>"chunks/"+e+".js"`), "chunks/339.js": chunk, "chunks/447.js": worker,
		}, []string{"module javascript-module:339 -> worker:chunks/447.js -> javascript-asset:chunks/447.js (runtime runtime.js)"}, nil},
		{"a runtime under the output directory", map[string]string{
			"static/js/runtime.js": runtime("webpackChunkapp", `e=>"static/js/"+e+".js"`), "static/js/339.js": chunk, "static/js/447.js": worker,
		}, []string{"module javascript-module:339 -> worker:static/js/447.js -> javascript-asset:static/js/447.js (runtime static/js/runtime.js)"}, nil},
		{"a chunk the app lacks", map[string]string{
			"runtime.js": runtime("webpackChunkapp", `e=>"chunks/"+e+".js"`), "chunks/339.js": chunk,
		}, []string{"module javascript-module:339 -> worker:./chunks/447.js ->  (runtime runtime.js)"}, nil},
		{"runtimes that agree", map[string]string{
			"runtime.js": runtime("webpackChunkapp", `e=>e+".js"`), "w.js": runtime("webpackChunkapp", `e=>e+".js"`), "339.js": chunk, "447.js": worker,
		}, []string{"module javascript-module:339 -> worker:447.js -> javascript-asset:447.js (runtime runtime.js)"}, nil},
		{"a runtime without the chunk", map[string]string{
			"runtime.js": runtime("webpackChunkapp", `e=>e+"."+{12:"bb"}[e]+".js"`), "w.js": runtime("webpackChunkapp", `e=>e+"."+{447:"aa"}[e]+".js"`),
			"339.js": chunk, "447.aa.js": worker,
		}, []string{"module javascript-module:339 -> worker:447.aa.js -> javascript-asset:447.aa.js (runtime w.js)"}, nil},
		{"runtimes that disagree", map[string]string{
			"runtime.js": runtime("webpackChunkapp", `e=>e+"."+{447:"bb"}[e]+".js"`), "w.js": runtime("webpackChunkapp", `e=>e+"."+{447:"aa"}[e]+".js"`),
			"339.js": chunk, "447.aa.js": worker, "447.bb.js": worker,
		}, nil, []string{"dynamic-worker javascript-module:339"}},
		{"runtimes in two directories", map[string]string{
			"a/runtime.js": runtime("webpackChunkapp", `e=>e+".js"`), "b/runtime.js": runtime("webpackChunkapp", `e=>e+".js"`),
			"a/339.js": chunk, "a/447.js": worker, "b/447.js": worker,
		}, nil, []string{"dynamic-worker javascript-module:339"}},
		{"another build's runtime", map[string]string{
			"runtime.js": runtime("webpackChunkother", `e=>e+".js"`), "339.js": chunk, "447.js": worker,
		}, nil, []string{"dynamic-worker javascript-module:339"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, tc.files)}))
			is.Equal(workerLoads(r), tc.loads)
			is.Equal(dynamicWorkers(r), tc.dynamic)
			unresolved := 0
			for _, u := range r.Unknowns {
				if u["kind"] == "unresolved-worker" {
					unresolved++
				}
			}
			is.Equal(unresolved, map[bool]int{true: 1}[tc.name == "a chunk the app lacks"])
		})
	}
}
