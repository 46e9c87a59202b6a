package artifact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestNoTextGivesTheSealedManifest: a graph built without its inventory
// text carries the same graph digest and manifest ID as one whose text was
// written, and holds no text.
func TestNoTextGivesTheSealedManifest(t *testing.T) {
	dir := t.TempDir()
	for p, data := range map[string]string{
		"package.json": `{"main":"lib/main.js"}`, "lib/main.js": "require('./a')\n", "lib/main.js.map": `{"version":3,"mappings":""}`,
		"lib/a.js": "module.exports = 1\n", "lib/deep/b.js": "export const b = 2\n", "README": "same\n", "lib/deep/README": "same\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("lib/a.js", filepath.Join(dir, "link.js")); err != nil {
		t.Fatal(err)
	}
	build := func(noText bool) *Graph {
		g, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: defaultArtifactLimits, KeepOpen: true, NoText: noText})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		return g
	}
	sealed, bare := build(false), build(true)
	if sealed.text == nil || bare.text != nil {
		t.Fatalf("text held: sealed %v, without text %v", sealed.text != nil, bare.text != nil)
	}
	if len(sealed.Edges) < 2 || sealed.Manifest.GraphSHA256 == "" {
		t.Fatalf("graph too small to tell: %d edges", len(sealed.Edges))
	}
	if sealed.Manifest != bare.Manifest {
		t.Fatalf("manifest without text %+v, sealed %+v", bare.Manifest, sealed.Manifest)
	}
}

// TestContentIsTheWholeFile: the bytes handed to Content are the file's
// whole bytes, read into a buffer sized from the file system: for an empty
// file, one below, at and above the read chunk, and a file that grew or
// shrank after the walk saw its size (the build then fails: the recheck
// sees the change).
func TestContentIsTheWholeFile(t *testing.T) {
	dir := t.TempDir()
	want := map[string][]byte{}
	for name, n := range map[string]int{"empty.js": 0, "small.js": 10, "chunk.js": 1 << 20, "big.js": 5<<19 + 7, "grows.js": 100, "shrinks.js": 3 << 20} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + (i*7+n)%26)
		}
		want[name] = b
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want["grows.js"] = append(want["grows.js"], make([]byte, 3<<20)...)
	want["shrinks.js"] = want["shrinks.js"][:5]
	var mu sync.Mutex
	got := map[string][]byte{}
	_, err := Build(context.Background(), Request{Op: "inventory_artifact", Path: dir, Policy: IntegrityFail, Limits: defaultArtifactLimits, KeepOpen: true, NoText: true,
		Wants: func(string, int64) bool { return true },
		Content: func(p, sha string, data []byte) {
			if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != sha {
				t.Errorf("%s: content does not match its digest", p)
			}
			mu.Lock()
			got[p] = slices.Clone(data)
			mu.Unlock()
		},
		Observe: func(s string) {
			if strings.HasPrefix(s, "hashing") {
				for _, name := range []string{"grows.js", "shrinks.js"} {
					if err := os.WriteFile(filepath.Join(dir, name), want[name], 0o644); err != nil {
						t.Error(err)
					}
				}
			}
		}})
	if err == nil || !strings.Contains(err.Error(), "changed") { // the recheck sees the two changed files
		t.Fatalf("got %v, want the directory changed", err)
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s: got %d bytes, want %d", name, len(got[name]), len(b))
		}
	}
}

// TestStampSeesSizeTimeAndMode: the stat fingerprint the recheck compares
// changes with the size, the modification time and the mode alone.
func TestStampSeesSizeTimeAndMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.js")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	stamp := func() fileStamp {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return artStamp(fi)
	}
	before := stamp()
	if stamp() != before {
		t.Fatal("the same file gave two stamps")
	}
	if err := os.WriteFile(p, []byte("yy"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, time.Unix(0, 0), time.Unix(1000, 5)); err != nil {
		t.Fatal(err)
	}
	sized := stamp()
	if sized == before {
		t.Fatal("a new size kept the stamp")
	}
	if err := os.Chtimes(p, time.Unix(0, 0), time.Unix(1000, 6)); err != nil {
		t.Fatal(err)
	}
	timed := stamp()
	if timed == sized {
		t.Fatal("a new modification time kept the stamp")
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if stamp() == timed {
		t.Fatal("a new mode kept the stamp")
	}
}
