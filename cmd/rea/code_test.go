package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// featureFixture compiles testdata/feature.c, and a stripped copy.
func featureFixture(t *testing.T) (full, stripped string) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: the C fixture cannot be built")
	}
	dir := t.TempDir()
	full, stripped = filepath.Join(dir, "feature"), filepath.Join(dir, "feature-stripped")
	if out, err := exec.Command("gcc", "-O0", "-o", full, "testdata/feature.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	if out, err := exec.Command("strip", "-o", stripped, full).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	return full, stripped
}

// decode re-decodes a normalized result into v.
func decode(t *testing.T, m map[string]any, v any) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

type page struct {
	Items      []map[string]any `json:"items"`
	Returned   int              `json:"returned"`
	Total      *int             `json:"total"`
	Truncated  bool             `json:"truncated"`
	NextOffset *int             `json:"next_offset"`
}

type graphResult struct {
	Nodes []struct {
		Address, Name string
		Depth         int
	} `json:"nodes"`
	Edges []struct{ From, To, Kind string } `json:"edges"`
}

func (g graphResult) edge(from, to string) bool {
	addr := map[string]string{}
	for _, n := range g.Nodes {
		addr[n.Name] = n.Address
	}
	for _, e := range g.Edges {
		if e.From == addr[from] && e.To == addr[to] {
			return true
		}
	}
	return false
}

// TestMCPCodeWorkflow walks a known code path over MCP: the unique string
// leads to handler (find_code_for_string), whose dossier names its caller,
// callees and string (analyze_function), and whose call graph leads back to
// main (get_call_graph); then the same walk on the stripped build.
func TestMCPCodeWorkflow(t *testing.T) {
	full, stripped := featureFixture(t)
	for _, tc := range []struct {
		name, path string
		named      bool
	}{{"symbols", full, true}, {"stripped", stripped, false}} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			cs := mcpClient(t)
			is.True(!call(t, cs, "open_binary", map[string]any{"path": tc.path}).isError)

			// string -> code
			_, m := evidence(t, call(t, cs, "find_code_for_string", map[string]any{"query": "unique handler string"}))
			var found struct {
				Strings []struct {
					String     struct{ Address, Value string }
					References []struct {
						From      string
						Procedure *struct{ Address, Name string }
					}
				}
				Procedures []struct {
					Address, Name string
					Seeds         []string
				}
			}
			decode(t, m, &found)
			is.Equal(len(found.Strings), 1)
			is.Equal(found.Strings[0].String.Value, "rea-feature: unique handler string")
			is.Equal(len(found.Procedures), 1) // only handler references the string
			handler := found.Procedures[0]
			if tc.named {
				is.Equal(handler.Name, "handler")
			} else {
				is.True(strings.HasPrefix(handler.Name, "sub_"))
			}

			// code -> dossier
			ev, m := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": handler.Address, "include_assembly": true, "detail": "complete"}))
			is.Equal(ev.Operation, "analyze_function")

			// The default dossier is concise: every collection is cut to its
			// first page, and the complete dossier above is retained and
			// linked, so its facts stay one view away.
			concise, cm := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": handler.Address, "include_assembly": true}))
			is.Equal(concise.EvidenceLinks, []core.EvidenceID{ev.EvidenceID})
			casm := cm["assembly"].(map[string]any)
			is.Equal(casm["returned"], float64(8))
			is.Equal(casm["truncated"], true)
			is.Equal(casm["next_offset"], float64(8))
			is.True(strings.Contains(concise.Limitations[0], "Concise dossier"))
			var dossier struct {
				Procedure  struct{ Address, Name, Classification string }
				Pseudocode struct {
					Available bool
					Reason    string
				}
				Assembly           page `json:"assembly"`
				BasicBlocks        page `json:"basic_blocks"`
				Callers            page `json:"callers"`
				Callees            page `json:"callees"`
				ReferencedStrings  page `json:"referenced_strings"`
				OutgoingReferences page `json:"outgoing_references"`
				InstructionScan    struct {
					Scanned   int
					Truncated bool
				} `json:"instruction_scan"`
				Limitations []string
			}
			decode(t, m, &dossier)
			for _, key := range []string{"assembly", "basic_blocks", "comments", "callers", "callees", "incoming_references",
				"outgoing_references", "referenced_strings", "referenced_names", "unresolved_calls"} {
				c := m[key].(map[string]any)
				for _, f := range []string{"items", "returned", "total", "truncated", "next_offset"} {
					_, ok := c[f]
					is.True(ok) // every collection is paged
				}
			}
			is.Equal(dossier.Procedure.Address, handler.Address)
			is.Equal(dossier.Procedure.Classification, "function")
			is.True(!dossier.Pseudocode.Available)
			is.True(strings.Contains(dossier.Pseudocode.Reason, "names any registered engine that decompiles"))
			is.True(!strings.Contains(strings.ToLower(dossier.Pseudocode.Reason), "ghidra"))
			is.True(dossier.InstructionScan.Scanned > 3 && !dossier.InstructionScan.Truncated)
			is.Equal(dossier.Assembly.Returned, dossier.InstructionScan.Scanned)
			is.True(len(dossier.BasicBlocks.Items) >= 1)
			is.Equal(len(dossier.ReferencedStrings.Items), 1)
			is.Equal(dossier.ReferencedStrings.Items[0]["value"], "rea-feature: unique handler string")
			is.Equal(len(dossier.Callers.Items), 1)
			caller := dossier.Callers.Items[0]["procedure"].(map[string]any)
			if tc.named {
				is.Equal(caller["name"], "dispatch")
			}
			var callees []string
			for _, c := range dossier.Callees.Items {
				callees = append(callees, c["name"].(string))
			}
			slices.Sort(callees)
			is.Equal(callees, []string{"puts@plt", "strlen@plt"})

			// code -> callers, back to main
			_, m = evidence(t, call(t, cs, "get_call_graph", map[string]any{"address": handler.Address, "direction": "backward", "depth": 3}))
			var back graphResult
			decode(t, m, &back)
			is.Equal(len(back.Nodes), 3)
			is.Equal(back.Nodes[0].Address, handler.Address)
			dispatchName, mainName := caller["name"].(string), "main"
			if !tc.named {
				mainName = back.Nodes[2].Name // unnamed in a stripped build
			}
			is.True(back.edge(dispatchName, back.Nodes[0].Name))
			is.True(back.edge(mainName, dispatchName))

			// and forward from main, through dispatch to both handlers
			_, m = evidence(t, call(t, cs, "get_call_graph", map[string]any{"address": back.Nodes[2].Address, "depth": 2}))
			var fwd graphResult
			decode(t, m, &fwd)
			is.True(fwd.edge(mainName, dispatchName))
			is.True(fwd.edge(dispatchName, back.Nodes[0].Name))
			is.Equal(len(fwd.Nodes), 4) // main, dispatch, handler, fallback

			_, m = evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": back.Nodes[2].Address, "goal": handler.Address}))
			is.Equal(m["found"], true)
			is.Equal(len(m["path"].([]any)), 3)

			if tc.named {
				// puts names the stub (puts@plt, called by main) and the GOT
				// slot it jumps through (an import of libc.so.6), which the
				// stub's jmp [rip+GOT] both reads and jumps through (a tail
				// call to the import).
				_, m = evidence(t, call(t, cs, "find_xrefs_to_name", map[string]any{"name": "puts"}))
				is.Equal(int(m["total"].(float64)), 3)
				_, m = evidence(t, call(t, cs, "inspect_native_api", map[string]any{"procedure": "handler"}))
				is.Equal(m["native_api"].(map[string]any)["available"], false) // no DWARF in an -O0 build without -g
			}
		})
	}
}

// TestMCPCodePrimitives exercises the primitives and their bad input.
func TestMCPCodePrimitives(t *testing.T) {
	is := is.New(t)
	full, _ := featureFixture(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": full}).isError)

	_, info := evidence(t, call(t, cs, "procedure_info", map[string]any{"procedure": "dispatch"}))
	is.Equal(info["end_source"], "symbol")
	is.Equal(int(info["caller_count"].(float64)), 1)
	is.Equal(int(info["callee_count"].(float64)), 2)
	start := info["start"].(string)

	asm := call(t, cs, "procedure_assembly", map[string]any{"procedure": start})
	ev, err := core.ParseEvidence([]byte(asm.text))
	is.NoErr(err)
	var text string
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &text))
	is.True(strings.HasPrefix(text, start+": "))
	is.True(strings.Contains(text, "<handler>"))

	_, ins := evidence(t, call(t, cs, "read_function_instructions", map[string]any{"procedure": "dispatch", "offset": 1, "limit": 2}))
	is.Equal(len(ins["items"].([]any)), 2)
	is.Equal(int(ins["next_offset"].(float64)), 3)

	_, callees := evidence(t, call(t, cs, "procedure_callees", map[string]any{"procedure": "dispatch"}))
	is.Equal(int(callees["total"].(float64)), 2)
	_, callers := evidence(t, call(t, cs, "procedure_callers", map[string]any{"procedure": "handler"}))
	is.Equal(int(callers["total"].(float64)), 1)
	_, refs := evidence(t, call(t, cs, "procedure_references", map[string]any{"procedure": "handler", "direction": "incoming"}))
	is.Equal(int(refs["total"].(float64)), 1)

	xr := call(t, cs, "xrefs", map[string]any{"address": start})
	ev, err = core.ParseEvidence([]byte(xr.text))
	is.NoErr(err)
	var sites []string
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &sites))
	is.Equal(len(sites), 1) // main calls dispatch once

	_, rc := evidence(t, call(t, cs, "resolve_containing_procedure", map[string]any{"address": sites[0]}))
	is.Equal(rc["procedure"].(map[string]any)["value"], "main")

	_, rb := evidence(t, call(t, cs, "read_bytes", map[string]any{"address": start, "length": 4}))
	is.Equal(len(rb["bytes"].(string)), 8)
	_, fo := evidence(t, call(t, cs, "address_to_file_offset", map[string]any{"address": start}))
	is.Equal(fo["in_file"], true)
	_, next := evidence(t, call(t, cs, "next_address", map[string]any{"address": start}))
	is.Equal(next["unit"], "instruction")
	_, prev := evidence(t, call(t, cs, "prev_address", map[string]any{"address": next["next_address"]}))
	is.Equal(prev["previous_address"], start)

	_, bd := evidence(t, call(t, cs, "batch_decompile", map[string]any{"addresses": []string{"main", "no_such_function"}}))
	items := bd["items"].([]any)
	is.Equal(items[0].(map[string]any)["status"], "unavailable")
	is.Equal(items[1].(map[string]any)["status"], "error")

	code, details := errCode(t, call(t, cs, "procedure_pseudo_code", map[string]any{"procedure": "main"}))
	is.Equal(code, core.CodeCapabilityUnavailable)
	is.Equal(details["reason"], "decompiler_unavailable")

	for _, bad := range []struct {
		tool string
		args map[string]any
	}{
		{"analyze_function", map[string]any{"procedure": "no_such_function"}},
		{"analyze_function", map[string]any{"procedure": "0xffffffff00"}},
		{"analyze_function", map[string]any{"procedure": "main", "max_instructions": 1000000}},
		{"read_bytes", map[string]any{"address": "0xfffffffffff0"}},
		{"read_bytes", map[string]any{"address": start, "length": 70000}},
		{"read_bytes", map[string]any{"address": "no_such_name"}}, // a name is a location; an unknown one is not
		{"address_to_file_offset", map[string]any{"address": "0xfffffffffff0"}},
		{"get_call_graph", map[string]any{"address": "main", "depth": 9}},
		{"resolve_containing_procedure", map[string]any{"address": "12g"}},
	} {
		code, details := errCode(t, call(t, cs, bad.tool, bad.args))
		is.Equal(code, core.CodeInvalidRequest)
		is.True(len(details["issues"].([]any)) > 0)
	}
}

// TestReadBytesOfHeaders: the ELF header that the first load segment maps
// at a gcc PIE's address 0 and a non-PIE's 0x400000, outside every section,
// is read back with its file offset; an address nothing maps is still
// invalid_request, out of range.
func TestReadBytesOfHeaders(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		flags      []string
	}{{"pie", "0x0", []string{"-fPIE", "-pie"}}, {"nopie", "0x400000", []string{"-fno-PIE", "-no-pie"}}} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			exe := buildC(t, tc.name, "int main(void) { return 0; }\n", tc.flags...)
			cs := mcpClient(t)
			is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
			_, rb := evidence(t, call(t, cs, "read_bytes", map[string]any{"address": tc.base, "length": 16}))
			is.Equal(rb["bytes"].(string)[:8], "7f454c46")
			is.Equal(rb["segment"], "LOAD#0")
			is.Equal(rb["file_offset"], "0x0")
			is.Equal(rb["truncated"], false)
			_, fo := evidence(t, call(t, cs, "address_to_file_offset", map[string]any{"address": tc.base}))
			is.Equal(fo["file_offset"], "0x0")
			// The header is in the first load segment and in no procedure.
			_, rc := evidence(t, call(t, cs, "resolve_containing_procedure", map[string]any{"address": tc.base}))
			is.Equal(rc["segment"], "LOAD#0")
			is.Equal(rc["procedure"], nil)
			_, na := evidence(t, call(t, cs, "next_address", map[string]any{"address": tc.base}))
			is.Equal(na["unit"], "byte") // header bytes are stepped one at a time
			is.Equal(na["segment"], "LOAD#0")
			code, details := errCode(t, call(t, cs, "read_bytes", map[string]any{"address": "0xfffffffffff0"}))
			is.Equal(code, core.CodeInvalidRequest)
			is.Equal(details["issues"].([]any)[0].(map[string]any)["reason"], string(core.ReasonOutOfRange))
		})
	}
}

// TestSegmentsListLoadSegments: list_segments lists a gcc PIE's load
// segments beside its sections, each just before the sections it holds,
// the first at 0x0 mapping the ELF header: the segment read_bytes names
// there is one list_segments shows. A copy with its section table zeroed
// (e_shoff, e_shnum, e_shstrndx) lists the same load segments once, and
// its PT_NOTE segments (NOTE#k).
func TestSegmentsListLoadSegments(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "segs", "int main(void) { return 0; }\n", "-fPIE", "-pie")
	type seg struct{ Name, Kind, Start, End, FileOffset, FileSize string }
	list := func(path string) []seg {
		t.Helper()
		cs := mcpClient(t)
		is.True(!call(t, cs, "open_binary", map[string]any{"path": path}).isError)
		_, m := evidence(t, call(t, cs, "list_segments", map[string]any{}))
		var out []seg
		for _, it := range m["items"].([]any) {
			it := it.(map[string]any)
			out = append(out, seg{it["name"].(string), it["kind"].(string), it["start"].(string), it["end"].(string), it["file_offset"].(string), it["file_size"].(string)})
		}
		is.Equal(int(m["total"].(float64)), len(out))
		_, rb := evidence(t, call(t, cs, "read_bytes", map[string]any{"address": "0x0", "length": 4}))
		is.Equal(rb["segment"], "LOAD#0")
		return out
	}
	full := list(exe)
	var loads []seg
	for i, s := range full {
		if s.Kind != "segment" {
			continue
		}
		loads = append(loads, s)
		// A load segment comes just before the sections it holds.
		if i+1 < len(full) && full[i+1].Kind == "section" {
			next, start, end := hexOf(t, full[i+1].Start), hexOf(t, s.Start), hexOf(t, s.End)
			is.True(start <= next && next < end)
		}
	}
	if len(loads) < 2 {
		t.Fatalf("load segments %+v: want gcc's (at least text and data)", loads)
	}
	is.Equal(loads[0], seg{"LOAD#0", "segment", "0x0", loads[0].End, "0x0", loads[0].FileSize}) // the header segment
	is.Equal(full[0], loads[0])
	is.True(len(full) > len(loads)) // the sections are still there

	data, err := os.ReadFile(exe)
	is.NoErr(err)
	clear(data[0x28:0x30]) // e_shoff
	clear(data[0x3c:0x40]) // e_shnum, e_shstrndx
	bare := filepath.Join(t.TempDir(), "bare")
	is.NoErr(os.WriteFile(bare, data, 0o755))
	var bareLoads []seg
	notes := 0
	for _, s := range list(bare) {
		if strings.HasPrefix(s.Name, "NOTE#") { // the PT_NOTE segments, named as list_strings locates a string in one
			notes++
			continue
		}
		bareLoads = append(bareLoads, s)
	}
	is.Equal(bareLoads, loads) // the load segments, each once
	is.True(notes > 0)         // gcc's build ID note at least
}

func hexOf(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := core.ParseHex(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A goal reached only through a table of function pointers is not found,
// and the result says which searched procedures make calls it could not
// follow.
func TestTraceCallPathNamesUnresolvedCalls(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "table", `#include <stdio.h>
int add(int a, int b) { return a + b; }
int sub(int a, int b) { return a - b; }
int (*ops[])(int, int) = {add, sub};
int main(int c, char **v) { puts("go"); return ops[c & 1](c, 2); }
`)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	ev, m := evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": "add"}))
	is.Equal(m["found"], false)
	is.Equal(m["truncated"], false)
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "1 of the procedures searched make 1 unresolved indirect call(s)")
	}))
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "The goal's address is stored in data at 0x")
	}))
	ev, m = evidence(t, call(t, cs, "get_call_graph", map[string]any{"address": "add", "direction": "backward"}))
	is.Equal(len(m["edges"].([]any)), 0)
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "The root's address is stored in data at 0x")
	}))
	// Before, procedure_callers and a backward trace_call_path answered no
	// callers and said nothing: an agent took a handler reached only
	// through its dispatch table for dead code.
	ev, m = evidence(t, call(t, cs, "procedure_callers", map[string]any{"procedure": "add"}))
	is.Equal(m["total"], 0.0)
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "add's address is stored in data at 0x")
	}))
	ev, m = evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "add", "goal": "main", "direction": "backward"}))
	is.Equal(m["found"], false)
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "add's address is stored in data at 0x")
	}))
	ev, _ = evidence(t, call(t, cs, "procedure_callers", map[string]any{"procedure": "main"}))
	is.True(!slices.ContainsFunc(ev.Limitations, func(l string) bool { return strings.Contains(l, "stored in data") })) // main's address is in no table
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {                                                   // but _start takes it
		return strings.HasPrefix(l, "main's address is taken in code at 0x")
	}))
}

// Names as an agent gives them: an import's own name reaches its PLT stub,
// an analyst's name is found by find_xrefs_to_name, and a near miss is
// answered with suggestions.
func TestNamesAsAgentsGiveThem(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "names", `#include <stdio.h>
__attribute__((noinline)) int helper(int x) { return x * 3 + 1; }
int main(int c, char **v) { puts("hi"); return helper(c); }
`)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	_, m := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "puts"}))
	is.Equal(m["procedure"].(map[string]any)["name"], "puts@plt")

	r := call(t, cs, "analyze_function", map[string]any{"procedure": "helpr"})
	is.True(r.isError && strings.Contains(r.text, `no procedure is named \"helpr\"; did you mean helper?`))
	r = call(t, cs, "find_xrefs_to_name", map[string]any{"name": "Main"})
	is.True(r.isError && strings.Contains(r.text, "did you mean main?"))

	is.True(!call(t, cs, "set_address_name", map[string]any{"address": "helper", "name": "scale"}).isError)
	_, m = evidence(t, call(t, cs, "find_xrefs_to_name", map[string]any{"name": "scale"}))
	matches := m["matches"].([]any)
	is.Equal(len(matches), 1)
	is.Equal(matches[0].(map[string]any)["kind"], "analyst")
	is.Equal(m["total"], float64(1)) // main's call

	// procedure_address takes a procedure's exact name only; a near miss
	// is the unknown-name refusal suggesting procedures' names, never
	// the name refused. Before, "puts" suggested "puts" (the import's
	// label) and "helper", renamed scale, suggested "helper".
	for arg, want := range map[string][]any{"puts": {"puts@plt"}, "Main": {"main"}, "helper": {"scale"}, "mian": {"main"}} {
		code, details := errCode(t, call(t, cs, "procedure_address", map[string]any{"procedure": arg}))
		is.Equal(code, core.CodeInvalidRequest)
		is.Equal(details["reason"], "unknown_name")
		if !reflect.DeepEqual(details["suggestions"], want) {
			t.Errorf("procedure_address %q suggests %v, want %v", arg, details["suggestions"], want)
		}
	}
}
