package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestTraceCallPathConcise: with a goal, trace_call_path answers the path
// (its nodes and edges) by default, and when it finds none says so with how
// far it looked and how to get what it explored; detail "complete" returns
// the explored graph. Before, a not-found search returned every node and
// edge it had explored (14.5 KB on a 300-line program) and a found one
// every node beside the path.
func TestTraceCallPathConcise(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "paths", `#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) * 2; }
int (*volatile hook)(int) = leaf;
__attribute__((noinline)) int side(int x) { puts("side"); return hook(x); }
__attribute__((noinline)) int lonely(int x) { return x - 3; }
int main(int c, char **v) { (void)v; puts("go"); return mid(c) + side(c); }
`)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	count := func(m map[string]any, key string) int { return len(m[key].([]any)) }

	ev, m := evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": "lonely"}))
	is.Equal(m["found"], false)
	is.Equal(count(m, "nodes"), 0) // left out: the limitation says so
	is.Equal(count(m, "edges"), 0)
	i := slices.IndexFunc(ev.Limitations, func(l string) bool { return strings.HasPrefix(l, "No path from main to lonely") })
	is.True(i >= 0)
	lim := ev.Limitations[i]
	is.True(strings.Contains(lim, "searched the whole reachable call graph")) // no bound cut it
	is.True(strings.Contains(lim, `detail "complete"`))
	// The procedures whose indirect calls were not followed are named,
	// not left to nodes the concise answer leaves out.
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "1 of the procedures searched make 1 unresolved") && strings.HasSuffix(l, "they are in side.")
	}))

	_, full := evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": "lonely", "detail": "complete"}))
	is.Equal(full["found"], false)
	is.True(count(full, "nodes") >= 5) // main, puts, mid, side, leaf
	is.True(strings.Contains(lim, strings.Join([]string{itoa(count(full, "nodes")), "procedures"}, " ")))

	// A depth bound says so.
	ev, _ = evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": "lonely", "max_depth": 1}))
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "No path from main to lonely") && strings.Contains(l, "max_depth 1")
	}))

	// Found: the path's nodes and edges, not main's other callees.
	_, m = evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": "leaf"}))
	is.Equal(m["found"], true)
	is.Equal(count(m, "path"), 3)
	is.Equal(count(m, "nodes"), 3)
	is.Equal(count(m, "edges"), 2)
	_, full = evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main", "goal": "leaf", "detail": "complete"}))
	is.True(count(full, "nodes") > 3)

	// Without a goal the reachable graph is the answer.
	_, m = evidence(t, call(t, cs, "trace_call_path", map[string]any{"start": "main"}))
	is.True(count(m, "nodes") >= 5)
}
