package zip_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"rea/adapters/zip"
	"rea/ports"
)

// FuzzZipWalk opens arbitrary bytes as a ZIP and reads every file within
// small limits: no panic, no more bytes than the limits allow, and every
// failure a *ports.ContainerError or a context error.
func FuzzZipWalk(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.zip"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(build(f, member{name: "a/b.txt", data: []byte("hello")}, member{name: "l", data: []byte("a"), mode: 0o120777}))
	const maxEntry, maxTotal = 1 << 16, 1 << 18
	strict := &zip.Options{MaxEntries: 200, MaxEntryBytes: maxEntry, MaxTotalBytes: maxTotal, MaxCompressionRatio: 100}
	skipping := *strict
	skipping.SkipUnsafeNames = true
	f.Fuzz(func(t *testing.T, b []byte) {
		walk(t, b, strict, maxEntry, maxTotal)
		walk(t, b, &skipping, maxEntry, maxTotal)
	})
}

// walk opens b with opts and reads every file, checking FuzzZipWalk's
// properties; with SkipUnsafeNames, also that every entry listed has a
// safe, unique path.
func walk(t *testing.T, b []byte, opts *zip.Options, maxEntry, maxTotal int64) {
	r, err := zip.NewReader(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		if _, ok := err.(*ports.ContainerError); !ok {
			t.Fatalf("untyped error %T: %v", err, err)
		}
		return
	}
	defer r.Close()
	seen := map[string]bool{}
	for _, e := range r.Entries() {
		if !fs.ValidPath(e.Path) || e.Path == "." || seen[e.Path] && e.Kind != ports.EntryDirectory {
			t.Fatalf("entry %q listed: unsafe or repeated", e.Path)
		}
		seen[e.Path] = true
	}
	var total int64
	for _, e := range r.Entries() {
		if e.Kind != ports.EntryFile || e.Encrypted {
			continue
		}
		rc, err := r.Open(context.Background(), e.Path)
		if err != nil {
			continue
		}
		n, _ := io.Copy(io.Discard, rc)
		rc.Close()
		if n > maxEntry {
			t.Fatalf("%s yielded %d bytes, over the entry limit", e.Path, n)
		}
		total += n
	}
	if total > maxTotal {
		t.Fatalf("yielded %d bytes in total, over the limit", total)
	}
}
