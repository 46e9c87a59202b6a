package identify_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core/internal/identify"
)

func TestClassifyKnownFiles(t *testing.T) {
	is := is.New(t)
	b, err := os.ReadFile("/proc/self/exe") // this test binary: an ELF executable of the host
	is.NoErr(err)
	format, kind, arch := identify.Classify(bytes.NewReader(b), int64(len(b)), b[:4096], "/proc/self/exe")
	is.Equal(format, "elf")
	is.True(kind != "")
	is.True(arch != "")
	js := []byte("console.log(1)\n")
	format, _, _ = identify.Classify(bytes.NewReader(js), int64(len(js)), js, "/x/app.js")
	is.Equal(format, "javascript")
	junk := []byte{0, 1, 2, 3}
	format, _, _ = identify.Classify(bytes.NewReader(junk), 4, junk, "/x/blob")
	is.Equal(format, "")
}

// FuzzClassify: headers are untrusted; classifying never panics.
func FuzzClassify(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01"), "/a")
	f.Add([]byte("MZ\x90\x00"), "/a.exe")
	f.Add([]byte("\xcf\xfa\xed\xfe"), "/a")
	f.Add([]byte("\xca\xfe\xba\xbe\x00\x00\x00\x02"), "/a")
	f.Add([]byte("PK\x03\x04"), "/a.zip")
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"), "/a.tgz")
	f.Add([]byte(`{"version":3,"mappings":""}`), "/a.js.map")
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		head := b
		if len(head) > 4096 {
			head = head[:4096]
		}
		identify.Classify(bytes.NewReader(b), int64(len(b)), head, name)
	})
}

// A .NET assembly (IL only) is architecture cil whatever machine its PE
// header names; a mingw program is not.
func TestClassifyDotNet(t *testing.T) {
	is := is.New(t)
	if _, err := exec.LookPath("mcs"); err != nil {
		t.Skip("mcs is not installed: apt install mono-devel")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "a.cs")
	is.NoErr(os.WriteFile(src, []byte("class P { static void Main() { System.Console.WriteLine(1); } }\n"), 0o644))
	for _, platform := range []string{"anycpu", "x64"} {
		out := filepath.Join(dir, platform+".exe")
		if b, err := exec.CommandContext(t.Context(), "mcs", "-platform:"+platform, "-out:"+out, src).CombinedOutput(); err != nil {
			t.Fatalf("mcs: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		is.NoErr(err)
		format, kind, arch := identify.Classify(bytes.NewReader(b), int64(len(b)), b[:min(len(b), 4096)], out)
		is.Equal([]string{format, kind, arch}, []string{"pe", "executable", "cil"})
	}
	if _, err := exec.LookPath("x86_64-w64-mingw32-gcc"); err == nil {
		c := filepath.Join(dir, "n.c")
		is.NoErr(os.WriteFile(c, []byte("int main(void) { return 0; }\n"), 0o644))
		out := filepath.Join(dir, "n.exe")
		if b, err := exec.CommandContext(t.Context(), "x86_64-w64-mingw32-gcc", "-o", out, c).CombinedOutput(); err != nil {
			t.Fatalf("mingw: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		is.NoErr(err)
		_, _, arch := identify.Classify(bytes.NewReader(b), int64(len(b)), b[:min(len(b), 4096)], out)
		is.Equal(arch, "x86_64")
	}
}

// readCounter counts the reads of a file.
type readCounter struct {
	r     *bytes.Reader
	reads int
}

func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.r.ReadAt(p, off)
}

// elfWithHeaders is a 64-bit little-endian ET_DYN whose program header
// table holds n PT_LOADs and then, when interp, a PT_INTERP.
func elfWithHeaders(n int, interp bool) []byte {
	count := n
	if interp {
		count++
	}
	b := make([]byte, 64+56*count)
	copy(b, "\x7fELF\x02\x01\x01")
	le := func(at int, v uint64, size int) {
		for i := range size {
			b[at+i] = byte(v >> (8 * i))
		}
	}
	le(16, 3, 2)  // ET_DYN
	le(18, 62, 2) // x86-64
	le(32, 64, 8) // phoff
	le(54, 56, 2) // phentsize
	le(56, uint64(count), 2)
	for i := range count {
		typ := uint64(1) // PT_LOAD
		if i == n {
			typ = 3 // PT_INTERP
		}
		le(64+56*i, typ, 4)
	}
	return b
}

// TestProgramHeadersAreReadByWindow: a position-independent executable is
// told from a shared library by its PT_INTERP, wherever it lies in the
// table, and the table is read a window at a time: it was one read per
// header, 60,000 system calls for a hostile file's table.
func TestProgramHeadersAreReadByWindow(t *testing.T) {
	is := is.New(t)
	for _, interp := range []bool{true, false} {
		b := elfWithHeaders(3000, interp) // 168 KB of headers: three windows
		c := &readCounter{r: bytes.NewReader(b)}
		format, kind, arch := identify.Classify(c, int64(len(b)), b[:min(len(b), 4096)], "/x/prog")
		is.Equal(format, "elf")
		is.Equal(arch, "x86_64")
		if interp {
			is.Equal(kind, "executable")
		} else {
			is.Equal(kind, "shared-library")
		}
		is.True(c.reads <= 8)
	}
	// A table cut by the end of the file: the headers present are read.
	b := elfWithHeaders(10, true)
	_, kind, _ := identify.Classify(bytes.NewReader(b[:len(b)-50]), int64(len(b)-50), b[:64], "/x/prog")
	is.Equal(kind, "executable")
}

// TestDigest: Digest is the SHA-256 of every byte, whatever the size
// against its 1 MiB buffer, and stops with the context's error.
func TestDigest(t *testing.T) {
	for _, n := range []int{0, 1, 64<<10 + 3, 1 << 20, 1<<20 + 1, 3<<20 - 7} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + i>>11)
		}
		want := sha256.Sum256(b)
		got, err := identify.Digest(context.Background(), bytes.NewReader(b))
		if err != nil || got != hex.EncodeToString(want[:]) {
			t.Fatalf("%d bytes: %s, %v; want %x", n, got, err, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := identify.Digest(ctx, bytes.NewReader(make([]byte, 10))); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// Tar archives are recognised by content: the ustar magic, directly or in
// the first block of a gzip stream (a renamed .tgz too); zstd, which the
// standard library cannot decode, by its magic and the name.
func TestClassifyTar(t *testing.T) {
	is := is.New(t)
	var tb bytes.Buffer
	w := tar.NewWriter(&tb)
	is.NoErr(w.WriteHeader(&tar.Header{Name: "package/package.json", Mode: 0o644, Size: 2}))
	w.Write([]byte("{}"))
	is.NoErr(w.Close())
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(tb.Bytes())
	is.NoErr(zw.Close())
	notTar := bytes.Repeat([]byte("text "), 200)
	var nb bytes.Buffer
	zw = gzip.NewWriter(&nb)
	zw.Write(notTar)
	is.NoErr(zw.Close())
	zstd := append([]byte{0x28, 0xb5, 0x2f, 0xfd}, make([]byte, 60)...)
	for _, tt := range []struct {
		b            []byte
		path, format string
	}{
		{tb.Bytes(), "/x/pkg.tar", "tar"},
		{tb.Bytes(), "/x/blob", "tar"},
		{zb.Bytes(), "/x/pkg-1.0.0.tgz", "tar.gz"},
		{zb.Bytes(), "/x/renamed", "tar.gz"},
		{nb.Bytes(), "/x/notes.tgz", ""}, // gzip, but not a tar
		{zstd, "/x/pkg.tar.zst", "tar.zst"},
		{zstd, "/x/pkg.tzst", "tar.zst"},
		{zstd, "/x/data.zst", ""},
	} {
		head := tt.b[:min(len(tt.b), 4096)]
		format, kind, _ := identify.Classify(bytes.NewReader(tt.b), int64(len(tt.b)), head, tt.path)
		is.Equal(format, tt.format)
		if tt.format != "" {
			is.Equal(kind, "archive")
		}
	}
}

// An ar archive (a static library, or a thin one) is an archive by its
// magic, whatever its name; a file whose text merely starts alike is not.
func TestClassifyAr(t *testing.T) {
	is := is.New(t)
	member := fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", "a.o/", "0", "0", "0", "644", 2) + "ab"
	for _, tt := range []struct {
		b            string
		path, format string
	}{
		{"!<arch>\n" + member, "/x/libx.a", "ar"},
		{"!<arch>\n", "/x/renamed", "ar"},
		{"!<thin>\n" + member, "/x/libthin.a", "ar"},
		{"!<archive> is a word\n", "/x/notes.a", ""},
	} {
		format, kind, _ := identify.Classify(strings.NewReader(tt.b), int64(len(tt.b)), []byte(tt.b), tt.path)
		is.Equal(format, tt.format)
		if tt.format != "" {
			is.Equal(kind, "archive")
		}
	}
}
