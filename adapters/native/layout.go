package native

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"rea/ports"
)

var _ ports.LayoutReader = (*Provider)(nil)

// shtRELR is SHT_RELR (packed relative relocations), which debug/elf does
// not name.
const shtRELR = elf.SectionType(19)

// ReadLayout reads the header structure of an ELF x86-64, AArch64 or 32-bit
// x86 image: sections,
// segments, symbols, relocations, packed relative relocations and dynamic
// linkage. Other formats and machines are ports.ErrUnsupported. Names keep
// their raw bytes and where they were read. It reads through r only and
// recovers from debug/elf's panics on corrupt input.
func (p *Provider) ReadLayout(ctx context.Context, r io.ReaderAt, size int64) (*ports.Layout, error) {
	return readLayout(ctx, r, size, p.opts, nil)
}

var _ ports.TargetLayoutReader = (*Analysis)(nil)

// ReadTargetLayout is ReadLayout of the analysis's own bytes, with the
// analysis's options: a stripped static program's code is told by this
// analysis, which has read the signature libraries at open, rather than
// by a second one (layout_program.go). An analysis with a separate debug
// or supplementary file, whose symbols would tell the program apart
// differently, has the second one opened as ReadLayout does, so that the
// result is the same either way.
func (a *Analysis) ReadTargetLayout(ctx context.Context, r io.ReaderAt, size int64) (*ports.Layout, error) {
	release := a.fg.enter()
	defer release()
	leave, err := a.enter(ctx, "layout")
	if err != nil {
		return nil, err
	}
	defer leave()
	opts := a.opts
	opts.sha256 = "" // as a provider's: the second analysis, if opened, digests the bytes itself
	var own *Analysis
	if size == a.src.size && a.debug == nil && a.sup == nil {
		own = a
	}
	return readLayout(ctx, r, size, opts, own)
}

// readLayout reads the layout with opts; own, when not nil, is an open
// analysis of the same bytes that the program's code is told by.
func readLayout(ctx context.Context, r io.ReaderAt, size int64, opts Options, own *Analysis) (l *ports.Layout, err error) {
	defer recoverInto("elf", "layout", &err)
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n < 4 || string(magic[:]) != elf.ELFMAG {
		return nil, fmt.Errorf("native: layout: only ELF images are read: %w", ports.ErrUnsupported)
	}
	src := source{r: r, size: size, format: "elf"}
	f, err := elf.NewFile(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("native: layout: %w", src.explain(classify("elf", err)))
	}
	wide := f.Class == elf.ELFCLASS64
	if !(wide && (f.Machine == elf.EM_X86_64 || f.Machine == elf.EM_AARCH64) || f.Class == elf.ELFCLASS32 && f.Machine == elf.EM_386) {
		return nil, fmt.Errorf("native: layout: %s %s is not read; ELF x86-64, AArch64 and 32-bit x86 only: %w", f.Class, f.Machine, ports.ErrUnsupported)
	}
	bits := 32
	if wide {
		bits = 64
	}
	lr := &layoutReader{ctx: ctx, src: src, f: f, wide: wide, opts: opts, own: own, l: &ports.Layout{
		Format: "elf", Machine: f.Machine.String(), Bits: bits, ByteOrder: "little",
		ImageType: enumName(f.Type.String(), "ET_", uint64(f.Type)), Entry: f.Entry,
	}}
	if f.ByteOrder == binary.BigEndian {
		lr.l.ByteOrder = "big"
	}
	for _, step := range []func() error{lr.sections, lr.segments, lr.symbols, lr.relocations, lr.packed, lr.dynamic, lr.programMitigations} {
		if err := step(); err != nil {
			return nil, fmt.Errorf("native: layout: %w", classify("elf", err))
		}
	}
	return lr.l, nil
}

type layoutReader struct {
	ctx    context.Context
	src    source
	f      *elf.File
	wide   bool      // ELFCLASS64: the entries of the tables below are 64-bit
	opts   Options   // the provider's: its signature libraries tell a stripped static program's code (layout_program.go)
	own    *Analysis // an open analysis of the same bytes that tells it instead, or nil
	l      *ports.Layout
	tables map[int][]byte               // string table data by section index
	syms   map[int][]ports.LayoutSymbol // symbols by symbol-table section index
}

func (lr *layoutReader) diag(format string, args ...any) {
	lr.l.Diagnostics = append(lr.l.Diagnostics, fmt.Sprintf(format, args...))
}

func (lr *layoutReader) tick(i int) error {
	if i%4096 == 0 {
		return lr.ctx.Err()
	}
	return nil
}

// symSize is the size of a symbol table entry.
func (lr *layoutReader) symSize() uint64 {
	if lr.wide {
		return 24
	}
	return 16
}

// enumName keeps a debug/elf name when it is a plain constant and otherwise
// writes prefix plus the hex value (debug/elf writes "SHT_X+3" or digits).
func enumName(s, prefix string, v uint64) string {
	if strings.HasPrefix(s, prefix) && !strings.Contains(s, "+") {
		return s
	}
	return prefix + "0x" + strconv.FormatUint(v, 16)
}

// headerNames reads each section header's sh_name, which debug/elf drops.
func (lr *layoutReader) headerNames() []uint64 {
	var hdr [64]byte
	if n, _ := lr.src.r.ReadAt(hdr[:], 0); n < 64 {
		return nil
	}
	e, ok := readELFHeader(hdr[:])
	shoff, shentsize := e.shoff, uint64(e.shentsize)
	if !ok || shentsize < 4 {
		return nil
	}
	out := make([]uint64, len(lr.f.Sections))
	for i := range out {
		b, err := lr.src.read(shoff+uint64(i)*shentsize, 4)
		if err != nil {
			return nil
		}
		out[i] = uint64(e.order.Uint32(b))
	}
	return out
}

// shstrndx reads e_shstrndx (with extended numbering in section 0's
// sh_link), or -1.
func (lr *layoutReader) shstrndx() int {
	var hdr [64]byte
	if n, _ := lr.src.r.ReadAt(hdr[:], 0); n < 64 {
		return -1
	}
	e, ok := readELFHeader(hdr[:])
	if !ok {
		return -1
	}
	i := int(e.shstrndx)
	if i == int(elf.SHN_XINDEX) && len(lr.f.Sections) > 0 {
		i = int(lr.f.Sections[0].Link)
	}
	if i <= 0 || i >= len(lr.f.Sections) {
		return -1
	}
	return i
}

// maxLayoutEntries bounds the entries the layout lists per symbol or
// relocation table: a sparse file can declare hundreds of millions.
const maxLayoutEntries = 1 << 17

// bounded reads the first maxLayoutEntries entries of table s, noting a
// cut in the diagnostics.
func (lr *layoutReader) bounded(s *elf.Section, ent uint64) ([]byte, error) {
	n := s.FileSize / ent
	if n > maxLayoutEntries {
		lr.diag("%s holds %d entries; the layout lists the first %d", s.Name, n, maxLayoutEntries)
		n = maxLayoutEntries
	}
	return lr.src.read(s.Offset, n*ent)
}

// table returns the data of string-table section i, cached.
func (lr *layoutReader) table(i int) ([]byte, bool) {
	if lr.tables == nil {
		lr.tables = map[int][]byte{}
	}
	if b, ok := lr.tables[i]; ok {
		return b, b != nil
	}
	if i <= 0 || i >= len(lr.f.Sections) {
		return nil, false
	}
	s := lr.f.Sections[i]
	var b []byte
	switch {
	case s.FileSize > maxWholeStrtab:
		lr.diag("string table %s of %d bytes exceeds the %d bytes the layout reads; names in it are unavailable", s.Name, s.FileSize, maxWholeStrtab)
	case s.Type != elf.SHT_NOBITS && lr.src.contains(s.Offset, s.FileSize):
		b, _ = lr.src.read(s.Offset, s.FileSize)
	}
	lr.tables[i] = b
	return b, b != nil
}

// name reads a NUL-terminated name at off in string-table section idx.
func (lr *layoutReader) name(idx int, off uint64) ports.LayoutName {
	n := ports.LayoutName{Offset: off}
	if idx > 0 && idx < len(lr.f.Sections) {
		n.Table = lr.f.Sections[idx].Name
	}
	b, ok := lr.table(idx)
	switch {
	case !ok:
		n.UnknownReason = "string-table-unavailable"
	case off >= uint64(len(b)):
		n.UnknownReason = "offset-outside-string-table"
	default:
		end := bytes.IndexByte(b[off:], 0)
		if end < 0 {
			n.UnknownReason = "unterminated-name"
		} else {
			n.Bytes, n.Known = bytes.Clone(b[off:off+uint64(end)]), true
		}
	}
	return n
}

var sectionFlags = []struct {
	bit  elf.SectionFlag
	name string
}{
	{elf.SHF_WRITE, "SHF_WRITE"}, {elf.SHF_ALLOC, "SHF_ALLOC"}, {elf.SHF_EXECINSTR, "SHF_EXECINSTR"},
	{elf.SHF_MERGE, "SHF_MERGE"}, {elf.SHF_STRINGS, "SHF_STRINGS"}, {elf.SHF_INFO_LINK, "SHF_INFO_LINK"},
	{elf.SHF_LINK_ORDER, "SHF_LINK_ORDER"}, {elf.SHF_OS_NONCONFORMING, "SHF_OS_NONCONFORMING"},
	{elf.SHF_GROUP, "SHF_GROUP"}, {elf.SHF_TLS, "SHF_TLS"}, {elf.SHF_COMPRESSED, "SHF_COMPRESSED"},
}

func (lr *layoutReader) sections() error {
	names := lr.headerNames()
	shstrndx := lr.shstrndx()
	for i, s := range lr.f.Sections {
		if err := lr.tick(i); err != nil {
			return err
		}
		sec := ports.LayoutSection{
			Index: i, Type: elfSectionType(s.Type), Address: s.Addr, Offset: s.Offset, Size: s.FileSize,
			Link: s.Link, Info: s.Info, Align: s.Addralign, EntrySize: s.Entsize,
			Compressed: s.Flags&elf.SHF_COMPRESSED != 0, Flags: []string{},
		}
		for _, fl := range sectionFlags {
			if s.Flags&fl.bit != 0 {
				sec.Flags = append(sec.Flags, fl.name)
			}
		}
		if names != nil && shstrndx > 0 {
			sec.Name = lr.name(shstrndx, names[i])
		} else {
			sec.Name = ports.LayoutName{Bytes: []byte(s.Name), Known: true}
		}
		if s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL {
			if lr.src.contains(s.Offset, s.FileSize) {
				sec.InFile, sec.FileSize = true, s.FileSize
			} else {
				lr.diag("section %d (%s) declares bytes [0x%x, +0x%x) outside the %d-byte file", i, s.Name, s.Offset, s.FileSize, lr.src.size)
			}
		}
		lr.l.Sections = append(lr.l.Sections, sec)
	}
	return nil
}

func elfSectionType(t elf.SectionType) string {
	if t == shtRELR {
		return "SHT_RELR"
	}
	return enumName(t.String(), "SHT_", uint64(t))
}

func (lr *layoutReader) segments() error {
	for i, p := range lr.f.Progs {
		if err := lr.tick(i); err != nil {
			return err
		}
		seg := ports.LayoutSegment{
			Index: i, Type: enumName(p.Type.String(), "PT_", uint64(p.Type)),
			Offset: p.Off, FileSize: p.Filesz, VirtAddr: p.Vaddr, PhysAddr: p.Paddr, MemSize: p.Memsz, Align: p.Align,
			Read: p.Flags&elf.PF_R != 0, Write: p.Flags&elf.PF_W != 0, Execute: p.Flags&elf.PF_X != 0,
			InFile: lr.src.contains(p.Off, p.Filesz), SectionIndexesMapped: []int{},
		}
		if !seg.InFile {
			lr.diag("segment %d (%s) declares bytes [0x%x, +0x%x) outside the %d-byte file", i, seg.Type, p.Off, p.Filesz, lr.src.size)
		}
		if p.Type == elf.PT_LOAD || p.Type == elf.PT_GNU_RELRO || p.Type == elf.PT_DYNAMIC || p.Type == elf.PT_INTERP {
			for j, s := range lr.f.Sections {
				if j > 0 && s.Flags&elf.SHF_ALLOC != 0 && s.Addr >= p.Vaddr && s.Addr+s.Size <= p.Vaddr+p.Memsz && s.Size > 0 {
					seg.SectionIndexesMapped = append(seg.SectionIndexesMapped, j)
				}
			}
		}
		switch p.Type {
		case elf.PT_GNU_STACK:
			c := seg
			lr.l.Dynamic.GNUStack = &c
		case elf.PT_GNU_RELRO:
			c := seg
			lr.l.Dynamic.GNURelro = &c
		case elf.PT_INTERP:
			if seg.InFile {
				b, err := lr.src.read(p.Off, p.Filesz)
				if err != nil {
					return err
				}
				n := ports.LayoutName{Offset: p.Off, Known: true, Bytes: bytes.TrimRight(b, "\x00")}
				lr.l.Interpreters = append(lr.l.Interpreters, n)
			} else {
				lr.l.Interpreters = append(lr.l.Interpreters, ports.LayoutName{Offset: p.Off, UnknownReason: "outside-file"})
			}
		}
		lr.l.Segments = append(lr.l.Segments, seg)
	}
	return nil
}

// symbols reads .symtab and .dynsym entry by entry, so each name keeps its
// string-table offset and unreadable names stay visible.
func (lr *layoutReader) symbols() error {
	lr.syms = map[int][]ports.LayoutSymbol{}
	for i, s := range lr.f.Sections {
		if s.Type != elf.SHT_SYMTAB && s.Type != elf.SHT_DYNSYM {
			continue
		}
		table := "symtab"
		var versions []string
		if s.Type == elf.SHT_DYNSYM {
			table = "dynsym"
			// From the version sections: the table itself is read once,
			// below (layout_versions.go).
			versions = lr.dynVersions(s, int(min(s.FileSize/lr.symSize(), maxLayoutEntries))-1)
		}
		if !lr.src.contains(s.Offset, s.FileSize) {
			lr.diag("symbol table %s lies outside the file", s.Name)
			continue
		}
		entSize := lr.symSize()
		if s.FileSize%entSize != 0 {
			lr.diag("symbol table %s size 0x%x is not a multiple of %d", s.Name, s.FileSize, entSize)
		}
		data, err := lr.bounded(s, entSize)
		if err != nil {
			return err
		}
		list := make([]ports.LayoutSymbol, 0, max(len(data)/int(entSize)-1, 0)) // data is bounded (lr.bounded)
		for j := 1; uint64(j+1)*entSize <= uint64(len(data)); j++ {
			if err := lr.tick(j); err != nil {
				return err
			}
			e := data[uint64(j)*entSize:]
			bo := lr.f.ByteOrder
			// ELF64: st_name, st_info, st_other, st_shndx, st_value, st_size;
			// ELF32: st_name, st_value, st_size, st_info, st_other, st_shndx.
			info, other, shndx := e[12], e[13], bo.Uint16(e[14:])
			value, size := uint64(bo.Uint32(e[4:])), uint64(bo.Uint32(e[8:]))
			if lr.wide {
				info, other, shndx = e[4], e[5], bo.Uint16(e[6:])
				value, size = bo.Uint64(e[8:]), bo.Uint64(e[16:])
			}
			sym := ports.LayoutSymbol{
				Table: table, Index: j, Name: lr.name(int(s.Link), uint64(bo.Uint32(e[0:]))),
				Value: value, Size: size,
				Type:         enumName(elf.SymType(info&0xf).String(), "STT_", uint64(info&0xf)),
				Binding:      enumName(elf.SymBind(info>>4).String(), "STB_", uint64(info>>4)),
				Visibility:   enumName(elf.SymVis(other&3).String(), "STV_", uint64(other&3)),
				SectionIndex: shndx,
			}
			if shndx > 0 && shndx < uint16(elf.SHN_LORESERVE) && int(shndx) < len(lr.f.Sections) {
				sym.Section = lr.f.Sections[shndx].Name
			}
			if j-1 < len(versions) {
				sym.Version = versions[j-1]
			}
			if n := string(sym.Name.Bytes); n == "__stack_chk_fail" || n == "__stack_chk_guard" {
				lr.l.Dynamic.StackCanary = true
			}
			list = append(list, sym)
		}
		lr.syms[i] = list
		lr.l.Symbols = append(lr.l.Symbols, list...)
	}
	return nil
}

func (lr *layoutReader) relocations() error {
	for _, s := range lr.f.Sections {
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		if !lr.src.contains(s.Offset, s.FileSize) {
			lr.diag("relocation section %s lies outside the file", s.Name)
			continue
		}
		rela := s.Type == elf.SHT_RELA
		ent := 16 // r_offset, r_info (and r_addend) of the file's word size
		if !lr.wide {
			ent = 8
		}
		if rela {
			ent += ent / 2
		}
		if s.FileSize%uint64(ent) != 0 {
			lr.diag("relocation section %s size 0x%x is not a multiple of %d", s.Name, s.FileSize, ent)
		}
		data, err := lr.bounded(s, uint64(ent))
		if err != nil {
			return err
		}
		syms := lr.syms[int(s.Link)]
		bo := lr.f.ByteOrder
		for j := 0; (j+1)*ent <= len(data); j++ {
			if err := lr.tick(j); err != nil {
				return err
			}
			e := data[j*ent:]
			var rel ports.LayoutRelocation
			if lr.wide {
				info := bo.Uint64(e[8:])
				rel = ports.LayoutRelocation{Offset: bo.Uint64(e[0:]), SymbolIndex: uint32(info >> 32), Type: relocName(lr.f.Machine, uint32(info))}
				if rela {
					rel.Addend, rel.HasAddend = int64(bo.Uint64(e[16:])), true
				}
			} else {
				info := bo.Uint32(e[4:])
				rel = ports.LayoutRelocation{Offset: uint64(bo.Uint32(e[0:])), SymbolIndex: info >> 8, Type: relocName(lr.f.Machine, info&0xff)}
				if rela {
					rel.Addend, rel.HasAddend = int64(int32(bo.Uint32(e[8:]))), true
				}
			}
			rel.Section, rel.Index = s.Name, j
			if si := int(rel.SymbolIndex); si > 0 {
				if si-1 < len(syms) {
					n := syms[si-1].Name
					rel.Symbol = &n
				} else {
					rel.Symbol = &ports.LayoutName{UnknownReason: "symbol-index-outside-table"}
				}
			}
			lr.l.Relocations = append(lr.l.Relocations, rel)
		}
	}
	return nil
}

// relocName names relocation type t of machine m as debug/elf does.
func relocName(m elf.Machine, t uint32) string {
	switch m {
	case elf.EM_AARCH64:
		return enumName(elf.R_AARCH64(t).String(), "R_AARCH64_", uint64(t))
	case elf.EM_386:
		return enumName(elf.R_386(t).String(), "R_386_", uint64(t))
	}
	return enumName(elf.R_X86_64(t).String(), "R_X86_64_", uint64(t))
}

// packed decodes SHT_RELR: an even entry is an address, an odd entry a
// bitmap of the 63 (in ELF32, 31) words that follow the last address.
func (lr *layoutReader) packed() error {
	for _, s := range lr.f.Sections {
		if s.Type != shtRELR {
			continue
		}
		if !lr.src.contains(s.Offset, s.FileSize) {
			lr.diag("packed relocation section %s lies outside the file", s.Name)
			continue
		}
		data, err := lr.src.read(s.Offset, s.FileSize)
		if err != nil {
			return err
		}
		pr := ports.LayoutPackedRelocations{Section: s.Name, Offset: s.Offset, Size: s.FileSize, Addresses: []uint64{}}
		var where uint64
		w := uint64(8) // the word size
		if !lr.wide {
			w = 4
		}
		for j := uint64(0); (j+1)*w <= uint64(len(data)); j++ {
			if err := lr.tick(int(j)); err != nil {
				return err
			}
			pr.Entries++
			e := uint64(lr.f.ByteOrder.Uint32(data[j*w:]))
			if lr.wide {
				e = lr.f.ByteOrder.Uint64(data[j*w:])
			}
			if e&1 == 0 {
				pr.Addresses = append(pr.Addresses, e)
				where = e + w
				continue
			}
			for bit := uint64(1); bit < 8*w; bit++ {
				if e&(1<<bit) != 0 {
					pr.Addresses = append(pr.Addresses, where+(bit-1)*w)
				}
			}
			where += (8*w - 1) * w
		}
		lr.l.Packed = append(lr.l.Packed, pr)
	}
	return nil
}

// Dynamic tags and flags read from .dynamic.
const (
	dtNeeded  = 1
	dtSOName  = 14
	dtRPath   = 15
	dtTextRel = 22
	dtBindNow = 24
	dtRunPath = 29
	dtFlags   = 30
	dtFlags1  = 0x6ffffffb
	dfTextRel = 0x4
	dfBindNow = 0x8
	df1Now    = 0x1
	df1PIE    = 0x08000000
)

func (lr *layoutReader) dynamic() error {
	for _, s := range lr.f.Sections {
		switch s.Name {
		case ".got", ".got.plt":
			lr.l.Dynamic.GOT = append(lr.l.Dynamic.GOT, ports.LayoutRange{Name: s.Name, Address: s.Addr, Size: s.Size})
		case ".plt", ".plt.got", ".plt.sec":
			lr.l.Dynamic.PLT = append(lr.l.Dynamic.PLT, ports.LayoutRange{Name: s.Name, Address: s.Addr, Size: s.Size})
		}
	}
	var dyn *elf.Section
	for _, s := range lr.f.Sections {
		if s.Type == elf.SHT_DYNAMIC {
			dyn = s
			break
		}
	}
	if dyn == nil {
		for _, p := range lr.f.Progs {
			if p.Type == elf.PT_DYNAMIC {
				lr.diag("PT_DYNAMIC is present but no SHT_DYNAMIC section describes it; dynamic linkage is not read")
			}
		}
		return nil
	}
	lr.l.Dynamic.Present = true
	if !lr.src.contains(dyn.Offset, dyn.FileSize) {
		lr.diag("dynamic section %s lies outside the file", dyn.Name)
		return nil
	}
	data, err := lr.src.read(dyn.Offset, dyn.FileSize)
	if err != nil {
		return err
	}
	bo := lr.f.ByteOrder
	ent := 16 // d_tag, d_val of the file's word size
	if !lr.wide {
		ent = 8
	}
	for j := 0; (j+1)*ent <= len(data); j++ {
		tag, val := int64(bo.Uint64(data[j*ent:])), bo.Uint64(data[j*ent+8:])
		if !lr.wide {
			tag, val = int64(int32(bo.Uint32(data[j*ent:]))), uint64(bo.Uint32(data[j*ent+4:]))
		}
		if tag == 0 {
			break
		}
		switch tag {
		case dtNeeded:
			lr.l.Needed = append(lr.l.Needed, lr.name(int(dyn.Link), val))
		case dtSOName:
			n := lr.name(int(dyn.Link), val)
			lr.l.SOName = &n
		case dtRPath, dtRunPath:
			lr.l.RunPaths = append(lr.l.RunPaths, lr.name(int(dyn.Link), val))
		case dtTextRel:
			lr.l.Dynamic.TextRel = true
		case dtBindNow:
			lr.l.Dynamic.BindNow = true
		case dtFlags:
			lr.l.Dynamic.BindNow = lr.l.Dynamic.BindNow || val&dfBindNow != 0
			lr.l.Dynamic.TextRel = lr.l.Dynamic.TextRel || val&dfTextRel != 0
		case dtFlags1:
			lr.l.Dynamic.BindNow = lr.l.Dynamic.BindNow || val&df1Now != 0
			lr.l.Dynamic.PIEFlag = val&df1PIE != 0
		}
	}
	return nil
}
