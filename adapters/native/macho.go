package native

import (
	"context"
	"debug/macho"
	"fmt"
	"strings"

	"rea/ports"
)

// Mach-O load commands and section flags that debug/macho does not name.
const (
	lcSegment        = 0x1
	lcUnixThread     = 0x5
	lcSegment64      = 0x19
	lcFunctionStarts = 0x26
	lcMain           = 0x80000028
	lcLoadDylib      = 0xc
	lcLoadWeakDylib  = 0x80000018
	lcReexportDylib  = 0x8000001f
	lcLazyLoadDylib  = 0x20
	lcLoadUpward     = 0x80000023
	mhTwoLevel       = 0x80

	sectionType         = 0x000000ff
	sZerofill           = 0x01
	sNonLazyPointers    = 0x06
	sLazyPointers       = 0x07
	sSymbolStubs        = 0x08
	sGBZerofill         = 0x0c
	sLazyDylibPointers  = 0x10
	sThreadLocalZerofil = 0x12
	attrPureInstr       = 0x80000000
	attrSomeInstr       = 0x00000400
	attrDebug           = 0x02000000

	indirectLocal = 0x80000000
	indirectAbs   = 0x40000000

	nStab    = 0xe0
	nTypeMsk = 0x0e
	nSect    = 0x0e
	nExt     = 0x01
	nWeakDef = 0x0080
)

type machoImage struct {
	src      source
	base     uint64      // offset of this slice in the file
	f        *macho.File // parsed with empty symbol tables (patch.go)
	tables   machoTables // the symbol tables, read by symbols
	reserved [][2]uint32 // reserved1, reserved2 of each section, parallel to f.Sections
	dbg      *debugFile  // the dSYM whose symbols join the target's (dsym.go), or nil
}

func newMachO(src source) (image, error) {
	patches, tables, err := machoPatches(src, 0)
	if err != nil {
		return nil, err
	}
	f, err := macho.NewFile(view(src.r, patches))
	if err != nil {
		return nil, classify("mach-o", err)
	}
	return newMachOSlice(src, 0, f, tables), nil
}

func newMachOSlice(src source, base uint64, f *macho.File, tables machoTables) *machoImage {
	m := &machoImage{src: src, base: base, f: f, tables: tables}
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) < 8 {
			continue
		}
		var hdr, size, nsectsAt, r1At int
		switch f.ByteOrder.Uint32(raw) {
		case lcSegment64:
			hdr, size, nsectsAt, r1At = 72, 80, 64, 68
		case lcSegment:
			hdr, size, nsectsAt, r1At = 56, 68, 48, 60
		default:
			continue
		}
		if len(raw) < hdr {
			continue
		}
		n := int(f.ByteOrder.Uint32(raw[nsectsAt:]))
		for i := 0; i < n && hdr+(i+1)*size <= len(raw); i++ {
			s := raw[hdr+i*size:]
			m.reserved = append(m.reserved, [2]uint32{f.ByteOrder.Uint32(s[r1At:]), f.ByteOrder.Uint32(s[r1At+4:])})
		}
	}
	if len(m.reserved) != len(f.Sections) {
		m.reserved = make([][2]uint32, len(f.Sections))
	}
	return m
}

func (m *machoImage) format() string { return "mach-o" }

func machoArch(c macho.Cpu) string {
	switch c {
	case macho.Cpu386:
		return "x86"
	case macho.CpuAmd64:
		return "x86_64"
	case macho.CpuArm:
		return "arm"
	case macho.CpuArm64:
		return "arm64"
	case macho.CpuPpc:
		return "ppc"
	case macho.CpuPpc64:
		return "ppc64"
	}
	return fmt.Sprintf("mach-o-cpu-0x%x", uint32(c))
}

func (m *machoImage) documents(name string) []ports.Document {
	d := ports.Document{Name: name, Format: "mach-o", Architecture: machoArch(m.f.Cpu)}
	d.Entry, d.HasEntry = m.entry()
	return []ports.Document{d}
}

// entry reads LC_MAIN, or the program counter of LC_UNIXTHREAD.
func (m *machoImage) entry() (uint64, bool) {
	bo := m.f.ByteOrder
	for _, l := range m.f.Loads {
		raw := l.Raw()
		if len(raw) < 16 {
			continue
		}
		switch bo.Uint32(raw) {
		case lcMain:
			return m.fileToAddr(bo.Uint64(raw[8:]))
		case lcUnixThread:
			// flavor, count, then the register state of the first flavor.
			var pcAt int
			var wide bool
			switch flavor := bo.Uint32(raw[8:]); {
			case m.f.Cpu == macho.CpuAmd64 && flavor == 4:
				pcAt, wide = 16+16*8, true
			case m.f.Cpu == macho.CpuArm64 && flavor == 6:
				pcAt, wide = 16+32*8, true
			case m.f.Cpu == macho.Cpu386 && flavor == 1:
				pcAt = 16 + 10*4
			case m.f.Cpu == macho.CpuArm && flavor == 1:
				pcAt = 16 + 15*4
			default:
				continue
			}
			if wide && pcAt+8 <= len(raw) {
				return bo.Uint64(raw[pcAt:]), true
			}
			if !wide && pcAt+4 <= len(raw) {
				return uint64(bo.Uint32(raw[pcAt:])), true
			}
		}
	}
	return 0, false
}

// fileToAddr maps a slice file offset to its address through the segments.
func (m *machoImage) fileToAddr(off uint64) (uint64, bool) {
	for _, l := range m.f.Loads {
		if s, ok := l.(*macho.Segment); ok && s.Filesz > 0 && off >= s.Offset && off-s.Offset < s.Filesz {
			return s.Addr + off - s.Offset, true
		}
	}
	return 0, false
}

func isZerofill(flags uint32) bool {
	t := flags & sectionType
	return t == sZerofill || t == sGBZerofill || t == sThreadLocalZerofil
}

func isMachOCode(flags uint32) bool { return flags&(attrPureInstr|attrSomeInstr) != 0 }

func (m *machoImage) segments(ctx context.Context) ([]ports.Segment, error) {
	var out []ports.Segment
	for _, s := range m.f.Sections {
		seg := ports.Segment{
			Name:  s.Seg + "," + s.Name,
			Kind:  "section",
			Start: s.Addr,
			Size:  s.Size,
		}
		if !isZerofill(s.Flags) {
			seg.FileSize = s.Size
			if s.Offset != 0 {
				seg.FileOffset = m.base + uint64(s.Offset)
			}
		}
		if g := m.f.Segment(s.Seg); g != nil {
			seg.Perms = machoPerms(g.Prot)
		}
		out = append(out, seg)
	}
	if len(out) > 0 {
		return out, ctx.Err()
	}
	return machoLoads(m), ctx.Err()
}

func machoPerms(prot uint32) ports.Permissions {
	return ports.Permissions{Read: prot&1 != 0, Write: prot&2 != 0, Execute: prot&4 != 0}
}

func (m *machoImage) stringRegions(ctx context.Context) ([]region, error) {
	var out []region
	for _, s := range m.f.Sections {
		if isMachOCode(s.Flags) || isZerofill(s.Flags) || s.Flags&attrDebug != 0 || s.Offset == 0 || s.Size == 0 {
			continue
		}
		out = append(out, region{name: s.Seg + "," + s.Name, addr: s.Addr, off: m.base + uint64(s.Offset), size: s.Size})
	}
	return out, ctx.Err()
}

func (m *machoImage) symbols(ctx context.Context) (*symbolSet, error) {
	set := &symbolSet{}
	// Indirect entries name symbols by index, whatever their kind: find
	// which ones before the table streams past.
	var stubs []machoStubs
	need := map[uint32]string{}
	if err := optional(ctx, func() (err error) { stubs, err = m.indirectSlots(need); return err }); err != nil {
		return nil, err
	}
	ords := map[uint32]uint8{}
	if err := m.readSymbols(ctx, set, need, ords); err != nil {
		return nil, classify("mach-o", err)
	}
	if err := m.dbg.addSymbols(ctx, set); err != nil {
		return nil, err
	}
	dylibs := m.dylibs()
	for _, st := range stubs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i, idx := range st.idx {
			name, addr := need[idx], st.sec.Addr+uint64(i)*st.stride
			if idx&(indirectLocal|indirectAbs) != 0 || name == "" {
				continue
			}
			lib := ""
			if o := int(ords[idx]); o >= 1 && o < 0xfe && o <= len(dylibs) { // not self, main executable or flat lookup
				lib = dylibs[o-1]
			}
			set.labels = append(set.labels, ports.Name{Address: addr, Name: name, Kind: "import", Library: lib})
			if st.stub {
				set.procs = append(set.procs, candidate{addr: addr, name: name, size: st.stride, source: "plt",
					rank: rankGlobal, thunk: true, external: true, target: name})
			}
		}
	}
	if err := optional(ctx, func() error { return m.functionStarts(ctx, set) }); err != nil {
		return nil, err
	}
	if addr, ok := m.entry(); ok {
		m.nameMain(set, addr)
		set.addEntry(addr)
	}
	m.nameExports(set)
	return set, nil
}

// dylibs lists the install names of the dylibs the image loads, in load
// command order: a two-level library ordinal n names the nth (1-based).
// A flat-namespace image binds by name alone and gets none.
func (m *machoImage) dylibs() []string {
	if m.f.Flags&mhTwoLevel == 0 {
		return nil
	}
	var out []string
	bo := m.f.ByteOrder
	for _, l := range m.f.Loads {
		raw := l.Raw()
		if len(raw) < 12 {
			continue
		}
		switch bo.Uint32(raw) {
		case lcLoadDylib, lcLoadWeakDylib, lcReexportDylib, lcLazyLoadDylib, lcLoadUpward:
			name := ""
			if at := bo.Uint32(raw[8:]); at < uint32(len(raw)) {
				name, _, _ = strings.Cut(string(raw[at:]), "\x00")
			}
			out = append(out, name) // kept even if empty: later ordinals count it
		}
	}
	return out
}

// readSymbols streams the LC_SYMTAB entries into set, filling need (symbol
// index to name) and ords (symbol index to the two-level library ordinal,
// the high byte of n_desc of an undefined symbol) on the way.
func (m *machoImage) readSymbols(ctx context.Context, set *symbolSet, need map[uint32]string, ords map[uint32]uint8) error {
	t := m.tables
	if !t.symtab {
		return nil
	}
	entSize := uint64(12)
	if m.f.Magic == macho.Magic64 {
		entSize = 16
	}
	n, err := symbolRange(m.src, set, "LC_SYMTAB", m.base+uint64(t.symoff), uint64(t.nsyms)*entSize, entSize)
	if err != nil {
		return err
	}
	names := newStrtab(ctx, m.src, m.base+uint64(t.stroff), uint64(t.strsize))
	bo := m.f.ByteOrder
	name := func(at uint32) string {
		// debug/macho strips the "_" the toolchain adds to Go symbols.
		s := names.name(at)
		if strings.Contains(s, ".") && strings.HasPrefix(s, "_") {
			s = s[1:]
		}
		return s
	}
	err = eachEntry(ctx, m.src, m.base+uint64(t.symoff), n, entSize, func(i uint64, b []byte) error {
		var s macho.Symbol
		at := bo.Uint32(b)
		s.Type, s.Sect, s.Desc = b[4], b[5], bo.Uint16(b[6:])
		if entSize == 16 {
			s.Value = bo.Uint64(b[8:])
		} else {
			s.Value = uint64(bo.Uint32(b[8:]))
		}
		if _, ok := need[uint32(i)]; ok && i < 1<<32 {
			need[uint32(i)] = name(at)
			if s.Type&nTypeMsk == 0 { // N_UNDF: bound from a library
				ords[uint32(i)] = uint8(s.Desc >> 8)
			}
		}
		if at == 0 || s.Value == 0 || s.Type&nStab != 0 || s.Type&nTypeMsk != nSect ||
			s.Sect == 0 || int(s.Sect) > len(m.f.Sections) || !set.keep() {
			return nil
		}
		if s.Name = name(at); s.Name == "" {
			return nil
		}
		sec := m.f.Sections[s.Sect-1]
		if !isMachOCode(sec.Flags) {
			set.labels = append(set.labels, ports.Name{Address: s.Value, Name: s.Name, Kind: "object"})
			return nil
		}
		if s.Value < sec.Addr || s.Value-sec.Addr >= sec.Size {
			// Outside the code section it names: the linker's
			// __mh_execute_header, which ld64 puts in section 1 at the
			// Mach-O header's address, is no procedure.
			set.labels = append(set.labels, ports.Name{Address: s.Value, Name: s.Name, Kind: "label"})
			return nil
		}
		rank := rankLocal
		switch {
		case s.Type&nExt != 0 && s.Desc&nWeakDef != 0:
			rank = rankWeak
		case s.Type&nExt != 0:
			rank = rankGlobal
		}
		set.procs = append(set.procs, candidate{addr: s.Value, name: s.Name, source: "symbol", rank: rank})
		set.labels = append(set.labels, ports.Name{Address: s.Value, Name: s.Name, Kind: "function"})
		return nil
	})
	if err2 := names.done(); err == nil {
		err = err2
	}
	return err
}

// machoStubs are the indirect symbol indexes of one stub or pointer section.
type machoStubs struct {
	sec    *macho.Section
	stride uint64
	stub   bool
	idx    []uint32
}

// indirectSlots reads the indirect symbol table entries that name symbol
// stubs and symbol pointer slots, adding each symbol index to need.
func (m *machoImage) indirectSlots(need map[uint32]string) ([]machoStubs, error) {
	t := m.tables
	if !t.dysymtab || !t.symtab || t.nind == 0 {
		return nil, nil
	}
	nind := min(uint64(t.nind), maxSymbolEntries)
	ind, err := m.src.read(m.base+uint64(t.indoff), nind*4)
	if err != nil {
		return nil, err
	}
	bo := m.f.ByteOrder
	ptr := uint64(4)
	if m.f.Magic == macho.Magic64 {
		ptr = 8
	}
	var out []machoStubs
	for k, s := range m.f.Sections {
		first, stride := uint64(m.reserved[k][0]), ptr
		typ := s.Flags & sectionType
		switch typ {
		case sSymbolStubs:
			stride = uint64(m.reserved[k][1])
		case sNonLazyPointers, sLazyPointers, sLazyDylibPointers:
		default:
			continue
		}
		if stride == 0 || first >= nind {
			continue
		}
		n := min(s.Size/stride, nind-first, maxKeptSymbols)
		st := machoStubs{sec: s, stride: stride, stub: typ == sSymbolStubs, idx: make([]uint32, n)}
		for i := range n {
			idx := bo.Uint32(ind[(first+i)*4:])
			st.idx[i] = idx
			if idx&(indirectLocal|indirectAbs) == 0 && uint64(idx) < uint64(t.nsyms) && len(need) < maxKeptSymbols {
				need[idx] = ""
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// functionStarts adds the starts listed by LC_FUNCTION_STARTS.
func (m *machoImage) functionStarts(ctx context.Context, set *symbolSet) error {
	text := m.f.Segment("__TEXT")
	if text == nil {
		return nil
	}
	bo := m.f.ByteOrder
	for _, l := range m.f.Loads {
		raw := l.Raw()
		if len(raw) < 16 || bo.Uint32(raw) != lcFunctionStarts {
			continue
		}
		data, err := m.src.read(m.base+uint64(bo.Uint32(raw[8:])), uint64(bo.Uint32(raw[12:])))
		if err != nil {
			return err
		}
		for _, addr := range decodeFunctionStarts(data, text.Addr) {
			set.procs = append(set.procs, candidate{addr: addr, source: "function-starts", rank: rankUnnamed})
		}
		return ctx.Err()
	}
	return nil
}

// decodeFunctionStarts decodes LC_FUNCTION_STARTS data: ULEB128 deltas, the
// first from the __TEXT segment's address, ended by a zero delta.
func decodeFunctionStarts(data []byte, text uint64) []uint64 {
	var out []uint64
	addr := text
	for len(data) > 0 {
		var delta uint64
		var shift uint
		i := 0
		for ; i < len(data); i++ {
			b := data[i]
			if shift < 64 {
				delta |= uint64(b&0x7f) << shift
			}
			shift += 7
			if b&0x80 == 0 {
				break
			}
		}
		if i == len(data) || delta == 0 {
			return out // truncated, or the terminating zero
		}
		data = data[i+1:]
		addr += delta
		out = append(out, addr)
	}
	return out
}

// fatImage is a universal Mach-O. Lists describe its first slice.
type fatImage struct {
	slices []*machoImage
}

func newFat(src source) (image, error) {
	patches, tables, err := fatPatches(src)
	if err != nil {
		return nil, err
	}
	ff, err := macho.NewFatFile(view(src.r, patches))
	if err != nil {
		return nil, classify("mach-o-universal", err)
	}
	if len(ff.Arches) == 0 {
		return nil, &ports.FormatError{Format: "mach-o-universal", Offset: 4, Msg: "no slices"}
	}
	img := &fatImage{}
	for _, a := range ff.Arches {
		img.slices = append(img.slices, newMachOSlice(src, uint64(a.Offset), a.File, tables[uint64(a.Offset)]))
	}
	return img, nil
}

func (u *fatImage) format() string { return "mach-o-universal" }

func (u *fatImage) documents(name string) []ports.Document {
	var out []ports.Document
	seen := map[string]bool{}
	for i, s := range u.slices {
		d := s.documents("")[0]
		d.Name = name + "#" + d.Architecture
		if seen[d.Name] {
			d.Name = fmt.Sprintf("%s#%s-%d", name, d.Architecture, i)
		}
		seen[d.Name] = true
		out = append(out, d)
	}
	return out
}

func (u *fatImage) segments(ctx context.Context) ([]ports.Segment, error) {
	return u.slices[0].segments(ctx)
}

func (u *fatImage) symbols(ctx context.Context) (*symbolSet, error) {
	return u.slices[0].symbols(ctx)
}

func (u *fatImage) stringRegions(ctx context.Context) ([]region, error) {
	return u.slices[0].stringRegions(ctx)
}
