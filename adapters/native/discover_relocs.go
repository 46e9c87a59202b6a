package native

import (
	"context"
	"debug/elf"
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
	if e.f.Class != elf.ELFCLASS64 || e.f.Type != elf.ET_DYN {
		return nil
	}
	_, rel, ok := addressRelocs(e.f)
	if !ok {
		return nil
	}
	order := e.f.ByteOrder
	var tables [][]byte
	defer func() {
		for _, s := range e.f.Sections {
			if s.Type == elf.SHT_RELA && s.Flags&elf.SHF_ALLOC != 0 {
				src.m.drop(s.Offset, src.clamp(s.Offset, s.FileSize)) // read once
			}
		}
	}()
	for _, s := range e.f.Sections {
		if s.Type != elf.SHT_RELA || s.Flags&elf.SHF_ALLOC == 0 || s.FileSize == 0 {
			continue
		}
		n := src.clamp(s.Offset, s.FileSize)
		if b, err := src.view(s.Offset, n-n%elf64RelaSize); err == nil {
			tables = append(tables, b)
		}
	}
	data := dataRegionAt(mm)
	sampled, inPlace := 0, true
	for _, b := range tables {
		for i := 0; i+elf64RelaSize <= len(b) && sampled < inPlaceSample; i += elf64RelaSize {
			if uint32(order.Uint64(b[i+8:])) != rel {
				continue
			}
			at, v := order.Uint64(b[i:]), order.Uint64(b[i+16:])
			r := data(at)
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
	if sampled == 0 || inPlace {
		return ctx.Err()
	}
	for _, b := range tables {
		for i := 0; i+elf64RelaSize <= len(b); i += elf64RelaSize {
			if i%(elf64RelaSize<<16) == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if uint32(order.Uint64(b[i+8:])) != rel {
				continue
			}
			if at := order.Uint64(b[i:]); data(at) != nil {
				each(at, order.Uint64(b[i+16:]))
			}
		}
	}
	return ctx.Err()
}
