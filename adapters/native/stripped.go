package native

import (
	"context"
	"debug/elf"

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
		return ports.Stripping{StaticSymbols: elfKeepsSymtab(im.f), DebugInfo: hasDWARF(im.f)}, nil
	case *peImage:
		if im.clr != nil {
			return ports.Stripping{}, ports.ErrUnsupported // a .NET assembly's metadata names its methods: nothing to strip
		}
		return ports.Stripping{StaticSymbols: im.syms.n > 0, DebugInfo: peHasDWARF(im)}, nil
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
