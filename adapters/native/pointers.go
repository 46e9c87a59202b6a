package native

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"slices"

	"rea/ports"
)

// Pointer slots: words in data that hold the start of a procedure (a table
// of function pointers, a C++ vtable, a callback in an initialised struct,
// .init_array). They are references no instruction makes, so without them
// a function called only through such a table had no incoming reference and
// looked like dead code. Each is an xref of kindPointer from the slot's
// address to the procedure start.
//
// Only procedure starts count as targets, not any address in code: a raw
// data word that equals an address inside a function is far more often an
// integer than a pointer, and the consumers of references (callers, names,
// the dossier) ask about starts.
//
// Where the value comes from depends on whether the file is relocated:
//   - ELF ET_DYN (PIE, shared libraries): only slots a dynamic relocation
//     fills are pointers. RELATIVE relocations (x86-64, AArch64) give the
//     value as their addend, absolute ones (R_X86_64_64, R_AARCH64_ABS64)
//     as the value of a defined, non-ifunc symbol plus the addend, and
//     packed relative relocations (SHT_RELR) keep it in the slot itself.
//     An unrelocated word is not read: in a PIE addresses are small, and
//     small integers would match.
//   - ELF ET_EXEC and PE: every aligned pointer-sized word of the allocated
//     non-executable sections with file bytes (PE: of the sections that are
//     not code) already holds its final value.
//   - Mach-O is left out: its data pointers are rebase or chained-fixup
//     encoded, not plain words. 32-bit ELF PIEs (REL relocations) are too.
//
// The work is one pass over the relocation tables or the data sections,
// read through the file's mapping, with a filter of the starts answering
// most words with one load; the result is sorted, so it is the same on
// every run.

// pointerTargets answers "is v a procedure start?".
type pointerTargets struct {
	starts []uint64 // sorted, distinct
	filter addrFilter
	lo, hi uint64 // starts[0], starts[len-1]
}

func newPointerTargets(ranges []ports.FunctionRange) *pointerTargets {
	t := &pointerTargets{starts: make([]uint64, 0, len(ranges))}
	for _, r := range ranges {
		if r.Start != 0 {
			t.starts = append(t.starts, r.Start)
		}
	}
	slices.Sort(t.starts)
	t.starts = slices.Compact(t.starts)
	if len(t.starts) == 0 {
		return t
	}
	t.filter = newAddrFilter(len(t.starts))
	for _, s := range t.starts {
		t.filter.add(s)
	}
	t.lo, t.hi = t.starts[0], t.starts[len(t.starts)-1]
	return t
}

func (t *pointerTargets) has(v uint64) bool {
	if v < t.lo || v > t.hi || !t.filter.mayHave(v) {
		return false
	}
	_, ok := slices.BinarySearch(t.starts, v)
	return ok
}

// pointerRefs lists the pointer slots of the image, sorted by slot then
// target, without duplicates.
func (p *program) pointerRefs(ctx context.Context, src source, img image) ([]xref, error) {
	t := newPointerTargets(p.ranges)
	if len(t.starts) == 0 {
		return nil, nil
	}
	var out []xref
	var err error
	switch im := img.(type) {
	case *elfImage:
		switch im.f.Type {
		case elf.ET_EXEC:
			out, err = p.scanWords(ctx, src, t, elfDataRegions(im), im.f.Class == elf.ELFCLASS64, im.f.ByteOrder)
		case elf.ET_DYN:
			out, err = p.relocatedSlots(ctx, src, t, im)
		}
	case *peImage:
		var rs []memRegion
		for _, r := range p.mm.regions {
			if !r.exec && r.fileSize > 0 {
				rs = append(rs, r)
			}
		}
		out, err = p.scanWords(ctx, src, t, rs, im.is64, binary.LittleEndian)
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, refLess)
	return slices.Compact(out), nil
}

// elfDataRegions lists the allocated, non-executable sections with file
// bytes whose contents are data words: program data and the init and fini
// arrays, not symbol, hash, note or relocation tables, whose fields would
// match function starts without being pointers to call.
func elfDataRegions(im *elfImage) []memRegion {
	var rs []memRegion
	for _, s := range im.f.Sections {
		switch s.Type {
		case elf.SHT_PROGBITS, elf.SHT_INIT_ARRAY, elf.SHT_FINI_ARRAY, elf.SHT_PREINIT_ARRAY:
		default:
			continue
		}
		if s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR != 0 || s.Flags&elf.SHF_COMPRESSED != 0 || s.FileSize == 0 {
			continue
		}
		rs = append(rs, memRegion{name: s.Name, addr: s.Addr, size: s.Size, off: s.Offset, fileSize: min(s.FileSize, s.Size)})
	}
	return rs
}

// scanWords reads every aligned pointer-sized word of the regions.
func (p *program) scanWords(ctx context.Context, src source, t *pointerTargets, rs []memRegion, wide bool, order binary.ByteOrder) ([]xref, error) {
	ptr := uint64(4)
	if wide {
		ptr = 8
	}
	var out []xref
	for _, r := range rs {
		n := src.clamp(r.off, r.fileSize)
		if n == 0 {
			continue
		}
		data, err := src.view(r.off, n)
		if err != nil {
			continue // a region past the end of the file holds no words
		}
		for i, k := (ptr-r.addr%ptr)%ptr, 0; i+ptr <= uint64(len(data)); i, k = i+ptr, k+1 {
			if k%(1<<17) == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			var v uint64
			if wide {
				v = order.Uint64(data[i:])
			} else {
				v = uint64(order.Uint32(data[i:]))
			}
			if t.has(v) {
				out = append(out, xref{from: r.addr + i, to: v, kind: kindPointer})
			}
		}
		src.m.drop(r.off, n) // read once
	}
	return out, nil
}

// Relocation types that fill a slot with an address (debug/elf's values).
const (
	rX8664Abs64      = uint32(elf.R_X86_64_64)
	rX8664Relative   = uint32(elf.R_X86_64_RELATIVE)
	rAArch64Abs64    = uint32(elf.R_AARCH64_ABS64)
	rAArch64Relative = uint32(elf.R_AARCH64_RELATIVE)
	sttGNUIFunc      = 10
	elf64RelaSize    = 24
	elf64SymSize     = 24
)

// addressRelocs are the relocation types that fill a slot with an
// address (symbol plus addend, and base plus addend) on the file's machine;
// ok is false on a machine rea reads no relocations of.
func addressRelocs(f *elf.File) (abs, rel uint32, ok bool) {
	switch f.Machine {
	case elf.EM_X86_64:
		return rX8664Abs64, rX8664Relative, true
	case elf.EM_AARCH64:
		return rAArch64Abs64, rAArch64Relative, true
	}
	return 0, 0, false
}

// dataRegionAt returns a lookup of the non-executable region holding an
// address (nil when none does: a text relocation patches code, which is no
// pointer slot), remembering the last region found, as relocations come
// mostly in address order.
func dataRegionAt(mm *memMap) func(at uint64) *memRegion {
	var last *memRegion
	return func(at uint64) *memRegion {
		if last == nil || at < last.addr || at >= last.end() {
			last = mm.find(at)
		}
		if last == nil || last.exec {
			return nil
		}
		return last
	}
}

// relocatedSlots lists the slots of a position-independent ELF file that
// its dynamic relocations fill with a procedure start.
func (p *program) relocatedSlots(ctx context.Context, src source, t *pointerTargets, im *elfImage) ([]xref, error) {
	if im.f.Class != elf.ELFCLASS64 {
		return nil, nil
	}
	abs, rel, ok := addressRelocs(im.f)
	if !ok {
		return nil, nil
	}
	order := im.f.ByteOrder
	inData := dataRegionAt(p.mm)
	var out []xref
	words := make([][]byte, len(p.mm.regions)) // the bytes of the regions RELR slots were read in
	defer func() {
		for i, w := range words {
			if w != nil {
				src.m.drop(p.mm.regions[i].off, p.mm.regions[i].fileSize) // read once
			}
		}
	}()
	for _, s := range im.f.Sections {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.Flags&elf.SHF_ALLOC == 0 || s.FileSize == 0 {
			continue // static relocations of an object file, not applied at load
		}
		switch s.Type {
		case elf.SHT_RELA:
			n := src.clamp(s.Offset, s.FileSize)
			b, err := src.view(s.Offset, n-n%elf64RelaSize)
			if err != nil {
				continue
			}
			syms := relocSymbols(src, im, s)
			for i := 0; i+elf64RelaSize <= len(b); i += elf64RelaSize {
				if i%(elf64RelaSize<<16) == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				info := order.Uint64(b[i+8:])
				typ := uint32(info)
				var v uint64
				switch typ {
				case rel:
					v = order.Uint64(b[i+16:])
				case abs:
					sv, ok := syms(uint32(info >> 32))
					if !ok {
						continue
					}
					v = sv + order.Uint64(b[i+16:])
				default:
					continue
				}
				at := order.Uint64(b[i:])
				if t.has(v) && inData(at) != nil {
					out = append(out, xref{from: at, to: v, kind: kindPointer})
				}
			}
			src.m.drop(s.Offset, n) // read once
		case shtRELR:
			n := src.clamp(s.Offset, s.FileSize)
			b, err := src.view(s.Offset, n-n%8)
			if err != nil {
				continue
			}
			slot := func(at uint64) {
				r := inData(at)
				if r == nil || at-r.addr+8 > r.fileSize {
					return
				}
				w := words[r.index]
				if w == nil {
					if w, err = src.view(r.off, src.clamp(r.off, r.fileSize)); err != nil || w == nil {
						w = []byte{}
					}
					words[r.index] = w
				}
				if k := at - r.addr; k+8 <= uint64(len(w)) {
					if v := order.Uint64(w[k:]); t.has(v) {
						out = append(out, xref{from: at, to: v, kind: kindPointer})
					}
				}
			}
			var where uint64
			for j := 0; j+8 <= len(b); j += 8 {
				if j%(8<<16) == 0 && ctx.Err() != nil {
					return nil, ctx.Err()
				}
				e := order.Uint64(b[j:])
				if e&1 == 0 {
					slot(e)
					where = e + 8
					continue
				}
				for bit := uint64(1); bit < 64; bit++ {
					if e&(1<<bit) != 0 {
						slot(where + (bit-1)*8)
					}
				}
				where += 63 * 8
			}
		}
	}
	return out, nil
}

// relocSymbols returns the value of symbol k of the symbol table a
// relocation section links to, when the symbol is defined and not an
// indirect function (whose value is its resolver, not the function).
func relocSymbols(src source, im *elfImage, s *elf.Section) func(k uint32) (uint64, bool) {
	none := func(uint32) (uint64, bool) { return 0, false }
	if int(s.Link) <= 0 || int(s.Link) >= len(im.f.Sections) {
		return none
	}
	st := im.f.Sections[s.Link]
	n := src.clamp(st.Offset, st.FileSize)
	b, err := src.view(st.Offset, n-n%elf64SymSize)
	if err != nil {
		return none
	}
	order := im.f.ByteOrder
	return func(k uint32) (uint64, bool) {
		i := uint64(k) * elf64SymSize
		if k == 0 || i+elf64SymSize > uint64(len(b)) {
			return 0, false
		}
		if order.Uint16(b[i+6:]) == uint16(elf.SHN_UNDEF) || b[i+4]&0xf == sttGNUIFunc {
			return 0, false
		}
		return order.Uint64(b[i+8:]), true
	}
}

// mergeRefs merges ptrs, sorted, into all, sorted, in place: all has room
// for them (cap), and the merge fills it from the back. Pointer slots lie
// in data, usually above all code, so most merges are an append.
func mergeRefs(all, ptrs []xref) []xref {
	n, m := len(all), len(ptrs)
	if m == 0 {
		return all
	}
	all = append(all, ptrs...)
	if n == 0 || refLess(all[n-1], ptrs[0]) <= 0 {
		return all
	}
	i, j := n-1, m-1
	for k := n + m - 1; j >= 0; k-- {
		if i >= 0 && refLess(all[i], ptrs[j]) > 0 {
			all[k] = all[i]
			i--
		} else {
			all[k] = ptrs[j]
			j--
		}
	}
	return all
}
