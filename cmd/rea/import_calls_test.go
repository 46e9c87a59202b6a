package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestImportSlotCallsAreCallees: a gcc -fno-plt program calls its imports
// through their GOT slots. Every code tool sees the same edge: main calls
// puts, an external callee at puts's slot (no procedure), which
// procedure_callers, get_call_graph both ways, trace_call_path and
// find_xrefs_to_name find again.
func TestImportSlotCallsAreCallees(t *testing.T) {
	bin := buildC(t, "noplt", `#include <stdio.h>
int main(int argc, char **argv) { puts(argv[0]); printf("%d\n", argc); return 0; }
`, "-fno-plt", "-Wl,-z,now")
	var slot, mainAddr string
	callees := reaResult(t, bin, "procedure_callees", map[string]any{"procedure": "main"})
	mainAddr = fmt.Sprint(callees["procedure"].(map[string]any)["address"])
	for _, it := range callees["items"].([]any) {
		c := it.(map[string]any)
		if c["name"] == "puts" {
			slot = fmt.Sprint(c["address"])
			if c["external"] != true || c["procedure"] != false || c["kind"] != "call" || len(c["call_sites"].([]any)) != 1 {
				t.Errorf("callee puts: %v", c)
			}
		}
	}
	if slot == "" {
		t.Fatalf("main's callees: %v; unresolved: %v", callees["items"], callees["unresolved"])
	}
	for _, it := range callees["unresolved"].([]any) {
		if u := it.(map[string]any); u["slot"] == slot {
			t.Errorf("the call through puts's slot is also unresolved: %v", u)
		}
	}
	names := reaResult(t, bin, "list_names", map[string]any{"address": slot})
	if it := names["items"].([]any); len(it) == 0 || it[0].(map[string]any)["name"] != "puts" || it[0].(map[string]any)["library"] != "libc.so.6" {
		t.Errorf("names at puts's slot %s: %v", slot, it)
	}
	for _, name := range []string{"puts", slot} {
		callers := reaResult(t, bin, "procedure_callers", map[string]any{"procedure": name})
		if p := callers["procedure"].(map[string]any); p["address"] != slot || p["name"] != "puts" {
			t.Errorf("procedure_callers %s: procedure %v", name, p)
		}
		items := callers["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["procedure"].(map[string]any)["address"] != mainAddr {
			t.Errorf("procedure_callers %s: %v", name, items)
		}
	}
	hasEdge := func(g map[string]any) bool {
		for _, e := range g["edges"].([]any) {
			if e := e.(map[string]any); e["from"] == mainAddr && e["to"] == slot && e["kind"] == "call" {
				return true
			}
		}
		return false
	}
	fwd := reaResult(t, bin, "get_call_graph", map[string]any{"address": "main", "depth": 1})
	back := reaResult(t, bin, "get_call_graph", map[string]any{"address": "puts", "direction": "backward", "depth": 1})
	if !hasEdge(fwd) || !hasEdge(back) {
		t.Errorf("main -> puts: forward edges %v, backward edges %v", fwd["edges"], back["edges"])
	}
	for _, n := range fwd["nodes"].([]any) {
		if n := n.(map[string]any); n["address"] == slot && (n["name"] != "puts" || n["external"] != true || n["procedure"] != false) {
			t.Errorf("node at puts's slot: %v", n)
		}
	}
	path := reaResult(t, bin, "trace_call_path", map[string]any{"start": "main", "goal": "puts"})
	if path["found"] != true {
		t.Errorf("trace_call_path main -> puts: %v", path)
	}
	xrefs := reaResult(t, bin, "find_xrefs_to_name", map[string]any{"name": "puts"})
	calls := 0
	for _, r := range xrefs["references"].([]any) {
		if r := r.(map[string]any); r["kind"] == "call" && r["to"] == slot && r["slot"] == slot && r["unresolved"] == false {
			calls++
		}
	}
	if calls != 1 {
		t.Errorf("find_xrefs_to_name puts: %d calls through the slot in %v", calls, xrefs["references"])
	}
}

// TestCompareBinariesImportSlotCalls: compare_binaries' calls dimension
// counts a call through an import's GOT slot (gcc -fno-plt) as a call to
// the import, so a function that calls puts where it called printf has
// changed calls.
func TestCompareBinariesImportSlotCalls(t *testing.T) {
	src := `#include <stdio.h>
__attribute__((noinline)) void greet(const char *s) { %s(s); }
int main(int argc, char **argv) { greet(argv[0]); return argc; }
`
	v1 := buildC(t, "v1", fmt.Sprintf(src, "puts"), "-fno-plt", "-Wl,-z,now")
	v2 := buildC(t, "v2", fmt.Sprintf(src, "printf"), "-fno-plt", "-Wl,-z,now")
	r := reaResult(t, v1, "compare_binaries", map[string]any{"left_path": v1, "right_path": v2, "detail": "complete"})
	for _, it := range r["changed"].([]any) {
		p := it.(map[string]any)
		if p["left"].(map[string]any)["name"] != "greet" {
			continue
		}
		if dims := fmt.Sprint(p["changed_dimensions"]); !strings.Contains(dims, "calls") {
			t.Errorf("greet changed in %s, not in its calls", dims)
		}
		return
	}
	t.Errorf("greet is not changed: %v", r["changed"])
}

// TestCompareBinariesPLTAgainstSlotCalls: the same program built with and
// without gcc -fno-plt calls each import through its stub (puts@plt) in
// one build and through its GOT slot (puts) in the other. That is one
// import either way: every function matches, none changes its calls, and
// both builds count the same imports.
func TestCompareBinariesPLTAgainstSlotCalls(t *testing.T) {
	src := `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void greet(const char *s) { puts(s); printf("%zu\n", strlen(s)); }
__attribute__((noinline)) char *copy(const char *s) { char *p = malloc(strlen(s) + 1); if (!p) exit(1); return strcpy(p, s); }
int main(int argc, char **argv) { char *s = copy(argv[0]); greet(s); free(s); return argc; }
`
	plt := buildC(t, "plt", src)
	slot := buildC(t, "slot", src, "-fno-plt")
	r := reaResult(t, plt, "compare_binaries", map[string]any{"left_path": plt, "right_path": slot, "detail": "complete"})
	sum := r["summary"].(map[string]any)
	if sum["matched"] != sum["left_functions"] || sum["matched"] != sum["right_functions"] {
		t.Errorf("not every function matched: %v", sum)
	}
	for _, it := range r["changed"].([]any) {
		p := it.(map[string]any)
		if dims := fmt.Sprint(p["changed_dimensions"]); strings.Contains(dims, "calls") {
			t.Errorf("%v changed its calls: %v", p["left"].(map[string]any)["name"], p["differences"].(map[string]any)["calls"])
		}
	}
	l, rt := r["left"].(map[string]any)["imports"], r["right"].(map[string]any)["imports"]
	if l != rt || l == 0.0 {
		t.Errorf("imports: %v with stubs, %v through slots", l, rt)
	}
	if imp := r["imports"].(map[string]any); len(imp["added"].([]any))+len(imp["removed"].([]any)) > 0 {
		t.Errorf("imports added %v, removed %v", imp["added"], imp["removed"])
	}
}
