package artifact

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// walkTree writes a tree whose names sort differently by path and by
// component ("a-b" < "a/…" as strings, after "a"'s entries in a walk), with
// a link, an executable and an empty directory.
func walkTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{"a/b/c.js", "a/b.js", "a-b/x.js", "a.b", "b/d/e/f.txt", "z.js", "A.js"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "z.js"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a/b.js", filepath.Join(dir, "link.js")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWalkIsWalkDir: the walk's items, in order, with their stat
// fingerprints, are what fs.WalkDir and os.Lstat give.
func TestWalkIsWalkDir(t *testing.T) {
	checkWalk(t, walkTree(t))
}

// The directories are listed ahead on other cores (lookahead): the items,
// and the entry a limit stops at, do not depend on how many there are.
func TestWalkIsWalkDirOnAnyCores(t *testing.T) {
	dir := walkTree(t)
	var stops []string
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		checkWalk(t, dir)
		lim := defaultArtifactLimits
		lim.MaxEntries = 5
		_, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: lim})
		runtime.GOMAXPROCS(old)
		if err == nil {
			t.Fatal("a tree of more than 5 entries passed max_entries 5")
		}
		stops = append(stops, err.Error())
	}
	if stops[0] != stops[1] || stops[0] != stops[2] {
		t.Errorf("max_entries stops differ with the cores: %q", stops)
	}
}

func checkWalk(t *testing.T, dir string) {
	t.Helper()
	b := &graphBuilder{req: Request{Path: dir, Limits: defaultArtifactLimits, Observe: func(string) {}}, byPath: map[string]*Item{}}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.start(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	defer b.close()
	var want []string
	err = fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		want = append(want, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range b.items {
		got = append(got, it.Path)
		if it == b.root {
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, it.Path))
		if err != nil {
			t.Fatal(err)
		}
		if it.stamp != artStamp(fi) {
			t.Errorf("%s: stamp %+v, os.Lstat's %+v", it.Path, it.stamp, artStamp(fi))
		}
		if it.name != filepath.Base(it.Path) || it.fsRel != it.Path {
			t.Errorf("%s: name %q, fsRel %q", it.Path, it.name, it.fsRel)
		}
		if it.Kind == "file" && (*it.declaredSize != fi.Size() || it.exec != (fi.Mode()&0o111 != 0)) {
			t.Errorf("%s: size %d exec %v", it.Path, *it.declaredSize, it.exec)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("walk order\n got %q\nwant %q", got, want)
	}
	if b.byPath["link.js"].link != "a/b.js" {
		t.Errorf("link target %q", b.byPath["link.js"].link)
	}
	for i := 1; i < len(want); i++ {
		if walkOrder(want[i-1], want[i]) >= 0 || walkOrder(want[i], want[i-1]) <= 0 {
			t.Errorf("walkOrder(%q, %q) disagrees with the walk", want[i-1], want[i])
		}
	}
}

// TestRecheckSeesTreeChanges: a file changed, added or removed in a
// subdirectory, or a directory added, after the walk fails the inventory,
// naming the first change in walk order however the listings ran.
func TestRecheckSeesTreeChanges(t *testing.T) {
	old := time.Unix(1000, 0)
	for _, tc := range []struct {
		name   string
		change func(dir string) error
		want   string // in the error; "" when only the count differs
	}{
		{"nothing", func(string) error { return nil }, "-"},
		{"changed", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "b/d/e/f.txt"), []byte("longer"), 0o644)
		}, "b/d/e/f.txt changed"},
		{"added", func(dir string) error { return os.WriteFile(filepath.Join(dir, "a/b/new.js"), nil, 0o644) }, "a/b changed"},
		{"added, directory time kept", func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "a/b/new.js"), nil, 0o644); err != nil {
				return err
			}
			return os.Chtimes(filepath.Join(dir, "a/b"), old, old)
		}, "a/b/new.js changed"},
		{"removed", func(dir string) error { return os.Remove(filepath.Join(dir, "empty")) }, ""},        // the root's entries are one fewer
		{"removed link", func(dir string) error { return os.Remove(filepath.Join(dir, "link.js")) }, ""}, // only the count of entries shows it
		{"new directory", func(dir string) error { return os.MkdirAll(filepath.Join(dir, "b/d/new/deeper"), 0o755) }, "b/d changed"},
		{"two", func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "z.js"), []byte("zz"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "a/b/c.js"), []byte("cc"), 0o644)
		}, "a/b/c.js changed"},
		{"mode", func(dir string) error { return os.Chmod(filepath.Join(dir, "A.js"), 0o600) }, "A.js changed"},
	} {
		for _, keep := range []bool{false, true} { // kept open, the recheck runs beside the seal
			t.Run(fmt.Sprintf("%s/keep=%v", tc.name, keep), func(t *testing.T) {
				dir := walkTree(t)
				// A directory's time moves with an entry added or removed,
				// which its entry in its parent's listing shows; the entries
				// themselves are compared too, for a clock too coarse to move
				// (set back here) or a file system that does not keep it.
				filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
					if err == nil && d.IsDir() && p != dir {
						os.Chtimes(p, old, old)
					}
					return nil
				})
				g, err := buildChanging(t, dir, keep, tc.change)
				switch {
				case tc.want == "-":
					if err != nil {
						t.Fatal(err)
					}
				case err == nil || !strings.Contains(err.Error(), "changed while it was read"):
					t.Fatalf("got %v, want the directory changed", err)
				case tc.want != "" && !strings.Contains(err.Error(), tc.want):
					t.Fatalf("got %v, want %q named", err, tc.want)
				}
				g.Close()
			})
		}
	}
}

// buildChanging inventories dir, with change made to it when the hashing
// starts (after the walk, before the recheck).
func buildChanging(t *testing.T, dir string, keep bool, change func(dir string) error) (*Graph, error) {
	t.Helper()
	return Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: defaultArtifactLimits, KeepOpen: keep,
		Observe: func(s string) {
			if strings.HasPrefix(s, "hashing") {
				if err := change(dir); err != nil {
					t.Error(err)
				}
			}
		}})
}
