package native

import (
	"bytes"
	"debug/elf"
	"io"
)

// GNU symbol versions of .dynsym, read as debug/elf's DynamicSymbols names
// them (a version needed from a library, else one the file defines) but
// from the version sections alone: DynamicSymbols would read the whole
// symbol table and its string table again, which the layout has read
// already (its listing, through lr.table).

// dynVersions returns the version name of each of the first n entries of
// the dynamic symbol table sym after the null entry ("" for none), or nil
// when the file has no version table or debug/elf would not read one.
func (lr *layoutReader) dynVersions(sym *elf.Section, n int) []string {
	var versym, verdef, verneed *elf.Section
	for _, s := range lr.f.Sections {
		switch s.Type {
		case elf.SHT_GNU_VERSYM:
			versym = cmpFirst(versym, s)
		case elf.SHT_GNU_VERDEF:
			verdef = cmpFirst(verdef, s)
		case elf.SHT_GNU_VERNEED:
			verneed = cmpFirst(verneed, s)
		}
	}
	if versym == nil || n <= 0 || sym.FileSize%lr.symSize() != 0 || sym.FileSize == 0 {
		return nil // debug/elf reads no versions of a table it cannot read
	}
	link := int(sym.Link)
	if link <= 0 || link >= len(lr.f.Sections) || lr.f.Sections[link].Type != elf.SHT_STRTAB {
		return nil
	}
	str, _ := lr.table(link)
	// Entry 0 of .gnu.version is the null symbol's; n entries follow.
	vs, err := lr.src.read(versym.Offset, min(versym.FileSize, uint64(2*(n+1))))
	if err != nil || versym.Type == elf.SHT_NOBITS {
		return nil
	}
	byIndex := map[uint16]string{} // version names by index: needs first, as debug/elf looks them up
	defs, ok := lr.versionDefs(verdef, str)
	if !ok {
		return nil
	}
	needs, ok := lr.versionNeeds(verneed, str)
	if !ok {
		return nil
	}
	for i := len(defs) - 1; i >= 0; i-- { // the first of an index wins
		byIndex[defs[i].index] = defs[i].name
	}
	for i := len(needs) - 1; i >= 0; i-- {
		byIndex[needs[i].index] = needs[i].name
	}
	out := make([]string, n)
	bo := lr.f.ByteOrder
	for i := range out {
		at := 2 * (i + 1)
		if at+2 > len(vs) {
			break
		}
		if ndx := bo.Uint16(vs[at:]) & 0x7fff; ndx > 1 {
			out[i] = byIndex[ndx]
		}
	}
	return out
}

// cmpFirst keeps the first section of a type, as SectionByType does.
func cmpFirst(have, s *elf.Section) *elf.Section {
	if have != nil {
		return have
	}
	return s
}

type versionName struct {
	index uint16
	name  string
}

// versionDefs reads SHT_GNU_verdef as debug/elf does: each definition's
// index and its first auxiliary name; false where debug/elf fails.
func (lr *layoutReader) versionDefs(s *elf.Section, str []byte) ([]versionName, bool) {
	if s == nil {
		return nil, true
	}
	d, err := lr.sectionData(s)
	if err != nil {
		return nil, true // debug/elf ignores the error and reads nothing
	}
	bo := lr.f.ByteOrder
	var out []versionName
	for i := 0; i+20 <= len(d); {
		if bo.Uint16(d[i:]) != 1 {
			return nil, false
		}
		ndx, cnt := bo.Uint16(d[i+4:]), bo.Uint16(d[i+6:])
		aux, next := bo.Uint32(d[i+12:]), bo.Uint32(d[i+16:])
		if cnt == 0 {
			return nil, false
		}
		name := ""
		if j := i + int(aux); j >= 0 && j+8 <= len(d) {
			name = cString(str, bo.Uint32(d[j:]))
		}
		out = append(out, versionName{ndx, name})
		if next == 0 || i+int(next) <= i {
			break
		}
		i += int(next)
	}
	return out, true
}

// versionNeeds reads SHT_GNU_verneed as debug/elf does: each needed
// version's index and name, in order; false where debug/elf fails.
func (lr *layoutReader) versionNeeds(s *elf.Section, str []byte) ([]versionName, bool) {
	if s == nil {
		return nil, true
	}
	d, err := lr.sectionData(s)
	if err != nil {
		return nil, true
	}
	bo := lr.f.ByteOrder
	var out []versionName
	for i := 0; i+16 <= len(d); {
		if bo.Uint16(d[i:]) != 1 {
			return nil, false
		}
		cnt := int(bo.Uint16(d[i+2:]))
		aux, next := bo.Uint32(d[i+8:]), bo.Uint32(d[i+12:])
		j := i + int(aux)
		for c := 0; c < cnt && j >= 0 && j+16 <= len(d); c++ {
			out = append(out, versionName{bo.Uint16(d[j+6:]), cString(str, bo.Uint32(d[j+8:]))})
			vnext := bo.Uint32(d[j+12:])
			if vnext == 0 {
				break
			}
			j += int(vnext)
		}
		if next == 0 || i+int(next) <= i {
			break
		}
		i += int(next)
	}
	return out, true
}

// sectionData reads a small section's file bytes (a version table: a few
// kilobytes), bounded like a string table.
func (lr *layoutReader) sectionData(s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS || s.FileSize > maxWholeStrtab {
		return nil, io.ErrUnexpectedEOF
	}
	return lr.src.read(s.Offset, s.FileSize)
}

// cString is the NUL-terminated string at off in str, or "".
func cString(str []byte, off uint32) string {
	if uint64(off) >= uint64(len(str)) {
		return ""
	}
	b := str[off:]
	if end := bytes.IndexByte(b, 0); end >= 0 {
		return string(b[:end])
	}
	return "" // debug/elf's getString: unterminated is none
}
