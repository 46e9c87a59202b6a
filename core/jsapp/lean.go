package jsapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"rea/core"
)

// The lean wire form of the application graph (graph schema_version 2,
// docs/jsapp-graph.md). The graph rea builds is the v1 graph of
// CONTRACTS.md §16, with the same node, observation and edge IDs; only its
// encoding in the Evidence is lean, and every fact of v1 is kept:
//
//   - edges, semantic relations, fingerprints, frontiers and the string
//     index name nodes by their index in graph.nodes (a number), or by
//     node_id (a string) when the graph does not hold the node;
//   - edge_id and observation_id are not stored: they are the v1 digests
//     of the expanded record, and DecodeGraph computes them;
//   - observation and edge identifier_strategy (always
//     semantic-content-sha256 / observation-exact or relationship-exact)
//     are not stored;
//   - identity.strategy and identity.stability are left out when they
//     follow from the identity's fields, and identity.artifact_sha256 when
//     it is the graph's artifact_sha256 (a canonical-path or
//     artifact-local-key identity without one says so with null);
//   - an observation's label is left out when it is the node's key
//     (identity path, else key, else original_source; null when none);
//   - evidence.basis is left out when it is the default of the node kind
//     or edge relation, evidence.confidence when it is "observed";
//     a location is [path_index] or [path_index, offset] into graph.paths;
//   - empty properties are left out.
//
// Readers decode with DecodeGraph (and decodeApp for the whole result) and
// see the v1 graph.

const graphSchemaVersion = 2

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

type leanEvidence struct {
	Basis      string    `json:"basis,omitempty"`
	Confidence string    `json:"confidence,omitempty"`
	Locations  [][]int64 `json:"locations"`
}

type leanObservation struct {
	Label      any            `json:"label,omitempty"` // absent: the node's key; json null: null
	Properties map[string]any `json:"properties,omitempty"`
	Evidence   leanEvidence   `json:"evidence"`
}

type leanNode struct {
	NodeID       string            `json:"node_id"`
	Kind         string            `json:"kind"`
	Identity     map[string]any    `json:"identity"`
	Observations []leanObservation `json:"observations"`
}

type leanEdge struct {
	Source     any            `json:"source"` // node index, or node_id
	Target     any            `json:"target"`
	Relation   string         `json:"relation"`
	Properties map[string]any `json:"properties,omitempty"`
	Evidence   leanEvidence   `json:"evidence"`
}

// leanEncoder holds the tables a lean graph and its companions index into.
type leanEncoder struct {
	root  string
	index map[string]int // node_id -> index in graph.nodes
	paths map[string]int
	list  []string
}

func newLeanEncoder(g *Graph, root string) *leanEncoder {
	e := &leanEncoder{root: root, index: make(map[string]int, len(g.Nodes)), paths: map[string]int{}}
	for i, n := range g.Nodes {
		e.index[n.NodeID] = i
	}
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
	return e
}

// ref names a node: its index, or its ID when the graph does not hold it.
func (e *leanEncoder) ref(id string) any {
	if i, ok := e.index[id]; ok {
		return i
	}
	return id
}

func (e *leanEncoder) evidence(ev GraphEvidence, basis string) leanEvidence {
	out := leanEvidence{Locations: make([][]int64, len(ev.Locations))}
	if ev.Basis != basis {
		out.Basis = ev.Basis
	}
	if ev.Confidence != core.ConfidenceObserved {
		out.Confidence = ev.Confidence
	}
	for i, l := range ev.Locations {
		if l.Offset == nil {
			out.Locations[i] = []int64{int64(e.paths[l.Path])}
		} else {
			out.Locations[i] = []int64{int64(e.paths[l.Path]), *l.Offset}
		}
	}
	return out
}

func (e *leanEncoder) node(n *Node) leanNode {
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
	key := identityKey(n.Identity)
	out := leanNode{NodeID: n.NodeID, Kind: n.Kind, Identity: ident, Observations: make([]leanObservation, len(n.Observations))}
	for i, o := range n.Observations {
		lo := leanObservation{Evidence: e.evidence(o.Evidence, nodeBasis(n.Kind))}
		if len(o.Properties) > 0 {
			lo.Properties = o.Properties
		}
		switch {
		case o.Label == nil && key == nil, o.Label != nil && key != nil && *o.Label == *key:
		case o.Label == nil:
			lo.Label = json.RawMessage("null")
		default:
			lo.Label = *o.Label
		}
		out.Observations[i] = lo
	}
	return out
}

func (e *leanEncoder) edge(ed *Edge) leanEdge {
	out := leanEdge{Source: e.ref(ed.SourceNodeID), Target: e.ref(ed.TargetNodeID), Relation: ed.Relation,
		Evidence: e.evidence(ed.Evidence, edgeBasis(ed.Relation))}
	if len(ed.Properties) > 0 {
		out.Properties = ed.Properties
	}
	return out
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

// relation is a semantic relation in its lean form: node references, and
// no null target, null offset, empty specifier, empty names, null params
// or false rest.
func (e *leanEncoder) relation(r map[string]any) map[string]any {
	m := make(map[string]any, len(r))
	for k, v := range r {
		switch k {
		case "source_node_id":
			id, _ := v.(string)
			m["source"] = e.ref(id)
		case "target_node_id":
			if id, ok := v.(string); ok {
				m["target"] = e.ref(id)
			}
		case "names":
			if l, ok := v.([]any); !ok || len(l) > 0 {
				m[k] = v
			}
		case "specifier":
			if v != "" {
				m[k] = v
			}
		case "value":
			if shape, ok := v.(map[string]any); ok {
				s := map[string]any{}
				for sk, sv := range shape {
					if !isNull(sv) && sv != false {
						s[sk] = sv
					}
				}
				m[k] = s
			} else {
				m[k] = v
			}
		default:
			if !isNull(v) {
				m[k] = v
			}
		}
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

type leanGraphWire struct {
	Schema         string         `json:"schema"`
	SchemaVersion  int            `json:"schema_version"`
	GraphID        string         `json:"graph_id"`
	ArtifactSHA256 string         `json:"artifact_sha256"`
	Paths          []string       `json:"paths"`
	RootNodeIDs    []string       `json:"root_node_ids"`
	Nodes          []leanNodeWire `json:"nodes"`
	Edges          []leanEdgeWire `json:"edges"`
	Coverage       GraphCoverage  `json:"coverage"`
	Limitations    []string       `json:"limitations"`
}

type leanEvidenceWire struct {
	Basis      string    `json:"basis"`
	Confidence string    `json:"confidence"`
	Locations  [][]int64 `json:"locations"`
}

type leanNodeWire struct {
	NodeID       string         `json:"node_id"`
	Kind         string         `json:"kind"`
	Identity     map[string]any `json:"identity"`
	Observations []struct {
		Label      json.RawMessage  `json:"label"`
		Properties map[string]any   `json:"properties"`
		Evidence   leanEvidenceWire `json:"evidence"`
	} `json:"observations"`
}

type leanEdgeWire struct {
	Source     json.RawMessage  `json:"source"`
	Target     json.RawMessage  `json:"target"`
	Relation   string           `json:"relation"`
	Properties map[string]any   `json:"properties"`
	Evidence   leanEvidenceWire `json:"evidence"`
}

// graphDecoder expands lean references against one graph.
type graphDecoder struct {
	ids   []string
	paths []string
}

func (d *graphDecoder) nodeRef(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	i, err := strconv.Atoi(string(raw))
	if err != nil || i < 0 || i >= len(d.ids) {
		return "", fmt.Errorf("node reference %s is not a node index or ID", raw)
	}
	return d.ids[i], nil
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

func (d *graphDecoder) evidence(w leanEvidenceWire, basis string) (GraphEvidence, error) {
	ev := GraphEvidence{Basis: w.Basis, Confidence: w.Confidence, Locations: make([]GraphLocation, len(w.Locations))}
	if ev.Basis == "" {
		ev.Basis = basis
	}
	if ev.Confidence == "" {
		ev.Confidence = core.ConfidenceObserved
	}
	for i, l := range w.Locations {
		if len(l) < 1 || len(l) > 2 || l[0] < 0 || l[0] >= int64(len(d.paths)) {
			return ev, fmt.Errorf("location %v is not [path_index] or [path_index, offset]", l)
		}
		ev.Locations[i].Path = d.paths[l[0]]
		if len(l) == 2 {
			ev.Locations[i].Offset = offsetPtr(l[1])
		}
	}
	return ev, nil
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
	d := &graphDecoder{ids: make([]string, len(w.Nodes)), paths: w.Paths}
	for i, n := range w.Nodes {
		d.ids[i] = n.NodeID
	}
	g := &Graph{Schema: w.Schema, SchemaVersion: w.SchemaVersion, GraphID: w.GraphID, RootNodeIDs: w.RootNodeIDs,
		Nodes: make([]*Node, len(w.Nodes)), Edges: make([]*Edge, len(w.Edges)), Coverage: w.Coverage, Limitations: w.Limitations}
	for i, wn := range w.Nodes {
		ident := make(map[string]any, len(wn.Identity)+3)
		for k, v := range wn.Identity {
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
		n := &Node{NodeID: wn.NodeID, Kind: wn.Kind, Identity: ident, Observations: make([]Observation, len(wn.Observations))}
		key := identityKey(ident)
		for j, wo := range wn.Observations {
			ev, err := d.evidence(wo.Evidence, nodeBasis(wn.Kind))
			if err != nil {
				return nil, nil, fmt.Errorf("node %s: %w", wn.NodeID, err)
			}
			o := Observation{Label: key, Properties: wo.Properties, Evidence: ev,
				IdentifierStrategy: IDStrategy{"semantic-content-sha256", "observation-exact"}}
			if wo.Label != nil {
				o.Label = nil // key is shared: decode into a fresh string
				if err := json.Unmarshal(wo.Label, &o.Label); err != nil {
					return nil, nil, fmt.Errorf("node %s: label: %w", wn.NodeID, err)
				}
			}
			if o.Properties == nil {
				o.Properties = map[string]any{}
			}
			o.ObservationID = observationID(n.NodeID, o)
			n.Observations[j] = o
		}
		g.Nodes[i] = n
	}
	for i, we := range w.Edges {
		src, err := d.nodeRef(we.Source)
		if err != nil {
			return nil, nil, err
		}
		dst, err := d.nodeRef(we.Target)
		if err != nil {
			return nil, nil, err
		}
		ev, err := d.evidence(we.Evidence, edgeBasis(we.Relation))
		if err != nil {
			return nil, nil, fmt.Errorf("edge %d: %w", i, err)
		}
		e := &Edge{SourceNodeID: src, TargetNodeID: dst, Relation: we.Relation, Properties: we.Properties, Evidence: ev,
			IdentifierStrategy: IDStrategy{"semantic-content-sha256", "relationship-exact"}}
		if e.Properties == nil {
			e.Properties = map[string]any{}
		}
		e.EdgeID = edgeID(e)
		g.Edges[i] = e
	}
	// The v1 order: edges by edge_id (readers walk them in this order).
	slices.SortFunc(g.Edges, func(a, b *Edge) int { return cmpUTF16(a.EdgeID, b.EdgeID) })
	if g.RootNodeIDs == nil {
		g.RootNodeIDs = []string{}
	}
	if g.Limitations == nil {
		g.Limitations = []string{}
	}
	return g, d, nil
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

// expandRelation is relation reversed.
func (d *graphDecoder) expandRelation(r map[string]any) error {
	if v, ok := r["source"]; ok {
		id, err := d.anyRef(v)
		if err != nil {
			return err
		}
		delete(r, "source")
		r["source_node_id"] = id
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
	if _, ok := r["offset"]; !ok {
		r["offset"] = nil
	}
	if _, ok := r["specifier"]; !ok {
		r["specifier"] = ""
	}
	if r["relation"] == "exports" {
		if shape, ok := r["value"].(map[string]any); ok {
			if _, ok := shape["params"]; !ok {
				shape["params"] = nil
			}
			if _, ok := shape["rest"]; !ok {
				shape["rest"] = false
			}
		}
	} else if _, ok := r["names"]; !ok {
		r["names"] = []any{}
	}
	return nil
}
