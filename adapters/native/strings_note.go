package native

import (
	"debug/elf"
	"encoding/binary"
)

// noteRegions are the parts of the ELF note section s that the string scan
// reads: each note's name (its owner, such as "GNU") and the descriptors
// known to hold text, never the header words or a binary descriptor (a
// build ID's hash bytes, an ABI tag's version words, property arrays),
// whose bytes would otherwise be listed as strings such as "k.;n@\t".
// A section too large to read, or the part of one that does not parse as
// notes, is scanned whole as before: no text is lost to a malformed note.
func noteRegions(src source, bo binary.ByteOrder, s *elf.Section) []region {
	whole := []region{{name: s.Name, addr: s.Addr, off: s.Offset, size: s.FileSize}}
	if s.FileSize > maxNoteBytes || !src.contains(s.Offset, s.FileSize) {
		return whole
	}
	b, err := src.read(s.Offset, s.FileSize)
	if err != nil {
		return whole
	}
	align := uint64(4) // the gABI pads names and descriptors to 4 bytes, or 8 in an 8-aligned section
	if s.Addralign == 8 {
		align = 8
	}
	pad := func(n uint64) uint64 { return (n + align - 1) &^ (align - 1) }
	var out []region
	part := func(at, n uint64) {
		if n > 0 {
			out = append(out, region{name: s.Name, addr: s.Addr + at, off: s.Offset + at, size: n})
		}
	}
	at, size := uint64(0), uint64(len(b))
	for at < size {
		if size-at < 12 {
			part(at, size-at)
			break
		}
		namesz, descsz, typ := uint64(bo.Uint32(b[at:])), uint64(bo.Uint32(b[at+4:])), bo.Uint32(b[at+8:])
		rest := size - at - 12
		if namesz > rest || pad(namesz) > rest || descsz > rest-pad(namesz) {
			part(at, size-at) // not a note: scan the rest as data
			break
		}
		name := b[at+12 : at+12+namesz]
		part(at+12, namesz)
		descAt := at + 12 + pad(namesz)
		if textNote(name, typ) {
			part(descAt, descsz)
		}
		at = descAt + min(pad(descsz), size-descAt)
	}
	return out
}

// textNote reports the notes whose descriptor is text: the gold linker's
// version (GNU, NT_GNU_GOLD_VERSION), a Go build ID (Go, 4), and package
// metadata JSON (FDO, NT_FDO_PACKAGING_METADATA).
func textNote(name []byte, typ uint32) bool {
	switch string(trimNUL(name)) {
	case "GNU", "Go":
		return typ == 4
	case "FDO":
		return typ == 0xcafe1a7e
	}
	return false
}

// trimNUL drops the NUL bytes that end b.
func trimNUL(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}
