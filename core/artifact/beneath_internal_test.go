//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package artifact

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/matryer/is"
)

// openBeneath opens in one call what lies beneath the directory and refuses
// ".." and links that leave it; the builder then asks os.Root, which refuses
// them too.
func TestOpenBeneathStaysInside(t *testing.T) {
	is := is.New(t)
	base := t.TempDir()
	dir := filepath.Join(base, "app")
	outside := filepath.Join(base, "outside")
	is.NoErr(os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	is.NoErr(os.MkdirAll(outside, 0o755))
	is.NoErr(os.WriteFile(filepath.Join(dir, "lib", "a.js"), []byte("inside"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(outside, "a.js"), []byte("outside"), 0o644))
	is.NoErr(os.Symlink(outside, filepath.Join(dir, "abs")))                     // absolute, leaves
	is.NoErr(os.Symlink("../outside", filepath.Join(dir, "rel")))                // relative, leaves
	is.NoErr(os.Symlink("lib", filepath.Join(dir, "inner")))                     // stays inside
	is.NoErr(os.Symlink(filepath.Join(dir, "lib"), filepath.Join(dir, "absin"))) // absolute, stays inside
	root, err := os.OpenRoot(dir)
	is.NoErr(err)
	defer root.Close()
	d, err := root.Open(".")
	is.NoErr(err)
	defer d.Close()
	b := &graphBuilder{fsRoot: root, fsDir: d}

	read := func(f *os.File) string {
		defer f.Close()
		data, err := io.ReadAll(f)
		is.NoErr(err)
		return string(data)
	}
	f, ok := openBeneath(d, "lib/a.js")
	is.True(ok) // the one-call path is taken on this kernel
	is.Equal(read(f), "inside")
	f, ok = openBeneath(d, "inner/a.js")
	is.True(ok)
	is.Equal(read(f), "inside")
	for _, name := range []string{"../outside/a.js", "abs/a.js", "rel/a.js", "/etc/passwd"} {
		f, ok := openBeneath(d, name)
		is.True(!ok) // refused by the kernel
		is.True(f == nil)
		_, err := b.openRegular(name)
		is.True(err != nil) // and by os.Root after it
	}
	f, err = b.openRegular("absin/a.js") // os.Root's answer where openat2 refuses
	if err == nil {
		is.Equal(read(f), "inside")
	}
	f, err = b.openRegular("lib/a.js")
	is.NoErr(err)
	is.Equal(read(f), "inside")
	_, err = b.openRegular("lib") // a directory is not a regular file
	is.True(err != nil)
}

// openReadBeneath gives a regular file's whole bytes read with plain system
// calls, refuses what openBeneath refuses, and leaves anything but a regular
// file (a directory, a FIFO that would block) to openRegular.
func TestOpenReadBeneath(t *testing.T) {
	is := is.New(t)
	base := t.TempDir()
	dir := filepath.Join(base, "app")
	is.NoErr(os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	is.NoErr(os.WriteFile(filepath.Join(base, "x"), []byte("outside"), 0o644))
	is.NoErr(os.Symlink(filepath.Join(base, "x"), filepath.Join(dir, "abs")))
	big := make([]byte, 3<<20+17) // more than one read
	for i := range big {
		big[i] = byte(i * 7)
	}
	is.NoErr(os.WriteFile(filepath.Join(dir, "lib", "big.bin"), big, 0o644))
	is.NoErr(os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644))
	is.NoErr(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	d, err := os.Open(dir)
	is.NoErr(err)
	defer d.Close()

	rc, ok := openReadBeneath(d, "lib/big.bin")
	is.True(ok)
	got, err := io.ReadAll(rc)
	is.NoErr(err)
	is.True(bytes.Equal(got, big))
	is.NoErr(rc.Close())
	is.True(errors.Is(rc.Close(), os.ErrClosed)) // a second Close closes nothing (the number may be another file's by then)

	rc, ok = openReadBeneath(d, "empty")
	is.True(ok)
	n, err := rc.Read(make([]byte, 8))
	is.Equal(n, 0)
	is.Equal(err, io.EOF)
	rc.Close()

	for _, name := range []string{"lib", "fifo", "../x", "abs", "missing"} { // ../x and abs exist, outside
		rc, ok := openReadBeneath(d, name)
		is.True(!ok)
		is.True(rc == nil)
	}
}

// A read that ends short of the buffer at the size the file had when it
// was opened is its end: the bytes come with io.EOF and no second read is
// made. A buffer the file fills exactly, or a file that grew since it was
// opened, is read on to the read that returns nothing.
func TestFDReaderEndsAtOpenSize(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "a.js"), []byte("0123456789"), 0o644))
	d, err := os.Open(dir)
	is.NoErr(err)
	defer d.Close()

	rc, ok := openReadBeneath(d, "a.js")
	is.True(ok)
	buf := make([]byte, 11)
	n, err := rc.Read(buf)
	is.Equal(n, 10)
	is.Equal(err, io.EOF) // one read: the end was seen at the open size
	is.Equal(string(buf[:n]), "0123456789")
	rc.Close()

	rc, ok = openReadBeneath(d, "a.js")
	is.True(ok)
	n, err = rc.Read(buf[:10]) // filled exactly: the end is not known yet
	is.Equal(n, 10)
	is.NoErr(err)
	n, err = rc.Read(buf)
	is.Equal(n, 0)
	is.Equal(err, io.EOF)
	rc.Close()

	rc, ok = openReadBeneath(d, "a.js")
	is.True(ok)
	f, err := os.OpenFile(filepath.Join(dir, "a.js"), os.O_APPEND|os.O_WRONLY, 0)
	is.NoErr(err)
	_, err = f.WriteString("abc") // grows after the open
	is.NoErr(err)
	is.NoErr(f.Close())
	got, err := io.ReadAll(rc)
	is.NoErr(err)
	is.Equal(string(got), "0123456789abc") // every byte, not the open size's
	rc.Close()
}
