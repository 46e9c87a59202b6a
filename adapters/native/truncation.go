package native

import (
	"encoding/binary"
	"errors"
	"fmt"

	"rea/ports"
)

// explain completes a parse failure with the file's size and, when a std
// parser only said that the file ended early, with the first structure the
// headers place past its end: an agent can then tell a cut-off copy (the
// section header table of an ELF file is usually last) from a corrupt one.
func (s source) explain(err error) error {
	var fe *ports.FormatError
	if !errors.As(err, &fe) {
		return err
	}
	fe.Size = s.size
	if fe.Truncated && fe.Offset < 0 {
		if off, end, what := s.pastEnd(); what != "" {
			fe.Offset = off
			fe.Msg = fmt.Sprintf("truncated: %s ends at 0x%x, past the end of the %d-byte file", what, end, s.size)
		}
	}
	return err
}

// pastEnd returns the first header structure of the file that does not end
// inside it (its offset, end and description), or "" when every one does.
func (s source) pastEnd() (off, end int64, what string) {
	type part struct {
		off, n uint64
		what   string
	}
	var parts []part
	b, _ := s.read(0, uint64(min(s.size, 4096)))
	u32 := func(o int) uint64 { return uint64(binary.LittleEndian.Uint32(b[o:])) }
	switch s.format {
	case "elf":
		if len(b) < 6 {
			return 0, 6, "the ELF identification"
		}
		hdr := uint64(52)
		if b[4] == 2 { // ELFCLASS64
			hdr = 64
		}
		if uint64(len(b)) < hdr {
			return 0, int64(hdr), fmt.Sprintf("the ELF header (%d bytes)", hdr)
		}
		e, ok := readELFHeader(b)
		if !ok { // an unknown class: no table to place
			return 0, 0, ""
		}
		parts = append(parts,
			part{e.phoff, uint64(e.phentsize) * uint64(e.phnum), fmt.Sprintf("the program header table (%d entries of %d bytes)", e.phnum, e.phentsize)},
			part{e.shoff, uint64(e.shentsize) * uint64(e.shnum), fmt.Sprintf("the section header table (%d entries of %d bytes)", e.shnum, e.shentsize)})
	case "pe":
		if len(b) < 0x40 {
			return 0, 0x40, "the DOS header (64 bytes)"
		}
		coff := u32(0x3c) + 4
		h, err := s.read(coff, 20)
		if err != nil {
			return int64(min(coff, 1<<62)), int64(min(coff+20, 1<<62)), "the COFF file header (20 bytes)"
		}
		le := binary.LittleEndian
		nsec, sym, nsym, opt := uint64(le.Uint16(h[2:])), uint64(le.Uint32(h[8:])), uint64(le.Uint32(h[12:])), uint64(le.Uint16(h[16:]))
		parts = append(parts, part{coff + 20, opt, fmt.Sprintf("the optional header (%d bytes)", opt)},
			part{coff + 20 + opt, 40 * nsec, fmt.Sprintf("the section table (%d entries of 40 bytes)", nsec)})
		if sym != 0 {
			parts = append(parts, part{sym, 18*nsym + 4, fmt.Sprintf("the COFF symbol and string tables (%d symbols)", nsym)})
		}
	case "mach-o":
		if len(b) < 28 {
			return 0, 28, "the Mach-O header"
		}
		if b[0] == 0xfe { // big-endian magic bytes
			u32 = func(o int) uint64 { return uint64(binary.BigEndian.Uint32(b[o:])) }
		}
		hdr := uint64(28)
		if m := binary.BigEndian.Uint32(b); m == 0xfeedfacf || m == 0xcffaedfe {
			hdr = 32
		}
		ncmds, size := u32(16), u32(20)
		parts = append(parts, part{0, hdr, fmt.Sprintf("the Mach-O header (%d bytes)", hdr)},
			part{hdr, size, fmt.Sprintf("the load commands (%d, %d bytes)", ncmds, size)})
	}
	for _, p := range parts {
		if p.n > 0 && !s.contains(p.off, p.n) {
			return int64(min(p.off, 1<<62)), int64(min(p.off+p.n, 1<<62)), p.what
		}
	}
	return 0, 0, ""
}
