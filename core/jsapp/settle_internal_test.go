package jsapp

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// TestSettledGraphIsTheSameOnOneCore builds a graph with more records than
// one background batch, duplicates and a node past its observation limit,
// with several cores and with one: the sealed bytes must be equal, as if
// each record had been added when it was made.
func TestSettledGraphIsTheSameOnOneCore(t *testing.T) {
	build := func(procs int) ([]byte, int) {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		g := newGraphBuild()
		root := g.node("artifact", identity(idContentDigest, stabilityGlobal, map[string]any{"sha256": "r"}), "", nil, inventoryEv("."))
		g.root(root)
		var ids []string
		for i := range 900 {
			ids = append(ids, g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"path": fmt.Sprint(i % 300)}),
				fmt.Sprint(i), map[string]any{"n": i % 450, "names": []string{"a", "b"}}, at(fmt.Sprint(i%300), int64(i))))
		}
		for i := range 200 { // one node observed far past jagMaxObservations
			g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"path": "0"}), "", map[string]any{"k": i}, inventoryEv("0"))
		}
		for i := range 3000 {
			j := i % 1700
			g.edge(root, ids[j%len(ids)], "contains", map[string]any{"i": j}, inventoryEv(fmt.Sprint(j%5)))
		}
		graph, _ := g.seal(nil, nil, "r")
		// The first 64 observations of node "0" are kept: its three from the
		// asset loop and k 0..60.
		for _, n := range graph.Nodes {
			if n.NodeID != ids[0] {
				continue
			}
			if len(n.Observations) != jagMaxObservations {
				t.Fatalf("%d observations, want %d", len(n.Observations), jagMaxObservations)
			}
			for _, o := range n.Observations {
				if k, ok := o.Properties["k"].(int); ok && k > 60 {
					t.Fatalf("observation k=%d kept: observations were not added in the order they were made", k)
				}
			}
		}
		return []byte(graph.sealed), len(graph.Edges)
	}
	one, edges := build(1)
	many, _ := build(4)
	if !bytes.Equal(one, many) {
		t.Fatal("the graph sealed with 4 cores differs from the graph sealed with 1")
	}
	if edges != 1700 {
		t.Fatalf("%d edges, want 1700 (duplicates dropped)", edges)
	}
}
