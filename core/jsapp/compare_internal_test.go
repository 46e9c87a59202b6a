package jsapp

import "testing"

// A node seen from several sites has one observation per site, in an order
// that follows the evidence, not the app: the worker worker.js started
// from dist/renderer.js (resolved) and from src/renderer.js (not) came in
// one order in v1 and the other in v2, and compare_application_versions
// called it changed (resolved true -> false) because the last
// observation's value won. The properties compared are the same whatever
// the order; a property with several values compares as their set.
func TestComparedPropertiesIgnoreObservationOrder(t *testing.T) {
	obs := func(resolved bool, at string) Observation {
		return Observation{Properties: map[string]any{"resolved": resolved, "specifier": "worker.js", "type": "worker"},
			Evidence: GraphEvidence{Locations: []GraphLocation{{Path: at}}}}
	}
	index := func(o ...Observation) *appIndex {
		n := &Node{NodeID: "w", Kind: "worker", Identity: map[string]any{"namespace": "worker", "key": "worker.js"}, Observations: o}
		ix := &appIndex{nodes: map[string]*Node{"w": n}}
		ix.res.Graph.Nodes = []*Node{n}
		return ix
	}
	a := cmpNodes(index(obs(true, "dist/renderer.js"), obs(false, "src/renderer.js")), "<asar>/")
	b := cmpNodes(index(obs(false, "src/renderer.js"), obs(true, "dist/renderer.js")), "<asar>/")
	if a[0].props != b[0].props {
		t.Fatalf("the same observations in another order compare as changed: %v vs %v", a[0].propMap, b[0].propMap)
	}
	if it := compareItem(a[0], b[0], "artifact_local_key"); it.Status != "unchanged" || len(it.Changes) != 0 {
		t.Fatalf("status %s, changes %v", it.Status, it.Changes)
	}
	c := cmpNodes(index(obs(true, "dist/renderer.js"), obs(true, "src/renderer.js")), "<asar>/")
	if it := compareItem(a[0], c[0], "artifact_local_key"); it.Status != "changed" {
		t.Fatalf("a site that now resolves its worker is a change; status %s", it.Status)
	}
}

// crossLabels tells a left and a right node of the same label apart when
// they are not paired together: by kind, else by kind and file, else by
// kind and ID (whole when the short IDs read alike); a pair, and a node
// of the same ID, keep their label.
func TestCrossLabels(t *testing.T) {
	node := func(id, kind, label, at string) *cmpNode {
		return &cmpNode{n: &Node{NodeID: id, Kind: kind, Observations: []Observation{{Evidence: GraphEvidence{Locations: []GraphLocation{{Path: at}}}}}}, label: label}
	}
	l := []*cmpNode{
		node("jag_node_aaaaaaaaaaaa1", "javascript-asset", "a", "a.js"),
		node("jag_node_bbbbbbbbbbbb1", "target", "b", "main.js"),
		node("jag_node_cccccccccccc1", "target", "c", "main.js"),
		node("jag_node_dddddddddddd1", "target", "d", "main.js"),
		node("jag_node_same", "target", "e", "main.js"),
		node("jag_node_f00000000000", "target", "f", "main.js"),
	}
	r := []*cmpNode{
		node("jag_node_aaaaaaaaaaaa2", "worker", "a", "a.js"),
		node("jag_node_bbbbbbbbbbbb2", "target", "b", "app.js"),
		node("jag_node_cccccccccccc2", "target", "c", "main.js"),
		node("jag_node_dddddddddddd2", "target", "d", "main.js"),
		node("jag_node_same", "target", "e", "main.js"),
		node("jag_node_f11111111111", "target", "f", "main.js"),
	}
	crossLabels(l, r, map[*cmpNode]*cmpNode{l[3]: r[3]})
	var got []string
	for i := range l {
		got = append(got, l[i].label+" | "+r[i].label)
	}
	want := []string{
		"a (file) | a (worker)",
		"b (target in main.js) | b (target in app.js)",
		"c (target jag_node_cccccccccccc1) | c (target jag_node_cccccccccccc2)", // alike when shortened

		"d | d",
		"e | e",
		"f (target jag_node_f00000000000) | f (target jag_node_f11111111111)",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %q, want %q", i, got[i], want[i])
		}
	}
}
