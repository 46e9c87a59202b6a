package jsapp

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rea/core"
	"rea/core/artifact"
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
		// Positions: an original column of 0 is the default, and cells
		// past the originals (rest, a re-export's specifier, names,
		// external) keep theirs.
		{export: true, relation: "exports", source: a, name: "g", kind: "named", offset: 9, line: 2, col: 4, origNode: b, origLine: 7, value: ports.JSValueShape{Kind: "function", Params: 1}},
		{export: true, relation: "exports", source: a, name: "h", kind: "named", offset: 9, line: 2, col: 4, origNode: b, origLine: 7, origCol: 3, value: ports.JSValueShape{Kind: "function", Params: 1, Rest: true}},
		{export: true, relation: "exports", source: a, name: "i", kind: "re-export", specifier: "./i", offset: 9, line: 2, col: 4, value: ports.JSValueShape{Params: -1}},
		// A renamed re-export keeps the name in its source module (local).
		{export: true, relation: "exports", source: a, name: "j", kind: "re-export", specifier: "./i", local: "k", offset: 9, line: 2, col: 4, value: ports.JSValueShape{Params: -1}},
		{relation: "import", source: a, specifier: "./b", offset: 3, line: 1, col: 3, target: b, hasTarget: true, origNode: missing, origLine: 1},
		{relation: "import", source: a, specifier: "fs", offset: 3, line: 1, col: 3, names: []string{"x"}, external: true, origNode: b, origLine: 1, origCol: 2},
		{relation: "require", source: a, specifier: "fs", offset: 3, line: 1, col: 3, external: true},
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
	if row, ok := enc.relationOf(&rels[2]).([]any); !ok || len(row) != 6 {
		t.Errorf("an export is not a row: %v", enc.relationOf(&rels[2]))
	}
	// A named export at its declaration, mapped to column 0 of its
	// original line, writes no default: not rest, kind's neighbours or the
	// specifier, nor the original column.
	lean := fmt.Sprintf(`[%d,"exports","g","function",1,"named",9,2,4,%d,7]`, enc.index[a], enc.index[b])
	if raw, _ := core.CanonicalJSON(enc.relationOf(&rels[4])); string(raw) != lean {
		t.Errorf("a mapped export is written %s, want %s", raw, lean)
	}
	// A re-export's local is its name unless renamed, and only a renamed
	// one writes the cell.
	for i, want := range map[int]string{6: `"local":"i"`, 7: `"local":"k"`, 2: `"local":null`} {
		if m, _ := core.CanonicalJSON(rels[i].asMap()); !bytes.Contains(m, []byte(want)) {
			t.Errorf("relation %d: %s, want %s", i, m, want)
		}
	}
	if raw, _ := core.CanonicalJSON(enc.relationOf(&rels[7])); !bytes.HasSuffix(raw, []byte(`"./i","k"]`)) {
		t.Errorf("a renamed re-export is written %s", raw)
	}
	if raw, _ := core.CanonicalJSON(enc.relationOf(&rels[6])); !bytes.HasSuffix(raw, []byte(`"./i"]`)) {
		t.Errorf("a re-export is written %s", raw)
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

// appendRow and appendEdge write what row and edge's cells encode as, on
// awkward records: every kind's default basis and others, confidences,
// labels equal to the key, other and null, derived properties present,
// different, of another type and missing, escapes, offsets none, zero and
// beyond 2^53, typed properties, references outside the graph.
func TestAppendRowMatchesRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const root = "1111111111111111111111111111111111111111111111111111111111111111"
	strs := []string{"a.js", "dist/a.js.map", "../src/a.ts", "/abs/c.ts", "webpack://x/y.ts", "é\u2028\"<>", "", "src/a.ts", root}
	str := func() string { return strs[rng.IntN(len(strs))] }
	offsets := []*int64{nil, new(int64(0)), new(int64(17)), new(int64(1 << 53)), new(int64(1<<62 + 1))}
	kinds := []string{"javascript-asset", "artifact", "source-module", "source-map", "package", "storage", "endpoint"}
	bases := []string{"artifact-inventory", "source-map", "package-metadata", "static-syntax", "derived"}
	confs := []string{core.ConfidenceObserved, core.ConfidenceDerived, core.ConfidenceInferred}
	ev := func() GraphEvidence {
		e := GraphEvidence{Basis: bases[rng.IntN(len(bases))], Confidence: confs[rng.IntN(len(confs))]}
		for range rng.IntN(3) {
			e.Locations = append(e.Locations, GraphLocation{Path: str(), Offset: offsets[rng.IntN(len(offsets))]})
		}
		return e
	}
	props := func() map[string]any {
		p := map[string]any{}
		for _, k := range []string{"path", "sha256", "original_source", "has_content", "resolved_path", "outside_app", "size", "x\u00e9", "export_shapes", "exports"} {
			switch rng.IntN(5) {
			case 0:
				p[k] = str()
			case 1:
				p[k] = rng.IntN(2) == 0
			case 2:
				if k == "export_shapes" {
					p[k] = exportShapeList{{name: str(), shape: ports.JSValueShape{Kind: "function", Params: rng.IntN(3) - 1}}}
				} else {
					p[k] = []string{str()}
				}
			}
		}
		return p
	}
	g := newGraphBuild()
	var ids []string
	for range 400 {
		kind := kinds[rng.IntN(len(kinds))]
		fields := map[string]any{}
		switch rng.IntN(4) {
		case 0:
			fields["path"], fields["artifact_sha256"] = str(), []string{root, "22"}[rng.IntN(2)]
		case 1:
			fields["source_map_sha256"], fields["original_source"], fields["source_sha256"] = root, str(), []any{nil, root}[rng.IntN(2)]
		case 2:
			fields["sha256"] = str()
		default:
			fields["namespace"], fields["key"] = str(), str()
		}
		strategy, stability := strategyFor(fields)
		if rng.IntN(6) == 0 {
			stability = "odd"
		}
		for range 1 + rng.IntN(3) {
			label := str()
			if rng.IntN(4) == 0 {
				label = ""
			}
			ids = append(ids, g.node(kind, identity(strategy, stability, fields), label, props(), ev()))
		}
	}
	missing := nodeID("native-addon", identity(idCanonicalPath, stabilityVersion, map[string]any{"artifact_sha256": root, "path": "x.node"}))
	relations := []string{"contains", "loads", "imports", "calls"}
	for range 400 {
		var p map[string]any
		if rng.IntN(3) > 0 {
			p = props()
		}
		dst := ids[rng.IntN(len(ids))]
		if rng.IntN(10) == 0 {
			dst = missing
		}
		g.edge(ids[rng.IntN(len(ids))], dst, relations[rng.IntN(len(relations))], p, ev())
	}
	built, enc := g.seal(nil, nil, root)
	for _, grp := range enc.groups {
		for j := range grp.nodes {
			want, err := core.CanonicalJSON(enc.row(grp, j))
			if err != nil {
				t.Fatal(err)
			}
			got, err := enc.appendRow(nil, grp, j)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("row written\n%s\nwant\n%s (%v)", got, want, err)
			}
		}
	}
	for _, e := range built.Edges {
		want, err := core.CanonicalJSON(enc.edge(e))
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.appendEdge(nil, e)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("edge written\n%s\nwant\n%s (%v)", got, want, err)
		}
	}
}

// appendRelation writes what relationOf's cells encode as, for every
// combination of defaults, both node references and IDs outside the
// graph, and the relations of no row shape.
func TestAppendRelationMatchesRelationOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const root = "1111111111111111111111111111111111111111111111111111111111111111"
	g := newGraphBuild()
	a := g.node("javascript-asset", identity(idCanonicalPath, stabilityVersion, map[string]any{"artifact_sha256": root, "path": "a.js"}), "a.js", nil, at("a.js", -1))
	built, enc := g.seal(nil, nil, root)
	_, d, err := decodeGraph(built.sealed.AppendTo(nil))
	if err != nil {
		t.Fatal(err)
	}
	pick := func(l ...string) string { return l[rng.IntN(len(l))] }
	for range 5000 {
		r := semRelation{relation: pick("require", "import", "", "exports", "worker"), source: pick(a, "jag_node_x", ""), specifier: pick("", "./b", "é\"\u2028"),
			offset: []int64{-1, 0, 9, 1 << 53, 1<<62 + 3}[rng.IntN(5)], external: rng.IntN(3) == 0, hasTarget: rng.IntN(2) == 0, target: pick(a, "jag_node_y", "")}
		if rng.IntN(2) == 0 {
			r.names = []string{"x", "y\n"}[:rng.IntN(3)]
		}
		if rng.IntN(3) == 0 {
			r = semRelation{export: true, relation: "exports", source: r.source, specifier: r.specifier, offset: r.offset, name: pick("default", "f", ""),
				kind: pick("named", "commonjs", ""), value: ports.JSValueShape{Kind: pick("", "function", "class"), Params: rng.IntN(4) - 1, Rest: rng.IntN(2) == 0}}
		}
		if rng.IntN(2) == 0 {
			r.line, r.col = int32(1+rng.IntN(3)), int32(rng.IntN(3))
			if rng.IntN(2) == 0 {
				r.origNode, r.origLine, r.origCol = pick(a, "jag_node_z"), int32(1+rng.IntN(3)), int32(rng.IntN(2))
			}
		}
		want, err := core.CanonicalJSON(enc.relationOf(&r))
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.appendRelation(nil, &r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("relation %+v written\n%s\nwant\n%s (%v)", r, got, want, err)
		}
		// And it reads back as the relation written.
		back, err := d.expandRelation(got)
		if err != nil {
			t.Fatalf("relation %s: %v", got, err)
		}
		w, _ := core.CanonicalJSON(r.asMap())
		if h, _ := core.CanonicalJSON(back); !bytes.Equal(w, h) {
			t.Fatalf("relation %s came back as %s (lean %s)", w, h, got)
		}
	}
}

// relationOrder is the stable order by source, whatever the runs.
func TestRelationOrderIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 200 {
		var rels []semRelation
		for range rng.IntN(60) {
			src := []string{"", "a", "b", "c"}[rng.IntN(4)]
			for range 1 + rng.IntN(3) {
				rels = append(rels, semRelation{source: src, offset: int64(len(rels))})
			}
		}
		want := slices.Clone(rels)
		slices.SortStableFunc(want, func(x, y semRelation) int { return strings.Compare(x.source, y.source) })
		for i, j := range relationOrder(len(rels), func(i int) string { return rels[i].source }) {
			if rels[j].offset != want[i].offset {
				t.Fatalf("position %d holds relation %d, want %d (%v)", i, rels[j].offset, want[i].offset, rels)
			}
		}
	}
}

// CanonicalSize bounds the result's canonical form from above, closely,
// whatever its unknowns and contradictions, so the Evidence's copy of it
// is made once.
func TestCanonicalSizeBoundsTheResult(t *testing.T) {
	dir := t.TempDir()
	for i := range 200 {
		src := fmt.Sprintf("require('./missing%d'); module.exports = %d\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.js", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	req := jsappRequest{op: "analyze_javascript_application", path: dir, given: dir, format: "directory", policy: "fail", engine: portstest.FakeJS{}, observe: func(string) {}}
	out, err := analyzeJSApp(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, many := range []int{0, 300} {
		var cs []artifact.Contradiction
		for i := range many {
			cs = append(cs, artifact.Contradiction{ContradictionID: fmt.Sprintf("contradiction-%064d", i), LogicalPath: "app/f.js", Trust: "observed-untrusted"})
		}
		out.result["integrity_contradictions"] = cs
		app, err := applicationOf(out.result)
		if err != nil {
			t.Fatal(err)
		}
		b, err := core.CanonicalJSON(app)
		if err != nil {
			t.Fatal(err)
		}
		if size := app.CanonicalSize(); size < len(b) || size > len(b)+8192 {
			t.Errorf("with %d contradictions: CanonicalSize %d for a canonical form of %d bytes", many, size, len(b))
		}
		if cap(b) != app.CanonicalSize() {
			t.Errorf("CanonicalJSON made a buffer of %d bytes, not the %d CanonicalSize gave", cap(b), app.CanonicalSize())
		}
	}
}
