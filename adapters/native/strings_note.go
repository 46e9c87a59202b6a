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
	return loadNoteRegions(src, bo, r, progNotes(progs))
}

// progNote is a PT_NOTE program header and its name, NOTE#k.
type progNote struct {
	*elf.Prog
	name string
}

// progNotes are the PT_NOTE program headers of progs with a file size,
// named, in file offset order (then header order): the string scan finds
// a segment's notes among them by binary search, so a file of many
// program headers costs their number times its logarithm, not its
// square.
func progNotes(progs []*elf.Prog) []progNote {
	var notes []progNote
	k := 0
	for _, p := range progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		if p.Filesz > 0 {
			notes = append(notes, progNote{p, fmt.Sprintf("NOTE#%d", k)})
		}
		k++
	}
	slices.SortStableFunc(notes, func(a, b progNote) int { return cmp.Compare(a.Off, b.Off) })
	return notes
}

// loadNoteRegions is loadRegions with the notes of progNotes.
func loadNoteRegions(src source, bo binary.ByteOrder, r region, all []progNote) []region {
	if r.size == 0 {
		return nil
	}
	lo, _ := slices.BinarySearchFunc(all, r.off, func(p progNote, off uint64) int { return cmp.Compare(p.Off, off) })
	var out []region
	found := false
	at := r.off // the file offset up to which r is covered
	data := func(end uint64) {
		if end > at {
			out = append(out, region{name: r.name, addr: r.addr + (at - r.off), off: at, size: end - at})
		}
	}
	for _, p := range all[lo:] {
		if p.Off-r.off >= r.size {
			break // past r: the rest start later still
		}
		if p.Filesz > r.size || p.Off-r.off > r.size-p.Filesz {
			continue // not wholly inside r
		}
		if p.Off < at {
			continue // overlaps the note before it: its bytes were read already
		}
		data(p.Off)
		align := uint64(4)
		if p.Align == 8 {
			align = 8
		}
		out = append(out, noteParts(src, bo, region{name: p.name, addr: r.addr + (p.Off - r.off), off: p.Off, size: p.Filesz}, align)...)
		at, found = p.Off+p.Filesz, true
	}
	if !found {
		return []region{r}
	}
	data(r.off + r.size)
	return out
}

// disjoint is regions with the file bytes an earlier region already
// covers cut away, earlier by file offset and then by place in the list:
// each byte is scanned once, however a hostile file overlaps its
// sections or segments (thousands of PT_LOADs over the same bytes listed
// every string as often, in time that grew with their square). A region
// partly covered starts past what is covered, its address moved with it;
// one covered whole is left out. The regions keep their order. A .NET
// user string, listed whole rather than scanned, is kept as it is.
func disjoint(regions []region) []region {
	ordered := true
	for i := 1; i < len(regions) && ordered; i++ {
		ordered = regions[i-1].off <= regions[i].off && !regions[i-1].userString && !regions[i].userString &&
			regions[i-1].size <= regions[i].off-regions[i-1].off
	}
	if ordered {
		return regions // no two overlap: the usual case
	}
	order := make([]int, 0, len(regions))
	for i, r := range regions {
		if !r.userString {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(regions[a].off, regions[b].off) })
	cut := slices.Clone(regions)
	gone := make([]bool, len(regions))
	var covered uint64 // the file offset up to which bytes are covered
	for j, i := range order {
		r := &cut[i]
		end := r.off + r.size
		if end < r.off {
			end = ^uint64(0) // saturated: a size past the end of any file
		}
		if j > 0 && covered > r.off {
			if covered >= end {
				gone[i] = true
				continue
			}
			d := covered - r.off
			r.off, r.addr, r.size = covered, r.addr+d, r.size-d
		}
		covered = max(covered, end)
	}
	out := cut[:0]
	for i, r := range cut {
		if !gone[i] {
			out = append(out, r)
		}
	}
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
