package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// identitySrc references strings and calls seven libc functions; at -O2
// greet tail-calls printf, which gcc -fno-plt makes a jump through
// printf's GOT slot. run's body is the argument.
const runBody = `puts(s); puts("done");`

const identitySrc = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void greet(const char *s) { puts(s); printf("length %%zu\n", strlen(s)); }
__attribute__((noinline)) char *copy(const char *s) { char *p = malloc(strlen(s) + 1); if (!p) { fputs("out of memory\n", stderr); exit(1); } return strcpy(p, s); }
__attribute__((noinline)) void run(const char *s) { %s }
int main(int argc, char **argv) { char *s = copy(argv[0]); greet(s); run(s); free(s); return argc; }
`

// compareOverMCP runs compare_binaries (complete) on one connection.
func compareOverMCP(t *testing.T, cs *sdk.ClientSession, l, r string) map[string]any {
	t.Helper()
	_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": l, "right_path": r, "detail": "complete"}))
	return m
}

// TestCompareBinariesPLTAgainstSlotAtO2: the same program at -O2 built
// with and without gcc -fno-plt calls, tail-calls and references each
// import through its stub in one build and through its GOT slot in the
// other. No function changes its calls or references for that, nor shows
// a tail call as an unresolved jump in its cfg.
func TestCompareBinariesPLTAgainstSlotAtO2(t *testing.T) {
	src := fmt.Sprintf(identitySrc, runBody)
	plt := buildC(t, "plt", src, "-O2")
	slot := buildC(t, "slot", src, "-O2", "-fno-plt")
	r := compareOverMCP(t, mcpClient(t), plt, slot)
	sum := r["summary"].(map[string]any)
	if sum["matched"] != sum["left_functions"] || sum["matched"] != sum["right_functions"] {
		t.Errorf("not every function matched: %v", sum)
	}
	for _, it := range r["changed"].([]any) {
		p := it.(map[string]any)
		name, diffs := p["left"].(map[string]any)["name"], p["differences"].(map[string]any)
		for _, dim := range []string{"calls", "references"} {
			if d, ok := diffs[dim]; ok {
				t.Errorf("%v changed its %s: %v", name, dim, d)
			}
		}
		if d, ok := diffs["cfg"]; ok && strings.Contains(fmt.Sprint(d), "edges.unresolved") {
			t.Errorf("%v: a tail call through a slot is an unresolved edge: %v", name, d)
		}
	}
	if imp := r["imports"].(map[string]any); len(imp["added"].([]any))+len(imp["removed"].([]any)) > 0 {
		t.Errorf("imports added %v, removed %v", imp["added"], imp["removed"])
	}
}

// TestAddedImportCallAcrossBuilds: the only change is run's added call to
// a new import, system, as a call or (last) as a tail call. Built with
// stubs or with gcc -fno-plt (-O2), the comparison shows it in run's calls
// and in imports.added, and find_changed_behavior ranks it as an import
// call, the same way in both builds.
func TestAddedImportCallAcrossBuilds(t *testing.T) {
	for _, v2body := range []string{`puts(s); system(s); puts("done");`, runBody + ` system(s);`} {
		t.Run(v2body, func(t *testing.T) { addedImportCall(t, v2body) })
	}
}

func addedImportCall(t *testing.T, v2body string) {
	v1src, v2src := fmt.Sprintf(identitySrc, runBody), fmt.Sprintf(identitySrc, v2body)
	cs := mcpClient(t)
	type behaviour struct {
		Kind           string
		Added, Removed []string
	}
	type ranked struct {
		Score      float64
		Behaviours []behaviour
	}
	got := map[string]ranked{}
	for _, build := range []struct {
		name  string
		flags []string
		shown string // how run's call to system is named
	}{{"plt", []string{"-O2"}, "system@plt"}, {"slot", []string{"-O2", "-fno-plt"}, "system"}} {
		v1 := buildC(t, build.name+"1", v1src, build.flags...)
		v2 := buildC(t, build.name+"2", v2src, build.flags...)
		r := compareOverMCP(t, cs, v1, v2)
		if imp := r["imports"].(map[string]any); fmt.Sprint(imp["added"]) != "[system]" || len(imp["removed"].([]any)) > 0 {
			t.Errorf("%s: imports added %v, removed %v", build.name, imp["added"], imp["removed"])
		}
		var changed []string
		for _, it := range r["changed"].([]any) {
			p := it.(map[string]any)
			name := fmt.Sprint(p["left"].(map[string]any)["name"])
			changed = append(changed, name)
			if name != "run" {
				continue
			}
			calls, _ := p["differences"].(map[string]any)["calls"].(map[string]any)
			if fmt.Sprint(calls["added"]) != "["+build.shown+"]" || fmt.Sprint(calls["imports"]) != "["+build.shown+"]" {
				t.Errorf("%s: run's calls difference %v", build.name, calls)
			}
		}
		if !slices.Contains(changed, "run") {
			t.Errorf("%s: run is not changed (changed: %v)", build.name, changed)
		}
		var res struct {
			Items []struct {
				Left struct{ Name string }
				ranked
			}
		}
		_, m := evidence(t, call(t, cs, "find_changed_behavior", map[string]any{"left_path": v1, "right_path": v2}))
		decode(t, m, &res)
		for _, it := range res.Items {
			if it.Left.Name == "run" {
				got[build.name] = it.ranked
			}
		}
		want := []behaviour{{Kind: "import_calls", Added: []string{build.shown}, Removed: []string{}}}
		if b := got[build.name].Behaviours; fmt.Sprint(b) != fmt.Sprint(want) {
			t.Errorf("%s: run's behaviours %+v, want %+v", build.name, b, want)
		}
	}
	if got["plt"].Score != got["slot"].Score {
		t.Errorf("run scores %v with stubs, %v through slots", got["plt"].Score, got["slot"].Score)
	}
}

// TestCompareFunctionsPLTAgainstSlot: compare_functions from two
// analyze_function records of one function, built with and without gcc
// -fno-plt, sees the same calls and references.
func TestCompareFunctionsPLTAgainstSlot(t *testing.T) {
	src := fmt.Sprintf(identitySrc, runBody)
	plt := buildC(t, "plt", src, "-O2")
	slot := buildC(t, "slot", src, "-O2", "-fno-plt")
	cs := mcpClient(t)
	record := func(path, proc string) map[string]any {
		t.Helper()
		if r := call(t, cs, "open_binary", map[string]any{"path": path}); r.isError {
			t.Fatal(r.text)
		}
		ev, _ := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": proc, "detail": "complete"}))
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	for _, proc := range []string{"greet", "copy", "main"} {
		l, r := record(plt, proc), record(slot, proc)
		var c struct {
			Dimensions map[string]struct {
				Status         string
				Added, Removed []string
			}
		}
		_, m := evidence(t, call(t, cs, "compare_functions", map[string]any{"left": l, "right": r}))
		decode(t, m, &c)
		for _, dim := range []string{"calls", "references"} {
			if d := c.Dimensions[dim]; d.Status != "unchanged" {
				t.Errorf("%s: %s %s: added %v, removed %v", proc, dim, d.Status, d.Added, d.Removed)
			}
		}
	}
}

// gcc -O2 -fno-plt's tail call, jmp [rip+GOT], is a tail call to the
// import in procedure_callees (external, at its slot), not an unresolved
// transfer, and the import's callers include the function.
func TestNoPLTTailCallIsACallee(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "noplttail", `#include <stdio.h>
__attribute__((noinline)) int say(const char *s) { return printf("%s!\n", s); }
int main(int argc, char **argv) { return say(argv[0]); }
`, "-O2", "-fno-plt")
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	_, m := evidence(t, call(t, cs, "procedure_callees", map[string]any{"procedure": "say"}))
	items := m["items"].([]any)
	is.Equal(len(items), 1)
	it := items[0].(map[string]any)
	is.Equal(it["name"], "printf")
	is.Equal(it["kind"], "tail-call")
	is.Equal(it["external"], true)
	is.Equal(len(m["unresolved"].([]any)), 0)
	_, m = evidence(t, call(t, cs, "procedure_callers", map[string]any{"procedure": "printf"}))
	found := false
	for _, c := range m["items"].([]any) {
		if p, ok := c.(map[string]any)["procedure"].(map[string]any); ok && p["name"] == "say" {
			found = true
		}
	}
	is.True(found)
}
