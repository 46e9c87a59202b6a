package jsapp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
