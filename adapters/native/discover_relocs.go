package native

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"slices"
	"sort"
)

// Function starts from RELATIVE relocation addends. In a position-
// independent ELF file a table of function pointers (.init_array, a
// dispatch table, a Go funcval) is filled at load time by RELATIVE
// relocations whose addend is the target. GNU ld on x86-64 and Go's linker
// also write the addend into the slot, so discovery reading the data words
// (dataPointers, initFunctions) finds those targets; a linker that leaves
// the slots to the loader (lld without -z apply-dynamic-relocs, the usual
// AArch64 toolchains of Android and Chromium) leaves zeros, and a function
// reached only through such a table was never a start. relativeAddends
// reads the addends of such files; for a file whose slots already hold
// them it reads a few relocations and stops, so the x86-64 path of GNU
// binaries does not pay for a second pass over what the word scan sees.

// inPlaceSample is how many RELATIVE relocations are compared with their
// slots to tell whether the linker wrote the addends into the file.
const inPlaceSample = 16

// relativeAddends calls each, in file order, with the slot and addend of
// every RELATIVE relocation of a 64-bit x86-64 or AArch64 ELF file whose
// slot lies in non-executable data, unless the file's slots already hold
// their addends (the first inPlaceSample relocations with a slot in the
// file agree).
func relativeAddends(ctx context.Context, src source, e *elfImage, mm *memMap, each func(slot, addend uint64)) error {
	rt, ok := leftToLoader(src, e, mm)
	if !ok {
		return ctx.Err()
	}
	defer rt.drop(src)
	return rt.walk(ctx, src, e.f.ByteOrder, each)
}

// relativeAddendsOf is relativeAddends for the few slots of an init array
// only. The whole-table walk is the data-pointer pass's (dataPointers):
// here the slots are looked up in the leading run of RELATIVE relocations
// that DT_RELACOUNT counts, which GNU ld and lld write sorted by slot
// (-z combreloc, their default), so the table is read once in discovery
// rather than once per pass. A file without that run is walked as before.
func relativeAddendsOf(ctx context.Context, src source, e *elfImage, mm *memMap, slots []uint64, each func(slot, addend uint64)) error {
	rt, ok := leftToLoader(src, e, mm)
	if !ok {
		return ctx.Err()
	}
	defer rt.drop(src)
	off, n, sorted := relativeRun(src, e)
	if !sorted {
		want := make(map[uint64]bool, len(slots))
		for _, at := range slots {
			want[at] = true
		}
		return rt.walk(ctx, src, e.f.ByteOrder, func(at, v uint64) {
			if want[at] {
				each(at, v)
			}
		})
	}
	order := e.f.ByteOrder
	entry := func(i uint64) []byte {
		b, _ := src.view(off+i*elf64RelaSize, elf64RelaSize) // inside the run: relativeRun checked it
		return b
	}
	slots = slices.Clone(slots)
	slices.Sort(slots) // file order, as the walk calls each
	for k, at := range slots {
		if k > 0 && slots[k-1] == at || rt.data(at) == nil {
			continue
		}
		i := uint64(sort.Search(int(n), func(i int) bool { return order.Uint64(entry(uint64(i))) >= at }))
		for ; i < n; i++ {
			b := entry(i)
			if order.Uint64(b) != at {
				break
			}
			if uint32(order.Uint64(b[8:])) == rt.rel {
				each(at, order.Uint64(b[16:]))
			}
		}
	}
	return ctx.Err()
}

// relativeRun returns the file offset and count of the DT_RELACOUNT
// leading RELATIVE relocations of the DT_RELA table, when the file
// declares them and they lie in an allocated RELA section.
func relativeRun(src source, e *elfImage) (off, n uint64, ok bool) {
	count, err := e.f.DynValue(elf.DT_RELACOUNT)
	if err != nil || len(count) != 1 || count[0] == 0 {
		return 0, 0, false
	}
	at, err := e.f.DynValue(elf.DT_RELA)
	if err != nil || len(at) != 1 {
		return 0, 0, false
	}
	for _, s := range e.f.Sections {
		if s.Type == elf.SHT_RELA && s.Flags&elf.SHF_ALLOC != 0 && s.Addr == at[0] {
			n = min(count[0], src.clamp(s.Offset, s.FileSize)/elf64RelaSize)
			return s.Offset, n, n > 0
		}
	}
	return 0, 0, false
}

// relaTables is what leftToLoader found: the allocated RELA tables (file
// offset and whole entries' size), the machine's RELATIVE type and a
// lookup of the data region holding a slot.
type relaTables struct {
	tables [][2]uint64
	rel    uint32
	data   func(at uint64) *memRegion
}

// walk calls each with the slot and addend of every RELATIVE relocation of
// the tables whose slot is in data, in file order.
func (rt relaTables) walk(ctx context.Context, src source, order binary.ByteOrder, each func(slot, addend uint64)) error {
	for _, t := range rt.tables {
		b, err := src.view(t[0], t[1])
		if err != nil {
			continue
		}
		for i := 0; i+elf64RelaSize <= len(b); i += elf64RelaSize {
			if i%(elf64RelaSize<<16) == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if uint32(order.Uint64(b[i+8:])) != rt.rel {
				continue
			}
			if at := order.Uint64(b[i:]); rt.data(at) != nil {
				each(at, order.Uint64(b[i+16:]))
			}
		}
	}
	return ctx.Err()
}

// drop gives back the pages of the tables, which are read once.
func (rt relaTables) drop(src source) {
	for _, t := range rt.tables {
		src.m.drop(t[0], t[1])
	}
}

// sampleChunk is how many relocations leftToLoader reads at a time: a
// source that is not mapped reads what it views, and the sample is
// usually the first few.
const sampleChunk = 64

// leftToLoader returns the RELA tables of a 64-bit x86-64 or AArch64 ELF
// shared object or PIE whose RELATIVE slots the file does not hold, ok
// false otherwise (the first inPlaceSample relocations with a slot in the
// file hold their addends, or none has a slot in the file).
func leftToLoader(src source, e *elfImage, mm *memMap) (rt relaTables, ok bool) {
	if e.f.Class != elf.ELFCLASS64 || e.f.Type != elf.ET_DYN {
		return rt, false
	}
	if _, rt.rel, ok = addressRelocs(e.f); !ok {
		return rt, false
	}
	for _, s := range e.f.Sections {
		if s.Type == elf.SHT_RELA && s.Flags&elf.SHF_ALLOC != 0 {
			if n := src.clamp(s.Offset, s.FileSize); n >= elf64RelaSize {
				rt.tables = append(rt.tables, [2]uint64{s.Offset, n - n%elf64RelaSize})
			}
		}
	}
	rt.data = dataRegionAt(mm)
	order := e.f.ByteOrder
	sampled, inPlace := 0, true
	for _, t := range rt.tables {
		for c := uint64(0); c < t[1] && sampled < inPlaceSample; c += sampleChunk * elf64RelaSize {
			b, err := src.view(t[0]+c, min(sampleChunk*elf64RelaSize, t[1]-c))
			if err != nil {
				break
			}
			for i := 0; i+elf64RelaSize <= len(b) && sampled < inPlaceSample; i += elf64RelaSize {
				if uint32(order.Uint64(b[i+8:])) != rt.rel {
					continue
				}
				at, v := order.Uint64(b[i:]), order.Uint64(b[i+16:])
				r := rt.data(at)
				if r == nil || at-r.addr+8 > r.fileSize {
					continue
				}
				w, err := src.read(r.off+(at-r.addr), 8)
				if err != nil {
					continue
				}
				sampled++
				inPlace = inPlace && order.Uint64(w) == v
			}
		}
	}
	if sampled == 0 || inPlace {
		rt.drop(src)
		return rt, false
	}
	return rt, true
}
