package jsapp

import (
	"slices"
	"strconv"
	"strings"

	"rea/core"
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
	line, col int32  // of offset: line 1-based, column in UTF-16 units; line 0: unknown
	// The original source position the file's source map gives for
	// line/col: the source-module node (a reference in the row, as a
	// path would repeat in every relation), origLine 1-based, origCol in
	// UTF-16 units; origLine 0: none.
	origNode          string
	origLine, origCol int32
	names             []string
	// exports
	name  string
	kind  string
	value ports.JSValueShape
	// local is, for a re-export (specifier set), the name in the source
	// module when it is not name ("a" of import {a} from "./x"; export {a
	// as b}); "" otherwise.
	local string
	// hasTarget, export and external (the specifier is a built-in or a
	// bare package the app does not hold); inClause: an export located in
	// an export clause (ports.JSExport.InClause)
	hasTarget, export, external, inClause bool
}

// asMap is the relation as the builder used to record it.
func (r *semRelation) asMap() map[string]any {
	var target any
	if r.hasTarget {
		target = r.target
	}
	var line, col any
	if r.line > 0 {
		line, col = int64(r.line), int64(r.col)
	}
	var m map[string]any
	if r.export {
		m = map[string]any{"relation": "exports", "source_node_id": r.source, "name": r.name, "kind": r.kind,
			"specifier": r.specifier, "offset": offsetPtr(r.offset), "target_node_id": nil, "value": shapeJSON(r.value),
			"line": line, "column": col, "local": r.localName()}
	} else {
		m = map[string]any{"relation": r.relation, "source_node_id": r.source, "specifier": r.specifier, "offset": offsetPtr(r.offset),
			"names": strSlice(r.names), "target_node_id": target, "line": line, "column": col}
		if r.external {
			m["external"] = true
		}
	}
	if r.origLine > 0 {
		m["original_node_id"], m["original_line"], m["original_column"] = r.origNode, int64(r.origLine), int64(r.origCol)
	}
	return m
}

// localName is an export relation's local member: for a re-export the name
// in its source module (name itself unless renamed), else nil.
func (r *semRelation) localName() any {
	switch {
	case r.specifier == "":
		return nil
	case r.local != "":
		return r.local
	}
	return r.name
}

// appendOriginal appends the original_node_id (a reference) and
// original_line cells (null, null without them), and the original_column
// cell when withColumn.
func (e *leanEncoder) appendOriginal(dst []byte, r *semRelation, withColumn bool) []byte {
	if r.origLine <= 0 {
		dst = append(dst, "null,null"...)
	} else {
		dst = appendInt(append(e.appendRef(dst, r.origNode), ','), int64(r.origLine))
	}
	if withColumn {
		col := int64(0)
		if r.origLine > 0 {
			col = int64(r.origCol)
		}
		dst = appendInt(append(dst, ','), col)
	}
	return dst
}

// appendLineColumn appends the line and column cells (null, null when the
// line is unknown).
func appendLineColumn(dst []byte, r *semRelation) []byte {
	if r.line <= 0 {
		return append(dst, "null,null"...)
	}
	return appendInt(append(appendInt(dst, int64(r.line)), ','), int64(r.col))
}

// appendOffset appends the offset cell.
func appendOffset(dst []byte, off int64) []byte {
	if off >= 0 {
		return appendInt(dst, off)
	}
	return append(dst, "null"...)
}

// lastOriginalCell is the index of the last original cell a relation
// whose original cell is at index first writes, or -1: original_column
// is left out when it is 0.
func lastOriginalCell(r *semRelation, first int) int {
	switch {
	case r.origLine <= 0:
		return -1
	case r.origCol != 0:
		return first + 2
	}
	return first + 1
}

// appendRelation appends the canonical form of relationOf(r) (the
// reference in reference_internal_test.go) without building its cells
// (TestAppendRelationMatchesRelationOf): the cells up to the last one that
// does not hold its default (trimRow).
func (e *leanEncoder) appendRelation(dst []byte, r *semRelation) ([]byte, error) {
	if !r.export && (r.relation == "" || r.relation == "exports") {
		return core.AppendCanonical(dst, e.relation(r.asMap()))
	}
	dst = e.appendRef(append(dst, '['), r.source)
	if r.export {
		// [source, "exports", name, value_kind, params, kind, offset, line,
		// column, original, original_line, original_column, rest, specifier,
		// local]
		dst = append(dst, `,"exports",`...)
		dst = core.AppendCanonicalString(append(core.AppendCanonicalString(dst, r.name), ','), shapeKind(r.value))
		last := 3
		switch {
		case r.local != "":
			last = 14
		case r.specifier != "":
			last = 13
		case r.value.Rest:
			last = 12
		case r.origLine > 0:
			last = lastOriginalCell(r, 9)
		case r.line > 0:
			last = 8
		case r.offset >= 0:
			last = 6
		case r.kind != "named":
			last = 5
		case r.value.Params >= 0:
			last = 4
		}
		for c := 4; c <= last; c++ {
			dst = append(dst, ',')
			switch c {
			case 4:
				if r.value.Params >= 0 {
					dst = appendInt(dst, int64(r.value.Params))
				} else {
					dst = append(dst, "null"...)
				}
			case 5:
				dst = core.AppendCanonicalString(dst, r.kind)
			case 6:
				dst = appendOffset(dst, r.offset)
			case 7:
				dst = appendLineColumn(dst, r)
				c = 8
			case 9:
				dst = e.appendOriginal(dst, r, last >= 11)
				c = min(last, 11)
			case 12:
				dst = strconv.AppendBool(dst, r.value.Rest)
			case 13:
				dst = core.AppendCanonicalString(dst, r.specifier)
			case 14:
				dst = core.AppendCanonicalString(dst, r.local)
			}
		}
		return append(dst, ']'), nil
	}
	// [source, relation, specifier, target, offset, line, column, names,
	// external, original, original_line, original_column]
	dst = core.AppendCanonicalString(append(dst, ','), r.relation)
	last := 1
	switch {
	case r.origLine > 0:
		last = lastOriginalCell(r, 9)
	case r.external:
		last = 8
	case len(r.names) > 0:
		last = 7
	case r.line > 0:
		last = 6
	case r.offset >= 0:
		last = 4
	case r.hasTarget:
		last = 3
	case r.specifier != "":
		last = 2
	}
	for c := 2; c <= last; c++ {
		dst = append(dst, ',')
		switch c {
		case 2:
			dst = core.AppendCanonicalString(dst, r.specifier)
		case 3:
			if r.hasTarget {
				dst = e.appendRef(dst, r.target)
			} else {
				dst = append(dst, "null"...)
			}
		case 4:
			dst = appendOffset(dst, r.offset)
		case 5:
			dst = appendLineColumn(dst, r)
			c = 6
		case 7:
			dst = append(dst, '[')
			for i, n := range r.names {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = core.AppendCanonicalString(dst, n)
			}
			dst = append(dst, ']')
		case 8:
			if r.external {
				dst = append(dst, "true"...)
			} else {
				dst = append(dst, "null"...)
			}
		case 9:
			dst = e.appendOriginal(dst, r, last >= 11)
			c = 11
		}
	}
	return append(dst, ']'), nil
}

// appendRef writes ref(id).
func (e *leanEncoder) appendRef(dst []byte, id string) []byte {
	if i, ok := e.index[id]; ok {
		return strconv.AppendInt(dst, int64(i), 10)
	}
	return core.AppendCanonicalString(dst, id)
}

// indexedString is one string index entry: a literal and the asset node
// holding it.
type indexedString struct {
	value  string
	node   string
	offset int64 // < 0: none
}

// relationOrder is the order of n relations stably by source node ID
// (source(i) is relation i's), as indices (a relation is a large struct to
// move). An asset's relations are made together, so the runs of one source
// are ordered rather than each relation: the same order, as a stable sort
// keeps a run's relations, and equal runs, in the order they were made.
func relationOrder(n int, source func(i int) string) []int32 {
	type run struct {
		start, end int32
		source     string
	}
	var runs []run
	for i := range n {
		src := source(i)
		if i == 0 || src != runs[len(runs)-1].source {
			runs = append(runs, run{int32(i), int32(i), src})
		}
		runs[len(runs)-1].end = int32(i) + 1
	}
	slices.SortStableFunc(runs, func(x, y run) int { return strings.Compare(x.source, y.source) })
	order := make([]int32, 0, n)
	for _, r := range runs {
		for i := r.start; i < r.end; i++ {
			order = append(order, i)
		}
	}
	return order
}

// relRecord is a semRelation as the builder holds it until the seal: its
// strings (node IDs, kinds, specifiers, names), which many relations
// repeat, are codes into the builder's relStrings. As semRelations with a
// string header each, the relations were the largest part of what the
// seal found live (4 MB on npm-10); a record is less than half the bytes.
type relRecord struct {
	names                             []string
	offset                            int64 // < 0: none
	line, col, origLine, origCol      int32
	relation, source, specifier       int32
	target, origNode, name, kind      int32
	local, valueKind, params          int32 // params as ports.JSValueShape.Params
	hasTarget, export, external, rest bool
	inClause                          bool
}

// relStrings interns the strings of the relations: a code is an index in
// list, 0 is "".
type relStrings struct {
	list  []string
	index map[string]int32
}

func newRelStrings() *relStrings {
	return &relStrings{list: []string{""}, index: map[string]int32{"": 0}}
}

// code is s's code, interned at its first call.
func (t *relStrings) code(s string) int32 {
	if c, ok := t.index[s]; ok {
		return c
	}
	c := int32(len(t.list))
	t.list = append(t.list, s)
	t.index[s] = c
	return c
}

// pack is r as a record.
func (t *relStrings) pack(r *semRelation) relRecord {
	return relRecord{names: r.names, offset: r.offset, line: r.line, col: r.col, origLine: r.origLine, origCol: r.origCol,
		relation: t.code(r.relation), source: t.code(r.source), specifier: t.code(r.specifier), target: t.code(r.target),
		origNode: t.code(r.origNode), name: t.code(r.name), kind: t.code(r.kind), local: t.code(r.local),
		valueKind: t.code(r.value.Kind), params: int32(r.value.Params), rest: r.value.Rest,
		hasTarget: r.hasTarget, export: r.export, external: r.external, inClause: r.inClause}
}

// unpack is the relation rec was packed from.
func (t *relStrings) unpack(rec *relRecord) semRelation {
	l := t.list
	return semRelation{relation: l[rec.relation], source: l[rec.source], specifier: l[rec.specifier], target: l[rec.target],
		offset: rec.offset, line: rec.line, col: rec.col, origNode: l[rec.origNode], origLine: rec.origLine, origCol: rec.origCol,
		names: rec.names, name: l[rec.name], kind: l[rec.kind], local: l[rec.local],
		value:     ports.JSValueShape{Kind: l[rec.valueKind], Params: int(rec.params), Rest: rec.rest},
		hasTarget: rec.hasTarget, export: rec.export, external: rec.external, inClause: rec.inClause}
}
