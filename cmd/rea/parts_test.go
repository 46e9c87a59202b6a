package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestProcedureParts: gcc's cold parts (work.cold; two.cold and
// two.cold.1) are parts of their procedures in every code tool:
// list_procedures lists work and two with their parts and not the parts
// themselves, analyze_function and resolve_containing_procedure asked for
// a part (by name or address) answer with its procedure and say so in
// the limitations, and the calls of report made in the parts are work's
// and two's (procedure_callers, procedure_callees).
func TestProcedureParts(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "adapters", "native", "testdata", "parts.c"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildC(t, "parts", string(src), "-O2", "-freorder-blocks-and-partition")
	addr := map[string]string{}
	for _, n := range reaItems(t, bin, "list_names") {
		if _, ok := addr[fmt.Sprint(n["name"])]; !ok {
			addr[fmt.Sprint(n["name"])] = fmt.Sprint(n["address"])
		}
	}
	procs := map[string]map[string]any{}
	for _, p := range reaItems(t, bin, "list_procedures") {
		procs[fmt.Sprint(p["value"])] = p
	}
	for _, n := range []string{"work.cold", "two.cold", "two.cold.1"} {
		if procs[n] != nil {
			t.Errorf("%s is listed as a procedure: %v", n, procs[n])
		}
	}
	partsOf := func(name string) []string {
		var out []string
		if ps, ok := procs[name]["parts"].([]any); ok {
			for _, p := range ps {
				p := p.(map[string]any)
				out = append(out, fmt.Sprint(p["symbol"], "@", p["start"]))
			}
		}
		return out
	}
	if got, want := partsOf("two"), []string{"two.cold@" + addr["two.cold"], "two.cold.1@" + addr["two.cold.1"]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("two's parts: %v, want %v", got, want)
	}
	if got := partsOf("wk"); len(got) != 1 || !strings.HasPrefix(got[0], "work.cold@") { // work is listed under its alias wk
		t.Errorf("work's parts: %v", got)
	}
	if procs["shared.cold"] == nil || len(partsOf("sa"))+len(partsOf("sb")) != 0 {
		t.Errorf("shared.cold, which sa and sb both branch to, is not a procedure of its own: %v; sa %v, sb %v", procs["shared.cold"], partsOf("sa"), partsOf("sb"))
	}

	for _, arg := range []string{"two.cold", addr["two.cold.1"]} {
		ev := reaEvidence(t, bin, "analyze_function", map[string]any{"procedure": arg})
		if p := ev.result["procedure"].(map[string]any); p["name"] != "two" {
			t.Errorf("analyze_function %s: procedure %v, want two", arg, p)
		}
		if !strings.Contains(strings.Join(ev.limitations, " "), "a part of procedure two") {
			t.Errorf("analyze_function %s: no limitation says it is a part of two: %q", arg, ev.limitations)
		}
	}
	// two's listing has its parts' instructions after its own; a dossier
	// whose listing stops before them leaves their blocks out.
	var listed []string
	for _, it := range reaResult(t, bin, "read_function_instructions", map[string]any{"procedure": "two"})["items"].([]any) {
		listed = append(listed, fmt.Sprint(it.(map[string]any)["address"]))
	}
	if i := slices.Index(listed, addr["two.cold"]); i <= 0 || listed[0] != addr["two"] {
		t.Errorf("two's instructions %v: two.cold (%s) not listed after two's own", listed, addr["two.cold"])
	}
	// The dossier's blocks and the sources of its outgoing references.
	dossier := func(args map[string]any) (blocks, from []string) {
		res := reaResult(t, bin, "analyze_function", args)
		for _, b := range res["basic_blocks"].(map[string]any)["items"].([]any) {
			blocks = append(blocks, fmt.Sprint(b.(map[string]any)["start"]))
		}
		for _, r := range res["outgoing_references"].(map[string]any)["items"].([]any) {
			from = append(from, fmt.Sprint(r.(map[string]any)["from"]))
		}
		return blocks, from
	}
	if b, from := dossier(map[string]any{"procedure": "two"}); !slices.Contains(b, addr["two.cold"]) || !slices.Contains(from, addr["two.cold"]) {
		t.Errorf("two's blocks %v and references from %v: none in two.cold", b, from)
	}
	if b, from := dossier(map[string]any{"procedure": "two", "max_instructions": 2}); slices.Contains(b, addr["two.cold"]) || len(b) == 0 || slices.Contains(from, addr["two.cold"]) {
		t.Errorf("two's blocks %v and references from %v with 2 instructions scanned: want its first block, nothing of its parts", b, from)
	}
	cont := reaResult(t, bin, "resolve_containing_procedure", map[string]any{"address": addr["work.cold"]})
	if p, _ := cont["procedure"].(map[string]any); p == nil || p["value"] != "wk" {
		t.Errorf("resolve_containing_procedure %s (work.cold): %v", addr["work.cold"], cont)
	}

	callers := reaResult(t, bin, "procedure_callers", map[string]any{"procedure": "report"})
	var from []string
	for _, it := range callers["items"].([]any) {
		from = append(from, fmt.Sprint(it.(map[string]any)["procedure"].(map[string]any)["name"]))
	}
	if fmt.Sprint(from) != "[two wk]" && fmt.Sprint(from) != "[wk two]" {
		t.Errorf("report's callers: %v, want two and wk (work)", from)
	}
	callees := reaResult(t, bin, "procedure_callees", map[string]any{"procedure": "two"})
	var to []string
	for _, it := range callees["items"].([]any) {
		c := it.(map[string]any)
		to = append(to, fmt.Sprint(c["name"], "/", c["kind"]))
	}
	if fmt.Sprint(to) != "[report/call]" {
		t.Errorf("two's callees: %v, want report (called from its parts), and no tail call to its parts", to)
	}
}

type partsEvidence struct {
	result      map[string]any
	limitations []string
}

// reaEvidence is reaResult with the evidence's limitations.
func reaEvidence(t *testing.T, target, tool string, args map[string]any) partsEvidence {
	t.Helper()
	b, _ := json.Marshal(args)
	out, errOut, code := runCLI(t, "call", "--target", target, tool, string(b), "--format", "json")
	if code != 0 {
		t.Fatalf("rea call %s %s: exit %d\n%s", tool, b, code, errOut)
	}
	var ev struct {
		NormalizedResult map[string]any `json:"normalized_result"`
		Limitations      []string       `json:"limitations"`
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return partsEvidence{ev.NormalizedResult, ev.Limitations}
}
