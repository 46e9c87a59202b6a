package jsapp

// The reference encoders the appenders are checked against
// (TestAppendRowMatchesRow, TestAppendRelationMatchesRelationOf): each
// builds a row as values, which core.CanonicalJSON then encodes.

import (
	"encoding/json"

	"rea/core"
	"rea/ports"
)

type leanEvidence struct {
	Basis      string    `json:"basis,omitempty"`
	Confidence string    `json:"confidence,omitempty"`
	Locations  [][]int64 `json:"locations"`
}

type leanObservation struct {
	Label      any            `json:"label,omitempty"` // absent: the node's key; json null: null
	Properties map[string]any `json:"properties,omitempty"`
	Unset      []string       `json:"unset,omitempty"` // derived properties the observation does not have
	Evidence   leanEvidence   `json:"evidence"`
}

func (e *leanEncoder) locations(ev GraphEvidence) [][]int64 {
	out := make([][]int64, len(ev.Locations))
	for i, l := range ev.Locations {
		if l.Offset == nil {
			out[i] = []int64{int64(e.paths[l.Path])}
		} else {
			out[i] = []int64{int64(e.paths[l.Path]), *l.Offset}
		}
	}
	return out
}

func (e *leanEncoder) evidence(ev GraphEvidence, basis string) leanEvidence {
	out := leanEvidence{Locations: e.locations(ev)}
	if ev.Basis != basis {
		out.Basis = ev.Basis
	}
	if ev.Confidence != core.ConfidenceObserved {
		out.Confidence = ev.Confidence
	}
	return out
}

// row is one node of a group: its identity's values in the group's member
// order, then its observations.
func (e *leanEncoder) row(grp *nodeGroup, i int) []any {
	n, li := grp.nodes[i], grp.ident[i]
	out := make([]any, 0, len(grp.keys)+1)
	for c, k := range grp.keys {
		v := li[c]
		if s, ok := v.(string); ok && digestMember(k) {
			if j, ok := e.digests[s]; ok {
				v = j
			}
		}
		out = append(out, v)
	}
	key := identityKey(n.Identity)
	obs := make([]leanObservation, len(n.Observations))
	for j, o := range n.Observations {
		lo := leanObservation{Evidence: e.evidence(o.Evidence, nodeBasis(n.Kind))}
		derived := derivedProps(n.Kind, n.Identity, o.Evidence.Locations)
		props := map[string]any{}
		for k, v := range o.Properties {
			if dv, ok := derived[k]; !ok || !sameScalar(v, dv) {
				props[k] = v
			}
		}
		for _, k := range derivedKeys {
			if _, ok := derived[k]; ok {
				if _, has := o.Properties[k]; !has {
					lo.Unset = append(lo.Unset, k)
				}
			}
		}
		if len(props) > 0 {
			lo.Properties = props
		}
		switch {
		case o.Label == nil && key == nil, o.Label != nil && key != nil && *o.Label == *key:
		case o.Label == nil:
			lo.Label = json.RawMessage("null")
		default:
			lo.Label = *o.Label
		}
		obs[j] = lo
	}
	return append(out, obs)
}

// edge is an edge's row: [source, target, relation, locations, properties,
// basis, confidence], the last three left out while they hold their
// defaults ({}, the relation's basis, observed).
func (e *leanEncoder) edge(ed *Edge) []any {
	props := ed.Properties
	if props == nil {
		props = map[string]any{}
	}
	out := []any{e.ref(ed.SourceNodeID), e.ref(ed.TargetNodeID), ed.Relation, e.locations(ed.Evidence), props, ed.Evidence.Basis, ed.Evidence.Confidence}
	switch {
	case ed.Evidence.Confidence != core.ConfidenceObserved:
	case ed.Evidence.Basis != edgeBasis(ed.Relation):
		out = out[:6]
	case len(props) > 0:
		out = out[:5]
	default:
		out = out[:4]
	}
	return out
}

// offsetCellOf is an offset as a relation or index cell: nil when absent.
func offsetCellOf(off int64) any {
	if off < 0 {
		return nil
	}
	return off
}

// relationOf is relation for a typed record: the same row, or the same
// object when no row fits.
func (e *leanEncoder) relationOf(r *semRelation) any {
	if r.export {
		params := any(nil)
		if r.value.Params >= 0 {
			params = r.value.Params
		}
		kind := r.value.Kind
		if kind == "" {
			kind = ports.JSValueUnknown
		}
		line, col := lineCellsOf(r)
		os, ol, oc := e.originalCellsOf(r)
		return trimRow([]any{e.ref(r.source), "exports", r.name, kind, params, r.kind, offsetCellOf(r.offset), line, col, os, ol, oc, r.value.Rest, r.specifier, r.local}, exportCells)
	}
	if r.relation == "" || r.relation == "exports" {
		return e.relation(r.asMap()) // no row shape: the object form
	}
	var target, external any
	if r.hasTarget {
		target = e.ref(r.target)
	}
	if r.external {
		external = true
	}
	line, col := lineCellsOf(r)
	os, ol, oc := e.originalCellsOf(r)
	return trimRow([]any{e.ref(r.source), r.relation, r.specifier, target, offsetCellOf(r.offset), line, col, strSlice(r.names), external, os, ol, oc}, otherCells)
}

// originalCellsOf is a relation's original (a reference), original_line
// and original_column cells (nil, nil, 0 without them).
func (e *leanEncoder) originalCellsOf(r *semRelation) (any, any, any) {
	if r.origLine <= 0 {
		return nil, nil, int64(0)
	}
	return e.ref(r.origNode), int64(r.origLine), int64(r.origCol)
}

// lineCellsOf is a relation's line and column cells.
func lineCellsOf(r *semRelation) (any, any) {
	if r.line <= 0 {
		return nil, nil
	}
	return int64(r.line), int64(r.col)
}
