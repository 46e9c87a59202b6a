package jsapp

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"
)

// TestBuilderEdgesKeepPropertiesAsText: the application builder's prepared
// edges hold their properties as shared canonical text, not as maps (which
// took about half of a prepared edge's bytes until the seal), and the
// sealed graph is byte for byte the one a graph keeping the maps gives,
// with the same edge IDs.
func TestBuilderEdgesKeepPropertiesAsText(t *testing.T) {
	build := func(g *graphBuild) *Graph {
		root := g.node("artifact", identity(idContentDigest, stabilityGlobal, map[string]any{"sha256": "r"}), "", nil, inventoryEv("."))
		g.root(root)
		var ids []string
		for i := range 40 {
			ids = append(ids, g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"path": fmt.Sprint(i)}),
				"", nil, inventoryEv(fmt.Sprint(i))))
		}
		shared := map[string]any{"kind": "require", "specifier": "./x", "names": strSlice([]string{"a", "b"})}
		for i := range 600 { // more than one background batch
			to := ids[i%len(ids)]
			switch i % 5 {
			case 0:
				g.edge(root, to, "contains", map[string]any{"path": fmt.Sprint(i)}, inventoryEv("."))
			case 1:
				g.edge(ids[(i+1)%len(ids)], to, "imports", shared, at(fmt.Sprint(i%7), int64(i)))
			case 2:
				g.edge(ids[(i+3)%len(ids)], to, "imports", nil, at(fmt.Sprint(i%7), int64(i))) // no properties
			case 3: // a value bounding cuts, and a nested one
				g.edge(ids[(i+2)%len(ids)], to, "calls", map[string]any{"n": i, "s": string(bytes.Repeat([]byte{'x'}, jagMaxPropString+i)),
					"m": map[string]any{"z": []any{1.5, "é", nil, true}}}, at("c.js", int64(i)))
			default: // another basis: a row with more cells
				ev := inventoryEv(fmt.Sprint(i % 3))
				ev.Basis = "derived"
				g.edge(ids[(i+5)%len(ids)], to, "loads", map[string]any{}, ev)
			}
		}
		graph, _ := g.seal(nil, nil, "r")
		return graph
	}
	plain := build(newGraphBuild())
	lean := newJSAppBuilder(&jsappState{}).g
	compact := build(lean)
	if got, want := compact.sealed.AppendTo(nil), plain.sealed.AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatalf("the sealed graphs differ:\n%.400s\n%.400s", got, want)
	}
	if compact.GraphID != plain.GraphID || len(compact.Edges) != len(plain.Edges) || len(plain.Edges) < 500 {
		t.Fatalf("graph %s with %d edges, want %s with %d", compact.GraphID, len(compact.Edges), plain.GraphID, len(plain.Edges))
	}
	texts, data := map[string]int{}, map[string]*byte{}
	for i, e := range compact.Edges {
		if e.EdgeID != plain.Edges[i].EdgeID {
			t.Fatalf("edge %d is %s, want %s", i, e.EdgeID, plain.Edges[i].EdgeID)
		}
		if e.Properties != nil || e.props == "" {
			t.Fatalf("edge %s keeps its properties as a map of %d members (text %.80q)", e.EdgeID, len(e.Properties), e.props)
		}
		texts[e.props]++
		if d, ok := data[e.props]; ok && d != unsafe.StringData(e.props) {
			t.Fatalf("edge %s holds its own copy of %s", e.EdgeID, e.props)
		}
		data[e.props] = unsafe.StringData(e.props)
	}
	if n := texts[`{"kind":"require","names":["a","b"],"specifier":"./x"}`]; n < 100 {
		t.Errorf("the shared properties are held by %d edges", n)
	}
	for _, e := range plain.Edges {
		if e.props != "" || e.Properties == nil {
			t.Fatalf("a graph that keeps its maps gave edge %s the text %q", e.EdgeID, e.props)
		}
	}
}
