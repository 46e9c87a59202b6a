package native

import (
	"bytes"
	"cmp"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"rea/ports"
)

// Go and Rust keep string literals as (pointer, length) pairs: the bytes sit
// back to back in one blob, with no terminator, so a run of printable bytes
// holds many literals. Where the program says where a literal starts and how
// long it is, the literal is reported on its own:
//
//   - string headers in data: a pointer into string data followed by a
//     plausible length (Go's string headers and static strings, Rust's &str
//     in .data.rel.ro, whose pointers are often only in RELATIVE relocations);
//   - code: an x86-64 RIP-relative LEA or an AArch64 ADRP+ADD that loads the
//     address of string data, followed closely by a move of an immediate
//     length into the register that carries the length under the calling
//     convention (or into the memory word after the stored pointer).
//
// A reference without a length still splits the run there. Only binaries
// recognised as Go or Rust are read this way; C strings keep the plain
// run-of-printable-bytes rule.

// toolchain is the producer of a binary, as far as string layout matters.
type toolchain uint8

const (
	tcNone toolchain = iota
	tcGo
	tcRust
)

// litRef is one reference into string data: where a literal starts and,
// when the reference carries it, its byte length (0 when unknown). A
// tagged length may also be the length shifted left once with the low bit
// set: recent Rust passes a static fmt::Arguments that way, as the string's
// address and 2*len+1.
type litRef struct {
	addr, n uint64
	tagged  bool
}

// Markers that identify a toolchain from its bytes: Go's build information
// header and the source paths of Rust's standard library in panic locations.
var (
	goBuildInfoMagic = []byte("\xff Go buildinf:")
	rustSourceMarker = []byte("/rustc/")
)

// scanStrings lists the strings of the regions, reading Go and Rust string
// literals by their references; opts' MinStringChars is the shortest.
func (a *Analysis) scanStrings(ctx context.Context, regions []region, opts Options) (*stringSet, error) {
	tc, err := toolchainOf(ctx, a.src, a.img, regions)
	if err != nil {
		return nil, err
	}
	var refs []litRef
	if tc != tcNone {
		if refs, err = a.literalRefs(ctx, tc, regions); err != nil {
			return nil, err
		}
	}
	return scanRegions(ctx, a.src, regions, opts, refs)
}

// toolchainOf recognises Go and Rust binaries by their sections, then by
// marker bytes in the string regions.
func toolchainOf(ctx context.Context, src source, img image, regions []region) (toolchain, error) {
	switch im := img.(type) {
	case *elfImage:
		for _, s := range im.f.Sections {
			switch s.Name {
			case ".go.buildinfo", ".gopclntab", ".note.go.buildid", ".data.rel.ro.gopclntab":
				return tcGo, nil
			case ".rustc":
				return tcRust, nil
			}
		}
	case *machoImage, *fatImage:
		for _, s := range machoOf(img).f.Sections {
			if s.Name == "__go_buildinfo" || s.Name == "__gopclntab" {
				return tcGo, nil
			}
		}
	}
	rust := false
	for _, r := range regions {
		if err := ctx.Err(); err != nil {
			return tcNone, err
		}
		n := src.clamp(r.off, r.size)
		if n == 0 {
			continue
		}
		found := false
		overlap := max(len(goBuildInfoMagic), len(rustSourceMarker)) - 1
		_, err := windows(ctx, src, r.off, n, overlap, func(_ uint64, data []byte) error {
			if bytes.Contains(data, goBuildInfoMagic) {
				found = true
				return errFound
			}
			rust = rust || bytes.Contains(data, rustSourceMarker)
			return nil
		})
		if found {
			return tcGo, nil
		}
		if err != nil {
			return tcNone, err
		}
	}
	if rust {
		return tcRust, nil
	}
	return tcNone, nil
}

// errFound stops a window scan that found what it looked for.
var errFound = errors.New("found")

// regionIndex finds the string region holding an address.
type regionIndex []region

func newRegionIndex(regions []region) regionIndex {
	idx := slices.Clone(regions)
	slices.SortFunc(idx, func(a, b region) int { return cmp.Compare(a.addr, b.addr) })
	return idx
}

// find returns the region holding addr, or nil.
func (x regionIndex) find(addr uint64) *region {
	i, _ := slices.BinarySearchFunc(x, addr, func(r region, t uint64) int {
		if r.addr <= t {
			return -1
		}
		return 1
	})
	if i == 0 {
		return nil
	}
	if r := &x[i-1]; addr-r.addr < r.size {
		return r
	}
	return nil
}

// pointerSize is the size of a data pointer, or 0 for an architecture whose
// string layout is not read (only little-endian x86, x86-64 and AArch64).
func pointerSize(ar arch) int {
	switch ar {
	case archX86:
		return 4
	case archX8664, archARM64:
		return 8
	}
	return 0
}

// literalRefs collects the references into string data of a Go or Rust
// binary, sorted by address then length, without duplicates.
func (a *Analysis) literalRefs(ctx context.Context, tc toolchain, regions []region) ([]litRef, error) {
	ar := archOf(a.docs[0].Architecture)
	ptr := pointerSize(ar)
	if ptr == 0 {
		return nil, nil
	}
	idx := newRegionIndex(regions)
	relocs, err := relativeRelocs(ctx, a.src, a.img)
	if err != nil {
		return nil, err
	}
	var refs []litRef
	for i, r := range regions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !pairRegion(r.name) {
			continue
		}
		ports.Observe(ctx, "strings", fmt.Sprintf("string headers in section %d of %d (%s)", i+1, len(regions), r.name))
		n := a.src.clamp(r.off, r.size)
		if n < uint64(2*ptr) {
			continue
		}
		data, err := a.src.view(r.off, n)
		if err != nil {
			return nil, err
		}
		refs = scanPairs(data, r.addr, ptr, relocs, idx, refs)
	}
	mm, err := a.mmap.get(ctx, func(context.Context) (*memMap, error) { return newMemMap(a.img), nil })
	if err != nil {
		return nil, err
	}
	if ar == archX8664 || ar == archARM64 {
		for _, r := range mm.regions {
			if !r.exec || r.plt || r.fileSize == 0 {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			ports.Observe(ctx, "strings", fmt.Sprintf("string references in %s", r.name))
			n := a.src.clamp(r.off, r.fileSize)
			if n == 0 {
				continue
			}
			code, err := a.src.view(r.off, n)
			if err != nil {
				return nil, err
			}
			if ar == archX8664 {
				refs = scanX8664(ctx, code, r.addr, tc, idx, refs)
			} else {
				refs = scanARM64(ctx, code, r.addr, tc, idx, refs)
			}
		}
	}
	return sortLitRefs(refs), ctx.Err()
}

// pairRegion reports whether a region may hold string headers: not the Go
// function table, whose words are offsets, not pointers.
func pairRegion(name string) bool {
	return !bytes.Contains([]byte(name), []byte("pclntab"))
}

// reloc is a RELATIVE relocation: the word at addr holds base + addend.
type reloc struct{ addr, addend uint64 }

// relativeRelocs lists the RELATIVE relocations of an ELF file (position
// independent executables keep their data pointers there), sorted by
// address. Other formats have none to apply.
func relativeRelocs(ctx context.Context, src source, img image) ([]reloc, error) {
	im, ok := img.(*elfImage)
	if !ok {
		return nil, nil
	}
	var relative uint32
	switch im.f.Machine {
	case elf.EM_X86_64:
		relative = uint32(elf.R_X86_64_RELATIVE)
	case elf.EM_AARCH64:
		relative = uint32(elf.R_AARCH64_RELATIVE)
	default:
		return nil, nil
	}
	var out []reloc
	for _, s := range im.f.Sections {
		if s.Type != elf.SHT_RELA || im.f.Class != elf.ELFCLASS64 || s.FileSize == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := src.clamp(s.Offset, s.FileSize)
		b, err := src.read(s.Offset, n-n%24)
		if err != nil {
			return nil, err
		}
		for i := 0; i+24 <= len(b); i += 24 {
			if uint32(binary.LittleEndian.Uint64(b[i+8:])) == relative {
				out = append(out, reloc{binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint64(b[i+16:])})
			}
		}
	}
	slices.SortFunc(out, func(x, y reloc) int { return cmp.Compare(x.addr, y.addr) })
	return out, nil
}

// scanPairs appends the (pointer, length) pairs of data, at base, whose
// pointer lands in a string region with the length inside it. A RELATIVE
// relocation at a word supplies its value.
func scanPairs(data []byte, base uint64, ptr int, relocs []reloc, idx regionIndex, refs []litRef) []litRef {
	word := func(i int) uint64 {
		if ptr == 4 {
			return uint64(binary.LittleEndian.Uint32(data[i:]))
		}
		return binary.LittleEndian.Uint64(data[i:])
	}
	k, _ := slices.BinarySearchFunc(relocs, base, func(r reloc, t uint64) int { return cmp.Compare(r.addr, t) })
	start := int((uint64(ptr) - base%uint64(ptr)) % uint64(ptr))
	for i := start; i+2*ptr <= len(data); i += ptr {
		at := base + uint64(i)
		p := word(i)
		for k < len(relocs) && relocs[k].addr < at {
			k++
		}
		if k < len(relocs) && relocs[k].addr == at {
			p = relocs[k].addend
		}
		n := word(i + ptr)
		if n == 0 || p == 0 {
			continue
		}
		r := idx.find(p)
		if r == nil || n > r.size-(p-r.addr) {
			continue
		}
		refs = append(refs, litRef{addr: p, n: n})
	}
	return refs
}

// sortLitRefs sorts refs by address, length and tag, without duplicates.
func sortLitRefs(refs []litRef) []litRef {
	slices.SortFunc(refs, func(x, y litRef) int {
		return cmp.Or(cmp.Compare(x.addr, y.addr), cmp.Compare(x.n, y.n), cmpBool(x.tagged, y.tagged))
	})
	return slices.Compact(refs)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
