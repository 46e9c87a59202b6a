package native

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"rea/ports/libc"
)

// A signature library's functions as patterns (libmatch.go matches them):
// for each defined function symbol with a size in an executable section of
// an ELF relocatable object, its bytes with every bit a relocation fills in
// (or a linker relaxation may rewrite) masked. Aliases at one address are
// one pattern, named as the engine names a procedure among aliases
// (procedures.go's better: a global symbol wins, then the shortest name,
// then code-point order).

const (
	// maxPatternBytes bounds one function's pattern; a longer function is
	// left out.
	maxPatternBytes = 256 << 10
	// maxObjectBytes bounds one relocatable object read from a library.
	maxObjectBytes = 256 << 20
	// maxRelocEntries bounds the relocations read from one object.
	maxRelocEntries = 8 << 20
)

// libPattern is one function of a signature library.
type libPattern struct {
	name    string   // the alias chosen: a C API name first (symBetter)
	plain   string   // the alias the engine would choose (symRank), without that preference
	aliases []string // every name at the function's address, sorted
	strong  []string // the aliases that are not weak
	lib     int      // the library it came from (index in the loaded list)
	code    []byte   // the function's bytes, masked bits cleared
	mask    []byte   // 0xff where a bit is fixed
	fixed   int      // fixed bits
	calls   []libCall
	ifunc   bool // an STT_GNU_IFUNC resolver: a static link calls it through an IRELATIVE PLT stub
}

// libCall is a call or jump the object's relocations aim at a symbol: in
// the target the transfer must land on that function.
type libCall struct {
	off    uint32 // the instruction's field (x86 rel32) or the instruction (AArch64); next: the distance to target
	arm    bool   // AArch64 BL/B imm26, else x86 rel32
	next   bool   // a short function's fall into the next function of its object (fallThrough)
	target string
}

// objectStats counts what an object's functions did not become.
type objectStats struct {
	functions int // patterns made
	unknown   int // functions left out for a relocation type not understood
}

// machineOK reports whether objects of machine m and class c can name
// functions of a target of machine tm and class tc.
func machineOK(m elf.Machine, c elf.Class, tm elf.Machine, tc elf.Class) bool {
	return m == tm && c == tc && (m == elf.EM_X86_64 || m == elf.EM_386 || m == elf.EM_AARCH64)
}

// objectPatterns reads the ELF relocatable object of size bytes in r and
// appends its functions' patterns to out. An object of another machine
// than want adds none and reports its machine.
func objectPatterns(obj []byte, want elf.Machine, class elf.Class, lib int, out []libPattern, st *objectStats) (_ []libPattern, other elf.Machine, err error) {
	size := int64(len(obj))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed object: %v", p)
		}
	}()
	if size > maxObjectBytes {
		return out, 0, fmt.Errorf("object of %d bytes exceeds the %d-byte bound", size, maxObjectBytes)
	}
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return out, 0, err
	}
	if f.Type != elf.ET_REL {
		return out, 0, nil // not a relocatable object: nothing to learn from
	}
	if !machineOK(f.Machine, f.Class, want, class) {
		return out, f.Machine, nil
	}
	if f.ByteOrder != binary.LittleEndian {
		return out, f.Machine, nil
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOBITS && (s.Offset > uint64(size) || s.Size > uint64(size)-s.Offset) {
			return out, 0, fmt.Errorf("section %s extends beyond the object", s.Name)
		}
	}
	syms, err := f.Symbols()
	if err != nil {
		if err == elf.ErrNoSymbols {
			return out, 0, nil
		}
		return out, 0, err
	}
	// Each executable section's functions, grouped by address.
	type fn struct {
		value, size uint64
		names       []*elf.Symbol
		best        *elf.Symbol
	}
	bySec := map[int][]*fn{}
	group := map[[3]uint64]*fn{}
	for i := range syms {
		s := &syms[i]
		t := elf.ST_TYPE(s.Info)
		if (t != elf.STT_FUNC && t != elf.STT_GNU_IFUNC) || s.Size == 0 || s.Name == "" ||
			s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE || int(s.Section) >= len(f.Sections) {
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Flags&elf.SHF_EXECINSTR == 0 || sec.Type != elf.SHT_PROGBITS || s.Value > sec.Size || s.Size > sec.Size-s.Value || s.Size > maxPatternBytes {
			continue
		}
		key := [3]uint64{uint64(s.Section), s.Value, s.Size}
		g := group[key]
		if g == nil {
			g = &fn{value: s.Value, size: s.Size}
			group[key] = g
			bySec[int(s.Section)] = append(bySec[int(s.Section)], g)
		}
		g.names = append(g.names, s)
	}
	// The best name of each function by section and offset, for calls
	// made through a section symbol.
	funcAt := map[funcKey]*elf.Symbol{}
	for _, list := range bySec {
		for _, g := range list {
			best := g.names[0]
			for _, s := range g.names[1:] {
				if symBetter(s, best) {
					best = s
				}
			}
			g.best = best
			k := funcKey{best.Section, g.value}
			if o := funcAt[k]; o == nil || symBetter(best, o) {
				funcAt[k] = best
			}
		}
	}
	secs := make([]int, 0, len(bySec))
	for k := range bySec {
		secs = append(secs, k)
	}
	slices.Sort(secs)
	relocs, err := relocationsBySection(f, obj)
	if err != nil {
		return out, 0, err
	}
	for _, si := range secs {
		sec := f.Sections[si]
		if sec.Flags&elf.SHF_COMPRESSED != 0 {
			continue
		}
		// The object's own bytes (checked against its size above): the
		// patterns copy what they keep.
		data := obj[sec.Offset : sec.Offset+sec.Size]
		rs := relocs[si]
		fns := bySec[si]
		slices.SortFunc(fns, func(a, b *fn) int { return cmp.Or(cmp.Compare(a.value, b.value), cmp.Compare(a.size, b.size)) })
		for _, g := range fns {
			p := libPattern{lib: lib, code: slices.Clone(data[g.value : g.value+g.size]), mask: make([]byte, g.size)}
			for i := range p.mask {
				p.mask[i] = 0xff
			}
			ok := true
			var conds []libCall // x86 conditional jumps' targets (jcc rel32), for a short pattern
			// The relocations in [value, value+size): sorted by offset.
			lo, _ := slices.BinarySearchFunc(rs, g.value, func(r objReloc, v uint64) int { return cmp.Compare(r.off, v) })
			for _, r := range rs[lo:] {
				if r.off >= g.value+g.size {
					break
				}
				rel := r.off - g.value
				if !maskReloc(f.Machine, r.typ, p.mask, int(rel)) {
					ok = false
					break
				}
				if c, isCall := callOf(f.Machine, r, data, syms, funcAt, rel); isCall {
					p.calls = append(p.calls, c)
				} else if c, isJcc := jccOf(f.Machine, r, data, syms, funcAt, rel); isJcc {
					conds = append(conds, c)
				}
			}
			if !ok {
				st.unknown++
				continue
			}
			for i := range p.code {
				p.code[i] &= p.mask[i]
				p.fixed += bits.OnesCount8(p.mask[i])
			}
			if p.fixed < minFixedBits {
				p.calls = append(p.calls, resolvedCalls(f.Machine, &p, g.value, elf.SectionIndex(si), funcAt)...)
				p.calls = append(p.calls, conds...)
				// The next function of the section (fns is in address order).
				end := g.value + g.size
				if k := slices.IndexFunc(fns, func(h *fn) bool { return h.value >= end }); k >= 0 {
					if c, ok := fallThrough(f.Machine, &p, data[end:fns[k].value], fns[k].value-g.value, fns[k].best.Name); ok {
						p.calls = append(p.calls, c)
					}
				}
			}
			p.name = g.best.Name
			p.plain = plainBest(g.names).Name
			for _, s := range g.names {
				p.ifunc = p.ifunc || elf.ST_TYPE(s.Info) == elf.STT_GNU_IFUNC
				if !slices.Contains(p.aliases, s.Name) {
					p.aliases = append(p.aliases, s.Name)
				}
				if elf.ST_BIND(s.Info) != elf.STB_WEAK && !slices.Contains(p.strong, s.Name) {
					p.strong = append(p.strong, s.Name)
				}
			}
			slices.Sort(p.aliases)
			st.functions++
			out = append(out, p)
		}
	}
	return out, 0, nil
}

// symBetter orders aliases: a name with a C library prototype first (the
// C API's name, puts and not glibc's global _IO_puts beside the weak puts,
// which is also the name value flow and the tracer take prototypes by),
// then one of default visibility before a hidden one (the library's
// exported name, qsort_r, before its internal __qsort_r), then as the
// procedure list does: binding rank, then the shorter name, then
// code-point order.
func symBetter(a, b *elf.Symbol) bool {
	_, apiA := libc.Lookup(a.Name)
	_, apiB := libc.Lookup(b.Name)
	if apiA != apiB {
		return apiA
	}
	visA := elf.ST_VISIBILITY(a.Other) == elf.STV_DEFAULT && elf.ST_BIND(a.Info) != elf.STB_LOCAL
	visB := elf.ST_VISIBILITY(b.Other) == elf.STV_DEFAULT && elf.ST_BIND(b.Info) != elf.STB_LOCAL
	if visA != visB {
		return visA
	}
	return symRank(a, b)
}

// plainBest is the alias the procedure list would choose.
func plainBest(names []*elf.Symbol) *elf.Symbol {
	best := names[0]
	for _, s := range names[1:] {
		if symRank(s, best) {
			best = s
		}
	}
	return best
}

// keepStrongNames undoes the C API preference where the chosen name is a
// weak alias that another function defines strongly: a static link takes
// the strong one, so the weak name is not this function's in the program
// (AArch64's strlen_mte.o has a weak strlen, but strlen is strlen.o's
// IFUNC).
func keepStrongNames(pats []libPattern, strong map[string]bool) {
	for i := range pats {
		// The name is weak here when it is not among this function's
		// strong aliases.
		if p := &pats[i]; p.name != p.plain && !slices.Contains(p.strong, p.name) && strong[p.name] {
			p.name = p.plain
		}
	}
}

// symRank orders aliases as the procedure list does.
func symRank(a, b *elf.Symbol) bool {
	rank := func(s *elf.Symbol) int {
		switch elf.ST_BIND(s.Info) {
		case elf.STB_GLOBAL, stbGNUUnique:
			return rankGlobal
		case elf.STB_WEAK:
			return rankWeak
		}
		return rankLocal
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(len(a.Name), len(b.Name)); c != 0 {
		return c < 0
	}
	return a.Name < b.Name
}

// funcKey is a function's section and offset in an object.
type funcKey struct {
	sec elf.SectionIndex
	off uint64
}

// objReloc is one relocation of an object's section.
type objReloc struct {
	off    uint64
	typ    uint32
	sym    uint32 // symbol index, 0 for none
	addend int64
	rela   bool
}

// relocationsBySection reads every SHT_RELA and SHT_REL section of f,
// indexed by the section it applies to, each sorted by offset.
func relocationsBySection(f *elf.File, obj []byte) (map[int][]objReloc, error) {
	out := map[int][]objReloc{}
	total := 0
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		if int(s.Info) >= len(f.Sections) || f.Sections[s.Info].Flags&elf.SHF_EXECINSTR == 0 || s.Flags&elf.SHF_COMPRESSED != 0 {
			continue
		}
		rela := s.Type == elf.SHT_RELA
		ent := relEntrySize(f.Class, rela)
		if s.Size%ent != 0 {
			return nil, fmt.Errorf("relocation section %s is not whole entries", s.Name)
		}
		total += int(s.Size / ent)
		if total > maxRelocEntries {
			return nil, fmt.Errorf("more than %d relocations", maxRelocEntries)
		}
		b := obj[s.Offset : s.Offset+s.Size]
		list := out[int(s.Info)]
		for i := uint64(0); i+ent <= uint64(len(b)); i += ent {
			e := b[i:]
			var r objReloc
			r.rela = rela
			if f.Class == elf.ELFCLASS64 {
				info := binary.LittleEndian.Uint64(e[8:])
				r.off, r.sym, r.typ = binary.LittleEndian.Uint64(e), uint32(info>>32), uint32(info)
				if rela {
					r.addend = int64(binary.LittleEndian.Uint64(e[16:]))
				}
			} else {
				info := binary.LittleEndian.Uint32(e[4:])
				r.off, r.sym, r.typ = uint64(binary.LittleEndian.Uint32(e)), info>>8, info&0xff
				if rela {
					r.addend = int64(int32(binary.LittleEndian.Uint32(e[8:])))
				}
			}
			list = append(list, r)
		}
		slices.SortStableFunc(list, func(a, b objReloc) int { return cmp.Compare(a.off, b.off) })
		out[int(s.Info)] = list
	}
	return out, nil
}

// maskReloc clears, in mask, the bits the relocation of type typ at byte
// rel of a function fills in or a linker may rewrite. It reports false for
// a type it does not know on x86 (the function is then left out); an
// unknown AArch64 type masks its whole instruction.
func maskReloc(m elf.Machine, typ uint32, mask []byte, rel int) bool {
	clear := func(from, to int) {
		for i := max(from, 0); i < min(to, len(mask)); i++ {
			mask[i] = 0
		}
	}
	switch m {
	case elf.EM_X86_64:
		switch elf.R_X86_64(typ) {
		case elf.R_X86_64_NONE:
		case elf.R_X86_64_64, elf.R_X86_64_PC64, elf.R_X86_64_GOTOFF64, elf.R_X86_64_GOTPC64, elf.R_X86_64_GOT64,
			elf.R_X86_64_GOTPCREL64, elf.R_X86_64_GOTPLT64, elf.R_X86_64_PLTOFF64, elf.R_X86_64_SIZE64, elf.R_X86_64_DTPOFF64,
			elf.R_X86_64_TPOFF64, elf.R_X86_64_DTPMOD64:
			clear(rel, rel+8)
		case elf.R_X86_64_PC32, elf.R_X86_64_PLT32, elf.R_X86_64_32, elf.R_X86_64_32S, elf.R_X86_64_GOT32,
			elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPC32, elf.R_X86_64_SIZE32, elf.R_X86_64_TPOFF32, elf.R_X86_64_DTPOFF32:
			clear(rel, rel+4)
		case elf.R_X86_64_16, elf.R_X86_64_PC16:
			clear(rel, rel+2)
		case elf.R_X86_64_8, elf.R_X86_64_PC8:
			clear(rel, rel+1)
		case elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX, elf.R_X86_64_GOTTPOFF, elf.R_X86_64_GOTPC32_TLSDESC:
			// Relaxation rewrites the opcode, ModRM and REX prefix before
			// the field (mov to lea or to mov $imm, call * to addr32 call).
			clear(rel-3, rel+4)
		case elf.R_X86_64_TLSDESC_CALL:
			clear(rel, rel+2) // call *(%rax) becomes a two-byte nop
		case elf.R_X86_64_TLSGD, elf.R_X86_64_TLSLD:
			// The whole sequence around the field, the __tls_get_addr
			// call included, becomes another.
			clear(rel-4, rel+12)
		default:
			if typ >= 43 && typ <= 50 { // the APX forms of GOTPCRELX and TLS
				clear(rel-4, rel+4)
				return true
			}
			return false
		}
	case elf.EM_386:
		switch elf.R_386(typ) {
		case elf.R_386_NONE:
		case elf.R_386_32, elf.R_386_PC32, elf.R_386_GOT32, elf.R_386_PLT32, elf.R_386_GOTOFF, elf.R_386_GOTPC,
			elf.R_386_TLS_LE, elf.R_386_TLS_LE_32, elf.R_386_TLS_LDO_32, elf.R_386_TLS_DTPOFF32, elf.R_386_TLS_TPOFF32,
			elf.R_386_TLS_DTPMOD32, elf.R_386_SIZE32:
			clear(rel, rel+4)
		case elf.R_386_16, elf.R_386_PC16:
			clear(rel, rel+2)
		case elf.R_386_8, elf.R_386_PC8:
			clear(rel, rel+1)
		case elf.R_386_GOT32X, elf.R_386_TLS_IE, elf.R_386_TLS_GOTIE, elf.R_386_TLS_IE_32, elf.R_386_TLS_GOTDESC:
			clear(rel-2, rel+4) // relaxed: opcode and ModRM rewritten
		case elf.R_386_TLS_DESC_CALL:
			clear(rel, rel+2)
		case elf.R_386_TLS_GD, elf.R_386_TLS_LDM:
			clear(rel-3, rel+9) // lea and the ___tls_get_addr call become another sequence
		default:
			return false
		}
	case elf.EM_AARCH64:
		if rel+4 > len(mask) || rel < 0 {
			clear(rel, rel+8)
			return true
		}
		var bitsOf uint32
		switch elf.R_AARCH64(typ) {
		case elf.R_AARCH64_NONE:
			return true
		case elf.R_AARCH64_ABS64, elf.R_AARCH64_PREL64:
			clear(rel, rel+8)
			return true
		case elf.R_AARCH64_ABS32, elf.R_AARCH64_PREL32:
			bitsOf = 0xffffffff
		case elf.R_AARCH64_ABS16, elf.R_AARCH64_PREL16:
			clear(rel, rel+2)
			return true
		case elf.R_AARCH64_CALL26, elf.R_AARCH64_JUMP26:
			bitsOf = 0x03ffffff
		case elf.R_AARCH64_CONDBR19, elf.R_AARCH64_LD_PREL_LO19:
			bitsOf = 0x00ffffe0
		case elf.R_AARCH64_TSTBR14:
			bitsOf = 0x0007ffe0
		case elf.R_AARCH64_ADR_PREL_LO21, elf.R_AARCH64_ADR_PREL_PG_HI21, elf.R_AARCH64_ADR_PREL_PG_HI21_NC:
			bitsOf = 0x60ffffe0
		case elf.R_AARCH64_ADD_ABS_LO12_NC, elf.R_AARCH64_LDST8_ABS_LO12_NC, elf.R_AARCH64_LDST16_ABS_LO12_NC,
			elf.R_AARCH64_LDST32_ABS_LO12_NC, elf.R_AARCH64_LDST64_ABS_LO12_NC, elf.R_AARCH64_LDST128_ABS_LO12_NC:
			bitsOf = 0x003ffc00
		case elf.R_AARCH64_MOVW_UABS_G0, elf.R_AARCH64_MOVW_UABS_G0_NC, elf.R_AARCH64_MOVW_UABS_G1,
			elf.R_AARCH64_MOVW_UABS_G1_NC, elf.R_AARCH64_MOVW_UABS_G2, elf.R_AARCH64_MOVW_UABS_G2_NC, elf.R_AARCH64_MOVW_UABS_G3:
			bitsOf = 0x001fffe0
		default:
			// GOT and TLS forms (which the linker may relax into other
			// instructions), signed MOVW forms (movz or movn) and any type
			// not known: the whole instruction.
			bitsOf = 0xffffffff
		}
		w := binary.LittleEndian.Uint32(mask[rel:])
		binary.LittleEndian.PutUint32(mask[rel:], w&^bitsOf)
	default:
		return false
	}
	return true
}

// callOf is the call or jump a relocation aims at a named function: x86's
// e8/e9 rel32 (PC32, PLT32), AArch64's BL/B (CALL26, JUMP26). A relocation
// against a section symbol names the function of that section at the
// offset it reaches.
func callOf(m elf.Machine, r objReloc, data []byte, syms []elf.Symbol, funcAt map[funcKey]*elf.Symbol, rel uint64) (libCall, bool) {
	if r.sym == 0 || int(r.sym) > len(syms) {
		return libCall{}, false
	}
	s := &syms[r.sym-1]
	c := libCall{off: uint32(rel)}
	var addend int64
	switch m {
	case elf.EM_X86_64, elf.EM_386:
		t := r.typ
		pc := (m == elf.EM_X86_64 && (elf.R_X86_64(t) == elf.R_X86_64_PC32 || elf.R_X86_64(t) == elf.R_X86_64_PLT32)) ||
			(m == elf.EM_386 && (elf.R_386(t) == elf.R_386_PC32 || elf.R_386(t) == elf.R_386_PLT32))
		if !pc || r.off == 0 || r.off+4 > uint64(len(data)) || (data[r.off-1] != 0xe8 && data[r.off-1] != 0xe9) {
			return libCall{}, false
		}
		addend = r.addend
		if !r.rela {
			addend = int64(int32(binary.LittleEndian.Uint32(data[r.off:])))
		}
		addend += 4 // the field's end is where the displacement counts from
	case elf.EM_AARCH64:
		t := elf.R_AARCH64(r.typ)
		if t != elf.R_AARCH64_CALL26 && t != elf.R_AARCH64_JUMP26 {
			return libCall{}, false
		}
		c.arm = true
		addend = r.addend
	default:
		return libCall{}, false
	}
	switch elf.ST_TYPE(s.Info) {
	case elf.STT_SECTION:
		// The function of that section at the offset: its best name.
		o := funcAt[funcKey{s.Section, uint64(int64(s.Value) + addend)}]
		if o == nil {
			return libCall{}, false
		}
		c.target = o.Name
	case elf.STT_FUNC, elf.STT_GNU_IFUNC, elf.STT_NOTYPE:
		if s.Name == "" || addend != 0 {
			return libCall{}, false // a call into the middle of something
		}
		c.target = s.Name
	default:
		return libCall{}, false
	}
	return c, true
}

// resolvedCalls are the calls and jumps of a short function (p, at value
// in section sec) to another function of its section that the assembler
// resolved, so that no relocation names them: glibc's qsort is
// "xor r8d, r8d; jmp __qsort_r" with the displacement fixed, both being
// in msort.o's .text. An e8/e9 rel32 (x86) or a B/BL (AArch64) whose
// bytes are all fixed and whose destination is where a function of the
// section starts; a byte that only looks like one (inside another
// instruction) would have to land exactly on a function's start, and then
// only asks more of the target.
func resolvedCalls(m elf.Machine, p *libPattern, value uint64, sec elf.SectionIndex, funcAt map[funcKey]*elf.Symbol) []libCall {
	var out []libCall
	add := func(off int, arm bool, dest uint64) {
		if dest == value {
			return
		}
		if s := funcAt[funcKey{sec, dest}]; s != nil {
			out = append(out, libCall{off: uint32(off), arm: arm, target: s.Name})
		}
	}
	fixed := func(from, to int) bool {
		for i := from; i < to; i++ {
			if p.mask[i] != 0xff {
				return false
			}
		}
		return true
	}
	switch m {
	case elf.EM_X86_64, elf.EM_386:
		for k := 0; k+5 <= len(p.code); k++ {
			if (p.code[k] == 0xe8 || p.code[k] == 0xe9) && fixed(k, k+5) {
				disp := int64(int32(binary.LittleEndian.Uint32(p.code[k+1:])))
				add(k+1, false, uint64(int64(value)+int64(k)+5+disp))
			}
		}
	case elf.EM_AARCH64:
		for k := 0; k+4 <= len(p.code); k += 4 {
			w := binary.LittleEndian.Uint32(p.code[k:])
			if w&0x7c000000 == 0x14000000 && fixed(k, k+4) {
				add(k, true, uint64(int64(value)+int64(k)+sext(uint64(w&0x3ffffff)<<2, 28)))
			}
		}
	}
	return out
}

// A short function (fewer than minFixedBits fixed) names a procedure only
// when its calls land on procedures named as they expect (libmatch.go),
// and some make no call or jump but a conditional one and then fall into
// the next function of their object: i686 glibc's __memcpy_chk (mov eax,
// [esp+12]; cmp [esp+16], eax; jb __chk_fail) runs on into memcpy, and
// __memmove_chk and __mempcpy_chk have its bytes but run into memmove and
// mempcpy. For a short pattern only (a long one is named by its bytes,
// and these would only refute more), a conditional jump's relocation
// (jccOf) and the fall into the next function (fallThrough) count as
// calls: the jump must land on __chk_fail and the code after the function
// be the memcpy already named, which tells the three apart.

// jccOf is callOf for an x86 conditional jump with a 32-bit displacement
// (0f 80..8f).
func jccOf(m elf.Machine, r objReloc, data []byte, syms []elf.Symbol, funcAt map[funcKey]*elf.Symbol, rel uint64) (libCall, bool) {
	if m != elf.EM_X86_64 && m != elf.EM_386 || r.off < 2 || r.off+4 > uint64(len(data)) || data[r.off-2] != 0x0f || data[r.off-1]&0xf0 != 0x80 {
		return libCall{}, false
	}
	// callOf reads the displacement's opcode byte: as a jmp's, the
	// relocation is read the same.
	b := slices.Clone(data[r.off-1 : r.off+4])
	b[0] = 0xe9
	r.off = 1
	return callOf(m, r, b, syms, funcAt, rel)
}

// fallThrough is the fall of a short function (pattern p) into the
// function next after it in its section, gap bytes later, at distance dist
// and named name: when its last instruction does not end it (not a ret,
// jmp, ud2, hlt or int), the gap is padding (at most 64 bytes), and the
// name is known. Its off is dist.
func fallThrough(m elf.Machine, p *libPattern, gap []byte, dist uint64, name string) (libCall, bool) {
	mode := 64
	switch m {
	case elf.EM_X86_64:
	case elf.EM_386:
		mode = 32
	default:
		return libCall{}, false
	}
	var last x86asm.Inst
	for at := 0; at < len(p.code); {
		in, err := x86asm.Decode(p.code[at:], mode)
		if err != nil {
			return libCall{}, false
		}
		last, at = in, at+in.Len
	}
	switch last.Op {
	case 0, x86asm.RET, x86asm.JMP, x86asm.UD2, x86asm.HLT, x86asm.INT, x86asm.LRET, x86asm.IRET:
		return libCall{}, false
	}
	return libCall{off: uint32(dist), next: true, target: name}, name != "" && len(gap) <= 64 && padding(gap, m)
}

// plainName is a target procedure's name as a library symbol would spell
// it: without the PLT stub's "@plt" and a symbol version.
func plainName(n string) string {
	n = strings.TrimSuffix(n, "@plt")
	if i := strings.IndexByte(n, '@'); i > 0 {
		n = n[:i]
	}
	return n
}
