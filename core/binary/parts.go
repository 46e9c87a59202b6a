package binary

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"rea/core"
	"rea/ports"
)

// Parts of procedures (ports.PartLister): gcc's cold parts (f.cold) are
// ranges of their procedure's body, not procedures. A procedure's item
// lists them (parts), an address in one is in its procedure (containing),
// and a part named or addressed as a procedure's argument selects its
// procedure, which the result's limitations say (partNotes).

// ProcedurePartSummary is one part of a procedure's body (ProcedureSummary.Parts).
type ProcedurePartSummary struct {
	Start  string `json:"start"`
	End    string `json:"end"`
	Symbol string `json:"symbol,omitempty"` // the part's own symbol (f.cold); absent when it has none
}

const procedurePartsSchema = `"parts":{"type":"array","description":"The body's other ranges (gcc's f.cold parts), outside its own; absent when none.",` +
	`"items":{"type":"object","additionalProperties":false,"required":["start","end"],"properties":{"start":{"$ref":"#/$defs/hex"},"end":{"$ref":"#/$defs/hex"},"symbol":{"type":"string"}}}}`

// procedureParts lists the bound analysis's parts, sorted by start; nil
// when its engine reports none.
func procedureParts(ctx context.Context, c *core.Call) ([]ports.ProcedurePart, error) {
	a, _, _ := c.Bound()
	pl, ok := a.(ports.PartLister)
	if !ok {
		return nil, nil
	}
	return pl.ProcedureParts(ctx)
}

// withParts gives a procedure's item its parts (partsByProcedure's entry).
func withParts(it ProcedureSummary, parts []ports.ProcedurePart) ProcedureSummary {
	for _, p := range parts {
		it.Parts = append(it.Parts, ProcedurePartSummary{Start: core.Hex(p.Start), End: core.Hex(p.End), Symbol: p.Name})
	}
	return it
}

// partsByProcedure indexes parts by their procedure; nil without parts.
func partsByProcedure(parts []ports.ProcedurePart) map[uint64][]ports.ProcedurePart {
	if len(parts) == 0 {
		return nil
	}
	out := make(map[uint64][]ports.ProcedurePart, len(parts))
	for _, p := range parts {
		out[p.Procedure] = append(out[p.Procedure], p)
	}
	return out
}

// partAt returns the part holding addr.
func partAt(parts []ports.ProcedurePart, addr uint64) (ports.ProcedurePart, bool) {
	i, _ := slices.BinarySearchFunc(parts, addr, func(p ports.ProcedurePart, t uint64) int {
		if p.Start <= t {
			return -1
		}
		return 1
	})
	if i > 0 && addr < parts[i-1].End {
		return parts[i-1], true
	}
	return ports.ProcedurePart{}, false
}

// partNotes are the limitations of the calls in progress that selected a
// procedure through one of its parts, by call; the wrapper partNoted
// appends them to the call's result.
type partNotes struct {
	mu sync.Mutex
	by map[*core.Call][]string
}

func partNotesOf(c *core.Call) *partNotes {
	return c.State("binary.part-notes", func() any { return &partNotes{by: map[*core.Call][]string{}} }).(*partNotes)
}

// notePart records that the argument s selected procedure i of v through
// its part p.
func (v *codeView) notePart(s string, p ports.ProcedurePart, i int) {
	name := p.Name
	if name == "" {
		name = fmt.Sprintf("the range [%s, %s)", core.Hex(p.Start), core.Hex(p.End))
	}
	msg := fmt.Sprintf("%q is in %s, a part of procedure %s (%s) outside its own range: the result is %s's.", s, name, v.value(i), core.Hex(v.procs[i].Address), v.value(i))
	n := partNotesOf(v.c)
	n.mu.Lock()
	defer n.mu.Unlock()
	if !slices.Contains(n.by[v.c], msg) {
		n.by[v.c] = append(n.by[v.c], msg)
	}
}

// partNotes returns the notes of v's call so far (notePart).
func (v *codeView) partNotes() []string {
	n := partNotesOf(v.c)
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.by[v.c])
}

// partNoted wraps an operation's handler so that its result's limitations
// say when an argument selected a procedure through a part.
func partNoted(op *core.Operation) *core.Operation {
	h := op.Handler
	op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
		out, err := h(ctx, c)
		n := partNotesOf(c)
		n.mu.Lock()
		notes := n.by[c]
		delete(n.by, c)
		n.mu.Unlock()
		if obs, ok := out.(*core.Observation); ok && err == nil && len(notes) > 0 {
			for _, s := range notes {
				if !slices.Contains(obs.Limitations, s) {
					obs.Limitations = append(slices.Clip(obs.Limitations), s)
				}
			}
		}
		return out, err
	}
	return op
}

// inBody reports whether addr is in procedure i's range or one of its parts.
func (v *codeView) inBody(i int, addr uint64) bool {
	if r := v.ranges[i]; addr >= r.Start && addr < r.End {
		return true
	}
	p, ok := partAt(v.parts, addr)
	return ok && p.Procedure == v.procs[i].Address
}

// bodyRefsFrom is refsFrom over [start, end) of procedure i's range and,
// when that reaches the range's end (a scan that stopped inside the range
// never reached the parts, whose instructions follow), over its parts.
func (v *codeView) bodyRefsFrom(ctx context.Context, i int, start, end uint64) ([]ports.Reference, error) {
	refs, err := v.refsFrom(ctx, start, end)
	if err != nil || end < v.ranges[i].End {
		return refs, err
	}
	for _, p := range v.partsOf[v.procs[i].Address] {
		more, err := v.refsFrom(ctx, p.Start, p.End)
		if err != nil {
			return nil, err
		}
		refs = append(refs, more...)
	}
	return refs, nil
}

// listedEnd is how far a listing of f that stopped before its last
// instruction covers procedure range r: the end of the last instruction
// listed, or r's end when the listing went on into the parts (they follow
// the range's instructions).
func listedEnd(f ports.Function, r ports.FunctionRange) uint64 {
	end := max(r.End, r.Start+1)
	if len(f.Instructions) == 0 {
		return end
	}
	last := f.Instructions[len(f.Instructions)-1]
	if last.Address < r.Start || last.Address >= r.End {
		return end
	}
	return last.Address + uint64(max(len(last.Bytes), 1))
}
