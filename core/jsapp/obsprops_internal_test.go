package jsapp

import (
	"bytes"
	"fmt"
	"testing"
)

// TestBuilderObservationsKeepPropertiesAsText: the application builder's
// prepared observations hold what their lean rows write of their
// properties as text, not as maps (which were the largest part of an
// observation waiting for the seal), except an IPC channel's, which
// result reads; the sealed graph is byte for byte the one a graph keeping
// the maps gives, with the same observation IDs.
func TestBuilderObservationsKeepPropertiesAsText(t *testing.T) {
	build := func(g *graphBuild) *Graph {
		root := g.node("artifact", identity(idContentDigest, stabilityGlobal, map[string]any{"sha256": "r"}), "", nil, inventoryEv("."))
		g.root(root)
		for i := range 600 { // more than one background batch
			p := fmt.Sprintf("d%d/f%d.js", i%3, i)
			switch i % 5 {
			case 0: // derived members repeated, left out, and one of another value
				g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"path": p, "sha256": "s"}), p,
					map[string]any{"path": p, "sha256": fmt.Sprint(i%2 == 0), "size": i, "exports": []string{"a", "b"}}, inventoryEv(p))
			case 1: // a source module: what its map embeds and where its original resolves
				ident := identity(idSourceMap, stabilitySMExact, map[string]any{"original_source": "../src/x.ts", "source_sha256": nil, "map_sha256": fmt.Sprint(i)})
				g.node("source-module", ident, "", map[string]any{"has_content": i%2 == 0, "original_source": "../src/x.ts"}, at(p, int64(i)))
			case 2: // nothing derived, no properties
				g.node("function", identity(idArtifactLocal, stabilityVersion, map[string]any{"namespace": "f", "key": p}), "", nil, at(p, 1))
			case 3: // a value bounding cuts, and a nested one
				g.node("endpoint", identity(idArtifactLocal, stabilityVersion, map[string]any{"namespace": "e", "key": p}), p,
					map[string]any{"n": i, "s": string(bytes.Repeat([]byte{'x'}, jagMaxPropString+i)), "m": map[string]any{"z": []any{1.5, "é", nil, true}}}, at(p, 2))
			default:
				g.node("ipc-channel", identity(idArtifactLocal, stabilityVersion, map[string]any{"namespace": "ipc-channel", "key": p}), p,
					map[string]any{"channel": p, "status": "paired"}, at(p, 3))
			}
		}
		graph, _ := g.seal(nil, nil, "r")
		return graph
	}
	plain := build(newGraphBuild())
	compact := build(newJSAppBuilder(&jsappState{}).g)
	if got, want := compact.sealed.AppendTo(nil), plain.sealed.AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatalf("the sealed graphs differ:\n%.400s\n%.400s", got, want)
	}
	if compact.GraphID != plain.GraphID || len(compact.Nodes) != len(plain.Nodes) || len(plain.Nodes) < 500 {
		t.Fatalf("graph %s with %d nodes, want %s with %d", compact.GraphID, len(compact.Nodes), plain.GraphID, len(plain.Nodes))
	}
	for i, n := range compact.Nodes {
		for j, o := range n.Observations {
			if want := plain.Nodes[i].Observations[j].ObservationID; o.ObservationID != want {
				t.Fatalf("observation %s, want %s", o.ObservationID, want)
			}
			if n.Kind == "ipc-channel" {
				if o.lean || o.Properties["status"] != "paired" {
					t.Fatalf("channel %s lost its properties map (%v)", n.NodeID, o.Properties)
				}
			} else if !o.lean || o.Properties != nil {
				t.Fatalf("a %s keeps its properties as a map of %d members", n.Kind, len(o.Properties))
			}
		}
	}
	for _, n := range plain.Nodes {
		for _, o := range n.Observations {
			if o.lean || o.Properties == nil {
				t.Fatalf("a graph that keeps its maps gave a %s the text %q", n.Kind, o.props)
			}
		}
	}
}
