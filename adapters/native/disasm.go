package native

import (
	"cmp"
	"context"
	"debug/elf"
	"debug/macho"
	"fmt"
	"slices"
	"strings"

	"rea/ports"
)

// Disassembly. The provider decodes x86 and x86-64 with x86asm and AArch64
// with arm64asm; other architectures fail with ports.ErrUnsupported.
//
// Text syntax: "intel" for x86 (x86asm.IntelSyntax: Intel operand order,
// "dword ptr [...]", branch targets as absolute hex addresses; a RIP-relative
// operand, and a 32-bit one off a register holding a known address
// (pic32.go), is followed by "# <absolute address>" and a known target by
// "<name>", as objdump -M intel prints them; endbr64 and endbr32, which
// x86asm does not know, are spelled as binutils spells them). "gnu" for
// AArch64 (arm64asm.GNUSyntax, lower case), with PC-relative operands
// rewritten as absolute hex addresses.

// arch is an instruction set the provider decodes.
type arch uint8

const (
	archNone arch = iota
	archX86
	archX8664
	archARM64
	archCIL // .NET's Common Intermediate Language (clr_decode.go)
)

func archOf(name string) arch {
	switch name {
	case "x86":
		return archX86
	case "x86_64":
		return archX8664
	case "arm64":
		return archARM64
	case "cil":
		return archCIL
	}
	return archNone
}

func (a arch) syntax() string {
	switch a {
	case archX86, archX8664:
		return "intel"
	case archARM64:
		return "gnu"
	case archCIL:
		return "cil"
	}
	return ""
}

// minInsn is the step over bytes that do not decode.
func (a arch) minInsn() int {
	if a == archARM64 {
		return 4
	}
	return 1
}

// maxInsn is the longest encoding.
func (a arch) maxInsn() int {
	switch a {
	case archARM64:
		return 4
	case archCIL:
		return cilMaxInsn
	}
	return 15
}

// memRegion is one mapped section with its file bytes.
type memRegion struct {
	name     string
	addr     uint64
	size     uint64 // mapped size
	off      uint64 // absolute file offset of the first byte
	fileSize uint64 // bytes present in the file (<= size, and within the file)
	exec     bool
	plt      bool // an ELF .plt* section: import stubs, not functions
	index    int  // position in memMap.regions
}

func (r *memRegion) end() uint64 { return r.addr + r.size }

// memMap is the address space of one document, sorted by address.
type memMap struct {
	regions []memRegion
	starts  []uint64   // regions[i].addr, for a search without a closure
	clr     *clrTokens // a .NET assembly's tokens, for the CIL decoder
}

// newMemMap maps the sections of the image (the first slice of a universal
// Mach-O). Empty and unmapped sections are left out.
func newMemMap(img image) *memMap {
	var rs []memRegion
	var src *source // the file, set by each image's case below
	add := func(r memRegion) {
		if r.size == 0 || r.addr+r.size < r.addr {
			return
		}
		r.fileSize = min(r.fileSize, r.size)
		if src != nil {
			// A header may claim more file bytes than the file has: the
			// per-byte sets over code (codeSet) are sized by fileSize.
			r.fileSize = src.clamp(r.off, r.fileSize)
		}
		rs = append(rs, r)
	}
	switch im := img.(type) {
	case *elfImage:
		src = &im.src
		for i, s := range im.f.Sections {
			if i == 0 || s.Flags&elf.SHF_ALLOC == 0 || s.Type == elf.SHT_NULL {
				continue
			}
			r := memRegion{name: s.Name, addr: s.Addr, size: s.Size, off: s.Offset, fileSize: s.FileSize,
				exec: s.Flags&elf.SHF_EXECINSTR != 0, plt: strings.HasPrefix(s.Name, ".plt")}
			if s.Type == elf.SHT_NOBITS || s.Flags&elf.SHF_COMPRESSED != 0 {
				r.fileSize = 0
			}
			add(r)
		}
		if end := im.rel.externalEnd(); end > 0 {
			add(memRegion{name: externalBlock, addr: im.rel.ext[0].Address, size: end - im.rel.ext[0].Address}) // elf_rel.go
		}
		if len(rs) == 0 {
			n := 0
			for _, p := range im.f.Progs {
				if p.Type != elf.PT_LOAD {
					continue
				}
				add(memRegion{name: fmt.Sprintf("LOAD#%d", n), addr: p.Vaddr, size: p.Memsz, off: p.Off,
					fileSize: p.Filesz, exec: p.Flags&elf.PF_X != 0})
				n++
			}
		}
	case *peImage:
		src = &im.src
		for _, s := range im.sections {
			size := uint64(s.VirtualSize)
			if size == 0 {
				size = uint64(s.Size)
			}
			r := memRegion{name: s.Name, addr: im.base + uint64(s.VirtualAddress), size: size,
				off: uint64(s.Offset), fileSize: uint64(s.Size), exec: isCode(s)}
			if s.Offset == 0 {
				r.fileSize = 0
			}
			add(r)
		}
	case *machoImage:
		src = &im.src
		addMachO(im, add)
	case *fatImage:
		src = &im.slices[0].src
		addMachO(im.slices[0], add)
	}
	slices.SortStableFunc(rs, func(a, b memRegion) int { return cmp.Compare(a.addr, b.addr) })
	starts := make([]uint64, len(rs))
	for i := range rs {
		rs[i].index = i
		starts[i] = rs[i].addr
	}
	mm := &memMap{regions: rs, starts: starts}
	if pe, ok := img.(*peImage); ok && pe.cil() {
		mm.clr = pe.clrTok
	}
	return mm
}

func addMachO(m *machoImage, add func(memRegion)) {
	for _, s := range m.f.Sections {
		r := memRegion{name: s.Seg + "," + s.Name, addr: s.Addr, size: s.Size, exec: isMachOCode(s.Flags)}
		if !isZerofill(s.Flags) && s.Offset != 0 {
			r.off, r.fileSize = m.base+uint64(s.Offset), s.Size
		}
		add(r)
	}
	if len(m.f.Sections) > 0 {
		return
	}
	for _, l := range m.f.Loads {
		if g, ok := l.(*macho.Segment); ok {
			add(memRegion{name: g.Name, addr: g.Addr, size: g.Memsz, off: m.base + g.Offset, fileSize: g.Filesz, exec: g.Prot&4 != 0})
		}
	}
}

// find returns the region holding addr, or nil. Of overlapping regions (only
// in malformed files) the one starting last wins.
func (m *memMap) find(addr uint64) *memRegion {
	// i is the number of regions starting at or before addr.
	i, j := 0, len(m.starts)
	for i < j {
		h := int(uint(i+j) >> 1)
		if m.starts[h] <= addr {
			i = h + 1
		} else {
			j = h
		}
	}
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		if r := &m.regions[j]; addr >= r.addr && addr < r.end() {
			return r
		}
	}
	return nil
}

// code returns the executable region with file bytes holding addr, or nil.
func (m *memMap) code(addr uint64) *memRegion {
	r := m.find(addr)
	if r == nil || !r.exec || addr-r.addr >= r.fileSize {
		return nil
	}
	return r
}

// isCode reports whether addr is in an executable region with file bytes.
func (m *memMap) isCode(addr uint64) bool { return m.code(addr) != nil }

// mapped reports whether addr is inside a mapped region.
func (m *memMap) mapped(addr uint64) bool { return m.find(addr) != nil }

// read returns up to n file bytes at addr, stopping at the end of the
// region's file data.
func (m *memMap) read(src source, addr uint64, n uint64) ([]byte, error) {
	return m.bytes(src, addr, n, source.read)
}

// view is read without a copy when the file is mapped (source.view).
func (m *memMap) view(src source, addr uint64, n uint64) ([]byte, error) {
	return m.bytes(src, addr, n, source.view)
}

func (m *memMap) bytes(src source, addr uint64, n uint64, read func(source, uint64, uint64) ([]byte, error)) ([]byte, error) {
	r := m.find(addr)
	if r == nil || addr-r.addr >= r.fileSize {
		return nil, fmt.Errorf("address 0x%x has no file bytes: %w", addr, ports.ErrNotFound)
	}
	n = min(n, r.fileSize-(addr-r.addr))
	n = src.clamp(r.off+(addr-r.addr), n)
	if n == 0 {
		return nil, fmt.Errorf("address 0x%x is beyond the end of the file: %w", addr, ports.ErrNotFound)
	}
	return read(src, r.off+(addr-r.addr), n)
}

// Internal reference kinds and flags.
const (
	kindCall uint8 = iota
	kindJump
	kindRead
	kindWrite
	kindAddress
	kindPointer // a procedure start stored in data: from is the slot (pointers.go)

	flagUnresolved uint8 = 1 << 0 // an indirect call or jump; to is the slot, or 0
	// flagImportSlot marks a call or jump through an import's slot (a PE
	// IAT entry, a Mach-O bound pointer, an ELF GOT slot): a call or tail
	// call to that import, resolved, to the slot.
	flagImportSlot uint8 = 1 << 1
)

var refKindNames = [...]string{ports.RefCall, ports.RefJump, ports.RefRead, ports.RefWrite, ports.RefAddress, ports.RefPointer}

// xref is one reference in compact form.
type xref struct {
	from, to uint64
	kind     uint8
	flags    uint8
}

func (x xref) resolved() bool { return x.flags&flagUnresolved == 0 }

// insn is what a sweep learns from one instruction.
type insn struct {
	addr      uint64
	size      int
	flow      ports.Flow
	target    uint64
	hasTarget bool
	invalid   bool
	refs      []xref   // points into the decoder's buffer: copy before the next step
	table     []uint64 // jump-table targets of an indirect jump; points into the decoder's buffer
}

// decoder decodes one instruction at a time for a linear sweep. It keeps
// the state that spans instructions (recent instructions for jump tables,
// register values for ADRP pairs); reset clears it at the start of a sweep
// over code, whose first byte is at base.
type decoder interface {
	reset(code []byte, base uint64)
	// step decodes the instruction at pc from b (the bytes from pc on; at
	// least one byte). It never fails: bytes that do not decode are an
	// invalid instruction of the architecture's minimum size.
	step(b []byte, pc uint64, out *insn)
	// format decodes the instruction at pc again and renders it.
	format(b []byte, pc uint64, in *insn, name func(uint64) string) ports.Instruction
	// appendText appends the Text format would render, without
	// allocating when the architecture allows it.
	appendText(dst, b []byte, pc uint64, in *insn, name func(uint64) string) []byte
}

// ranged is a decoder whose state spans a whole range (32-bit x86's
// registers holding addresses, pic32.go), which it must know the end of:
// limit, called after reset, gives it.
type ranged interface {
	limit(end uint64)
}

// newDecoder returns the decoder of an architecture, or nil when the
// provider does not decode it. mm and src let x86 and AArch64 read jump
// tables.
func newDecoder(a arch, mm *memMap, src source) decoder {
	switch a {
	case archX86:
		return newX86(32, mm, src)
	case archX8664:
		return newX86(64, mm, src)
	case archARM64:
		return &arm64Decoder{mm: mm, src: src}
	case archCIL:
		return &cilDecoder{tok: mm.clr}
	}
	return nil
}

// sweep decodes [start, end) linearly, calling visit for each instruction
// until visit returns false, max instructions were decoded, or the range
// ends. b holds the bytes from start, possibly past end (an instruction that
// starts before end may extend beyond it, as objdump decodes it). It
// reports the instructions decoded and whether max stopped it.
func sweep(d decoder, b []byte, start, end uint64, max int, visit func(*insn) bool) (int, bool) {
	d.reset(b, start)
	if r, ok := d.(ranged); ok {
		r.limit(end)
	}
	var in insn
	n := 0
	for pc := start; pc < end && pc-start < uint64(len(b)); {
		if n >= max {
			return n, true
		}
		in = insn{}
		d.step(b[pc-start:], pc, &in)
		n++
		if !visit(&in) {
			return n, false
		}
		pc += uint64(in.size)
	}
	return n, false
}

// codeBytes reads the bytes of [start, end) plus the longest instruction's
// worth beyond, within the code region holding start.
func codeBytes(ctx context.Context, src source, mm *memMap, a arch, start, end uint64) ([]byte, error) {
	r := mm.code(start)
	if r == nil {
		return nil, fmt.Errorf("0x%x is not in a code section with file bytes: %w", start, ports.ErrNotFound)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	limit := r.addr + r.fileSize
	stop := min(max(end, start)+uint64(a.maxInsn()), limit)
	if stop < start { // wrapped
		stop = limit
	}
	return mm.view(src, start, stop-start)
}
