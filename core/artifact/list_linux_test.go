//go:build linux && (amd64 || arm64 || riscv64)

package artifact

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWalkWithoutOpenat2: where openat2 is refused, each directory is
// opened through os.Root and listed the same way.
func TestWalkWithoutOpenat2(t *testing.T) {
	was := noOpenat2.Swap(true)
	defer noOpenat2.Store(was)
	checkWalk(t, walkTree(t))
}

// settledTree is walkTree, with a link a/b/l, with every directory settled for the recheck
// (recheckSettled): the window is zero for the test, and the kernel's
// clock has moved past every change time in the tree, so that a change
// made during the test gets a later one whatever the clock's step. It
// skips where the temporary directory's file system is not one of
// ctimeFS.
func settledTree(t *testing.T) string {
	t.Helper()
	dir := walkTree(t)
	// An entry of a subdirectory's that nothing reads: the read of one
	// removed would fail first.
	if err := os.Symlink("c.js", filepath.Join(dir, "a/b/l")); err != nil {
		t.Fatal(err)
	}
	var sfs syscall.Statfs_t
	if err := syscall.Statfs(dir, &sfs); err != nil || !slices.Contains(ctimeFS[:], int64(sfs.Type)) {
		t.Skipf("the temporary directory's file system (%#x) keeps no change times the recheck trusts", sfs.Type)
	}
	was := settleWindow
	settleWindow = 0
	t.Cleanup(func() { settleWindow = was })
	var last int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		var st syscall.Stat_t
		if err == nil && syscall.Lstat(p, &st) == nil {
			last = max(last, st.Ctim.Nano())
		}
		return nil
	})
	probe := filepath.Join(t.TempDir(), "probe")
	for {
		var st syscall.Stat_t
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Stat(probe, &st); err != nil {
			t.Fatal(err)
		}
		if st.Ctim.Nano() > last {
			return dir
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRecheckSettled: a settled directory's names are not listed again,
// and a change anywhere is still caught: its change time moves with an
// entry added, removed or renamed in it, even when its modification time
// is put back, and a file's with its content, even when its size and
// modification time are put back.
func TestRecheckSettled(t *testing.T) {
	old := time.Unix(1000, 0)
	for _, tc := range []struct {
		name   string
		change func(dir string) error
		want   string // in the error; "-": no error
	}{
		{"nothing", func(string) error { return nil }, "-"},
		{"changed", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "b/d/e/f.txt"), []byte("longer"), 0o644)
		}, "b/d/e/f.txt changed"},
		{"changed, size and time put back", func(dir string) error {
			p := filepath.Join(dir, "b/d/e/f.txt")
			st, err := os.Stat(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("b/d/e/F.txt"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, st.ModTime(), st.ModTime())
		}, "b/d/e/f.txt changed"},
		{"added", func(dir string) error { return os.WriteFile(filepath.Join(dir, "a/b/new.js"), nil, 0o644) }, "a/b changed"},
		{"added, directory time kept", func(dir string) error {
			st, err := os.Stat(filepath.Join(dir, "a/b"))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "a/b/new.js"), nil, 0o644); err != nil {
				return err
			}
			return os.Chtimes(filepath.Join(dir, "a/b"), old, st.ModTime())
		}, "a/b changed"},
		{"added to the root", func(dir string) error { return os.WriteFile(filepath.Join(dir, "new.js"), nil, 0o644) }, "the root directory changed"},
		{"removed", func(dir string) error { return os.Remove(filepath.Join(dir, "a/b/l")) }, "a/b changed"},
		{"removed from the root", func(dir string) error { return os.Remove(filepath.Join(dir, "empty")) }, "the root directory changed"},
		{"renamed", func(dir string) error {
			return os.Rename(filepath.Join(dir, "a/b/l"), filepath.Join(dir, "a/b/m"))
		}, "a/b changed"},
		{"renamed, directory time kept", func(dir string) error {
			d := filepath.Join(dir, "a/b")
			st, err := os.Stat(d)
			if err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(d, "l"), filepath.Join(d, "m")); err != nil {
				return err
			}
			return os.Chtimes(d, old, st.ModTime())
		}, "a/b changed"},
		{"directory renamed", func(dir string) error {
			return os.Rename(filepath.Join(dir, "b/d"), filepath.Join(dir, "b/D"))
		}, "b changed"},
		{"new directory", func(dir string) error { return os.MkdirAll(filepath.Join(dir, "b/d/new/deeper"), 0o755) }, "b/d changed"},
		{"mode", func(dir string) error { return os.Chmod(filepath.Join(dir, "A.js"), 0o600) }, "A.js changed"},
	} {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keep=%v", tc.name, keep), func(t *testing.T) {
				dir := settledTree(t)
				g, err := buildChanging(t, dir, keep, tc.change)
				switch {
				case tc.want == "-":
					if err != nil {
						t.Fatal(err)
					}
					if n := g.b.relisted.Load(); n != 0 {
						t.Errorf("%d settled directories listed again", n)
					}
				case err == nil || !strings.Contains(err.Error(), "changed while it was read"):
					t.Fatalf("got %v, want the directory changed", err)
				case !strings.Contains(err.Error(), tc.want):
					t.Fatalf("got %v, want %q named", err, tc.want)
				}
				g.Close()
			})
		}
	}
}

// TestRecheckListsUnsettled: a directory that changed within the window
// before the walk is listed again, as every directory is when none is
// held.
func TestRecheckListsUnsettled(t *testing.T) {
	dir := settledTree(t)
	settleWindow = time.Hour
	build := func() *Graph {
		t.Helper()
		g, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: defaultArtifactLimits, KeepOpen: true})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := build()
	dirs := 0
	for _, it := range g.Items {
		if it.Kind == "directory" {
			dirs++
		}
	}
	if n := g.b.relisted.Load(); n != int64(dirs) {
		t.Errorf("%d of %d directories listed again", n, dirs)
	}
	g.Close()
	settleWindow = 0
	// Nothing held: no descriptor left to the process, or every directory
	// opened through os.Root.
	heldBudget()
	left := heldLeft.Swap(0)
	g = build()
	heldLeft.Store(left)
	if n := g.b.relisted.Load(); n != int64(dirs) {
		t.Errorf("no descriptor left: %d of %d directories listed again", n, dirs)
	}
	g.Close()
	was := noOpenat2.Swap(true)
	defer noOpenat2.Store(was)
	g = build()
	if n := g.b.relisted.Load(); n != int64(dirs) {
		t.Errorf("without openat2: %d of %d directories listed again", n, dirs)
	}
	g.Close()
}

// TestHeldGivenBack: the descriptors a walk held are closed and given
// back to the process's budget when the inventory ends, built or failed.
func TestHeldGivenBack(t *testing.T) {
	dir := walkTree(t)
	heldBudget()
	left := heldLeft.Load()
	for _, lim := range []int{defaultArtifactLimits.MaxEntries, 5} {
		l := defaultArtifactLimits
		l.MaxEntries = lim
		g, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: l, KeepOpen: true})
		if (err != nil) != (lim == 5) {
			t.Fatalf("max_entries %d: %v", lim, err)
		}
		if n := heldLeft.Load(); n != left {
			t.Errorf("max_entries %d: %d descriptors left after, %d before", lim, n, left)
		}
		if g != nil {
			if len(g.b.heldDirs) != 0 {
				t.Errorf("%d directories still held", len(g.b.heldDirs))
			}
			g.Close()
		}
	}
}

// TestReadBeneathHeldDirectory: a file is read beneath the descriptor its
// directory was listed with, so a directory renamed after the walk is read
// where it went, and the recheck (not the read) reports the change.
func TestReadBeneathHeldDirectory(t *testing.T) {
	dir := walkTree(t)
	_, err := buildChanging(t, dir, false, func(dir string) error { return os.Rename(filepath.Join(dir, "b/d"), filepath.Join(dir, "b/D")) })
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("got %v, want the directory changed", err)
	}
}
