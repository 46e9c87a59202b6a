package zip_test

import (
	"bytes"
	"context"
	"io"
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
	opts := &zip.Options{MaxEntries: 200, MaxEntryBytes: maxEntry, MaxTotalBytes: maxTotal, MaxCompressionRatio: 100}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := zip.NewReader(bytes.NewReader(b), int64(len(b)), opts)
		if err != nil {
			if _, ok := err.(*ports.ContainerError); !ok {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		defer r.Close()
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
	})
}
