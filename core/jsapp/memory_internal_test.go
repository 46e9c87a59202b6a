package jsapp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

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
