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
// analyst's name, the engine's name after a rename, sub_<hex>) and refuses
// an unknown name with the same code and issue. Before, address_name,
// xrefs, next_address, prev_address, list_names, resolve_containing_procedure,
// read_bytes and address_to_file_offset took only hex or decimal ("'helper'
// does not match pattern ...") while goto_address took names.
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
		"list_names", "resolve_containing_procedure", "read_bytes", "address_to_file_offset"}
	var refusal string
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
		code, details := errCode(t, call(t, cs, tool, map[string]any{"address": "no_such_name"}))
		is.Equal(code, core.CodeInvalidRequest)
		b, _ := json.Marshal(details["issues"])
		if refusal == "" {
			refusal = string(b)
		} else if string(b) != refusal {
			t.Errorf("%s refuses an unknown name with %s; goto_address with %s", tool, b, refusal)
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
