package jsapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"rea/core"
)

// The lean wire form of the application graph (graph schema_version 4,
// docs/jsapp-graph.md). The graph rea builds is the v1 graph of
// CONTRACTS.md §16, with the same node, observation and edge IDs; only its
// encoding in the Evidence is lean, and every fact of v1 is kept:
//
//   - nodes are written in groups of one kind and one set of identity
//     members: the group names the kind and the members once, and each
//     node is a row of its identity's values and its observations. No ID
//     is stored: node_id is the v1 digest of kind and identity, and
//     observation_id and edge_id the v1 digests of the expanded records
//     (a location's line and column left out: they follow from its
//     offset); DecodeGraph computes them all;
//   - edges, semantic relations, fingerprints, frontiers and the string
//     index name nodes by their index in the rows of graph.nodes (a
//     number), or by node_id (a string) when the graph does not hold it;
//   - edges, semantic relations and the string index are rows (arrays)
//     whose trailing cells are left out when they hold their defaults;
//   - identity.strategy and identity.stability are left out when they
//     follow from the identity's fields, identity.artifact_sha256 when it
//     is the graph's artifact_sha256 (a canonical-path or
//     artifact-local-key identity without one says so with null), and an
//     identity digest that several nodes share is an index into
//     graph.digests;
//   - an observation's label is left out when it is the node's key, its
//     properties that repeat the identity (path, sha256, original_source)
//     or follow from it (a source module's has_content, resolved_path and
//     outside_app) are left out (unset names those it lacks), evidence.basis
//     when it is the default of the node kind or edge relation,
//     evidence.confidence when it is "observed"; a location is
//     [path_index], [path_index, offset] or, in a JavaScript or HTML file,
//     [path_index, offset, line, column] into graph.paths.
//
// Readers decode with DecodeGraph (and decodeApp for the whole result) and
// see the v1 graph.

// graphSchemaVersion 4: a location in a JavaScript file may carry its line
// and column ([path_index, offset, line, column]); a version 3 reader
// refuses such a location.
const graphSchemaVersion = 4

// resultSchemaVersion is the whole result's schema_version. 4: semantic
// relation rows put their positions before their other cells (an export
// row: source, "exports", name, value_kind, params, kind, offset, line,
// column, original...). A version 3 result read as 4 would put cells in the
// wrong fields, so decodeApp refuses any other version.
//
// 5: an exports row may end in a local cell, the name a re-export takes
// from its source module when it differs from the exported name (import
// {a} from "./x"; export {a as b} is a re-export of a, as export {a as b}
// from "./x" is); a version 4 reader would refuse such a row.
//
// 6: the graph is schema_version 4 (locations with line and column).
const resultSchemaVersion = 6

// strategyFor is the identity strategy and stability the identity's fields
// imply (CONTRACTS.md §16's table), or "" when none does.
func strategyFor(ident map[string]any) (string, string) {
	has := func(k string) bool { _, ok := ident[k]; return ok }
	switch {
	case has("source_map_sha256"):
		return idSourceMap, stabilitySMExact
	case has("fingerprint_sha256"):
		return idStructural, stabilityInfer
	case has("capture_sha256"):
		return "runtime-instance", "capture-only"
	case has("observation_sha256"):
		return "observation-fingerprint", "observation-only"
	case has("namespace"):
		return idArtifactLocal, stabilityVersion
	case has("path"):
		return idCanonicalPath, stabilityVersion
	case has("sha256"):
		return idContentDigest, stabilityGlobal
	}
	return "", ""
}

// nodeBasis and edgeBasis are the evidence bases left out of the lean form.
func nodeBasis(kind string) string {
	switch kind {
	case "javascript-asset", "artifact", "asar-entry":
		return "artifact-inventory"
	case "source-module", "source-map":
		return "source-map"
	case "package":
		return "package-metadata"
	}
	return "static-syntax"
}

func edgeBasis(relation string) string {
	switch relation {
	case "contains":
		return "artifact-inventory"
	case "loads":
		return "package-metadata"
	}
	return "static-syntax"
}

// identityKey is the node's key: the default of its observations' labels.
func identityKey(ident map[string]any) *string {
	for _, k := range []string{"path", "key", "original_source"} {
		if s, ok := ident[k].(string); ok {
			return &s
		}
	}
	return nil
}

// derivedKeys are the observation properties that can follow from the
// node's identity and location, in the order derivedProps gives them.
var derivedKeys = []string{"has_content", "original_source", "outside_app", "path", "resolved_path", "sha256"}

// derivedProps is what an observation's properties hold by default, from
// its node's kind and (expanded) identity and the observation's locations:
// the identity's path, sha256 and original_source repeated, and for a
// source module whether its map embeds its text and where its original
// resolves in the app (as the builder records them).
func derivedProps(kind string, ident map[string]any, locs []GraphLocation) map[string]any {
	d := map[string]any{}
	for _, k := range []string{"path", "sha256", "original_source"} {
		if v, ok := ident[k].(string); ok {
			d[k] = v
		}
	}
	if kind != "source-module" {
		return d
	}
	if v, ok := ident["source_sha256"]; ok {
		d["has_content"] = v != nil
	}
	if s, ok := ident["original_source"].(string); ok && len(locs) == 1 {
		if p, ok := resolveSourcePath(path.Dir(locs[0].Path), s); ok {
			d["resolved_path"] = p
		} else if !strings.HasPrefix(s, "webpack://") && !strings.HasPrefix(s, "rspack://") {
			d["outside_app"] = true
		}
	}
	return d
}

// sameScalar says whether a and b are the same string or the same boolean.
func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}

// nodeGroup is the nodes of one kind and one set of lean identity members.
type nodeGroup struct {
	kind  string
	keys  []string
	nodes []*Node
	// each node's lean identity, its values in keys' order: as a map
	// each was a copy of the node's identity, made for every node before
	// the first row is written (1.4 MB of the seal's heap on npm-10)
	ident [][]any
}

// leanEncoder holds the tables a lean graph and its companions index into.
type leanEncoder struct {
	root    string
	index   map[string]int // node_id -> index in the rows of graph.nodes
	paths   map[string]int
	list    []string
	digests map[string]int
	dlist   []string
	groups  []*nodeGroup
}

// digestMember says whether an identity member is a digest that may be
// written as an index into graph.digests.
func digestMember(k string) bool { return strings.HasSuffix(k, "_sha256") || k == "sha256" }

func newLeanEncoder(g *Graph, root string) *leanEncoder {
	e := &leanEncoder{root: root, index: make(map[string]int, len(g.Nodes)), paths: map[string]int{}, digests: map[string]int{}}
	add := func(ev GraphEvidence) {
		for _, l := range ev.Locations {
			if _, ok := e.paths[l.Path]; !ok {
				e.paths[l.Path] = 0
				e.list = append(e.list, l.Path)
			}
		}
	}
	for _, n := range g.Nodes {
		for _, o := range n.Observations {
			add(o.Evidence)
		}
	}
	for _, ed := range g.Edges {
		add(ed.Evidence)
	}
	slices.SortFunc(e.list, cmpUTF16)
	for i, p := range e.list {
		e.paths[p] = i
	}
	if e.list == nil {
		e.list = []string{}
	}
	// Lean identities, grouped by kind and members; digests that more
	// than one identity holds.
	byKey := map[string]*nodeGroup{}
	uses := map[string]int{}
	for _, n := range g.Nodes {
		li := e.leanIdentity(n)
		keys := make([]string, 0, len(li))
		for k, v := range li {
			keys = append(keys, k)
			if s, ok := v.(string); ok && digestMember(k) {
				uses[s]++
			}
		}
		slices.SortFunc(keys, cmpUTF16)
		gk := n.Kind + "\x00" + strings.Join(keys, "\x00")
		grp := byKey[gk]
		if grp == nil {
			grp = &nodeGroup{kind: n.Kind, keys: keys}
			byKey[gk] = grp
			e.groups = append(e.groups, grp)
		}
		vals := make([]any, len(keys))
		for j, k := range keys {
			vals[j] = li[k]
		}
		grp.nodes = append(grp.nodes, n)
		grp.ident = append(grp.ident, vals)
	}
	slices.SortFunc(e.groups, func(a, b *nodeGroup) int {
		if c := cmpUTF16(a.kind, b.kind); c != 0 {
			return c
		}
		return slices.CompareFunc(a.keys, b.keys, cmpUTF16)
	})
	i := 0
	for _, grp := range e.groups {
		for _, n := range grp.nodes {
			e.index[n.NodeID] = i
			i++
		}
	}
	for s, n := range uses {
		if n > 1 {
			e.dlist = append(e.dlist, s)
		}
	}
	slices.SortFunc(e.dlist, cmpUTF16)
	for i, s := range e.dlist {
		e.digests[s] = i
	}
	if e.dlist == nil {
		e.dlist = []string{}
	}
	return e
}

// leanIdentity is the identity without what follows from its fields or
// from the graph.
func (e *leanEncoder) leanIdentity(n *Node) map[string]any {
	ident := make(map[string]any, len(n.Identity))
	for k, v := range n.Identity {
		ident[k] = v
	}
	delete(ident, "strategy")
	delete(ident, "stability")
	if s, t := strategyFor(ident); s != n.Identity["strategy"] || t != n.Identity["stability"] {
		ident["strategy"], ident["stability"] = n.Identity["strategy"], n.Identity["stability"]
	}
	if st := n.Identity["strategy"]; st == idCanonicalPath || st == idArtifactLocal {
		switch a, ok := ident["artifact_sha256"]; {
		case a == e.root:
			delete(ident, "artifact_sha256")
		case !ok:
			ident["artifact_sha256"] = nil // none: not the graph's
		}
	}
	return ident
}

// ref names a node: its index, or its ID when the graph does not hold it.
func (e *leanEncoder) ref(id string) any {
	if i, ok := e.index[id]; ok {
		return i
	}
	return id
}

// groupJSON is a node group's wire form; its rows are encoded apart, on
// every core.
type groupJSON struct {
	Kind     string         `json:"kind"`
	Identity []string       `json:"identity"`
	Rows     core.Canonical `json:"rows"`
}

// groupItem writes a group's wire form (the same bytes as encoding its
// groupJSON) into the array of groups, which copies the rows: the first
// group grows the buffer once for every group's rows (rest bytes), rather
// than append growing it a quarter at a time, copying them again each time.
type groupItem struct {
	g    groupJSON
	rest int // bytes of the group's rows and of the following groups'
}

// AppendCanonicalJSON implements core.CanonicalAppender.
func (it *groupItem) AppendCanonicalJSON(dst []byte) []byte {
	if cap(dst)-len(dst) < it.g.Rows.Len()+1024 {
		dst = slices.Grow(dst, it.rest+1024)
	}
	dst = append(dst, `{"identity":`...)
	if it.g.Identity == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, k := range it.g.Identity {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = core.AppendCanonicalString(dst, k)
		}
		dst = append(dst, ']')
	}
	dst = core.AppendCanonicalString(append(dst, `,"kind":`...), it.g.Kind)
	return append(it.g.Rows.AppendTo(append(dst, `,"rows":`...)), '}')
}

// MarshalJSON writes the same text, for encoders other than rea's.
func (it *groupItem) MarshalJSON() ([]byte, error) { return it.AppendCanonicalJSON(nil), nil }

// appendRow appends the canonical form of row(grp, i) (the reference in
// reference_internal_test.go) without building it
// (cells, observation structs and property copies were most of the
// encoding's work): the same members in RFC 8785 order, left out under
// the same conditions (TestAppendRowMatchesRow).
func (e *leanEncoder) appendRow(dst []byte, grp *nodeGroup, i int) ([]byte, error) {
	n, li := grp.nodes[i], grp.ident[i]
	var err error
	dst = append(dst, '[')
	for c, k := range grp.keys {
		v := li[c]
		if s, ok := v.(string); ok && digestMember(k) {
			if j, ok := e.digests[s]; ok {
				v = j
			}
		}
		if dst, err = core.AppendCanonical(dst, v); err != nil {
			return nil, err
		}
		dst = append(dst, ',')
	}
	key := identityKey(n.Identity)
	basis := nodeBasis(n.Kind)
	var keys []string
	dst = append(dst, '[')
	for j := range n.Observations {
		o := &n.Observations[j]
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = e.appendEvidence(append(dst, `{"evidence":`...), o.Evidence, basis)
		switch {
		case o.Label == nil && key == nil, o.Label != nil && key != nil && *o.Label == *key:
		case o.Label == nil:
			dst = append(dst, `,"label":null`...)
		default:
			dst = core.AppendCanonicalString(append(dst, `,"label":`...), *o.Label)
		}
		if o.lean {
			dst = append(dst, o.props...)
		} else if dst, keys, err = appendLeanProps(dst, n, o, keys); err != nil {
			return nil, err
		}
		dst = append(dst, '}')
	}
	return append(dst, "]]"...), nil
}

// appendLeanProps appends the members of observation o's row that its
// properties give: those its node's identity and o's locations do not
// (derivedProps), and the derived ones it lacks (unset). keys is scratch.
// It reads n's kind and identity and o alone, so the text can be made as
// soon as o is prepared (compactObservation).
func appendLeanProps(dst []byte, n *Node, o *Observation, keys []string) ([]byte, []string, error) {
	derived := derivedProps(n.Kind, n.Identity, o.Evidence.Locations)
	keys = keys[:0]
	for k, v := range o.Properties {
		if dv, ok := derived[k]; !ok || !sameScalar(v, dv) {
			keys = append(keys, k)
		}
	}
	var err error
	if len(keys) > 0 {
		slices.SortFunc(keys, core.CompareKeys)
		dst = append(dst, `,"properties":{`...)
		for x, k := range keys {
			if x > 0 {
				dst = append(dst, ',')
			}
			dst = append(core.AppendCanonicalString(dst, k), ':')
			if dst, err = core.AppendCanonical(dst, o.Properties[k]); err != nil {
				return nil, keys, err
			}
		}
		dst = append(dst, '}')
	}
	unset := 0
	for _, k := range derivedKeys {
		if _, ok := derived[k]; ok {
			if _, has := o.Properties[k]; !has {
				if unset == 0 {
					dst = append(dst, `,"unset":[`...)
				} else {
					dst = append(dst, ',')
				}
				dst = core.AppendCanonicalString(dst, k)
				unset++
			}
		}
	}
	if unset > 0 {
		dst = append(dst, ']')
	}
	return dst, keys, nil
}

// appendEvidence writes evidence(ev, basis) (a leanEvidence; see
// reference_internal_test.go).
func (e *leanEncoder) appendEvidence(dst []byte, ev GraphEvidence, basis string) []byte {
	dst = append(dst, '{')
	if ev.Basis != basis {
		dst = append(core.AppendCanonicalString(append(dst, `"basis":`...), ev.Basis), ',')
	}
	if ev.Confidence != core.ConfidenceObserved {
		dst = append(core.AppendCanonicalString(append(dst, `"confidence":`...), ev.Confidence), ',')
	}
	return append(e.appendLocations(append(dst, `"locations":`...), ev), '}')
}

// appendLocations writes locations(ev).
func (e *leanEncoder) appendLocations(dst []byte, ev GraphEvidence) []byte {
	dst = append(dst, '[')
	for i, l := range ev.Locations {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendInt(append(dst, '['), int64(e.paths[l.Path]))
		if l.Offset != nil {
			dst = appendInt(append(dst, ','), *l.Offset)
			if l.Line > 0 {
				dst = appendInt(append(dst, ','), l.Line)
				dst = appendInt(append(dst, ','), l.Column)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, ']')
}

// appendInt writes an int64 as RFC 8785 does.
func appendInt(dst []byte, v int64) []byte {
	if v > -1<<53 && v < 1<<53 {
		return strconv.AppendInt(dst, v, 10) // what RFC 8785 writes for an integer a double holds exactly
	}
	out, _ := core.AppendCanonical(dst, v) // an int64 always encodes
	return out
}

// appendEdge appends the canonical form of edge(ed) (the reference in
// reference_internal_test.go) without building it.
func (e *leanEncoder) appendEdge(dst []byte, ed *Edge) ([]byte, error) {
	dst = append(dst, '[')
	dst = append(e.appendRef(dst, ed.SourceNodeID), ',')
	dst = append(e.appendRef(dst, ed.TargetNodeID), ',')
	dst = core.AppendCanonicalString(dst, ed.Relation)
	dst = e.appendLocations(append(dst, ','), ed.Evidence)
	cells := 4
	switch {
	case ed.Evidence.Confidence != core.ConfidenceObserved:
		cells = 7
	case ed.Evidence.Basis != edgeBasis(ed.Relation):
		cells = 6
	case len(ed.Properties) > 0, ed.props != "" && ed.props != "{}":
		cells = 5
	}
	if cells >= 5 && ed.props != "" {
		dst = append(append(dst, ','), ed.props...)
	} else if cells >= 5 {
		props := ed.Properties
		if props == nil {
			props = map[string]any{}
		}
		var err error
		if dst, err = core.AppendCanonical(append(dst, ','), props); err != nil {
			return nil, err
		}
	}
	if cells >= 6 {
		dst = core.AppendCanonicalString(append(dst, ','), ed.Evidence.Basis)
	}
	if cells >= 7 {
		dst = core.AppendCanonicalString(append(dst, ','), ed.Evidence.Confidence)
	}
	return append(dst, ']'), nil
}

// refs rewrites the node_id member of each record as node (a reference),
// and leaves out null members.
func (e *leanEncoder) refs(in []map[string]any) []map[string]any {
	out := make([]map[string]any, len(in))
	for i, r := range in {
		m := make(map[string]any, len(r))
		for k, v := range r {
			switch {
			case k == "node_id":
				id, _ := v.(string)
				m["node"] = e.ref(id)
			case isNull(v):
			default:
				m[k] = v
			}
		}
		out[i] = m
	}
	return out
}

// stringIndex writes each string index entry {value, node_id, offset} as
// the row [value, node] or [value, node, offset], encoded once.
func (e *leanEncoder) stringIndex(in []indexedString) core.Canonical {
	c, err := lazyRows(len(in), func(i int) any {
		r := in[i]
		row := []any{r.value, e.ref(r.node)}
		if r.offset >= 0 {
			row = append(row, r.offset)
		}
		return row
	})
	if err != nil {
		panic(fmt.Sprintf("jsapp string index: %v", err)) // rea's own values always encode
	}
	return c
}

// Semantic relation rows. An exports relation is
// [source, "exports", name, value_kind, params, kind, offset, line, column,
// original, original_line, original_column, rest, specifier, local]
// (defaults: params null, kind "named", original_column 0, rest false,
// specifier "", local "" (a re-export's name in its source module is
// name), the rest null); any other relation is
// [source, relation, specifier, target, offset, line, column, names,
// external, original, original_line, original_column]
// (defaults: specifier "", names [], external left out (it is true when
// present), original_column 0, the rest null). The position cells come
// before the ones that seldom leave their defaults (an export's rest and
// re-export specifier; an import's names and external), so a mapped
// relation does not write those to reach its original cells. original is
// the source-module node (a reference) of the original_node_id member;
// when null the original_* members are left out of the relation.
// Trailing defaults are left out. A record of another shape is written
// as an object, source and target as node references.
var (
	exportCells = []any{nil, nil, nil, nil, nil, "named", nil, nil, nil, nil, nil, int64(0), false, "", ""}
	otherCells  = []any{nil, nil, "", nil, nil, nil, nil, []any{}, nil, nil, nil, int64(0)}
)

// originalCells is a relation's original_* members as cells (original,
// original_line, original_column; nil, nil, 0 without them), and how many
// members they are (0 or 3); ok is false for members of another shape.
func (e *leanEncoder) originalCells(r map[string]any) (cells [3]any, members int, ok bool) {
	cells[2] = int64(0)
	src, has := r["original_node_id"]
	if !has {
		return cells, 0, true
	}
	s, ok1 := src.(string)
	l, ok2 := intCell(r["original_line"])
	c, ok3 := intCell(r["original_column"])
	if !ok1 || !ok2 || !ok3 || l == nil || c == nil {
		return cells, 0, false
	}
	if n, ok := c.(int); ok {
		c = int64(n) // the default's type, for trimRow
	}
	return [3]any{e.ref(s), l, c}, 3, true
}

func (e *leanEncoder) relation(r map[string]any) any {
	src, _ := r["source_node_id"].(string)
	if _, ok := r["source_node_id"].(string); ok {
		if row := e.relationRow(src, r); row != nil {
			return row
		}
	}
	return e.relationObject(r)
}

func (e *leanEncoder) relationRow(src string, r map[string]any) []any {
	str := func(k string) (string, bool) { s, ok := r[k].(string); return s, ok }
	rel, _ := str("relation")
	spec, ok := str("specifier")
	off, okOff := offsetCell(r["offset"])
	if rel == "" || !ok || !okOff || !isNull(r["target_node_id"]) && rel == "exports" {
		return nil
	}
	line, okLine := intCell(r["line"])
	col, okCol := intCell(r["column"])
	_, hasLine := r["line"]
	_, hasCol := r["column"]
	orig, origN, okOrig := e.originalCells(r)
	if !okLine || !okCol || !hasLine || !hasCol || (line == nil) != (col == nil) || !okOrig {
		return nil
	}
	var row []any
	if rel == "exports" {
		name, ok1 := str("name")
		kind, ok2 := str("kind")
		shape, ok3 := r["value"].(map[string]any)
		if !ok1 || !ok2 || !ok3 || len(r) != 11+origN || len(shape) != 3 {
			return nil
		}
		local := ""
		switch l := r["local"].(type) {
		case nil:
			if spec != "" {
				return nil
			}
		case string:
			if spec == "" {
				return nil
			}
			if l != name {
				local = l
			}
		default:
			return nil
		}
		vk, ok4 := shape["kind"].(string)
		rest, ok5 := shape["rest"].(bool)
		params, ok6 := intCell(shape["params"])
		if !ok4 || !ok5 || !ok6 {
			return nil
		}
		row = []any{e.ref(src), rel, name, vk, params, kind, off, line, col, orig[0], orig[1], orig[2], rest, spec, local}
		return trimRow(row, exportCells)
	}
	names, ok1 := r["names"].([]any)
	for _, n := range names {
		if _, ok := n.(string); !ok {
			return nil
		}
	}
	var target any
	if id, ok := r["target_node_id"].(string); ok {
		target = e.ref(id)
	} else if !isNull(r["target_node_id"]) {
		return nil
	}
	_, hasTarget := r["target_node_id"]
	want := 8 + origN
	var external any
	if x, ok := r["external"]; ok {
		if x != true {
			return nil
		}
		external, want = true, want+1
	}
	if !ok1 || !hasTarget || len(r) != want {
		return nil
	}
	row = []any{e.ref(src), rel, spec, target, off, line, col, names, external, orig[0], orig[1], orig[2]}
	return trimRow(row, otherCells)
}

// trimRow leaves out the trailing cells that hold their defaults.
func trimRow(row, defaults []any) []any {
	n := len(row)
	for n > 2 {
		c, d := row[n-1], defaults[n-1]
		if l, ok := c.([]any); ok && d != nil {
			if len(l) != 0 {
				break
			}
		} else if c != d {
			break
		}
		n--
	}
	return row[:n]
}

// offsetCell is a relation offset as a cell: nil or a number.
func offsetCell(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case *int64:
		if x == nil {
			return nil, true
		}
		return *x, true
	case int64, int:
		return x, true
	}
	return nil, false
}

func intCell(v any) (any, bool) {
	switch v.(type) {
	case nil, int, int64:
		return v, true
	}
	return nil, false
}

// relationObject is a semantic relation of no row shape in its object
// form: node references, and no null target or offset.
func (e *leanEncoder) relationObject(r map[string]any) map[string]any {
	m := make(map[string]any, len(r))
	for k, v := range r {
		switch k {
		case "source_node_id":
			id, _ := v.(string)
			m["source"] = e.ref(id)
		case "target_node_id":
			if id, ok := v.(string); ok {
				m["target"] = e.ref(id)
			} else if !isNull(v) {
				m["target"] = v
			}
		default:
			m[k] = v
		}
	}
	if _, ok := r["target_node_id"]; !ok {
		m["target_absent"] = true
	}
	return m
}

func isNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case *int64:
		return x == nil
	case *string:
		return x == nil
	}
	return false
}

// --- decoding ---

// The graph is decoded in one pass into generic values (rows of cells),
// then expanded.
type leanGraphWire struct {
	Schema         string          `json:"schema"`
	SchemaVersion  int             `json:"schema_version"`
	GraphID        string          `json:"graph_id"`
	ArtifactSHA256 string          `json:"artifact_sha256"`
	Paths          []string        `json:"paths"`
	Digests        []string        `json:"digests"`
	RootNodeIDs    []string        `json:"root_node_ids"`
	Nodes          []leanGroupWire `json:"nodes"`
	Edges          [][]any         `json:"edges"`
	Coverage       GraphCoverage   `json:"coverage"`
	Limitations    []string        `json:"limitations"`
}

type leanGroupWire struct {
	Kind     string   `json:"kind"`
	Identity []string `json:"identity"`
	Rows     [][]any  `json:"rows"`
}

// graphDecoder expands lean references against one graph.
type graphDecoder struct {
	ids   []string
	paths []string
}

func (d *graphDecoder) anyRef(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		i := int(x)
		if float64(i) != x || i < 0 || i >= len(d.ids) {
			return nil, fmt.Errorf("node reference %v is not a node index", x)
		}
		return d.ids[i], nil
	}
	return nil, fmt.Errorf("node reference %v is not a node index or ID", v)
}

// locations expands [[path_index], [path_index, offset], [path_index,
// offset, line, column], ...].
func (d *graphDecoder) locations(v any) ([]GraphLocation, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("locations %v are not a list", v)
	}
	out := make([]GraphLocation, len(l))
	for i, x := range l {
		loc, _ := x.([]any)
		var p, off float64
		ok := len(loc) >= 1 && len(loc) <= 4 && len(loc) != 3
		if ok {
			p, ok = loc[0].(float64)
			ok = ok && p >= 0 && p < float64(len(d.paths)) && p == float64(int(p))
		}
		if ok && len(loc) >= 2 {
			off, ok = loc[1].(float64)
			out[i].Offset = offsetPtr(int64(off))
		}
		if ok && len(loc) == 4 {
			var line, col float64
			line, ok = loc[2].(float64)
			col, ok2 := loc[3].(float64)
			ok = ok && ok2 && line >= 1 && col >= 0 && line < 1<<53 && col < 1<<53
			out[i].Line, out[i].Column = int64(line), int64(col)
		}
		if !ok {
			return nil, fmt.Errorf("location %v is not [path_index], [path_index, offset] or [path_index, offset, line, column]", x)
		}
		out[i].Path = d.paths[int(p)]
	}
	return out, nil
}

// evidence expands evidence whose basis and confidence may be left out.
func (d *graphDecoder) evidence(basis, confidence any, locs any, defBasis string) (GraphEvidence, error) {
	ev := GraphEvidence{Basis: defBasis, Confidence: core.ConfidenceObserved}
	for _, c := range []struct {
		v   any
		dst *string
	}{{basis, &ev.Basis}, {confidence, &ev.Confidence}} {
		switch x := c.v.(type) {
		case nil:
		case string:
			*c.dst = x
		default:
			return ev, fmt.Errorf("evidence basis or confidence %v is not a string", x)
		}
	}
	var err error
	ev.Locations, err = d.locations(locs)
	return ev, err
}

// DecodeGraph decodes the graph member of analyze_javascript_application's
// result (its normalized_result, or the graph object itself) into the v1
// graph, with every node, observation and edge ID.
func DecodeGraph(normalized []byte) (*Graph, error) {
	var probe struct {
		Graph json.RawMessage `json:"graph"`
	}
	if err := json.Unmarshal(normalized, &probe); err != nil {
		return nil, err
	}
	raw := probe.Graph
	if raw == nil || string(raw) == "null" {
		raw = normalized
	}
	g, _, err := decodeGraph(raw)
	return g, err
}

func decodeGraph(raw []byte) (*Graph, *graphDecoder, error) {
	var w leanGraphWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, nil, err
	}
	if w.Schema != "JavaScriptApplicationGraph" || w.SchemaVersion != graphSchemaVersion || w.GraphID == "" {
		return nil, nil, fmt.Errorf("not a JavaScriptApplicationGraph v%d (schema %q, version %d)", graphSchemaVersion, w.Schema, w.SchemaVersion)
	}
	d := &graphDecoder{paths: w.Paths}
	g := &Graph{Schema: w.Schema, SchemaVersion: w.SchemaVersion, GraphID: w.GraphID, RootNodeIDs: w.RootNodeIDs,
		Edges: make([]*Edge, len(w.Edges)), Coverage: w.Coverage, Limitations: w.Limitations}
	for gi, grp := range w.Nodes {
		for ri, row := range grp.Rows {
			n, err := d.node(&w, grp, row)
			if err != nil {
				return nil, nil, fmt.Errorf("node group %d row %d: %w", gi, ri, err)
			}
			g.Nodes = append(g.Nodes, n)
			d.ids = append(d.ids, n.NodeID)
		}
	}
	for i, row := range w.Edges {
		e, err := d.edge(row)
		if err != nil {
			return nil, nil, fmt.Errorf("edge %d: %w", i, err)
		}
		g.Edges[i] = e
	}
	// The v1 order: nodes by node_id, edges by edge_id (readers walk them
	// in this order).
	slices.SortFunc(g.Nodes, func(a, b *Node) int { return cmpUTF16(a.NodeID, b.NodeID) })
	slices.SortFunc(g.Edges, func(a, b *Edge) int { return cmpUTF16(a.EdgeID, b.EdgeID) })
	if g.Nodes == nil {
		g.Nodes = []*Node{}
	}
	if g.RootNodeIDs == nil {
		g.RootNodeIDs = []string{}
	}
	if g.Limitations == nil {
		g.Limitations = []string{}
	}
	return g, d, nil
}

func (d *graphDecoder) node(w *leanGraphWire, grp leanGroupWire, row []any) (*Node, error) {
	if len(row) != len(grp.Identity)+1 {
		return nil, fmt.Errorf("%d cells for %d identity members and the observations", len(row), len(grp.Identity))
	}
	ident := make(map[string]any, len(grp.Identity)+3)
	for i, k := range grp.Identity {
		v := row[i]
		if f, ok := v.(float64); ok && digestMember(k) {
			j := int(f)
			if float64(j) != f || j < 0 || j >= len(w.Digests) {
				return nil, fmt.Errorf("identity %s: %v is not an index in graph.digests", k, f)
			}
			v = w.Digests[j]
		}
		ident[k] = v
	}
	if _, ok := ident["strategy"]; !ok {
		s, t := strategyFor(ident)
		ident["strategy"], ident["stability"] = s, t
	}
	if a, ok := ident["artifact_sha256"]; !ok && (ident["strategy"] == idCanonicalPath || ident["strategy"] == idArtifactLocal) {
		ident["artifact_sha256"] = w.ArtifactSHA256
	} else if ok && a == nil {
		delete(ident, "artifact_sha256")
	}
	obs, ok := row[len(row)-1].([]any)
	if !ok {
		return nil, fmt.Errorf("observations %v are not a list", row[len(row)-1])
	}
	n := &Node{NodeID: nodeID(grp.Kind, ident), Kind: grp.Kind, Identity: ident, Observations: make([]Observation, len(obs))}
	key := identityKey(ident)
	for j, x := range obs {
		wo, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("observation %v is not an object", x)
		}
		evw, _ := wo["evidence"].(map[string]any)
		ev, err := d.evidence(evw["basis"], evw["confidence"], evw["locations"], nodeBasis(grp.Kind))
		if err != nil {
			return nil, err
		}
		o := Observation{Label: key, Evidence: ev, IdentifierStrategy: observationStrategy}
		if l, ok := wo["label"]; ok {
			s, isString := l.(string)
			switch {
			case l == nil:
				o.Label = nil
			case isString:
				o.Label = &s
			default:
				return nil, fmt.Errorf("label %v is not a string", l)
			}
		}
		if p, ok := wo["properties"]; ok {
			if o.Properties, ok = p.(map[string]any); !ok {
				return nil, fmt.Errorf("properties %v are not an object", p)
			}
		}
		if o.Properties == nil {
			o.Properties = map[string]any{}
		}
		unset, _ := wo["unset"].([]any)
		for k, v := range derivedProps(grp.Kind, ident, ev.Locations) {
			if _, ok := o.Properties[k]; !ok && !slices.Contains(unset, any(k)) {
				o.Properties[k] = v
			}
		}
		o.ObservationID = observationID(n.NodeID, o)
		n.Observations[j] = o
	}
	// The v1 order of observations.
	slices.SortFunc(n.Observations, func(a, b Observation) int { return cmpUTF16(a.ObservationID, b.ObservationID) })
	return n, nil
}

func (d *graphDecoder) edge(row []any) (*Edge, error) {
	if len(row) < 4 || len(row) > 7 {
		return nil, fmt.Errorf("%d cells, want 4 to 7", len(row))
	}
	src, err := d.anyRef(row[0])
	if err != nil {
		return nil, err
	}
	dst, err := d.anyRef(row[1])
	if err != nil {
		return nil, err
	}
	rel, ok := row[2].(string)
	if !ok {
		return nil, fmt.Errorf("relation %v is not a string", row[2])
	}
	cells := append(row[3:len(row):len(row)], nil, nil, nil)
	e := &Edge{SourceNodeID: src.(string), TargetNodeID: dst.(string), Relation: rel, IdentifierStrategy: edgeStrategy}
	if e.Evidence, err = d.evidence(cells[2], cells[3], cells[0], edgeBasis(rel)); err != nil {
		return nil, err
	}
	if e.Properties, ok = cells[1].(map[string]any); !ok && cells[1] != nil {
		return nil, fmt.Errorf("edge properties %v are not an object", cells[1])
	}
	if e.Properties == nil {
		e.Properties = map[string]any{}
	}
	e.EdgeID = edgeID(e)
	return e, nil
}

func observationID(nodeID string, o Observation) string {
	return "jag_observation_" + jagDigest(map[string]any{"node_id": nodeID, "label": o.Label, "properties": o.Properties,
		"evidence": o.Evidence, "identifier_strategy": o.IdentifierStrategy})
}

func edgeID(e *Edge) string {
	return "jag_edge_" + jagDigest(map[string]any{"source_node_id": e.SourceNodeID, "target_node_id": e.TargetNodeID, "relation": e.Relation,
		"properties": e.Properties, "evidence": e.Evidence, "identifier_strategy": e.IdentifierStrategy})
}

// expandRefs is refs reversed: node back to node_id, and the null members
// named back.
func (d *graphDecoder) expandRefs(in []map[string]any, nulls ...string) ([]map[string]any, error) {
	for _, r := range in {
		if v, ok := r["node"]; ok {
			id, err := d.anyRef(v)
			if err != nil {
				return nil, err
			}
			delete(r, "node")
			r["node_id"] = id
		}
		for _, k := range nulls {
			if _, ok := r[k]; !ok {
				r[k] = nil
			}
		}
	}
	if in == nil {
		in = []map[string]any{}
	}
	return in, nil
}

// stringEntry is a string index row expanded.
func (d *graphDecoder) stringEntry(raw json.RawMessage) (appString, error) {
	var row []any
	var s appString
	if err := json.Unmarshal(raw, &row); err != nil {
		return s, err
	}
	if len(row) < 2 || len(row) > 3 {
		return s, fmt.Errorf("string index row of %d cells", len(row))
	}
	v, ok := row[0].(string)
	id, err := d.anyRef(row[1])
	if !ok || err != nil {
		return s, fmt.Errorf("string index row %s is not [value, node, offset?]", raw)
	}
	s.Value, s.NodeID = v, id.(string)
	if len(row) == 3 {
		off, ok := row[2].(float64)
		if !ok {
			return s, fmt.Errorf("string index row %s: offset is not a number", raw)
		}
		s.Offset = offsetPtr(int64(off))
	}
	return s, nil
}

// expandRelation is relation reversed: the semantic relation as the
// builder recorded it.
func (d *graphDecoder) expandRelation(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var r map[string]any
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, err
		}
		return r, d.expandRelationObject(r)
	}
	var row []any
	if err := json.Unmarshal(raw, &row); err != nil {
		return nil, err
	}
	if len(row) < 2 {
		return nil, fmt.Errorf("relation row %s is too short", raw)
	}
	rel, ok := row[1].(string)
	if !ok {
		return nil, fmt.Errorf("relation row %s names no relation", raw)
	}
	defaults := otherCells
	if rel == "exports" {
		defaults = exportCells
	}
	if len(row) > len(defaults) {
		return nil, fmt.Errorf("relation row %s has too many cells", raw)
	}
	for len(row) < len(defaults) {
		c := defaults[len(row)]
		switch x := c.(type) {
		case []any:
			c = []any{}
		case int64:
			c = float64(x) // as the row's own numbers decode
		}
		row = append(row, c)
	}
	src, err := d.anyRef(row[0])
	if err != nil {
		return nil, err
	}
	r := map[string]any{"source_node_id": src, "relation": rel}
	if rel == "exports" {
		r["name"], r["value"] = row[2], map[string]any{"kind": row[3], "params": row[4], "rest": row[12]}
		r["kind"], r["specifier"], r["offset"], r["target_node_id"] = row[5], row[13], row[6], nil
		r["line"], r["column"] = row[7], row[8]
		r["local"] = nil
		if row[13] != "" {
			r["local"] = row[2]
			if row[14] != "" {
				r["local"] = row[14]
			}
		}
		if row[9] != nil {
			if r["original_node_id"], err = d.anyRef(row[9]); err != nil {
				return nil, err
			}
			r["original_line"], r["original_column"] = row[10], row[11]
		}
		return r, nil
	}
	r["specifier"], r["offset"], r["names"] = row[2], row[4], row[7]
	r["line"], r["column"] = row[5], row[6]
	if row[9] != nil {
		if r["original_node_id"], err = d.anyRef(row[9]); err != nil {
			return nil, err
		}
		r["original_line"], r["original_column"] = row[10], row[11]
	}
	r["target_node_id"] = nil
	if row[3] != nil {
		if r["target_node_id"], err = d.anyRef(row[3]); err != nil {
			return nil, err
		}
	}
	if row[8] != nil {
		r["external"] = row[8]
	}
	return r, nil
}

// expandRelationObject is relationObject reversed.
func (d *graphDecoder) expandRelationObject(r map[string]any) error {
	if v, ok := r["source"]; ok {
		id, err := d.anyRef(v)
		if err != nil {
			return err
		}
		delete(r, "source")
		r["source_node_id"] = id
	}
	if r["target_absent"] == true {
		delete(r, "target_absent")
		return nil
	}
	r["target_node_id"] = nil
	if v, ok := r["target"]; ok {
		id, err := d.anyRef(v)
		if err != nil {
			return err
		}
		delete(r, "target")
		r["target_node_id"] = id
	}
	return nil
}
