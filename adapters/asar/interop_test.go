package asar_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/asar"
)

// diskFile is one entry of a tree built on disk for @electron/asar to pack.
type diskFile struct {
	path string
	data []byte
	mode os.FileMode // 0 means 0644 for files
	link string      // symlink target as stored on disk
	dir  bool
}

func interopTree() []diskFile {
	return []diskFile{
		{path: "10", dir: true},
		{path: "2", data: []byte("abc")},
		{path: "_under", data: []byte("u")},
		{path: "-dash", data: []byte("d")},
		{path: ".hidden", data: []byte("h")},
		{path: "B", data: []byte("upper")},
		{path: "a", dir: true},
		{path: "a/b", dir: true},
		{path: "a/b/x.txt", data: []byte("hello\n"), mode: 0o755},
		{path: "a/l", link: "b/x.txt"},
		{path: "a/dl", link: "../Z"},
		{path: "a/m.node", data: []byte("native addon")},
		{path: "deep", dir: true},
		{path: "deep/n", dir: true},
		{path: "deep/n/addon.node", data: pattern(5000, 7), mode: 0o755},
		{path: "deep/n/ln", link: "addon.node"},
		{path: "empty", data: nil},
		{path: "emptydir", dir: true},
		{path: "big", dir: true},
		{path: "big/exact4m.bin", data: pattern(4<<20, 2)},
		{path: "big/nine.bin", data: pattern(9<<20+3, 3)},
		{path: "Z", dir: true},
		{path: "Z/z.js", data: []byte("z()\n")},
		{path: "uni", dir: true},
		{path: "uni/héllo wörld.txt", data: []byte("unicode\n")},
		{path: `uni/q"<&>.js`, data: []byte("quote\n")},
	}
}

func buildTree(t *testing.T, dir string, files []diskFile) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		var err error
		switch {
		case f.dir:
			err = os.MkdirAll(p, 0o755)
		case f.link != "":
			err = os.Symlink(f.link, p)
		default:
			mode := f.mode
			if mode == 0 {
				mode = 0o644
			}
			if err = os.WriteFile(p, f.data, mode); err == nil {
				err = os.Chmod(p, mode) // umask
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func isNodeAddon(p string) bool {
	ok, _ := path.Match("*.node", path.Base(p))
	return ok
}

// want is the entry rea should report for a diskFile packed with unpack "*.node".
func (f diskFile) want() asar.Entry {
	e := asar.Entry{Path: f.path}
	switch {
	case f.dir:
		e.Type = asar.TypeDir
	case f.link != "":
		e.Type = asar.TypeLink
		e.Link = path.Join(path.Dir(f.path), f.link)
	default:
		e.Type = asar.TypeFile
		e.Size = int64(len(f.data))
		e.Unpacked = isNodeAddon(f.path)
		e.Executable = f.mode&0o100 != 0 && !e.Unpacked
	}
	return e
}

// TestReadNPMArchive packs a tree with @electron/asar (integrity, unpack
// "*.node") and checks that rea reads back every entry, byte and hash.
func TestReadNPMArchive(t *testing.T) {
	is := is.New(t)
	n := needNode(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	buildTree(t, src, interopTree())
	archive := filepath.Join(dir, "app.asar")
	n.run(t, "pack", src, archive, "*.node")

	r, err := asar.Open(archive)
	is.NoErr(err)
	defer r.Close()

	tree := interopTree()
	slices.SortFunc(tree, func(a, b diskFile) int { return strings.Compare(a.path, b.path) })
	got := r.Entries()
	is.Equal(len(got), len(tree))
	for i, f := range tree {
		g := got[i]
		g.Offset, g.Integrity = 0, nil
		is.Equal(g, f.want())
	}

	fsys := r.FS()
	for _, f := range tree {
		if f.dir || f.link != "" {
			continue
		}
		b, err := fs.ReadFile(fsys, f.path)
		is.NoErr(err)
		is.True(bytes.Equal(b, f.data)) // content of f.path
		rc, err := r.Open(f.path)
		is.NoErr(err)
		b, err = io.ReadAll(rc)
		is.NoErr(err)
		is.NoErr(rc.Close())
		is.True(bytes.Equal(b, f.data))
	}
	b, err := fs.ReadFile(fsys, "a/l") // link to a file
	is.NoErr(err)
	is.Equal(string(b), "hello\n")
	b, err = fs.ReadFile(fsys, "a/dl/z.js") // through a link to a directory
	is.NoErr(err)
	is.Equal(string(b), "z()\n")

	results, err := r.VerifyAll(context.Background(), 0)
	is.NoErr(err)
	files := 0
	for _, res := range results {
		is.Equal(res.Status, asar.StatusVerified) // every file verifies
		is.Equal(len(res.FailedBlocks), 0)
		is.Equal(res.DeclaredSHA256, res.CalculatedSHA256)
		files++
		switch res.Path {
		case "big/exact4m.bin":
			is.Equal(res.CalculatedBlocks, 2) // a full block plus the trailing empty one
		case "big/nine.bin":
			is.Equal(res.CalculatedBlocks, 3)
		case "deep/n/addon.node":
			is.True(res.Unpacked)
		}
	}
	is.Equal(files, 14)
}

// npmOrderEntries turns @electron/asar's crawl order into WriteEntries.
func npmOrderEntries(t *testing.T, n *interop, src string, unpack func(path string, typ asar.Type) bool) []asar.WriteEntry {
	t.Helper()
	var order []struct {
		Path string `json:"path"`
		Type string `json:"type"`
		Mode uint32 `json:"mode"`
	}
	if err := json.Unmarshal(n.run(t, "order", src), &order); err != nil {
		t.Fatal(err)
	}
	var out []asar.WriteEntry
	for _, o := range order {
		disk := filepath.Join(src, filepath.FromSlash(o.Path))
		e := asar.WriteEntry{Path: o.Path}
		switch o.Type {
		case "directory":
			e.Type = asar.TypeDir
			e.Unpacked = unpack(o.Path, e.Type)
		case "link":
			target, err := os.Readlink(disk)
			if err != nil {
				t.Fatal(err)
			}
			e.Type = asar.TypeLink
			e.Link = path.Join(path.Dir(o.Path), filepath.ToSlash(target))
			e.Unpacked = unpack(o.Path, e.Type)
		case "file":
			e.Type = asar.TypeFile
			e.Executable = o.Mode&0o100 != 0
			e.Unpacked = unpack(o.Path, e.Type)
			e.Open = func() (io.ReadCloser, error) { return os.Open(disk) }
		}
		out = append(out, e)
	}
	return out
}

// TestWriteMatchesNPM checks that asar.Write reproduces @electron/asar's bytes
// for the same tree, including integrity, an unpack glob and an unpacked
// directory.
func TestWriteMatchesNPM(t *testing.T) {
	n := needNode(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	buildTree(t, src, interopTree())
	tests := []struct {
		name      string
		unpack    string
		unpackDir string
		// unpacked reports what rea must mark unpacked to match: files
		// matching the glob, or the directory and everything under it.
		unpacked  func(p string, typ asar.Type) bool
		companion []string
	}{
		{"glob", "*.node", "", func(p string, typ asar.Type) bool { return typ != asar.TypeDir && isNodeAddon(p) },
			[]string{"a/m.node", "deep/n/addon.node"}},
		{"dir", "", "deep", func(p string, _ asar.Type) bool { return p == "deep" || strings.HasPrefix(p, "deep/") },
			[]string{"deep/n/addon.node", "deep/n/ln"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			out := filepath.Join(dir, tt.name)
			npmArchive := filepath.Join(out, "npm", "app.asar")
			n.run(t, "pack", src, npmArchive, tt.unpack, tt.unpackDir)

			reaArchive := filepath.Join(out, "rea", "app.asar")
			is.NoErr(os.MkdirAll(filepath.Dir(reaArchive), 0o755))
			is.NoErr(asar.WriteFile(reaArchive, npmOrderEntries(t, n, src, tt.unpacked), nil))

			want, err := os.ReadFile(npmArchive)
			is.NoErr(err)
			got, err := os.ReadFile(reaArchive)
			is.NoErr(err)
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				lo := max(0, i-80)
				t.Fatalf("archives differ at byte %d (rea %d bytes, npm %d bytes)\nrea: %q\nnpm: %q",
					i, len(got), len(want), got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
			}
			// The companion directories hold the same files, links and modes.
			for _, p := range tt.companion {
				w, err := os.Lstat(filepath.Join(npmArchive+".unpacked", p))
				is.NoErr(err)
				g, err := os.Lstat(filepath.Join(reaArchive+".unpacked", p))
				is.NoErr(err)
				is.Equal(g.Mode(), w.Mode())
				if w.Mode()&fs.ModeSymlink != 0 {
					wl, _ := os.Readlink(filepath.Join(npmArchive+".unpacked", p))
					gl, _ := os.Readlink(filepath.Join(reaArchive+".unpacked", p))
					is.Equal(gl, wl)
					continue
				}
				wb, _ := os.ReadFile(filepath.Join(npmArchive+".unpacked", p))
				gb, _ := os.ReadFile(filepath.Join(reaArchive+".unpacked", p))
				is.True(bytes.Equal(gb, wb))
			}
		})
	}
}

// TestNPMReadsRea checks that @electron/asar lists and extracts an archive
// rea wrote.
func TestNPMReadsRea(t *testing.T) {
	is := is.New(t)
	n := needNode(t)
	dir := t.TempDir()
	archive := filepath.Join(dir, "app.asar")
	entries := sampleEntries()
	is.NoErr(asar.WriteFile(archive, entries, nil))

	var listed []string
	is.NoErr(json.Unmarshal(n.run(t, "list", archive), &listed))
	var want []string
	for _, e := range entries {
		want = append(want, "/"+e.Path)
	}
	slices.Sort(listed)
	slices.Sort(want)
	is.Equal(listed, want)

	out := filepath.Join(dir, "out")
	n.run(t, "extract", archive, out)
	for _, e := range entries {
		p := filepath.Join(out, filepath.FromSlash(e.Path))
		st, err := os.Lstat(p)
		is.NoErr(err)
		switch e.Type {
		case asar.TypeDir:
			is.True(st.IsDir())
		case asar.TypeLink:
			is.True(st.Mode()&fs.ModeSymlink != 0)
			target, err := os.Readlink(p)
			is.NoErr(err)
			is.Equal(path.Join(path.Dir(e.Path), filepath.ToSlash(target)), e.Link)
		case asar.TypeFile:
			b, err := os.ReadFile(p)
			is.NoErr(err)
			is.True(bytes.Equal(b, e.Data)) // extracted content
			is.Equal(st.Mode()&0o100 != 0, e.Executable)
		}
	}
}
