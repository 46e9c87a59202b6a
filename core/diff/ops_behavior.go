package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"rea/core"
)

// find_changed_behavior ranks the changed functions of a compare_binaries
// result by what a user of the program could observe: strings, calls
// (imports first), constants and control flow. Instruction-only and
// reference-only changes (register allocation, layout) are not behaviour.

// behaviourWeights orders the kinds of change.
var behaviourWeights = map[string]float64{"strings": 3, "import_calls": 3, "calls": 2, "control_flow": 2, "constants": 1}

func opFindChangedBehavior() *core.Operation {
	return &core.Operation{
		Name:  "find_changed_behavior",
		Title: "Find Changed Behavior",
		Description: "Rank the functions whose observable behaviour changed between two native binaries: referenced strings, calls to " +
			"imports and other functions, constants and control flow, from a compare_binaries result (comparison: inline or retained " +
			"Evidence) or from two paths (left_path and right_path, instead of comparison: compare_binaries runs first and its Evidence is retained and linked). " +
			"Each item names the function on both sides, the changed behaviours with their differences, and the comparison Evidence it " +
			"comes from. Added and removed functions are listed apart.",
		Kind:    core.KindApplication,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "properties":{"comparison":` + strings.ReplaceAll(functionEvidenceInput, "analyze_function", "compare_binaries") + `,
  "left_path":{"type":"string","minLength":1,"maxLength":4096,"description":"The older binary."},
  "right_path":{"type":"string","minLength":1,"maxLength":4096,"description":"The newer binary."},
  "limit":{"type":"integer","minimum":1,"maximum":500,"default":20,"description":"Ranked items returned."},
  "offset":{"type":"integer","minimum":0,"default":0,"description":"First ranked item returned."}}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["comparison_evidence_id","items","total","next_offset","added","removed"],
 "properties":{"comparison_evidence_id":{"type":"string"},
  "items":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["rank","left","right","score","similarity","behaviours","evidence_id"],
   "properties":{"rank":{"type":"integer","minimum":1},"left":` + fnRefSchema + `,"right":` + fnRefSchema + `,"score":{"type":"number"},
    "similarity":{"type":["number","null"]},"evidence_id":{"type":"string"},
    "behaviours":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["kind","added","removed","changes"],
     "properties":{"kind":{"enum":["strings","import_calls","calls","constants","control_flow"]},"added":{"type":"array","items":{"type":"string"}},
      "removed":{"type":"array","items":{"type":"string"}},"changes":{"type":"array","items":{"type":"string"}}}}}}}},
  "total":{"type":"integer","minimum":0},"next_offset":{"type":["integer","null"]},
  "added":{"type":"array","items":` + fnRefSchema + `},"removed":{"type":"array","items":` + fnRefSchema + `}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"left_path":"/usr/bin/true","right_path":"/usr/bin/false"}`),
			json.RawMessage(`{"comparison":` + retainedExample + `,"limit":10}`)},
		Handler: handleFindChangedBehavior,
	}
}

type cmpResult struct {
	Changed []struct {
		Left        CompareBinariesResultChangedItemLeft `json:"left"`
		Right       CompareBinariesResultChangedItemLeft `json:"right"`
		Similarity  *float64                             `json:"similarity"`
		Differences map[string]struct {
			Added   []string `json:"added"`
			Removed []string `json:"removed"`
			Changes []string `json:"changes"`
			Imports []string `json:"imports"` // calls only; absent from a comparison made before it was marked
		} `json:"differences"`
	} `json:"changed"`
	Data    *CompareBinariesResultData             `json:"data"` // nil in a comparison made before it was compared
	Added   []CompareBinariesResultChangedItemLeft `json:"added"`
	Removed []CompareBinariesResultChangedItemLeft `json:"removed"`
	Imports struct {
		Added, Removed []string
	} `json:"imports"`
}

func handleFindChangedBehavior(ctx context.Context, c *core.Call) (any, error) {
	in, err := core.Input[FindChangedBehaviorInput](c)
	if err != nil {
		return nil, err
	}
	var ev *core.Evidence
	hasCmp, hasL, hasR := in.Comparison != nil, in.LeftPath != "", in.RightPath != ""
	if hasCmp == (hasL || hasR) || (!hasCmp && !(hasL && hasR)) {
		return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{}, Reason: core.ReasonMissingArgument,
			Message: "pass either comparison (compare_binaries Evidence) or both left_path and right_path"})
	}
	if hasCmp {
		if ev, err = evidenceInput(c, "comparison", "compare_binaries"); err != nil {
			return nil, err
		}
	} else {
		cargs := map[string]any{"left_path": in.LeftPath, "right_path": in.RightPath, "detail": "concise"}
		op, ok := c.Lookup("compare_binaries")
		if !ok {
			return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: c.Op.Name + ": compare_binaries is not in this catalog"}
		}
		l, err := openSide(ctx, c, in.LeftPath, "")
		if err != nil {
			return nil, err
		}
		r, err := openSide(ctx, c, in.RightPath, "")
		if err != nil {
			return nil, err
		}
		res, err := compareSides(ctx, c, l, r, false)
		if err != nil {
			return nil, err
		}
		res.Detail = "concise"
		obs := &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Limitations: res.Limitations}
		if ev, err = c.Seal(op, cargs, obs); err != nil {
			return nil, err
		}
		if _, err := c.Retain(ev); err != nil {
			return nil, err
		}
	}
	var cr cmpResult
	if err := json.Unmarshal(ev.NormalizedResult, &cr); err != nil {
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: c.Op.Name + ": the comparison does not decode: " + err.Error(),
			Details: map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "invalid_record"}}
	}
	var items []FindChangedBehaviorResultItem
	for _, ch := range cr.Changed {
		it := FindChangedBehaviorResultItem{Left: ch.Left, Right: ch.Right, Similarity: ch.Similarity,
			Behaviours: []FindChangedBehaviorResultItemBehaviour{}, EvidenceID: string(ev.EvidenceID)}
		add := func(kind string, added, removed, changes []string) {
			if len(added)+len(removed)+len(changes) == 0 {
				return
			}
			it.Behaviours = append(it.Behaviours, FindChangedBehaviorResultItemBehaviour{Kind: kind, Added: core.NonNil(added), Removed: core.NonNil(removed), Changes: core.NonNil(changes)})
			it.Score += behaviourWeights[kind] + 0.1*float64(min(len(added)+len(removed)+len(changes), 10))
		}
		if d, ok := ch.Differences["strings"]; ok {
			add("strings", d.Added, d.Removed, nil)
		}
		if d, ok := ch.Differences["calls"]; ok {
			isImport := importCallTest(d.Imports)
			var ia, ir, oa, or []string
			for _, n := range d.Added {
				if isImport(n) {
					ia = append(ia, n)
				} else {
					oa = append(oa, n)
				}
			}
			for _, n := range d.Removed {
				if isImport(n) {
					ir = append(ir, n)
				} else {
					or = append(or, n)
				}
			}
			add("import_calls", ia, ir, nil)
			add("calls", oa, or, nil)
		}
		if d, ok := ch.Differences["constants"]; ok {
			add("constants", d.Added, d.Removed, nil)
		}
		if d, ok := ch.Differences["cfg"]; ok {
			add("control_flow", nil, nil, d.Changes)
		}
		if len(it.Behaviours) > 0 {
			it.Score = round(it.Score)
			items = append(items, it)
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Score > items[j].Score })
	for i := range items {
		items[i].Rank = i + 1
	}
	offset, limit := intOr(in.Offset, 0), intOr(in.Limit, 20)
	page := []FindChangedBehaviorResultItem{}
	var next *int
	if offset < len(items) {
		end := min(len(items), offset+limit)
		page = items[offset:end]
		if end < len(items) {
			next = &end
		}
	}
	res := &FindChangedBehaviorResult{ComparisonEvidenceID: string(ev.EvidenceID), Items: page, Total: len(items), NextOffset: next,
		Added: core.NonNil(cr.Added), Removed: core.NonNil(cr.Removed)}
	var lim []string
	if d := cr.Data; d != nil && len(d.Strings.Added)+len(d.Strings.Removed)+len(d.SectionsChanged) > 0 {
		lim = append(lim, fmt.Sprintf("The binaries' data differ too (%d string(s) added, %d removed; data sections changed: %s): behaviour can change "+
			"through data without a function's code changing; the comparison's data lists them.", len(d.Strings.Added), len(d.Strings.Removed), listOrNone(d.SectionsChanged)))
	}
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Links: []core.EvidenceID{ev.EvidenceID}, Limitations: lim}, nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// importCallTest reports whether a callee of a calls difference is an
// import: one of the difference's imports, which compare_binaries marks
// from the import's identity (a call through a slot, puts, is one too).
// A comparison made before it marked them (imports nil) is read by the
// name: a PLT stub's, or a versioned or library-qualified symbol's @.
func importCallTest(imports []string) func(string) bool {
	if imports == nil {
		return func(n string) bool { return strings.Contains(n, "@") }
	}
	return func(n string) bool { return slices.Contains(imports, n) }
}
