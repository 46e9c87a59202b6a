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
	u16 := func(o int) uint64 { return uint64(binary.LittleEndian.Uint16(b[o:])) }
	u32 := func(o int) uint64 { return uint64(binary.LittleEndian.Uint32(b[o:])) }
	u64 := func(o int) uint64 { return binary.LittleEndian.Uint64(b[o:]) }
	switch s.format {
	case "elf":
		if len(b) < 6 {
			return 0, 6, "the ELF identification"
		}
		if b[5] == 2 { // ELFDATA2MSB
			u16 = func(o int) uint64 { return uint64(binary.BigEndian.Uint16(b[o:])) }
			u32 = func(o int) uint64 { return uint64(binary.BigEndian.Uint32(b[o:])) }
			u64 = func(o int) uint64 { return binary.BigEndian.Uint64(b[o:]) }
		}
		ph, sh, at := u32, u32, [6]int{0x1c, 0x20, 0x2a, 0x2c, 0x2e, 0x30}
		hdr := uint64(52)
		if b[4] == 2 { // ELFCLASS64
			ph, sh, at, hdr = u64, u64, [6]int{0x20, 0x28, 0x36, 0x38, 0x3a, 0x3c}, 64
		}
		if uint64(len(b)) < hdr {
			return 0, int64(hdr), fmt.Sprintf("the ELF header (%d bytes)", hdr)
		}
		phoff, shoff := ph(at[0]), sh(at[1])
		phent, phnum, shent, shnum := u16(at[2]), u16(at[3]), u16(at[4]), u16(at[5])
		parts = append(parts,
			part{phoff, phent * phnum, fmt.Sprintf("the program header table (%d entries of %d bytes)", phnum, phent)},
			part{shoff, shent * shnum, fmt.Sprintf("the section header table (%d entries of %d bytes)", shnum, shent)})
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
