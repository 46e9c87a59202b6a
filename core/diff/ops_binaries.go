package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"rea/core"
)

const fnRefSchema = `{"type":"object","additionalProperties":false,"required":["name","address"],
 "properties":{"name":{"type":"string"},"address":{"type":"string"}}}`

const binSideSchema = `{"type":"object","additionalProperties":false,"required":["path","sha256","format","architecture","provider_id","functions","imports"],
 "properties":{"path":{"type":"string"},"sha256":{"type":"string"},"format":{"type":"string"},"architecture":{"type":["string","null"]},
  "provider_id":{"type":"string"},"functions":{"type":"integer","minimum":0},"imports":{"type":"integer","minimum":0}}}`

func opCompareBinaries() *core.Operation {
	pair := `{"type":"object","required":["left","right","basis","similarity","status"],
 "properties":{"left":` + fnRefSchema + `,"right":` + fnRefSchema + `,"basis":{"enum":["name","instruction-hash","structure","call-graph"]},
  "match_similarity":{"type":"number"},"similarity":{"type":["number","null"]},"status":{"enum":["changed","unchanged","unknown"]},
  "changed_dimensions":{"type":"array","items":{"type":"string"}},"unknown_dimensions":{"type":"array","items":{"type":"string"}},
  "dimensions":{"type":"object"},"differences":{"type":"object"}}}`
	return &core.Operation{
		Name:  "compare_binaries",
		Title: "Compare Binaries",
		Description: "Match the functions of two native binaries and say what changed. Neither becomes the open target. Functions are matched by name, then by the " +
			"hash of their normalized instructions, then by structure (CFG shape, size, call-graph neighbourhood, referenced strings and " +
			"constants), then by their place among a matched function's callees, so stripped builds match too; each match carries its basis and a similarity. Matched functions are compared as " +
			"compare_functions does (instructions, calls, references, strings, constants, cfg) and are unchanged or changed; the rest " +
			"are added or removed. data lists strings added and removed and the data sections whose bytes differ. Across architectures " +
			"functions match on names, strings and calls only.",
		Kind:    core.KindApplication,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["left_path","right_path"],"properties":{
  "left_path":{"type":"string","minLength":1,"maxLength":4096,"description":"The older binary."},
  "right_path":{"type":"string","minLength":1,"maxLength":4096,"description":"The newer binary."},
  "provider_id":{"type":"string","pattern":"^[a-z][a-z0-9-]*$","maxLength":64,"description":"Provider for both binaries; default: the one open_binary would choose."},
  "detail":{"enum":["concise","complete"],"default":"concise","description":"concise: counts, the changed (with differences), added, removed and renamed lists (a page when long); complete: also the unchanged list and every dimension in full."}}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["left","right","detail","summary","not_comparable","changed","added","removed","unchanged","imports","data","limitations"],
 "properties":{"left":` + binSideSchema + `,"right":` + binSideSchema + `,"detail":{"enum":["concise","complete"]},
  "summary":{"type":"object","additionalProperties":false,
   "required":["left_functions","right_functions","matched","unchanged","changed","added","removed","match_rate","by_basis"],
   "properties":{"left_functions":{"type":"integer"},"right_functions":{"type":"integer"},"matched":{"type":"integer"},"unchanged":{"type":"integer"},
    "changed":{"type":"integer"},"added":{"type":"integer"},"removed":{"type":"integer"},
    "match_rate":{"type":["number","null"],"description":"Matched functions over the functions of the smaller side."},
    "by_basis":{"type":"object","additionalProperties":{"type":"integer"}}}},
  "not_comparable":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["dimension","reason"],
   "properties":{"dimension":{"type":"string"},"reason":{"type":"string"}}}},
  "changed":{"type":"array","items":` + pair + `},
  "added":{"type":"array","items":` + fnRefSchema + `},"removed":{"type":"array","items":` + fnRefSchema + `},
  "unchanged":{"anyOf":[{"type":"null"},{"type":"array","items":` + pair + `}]},
  "renamed":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["left","right"],"properties":{"left":` + fnRefSchema + `,"right":` + fnRefSchema + `}},
   "description":"Matched functions named differently on each side (renames); absent when none."},
  "imports":{"type":"object","additionalProperties":false,"required":["added","removed"],
   "properties":{"added":{"type":"array","items":{"type":"string"}},"removed":{"type":"array","items":{"type":"string"}}}},
  "data":{"type":"object","additionalProperties":false,"required":["strings","sections_changed"],"properties":{
   "strings":{"type":"object","additionalProperties":false,"required":["added","removed","omitted"],"properties":{
    "added":{"type":"array","items":{"type":"string"}},"removed":{"type":"array","items":{"type":"string"}},"omitted":{"type":"integer","minimum":0}}},
   "sections_changed":{"type":"array","items":{"type":"string"},"description":"Data sections whose bytes differ (moved code also moves addresses stored in data)."}}},
  "limitations":{"type":"array","items":{"type":"string"}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"left_path":"/usr/bin/true","right_path":"/usr/bin/false"}`),
			json.RawMessage(`{"left_path":"/usr/bin/true","right_path":"/usr/bin/false","detail":"complete"}`)},
		Handler: handleCompareBinaries,
	}
}

func handleCompareBinaries(ctx context.Context, c *core.Call) (any, error) {
	in, err := core.Input[CompareBinariesInput](c)
	if err != nil {
		return nil, err
	}
	detail := in.Detail
	if detail == "" {
		detail = "concise"
		c.Args["detail"] = detail
	}
	c.Observe("reading the left binary")
	l, err := openSide(ctx, c, in.LeftPath, in.ProviderID)
	if err != nil {
		return nil, err
	}
	c.Observe("reading the right binary")
	r, err := openSide(ctx, c, in.RightPath, in.ProviderID)
	if err != nil {
		return nil, err
	}
	full, err := compareSides(ctx, c, l, r, true)
	if err != nil {
		return nil, err
	}
	full.Detail = "complete"
	obs := &core.Observation{Result: full, Unbound: true, Confidence: core.ConfidenceDerived, Limitations: full.Limitations}
	if detail == "complete" {
		return obs, nil
	}
	res := conciseOf(full)
	page, cut := concisePage(res)
	if !cut {
		return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Limitations: res.Limitations}, nil
	}
	// The complete comparison is sealed and retained as the page's first
	// evidence link, as a "detail":"complete" call would record it, so
	// find_changed_behavior and correlate_static_and_runtime read every
	// function through the page (completeRecord).
	parent, err := c.RetainComplete(obs)
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf(`Concise comparison: changed lists the first %d of %d changed functions, added %d of %d, removed %d of %d, by address; `+
		`the complete comparison is retained as evidence_links[0]. find_changed_behavior with this record as comparison ranks every changed function (offset, limit), `+
		`or call again with "detail":"complete".`, len(page.Changed), len(res.Changed), len(page.Added), len(res.Added), len(page.Removed), len(res.Removed))
	page.Limitations = append([]string{note}, res.Limitations...)
	return &core.Observation{Result: page, Unbound: true, Confidence: core.ConfidenceDerived, Limitations: page.Limitations,
		Links: []core.EvidenceID{parent}}, nil
}

// A concise comparison whose document would exceed conciseBinariesBytes
// lists only the first changed functions (at most conciseChanged, halved
// until it fits) and the first conciseAddedRemoved added and removed ones;
// summary keeps every count.
const (
	conciseBinariesBytes = 12 << 10
	conciseChanged       = 16
	conciseAddedRemoved  = 64
)

// conciseOf is the concise form of a complete comparison: each changed
// function's dimensions as their statuses, and no unchanged list.
func conciseOf(full *CompareBinariesResult) *CompareBinariesResult {
	res := *full
	res.Detail = "concise"
	res.Unchanged = nil
	res.Changed = make([]CompareBinariesResultChangedItem, len(full.Changed))
	for i, it := range full.Changed {
		if dims, ok := it.Dimensions.(map[string]*dimension); ok {
			status := map[string]string{}
			for _, name := range dimensionNames {
				if x := dims[name]; x != nil {
					status[name] = x.Status
				}
			}
			it.Dimensions = status
		}
		res.Changed[i] = it
	}
	return &res
}

// concisePage cuts res to a page when its document exceeds
// conciseBinariesBytes, and reports whether it cut.
func concisePage(res *CompareBinariesResult) (*CompareBinariesResult, bool) {
	if b, err := json.Marshal(res); err == nil && len(b) <= conciseBinariesBytes {
		return res, false
	}
	page := *res
	page.Added = res.Added[:min(len(res.Added), conciseAddedRemoved)]
	page.Removed = res.Removed[:min(len(res.Removed), conciseAddedRemoved)]
	for n := min(len(res.Changed), conciseChanged); ; n /= 2 {
		page.Changed = res.Changed[:n]
		if b, err := json.Marshal(&page); n <= 1 || (err == nil && len(b) <= conciseBinariesBytes) {
			break
		}
	}
	return &page, len(page.Changed) < len(res.Changed) || len(page.Added) < len(res.Added) || len(page.Removed) < len(res.Removed)
}

func sideSummary(s *binSide) CompareBinariesResultLeft {
	return CompareBinariesResultLeft{Path: s.path, SHA256: s.target.SHA256, Format: s.target.Format, Architecture: core.OptString(s.target.Architecture),
		ProviderID: s.provider.ID, Functions: len(s.funcs), Imports: len(s.imports)}
}

func fnRef(f *fnFacts) CompareBinariesResultChangedItemLeft {
	return CompareBinariesResultChangedItemLeft{Name: f.Name, Address: core.Hex(f.Address)}
}

// compareSides compares two binaries; the caller sets Detail.
func compareSides(ctx context.Context, c *core.Call, l, r *binSide, complete bool) (*CompareBinariesResult, error) {
	crossArch := l.target.Architecture != "" && r.target.Architecture != "" && l.target.Architecture != r.target.Architecture
	notComparable := map[string]string{}
	nc := []CompareBinariesResultNotComparableItem{}
	if crossArch {
		why := fmt.Sprintf("the binaries are of different architectures (%s, %s): instructions, constants and control flow are not comparable; matching used names, calls and strings",
			l.target.Architecture, r.target.Architecture)
		for _, d := range []string{"instructions", "constants", "cfg"} {
			notComparable[d] = why
			nc = append(nc, CompareBinariesResultNotComparableItem{Dimension: d, Reason: why})
		}
	}
	c.Observe("matching functions")
	m := newMatcher(l, r, crossArch)
	skipped, err := m.run(ctx)
	if err != nil {
		return nil, err
	}
	lim := append(append([]string{}, l.lim...), r.lim...)
	if skipped {
		lim = append(lim, fmt.Sprintf("Structural matching across architectures was skipped: more than %d candidate pairs remained after matching by name (sizes are not comparable across architectures, so candidates cannot be narrowed).", maxStructurePairs))
	}
	byBasis := map[string]int{basisName: 0, basisHash: 0, basisStructure: 0, basisCallGraph: 0}
	changed, unchanged := []CompareBinariesResultChangedItem{}, []CompareBinariesResultChangedItem{}
	var renamed []CompareBinariesResultRenamedItem
	sort.Slice(m.matches, func(i, j int) bool { return l.funcs[m.matches[i].L].Address < l.funcs[m.matches[j].L].Address })
	// Re-index after sorting so neighbour keys stay consistent.
	for k, x := range m.matches {
		m.lm[x.L], m.rm[x.R] = k, k
	}
	omittedRefs := 0
	opts := compareOptions{notComparable: notComparable, calleeName: m.calleeName, symbol: m.symbol, unnamed: m.unnamed, omittedRefs: &omittedRefs}
	for _, x := range m.matches {
		byBasis[x.Basis]++
		lf, rf := l.funcs[x.L], r.funcs[x.R]
		if lf.Name != rf.Name && !lf.unnamed() && !rf.unnamed() {
			// Concise lists no unchanged function: without this an
			// identical function renamed would be in no list at all.
			renamed = append(renamed, CompareBinariesResultRenamedItem{Left: fnRef(lf), Right: fnRef(rf)})
		}
		d := compareFacts(lf, rf, opts)
		sim := x.Similarity
		it := CompareBinariesResultChangedItem{Left: fnRef(lf), Right: fnRef(rf), Basis: x.Basis, MatchSimilarity: &sim,
			Similarity: d.Similarity, Status: d.Status, ChangedDimensions: d.Changed, UnknownDimensions: d.Unknown}
		if d.Status == "changed" {
			diffs := map[string]DimensionDifferences{}
			status := map[string]string{}
			for _, name := range dimensionNames {
				x := d.Dimensions[name]
				status[name] = x.Status
				if x.Status == "changed" {
					dd := DimensionDifferences{Added: x.Added, Removed: x.Removed, Changes: x.Changes, Omitted: x.Omitted}
					if name == "calls" {
						dd.Imports = x.imports // [] when none, so a reader knows the record marks them
					}
					diffs[name] = dd
				}
			}
			it.Dimensions, it.Differences = status, diffs
			if complete {
				it.Dimensions = d.Dimensions
			}
			changed = append(changed, it)
		} else if complete {
			it.Dimensions = d.Dimensions
			unchanged = append(unchanged, it)
		} else {
			unchanged = append(unchanged, CompareBinariesResultChangedItem{}) // counted only
		}
	}
	if omittedRefs > 0 {
		side := "left"
		if r.symtab {
			side = "right"
		}
		lim = append(lim, fmt.Sprintf("The %s binary has a symbol table and the other does not: %d references to names the other does not give were left out of the references dimension; calls and jumps are compared through the function match.", side, omittedRefs))
	}
	added, removed := []CompareBinariesResultChangedItemLeft{}, []CompareBinariesResultChangedItemLeft{}
	for i, f := range l.funcs {
		if m.lm[i] < 0 {
			removed = append(removed, fnRef(f))
		}
	}
	for i, f := range r.funcs {
		if m.rm[i] < 0 {
			added = append(added, fnRef(f))
		}
	}
	var rate *float64
	if n := min(len(l.funcs), len(r.funcs)); n > 0 {
		v := round(float64(len(m.matches)) / float64(n))
		rate = &v
	}
	data, dlim := compareData(l, r)
	lim = append(lim, dlim...)
	if len(changed)+len(added)+len(removed) == 0 && len(data.Strings.Added)+len(data.Strings.Removed)+len(data.SectionsChanged) > 0 {
		lim = append(lim, "No function's code changed, but the data did (data.strings, data.sections_changed): a constant, table or string in data can change behaviour on its own.")
	}
	ia, ir := onlyIn(l.imports, r.imports)
	var unch []CompareBinariesResultChangedItem
	if complete {
		unch = unchanged
	}
	return &CompareBinariesResult{
		Left: sideSummary(l), Right: sideSummary(r),
		Summary: CompareBinariesResultSummary{LeftFunctions: len(l.funcs), RightFunctions: len(r.funcs), Matched: len(m.matches),
			Unchanged: len(unchanged), Changed: len(changed), Added: len(added), Removed: len(removed), MatchRate: rate, ByBasis: byBasis},
		NotComparable: nc, Changed: changed, Added: added, Removed: removed, Unchanged: unch, Renamed: renamed,
		Imports:     CompareBinariesResultImports{Added: ia, Removed: ir},
		Data:        data,
		Limitations: core.NonNil(lim),
	}, nil
}
