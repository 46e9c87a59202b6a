package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestTraceFeatureConcise: trace_feature listed every caller and callee
// of each procedure using the seeds (68 nodes and 67 edges, 20 KB, for
// "color" in ls, whose main uses it). Now the default lists at most 10
// callees and 10 callers of each such procedure, says how many were left
// out and how to get them; detail "complete" returns the whole
// neighbourhood.
func TestTraceFeatureConcise(t *testing.T) {
	is := is.New(t)
	exe := wideProgram(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)

	_, full := evidence(t, call(t, cs, "trace_feature", map[string]any{"query": "color", "detail": "complete"}))
	fullNodes, fullEdges := full["nodes"].([]any), full["edges"].([]any)
	is.True(len(fullNodes) >= 102) // main, puts, f0..f99 and main's callers

	ev, m := evidence(t, call(t, cs, "trace_feature", map[string]any{"query": "color"}))
	is.Equal(len(m["procedures"].([]any)), 1) // main uses the literal
	is.Equal(m["seeds"], full["seeds"])
	nodes, edges := m["nodes"].([]any), m["edges"].([]any)
	is.True(len(nodes) <= 21) // main, 10 callees, at most 10 callers
	is.True(len(edges) <= 20)
	is.Equal(nodes[0].(map[string]any)["name"], "main")
	want := fmt.Sprintf("%d of the %d procedures and %d of the %d calls", len(nodes), len(fullNodes), len(edges), len(fullEdges))
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.Contains(l, want) && strings.Contains(l, `detail "complete"`)
	}))
}

// A cut trace names the bound that stopped it (it said "limit,
// max_operations or 500 nodes"), so an agent raises the right one.
func TestTraceFeatureNamesItsBound(t *testing.T) {
	is := is.New(t)
	exe := wideProgram(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	stopped := func(args map[string]any) string {
		ev, _ := evidence(t, call(t, cs, "trace_feature", args))
		for _, l := range ev.Limitations {
			if strings.HasPrefix(l, "The trace stopped: ") {
				return l
			}
		}
		return ""
	}
	// Finding the seed and walking from main take more than one operation.
	l := stopped(map[string]any{"query": "color", "max_operations": 1})
	is.True(strings.Contains(l, "max_operations (1) ran out"))
	is.True(!strings.Contains(l, "limit ("))
	// The program's strings hold "f" many times: one is taken.
	l = stopped(map[string]any{"query": "f", "limit": 1})
	is.True(strings.Contains(l, "limit (1) cut the seeds"))
	is.True(!strings.Contains(l, "max_operations"))
	is.Equal(stopped(map[string]any{"query": "color"}), "") // nothing cut
}
