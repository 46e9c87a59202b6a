package native

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"strings"

	"rea/ports"
)

var _ ports.StripReporter = (*Analysis)(nil)

// Stripping tells which of its own symbol tables and debug information
// the target's file keeps. It reads the target only: a separate debug
// file (debugfile.go, dsym.go) names procedures, but the file is still
// stripped. A .NET assembly, whose metadata names its methods whatever
// its symbol tables, is ErrUnsupported.
func (a *Analysis) Stripping(ctx context.Context) (ports.Stripping, error) {
	if err := a.check(ctx, "stripping"); err != nil {
		return ports.Stripping{}, err
	}
	switch im := a.img.(type) {
	case *elfImage:
		link, _, _ := debugLink(im.src, im.f)
		return ports.Stripping{StaticSymbols: elfKeepsSymtab(im.f), DebugInfo: hasDWARF(im.f), DebugLink: shownPath(link)}, nil
	case *peImage:
		if im.clr != nil {
			return ports.Stripping{}, ports.ErrUnsupported // a .NET assembly's metadata names its methods: nothing to strip
		}
		return ports.Stripping{StaticSymbols: im.syms.n > 0, DebugInfo: peHasDWARF(im), DebugLink: shownPath(im.pdbPath())}, nil
	case *machoImage, *fatImage:
		m := machoOf(a.img)
		t := m.tables
		local := t.symtab && t.nsyms > 0 // an object without LC_DYSYMTAB: all its symbols
		if t.dysymtab {
			local = t.nlocal > 0
		}
		return ports.Stripping{StaticSymbols: local, DebugInfo: machoHasDWARF(m)}, nil
	}
	return ports.Stripping{}, ports.ErrUnsupported
}

// elfKeepsSymtab: a .symtab with an entry beyond the null one. strip
// removes the section; a linker may leave it holding only that entry.
func elfKeepsSymtab(f *elf.File) bool {
	s := f.SectionByType(elf.SHT_SYMTAB)
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > max(s.Entsize, 1)
}

func peHasDWARF(p *peImage) bool {
	for _, s := range p.sections {
		if suffix, _ := dwarfSuffix(s.Name); suffix == "info" && s.Size > 0 {
			return true
		}
	}
	return false
}

// PE debug directory entries (IMAGE_DEBUG_DIRECTORY) and the CodeView
// records that name a PDB.
const (
	peDirDebug       = 6  // the debug directory's index among the data directories
	peDebugEntrySize = 28 // bytes of one IMAGE_DEBUG_DIRECTORY
	peDebugCodeView  = 2  // IMAGE_DEBUG_TYPE_CODEVIEW
	maxDebugEntries  = 64 // a linker writes a handful; more is a hostile file
	maxCodeView      = 4096
)

// pdbPath is the PDB path of the first CodeView record of the image's
// debug directory (RSDS, PDB 7.0, as MSVC, lld-link and ld --pdb write it;
// NB10, PDB 2.0), "" when there is none or it does not parse. The PDB
// itself is not looked for.
func (p *peImage) pdbPath() string {
	d := p.dir(peDirDebug)
	n := min(d.Size/peDebugEntrySize, maxDebugEntries)
	if n == 0 {
		return ""
	}
	dir, err := p.readRVA(d.VirtualAddress, uint64(n)*peDebugEntrySize)
	if err != nil {
		return ""
	}
	for e := dir; len(e) >= peDebugEntrySize; e = e[peDebugEntrySize:] {
		typ, size := binary.LittleEndian.Uint32(e[12:]), binary.LittleEndian.Uint32(e[16:])
		rva, off := binary.LittleEndian.Uint32(e[20:]), binary.LittleEndian.Uint32(e[24:])
		if typ != peDebugCodeView || size < 8 || size > maxCodeView {
			continue
		}
		var rec []byte
		if off != 0 && p.src.contains(uint64(off), uint64(size)) {
			rec, err = p.src.read(uint64(off), uint64(size))
		} else {
			rec, err = p.readRVA(rva, uint64(size))
		}
		if err != nil {
			continue
		}
		var name []byte
		switch {
		case bytes.HasPrefix(rec, []byte("RSDS")) && len(rec) > 24: // signature, GUID, age, path
			name = rec[24:]
		case bytes.HasPrefix(rec, []byte("NB10")) && len(rec) > 16: // signature, offset, timestamp, age, path
			name = rec[16:]
		default:
			continue
		}
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) > 0 {
			return string(name)
		}
	}
	return ""
}

// shownPath is a file name read from the target, made valid UTF-8
// without control characters, so that it can be shown as it is named.
func shownPath(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}
