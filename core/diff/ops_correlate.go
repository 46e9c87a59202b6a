package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"rea/core"
)

// correlate_static_and_runtime ties what changed statically between two
// builds (compare_binaries or compare_functions Evidence) to what was seen
// at run time (trace_native_calls Evidence of either build, and
// compare_process_captures Evidence of a run of each): which changed
// functions ran, on which side, with which arguments, and which observable
// runtime differences the changed code may explain.

const anyEvidenceInput = `{"anyOf":[
  {"type":"object","description":"A retained reference to Evidence recorded on this connection.","additionalProperties":false,"required":["kind","evidence_id"],
   "properties":{"kind":{"const":"retained-evidence"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}},
  {"type":"object","description":"Complete inline Evidence.","required":["evidence_id","operation","normalized_result"],
   "properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"operation":{"type":"string"},"normalized_result":{"type":"object"}}}]}`

func opCorrelateStaticAndRuntime() *core.Operation {
	return &core.Operation{
		Name:  "correlate_static_and_runtime",
		Title: "Correlate Static And Runtime",
		Description: "Tie static comparisons (compare_binaries or compare_functions Evidence) to runtime observations (trace_native_calls Evidence of either build, " +
			"compare_process_captures Evidence of a run of each) through mappings that say which build each runtime record observed (side left: the older, right: the newer). " +
			"Each function of the static comparisons is listed with its static status and changed dimensions, how often it ran on each side and whether its first " +
			"arguments differed, and a correlation: changed-and-executed first (the changed code ran: it may explain the runtime differences), then changed-not-executed, " +
			"added or removed and executed, and unchanged functions whose runtime arguments differ. Runtime comparisons are summarized with their changed dimensions.",
		Kind:            core.KindSession,
		RequiresSession: true,
		Effects:         core.Effects{MutatesSession: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["static_comparisons","runtime_comparisons","mappings"],"properties":{
  "static_comparisons":{"type":"array","minItems":1,"maxItems":16,"items":` + anyEvidenceInput + `,"description":"compare_binaries or compare_functions Evidence."},
  "runtime_comparisons":{"type":"array","minItems":1,"maxItems":64,"items":` + anyEvidenceInput + `,"description":"trace_native_calls or compare_process_captures Evidence."},
  "mappings":{"type":"array","minItems":1,"maxItems":64,"items":{"type":"object","additionalProperties":false,"required":["runtime_evidence_id","side"],
   "properties":{"runtime_evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$","description":"A record of runtime_comparisons."},
    "side":{"enum":["left","right","both"],"description":"The build it observed: left (older), right (newer), or both (a compare_process_captures of a run of each)."}}},
   "description":"Which build each runtime record observed. A trace must be mapped to left or right; a process comparison defaults to both."},
  "limit":{"type":"integer","minimum":1,"maximum":500,"default":50,"description":"Functions returned."},
  "offset":{"type":"integer","minimum":0,"default":0,"description":"First function returned."}}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["functions","runtime","total","offset","limit","next_offset","summary","limitations"],
 "properties":{
  "functions":{"type":"array","items":{"type":"object","additionalProperties":false,
   "required":["left","right","static_status","changed_dimensions","static_evidence_id","left_hits","right_hits","arguments_differ","correlation","trace_evidence_ids"],
   "properties":{"left":{"anyOf":[{"type":"null"},` + fnRefSchema + `]},"right":{"anyOf":[{"type":"null"},` + fnRefSchema + `]},
    "static_status":{"enum":["changed","unchanged","unknown","added","removed"]},"changed_dimensions":{"type":"array","items":{"type":"string"}},
    "static_evidence_id":{"type":"string"},
    "left_hits":{"type":["integer","null"],"description":"Calls traced in the left build; null when no left trace covered this function."},
    "right_hits":{"type":["integer","null"]},
    "arguments_differ":{"type":["boolean","null"],"description":"Whether the first call's arguments differ between the sides; null unless both sides ran it."},
    "correlation":{"enum":["changed-and-executed","changed-not-executed","added-and-executed","removed-and-executed","unchanged-arguments-differ","not-traced","unchanged"]},
    "trace_evidence_ids":{"type":"array","items":{"type":"string"}}}}},
  "runtime":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["evidence_id","operation","side","status","changed_dimensions"],
   "properties":{"evidence_id":{"type":"string"},"operation":{"type":"string"},"side":{"enum":["left","right","both"]},"status":{"type":["string","null"]},
    "changed_dimensions":{"type":"array","items":{"type":"string"}}}}},
  "total":{"type":"integer","minimum":0},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1},"next_offset":{"type":["integer","null"]},
  "summary":{"type":"object","additionalProperties":{"type":"integer"}},
  "limitations":{"type":"array","items":{"type":"string"}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"static_comparisons":[` + retainedExample + `],"runtime_comparisons":[{"kind":"retained-evidence","evidence_id":"ev_` + strings.Repeat("1", 64) + `"}],` +
			`"mappings":[{"runtime_evidence_id":"ev_` + strings.Repeat("1", 64) + `","side":"right"}]}`)},
		Handler: handleCorrelate,
	}
}

// evidenceItem resolves element i of the Evidence array argument list as
// Evidence of one of ops, through the kernel's Call.EvidenceArg (a retained
// reference or a complete inline record), and then records that element as
// the retained reference (Call.KeepReference), so both input forms seal the
// same parameters. Errors name the element ([list, i, ...]).
func evidenceItem(c *core.Call, list string, i int, ops ...string) (*core.Evidence, error) {
	items, _ := c.Args[list].([]any)
	if i < 0 || i >= len(items) {
		return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{list, i}, Reason: core.ReasonMissingArgument, Message: "no such element"})
	}
	el := &core.Call{Session: c.Session, Op: c.Op, Args: map[string]any{list: items[i]}}
	ev, err := el.EvidenceArg(list)
	if err != nil {
		return nil, atItem(err, list, i)
	}
	if !slices.Contains(ops, ev.Operation) {
		return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{list, i}, Reason: core.ReasonInvalidValue,
			Message:  strconv.Quote(string(ev.EvidenceID)) + " is " + ev.Operation + " Evidence; this list takes " + strings.Join(ops, " or ") + " Evidence",
			Expected: ops})
	}
	el.KeepReference(list, ev)
	items[i] = el.Args[list]
	return ev, nil
}

// atItem moves the issue paths of an error about argument list to its
// element i.
func atItem(err error, list string, i int) error {
	ce, ok := err.(*core.Error)
	if !ok {
		return err
	}
	issues, ok := ce.Details["issues"].([]core.Issue)
	if !ok {
		return err
	}
	for k, is := range issues {
		if len(is.Path) > 0 && is.Path[0] == list {
			issues[k].Path = append([]any{list, i}, is.Path[1:]...)
		}
	}
	return err
}

// staticFn is one function of a static comparison.
type staticFn struct {
	left, right *corrRef
	status      string
	changed     []string
	evidenceID  string
}

// corrRef is a function of one side of a static comparison.
type corrRef = CompareBinariesResultChangedItemLeft

// traceCalls counts a trace's hits by procedure address and keeps the
// first hit's arguments.
type traceCalls struct {
	id    string
	hits  map[uint64]int
	first map[uint64]string
	names map[string]uint64
	sha   string
}

func readTrace(ev *core.Evidence) (*traceCalls, error) {
	var r struct {
		Breakpoints []struct {
			Name      string `json:"name"`
			Address   string `json:"address"`
			Procedure *struct {
				Address string  `json:"address"`
				Name    *string `json:"name"`
			} `json:"procedure"`
		} `json:"breakpoints"`
		Hits []struct {
			Address   string                    `json:"address"`
			Procedure *struct{ Address string } `json:"procedure"`
			Arguments []json.RawMessage         `json:"arguments"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil {
		return nil, err
	}
	t := &traceCalls{id: string(ev.EvidenceID), hits: map[uint64]int{}, first: map[uint64]string{}, names: map[string]uint64{}}
	if ev.Subject != nil {
		t.sha = ev.Subject.Digest.SHA256
	}
	for _, b := range r.Breakpoints {
		addr := b.Address
		if b.Procedure != nil {
			addr = b.Procedure.Address
		}
		a, err := core.ParseHex(addr)
		if err != nil {
			continue
		}
		t.hits[a] += 0 // traced, even when never hit
		t.names[b.Name] = a
		if b.Procedure != nil && b.Procedure.Name != nil {
			t.names[*b.Procedure.Name] = a
		}
	}
	for _, h := range r.Hits {
		addr := h.Address
		if h.Procedure != nil {
			addr = h.Procedure.Address
		}
		a, err := core.ParseHex(addr)
		if err != nil {
			continue
		}
		t.hits[a]++
		if _, ok := t.first[a]; !ok {
			b, _ := json.Marshal(h.Arguments)
			t.first[a] = string(b)
		}
	}
	return t, nil
}

// lookup finds a function of the trace by address, else by name.
func (t *traceCalls) lookup(f *corrRef) (uint64, bool) {
	if f == nil {
		return 0, false
	}
	if a, err := core.ParseHex(f.Address); err == nil {
		if _, ok := t.hits[a]; ok {
			return a, true
		}
	}
	a, ok := t.names[f.Name]
	return a, ok
}

// readStatic lists the functions of a static comparison ev. For a concise
// compare_binaries page, full is the complete comparison it links: its
// changed, added and removed functions are listed, and the page's unchanged
// list (none), so a page lists what the whole concise result would.
func readStatic(ev, full *core.Evidence) ([]staticFn, string, string, error) {
	id := string(ev.EvidenceID)
	if ev.Operation == "compare_functions" {
		var r struct {
			Left, Right struct {
				corrRef
				SHA *string `json:"target_sha256"`
			}
			Status  string   `json:"status"`
			Changed []string `json:"changed_dimensions"`
		}
		if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil {
			return nil, "", "", err
		}
		l, rt := r.Left.corrRef, r.Right.corrRef
		deref := func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		}
		return []staticFn{{left: &l, right: &rt, status: r.Status, changed: core.NonNil(r.Changed), evidenceID: id}}, deref(r.Left.SHA), deref(r.Right.SHA), nil
	}
	type pair struct {
		Left, Right corrRef
		Status      string   `json:"status"`
		Changed     []string `json:"changed_dimensions"`
	}
	var r struct {
		Left      struct{ SHA256 string }
		Right     struct{ SHA256 string }
		Changed   []pair
		Unchanged []pair
		Added     []corrRef
		Removed   []corrRef
	}
	if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil {
		return nil, "", "", err
	}
	if full != ev {
		var f struct {
			Changed        []pair
			Added, Removed []corrRef
		}
		if err := json.Unmarshal(full.NormalizedResult, &f); err != nil {
			return nil, "", "", err
		}
		r.Changed, r.Added, r.Removed = f.Changed, f.Added, f.Removed
	}
	var out []staticFn
	for _, p := range append(append([]pair{}, r.Changed...), r.Unchanged...) {
		l, rt := p.Left, p.Right
		out = append(out, staticFn{left: &l, right: &rt, status: p.Status, changed: core.NonNil(p.Changed), evidenceID: id})
	}
	for _, f := range r.Added {
		f := f
		out = append(out, staticFn{right: &f, status: "added", changed: []string{}, evidenceID: id})
	}
	for _, f := range r.Removed {
		f := f
		out = append(out, staticFn{left: &f, status: "removed", changed: []string{}, evidenceID: id})
	}
	return out, r.Left.SHA256, r.Right.SHA256, nil
}

var correlationRank = map[string]int{"changed-and-executed": 0, "added-and-executed": 1, "removed-and-executed": 2, "unchanged-arguments-differ": 3,
	"changed-not-executed": 4, "not-traced": 5, "unchanged": 6}

func handleCorrelate(_ context.Context, c *core.Call) (any, error) {
	in, err := core.Input[CorrelateStaticAndRuntimeInput](c)
	if err != nil {
		return nil, err
	}
	var statics []staticFn
	var lims []string
	leftSHA, rightSHA := map[string]bool{}, map[string]bool{}
	for i := range c.Args["static_comparisons"].([]any) {
		ev, err := evidenceItem(c, "static_comparisons", i, "compare_binaries", "compare_functions")
		if err != nil {
			return nil, err
		}
		full := ev
		if ev.Operation == "compare_binaries" {
			if full, err = completeRecord(c, ev, ev.Operation); err != nil {
				return nil, err
			}
		}
		fns, l, r, err := readStatic(ev, full)
		if err != nil {
			return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"static_comparisons", i}, Reason: core.ReasonInvalidValue, Message: "unreadable result: " + err.Error()})
		}
		statics = append(statics, fns...)
		if l != "" {
			leftSHA[l] = true
		}
		if r != "" {
			rightSHA[r] = true
		}
	}
	sides := map[string]string{}
	for i, m := range in.Mappings {
		id, side := m.RuntimeEvidenceID, m.Side
		if prev, dup := sides[id]; dup && prev != side {
			return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"mappings", i}, Reason: core.ReasonInvalidValue, Message: id + " is mapped to two sides"})
		}
		sides[id] = side
	}
	var traces [2][]*traceCalls // left, right
	runtime := []CorrelateStaticAndRuntimeResultRuntime{}
	seen := map[string]bool{}
	for i := range c.Args["runtime_comparisons"].([]any) {
		ev, err := evidenceItem(c, "runtime_comparisons", i, "trace_native_calls", "compare_process_captures")
		if err != nil {
			return nil, err
		}
		id := string(ev.EvidenceID)
		if seen[id] {
			continue
		}
		seen[id] = true
		side, mapped := sides[id]
		switch ev.Operation {
		case "trace_native_calls":
			if !mapped || side == "both" {
				return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"mappings"}, Reason: core.ReasonMissingArgument,
					Message: "trace " + id + " needs a mapping to side left or right (the build it ran)"})
			}
			// A concise page of a trace links the complete one, whose
			// hits it counts.
			full, err := completeRecord(c, ev, ev.Operation)
			if err != nil {
				return nil, err
			}
			t, err := readTrace(full)
			if err != nil {
				return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"runtime_comparisons", i}, Reason: core.ReasonInvalidValue, Message: "unreadable trace: " + err.Error()})
			}
			want := map[string]map[string]bool{"left": leftSHA, "right": rightSHA}[side]
			if t.sha != "" && len(want) > 0 && !want[t.sha] {
				lims = append(lims, fmt.Sprintf("Trace %s ran a binary (sha256 %s) that is not the %s side of the static comparisons; its procedures were matched by address and name anyway.", id, t.sha, side))
			}
			traces[map[string]int{"left": 0, "right": 1}[side]] = append(traces[map[string]int{"left": 0, "right": 1}[side]], t)
			runtime = append(runtime, CorrelateStaticAndRuntimeResultRuntime{EvidenceID: id, Operation: ev.Operation, Side: side, ChangedDimensions: []string{}})
		default:
			if !mapped {
				side = "both"
			}
			var r struct {
				Status     string `json:"status"`
				Dimensions []struct {
					Name   string `json:"name"`
					Dim    string `json:"dimension"`
					Status string `json:"status"`
				} `json:"dimensions"`
			}
			_ = json.Unmarshal(ev.NormalizedResult, &r)
			changed := []string{} // unknown and truncated dimensions are no observed change
			for _, d := range r.Dimensions {
				if d.Status == "changed" || d.Status == "added" || d.Status == "removed" {
					changed = append(changed, firstOf(d.Dim, d.Name))
				}
			}
			runtime = append(runtime, CorrelateStaticAndRuntimeResultRuntime{EvidenceID: id, Operation: ev.Operation, Side: side, Status: core.OptString(r.Status), ChangedDimensions: changed})
		}
	}
	for id := range sides {
		if !seen[id] {
			return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"mappings"}, Reason: core.ReasonInvalidValue, Message: id + " is mapped but is not in runtime_comparisons"})
		}
	}
	if len(traces[0])+len(traces[1]) == 0 {
		lims = append(lims, "No trace_native_calls Evidence was given: no function's execution is known, only the runtime comparisons' dimensions.")
	}
	items := make([]CorrelateStaticAndRuntimeResultFunction, 0, len(statics))
	summary := map[string]int{}
	for _, f := range statics {
		var hits [2]*int
		var firstArgs [2]*string
		var traceIDs []string
		for s, fn := range []*corrRef{f.left, f.right} {
			for _, t := range traces[s] {
				a, ok := t.lookup(fn)
				if !ok {
					continue
				}
				n := t.hits[a]
				if hits[s] == nil {
					hits[s] = new(int)
				}
				*hits[s] += n
				if fa, ok := t.first[a]; ok && firstArgs[s] == nil {
					firstArgs[s] = &fa
				}
				traceIDs = append(traceIDs, t.id)
			}
		}
		ran := func(s int) bool { return hits[s] != nil && *hits[s] > 0 }
		var argsDiffer *bool
		if firstArgs[0] != nil && firstArgs[1] != nil {
			differ := *firstArgs[0] != *firstArgs[1]
			argsDiffer = &differ
		}
		traced := hits[0] != nil || hits[1] != nil
		corr := "unchanged"
		switch {
		case f.status == "changed" && (ran(0) || ran(1)):
			corr = "changed-and-executed"
		case f.status == "added" && ran(1):
			corr = "added-and-executed"
		case f.status == "removed" && ran(0):
			corr = "removed-and-executed"
		case f.status == "unchanged" && argsDiffer != nil && *argsDiffer:
			corr = "unchanged-arguments-differ"
		case (f.status == "changed" || f.status == "added" || f.status == "removed") && traced:
			corr = "changed-not-executed"
		case f.status != "unchanged" && !traced:
			corr = "not-traced"
		}
		summary[corr]++
		sort.Strings(traceIDs)
		items = append(items, CorrelateStaticAndRuntimeResultFunction{Left: f.left, Right: f.right, StaticStatus: f.status, ChangedDimensions: f.changed,
			StaticEvidenceID: f.evidenceID, LeftHits: hits[0], RightHits: hits[1], ArgumentsDiffer: argsDiffer,
			Correlation: corr, TraceEvidenceIDs: core.NonNil(compactStrings(traceIDs))})
	}
	sort.SliceStable(items, func(i, j int) bool {
		ri, rj := correlationRank[items[i].Correlation], correlationRank[items[j].Correlation]
		if ri != rj {
			return ri < rj
		}
		return sortName(items[i]) < sortName(items[j])
	})
	offset, limit := intOr(in.Offset, 0), intOr(in.Limit, 50)
	page := []CorrelateStaticAndRuntimeResultFunction{}
	var next *int
	if offset < len(items) {
		end := min(len(items), offset+limit)
		page = items[offset:end]
		if end < len(items) {
			next = &end
		}
	}
	return &CorrelateStaticAndRuntimeResult{Functions: page, Runtime: runtime, Total: len(items), Offset: offset, Limit: limit, NextOffset: next,
		Summary: summary, Limitations: core.NonNil(lims)}, nil
}

// sortName is the name an item sorts by: its left function's, else its
// right one's.
func sortName(it CorrelateStaticAndRuntimeResultFunction) string {
	for _, f := range []*corrRef{it.Left, it.Right} {
		if f != nil {
			return f.Name
		}
	}
	return ""
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
