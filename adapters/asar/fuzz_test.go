package asar_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"rea/adapters/asar"
)

func FuzzNewReader(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "bad", "*.asar"))
	good, _ := filepath.Glob(filepath.Join("testdata", "*.asar"))
	for _, p := range append(seeds, good...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	small := sampleEntries()
	for i := range small {
		if small[i].Path == "lib/big.bin" {
			small[i].Data = pattern(100, 1)
		}
	}
	f.Add(writeArchive(f, small, nil))
	f.Add(rawArchive(`{"files":{"a":{"files":{"b":{"link":"c"}}},"c":{"link":"a/b"}}}`, ""))

	f.Add(rawArchive(`{"files":{"..":{"files":{"x":{"size":0,"offset":"0"}}},"d":{"size":0,"offset":"0"},"d":{"files":{}},"l":{"link":"../x"},"m":{"link":".."}}}`, ""))
	f.Fuzz(func(t *testing.T, b []byte) {
		walkArchive(t, b, &asar.Options{MaxEntries: 10_000})
		walkArchive(t, b, &asar.Options{MaxEntries: 10_000, SkipUnsafeNames: true})
	})
}

// walkArchive opens b with opts and reads, verifies and walks everything
// it lists; with SkipUnsafeNames, every listed path must also be safe and
// no rejected entry listed.
func walkArchive(t *testing.T, b []byte, opts *asar.Options) {
	ctx := context.Background()
	r, err := asar.NewReader(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		return
	}
	defer r.Close()
	if opts.SkipUnsafeNames {
		for _, e := range r.Entries() {
			if !fs.ValidPath(e.Path) || e.Path == "." {
				t.Fatalf("entry %q listed with an unsafe path", e.Path)
			}
		}
	}
	for _, e := range r.Entries() {
		if e.Type != asar.TypeFile {
			continue
		}
		rc, err := r.Open(e.Path)
		if err != nil {
			continue
		}
		n, err := io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil || n != e.Size {
			t.Fatalf("%s: read %d of %d bytes: %v", e.Path, n, e.Size, err)
		}
		if _, err := r.Verify(ctx, e.Path); err != nil {
			t.Fatalf("verify %s: %v", e.Path, err)
		}
	}
	if _, err := r.VerifyAll(ctx, 2); err != nil {
		t.Fatal(err)
	}
	fsys := r.FS()
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if _, err := fs.Stat(fsys, p); err != nil && d.Type()&fs.ModeSymlink == 0 {
			t.Fatalf("stat %s: %v", p, err)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			_, _ = fs.ReadLink(fsys, p)
			_, _ = fs.ReadFile(fsys, p)
			return nil
		}
		if !d.IsDir() {
			_, _ = fs.ReadFile(fsys, p)
		}
		return nil
	})
}
