package tar_test

import (
	stdtar "archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"

	"rea/adapters/tar"
	"rea/ports"
)

// FuzzOpen opens arbitrary bytes as a tar (plain, gzip or zstd, as the
// bytes say) and reads every file within small limits: no panic, no more
// bytes than the limits allow, every entry listed safe and unique, and every
// failure a *ports.ContainerError.
func FuzzOpen(f *testing.F) {
	pkg := sample(f)
	odd := build(f,
		member{name: "./", typ: stdtar.TypeDir},
		member{name: "../x", data: []byte("x")},
		member{name: "d", data: []byte("1")},
		member{name: "d", data: []byte("2")},
		member{name: "h", typ: stdtar.TypeLink, link: "d"},
		member{name: "c", typ: stdtar.TypeChar},
	)
	for _, b := range [][]byte{pkg, gz(f, pkg), zst(f, pkg), odd, gz(f, odd), zst(f, odd),
		build(f, member{name: "big", data: []byte("tiny"), size: 1 << 40})} {
		f.Add(b)
	}
	const maxEntry, maxTotal = 1 << 16, 1 << 18
	lim := ports.ContainerLimits{MaxEntries: 200, MaxEntryBytes: maxEntry, MaxTotalBytes: maxTotal, MaxCompressionRatio: 100, MaxPathBytes: 1024}
	f.Fuzz(func(t *testing.T, b []byte) {
		tar.Opener{}.Recognize(b[:min(len(b), 4096)], "x.tgz")
		c, err := tar.Opener{}.OpenContainer(context.Background(), ports.ContainerRequest{Name: "x.tgz", ReaderAt: bytes.NewReader(b), Size: int64(len(b)), Limits: lim})
		if err != nil {
			var ce *ports.ContainerError
			if !errors.As(err, &ce) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		defer c.Close()
		seen := map[string]bool{}
		for _, e := range c.Entries() {
			if !fs.ValidPath(e.Path) || e.Path == "." || seen[e.Path] {
				t.Fatalf("entry %q listed: unsafe or repeated", e.Path)
			}
			seen[e.Path] = true
		}
		var total int64
		for _, e := range c.Entries() {
			if e.Kind != ports.EntryFile {
				continue
			}
			rc, err := c.Open(context.Background(), e.Path)
			if err != nil {
				t.Fatalf("open %q: %v", e.Path, err)
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
