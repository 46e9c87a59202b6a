package jsapp

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"unicode/utf8"

	"rea/core"
)

// The JavaScript Application Graph v1 (CONTRACTS.md §16): nodes with
// content-derived IDs, observations, edges, coverage and limitations. Every
// ID is a Digest of the record it names, so the same app gives the same
// graph whatever its path.

// Graph bounds (§16).
const (
	jagMaxRoots        = 1000
	jagMaxNodes        = 100000
	jagMaxEdges        = 200000
	jagMaxObservations = 64
	jagMaxPropKeys     = 64
	jagMaxPropDepth    = 6
	jagMaxPropNodes    = 512
	jagMaxPropString   = 4096
	jagMaxLimits       = 32
)

// Identity strategies (§16).
const (
	idContentDigest  = "content-digest"
	idSourceMap      = "source-map-original"
	idCanonicalPath  = "canonical-path"
	idStructural     = "structural-fingerprint"
	idArtifactLocal  = "artifact-local-key"
	stabilityGlobal  = "global-exact"
	stabilitySMExact = "source-map-exact"
	stabilityVersion = "artifact-version"
	stabilityInfer   = "cross-version-inference"
)

type IDStrategy struct {
	Strategy  string `json:"strategy"`
	Stability string `json:"stability"`
}

// The strategies every observation and every edge the builder makes has:
// each points to one of these rather than holding its own copy (32 bytes
// of each of the tens of thousands of records the seal finds live). They
// are never written through.
var (
	observationStrategy = &IDStrategy{"semantic-content-sha256", "observation-exact"}
	edgeStrategy        = &IDStrategy{"semantic-content-sha256", "relationship-exact"}
)

// GraphEvidence says where an observation or edge was seen.
type GraphEvidence struct {
	Basis      string          `json:"basis"` // static-syntax, package-metadata, source-map, artifact-inventory, html-markup, derived
	Confidence string          `json:"confidence"`
	Locations  []GraphLocation `json:"locations"`
}

// GraphLocation is a place in a file: its byte offset and, for a
// JavaScript or HTML file, the offset's line (1-based) and column (0-based, UTF-16
// units), 0 as a line meaning unknown. Line and column follow from the
// offset and the file's bytes, so the IDs digest the path and offset alone
// (appendGraphEvidence).
type GraphLocation struct {
	Path   string `json:"path"`
	Offset *int64 `json:"offset"`
	Line   int64  `json:"line,omitempty"`
	Column int64  `json:"column,omitempty"`
}

type Observation struct {
	ObservationID      string         `json:"observation_id"`
	Label              *string        `json:"label"`
	Properties         map[string]any `json:"properties"`
	Evidence           GraphEvidence  `json:"evidence"`
	IdentifierStrategy *IDStrategy    `json:"identifier_strategy"`
	// props, when lean is set, is what the lean row writes of Properties
	// (appendLeanProps), which it stands for once the builder has let the
	// map go (compactObservation)
	props string
	lean  bool
}

type Node struct {
	NodeID       string         `json:"node_id"`
	Kind         string         `json:"kind"`
	Identity     map[string]any `json:"identity"`
	Observations []Observation  `json:"observations"`
}

type Edge struct {
	EdgeID             string         `json:"edge_id"`
	SourceNodeID       string         `json:"source_node_id"`
	TargetNodeID       string         `json:"target_node_id"`
	Relation           string         `json:"relation"`
	Properties         map[string]any `json:"properties"`
	Evidence           GraphEvidence  `json:"evidence"`
	IdentifierStrategy *IDStrategy    `json:"identifier_strategy"`
	// props is Properties as canonical text, which stands for them once
	// the builder has let the map go (propText.compact; "" otherwise)
	props string
}

type GraphLimit struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
	Unit  string `json:"unit"`
}

type GraphCoverage struct {
	Status       string       `json:"status"` // complete, partial, unknown, unavailable
	Truncated    bool         `json:"truncated"`
	OmittedCount *int         `json:"omitted_count"`
	Limits       []GraphLimit `json:"limits"`
}

type Graph struct {
	Schema        string        `json:"schema"`
	SchemaVersion int           `json:"schema_version"`
	GraphID       string        `json:"graph_id"`
	RootNodeIDs   []string      `json:"root_node_ids"`
	Nodes         []*Node       `json:"nodes"`
	Edges         []*Edge       `json:"edges"`
	Coverage      GraphCoverage `json:"coverage"`
	Limitations   []string      `json:"limitations"`
	// sealed is the canonical form written when the graph was sealed (the
	// same bytes encoding the struct gives), so the Evidence holding it
	// does not encode the graph a second time.
	sealed core.Canonical
}

// graphBuild accumulates nodes and edges.
type graphBuild struct {
	nodes     map[string]*Node
	obsSeen   map[string]bool
	edges     map[string]*Edge
	roots     map[string]bool
	omitted   int
	truncated bool
	// observations and edges wait here for their IDs (settle.go)
	pend pending
}

func newGraphBuild() *graphBuild {
	return &graphBuild{nodes: map[string]*Node{}, obsSeen: map[string]bool{}, edges: map[string]*Edge{}, roots: map[string]bool{}}
}

func identity(strategy, stability string, fields map[string]any) map[string]any {
	id := map[string]any{"strategy": strategy, "stability": stability}
	for k, v := range fields {
		id[k] = v
	}
	return id
}

func nodeID(kind string, ident map[string]any) string {
	return "jag_node_" + nodeDigest(kind, ident) // jagDigest of {kind, identity} (settle.go)
}

// node adds (or extends) a node and returns its ID, or "" when the graph is
// full.
func (g *graphBuild) node(kind string, ident map[string]any, label string, props map[string]any, ev GraphEvidence) string {
	id := nodeID(kind, ident)
	n, ok := g.nodes[id]
	if !ok {
		if len(g.nodes) >= jagMaxNodes {
			g.omitted++
			g.truncated = true
			return ""
		}
		n = &Node{NodeID: id, Kind: kind, Identity: ident}
		g.nodes[id] = n
	}
	g.observe(n, label, props, ev)
	return id
}

// observe adds an observation to n once its ID is known (settle.go): props
// and ev must not change after the call.
func (g *graphBuild) observe(n *Node, label string, props map[string]any, ev GraphEvidence) {
	g.pend.observation(n, label, props, ev)
}

// prepareObservation bounds an observation and computes its ID; it reads
// nothing else, so observations are prepared on every core.
func prepareObservation(n *Node, label string, props map[string]any, ev GraphEvidence) Observation {
	if props == nil {
		props = map[string]any{}
	}
	props = boundProps(props)
	if ev.Locations == nil {
		ev.Locations = []GraphLocation{}
	}
	if ev.Confidence == "" {
		ev.Confidence = core.ConfidenceObserved
	}
	o := Observation{Label: core.OptString(label), Properties: props, Evidence: ev,
		IdentifierStrategy: observationStrategy}
	o.ObservationID = "jag_observation_" + observationDigest(n.NodeID, &o) // jagDigest of the record (settle.go)
	return o
}

// addObservation adds a prepared observation, in the order observe was
// called.
func (g *graphBuild) addObservation(n *Node, o Observation) {
	if g.obsSeen[o.ObservationID] {
		return
	}
	if len(n.Observations) >= jagMaxObservations {
		g.omitted++
		g.truncated = true
		return
	}
	g.obsSeen[o.ObservationID] = true
	n.Observations = append(n.Observations, o)
}

// edge adds an edge once its ID is known (settle.go): props and ev must not
// change after the call.
func (g *graphBuild) edge(src, dst, relation string, props map[string]any, ev GraphEvidence) {
	if src == "" || dst == "" {
		return
	}
	g.pend.edge(&Edge{SourceNodeID: src, TargetNodeID: dst, Relation: relation, Properties: props, Evidence: ev})
}

// prepareEdge bounds an edge's properties and computes its ID; it reads
// nothing else, so edges are prepared on every core.
func prepareEdge(e *Edge) {
	src, dst, relation, props, ev := e.SourceNodeID, e.TargetNodeID, e.Relation, e.Properties, e.Evidence
	if props == nil {
		props = map[string]any{}
	}
	props = boundProps(props)
	if ev.Locations == nil {
		ev.Locations = []GraphLocation{}
	}
	if ev.Confidence == "" {
		ev.Confidence = core.ConfidenceObserved
	}
	*e = Edge{SourceNodeID: src, TargetNodeID: dst, Relation: relation, Properties: props, Evidence: ev,
		IdentifierStrategy: edgeStrategy}
	e.EdgeID = "jag_edge_" + edgeDigest(e) // jagDigest of the record (settle.go)
}

// addEdge adds a prepared edge, in the order edge was called.
func (g *graphBuild) addEdge(e *Edge) {
	if _, ok := g.edges[e.EdgeID]; ok {
		return
	}
	if len(g.edges) >= jagMaxEdges {
		g.omitted++
		g.truncated = true
		return
	}
	g.edges[e.EdgeID] = e
}

func (g *graphBuild) root(id string) {
	if id != "" && len(g.roots) < jagMaxRoots {
		g.roots[id] = true
	}
}

// seal sorts everything, fixes coverage and computes graph_id.
func (g *graphBuild) seal(limitations []string, limits []GraphLimit, root string) (*Graph, *leanEncoder) {
	return g.sealReleasing(limitations, limits, root, nil)
}

// sealReleasing is seal for a caller that reads no more of the graph than
// indexed does: it runs once every node has its index and its observations
// their order, before any row is written, and from then on each node's
// identity and observations go as soon as its row is written, and the edges
// once they are. The graph's structures take several times the bytes they
// encode as, and the seal is the analysis's peak. The graph returned keeps
// its nodes' IDs and kinds, and no edges. With indexed nil the graph is
// kept whole.
func (g *graphBuild) sealReleasing(limitations []string, limits []GraphLimit, root string, indexed func(*Graph, *leanEncoder)) (*Graph, *leanEncoder) {
	release := indexed != nil
	g.settle()
	if release {
		g.obsSeen = nil // only addObservation reads it, and settle has added them all
	}
	out := &Graph{Schema: "JavaScriptApplicationGraph", SchemaVersion: graphSchemaVersion}
	for id := range g.roots {
		out.RootNodeIDs = append(out.RootNodeIDs, id)
	}
	sort.Strings(out.RootNodeIDs)
	for _, n := range g.nodes {
		slices.SortFunc(n.Observations, func(a, b Observation) int { return cmpUTF16(a.ObservationID, b.ObservationID) })
		out.Nodes = append(out.Nodes, n)
	}
	slices.SortFunc(out.Nodes, func(a, b *Node) int { return cmpUTF16(a.NodeID, b.NodeID) })
	out.Edges = make([]*Edge, 0, len(g.edges))
	for _, e := range g.edges {
		out.Edges = append(out.Edges, e)
	}
	if !release {
		// The graph returned keeps its edges in edge_id order. The wire
		// form sorts them by source, target and edge_id below, a total
		// order, and the encoder's tables do not depend on their order, so
		// a releasing seal does not sort them twice.
		slices.SortFunc(out.Edges, func(a, b *Edge) int { return cmpUTF16(a.EdgeID, b.EdgeID) })
	}
	out.Limitations = uniqueUTF16(limitations)
	if len(limits) > jagMaxLimits {
		limits = limits[:jagMaxLimits]
	}
	slices.SortFunc(limits, func(a, b GraphLimit) int { return cmpUTF16(a.Name, b.Name) })
	if limits == nil {
		limits = []GraphLimit{}
	}
	zero := 0
	switch {
	case g.truncated:
		n := max(g.omitted, 1)
		out.Coverage = GraphCoverage{Status: "partial", Truncated: true, OmittedCount: &n, Limits: limits}
		if len(limits) == 0 {
			out.Coverage.Limits = []GraphLimit{{Name: "max_nodes", Value: jagMaxNodes, Unit: "nodes"}}
		}
	case len(limitations) > 0:
		out.Coverage = GraphCoverage{Status: "partial", OmittedCount: nil, Limits: limits}
	default:
		out.Coverage = GraphCoverage{Status: "complete", OmittedCount: &zero, Limits: limits}
	}
	// The lean wire form (lean.go); nodes and edges are most of its bytes:
	// encode them on every core (the same bytes as encoding the slices in
	// place).
	enc := newLeanEncoder(out, root)
	if release {
		indexed(out, enc)
	}
	groups := make([]*groupItem, len(enc.groups))
	for i, grp := range enc.groups {
		arr, err := core.CanonicalArrayFunc(len(grp.nodes), func(dst []byte, j int) ([]byte, error) { return enc.appendRow(dst, grp, j) })
		if err != nil {
			panic(fmt.Sprintf("jsapp graph: %v", err)) // rea's own values always encode
		}
		groups[i] = &groupItem{g: groupJSON{Kind: grp.kind, Identity: grp.keys, Rows: arr}}
		if release {
			for _, n := range grp.nodes {
				n.Identity, n.Observations = nil, nil
			}
			grp.nodes, grp.ident = nil, nil
		}
	}
	rest := 0
	for i := len(groups) - 1; i >= 0; i-- {
		rest += groups[i].g.Rows.Len()
		groups[i].rest = rest
	}
	nodes, err := canonicalArray(groups)
	if err != nil {
		panic(fmt.Sprintf("jsapp graph: %v", err))
	}
	// Edges in the order of their source, then target, then edge_id: a
	// node's edges are together.
	// Each edge's source index is looked up once, not twice per comparison.
	type edgeKey struct {
		src int
		e   *Edge
	}
	order := make([]edgeKey, len(out.Edges))
	for i, e := range out.Edges {
		order[i] = edgeKey{enc.index[e.SourceNodeID], e}
	}
	slices.SortFunc(order, func(a, b edgeKey) int {
		if c := cmp.Compare(a.src, b.src); c != 0 {
			return c
		}
		ea, eb := a.e, b.e
		if c := cmpUTF16(ea.SourceNodeID, eb.SourceNodeID); c != 0 {
			return c
		}
		if c := cmpUTF16(ea.TargetNodeID, eb.TargetNodeID); c != 0 {
			return c
		}
		return cmpUTF16(ea.EdgeID, eb.EdgeID)
	})
	edges, err := core.CanonicalArrayFunc(len(order), func(dst []byte, i int) ([]byte, error) { return enc.appendEdge(dst, order[i].e) })
	if err != nil {
		panic(fmt.Sprintf("jsapp graph: %v", err))
	}
	if release {
		out.Edges, g.edges = nil, nil
	}
	sealed, id, err := sealMembers(map[string]any{"schema": out.Schema, "schema_version": out.SchemaVersion, "artifact_sha256": root,
		"paths": enc.list, "digests": enc.dlist, "root_node_ids": out.RootNodeIDs, "nodes": nodes, "edges": edges, "coverage": out.Coverage, "limitations": out.Limitations},
		"graph_id", "jag_")
	if err != nil {
		panic(fmt.Sprintf("jsapp graph: %v", err)) // rea's own values always encode
	}
	out.GraphID, out.sealed = id, sealed
	return out, enc
}

// cmpUTF16 orders strings by UTF-16 code units (as JavaScript sorts).
func cmpUTF16(a, b string) int { return cmp.Compare(core.CompareKeys(a, b), 0) }

func uniqueUTF16(in []string) []string {
	out := slices.Clone(in)
	slices.SortFunc(out, cmpUTF16)
	out = slices.Compact(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// boundProps enforces the property limits: at most 64 keys per object,
// depth 6, 512 values, strings of 4096 bytes.
func boundProps(p map[string]any) map[string]any {
	if propsWithinBounds(p) {
		return p // what bounding would copy unchanged (settle.go)
	}
	budget := jagMaxPropNodes
	v, _ := boundValue(genericProps(p), 0, &budget).(map[string]any)
	if v == nil {
		v = map[string]any{}
	}
	return v
}

// genericProps is p with its typed values (export shapes) as the maps and
// lists they encode as, which boundValue cuts.
func genericProps(p map[string]any) map[string]any {
	v, _ := genericValue(p)
	m, _ := v.(map[string]any)
	return m
}

// genericValue copies only what holds a typed value; changed says it did.
func genericValue(v any) (any, bool) {
	switch x := v.(type) {
	case exportShapeList:
		return x.generic(), true
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if g, changed := genericValue(e); changed {
				if out == nil {
					out = maps.Clone(x)
				}
				out[k] = g
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range x {
			if g, changed := genericValue(e); changed {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = g
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

func boundValue(v any, depth int, budget *int) any {
	*budget--
	if *budget < 0 {
		return nil
	}
	switch x := v.(type) {
	case string:
		if len(x) > jagMaxPropString {
			return truncateUTF8(x, jagMaxPropString)
		}
		return v // as it came: returning x would box the string again
	case map[string]any:
		if depth >= jagMaxPropDepth {
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > jagMaxPropKeys {
			keys = keys[:jagMaxPropKeys]
		}
		out := make(map[string]any, len(keys))
		for _, k := range keys {
			out[k] = boundValue(x[k], depth+1, budget)
		}
		return out
	case []string:
		l := make([]any, len(x))
		for i, s := range x {
			l[i] = s
		}
		return boundValue(l, depth, budget)
	case []any:
		if depth >= jagMaxPropDepth {
			return nil
		}
		out := make([]any, 0, len(x))
		for _, e := range x {
			if *budget <= 0 {
				break
			}
			out = append(out, boundValue(e, depth+1, budget))
		}
		return out
	}
	return v
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func offsetPtr(o int64) *int64 {
	if o < 0 {
		return nil
	}
	return &o
}

func at(path string, off int64) GraphEvidence {
	return GraphEvidence{Basis: "static-syntax", Confidence: core.ConfidenceObserved, Locations: []GraphLocation{{Path: path, Offset: offsetPtr(off)}}}
}

func describeCount(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// jagDigest is Digest for the graph's own values (IDs of nodes,
// observations and edges). CanonicalJSON writes them directly
// (canonical_direct.go), so no conversion of its own is needed.
func jagDigest(v any) string { return core.MustDigest(v) }
