package native

import (
	"cmp"
	"slices"

	"rea/ports"
)

// candidate is one piece of evidence that a procedure starts at addr.
// mergeProcedures keeps one procedure per address.
type candidate struct {
	addr     uint64
	name     string
	size     uint64
	source   string
	rank     int
	thunk    bool
	external bool
	target   string
}

// Ranks order the names competing for one address; lower wins.
const (
	rankGlobal    = iota // global symbols, exports, import stubs
	rankWeak             // weak symbols
	rankLocal            // local symbols
	rankDebug            // DWARF subprograms
	rankSynthetic        // the name "entry" given to an unnamed entry point
	rankUnnamed          // .pdata, function starts
)

var sourceOrder = map[string]int{
	"symbol": 0, "dynamic-symbol": 1, "export": 2, "plt": 3, "dwarf": 4,
	"pdata": 5, "function-starts": 6, "entry": 7,
}

func better(a, b candidate) int {
	return cmp.Or(
		cmp.Compare(a.rank, b.rank),
		cmp.Compare(len(a.name), len(b.name)),
		cmp.Compare(a.name, b.name),
		cmp.Compare(sourceOrder[a.source], sourceOrder[b.source]),
	)
}

// mergeProcedures sorts candidates by address and keeps one procedure per
// address: the best-ranked name, the size of the first candidate that knows
// one, and Source "entry" when the address is the entry point.
func mergeProcedures(cands []candidate) []ports.Procedure {
	cands = slices.Clone(cands)
	slices.SortFunc(cands, func(a, b candidate) int {
		// Not cmp.Or: its arguments are all evaluated, and better compares
		// names; only candidates at one address need it.
		if c := cmp.Compare(a.addr, b.addr); c != 0 {
			return c
		}
		return better(a, b)
	})
	var out []ports.Procedure
	for i := 0; i < len(cands); {
		j := i + 1
		for j < len(cands) && cands[j].addr == cands[i].addr {
			j++
		}
		group := cands[i:j]
		best := group[0]
		p := ports.Procedure{
			Address:     best.addr,
			Name:        best.name,
			Size:        best.size,
			Source:      best.source,
			External:    best.external,
			Thunk:       best.thunk,
			ThunkTarget: best.target,
		}
		for _, c := range group {
			if p.Size == 0 {
				p.Size = c.size
			}
			if c.source == "entry" {
				p.Source = "entry"
			}
		}
		out = append(out, p)
		i = j
	}
	return out
}

var kindOrder = map[string]int{"function": 0, "import": 1, "object": 2, "label": 3, "section": 4}

// sortNames sorts labels by address then name and drops repeated
// address+name pairs, keeping the most specific kind.
func sortNames(names []ports.Name) []ports.Name {
	names = slices.Clone(names)
	slices.SortFunc(names, func(a, b ports.Name) int {
		if c := cmp.Compare(a.Address, b.Address); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(kindOrder[a.Kind], kindOrder[b.Kind]))
	})
	return slices.CompactFunc(names, func(a, b ports.Name) bool {
		return a.Address == b.Address && a.Name == b.Name
	})
}
