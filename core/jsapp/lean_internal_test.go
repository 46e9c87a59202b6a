package jsapp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// The lean graph must decode to the v1 graph rea built: the same nodes,
// observations (with their IDs), edges (with their IDs) and order, for
// every case the encoder shortens: default and other bases, confidence,
// labels equal to the key, other labels and null labels, offsets and none,
// identities whose strategy is implied and one whose is not, an artifact
// digest other than the graph's, and an edge to a node the graph lacks.
func TestLeanGraphDecodesToTheBuiltGraph(t *testing.T) {
	const root = "1111111111111111111111111111111111111111111111111111111111111111"
	g := newGraphBuild()
	art := g.node("artifact", identity(idContentDigest, stabilityGlobal, map[string]any{"sha256": root}), "",
		map[string]any{"files": 2}, GraphEvidence{Basis: "artifact-inventory", Locations: []GraphLocation{{Path: "."}}})
	a := g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"artifact_sha256": root, "path": "a.js"}), "a.js",
		map[string]any{"path": "a.js", "size": 12}, GraphEvidence{Basis: "artifact-inventory", Locations: []GraphLocation{{Path: "a.js"}}})
	g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"artifact_sha256": root, "path": "a.js"}), "other label",
		map[string]any{"roles": []any{"main"}}, GraphEvidence{Basis: "derived", Confidence: core.ConfidenceDerived, Locations: []GraphLocation{{Path: "a.js"}}})
	b := g.node("javascript-module", identity(idArtifactLocal, stabilityVersion, map[string]any{"artifact_sha256": "22", "namespace": "a.js#webpack", "key": "./b"}), "",
		nil, at("a.js", 40))
	odd := g.node("storage", map[string]any{"strategy": idCanonicalPath, "stability": "odd", "key": "k"}, "k", nil, at("b.js", -1))
	// Source modules of one map: the map's digest is shared (a digests
	// entry); the first's properties all follow from its identity and
	// location, the second's has_content and original_source do not, the
	// third's resolved_path is missing.
	const mapSHA = "3333333333333333333333333333333333333333333333333333333333333333"
	for i, p := range []map[string]any{
		{"original_source": "../src/a.ts", "has_content": true, "resolved_path": "src/a.ts"},
		{"original_source": "other", "has_content": false, "resolved_path": "src/b.ts", "extra": 1},
		{"original_source": "/abs/c.ts", "has_content": true},
	} {
		src := []string{"../src/a.ts", "../src/b.ts", "/abs/c.ts"}[i]
		g.node("source-module", identity(idSourceMap, stabilitySMExact, map[string]any{"source_map_sha256": mapSHA, "original_source": src, "source_sha256": root}),
			src, p, GraphEvidence{Basis: "source-map", Locations: []GraphLocation{{Path: "dist/a.js.map"}}})
	}
	g.root(art)
	g.edge(art, a, "contains", map[string]any{"path": "a.js"}, GraphEvidence{Basis: "artifact-inventory", Locations: []GraphLocation{{Path: "a.js"}}})
	g.edge(a, b, "contains", map[string]any{"module_id": "./b"}, at("a.js", 40))
	g.edge(a, odd, "persists_to", nil, at("a.js", 7))
	missing := nodeID("native-addon", identity(idCanonicalPath, stabilityVersion, map[string]any{"artifact_sha256": root, "path": "x.node"}))
	g.edge(a, missing, "loads", map[string]any{"specifier": "./x.node"}, GraphEvidence{Basis: "source-map", Confidence: core.ConfidenceInferred})
	built, enc := g.seal(nil, nil, root)
	sealed := built.sealed.AppendTo(nil)

	got, err := DecodeGraph(sealed)
	if err != nil {
		t.Fatal(err)
	}
	if got.GraphID != built.GraphID {
		t.Fatalf("graph_id %s, built %s", got.GraphID, built.GraphID)
	}
	want, _ := core.CanonicalJSON(map[string]any{"nodes": built.Nodes, "edges": built.Edges, "roots": built.RootNodeIDs, "coverage": built.Coverage})
	have, _ := core.CanonicalJSON(map[string]any{"nodes": got.Nodes, "edges": got.Edges, "roots": got.RootNodeIDs, "coverage": got.Coverage})
	if !bytes.Equal(want, have) {
		t.Fatalf("decoded graph differs:\nbuilt   %s\ndecoded %s", want, have)
	}
	// The wire form is lean: no v1 IDs but node_id, and no default members.
	for _, gone := range []string{`"node_id"`, "edge_id", "observation_id", "identifier_strategy", `"observed"`, "source_node_id", "artifact-version", `"src/a.ts"`} {
		if bytes.Contains(sealed, []byte(gone)) {
			t.Errorf("the lean graph holds %s: %s", gone, sealed)
		}
	}
	if !bytes.Contains(sealed, []byte(`"odd"`)) || !bytes.Contains(sealed, []byte(`"`+missing+`"`)) {
		t.Errorf("an unimplied strategy or a node outside the graph was lost: %s", sealed)
	}

	// Semantic relations and index records round-trip too.
	rels := []semRelation{
		{relation: "require", source: a, specifier: "./b", offset: 3, target: b, hasTarget: true},
		{relation: "import", source: a, specifier: "fs", offset: -1, names: []string{"x"}, external: true},
		{export: true, relation: "exports", source: a, name: "f", kind: "commonjs", offset: -1, value: ports.JSValueShape{Kind: "function", Params: -1}},
		{relation: "", source: a, specifier: "./c", offset: 5}, // no row shape: the object form
	}
	_, d, err := decodeGraph(sealed)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		raw, _ := core.CanonicalJSON(enc.relationOf(&r))
		// The typed record writes what its map did.
		if m, _ := core.CanonicalJSON(enc.relation(r.asMap())); !bytes.Equal(raw, m) {
			t.Errorf("relation %v is written %s, its map %s", r, raw, m)
		}
		back, err := d.expandRelation(raw)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := core.CanonicalJSON(r.asMap())
		h, _ := core.CanonicalJSON(back)
		if !bytes.Equal(w, h) {
			t.Errorf("relation %s came back as %s (lean %s)", w, h, raw)
		}
	}
	if row, ok := enc.relationOf(&rels[2]).([]any); !ok || len(row) != 7 {
		t.Errorf("an export is not a row: %v", enc.relationOf(&rels[2]))
	}
	for i, e := range []indexedString{{"abc", a, 4}, {"xyz", missing, -1}} {
		rows, _ := core.CanonicalJSON(enc.stringIndex([]indexedString{e}))
		raw := rows[1 : len(rows)-1]
		s, err := d.stringEntry(raw)
		if err != nil || s.Value != e.value || s.NodeID != e.node || (s.Offset == nil) != (i == 1) {
			t.Errorf("string index entry %v came back as %+v (%v)", e, s, err)
		}
	}
	if n := bytes.Count(sealed, []byte(mapSHA)); n != 1 {
		t.Errorf("the shared map digest is written %d times, want once (in graph.digests)", n)
	}
	// A reference past the node table is an error, not a panic.
	bad := bytes.Replace(sealed, []byte(`"edges":[[`), []byte(`"edges":[[99`), 1)
	if _, err := DecodeGraph(bad); err == nil {
		t.Error("a reference past the node table decoded")
	}
}

// The bound checkRoom refuses by (evidenceLowerBound) is a lower bound of
// the lean form: the Evidence of an app of one-byte scripts, the least an
// asset can cost, is not smaller (its normalized result alone is not).
func TestEvidenceLowerBoundHolds(t *testing.T) {
	dir := t.TempDir()
	var need int64
	for i := range 300 {
		name := fmt.Sprintf("f%03d.js", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		need += jsappMinAssetBytes + jsappMinPathRepeats*int64(len(name))
	}
	req := jsappRequest{op: "analyze_javascript_application", path: dir, given: dir, format: "directory", policy: "fail", engine: portstest.FakeJS{}, observe: func(string) {}}
	out, err := analyzeJSApp(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := core.CanonicalJSON(out.result)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) < need {
		t.Fatalf("the result is %d bytes, below the lower bound %d", len(b), need)
	}
}
