package jsapp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// mapEngine is the fake engine with a sourceMappingURL of name.map on
// every file.
type mapEngine struct{ portstest.FakeJS }

func (e mapEngine) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	f, err := e.FakeJS.Facts(ctx, req)
	if err == nil {
		f.SourceMap = &ports.JSSourceMapRef{URL: filepath.Base(req.Path) + ".map", Offset: 0}
	}
	return f, err
}

// countingMemory counts the source maps' reservations held, and cancels
// the call at the cancelAt-th.
type countingMemory struct {
	mu         sync.Mutex
	held, made int
	cancelAt   int
	cancel     func()
}

func (m *countingMemory) Reserve(what string, n int64) (func(), error) {
	if !strings.HasPrefix(what, "source map ") {
		return func() {}, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.made++
	if m.made == m.cancelAt {
		m.cancel()
	}
	m.held++
	once := sync.Once{}
	return func() {
		once.Do(func() {
			m.mu.Lock()
			m.held--
			m.mu.Unlock()
		})
	}, nil
}

func (m *countingMemory) heldNow() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.held
}

func mapApp(t *testing.T, n int) string {
	dir := t.TempDir()
	for i := range n {
		name := fmt.Sprintf("m%03d.js", i)
		os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("x('%d')\n", i)), 0o644)
		sm := fmt.Sprintf(`{"version":3,"sources":["src/m%03d.ts"],"sourcesContent":["let x = %d"],"mappings":"AAAA"}`, i, i)
		os.WriteFile(filepath.Join(dir, name+".map"), []byte(sm), 0o644)
	}
	return dir
}

// Source maps are prepared ahead of the phase that attaches them: a call
// cancelled while they are gives back every map's memory reservation, and
// a whole call attaches every map, in the same graph on one core as on
// several.
func TestMapPrefetchReleasesAndKeepsOrder(t *testing.T) {
	dir := mapApp(t, 120)
	req := jsappRequest{op: "analyze_javascript_application", path: dir, given: dir, format: "directory", policy: "fail", engine: mapEngine{}, observe: func(string) {}}
	for _, at := range []int{1, 5, 40, 119} {
		ctx, cancel := context.WithCancel(context.Background())
		mem := &countingMemory{cancelAt: at, cancel: cancel}
		_, err := analyzeJSApp(ports.WithMemory(ctx, mem), req)
		cancel()
		if err == nil {
			t.Errorf("cancelled at reservation %d: no error", at)
		}
		deadline := time.Now().Add(10 * time.Second)
		for mem.heldNow() > 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if h := mem.heldNow(); h != 0 {
			t.Errorf("cancelled at reservation %d: %d source map reservations never given back", at, h)
		}
	}
	sealed := func(procs int) []byte {
		defer setProcs(procs)()
		mem := &countingMemory{cancel: func() {}}
		out, err := analyzeJSApp(ports.WithMemory(context.Background(), mem), req)
		if err != nil {
			t.Fatal(err)
		}
		if mem.made != 120 || mem.heldNow() != 0 {
			t.Fatalf("%d maps reserved, %d held after the call; want 120, 0", mem.made, mem.heldNow())
		}
		b, err := core.CanonicalJSON(out.result)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, many := sealed(1), sealed(4)
	if string(one) != string(many) {
		t.Fatal("the result on 4 cores differs from the result on 1")
	}
	if n := strings.Count(string(one), "src/m"); n < 120 {
		t.Fatalf("%d source modules named, want 120", n)
	}
}

// setProcs sets GOMAXPROCS and returns what puts it back.
func setProcs(n int) func() {
	prev := runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(prev) }
}
