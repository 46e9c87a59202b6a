package native

import (
	"debug/elf"
	"encoding/binary"
	"slices"
	"testing"

	"rea/ports"
)

// TestWithNotes: each PT_NOTE is listed once, after the load segment
// holding its file bytes (of overlapping ones, the one reaching furthest),
// numbered among all PT_NOTE headers; a note no load holds, an empty one
// and one past the end of every load are left out.
func TestWithNotes(t *testing.T) {
	load := func(name string, at, off, size uint64) ports.Segment {
		return ports.Segment{Name: name, Kind: "segment", Start: at, Size: size, FileOffset: off, FileSize: size, Perms: ports.Permissions{Read: true}}
	}
	loads := []ports.Segment{load("LOAD#0", 0x400000, 0, 0x1000), load("LOAD#1", 0x600000, 0x2000, 0x100), load("LOAD#2", 0x500000, 0x800, 0x2000)}
	note := func(off, size uint64) *elf.Prog {
		return &elf.Prog{ProgHeader: elf.ProgHeader{Type: elf.PT_NOTE, Off: off, Filesz: size}}
	}
	progs := []*elf.Prog{
		{ProgHeader: elf.ProgHeader{Type: elf.PT_LOAD}},
		note(0x2010, 0x20),            // NOTE#0 in LOAD#1 and LOAD#2, which reaches further
		note(0x300, 0x20),             // NOTE#1 in LOAD#0
		note(0x900, 0x1000),           // NOTE#2 reaches past LOAD#0: in LOAD#2
		note(0x5000, 0x10),            // NOTE#3 in no load
		note(0x100, 0),                // NOTE#4 empty
		note(0x2010, ^uint64(0)-0x10), // NOTE#5 wraps
		note(0x200, 0x20),             // NOTE#6 in LOAD#0, before NOTE#1
	}
	var got []string
	var starts []uint64
	for _, s := range withNotes(loads, progs) {
		got, starts = append(got, s.Name), append(starts, s.Start)
	}
	want := []string{"LOAD#0", "NOTE#6", "NOTE#1", "LOAD#1", "LOAD#2", "NOTE#2", "NOTE#0"}
	if !slices.Equal(got, want) {
		t.Fatalf("withNotes = %v, want %v", got, want)
	}
	if w := []uint64{0x400000, 0x400200, 0x400300, 0x600000, 0x500000, 0x500100, 0x501810}; !slices.Equal(starts, w) {
		t.Errorf("starts %#x, want %#x", starts, w)
	}
	if got := withNotes(nil, progs); len(got) != 0 {
		t.Errorf("without loads: %+v", got)
	}
}

// noteReads counts the reads of a file.
type noteReads struct {
	b     []byte
	reads int
}

func (c *noteReads) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return copy(p, c.b[off:]), nil
}

// TestBuildIDNoteReadOnce: a note named by many program headers is read
// once when the build ID is looked for (a hostile file named the same
// bytes in 30,000 PT_NOTEs, a read each), and its ID is still found.
func TestBuildIDNoteReadOnce(t *testing.T) {
	note := []byte{4, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 1, 2, 3, 4, 5, 6, 7, 8}
	other := []byte{4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 'G', 'N', 'U', 0, 0, 0, 0, 0} // an ABI tag, no build ID
	data := append(append(make([]byte, 64), other...), note...)
	f := &elf.File{FileHeader: elf.FileHeader{ByteOrder: binary.LittleEndian}}
	for range 1000 {
		f.Progs = append(f.Progs, &elf.Prog{ProgHeader: elf.ProgHeader{Type: elf.PT_NOTE, Off: 64, Filesz: uint64(len(other))}})
	}
	f.Progs = append(f.Progs, &elf.Prog{ProgHeader: elf.ProgHeader{Type: elf.PT_NOTE, Off: uint64(64 + len(other)), Filesz: uint64(len(note))}})
	r := &noteReads{b: data}
	id := elfBuildID(source{r: r, size: int64(len(data)), format: "elf"}, f)
	if want := []byte{1, 2, 3, 4, 5, 6, 7, 8}; !slices.Equal(id, want) {
		t.Fatalf("build ID %x, want %x", id, want)
	}
	if r.reads != 2 {
		t.Errorf("%d reads, want 2 (each note once)", r.reads)
	}
}
