package jsapp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"rea/core"
)

// Application Evidence inputs (CONTRACTS.md §4): complete inline Evidence
// or {"kind":"retained-evidence","evidence_id"} resolved in this
// connection's ledger. Both pass the same checks: a strict re-parse (the
// ID is recomputed), the producing operation and the predicate. A concise
// record (a summary view of analyze_javascript_application) is followed to
// its retained complete record (Call.CompleteEvidence).

// resolveEvidenceArg resolves c.Args[name] and, after the checks, records
// the argument as the retained reference so the Evidence parameters are the
// same for both input forms.
func jsappEvidenceArg(c *core.Call, name string, ops ...string) (*core.Evidence, error) {
	ev, err := c.EvidenceArg(name)
	if err != nil {
		return nil, err
	}
	if ev, err = checkEvidenceInput(c, ev, ops); err != nil {
		return nil, err
	}
	c.KeepReference(name, ev)
	return ev, nil
}

func checkEvidenceInput(c *core.Call, ev *core.Evidence, ops []string) (*core.Evidence, error) {
	if ev.PredicateType != core.DefaultPredicate {
		return nil, referenceErr(ev.EvidenceID, "wrong_predicate", core.DefaultPredicate, ev.PredicateType)
	}
	if !slices.Contains(ops, ev.Operation) {
		return nil, referenceErr(ev.EvidenceID, "wrong_operation", strings.Join(ops, "|"), ev.Operation)
	}
	return c.CompleteEvidence(ev) // an application summary: its complete record
}

func referenceErr(id core.EvidenceID, reason, expected, actual string) *core.Error {
	return &core.Error{Code: core.CodeEvidenceIntegrityMismatch,
		Message:     fmt.Sprintf("evidence %s: %s (expected %s, got %s)", id, strings.ReplaceAll(reason, "_", " "), expected, actual),
		Remediation: "Pass Evidence produced by the expected operation, inline or as a retained reference.",
		Details:     map[string]any{"evidence_id": string(id), "reason": reason, "expected": expected, "actual": actual}}
}

// appIndex is a decoded application result with graph lookups.
type appIndex struct {
	ev      *core.Evidence
	res     appResult
	nodes   map[string]*Node
	out, in map[string][]*Edge
}

type appResult struct {
	InputPath      string           `json:"input_path"`
	Format         string           `json:"format"`
	Root           string           `json:"root_artifact_sha256"`
	Graph          Graph            `json:"-"` // decodeApp expands these three
	Semantic       appSemantic      `json:"-"`
	StringIndex    []appString      `json:"-"`
	Contradictions []map[string]any `json:"integrity_contradictions"`
	Electron       map[string]any   `json:"electron"`
	Unknowns       []map[string]any `json:"unknowns"`
	Coverage       map[string]any   `json:"coverage"`
	Statistics     map[string]any   `json:"statistics"`
}

type appSemantic struct {
	GraphID      string           `json:"graph_id"`
	Relations    []map[string]any `json:"relations"`
	Fingerprints []map[string]any `json:"fingerprints"`
	Frontiers    []map[string]any `json:"unknown_frontiers"`
}

type appString struct {
	Value  string `json:"value"`
	NodeID string `json:"node_id"`
	Offset *int64 `json:"offset"`
}

func indexApp(ev *core.Evidence) (*appIndex, error) {
	ix := &appIndex{ev: ev, nodes: map[string]*Node{}, out: map[string][]*Edge{}, in: map[string][]*Edge{}}
	res, err := decodeApp(ev.NormalizedResult)
	if err != nil {
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: "application evidence does not hold an application graph: " + err.Error(),
			Details: map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "invalid_record"}}
	}
	ix.res = *res
	for _, n := range ix.res.Graph.Nodes {
		ix.nodes[n.NodeID] = n
	}
	for _, e := range ix.res.Graph.Edges {
		ix.out[e.SourceNodeID] = append(ix.out[e.SourceNodeID], e)
		ix.in[e.TargetNodeID] = append(ix.in[e.TargetNodeID], e)
	}
	return ix, nil
}

// decodeApp decodes an analyze_javascript_application result, expanding
// its lean graph, semantic graph and string index (lean.go).
func decodeApp(normalized []byte) (*appResult, error) {
	var w struct {
		appResult
		Version  int             `json:"schema_version"`
		Graph    json.RawMessage `json:"graph"`
		Semantic struct {
			GraphID      string            `json:"graph_id"`
			Relations    []json.RawMessage `json:"relations"`
			Fingerprints []map[string]any  `json:"fingerprints"`
			Frontiers    []map[string]any  `json:"unknown_frontiers"`
		} `json:"semantic_graph"`
		StringIndex []json.RawMessage `json:"string_index"`
	}
	if err := json.Unmarshal(normalized, &w); err != nil {
		return nil, err
	}
	if w.Version != resultSchemaVersion {
		return nil, fmt.Errorf("result schema_version %d, where this rea reads %d (its semantic relation rows changed): analyze the application again with this rea", w.Version, resultSchemaVersion)
	}
	if w.Graph == nil || string(w.Graph) == "null" {
		return nil, fmt.Errorf("no graph")
	}
	g, d, err := decodeGraph(w.Graph)
	if err != nil {
		return nil, err
	}
	res := w.appResult
	res.Graph = *g
	res.Semantic.GraphID = w.Semantic.GraphID
	res.Semantic.Relations = make([]map[string]any, len(w.Semantic.Relations))
	for i, raw := range w.Semantic.Relations {
		if res.Semantic.Relations[i], err = d.expandRelation(raw); err != nil {
			return nil, err
		}
	}
	if res.Semantic.Fingerprints, err = d.expandRefs(w.Semantic.Fingerprints); err != nil {
		return nil, err
	}
	if res.Semantic.Frontiers, err = d.expandRefs(w.Semantic.Frontiers, "offset"); err != nil {
		return nil, err
	}
	res.StringIndex = make([]appString, len(w.StringIndex))
	for i, raw := range w.StringIndex {
		if res.StringIndex[i], err = d.stringEntry(raw); err != nil {
			return nil, err
		}
	}
	return &res, nil
}

// prop returns the first observation's value for key, across observations.
// A path or original source the node's identity holds is the answer when
// no observation has it: an observation's properties are cut to their
// bounds in key order, so an asset with many exports keeps its
// export_shapes and loses its path there (the identity never does).
func (n *Node) prop(key string) any {
	for _, o := range n.Observations {
		if v, ok := o.Properties[key]; ok && v != nil {
			return v
		}
	}
	if v, ok := n.Identity[key].(string); ok && (key == "path" || key == "original_source") {
		return v
	}
	return nil
}

func (n *Node) propString(key string) string {
	s, _ := n.prop(key).(string)
	return s
}

func (n *Node) label() string {
	for _, o := range n.Observations {
		if o.Label != nil {
			return *o.Label
		}
	}
	return ""
}

func (n *Node) key() string {
	if k, ok := n.Identity["key"].(string); ok {
		return k
	}
	if p, ok := n.Identity["path"].(string); ok {
		return p
	}
	if s, ok := n.Identity["original_source"].(string); ok {
		return s
	}
	return n.label()
}
