package binary

import (
	"context"
	"sort"

	"rea/core"
	"rea/ports"
)

// Analysts' names (set_address_name, kept by the annotation family) shown
// in place of the engine's: a procedure item keeps the engine's name in
// symbol, and the call notes every replacement, which the sealed Evidence
// lists in one limitation.

// analystNamer renames procedure items for one call.
type analystNamer struct {
	c     *core.Call
	names map[uint64]string
}

func namerOf(ctx context.Context, c *core.Call) analystNamer {
	return analystNamer{c: c, names: c.AnalystNames(ctx)}
}

// item is procedureItemOf with the analyst's name, if any, as its value.
func (n analystNamer) item(it ProcedureSummary, addr uint64) ProcedureSummary {
	if name, ok := n.names[addr]; ok {
		orig := ""
		if it.Symbol != nil {
			orig = *it.Symbol
		}
		n.c.NoteRenamed(addr, name, orig)
		it.Value = name
	}
	return it
}

// name returns the analyst's name at addr, noting it, or engine.
func (n analystNamer) name(addr uint64, engine string) string {
	if name, ok := n.names[addr]; ok {
		n.c.NoteRenamed(addr, name, engine)
		return name
	}
	return engine
}

// lookup finds the address an analyst gave name, if any.
func (n analystNamer) lookup(name string) (uint64, bool) {
	for a, s := range n.names {
		if s == name {
			return a, true
		}
	}
	return 0, false
}

// withAnalystNames returns names with each analyst's name added at its
// address (kind "analyst", first among the names there), sorted by
// address; names itself is not changed.
func withAnalystNames(n analystNamer, names []ports.Name) []ports.Name {
	if len(n.names) == 0 {
		return names
	}
	out := make([]ports.Name, 0, len(names)+len(n.names))
	for a, s := range n.names {
		out = append(out, ports.Name{Address: a, Name: s, Kind: "analyst"})
	}
	out = append(out, names...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}
