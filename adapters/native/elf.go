package native

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"strings"

	"rea/ports"
)

type elfImage struct {
	src source
	f   *elf.File
}

func newELF(src source) (image, error) {
	f, err := elf.NewFile(src.r)
	if err != nil {
		return nil, classify("elf", err)
	}
	return &elfImage{src: src, f: f}, nil
}

func (e *elfImage) format() string { return "elf" }

func elfArch(m elf.Machine) string {
	switch m {
	case elf.EM_386:
		return "x86"
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_AARCH64:
		return "arm64"
	}
	s := m.String()
	if !strings.HasPrefix(s, "EM_") || strings.Contains(s, "+") {
		return fmt.Sprintf("elf-machine-%d", uint16(m))
	}
	return strings.ToLower(strings.TrimPrefix(s, "EM_"))
}

func (e *elfImage) documents(name string) []ports.Document {
	return []ports.Document{{
		Name:         name,
		Format:       "elf",
		Architecture: elfArch(e.f.Machine),
		Entry:        e.f.Entry,
		HasEntry:     e.f.Entry != 0,
	}}
}

func (e *elfImage) segments(ctx context.Context) ([]ports.Segment, error) {
	var out []ports.Segment
	for i, s := range e.f.Sections {
		if i == 0 {
			continue
		}
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		seg := ports.Segment{
			Name:       s.Name,
			Kind:       "section",
			Start:      s.Addr,
			Size:       s.FileSize, // the raw sh_size, even for compressed sections
			FileOffset: s.Offset,
			FileSize:   s.FileSize,
			Perms: ports.Permissions{
				Read:    s.Flags&elf.SHF_ALLOC != 0,
				Write:   s.Flags&elf.SHF_WRITE != 0,
				Execute: s.Flags&elf.SHF_EXECINSTR != 0,
			},
		}
		if s.Type == elf.SHT_NOBITS {
			seg.FileSize = 0
		}
		out = append(out, seg)
	}
	if len(out) > 0 {
		return out, nil
	}
	n := 0
	for _, p := range e.f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		out = append(out, ports.Segment{
			Name:       fmt.Sprintf("LOAD#%d", n),
			Kind:       "segment",
			Start:      p.Vaddr,
			Size:       p.Memsz,
			FileOffset: p.Off,
			FileSize:   p.Filesz,
			Perms: ports.Permissions{
				Read:    p.Flags&elf.PF_R != 0,
				Write:   p.Flags&elf.PF_W != 0,
				Execute: p.Flags&elf.PF_X != 0,
			},
		})
		n++
	}
	return out, nil
}

func (e *elfImage) stringRegions(ctx context.Context) ([]region, error) {
	var out []region
	for i, s := range e.f.Sections {
		if i == 0 || s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL || s.FileSize == 0 ||
			s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR != 0 || s.Flags&elf.SHF_COMPRESSED != 0 {
			continue
		}
		out = append(out, region{name: s.Name, addr: s.Addr, off: s.Offset, size: s.FileSize})
	}
	if len(e.f.Sections) > 1 {
		return out, ctx.Err()
	}
	n := 0
	for _, p := range e.f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if p.Flags&elf.PF_X == 0 && p.Filesz > 0 {
			out = append(out, region{name: fmt.Sprintf("LOAD#%d", n), addr: p.Vaddr, off: p.Off, size: p.Filesz})
		}
		n++
	}
	return out, ctx.Err()
}

func (e *elfImage) symbols(ctx context.Context) (*symbolSet, error) {
	set := &symbolSet{}
	hasSymtab := false
	for _, s := range e.f.Sections {
		hasSymtab = hasSymtab || s.Type == elf.SHT_SYMTAB
	}
	syms, err := e.f.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, classify("elf", err)
	}
	if err := e.addSymbols(ctx, set, syms, "symbol"); err != nil {
		return nil, err
	}
	dyn, err := e.f.DynamicSymbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, classify("elf", err)
	}
	if err := e.addSymbols(ctx, set, dyn, "dynamic-symbol"); err != nil {
		return nil, err
	}
	if err := optional(ctx, func() error { return e.plt(ctx, set, dyn) }); err != nil {
		return nil, err
	}
	if !hasSymtab {
		if err := optional(ctx, func() error { return e.dwarf(ctx, set) }); err != nil {
			return nil, err
		}
	}
	if t := e.f.Type; (t == elf.ET_EXEC || t == elf.ET_DYN) && e.f.Entry != 0 {
		set.addEntry(e.codeAddr(e.f.Entry))
	}
	return set, nil
}

const stbGNUUnique elf.SymBind = 10

// codeAddr clears the Thumb bit of ARM code addresses.
func (e *elfImage) codeAddr(v uint64) uint64 {
	if e.f.Machine == elf.EM_ARM {
		return v &^ 1
	}
	return v
}

func (e *elfImage) addSymbols(ctx context.Context, set *symbolSet, syms []elf.Symbol, source string) error {
	for i, s := range syms {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if i > 0 {
				ports.Observe(ctx, "symbols", fmt.Sprintf("%d of %d %s entries", i, len(syms), source))
			}
		}
		if s.Name == "" || s.Value == 0 || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		rank := rankLocal
		switch elf.ST_BIND(s.Info) {
		case elf.STB_GLOBAL, stbGNUUnique:
			rank = rankGlobal
		case elf.STB_WEAK:
			rank = rankWeak
		}
		switch elf.ST_TYPE(s.Info) {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			addr := e.codeAddr(s.Value)
			set.procs = append(set.procs, candidate{addr: addr, name: s.Name, size: s.Size, source: source, rank: rank})
			set.labels = append(set.labels, ports.Name{Address: addr, Name: s.Name, Kind: "function"})
		case elf.STT_OBJECT, elf.STT_COMMON:
			set.labels = append(set.labels, ports.Name{Address: s.Value, Name: s.Name, Kind: "object"})
		case elf.STT_NOTYPE:
			if !isMappingSymbol(s.Name) {
				set.labels = append(set.labels, ports.Name{Address: s.Value, Name: s.Name, Kind: "label"})
			}
		}
	}
	return nil
}

// isMappingSymbol reports ARM/AArch64/RISC-V mapping symbols ($x, $d.1, ...),
// which mark code and data runs rather than name anything.
func isMappingSymbol(name string) bool {
	if len(name) < 2 || name[0] != '$' || !strings.ContainsRune("adtx", rune(name[1])) {
		return false
	}
	return len(name) == 2 || name[2] == '.'
}

// maxDWARFBytes bounds the debug data decompressed for the DWARF fallback.
const maxDWARFBytes = 256 << 20

// dwarf adds DWARF subprograms; used only when there is no .symtab.
func (e *elfImage) dwarf(ctx context.Context, set *symbolSet) error {
	var total, info uint64
	for _, s := range e.f.Sections {
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			total += s.Size
			switch s.Name {
			case ".debug_info":
				info = s.Size
			case ".zdebug_info": // Size is the compressed size
				info = maxDWARFBytes
			}
		}
	}
	if info == 0 || total > maxDWARFBytes {
		return nil
	}
	d, err := e.f.DWARF()
	if err != nil {
		return err
	}
	return addDWARF(ctx, set, d, info, e.codeAddr)
}

// addEntry adds the entry point, named "entry" when no symbol names it.
func (set *symbolSet) addEntry(addr uint64) {
	set.procs = append(set.procs, candidate{addr: addr, name: "entry", source: "entry", rank: rankSynthetic})
	for _, c := range set.procs {
		if c.addr == addr && c.name != "" && c.rank < rankSynthetic {
			return
		}
	}
	set.labels = append(set.labels, ports.Name{Address: addr, Name: "entry", Kind: "function"})
}

// optional runs the reader of an optional table: a malformed table is
// skipped (what was read is kept), a cancelled context is not.
func optional(ctx context.Context, read func() error) (err error) {
	defer func() {
		if recover() != nil {
			err = ctx.Err()
		}
	}()
	if read() != nil {
		return ctx.Err()
	}
	return nil
}
