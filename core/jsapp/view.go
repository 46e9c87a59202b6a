package jsapp

import (
	"encoding/json"
	"fmt"
	"sort"

	"rea/core"
)

// Views of analyze_javascript_application Evidence for
// inspect_analysis_view (CONTRACTS.md §13): the summary, one module item
// (selector path or node_id) and stable pages of modules. Modules are
// JavaScript assets, bundled modules and source-map originals.

type jsappDoc struct {
	InputPath      string          `json:"input_path"`
	Format         string          `json:"format"`
	Root           string          `json:"root_artifact_sha256"`
	Statistics     map[string]any  `json:"statistics"`
	Summary        map[string]any  `json:"summary"`
	Electron       map[string]any  `json:"electron"`
	Coverage       map[string]any  `json:"coverage"`
	Limitations    []string        `json:"limitations"`
	Unknowns       []any           `json:"unknowns"`
	Semantic       map[string]any  `json:"semantic_graph"`
	Contradictions []any           `json:"integrity_contradictions"`
	Graph          json.RawMessage `json:"graph"`
}

const jsappViewUnknowns = 50

// AppViewSummary is the summary view of analyze_javascript_application
// Evidence.
type AppViewSummary struct {
	InputPath                   string         `json:"input_path"`
	Format                      string         `json:"format"`
	RootArtifactSHA256          string         `json:"root_artifact_sha256"`
	Statistics                  map[string]any `json:"statistics"`
	Summary                     map[string]any `json:"summary"` // processes, windows, IPC, endpoints, storage, workers, add-ons
	Electron                    map[string]any `json:"electron"`
	Coverage                    map[string]any `json:"coverage"`
	SemanticCoverage            any            `json:"semantic_coverage"`
	LimitationCount             int            `json:"limitation_count"`
	UnknownCount                int            `json:"unknown_count"`
	IntegrityContradictionCount int            `json:"integrity_contradiction_count"`
}

// ModuleItem is one module node of the application graph.
type ModuleItem struct{ *Node }

// ModulePage is a stable page of module nodes.
type ModulePage []*Node

func (AppViewSummary) ViewSlot() core.ViewSlot { return core.SlotSummary }
func (ModuleItem) ViewSlot() core.ViewSlot     { return core.SlotItem }
func (ModulePage) ViewSlot() core.ViewSlot     { return core.SlotItems }

func jsappView(parent *core.Evidence, req *core.ViewRequest) (*core.ViewBody, error) {
	var d jsappDoc
	if err := json.Unmarshal(parent.NormalizedResult, &d); err != nil || d.Graph == nil || string(d.Graph) == "null" {
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: "inspect_analysis_view: the parent is not a complete analyze_javascript_application result",
			Details: map[string]any{"evidence_id": string(parent.EvidenceID), "reason": "wrong_operation", "expected": "complete analyze_javascript_application result", "actual": "other"}}
	}
	body := &core.ViewBody{Path: d.InputPath, Limitations: append([]string{}, d.Limitations...)}
	switch req.Kind {
	case "summary":
		var semCov any
		if d.Semantic != nil {
			semCov = d.Semantic["coverage"]
		}
		body.Part = AppViewSummary{InputPath: d.InputPath, Format: d.Format, RootArtifactSHA256: d.Root,
			Statistics: d.Statistics, Summary: d.Summary, Electron: d.Electron, Coverage: d.Coverage, SemanticCoverage: semCov,
			LimitationCount: len(parent.Limitations) + len(d.Limitations), UnknownCount: len(d.Unknowns),
			IntegrityContradictionCount: len(d.Contradictions)}
		body.Coverage = core.WholeCoverage()
		body.Unknowns = d.Unknowns
		if len(body.Unknowns) > jsappViewUnknowns {
			body.Unknowns = body.Unknowns[:jsappViewUnknowns]
			body.Limitations = append(body.Limitations, fmt.Sprintf("The summary lists the first %d of %d unknowns; the parent holds all of them.", jsappViewUnknowns, len(d.Unknowns)))
		}
		return body, nil
	case "item", "page":
		if req.Collection != "modules" {
			return nil, core.ViewInvalid("analyze_javascript_application Evidence has one collection, modules", "collection")
		}
	default:
		return nil, core.ViewInvalid("analyze_javascript_application Evidence has summary, item and page views", "kind")
	}
	g, _, err := decodeGraph(d.Graph)
	if err != nil {
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: "inspect_analysis_view: the parent's application graph does not decode: " + err.Error(),
			Details: map[string]any{"evidence_id": string(parent.EvidenceID), "reason": "invalid_record"}}
	}
	mods := jsappModules(g)
	if req.Kind == "page" {
		start, end, cov := core.PageOf(len(mods), req.Offset, req.Limit)
		body.Part, body.Coverage = append(ModulePage{}, mods[start:end]...), cov
		return body, nil
	}
	var found []*Node
	if id := req.Selector.NodeID; id != nil {
		for _, n := range mods {
			if n.NodeID == *id {
				found = append(found, n)
			}
		}
	} else if p := req.Selector.Path; p != nil {
		for _, n := range mods {
			if moduleRef(n) == *p {
				found = append(found, n)
			}
		}
	} else {
		return nil, core.ViewInvalid("module items are selected by path or node_id", "selector")
	}
	switch len(found) {
	case 0:
		return nil, core.ViewInvalid("no module matches the selector", "selector")
	case 1:
	default:
		ids := make([]string, len(found))
		for i, n := range found {
			ids[i] = n.NodeID
		}
		return nil, core.ViewInvalid(fmt.Sprintf("%d modules match the path; select one by node_id: %v", len(found), ids), "selector")
	}
	body.Part, body.Coverage = ModuleItem{found[0]}, core.WholeCoverage()
	return body, nil
}

// jsappModules lists assets, bundled modules and source modules in a stable
// order: by kind, then by path, then by node_id.
func jsappModules(g *Graph) []*Node {
	rank := map[string]int{"javascript-asset": 0, "javascript-module": 1, "source-module": 2}
	var out []*Node
	for _, n := range g.Nodes {
		if _, ok := rank[n.Kind]; ok {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] < rank[b.Kind]
		}
		if ra, rb := moduleRef(a), moduleRef(b); ra != rb {
			return ra < rb
		}
		return a.NodeID < b.NodeID
	})
	return out
}

// moduleRef is the path a module is selected by: the observed path, the
// bundled module id, or the original source-map reference.
func moduleRef(n *Node) string {
	switch n.Kind {
	case "javascript-asset":
		return n.propString("path")
	case "javascript-module":
		return n.propString("module_id")
	}
	return n.propString("original_source")
}
