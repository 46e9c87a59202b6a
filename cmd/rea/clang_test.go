package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// clangSource has a dense switch (a jump table at -O2 under both
// compilers), libc imports, and an external function inlined into main and
// also kept out of line, whose debug entry refers to the abstract one.
const clangSource = `#include <stdio.h>
#include <string.h>
long scaled(long v, const char *tag) { printf("%s %ld\n", tag, v); return v * 3; }
__attribute__((noinline)) int dispatch(int c, const char *arg) {
	switch (c) {
	case 0: return puts("rea-clang-case-zero");
	case 1: return (int)strlen(arg) + 1;
	case 2: return (int)scaled(c, arg);
	case 3: return puts(arg) * 3;
	case 4: return (int)strlen(arg) * 4;
	case 5: return putchar('5');
	case 6: return puts("rea-clang-case-six") + 6;
	case 7: return (int)strlen(arg) ^ 7;
	default: return -1;
	}
}
int main(int argc, char **argv) { return dispatch(argc, argv[0]) + (int)scaled(argc, "main"); }
`

// TestMCPClangMatchesGCC: an agent's first calls on a clang -O2 PIE with
// DWARF 5 answer as on the gcc build of the same source: list_procedures
// names the same functions, analyze_function on the switch finds its jump
// table, the same callees and the parameter names (also of the inlined
// function's out-of-line copy), and find_xrefs_to_name on a libc import
// reaches the same callers.
func TestMCPClangMatchesGCC(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed: apt install clang")
	}
	type answers struct {
		procedures, callees, putsCallers []string
		params                           map[string][]string
		cases                            int
	}
	ask := func(t *testing.T, cc string) answers {
		is := is.New(t)
		exe := buildCWith(t, cc, "switch-"+cc, clangSource, "-O2", "-fPIE", "-pie")
		cs := mcpClient(t)
		is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
		var out answers

		_, m := evidence(t, call(t, cs, "list_procedures", map[string]any{"limit": 500}))
		for _, p := range m["items"].([]any) {
			name, _ := p.(map[string]any)["value"].(string)
			// crt's functions, import stubs and gcc's .cold parts aside
			if !strings.HasPrefix(name, "_") && !strings.HasSuffix(name, "@plt") && !strings.Contains(name, "tm_clones") &&
				name != "frame_dummy" && !strings.HasSuffix(name, ".cold") {
				out.procedures = append(out.procedures, name)
			}
		}
		slices.Sort(out.procedures)

		out.params = map[string][]string{}
		for _, fn := range []string{"dispatch", "scaled"} {
			_, m = evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": fn, "detail": "complete"}))
			api := m["native_api"].(map[string]any)
			is.Equal(api["available"], true) // DWARF describes it
			for _, p := range api["parameters"].([]any) {
				name, _ := p.(map[string]any)["name"].(string)
				out.params[fn] = append(out.params[fn], name)
			}
			if fn != "dispatch" {
				continue
			}
			for _, c := range m["callees"].(map[string]any)["items"].([]any) {
				if name := c.(map[string]any)["name"].(string); !strings.HasSuffix(name, ".cold") {
					out.callees = append(out.callees, name)
				}
			}
			slices.Sort(out.callees)
			out.callees = slices.Compact(out.callees)
			for _, jt := range api["jump_tables"].([]any) {
				out.cases += len(jt.(map[string]any)["targets"].([]any))
			}
		}

		_, m = evidence(t, call(t, cs, "find_xrefs_to_name", map[string]any{"name": "puts"}))
		for _, r := range m["references"].([]any) {
			r := r.(map[string]any)
			if p, ok := r["from_procedure"].(map[string]any); ok && (r["kind"] == "call" || r["kind"] == "jump") {
				out.putsCallers = append(out.putsCallers, p["name"].(string)+" "+r["kind"].(string))
			}
		}
		slices.Sort(out.putsCallers) // dispatch's calls and its tail call, the stub's jump
		return out
	}
	var gcc, clang answers
	t.Run("gcc", func(t *testing.T) { gcc = ask(t, "gcc") })
	t.Run("clang", func(t *testing.T) { clang = ask(t, "clang") })
	if t.Failed() || gcc.params == nil || clang.params == nil {
		return
	}
	is := is.New(t)
	t.Logf("gcc %+v\nclang %+v", gcc, clang)
	is.Equal(clang.procedures, gcc.procedures)
	is.True(slices.Contains(clang.procedures, "dispatch") && slices.Contains(clang.procedures, "scaled"))
	is.Equal(clang.callees, gcc.callees)
	is.Equal(clang.params, map[string][]string{"dispatch": {"c", "arg"}, "scaled": {"v", "tag"}})
	is.Equal(gcc.params, clang.params)
	is.True(clang.cases >= 8 && gcc.cases >= 8) // the switch's cases, from its jump table
	is.Equal(clang.putsCallers, gcc.putsCallers)
	is.True(slices.Contains(clang.putsCallers, "dispatch call"))
}
