package binary

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf16"

	"rea/core"
)

// nativeCollections are analyze_function's paged collections.
var nativeCollections = []string{"assembly", "basic_blocks", "comments", "callers", "callees", "incoming_references",
	"outgoing_references", "unresolved_calls", "referenced_strings", "referenced_names"}

// valueFlowFacets are the facets over native_value_flow: its summary and
// its paged collections (value_flow_<collection>).
var valueFlowFacets = []string{"value_flow_summary", "value_flow_operations", "value_flow_def_use", "value_flow_effects",
	"value_flow_parameters", "value_flow_parameter_uses"}

// nativeFacets are the facets of kind "native".
var nativeFacets = append(append([]string{"procedure", "pseudocode", "native_api", "references"}, nativeCollections...), valueFlowFacets...)

// recordedCollection is one collection as analyze_function recorded it.
type recordedCollection struct {
	Items      []json.RawMessage `json:"items"`
	Total      *int              `json:"total"`
	Truncated  bool              `json:"truncated"`
	NextOffset *int              `json:"next_offset"`
}

// NativeViewSummary is the summary view of an analyze_function dossier:
// what each collection recorded, without the rows.
type NativeViewSummary struct {
	ProcedureAddress   *string                     `json:"procedure_address"`
	ProcedureName      *string                     `json:"procedure_name"`
	Collections        map[string]*CollectionCount `json:"collections"` // null where the parent did not record the collection
	Pseudocode         PseudocodeCount             `json:"pseudocode"`
	NativeAPIAvailable *bool                       `json:"native_api_available"`
	ValueFlow          map[string]any              `json:"value_flow"`
	LimitationCount    int                         `json:"limitation_count"`
}

// CollectionCount is how many rows the parent recorded of a collection.
type CollectionCount struct {
	Recorded  int  `json:"recorded"`
	Total     *int `json:"total"`
	Truncated bool `json:"truncated"`
}

// PseudocodeCount is how much pseudocode the parent recorded.
type PseudocodeCount struct {
	RecordedCodeUnits *int `json:"recorded_code_units"`
	TotalChars        *int `json:"total_chars"`
	Truncated         bool `json:"truncated"`
}

// NativeRecord is one facet recorded whole (procedure, native_api), as
// the parent recorded it; null when it did not.
type NativeRecord struct {
	Facet string          `json:"facet"`
	Value json.RawMessage `json:"value"`
}

// ValueFlowSummaryFacet is the value_flow_summary facet: the value-flow record
// without its collections, plus what each collection recorded; null when
// the parent did not record value flow.
type ValueFlowSummaryFacet struct {
	Facet string         `json:"facet"`
	Value map[string]any `json:"value"`
}

// NativePage is a page of one recorded collection's rows.
type NativePage struct {
	Facet  string            `json:"facet"`
	Items  []json.RawMessage `json:"items"`
	Offset int               `json:"offset"`
	Limit  int               `json:"limit"`
}

// ReferenceRow is one row of the references facet.
type ReferenceRow struct {
	Direction string          `json:"direction"` // incoming or outgoing
	Reference json.RawMessage `json:"reference"`
}

// PseudocodePage is a page of pseudocode in UTF-16 code units.
type PseudocodePage struct {
	Facet             string `json:"facet"`
	Text              string `json:"text"`
	Offset            int    `json:"offset"`
	Limit             int    `json:"limit"`
	ReturnedCodeUnits int    `json:"returned_code_units"`
	TotalCodeUnits    int    `json:"total_code_units"`
	ParentTotalChars  *int   `json:"parent_total_chars"`
	ParentTruncated   bool   `json:"parent_truncated"`
}

// NoPseudocode is the pseudocode facet of a parent that recorded none.
type NoPseudocode struct {
	Facet             string  `json:"facet"`
	Text              *string `json:"text"` // always null
	Offset            int     `json:"offset"`
	Limit             int     `json:"limit"`
	ReturnedCodeUnits int     `json:"returned_code_units"`
	TotalCodeUnits    int     `json:"total_code_units"`
}

func (NativeViewSummary) ViewSlot() core.ViewSlot     { return core.SlotSummary }
func (NativeRecord) ViewSlot() core.ViewSlot          { return core.SlotItem }
func (ValueFlowSummaryFacet) ViewSlot() core.ViewSlot { return core.SlotItem }
func (NativePage) ViewSlot() core.ViewSlot            { return core.SlotItem }
func (PseudocodePage) ViewSlot() core.ViewSlot        { return core.SlotItem }
func (NoPseudocode) ViewSlot() core.ViewSlot          { return core.SlotItem }

func nativeView(parent *core.Evidence, req *core.ViewRequest) (*core.ViewBody, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(parent.NormalizedResult, &doc); err != nil || doc["procedure"] == nil {
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: "inspect_analysis_view: the parent is not an analyze_function dossier",
			Details: map[string]any{"evidence_id": string(parent.EvidenceID), "reason": "wrong_operation", "expected": "analyze_function dossier", "actual": "other"}}
	}
	var proc struct {
		Address *string `json:"address"`
		Name    *string `json:"name"`
	}
	_ = json.Unmarshal(doc["procedure"], &proc)
	body := &core.ViewBody{ProcedureAddress: &proc.Address}
	if lims, ok := doc["limitations"]; ok {
		_ = json.Unmarshal(lims, &body.Limitations)
	}
	collection := func(name string) (*recordedCollection, bool) {
		raw, ok := doc[name]
		if !ok || string(raw) == "null" {
			return nil, false
		}
		var c recordedCollection
		if json.Unmarshal(raw, &c) != nil {
			return nil, false
		}
		return &c, true
	}
	switch req.Kind {
	case "summary":
		cols := map[string]*CollectionCount{}
		for _, n := range nativeCollections {
			cols[n] = nil
			if c, ok := collection(n); ok {
				cols[n] = &CollectionCount{Recorded: len(c.Items), Total: c.Total, Truncated: c.Truncated}
			}
		}
		var pc struct {
			TotalChars *int `json:"total_chars"`
			Truncated  bool `json:"truncated"`
			Text       *string
		}
		_ = json.Unmarshal(doc["pseudocode"], &pc)
		pseudo := PseudocodeCount{TotalChars: pc.TotalChars, Truncated: pc.Truncated}
		if pc.Text != nil {
			pseudo.RecordedCodeUnits = new(len(utf16.Encode([]rune(*pc.Text))))
		}
		var api struct {
			Available *bool `json:"available"`
		}
		_ = json.Unmarshal(doc["native_api"], &api)
		body.Coverage = core.WholeCoverage()
		body.Part = NativeViewSummary{ProcedureAddress: proc.Address, ProcedureName: proc.Name, Collections: cols,
			Pseudocode: pseudo, NativeAPIAvailable: api.Available, ValueFlow: valueFlowStatus(doc["native_value_flow"]),
			LimitationCount: len(body.Limitations)}
		return body, nil
	case "native", "facet":
	default:
		return nil, core.ViewInvalid("analyze_function offers summary and native views, not "+req.Kind, "kind")
	}
	switch req.Facet {
	case "procedure", "native_api":
		raw := doc[req.Facet]
		if raw == nil {
			raw = json.RawMessage("null")
			body.Limitations = append(body.Limitations, "The parent did not record "+req.Facet+".")
		}
		body.Part, body.Coverage = NativeRecord{Facet: req.Facet, Value: raw}, core.WholeCoverage()
	case "pseudocode":
		return pseudocodePage(doc["pseudocode"], req, body)
	case "value_flow_summary", "value_flow_operations", "value_flow_def_use", "value_flow_effects", "value_flow_parameters", "value_flow_parameter_uses":
		valueFlowFacet(doc["native_value_flow"], req, body)
	case "references":
		var rows []json.RawMessage
		var truncated bool
		for _, dir := range []string{"incoming", "outgoing"} {
			c, ok := collection(dir + "_references")
			if !ok {
				body.Limitations = append(body.Limitations, "The parent did not record "+dir+"_references.")
				continue
			}
			truncated = truncated || c.Truncated
			for _, it := range c.Items {
				row, _ := core.MarshalNoEscape(ReferenceRow{Direction: dir, Reference: it})
				rows = append(rows, row)
			}
		}
		pageRows(body, req, rows, truncated, nil)
	default:
		if !slices.Contains(nativeCollections, req.Facet) {
			return nil, core.ViewInvalid("analyze_function facets are "+fmt.Sprint(nativeFacets)+", not "+req.Facet, "facet")
		}
		c, ok := collection(req.Facet)
		if !ok {
			body.Limitations = append(body.Limitations, "The parent did not record "+req.Facet+".")
			body.Unknowns = append(body.Unknowns, map[string]any{"kind": "unrecorded-facet", "facet": req.Facet})
			c = &recordedCollection{}
		}
		pageRows(body, req, c.Items, c.Truncated, c.Total)
	}
	return body, nil
}

// pageRows pages recorded rows; rows the parent did not record stay
// explicit as a limitation and an unknown.
func pageRows(body *core.ViewBody, req *core.ViewRequest, rows []json.RawMessage, truncated bool, total *int) {
	start, end, cov := core.PageOf(len(rows), req.Offset, req.Limit)
	if rows == nil {
		rows = []json.RawMessage{}
	}
	body.Part = NativePage{Facet: req.Facet, Items: rows[start:end], Offset: req.Offset, Limit: req.Limit}
	body.Coverage = cov
	if truncated {
		var missing any
		if total != nil {
			missing = max(*total-len(rows), 0)
		}
		body.Limitations = append(body.Limitations, fmt.Sprintf("The parent recorded %d %s rows of a truncated collection; pages cover the recorded rows only.", len(rows), req.Facet))
		body.Unknowns = append(body.Unknowns, map[string]any{"kind": "unrecorded-rows", "facet": req.Facet, "count": missing})
	}
}

// pseudocodePage pages pseudocode text in UTF-16 code units and never
// splits a surrogate pair: an offset inside a pair is refused, an end inside
// one moves back, and a one-unit page at a pair returns the whole pair.
func pseudocodePage(raw json.RawMessage, req *core.ViewRequest, body *core.ViewBody) (*core.ViewBody, error) {
	var pc struct {
		Text       *string `json:"text"`
		TotalChars *int    `json:"total_chars"`
		Truncated  bool    `json:"truncated"`
	}
	_ = json.Unmarshal(raw, &pc)
	if pc.Text == nil {
		body.Limitations = append(body.Limitations, "The parent recorded no pseudocode.")
		body.Part = NoPseudocode{Facet: "pseudocode", Offset: req.Offset, Limit: req.Limit}
		body.Coverage = core.ViewCoverage{Status: "empty", Exhausted: true}
		return body, nil
	}
	units := utf16.Encode([]rune(*pc.Text))
	n := len(units)
	isHigh := func(u uint16) bool { return u >= 0xd800 && u < 0xdc00 }
	isLow := func(u uint16) bool { return u >= 0xdc00 && u < 0xe000 }
	if req.Offset > 0 && req.Offset < n && isLow(units[req.Offset]) && isHigh(units[req.Offset-1]) {
		return nil, core.ViewInvalid(fmt.Sprintf("offset %d is inside a surrogate pair; use %d or %d", req.Offset, req.Offset-1, req.Offset+1), "offset")
	}
	start := min(req.Offset, n)
	end := min(n, start+req.Limit)
	if end < n && end > start && isHigh(units[end-1]) && isLow(units[end]) {
		end--
		if end == start {
			end += 2
		}
	}
	cov := core.ViewCoverage{Status: "page", Examined: end - start, Total: n, Exhausted: end >= n}
	if end < n {
		next := end
		cov.NextOffset = &next
	}
	if end == start {
		cov.Status = "empty"
	}
	body.Part = PseudocodePage{Facet: "pseudocode", Text: string(utf16.Decode(units[start:end])), Offset: start, Limit: req.Limit,
		ReturnedCodeUnits: end - start, TotalCodeUnits: n, ParentTotalChars: pc.TotalChars, ParentTruncated: pc.Truncated}
	body.Coverage = cov
	if pc.Truncated {
		body.Limitations = append(body.Limitations, "The parent recorded truncated pseudocode; pages cover the recorded text only.")
	}
	return body, nil
}

// valueFlowFacet projects native_value_flow: the summary facet is the record
// without its collections (each collection's recorded, total and truncated
// instead); a collection facet pages the recorded rows. A record that is
// missing or unavailable gives an empty page (or a null summary value) with
// a limitation and an unknown saying why.
func valueFlowFacet(raw json.RawMessage, req *core.ViewRequest, body *core.ViewBody) {
	var flow map[string]json.RawMessage
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &flow)
	}
	var status, reason string
	_ = json.Unmarshal(flow["status"], &status)
	_ = json.Unmarshal(flow["reason"], &reason)
	if status != "observed" {
		why := "The parent did not record native_value_flow."
		unknown := map[string]any{"kind": "unrecorded-facet", "facet": req.Facet}
		if status == "unavailable" {
			why = "native_value_flow is unavailable in the parent: " + reason
			unknown = map[string]any{"kind": "unavailable-facet", "facet": req.Facet, "reason": reason}
		}
		body.Limitations = append(body.Limitations, why)
		body.Unknowns = append(body.Unknowns, unknown)
		if req.Facet == "value_flow_summary" {
			var v map[string]any
			if status == "unavailable" {
				v = map[string]any{"status": "unavailable", "reason": reason}
			}
			body.Part, body.Coverage = ValueFlowSummaryFacet{Facet: req.Facet, Value: v}, core.WholeCoverage()
			return
		}
		pageRows(body, req, nil, false, nil)
		return
	}
	var truncated bool
	_ = json.Unmarshal(flow["truncated"], &truncated)
	if truncated {
		body.Unknowns = append(body.Unknowns, map[string]any{"kind": "truncated-value-flow", "facet": req.Facet})
	}
	if req.Facet == "value_flow_summary" {
		v := map[string]any{}
		for k, x := range flow {
			if !slices.Contains(valueFlowCollections, k) {
				v[k] = x
			}
		}
		cols := map[string]any{}
		for _, n := range valueFlowCollections {
			var c recordedCollection
			if json.Unmarshal(flow[n], &c) != nil || flow[n] == nil {
				cols[n] = nil
				continue
			}
			cols[n] = map[string]any{"recorded": len(c.Items), "total": c.Total, "truncated": c.Truncated}
		}
		v["collections"] = cols
		body.Part, body.Coverage = ValueFlowSummaryFacet{Facet: req.Facet, Value: v}, core.WholeCoverage()
		return
	}
	name := req.Facet[len("value_flow_"):]
	var c recordedCollection
	if json.Unmarshal(flow[name], &c) != nil || flow[name] == nil {
		body.Limitations = append(body.Limitations, "The parent did not record native_value_flow."+name+".")
		body.Unknowns = append(body.Unknowns, map[string]any{"kind": "unrecorded-facet", "facet": req.Facet})
	}
	pageRows(body, req, c.Items, c.Truncated, c.Total)
}
