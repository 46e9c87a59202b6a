package jsapp

import "testing"

// traceLabels leaves a label that names one node as humanLabel gives it,
// adds the kind where two nodes of different kinds read alike, the file
// each was seen in where their kinds read alike too, and the node ID where
// nothing else tells them apart; a node listed twice is one node.
func TestTraceLabelsOnlyWhereTwoNodesReadAlike(t *testing.T) {
	obs := func(label string) []Observation { return []Observation{{Label: &label}} }
	// A computed fs key, by its expression, seen in path.
	key := func(path string) []Observation {
		label := "fs:${path.join(dir, name)}"
		return []Observation{{Label: &label, Properties: map[string]any{"area": "fs", "key": "${}", "expression": "${path.join(dir, name)}"},
			Evidence: GraphEvidence{Locations: []GraphLocation{{Path: path}}}}}
	}
	nodes := []*Node{
		{NodeID: "jag_node_aaaaaaaaaaaa1", Kind: "javascript-asset", Identity: map[string]any{"path": "worker.js"}},
		{NodeID: "jag_node_bbbbbbbbbbbb1", Kind: "worker", Observations: obs("worker.js")},
		{NodeID: "jag_node_cccccccccccc1", Kind: "endpoint", Observations: obs("https://x/")},
		{NodeID: "jag_node_dddddddddddd1", Kind: "endpoint", Observations: obs("https://x/")},
		{NodeID: "jag_node_eeeeeeeeeeee1", Kind: "javascript-asset", Identity: map[string]any{"path": "main.js"}},
		{NodeID: "jag_node_ffffffffffff1", Kind: "storage", Observations: key("main.js")},
		{NodeID: "jag_node_ffffffffffff2", Kind: "storage", Observations: key("lib/store.js")},
	}
	ix := &appIndex{nodes: map[string]*Node{}}
	var ids []string
	for _, n := range nodes {
		ix.nodes[n.NodeID] = n
		ids = append(ids, n.NodeID, n.NodeID)
	}
	got := traceLabels(ix, ids)
	want := map[string]string{
		"jag_node_aaaaaaaaaaaa1": "worker.js (file)",
		"jag_node_bbbbbbbbbbbb1": "worker.js (worker)",
		"jag_node_cccccccccccc1": "https://x/ (endpoint jag_node_cccccccccccc)",
		"jag_node_dddddddddddd1": "https://x/ (endpoint jag_node_dddddddddddd)",
		"jag_node_eeeeeeeeeeee1": "main.js",
		"jag_node_ffffffffffff1": "fs ${path.join(dir, name)} (storage in main.js)",
		"jag_node_ffffffffffff2": "fs ${path.join(dir, name)} (storage in lib/store.js)",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d labels, want %d: %v", len(got), len(want), got)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: got %q, want %q", id, got[id], w)
		}
	}
}
