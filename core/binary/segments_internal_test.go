package binary

import (
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestWithLoads: a load segment is listed just before the first mapped
// section at or above its start (a no-access one at 0, Mach-O's
// __PAGEZERO, first of all), one above every mapped section after the last
// of them and before the unmapped ones (an ELF file's .shstrtab), and one
// the engine already lists (a file without sections) not again; the
// engine's shared slice is left as it was.
func TestWithLoads(t *testing.T) {
	r, rx, rw := ports.Permissions{Read: true}, ports.Permissions{Read: true, Execute: true}, ports.Permissions{Read: true, Write: true}
	sec := func(name string, start, size uint64, p ports.Permissions) ports.Segment {
		return ports.Segment{Name: name, Kind: "section", Start: start, Size: size, Perms: p}
	}
	load := func(name string, start, size uint64, p ports.Permissions) ports.Segment {
		return ports.Segment{Name: name, Kind: "segment", Start: start, Size: size, Perms: p}
	}
	names := func(segs []ports.Segment) []string {
		out := make([]string, len(segs))
		for i, s := range segs {
			out[i] = s.Name
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		segs, loads []ports.Segment
		want        []string
	}{
		{"elf", []ports.Segment{sec(".interp", 0x318, 0x1c, r), sec(".text", 0x1040, 0x100, rx), sec(".data", 0x3000, 0x10, rw), sec(".shstrtab", 0, 0x40, ports.Permissions{})},
			[]ports.Segment{load("LOAD#0", 0, 0x400, r), load("LOAD#1", 0x1000, 0x200, rx), load("LOAD#2", 0x3000, 0x10, rw), load("LOAD#3", 0x5000, 0x10, rw)},
			[]string{"LOAD#0", ".interp", "LOAD#1", ".text", "LOAD#2", ".data", "LOAD#3", ".shstrtab"}},
		{"macho", []ports.Segment{sec("__TEXT,__text", 0x100000460, 0x100, rx), sec("__DATA,__data", 0x100004000, 0x10, rw)},
			[]ports.Segment{load("__PAGEZERO", 0, 1<<32, ports.Permissions{}), load("__TEXT", 1<<32, 0x4000, rx), load("__DATA", 0x100004000, 0x4000, rw), load("__LINKEDIT", 0x100008000, 0x4000, r)},
			[]string{"__PAGEZERO", "__TEXT", "__TEXT,__text", "__DATA", "__DATA,__data", "__LINKEDIT"}},
		{"no sections", []ports.Segment{load("LOAD#0", 0, 0x400, r), load("LOAD#1", 0x1000, 0x200, rx)},
			[]ports.Segment{load("LOAD#0", 0, 0x400, r), load("LOAD#1", 0x1000, 0x200, rx)},
			[]string{"LOAD#0", "LOAD#1"}},
		{"no loads", []ports.Segment{sec(".text", 0x1040, 0x100, rx)}, nil, []string{".text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			before := slices.Clone(tc.segs)
			is.Equal(names(withLoads(tc.segs, tc.loads)), tc.want)
			is.Equal(tc.segs, before)
		})
	}
}
