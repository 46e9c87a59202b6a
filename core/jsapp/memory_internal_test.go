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

// graphAccount is a bounded memory account that records what it charged.
type graphAccount struct {
	mu        sync.Mutex
	max, used int64
	charged   map[string]int64
}

func (a *graphAccount) Reserve(what string, n int64) (func(), error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used+n > a.max {
		return nil, &ports.LimitError{What: what, Limit: "TEST_MEMORY", Max: a.max, InUse: a.used, Requested: n}
	}
	a.used += n
	if a.charged == nil {
		a.charged = map[string]int64{}
	}
	a.charged[what] += n
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			a.used -= n
			a.mu.Unlock()
		})
	}, nil
}

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
	big := &graphAccount{max: 1 << 30}
	if _, err := analyzeJSApp(ports.WithMemory(context.Background(), big), req); err != nil {
		t.Fatal(err)
	}
	if big.charged["the application graph"] < 200*jsappMinAssetBytes*jsappGraphMemoryFactor {
		t.Fatalf("the graph was charged %d bytes", big.charged["the application graph"])
	}
	if big.used != 0 {
		t.Fatalf("%d bytes still held after the analysis returned", big.used)
	}
	small := &graphAccount{max: 64 << 10}
	_, err := analyzeJSApp(ports.WithMemory(context.Background(), small), req)
	var e *core.Error
	if !errors.As(core.AsError("analyze_javascript_application", err), &e) || e.Code != core.CodeResourceConstraint {
		t.Fatalf("a small account: %v", err)
	}
	if small.charged["the application graph"] != 0 || small.used != 0 {
		t.Fatalf("refused, yet charged %v, holding %d", small.charged, small.used)
	}
}
