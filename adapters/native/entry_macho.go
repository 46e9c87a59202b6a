package native

import "rea/ports"

// A Mach-O program's LC_MAIN entry is its main by ABI: dyld calls it as
// main(argc, argv, envp, apple), and ld64 and lld point LC_MAIN at the
// symbol _main unless told another (-e). So a stripped program's entry,
// which no symbol names, is named _main, spelt as the symbol of an
// unstripped program is (the procedure keeps Source "entry", as every entry
// point does: the stripped and unstripped lists agree). LC_UNIXTHREAD's
// entry is a start routine, not main, and keeps the name "entry"; a Go
// program (one with __gopclntab), whose LC_MAIN entry is the runtime's
// _rt0, is left to its pclntab, which names it.

// nameMain names the entry _main when LC_MAIN gives it and no symbol names
// it or main.
func (m *machoImage) nameMain(set *symbolSet, entry uint64) {
	if !m.hasLCMain() || m.f.Section("__gopclntab") != nil {
		return
	}
	for _, c := range set.procs {
		if c.name == "_main" || c.addr == entry && c.name != "" && c.rank < rankSynthetic {
			return
		}
	}
	set.procs = append(set.procs, candidate{addr: entry, name: "_main", source: "lc-main", rank: rankDebug})
	set.labels = append(set.labels, ports.Name{Address: entry, Name: "_main", Kind: "function"})
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
