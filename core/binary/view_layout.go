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

func layoutView(parent *core.Evidence, req *core.ViewRequest) (*core.ViewBody, error) {
	var d layoutDoc
	if err := json.Unmarshal(parent.NormalizedResult, &d); err != nil || d.Format == "" {
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: "inspect_analysis_view: the parent is not a complete inspect_binary_layout result",
			Details: map[string]any{"evidence_id": string(parent.EvidenceID), "reason": "wrong_operation", "expected": "complete inspect_binary_layout result", "actual": "other"}}
	}
	body := &core.ViewBody{Limitations: append([]string{}, d.Limitations...)}
	switch req.Kind {
	case "summary":
		counts := map[string]any{}
		for _, c := range []string{"sections", "segments", "symbols", "relocations", "packed_relative_relocations"} {
			rows, _ := d.collection(c)
			counts[c] = core.Hex(uint64(len(rows)))
		}
		body.Key, body.Coverage = "summary", core.WholeCoverage()
		body.Value = map[string]any{"bytes": d.Artifact.Bytes, "format": d.Format, "architecture": d.Architecture, "image_type": d.ImageType,
			"entry": d.EntryPoint, "counts": counts, "limitation_count": len(d.Limitations), "diagnostic_count": len(d.Diagnostics)}
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
		body.Key, body.Value, body.Coverage = "facet", map[string]any{"name": req.Facet, "value": v}, core.WholeCoverage()
	case "item":
		rows, ok := d.collection(req.Collection)
		if !ok || (req.Collection != "sections" && req.Collection != "symbols") {
			return nil, core.ViewInvalid("inspect_binary_layout items are sections or symbols, not "+req.Collection, "collection")
		}
		i, err := selectRow(rows, req)
		if err != nil {
			return nil, err
		}
		body.Key, body.Coverage = "item", core.WholeCoverage()
		body.Value = map[string]any{"collection": req.Collection, "position": i, "value": rows[i]}
	case "page":
		rows, ok := d.collection(req.Collection)
		if !ok {
			return nil, core.ViewInvalid("inspect_binary_layout pages are sections, segments, symbols, relocations or packed_relative_relocations, not "+req.Collection, "collection")
		}
		start, end, cov := core.PageOf(len(rows), req.Offset, req.Limit)
		body.Key, body.Value, body.Coverage = "items", rows[start:end], cov
	default:
		return nil, core.ViewInvalid("inspect_binary_layout offers summary, facet, item and page views, not "+req.Kind, "kind")
	}
	return body, nil
}

// selectRow finds one row by list position or exact display name; a name
// that several rows share is ambiguous and lists their positions.
func selectRow(rows []json.RawMessage, req *core.ViewRequest) (int, error) {
	if v, ok := req.Selector["index"]; ok {
		i := -1
		if n, ok := v.(json.Number); ok {
			if x, err := n.Int64(); err == nil {
				i = int(x)
			}
		}
		if i < 0 || i >= len(rows) {
			return 0, core.ViewInvalid(fmt.Sprintf("index %v is outside the %d %s", v, len(rows), req.Collection), "selector", "index")
		}
		return i, nil
	}
	name, ok := req.Selector["name"].(string)
	if !ok {
		return 0, core.ViewInvalid("select "+req.Collection+" by index or name", "selector")
	}
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
