package native_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
)

// zdebugPE writes a copy of the PE image at path whose DWARF sections (all,
// or only .debug_line) are compressed the GNU way ("ZLIB", the big-endian size, a zlib stream) and
// named .zdebug_*, as binutils reads them. mingw's toolchain does not
// write such an image itself (its objcopy refuses
// --compress-debug-sections on PE, and its ld inflates the .zdebug_*
// sections of objects built with -gz=zlib-gnu), so objcopy replaces and
// renames each section; the names, longer than 8 bytes, go to the string
// table.
func zdebugPE(t *testing.T, path string, all bool) string {
	t.Helper()
	objcopy := "x86_64-w64-mingw32-objcopy"
	if _, err := exec.LookPath(objcopy); err != nil {
		t.Skipf("%s not found: apt install binutils-mingw-w64-x86-64", objcopy)
	}
	f, err := pe.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	var args []string
	for _, s := range f.Sections {
		rest, ok := strings.CutPrefix(s.Name, ".debug_")
		if !ok || !all && rest != "line" {
			continue
		}
		plain, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		plain = plain[:min(len(plain), int(s.VirtualSize))]
		var z bytes.Buffer
		z.WriteString("ZLIB")
		binary.Write(&z, binary.BigEndian, uint64(len(plain)))
		w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		w.Write(plain)
		w.Close()
		blob := filepath.Join(dir, rest+".z")
		if err := os.WriteFile(blob, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--update-section", s.Name+"="+blob, "--rename-section", s.Name+"=.zdebug_"+rest)
	}
	if len(args) == 0 {
		t.Fatalf("%s has no .debug_* section", path)
	}
	out := filepath.Join(dir, "zdebug.exe")
	if b, err := exec.Command(objcopy, append(args, path, out)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", objcopy, err, b)
	}
	z, err := pe.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if s := z.Section(".zdebug_line"); s == nil || z.Section(".debug_line") != nil {
		t.Fatalf("%s: no .zdebug_line in place of .debug_line", out)
	}
	return out
}

// A mingw build whose DWARF is compressed the GNU way (.zdebug_line alone,
// or with .zdebug_info and the rest) gives the source lines the
// uncompressed build does.
func TestPEZdebugLines(t *testing.T) {
	lineFixtures()
	path := fixturePath(t, "lines-mingw64-O2-g.exe")
	plain, err := native.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(context.Background())
	var addrs []uint64
	for _, as := range procAddresses(t, plain, "main", "total", "checksum") {
		addrs = append(addrs, as...)
	}
	for _, all := range []bool{false, true} {
		t.Run(fmt.Sprintf("all=%v", all), func(t *testing.T) {
			is := is.New(t)
			z, err := native.OpenFile(t.Context(), zdebugPE(t, path, all))
			is.NoErr(err)
			defer z.Close(context.Background())
			found := 0
			for _, addr := range addrs {
				want, werr := plain.SourceAt(t.Context(), addr)
				got, err := z.SourceAt(t.Context(), addr)
				is.Equal(fmt.Sprint(got, err), fmt.Sprint(want, werr))
				if err == nil {
					found++
				}
			}
			is.True(found > len(addrs)/2)
		})
	}
}
