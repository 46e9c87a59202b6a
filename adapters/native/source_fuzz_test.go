package native_test

import (
	"context"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// dwarfSections are the sections the source-line index reads, in the
// order FuzzSourceLines takes them.
var dwarfSections = []string{".debug_abbrev", ".debug_info", ".debug_line", ".debug_str", ".debug_line_str",
	".debug_addr", ".debug_rnglists", ".debug_str_offsets", ".debug_ranges"}

// FuzzSourceLines builds the source-line index from arbitrary DWARF
// sections and looks addresses up in it: no panic, no hang, only typed
// errors. Seeds are the sections of the lines.c builds (gcc's DWARF 5 and
// 4, clang's 5 and 4, AArch64, i386; not the PE ones).
func FuzzSourceLines(f *testing.F) {
	lineFixtures()
	for _, v := range lineVariants {
		path, err := buildFixture(f.Context(), v.name)
		if err != nil {
			continue
		}
		ef, err := elf.Open(path)
		if err != nil {
			continue // the PE builds
		}
		secs := make([][]byte, len(dwarfSections))
		for i, name := range dwarfSections {
			if s := ef.Section(name); s != nil {
				if secs[i], err = s.Data(); err != nil {
					f.Fatal(err)
				}
			}
		}
		ef.Close()
		f.Add(secs[0], secs[1], secs[2], secs[3], secs[4], secs[5], secs[6], secs[7], secs[8])
	}
	f.Fuzz(func(t *testing.T, abbrev, info, line, str, lineStr, addr, rnglists, strOffsets, ranges []byte) {
		d, err := dwarf.New(abbrev, nil, nil, info, line, nil, ranges, str)
		if err != nil {
			return
		}
		for i, b := range [][]byte{lineStr, addr, rnglists, strOffsets} {
			if len(b) > 0 {
				_ = d.AddSection(dwarfSections[4+i], b)
			}
		}
		lookup, err := native.SourceLinesFrom(context.Background(), d, uint64(max(len(info), 1)), line)
		if err != nil {
			var fe *ports.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		for _, a := range []uint64{0, 1, 0x1000, 0x1040, 0x1100, 0x400000, 0x401000, 1 << 63, ^uint64(0)} {
			loc, _ := lookup(a)
			if loc.Line < 0 || loc.Column < 0 || len(loc.Inlined) > 300 {
				t.Fatalf("0x%x: %+v", a, loc)
			}
		}
	})
}
