package tar_test

import (
	stdtar "archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/tar"
	"rea/ports"
)

func openBytes(t *testing.T, name string, b []byte, lim ports.ContainerLimits) (ports.Container, error) {
	t.Helper()
	c, err := tar.Opener{}.OpenContainer(t.Context(), ports.ContainerRequest{Name: name, ReaderAt: bytes.NewReader(b), Size: int64(len(b)), Limits: lim})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func readFile(t *testing.T, c ports.Container, p string) ([]byte, error) {
	t.Helper()
	rc, err := c.Open(t.Context(), p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// wantErr checks err is a *ports.ContainerError of reason (and limit).
func wantErr(t *testing.T, err error, reason, limit string) {
	t.Helper()
	var ce *ports.ContainerError
	if !errors.As(err, &ce) || ce.Reason != reason || ce.Limit != limit {
		t.Fatalf("error %v, want a *ports.ContainerError with reason %q, limit %q", err, reason, limit)
	}
}

// Entries: hard links are files with their target's bytes, symbolic links
// keep their target, the execute bit is kept, "./" prefixes are dropped
// and the "./" root is not an entry.
func TestEntries(t *testing.T) {
	is := is.New(t)
	data := build(t,
		member{name: "./", typ: stdtar.TypeDir},
		member{name: "./a.js", data: []byte("a();")},
		member{name: "./bin/run", data: []byte("#!/bin/sh\n"), mode: 0o755},
		member{name: "./b.js", typ: stdtar.TypeLink, link: "./a.js"},
		member{name: "./l", typ: stdtar.TypeSymlink, link: "a.js"},
	)
	for _, b := range [][]byte{data, gz(t, data), zst(t, data)} {
		c, err := openBytes(t, "x.tar", b, ports.ContainerLimits{})
		is.NoErr(err)
		got := map[string]ports.ContainerEntry{}
		for _, e := range c.Entries() {
			got[e.Path] = e
		}
		is.Equal(len(got), 4) // a.js, bin/run, b.js, l: no "." entry
		is.True(got["bin/run"].Executable)
		is.True(!got["a.js"].Executable)
		is.Equal(got["b.js"].Kind, ports.EntryFile)
		is.Equal(got["b.js"].Size, int64(4))
		is.Equal(got["l"].Kind, ports.EntrySymlink)
		is.Equal(got["l"].Link, "a.js")
		body, err := readFile(t, c, "b.js")
		is.NoErr(err)
		is.Equal(string(body), "a();") // a hard link reads its target's bytes
		_, err = readFile(t, c, "l")
		wantErr(t, err, ports.ContainerFormat, "") // a symbolic link is never opened
		is.Equal(len(c.(ports.EntryRejecter).Rejected()), 0)
	}
}

// Unsafe names, duplicates, files used as directories, devices, FIFOs and
// hard links that lead nowhere are left out with their reason; the rest of
// the archive opens.
func TestRejected(t *testing.T) {
	is := is.New(t)
	data := build(t,
		member{name: "ok.js", data: []byte("ok")},
		member{name: "../evil.js", data: []byte("x")},
		member{name: "/etc/passwd", data: []byte("x")},
		member{name: "a/../../b", data: []byte("x")},
		member{name: `win\path`, data: []byte("x")},
		member{name: "dup.js", data: []byte("1")},
		member{name: "dup.js", data: []byte("2")},
		member{name: "f", data: []byte("file")},
		member{name: "f/under", data: []byte("x")},
		member{name: "dev/null", typ: stdtar.TypeChar},
		member{name: "fifo", typ: stdtar.TypeFifo},
		member{name: "hard", typ: stdtar.TypeLink, link: "../../etc/shadow"},
		member{name: "hard2", typ: stdtar.TypeLink, link: "missing"},
		member{name: "up", typ: stdtar.TypeSymlink, link: "../../../etc/passwd"},
	)
	for _, b := range [][]byte{data, gz(t, data)} {
		c, err := openBytes(t, "x.tar", b, ports.ContainerLimits{})
		is.NoErr(err)
		var listed []string
		for _, e := range c.Entries() {
			listed = append(listed, e.Path)
		}
		is.Equal(strings.Join(listed, ","), "ok.js,f/under,up") // the link is recorded, not followed
		var reasons []string
		for _, r := range c.(ports.EntryRejecter).Rejected() {
			reasons = append(reasons, r.Name+"="+r.Reason)
		}
		is.Equal(strings.Join(reasons, ","), `../evil.js=dot-dot,/etc/passwd=absolute,a/../../b=dot-dot,win\path=backslash,`+
			`dup.js=duplicate,dup.js=duplicate,f=file-as-directory,dev/null=special,fifo=special,hard=hardlink,hard2=hardlink`)
		for _, p := range []string{"../evil.js", "dup.js", "f", "dev/null", "fifo", "hard"} {
			_, err := c.Open(t.Context(), p)
			wantErr(t, err, ports.ContainerFormat, "")
		}
	}
}

// Hostile archives fail with typed errors, never a panic or an unbounded
// read.
func TestHostile(t *testing.T) {
	pkg := sample(t)
	bomb := build(t, member{name: "zeros", data: make([]byte, 8<<20)})
	for _, tt := range []struct {
		name          string
		data          []byte
		lim           ports.ContainerLimits
		reason, limit string
	}{
		{"truncated gzip", gz(t, pkg)[:len(gz(t, pkg))/2], ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"truncated zstd", zst(t, pkg)[:len(zst(t, pkg))-8], ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"truncated tar", pkg[:4000], ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"1 TB header", build(t, member{name: "big", data: []byte("tiny"), size: 1 << 40}), ports.ContainerLimits{}, ports.ContainerLimit, "max_entry_bytes"},
		{"1 TB header within limits", build(t, member{name: "big", data: []byte("tiny"), size: 1 << 40}),
			ports.ContainerLimits{MaxEntryBytes: 1 << 41, MaxTotalBytes: 1 << 42}, ports.ContainerFormat, ""},
		{"1 TB header, gzip", gz(t, build(t, member{name: "big", data: []byte("tiny"), size: 1 << 40})),
			ports.ContainerLimits{MaxEntryBytes: 1 << 41, MaxTotalBytes: 1 << 42}, ports.ContainerFormat, ""},
		{"gzip bomb", gz(t, bomb), ports.ContainerLimits{MaxCompressionRatio: 100}, ports.ContainerLimit, "max_compression_ratio"},
		{"zstd bomb", zst(t, bomb), ports.ContainerLimits{MaxCompressionRatio: 100}, ports.ContainerLimit, "max_compression_ratio"},
		{"bomb over the total", gz(t, bomb), ports.ContainerLimits{MaxTotalBytes: 1 << 20}, ports.ContainerLimit, "max_total_bytes"},
		{"pax path of 100 KB", build(t, member{name: strings.Repeat("a/", 50_000) + "x", data: []byte("x")}), ports.ContainerLimits{}, ports.ContainerLimit, "max_path_bytes"},
		{"pax path over 1 MB", gz(t, paxPath(t, 2<<20)), ports.ContainerLimits{MaxPathBytes: 4 << 20}, ports.ContainerFormat, ""},
		{"pax path of 512 KB", gz(t, paxPath(t, 512<<10)), ports.ContainerLimits{}, ports.ContainerLimit, "max_path_bytes"},
		{"link target of 100 KB", build(t, member{name: "l", typ: stdtar.TypeSymlink, link: strings.Repeat("b", 100_000)}), ports.ContainerLimits{}, ports.ContainerLimit, "max_path_bytes"},
		{"zstd window of 16 MiB", zstWindow(t, build(t, member{name: "zeros", data: make([]byte, 17<<20)}), 16<<20), ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"deep", build(t, member{name: "a/b/c/d/e", data: []byte("x")}), ports.ContainerLimits{MaxDepth: 4}, ports.ContainerLimit, "max_depth"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openBytes(t, "x.tgz", tt.data, tt.lim)
			wantErr(t, err, tt.reason, tt.limit)
		})
	}
}

// A symbolic link loop is recorded as two links; neither is followed.
func TestSymlinkLoop(t *testing.T) {
	is := is.New(t)
	c, err := openBytes(t, "loop.tar", gz(t, build(t,
		member{name: "a", typ: stdtar.TypeSymlink, link: "b"},
		member{name: "b", typ: stdtar.TypeSymlink, link: "a"},
		member{name: "c", typ: stdtar.TypeSymlink, link: "c"})), ports.ContainerLimits{})
	is.NoErr(err)
	is.Equal(len(c.Entries()), 3)
	for _, e := range c.Entries() {
		is.Equal(e.Kind, ports.EntrySymlink)
		_, err := c.Open(t.Context(), e.Path)
		wantErr(t, err, ports.ContainerFormat, "")
	}
}

// Recognize goes by content: a renamed archive is recognised, a file named
// .tgz that is not one is not, and gzip data that is not a tar is not.
func TestRecognize(t *testing.T) {
	is := is.New(t)
	data := sample(t)
	for _, tt := range []struct {
		head   []byte
		name   string
		format string
	}{
		{data, "x.bin", "tar"},
		{gz(t, data), "x", "tar.gz"},
		{zst(t, data), "x", "tar.zst"},
		{gz(t, []byte(strings.Repeat("not a tar ", 100))), "x.tgz", ""},
		{zst(t, []byte(strings.Repeat("not a tar ", 100))), "x.tar.zst", ""},
		{[]byte("plain text, not an archive"), "x.tar", ""},
		{make([]byte, 4096), "x.tar", ""}, // zeros: no header checksum
		{gz(t, data)[:12], "x.tgz", ""},
	} {
		head := tt.head[:min(len(tt.head), 4096)]
		format, ok := tar.Opener{}.Recognize(head, tt.name)
		is.Equal(format, tt.format)
		is.Equal(ok, tt.format != "")
	}
	// A pre-POSIX (v7) header has no magic but a valid checksum.
	v7 := build(t, member{name: "old.txt", data: []byte("x")})
	copy(v7[257:265], make([]byte, 8))
	fixChecksum(v7[:512])
	format, ok := tar.Opener{}.Recognize(v7, "old")
	is.True(ok)
	is.Equal(format, "tar")
}

// fixChecksum rewrites a header block's checksum after a test edited it.
func fixChecksum(h []byte) {
	sum := 0
	for i, c := range h[:512] {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

// paxPath is a tar whose pax extended header declares a path of n bytes,
// written by hand: archive/tar refuses to write one over 1 MiB.
func paxPath(t *testing.T, n int) []byte {
	rec := " path=" + strings.Repeat("a", n) + "\n"
	l := len(rec)
	for len(strconv.Itoa(l))+len(rec) != l {
		l = len(strconv.Itoa(l)) + len(rec)
	}
	rec = strconv.Itoa(l) + rec
	b := build(t, member{name: "PaxHeaders/x", data: []byte(rec)}, member{name: "x", data: []byte("x")})
	if b[156] != stdtar.TypeReg || bytes.Contains(b[:512], []byte("path=")) {
		t.Fatal("build wrote its own pax header")
	}
	b[156] = stdtar.TypeXHeader
	fixChecksum(b[:512])
	return b
}

// A done context stops the indexing of a compressed archive.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	b := gz(t, sample(t))
	_, err := tar.Opener{}.OpenContainer(ctx, ports.ContainerRequest{Name: "x.tgz", ReaderAt: bytes.NewReader(b), Size: int64(len(b))})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// An npm pack tarball of a tiny package lists package/package.json with its
// size and SHA-256.
func TestNpmPack(t *testing.T) {
	is := is.New(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: no npm pack tarball to read")
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "tiny")
	is.NoErr(os.MkdirAll(filepath.Join(pkg, "lib"), 0o755))
	manifest := []byte(`{"name":"tiny-rea-test","version":"1.2.3","main":"lib/index.js"}` + "\n")
	is.NoErr(os.WriteFile(filepath.Join(pkg, "package.json"), manifest, 0o644))
	is.NoErr(os.WriteFile(filepath.Join(pkg, "lib", "index.js"), []byte("module.exports = 42;\n"), 0o644))
	cmd := exec.CommandContext(t.Context(), npm, "pack", "--ignore-scripts", "--pack-destination", dir, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(dir, "cache"), "npm_config_update_notifier=false", "npm_config_offline=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm pack failed (%v): %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "tiny-rea-test-1.2.3.tgz"))
	is.NoErr(err)
	format, ok := tar.Opener{}.Recognize(b[:min(len(b), 4096)], "tiny-rea-test-1.2.3.tgz")
	is.True(ok)
	is.Equal(format, "tar.gz")
	c, err := openBytes(t, "tiny-rea-test-1.2.3.tgz", b, ports.ContainerLimits{})
	is.NoErr(err)
	var found bool
	for _, e := range c.Entries() {
		if e.Path == "package/package.json" {
			found = true
			is.Equal(e.Size, int64(len(manifest)))
		}
	}
	is.True(found) // package/package.json is listed
	got, err := readFile(t, c, "package/package.json")
	is.NoErr(err)
	want := sha256.Sum256(manifest)
	have := sha256.Sum256(got)
	is.Equal(hex.EncodeToString(have[:]), hex.EncodeToString(want[:]))
}
