package native

import (
	"compress/zlib"
	"context"
	"debug/dwarf"
	"debug/elf"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"sync"
)

// One DWARF load per analysis: signatures (code_signature.go) and source
// lines (dwarf_lines.go) share the parsed *dwarf.Data and the decompressed
// .debug_line, which the line index checks before debug/dwarf reads it. On
// an ELF file the sections are read here rather than through
// elf.File.DWARF, which decompresses every .debug_* section, the location
// lists and call frames included (a third of a Go binary's debug bytes),
// although debug/dwarf reads none of them; a relocatable file, whose debug
// sections need their relocations applied, still goes through DWARF.

// dwarfLoad is an analysis's DWARF, or why it has none.
type dwarfLoad struct {
	d        *dwarf.Data // nil without DWARF
	infoSize uint64      // bytes of .debug_info, 1 at least: every entry takes one
	line     []byte      // .debug_line, decompressed; nil when absent
	bytes    int64       // what the load holds: its debug sections' bytes
	err      error       // the memory budget refused bytes (not cached)
	// supAt is where the supplementary (dwz) file's units start in the
	// joined .debug_info (dwz.go), 0 without one; supNote says why a
	// supplementary file found was not joined.
	supAt   uint64
	supNote string
}

// dwarfSections are the sections debug/dwarf reads (dwarf.New's and
// AddSection's); other .debug_* sections are not decompressed.
var dwarfSections = map[string]bool{"abbrev": true, "info": true, "str": true, "line": true, "ranges": true,
	"addr": true, "line_str": true, "str_offsets": true, "rnglists": true, "types": true}

// dwarf returns the analysis's DWARF, loading it on first use. A target
// without DWARF, or with more than maxDWARFBytes of it, has d nil. Its
// bytes are charged to ctx's memory budget and held until Close; a refusal
// is err (and the next call tries again).
func (a *Analysis) dwarf(ctx context.Context) *dwarfLoad {
	l, err := a.dw.get(ctx, func(ctx context.Context) (l *dwarfLoad, err error) {
		defer func() {
			if recover() != nil {
				l, err = &dwarfLoad{}, nil // corrupt debug sections: no DWARF
			}
		}()
		l = a.loadDWARF()
		if l.d != nil {
			if err := a.reserveHeld(ctx, "the DWARF debug information", l.bytes); err != nil {
				return nil, err
			}
		}
		return l, nil
	})
	if err != nil {
		return &dwarfLoad{err: err}
	}
	if l == nil {
		return &dwarfLoad{}
	}
	return l
}

// dwarfData is the analysis's *dwarf.Data and the size of .debug_info.
func (a *Analysis) dwarfData(ctx context.Context) (*dwarf.Data, uint64, error) {
	l := a.dwarf(ctx)
	return l.d, l.infoSize, l.err
}

func (a *Analysis) loadDWARF() *dwarfLoad {
	switch im := a.img.(type) {
	case *elfImage:
		if d := a.debug; d != nil && d.dwarf {
			return loadELFDWARFSup(d.img.src, d.img.f, a.sup, d.img.debugRelocs()) // the debug file's, under the same bounds
		}
		return loadELFDWARFSup(im.src, im.f, a.sup, im.debugRelocs())
	case *peImage:
		return loadPEDWARF(im.f)
	case *machoImage, *fatImage:
		if d := a.debug; d != nil && d.dwarf && d.mach != nil {
			return loadMachODWARF(d.mach) // the dSYM's (dsym.go), under the same bounds
		}
		return loadMachODWARF(machoOf(a.img))
	}
	return &dwarfLoad{}
}

// loadPEDWARF reads f's DWARF through debug/pe. Its .debug_* sections, or
// .zdebug_* ones compressed the GNU way ("ZLIB", the big-endian size, a
// zlib stream; mingw's gcc with -gz=zlib-gnu, binutils' objcopy), are all
// read (debug/pe's DWARF takes them all and inflates each into a buffer
// of its declared size), so their sizes, a compressed one's declared, are
// bounded together before any is.
func loadPEDWARF(f *pe.File) *dwarfLoad {
	size := func(s *pe.Section) uint64 {
		if strings.HasPrefix(s.Name, ".zdebug_") {
			if declared, ok := gnuZlibSize(s); ok {
				return declared
			}
		}
		return uint64(s.Size)
	}
	info := f.Section(".debug_info")
	if info == nil {
		info = f.Section(".zdebug_info")
	}
	if info == nil {
		return &dwarfLoad{}
	}
	var total uint64
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			total += min(size(s), maxDWARFBytes+1)
		}
	}
	if total > maxDWARFBytes {
		return &dwarfLoad{}
	}
	d, err := f.DWARF()
	if err != nil {
		return &dwarfLoad{}
	}
	return &dwarfLoad{d: d, infoSize: max(size(info), 1), bytes: int64(total), line: peLine(f)}
}

// peLine is f's line table: .debug_line, or .zdebug_line inflated as
// debug/pe inflates it for its DWARF, nil when there is none or it cannot
// be read.
func peLine(f *pe.File) []byte {
	if s := f.Section(".debug_line"); s != nil {
		b, _ := s.Data()
		return b
	}
	if s := f.Section(".zdebug_line"); s != nil {
		return gnuCompressedData(s, s.Data, uint64(s.Size), s.Name)
	}
	return nil
}

// gnuZlibSize is the inflated size a section compressed the GNU way
// declares ("ZLIB" and a big-endian 64-bit size before the zlib stream);
// ok is false when r does not begin so.
func gnuZlibSize(r io.ReaderAt) (uint64, bool) {
	var h [12]byte
	if n, _ := r.ReadAt(h[:], 0); n != 12 || string(h[:4]) != "ZLIB" {
		return 0, false
	}
	return binary.BigEndian.Uint64(h[4:]), true
}

// gnuCompressedData is the bytes of a .zdebug_/__zdebug_ section r of size
// bytes: inflated when compressed the GNU way, else as stored (data), as
// debug/pe and debug/macho read it; nil when it cannot be read.
func gnuCompressedData(r io.ReaderAt, data func() ([]byte, error), size uint64, name string) []byte {
	var b []byte
	if declared, ok := gnuZlibSize(r); ok {
		b, _ = inflateSection(r, 12, size, declared, name)
	} else {
		b, _ = data()
	}
	return b
}

// loadMachODWARF reads m's DWARF through debug/macho. Every __debug_* and
// __zdebug_* section is read (debug/macho's DWARF takes them all), so
// their sizes, the declared inflated size of a compressed one, are bounded
// together before any is.
func loadMachODWARF(m *machoImage) *dwarfLoad {
	s := m.f.Section("__debug_info")
	if s == nil || s.Size > maxDWARFBytes {
		return &dwarfLoad{}
	}
	var total uint64
	for _, s := range m.f.Sections {
		if !strings.HasPrefix(s.Name, "__debug_") && !strings.HasPrefix(s.Name, "__zdebug_") {
			continue
		}
		size := s.Size
		if declared, ok := gnuZlibSize(s); ok {
			size = max(size, declared)
		}
		total += min(size, maxDWARFBytes+1)
	}
	if total > maxDWARFBytes {
		return &dwarfLoad{}
	}
	d, err := m.f.DWARF()
	if err != nil {
		return &dwarfLoad{}
	}
	l := &dwarfLoad{d: d, infoSize: max(s.Size, 1), bytes: int64(total), line: machoLine(m)}
	return l
}

// machoLine is m's line table: __debug_line, or __zdebug_line inflated as
// debug/macho inflates it for its DWARF (a dSYM written by GNU tools), nil
// when there is none or it cannot be read.
func machoLine(m *machoImage) []byte {
	if s := m.f.Section("__debug_line"); s != nil {
		b, _ := s.Data()
		return b
	}
	if s := m.f.Section("__zdebug_line"); s != nil {
		return gnuCompressedData(s, s.Data, s.Size, s.Name)
	}
	return nil
}

// dwarfSuffix is the name of a DWARF section without its prefix, "" for
// other sections; z marks the old GNU compressed form (.zdebug_*).
func dwarfSuffix(name string) (suffix string, z bool) {
	if s, ok := strings.CutPrefix(name, ".debug_"); ok {
		return s, false
	}
	if s, ok := strings.CutPrefix(name, ".zdebug_"); ok {
		return s, true
	}
	return "", false
}

// zdebugSize is the size a .zdebug_* section declares for its contents
// ("ZLIB" and a big-endian 64-bit size before the zlib stream), or its own
// size when it does not start so (debug/elf then reads it as stored).
func zdebugSize(src source, s *elf.Section) uint64 {
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		return s.Size
	}
	if h, err := src.read(s.Offset, 12); err == nil && string(h[:4]) == "ZLIB" {
		return binary.BigEndian.Uint64(h[4:])
	}
	return s.FileSize
}

func loadELFDWARF(src source, f *elf.File) *dwarfLoad {
	return loadELFDWARFSup(src, f, nil, nil)
}

// loadELFDWARFSup loads f's DWARF joined with that of its supplementary
// file sup (nil: none). A supplementary file that cannot be joined leaves
// f's own DWARF, and supNote says why. relocs, when not nil, applies a
// relocatable object's relocations to a debug section's bytes against its
// synthetic layout (elf_rel.go); without it, debug/elf applies them
// against sections at 0.
func loadELFDWARFSup(src source, f *elf.File, sup *supFile, relocs func(*elf.Section, []byte)) *dwarfLoad {
	var total, info uint64
	relocated := false
	for _, s := range f.Sections {
		if s.Type == elf.SHT_REL || s.Type == elf.SHT_RELA {
			if int(s.Info) < len(f.Sections) {
				if suffix, _ := dwarfSuffix(f.Sections[s.Info].Name); suffix != "" {
					relocated = true
				}
			}
			continue
		}
		suffix, z := dwarfSuffix(s.Name)
		if !dwarfSections[suffix] {
			continue
		}
		size := s.Size // SHF_COMPRESSED: the size the header declares
		if z {
			size = zdebugSize(src, s)
		}
		total += min(size, maxDWARFBytes+1)
		if suffix == "info" {
			info = max(size, 1)
		}
	}
	if info == 0 || total > maxDWARFBytes {
		return &dwarfLoad{}
	}
	if (relocated || f.Type == elf.ET_REL) && relocs == nil {
		d, err := f.DWARF()
		if err != nil {
			return &dwarfLoad{}
		}
		l := &dwarfLoad{d: d, infoSize: info, bytes: int64(total)}
		if sup != nil {
			l.supNote = sup.refusal("a relocatable file's DWARF is not joined")
		}
		if s := f.Section(".debug_line"); s != nil {
			l.line, _ = s.Data()
		} else if s := f.Section(".zdebug_line"); s != nil {
			l.line, _ = s.Data()
		}
		return l
	}
	// The sections are decompressed in parallel: inflating them is most of
	// the load (a 38 MB Go binary: 15 MB from 6).
	var (
		secs []*elf.Section
		bufs [][]byte
		errs []error
	)
	for _, s := range f.Sections {
		if suffix, _ := dwarfSuffix(s.Name); dwarfSections[suffix] && s.Type != elf.SHT_NOBITS {
			secs = append(secs, s)
		}
	}
	bufs, errs = make([][]byte, len(secs)), make([]error, len(secs))
	var wg sync.WaitGroup
	for i, s := range secs {
		wg.Go(func() {
			defer recoverInto("elf", "debug section "+s.Name, &errs[i])
			bufs[i], errs[i] = sectionData(src, f, s)
		})
	}
	wg.Wait()
	dat := map[string][]byte{}
	var types [][]byte
	for i, s := range secs {
		if errs[i] != nil {
			return &dwarfLoad{} // elf.File.DWARF fails alike
		}
		if relocs != nil {
			relocs(s, bufs[i])
		}
		suffix, _ := dwarfSuffix(s.Name)
		if suffix == "types" {
			types = append(types, bufs[i])
		} else if _, dup := dat[suffix]; !dup {
			dat[suffix] = bufs[i]
		}
	}
	var supNote string
	if sup != nil {
		l, note := joinSupplementary(f.ByteOrder, dat, types, sup, maxDWARFBytes-min(total, maxDWARFBytes))
		if l != nil {
			return l
		}
		supNote = note
	}
	d, err := newDWARF(dat, types)
	if err != nil {
		return &dwarfLoad{}
	}
	var held int64
	for _, b := range bufs {
		held += int64(len(b))
	}
	return &dwarfLoad{d: d, infoSize: info, line: dat["line"], bytes: held, supNote: supNote}
}

// joinSupplementary is the load of dat joined with sup's DWARF, or nil and
// why it could not be joined.
func joinSupplementary(bo binary.ByteOrder, dat map[string][]byte, types [][]byte, sup *supFile, room uint64) (*dwarfLoad, string) {
	supDat, err := sup.sections(room)
	if err != nil {
		return nil, sup.refusal(err.Error())
	}
	joined, at, err := mergeSupplementary(bo, dat, supDat)
	if err != nil {
		return nil, sup.refusal("its DWARF cannot be joined with the debug file's (" + err.Error() + ")")
	}
	d, err := newDWARF(joined, types)
	if err != nil {
		return nil, sup.refusal("the joined DWARF cannot be read (" + err.Error() + ")")
	}
	var held int64
	for _, b := range joined {
		held += int64(len(b))
	}
	for _, b := range types {
		held += int64(len(b))
	}
	return &dwarfLoad{d: d, infoSize: uint64(max(len(joined["info"]), 1)), line: joined["line"], bytes: held, supAt: at}, ""
}

// newDWARF is debug/dwarf's reading of the sections in dat (by suffix) and
// the type units in types.
func newDWARF(dat map[string][]byte, types [][]byte) (*dwarf.Data, error) {
	d, err := dwarf.New(dat["abbrev"], nil, nil, dat["info"], dat["line"], nil, dat["ranges"], dat["str"])
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"addr", "line_str", "str_offsets", "rnglists"} {
		if b, ok := dat[name]; ok {
			if err := d.AddSection(".debug_"+name, b); err != nil {
				return nil, err
			}
		}
	}
	for i, b := range types {
		if err := d.AddTypes(fmt.Sprintf("types-%d", i), b); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// sectionData is a debug section's contents. A zlib-compressed one
// (SHF_COMPRESSED, or the GNU .zdebug form) is inflated straight into a
// buffer of its declared size, which loadELFDWARF has bounded; others are
// read by debug/elf.
func sectionData(src source, f *elf.File, s *elf.Section) ([]byte, error) {
	var off, size uint64
	_, z := dwarfSuffix(s.Name)
	switch {
	case s.Flags&elf.SHF_COMPRESSED != 0:
		n := 24
		if f.Class == elf.ELFCLASS32 {
			n = 12
		}
		h, err := src.read(s.Offset, uint64(n))
		if err != nil {
			return nil, err
		}
		if elf.CompressionType(f.ByteOrder.Uint32(h[:])) != elf.COMPRESS_ZLIB {
			return s.Data() // zstd
		}
		off = uint64(n)
		if n == 24 {
			size = f.ByteOrder.Uint64(h[8:])
		} else {
			size = uint64(f.ByteOrder.Uint32(h[4:]))
		}
	case z:
		h, err := src.read(s.Offset, 12)
		if err != nil || string(h[:4]) != "ZLIB" {
			return s.Data()
		}
		off, size = 12, binary.BigEndian.Uint64(h[4:])
	default:
		return s.Data()
	}
	if size > maxDWARFBytes || off > s.FileSize || size/1032 > s.FileSize {
		return nil, fmt.Errorf("section %s: %d bytes declared", s.Name, size) // as inflateSection says
	}
	if !src.contains(s.Offset+off, s.FileSize-off) {
		_, err := src.read(s.Offset+off, s.FileSize-off) // the format error of a section past the end
		return nil, err
	}
	return inflateSection(io.NewSectionReader(src.r, int64(s.Offset), int64(s.FileSize)), off, s.FileSize, size, s.Name)
}

// inflateSection inflates the zlib stream at off in the n bytes of section
// r into a buffer of the declared size, reading the compressed bytes as
// they inflate rather than copying them first.
func inflateSection(r io.ReaderAt, off, n, size uint64, name string) ([]byte, error) {
	// Deflate expands at most 1032 times: a larger declared size is a lie
	// that would only allocate.
	if size > maxDWARFBytes || off > n || size/1032 > n {
		return nil, fmt.Errorf("section %s: %d bytes declared", name, size)
	}
	zr, err := zlib.NewReader(io.NewSectionReader(r, int64(off), int64(n-off)))
	if err != nil {
		return nil, err
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("section %s: %w", name, err)
	}
	return out, nil
}
