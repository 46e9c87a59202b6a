package jsapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"rea/core"
	"rea/ports"
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
		sealed, err := json.Marshal(graph.sealed)
		if err != nil {
			t.Fatal(err)
		}
		return sealed, len(graph.Edges)
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

// TestPropsWithinBoundsAgreesWithBounding checks the shortcut against the
// copy it skips: whenever it says p is within bounds, bounding gives a value
// equal to p; and every way of breaking a bound makes it say no.
func TestPropsWithinBoundsAgreesWithBounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// long is a length below 8, or now and then one about n, either side
	// of a bound.
	long := func(n int) int {
		if rng.IntN(50) == 0 {
			return n - 5 + rng.IntN(20)
		}
		return rng.IntN(8)
	}
	var gen func(depth int) any
	gen = func(depth int) any {
		kinds, wide := 9, 4
		if depth >= 8 {
			kinds = 1 // a string: the tree ends
		}
		if depth == 1 {
			wide = 70
		}
		switch rng.IntN(kinds) {
		case 0:
			return strings.Repeat("x", rng.IntN(5000))
		case 1:
			m := map[string]any{}
			for i := range rng.IntN(wide) {
				m[fmt.Sprint("k", i)] = gen(depth + 1)
			}
			return m
		case 2:
			l := make([]any, rng.IntN(wide))
			for i := range l {
				l[i] = gen(depth + 1)
			}
			return l
		case 3:
			l := make([]string, long(500))
			for i := range l {
				l[i] = strings.Repeat("y", long(jagMaxPropString))
			}
			return l
		case 6:
			l := make(exportShapeList, long(100))
			for i := range l {
				l[i] = namedShape{strings.Repeat("n", long(jagMaxPropString)), ports.JSValueShape{Kind: []string{"", "function", "class"}[rng.IntN(3)], Params: rng.IntN(4) - 1, Rest: rng.IntN(2) == 0}}
			}
			return l
		case 4:
			return int64(rng.IntN(9))
		case 5:
			return nil
		}
		return rng.IntN(2) == 0
	}
	within := 0
	for range 3000 {
		p := map[string]any{}
		for i := range rng.IntN(6) {
			p[fmt.Sprint("p", i)] = gen(1)
		}
		// Bounding the generic form (typed values as the maps and lists
		// they encode as) is what boundProps stands for.
		budget := jagMaxPropNodes
		want, err := core.CanonicalJSON(boundValue(genericProps(p), 0, &budget))
		if err != nil {
			t.Fatal(err)
		}
		if !propsWithinBounds(p) {
			continue // boundProps is then that bounding itself
		}
		// Said within bounds, boundProps keeps p: bounding must not change it.
		within++
		got, err := core.CanonicalJSON(boundProps(p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("said within bounds, but bounding changes %.200v: %.300s, want %.300s", p, got, want)
		}
	}
	// At the edges of the budget and of the depth.
	var edges []map[string]any
	for n := 500; n < 515; n++ {
		edges = append(edges, map[string]any{"l": make([]string, n)}, map[string]any{"a": "b", "l": make(exportShapeList, n/5)})
	}
	for depth := range jagMaxPropDepth + 1 {
		for _, v := range []any{[]string{"a"}, exportShapeList{{name: "n"}}} {
			for range depth {
				v = map[string]any{"k": v}
			}
			edges = append(edges, map[string]any{"v": v})
		}
	}
	for _, p := range edges {
		budget := jagMaxPropNodes
		want, _ := core.CanonicalJSON(boundValue(genericProps(p), 0, &budget))
		if got, _ := core.CanonicalJSON(p); propsWithinBounds(p) && !bytes.Equal(got, want) {
			t.Fatalf("said within bounds, but bounding changes %.200v: %.300s, want %.300s", p, got, want)
		}
	}
	if within < 300 {
		t.Fatalf("only %d of 3000 within bounds: the generator tests too little", within)
	}
	manyKeys := map[string]any{}
	for i := range jagMaxPropKeys + 1 {
		manyKeys[fmt.Sprint(i)] = i
	}
	for _, p := range []map[string]any{
		{"s": strings.Repeat("x", jagMaxPropString+1)},
		{"l": make([]string, jagMaxPropNodes)},
		{"l": exportShapeList{{name: strings.Repeat("x", jagMaxPropString+1)}}},
		{"l": make(exportShapeList, jagMaxPropNodes/5)},
		{"a": map[string]any{"b": map[string]any{"c": map[string]any{"d": map[string]any{"e": map[string]any{"f": map[string]any{}}}}}}},
		{"l": make([]any, jagMaxPropNodes)},
		manyKeys,
	} {
		if propsWithinBounds(p) {
			t.Fatalf("%.80v said within bounds", p)
		}
	}
}

// TestDirectDigestsMatchTheRecordDigest checks the node, edge and observation IDs
// written directly against the digest of the same record built as a map,
// on awkward values: escapes, invalid UTF-8, missing and huge offsets,
// nested and numeric properties, no label.
func TestDirectDigestsMatchTheRecordDigest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "a", "é\u2028\"\\\n\x01", "\xff\xfe", "node_modules/x/index.js", strings.Repeat("z", 300), "𝄞<>&"}
	str := func() string { return strs[rng.IntN(len(strs))] }
	offsets := []*int64{nil, new(int64(0)), new(int64(17)), new(int64(-5)), new(int64(1 << 53)), new(int64(1<<62 + 1))}
	evidence := func() GraphEvidence {
		ev := GraphEvidence{Basis: str(), Confidence: str()}
		if rng.IntN(5) > 0 {
			ev.Locations = []GraphLocation{}
			for range rng.IntN(3) {
				ev.Locations = append(ev.Locations, GraphLocation{Path: str(), Offset: offsets[rng.IntN(len(offsets))]})
			}
		}
		return ev
	}
	props := func() map[string]any {
		p := map[string]any{}
		for range rng.IntN(5) {
			switch rng.IntN(7) {
			case 0:
				p[str()] = str()
			case 1:
				p[str()] = rng.IntN(1000) - 500
			case 2:
				p[str()] = rng.Float64() * 1e22
			case 3:
				p[str()] = map[string]any{str(): []any{str(), nil, true, int64(rng.IntN(9))}}
			case 4:
				p[str()] = offsets[rng.IntN(len(offsets))]
			case 5:
				p[str()] = nil
			default:
				p[str()] = []string{str(), str()}
			}
		}
		return p
	}
	for range 2000 {
		e := &Edge{SourceNodeID: str(), TargetNodeID: str(), Relation: str(), Properties: props(), Evidence: evidence(),
			IdentifierStrategy: &IDStrategy{str(), str()}}
		want := jagDigest(map[string]any{"source_node_id": e.SourceNodeID, "target_node_id": e.TargetNodeID, "relation": e.Relation,
			"properties": e.Properties, "evidence": e.Evidence, "identifier_strategy": e.IdentifierStrategy})
		if got := edgeDigest(e); got != want {
			t.Fatalf("edge %+v: %s, want %s", e, got, want)
		}
		o := &Observation{Properties: props(), Evidence: evidence(), IdentifierStrategy: &IDStrategy{str(), str()}}
		if rng.IntN(2) == 0 {
			l := str()
			o.Label = &l
		}
		kind, ident := str(), props()
		if rng.IntN(9) == 0 {
			ident = nil
		}
		if got, want := nodeDigest(kind, ident), jagDigest(map[string]any{"kind": kind, "identity": ident}); got != want {
			t.Fatalf("node %s %v: %s, want %s", kind, ident, got, want)
		}
		node := str()
		want = jagDigest(map[string]any{"node_id": node, "label": o.Label, "properties": o.Properties,
			"evidence": o.Evidence, "identifier_strategy": o.IdentifierStrategy})
		if got := observationDigest(node, o); got != want {
			t.Fatalf("observation %+v: %s, want %s", o, got, want)
		}
	}
}
