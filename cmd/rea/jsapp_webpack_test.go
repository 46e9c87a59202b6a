package main

import (
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
	src := t.TempDir()
	for name, text := range webpackSources {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := jaSession(t)
	for _, mode := range []string{"development", "production"} {
		t.Run(mode, func(t *testing.T) {
			is := is.New(t)
			out := filepath.Join(t.TempDir(), "dist")
			cmd := exec.Command("node", filepath.Join(root, "cmd/rea/testdata/jsapp/webpack-build.cjs"), src, out, mode)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("webpack: %v\n%s", err, b)
			}
			r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": out}))
			label := map[string]string{}
			for _, n := range r.Graph.Nodes {
				if l := n.Observations[0].Label; l != nil {
					label[n.NodeID] = n.Kind + ":" + *l
				}
			}
			// Every table module maps to its own original source.
			var mapped []string
			for _, e := range r.Graph.Edges {
				if e.Relation == "maps_to" && strings.HasPrefix(label[e.Source], "javascript-module:") {
					mapped = append(mapped, filepath.Base(label[e.Target]))
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
			if mode == "development" {
				// Keyed by path; math.js stays a module; its getters give its
				// exports with their shapes.
				is.Equal(mapped, []string{"lazy.js", "math.js", "util.cjs"})
				is.Equal(requires, []string{"main.js -> lazy.js", "main.js -> math.js", "main.js -> util.cjs"})
				is.Equal(exports["math.js"], []any{"PI", "add"})
				is.Equal(exports["util.cjs"], []any{"fmt"})
			} else {
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
