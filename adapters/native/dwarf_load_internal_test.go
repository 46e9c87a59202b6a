package native

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"runtime"
	"testing"
)

// TestSectionDataBoundsTheDeclaredSize: a compressed debug section whose
// declared size deflate could not reach from its bytes (over 1032 times
// them) is refused before its buffer is allocated; an honest one inflates;
// one that ends early is an error.
func TestSectionDataBoundsTheDeclaredSize(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(bytes.Repeat([]byte("line "), 1000))
	w.Close()
	zdebug := func(declared uint64) (source, *elf.Section) {
		b := binary.BigEndian.AppendUint64([]byte("ZLIB"), declared)
		b = append(b, z.Bytes()...)
		s := &elf.Section{SectionHeader: elf.SectionHeader{Name: ".zdebug_line", Offset: 0, FileSize: uint64(len(b)), Size: uint64(len(b))}}
		return source{r: bytes.NewReader(b), size: int64(len(b)), format: "elf"}, s
	}
	src, s := zdebug(5000)
	got, err := sectionData(src, &elf.File{}, s)
	if err != nil || !bytes.Equal(got, bytes.Repeat([]byte("line "), 1000)) {
		t.Fatalf("honest section: %v, %d bytes", err, len(got))
	}
	src, s = zdebug(6000)
	if _, err := sectionData(src, &elf.File{}, s); err == nil {
		t.Fatal("a section inflating to less than it declares was accepted")
	}
	// 200 MB declared (under maxDWARFBytes) from about 60 bytes.
	src, s = zdebug(200 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = sectionData(src, &elf.File{}, s)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("an impossible declared size was accepted")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("refusing it allocated %d bytes", n)
	}
}
