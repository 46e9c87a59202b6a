package native

import (
	"encoding/binary"
	"fmt"
	"io"

	"rea/ports"
)

// The standard library's parsers read whole symbol tables (and, for ELF,
// the section-name table) while they parse the headers, sized by counts
// the file declares. The engine hands them a view of the file in which
// those counts read as zero or bounded, and reads the tables itself
// (symtab.go). The view differs from the file only in the patched header
// fields; every list reads the file itself.

// patch replaces the bytes at off.
type patch struct {
	off int64
	b   []byte
}

// patchedReader is r with patches applied.
type patchedReader struct {
	r       io.ReaderAt
	patches []patch
}

func (p *patchedReader) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.r.ReadAt(b, off)
	for _, pt := range p.patches {
		lo, hi := max(off, pt.off), min(off+int64(n), pt.off+int64(len(pt.b)))
		if lo < hi {
			copy(b[lo-off:hi-off], pt.b[lo-pt.off:hi-pt.off])
		}
	}
	return n, err
}

// view returns r with patches applied, or r itself when there are none.
func view(r io.ReaderAt, patches []patch) io.ReaderAt {
	if len(patches) == 0 {
		return r
	}
	return &patchedReader{r: r, patches: patches}
}

func u32(bo binary.ByteOrder, v uint32) []byte {
	b := make([]byte, 4)
	bo.PutUint32(b, v)
	return b
}

func u64(bo binary.ByteOrder, v uint64) []byte {
	b := make([]byte, 8)
	bo.PutUint64(b, v)
	return b
}

// maxSectionNames bounds the ELF section-name table debug/elf reads.
const maxSectionNames = 16 << 20

// elfPatches bounds the size of the section-name table: debug/elf reads it
// whole while parsing, and a sparse file can declare gigabytes. A name
// beyond the bound makes the parse fail as a malformed file.
func elfPatches(src source) []patch {
	h, err := src.read(0, 64)
	if err != nil {
		return nil
	}
	e, ok := readELFHeader(h)
	if !ok {
		return nil
	}
	bo, wide, shoff, shentsize, shstrndx := e.order, e.wide, e.shoff, e.shentsize, e.shstrndx
	sizeAt := uint64(20)
	if wide {
		sizeAt = 32
	}
	if shoff == 0 || shstrndx == 0 || shstrndx >= 0xff00 || uint64(shentsize) < sizeAt+8 {
		return nil
	}
	at := shoff + uint64(shstrndx)*uint64(shentsize) + sizeAt
	b, err := src.read(at, 8)
	if err != nil {
		return nil
	}
	if wide && bo.Uint64(b) > maxSectionNames {
		return []patch{{int64(at), u64(bo, maxSectionNames)}}
	}
	if !wide && bo.Uint32(b) > maxSectionNames {
		return []patch{{int64(at), u32(bo, maxSectionNames)}}
	}
	return nil
}

// maxLoadCommands bounds the load-command bytes of a Mach-O slice (real
// files hold kilobytes; debug/macho reads them whole).
const maxLoadCommands = 16 << 20

// machoTables are a Mach-O slice's symbol-table commands as the file
// declares them (offsets relative to the slice).
type machoTables struct {
	symtab                         bool
	symoff, nsyms, stroff, strsize uint32
	dysymtab                       bool
	nlocal                         uint32 // LC_DYSYMTAB's nlocalsym: what strip removes
	indoff, nind                   uint32
}

// machoPatches reads the load commands of the slice at base and returns
// the patches that make LC_SYMTAB and LC_DYSYMTAB declare empty tables to
// debug/macho, with the tables as declared.
func machoPatches(src source, base uint64) ([]patch, machoTables, error) {
	var t machoTables
	h, err := src.read(base, 32)
	if err != nil {
		return nil, t, nil // debug/macho reports it
	}
	var bo binary.ByteOrder = binary.LittleEndian
	magic := binary.BigEndian.Uint32(h)
	if magic == 0xfeedface || magic == 0xfeedfacf {
		bo = binary.BigEndian
	} else {
		magic = binary.LittleEndian.Uint32(h)
	}
	hdr := uint64(28)
	if magic == 0xfeedfacf {
		hdr = 32
	}
	ncmds, size := bo.Uint32(h[16:]), uint64(bo.Uint32(h[20:]))
	if size > maxLoadCommands {
		return nil, t, &ports.FormatError{Format: "mach-o", Offset: int64(base + 20),
			Msg: fmt.Sprintf("load commands of %d bytes exceed the engine's limit of %d", size, maxLoadCommands)}
	}
	cmds, err := src.read(base+hdr, size)
	if err != nil {
		return nil, t, nil
	}
	var out []patch
	zero := u32(bo, 0)
	at := func(cmd, field uint64) int64 { return int64(base + hdr + cmd + field) }
	for i, off := uint32(0), uint64(0); i < ncmds && off+8 <= size; i++ {
		cmd, n := bo.Uint32(cmds[off:]), uint64(bo.Uint32(cmds[off+4:]))
		if n < 8 || off+n > size {
			break
		}
		c := cmds[off : off+n]
		switch {
		case cmd == 0x2 && n >= 24: // LC_SYMTAB
			t.symtab = true
			t.symoff, t.nsyms, t.stroff, t.strsize = bo.Uint32(c[8:]), bo.Uint32(c[12:]), bo.Uint32(c[16:]), bo.Uint32(c[20:])
			out = append(out, patch{at(off, 12), zero}, patch{at(off, 20), zero})
		case cmd == 0xb && n >= 80: // LC_DYSYMTAB
			t.dysymtab = true
			t.nlocal = bo.Uint32(c[12:])
			t.indoff, t.nind = bo.Uint32(c[56:]), bo.Uint32(c[60:])
			out = append(out, patch{at(off, 24), zero}, patch{at(off, 28), zero}, patch{at(off, 60), zero})
		}
		off += n
	}
	return out, t, nil
}

// fatPatches applies machoPatches to each slice of a universal file.
func fatPatches(src source) ([]patch, map[uint64]machoTables, error) {
	h, err := src.read(0, 8)
	if err != nil {
		return nil, nil, nil
	}
	n := binary.BigEndian.Uint32(h[4:])
	var out []patch
	tables := map[uint64]machoTables{}
	for i := range uint64(min(n, 32)) {
		a, err := src.read(8+i*20, 20)
		if err != nil {
			break
		}
		base := uint64(binary.BigEndian.Uint32(a[8:]))
		if _, done := tables[base]; done {
			continue
		}
		p, t, err := machoPatches(src, base)
		if err != nil {
			return nil, nil, err
		}
		out, tables[base] = append(out, p...), t
	}
	return out, tables, nil
}

// peSymbols is the COFF symbol table as the file header declares it.
type peSymbols struct {
	ptr, n uint32
}

// pePatches makes the COFF header declare no symbols to debug/pe, keeping
// its string table (section names may live there, and debug/pe finds it
// after the symbols) and bounding that table's length.
func pePatches(src source, coff uint64) ([]patch, peSymbols) {
	h, err := src.read(coff, 20)
	if err != nil {
		return nil, peSymbols{}
	}
	bo := binary.LittleEndian
	t := peSymbols{ptr: bo.Uint32(h[8:]), n: bo.Uint32(h[12:])}
	if t.ptr == 0 {
		return nil, t
	}
	strOff := t.ptr + 18*t.n // uint32 arithmetic, as debug/pe computes it
	out := []patch{{int64(coff + 8), u32(bo, strOff)}, {int64(coff + 12), u32(bo, 0)}}
	if l, err := src.read(uint64(strOff), 4); err == nil && bo.Uint32(l) > maxWholeStrtab {
		out = append(out, patch{int64(strOff), u32(bo, maxWholeStrtab)})
	}
	return out, t
}
