package core

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A Viewer projects views of one parent operation's normalized_result
// (CONTRACTS.md §13). Viewers register per parent operation, so views over
// another producer (analyze_javascript_application) plug in with
// registerViewer and touch nothing here.
type Viewer func(parent *Evidence, req *ViewRequest) (*ViewBody, error)

// Defaults of paged views.
const (
	defaultViewLimit = 64
	maxViewRowLimit  = 10000
	maxViewUnitLimit = 100000
)

// ViewRequest is a decoded view.
type ViewRequest struct {
	Kind       string       // summary, facet, item, page, native
	Facet      string       // facet and native
	Collection string       // item and page
	Selector   ViewSelector // item
	Offset     int
	Limit      int
}

// A ViewPart is what a viewer selected, as a value of its family's own
// type (a summary, a facet, one item or a page of items). ViewSlot names
// the member of the view result that holds it.
type ViewPart interface {
	ViewSlot() ViewSlot
}

// ViewSlot is the member of a view result that holds the viewer's part.
type ViewSlot string

// The slots of a view result.
const (
	SlotSummary ViewSlot = "summary"
	SlotFacet   ViewSlot = "facet"
	SlotItem    ViewSlot = "item"
	SlotItems   ViewSlot = "items"
)

// ViewBody is what a viewer selected.
type ViewBody struct {
	Part ViewPart
	// ProcedureAddress is set by views of one procedure (analyze_function
	// Evidence): then the result carries procedure_address, null when the
	// parent recorded none. Other viewers leave it nil.
	ProcedureAddress **string
	// Path is the path the parent's own result records (jsapp's
	// input_path), the view's artifact.path; "" when it records none.
	Path        string
	Coverage    ViewCoverage
	Limitations []string
	Unknowns    []any
}

// ViewCoverage says how much of the parent the view covers.
type ViewCoverage struct {
	Status     string `json:"status"` // complete-within-view, page, empty
	Examined   int    `json:"examined"`
	Total      int    `json:"total"`
	NextOffset *int   `json:"next_offset"`
	Exhausted  bool   `json:"exhausted"`
}

// WholeCoverage is the coverage of a view that holds its whole selection.
func WholeCoverage() ViewCoverage {
	return ViewCoverage{Status: "complete-within-view", Examined: 1, Total: 1, Exhausted: true}
}

// PageOf selects [offset, offset+limit) of n rows.
func PageOf(n, offset, limit int) (start, end int, cov ViewCoverage) {
	start, end = min(offset, n), min(n, offset+limit)
	cov = ViewCoverage{Status: "page", Examined: end - start, Total: n, Exhausted: end >= n}
	if end < n {
		next := end
		cov.NextOffset = &next
	}
	if end == start {
		cov.Status = "empty"
	}
	return start, end, cov
}

// ViewInvalid is an invalid_request about the view argument at path.
func ViewInvalid(msg string, path ...any) *Error {
	return InvalidRequest("inspect_analysis_view", Issue{Path: append([]any{"view"}, path...), Reason: ReasonInvalidValue, Message: msg})
}

// ViewSpec is the view argument of inspect_analysis_view, echoed in its
// result as view with the effective offset and limit of page and native
// views.
type ViewSpec struct {
	Kind       string        `json:"kind"` // summary, facet, item, page, native
	Facet      string        `json:"facet,omitempty"`
	Collection string        `json:"collection,omitempty"`
	Selector   *ViewSelector `json:"selector,omitempty"`
	Offset     *int          `json:"offset,omitempty"`
	Limit      *int          `json:"limit,omitempty"`
}

// ViewSelector selects one item: a list position or exact name (layout
// sections and symbols), or a path or node_id (application modules).
type ViewSelector struct {
	Index  *int    `json:"index,omitempty"`
	Name   *string `json:"name,omitempty"`
	Path   *string `json:"path,omitempty"`
	NodeID *string `json:"node_id,omitempty"`
}

// parseViewRequest decodes view and writes the effective defaults back into
// it, so the view echo and the Evidence parameters record them.
func parseViewRequest(view *ViewSpec) (*ViewRequest, error) {
	r := &ViewRequest{Kind: view.Kind, Facet: view.Facet, Collection: view.Collection}
	if view.Selector != nil {
		r.Selector = *view.Selector
	}
	if r.Kind == "page" || r.Kind == "native" {
		if view.Offset == nil {
			view.Offset = new(0)
		}
		if view.Limit == nil {
			view.Limit = new(defaultViewLimit)
		}
		r.Offset, r.Limit = *view.Offset, *view.Limit
		if r.Offset < 0 || r.Limit < 1 {
			return nil, ViewInvalid("offset must be at least 0 and limit at least 1", "limit")
		}
	}
	return r, nil
}

// viewOfEvidence reports the parent a view Evidence names, or "".
func viewOfEvidence(e *Evidence) EvidenceID {
	var probe struct {
		Parent     string `json:"parent_evidence_id"`
		ViewDigest string `json:"view_digest"`
	}
	if json.Unmarshal(e.NormalizedResult, &probe) == nil && probe.ViewDigest != "" && probe.Parent != "" {
		return EvidenceID(probe.Parent)
	}
	return ""
}

// projectView builds the view result: the viewer's selection plus the
// fields every view carries, and view_digest over all of them.
func (c *Catalog) projectView(parent *Evidence, view ViewSpec) (*InspectAnalysisViewResult, error) {
	v, ok := c.viewers[parent.Operation]
	if !ok {
		ops := slices.Sorted(maps.Keys(c.viewers))
		return nil, &Error{Code: CodeUnsupportedTarget,
			Message:     fmt.Sprintf("inspect_analysis_view: %s Evidence has no views; views exist for %s", parent.Operation, strings.Join(ops, ", ")),
			Remediation: "Pass Evidence produced by " + strings.Join(ops, " or ") + ".",
			Details:     map[string]any{"operation": "inspect_analysis_view", "path": "", "reason": "unsupported_parent_operation", "parent_operation": parent.Operation}}
	}
	if parent.PredicateType != DefaultPredicate {
		return nil, &Error{Code: CodeEvidenceIntegrityMismatch, Message: "inspect_analysis_view: " + string(parent.EvidenceID) + " records a " + parent.PredicateType + ", not an analysis",
			Details: map[string]any{"evidence_id": string(parent.EvidenceID), "reason": "wrong_predicate", "expected": DefaultPredicate, "actual": parent.PredicateType}}
	}
	req, err := parseViewRequest(&view)
	if err != nil {
		return nil, err
	}
	body, err := v(parent, req)
	if err != nil {
		return nil, err
	}
	res := &InspectAnalysisViewResult{ViewFacts: ViewFacts{
		Kind:             req.Kind,
		View:             view,
		ProcedureAddress: body.ProcedureAddress,
		ParentEvidenceID: string(parent.EvidenceID),
		ParentOperation:  parent.Operation,
		ParentDigest:     strings.TrimPrefix(string(parent.EvidenceID), "ev_"),
		Artifact:         ViewArtifact{Path: body.Path},
		Coverage:         body.Coverage,
		Limitations:      NonNil(body.Limitations),
		Unknowns:         NonNil(body.Unknowns),
	}}
	if s := parent.Subject; s != nil {
		// The path stays on the record's subject (local_path, outside the
		// semantic projection): a view of the same bytes read at another
		// path must have the same ID. Only a path the parent's own result
		// records (body.Path), already in its ID, is shown.
		res.Artifact.SHA256 = &s.Digest.SHA256
	}
	if body.Part != nil {
		switch body.Part.ViewSlot() {
		case SlotSummary:
			res.Summary = body.Part
		case SlotFacet:
			res.Facet = body.Part
		case SlotItem:
			res.Item = body.Part
		case SlotItems:
			res.Items = body.Part
		default:
			return nil, fmt.Errorf("inspect_analysis_view: the %s viewer chose slot %q", parent.Operation, body.Part.ViewSlot())
		}
	}
	d, err := Digest(&res.ViewFacts)
	if err != nil {
		return nil, err
	}
	res.ViewDigest = d
	return res, nil
}

// ViewResultSchema is the result of inspect_analysis_view (and of
// inspect_binary_layout detail:"summary").
const ViewResultSchema = `{"type":"object","additionalProperties":false,
 "required":["kind","view","parent_evidence_id","parent_operation","parent_digest","view_digest","artifact","coverage","limitations","unknowns"],
 "properties":{"kind":{"enum":["summary","facet","item","page","native"]},"view":{"type":"object"},
  "summary":{"type":"object"},"facet":{},"item":{},"items":{"type":"array"},"procedure_address":{"type":["string","null"]},
  "parent_evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"parent_operation":{"type":"string"},"parent_digest":{"type":"string","pattern":"^[0-9a-f]{64}$"},
  "view_digest":{"type":"string","pattern":"^[0-9a-f]{64}$"},
  "artifact":{"type":"object","required":["path","sha256"],"properties":{"path":{"type":"string"},"sha256":{"type":["string","null"]}}},
  "coverage":{"type":"object","additionalProperties":false,"required":["status","examined","total","next_offset","exhausted"],
   "properties":{"status":{"enum":["complete-within-view","page","empty"]},"examined":{"type":"integer","minimum":0},"total":{"type":"integer","minimum":0},
    "next_offset":{"type":["integer","null"]},"exhausted":{"type":"boolean"}}},
  "limitations":{"type":"array","items":{"type":"string"}},"unknowns":{"type":"array"}}}`
