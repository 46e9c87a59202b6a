package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rea/core"
	"rea/core/jsapp"
)

// The complete analyze_javascript_application Evidence of an app over
// 1 MB is no larger than the JavaScript it describes (issue 20), with every
// fact kept: the lean graph decodes to every node and edge. Two apps: a
// generated source-map-heavy bundle (2,500 modules of about 1 KB, one per
// source, and an external map with sourcesContent): a node, an observation
// and an edge per source is the bad case; a generated bundle of 2,500 tiny
// modules (about 540 bytes each) exporting four names each: a source module
// and four export relations per half kilobyte; and the MCP TypeScript SDK
// package as npm installs it (when node_modules is there).
func TestJSAppEvidenceNoLargerThanItsJavaScript(t *testing.T) {
	apps := map[string]string{"source-map-heavy bundle": writeMapHeavyBundle(t, t.TempDir(), 2500),
		"tiny-module bundle": writeTinyModuleBundle(t, t.TempDir(), 2500)}
	if sdk := filepath.Join("..", "..", "node_modules", "@modelcontextprotocol", "sdk"); dirExists(sdk) {
		apps["MCP TypeScript SDK"] = sdk
	} else {
		t.Log("node_modules is missing (run npm ci): the SDK case is skipped")
	}
	for name, dir := range apps {
		t.Run(name, func(t *testing.T) {
			js := javaScriptBytes(t, dir)
			if js <= 1<<20 {
				t.Fatalf("the app holds %d bytes of JavaScript, want over 1 MB", js)
			}
			s := jaSession(t)
			ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
			whole, err := core.CanonicalJSON(ev)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d bytes of JavaScript, Evidence %d bytes (%.2fx)", name, js, len(whole), float64(len(whole))/float64(js))
			if int64(len(whole)) > js {
				t.Errorf("the Evidence (%d bytes) is larger than the JavaScript it describes (%d bytes)", len(whole), js)
			}
			g, err := jsapp.DecodeGraph(ev.NormalizedResult)
			if err != nil {
				t.Fatal(err)
			}
			r := decodeApp(t, ev)
			if len(g.Nodes) != r.Statistics["graph_nodes"] || len(g.Edges) == 0 {
				t.Fatalf("decoded %d nodes and %d edges; statistics say %d nodes", len(g.Nodes), len(g.Edges), r.Statistics["graph_nodes"])
			}
			if name != "MCP TypeScript SDK" && r.Statistics["source_modules"] != 2500 {
				t.Errorf("source modules %d, want 2500", r.Statistics["source_modules"])
			}
			if name == "tiny-module bundle" {
				if per := js / 2500; per > 600 {
					t.Errorf("the tiny modules average %d bytes, want about 540", per)
				}
				sem := jaCall(t, s, "trace_javascript_semantics", map[string]any{"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)},
					"query": map[string]any{"kind": "symbol", "value": "Store1234"}})
				var q struct {
					Definitions []map[string]any `json:"definitions"`
				}
				if err := json.Unmarshal(sem.NormalizedResult, &q); err != nil || len(q.Definitions) != 1 || q.Definitions[0]["name"] != "Store1234" {
					t.Errorf("the export Store1234 is not found in the semantic graph: %s", sem.NormalizedResult)
				} else if q.Definitions[0]["original_source"] != "../src/feature-12/mod-1234.ts" {
					// Located at its declaration, which the map maps, with
					// its original cells in the size above.
					t.Errorf("the export Store1234 has no original position: %s", sem.NormalizedResult)
				}
				conciseByDefault(t, s, ev.EvidenceID)
			}
		})
	}
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func javaScriptBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".js", ".mjs", ".cjs", ".jsx":
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
				n += info.Size()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// writeMapHeavyBundle writes dist/app.js, one module of about 1 KB per line
// (a closure that calls its neighbour), and dist/app.js.map mapping each
// line to its own TypeScript source (with sourcesContent), as a bundler
// does for an app of many small modules.
func writeMapHeavyBundle(t *testing.T, root string, modules int) string {
	t.Helper()
	dist := filepath.Join(root, "dist")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	var js, mappings strings.Builder
	sources, contents := make([]string, modules), make([]string, modules)
	js.WriteString("var __m={};function __r(i){return __m[i]}\n")
	mappings.WriteString(";")
	for i := range modules {
		fmt.Fprintf(&js, "__m[%d]=(function(){var next=__r(%d);var table={name:\"component-%d\",size:%d,flags:[%d,%d,%d]};"+
			"function render(props){if(!props||!props.items){return null}var out=[];for(var k=0;k<props.items.length;k++){out.push(String(props.items[k])+\"-%d\")}return out.join(\",\")}"+
			"function update(state,action){switch(action.type){case \"add\":return Object.assign({},state,{count:state.count+%d});case \"remove\":return Object.assign({},state,{count:Math.max(0,state.count-%d)});"+
			"case \"rename\":return Object.assign({},state,{label:String(action.label||\"\").slice(0,%d)});case \"reset\":return table;default:return state}}"+
			"function view(state){var rows=[];for(var j=0;j<state.count;j++){rows.push({key:j,text:render({items:[j,state.label]})})}return{kind:table.name,rows:rows,total:rows.length*%d}}"+
			"function validate(input){if(typeof input!==\"object\"||input===null){throw new TypeError(\"component-%d: bad input\")}return Object.keys(input).length<=%d}"+
			"return{render:render,update:update,view:view,validate:validate,table:table,next:next}})();\n",
			i, (i+1)%modules, i, i*7, i, i+1, i+2, i, i%13+1, i%5+1, 16+i%32, i%9+1, i, 8+i%4)
		sources[i] = fmt.Sprintf("webpack://app/./src/components/feature-%03d/component-%d.ts", i/50, i)
		contents[i] = fmt.Sprintf("import { next } from './component-%d';\nexport const table = { name: 'component-%d', size: %d };\nexport function render(props: Props): string | null {\n  return props?.items?.map((x) => `${x}-%d`).join(',') ?? null;\n}\n",
			(i+1)%modules, i, i*7, i)
		if i == 0 {
			mappings.WriteString("AAAA;")
		} else {
			mappings.WriteString("ACAA;") // the next source, line 0, column 0
		}
	}
	js.WriteString("//# sourceMappingURL=app.js.map\n")
	quote := func(l []string) string {
		q := make([]string, len(l))
		for i, s := range l {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ",") + "]"
	}
	sm := fmt.Sprintf(`{"version":3,"file":"app.js","sources":%s,"sourcesContent":%s,"names":[],"mappings":%q}`, quote(sources), quote(contents), mappings.String())
	for name, body := range map[string]string{"app.js": js.String(), "app.js.map": sm} {
		if err := os.WriteFile(filepath.Join(dist, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"name":"map-heavy","version":"1.0.0","main":"dist/app.js"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// writeTinyModuleBundle writes dist/app.mjs, an ES module bundle of tiny
// modules (about 540 bytes each: a function, a constant, a class and
// another function, each exported by the bundle's export list), and
// dist/app.mjs.map mapping each module's lines to its own TypeScript
// source (with sourcesContent), as esbuild writes a library of many small
// files.
func writeTinyModuleBundle(t *testing.T, root string, modules int) string {
	t.Helper()
	dist := filepath.Join(root, "dist")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	var js, mappings strings.Builder
	var exports []string
	sources, contents := make([]string, modules), make([]string, modules)
	for i := range modules {
		body := fmt.Sprintf("// src/feature-%02d/mod-%04d.ts\n"+
			"function parse%d(input, opts) {\n  if (!input) return null;\n  return String(input).trim().split(opts && opts.sep || \",\").map((x) => x + \"-%d\");\n}\n"+
			"const LIMIT_%d = %d;\n"+
			"class Store%d {\n  constructor(v) { this.v = v; this.n = 0; }\n  get() { this.n++; return this.v; }\n  set(v) { if (this.n > LIMIT_%d) throw new Error(\"store %d full\"); this.v = v; }\n}\n"+
			"function format%d(v, width) {\n  return String(v).padStart(width || %d, \" \") + \"|\" + LIMIT_%d;\n}\n",
			i/100, i, i, i, i, i*3+1, i, i, i, i, i%11+2, i)
		js.WriteString(body)
		for l := range strings.Count(body, "\n") {
			switch {
			case l == 0 && i == 0:
				mappings.WriteString("AAAA;")
			case l == 0:
				mappings.WriteString("ACAA;") // the next source, its line 0
			default:
				mappings.WriteString("AACA;")
			}
		}
		exports = append(exports, fmt.Sprintf("parse%d", i), fmt.Sprintf("LIMIT_%d", i), fmt.Sprintf("Store%d", i), fmt.Sprintf("format%d", i))
		sources[i] = fmt.Sprintf("../src/feature-%02d/mod-%04d.ts", i/100, i)
		contents[i] = fmt.Sprintf("export function parse%d(input: string, opts?: { sep?: string }) {}\n", i)
	}
	js.WriteString("export {\n  " + strings.Join(exports, ",\n  ") + "\n};\n//# sourceMappingURL=app.mjs.map\n")
	quote := func(l []string) string {
		q := make([]string, len(l))
		for i, s := range l {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ",") + "]"
	}
	sm := fmt.Sprintf(`{"version":3,"file":"app.mjs","sources":%s,"sourcesContent":%s,"names":[],"mappings":%q}`, quote(sources), quote(contents), mappings.String())
	for name, body := range map[string]string{"app.mjs": js.String(), "app.mjs.map": sm} {
		if err := os.WriteFile(filepath.Join(dist, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"name":"tiny-modules","version":"1.0.0","type":"module","main":"dist/app.mjs"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// conciseByDefault: a broad trace of a large app stays small unless the
// caller raises its limits, and says what cut it.
func conciseByDefault(t *testing.T, s *core.Session, id core.EvidenceID) {
	t.Helper()
	app := map[string]any{"kind": "retained-evidence", "evidence_id": string(id)}
	type limited struct {
		Paths []any `json:"paths"`
		Graph *struct {
			Nodes []any `json:"nodes"`
		} `json:"graph"`
		Definitions []map[string]any `json:"definitions"`
		References  []map[string]any `json:"references"`
		Coverage    struct {
			Truncated bool           `json:"truncated"`
			Limits    map[string]int `json:"limits"`
		} `json:"coverage"`
	}
	trace := func(op string, args map[string]any) (limited, int) {
		args["application"] = app
		ev := jaCall(t, s, op, args)
		var r limited
		if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil {
			t.Fatal(err)
		}
		return r, len(ev.NormalizedResult)
	}
	seed := map[string]any{"kind": "module", "value": "app.mjs"} // the bundle, whose modules are many
	r, size := trace("trace_application_feature", map[string]any{"seed": seed})
	if !r.Coverage.Truncated || len(r.Paths) != 20 || r.Graph == nil || len(r.Graph.Nodes) != 200 ||
		r.Coverage.Limits["max_paths"] != 20 || r.Coverage.Limits["max_nodes"] != 200 {
		t.Errorf("default trace: %d paths, coverage %+v, %d bytes; want 20 paths, 200 nodes, truncated", len(r.Paths), r.Coverage, size)
	}
	big, bigSize := trace("trace_application_feature", map[string]any{"seed": seed, "limits": map[string]any{"max_paths": 200, "max_nodes": 2000}})
	if len(big.Paths) <= 20 || len(big.Graph.Nodes) <= 200 || bigSize <= size {
		t.Errorf("raised limits: %d paths, %d nodes, %d bytes; want more than the default's %d bytes", len(big.Paths), len(big.Graph.Nodes), bigSize, size)
	}
	// A seed every module matches is cut too: each seed is a node.
	broad, broadSize := trace("trace_application_feature", map[string]any{"seed": map[string]any{"kind": "module", "value": "m", "match": "substring"}})
	if !broad.Coverage.Truncated || broad.Graph == nil || len(broad.Graph.Nodes) != 200 || broadSize > 4*size {
		t.Errorf("broad seed: graph of %d nodes, coverage %+v, %d bytes; want 200 nodes, truncated", len(broad.Graph.Nodes), broad.Coverage, broadSize)
	}
	q, _ := trace("trace_javascript_semantics", map[string]any{"query": map[string]any{"kind": "symbol", "value": "Store", "match": "prefix"}})
	if n := len(q.Definitions) + len(q.References); n != 100 || !q.Coverage.Truncated {
		t.Errorf("default semantics query: %d results, truncated %v; want 100, truncated", n, q.Coverage.Truncated)
	}
	// Each result names its module by path, not only by node.
	for _, d := range append(q.Definitions, q.References...) {
		if d["source_path"] != "dist/app.mjs" {
			t.Fatalf("a result names its module %v, want dist/app.mjs: %v", d["source_path"], d)
		}
	}
}
