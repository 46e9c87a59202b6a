package binary

import (
	"encoding/json"
	"fmt"

	"rea/core"
)

// layoutDoc is a layout result with its lists left as raw rows, so a page
// re-encodes only what it returns.
type layoutDoc struct {
	Artifact struct {
		Bytes string `json:"bytes"`
	} `json:"artifact"`
	Format       string            `json:"format"`
	Architecture json.RawMessage   `json:"architecture"`
	ImageType    string            `json:"image_type"`
	EntryPoint   json.RawMessage   `json:"entry_point"`
	Sections     []json.RawMessage `json:"sections"`
	Segments     []json.RawMessage `json:"segments"`
	Symbols      []json.RawMessage `json:"symbols"`
	Relocations  []json.RawMessage `json:"relocations"`
	Packed       []json.RawMessage `json:"packed_relative_relocations"`
	Linkage      json.RawMessage   `json:"linkage"`
	Mitigations  json.RawMessage   `json:"mitigations"`
	Diagnostics  []string          `json:"diagnostics"`
	Limitations  []string          `json:"limitations"`
}

func (d *layoutDoc) collection(name string) ([]json.RawMessage, bool) {
	switch name {
	case "sections":
		return d.Sections, true
	case "segments":
		return d.Segments, true
	case "symbols":
		return d.Symbols, true
	case "relocations":
		return d.Relocations, true
	case "packed_relative_relocations":
		return d.Packed, true
	}
	return nil, false
}

// LayoutViewSummary is the summary view of inspect_binary_layout Evidence.
type LayoutViewSummary struct {
	Bytes           string          `json:"bytes"`
	Format          string          `json:"format"`
	Architecture    json.RawMessage `json:"architecture"` // as the parent recorded it
	ImageType       string          `json:"image_type"`
	Entry           json.RawMessage `json:"entry"` // as the parent recorded it
	Counts          LayoutCounts    `json:"counts"`
	Mitigations     json.RawMessage `json:"mitigations"` // as the parent recorded it: the question most summaries are asked
	LimitationCount int             `json:"limitation_count"`
	DiagnosticCount int             `json:"diagnostic_count"`
}

// LayoutCounts are the rows of each layout collection, as 0x hex.
type LayoutCounts struct {
	Sections                  string `json:"sections"`
	Segments                  string `json:"segments"`
	Symbols                   string `json:"symbols"`
	Relocations               string `json:"relocations"`
	PackedRelativeRelocations string `json:"packed_relative_relocations"`
}

// LayoutFacet is one layout facet (mitigations or linkage) as the parent
// recorded it.
type LayoutFacet struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// LayoutItem is one section or symbol row and its list position.
type LayoutItem struct {
	Collection string          `json:"collection"`
	Position   int             `json:"position"`
	Value      json.RawMessage `json:"value"`
}

// LayoutRows is a page of one layout collection's rows.
type LayoutRows []json.RawMessage

func (LayoutViewSummary) ViewSlot() core.ViewSlot { return core.SlotSummary }
func (LayoutFacet) ViewSlot() core.ViewSlot       { return core.SlotFacet }
func (LayoutItem) ViewSlot() core.ViewSlot        { return core.SlotItem }
func (LayoutRows) ViewSlot() core.ViewSlot        { return core.SlotItems }

func layoutView(parent *core.Evidence, req *core.ViewRequest) (*core.ViewBody, error) {
	var d layoutDoc
	if err := json.Unmarshal(parent.NormalizedResult, &d); err != nil || d.Format == "" {
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: "inspect_analysis_view: the parent is not a complete inspect_binary_layout result",
			Details: map[string]any{"evidence_id": string(parent.EvidenceID), "reason": "wrong_operation", "expected": "complete inspect_binary_layout result", "actual": "other"}}
	}
	body := &core.ViewBody{Limitations: append([]string{}, d.Limitations...)}
	switch req.Kind {
	case "summary":
		count := func(c string) string {
			rows, _ := d.collection(c)
			return core.Hex(uint64(len(rows)))
		}
		body.Coverage = core.WholeCoverage()
		body.Part = LayoutViewSummary{Bytes: d.Artifact.Bytes, Format: d.Format, Architecture: d.Architecture, ImageType: d.ImageType,
			Entry: d.EntryPoint, Mitigations: d.Mitigations, LimitationCount: len(d.Limitations), DiagnosticCount: len(d.Diagnostics),
			Counts: LayoutCounts{Sections: count("sections"), Segments: count("segments"), Symbols: count("symbols"),
				Relocations: count("relocations"), PackedRelativeRelocations: count("packed_relative_relocations")}}
	case "facet":
		var v json.RawMessage
		switch req.Facet {
		case "mitigations":
			v = d.Mitigations
		case "linkage":
			v = d.Linkage
		default:
			return nil, core.ViewInvalid("inspect_binary_layout views offer the facets mitigations and linkage, not "+req.Facet, "facet")
		}
		body.Part, body.Coverage = LayoutFacet{Name: req.Facet, Value: v}, core.WholeCoverage()
	case "item":
		rows, ok := d.collection(req.Collection)
		if !ok || (req.Collection != "sections" && req.Collection != "symbols") {
			return nil, core.ViewInvalid("inspect_binary_layout items are sections or symbols, not "+req.Collection, "collection")
		}
		i, err := selectRow(rows, req)
		if err != nil {
			return nil, err
		}
		body.Coverage = core.WholeCoverage()
		body.Part = LayoutItem{Collection: req.Collection, Position: i, Value: rows[i]}
	case "page":
		rows, ok := d.collection(req.Collection)
		if !ok {
			return nil, core.ViewInvalid("inspect_binary_layout pages are sections, segments, symbols, relocations or packed_relative_relocations, not "+req.Collection, "collection")
		}
		start, end, cov := core.PageOf(len(rows), req.Offset, req.Limit)
		body.Part, body.Coverage = LayoutRows(rows[start:end]), cov
	default:
		return nil, core.ViewInvalid("inspect_binary_layout offers summary, facet, item and page views, not "+req.Kind, "kind")
	}
	return body, nil
}

// selectRow finds one row by list position or exact display name; a name
// that several rows share is ambiguous and lists their positions.
func selectRow(rows []json.RawMessage, req *core.ViewRequest) (int, error) {
	if req.Selector.Index != nil {
		i := *req.Selector.Index
		if i < 0 || i >= len(rows) {
			return 0, core.ViewInvalid(fmt.Sprintf("index %d is outside the %d %s", i, len(rows), req.Collection), "selector", "index")
		}
		return i, nil
	}
	if req.Selector.Name == nil {
		return 0, core.ViewInvalid("select "+req.Collection+" by index or name", "selector")
	}
	name := *req.Selector.Name
	var hits []int
	for i, r := range rows {
		var row struct {
			Name struct {
				Display string `json:"display"`
			} `json:"name"`
		}
		if json.Unmarshal(r, &row) == nil && row.Name.Display == name {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 0:
		return 0, core.ViewInvalid(fmt.Sprintf("no %s is named %q", req.Collection, name), "selector", "name")
	case 1:
		return hits[0], nil
	}
	e := core.ViewInvalid(fmt.Sprintf("%d %s are named %q; select one by index", len(hits), req.Collection, name), "selector", "name")
	e.Details["candidates"] = hits[:min(len(hits), 32)]
	return 0, e
}
