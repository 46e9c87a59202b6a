package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// TestStepAndXrefsStartAtTheCursor: next_address, prev_address, xrefs and
// address_name without an address start from the session's cursor
// (goto_address), as the contract's cursor-default tools do; before, the
// first three started from the entry point whatever goto_address had done,
// and address_name required an address.
func TestStepAndXrefsStartAtTheCursor(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	_, gone := evidence(t, call(t, cs, "goto_address", map[string]any{"address": "helper"}))
	at := gone["address"].(string)
	for _, tool := range []string{"next_address", "prev_address", "address_name"} {
		_, m := evidence(t, call(t, cs, tool, map[string]any{}))
		is.Equal(m["address"], at) // from the cursor
	}
	want, _ := evidence(t, call(t, cs, "xrefs", map[string]any{"address": at}))
	got, _ := evidence(t, call(t, cs, "xrefs", map[string]any{}))
	is.Equal(string(got.NormalizedResult), string(want.NormalizedResult))
	is.Equal(got.Locations[0].Address, at)
}

// TestEveryToolTakesTheSameLocations: every input that means a code
// location accepts the same forms (0x hex, decimal, an engine's name, an
// analyst's name, the engine's name after a rename, sub_<hex>, each of
// those names +OFFSET) and refuses an unknown name, and an address outside
// every segment, with the same details: the two families' tools resolve
// through the one resolver, core/codeloc. Before that, "helper+2" was
// "neither an address nor a known name", and an unmapped address was
// refused by the annotation tools as "outside every segment" and by the
// others as "outside every section and segment (list_segments)", with
// different details and no nearest segment. Before, address_name,
// xrefs, next_address, prev_address, list_names, resolve_containing_procedure,
// read_bytes and address_to_file_offset took only hex or decimal ("'helper'
// does not match pattern ...") while goto_address took names. Before,
// list_names and list_strings at an address with no name or string
// answered an empty page with no location at all.
func TestEveryToolTakesTheSameLocations(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	_, gone := evidence(t, call(t, cs, "goto_address", map[string]any{"address": "helper"}))
	at := gone["address"].(string)
	n, err := strconv.ParseUint(strings.TrimPrefix(at, "0x"), 16, 64)
	is.NoErr(err)
	evidence(t, call(t, cs, "set_address_name", map[string]any{"address": at, "name": "scale_banner"}))
	tools := []string{"goto_address", "inspect_address_context", "comment", "address_name", "xrefs", "next_address", "prev_address",
		"list_names", "list_strings", "resolve_containing_procedure", "read_bytes", "address_to_file_offset"}
	var refusal, unmapped string
	for _, tool := range tools {
		for _, form := range []string{at, strconv.FormatUint(n, 10), "helper", "scale_banner", fmt.Sprintf("sub_%x", n)} {
			r := call(t, cs, tool, map[string]any{"address": form})
			if r.isError {
				t.Errorf("%s %q: %s", tool, form, r.text)
				continue
			}
			if !strings.Contains(r.text, at) {
				t.Errorf("%s %q: %s does not name %s", tool, form, r.text, at)
			}
		}
		plus := fmt.Sprintf("0x%x", n+2)
		for _, form := range []string{"helper+2", "scale_banner+0x2", fmt.Sprintf("sub_%x+2", n)} {
			r := call(t, cs, tool, map[string]any{"address": form})
			if r.isError || !strings.Contains(r.text, plus) {
				t.Errorf("%s %q: %s does not name %s", tool, form, r.text, plus)
				continue
			}
			// Even a list with no name or string there says which address
			// it was asked about, in the one location shape.
			var ev struct{ Locations *[]core.Location } // nil: a view, not a record
			is.NoErr(json.Unmarshal([]byte(r.text), &ev))
			if ev.Locations != nil && (len(*ev.Locations) == 0 || ((*ev.Locations)[0].Address != plus && (*ev.Locations)[0].Start != plus)) {
				t.Errorf("%s %q: locations %+v, want %s first", tool, form, *ev.Locations, plus)
			}
		}
		code, details := errCode(t, call(t, cs, tool, map[string]any{"address": "no_such_name"}))
		is.Equal(code, core.CodeInvalidRequest)
		is.Equal(details["operation"], tool)
		delete(details, "operation")
		b, _ := json.Marshal(details)
		if refusal == "" {
			refusal = string(b)
		} else if string(b) != refusal {
			t.Errorf("%s refuses an unknown name with %s; goto_address with %s", tool, b, refusal)
		}
		code, details = errCode(t, call(t, cs, tool, map[string]any{"address": "0xfffffffffff0"}))
		is.Equal(code, core.CodeInvalidRequest)
		delete(details, "operation")
		b, _ = json.Marshal(details)
		if unmapped == "" {
			unmapped = string(b)
			is.Equal(details["reason"], "address_unmapped")
			is.True(len(details["nearest_segments"].([]any)) == 1) // the last segment, below
		} else if string(b) != unmapped {
			t.Errorf("%s refuses an unmapped address with %s; goto_address with %s", tool, b, unmapped)
		}
	}
}

// TestCallPathsTakeBothNamesOfARenamedFunction: after set_address_name,
// build_call_path takes the engine's name of the renamed function as
// trace_call_path does (before: "helper is neither a supplied function nor
// one of their callees"), and both take the analyst's.
func TestCallPathsTakeBothNamesOfARenamedFunction(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	evidence(t, call(t, cs, "set_address_name", map[string]any{"address": "helper", "name": "scale_banner"}))
	af := call(t, cs, "analyze_function", map[string]any{"procedure": "main"})
	ev, _ := evidence(t, af)
	refs := []any{map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}}
	for _, goal := range []string{"helper", "scale_banner"} {
		_, tr := evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": goal}))
		is.Equal(tr["found"], true)
		r := call(t, cs, "build_call_path", map[string]any{"functions": refs, "start": "main", "goal": goal})
		if r.isError {
			t.Errorf("build_call_path goal %s: %s", goal, r.text)
			continue
		}
		_, bp := evidence(t, r)
		is.Equal(bp["total"], 1.0)
	}
	// In a session without the binary, the inline record is all there is:
	// its limitation names the engine's name it replaced.
	var inline map[string]any
	is.NoErr(json.Unmarshal([]byte(af.text), &inline))
	other := mcpClient(t)
	_, bp := evidence(t, call(t, other, "build_call_path", map[string]any{"functions": []any{inline}, "start": "main", "goal": "helper"}))
	is.Equal(bp["total"], 1.0)
}

// TestCallPathsTakeTheSameLocationForms: build_call_path's start and goal
// take the forms trace_call_path's do, a decimal address and sub_<hex>
// among them (before: "4441 is neither a supplied function nor one of
// their callees").
func TestCallPathsTakeTheSameLocationForms(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	_, gone := evidence(t, call(t, cs, "goto_address", map[string]any{"address": "helper"}))
	n, err := strconv.ParseUint(strings.TrimPrefix(gone["address"].(string), "0x"), 16, 64)
	is.NoErr(err)
	ev, _ := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "main"}))
	refs := []any{map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}}
	for _, goal := range []string{strconv.FormatUint(n, 10), fmt.Sprintf("sub_%x", n)} {
		_, tr := evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": goal}))
		is.Equal(tr["found"], true)
		r := call(t, cs, "build_call_path", map[string]any{"functions": refs, "start": "main", "goal": goal})
		if r.isError {
			t.Errorf("build_call_path goal %s: %s", goal, r.text)
			continue
		}
		_, bp := evidence(t, r)
		is.Equal(bp["total"], 1.0)
	}
}

// TestStepAddressCrossesAGap: next_address and prev_address from an
// address in a gap between two segments step into the nearest segment
// that way (the first byte above, the last byte below, segment naming it);
// before the first segment or past the last they refuse, as every address
// input does, with out_of_range and the nearest segment. Before, both
// refused the gap too ("outside every section and segment").
func TestStepAddressCrossesAGap(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	_, segs := evidence(t, call(t, cs, "list_segments", map[string]any{}))
	type span struct {
		name       string
		start, end uint64
	}
	var all []span
	for _, it := range segs["items"].([]any) {
		m := it.(map[string]any)
		s, _ := strconv.ParseUint(strings.TrimPrefix(m["start"].(string), "0x"), 16, 64)
		e, _ := strconv.ParseUint(strings.TrimPrefix(m["end"].(string), "0x"), 16, 64)
		if e > s && (s != 0 || m["permissions"].(map[string]any)["read"] == true) {
			all = append(all, span{m["name"].(string), s, e})
		}
	}
	var below, above *span
	var gap, last uint64
	for i := range all {
		last = max(last, all[i].end)
	}
	for i := range all {
		g := all[i].end
		mapped := false
		for _, o := range all {
			mapped = mapped || (g >= o.start && g < o.end)
		}
		if mapped || g >= last {
			continue
		}
		gap, below, above = g, nil, nil
		for j := range all {
			if all[j].end <= gap && (below == nil || all[j].end > below.end || (all[j].end == below.end && all[j].end-all[j].start < below.end-below.start)) {
				below = &all[j]
			}
			if all[j].start > gap && (above == nil || all[j].start < above.start || (all[j].start == above.start && all[j].end < above.end)) {
				above = &all[j]
			}
		}
		break
	}
	if above == nil {
		t.Fatal("the fixture has no gap between segments")
	}
	_, next := evidence(t, call(t, cs, "next_address", map[string]any{"address": fmt.Sprintf("0x%x", gap)}))
	is.Equal(next["next_address"], fmt.Sprintf("0x%x", above.start))
	is.Equal(next["segment"], above.name)
	is.Equal(next["unit"], "byte")
	_, prev := evidence(t, call(t, cs, "prev_address", map[string]any{"address": fmt.Sprintf("0x%x", gap)}))
	is.Equal(prev["previous_address"], fmt.Sprintf("0x%x", below.end-1))
	is.Equal(prev["segment"], below.name)
	for _, tool := range []string{"next_address", "prev_address"} {
		code, details := errCode(t, call(t, cs, tool, map[string]any{"address": fmt.Sprintf("0x%x", last+0x100000)}))
		is.Equal(code, core.CodeInvalidRequest)
		is.Equal(details["reason"], "address_unmapped")
		is.Equal(len(details["nearest_segments"].([]any)), 1)
	}
}
