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

// FuzzLoadRegions: any bytes in a loaded segment, with any PT_NOTE
// segments placed in it, give ordered, disjoint regions inside the
// segment, without panicking.
func FuzzLoadRegions(f *testing.F) {
	goNote := binary.LittleEndian.AppendUint32(nil, 4)
	goNote = binary.LittleEndian.AppendUint32(goNote, 6)
	goNote = binary.LittleEndian.AppendUint32(goNote, 4)
	goNote = append(goNote, "Go\x00\x00abc/de\x00\x00"...)
	f.Add(append(append([]byte("data1234"), goNote...), "more"...), uint16(8), uint16(len(goNote)), uint16(0), uint16(0), uint8(4))
	f.Add(goNote, uint16(0), uint16(12), uint16(4), uint16(20), uint8(8))
	f.Fuzz(func(t *testing.T, b []byte, off1, size1, off2, size2 uint16, align uint8) {
		const base = 0x100 // the segment's file offset
		file := append(make([]byte, base), b...)
		src := source{r: bytes.NewReader(file), size: int64(len(file))}
		load := region{name: "LOAD#0", addr: 0x400000, off: base, size: uint64(len(b))}
		progs := []*elf.Prog{
			{ProgHeader: elf.ProgHeader{Type: elf.PT_NOTE, Off: base + uint64(off1), Filesz: uint64(size1), Align: uint64(align)}},
			{ProgHeader: elf.ProgHeader{Type: elf.PT_NOTE, Off: base + uint64(off2), Filesz: uint64(size2), Align: uint64(align)}},
		}
		at := load.off
		for _, r := range loadRegions(src, binary.LittleEndian, load, progs) {
			if r.size == 0 || r.off < at || r.off+r.size > load.off+load.size || r.addr != load.addr+(r.off-load.off) || (r.name != load.name && r.name != "NOTE#0" && r.name != "NOTE#1") {
				t.Fatalf("region %+v out of order or outside the segment %+v", r, load)
			}
			at = r.off + r.size
		}
	})
}

// A Go build ID note inside a segment keeps its owner and text
// descriptor, named after the PT_NOTE header (NOTE#0); its header words
// are left out; the data around it is kept under the segment's name.
func TestLoadRegionsParts(t *testing.T) {
	b := []byte("data")
	b = binary.LittleEndian.AppendUint32(b, 3)
	b = binary.LittleEndian.AppendUint32(b, 5)
	b = binary.LittleEndian.AppendUint32(b, 4)
	b = append(b, "Go\x00\x00ab/cd\x00\x00\x00more"...)
	src := source{r: bytes.NewReader(b), size: int64(len(b))}
	load := region{name: "LOAD#0", addr: 0x1000, size: uint64(len(b))}
	progs := []*elf.Prog{{ProgHeader: elf.ProgHeader{Type: elf.PT_NOTE, Off: 4, Filesz: 24, Align: 4}}}
	got := loadRegions(src, binary.LittleEndian, load, progs)
	want := []region{{name: "LOAD#0", off: 0, size: 4}, {name: "NOTE#0", off: 16, size: 3}, {name: "NOTE#0", off: 20, size: 5}, {name: "LOAD#0", off: 28, size: 4}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].off != want[i].off || got[i].size != want[i].size || got[i].addr != 0x1000+want[i].off || got[i].name != want[i].name {
			t.Errorf("region %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// disjoint cuts what an earlier region (by offset) covers, moves a cut
// region's address with its start, drops one covered whole, keeps the
// list's order, and leaves a .NET user string as it is.
func TestDisjoint(t *testing.T) {
	in := []region{
		{name: "b", addr: 0x2000, off: 200, size: 100},                  // 200-300
		{name: "a", addr: 0x1000, off: 100, size: 150},                  // 100-250: first by offset
		{name: "c", addr: 0x3000, off: 220, size: 20},                   // inside a and b
		{name: "u", addr: 0x4000, off: 210, size: 10, userString: true}, // kept as it is
		{name: "d", addr: 0x5000, off: 290, size: 30},                   // 290-320
	}
	got := disjoint(in)
	want := []region{
		{name: "b", addr: 0x2000 + 50, off: 250, size: 50},
		{name: "a", addr: 0x1000, off: 100, size: 150},
		{name: "u", addr: 0x4000, off: 210, size: 10, userString: true},
		{name: "d", addr: 0x5000 + 10, off: 300, size: 20},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("region %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	// Regions in offset order that do not overlap come back as they are.
	plain := []region{{name: "x", off: 0, size: 10}, {name: "y", off: 10, size: 5}}
	if out := disjoint(plain); &out[0] != &plain[0] || len(out) != 2 {
		t.Errorf("an ordered list was copied or changed: %+v", out)
	}
}
