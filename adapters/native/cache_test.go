package native_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
	"rea/snapshot"
)

// cacheTargets are files to analyse through the warm cache: a C fixture
// and ls, when they can be had.
func cacheTargets(t *testing.T) []string {
	var out []string
	if p, err := buildFixture(t.Context(), "c-stripped"); err == nil {
		out = append(out, p)
	}
	if _, err := os.Stat(ls); err == nil {
		out = append(out, ls)
	}
	if len(out) == 0 {
		t.Skip("neither the C fixture (gcc) nor ls is available")
	}
	return out
}

// openCached opens path through a provider whose warm cache is at dir.
func openCached(t *testing.T, dir, path string) *native.Analysis {
	t.Helper()
	a, err := native.New(&native.Options{CacheDir: dir}).Open(t.Context(), ports.Target{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a.(*native.Analysis)
}

// The second open of the same bytes reads discovery from the cache and
// lists exactly what a cold open lists; a corrupt entry is ignored and
// replaced.
func TestWarmCache(t *testing.T) {
	for _, path := range cacheTargets(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			want, _ := codeDigest(t, path, true) // no cache
			cold, st := analysisDigest(t, openCached(t, dir, path), true)
			is.Equal(cold, want)
			is.True(!st.Cached) // the first open computes
			warm, st := analysisDigest(t, openCached(t, dir, path), true)
			is.Equal(warm, want)
			is.True(st.Cached) // the second open reads the cache

			u, err := snapshot.Store{Root: dir}.Usage()
			is.NoErr(err)
			is.Equal(u.Partitions, 1)
			// Corrupt every entry: the next open computes again, the same.
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					b[len(b)/2] ^= 0xff
					os.WriteFile(p, b[:len(b)-len(b)/3], 0o600)
				}
				return nil
			})
			again, st := analysisDigest(t, openCached(t, dir, path), true)
			is.Equal(again, want)
			is.True(!st.Cached) // the corrupt entry was not used
			_, st = analysisDigest(t, openCached(t, dir, path), false)
			is.True(st.Cached) // and was replaced
		})
	}
}

// Two processes sharing a cache root at once both answer, identically, and
// leave one valid entry.
func TestWarmCacheTwoProcesses(t *testing.T) {
	if dir := os.Getenv("REA_NATIVE_CACHE_HELPER"); dir != "" {
		d, _ := analysisDigest(t, openCached(t, dir, os.Getenv("REA_NATIVE_CACHE_TARGET")), false)
		os.Stdout.WriteString("digest " + d + "\n")
		return
	}
	is := is.New(t)
	path := cacheTargets(t)[0]
	dir := t.TempDir()
	want, _ := codeDigest(t, path, false)
	outs := make([]string, 4)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestWarmCacheTwoProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), "REA_NATIVE_CACHE_HELPER="+dir, "REA_NATIVE_CACHE_TARGET="+path)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("process %d: %v\n%s", i, err, out)
			}
			outs[i] = string(out)
		})
	}
	wg.Wait()
	for _, out := range outs {
		is.True(strings.Contains(out, "digest "+want+"\n")) // every process lists what a cold open lists
	}
	u, err := snapshot.Store{Root: dir}.Usage()
	is.NoErr(err)
	is.Equal(u.Partitions, 1)
	_, st := analysisDigest(t, openCached(t, dir, path), false)
	is.True(st.Cached) // the entry they left is valid
}

// TestWarmCacheParts: a warm open lists the same procedures and parts of
// procedures (gcc's f.cold) as a fresh analysis, and answers the same for
// a parent and its parts: its blocks and value flow (which take the parts
// in, and end at calls of procedures that do not return), the part's
// references, and no function at a part's start. The parts fixture
// (testdata/parts.c), stripped too, and linked statically (glibc's own
// .cold parts, most of which were judged not to return as procedures of
// their own before discovery made them parts). TestWarmCache's digest
// does not look at parts or value flow.
func TestWarmCacheParts(t *testing.T) {
	exe, stripped := partsFixture(t, "gcc", "strip", "gcc binutils")
	static := filepath.Join(t.TempDir(), "parts-static")
	paths := []string{exe, stripped}
	if b, err := exec.Command("gcc", "-O2", "-static", "-o", static, filepath.Join("testdata", "parts.c")).CombinedOutput(); err == nil {
		paths = append(paths, static)
	} else {
		t.Logf("no static build (libc.a missing?): %v\n%s", err, b)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a, err := native.OpenFile(t.Context(), path) // no cache
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close(context.Background()) })
			want := partsDump(t, a)
			if !strings.Contains(want, "\npart ") {
				t.Fatalf("%s has no parts:\n%s", path, want)
			}
			dir := t.TempDir()
			for _, open := range []string{"cold", "warm"} {
				c := openCached(t, dir, path)
				got := partsDump(t, c)
				st, err := c.Discovery(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if st.Cached != (open == "warm") {
					t.Fatalf("%s open: cached %v", open, st.Cached)
				}
				if got != want {
					g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
					for i := range min(len(g), len(w)) {
						if g[i] != w[i] {
							t.Fatalf("%s open differs from a fresh analysis at line %d:\n got %.400s\nwant %.400s", open, i, g[i], w[i])
						}
					}
					t.Fatalf("%s open: %d lines, a fresh analysis %d", open, len(g), len(w))
				}
			}
		})
	}
}

// partsDump lists a's procedures and parts, and for each part its
// parent's function and value flow, its references, and what Function
// says at its start.
func partsDump(t *testing.T, a *native.Analysis) string {
	t.Helper()
	ctx := t.Context()
	var b strings.Builder
	procs, err := a.Procedures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		fmt.Fprintf(&b, "proc %+v\n", p)
	}
	parts, err := a.ProcedureParts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range parts {
		fmt.Fprintf(&b, "part %+v\n", pt)
		f, err := a.Function(ctx, ports.FunctionRequest{Address: pt.Procedure})
		fmt.Fprintf(&b, "parent %#x %v %d %+v\n", pt.Procedure, err, f.InstructionCount, f.Blocks)
		vf, err := a.ValueFlow(ctx, ports.FunctionRequest{Address: pt.Procedure})
		fmt.Fprintf(&b, "flow %#x %v %d %+v %+v\n", pt.Procedure, err, len(vf.Operations), vf.Parameters, vf.DefUses)
		refs, err := a.ReferencesFrom(ctx, pt.Start, pt.End)
		fmt.Fprintf(&b, "refs %#x %v %+v\n", pt.Start, err, refs)
		_, err = a.Function(ctx, ports.FunctionRequest{Address: pt.Start})
		fmt.Fprintf(&b, "at part %#x: not found %v\n", pt.Start, errors.Is(err, ports.ErrNotFound))
	}
	return b.String()
}
