package asar_test

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/matryer/is"

	"rea/adapters/asar"
)

func TestFS(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "app.asar")
	// fstest.TestFS reads every file many ways; leave the 9 MiB one out.
	entries := slices.DeleteFunc(sampleEntries(), func(e asar.WriteEntry) bool { return e.Path == "lib/big.bin" })
	if err := asar.WriteFile(archive, entries, nil); err != nil {
		t.Fatal(err)
	}
	r, err := asar.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := []string{"2", "README.md", "bin/tool", "empty", "lib/index.js",
		"lib/main.js", "lib/current", "lib/sub/addon.node", "lib/sub/data.json", "héllo wörld.txt", "10"}
	if err := fstest.TestFS(r.FS(), want...); err != nil {
		t.Fatal(err)
	}
}

func TestFSNPMArchive(t *testing.T) {
	n := needNode(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	small := slices.DeleteFunc(interopTree(), func(f diskFile) bool { return strings.HasPrefix(f.path, "big/") })
	buildTree(t, src, small)
	archive := filepath.Join(dir, "app.asar")
	n.run(t, "pack", src, archive, "*.node")
	r, err := asar.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := fstest.TestFS(r.FS(), "a/b/x.txt", "a/m.node", "deep/n/addon.node", "a/l", "a/dl"); err != nil {
		t.Fatal(err)
	}
}

func TestFSLinks(t *testing.T) {
	r := memReader(t, writeArchive(t, sampleEntries(), nil), nil)
	fsys := r.FS()
	tests := []struct {
		name     string
		readLink string
		stat     fs.FileMode // mode type after following
		lstat    fs.FileMode
	}{
		{"lib/main.js", "index.js", 0, fs.ModeSymlink},
		{"lib/current", "sub", fs.ModeDir, fs.ModeSymlink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			got, err := fs.ReadLink(fsys, tt.name)
			is.NoErr(err)
			is.Equal(got, tt.readLink)
			st, err := fs.Stat(fsys, tt.name)
			is.NoErr(err)
			is.Equal(st.Mode().Type(), tt.stat)
			is.Equal(st.Name(), filepath.Base(tt.name))
			lst, err := fs.Lstat(fsys, tt.name)
			is.NoErr(err)
			is.Equal(lst.Mode().Type(), tt.lstat)
		})
	}
	is := is.New(t)
	b, err := fs.ReadFile(fsys, "lib/current/data.json")
	is.NoErr(err)
	is.Equal(string(b), `{"a":1}`)
	_, err = fs.ReadLink(fsys, "lib/index.js")
	is.True(err != nil) // not a link
}
