package native_test

import (
	"context"
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
