package native

import "encoding/binary"

// elfHeader is the ELF header's table fields, for the places that read
// them before or without debug/elf: the section-name bound (patch.go),
// the layout's sh_name (layout.go) and what a cut-off file lacks
// (truncation.go).
type elfHeader struct {
	wide                                         bool // ELFCLASS64
	order                                        binary.ByteOrder
	phoff, shoff                                 uint64
	phentsize, phnum, shentsize, shnum, shstrndx uint16
}

// readELFHeader reads h, a file's first bytes, of either class and byte
// order; ok is false when the class is unknown or h is shorter than the
// header.
func readELFHeader(h []byte) (e elfHeader, ok bool) {
	if len(h) < 6 || h[4] != 1 && h[4] != 2 {
		return elfHeader{}, false
	}
	e.wide, e.order = h[4] == 2, binary.LittleEndian
	if h[5] == 2 {
		e.order = binary.BigEndian
	}
	bo := e.order
	switch {
	case e.wide && len(h) >= 64:
		e.phoff, e.shoff, h = bo.Uint64(h[0x20:]), bo.Uint64(h[0x28:]), h[0x36:]
	case !e.wide && len(h) >= 52:
		e.phoff, e.shoff, h = uint64(bo.Uint32(h[0x1c:])), uint64(bo.Uint32(h[0x20:])), h[0x2a:]
	default:
		return elfHeader{}, false
	}
	e.phentsize, e.phnum, e.shentsize, e.shnum, e.shstrndx = bo.Uint16(h), bo.Uint16(h[2:]), bo.Uint16(h[4:]), bo.Uint16(h[6:]), bo.Uint16(h[8:])
	return e, true
}
