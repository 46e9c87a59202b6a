package core

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

func viewOperations() []*Operation { return []*Operation{opInspectAnalysisView()} }

var viewInputSchema = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": ["source", "view"],
 "properties": {
  "source": {"oneOf": [
    {"type": "object", "additionalProperties": false, "required": ["kind", "evidence_id"],
     "properties": {"kind": {"const": "retained-evidence"}, "evidence_id": {"type": "string", "pattern": "^ev_[0-9a-f]{64}$", "description": "An evidence_id retained by this connection."}}},
    {"type": "object", "additionalProperties": false, "required": ["kind", "evidence"],
     "properties": {"kind": {"const": "inline"}, "evidence": {"type": "object", "required": ["evidence_id", "normalized_result"], "description": "A complete Evidence record, verified again."}}}],
   "description": "The parent: a same-connection retained reference, or complete inline Evidence."},
  "view": {"oneOf": [
    {"type": "object", "additionalProperties": false, "required": ["kind"], "properties": {"kind": {"const": "summary"}}},
    {"type": "object", "additionalProperties": false, "required": ["kind", "facet"], "properties": {"kind": {"const": "facet"}, "facet": {"enum": ["mitigations", "linkage"]}}},
    {"type": "object", "additionalProperties": false, "required": ["kind", "collection", "selector"],
     "properties": {"kind": {"const": "item"}, "collection": {"enum": ["sections", "symbols", "modules"]},
      "selector": {"oneOf": [
        {"type": "object", "additionalProperties": false, "required": ["index"], "properties": {"index": {"type": "integer", "minimum": 0}}},
        {"type": "object", "additionalProperties": false, "required": ["name"], "properties": {"name": {"type": "string"}}},
        {"type": "object", "additionalProperties": false, "required": ["path"], "properties": {"path": {"type": "string", "description": "Module path in the application."}}},
        {"type": "object", "additionalProperties": false, "required": ["node_id"], "properties": {"node_id": {"type": "string", "pattern": "^jag_node_[0-9a-f]{64}$"}}}]}}},
    {"type": "object", "additionalProperties": false, "required": ["kind", "collection"],
     "properties": {"kind": {"const": "page"}, "collection": {"enum": ["sections", "segments", "symbols", "relocations", "packed_relative_relocations", "modules"]},
      "offset": {"type": "integer", "minimum": 0, "default": 0}, "limit": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 64}}},
    {"type": "object", "additionalProperties": false, "required": ["kind", "facet"],
     "properties": {"kind": {"const": "native"}, "facet": {"enum": ["procedure", "pseudocode", "native_api", "references", "assembly", "basic_blocks", "comments", "callers", "callees",
       "incoming_references", "outgoing_references", "unresolved_calls", "referenced_strings", "referenced_names",
       "value_flow_summary", "value_flow_operations", "value_flow_def_use", "value_flow_effects", "value_flow_parameters", "value_flow_parameter_uses"]},
      "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Rows, or UTF-16 code units for pseudocode."},
      "limit": {"type": "integer", "minimum": 1, "maximum": 100000, "default": 64, "description": "Rows, or UTF-16 code units for pseudocode."}}}],
   "description": "summary; a layout facet (mitigations, linkage); one section, symbol or module (by index, exact name, path or node_id); a stable page of a collection (offset 0, limit 64 by default); or an analyze_function facet (kind native)."}}}`

func opInspectAnalysisView() *Operation {
	return &Operation{
		Name:  "inspect_analysis_view",
		Title: "Inspect Analysis View",
		Description: "Project a view of completed inspect_binary_layout, analyze_function or analyze_javascript_application Evidence without starting a provider or repeating the analysis: a summary, a layout facet (mitigations, linkage), " +
			"one section, symbol or module, a stable page of sections, segments, symbols, relocations or modules, or an analyze_function facet (procedure, pseudocode paged in UTF-16 code units, assembly, basic blocks, comments, callers, callees, references, unresolved calls, referenced strings and names, native API, and the value-flow facets value_flow_summary, value_flow_operations, value_flow_def_use, value_flow_effects, value_flow_parameters and value_flow_parameter_uses). " +
			"The source is a retained reference from this connection (for example the evidence_reference of a resource_constraint error) or complete inline Evidence. Each view carries view_digest over its selected facts and names its parent.",
		Kind:     KindEnhanced,
		Effects:  Effects{MutatesSession: true, Idempotent: true},
		Input:    json.RawMessage(viewInputSchema),
		Result:   json.RawMessage(ViewResultSchema),
		Examples: viewExamples(),
		Remedy:   viewSourceRemedy,
		Handler:  handleInspectAnalysisView,
	}
}

// viewSourceRemedy says, when the source is missing or malformed, what to
// pass and which tools return a record that has views.
func viewSourceRemedy(c *Catalog, issues []Issue) string {
	if !slices.ContainsFunc(issues, func(is Issue) bool { return len(is.Path) > 0 && is.Path[0] == "source" }) {
		return ""
	}
	return `Pass source: {"kind":"retained-evidence","evidence_id":...} with the evidence_id that ` + strings.Join(slices.Sorted(maps.Keys(c.viewers)), " or ") +
		` returned on this connection, or {"kind":"inline","evidence":...} with such a complete record; correct anything else details.issues lists, and call again.`
}

func viewExamples() []json.RawMessage {
	ref := `{"kind":"retained-evidence","evidence_id":"ev_0000000000000000000000000000000000000000000000000000000000000000"}`
	return []json.RawMessage{
		json.RawMessage(`{"source":` + ref + `,"view":{"kind":"summary"}}`),
		json.RawMessage(`{"source":` + ref + `,"view":{"kind":"page","collection":"symbols","offset":0,"limit":64}}`),
		json.RawMessage(`{"source":` + ref + `,"view":{"kind":"item","collection":"sections","selector":{"name":".text"}}}`),
		json.RawMessage(`{"source":` + ref + `,"view":{"kind":"native","facet":"pseudocode","offset":0,"limit":4096}}`),
		json.RawMessage(`{"source":` + ref + `,"view":{"kind":"native","facet":"value_flow_def_use","offset":0,"limit":64}}`),
	}
}

// resolveViewSource returns the parent a source names. A view Evidence
// given as source stands for the parent it names, when that is retained.
func resolveViewSource(s *Session, src map[string]any) (*Evidence, error) {
	var parent *Evidence
	switch k, _ := src["kind"].(string); k {
	case "retained-evidence":
		id, _ := src["evidence_id"].(string)
		e, err := s.ledger.Resolve(EvidenceID(id))
		if err != nil {
			return nil, err
		}
		parent = e
	default:
		raw, err := MarshalNoEscape(src["evidence"])
		if err != nil {
			return nil, err
		}
		e, err := ParseEvidence(raw)
		if err != nil {
			ce := AsError("inspect_analysis_view", err)
			ce.Message = "inspect_analysis_view: source.evidence: " + strings.TrimPrefix(ce.Message, "evidence: ")
			return nil, ce
		}
		parent = e
	}
	if id := viewOfEvidence(parent); id != "" {
		if p, ok := s.ledger.Get(id); ok {
			return p, nil
		}
	}
	return parent, nil
}

func handleInspectAnalysisView(_ context.Context, c *Call) (any, error) {
	// Through canonical JSON, integral numbers the schema accepts as
	// integers (1e3, 2.0) decode as the integers they are.
	var view ViewSpec
	raw, err := CanonicalJSON(c.Args["view"])
	if err == nil {
		err = json.Unmarshal(raw, &view)
	}
	if err != nil {
		return nil, ViewInvalid("the view does not decode: " + err.Error())
	}
	src, _ := c.Args["source"].(map[string]any)
	parent, err := resolveViewSource(c.Session, src)
	if err != nil {
		return nil, err
	}
	res, err := c.ProjectView(parent, view)
	if err != nil {
		return nil, err
	}
	// The Evidence parameters record the effective offset and limit, as
	// the view echo does.
	c.Args["view"] = res.View
	prov := c.Session.reaProvider()
	obs := &Observation{Result: res, Links: []EvidenceID{parent.EvidenceID}, Confidence: ConfidenceDerived, Provider: &prov,
		Limitations: res.Limitations}
	if parent.Subject != nil {
		subj := *parent.Subject
		obs.Subject = &subj
	} else {
		obs.Unbound = true
	}
	return obs, nil
}
