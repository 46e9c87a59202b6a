package gdbremote

import (
	"context"
	"debug/elf"
	"slices"
	"sort"

	"rea/ports"
)

// Arguments in libraries. A word argument whose value lies in a loaded
// library's segments (stderr's FILE, a C library function passed as a
// callback) is placed there: the library, its link-time address, the
// section and the sized dynamic symbol around it, read from the library's
// file. The libraries are those callerOf reads; placing never reads the
// loader's list again by itself, since most values that are in no library
// (the heap, a stack, a number) would each ask for it.

// minPlaced is the lowest value placed: below it a word is a number.
const minPlaced = 0x10000

// libSymbols is a library's sized dynamic symbols, sorted by address, and
// its allocated sections.
type libSymbols struct {
	syms ranges
	secs ranges
}

// ranges are named address ranges sorted by start, with the furthest end
// of any range up to each, so that a lookup walks back only over ranges
// that may hold the address.
type ranges struct {
	list []libSym
	ends []uint64 // ends[i]: the largest end of list[:i+1]
}

func newRanges(list []libSym) ranges {
	slices.SortFunc(list, func(a, b libSym) int {
		if a.start != b.start {
			if a.start < b.start {
				return -1
			}
			return 1
		}
		return len(a.name) - len(b.name) // of aliases, the shortest name first
	})
	r := ranges{list: list, ends: make([]uint64, len(list))}
	var end uint64
	for i, s := range list {
		end = max(end, s.end)
		r.ends[i] = end
	}
	return r
}

type libSym struct {
	start, end uint64
	name       string
}

// place sets the Place of each word argument that lies in a library, and
// otherwise its Stack, Heap or Mapping where the memory map says (placeElsewhere);
// t is the calling thread and sp its stack pointer.
func (s *session) place(ctx context.Context, args []ports.TraceRegister, t threadID, sp uint64) error {
	need := false
	for _, a := range args {
		need = need || a.Bytes == nil && a.Value >= minPlaced && !s.inMain(a.Value)
	}
	if !need {
		return nil
	}
	if s.libReads == 0 {
		// The first hit's: the libraries callerOf would read first.
		if err := s.readLibs(ctx); err != nil {
			return err
		}
	}
	for i := range args {
		a := &args[i]
		if a.Bytes != nil || a.Value < minPlaced || s.inMain(a.Value) {
			continue
		}
		for k := range s.callerLibs {
			l := &s.callerLibs[k]
			if !l.holds(a.Value) {
				continue
			}
			at := a.Value - l.bias
			p := &ports.TracePlace{Module: l.path, Address: at}
			syms := s.symbolsOf(l.path)
			if sec := syms.secs.covering(at); sec != nil {
				p.Section = sec.name
			}
			if sym := syms.syms.covering(at); sym != nil {
				p.Symbol, p.Offset = sym.name, at-sym.start
			}
			a.Place = p
			break
		}
		if a.Place == nil {
			if err := s.placeElsewhere(ctx, a, t, sp); err != nil {
				return err
			}
		}
	}
	return nil
}

// covering is the range that holds at, or nil; of nested or overlapping
// ones, the last that starts at or below it.
func (r ranges) covering(at uint64) *libSym {
	i := sort.Search(len(r.list), func(i int) bool { return r.list[i].start > at })
	for j := i - 1; j >= 0 && r.ends[j] > at; j-- {
		if at < r.list[j].end {
			return &r.list[j]
		}
	}
	return nil
}

// symbolsOf reads a library's sized dynamic symbols and sections once per
// trace; a file that cannot be read has none.
func (s *session) symbolsOf(path string) *libSymbols {
	if ls, ok := s.libSyms[path]; ok {
		return ls
	}
	ls := &libSymbols{}
	if s.libSyms == nil {
		s.libSyms = map[string]*libSymbols{}
	}
	s.libSyms[path] = ls
	defer func() {
		if recover() != nil { // a malformed file places nothing
			*ls = libSymbols{}
		}
	}()
	f, err := elf.Open(path)
	if err != nil {
		return ls
	}
	defer f.Close()
	var secs, syms []libSym
	for _, sec := range f.Sections {
		if sec.Flags&elf.SHF_ALLOC != 0 && sec.Size > 0 && sec.Addr != 0 {
			secs = append(secs, libSym{sec.Addr, sec.Addr + sec.Size, sec.Name})
		}
	}
	dyn, _ := f.DynamicSymbols()
	for _, sym := range dyn {
		t := elf.ST_TYPE(sym.Info)
		if sym.Size == 0 || sym.Section == elf.SHN_UNDEF || (t != elf.STT_FUNC && t != elf.STT_OBJECT && t != elf.STT_GNU_IFUNC) {
			continue
		}
		syms = append(syms, libSym{sym.Value, sym.Value + sym.Size, sym.Name})
	}
	ls.secs, ls.syms = newRanges(secs), newRanges(syms)
	return ls
}
