package native

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"testing"
)

// FuzzLibraryArchive feeds arbitrary bytes to the archive reader and, for
// each member it lists, to the object reader and the index: no panic, no
// member outside the input, and every pattern's mask as long as its code.
func FuzzLibraryArchive(f *testing.F) {
	f.Add([]byte(arMagic))
	f.Add([]byte(arThinMagic))
	f.Add([]byte("!<arch>\n//              0           0     0     0       6         `\na.o/\n\n/0              0           0     0     644     4         `\nabcd"))
	f.Add([]byte("!<arch>\n#1/4            0           0     0     644     8         `\nb.o\x00wxyz"))
	if lib, err := os.ReadFile("/usr/lib/x86_64-linux-gnu/libc.a"); err == nil {
		// The first members of a real archive: the index, then objects.
		f.Add(lib[:min(len(lib), 64<<10)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		members, err := readArchive(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			members = []arMember{{name: "whole", off: 0, size: int64(len(b))}}
		}
		var pats []libPattern
		var st objectStats
		for _, m := range members {
			if m.off < 0 || m.size < 0 || m.off+m.size > int64(len(b)) {
				t.Fatalf("member %+v outside %d bytes", m, len(b))
			}
			pats, _, _ = objectPatterns(b[m.off:m.off+m.size], elf.EM_X86_64, elf.ELFCLASS64, 0, pats, &st)
		}
		for _, p := range pats {
			if len(p.mask) != len(p.code) {
				t.Fatalf("pattern %s: %d mask bytes for %d code bytes", p.name, len(p.mask), len(p.code))
			}
		}
		ix := newLibIndex(pats)
		if len(ix.masks) > maxKeyMasks {
			t.Fatalf("%d key masks", len(ix.masks))
		}
		ix.lookup(b, func(int32) {})
	})
}

// The index finds a pattern by any prefix mask and never tries more key
// masks than its bound, however many distinct prefix masks the patterns
// have.
func TestLibraryIndexBound(t *testing.T) {
	var pats []libPattern
	for i := range 4096 {
		p := libPattern{name: "f", code: make([]byte, 32), mask: bytes.Repeat([]byte{0xff}, 32)}
		for j := range 12 { // a distinct prefix mask per pattern
			if i>>j&1 == 1 {
				p.mask[j] = 0
			}
		}
		for j := range p.code {
			p.code[j] = byte(j) & p.mask[j]
		}
		pats = append(pats, p)
	}
	ix := newLibIndex(pats)
	if len(ix.masks) > maxKeyMasks {
		t.Fatalf("%d key masks, bound %d", len(ix.masks), maxKeyMasks)
	}
	code := make([]byte, 32)
	for j := range code {
		code[j] = byte(j)
	}
	n := 0
	ix.lookup(code, func(int32) { n++ })
	if n != len(pats) {
		t.Fatalf("found %d of %d patterns", n, len(pats))
	}
}

// arHeader formats one member header.
func arHdr(name string, size int) string {
	return fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "644", size)
}

// The reader lists GNU short and long names, BSD names (the name leads the
// data) and odd-sized members padded to an even offset, skips the symbol
// index, and gives each member's data exactly.
func TestReadArchiveNames(t *testing.T) {
	long := "a_rather_long_member_name.o/\nsecond_long_name_here.o/\n"
	ar := arMagic +
		arHdr("/", 4) + "\x00\x00\x00\x00" +
		arHdr("//", len(long)) + long +
		arHdr("short.o/", 3) + "abc" + "\n" +
		arHdr("/29", 2) + "de" +
		arHdr("#1/6", 9) + "bsd.o\x00xyz" + "\n" +
		arHdr("/0", 1) + "f" + "\n"
	got, err := readArchive(bytes.NewReader([]byte(ar)), int64(len(ar)))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, data string }{
		{"short.o", "abc"}, {"second_long_name_here.o", "de"}, {"bsd.o", "xyz"}, {"a_rather_long_member_name.o", "f"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d members %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].name != w.name || ar[got[i].off:got[i].off+got[i].size] != w.data {
			t.Errorf("member %d: %q %q, want %q %q", i, got[i].name, ar[got[i].off:got[i].off+got[i].size], w.name, w.data)
		}
	}
	if _, err := readArchive(bytes.NewReader([]byte(arThinMagic)), 8); err != errThinArchive {
		t.Fatalf("thin archive: %v", err)
	}
}
