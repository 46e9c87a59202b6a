package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// writeAppTar stores the files of dir in a new tar under prefix (npm pack's
// "package/"), gzip-compressed when compress is set, and returns the
// SHA-256 of every file by its path in the archive.
func writeAppTar(t *testing.T, archive, dir, prefix string, compress bool) map[string]string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	sums := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		name := prefix + filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			return tw.WriteHeader(&tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: 0o755})
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		sums[name] = hex.EncodeToString(sum[:])
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(b))}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if compress {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		data = z.Bytes()
	}
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return sums
}

// rea inventory lists and hashes every file of an npm-style .tgz (and of the
// same files as a plain .tar) through the wired tar opener, and refuses a
// gzip bomb with a limit error.
func TestCLIInventoryTarball(t *testing.T) {
	tmp := t.TempDir()
	for _, tt := range []struct {
		name, format string
		compress     bool
	}{{"npmapp-1.0.0.tgz", "tar.gz", true}, {"npmapp.tar", "tar", false}} {
		t.Run(tt.format, func(t *testing.T) {
			is := is.New(t)
			archive := filepath.Join(tmp, tt.name)
			sums := writeAppTar(t, archive, "testdata/jsapp/npmapp", "package/", tt.compress)
			out, errOut, code := runCLI(t, "--format", "json", "inventory", archive)
			is.Equal(errOut, "")
			is.Equal(code, 0)
			ev, err := core.ParseEvidence([]byte(out))
			is.NoErr(err)
			inv := decodeInventory(t, ev)
			is.Equal(inv.Manifest.RootFormat, tt.format)
			files := 0
			for _, o := range inv.Occurrences {
				if o.EntryKind == "file" && o.LogicalPath != "." {
					files++
				}
			}
			is.Equal(files, len(sums)) // every file, none more
			for p, want := range sums {
				_, _, _, sha, ok := inv.occ(p)
				is.True(ok) // listed
				is.Equal(sha, want)
			}
			dirs := 0
			for _, o := range inv.Occurrences {
				if o.EntryKind == "directory" && (o.LogicalPath == "package" || o.LogicalPath == "package/src") {
					dirs++
				}
			}
			is.Equal(dirs, 2) // the directories the archive declares
		})
	}

	t.Run("left out", func(t *testing.T) {
		is := is.New(t)
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, h := range []*tar.Header{{Name: "ok.js", Typeflag: tar.TypeReg, Size: 2, Mode: 0o644}, {Name: "../evil.sh", Typeflag: tar.TypeReg, Mode: 0o755},
			{Name: "dev/tty", Typeflag: tar.TypeChar, Mode: 0o600}, {Name: "ghost", Typeflag: tar.TypeLink, Linkname: "missing"}} {
			is.NoErr(tw.WriteHeader(h))
			tw.Write([]byte("1;")[:h.Size])
		}
		is.NoErr(tw.Close())
		odd := filepath.Join(tmp, "odd.tar")
		is.NoErr(os.WriteFile(odd, buf.Bytes(), 0o644))
		out, errOut, code := runCLI(t, "--format", "json", "inventory", odd)
		is.Equal(errOut, "")
		is.Equal(code, 0)
		for _, want := range []string{"its name climbs out of the archive", "it is a device, FIFO or other special file", "it is a hard link whose target is not a file listed before it"} {
			if !strings.Contains(out, want) {
				t.Errorf("inventory does not say %q", want)
			}
		}
	})

	t.Run("bomb", func(t *testing.T) {
		is := is.New(t)
		bombDir := filepath.Join(tmp, "bomb")
		is.NoErr(os.MkdirAll(bombDir, 0o755))
		is.NoErr(os.WriteFile(filepath.Join(bombDir, "zeros.bin"), make([]byte, 8<<20), 0o644))
		bomb := filepath.Join(tmp, "bomb.tgz")
		writeAppTar(t, bomb, bombDir, "", true)
		out, _, code := runCLI(t, "--format", "json", "inventory", bomb, "--max-compression-ratio", "100")
		is.Equal(code, 6)
		var env core.Envelope
		is.NoErr(json.Unmarshal([]byte(out), &env))
		is.Equal(env.Error.Code, core.CodeTruncated)
		is.Equal(env.Error.Details["reason"], "limit")
	})
}

// analyze_javascript_application reads an npm package tarball as it reads
// the same files in a directory: the same modules and graph facts; rea
// analyze routes a .tgz holding JavaScript to the application analysis.
func TestJSAppTarball(t *testing.T) {
	is := is.New(t)
	tmp := t.TempDir()
	// The directory the tarball is made of holds the files under package/,
	// so both analyses name them alike.
	root := filepath.Join(tmp, "root")
	pkg := filepath.Join(root, "package")
	is.NoErr(os.CopyFS(pkg, os.DirFS("testdata/jsapp/npmapp")))
	archive := filepath.Join(tmp, "npmapp-1.0.0.tgz")
	writeAppTar(t, archive, root, "", true)

	s := jaSession(t)
	d := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": root}))
	tgzEv := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": archive})
	is.Equal(tgzEv.Subject.Format, "tar.gz")
	z := decodeApp(t, tgzEv)
	modules := func(r jaResult) []string {
		var out []string
		for _, l := range r.labels() {
			if strings.HasPrefix(l, "module ") || strings.HasPrefix(l, "package ") {
				out = append(out, l)
			}
		}
		return out
	}
	is.True(len(modules(d)) > 0)
	is.Equal(modules(z), modules(d))
	is.Equal(z.Summary, d.Summary)
	is.Equal(z.Electron, d.Electron)
	is.Equal(z.Statistics["javascript_assets"], d.Statistics["javascript_assets"])

	// The format can be asked for; tar asked of a ZIP-less directory is refused.
	again := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": archive, "format": "tar"})
	is.Equal(decodeApp(t, again).Graph.GraphID, z.Graph.GraphID)
	e := jaCallErr(t, s, t.Context(), "analyze_javascript_application", map[string]any{"path": archive, "format": "zip"})
	is.Equal(e.Code, core.CodeUnsupportedTarget)

	out, errOut, code := runCLI(t, "analyze-javascript-application", archive)
	is.Equal(code, 0)
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "format tar.gz") || !strings.Contains(flat, "main package/main.js") {
		t.Errorf("rea analyze-javascript-application: not the tarball's analysis:\n%s\n%s", out, errOut)
	}
	out, errOut, code = runCLI(t, "analyze", archive)
	if flat := strings.Join(strings.Fields(out), " "); code != 0 || !strings.Contains(flat, "format tar.gz") || !strings.Contains(flat, "main package/main.js") {
		t.Errorf("rea analyze: exit %d, not the application analysis:\n%s\n%s", code, out, errOut)
	}
	// A tarball without JavaScript is inventoried.
	dataDir := filepath.Join(tmp, "data")
	is.NoErr(os.MkdirAll(dataDir, 0o755))
	is.NoErr(os.WriteFile(filepath.Join(dataDir, "readme.txt"), []byte("hello\n"), 0o644))
	data := filepath.Join(tmp, "data.tgz")
	writeAppTar(t, data, dataDir, "data/", true)
	out, errOut, code = runCLI(t, "analyze", data)
	if flat := strings.Join(strings.Fields(out), " "); code != 0 || !strings.Contains(flat, "root tar.gz, 2 entries (1 file, 6 bytes)") {
		t.Errorf("rea analyze: exit %d, not the inventory:\n%s\n%s", code, out, errOut)
	}
}
