package native

import (
	"debug/elf"
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
