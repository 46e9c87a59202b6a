package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// wideProgram is a C program whose main calls 100 procedures (each of
// which calls leaf) and references a "color" literal: a call graph and a
// listing too large to return whole by default.
func wideProgram(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n__attribute__((noinline)) int leaf(int x) { return x + 1; }\n")
	for i := range 100 {
		fmt.Fprintf(&b, "__attribute__((noinline)) int f%d(int x) { return leaf(x) * %d; }\n", i, i+2)
	}
	b.WriteString("int main(int c, char **v) { (void)v; int s = 0; puts(\"color mode on\");\n")
	for i := range 100 {
		fmt.Fprintf(&b, "  s += f%d(c + %d);\n", i, i)
	}
	b.WriteString("  return s; }\n")
	return buildC(t, "wide", b.String())
}

// TestTraceCallPathConciseWithoutGoal: without a goal, trace_call_path
// answered the whole explored graph by default, concise and complete alike
// (97 KB on ls's main, 175 KB on cc1's), and said nothing of how to get
// more. Now the default lists the nearest procedures (breadth-first, the
// start first) and the calls between them, and a limitation gives the
// counts, the depth reached and how to get the rest; detail "complete"
// returns the explored graph.
func TestTraceCallPathConciseWithoutGoal(t *testing.T) {
	is := is.New(t)
	exe := wideProgram(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)

	_, full := evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "detail": "complete"}))
	fullNodes, fullEdges := full["nodes"].([]any), full["edges"].([]any)
	is.True(len(fullNodes) >= 103) // main, puts, f0..f99, leaf

	ev, m := evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main"}))
	nodes, edges := m["nodes"].([]any), m["edges"].([]any)
	is.True(len(nodes) > 0 && len(nodes) <= 40)
	is.Equal(nodes[0].(map[string]any)["name"], "main")
	listed := map[string]bool{}
	for k, n := range nodes {
		nm := n.(map[string]any)
		is.Equal(nm, fullNodes[k].(map[string]any)) // the walk's order: nearest first
		listed[nm["address"].(string)] = true
	}
	is.True(len(edges) > 0 && len(edges) < len(fullEdges))
	for _, e := range edges {
		em := e.(map[string]any)
		is.True(listed[em["from"].(string)] && listed[em["to"].(string)]) // only calls between listed nodes
	}
	want := fmt.Sprintf("%d of the %d procedures and %d of the %d calls", len(nodes), len(fullNodes), len(edges), len(fullEdges))
	i := slices.IndexFunc(ev.Limitations, func(l string) bool { return strings.Contains(l, want) })
	is.True(i >= 0) // the counts
	is.True(strings.Contains(ev.Limitations[i], "depth 2"))
	is.True(strings.Contains(ev.Limitations[i], `detail "complete"`))

	// A small graph is whole by default, and says nothing.
	ev, m = evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "f3"}))
	is.Equal(len(m["nodes"].([]any)), 2)
	is.True(!slices.ContainsFunc(ev.Limitations, func(l string) bool { return strings.Contains(l, `detail "complete"`) }))
}

// TestTraceCallPathCutWithoutGoal: a walk without a goal that max_nodes
// cut said "a path may exist beyond it", though no path was sought. It now
// says more procedures are reachable, and how to see further.
func TestTraceCallPathCutWithoutGoal(t *testing.T) {
	is := is.New(t)
	exe := wideProgram(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	ev, m := evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "max_nodes": 10}))
	is.Equal(m["truncated"], true)
	is.True(!slices.ContainsFunc(ev.Limitations, func(l string) bool { return strings.Contains(l, "a path may exist") }))
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.Contains(l, "stopped at max_nodes or max_operations") && strings.Contains(l, "more procedures are reachable")
	}))
	// With a goal the warning is about the path.
	ev, _ = evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": "leaf", "max_nodes": 200, "max_operations": 1}))
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool { return strings.Contains(l, "max_operations") }))
}
