package native_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// zdebugLine rewrites the dSYM DWARF file at path in place so that its
// __debug_line is __zdebug_line, compressed the GNU way ("ZLIB", the
// big-endian size, a zlib stream), as debug/macho reads it.
func zdebugLine(t *testing.T, path string) {
	t.Helper()
	f, err := macho.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section("__debug_line")
	if s == nil {
		t.Fatal("no __debug_line")
	}
	plain, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	off, size := s.Offset, s.Size
	f.Close()
	var z bytes.Buffer
	z.WriteString("ZLIB")
	binary.Write(&z, binary.BigEndian, uint64(len(plain)))
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	w.Write(plain)
	w.Close()
	if uint64(z.Len()) > size {
		t.Fatalf("compressed line table (%d bytes) does not fit in %d", z.Len(), size)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[off:], z.Bytes())
	// section_64: sectname[16], segname[16], addr, size (8 bytes each), offset ...
	name := append([]byte("__debug_line"), make([]byte, 4)...)
	i := bytes.Index(b, append(name, []byte("__DWARF\x00")...))
	if i < 0 || bytes.Index(b[i+1:], append(name, []byte("__DWARF\x00")...)) >= 0 {
		t.Fatal("no single __debug_line section header")
	}
	copy(b[i:i+16], append([]byte("__zdebug_line"), make([]byte, 3)...))
	binary.LittleEndian.PutUint64(b[i+40:], uint64(z.Len()))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A dSYM whose line table is __zdebug_line (compressed the GNU way) gives
// the source lines the same dSYM uncompressed does.
func TestDSYMZdebugLine(t *testing.T) {
	is := is.New(t)
	// Enough lines that the compressed table is smaller than the plain one.
	var src strings.Builder
	for i := range 64 {
		fmt.Fprintf(&src, "int __attribute__((noinline)) f%d(int a) { return a * %d + %d; }\n", i, i+3, i)
	}
	src.WriteString("int main(int argc, char **argv) { return f7(argc) + f63(argc); }\n")
	exe, dw := buildDSYM(t, t.TempDir(), "x86_64", src.String())
	ctx := context.Background()
	open := func() *native.Analysis {
		an, err := native.New(&native.Options{DebugFileDirectories: []string{t.TempDir()}}).Open(ctx, ports.Target{Path: exe})
		is.NoErr(err)
		t.Cleanup(func() { an.Close(ctx) })
		return an.(*native.Analysis)
	}
	plain := open()
	var want []ports.SourceLocation
	for _, name := range []string{"_f7", "_f63", "_main"} {
		loc, err := plain.SourceAt(ctx, procAddr(t, plain, name))
		is.NoErr(err)
		want = append(want, loc)
	}
	is.Equal(want[1].Line, 64)

	zdebugLine(t, dw)
	z := open()
	is.Equal(debugParam(z)["found_by"], "dsym")
	for i, name := range []string{"_f7", "_f63", "_main"} {
		loc, err := z.SourceAt(ctx, procAddr(t, z, name))
		is.NoErr(err)
		is.Equal(loc, want[i])
	}
}
