package native

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"rea/ports"
)

// countingAccount grants every reservation and counts the bytes held.
type countingAccount struct {
	mu   sync.Mutex
	held map[string]int64
}

func (c *countingAccount) Reserve(what string, n int64) (func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held[what] += n
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.held[what] -= n
		})
	}, nil
}

func (c *countingAccount) bytes(what string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[what]
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Several static targets opened with the same libraries, none of them
// discovered, hold one set of patterns, charged once; discovery of each
// afterwards names what an analysis opened alone names; the last one to
// let go releases the reservation.
func TestLibraryPatternsShared(t *testing.T) {
	prog, libs := libCacheTarget(t)
	// Distinct targets: copies with a byte appended (not read by the
	// program's headers).
	const n = 4
	var progs []string
	for i := range n {
		b := append(mustRead(t, prog), byte(i))
		p := filepath.Join(t.TempDir(), "hello")
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		progs = append(progs, p)
	}
	acct := &countingAccount{held: map[string]int64{}}
	ctx := ports.WithMemory(context.Background(), acct)
	cfg := &SignatureLibraries{Paths: libs}
	const what = "the signature library patterns"
	if heldPatterns() != 0 {
		t.Fatalf("%d pattern sets held before any open", heldPatterns())
	}
	base := heapInUse()
	var as []*Analysis
	first := int64(0)
	for _, p := range progs {
		an, err := New(&Options{SignatureLibraries: cfg}).Open(ctx, targetOf(p))
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, an.(*Analysis))
		if first == 0 {
			first = acct.bytes(what)
		}
	}
	defer func() {
		for _, a := range as {
			a.Close(context.Background())
		}
	}()
	heap := heapInUse()
	one := acct.bytes(what)
	t.Logf("%d static targets open, not discovered: %d pattern sets held, %d bytes reserved for patterns, heap %d KB over the start", n, heldPatterns(), one, (int64(heap)-int64(base))/1024)
	if heldPatterns() != 1 {
		t.Errorf("%d pattern sets held, want 1", heldPatterns())
	}
	for _, a := range as[1:] {
		if a.lib.ix == nil || a.lib.ix != as[0].lib.ix {
			t.Fatalf("the analyses hold different pattern sets")
		}
	}
	if first <= 0 || one != first {
		t.Errorf("%d bytes reserved for the patterns of %d targets, %d for one", one, n, first)
	}
	var views []libView
	for _, a := range as {
		views = append(views, viewLibs(t, a)) // discovery, which lets its reference go
	}
	if heldPatterns() != 0 || acct.bytes(what) != 0 {
		t.Errorf("after discovery of every target: %d pattern sets held, %d bytes reserved", heldPatterns(), acct.bytes(what))
	}
	// The same target opened alone, nothing shared.
	an, err := New(&Options{SignatureLibraries: cfg}).Open(ctx, targetOf(progs[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer an.Close(context.Background())
	alone := viewLibs(t, an.(*Analysis))
	if !slices.ContainsFunc(alone.procs, func(s string) bool { return strings.Contains(s, " library ") }) {
		t.Fatal("no procedure named from the libraries")
	}
	for i, v := range views {
		if !slices.Equal(v.procs, alone.procs) || !slices.Equal(v.names, alone.names) || v.profile != alone.profile || !slices.Equal(v.notes, alone.notes) {
			t.Errorf("target %d: what the shared patterns named differs from an open alone", i)
		}
	}
}
