package native

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"slices"
)

// noteRegions are the parts of the ELF note section s that the string scan
// reads: each note's name (its owner, such as "GNU") and the descriptors
// known to hold text, never the header words or a binary descriptor (a
// build ID's hash bytes, an ABI tag's version words, property arrays),
// whose bytes would otherwise be listed as strings such as "k.;n@\t".
// A section too large to read, or the part of one that does not parse as
// notes, is scanned whole as before: no text is lost to a malformed note.
func noteRegions(src source, bo binary.ByteOrder, s *elf.Section) []region {
	align := uint64(4) // the gABI pads names and descriptors to 4 bytes, or 8 in an 8-aligned section
	if s.Addralign == 8 {
		align = 8
	}
	return noteParts(src, bo, region{name: s.Name, addr: s.Addr, off: s.Offset, size: s.FileSize}, align)
}

// loadRegions are the parts of the loaded segment r (one without
// section headers, as sstrip leaves a program) that the string scan
// reads: the notes of the PT_NOTE segments progs places wholly inside it
// are read as noteRegions reads a note section, the rest as data. The
// data keeps r's name; a note's parts are named NOTE#k, the k-th PT_NOTE
// program header (as LOAD#n is the n-th PT_LOAD), so that a string found
// in a note says so, as one in a note section names the section.
func loadRegions(src source, bo binary.ByteOrder, r region, progs []*elf.Prog) []region {
	type note struct {
		*elf.Prog
		name string
	}
	var notes []note
	k := 0
	for _, p := range progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		if p.Filesz > 0 && p.Off >= r.off && p.Filesz <= r.size && p.Off-r.off <= r.size-p.Filesz {
			notes = append(notes, note{p, fmt.Sprintf("NOTE#%d", k)})
		}
		k++
	}
	if r.size == 0 {
		return nil
	}
	if len(notes) == 0 {
		return []region{r}
	}
	slices.SortStableFunc(notes, func(a, b note) int { return cmp.Compare(a.Off, b.Off) })
	var out []region
	at := r.off // the file offset up to which r is covered
	data := func(end uint64) {
		if end > at {
			out = append(out, region{name: r.name, addr: r.addr + (at - r.off), off: at, size: end - at})
		}
	}
	for _, p := range notes {
		if p.Off < at {
			continue // overlaps the note before it: its bytes were read already
		}
		data(p.Off)
		align := uint64(4)
		if p.Align == 8 {
			align = 8
		}
		out = append(out, noteParts(src, bo, region{name: p.name, addr: r.addr + (p.Off - r.off), off: p.Off, size: p.Filesz}, align)...)
		at = p.Off + p.Filesz
	}
	data(r.off + r.size)
	return out
}

// noteParts are the parts of the notes in n, padded to align, that the
// string scan reads (noteRegions).
func noteParts(src source, bo binary.ByteOrder, n region, align uint64) []region {
	whole := []region{n}
	if n.size > maxNoteBytes || !src.contains(n.off, n.size) {
		return whole
	}
	b, err := src.read(n.off, n.size)
	if err != nil {
		return whole
	}
	pad := func(k uint64) uint64 { return (k + align - 1) &^ (align - 1) }
	var out []region
	part := func(at, k uint64) {
		if k > 0 {
			out = append(out, region{name: n.name, addr: n.addr + at, off: n.off + at, size: k})
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
