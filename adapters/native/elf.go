package native

import (
	"cmp"
	"context"
	"debug/elf"
	"fmt"
	"slices"
	"strings"

	"rea/ports"
)

type elfImage struct {
	src source
	f   *elf.File
	// dwarfOf is the analysis's DWARF (dwarf_load.go), which the symbol
	// list of a file without .symtab shares rather than loading its own.
	dwarfOf func(context.Context) *dwarfLoad
	// dbg is the separate debug file whose .symtab stands in for the
	// missing one (debugfile.go), or nil.
	dbg *debugFile
	// rel is a relocatable object's synthetic layout (elf_rel.go), nil
	// for any other file.
	rel *relObject
}

func newELF(src source) (image, error) {
	f, err := elf.NewFile(view(src.r, elfPatches(src)))
	if err != nil {
		return nil, classify("elf", err)
	}
	return &elfImage{src: src, f: f, rel: relLayout(f)}, nil
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
		Static:       staticProgram(e),
	}}
}

// staticProgram: a statically linked program (staticELF), not the dynamic
// loader, which has no DT_NEEDED either but is a library: ET_EXEC, or
// ET_DYN flagged DF_1_PIE as -static-pie makes it.
func staticProgram(e *elfImage) (static bool) {
	defer func() {
		if recover() != nil { // a corrupt dynamic section: as staticELF
			static = false
		}
	}()
	if !staticELF(e) {
		return false
	}
	if e.f.Type == elf.ET_EXEC {
		return true
	}
	flags, err := e.f.DynValue(elf.DT_FLAGS_1)
	return err == nil && slices.ContainsFunc(flags, func(v uint64) bool { return v&uint64(elf.DF_1_PIE) != 0 })
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
	if end := e.rel.externalEnd(); end > 0 {
		start := e.rel.ext[0].Address
		out = append(out, ports.Segment{Name: externalBlock, Kind: "segment", Start: start, Size: end - start, Perms: ports.Permissions{Read: true}})
	}
	if len(out) > 0 {
		return out, nil
	}
	return withNotes(loadSegments(e), e.f.Progs), nil
}

// withNotes lists, after each load segment of a file without sections
// (loads, the PT_LOAD headers in order), the PT_NOTE segments whose file
// bytes it holds, named NOTE#k after the k-th PT_NOTE program header as
// the string scan names the strings it finds in them (loadRegions), at the
// address the load maps them to, with its permissions. A note no load
// holds is not mapped and is not listed, as the string scan does not read
// it. Of overlapping loads, the one reaching furthest holds the note: the
// lookup is a binary search, so a hostile file's many headers cost
// n log n, not n squared.
func withNotes(loads []ports.Segment, progs []*elf.Prog) []ports.Segment {
	byOff := make([]int, len(loads)) // load indices by file offset
	for i := range byOff {
		byOff[i] = i
	}
	slices.SortStableFunc(byOff, func(a, b int) int { return cmp.Compare(loads[a].FileOffset, loads[b].FileOffset) })
	reach := make([]int, len(byOff)) // reach[j]: of byOff[:j+1], the load whose file bytes end last
	for j, i := range byOff {
		reach[j] = i
		if j > 0 && fileEnd(loads[reach[j-1]]) >= fileEnd(loads[i]) {
			reach[j] = reach[j-1]
		}
	}
	held := make([][]ports.Segment, len(loads))
	n, k := 0, 0
	for _, p := range progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		name := fmt.Sprintf("NOTE#%d", k)
		k++
		j, _ := slices.BinarySearchFunc(byOff, p.Off+1, func(i int, off uint64) int { return cmp.Compare(loads[i].FileOffset, off) })
		if p.Filesz == 0 || j == 0 {
			continue
		}
		i := reach[j-1]
		l := loads[i]
		if p.Filesz > l.FileSize || p.Off-l.FileOffset > l.FileSize-p.Filesz {
			continue
		}
		held[i] = append(held[i], ports.Segment{Name: name, Kind: "segment", Start: l.Start + (p.Off - l.FileOffset),
			Size: p.Filesz, FileOffset: p.Off, FileSize: p.Filesz, Perms: l.Perms})
		n++
	}
	if n == 0 {
		return loads
	}
	out := make([]ports.Segment, 0, len(loads)+n)
	for i, l := range loads {
		slices.SortStableFunc(held[i], func(a, b ports.Segment) int { return cmp.Compare(a.FileOffset, b.FileOffset) })
		out = append(append(out, l), held[i]...)
	}
	return out
}

// fileEnd is the file offset just past s's file bytes, saturating.
func fileEnd(s ports.Segment) uint64 {
	if s.FileOffset+s.FileSize < s.FileOffset {
		return ^uint64(0)
	}
	return s.FileOffset + s.FileSize
}

func (e *elfImage) stringRegions(ctx context.Context) ([]region, error) {
	var out []region
	for i, s := range e.f.Sections {
		if i == 0 || s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL || s.FileSize == 0 || isTable(s.Type) ||
			s.Flags&elf.SHF_ALLOC == 0 || s.Flags&elf.SHF_EXECINSTR != 0 || s.Flags&elf.SHF_COMPRESSED != 0 {
			continue
		}
		if s.Type == elf.SHT_NOTE {
			out = append(out, noteRegions(e.src, e.f.ByteOrder, s)...)
			continue
		}
		out = append(out, region{name: s.Name, addr: s.Addr, off: s.Offset, size: s.FileSize})
	}
	if len(e.f.Sections) > 1 {
		return out, ctx.Err()
	}
	var loads []region
	n := 0
	for _, p := range e.f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if p.Flags&elf.PF_X == 0 && p.Filesz > 0 {
			loads = append(loads, region{name: fmt.Sprintf("LOAD#%d", n), addr: p.Vaddr, off: p.Off, size: p.Filesz})
		}
		n++
	}
	// Overlapping segments are cut first, so a note is read in one of them.
	notes := progNotes(e.f.Progs)
	for _, r := range disjoint(loads) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, loadNoteRegions(e.src, e.f.ByteOrder, r, notes)...)
	}
	return out, ctx.Err()
}

// isTable reports the section types that hold fixed-size binary records
// (symbols, relocations, hashes, versions), never string literals: the
// string scan skips them, so a huge declared symbol table is not read
// whole as data.
func isTable(t elf.SectionType) bool {
	switch t {
	case elf.SHT_SYMTAB, elf.SHT_DYNSYM, elf.SHT_REL, elf.SHT_RELA, elf.SHT_HASH, elf.SHT_GNU_HASH,
		elf.SHT_GNU_VERSYM, elf.SHT_GNU_VERDEF, elf.SHT_GNU_VERNEED, elf.SHT_SYMTAB_SHNDX, shtRELR:
		return true
	}
	return false
}

func (e *elfImage) symbols(ctx context.Context) (*symbolSet, error) {
	set := &symbolSet{}
	hasSymtab := false
	declared, entSize := uint64(0), uint64(16) // by both tables, to size the lists once
	if e.f.Class == elf.ELFCLASS64 {
		entSize = 24
	}
	for _, s := range e.f.Sections {
		hasSymtab = hasSymtab || s.Type == elf.SHT_SYMTAB
		if s.Type == elf.SHT_SYMTAB || s.Type == elf.SHT_DYNSYM {
			declared += s.Size / entSize
		}
	}
	declared += e.dbg.symtabEntries(entSize)
	hasSymtab = hasSymtab || (e.dbg != nil && e.dbg.symtab)
	set.presize(declared)
	if err := e.readSymbols(ctx, set, elf.SHT_SYMTAB, "symbol", nil, nil); err != nil {
		return nil, classify("elf", err)
	}
	if e.rel != nil {
		set.labels = append(set.labels, e.rel.ext...) // its undefined symbols, as imports (elf_rel.go)
	}
	if err := e.dbg.addSymbols(ctx, set); err != nil {
		return nil, err
	}
	// The PLT needs the names of the dynamic symbols its relocations name,
	// which are undefined symbols the lists skip: collect those while the
	// table streams past.
	var slots, imports map[uint64]gotReloc
	var entries []pltEntry
	if m := e.f.Machine; m == elf.EM_X86_64 || m == elf.EM_386 || m == elf.EM_AARCH64 {
		if err := optional(ctx, func() (err error) {
			if entries, err = e.pltEntries(ctx); err != nil {
				return err
			}
			got := e.gotRange()
			if len(entries) == 0 && got[1] == 0 {
				return nil
			}
			wanted := make(map[uint64]bool, len(entries))
			for _, en := range entries {
				wanted[en.slot] = true
			}
			slots, imports, err = e.gotRelocs(ctx, wanted, got)
			return err
		}); err != nil {
			return nil, err
		}
	}
	need := map[uint32]string{}
	for _, rs := range []map[uint64]gotReloc{slots, imports} {
		for _, r := range rs {
			if r.sym != 0 {
				need[r.sym] = ""
			}
		}
	}
	undef := map[uint32]bool{}
	if err := e.readSymbols(ctx, set, elf.SHT_DYNSYM, "dynamic-symbol", need, undef); err != nil {
		return nil, classify("elf", err)
	}
	if len(need) > 0 {
		var libs map[uint32]string
		if err := optional(ctx, func() (err error) { libs, err = e.versionFiles(need); return err }); err != nil {
			return nil, err
		}
		if len(slots) > 0 {
			e.plt(set, entries, slots, need, libs)
		}
		gotImports(set, imports, need, undef, libs)
	}
	if !hasSymtab && e.dwarfOf != nil {
		l := e.dwarfOf(ctx)
		if l.err != nil {
			return nil, l.err
		}
		if l.d != nil {
			if err := optional(ctx, func() error { return addDWARF(ctx, set, l.d, l.infoSize, e.codeAddr) }); err != nil {
				return nil, err
			}
		}
	}
	if t := e.f.Type; (t == elf.ET_EXEC || t == elf.ET_DYN) && e.f.Entry != 0 {
		set.addEntry(e.codeAddr(e.f.Entry))
		if err := optional(ctx, func() error { e.nameMain(ctx, set); return nil }); err != nil {
			return nil, err
		}
	}
	return set, nil
}

const stbGNUUnique elf.SymBind = 10

// versionFiles maps the dynamic symbols of need to the file their version
// need names (puts, GLIBC_2.2.5, to libc.so.6): the one library an ELF
// import provably comes from. An unversioned symbol gets none; the order of
// DT_NEEDED would only be a guess.
func (e *elfImage) versionFiles(need map[uint32]string) (map[uint32]string, error) {
	versym := e.f.SectionByType(elf.SHT_GNU_VERSYM)
	if versym == nil || versym.Type == elf.SHT_NOBITS || len(need) == 0 {
		return nil, nil
	}
	needs, err := e.f.DynamicVersionNeeds()
	if err != nil || len(needs) == 0 {
		return nil, err
	}
	file := map[uint16]string{}
	for _, n := range needs {
		for _, d := range n.Needs {
			file[d.Index] = n.Name
		}
	}
	// One read of the entries up to the last one wanted (two bytes each).
	last := uint64(0)
	for idx := range need {
		last = max(last, uint64(idx))
	}
	n := min(versym.Size, (last+1)*2)
	if !e.src.contains(versym.Offset, n) {
		return nil, nil
	}
	vs, err := e.src.read(versym.Offset, n)
	if err != nil {
		return nil, err
	}
	out := make(map[uint32]string, len(need))
	for idx := range need {
		if off := uint64(idx) * 2; off+2 <= uint64(len(vs)) {
			// Bit 15 hides the version from the default binding; it still names it.
			if f := file[e.f.ByteOrder.Uint16(vs[off:])&0x7fff]; f != "" {
				out[idx] = f
			}
		}
	}
	return out, nil
}

// codeAddr clears the Thumb bit of ARM code addresses.
func (e *elfImage) codeAddr(v uint64) uint64 {
	if e.f.Machine == elf.EM_ARM {
		return v &^ 1
	}
	return v
}

// readSymbols streams the first section of type typ (as debug/elf's
// Symbols and DynamicSymbols pick it) into set; entry 0 is the null
// symbol. need maps symbol indexes to fill with their names, whatever the
// symbol (nil for none); undef (nil for none) gets those of them that are
// undefined.
func (e *elfImage) readSymbols(ctx context.Context, set *symbolSet, typ elf.SectionType, source string, need map[uint32]string, undef map[uint32]bool) error {
	sec := e.f.SectionByType(typ)
	if sec == nil {
		return nil
	}
	if sec.Flags&elf.SHF_COMPRESSED != 0 {
		set.limit(fmt.Sprintf("Symbol table %s is compressed; the engine does not read compressed symbol tables, so its symbols are missing.", sec.Name))
		return nil
	}
	is64 := e.f.Class == elf.ELFCLASS64
	entSize := uint64(16)
	if is64 {
		entSize = 24
	}
	n, err := symbolRange(e.src, set, sec.Name, sec.Offset, sec.Size, entSize)
	if err != nil {
		return err
	}
	var names *strtab
	if int(sec.Link) < len(e.f.Sections) && sec.Link != 0 {
		l := e.f.Sections[sec.Link]
		if l.Type != elf.SHT_NOBITS && l.Flags&elf.SHF_COMPRESSED == 0 {
			names = newStrtab(ctx, e.src, l.Offset, l.Size)
		}
	}
	if names == nil {
		names = newStrtab(ctx, e.src, 0, 0)
	}
	bo := e.f.ByteOrder
	err = eachEntry(ctx, e.src, sec.Offset, n, entSize, func(i uint64, b []byte) error {
		if i == 0 {
			return nil
		}
		var s elf.Symbol
		nameAt := bo.Uint32(b)
		if is64 {
			s.Info, s.Other, s.Section = b[4], b[5], elf.SectionIndex(bo.Uint16(b[6:]))
			s.Value, s.Size = bo.Uint64(b[8:]), bo.Uint64(b[16:])
		} else {
			s.Value, s.Size = uint64(bo.Uint32(b[4:])), uint64(bo.Uint32(b[8:]))
			s.Info, s.Other, s.Section = b[12], b[13], elf.SectionIndex(bo.Uint16(b[14:]))
		}
		if need != nil && i <= 1<<32-1 {
			if _, ok := need[uint32(i)]; ok {
				need[uint32(i)] = names.name(nameAt)
				if undef != nil && s.Section == elf.SHN_UNDEF {
					undef[uint32(i)] = true
				}
			}
		}
		addr, ok := e.symAddr(s)
		if nameAt == 0 || !ok || !e.kept(s) {
			return nil
		}
		if !set.keep() {
			return nil
		}
		s.Name = names.name(nameAt)
		e.addSymbol(set, s, addr, source)
		return nil
	})
	if err2 := names.done(); err == nil {
		err = err2
	}
	return err
}

// kept reports whether the lists use a symbol of this type (before its
// name is read).
func (e *elfImage) kept(s elf.Symbol) bool {
	switch elf.ST_TYPE(s.Info) {
	case elf.STT_FUNC, elf.STT_GNU_IFUNC, elf.STT_OBJECT, elf.STT_COMMON, elf.STT_NOTYPE:
		return true
	}
	return false
}

// addSymbol adds symbol s, at addr (e.symAddr).
func (e *elfImage) addSymbol(set *symbolSet, s elf.Symbol, addr uint64, source string) {
	if s.Name == "" {
		return
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
		addr := e.codeAddr(addr)
		set.procs = append(set.procs, candidate{addr: addr, name: s.Name, size: s.Size, source: source, rank: rank,
			ifunc: elf.ST_TYPE(s.Info) == elf.STT_GNU_IFUNC})
		set.labels = append(set.labels, ports.Name{Address: addr, Name: s.Name, Kind: "function", Size: s.Size})
	case elf.STT_OBJECT, elf.STT_COMMON:
		set.labels = append(set.labels, ports.Name{Address: addr, Name: s.Name, Kind: "object", Size: s.Size})
	case elf.STT_NOTYPE:
		if !isMappingSymbol(s.Name) {
			set.labels = append(set.labels, ports.Name{Address: addr, Name: s.Name, Kind: "label"})
		}
	}
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
