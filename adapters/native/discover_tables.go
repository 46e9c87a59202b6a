package native

import (
	"context"
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"errors"

	"rea/ports"
)

// Function starts from tables the compiler and linker leave behind even in
// stripped files: ELF .eh_frame FDEs, the Go pclntab, and ELF init/fini
// arrays (DT_INIT, DT_FINI included) and Mach-O module initializers.

// tableStarts returns the candidates of every table the image has. A table
// that cannot be read is skipped; a cancelled context is returned.
func tableStarts(ctx context.Context, src source, img image, mm *memMap, labels []ports.Name) ([]candidate, error) {
	var out []candidate
	readers := []func() ([]candidate, error){
		func() ([]candidate, error) { return goFunctions(ctx, src, img, mm, labels) },
	}
	if e, ok := img.(*elfImage); ok {
		readers = append(readers,
			func() ([]candidate, error) { return e.ehFrame(ctx, mm) },
			func() ([]candidate, error) { return e.initFunctions(ctx, mm) },
			func() ([]candidate, error) { return e.irelativeResolvers(ctx, mm) })
	}
	if p, ok := img.(*peImage); ok {
		readers = append(readers, func() ([]candidate, error) { return p.ehFrame(ctx, mm) })
	}
	if m := machoOf(img); m != nil {
		readers = append(readers, func() ([]candidate, error) { return m.initFunctions(ctx, mm) })
	}
	for _, read := range readers {
		var got []candidate
		err := optional(ctx, func() (err error) {
			got, err = read()
			return err
		})
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = got // the first table's list is kept, not copied
		} else {
			out = append(out, got...)
		}
	}
	return out, ctx.Err()
}

func machoOf(img image) *machoImage {
	switch m := img.(type) {
	case *machoImage:
		return m
	case *fatImage:
		return m.slices[0]
	}
	return nil
}

// DWARF exception-header pointer encodings (DW_EH_PE_*).
const (
	pePtr     = 0x00
	peULEB    = 0x01
	peUData2  = 0x02
	peUData4  = 0x03
	peUData8  = 0x04
	peSLEB    = 0x09
	peSData2  = 0x0a
	peSData4  = 0x0b
	peSData8  = 0x0c
	pePCRel   = 0x10
	peOmit    = 0xff
	peIndir   = 0x80
	peAppMask = 0x70
)

// ehReader reads encoded values from one .eh_frame.
type ehReader struct {
	data []byte
	addr uint64 // address of data[0]
	ptr  int
	bo   binary.ByteOrder
}

var errEH = errors.New("eh_frame: malformed")

func (r *ehReader) uleb(p int) (uint64, int, error) {
	var v uint64
	var shift uint
	for i := p; i < len(r.data) && i < p+10; i++ {
		b := r.data[i]
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errEH
}

func (r *ehReader) sleb(p int) (int64, int, error) {
	var v int64
	var shift uint
	for i := p; i < len(r.data) && i < p+10; i++ {
		b := r.data[i]
		if shift < 64 {
			v |= int64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1, nil
		}
	}
	return 0, 0, errEH
}

func (r *ehReader) fixed(p, n int) (uint64, error) {
	if p < 0 || n > len(r.data)-p {
		return 0, errEH
	}
	b := r.data[p : p+n]
	switch n {
	case 2:
		return uint64(r.bo.Uint16(b)), nil
	case 4:
		return uint64(r.bo.Uint32(b)), nil
	}
	return r.bo.Uint64(b), nil
}

// value decodes a value of encoding enc at p; apply adds the pc-relative
// base (pc_range values are not applied).
func (r *ehReader) value(p int, enc byte, apply bool) (uint64, int, error) {
	if enc == peOmit {
		return 0, p, errEH
	}
	var v uint64
	var err error
	next := p
	switch enc & 0x0f {
	case pePtr:
		v, err = r.fixed(p, r.ptr)
		next = p + r.ptr
	case peULEB:
		v, next, err = r.uleb(p)
	case peUData2, peSData2:
		v, err = r.fixed(p, 2)
		if enc&0x0f == peSData2 {
			v = uint64(int64(int16(v)))
		}
		next = p + 2
	case peUData4, peSData4:
		v, err = r.fixed(p, 4)
		if enc&0x0f == peSData4 {
			v = uint64(int64(int32(v)))
		}
		next = p + 4
	case peUData8, peSData8:
		v, err = r.fixed(p, 8)
		next = p + 8
	case peSLEB:
		var s int64
		s, next, err = r.sleb(p)
		v = uint64(s)
	default:
		return 0, p, errEH
	}
	if err != nil || !apply {
		return v, next, err
	}
	switch enc & peAppMask {
	case 0:
	case pePCRel:
		v += r.addr + uint64(p)
	default: // textrel, datarel, funcrel, aligned: not used for code addresses here
		return 0, next, errEH
	}
	if enc&peIndir != 0 {
		return 0, next, errEH
	}
	if r.ptr == 4 {
		v = uint64(uint32(v))
	}
	return v, next, nil
}

// cie reads the FDE pointer encoding of the CIE at off, and whether its
// FDEs carry augmentation data (a "z" augmentation).
func (r *ehReader) cie(off int) (byte, bool, error) {
	enc, err := r.cieEnc(off)
	return enc, err == nil && r.cieZ(off), err
}

// cieZ reports whether the CIE at off (which cieEnc read) has a "z"
// augmentation.
func (r *ehReader) cieZ(off int) bool {
	p := off + 8
	if l, _ := r.fixed(off, 4); l == 0xffffffff {
		p += 8
	}
	return p+1 < len(r.data) && r.data[p+1] == 'z'
}

// cieEnc reads the FDE pointer encoding of the CIE at off.
func (r *ehReader) cieEnc(off int) (byte, error) {
	length, err := r.fixed(off, 4)
	if err != nil {
		return 0, err
	}
	p := off + 4
	if length == 0xffffffff {
		if length, err = r.fixed(p, 8); err != nil {
			return 0, err
		}
		p += 8
	}
	end := uint64(p) + length
	if length == 0 || end > uint64(len(r.data)) {
		return 0, errEH
	}
	if id, err := r.fixed(p, 4); err != nil || id != 0 {
		return 0, errEH
	}
	p += 4
	if p >= int(end) {
		return 0, errEH
	}
	version := r.data[p]
	p++
	augStart := p
	for p < int(end) && r.data[p] != 0 {
		p++
	}
	if p >= int(end) {
		return 0, errEH
	}
	aug := string(r.data[augStart:p])
	p++
	if len(aug) >= 2 && aug[:2] == "eh" {
		p += r.ptr
	}
	if _, p, err = r.uleb(p); err != nil { // code alignment
		return 0, err
	}
	if _, p, err = r.sleb(p); err != nil { // data alignment
		return 0, err
	}
	if version == 1 {
		p++
	} else if _, p, err = r.uleb(p); err != nil {
		return 0, err
	}
	enc := byte(pePtr)
	if aug == "" || aug[0] != 'z' {
		return enc, nil
	}
	if _, p, err = r.uleb(p); err != nil { // augmentation data length
		return 0, err
	}
	for _, c := range aug[1:] {
		if p >= int(end) {
			return 0, errEH
		}
		switch c {
		case 'R':
			enc = r.data[p]
			p++
		case 'L':
			p++
		case 'P':
			penc := r.data[p]
			if _, p, err = r.value(p+1, penc&0x0f, false); err != nil {
				return 0, err
			}
		case 'S', 'B', 'G':
		default:
			return enc, nil
		}
	}
	return enc, nil
}

// maxFDEs bounds the FDEs read from one .eh_frame.
const maxFDEs = 1 << 22

// ehFrame returns one candidate per FDE whose range starts in a code region
// that is not a PLT section (the PLT's FDE covers every stub).
func (e *elfImage) ehFrame(ctx context.Context, mm *memMap) ([]candidate, error) {
	s := e.f.Section(".eh_frame")
	if s == nil || s.Type == elf.SHT_NOBITS || s.FileSize == 0 {
		return nil, nil
	}
	data, err := e.src.read(s.Offset, s.FileSize)
	if err != nil {
		return nil, err
	}
	ptr := 8
	if e.f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	return fdeStarts(ctx, &ehReader{data: data, addr: s.Addr, ptr: ptr, bo: e.f.ByteOrder}, mm, e.fdeCount(len(data)), false)
}

// ehFrame returns one candidate per FDE of a PE image's .eh_frame: 32-bit
// mingw-w64 unwinds with DWARF and describes every compiled function there,
// as .pdata does on x64. strip leaves the section's name cut to the 8 bytes
// a section header holds.
func (p *peImage) ehFrame(ctx context.Context, mm *memMap) ([]candidate, error) {
	for _, s := range p.sections {
		if (s.Name != ".eh_frame" && s.Name != ".eh_fram") || s.Size == 0 || s.Offset == 0 {
			continue
		}
		size := uint64(s.Size)
		if s.VirtualSize != 0 {
			size = min(size, uint64(s.VirtualSize)) // the rest is file alignment padding
		}
		data, err := p.src.read(uint64(s.Offset), size)
		if err != nil {
			return nil, err
		}
		ptr := 4
		if p.is64 {
			ptr = 8
		}
		return fdeStarts(ctx, &ehReader{data: data, addr: p.base + uint64(s.VirtualAddress), ptr: ptr, bo: binary.LittleEndian}, mm, 0, true)
	}
	return nil, nil
}

// fdeStarts walks the CIEs and FDEs of r's .eh_frame; hint sizes the list. A
// zero length ends the table unless pastZero: GNU ld concatenates a PE
// image's .eh_frame unmerged, crtend's terminator and all, and objdump reads
// on.
func fdeStarts(ctx context.Context, r *ehReader, mm *memMap, hint int, pastZero bool) ([]candidate, error) {
	data := r.data
	var err error
	type cieInfo struct {
		enc byte
		z   bool
	}
	cies := map[int]cieInfo{}
	out := make([]candidate, 0, hint)
	for off, n := 0, 0; off+4 <= len(data) && n < maxFDEs; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		length, _ := r.fixed(off, 4)
		p := off + 4
		if length == 0 {
			if !pastZero {
				break
			}
			off = p
			continue
		}
		if length == 0xffffffff {
			if length, err = r.fixed(p, 8); err != nil {
				break
			}
			p += 8
		}
		end := uint64(p) + length
		if end > uint64(len(data)) || end < uint64(p)+4 {
			break
		}
		next := int(end)
		id, _ := r.fixed(p, 4)
		if id != 0 && uint64(p) >= id {
			ciePos := p - int(id)
			ci, ok := cies[ciePos]
			if !ok {
				if ci.enc, ci.z, err = r.cie(ciePos); err != nil {
					ci.enc = peOmit
				}
				cies[ciePos] = ci
			}
			if enc := ci.enc; enc != peOmit {
				begin, q, err := r.value(p+4, enc, true)
				if err == nil && q <= next {
					size, q, err := r.value(q, enc&0x0f, false)
					if reg := mm.code(begin); err == nil && reg != nil && !reg.plt && size > 0 && size < reg.size {
						out = append(out, candidate{addr: begin, size: size, source: "eh-frame", rank: rankUnnamed,
							midFrame: r.midFrame(q, next, ci.z)})
					}
				}
			}
		}
		off = next
	}
	return out, nil
}

// midFrame reports whether the FDE instructions in [p, end) (after the
// augmentation data when z) change the frame before the first instruction
// of the range: the CFA's register or offset, or where a register is
// saved. A function's entry is the state its CIE describes; gcc's cold
// part of a function (f.cold) starts where the function's frame is
// already set up, and its FDE says so at location 0.
func (r *ehReader) midFrame(p, end int, z bool) bool {
	if z {
		n, q, err := r.uleb(p)
		if err != nil || n > uint64(end-q) {
			return false
		}
		p = q + int(n)
	}
	for p < end {
		op := r.data[p]
		switch {
		case op == 0x00, op == 0x2d: // DW_CFA_nop, DW_CFA_AARCH64_negate_ra_state (pac-ret)
			p++
			continue
		case op>>6 == 2: // DW_CFA_offset
			return true
		case op == 0x0c, op == 0x0d, op == 0x0e, op == 0x0f, op == 0x12, op == 0x13, op == 0x05, op == 0x11:
			// def_cfa, def_cfa_register, def_cfa_offset, def_cfa_expression,
			// def_cfa_sf, def_cfa_offset_sf, offset_extended, offset_extended_sf
			return true
		}
		return false // an advance, or a rule that leaves the frame as the CIE says
	}
	return false
}

// fdeCount is the FDE count .eh_frame_hdr declares (its fde_count field,
// when encoded as a 4-byte unsigned value), bounded by the FDEs frameBytes
// of .eh_frame can hold and by maxFDEs; 0 when it is absent or encoded
// otherwise. It only sizes ehFrame's list once instead of by doubling.
func (e *elfImage) fdeCount(frameBytes int) int {
	s := e.f.Section(".eh_frame_hdr")
	if s == nil || s.Type == elf.SHT_NOBITS || s.FileSize < 8 {
		return 0
	}
	h, err := e.src.read(s.Offset, 4)
	if err != nil || h[0] != 1 || h[2] != peUData4 {
		return 0
	}
	off := uint64(4)
	switch h[1] & 0x0f { // eh_frame_ptr's size
	case peUData4, peSData4:
		off += 4
	case peUData8, peSData8:
		off += 8
	case pePtr:
		off += 8
		if e.f.Class == elf.ELFCLASS32 {
			off -= 4
		}
	default:
		return 0
	}
	if s.FileSize < off+4 {
		return 0
	}
	b, err := e.src.read(s.Offset+off, 4)
	if err != nil {
		return 0
	}
	return min(int(e.f.ByteOrder.Uint32(b)), frameBytes/16, maxFDEs)
}

// initFunctions reads DT_INIT, DT_FINI and the init, fini and preinit
// arrays: functions the loader calls.
func (e *elfImage) initFunctions(ctx context.Context, mm *memMap) ([]candidate, error) {
	var out []candidate
	add := func(v uint64) {
		if v != 0 && v != ^uint64(0) && mm.isCode(v) {
			out = append(out, candidate{addr: e.codeAddr(v), source: "init", rank: rankUnnamed})
		}
	}
	for _, tag := range []elf.DynTag{elf.DT_INIT, elf.DT_FINI} {
		if vs, err := e.f.DynValue(tag); err == nil {
			for _, v := range vs {
				add(v)
			}
		}
	}
	ptr := uint64(8)
	if e.f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	var empty []uint64 // slots holding 0: filled by a relocation at load time, or unused
	for _, s := range e.f.Sections {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.Type != elf.SHT_INIT_ARRAY && s.Type != elf.SHT_FINI_ARRAY && s.Type != elf.SHT_PREINIT_ARRAY {
			continue
		}
		data, err := e.src.read(s.Offset, min(s.FileSize, 1<<20))
		if err != nil {
			continue
		}
		for i := uint64(0); i+ptr <= uint64(len(data)); i += ptr {
			v := uint64(e.f.ByteOrder.Uint32(data[i:]))
			if ptr == 8 {
				v = e.f.ByteOrder.Uint64(data[i:])
			}
			if v == 0 {
				empty = append(empty, s.Addr+i)
			}
			add(v)
		}
	}
	if len(empty) > 0 { // the addends of the RELATIVE relocations filling them (discover_relocs.go)
		err := relativeAddendsOf(ctx, e.src, e, mm, empty, func(_, v uint64) { add(v) })
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sModInitFuncPointers is the Mach-O section type of module initializers.
const sModInitFuncPointers = 0x9

func (m *machoImage) initFunctions(ctx context.Context, mm *memMap) ([]candidate, error) {
	var out []candidate
	ptr := uint64(4)
	if m.f.Magic == 0xfeedfacf {
		ptr = 8
	}
	for _, s := range m.f.Sections {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.Flags&sectionType != sModInitFuncPointers || s.Offset == 0 {
			continue
		}
		data, err := m.src.read(m.base+uint64(s.Offset), min(s.Size, 1<<20))
		if err != nil {
			continue
		}
		for i := uint64(0); i+ptr <= uint64(len(data)); i += ptr {
			v := uint64(m.f.ByteOrder.Uint32(data[i:]))
			if ptr == 8 {
				v = m.f.ByteOrder.Uint64(data[i:])
			}
			if mm.isCode(v) {
				out = append(out, candidate{addr: v, source: "init", rank: rankUnnamed})
			}
		}
	}
	return out, nil
}

// maxPCLNBytes bounds the Go pclntab read.
const maxPCLNBytes = 1 << 30

// goFunctions lists the functions of a Go binary's pclntab (.gopclntab,
// __gopclntab, or the bytes between runtime.pclntab and runtime.epclntab),
// with names and exact extents: on a stripped Go binary this recovers
// every function.
func goFunctions(ctx context.Context, src source, img image, mm *memMap, labels []ports.Name) ([]candidate, error) {
	var data []byte
	var text uint64
	var err error
	switch im := img.(type) {
	case *elfImage:
		if s := im.f.Section(".text"); s != nil {
			text = s.Addr
		}
		s := im.f.Section(".gopclntab")
		if s == nil {
			s = im.f.Section(".data.rel.ro.gopclntab")
		}
		if s != nil && s.Type != elf.SHT_NOBITS && s.FileSize <= maxPCLNBytes {
			if data, err = src.read(s.Offset, s.FileSize); err != nil {
				return nil, err
			}
		}
	case *peImage:
		if s := im.f.Section(".text"); s != nil {
			text = im.base + uint64(s.VirtualAddress)
		}
	case *machoImage, *fatImage:
		m := machoOf(img)
		if s := m.f.Section("__text"); s != nil {
			text = s.Addr
		}
		if s := m.f.Section("__gopclntab"); s != nil && s.Offset != 0 && s.Size <= maxPCLNBytes {
			if data, err = src.read(m.base+uint64(s.Offset), s.Size); err != nil {
				return nil, err
			}
		}
	}
	if data == nil {
		var start, end uint64
		for _, l := range labels {
			switch l.Name {
			case "runtime.pclntab":
				start = l.Address
			case "runtime.epclntab":
				end = l.Address
			}
		}
		if p, isPE := img.(*peImage); isPE && start == 0 { // stripped: entry_gope.go
			if data, err = p.goPCLNTab(src, text); err != nil || data == nil {
				return nil, err
			}
		} else if start == 0 || end <= start || end-start > maxPCLNBytes {
			return nil, nil
		} else if data, err = mm.read(src, start, end-start); err != nil {
			return nil, nil
		}
	}
	if len(data) < 16 || !goPCLNMagic(data) {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ports.Observe(ctx, "discover", "reading the Go pclntab")
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text))
	if err != nil {
		return nil, nil
	}
	out := make([]candidate, 0, len(tab.Funcs))
	for i := range tab.Funcs {
		f := &tab.Funcs[i]
		if f.Entry == 0 || !mm.isCode(f.Entry) {
			continue
		}
		var size uint64
		if f.End > f.Entry {
			size = f.End - f.Entry
		}
		out = append(out, candidate{addr: f.Entry, name: f.Name, size: size, source: "gopclntab", rank: rankDebug})
	}
	return out, nil
}

// goPCLNMagic recognises the pclntab header of Go 1.2 to 1.20+.
func goPCLNMagic(b []byte) bool {
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		switch bo.Uint32(b) {
		case 0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1:
			return b[4] == 0 && b[5] == 0 && (b[7] == 4 || b[7] == 8)
		}
	}
	return false
}
