package jsapp

import (
	"slices"
	"strings"

	"rea/ports"
)

// The semantic graph's relations and the string index are kept as typed
// records while the graph is built: as maps they were most of the
// builder's live memory (a map, its boxed values and a names list per
// import and export). Each record writes the same lean row (lean.go) its
// map would; asMap is that map, for the shapes no row fits and for tests.

// semRelation is one semantic relation: an import of an asset (require,
// import, worker, ...) or one of its exports.
type semRelation struct {
	relation  string // the import kind, or "exports"
	source    string // node ID
	specifier string
	target    string // node ID, when hasTarget
	offset    int64  // < 0: none
	names     []string
	// exports
	name  string
	kind  string
	value ports.JSValueShape
	// hasTarget, export and external (the specifier is a built-in or a
	// bare package the app does not hold)
	hasTarget, export, external bool
}

// asMap is the relation as the builder used to record it.
func (r *semRelation) asMap() map[string]any {
	var target any
	if r.hasTarget {
		target = r.target
	}
	if r.export {
		return map[string]any{"relation": "exports", "source_node_id": r.source, "name": r.name, "kind": r.kind,
			"specifier": r.specifier, "offset": offsetPtr(r.offset), "target_node_id": nil, "value": shapeJSON(r.value)}
	}
	m := map[string]any{"relation": r.relation, "source_node_id": r.source, "specifier": r.specifier, "offset": offsetPtr(r.offset),
		"names": strSlice(r.names), "target_node_id": target}
	if r.external {
		m["external"] = true
	}
	return m
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
		return trimRow([]any{e.ref(r.source), "exports", r.name, kind, params, r.value.Rest, r.kind, r.specifier, offsetCellOf(r.offset)}, exportCells)
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
	return trimRow([]any{e.ref(r.source), r.relation, r.specifier, target, offsetCellOf(r.offset), strSlice(r.names), external}, otherCells)
}

// indexedString is one string index entry: a literal and the asset node
// holding it.
type indexedString struct {
	value  string
	node   string
	offset int64 // < 0: none
}

func (s indexedString) asMap() map[string]any {
	return map[string]any{"value": s.value, "node_id": s.node, "offset": offsetPtr(s.offset)}
}

// relationOrder is the order of relations stably by source node ID, as
// indices (a relation is a large struct to move).
func relationOrder(rels []semRelation) []int32 {
	order := make([]int32, len(rels))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int { return strings.Compare(rels[x].source, rels[y].source) })
	return order
}
