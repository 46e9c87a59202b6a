package native

import (
	"cmp"
	"slices"
	"strings"

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
	// midFrame: an FDE whose range starts in a state other than a
	// function's entry (ehReader.midFrame), as gcc's cold parts do.
	midFrame bool
	ifunc    bool // an STT_GNU_IFUNC symbol: the code is the resolver
	target   string
}

// Ranks order the names competing for one address; lower wins.
const (
	rankGlobal    = iota // global symbols, exports, import stubs
	rankWeak             // weak symbols
	rankLocal            // local symbols
	rankDebug            // DWARF subprograms
	rankLibrary          // a signature library's function its bytes equal (libraries.go)
	rankSynthetic        // the name "entry" given to an unnamed entry point
	rankUnnamed          // .pdata, function starts
)

// sourceRank orders the sources of candidates competing for one address.
func sourceRank(source string) int {
	switch source {
	case "symbol":
		return 0
	case "dynamic-symbol":
		return 1
	case "export":
		return 2
	case "plt":
		return 3
	case "dwarf":
		return 4
	case "pdata":
		return 5
	case "function-starts":
		return 6
	case "entry":
		return 7
	}
	return 0
}

// better orders two candidates for one address: rank, then shorter name,
// then name, then source. Each key is compared only when the ones before
// it tie.
func better(a, b *candidate) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.name), len(b.name)); c != 0 {
		return c
	}
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return cmp.Compare(sourceRank(a.source), sourceRank(b.source))
}

// candList is a list of candidates kept as the two lists it joins (the
// symbols, shared and read only, then the table starts), so that nobody
// copies the symbols only to read them: index i of the first list is i,
// of the second len(first)+i.
type candList [2][]candidate

func (l candList) len() int { return len(l[0]) + len(l[1]) }

// at returns the i-th candidate.
func (l candList) at(i int) *candidate {
	if i < len(l[0]) {
		return &l[0][i]
	}
	return &l[1][i-len(l[0])]
}

// mergeProcedures sorts candidates by address and keeps one procedure per
// address: the best-ranked name (by better; of equals, the first
// candidate), the size of the best-ranked candidate that knows one, and
// Source "entry" when the address is the entry point.
func mergeProcedures(list candList) []ports.Procedure {
	order := byAddress(list.len(), func(i int) uint64 { return list.at(i).addr })
	groups := 0
	for k := range order {
		if k == 0 || list.at(order[k]).addr != list.at(order[k-1]).addr {
			groups++
		}
	}
	out := make([]ports.Procedure, 0, groups)
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && list.at(order[j]).addr == list.at(order[i]).addr {
			j++
		}
		// Only candidates at one address compare names, and each of them
		// once: the best, and the best with a size.
		best, sized := -1, -1
		entry, ifunc := false, false
		for _, k := range order[i:j] {
			c := list.at(k)
			if best < 0 || better(c, list.at(best)) < 0 {
				best = k
			}
			if c.size != 0 && (sized < 0 || better(c, list.at(sized)) < 0) {
				sized = k
			}
			entry = entry || c.source == "entry"
			ifunc = ifunc || c.ifunc // whichever name wins, the code is the resolver
		}
		b := list.at(best)
		p := ports.Procedure{
			Address:     b.addr,
			Name:        b.name,
			Size:        b.size,
			Source:      b.source,
			External:    b.external,
			Thunk:       b.thunk,
			ThunkTarget: b.target,
			IFunc:       ifunc,
		}
		if p.Size == 0 && sized >= 0 {
			p.Size = list.at(sized).size
		}
		if entry {
			p.Source = "entry"
		}
		out = append(out, p)
		i = j
	}
	return out
}

// byAddress returns the indexes 0..n-1 sorted by addr(i), then index.
// The sort moves 8-byte keys (address and index in one word when both fit),
// not the records.
func byAddress(n int, addr func(int) uint64) []int {
	const idxBits = 24
	order := make([]int, n)
	packed := n < 1<<idxBits
	for i := 0; i < n && packed; i++ {
		packed = addr(i) < 1<<(64-idxBits)
	}
	if packed {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = addr(i)<<idxBits | uint64(i)
		}
		slices.Sort(keys)
		for k, key := range keys {
			order[k] = int(key & (1<<idxBits - 1))
		}
		return order
	}
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(addr(a), addr(b)), cmp.Compare(a, b))
	})
	return order
}

// kindOrder orders the kinds of one name at one address, most specific
// first.
func kindOrder(kind string) int {
	switch kind {
	case "function":
		return 0
	case "import":
		return 1
	case "object":
		return 2
	case "label":
		return 3
	case "section":
		return 4
	}
	return 0
}

// sortNames sorts labels by address then name and drops repeated
// address+name pairs, keeping the most specific kind. Only labels at one
// address compare names.
func sortNames(names []ports.Name) []ports.Name {
	order := byAddress(len(names), func(i int) uint64 { return names[i].Address })
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && names[order[j]].Address == names[order[i]].Address {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(order[i:j], func(a, b int) int {
				if c := strings.Compare(names[a].Name, names[b].Name); c != 0 {
					return c
				}
				return cmp.Compare(kindOrder(names[a].Kind), kindOrder(names[b].Kind))
			})
		}
		i = j
	}
	out := make([]ports.Name, 0, len(names))
	for k, i := range order {
		if k > 0 {
			if p := &out[len(out)-1]; p.Address == names[i].Address && p.Name == names[i].Name {
				continue
			}
		}
		out = append(out, names[i])
	}
	return out
}
