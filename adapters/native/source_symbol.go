package native

import (
	"cmp"
	"context"
	"slices"
	"sort"
)

// A source location's Function comes from the DWARF subprogram covering
// the address; where none does (assembly with line records but no debug
// entry, a unit built without them), from the symbol table: the function
// symbol (ELF .symtab or .dynsym, Mach-O symbols, PE COFF symbols and
// exports) whose range holds the address, or, for a symbol of no size, the
// nearest one at or below it.

// symbolFunc is a function symbol.
type symbolFunc struct {
	addr, size uint64
	name       string
}

// symbolSources are the candidates' sources that are symbol tables.
var symbolSources = map[string]bool{"symbol": true, "dynamic-symbol": true, "export": true}

// symbolFunction names the function symbol holding addr, or "".
func (a *Analysis) symbolFunction(ctx context.Context, idx *lineIndex, addr uint64) string {
	fns, err := idx.syms.get(ctx, func(ctx context.Context) ([]symbolFunc, error) {
		set, err := a.symbolSet(ctx)
		if err != nil {
			return nil, err
		}
		return symbolFuncs(set.procs), nil
	})
	if err != nil {
		return ""
	}
	return symbolAt(fns, addr)
}

// symbolFuncs are the named symbol-table candidates sorted by address; at
// one address the better ranked (then the lesser name) last, where
// symbolAt's backward search meets it first.
func symbolFuncs(procs []candidate) []symbolFunc {
	var cs []candidate
	for _, c := range procs {
		if c.name != "" && symbolSources[c.source] {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(x, y candidate) int {
		return cmp.Or(cmp.Compare(x.addr, y.addr), cmp.Compare(y.rank, x.rank), cmp.Compare(y.name, x.name))
	})
	out := make([]symbolFunc, len(cs))
	for i, c := range cs {
		out[i] = symbolFunc{addr: c.addr, size: c.size, name: c.name}
	}
	return out
}

// symbolAt is the symbol holding addr: of those starting at or below it,
// the nearest whose size covers it, or one of no size at the nearest
// start.
func symbolAt(fns []symbolFunc, addr uint64) string {
	s := sort.Search(len(fns), func(i int) bool { return fns[i].addr > addr })
	if s == 0 {
		return ""
	}
	nearest := fns[s-1].addr
	for j := s - 1; j >= 0 && j >= s-16; j-- {
		f := fns[j]
		if f.size > 0 && addr-f.addr < f.size || f.size == 0 && f.addr == nearest {
			return f.name
		}
	}
	return ""
}
