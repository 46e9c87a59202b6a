package native

import (
	"cmp"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"rea/ports"
)

// Relocatable objects (ET_REL: gcc -c output, Linux kernel modules, the
// members of static libraries) have no addresses: every section's sh_addr
// is 0 and a symbol's st_value is an offset into its section. The engine
// lays the object out as a linker would place it, so every list sees one
// address space:
//
//   - every SHF_ALLOC section, in section-header order, at its own
//     synthetic address (relLayout), which newELF writes into the parsed
//     section headers: every reader of elf.Section.Addr (the memory map,
//     segments, strings, unwind tables) then agrees with the others;
//   - a symbol at its section's address plus its value (elfImage.symAddr);
//   - the undefined symbols (and common ones) in an "EXTERNAL" block after
//     the last section, 8 bytes each, named as imports (Ghidra's EXTERNAL
//     block);
//   - the relocations of the allocated sections applied to a private copy
//     of their bytes (overlay), which every read of the file sees, so a
//     call's displacement names its callee, a printf call lands on printf's
//     external address and .eh_frame's FDEs on their functions. Patching
//     the bytes once, rather than resolving at each reference site, keeps
//     every later pass (discovery, jump tables, value flow, strings) the
//     same code as for a linked file.
//
// GOT-relative relocations (x86-64 GOTPCREL*, AArch64 ADR_GOT_PAGE and
// LD64_GOT_LO12_NC, i386 GOT32*) point at the symbol's own address: no GOT
// is made, and an undefined symbol's 8 bytes in EXTERNAL stand for its
// slot, as an import's slot does in a linked file. i386 PIC code's GOT
// register is _GLOBAL_OFFSET_TABLE_'s EXTERNAL address (R_386_GOTPC), and
// its data is reached at offsets from it (R_386_GOTOFF).

// relBase is the synthetic address of a relocatable object's first
// allocated section. It is not 0, which the lists take for "no address"
// (a symbol of value 0, a missing target), and it is above the small
// constants the decoders do not take for addresses (below 0x1000); it is
// low enough that the whole layout of any real object fits the 32-bit
// absolute relocations (R_X86_64_32, R_386_32).
const relBase = 0x10000

// Bounds of the layout: a section's alignment is taken up to
// maxRelAlign (the largest page size in common use), and a layout that
// would pass maxRelEnd (a hostile size) is not made.
const (
	maxRelAlign = 1 << 21
	maxRelEnd   = 1 << 40
	relMinAlign = 16
	extSlot     = 8 // the bytes of an external symbol
)

// relObject is a relocatable object's layout.
type relObject struct {
	addrs []uint64     // by section index: the synthetic address, 0 for a section not loaded
	end   uint64       // the end of the last allocated section
	ext   []ports.Name // the undefined and common symbols laid out after end
	got   uint64       // _GLOBAL_OFFSET_TABLE_'s address among them, or 0
	over  *overlay
	notes []string // limitations
}

// relLayout lays out f's allocated sections from relBase, each aligned to
// max(sh_addralign, 16) (a non-power of two as 16), and writes the
// addresses into f's section headers. It returns nil, leaving the headers
// as they are, for a file that is not ET_REL or whose sections do not fit
// below maxRelEnd.
func relLayout(f *elf.File) *relObject {
	if f.Type != elf.ET_REL {
		return nil
	}
	addrs := make([]uint64, len(f.Sections))
	at := uint64(relBase)
	for i, s := range f.Sections {
		if i == 0 || s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NULL {
			continue
		}
		align := uint64(relMinAlign)
		if a := s.Addralign; a > align && a&(a-1) == 0 {
			align = min(a, maxRelAlign)
		}
		at = (at + align - 1) &^ (align - 1) // at < maxRelEnd: no overflow
		if s.Size > maxRelEnd-at {
			return &relObject{notes: []string{fmt.Sprintf("Relocatable object: section %d (%s) of 0x%x bytes does not fit the engine's synthetic layout; sections are listed at address 0 and relocations are not applied.", i, s.Name, s.Size)}}
		}
		addrs[i] = at
		at += s.Size
	}
	for i, s := range f.Sections {
		s.Addr = addrs[i]
	}
	return &relObject{addrs: addrs, end: at}
}

// externalBlock names the region of a relocatable object's external
// symbols, as Ghidra names it.
const externalBlock = "EXTERNAL"

// limitations say that the object's addresses are synthetic, and what of
// it could not be placed or relocated; nil for any other file.
func (r *relObject) limitations() []string {
	if r == nil {
		return nil
	}
	if !r.laidOut() {
		return r.notes
	}
	return append([]string{fmt.Sprintf("Relocatable object: addresses are synthetic (sections laid out from 0x%x, undefined symbols in %s, relocations applied).", relBase, externalBlock)}, r.notes...)
}

// laidOut reports whether the object has its synthetic layout.
func (r *relObject) laidOut() bool { return r != nil && r.addrs != nil }

// symAddr is the address symbol s names, ok false when it names none (an
// undefined or absolute-less symbol, one in a section that is not loaded).
// In a linked file it is the symbol's value; in a relocatable object, its
// section's synthetic address plus the value.
func (e *elfImage) symAddr(s elf.Symbol) (uint64, bool) {
	if s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
		return 0, false
	}
	if !e.rel.laidOut() {
		return s.Value, s.Value != 0
	}
	if int(s.Section) >= len(e.rel.addrs) || e.rel.addrs[s.Section] == 0 {
		return 0, false
	}
	base := e.rel.addrs[s.Section]
	if s.Value > math.MaxUint64-base {
		return 0, false
	}
	return base + s.Value, true
}

// relocSym is what a relocation needs of a symbol.
type relocSym struct {
	addr uint64
	ok   bool
}

// link lays out the object's external symbols and applies the relocations
// of its allocated sections (the file's bytes, src, are read, never
// changed): e.src, and what the caller copies of it, then reads the
// relocated bytes. Relocations it cannot apply are counted in a
// limitation. A malformed table stops it with what was done kept.
func (e *elfImage) link() {
	r := e.rel
	if !r.laidOut() {
		return
	}
	ctx := context.Background()
	defer func() {
		if recover() != nil {
			r.notes = append(r.notes, "Relocatable object: its symbol or relocation tables are malformed; some relocations are not applied.")
		}
	}()
	syms, ext, bad := e.relocSyms(ctx)
	r.ext = ext
	if i := slices.IndexFunc(ext, func(n ports.Name) bool { return n.Name == "_GLOBAL_OFFSET_TABLE_" }); i >= 0 {
		r.got = ext[i].Address
	}
	if bad {
		r.notes = append(r.notes, "Relocatable object: its symbol table is malformed; relocations are not applied.")
	}
	over, skipped := e.applyRelocs(syms)
	if len(over.pieces) > 0 {
		r.over = over
		e.src.over = over
	}
	if skipped > 0 {
		r.notes = append(r.notes, fmt.Sprintf("Relocatable object: %d relocations of its allocated sections are not applied (a type the engine does not apply, an offset outside the section, a symbol it cannot place, or a value that does not fit); those references read as the bytes in the file.", skipped))
	}
}

// relocSyms reads the symbol table the relocations name (an object has
// one) and lays out its undefined and common symbols after the last
// section, in ext; bad reports a table that cannot be read.
func (e *elfImage) relocSyms(ctx context.Context) (syms []relocSym, ext []ports.Name, bad bool) {
	r := e.rel
	sec := e.f.SectionByType(elf.SHT_SYMTAB)
	if sec == nil || sec.Flags&elf.SHF_COMPRESSED != 0 {
		return nil, nil, false
	}
	entSize := uint64(16)
	if e.f.Class == elf.ELFCLASS64 {
		entSize = 24
	}
	if sec.Size%entSize != 0 || !e.src.contains(sec.Offset, sec.Size) {
		return nil, nil, true
	}
	n := min(sec.Size/entSize, maxSymbolEntries)
	var names *strtab
	if l := sec.Link; l != 0 && int(l) < len(e.f.Sections) && e.f.Sections[l].Type != elf.SHT_NOBITS && e.f.Sections[l].Flags&elf.SHF_COMPRESSED == 0 {
		names = newStrtab(ctx, e.src, e.f.Sections[l].Offset, e.f.Sections[l].Size)
	} else {
		names = newStrtab(ctx, e.src, 0, 0)
	}
	syms = make([]relocSym, n)
	byName := map[string]uint64{}
	at := (r.end + 15) &^ 15
	bo := e.f.ByteOrder
	_ = eachEntry(ctx, e.src, sec.Offset, n, entSize, func(i uint64, b []byte) error {
		if i == 0 {
			return nil
		}
		var s elf.Symbol
		nameAt := bo.Uint32(b)
		if entSize == 24 {
			s.Info, s.Section, s.Value, s.Size = b[4], elf.SectionIndex(bo.Uint16(b[6:])), bo.Uint64(b[8:]), bo.Uint64(b[16:])
		} else {
			s.Value, s.Size, s.Info, s.Section = uint64(bo.Uint32(b[4:])), uint64(bo.Uint32(b[8:])), b[12], elf.SectionIndex(bo.Uint16(b[14:]))
		}
		switch {
		case s.Section == elf.SHN_ABS:
			syms[i] = relocSym{s.Value, true}
		case s.Section == elf.SHN_UNDEF || s.Section == elf.SHN_COMMON:
			name := names.name(nameAt)
			if name == "" {
				return nil
			}
			addr, seen := byName[name]
			if !seen {
				addr = at
				byName[name] = addr
				at += extSlot
				kind := "import"
				var size uint64
				if s.Section == elf.SHN_COMMON {
					kind, size = "object", s.Size
				}
				ext = append(ext, ports.Name{Address: addr, Name: name, Kind: kind, Size: size})
			}
			syms[i] = relocSym{addr, true}
		default:
			if elf.ST_TYPE(s.Info) == elf.STT_SECTION {
				s.Value = 0 // a section symbol names its section's start
			}
			if s.Section < elf.SHN_LORESERVE && int(s.Section) < len(r.addrs) && r.addrs[s.Section] == 0 {
				syms[i] = relocSym{s.Value, true} // in a section not loaded (debug sections): its offset there
				return nil
			}
			if a, ok := e.symAddr(s); ok {
				syms[i] = relocSym{a, true}
			}
		}
		return nil
	})
	_ = names.done()
	return syms, ext, false
}

// debugRelocs is the function that applies a relocatable object's
// relocations to the bytes of a section that is not loaded (its DWARF),
// against the synthetic layout, so that a subprogram's low_pc is its
// symbol's address; nil for any other file.
func (e *elfImage) debugRelocs() func(*elf.Section, []byte) {
	if !e.rel.laidOut() {
		return nil
	}
	syms, _, _ := e.relocSyms(context.Background())
	index := make(map[*elf.Section]int, len(e.f.Sections))
	for i, s := range e.f.Sections {
		index[s] = i
	}
	return func(s *elf.Section, b []byte) {
		i, ok := index[s]
		if !ok || e.rel.addrs[i] != 0 {
			return
		}
		for _, rs := range e.f.Sections {
			if (rs.Type == elf.SHT_REL || rs.Type == elf.SHT_RELA) && int(rs.Info) == i {
				e.relocate(b, 0, rs, syms)
			}
		}
	}
}

// externalEnd is the end of the EXTERNAL block, 0 when there is none.
func (r *relObject) externalEnd() uint64 {
	if r == nil || len(r.ext) == 0 {
		return 0
	}
	return r.ext[len(r.ext)-1].Address + extSlot
}

// applyRelocs copies the file bytes of each allocated section that a
// relocation section targets and applies its relocations, returning the
// copies (one file range each, never overlapping, in all at most the
// file's size) and the count of relocations not applied.
func (e *elfImage) applyRelocs(syms []relocSym) (*overlay, int) {
	r := e.rel
	type job struct {
		target int
		rels   []*elf.Section
	}
	byTarget := map[int]*job{}
	var jobs []*job
	skipped := 0
	for _, s := range e.f.Sections {
		if s.Type != elf.SHT_REL && s.Type != elf.SHT_RELA {
			continue
		}
		t := int(s.Info)
		if t <= 0 || t >= len(e.f.Sections) || r.addrs[t] == 0 {
			continue // relocations of debug or other unloaded sections
		}
		j := byTarget[t]
		if j == nil {
			j = &job{target: t}
			byTarget[t] = j
			jobs = append(jobs, j)
		}
		j.rels = append(j.rels, s)
	}
	// The targets' file bytes are copied once each; of targets whose
	// bytes overlap (a hostile file), the first in the file is kept, so
	// the copies hold at most the file's size.
	slices.SortStableFunc(jobs, func(a, b *job) int {
		return cmp.Compare(e.f.Sections[a.target].Offset, e.f.Sections[b.target].Offset)
	})
	over := &overlay{}
	for _, j := range jobs {
		t := e.f.Sections[j.target]
		if t.Type == elf.SHT_NOBITS || t.Flags&elf.SHF_COMPRESSED != 0 {
			continue
		}
		size := e.src.clamp(t.Offset, min(t.FileSize, t.Size))
		if k := len(over.pieces); size == 0 || k > 0 && t.Offset < over.pieces[k-1].off+uint64(len(over.pieces[k-1].b)) {
			continue
		}
		b, err := e.src.read(t.Offset, size)
		if err != nil {
			continue
		}
		for _, rs := range j.rels {
			skipped += e.relocate(b, r.addrs[j.target], rs, syms)
		}
		over.pieces = append(over.pieces, overlayPiece{off: t.Offset, b: b})
	}
	return over, skipped
}

// relocate applies the relocations of rs to b, the bytes of a section at
// addr, and returns how many it did not apply.
func (e *elfImage) relocate(b []byte, addr uint64, rs *elf.Section, syms []relocSym) int {
	if rs.Flags&elf.SHF_COMPRESSED != 0 || !e.src.contains(rs.Offset, rs.Size) {
		return 1
	}
	wide := e.f.Class == elf.ELFCLASS64
	rela := rs.Type == elf.SHT_RELA
	entSize := uint64(8) // Elf32_Rel
	if wide {
		entSize = 16
	}
	if rela {
		entSize += entSize / 2
	}
	n := rs.Size / entSize
	bo := e.f.ByteOrder
	skipped := 0
	_ = eachEntry(context.Background(), e.src, rs.Offset, n, entSize, func(_ uint64, ent []byte) error {
		var off uint64
		var sym, typ uint32
		var addend int64
		if wide {
			info := bo.Uint64(ent[8:])
			off, sym, typ = bo.Uint64(ent), uint32(info>>32), uint32(info)
			if rela {
				addend = int64(bo.Uint64(ent[16:]))
			}
		} else {
			info := bo.Uint32(ent[4:])
			off, sym, typ = uint64(bo.Uint32(ent)), info>>8, info&0xff
			if rela {
				addend = int64(int32(bo.Uint32(ent[8:])))
			}
		}
		var s relocSym
		switch {
		case sym == 0:
			s = relocSym{0, true}
		case uint64(sym) < uint64(len(syms)):
			s = syms[sym]
		}
		if !s.ok || !applyReloc(e.f.Machine, bo, b, off, addr, typ, s.addr, addend, rela, e.rel.got) {
			skipped++
		}
		return nil
	})
	return skipped
}

// applyReloc applies one relocation of type typ at offset off of b (the
// section at addr) for a symbol at sym; rela false marks an implicit
// addend (SHT_REL), read from the bytes; got is _GLOBAL_OFFSET_TABLE_'s
// address (i386 PIC code computes its GOT register from it and reaches
// its data at offsets from it). It reports false, leaving b as it was,
// for a type it does not apply, an offset outside b or a value that does
// not fit the field.
func applyReloc(m elf.Machine, bo binary.ByteOrder, b []byte, off, addr uint64, typ uint32, sym uint64, addend int64, rela bool, got uint64) bool {
	field := func(n uint64) []byte {
		if off > uint64(len(b)) || n > uint64(len(b))-off {
			return nil
		}
		return b[off : off+n]
	}
	p := addr + off
	switch m {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_64:
			return put64(bo, field(8), sym+uint64(addend))
		case elf.R_X86_64_PC64:
			return put64(bo, field(8), sym+uint64(addend)-p)
		case elf.R_X86_64_PC32, elf.R_X86_64_PLT32, elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX:
			return putS32(bo, field(4), int64(sym+uint64(addend)-p))
		case elf.R_X86_64_32:
			v := sym + uint64(addend)
			return v <= math.MaxUint32 && putS32(bo, field(4), int64(int32(uint32(v))))
		case elf.R_X86_64_32S:
			return putS32(bo, field(4), int64(sym+uint64(addend)))
		}
	case elf.EM_386:
		f := field(4)
		if f == nil || rela {
			return false
		}
		a := int64(int32(bo.Uint32(f)))
		switch elf.R_386(typ) {
		case elf.R_386_32:
			bo.PutUint32(f, uint32(sym+uint64(a)))
			return true
		case elf.R_386_PC32, elf.R_386_PLT32:
			bo.PutUint32(f, uint32(sym+uint64(a)-p))
			return true
		case elf.R_386_GOTPC: // the GOT register: _GLOBAL_OFFSET_TABLE_ + A - P
			bo.PutUint32(f, uint32(got+uint64(a)-p))
			return got != 0
		case elf.R_386_GOTOFF, elf.R_386_GOT32, elf.R_386_GOT32X: // data (or its slot: the symbol itself) off the GOT register
			bo.PutUint32(f, uint32(sym+uint64(a)-got))
			return got != 0
		}
	case elf.EM_AARCH64:
		return applyARM64(bo, field, elf.R_AARCH64(typ), sym+uint64(addend), p)
	}
	return false
}

// applyARM64 applies one AArch64 relocation whose S+A is v at place p.
func applyARM64(bo binary.ByteOrder, field func(uint64) []byte, typ elf.R_AARCH64, v, p uint64) bool {
	switch typ {
	case elf.R_AARCH64_ABS64:
		return put64(bo, field(8), v)
	case elf.R_AARCH64_PREL64:
		return put64(bo, field(8), v-p)
	case elf.R_AARCH64_ABS32:
		return v <= math.MaxUint32 && putS32(bo, field(4), int64(int32(uint32(v))))
	case elf.R_AARCH64_PREL32:
		return putS32(bo, field(4), int64(v-p))
	}
	f := field(4)
	if f == nil {
		return false
	}
	insn := bo.Uint32(f)
	d := int64(v - p)
	// set writes width bits of x at bit shift when x fits them signed.
	set := func(x int64, width, shift uint) bool {
		if x < -(1<<(width-1)) || x >= 1<<(width-1) {
			return false
		}
		mask := uint32(1)<<width - 1
		bo.PutUint32(f, insn&^(mask<<shift)|(uint32(x)&mask)<<shift)
		return true
	}
	adr := func(x int64) bool { // ADR/ADRP: immlo at 29, immhi at 5
		if x < -(1<<20) || x >= 1<<20 {
			return false
		}
		u := uint32(x) & (1<<21 - 1)
		bo.PutUint32(f, insn&^(3<<29|0x7ffff<<5)|(u&3)<<29|(u>>2)<<5)
		return true
	}
	lo12 := func(shift uint) bool { // an unsigned offset scaled by 1<<shift, at 10
		lo := v & 0xfff
		if lo&(1<<shift-1) != 0 {
			return false
		}
		bo.PutUint32(f, insn&^(0xfff<<10)|uint32(lo>>shift)<<10)
		return true
	}
	switch typ {
	case elf.R_AARCH64_CALL26, elf.R_AARCH64_JUMP26:
		return d&3 == 0 && set(d>>2, 26, 0)
	case elf.R_AARCH64_CONDBR19:
		return d&3 == 0 && set(d>>2, 19, 5)
	case elf.R_AARCH64_TSTBR14:
		return d&3 == 0 && set(d>>2, 14, 5)
	case elf.R_AARCH64_ADR_PREL_LO21:
		return adr(d)
	case elf.R_AARCH64_ADR_PREL_PG_HI21, elf.R_AARCH64_ADR_PREL_PG_HI21_NC, elf.R_AARCH64_ADR_GOT_PAGE:
		return adr(int64(v&^0xfff-p&^0xfff) >> 12)
	case elf.R_AARCH64_ADD_ABS_LO12_NC, elf.R_AARCH64_LDST8_ABS_LO12_NC:
		return lo12(0)
	case elf.R_AARCH64_LDST16_ABS_LO12_NC:
		return lo12(1)
	case elf.R_AARCH64_LDST32_ABS_LO12_NC:
		return lo12(2)
	case elf.R_AARCH64_LDST64_ABS_LO12_NC, elf.R_AARCH64_LD64_GOT_LO12_NC:
		return lo12(3)
	case elf.R_AARCH64_LDST128_ABS_LO12_NC:
		return lo12(4)
	}
	return false
}

func put64(bo binary.ByteOrder, f []byte, v uint64) bool {
	if f == nil {
		return false
	}
	bo.PutUint64(f, v)
	return true
}

// putS32 writes v when it fits a signed 32-bit field.
func putS32(bo binary.ByteOrder, f []byte, v int64) bool {
	if f == nil || v < math.MinInt32 || v > math.MaxInt32 {
		return false
	}
	bo.PutUint32(f, uint32(v))
	return true
}

// overlay is bytes that stand for the file's at their offsets: pieces
// sorted by offset, never overlapping, never changed once built.
type overlay struct {
	pieces []overlayPiece
}

type overlayPiece struct {
	off uint64
	b   []byte
}

// bytes is the overlay's size; 0 for a nil overlay.
func (o *overlay) bytes() int64 {
	if o == nil {
		return 0
	}
	var n int64
	for _, p := range o.pieces {
		n += int64(len(p.b))
	}
	return n
}

// first is the index of the first piece that ends after off.
func (o *overlay) first(off uint64) int {
	i, _ := slices.BinarySearchFunc(o.pieces, off, func(p overlayPiece, t uint64) int {
		if p.off+uint64(len(p.b)) <= t {
			return -1
		}
		return 1
	})
	return i
}

// apply copies the overlay's bytes over b, the file's bytes at off. A nil
// overlay does nothing.
func (o *overlay) apply(b []byte, off uint64) {
	if o == nil || len(b) == 0 {
		return
	}
	end := off + uint64(len(b))
	for i := o.first(off); i < len(o.pieces) && o.pieces[i].off < end; i++ {
		p := o.pieces[i]
		lo, hi := max(off, p.off), min(end, p.off+uint64(len(p.b)))
		copy(b[lo-off:hi-off], p.b[lo-p.off:hi-p.off])
	}
}

// within returns the overlay's bytes for [off, off+n) when one piece holds
// them all (the caller must not change them).
func (o *overlay) within(off, n uint64) ([]byte, bool) {
	i := o.first(off)
	if i < len(o.pieces) {
		p := o.pieces[i]
		if p.off <= off && off-p.off <= uint64(len(p.b)) && n <= uint64(len(p.b))-(off-p.off) {
			s := p.b[off-p.off:]
			return s[:n:n], true
		}
	}
	return nil, false
}

// touches reports whether any piece overlaps [off, off+n).
func (o *overlay) touches(off, n uint64) bool {
	i := o.first(off)
	return i < len(o.pieces) && n > 0 && o.pieces[i].off < off+n
}
