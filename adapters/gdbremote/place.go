package gdbremote

import (
	"bytes"
	"context"
	"debug/elf"
	"slices"
	"sort"
	"strconv"

	"rea/ports"
)

// Arguments in libraries. A word argument whose value lies in a loaded
// library's segments (stderr's FILE, a C library function passed as a
// callback) is placed there: the library, its link-time address, the
// section and the sized dynamic symbol around it, read from the library's
// file. The libraries are those callerOf reads; placing never reads the
// loader's list again by itself, since most values that are in no library
// (the heap, a stack, a number) would each ask for it.

// The heap. For a program gdbserver runs on this host (not one under an
// emulator, whose /proc view is the emulator's own), a word in the
// process's brk heap ([heap] in /proc/PID/maps: what malloc's main arena
// hands out) is marked so. The map is read again only for a value above
// the heap's start that it does not hold yet (the heap grows up), at most
// maxMapsReads times per trace.

// maxMapsReads bounds the reads of the process's memory map in one trace,
// and maxHeapGrowth how far past the heap's last known end a value sends
// for it again (a stack's or a mapping's lies much further).
const (
	maxMapsReads  = 256
	maxHeapGrowth = 1 << 30
)

// heapOf parses /proc/PID/maps text for the [heap] mapping's range.
func heapOf(maps []byte) (start, end uint64, ok bool) {
	for _, line := range bytes.Split(maps, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) < 6 || string(f[5]) != "[heap]" {
			continue
		}
		lo, hi, found := bytes.Cut(f[0], []byte("-"))
		a, err1 := strconv.ParseUint(string(lo), 16, 64)
		b, err2 := strconv.ParseUint(string(hi), 16, 64)
		if !found || err1 != nil || err2 != nil || b <= a {
			return 0, 0, false
		}
		return a, b, true
	}
	return 0, 0, false
}

// inHeap reports whether v lies in the process's heap, reading the map
// again when v may lie in a part that grew since the last read.
func (s *session) inHeap(v uint64) bool {
	if s.procMaps == nil {
		return false
	}
	if v >= s.heap[0] && v < s.heap[1] {
		return true
	}
	if (s.heap[1] != 0 && (v < s.heap[0] || v-s.heap[1] >= maxHeapGrowth)) || s.mapsReads >= maxMapsReads {
		return false
	}
	s.mapsReads++
	b, err := s.procMaps(int(s.pid))
	if err != nil {
		s.procMaps = nil // gone or unreadable: no more tries
		return false
	}
	if lo, hi, ok := heapOf(b); ok {
		s.heap = [2]uint64{lo, hi}
	}
	return v >= s.heap[0] && v < s.heap[1]
}

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

// place sets the Place of each word argument that lies in a library.
func (s *session) place(ctx context.Context, args []ports.TraceRegister) error {
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
		a.Heap = a.Place == nil && s.inHeap(a.Value)
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
