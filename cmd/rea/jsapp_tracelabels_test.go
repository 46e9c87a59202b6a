package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Two different nodes of one trace result never read alike: renderer.js
// starts a worker whose script is worker.js, and the worker node and the
// file were both labelled "worker.js", so an outgoing trace read
// "renderer.js > worker.js > worker.js". Where humanLabel gives two nodes
// of a result the same text, each says its kind; a node keeps one label
// throughout the result (paths, graph, seed matches), and labels no other
// node shares stay as they were.
func TestTraceLabelsTellNodesApart(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	for _, c := range []struct {
		seed      map[string]any
		direction string
		want      string
	}{
		{map[string]any{"kind": "module", "value": "renderer.js"}, "outgoing", "renderer.js > worker.js (worker) > worker.js (file)"},
		{map[string]any{"kind": "module", "value": "worker.js"}, "incoming", "worker.js (file) < worker.js (worker) < renderer.js < renderer process index.html < BrowserWindow in main.js < main.js < main process main.js"},
		{map[string]any{"kind": "ipc-channel", "value": "dialog:open"}, "both", "ipc dialog:open > window.api {log, open} > renderer.js > worker.js (worker) > worker.js (file)"},
	} {
		tr := jaCall(t, s, "trace_application_feature", map[string]any{
			"application": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)},
			"seed":        c.seed, "direction": c.direction})
		var out struct {
			SeedMatches []struct {
				NodeID string `json:"node_id"`
				Label  string `json:"label"`
			} `json:"seed_matches"`
			Paths []struct {
				NodeIDs []string `json:"node_ids"`
				Labels  []string `json:"labels"`
			} `json:"paths"`
			Graph struct {
				Nodes []struct {
					NodeID string `json:"node_id"`
					Label  string `json:"label"`
				} `json:"nodes"`
			} `json:"graph"`
		}
		if err := json.Unmarshal(tr.NormalizedResult, &out); err != nil {
			t.Fatal(err)
		}
		named := map[string]string{} // label -> the node it names
		name := func(label, id string) {
			if other, ok := named[label]; ok && other != id {
				t.Errorf("%v %s: %q names two nodes, %s and %s", c.seed, c.direction, label, other, id)
			}
			named[label] = id
		}
		for _, m := range out.SeedMatches {
			name(m.Label, m.NodeID)
		}
		for _, n := range out.Graph.Nodes {
			name(n.Label, n.NodeID)
		}
		sep := " > "
		if c.direction == "incoming" {
			sep = " < "
		}
		var got []string
		for _, p := range out.Paths {
			for i, l := range p.Labels {
				name(l, p.NodeIDs[i])
			}
			got = append(got, strings.Join(p.Labels, sep))
		}
		if !slices.Contains(got, c.want) {
			t.Errorf("%v %s:\n got %q\nwant a path %q", c.seed, c.direction, got, c.want)
		}
	}
}

// compare_application_versions labels its items as traces label their
// nodes: the Electron fixture's worker node and its script were both
// "worker.js" on each side of a comparison. Each label of a side now
// names one node of it.
func TestCompareLabelsTellNodesApart(t *testing.T) {
	s := jaSession(t)
	ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": "testdata/jsapp/electron"})
	ref := map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	cv := jaCall(t, s, "compare_application_versions", map[string]any{"left": ref, "right": ref})
	var out struct {
		Items []struct {
			LeftNodeID  *string `json:"left_node_id"`
			LeftLabel   *string `json:"left_label"`
			RightNodeID *string `json:"right_node_id"`
			RightLabel  *string `json:"right_label"`
		} `json:"items"`
	}
	if err := json.Unmarshal(cv.NormalizedResult, &out); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"left", "right"} {
		named := map[string]string{} // label -> the node it names
		for _, it := range out.Items {
			id, label := it.LeftNodeID, it.LeftLabel
			if side == "right" {
				id, label = it.RightNodeID, it.RightLabel
			}
			if id == nil {
				continue
			}
			if other, ok := named[*label]; ok && other != *id {
				t.Errorf("%s: %q names two nodes, %s and %s", side, *label, other, *id)
			}
			named[*label] = *id
		}
		for _, want := range []string{"worker.js (worker)", "worker.js (file)", "renderer.js"} {
			if _, ok := named[want]; !ok {
				t.Errorf("%s: no item labelled %q", side, want)
			}
		}
	}
}

// A label of one side that the other side gives a different node is told
// apart too: version 1's file worker.js, removed, and version 2's worker
// worker.js (new Worker("worker.js"), the file gone), added, were both
// "worker.js", which read as one node on both sides. Now each names its
// kind; a node paired with itself keeps its label.
func TestCompareLabelsTellSidesApart(t *testing.T) {
	s := jaSession(t)
	ref := func(files map[string]string) map[string]any {
		ev := jaCall(t, s, "analyze_javascript_application", map[string]any{"path": writeTree(t, files)})
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	left := ref(map[string]string{"package.json": `{"name":"w","main":"main.js"}`, "main.js": "console.log(1);\n", "worker.js": "postMessage(1);\n"})
	right := ref(map[string]string{"package.json": `{"name":"w","main":"main.js"}`, "main.js": "const w = new Worker(\"worker.js\");\n"})
	cv := jaCall(t, s, "compare_application_versions", map[string]any{"left": left, "right": right})
	var out struct {
		Items []struct {
			Status     string  `json:"status"`
			LeftLabel  *string `json:"left_label"`
			RightLabel *string `json:"right_label"`
		} `json:"items"`
	}
	if err := json.Unmarshal(cv.NormalizedResult, &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		l, r := "-", "-"
		if it.LeftLabel != nil {
			l = *it.LeftLabel
		}
		if it.RightLabel != nil {
			r = *it.RightLabel
		}
		got = append(got, it.Status+": "+l+" | "+r)
	}
	slices.Sort(got)
	want := []string{"added: - | worker.js (worker)", "changed: main.js | main.js", "removed: worker.js (file) | -", "unchanged: w (package.json) | w (package.json)"}
	if !slices.Equal(got, want) {
		t.Errorf("items:\n got %q\nwant %q", got, want)
	}
}
