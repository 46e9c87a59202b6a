package native

import (
	"bytes"
	"encoding/binary"
)

// A Go program for Windows keeps its pclntab in .rdata between the
// symbols runtime.pclntab and runtime.epclntab, which -ldflags=-s removes:
// a stripped one has no section and no symbol that locates it. The Go
// linker writes the build ID ("\xff Go build ID: \"") at the start of a PE
// program's .text (on 386 after the PC thunks: the first 256 bytes are
// searched); one linked without it (-ldflags=-buildid=) still begins its
// .data with the build information blob (runtime.buildinfo, "\xff Go
// buildinf:", goBuildInfoMagic, which go version -m reads; 14 bytes read). Such a program's
// .rdata is searched for the pclntab's header (the magic, two zero bytes,
// the instruction quantum, the pointer size, and from Go 1.18 the text
// start), and its functions, main.main among them, are named as an ELF
// program's .gopclntab names them. A program with neither is not
// searched: the gate keeps a C program's open from reading its .rdata, and
// a C program holding pclntab-like bytes from taking Go names.

// goBuildIDPrefix begins a Go program's .text on PE (and Mach-O).
var goBuildIDPrefix = []byte("\xff Go build ID: \"")

// goPCLNMagics are the pclntab magics little-endian (Go 1.2, 1.16, 1.18,
// 1.20 and later), each followed by the two zero bytes of the header.
var goPCLNMagics = [][]byte{
	{0xfb, 0xff, 0xff, 0xff, 0, 0},
	{0xfa, 0xff, 0xff, 0xff, 0, 0},
	{0xf0, 0xff, 0xff, 0xff, 0, 0},
	{0xf1, 0xff, 0xff, 0xff, 0, 0},
}

// goPCLNTab is a Go PE program's pclntab, from its header to the end of
// .rdata, or nil: the first header-shaped bytes in .rdata, pointer-aligned,
// whose pointer size is the image's and, from Go 1.18 on, whose text start
// is text (the address of .text) or 0 (as Go's linker leaves it); nothing is read from a program that is
// not Go's.
func (p *peImage) goPCLNTab(src source, text uint64) ([]byte, error) {
	ts, rdata := p.f.Section(".text"), p.f.Section(".rdata")
	if ts == nil || rdata == nil || rdata.Size > maxPCLNBytes || rdata.Size < 16 {
		return nil, nil
	}
	head, err := src.read(uint64(ts.Offset), min(uint64(ts.Size), 256))
	if err != nil || !bytes.Contains(head, goBuildIDPrefix) {
		ds := p.f.Section(".data")
		if ds == nil || ds.Size < uint32(len(goBuildInfoMagic)) {
			return nil, nil
		}
		blob, err := src.read(uint64(ds.Offset), uint64(len(goBuildInfoMagic)))
		if err != nil || !bytes.Equal(blob, goBuildInfoMagic) {
			return nil, nil
		}
	}
	data, err := src.read(uint64(rdata.Offset), uint64(rdata.Size))
	if err != nil {
		return nil, err
	}
	ptr := 4
	if p.is64 {
		ptr = 8
	}
	for _, magic := range goPCLNMagics {
		for at := 0; at+8+3*ptr <= len(data); at++ {
			i := bytes.Index(data[at:], magic)
			if i < 0 {
				break
			}
			at += i
			h := data[at:]
			if at%ptr != 0 || int(h[7]) != ptr || h[6] != 1 && h[6] != 2 && h[6] != 4 || len(h) < 8+3*ptr {
				continue
			}
			if magic[0] == 0xf0 || magic[0] == 0xf1 { // Go 1.18+: nfunc, nfiles, textStart
				start := uint64(binary.LittleEndian.Uint32(h[8+2*ptr:]))
				if ptr == 8 {
					start = binary.LittleEndian.Uint64(h[8+2*ptr:])
				}
				if start != text && start != 0 { // 0: Go's PE linker leaves it unset
					continue
				}
			}
			return h, nil
		}
	}
	return nil, nil
}
