package native

import (
	"bytes"
	"cmp"
	"context"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"slices"

	"rea/ports"
)

type peImage struct {
	src      source
	f        *pe.File
	base     uint64 // ImageBase
	entry    uint32 // AddressOfEntryPoint, an RVA
	dirs     []pe.DataDirectory
	is64     bool
	sections []*pe.Section
	byRVA    []*pe.Section // sections sorted by VirtualAddress
	syms     peSymbols     // the COFF symbol table, which f was parsed without (patch.go)

	// A .NET assembly's metadata (clr.go), nil in a native image or when
	// the CLR header does not parse (clrErr says why); clrMethods are its
	// MethodDefs and clrTok resolves its tokens.
	clr        *clrMeta
	clrErr     error
	clrMethods []clrMethod
	clrTok     *clrTokens
}

// PE section characteristics.
const (
	scnCode        = 0x00000020
	scnDiscardable = 0x02000000
	scnExecute     = 0x20000000
	scnRead        = 0x40000000
	scnWrite       = 0x80000000
)

func newPE(src source) (image, error) {
	var hdr [4]byte
	lfanew, err := src.read(0x3c, 4)
	if err != nil {
		return nil, &ports.FormatError{Format: "pe", Offset: 0, Msg: "truncated DOS header", Truncated: true}
	}
	sigOff := uint64(binary.LittleEndian.Uint32(lfanew))
	b, err := src.read(sigOff, 4)
	if err != nil {
		return nil, &ports.FormatError{Format: "pe", Offset: int64(sigOff), Msg: "truncated before the PE signature", Truncated: true}
	}
	if copy(hdr[:], b); string(hdr[:]) != "PE\x00\x00" {
		return nil, fmt.Errorf("MZ executable without a PE header: %w", ports.ErrUnsupported)
	}
	patches, syms := pePatches(src, sigOff+4)
	f, err := pe.NewFile(view(src.r, patches))
	if err != nil {
		return nil, classify("pe", err)
	}
	img := &peImage{src: src, f: f, sections: f.Sections, syms: syms}
	img.byRVA = slices.Clone(f.Sections)
	slices.SortStableFunc(img.byRVA, func(a, b *pe.Section) int { return cmp.Compare(a.VirtualAddress, b.VirtualAddress) })
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader32:
		img.base, img.entry = uint64(oh.ImageBase), oh.AddressOfEntryPoint
		img.dirs = oh.DataDirectory[:min(int(oh.NumberOfRvaAndSizes), len(oh.DataDirectory))]
	case *pe.OptionalHeader64:
		img.base, img.entry, img.is64 = oh.ImageBase, oh.AddressOfEntryPoint, true
		img.dirs = oh.DataDirectory[:min(int(oh.NumberOfRvaAndSizes), len(oh.DataDirectory))]
	}
	if img.clr, img.clrErr = img.readCLR(); img.clr != nil {
		img.clrMethods = img.clr.methods(img.readRVA)
		img.clrTok = newCLRTokens(img.clr, img.base, img.clrMethods)
	}
	return img, nil
}

// cil reports whether the image's code is CIL only (the CLR header's
// ILONLY flag): its architecture is then "cil" whatever machine the PE
// header names, and its procedures are the methods the metadata defines.
func (p *peImage) cil() bool { return p.clr != nil && p.clr.flags&corILOnly != 0 }

// managedEntry is the address of the managed entry point's first
// instruction, or 0.
func (p *peImage) managedEntry() uint64 {
	if p.clrTok == nil || p.clr.entryToken>>24 != tokMethodDef {
		return 0
	}
	addr, body := p.clrTok.address(p.clr.entryToken)
	if !body {
		return 0
	}
	return addr
}

func (p *peImage) format() string { return "pe" }

func peArch(m uint16) string {
	switch m {
	case pe.IMAGE_FILE_MACHINE_I386:
		return "x86"
	case pe.IMAGE_FILE_MACHINE_AMD64:
		return "x86_64"
	case pe.IMAGE_FILE_MACHINE_ARM, pe.IMAGE_FILE_MACHINE_ARMNT, pe.IMAGE_FILE_MACHINE_THUMB:
		return "arm"
	case pe.IMAGE_FILE_MACHINE_ARM64:
		return "arm64"
	}
	return fmt.Sprintf("pe-machine-0x%x", m)
}

func (p *peImage) documents(name string) []ports.Document {
	d := ports.Document{Name: name, Format: "pe", Architecture: peArch(p.f.Machine)}
	if p.entry != 0 {
		d.Entry, d.HasEntry = p.base+uint64(p.entry), true
	}
	if p.cil() {
		d.Architecture, d.Entry, d.HasEntry = "cil", 0, false
		if e := p.managedEntry(); e != 0 {
			d.Entry, d.HasEntry = e, true
		}
	}
	return []ports.Document{d}
}

func (p *peImage) segments(ctx context.Context) ([]ports.Segment, error) {
	out := make([]ports.Segment, 0, len(p.sections))
	for _, s := range p.sections {
		c := s.Characteristics
		out = append(out, ports.Segment{
			Name:       s.Name,
			Kind:       "section",
			Start:      p.base + uint64(s.VirtualAddress),
			Size:       uint64(s.VirtualSize),
			FileOffset: uint64(s.Offset),
			FileSize:   uint64(s.Size),
			Perms:      ports.Permissions{Read: c&scnRead != 0, Write: c&scnWrite != 0, Execute: c&scnExecute != 0},
		})
	}
	return out, ctx.Err()
}

func isCode(s *pe.Section) bool { return s.Characteristics&(scnCode|scnExecute) != 0 }

func (p *peImage) stringRegions(ctx context.Context) ([]region, error) {
	var out []region
	for _, s := range p.sections {
		if isCode(s) || s.Characteristics&scnDiscardable != 0 || s.Size == 0 || s.Offset == 0 {
			continue
		}
		size := uint64(s.Size)
		if s.VirtualSize != 0 {
			size = min(size, uint64(s.VirtualSize)) // the rest is file alignment padding
		}
		out = append(out, region{name: s.Name, addr: p.base + uint64(s.VirtualAddress), off: uint64(s.Offset), size: size})
	}
	if p.clr != nil {
		// The user strings (C#'s literals) are in the #US heap, in the
		// code section: each entry's characters are a region.
		usRVA := p.clr.root + p.clr.usAt
		p.clr.userStrings(func(chars, n uint32) bool {
			s := p.section(usRVA + chars)
			if s == nil || usRVA+chars-s.VirtualAddress >= s.Size {
				return true
			}
			out = append(out, region{name: "#US", addr: p.base + uint64(usRVA+chars), off: uint64(s.Offset) + uint64(usRVA+chars-s.VirtualAddress), size: uint64(n), userString: true})
			return len(out) < maxTableEntries
		})
	}
	return out, ctx.Err()
}

// section returns the section holding rva, or nil. Of overlapping sections
// (only in malformed files) the one starting last wins.
func (p *peImage) section(rva uint32) *pe.Section {
	i, found := slices.BinarySearchFunc(p.byRVA, rva, func(s *pe.Section, t uint32) int { return cmp.Compare(s.VirtualAddress, t) })
	if found {
		for i+1 < len(p.byRVA) && p.byRVA[i+1].VirtualAddress == rva {
			i++
		}
	} else {
		i--
	}
	if i < 0 {
		return nil
	}
	s := p.byRVA[i]
	if uint64(rva) < uint64(s.VirtualAddress)+uint64(max(s.VirtualSize, s.Size)) {
		return s
	}
	return nil
}

// readRVA reads n bytes of file data at rva.
func (p *peImage) readRVA(rva uint32, n uint64) ([]byte, error) {
	s := p.section(rva)
	if s == nil {
		return nil, &ports.FormatError{Format: "pe", Offset: -1, Msg: fmt.Sprintf("rva 0x%x is in no section", rva)}
	}
	off := uint64(rva - s.VirtualAddress)
	if off > uint64(s.Size) || n > uint64(s.Size)-off {
		return nil, &ports.FormatError{Format: "pe", Offset: -1, Msg: fmt.Sprintf("rva 0x%x has no file data", rva)}
	}
	return p.src.read(uint64(s.Offset)+off, n)
}

func (p *peImage) stringRVA(rva uint32) (string, error) {
	s := p.section(rva)
	if s == nil || rva-s.VirtualAddress >= s.Size {
		return "", &ports.FormatError{Format: "pe", Offset: -1, Msg: fmt.Sprintf("rva 0x%x has no file data", rva)}
	}
	off := uint64(rva - s.VirtualAddress)
	return p.src.cstring(uint64(s.Offset)+off, min(uint64(s.Size)-off, 4096))
}

func (p *peImage) dir(i int) pe.DataDirectory {
	if i < len(p.dirs) {
		return p.dirs[i]
	}
	return pe.DataDirectory{}
}

func (p *peImage) symbols(ctx context.Context) (*symbolSet, error) {
	set := &symbolSet{}
	switch {
	case p.clrErr != nil:
		set.limit(fmt.Sprintf("The image has a CLR header (a .NET assembly) whose metadata does not parse (%v): its managed methods, types and user strings are not listed.", p.clrErr))
	case p.clr != nil && !p.cil():
		set.limit("The image is a mixed-mode .NET assembly (native code and CIL): rea-native analyzes its native code; its managed methods are not decoded.")
	case p.cil():
		set.limit("CIL: procedures are the metadata's methods with bodies; an exception handler or filter is entered by exception edges from its protected blocks, but a finally, fault or filter ends without successors (where the runtime continues after it is not modeled).")
	}
	if err := p.coffSymbols(ctx, set); err != nil {
		return nil, err
	}
	for _, read := range []func(context.Context, *symbolSet) error{p.exports, p.pdata, p.imports} {
		if err := optional(ctx, func() error { return read(ctx, set) }); err != nil {
			return nil, err
		}
	}
	if p.cil() {
		// The entry point of an IL-only image is a native stub that jumps
		// to the runtime (mscoree's _CorExeMain): the program starts at
		// the managed entry point.
		p.clrSymbols(set)
		if e := p.managedEntry(); e != 0 {
			set.addEntry(e)
		}
		return set, nil
	}
	if p.entry != 0 {
		set.addEntry(p.base + uint64(p.entry))
		if err := optional(ctx, func() error { p.nameMain(ctx, set); return nil }); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// clrSymbols adds an assembly's methods with bodies as procedures, its
// P/Invoke methods as imports of their libraries and the methods it
// references in other assemblies as imports of those, each at its row in
// the metadata tables, where calls to it refer.
func (p *peImage) clrSymbols(set *symbolSet) {
	m := p.clr
	for _, meth := range p.clrMethods {
		if !set.keep() {
			return
		}
		if meth.code != 0 {
			addr := p.base + uint64(meth.code)
			set.procs = append(set.procs, candidate{addr: addr, name: meth.name, size: uint64(meth.size), source: "cil-metadata", rank: rankGlobal})
			set.labels = append(set.labels, ports.Name{Address: addr, Name: meth.name, Kind: "function"})
			continue
		}
		addr := p.base + uint64(m.rowRVA(tMethodDef, meth.row))
		if meth.pinvoke {
			set.labels = append(set.labels, ports.Name{Address: addr, Name: meth.entry, Kind: "import", Library: meth.lib})
		}
		set.labels = append(set.labels, ports.Name{Address: addr, Name: meth.name, Kind: "label"})
	}
	// Fields are data: ldfld, stsfld and ldflda refer to their rows.
	for r := uint32(1); r < uint32(len(p.clrTok.fields)) && set.keep(); r++ {
		if name := p.clrTok.fields[r]; name != "" {
			set.labels = append(set.labels, ports.Name{Address: p.base + uint64(m.rowRVA(tField, r)), Name: name, Kind: "object"})
		}
	}
	for r := uint32(1); r <= m.tables[tMemberRef].rows && set.keep(); r++ {
		if sig := m.blobAt(m.col(tMemberRef, r, 2)); len(sig) > 0 && sig[0]&0x0f == 0x06 {
			continue // a field
		}
		name, lib := m.memberRefName(r)
		if lib == "" {
			continue
		}
		if i := len(lib) + 2; len(name) > i && name[0] == '[' {
			name = name[i:] // the library is the name's own field
		}
		set.labels = append(set.labels, ports.Name{Address: p.base + uint64(m.rowRVA(tMemberRef, r)), Name: name, Kind: "import", Library: lib})
	}
}

// COFF storage classes.
const (
	classExternal     = 2
	classStatic       = 3
	classLabel        = 6
	classWeakExternal = 105
	classFile         = 103
	classSection      = 104
)

// mingwTextData names the data GNU ld's mingw linker script defines in .text.
var mingwTextData = map[string]bool{"__CTOR_LIST__": true, "___CTOR_LIST__": true, "__DTOR_LIST__": true, "___DTOR_LIST__": true}

// coffSymbols streams the COFF symbol table, skipping auxiliary records.
func (p *peImage) coffSymbols(ctx context.Context, set *symbolSet) error {
	if p.syms.ptr == 0 || p.syms.n == 0 {
		return nil
	}
	n, err := symbolRange(p.src, set, "COFF", uint64(p.syms.ptr), uint64(p.syms.n)*18, 18)
	if err != nil {
		return err
	}
	bo := binary.LittleEndian
	aux := 0
	return eachEntry(ctx, p.src, uint64(p.syms.ptr), n, 18, func(_ uint64, b []byte) error {
		if aux > 0 {
			aux--
			return nil
		}
		aux = int(b[17])
		section, class := int16(bo.Uint16(b[12:])), b[16]
		if section <= 0 || int(section) > len(p.sections) || class == classFile || class == classSection {
			return nil
		}
		var name string
		if bo.Uint32(b) == 0 {
			name, _ = p.f.StringTable.String(bo.Uint32(b[4:]))
		} else {
			name = string(b[:8])
			if i := bytes.IndexByte(b[:8], 0); i >= 0 {
				name = string(b[:i])
			}
		}
		if name == "" {
			return nil
		}
		sec := p.sections[section-1]
		if name == sec.Name || !set.keep() {
			return nil // a section definition, or past the bound
		}
		// GNU ld keeps the input sections' symbols, static and named after
		// the section (.text.startup, .idata$5, .ctors.65535), which no C
		// identifier can be: they would name functions and import slots.
		if class == classStatic && name[0] == '.' && bo.Uint16(b[14:]) == 0 {
			return nil
		}
		addr := p.base + uint64(sec.VirtualAddress) + uint64(bo.Uint32(b[8:]))
		// A label (mingw's .l_start in its startup code) marks a place inside
		// a function, and the constructor and destructor lists GNU ld places
		// in a mingw image's .text are data: neither starts a procedure.
		if class == classLabel || mingwTextData[name] {
			set.labels = append(set.labels, ports.Name{Address: addr, Name: name, Kind: "label"})
			return nil
		}
		if !isCode(sec) {
			set.labels = append(set.labels, ports.Name{Address: addr, Name: name, Kind: "object"})
			return nil
		}
		rank := rankLocal
		switch class {
		case classExternal:
			rank = rankGlobal
		case classWeakExternal:
			rank = rankWeak
		}
		set.procs = append(set.procs, candidate{addr: addr, name: name, source: "symbol", rank: rank})
		set.labels = append(set.labels, ports.Name{Address: addr, Name: name, Kind: "function"})
		return nil
	})
}

// maxTableEntries bounds the PE export, import and .pdata tables read.
const maxTableEntries = 1 << 20

func (p *peImage) exports(ctx context.Context, set *symbolSet) error {
	d := p.dir(pe.IMAGE_DIRECTORY_ENTRY_EXPORT)
	if d.VirtualAddress == 0 || d.Size < 40 {
		return nil
	}
	hdr, err := p.readRVA(d.VirtualAddress, 40)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	nfuncs, nnames := le.Uint32(hdr[20:]), le.Uint32(hdr[24:])
	if nfuncs > maxTableEntries || nnames > maxTableEntries {
		return &ports.FormatError{Format: "pe", Offset: -1, Msg: "export table too large"}
	}
	funcs, err := p.readRVA(le.Uint32(hdr[28:]), uint64(nfuncs)*4)
	if err != nil {
		return err
	}
	names := make(map[uint32]string)
	if nnames > 0 {
		nameRVAs, err := p.readRVA(le.Uint32(hdr[32:]), uint64(nnames)*4)
		if err != nil {
			return err
		}
		ords, err := p.readRVA(le.Uint32(hdr[36:]), uint64(nnames)*2)
		if err != nil {
			return err
		}
		for i := range nnames {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			ord := uint32(le.Uint16(ords[2*i:]))
			if _, ok := names[ord]; ok {
				continue
			}
			if name, err := p.stringRVA(le.Uint32(nameRVAs[4*i:])); err == nil && name != "" {
				names[ord] = name
			}
		}
	}
	for i := range nfuncs {
		rva := le.Uint32(funcs[4*i:])
		if rva == 0 || (rva >= d.VirtualAddress && rva-d.VirtualAddress < d.Size) {
			continue // unused slot or a forwarder string
		}
		addr, name := p.base+uint64(rva), names[i]
		if s := p.section(rva); s == nil || !isCode(s) {
			if name != "" {
				set.labels = append(set.labels, ports.Name{Address: addr, Name: name, Kind: "object"})
			}
			continue
		}
		rank := rankGlobal
		if name == "" {
			rank = rankUnnamed
		} else {
			set.labels = append(set.labels, ports.Name{Address: addr, Name: name, Kind: "function"})
		}
		set.procs = append(set.procs, candidate{addr: addr, name: name, source: "export", rank: rank})
	}
	return nil
}

// pdata adds the function starts of the x64 and arm64 exception directory.
func (p *peImage) pdata(ctx context.Context, set *symbolSet) error {
	d := p.dir(pe.IMAGE_DIRECTORY_ENTRY_EXCEPTION)
	var entry uint32
	switch p.f.Machine {
	case pe.IMAGE_FILE_MACHINE_AMD64:
		entry = 12
	case pe.IMAGE_FILE_MACHINE_ARM64:
		entry = 8
	default:
		return nil
	}
	n := d.Size / entry
	if d.VirtualAddress == 0 || n == 0 {
		return nil
	}
	if n > maxTableEntries {
		return &ports.FormatError{Format: "pe", Offset: -1, Msg: "exception directory too large"}
	}
	data, err := p.readRVA(d.VirtualAddress, uint64(n*entry))
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	for i := range n {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		b := data[i*entry:]
		begin := le.Uint32(b)
		if begin == 0 {
			continue
		}
		var size uint64
		if entry == 12 {
			if end := le.Uint32(b[4:]); end > begin {
				size = uint64(end - begin)
			}
		} else if unwind := le.Uint32(b[4:]); unwind&3 != 0 {
			size = uint64(unwind>>2&0x7ff) * 4 // packed unwind data: FunctionLength
		}
		set.procs = append(set.procs, candidate{addr: p.base + uint64(begin), size: size, source: "pdata", rank: rankUnnamed})
	}
	return nil
}

// imports names the import address table slots, each with the DLL its
// descriptor names.
func (p *peImage) imports(ctx context.Context, set *symbolSet) error {
	d := p.dir(pe.IMAGE_DIRECTORY_ENTRY_IMPORT)
	if d.VirtualAddress == 0 {
		return nil
	}
	le := binary.LittleEndian
	ptr := uint32(4)
	if p.is64 {
		ptr = 8
	}
	// Every thunk occupies file bytes, so a well-formed table never reads more
	// entries than the file holds pointers; this bounds crafted tables that
	// share or overlap thunk arrays.
	budget := uint64(p.src.size)/uint64(ptr) + 16
	for i := uint32(0); i < maxTableEntries; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		desc, err := p.readRVA(d.VirtualAddress+20*i, 20)
		if err != nil {
			return err
		}
		lookup, iat := le.Uint32(desc), le.Uint32(desc[16:])
		if iat == 0 && lookup == 0 {
			return nil
		}
		if lookup == 0 {
			lookup = iat
		}
		lib, err := p.stringRVA(le.Uint32(desc[12:]))
		if err != nil {
			lib = "" // the slots are still imports; their DLL is unknown
		}
		for j := uint32(0); j < maxTableEntries; j++ {
			if budget == 0 {
				return &ports.FormatError{Format: "pe", Offset: -1, Msg: "import table larger than the file"}
			}
			budget--
			b, err := p.readRVA(lookup+j*ptr, uint64(ptr))
			if err != nil {
				return err
			}
			var v uint64
			ordinal := false
			if p.is64 {
				v = le.Uint64(b)
				ordinal = v&(1<<63) != 0
			} else {
				v = uint64(le.Uint32(b))
				ordinal = v&(1<<31) != 0
			}
			if v == 0 {
				break
			}
			var name string
			if ordinal {
				name = ordinalName(lib, uint16(v))
			} else if name, err = p.stringRVA(uint32(v&0x7fffffff) + 2); err != nil || name == "" {
				continue
			}
			set.labels = append(set.labels, ports.Name{Address: p.base + uint64(iat) + uint64(j*ptr), Name: name, Kind: "import", Library: lib})
		}
	}
	return nil
}
