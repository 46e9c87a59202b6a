package native

import (
	"context"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"fmt"

	"rea/ports"
)

// Load segments. The sections (memMap, Segments) leave out bytes that the
// loader maps all the same: the ELF header and program headers at the
// first address of an image, gaps and padding between sections, a PE
// image's headers at its base and a Mach-O header in __TEXT. ReadBytes
// reads those through the image's load segments, so an analyst can read
// what the process will see there; discovery and the string scan keep to
// sections, which is where code and data are declared.

// loadSegments lists the image's load segments: ELF PT_LOAD entries, the
// PE headers as the loader maps them at the image base, Mach-O
// LC_SEGMENT(_64) commands (of the first slice of a universal file).
// FileOffset is absolute; bytes past FileSize but inside Size are
// zero-filled by the loader.
func loadSegments(img image) []ports.Segment {
	var out []ports.Segment
	switch im := img.(type) {
	case *elfImage:
		n := 0
		for _, p := range im.f.Progs {
			if p.Type != elf.PT_LOAD {
				continue
			}
			out = append(out, ports.Segment{
				Name: fmt.Sprintf("LOAD#%d", n), Kind: "segment", Start: p.Vaddr, Size: p.Memsz, FileOffset: p.Off, FileSize: p.Filesz,
				Perms: ports.Permissions{Read: p.Flags&elf.PF_R != 0, Write: p.Flags&elf.PF_W != 0, Execute: p.Flags&elf.PF_X != 0},
			})
			n++
		}
	case *peImage:
		var size uint64
		switch oh := im.f.OptionalHeader.(type) {
		case *pe.OptionalHeader32:
			size = uint64(oh.SizeOfHeaders)
		case *pe.OptionalHeader64:
			size = uint64(oh.SizeOfHeaders)
		}
		if size > 0 {
			out = append(out, ports.Segment{Name: "headers", Kind: "segment", Start: im.base, Size: size, FileSize: size,
				Perms: ports.Permissions{Read: true}})
		}
	case *machoImage:
		out = machoLoads(im)
	case *fatImage:
		out = machoLoads(im.slices[0])
	}
	return out
}

func machoLoads(m *machoImage) []ports.Segment {
	var out []ports.Segment
	for _, l := range m.f.Loads {
		if g, ok := l.(*macho.Segment); ok {
			out = append(out, ports.Segment{
				Name: g.Name, Kind: "segment", Start: g.Addr, Size: g.Memsz,
				FileOffset: m.base + g.Offset, FileSize: g.Filesz, Perms: machoPerms(g.Prot),
			})
		}
	}
	return out
}

// LoadSegments lists the image's load segments (ELF program headers of
// type PT_LOAD named LOAD#n, a PE image's headers, Mach-O segments), for a
// caller that maps an address no section covers; ReadBytes reads through
// them.
func (a *Analysis) LoadSegments(ctx context.Context) ([]ports.Segment, error) {
	if err := a.check(ctx, "load segments"); err != nil {
		return nil, err
	}
	return loadSegments(a.img), nil
}

// readLoaded reads up to n file bytes at addr through the load segment
// holding it; ErrNotFound when none does or addr is in the zero-filled
// tail past the segment's file bytes (the loader invents those, the file
// does not hold them).
func (a *Analysis) readLoaded(addr uint64, n uint64) ([]byte, error) {
	s := ports.Holding(loadSegments(a.img), addr)
	if s == nil {
		return nil, fmt.Errorf("address 0x%x is in no section or load segment: %w", addr, ports.ErrNotFound)
	}
	d := addr - s.Start
	if d >= s.FileSize {
		return nil, fmt.Errorf("address 0x%x is in the zero-filled part of %s: %w", addr, s.Name, ports.ErrNotFound)
	}
	if s.FileOffset+d < s.FileOffset { // a corrupt offset that wraps around
		return nil, fmt.Errorf("address 0x%x is beyond the end of the file: %w", addr, ports.ErrNotFound)
	}
	n = a.src.clamp(s.FileOffset+d, min(n, s.FileSize-d))
	if n == 0 {
		return nil, fmt.Errorf("address 0x%x is beyond the end of the file: %w", addr, ports.ErrNotFound)
	}
	return a.src.read(s.FileOffset+d, n)
}
