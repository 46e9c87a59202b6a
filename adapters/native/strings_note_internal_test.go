package native

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// FuzzNoteRegions: any bytes in a note section give regions inside the
// section, without panicking, and cover no more than the section.
func FuzzNoteRegions(f *testing.F) {
	note := func(name string, typ uint32, desc []byte) []byte {
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(name)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
		b = binary.LittleEndian.AppendUint32(b, typ)
		b = append(b, name...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return append(b, desc...)
	}
	f.Add(note("GNU\x00", 3, []byte("rea-build-id-as-text")), uint8(4))
	f.Add(append(note("FDO\x00", 0xcafe1a7e, []byte(`{"a":1}`)), 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0, 0, 0, 0), uint8(8))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, uint8(8))
	f.Fuzz(func(t *testing.T, b []byte, align uint8) {
		src := source{r: bytes.NewReader(b), size: int64(len(b))}
		s := &elf.Section{SectionHeader: elf.SectionHeader{Name: ".note.x", Type: elf.SHT_NOTE, Addr: 0x1000, Offset: 0, FileSize: uint64(len(b)), Size: uint64(len(b)), Addralign: uint64(align)}}
		total := uint64(0)
		for _, r := range noteRegions(src, binary.LittleEndian, s) {
			if r.size == 0 || r.off+r.size > uint64(len(b)) || r.addr != 0x1000+r.off {
				t.Fatalf("region %+v outside the %d-byte section", r, len(b))
			}
			total += r.size
		}
		if total > uint64(len(b)) {
			t.Fatalf("regions cover %d bytes of a %d-byte section", total, len(b))
		}
	})
}

// The build ID's descriptor is left out, the note's name and a text
// descriptor kept.
func TestNoteRegionsParts(t *testing.T) {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 4)
	b = binary.LittleEndian.AppendUint32(b, 4)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = append(b, "GNU\x00abcd"...)
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint32(b, 4)
	b = binary.LittleEndian.AppendUint32(b, 4)
	b = append(b, "Go\x00\x00wxyz"...)
	src := source{r: bytes.NewReader(b), size: int64(len(b))}
	s := &elf.Section{SectionHeader: elf.SectionHeader{Name: ".note", Type: elf.SHT_NOTE, FileSize: uint64(len(b)), Addralign: 4}}
	got := noteRegions(src, binary.LittleEndian, s)
	want := []region{{name: ".note", off: 12, size: 4}, {name: ".note", off: 32, size: 3}, {name: ".note", off: 36, size: 4}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].off != want[i].off || got[i].size != want[i].size || got[i].addr != want[i].off {
			t.Errorf("region %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
