package native_test

import (
	"context"
	"crypto/sha256"

	"fmt"
	"math"
	"os"
	"runtime"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

const libc = "/lib/x86_64-linux-gnu/libc.so.6"

// codeDigest opens path and hashes every whole-file list discovery
// produces: procedures, ranges, every reference, the discovery counts, and
// (when blocks) each function's instruction count and basic blocks.
func codeDigest(t *testing.T, path string, blocks bool) (string, native.DiscoveryStats) {
	t.Helper()
	ctx := context.Background()
	a, err := native.OpenFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	return analysisDigest(t, a, blocks)
}

// analysisDigest is codeDigest of an open analysis.
func analysisDigest(t *testing.T, a *native.Analysis, blocks bool) (string, native.DiscoveryStats) {
	t.Helper()
	ctx := context.Background()
	h := sha256.New()
	procs, err := a.Procedures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		fmt.Fprintf(h, "p %+v\n", p)
	}
	ranges, err := a.FunctionRanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ranges {
		fmt.Fprintf(h, "r %+v\n", r)
	}
	refs, err := a.ReferencesFrom(ctx, 0, math.MaxUint64)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		fmt.Fprintf(h, "x %+v\n", r)
	}
	st, err := a.Discovery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hashed := st
	hashed.Cached = false // where the lists came from is not part of them
	fmt.Fprintf(h, "s %+v\n", hashed)
	if blocks {
		for _, r := range ranges {
			f, err := a.Function(ctx, ports.FunctionRequest{Address: r.Start, MaxInstructions: 1})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "f %x %d %t %+v\n", r.Start, f.InstructionCount, f.Truncated, f.Blocks)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)), st
}

// TestDeterministicAcrossCores analyses the same files on one core and on
// several and requires identical lists.
func TestDeterministicAcrossCores(t *testing.T) {
	targets := map[string]string{}
	for _, n := range []string{"c-O2", "c-stripped", "go-linux-arm64"} {
		if fixtures[n].slow && testing.Short() {
			continue
		}
		p, err := buildFixture(t.Context(), n)
		if err != nil {
			continue // a missing tool: the other targets still run
		}
		targets[n] = p
	}
	for _, p := range []string{ls, libc} {
		if _, err := os.Stat(p); err == nil {
			targets[p] = p
		}
	}
	if len(targets) == 0 {
		t.Skip("no fixture could be built and neither ls nor libc is present")
	}
	many := max(4, runtime.NumCPU())
	for name, path := range targets {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			blocks := path != libc || !testing.Short()
			prev := runtime.GOMAXPROCS(1)
			one, st := codeDigest(t, path, blocks)
			runtime.GOMAXPROCS(many)
			all, _ := codeDigest(t, path, blocks)
			runtime.GOMAXPROCS(prev)
			is.True(st.Functions > 0) // something was discovered
			is.True(st.Complete)      // no bound was hit
			is.Equal(one, all)        // the same lists on 1 and on several cores
		})
	}
}
