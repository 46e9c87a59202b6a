package native

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"

	"rea/ports"
)

// gotReloc is the dynamic relocation that fills one GOT slot.
type gotReloc struct {
	sym    uint32 // index into the dynamic symbol table; 0 for none
	addend int64
}

var (
	endbr64 = []byte{0xf3, 0x0f, 0x1e, 0xfa}
	endbr32 = []byte{0xf3, 0x0f, 0x1e, 0xfb}
)

// plt synthesises x86, x86-64 and AArch64 PLT stubs the way binutils' objdump labels
// them: each entry of .plt, .plt.sec, .plt.got and .plt.bnd that jumps
// through a GOT slot filled by a dynamic relocation is named after the
// relocation's symbol, "printf@plt" (with "+0x<addend>" before "@plt" for a
// nonzero addend, and "*ABS*" for a relocation without symbol). PLT0 and the
// lazy-binding entries of an IBT .plt jump elsewhere and get no name.
//
// entries come from pltEntries, slots from gotRelocs; dyn names the
// dynamic symbols the slots' relocations refer to, libs the files of those
// with a version need (versionFiles).
//
// A slot whose relocation names no symbol (R_X86_64_IRELATIVE: libc's
// strnlen goes through its ifunc resolver) holds the binary's own code: the
// stub is no import, and its thunk target is the name of the procedure the
// addend names, when the symbol tables give one.
func (e *elfImage) plt(set *symbolSet, entries []pltEntry, slots map[uint64]gotReloc, dyn, libs map[uint32]string) {
	var own map[uint64]string // the binary's named procedures, built at the first slot without a symbol
	for _, en := range entries {
		r, ok := slots[en.slot]
		if !ok {
			continue
		}
		target := "*ABS*"
		if r.sym != 0 {
			if dyn[r.sym] == "" {
				continue
			}
			target = dyn[r.sym]
		}
		if r.addend != 0 {
			target += fmt.Sprintf("+0x%x", uint64(r.addend))
		}
		label := target + "@plt"
		external := r.sym != 0
		if !external {
			if own == nil {
				own = make(map[uint64]string, len(set.procs))
				for _, c := range set.procs {
					if c.name != "" && !c.external && own[c.addr] == "" {
						own[c.addr] = c.name
					}
				}
			}
			if n := own[uint64(r.addend)]; n != "" {
				target = n
			}
		}
		set.procs = append(set.procs, candidate{
			addr: en.addr, name: label, size: en.size, source: "plt", rank: rankGlobal,
			thunk: true, external: external, target: target,
		})
		set.labels = append(set.labels, ports.Name{Address: en.addr, Name: label, Kind: "import", Library: libs[r.sym]})
	}
}

// pltEntry is one PLT entry that jumps through a GOT slot.
type pltEntry struct {
	addr, size, slot uint64
}

// pltEntries lists the entries of .plt, .plt.sec, .plt.got and .plt.bnd
// that jump through a GOT slot, in section then address order.
func (e *elfImage) pltEntries(ctx context.Context) ([]pltEntry, error) {
	m := e.f.Machine
	var gotBase uint64 // %ebx in i386 PIC PLT entries
	if s := e.f.Section(".got.plt"); s != nil {
		gotBase = s.Addr
	} else if s := e.f.Section(".got"); s != nil {
		gotBase = s.Addr
	}
	var out []pltEntry
	for _, name := range []string{".plt", ".plt.sec", ".plt.got", ".plt.bnd"} {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := e.f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS || s.FileSize == 0 {
			continue
		}
		data, err := e.src.read(s.Offset, s.FileSize)
		if err != nil {
			return nil, err
		}
		if m == elf.EM_AARCH64 {
			out = append(out, aarch64PLT(data, s.Addr)...)
			continue
		}
		size := uint64(16)
		switch {
		case s.Entsize == 8 || s.Entsize == 16:
			size = s.Entsize
		case name == ".plt.got" && !bytes.HasPrefix(data, endbr64) && !bytes.HasPrefix(data, endbr32):
			size = 8
		}
		for off := uint64(0); off+size <= uint64(len(data)); off += size {
			addr := s.Addr + off
			if slot, ok := gotSlot(m, data[off:off+size], addr, gotBase); ok {
				out = append(out, pltEntry{addr: addr, size: size, slot: slot})
			}
		}
	}
	return out, nil
}

// gotRelocs maps the GOT slot addresses in wanted (the PLT's) to the first
// dynamic relocation that fills each. Only those are kept: a large binary
// has a million relocations, nearly all of them for other slots. In the
// same walk, imports maps each slot of .got and .got.plt (got, [start,
// end)) that a GLOB_DAT or JUMP_SLOT relocation fills with a symbol's
// address to that relocation: the import slots a -fno-plt call goes
// through.
func (e *elfImage) gotRelocs(ctx context.Context, wanted map[uint64]bool, got [2]uint64) (slots, imports map[uint64]gotReloc, err error) {
	slots = make(map[uint64]gotReloc, len(wanted))
	imports = map[uint64]gotReloc{}
	// The PLT's slots lie together in .got.plt: a bounds check rejects the
	// other relocations before any map lookup.
	lo, hi := ^uint64(0), uint64(0)
	for slot := range wanted {
		lo, hi = min(lo, slot), max(hi, slot)
	}
	is64 := e.f.Class == elf.ELFCLASS64
	bo := e.f.ByteOrder
	for _, s := range e.f.Sections {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		if int(s.Link) >= len(e.f.Sections) || e.f.Sections[s.Link].Type != elf.SHT_DYNSYM {
			continue
		}
		rela := s.Type == elf.SHT_RELA
		size := relEntrySize(e.f.Class, rela)
		if !e.src.contains(s.Offset, s.FileSize) {
			return nil, nil, &ports.FormatError{Format: "elf", Offset: int64(min(s.Offset, 1<<62)), Msg: "relocation section " + s.Name + " extends beyond the end of the file"}
		}
		// Read in chunks: a sparse file can declare gigabytes of relocations.
		n := min(s.FileSize/size, maxSymbolEntries)
		err := eachEntry(ctx, e.src, s.Offset, n, size, func(_ uint64, b []byte) error {
			var slot uint64
			var r gotReloc
			var typ uint32
			if is64 {
				slot = bo.Uint64(b)
				info := bo.Uint64(b[8:])
				r.sym, typ = uint32(info>>32), uint32(info)
				if rela {
					r.addend = int64(bo.Uint64(b[16:]))
				}
			} else {
				slot = uint64(bo.Uint32(b))
				info := bo.Uint32(b[4:])
				r.sym, typ = info>>8, info&0xff
				if rela {
					r.addend = int64(int32(bo.Uint32(b[8:])))
				}
			}
			if slot >= got[0] && slot < got[1] && r.sym != 0 && importReloc(e.f.Machine, typ) {
				if _, dup := imports[slot]; !dup {
					imports[slot] = r
				}
			}
			if slot < lo || slot > hi || !wanted[slot] {
				return nil
			}
			if _, dup := slots[slot]; !dup {
				slots[slot] = r
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return slots, imports, nil
}

// importReloc reports a GLOB_DAT or JUMP_SLOT relocation: 6 and 7 on x86
// and x86-64, 1025 and 1026 on AArch64.
func importReloc(m elf.Machine, typ uint32) bool {
	if m == elf.EM_AARCH64 {
		return typ == uint32(elf.R_AARCH64_GLOB_DAT) || typ == uint32(elf.R_AARCH64_JUMP_SLOT)
	}
	return typ == uint32(elf.R_X86_64_GLOB_DAT) || typ == uint32(elf.R_X86_64_JMP_SLOT)
}

// gotRange is the span of .got and .got.plt, [start, end); empty without
// them.
func (e *elfImage) gotRange() [2]uint64 {
	r := [2]uint64{^uint64(0), 0}
	for _, name := range []string{".got", ".got.plt"} {
		if s := e.f.Section(name); s != nil && s.Size > 0 && s.Addr+s.Size > s.Addr {
			r[0], r[1] = min(r[0], s.Addr), max(r[1], s.Addr+s.Size)
		}
	}
	if r[1] == 0 {
		return [2]uint64{}
	}
	return r
}

// gotImports names the GOT slots that imports fills with an undefined
// dynamic symbol's address after the symbol, as a PE image's IAT slots are
// named: a call through one (gcc -fno-plt's "call *puts@GOTPCREL(%rip)")
// is a call to the import. A slot whose symbol the binary defines holds its
// own code or data, and is no import.
func gotImports(set *symbolSet, imports map[uint64]gotReloc, dyn map[uint32]string, undef map[uint32]bool, libs map[uint32]string) {
	slots := make([]uint64, 0, len(imports))
	for slot := range imports {
		slots = append(slots, slot)
	}
	slices.Sort(slots) // the labels' order does not follow the map's
	for _, slot := range slots {
		r := imports[slot]
		if name := dyn[r.sym]; name != "" && undef[r.sym] && r.addend == 0 {
			set.labels = append(set.labels, ports.Name{Address: slot, Name: name, Kind: "import", Library: libs[r.sym]})
		}
	}
}

// gotSlot decodes the indirect jump of one PLT entry at addr and returns the
// address of the GOT slot it jumps through.
func gotSlot(m elf.Machine, entry []byte, addr, gotBase uint64) (uint64, bool) {
	p := 0
	if bytes.HasPrefix(entry, endbr64) || bytes.HasPrefix(entry, endbr32) {
		p = 4
	}
	if p < len(entry) && entry[p] == 0xf2 { // bnd
		p++
	}
	if p+6 > len(entry) || entry[p] != 0xff {
		return 0, false
	}
	disp := int32(binary.LittleEndian.Uint32(entry[p+2:]))
	switch {
	case m == elf.EM_X86_64 && entry[p+1] == 0x25: // jmp *disp(%rip)
		return addr + uint64(p) + 6 + uint64(int64(disp)), true
	case m == elf.EM_386 && entry[p+1] == 0x25: // jmp *abs32
		return uint64(uint32(disp)), true
	case m == elf.EM_386 && entry[p+1] == 0xa3: // jmp *disp(%ebx)
		return uint64(uint32(gotBase) + uint32(disp)), true
	}
	return 0, false
}

// AArch64 instructions of a PLT entry (binutils' and lld's): an optional
// "bti c", then "adrp x16, page; ldr x17, [x16, #off]", then the "add" and
// "br x17" (an "autia1716" in between with pointer authentication).
const (
	a64BTIC     = 0xd503245f
	a64STPPLT0  = 0xa9bf7bf0 // stp x16, x30, [sp, #-16]!: PLT0's first instruction
	a64ADRPMask = 0x9f00001f
	a64ADRPX16  = 0x90000010
	a64LDRMask  = 0xffc003ff
	a64LDRX17   = 0xf9400211 // ldr x17, [x16, #imm12*8]
)

// aarch64PLT lists the entries of an AArch64 PLT section at addr: each
// "adrp x16; ldr x17, [x16, #off]" pair not preceded by PLT0's "stp" starts
// one (at its "bti c" when there is one), and jumps through the GOT slot the
// pair addresses. An entry runs to the next one; the last is as long as the
// one before it (16 bytes, or 24 with BTI or pointer authentication).
func aarch64PLT(data []byte, addr uint64) []pltEntry {
	var out []pltEntry
	word := func(off int) uint32 { return binary.LittleEndian.Uint32(data[off:]) }
	for off := 0; off+8 <= len(data); off += 4 {
		adrp, ldr := word(off), word(off+4)
		if adrp&a64ADRPMask != a64ADRPX16 || ldr&a64LDRMask != a64LDRX17 {
			continue
		}
		if off >= 4 && word(off-4) == a64STPPLT0 {
			continue
		}
		pc := addr + uint64(off)
		imm := int64(adrp>>29&3 | adrp>>5&0x7ffff<<2)
		imm = imm << 43 >> 43 // sign-extend 21 bits
		page := pc&^0xfff + uint64(imm<<12)
		slot := page + uint64(ldr>>10&0xfff)*8
		start := pc
		if off >= 4 && word(off-4) == a64BTIC {
			start -= 4
		}
		if n := len(out); n > 0 {
			out[n-1].size = start - out[n-1].addr
		}
		out = append(out, pltEntry{addr: start, size: 16, slot: slot})
	}
	if n := len(out); n > 1 {
		out[n-1].size = out[n-2].size
	}
	return out
}

// relEntrySize is the size of one REL or RELA entry in a file of class c.
func relEntrySize(c elf.Class, rela bool) uint64 {
	switch {
	case c == elf.ELFCLASS64 && rela:
		return 24
	case c == elf.ELFCLASS64:
		return 16
	case rela:
		return 12
	}
	return 8
}
