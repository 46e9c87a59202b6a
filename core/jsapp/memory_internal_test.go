package jsapp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"unsafe"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// TestApplicationGraphIsCharged: the application analysis charges its
// graph to the call's memory account before parsing and gives it back when
// it returns; an account too small for it refuses the call with
// resource_constraint naming the limit, before any parsing.
func TestApplicationGraphIsCharged(t *testing.T) {
	dir := t.TempDir()
	for i := range 200 {
		body := fmt.Sprintf("module.exports = %d;\n", i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%03d.js", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	req := jsappRequest{op: "analyze_javascript_application", path: dir, given: dir, format: "directory", policy: "fail", engine: portstest.FakeJS{}, observe: func(string) {}}
	big := &portstest.MemoryAccount{Max: 1 << 30}
	if _, err := analyzeJSApp(ports.WithMemory(context.Background(), big), req); err != nil {
		t.Fatal(err)
	}
	if big.Charged("the application graph") < 200*jsappMinAssetBytes*jsappGraphMemoryFactor {
		t.Fatalf("the graph was charged %d bytes", big.Charged("the application graph"))
	}
	if big.InUse() != 0 {
		t.Fatalf("%d bytes still held after the analysis returned", big.InUse())
	}
	small := &portstest.MemoryAccount{Max: 64 << 10}
	_, err := analyzeJSApp(ports.WithMemory(context.Background(), small), req)
	var e *core.Error
	if !errors.As(core.AsError("analyze_javascript_application", err), &e) || e.Code != core.CodeResourceConstraint {
		t.Fatalf("a small account: %v", err)
	}
	if small.Charged("the application graph") != 0 || small.InUse() != 0 {
		t.Fatalf("refused, yet charged %d, holding %d", small.Charged("the application graph"), small.InUse())
	}
}

// keptFactsEngine is FakeJS that keeps every facts value it returns, with
// an import and an export added, so a test can see what the analysis left
// in them.
type keptFactsEngine struct {
	portstest.FakeJS
	mu   *sync.Mutex
	kept *[]*ports.JSFacts
}

func (e keptFactsEngine) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	f, err := e.FakeJS.Facts(ctx, req)
	if err == nil {
		f.Imports = append(f.Imports, ports.JSImport{Kind: ports.JSRequire, Specifier: "./b.js", Offset: 0, InModule: -1})
		f.Exports = append(f.Exports, ports.JSExport{Name: "default", Kind: "commonjs", Offset: -1})
		e.mu.Lock()
		*e.kept = append(*e.kept, f)
		e.mu.Unlock()
	}
	return f, err
}

// TestLinkFactsAreReleasedBeforeTheSourceMaps: the imports and exports of
// every file, read only by the phases that link files, are let go of before
// the source map phase (the graph's peak), not kept until the seal; the
// analysis still gives the imports edges and the export relations.
func TestLinkFactsAreReleasedBeforeTheSourceMaps(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.js", "b.js"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("module.exports = require('./b.js');\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var kept []*ports.JSFacts
	engine := keptFactsEngine{mu: &sync.Mutex{}, kept: &kept}
	res := analyzedWith(t, dir, engine)
	if len(kept) < 2 {
		t.Fatalf("%d files parsed, want 2", len(kept))
	}
	for _, f := range kept {
		if f.Imports != nil || f.Exports != nil {
			t.Fatalf("the facts still hold %d imports and %d exports after the analysis", len(f.Imports), len(f.Exports))
		}
	}
	imports := 0
	for _, e := range res.Graph.Edges {
		if e.Relation == "imports" {
			imports++
		}
	}
	if imports < 2 {
		t.Errorf("%d imports edges, want at least 2 (a.js and b.js each require b.js)", imports)
	}
}

// callsEngine is FakeJS whose facts hold, after the file's own, a fetch,
// an IPC handler registration (with its function body) and a storage
// call, kept so a test can see what the analysis left in them.
type callsEngine struct {
	portstest.FakeJS
	mu   *sync.Mutex
	kept *[]*ports.JSFacts
}

func (e callsEngine) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	f, err := e.FakeJS.Facts(ctx, req)
	if err == nil {
		str := func(s string, off int64) []ports.JSValue {
			return []ports.JSValue{{Kind: ports.JSValString, Value: s, Offset: off}}
		}
		first := len(f.Calls)
		f.Calls = append(f.Calls,
			ports.JSCall{Offset: 1, Callee: "fetch", Args: str("https://example.com/api", 1), InModule: -1, CalleeOffset: -1, Position: -1},
			ports.JSCall{Offset: 2, Callee: "ipcMain.handle", Module: "electron", Member: "ipcMain.handle", Args: append(str("ch", 2), ports.JSValue{Kind: "function", Offset: 3}), InModule: -1, CalleeOffset: -1, Position: -1},
			ports.JSCall{Offset: 4, Callee: "localStorage.setItem", Args: str("key", 4), InModule: -1, CalleeOffset: -1, Position: -1})
		f.Functions = append(f.Functions, ports.JSFunction{Call: first + 1, Arg: 1, First: first + 2, End: first + 3})
		e.mu.Lock()
		*e.kept = append(*e.kept, f)
		e.mu.Unlock()
	}
	return f, err
}

// TestCallsButIPCAreReleasedBeforeTheSourceMaps: once the calls are linked,
// the facts keep only the IPC calls (the source map and IPC phases read no
// other), at their indices, and no function bodies; the graph still holds
// the endpoint, the storage and the IPC channel the calls gave.
func TestCallsButIPCAreReleasedBeforeTheSourceMaps(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.js"), []byte("module.exports = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var kept []*ports.JSFacts
	res := analyzedWith(t, dir, callsEngine{mu: &sync.Mutex{}, kept: &kept})
	if len(kept) != 1 {
		t.Fatalf("%d files parsed, want 1", len(kept))
	}
	f := kept[0]
	if f.Functions != nil {
		t.Errorf("the facts still hold %d function bodies", len(f.Functions))
	}
	if n := len(f.Calls); n < 2 || f.Calls[n-1].Callee != "ipcMain.handle" {
		t.Fatalf("the calls left are %+v, want the IPC call last, at its index", f.Calls)
	}
	for _, c := range f.Calls[:len(f.Calls)-1] {
		if c.Callee != "" || c.Args != nil {
			t.Errorf("the facts still hold the call %q", c.Callee)
		}
	}
	kinds := map[string]bool{}
	for _, n := range res.Graph.Nodes {
		kinds[n.Kind] = true
	}
	for _, k := range []string{"ipc-channel", "endpoint", "storage", "javascript-function"} {
		if !kinds[k] {
			t.Errorf("no %s node: the calls were released before they were linked (kinds %v)", k, kinds)
		}
	}
}

// TestRelationRecordsAreSmall: the builder holds a relation as a record of
// string codes, less than half a semRelation's bytes, and the record gives
// back the relation it was made from, whatever its fields.
func TestRelationRecordsAreSmall(t *testing.T) {
	if rec, rel := unsafe.Sizeof(relRecord{}), unsafe.Sizeof(semRelation{}); 2*rec > rel {
		t.Fatalf("a relation record takes %d bytes, a relation %d", rec, rel)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(l ...string) string { return l[rng.IntN(len(l))] }
	t2 := newRelStrings()
	for range 2000 {
		r := semRelation{relation: pick("require", "import", "", "exports"), source: pick("jag_node_a", "jag_node_b", ""),
			specifier: pick("", "./b", "é"), target: pick("", "jag_node_a", "jag_node_c"), offset: int64(rng.IntN(5)) - 1,
			line: int32(rng.IntN(3)), col: int32(rng.IntN(3)), origNode: pick("", "jag_node_d"), origLine: int32(rng.IntN(3)),
			origCol: int32(rng.IntN(3)), name: pick("", "default", "f"), kind: pick("", "named"), local: pick("", "k"),
			value:     ports.JSValueShape{Kind: pick("", "function"), Params: rng.IntN(4) - 1, Rest: rng.IntN(2) == 0},
			hasTarget: rng.IntN(2) == 0, export: rng.IntN(2) == 0, external: rng.IntN(2) == 0, inClause: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			r.names = []string{"x", "y"}[:rng.IntN(3)]
		}
		rec := t2.pack(&r)
		if back := t2.unpack(&rec); !reflect.DeepEqual(back, r) {
			t.Fatalf("relation %+v came back as %+v", r, back)
		}
	}
}

// TestRecordsShareTheirStrategy: every observation and edge the builder
// makes points to one identifier strategy of its kind rather than holding a
// copy, and the strategy is still what their IDs digest.
func TestRecordsShareTheirStrategy(t *testing.T) {
	g := newGraphBuild()
	a := g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"path": "a.js"}), "a.js", map[string]any{"x": 1}, at("a.js", -1))
	b := g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"path": "b.js"}), "b.js", map[string]any{"x": 2}, at("b.js", 3))
	g.edge(a, b, "imports", map[string]any{"kind": "require"}, at("a.js", 1))
	g.edge(b, a, "imports", nil, at("b.js", 2))
	built, _ := g.seal(nil, nil, "")
	if len(built.Edges) != 2 || len(built.Nodes) != 2 {
		t.Fatalf("%d edges, %d nodes", len(built.Edges), len(built.Nodes))
	}
	for _, e := range built.Edges {
		if e.IdentifierStrategy != edgeStrategy {
			t.Errorf("edge %s holds its own strategy %v", e.EdgeID, e.IdentifierStrategy)
		}
		want := "jag_edge_" + jagDigest(map[string]any{"source_node_id": e.SourceNodeID, "target_node_id": e.TargetNodeID, "relation": e.Relation,
			"properties": e.Properties, "evidence": e.Evidence, "identifier_strategy": IDStrategy{"semantic-content-sha256", "relationship-exact"}})
		if e.EdgeID != want {
			t.Errorf("edge ID %s, want %s", e.EdgeID, want)
		}
	}
	for _, n := range built.Nodes {
		for _, o := range n.Observations {
			if o.IdentifierStrategy != observationStrategy {
				t.Errorf("observation %s holds its own strategy %v", o.ObservationID, o.IdentifierStrategy)
			}
		}
	}
	if *edgeStrategy != (IDStrategy{"semantic-content-sha256", "relationship-exact"}) || *observationStrategy != (IDStrategy{"semantic-content-sha256", "observation-exact"}) {
		t.Fatalf("the shared strategies changed: %v %v", *edgeStrategy, *observationStrategy)
	}
}

// TestFilesAndSitesAreReleasedBeforeTheSeal: once the build is done, the
// inventory's file table and the assets' call-site positions are let go
// of before the seal (which reads neither); the result still counts the
// files.
func TestFilesAndSitesAreReleasedBeforeTheSeal(t *testing.T) {
	ctx := context.Background()
	st, _ := inventoried(t, map[string]string{"a.js": "module.exports = require('./b.js');\n", "b.js": "exports.f = 1;\n", "README.md": "x\n"}, portstest.FakeJS{})
	defer func() { st.g.Close() }()
	if err := st.parse(ctx); err != nil {
		t.Fatal(err)
	}
	sites := 0
	for _, a := range st.assets {
		sites += len(a.sites)
	}
	if sites == 0 {
		t.Fatal("the parse kept no call site to release")
	}
	out, err := st.build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.files != nil || st.order != nil {
		t.Errorf("the state still holds %d files after the result", len(st.files))
	}
	for p, a := range st.assets {
		if a.sites != nil {
			t.Errorf("asset %s still holds %d call sites", p, len(a.sites))
		}
	}
	if n := out.result["statistics"].(map[string]any)["files"]; n != 3 {
		t.Errorf("statistics count %v files, want 3", n)
	}
}

// ipcFileEngine is FakeJS whose facts for ipc.js hold an IPC handler
// registration.
type ipcFileEngine struct{ portstest.FakeJS }

func (e ipcFileEngine) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	f, err := e.FakeJS.Facts(ctx, req)
	if err == nil && filepath.Base(req.Path) == "ipc.js" {
		f.Calls = append(f.Calls, ports.JSCall{Offset: 2, Callee: "ipcMain.handle", Module: "electron", Member: "ipcMain.handle",
			Args: []ports.JSValue{{Kind: ports.JSValString, Value: "ch", Offset: 2}}, InModule: -1, CalleeOffset: -1, Position: -1})
	}
	return f, err
}

// TestFactsGoOnceMappedWithoutIPC: the source map phase lets go of an
// asset's facts once its maps are attached unless they hold IPC calls,
// which the IPC phase reads next; the IPC channel is still found and the
// parsed assets still counted.
func TestFactsGoOnceMappedWithoutIPC(t *testing.T) {
	ctx := context.Background()
	st, _ := inventoried(t, map[string]string{"a.js": "module.exports = require('./ipc.js');\n", "ipc.js": "exports.f = 1;\n"}, ipcFileEngine{})
	defer func() { st.g.Close() }()
	if err := st.parse(ctx); err != nil {
		t.Fatal(err)
	}
	b := newJSAppBuilder(st)
	maps := st.prefetchMaps(ctx)
	b.packagesPhase(ctx)
	b.assetsPhase()
	b.importsPhase()
	b.bundlePhase()
	b.handlerPhase()
	b.calleePhase()
	b.electronPhase()
	st.releaseLinks()
	b.sourceMapPhase(ctx, maps)
	if f := st.assets["a.js"].facts; f != nil {
		t.Errorf("a.js (no IPC call) still holds its facts after the source map phase: %+v", f)
	}
	if st.assets["ipc.js"].facts == nil {
		t.Fatal("ipc.js lost its IPC calls before the IPC phase")
	}
	b.ipcPhase()
	out := b.result()
	if n := out.result["statistics"].(map[string]any)["parsed_assets"]; n != 2 {
		t.Errorf("%v parsed assets, want 2", n)
	}
	if n := out.result["electron"].(map[string]any)["ipc"].(map[string]any)["channels"]; n != 1 {
		t.Errorf("%v IPC channels, want 1", n)
	}
}

// TestMapPrefetchHoldsChannelsOfMapsOnly: the map prefetch makes a channel
// only for the assets that name a source map, and take gives the others
// nil at once; a map taken lets go of its channel.
func TestMapPrefetchHoldsChannelsOfMapsOnly(t *testing.T) {
	inline := "data:application/json;base64,eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbImEudHMiXSwibWFwcGluZ3MiOiJBQUFBIn0="
	mk := func(p string, sm *ports.JSSourceMapRef) *jsAsset {
		return &jsAsset{jsFile: &jsFile{path: p}, facts: &ports.JSFacts{SourceMap: sm}}
	}
	st := &jsappState{files: map[string]*jsFile{}, assets: map[string]*jsAsset{
		"a.js": mk("a.js", nil), "b.js": mk("b.js", &ports.JSSourceMapRef{URL: inline}), "c.js": mk("c.js", nil),
		"d.js": {jsFile: &jsFile{path: "d.js"}}}}
	for p := range st.assets {
		st.assetOrder = append(st.assetOrder, p)
	}
	m := st.prefetchMaps(context.Background())
	defer m.close()
	chans := 0
	for _, c := range m.prepared {
		if c != nil {
			chans++
		}
	}
	if chans != 1 {
		t.Fatalf("%d channels for 1 map among %d assets", chans, len(m.assets))
	}
	for i, a := range m.assets {
		p := m.take(i)
		if (p != nil) != (a.path == "b.js") {
			t.Fatalf("%s: prepared %+v", a.path, p)
		}
		if p != nil && (p.sm == nil || len(p.sm.Sources) != 1) {
			t.Fatalf("b.js: map %+v (%v)", p.sm, p.err)
		}
		p.release()
		if m.prepared[i] != nil {
			t.Fatalf("%s: the channel is held once taken", a.path)
		}
	}
}

// inventoried is a state over a new directory holding files (name to
// text), with engine, inventoried; dir is the directory.
func inventoried(t *testing.T, files map[string]string, engine ports.JavaScriptEngine) (st *jsappState, dir string) {
	t.Helper()
	dir = t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	req := jsappRequest{op: "analyze_javascript_application", path: dir, given: dir, format: "directory", policy: "fail", engine: engine, observe: func(string) {}}
	st = &jsappState{req: req, files: map[string]*jsFile{}, assets: map[string]*jsAsset{}, packages: map[string]*jsPackage{},
		pre: map[string]*prefetched{}, prePkg: map[string]*prefetchedPackage{}, preSrc: map[string]*prefetchedSrcs{}, budget: newByteBudget(jsappParseBudget)}
	if err := st.inventory(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st, dir
}
