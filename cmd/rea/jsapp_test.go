package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/asar"
	"rea/core"
	"rea/core/jsapp"
)

// Golden files under testdata/jsapp are rewritten with go test -update.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func jaSession(t *testing.T) *core.Session {
	t.Helper()
	a, err := wire(noEnv)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(a.cat, a.reg, nil)
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func jaCall(t *testing.T, s *core.Session, name string, args any) *core.Evidence {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Call(context.Background(), name, raw, nil)
	if err != nil {
		t.Fatalf("%s: %s", name, core.AsError(name, err).JSON())
	}
	return res.Evidence
}

func jaCallErr(t *testing.T, s *core.Session, ctx context.Context, name string, args any) *core.Error {
	t.Helper()
	raw, _ := json.Marshal(args)
	_, err := s.Call(ctx, name, raw, nil)
	if err == nil {
		t.Fatalf("%s succeeded, want an error", name)
	}
	return core.AsError(name, err)
}

type jaResult struct {
	Statistics     map[string]int   `json:"statistics"`
	Summary        map[string]int   `json:"summary"`
	Electron       map[string]any   `json:"electron"`
	Coverage       map[string]any   `json:"coverage"`
	Unknowns       []map[string]any `json:"unknowns"`
	Graph          jaGraph          `json:"-"` // decodeApp fills it through jsapp.DecodeGraph
	Contradictions []map[string]any `json:"integrity_contradictions"`
	Limitations    []string         `json:"limitations"`
}

type jaGraph struct {
	GraphID string
	Nodes   []jaNode
	Edges   []jaEdge
}

type jaNode struct {
	NodeID       string
	Kind         string
	Identity     map[string]any
	Observations []jaObservation
}

type jaObservation struct {
	Label      *string
	Properties map[string]any
}

type jaEdge struct {
	Source, Target, Relation string
	Properties               map[string]any
}

func decodeApp(t *testing.T, ev *core.Evidence) jaResult {
	t.Helper()
	var r jaResult
	if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil {
		t.Fatal(err)
	}
	g, err := jsapp.DecodeGraph(ev.NormalizedResult)
	if err != nil {
		t.Fatal(err)
	}
	r.Graph.GraphID = g.GraphID
	for _, n := range g.Nodes {
		jn := jaNode{NodeID: n.NodeID, Kind: n.Kind, Identity: n.Identity}
		for _, o := range n.Observations {
			jn.Observations = append(jn.Observations, jaObservation{Label: o.Label, Properties: o.Properties})
		}
		r.Graph.Nodes = append(r.Graph.Nodes, jn)
	}
	for _, e := range g.Edges {
		r.Graph.Edges = append(r.Graph.Edges, jaEdge{Source: e.SourceNodeID, Target: e.TargetNodeID, Relation: e.Relation, Properties: e.Properties})
	}
	return r
}

// labels returns "kind label" for every node, sorted.
func (r jaResult) labels() []string {
	var out []string
	for _, n := range r.Graph.Nodes {
		l := ""
		for _, o := range n.Observations {
			if o.Label != nil {
				l = *o.Label
				break
			}
		}
		out = append(out, n.Kind+" "+l)
	}
	sort.Strings(out)
	return out
}

func (r jaResult) has(kind, label string) bool {
	for _, l := range r.labels() {
		if l == kind+" "+label {
			return true
		}
	}
	return false
}

// golden compares got (indented JSON) with testdata/jsapp/name, or
// rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", " "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	p := filepath.Join("testdata", "jsapp", name)
	if updating() {
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("%s differs from the golden file; rerun with -update and review the diff", p)
	}
}

func TestJSAppElectronFixtureGolden(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	golden(t, "electron.golden.json", ev.NormalizedResult)
	is.Equal(ev.Subject.Format, "directory")
	is.Equal(ev.Provider.ID, "rea-js")
	r := decodeApp(t, ev)
	is.Equal(r.Electron["detected"], true)
	is.Equal(r.Electron["main"], []any{"main.js"})
	is.Equal(r.Electron["preload"], []any{"preload.js"})
	is.Equal(r.Electron["renderer"], []any{"index.html"})
	is.Equal(r.Electron["utility"], []any{"worker-utility.js"})
	is.Equal(r.Electron["context_bridge_apis"], []any{"api"})
	ipc := r.Electron["ipc"].(map[string]any)
	is.Equal(ipc["paired"], []any{"dialog:open", "log"})
	is.Equal(ipc["dynamic"], float64(1))
	for _, want := range [][2]string{
		{"worker", "worker.js"}, {"native-addon", "addon.node"}, {"native-export", "compute"}, {"endpoint", "https://telemetry.example.com/ping"},
		{"storage", "localStorage:settings"}, {"storage", "fs:settings.json"}, {"javascript-module", "./src/index.js"},
		{"javascript-module", "./src/math.js"}, {"source-module", "webpack://demo/./src/math.js"}, {"source-map", "dist/bundle.js.map"},
		{"browser-window", "BrowserWindow"}, {"context-bridge-api", "api"}, {"ipc-channel", "dialog:open"},
	} {
		if !r.has(want[0], want[1]) {
			t.Errorf("graph lacks %s %q", want[0], want[1])
		}
	}
	kinds := map[string]bool{}
	for _, u := range r.Unknowns {
		kinds[u["kind"].(string)+" "+u["path"].(string)] = true
	}
	for _, k := range []string{"syntax-error broken.js", "not-parsed lib/binary.js", "dynamic-ipc-channel main.js", "dynamic-import lib/esm.mjs"} {
		if !kinds[k] {
			t.Errorf("unknowns lack %s: %v", k, kinds)
		}
	}
	is.Equal(r.Statistics["syntax_errors"], 1)
	is.Equal(r.Statistics["bundled_modules"], 2)
	// Same bytes elsewhere: same graph.
	dir := t.TempDir()
	copyTree(t, "testdata/jsapp/electron", dir)
	again := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir}))
	is.Equal(again.Graph.GraphID, r.Graph.GraphID)
}

func TestJSAppSourceMapsGolden(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/maps"})
	golden(t, "maps.golden.json", ev.NormalizedResult)
	r := decodeApp(t, ev)
	kinds := map[string]bool{}
	for _, u := range r.Unknowns {
		kinds[u["kind"].(string)] = true
	}
	is.True(kinds["source-map-out-of-range"])
	is.True(kinds["missing-source-map"])
	is.True(kinds["invalid-source-map"])
	is.True(r.has("source-module", "a.ts")) // index map sections
	is.True(r.has("source-module", "b.ts"))
	is.True(strings.Contains(strings.Join(r.Limitations, "\n"), "lie outside the app"))

	// A symbol query that finds nothing says the source modules are not in
	// the semantic graph, rather than a bare, complete nothing.
	q := jaCall(t, s, "trace_javascript_semantics", map[string]any{"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)},
		"query": map[string]any{"kind": "symbol", "value": "nothingHere"}})
	is.True(slices.ContainsFunc(q.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "The application's 4 source module(s), known from source maps, are not in the semantic graph")
	}))
}

// writeTree writes files (name -> text) into a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// buildNPMApp bundles react, react-dom and lodash with esbuild (from the
// root node_modules) into an Electron app directory and returns it.
func buildNPMApp(t *testing.T, minify bool, env string) string {
	t.Helper()
	root := needNodeModule(t, "esbuild")
	for _, p := range []string{"react-dom", "lodash", "react"} {
		needNodeModule(t, p)
	}
	app := t.TempDir()
	copyTree(t, "testdata/jsapp/npmapp", app)
	os.RemoveAll(filepath.Join(app, "src"))
	args := []string{filepath.Join(root, "cmd/rea/testdata/jsapp/npmapp/src/renderer.js"), "--bundle", "--sourcemap", "--log-level=warning",
		"--outfile=" + filepath.Join(app, "dist", "renderer.js")}
	if minify {
		args = append(args, "--minify")
	} else {
		args = append(args, `--define:process.env.NODE_ENV="`+env+`"`)
	}
	cmd := exec.Command(filepath.Join(root, "node_modules", ".bin", "esbuild"), args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, out)
	}
	// Ship lodash as a runtime dependency of the main process.
	copyTree(t, filepath.Join(root, "node_modules", "lodash"), filepath.Join(app, "node_modules", "lodash"))
	return app
}

// packASAR writes dir as an ASAR (in path order, directories first, as
// @electron/asar would crawl it).
func packASAR(t *testing.T, dir, out string) {
	t.Helper()
	var entries []asar.WriteEntry
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			entries = append(entries, asar.WriteEntry{Path: rel, Type: asar.TypeDir})
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		entries = append(entries, asar.WriteEntry{Path: rel, Type: asar.TypeFile, Data: b})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := asar.WriteFile(out, entries, nil); err != nil {
		t.Fatal(err)
	}
}

func TestJSAppNPMAssembledASAR(t *testing.T) {
	is := is.New(t)
	app := buildNPMApp(t, false, "production")
	archive := filepath.Join(t.TempDir(), "app.asar")
	packASAR(t, app, archive)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": archive})
	is.Equal(ev.Subject.Format, "asar")
	r := decodeApp(t, ev)
	is.Equal(r.Electron["main"], []any{"main.js"})
	is.Equal(r.Electron["preload"], []any{"preload.js"})
	is.Equal(r.Electron["ipc"].(map[string]any)["paired"], []any{"items:sort"})
	// esbuild's CommonJS wrappers are the module table; each maps to its
	// original through the source map.
	var modules, sources []string
	mapped := 0
	for _, n := range r.Graph.Nodes {
		switch n.Kind {
		case "javascript-module":
			modules = append(modules, n.Observations[0].Properties["module_id"].(string))
		case "source-module":
			src := n.Identity["original_source"].(string)
			if i := strings.Index(src, "node_modules/"); i >= 0 {
				src = src[i:]
			} else if i := strings.Index(src, "npmapp/"); i >= 0 {
				src = src[i:]
			}
			sources = append(sources, src)
		}
	}
	for _, e := range r.Graph.Edges {
		if e.Relation == "maps_to" {
			mapped++
		}
	}
	sort.Strings(modules)
	sort.Strings(sources)
	is.True(len(modules) >= 6)
	is.True(mapped >= len(modules))
	view := map[string]any{
		"statistics": r.Statistics, "summary": r.Summary, "electron": r.Electron, "bundled_modules": modules, "original_sources": sources,
	}
	b, _ := json.Marshal(view)
	golden(t, "npmapp.golden.json", b)
	// Determinism: the same archive gives the same Evidence.
	again := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": archive})
	is.Equal(again.EvidenceID, ev.EvidenceID)
}

func TestJSAppRetainedAndInlineAgree(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	app := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	src := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/src"})
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	inline := func(ev *core.Evidence) json.RawMessage {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type form func(*core.Evidence) any
	forms := map[string]form{"retained": func(e *core.Evidence) any { return ref(e) }, "inline": func(e *core.Evidence) any { return inline(e) }}
	calls := []struct {
		name string
		args func(f form) map[string]any
	}{
		{"trace_application_feature", func(f form) map[string]any {
			return map[string]any{"application": f(app), "seed": map[string]any{"kind": "ipc-channel", "value": "dialog:open"}}
		}},
		{"trace_javascript_semantics", func(f form) map[string]any {
			return map[string]any{"application": f(app), "query": map[string]any{"kind": "symbol", "value": "search"}}
		}},
		{"compare_application_versions", func(f form) map[string]any { return map[string]any{"left": f(src), "right": f(app)} }},
		{"compare_source_to_bundle", func(f form) map[string]any { return map[string]any{"left": f(src), "right": f(app)} }},
		{"compare_javascript_export_shapes", func(f form) map[string]any {
			return map[string]any{"left": f(src), "right": f(app), "left_module_path": "math.js", "right_module_path": "./src/math.js"}
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			a := jaCall(t, s, c.name, c.args(forms["retained"]))
			b := jaCall(t, s, c.name, c.args(forms["inline"]))
			is.Equal(string(a.NormalizedResult), string(b.NormalizedResult))
			is.Equal(a.EvidenceID, b.EvidenceID) // parameters record the reference either way
			golden(t, c.name+".golden.json", a.NormalizedResult)
			missing := c.args(func(*core.Evidence) any {
				return map[string]any{"kind": "retained-evidence", "evidence_id": "ev_" + strings.Repeat("ab", 32)}
			})
			e := jaCallErr(t, s, context.Background(), c.name, missing)
			is.Equal(e.Code, core.CodeEvidenceIntegrityMismatch)
			is.Equal(e.Details["reason"], "missing")
			is.Equal(e.Details["evidence_id"], "ev_"+strings.Repeat("ab", 32))
		})
	}
	_ = is
}

func TestJSAppWorkflowFacts(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	app := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	src := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/src"})
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	var trace struct {
		SeedMatches []map[string]any `json:"seed_matches"`
		Paths       []struct {
			EndKind     string   `json:"end_kind"`
			Authorities []string `json:"authorities"`
		} `json:"paths"`
	}
	tr := jaCall(t, s, "trace_application_feature", map[string]any{"application": ref(app), "seed": map[string]any{"kind": "ipc-channel", "value": "dialog:open"}})
	is.NoErr(json.Unmarshal(tr.NormalizedResult, &trace))
	is.Equal(len(trace.SeedMatches), 1)
	ends := map[string]bool{}
	for _, p := range trace.Paths {
		ends[p.EndKind] = true
		is.True(len(p.Authorities) > 0)
	}
	is.True(len(trace.Paths) > 0)
	// From the channel, both the handler side (main) and the caller side
	// (preload, then the bridge and the renderer) are reached.
	var ltr struct {
		Obligations []map[string]any `json:"obligations"`
	}
	ledger := jaCall(t, s, "build_reconstruction_obligation_ledger", map[string]any{"trace": ref(tr), "application": ref(app)})
	is.NoErr(json.Unmarshal(ledger.NormalizedResult, &ltr))
	kinds := map[string]bool{}
	for _, o := range ltr.Obligations {
		kinds[o["kind"].(string)] = true
	}
	for _, k := range []string{"ipc-channel", "module", "bridge-api", "process"} {
		if !kinds[k] {
			t.Errorf("ledger lacks %s obligations: %v", k, kinds)
		}
	}
	var cov struct {
		Summary struct {
			Counts map[string]int `json:"counts"`
			Total  int            `json:"total"`
		} `json:"summary"`
	}
	self := jaCall(t, s, "evaluate_reconstruction_coverage", map[string]any{"ledger": ref(ledger), "reconstruction": ref(app)})
	is.NoErr(json.Unmarshal(self.NormalizedResult, &cov))
	if cov.Summary.Counts["missing"] != 0 { // the app covers its own ledger
		t.Errorf("self coverage: %s", self.NormalizedResult)
	}
	partial := jaCall(t, s, "evaluate_reconstruction_coverage", map[string]any{"ledger": ref(ledger), "reconstruction": ref(src)})
	is.NoErr(json.Unmarshal(partial.NormalizedResult, &cov))
	is.True(cov.Summary.Counts["missing"] > 0)

	var stb struct {
		Items []struct {
			SourcePath string `json:"source_path"`
			Status     string `json:"status"`
		} `json:"items"`
	}
	cmp := jaCall(t, s, "compare_source_to_bundle", map[string]any{"left": ref(src), "right": ref(app)})
	is.NoErr(json.Unmarshal(cmp.NormalizedResult, &stb))
	got := map[string]string{}
	for _, it := range stb.Items {
		got[it.SourcePath] = it.Status
	}
	is.Equal(got, map[string]string{"index.js": "unchanged", "math.js": "modified"})

	var shapes struct {
		Summary map[string]int `json:"summary"`
	}
	sh := jaCall(t, s, "compare_javascript_export_shapes", map[string]any{"left": ref(src), "right": ref(app), "left_module_path": "math.js", "right_module_path": "./src/math.js"})
	is.NoErr(json.Unmarshal(sh.NormalizedResult, &shapes))
	// div was removed; add and mul keep their shape (function, 2 params)
	// through webpack's export getters in the bundle.
	is.Equal(shapes.Summary, map[string]int{"added": 0, "removed": 1, "changed": 0, "unchanged": 2, "unknown": 0})

	// Versions: a copy with one changed file.
	dir := t.TempDir()
	copyTree(t, "testdata/jsapp/electron", dir)
	os.WriteFile(filepath.Join(dir, "search.js"), []byte("export function search(q) { return q.toLowerCase(); }\nexport default search;\n"), 0o644)
	v2 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	var ver struct {
		Summary  map[string]int `json:"summary"`
		Matching map[string]int `json:"matching"`
	}
	cv := jaCall(t, s, "compare_application_versions", map[string]any{"left": ref(app), "right": ref(v2)})
	is.NoErr(json.Unmarshal(cv.NormalizedResult, &ver))
	is.Equal(ver.Summary["changed"], 1)
	is.Equal(ver.Summary["added"], 0)
	is.Equal(ver.Summary["removed"], 0)
	is.True(ver.Matching["content_digest"] > 0)
	is.True(ver.Matching["canonical_path"] >= 1) // search.js (and the package, which has no content digest)

	// A summary view given as the application is followed to its parent.
	sum := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron", "detail": "summary"})
	tr2 := jaCall(t, s, "trace_application_feature", map[string]any{"application": ref(sum), "seed": map[string]any{"kind": "ipc-channel", "value": "dialog:open"}})
	is.Equal(string(tr2.NormalizedResult), string(tr.NormalizedResult))
	// Wrong producer.
	e := jaCallErr(t, s, context.Background(), "trace_application_feature", map[string]any{"application": ref(tr), "seed": map[string]any{"kind": "module", "value": "x"}})
	is.Equal(e.Details["reason"], "wrong_operation")
}

func TestJSAppSummaryRetainsParent(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	full := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	s2 := jaSession(t)
	sum := jaCall(t, s2, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron", "detail": "summary"})
	var v struct {
		Parent   string         `json:"parent_evidence_id"`
		Summary  map[string]any `json:"summary"`
		View     map[string]any `json:"view"`
		Artifact map[string]any `json:"artifact"`
	}
	is.NoErr(json.Unmarshal(sum.NormalizedResult, &v))
	is.Equal(v.View["kind"], "summary")
	is.Equal(v.Artifact["path"], "testdata/jsapp/electron") // the path given, as summary.input_path says; before, ""
	is.Equal(v.Parent, string(full.EvidenceID))             // the retained parent is the complete analysis
	is.Equal(sum.EvidenceLinks, []core.EvidenceID{full.EvidenceID})
	parent, ok := s2.Ledger().Get(full.EvidenceID)
	is.True(ok)
	is.Equal(string(parent.NormalizedResult), string(full.NormalizedResult))
	n, _ := s2.Ledger().Len()
	is.Equal(n, 2)
}

// bigApp writes an app of n small modules importing each other.
func bigApp(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"big","main":"m0.js"}`), 0o644)
	for i := 0; i < n; i++ {
		src := fmt.Sprintf("const next = require('./m%d.js');\nexports.f%d = () => next;\nfetch('https://example.com/%d');\n", (i+1)%n, i, i)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%d.js", i)), []byte(src), 0o644)
	}
	return dir
}

func TestJSAppCancellationAndTimeout(t *testing.T) {
	dir := bigApp(t, 3000)
	t.Run("cancelled before", func(t *testing.T) {
		is := is.New(t)
		s := jaSession(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		e := jaCallErr(t, s, ctx, "analyze_javascript_application", map[string]any{"path": dir})
		is.Equal(e.Code, core.CodeCancelled)
		n, _ := s.Ledger().Len()
		is.Equal(n, 0)
	})
	t.Run("cancelled during", func(t *testing.T) {
		is := is.New(t)
		s := jaSession(t)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		e := jaCallErr(t, s, ctx, "analyze_javascript_application", map[string]any{"path": dir, "detail": "summary"})
		is.True(e.Code == core.CodeCancelled || e.Code == core.CodeProviderTimeout)
		n, _ := s.Ledger().Len()
		is.Equal(n, 0) // nothing recorded, not even the summary's parent
	})
	t.Run("timeout", func(t *testing.T) {
		is := is.New(t)
		s := jaSession(t)
		e := jaCallErr(t, s, context.Background(), "analyze_javascript_application", map[string]any{"path": dir, "analysis_timeout_ms": 30})
		is.Equal(e.Code, core.CodeProviderTimeout)
		is.Equal(e.Details["timeout_ms"], 30)
		partial, ok := e.Details["partial_observation"].(map[string]any)
		is.True(ok)
		cov, _ := partial["coverage"].(map[string]any)
		is.Equal(cov["truncated"], true)
		n, _ := s.Ledger().Len()
		is.Equal(n, 0)
	})
}

func TestJSAppBadInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"bad","main":"index.js"`), 0o644) // truncated JSON
	os.WriteFile(filepath.Join(dir, "index.js"), []byte("require('./a.js');\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.js"), []byte("require('./index.js');\n"), 0o644) // circular
	os.WriteFile(filepath.Join(dir, "deep.js"), []byte(strings.Repeat("(", 200000)+"1"+strings.Repeat(")", 200000)), 0o644)
	os.WriteFile(filepath.Join(dir, "image.js"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644)
	os.Mkdir(filepath.Join(dir, "loop"), 0o755)
	os.Symlink("..", filepath.Join(dir, "loop", "up"))
	os.Symlink("self", filepath.Join(dir, "self"))
	big := bytes.Repeat([]byte("a.b(1,'xy',function(){return c});"), 50<<20/33)
	if testing.Short() {
		big = big[:len(big)/50]
	}
	os.WriteFile(filepath.Join(dir, "bundle.min.js"), big, 0o644)
	is := is.New(t)
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	r := decodeApp(t, ev)
	kinds := map[string]bool{}
	for _, u := range r.Unknowns {
		kinds[u["kind"].(string)+" "+u["path"].(string)] = true
	}
	for _, k := range []string{"invalid-package package.json", "syntax-error deep.js", "not-parsed image.js"} {
		if !kinds[k] {
			t.Errorf("unknowns lack %q: %v", k, kinds)
		}
	}
	is.Equal(r.Statistics["symlinks"], 2)
	is.Equal(r.Statistics["parsed_assets"], 3) // index.js, a.js and the large bundle
	is.True(strings.Contains(strings.Join(r.Limitations, "\n"), "symbolic link"))
	for _, bad := range []map[string]any{
		{"path": filepath.Join(dir, "package.json")},                    // a file that is neither an ASAR nor JavaScript
		{"path": dir, "format": "asar"},                                 // a directory as an ASAR
		{"path": filepath.Join(dir, "missing")},                         // nothing there
		{"path": dir, "input_path": dir},                                // both names
		{"path": dir, "analysis_timeout_ms": 0},                         // out of range
		{"path": dir, "detail": "everything"},                           // not an enum value
		{"path": dir, "integrity_policy": "ignore"},                     // not an enum value
		{"path": filepath.Join(dir, "index.js"), "format": "directory"}, // format mismatch
	} {
		e := jaCallErr(t, s, context.Background(), "analyze_javascript_application", bad)
		if e.Code != core.CodeUnsupportedTarget && e.Code != core.CodeInvalidRequest && e.Code != core.CodeTargetUnavailable {
			t.Errorf("%v: %s", bad, e.JSON())
		}
	}
}

func TestJSAppASARIntegrity(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	archive := filepath.Join(dir, "app.asar")
	asarEntries := []asar.WriteEntry{
		{Path: "package.json", Type: asar.TypeFile, Data: []byte(`{"name":"x","main":"main.js","devDependencies":{"electron":"1"}}`)},
		{Path: "main.js", Type: asar.TypeFile, Data: []byte(`require('electron').ipcMain.handle('one', () => 1);` + "\n")},
		{Path: "other.js", Type: asar.TypeFile, Data: []byte("exports.x = 1;\n")},
	}
	if err := asar.WriteFile(archive, asarEntries, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(archive)
	i := bytes.LastIndex(b, []byte("exports.x = 1"))
	b[i+12] = '2' // other.js no longer matches its declared hash
	os.WriteFile(archive, b, 0o644)
	s := jaSession(t)
	e := jaCallErr(t, s, context.Background(), "analyze_javascript_application", map[string]any{"path": archive})
	is.Equal(e.Code, core.CodeArtifactIntegrityMismatch)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": archive, "integrity_policy": "record-and-continue"})
	r := decodeApp(t, ev)
	is.Equal(len(r.Contradictions), 1)
	is.Equal(r.Coverage["status"], "partial")
	found := false
	for _, u := range r.Unknowns {
		found = found || u["kind"] == "integrity-contradiction"
	}
	is.True(found)

	out, _, code := runCLI(t, "analyze-javascript-application", archive)
	is.Equal(code, 5)
	out, _, code = runCLI(t, "analyze-javascript-application", archive, "--integrity-policy", "record-and-continue", "--detail", "summary")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "retained"))
}

// A file whose bytes contradict the ASAR's declared hash is quarantined, not
// a parse failure: with record-and-continue the limitations name the
// integrity contradiction and no longer also claim that a JavaScript file
// "did not parse", while a real syntax error beside it still does.
func TestJSAppQuarantineIsNotAParseFailure(t *testing.T) {
	is := is.New(t)
	archive := filepath.Join(t.TempDir(), "app.asar")
	entries := []asar.WriteEntry{
		{Path: "package.json", Type: asar.TypeFile, Data: []byte(`{"name":"x","main":"main.js"}`)},
		{Path: "main.js", Type: asar.TypeFile, Data: []byte("exports.main = 1;\n")},
		{Path: "other.js", Type: asar.TypeFile, Data: []byte("exports.x = 1;\n")},
	}
	if err := asar.WriteFile(archive, entries, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(archive)
	i := bytes.LastIndex(b, []byte("exports.x = 1"))
	b[i+12] = '2'
	if err := os.WriteFile(archive, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := jaSession(t)
	r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": archive, "integrity_policy": "record-and-continue"}))
	for _, l := range r.Limitations {
		is.True(!strings.Contains(l, "did not parse")) // other.js was quarantined, not unparsable
	}
	is.Equal(r.Statistics["syntax_errors"], 0)
	is.Equal(r.Statistics["parsed_assets"], 1) // main.js; other.js is quarantined

	dir := writeTree(t, map[string]string{"package.json": `{"name":"x","main":"main.js"}`, "main.js": "function broken( {\n"})
	r = decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir}))
	is.True(slices.ContainsFunc(r.Limitations, func(l string) bool { return strings.Contains(l, "1 JavaScript file did not parse") }))
}

// A worker's script is a URL: new Worker("worker.js") in a page's script
// names worker.js beside the page that loads the script (index.html at the
// root loading dist/renderer.js), and a bare name beside the script itself
// is found too. Before, both were looked up as packages in node_modules
// and reported as "not in the app" though the app holds them; a script
// that is truly absent is still an unresolved-worker unknown.
func TestJSAppWorkerScriptResolvedAgainstItsDocument(t *testing.T) {
	is := is.New(t)
	dir := writeTree(t, map[string]string{
		"package.json":     `{"name":"x","main":"main.js"}`,
		"main.js":          "module.exports = 1;\n",
		"index.html":       `<html><body><script src="dist/renderer.js"></script></body></html>`,
		"dist/renderer.js": "new Worker('worker.js');\nnew Worker('near.js');\nnew Worker('missing.js');\nnew Worker('/rooted.js');\n",
		"dist/near.js":     "self.onmessage = () => {};\n",
		"worker.js":        "self.onmessage = () => {};\n",
		"rooted.js":        "self.onmessage = () => {};\n",
	})
	r := decodeApp(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": dir}))
	resolved := map[string]any{}
	assets := map[string]string{}
	for _, n := range r.Graph.Nodes {
		for _, o := range n.Observations {
			switch n.Kind {
			case "worker":
				resolved[fmt.Sprint(o.Properties["specifier"])] = o.Properties["resolved"]
			case "javascript-asset":
				if p, ok := o.Properties["path"].(string); ok {
					assets[n.NodeID] = p
				}
			}
		}
	}
	is.Equal(resolved, map[string]any{"worker.js": true, "near.js": true, "missing.js": false, "/rooted.js": true})
	var loaded []string
	for _, e := range r.Graph.Edges {
		if e.Relation == "loads" && assets[e.Target] != "" && e.Properties["path"] != nil && assets[e.Target] != "dist/renderer.js" {
			loaded = append(loaded, assets[e.Target])
		}
	}
	sort.Strings(loaded)
	is.Equal(loaded, []string{"dist/near.js", "rooted.js", "worker.js"})
	var unresolved []string
	for _, u := range r.Unknowns {
		if u["kind"] == "unresolved-worker" {
			unresolved = append(unresolved, fmt.Sprint(u["detail"]))
		}
	}
	is.Equal(unresolved, []string{"worker script missing.js is not in the app"})
}

// A reconstruction covers an obligation only when it meets the whole match,
// not its key alone: v2 keeps window.dogs but drops its deleteDog member,
// keeps the dog:delete handler but nothing calls it, and keeps util.js
// without its breedName export. Before, all three were "covered" because
// the world key, the channel name and the file name were present.
func TestReconstructionCoverageChecksTheWholeMatch(t *testing.T) {
	is := is.New(t)
	v1 := map[string]string{
		"package.json": `{"name":"dogs","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": "const { app, BrowserWindow, ipcMain } = require('electron');\n" +
			"ipcMain.handle('dog:fetch', () => 1);\nipcMain.handle('dog:delete', () => true);\n" +
			"app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: require('path').join(__dirname, 'preload.js') } }));\n",
		"preload.js": "const { contextBridge, ipcRenderer } = require('electron');\nconst u = require('./util.js');\n" +
			"contextBridge.exposeInMainWorld('dogs', {\n  fetchDog: (n) => ipcRenderer.invoke('dog:fetch', u.breedName(n)),\n" +
			"  deleteDog: (id) => ipcRenderer.invoke('dog:delete', id),\n});\n",
		"util.js": "exports.breedName = (n) => n.toLowerCase();\nexports.DEFAULT = 'beagle';\n",
	}
	v2 := maps.Clone(v1)
	v2["preload.js"] = "const { contextBridge, ipcRenderer } = require('electron');\nconst u = require('./util.js');\n" +
		"contextBridge.exposeInMainWorld('dogs', {\n  fetchDog: (n) => ipcRenderer.invoke('dog:fetch', u.DEFAULT),\n});\n"
	v2["util.js"] = "exports.DEFAULT = 'beagle';\n"
	s := jaSession(t)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	a1 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, v1)})
	a2 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, v2)})
	tr := jaCall(t, s, "trace_application_feature", map[string]any{"application": ref(a1), "seed": map[string]any{"kind": "api", "value": "dogs"}})
	ledger := jaCall(t, s, "build_reconstruction_obligation_ledger", map[string]any{"application": ref(a1), "trace": ref(tr)})
	// A channel obligation's evidence is where it is handled and called
	// (before, its derived node gave it none).
	var led struct {
		Obligations []struct {
			Kind              string           `json:"kind"`
			Match             map[string]any   `json:"match"`
			EvidenceLocations []map[string]any `json:"evidence_locations"`
		} `json:"obligations"`
	}
	is.NoErr(json.Unmarshal(ledger.NormalizedResult, &led))
	var fetchAt []string
	for _, o := range led.Obligations {
		if o.Kind == "ipc-channel" && o.Match["channel"] == "dog:fetch" {
			for _, l := range o.EvidenceLocations {
				fetchAt = append(fetchAt, fmt.Sprint(l["path"]))
			}
		}
	}
	sort.Strings(fetchAt)
	is.Equal(fetchAt, []string{"main.js", "preload.js"})
	var cov struct {
		Items []struct {
			Kind, Key, Status string
		} `json:"items"`
	}
	status := func(ev *core.Evidence) map[string]string {
		is.NoErr(json.Unmarshal(ev.NormalizedResult, &cov))
		out := map[string]string{}
		for _, it := range cov.Items {
			if it.Kind == "bridge-api" || it.Kind == "ipc-channel" || it.Kind == "module" {
				out[it.Kind+" "+it.Key] = it.Status
			}
		}
		return out
	}
	self := status(jaCall(t, s, "evaluate_reconstruction_coverage", map[string]any{"ledger": ref(ledger), "reconstruction": ref(a1)}))
	for k, v := range self {
		is.True(v == "covered" || k == "") // the app covers its own ledger
	}
	got := status(jaCall(t, s, "evaluate_reconstruction_coverage", map[string]any{"ledger": ref(ledger), "reconstruction": ref(a2)}))
	is.Equal(got["bridge-api dogs"], "missing")        // deleteDog is gone
	is.Equal(got["ipc-channel dog:delete"], "missing") // handled, no longer called
	is.Equal(got["ipc-channel dog:fetch"], "covered")
	is.Equal(got["module util.js"], "missing") // breedName is gone
	is.Equal(got["module preload.js"], "covered")
}

func TestCLIAnalyzeChoosesJSApp(t *testing.T) {
	is := is.New(t)
	out, errOut, code := runCLI(t, "analyze", "testdata/jsapp/electron")
	is.Equal(code, 0)
	is.Equal(errOut, "")
	for _, want := range []string{"electron", "main main.js", "preload preload.js", "ipc paired  dialog:open, log", "found       1 browser window,", "evidence    ev_"} {
		if !strings.Contains(out, want) {
			t.Errorf("analyze output lacks %q:\n%s", want, out)
		}
	}
	// The summary view of the retained analysis: its counts, coverage and
	// both Evidence IDs.
	out, _, code = runCLI(t, "analyze-javascript-application", "testdata/jsapp/electron", "--detail", "summary")
	is.Equal(code, 0)
	for _, want := range []string{"format       directory", "13 javascript assets", "coverage     partial", "unknowns     4", "summary      ev_", "retained     ev_"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "--format", "json", "analyze-javascript-application", "testdata/jsapp/electron", "--detail", "summary")
	is.Equal(code, 0)
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	is.Equal(ev.Operation, "analyze_javascript_application")
	is.Equal(len(ev.EvidenceLinks), 1)
}

func TestJSAppViews(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	app := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	src := map[string]any{"kind": "retained-evidence", "evidence_id": string(app.EvidenceID)}
	var item struct {
		Item struct {
			NodeID string `json:"node_id"`
			Kind   string `json:"kind"`
		} `json:"item"`
		Parent string `json:"parent_evidence_id"`
	}
	v := jaCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "item", "collection": "modules", "selector": map[string]any{"path": "./src/math.js"}}})
	is.NoErr(json.Unmarshal(v.NormalizedResult, &item))
	is.Equal(item.Item.Kind, "javascript-module")
	is.Equal(item.Parent, string(app.EvidenceID))
	byID := jaCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "item", "collection": "modules", "selector": map[string]any{"node_id": item.Item.NodeID}}})
	is.NoErr(json.Unmarshal(byID.NormalizedResult, &item))
	is.Equal(item.Item.Kind, "javascript-module")
	var page struct {
		Items    []map[string]any `json:"items"`
		Coverage map[string]any   `json:"coverage"`
	}
	p := jaCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "page", "collection": "modules", "offset": 0, "limit": 5}})
	is.NoErr(json.Unmarshal(p.NormalizedResult, &page))
	is.Equal(len(page.Items), 5)
	is.Equal(page.Coverage["next_offset"], float64(5))
	// The summary view answered by detail:"summary" is the one
	// inspect_analysis_view computes.
	sum := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron", "detail": "summary"})
	view := jaCall(t, s, "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "summary"}})
	is.Equal(string(sum.NormalizedResult), string(view.NormalizedResult))
	// It carries the complete result's counts of processes, IPC, endpoints
	// and storage, not only statistics.
	var counts struct {
		View struct {
			Summary map[string]any `json:"summary"`
		} `json:"summary"`
	}
	is.NoErr(json.Unmarshal(sum.NormalizedResult, &counts))
	is.Equal(counts.View.Summary["ipc_channels"], float64(2)) // dialog:open and log
	is.Equal(counts.View.Summary["main_processes"], float64(1))
	e := jaCallErr(t, s, context.Background(), "inspect_analysis_view", map[string]any{"source": src, "view": map[string]any{"kind": "item", "collection": "sections", "selector": map[string]any{"index": 0}}})
	is.Equal(e.Code, core.CodeInvalidRequest)
}

// TestExportShapeChanges: value kind, parameter count and rest parameter
// changes are "changed"; values computed at run time stay unknown.
func TestExportShapeChanges(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	v1, v2 := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(v1, "api.js"), []byte(`export function f(a) {}
export const g = 1;
export class C {}
export const k = compute();
export function same(x, ...rest) {}
export function gone() {}
`), 0o644)
	os.WriteFile(filepath.Join(v2, "api.js"), []byte(`export function f(a, b) {}
export const g = "one";
export class C { constructor(x) {} }
export const k = compute();
export function same(y, ...more) {}
export const h = async () => {};
`), 0o644)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	a := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": v1})
	b := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": v2})
	var out struct {
		Summary map[string]int `json:"summary"`
		Changes []struct {
			Path   []string `json:"path"`
			Status string   `json:"status"`
			Left   *struct {
				Value struct {
					Kind   string `json:"kind"`
					Params *int   `json:"params"`
				} `json:"value"`
			} `json:"left"`
		} `json:"changes"`
		Coverage map[string]any `json:"coverage"`
	}
	ev := jaCall(t, s, "compare_javascript_export_shapes", map[string]any{"left": ref(a), "right": ref(b), "left_module_path": "api.js", "right_module_path": "api.js"})
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &out))
	got := map[string]string{}
	for _, c := range out.Changes {
		got[c.Path[0]] = c.Status
	}
	is.Equal(got, map[string]string{"f": "changed", "g": "changed", "C": "changed", "k": "unknown", "same": "unchanged", "gone": "removed", "h": "added"})
	is.Equal(out.Summary, map[string]int{"added": 1, "removed": 1, "changed": 3, "unchanged": 1, "unknown": 1})
	is.Equal(out.Coverage["status"], "partial") // k's value is computed at run time
	for _, c := range out.Changes {
		if c.Path[0] == "f" {
			is.Equal(c.Left.Value.Kind, "function")
			is.Equal(*c.Left.Value.Params, 1)
		}
	}
	// max_changes truncates and says so.
	lim := jaCall(t, s, "compare_javascript_export_shapes", map[string]any{"left": ref(a), "right": ref(b), "left_module_path": "api.js", "right_module_path": "api.js",
		"limits": map[string]any{"max_changes": 2}})
	is.NoErr(json.Unmarshal(lim.NormalizedResult, &out))
	is.Equal(len(out.Changes), 2)
	is.Equal(out.Coverage["truncated"], true)
	is.Equal(out.Coverage["omitted_count"], float64(5))
	// An unknown module path: nothing selected, coverage unknown.
	none := jaCall(t, s, "compare_javascript_export_shapes", map[string]any{"left": ref(a), "right": ref(b), "left_module_path": "nope.js", "right_module_path": "api.js"})
	is.NoErr(json.Unmarshal(none.NormalizedResult, &out))
	is.Equal(out.Coverage["status"], "unknown")
}

// TestJSAppPackageEntries: main, module and exports (subpaths, nested
// conditions, patterns, null exclusions) name entry points; a field of the
// wrong type ("main": false, as npm packages ship) is reported and ignored,
// not a reason to drop the package.
func TestJSAppPackageEntries(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	write := func(p, body string) {
		is.NoErr(os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		is.NoErr(os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644))
	}
	write("package.json", `{"name":"app","main":"index.js","dependencies":{"p":"1"}}`)
	write("index.js", "const p = require('p');\nconst a = require('p/feature/a');\n")
	write("esm.mjs", "import p from 'p';\n")
	write("node_modules/p/package.json", `{"name":"p","version":"1.0.0","main":false,"module":"./esm/index.mjs",
 "exports":{".":{"node":{"import":"./esm/index.mjs","require":"./cjs/index.js"},"default":"./cjs/index.js"},
  "./feature/*":"./src/feature/*.js","./private/*":null,"./missing":"./nope.js","./outside":"../escape.js"}}`)
	write("node_modules/p/esm/index.mjs", "export const v = 1;\n")
	write("node_modules/p/cjs/index.js", "exports.v = 1;\n")
	write("node_modules/p/src/feature/a.js", "exports.a = 1;\n")
	write("node_modules/p/src/feature/deep/b.js", "exports.b = 1;\n")
	write("node_modules/q/package.json", `{"name":"q","exports":{".":"./x.js","node":"./y.js"}}`)
	write("node_modules/q/x.js", "")
	s := jaSession(t)
	r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir}))
	label := map[string]string{}
	for _, n := range r.Graph.Nodes {
		for _, o := range n.Observations {
			if o.Label != nil {
				label[n.NodeID] = *o.Label
			}
		}
	}
	var loads []string
	for _, e := range r.Graph.Edges {
		if e.Relation == "loads" && label[e.Source] == "p" {
			loads = append(loads, fmt.Sprintf("%s %v %v -> %s", e.Properties["field"], e.Properties["subpath"], e.Properties["conditions"], label[e.Target]))
		}
	}
	sort.Strings(loads)
	is.Equal(loads, []string{
		"exports . [default] -> node_modules/p/cjs/index.js",
		"exports . [node import] -> node_modules/p/esm/index.mjs",
		"exports . [node require] -> node_modules/p/cjs/index.js",
		"exports ./feature/* [] -> node_modules/p/src/feature/a.js",
		"exports ./feature/* [] -> node_modules/p/src/feature/deep/b.js",
		"module <nil> <nil> -> node_modules/p/esm/index.mjs",
	})
	details := map[string]string{}
	for _, u := range r.Unknowns {
		details[u["kind"].(string)+" "+u["path"].(string)] += u["detail"].(string) + "|"
	}
	is.True(strings.Contains(details["invalid-package-field node_modules/p/package.json"], `"main" is a boolean (false)`))
	is.True(strings.Contains(details["unresolved-entry node_modules/p/package.json"], "exports ./nope.js"))
	is.True(strings.Contains(details["unresolved-entry node_modules/p/package.json"], "exports ../escape.js"))
	is.True(strings.Contains(details["invalid-package-field node_modules/q/package.json"], "mixes subpath keys and condition keys"))
	_, invalid := details["invalid-package node_modules/p/package.json"]
	is.True(!invalid)
	// Specifiers resolve through the exports map with the conditions of
	// their import kind.
	imports := map[string]bool{}
	for _, e := range r.Graph.Edges {
		if e.Relation == "imports" {
			imports[label[e.Source]+" -> "+label[e.Target]] = true
		}
	}
	is.True(imports["index.js -> node_modules/p/cjs/index.js"])     // require: node.require
	is.True(imports["index.js -> node_modules/p/src/feature/a.js"]) // a pattern subpath
	is.True(imports["esm.mjs -> node_modules/p/esm/index.mjs"])     // import: node.import
	is.True(!imports["index.js -> node_modules/p/esm/index.mjs"])
}

// TestExportShapesThroughBarrels: a barrel file (export * from, export
// {a as b} from, export * as ns from) shows the names and shapes of the
// modules it re-exports, so comparing the barrel sees a change made behind
// it; a cycle of barrels ends.
func TestExportShapesThroughBarrels(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	app := func(fParams string) map[string]any {
		dir := writeTree(t, map[string]string{
			"index.js": "export * from './api.js';\nexport { f as g } from './api.js';\nexport * as ns from './api.js';\nexport * from './loop.js';\nexport const own = 1;\n",
			"api.js":   "export function f(" + fParams + ") {}\nexport class K {}\nexport default 1;\n",
			"loop.js":  "export * from './index.js';\nexport const fromLoop = 'x';\n",
		})
		ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	v1, v2 := app("a"), app("a, b")
	var out struct {
		Changes []struct {
			Path   []string `json:"path"`
			Status string   `json:"status"`
		} `json:"changes"`
	}
	ev := jaCall(t, s, "compare_javascript_export_shapes", map[string]any{"left": v1, "right": v2, "left_module_path": "index.js", "right_module_path": "index.js"})
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &out))
	got := map[string]string{}
	for _, c := range out.Changes {
		got[c.Path[0]] = c.Status
	}
	// default is not re-exported by export *; own wins over the loop's names.
	is.Equal(got, map[string]string{"f": "changed", "g": "changed", "K": "unchanged", "ns": "unchanged", "own": "unchanged", "fromLoop": "unchanged"})
}

// TestExportViewWebOfBarrels: thirty barrels that each export * from all
// the others end within the work bound instead of walking every path.
func TestExportViewWebOfBarrels(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	const n = 30
	for i := 0; i < n; i++ {
		var b strings.Builder
		for j := 0; j < n; j++ {
			if j != i {
				fmt.Fprintf(&b, "export * from './m%d.js';\n", j)
			}
		}
		fmt.Fprintf(&b, "export const v%d = %d;\n", i, i)
		is.NoErr(os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%d.js", i)), []byte(b.String()), 0o644))
	}
	r := decodeApp(t, jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": dir}))
	is.Equal(r.Statistics["parsed_assets"], n)
	is.True(strings.Contains(strings.Join(r.Limitations, "\n"), "Re-exports were followed through"))
}

// TestManyExportsKeepTheAssetsFacts: a module of 150 exports keeps its
// sha256, size and status (export_shapes, bounded first in key order, used
// to take the whole property budget and leave them null); its lists say
// how many names there are, and comparing it with itself is partial past
// the names listed, not complete.
func TestManyExportsKeepTheAssetsFacts(t *testing.T) {
	is := is.New(t)
	s := jaSession(t)
	dir := t.TempDir()
	var src strings.Builder
	for i := range 150 {
		fmt.Fprintf(&src, "export function f%03d(a, b) {}\n", i)
	}
	is.NoErr(os.WriteFile(filepath.Join(dir, "api.js"), []byte(src.String()), 0o644))
	app := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	g, err := jsapp.DecodeGraph(app.NormalizedResult)
	is.NoErr(err)
	var p map[string]any
	for _, n := range g.Nodes {
		if n.Kind == "javascript-asset" {
			p = n.Observations[0].Properties
		}
	}
	is.True(p != nil)
	is.True(p["sha256"] != nil && p["size"] != nil && p["status"] == "parsed")
	is.Equal(p["exports_total"], float64(150))
	listed := len(p["exports"].([]any))
	is.True(listed > 0 && listed < 150 && len(p["export_shapes"].([]any)) == listed)
	ref := map[string]any{"kind": "retained-evidence", "evidence_id": string(app.EvidenceID)}
	cmp := jaCall(t, s, "compare_javascript_export_shapes", map[string]any{"left": ref, "right": ref, "left_module_path": "api.js", "right_module_path": "api.js"})
	var out struct {
		Summary  map[string]int `json:"summary"`
		Coverage map[string]any `json:"coverage"`
	}
	is.NoErr(json.Unmarshal(cmp.NormalizedResult, &out))
	is.Equal(out.Summary["unchanged"], listed)
	is.Equal(out.Coverage["status"], "partial")
	is.Equal(out.Coverage["truncated"], true)
	is.Equal(out.Coverage["omitted_count"], float64(150-listed))
}

// TestSemanticReferencesThroughModuleObjects: a file that requires a module
// and calls its exports through the module object (api.fetchUser()) or
// destructures them is a reference to those exports; an endpoint built
// from a const string is reported with the constant's text.
func TestSemanticReferencesThroughModuleObjects(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	files := map[string]string{
		"package.json": `{"name":"semapp","version":"1.0.0","main":"index.js"}`,
		"lib/api.js": "const BASE = \"https://api.example.com\";\nfunction fetchUser(id) { return fetch(`${BASE}/users/${id}`); }\n" +
			"function deleteUser(id) { return fetch(BASE + \"/users/\" + id, { method: \"DELETE\" }); }\nmodule.exports = { fetchUser, deleteUser };\n",
		"index.js": "const api = require('./lib/api');\nconst { deleteUser } = require('./lib/api');\napi.fetchUser(1);\ndeleteUser(2);\n" +
			"function load(n) { return require(n) || require(n + '.js'); }\n",
	}
	for name, body := range files {
		is.NoErr(os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		is.NoErr(os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	s := jaSession(t)
	app := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	is.True(strings.Contains(string(app.NormalizedResult), `"https://api.example.com/users/${}"`))
	// The calls edges carry the method of fetch's literal options.
	var methods []string
	for _, e := range decodeApp(t, app).Graph.Edges {
		if e.Relation == "calls" {
			m, _ := e.Properties["method"].(string)
			methods = append(methods, m)
		}
	}
	slices.Sort(methods)
	is.Equal(methods, []string{"", "DELETE"})
	for _, name := range []string{"fetchUser", "deleteUser"} {
		var q struct {
			Definitions []map[string]any `json:"definitions"`
			References  []struct {
				SourcePath string `json:"source_path"`
				TargetPath string `json:"target_path"`
				Relation   string `json:"relation"`
			} `json:"references"`
		}
		res := jaCall(t, s, "trace_javascript_semantics", map[string]any{"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(app.EvidenceID)},
			"query": map[string]any{"kind": "symbol", "value": name}})
		is.NoErr(json.Unmarshal(res.NormalizedResult, &q))
		is.Equal(len(q.Definitions), 1)
		is.Equal(len(q.References), 1) // both names are on the module's first require
		is.Equal(q.References[0].SourcePath, "index.js")
		is.Equal(q.References[0].TargetPath, "lib/api.js")
		is.Equal(q.References[0].Relation, "require")
	}
	// The two computed requires have no offset: one relation, two unknowns.
	var mod struct {
		Definitions []struct {
			Relation  string `json:"relation"`
			Specifier string `json:"specifier"`
		} `json:"definitions"`
		References []struct {
			Relation  string `json:"relation"`
			Specifier string `json:"specifier"`
		} `json:"references"`
	}
	res := jaCall(t, s, "trace_javascript_semantics", map[string]any{"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(app.EvidenceID)},
		"query": map[string]any{"kind": "module", "value": "index.js"}})
	is.NoErr(json.Unmarshal(res.NormalizedResult, &mod))
	computed := 0
	for _, r := range mod.References {
		if r.Relation == "require" && r.Specifier == "" {
			computed++
		}
	}
	is.Equal(computed, 1)
	is.Equal(strings.Count(string(app.NormalizedResult), `"require specifier is computed at run time"`), 2)
}

// A main.js that does not parse does not make an Electron app something
// else: the app's own package.json (its electron dependency) or the ASAR it
// ships in says it is Electron, main.js is still its main process, and a
// limitation names main.js and what its syntax error hides. Without either,
// the limitation says the question is open. Before, the ASAR without an
// electron dependency was "detected": false, and no limitation named the
// main process.
func TestJSAppMainSyntaxErrorKeepsElectron(t *testing.T) {
	is := is.New(t)
	files := map[string]string{
		"package.json": `{"name":"s","main":"main.js"}`,
		"main.js":      "const { ipcMain } = require(\"electron\");\nipcMain.handle(\"ok:one\", () => 1);\nfunction broken( {\n  return 1\n",
		"util.js":      "exports.one = 1;\n",
	}
	s := jaSession(t)
	analyze := func(p string) jaResult {
		return decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": p}))
	}
	limitation := func(r jaResult, part string) bool {
		return slices.ContainsFunc(r.Limitations, func(l string) bool { return strings.Contains(l, part) })
	}
	// Depends on electron: Electron, main.js its main process.
	withDep := maps.Clone(files)
	withDep["package.json"] = `{"name":"s","main":"main.js","devDependencies":{"electron":"31"}}`
	r := analyze(writeTree(t, withDep))
	is.Equal(r.Electron["detected"], true)
	is.Equal(r.Electron["main"], []any{"main.js"})
	is.True(limitation(r, "main.js, the main process (package.json's main), did not parse"))
	// Packed in an ASAR without the dependency: the archive says Electron.
	archive := filepath.Join(t.TempDir(), "app.asar")
	packASAR(t, writeTree(t, files), archive)
	r = analyze(archive)
	is.Equal(r.Electron["detected"], true)
	is.Equal(r.Electron["main"], []any{"main.js"})
	is.True(limitation(r, "main.js, the main process (package.json's main), did not parse"))
	// Neither: not known to be Electron, and said so.
	r = analyze(writeTree(t, files))
	is.Equal(r.Electron["detected"], false)
	is.True(limitation(r, "whether it starts an Electron main process is not known"))
}

// Files an app ships as they are (main.js and preload.js, copied beside the
// bundle rather than bundled) are matched by their bytes, or by their path
// when they changed, not reported as removed because no source map names
// them. A source file in neither a map nor the app stays removed.
func TestSourceToBundleMatchesFilesShippedAsTheyAre(t *testing.T) {
	is := is.New(t)
	src := t.TempDir()
	copyTree(t, "testdata/jsapp/src", src)
	for _, f := range []string{"main.js", "preload.js"} {
		b, err := os.ReadFile(filepath.Join("testdata/jsapp/electron", f))
		is.NoErr(err)
		if f == "preload.js" {
			b = append(b, "\n// edited after the build\n"...)
		}
		is.NoErr(os.WriteFile(filepath.Join(src, f), b, 0o644))
	}
	is.NoErr(os.WriteFile(filepath.Join(src, "gone.js"), []byte("exports.gone = 1;\n"), 0o644))
	s := jaSession(t)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	left := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": src})
	right := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	var stb struct {
		Items []struct {
			SourcePath string   `json:"source_path"`
			Status     string   `json:"status"`
			Candidates []string `json:"candidates"`
			Confidence string   `json:"confidence"`
		} `json:"items"`
		Summary map[string]int `json:"summary"`
	}
	cmp := jaCall(t, s, "compare_source_to_bundle", map[string]any{"left": ref(left), "right": ref(right)})
	is.NoErr(json.Unmarshal(cmp.NormalizedResult, &stb))
	got := map[string]string{}
	for _, it := range stb.Items {
		got[it.SourcePath] = it.Status + " " + it.Confidence
		if it.Status != "removed" {
			is.Equal(len(it.Candidates), 1)
		}
	}
	is.Equal(got, map[string]string{"index.js": "unchanged observed", "math.js": "modified derived",
		"main.js": "unchanged observed", "preload.js": "modified derived", "gone.js": "removed derived"})
}

// A changed item of compare_application_versions names the properties that
// changed, with their values on each side: before, an agent saw only
// "properties": "changed" and had to diff the two graphs itself.
func TestVersionChangesNameTheProperty(t *testing.T) {
	is := is.New(t)
	v1 := map[string]string{
		"package.json": `{"name":"dogs","version":"1.0.0","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": "const { app, BrowserWindow } = require('electron');\n" +
			"app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: require('path').join(__dirname, 'preload.js'), sandbox: true } }));\n",
		"preload.js": "const { contextBridge, ipcRenderer } = require('electron');\n" +
			"contextBridge.exposeInMainWorld('dogs', {\n  fetchDog: (n) => ipcRenderer.invoke('dog:fetch', n),\n  deleteDog: (id) => ipcRenderer.invoke('dog:delete', id),\n});\n",
		"dist/app.js":     "console.log(1);\n//# sourceMappingURL=app.js.map\n",
		"dist/app.js.map": `{"version":3,"sources":["../src/a.js"],"sourcesContent":["console.log(1);\n"],"mappings":"AAAA"}`,
	}
	v2 := maps.Clone(v1)
	v2["dist/app.js.map"] = strings.Replace(v1["dist/app.js.map"], "console.log(1)", "console.log(2)", 1)
	v2["package.json"] = strings.Replace(v1["package.json"], "1.0.0", "2.0.0", 1)
	v2["main.js"] = strings.Replace(v1["main.js"], "sandbox: true", "sandbox: false", 1)
	v2["preload.js"] = strings.Replace(v1["preload.js"], "  deleteDog: (id) => ipcRenderer.invoke('dog:delete', id),\n", "", 1)
	s := jaSession(t)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	a1 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, v1)})
	a2 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, v2)})
	var res struct {
		Items []struct {
			NodeKind string `json:"node_kind"`
			Status   string `json:"status"`
			Changes  []struct {
				Property       string `json:"property"`
				Before, After  any
				Added, Removed []any
			} `json:"changes"`
		} `json:"items"`
	}
	cv := jaCall(t, s, "compare_application_versions", map[string]any{"left": ref(a1), "right": ref(a2)})
	is.NoErr(json.Unmarshal(cv.NormalizedResult, &res))
	got := map[string]string{}
	for _, it := range res.Items {
		if it.Status != "changed" {
			is.Equal(len(it.Changes), 0)
			continue
		}
		is.True(len(it.Changes) > 0) // every changed item says what changed
		for _, c := range it.Changes {
			b, _ := json.Marshal(map[string]any{"before": c.Before, "after": c.After})
			got[it.NodeKind+" "+c.Property] = string(b)
		}
	}
	is.Equal(got["package version"], `{"after":"2.0.0","before":"1.0.0"}`)
	is.Equal(got["context-bridge-api members"], `{"after":["fetchDog"],"before":["deleteDog","fetchDog"]}`)
	is.Equal(got["browser-window sandbox"], `{"after":false,"before":true}`)
	sum := func(text string) string { h := sha256.Sum256([]byte(text)); return hex.EncodeToString(h[:]) }
	is.Equal(got["source-module content"], `{"after":"`+sum("console.log(2);\n")+`","before":"`+sum("console.log(1);\n")+`"}`)
}

// Reconstruction coverage keys a module by its path: a reconstruction that
// has lib/util.js does not cover the ledger's src/util.js (before, the two
// met on their file name), while one that keeps src/util.js does.
func TestReconstructionCoverageKeysModulesByPath(t *testing.T) {
	is := is.New(t)
	v1 := map[string]string{
		"package.json": `{"name":"dogs","main":"main.js","devDependencies":{"electron":"31"}}`,
		"main.js": "const { app, BrowserWindow, ipcMain } = require('electron');\nipcMain.handle('dog:fetch', () => 1);\n" +
			"app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: require('path').join(__dirname, 'preload.js') } }));\n",
		"preload.js": "const { contextBridge, ipcRenderer } = require('electron');\nconst u = require('./src/util.js');\n" +
			"contextBridge.exposeInMainWorld('dogs', {\n  fetchDog: (n) => ipcRenderer.invoke('dog:fetch', u.breedName(n)),\n});\n",
		"src/util.js": "exports.breedName = (n) => n.toLowerCase();\n",
	}
	moved := maps.Clone(v1)
	delete(moved, "src/util.js")
	moved["lib/util.js"] = v1["src/util.js"]
	moved["preload.js"] = strings.Replace(v1["preload.js"], "./src/util.js", "./lib/util.js", 1)
	s := jaSession(t)
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	a1 := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, v1)})
	tr := jaCall(t, s, "trace_application_feature", map[string]any{"application": ref(a1), "seed": map[string]any{"kind": "api", "value": "dogs"}})
	ledger := jaCall(t, s, "build_reconstruction_obligation_ledger", map[string]any{"application": ref(a1), "trace": ref(tr)})
	modules := func(rec map[string]string) map[string]string {
		var cov struct {
			Items []struct{ Kind, Key, Status string } `json:"items"`
		}
		a := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, rec)})
		ev := jaCall(t, s, "evaluate_reconstruction_coverage", map[string]any{"ledger": ref(ledger), "reconstruction": ref(a)})
		is.NoErr(json.Unmarshal(ev.NormalizedResult, &cov))
		out := map[string]string{}
		for _, it := range cov.Items {
			if it.Kind == "module" {
				out[it.Key] = it.Status
			}
		}
		return out
	}
	is.Equal(modules(v1)["src/util.js"], "covered")
	got := modules(moved)
	is.Equal(got["src/util.js"], "missing")
	is.Equal(got["preload.js"], "covered")
	// The same tree under another root (as in an ASAR inside a ZIP) meets.
	nested := map[string]string{}
	for p, text := range v1 {
		nested["app/"+p] = text
	}
	is.Equal(modules(nested)["src/util.js"], "covered")
}

// A dynamic call's unknown is located at its callee when no literal
// argument locates it: fetch(u) and ipcRenderer.invoke(ch) inside a
// function. Before, these unknowns (the very calls with no literal) had
// offset null.
func TestDynamicCallUnknownsAreLocated(t *testing.T) {
	is := is.New(t)
	main := "const { ipcRenderer } = require('electron');\nfunction go(u, ch) {\n  fetch(u);\n  ipcRenderer.invoke(ch);\n}\n"
	s := jaSession(t)
	r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, map[string]string{
		"package.json": `{"name":"d","main":"main.js"}`, "main.js": main})}))
	got := map[string]any{}
	for _, u := range r.Unknowns {
		got[u["kind"].(string)] = u["offset"]
	}
	is.Equal(got["dynamic-endpoint"], float64(strings.Index(main, "fetch(u)")))
	is.Equal(got["dynamic-ipc-channel"], float64(strings.Index(main, "invoke(ch)")))
}
