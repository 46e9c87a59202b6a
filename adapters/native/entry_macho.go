package native

import (
	"bytes"
	"debug/macho"
	"slices"

	"rea/ports"
)

// A Mach-O program's LC_MAIN entry is its main by ABI when the linker
// pointed it at main: dyld calls it as main(argc, argv, envp, apple), and
// ld64 and lld point LC_MAIN at the symbol _main unless told another (-e).
// A stripped program's entry, which no symbol names, is named from the
// export trie, which stripping leaves because dyld reads it (the procedure
// keeps Source "entry", as every entry point does): a name the trie exports
// at the entry is the entry's name (_main, or _start when linked with
// -e _start), and a _main it exports elsewhere is main, the entry then
// keeping the name "entry". A program whose trie says neither (none, or
// exports restricted to other names) cannot be told from one linked with
// -e whose exports are restricted; its entry is named _main by its role,
// which LC_MAIN fixes whatever the symbol was: dyld calls it as main and
// passes what it returns to exit. Naming it start instead would lose main
// in the common case (a default link) to name the rare one's symbol.
// LC_UNIXTHREAD's entry is a start routine, not main, and keeps the name
// "entry"; a Go program (one with __gopclntab), whose LC_MAIN entry is the
// runtime's _rt0, is left to its pclntab, which names it.

// Load commands that hold the export trie.
const (
	lcDyldInfo        = 0x22
	lcDyldInfoOnly    = 0x80000022
	lcDyldExportsTrie = 0x80000033
)

// maxTrieNodes bounds the export trie's nodes visited and pending (a
// program's exports take one or two nodes each), and maxExportName the
// names it spells.
const (
	maxTrieNodes  = 1 << 16
	maxExportName = 1024
)

// nameMain names the entry when LC_MAIN gives it and no symbol names it or
// main: as the export trie does, else _main (its role under LC_MAIN).
func (m *machoImage) nameMain(set *symbolSet, entry uint64) {
	if !m.hasLCMain() || m.f.Section("__gopclntab") != nil {
		return
	}
	for _, c := range set.procs {
		if c.name == "_main" || c.addr == entry && c.name != "" && c.rank < rankSynthetic {
			return
		}
	}
	var atEntry []string
	main, hasMain := uint64(0), false
	if text := m.f.Segment("__TEXT"); text != nil {
		m.exports(func(n string, off uint64) {
			switch {
			case text.Addr+off == entry:
				atEntry = append(atEntry, n)
			case n == "_main":
				main, hasMain = text.Addr+off, true
			}
		})
	}
	name := func(addr uint64, n, source string) {
		set.procs = append(set.procs, candidate{addr: addr, name: n, source: source, rank: rankDebug})
		set.labels = append(set.labels, ports.Name{Address: addr, Name: n, Kind: "function"})
	}
	if len(atEntry) > 0 {
		// The trie's first name, or _main if it is one of them.
		n := atEntry[0]
		if slices.Contains(atEntry, "_main") {
			n = "_main"
		}
		name(entry, n, "export-trie")
	}
	if hasMain {
		name(main, "_main", "export-trie")
	}
	if len(atEntry) == 0 && !hasMain {
		name(entry, "_main", "lc-main")
	}
}

// exports calls fn with each regular export of the image's export trie
// (LC_DYLD_INFO's or LC_DYLD_EXPORTS_TRIE's) and its offset from the image
// base; re-exports are skipped, and a malformed trie ends the walk where it
// goes wrong.
func (m *machoImage) exports(fn func(name string, off uint64)) {
	bo := m.f.ByteOrder
	var trie []byte
	for _, l := range m.f.Loads {
		raw := l.Raw()
		var off, size uint32
		switch {
		case len(raw) >= 48 && (bo.Uint32(raw) == lcDyldInfo || bo.Uint32(raw) == lcDyldInfoOnly):
			off, size = bo.Uint32(raw[40:]), bo.Uint32(raw[44:])
		case len(raw) >= 16 && bo.Uint32(raw) == lcDyldExportsTrie:
			off, size = bo.Uint32(raw[8:]), bo.Uint32(raw[12:])
		default:
			continue
		}
		if size == 0 {
			continue
		}
		b, err := m.src.read(m.base+uint64(off), uint64(size))
		if err != nil {
			return
		}
		trie = b
		break
	}
	if trie == nil {
		return
	}
	type node struct {
		at     uint64
		prefix string
	}
	stack := []node{{0, ""}}
	seen := map[uint64]bool{}
	for len(stack) > 0 && len(seen) < maxTrieNodes {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n.at] || n.at >= uint64(len(trie)) {
			continue
		}
		seen[n.at] = true
		p := trie[n.at:]
		term, ok := uleb(&p)
		if !ok || term > uint64(len(p)) {
			continue
		}
		if info := p[:term]; term > 0 {
			flags, ok := uleb(&info)
			if ok && flags&0x08 == 0 { // not a re-export
				if off, ok := uleb(&info); ok {
					fn(n.prefix, off)
				}
			}
		}
		p = p[term:]
		if len(p) == 0 {
			continue
		}
		count := int(p[0])
		p = p[1:]
		for range count {
			end := bytes.IndexByte(p, 0)
			if end < 0 {
				break
			}
			edge := string(p[:end])
			p = p[end+1:]
			child, ok := uleb(&p)
			if !ok {
				break
			}
			if len(stack)+len(seen) < maxTrieNodes && len(n.prefix)+len(edge) <= maxExportName {
				stack = append(stack, node{child, n.prefix + edge})
			}
		}
	}
}

// uleb reads a ULEB128 off the front of *p.
func uleb(p *[]byte) (uint64, bool) {
	var v uint64
	var shift uint
	for i, b := range *p {
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			*p = (*p)[i+1:]
			return v, true
		}
	}
	return 0, false
}

// hasLCMain reports whether the entry comes from LC_MAIN (entry reads the
// first of LC_MAIN and LC_UNIXTHREAD).
func (m *machoImage) hasLCMain() bool {
	for _, l := range m.f.Loads {
		raw := l.Raw()
		if len(raw) < 16 {
			continue
		}
		switch m.f.ByteOrder.Uint32(raw) {
		case lcMain:
			return true
		case lcUnixThread:
			return false
		}
	}
	return false
}

// nameExports names, from the export trie, the exported functions no
// symbol names: a program or dylib stripped of its symbol table (llvm-strip,
// strip -s) keeps the trie, since dyld binds through it, so a dylib's API
// and a program's exported functions keep their names. Only exports in a
// section of code are functions; an address a symbol (or nameMain) already
// names keeps that name, and a Go image is left to its pclntab.
func (m *machoImage) nameExports(set *symbolSet) {
	if m.f.Section("__gopclntab") != nil {
		return
	}
	text := m.f.Segment("__TEXT")
	if text == nil {
		return
	}
	var code []*macho.Section
	for _, s := range m.f.Sections {
		if isMachOCode(s.Flags) && s.Size > 0 {
			code = append(code, s)
		}
	}
	if len(code) == 0 {
		return
	}
	var named map[uint64]bool
	m.exports(func(n string, off uint64) {
		addr := text.Addr + off
		if !slices.ContainsFunc(code, func(s *macho.Section) bool { return addr >= s.Addr && addr-s.Addr < s.Size }) {
			return
		}
		if named == nil {
			named = map[uint64]bool{}
			for _, c := range set.procs {
				if c.name != "" && c.rank < rankSynthetic {
					named[c.addr] = true
				}
			}
		}
		if named[addr] {
			return
		}
		named[addr] = true
		set.procs = append(set.procs, candidate{addr: addr, name: n, source: "export-trie", rank: rankGlobal})
		set.labels = append(set.labels, ports.Name{Address: addr, Name: n, Kind: "function"})
	})
}
