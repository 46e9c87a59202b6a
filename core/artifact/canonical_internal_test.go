package artifact

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"rea/core"
)

// TestArtifactCanonicalMatchesDigest checks that the hand-written canonical
// encoders give exactly what Digest gives through encoding/json and
// Canonicalize, including strings that need escaping.
func TestArtifactCanonicalMatchesDigest(t *testing.T) {
	odd := "a\"b\\c\x01\u2028é\U0001F600/<&>"
	s, n := "x", int64(7)
	nodes := []Node{
		{ArtifactID: "art_1", Kind: "resource", Format: "file", SHA256: "ab", Size: 1 << 40, MediaType: &s, Limitations: []string{odd}},
		{ArtifactID: "art_2", Kind: "native-addon", Format: "elf", Architecture: &s, Executable: true, ContentState: "embedded", Limitations: []string{}},
	}
	occs := []Occurrence{
		{OccurrenceID: "occ_1", LogicalPath: ".", EntryKind: "directory", HashStatus: "verified", Limitations: []string{}},
		{OccurrenceID: "occ_2", ArtifactID: &s, ParentOccurrenceID: &s, LogicalPath: odd, EntryKind: "file", DeclaredSize: &n,
			CompressedSize: &n, Executable: true, Encrypted: true, HashStatus: "mismatched", SourceLocation: &OccurrenceSourceLocation{Offset: 3, Length: 9},
			Limitations: []string{"l1", odd}},
	}
	lp := odd
	edges := []Edge{{EdgeID: "edge_1", Ordinal: 0, ParentArtifactID: "art_1", ChildArtifactID: "art_2", Relation: "contains", OccurrenceID: "occ_2", LogicalPath: &lp},
		{EdgeID: "edge_2", Ordinal: 1, Relation: "maps-source"}}
	ics := []Contradiction{{ContradictionID: "ic_1", OccurrenceID: "occ_2", LogicalPath: odd, DeclaredSHA256: "a", ObservedSHA256: "b",
		EntryKind: "file", Unpacked: true, Trust: contradictionTrust, Provenance: contradictionSource, Limitations: []string{"x"}}}
	// The plain types drop MarshalJSON, so the reference goes through
	// reflection and Canonicalize.
	type plainNode Node
	type plainOcc Occurrence
	type plainEdge Edge
	type plainIC Contradiction
	type plainArt ExtractArtifactResultArtifact
	var pn []plainNode
	for _, x := range nodes {
		pn = append(pn, plainNode(x))
	}
	var po []plainOcc
	for _, x := range occs {
		po = append(po, plainOcc(x))
	}
	var pe []plainEdge
	for _, x := range edges {
		pe = append(pe, plainEdge(x))
	}
	var pi []plainIC
	for _, x := range ics {
		pi = append(pi, plainIC(x))
	}
	want := core.MustDigest(map[string]any{"nodes": pn, "occurrences": po, "edges": pe, "integrity_contradictions": pi})
	if got, _ := graphDigest(nodes, occs, edges, ics); got != want {
		t.Fatalf("graph digest %s, want %s", got, want)
	}
	if got, _ := graphDigest(nil, nil, nil, nil); got != core.MustDigest(map[string]any{"nodes": []any{}, "occurrences": []any{}, "edges": []any{}, "integrity_contradictions": []any{}}) {
		t.Fatalf("empty graph digest %s", got)
	}
	arts := []ExtractArtifactResultArtifact{{ArtifactID: "art_1", RelativePath: odd, SHA256: "ab", BytesWritten: 12, Created: true}}
	if got, want := filesDigest(arts), core.MustDigest([]plainArt{plainArt(arts[0])}); got != want {
		t.Fatalf("files digest %s, want %s", got, want)
	}
	if got, want := fastDigest(jcsField{"root_artifact_id", "art_1"}, jcsField{"logical_path", odd}, jcsField{"entry_kind", "file"}),
		core.MustDigest(map[string]any{"root_artifact_id": "art_1", "logical_path": odd, "entry_kind": "file"}); got != want {
		t.Fatalf("flat digest %s, want %s", got, want)
	}
	if got, want := fastDigest(jcsField{"schema_version", 1}, jcsField{"sha256", "ab"}, jcsField{"x", nil}, jcsField{"ids", []string{"b", "a"}}),
		core.MustDigest(map[string]any{"schema_version": 1, "sha256": "ab", "x": nil, "ids": []string{"b", "a"}}); got != want {
		t.Fatalf("mixed digest %s, want %s", got, want)
	}
	// MarshalJSON output canonicalizes to itself.
	for _, pair := range [][2]any{{nodes[0], pn[0]}, {occs[1], po[1]}, {edges[0], pe[0]}, {ics[0], pi[0]}, {arts[0], plainArt(arts[0])}} {
		raw, err := json.Marshal(pair[0])
		if err != nil {
			t.Fatal(err)
		}
		c, err := core.CanonicalJSON(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		cr, err := core.Canonicalize(raw)
		if err != nil {
			t.Fatal(err)
		}
		if string(cr) != string(c) {
			t.Fatalf("MarshalJSON %s differs from canonical %s", raw, c)
		}
	}
}

// TestResultCanonicalMatchesTwoPass checks the whole result's own canonical
// form, its lists encoded in parallel chunks (enough records to cycle
// through every chunk slot), against encoding/json and Canonicalize, and
// the digester's IDs against the generic digest.
func TestResultCanonicalMatchesTwoPass(t *testing.T) {
	odd := "é\"\\\x7f\x01<>"
	s := "x"
	r := &InventoryArtifactResult{Limits: defaultArtifactLimits, Limitations: []string{odd},
		Manifest:   InventoryArtifactResultManifest{SchemaVersion: 1, ManifestID: "agm_1", RootFormat: odd, NodeCount: 3},
		Provenance: InventoryArtifactResultProvenance{Tool: "rea", IntegrityPolicy: "fail", RootKind: "file", Method: odd}}
	for i := range 20000 {
		p := fmt.Sprintf("dir%d/file-%d%s", i%7, i, odd[:i%3])
		n := int64(i)
		r.Occurrences = append(r.Occurrences, Occurrence{OccurrenceID: fmt.Sprint("occ_", i), ArtifactID: &s, LogicalPath: p, EntryKind: "file",
			DeclaredSize: &n, HashStatus: "verified", Limitations: []string{}})
		r.Edges = append(r.Edges, Edge{EdgeID: fmt.Sprint("edge_", i), Ordinal: i, ParentArtifactID: "art_1", ChildArtifactID: "art_2",
			Relation: "contains", OccurrenceID: "occ_1", LogicalPath: &p})
		if i%3 == 0 {
			r.Nodes = append(r.Nodes, Node{ArtifactID: fmt.Sprint("art_", i), Kind: "resource", Format: "file", SHA256: "ab", Size: n, MediaType: &s, Limitations: []string{}})
		}
	}
	check := func(r *InventoryArtifactResult) {
		t.Helper()
		got := string(r.AppendCanonicalJSON([]byte("prefix")))
		type plain InventoryArtifactResult
		raw, err := json.Marshal((*plain)(r))
		if err != nil {
			t.Fatal(err)
		}
		want, err := core.Canonicalize(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got != "prefix"+string(want) {
			g := got[6:]
			i := 0
			for i < len(g) && i < len(want) && g[i] == want[i] {
				i++
			}
			t.Fatalf("result canonical form differs (%d against %d bytes) at %d: %q vs %q", len(got)-6, len(want), i, g[max(0, i-80):min(len(g), i+40)], want[max(0, i-80):min(len(want), i+40)])
		}
		c, err := core.CanonicalJSON(r)
		if err != nil || string(c) != string(want) {
			t.Fatalf("CanonicalJSON does not use the result's own form: %v", err)
		}
	}
	check(r)
	// Sealed: the digest of the lists read from the text, the manifest ID
	// written into it, and the text then served as the canonical form.
	r.IntegrityContradictions = []Contradiction{}
	_, sha, mid := r.sealText(func(g string) string { return "agm_" + g[:10] })
	if want, _ := graphDigest(r.Nodes, r.Occurrences, r.Edges, r.IntegrityContradictions); sha != want || mid != "agm_"+want[:10] {
		t.Fatalf("sealed digest %s (%s), want %s", sha, mid, want)
	}
	if r.Manifest.GraphSHA256 != sha || r.Manifest.ManifestID != mid {
		t.Fatal("the manifest does not carry the sealed digest")
	}
	check(r)
	r.text = nil
	r.sealText(func(g string) string { return "agm_" + strings.Repeat("x", len(g)) }) // the placeholder's length: patched in place
	check(r)
	check(&InventoryArtifactResult{}) // empty graph lists are left out and other nil lists null, as encoding/json writes them
	edges := r.Edges
	r.Edges = []Edge{}
	r.text = nil
	_, sha, _ = r.sealText(func(g string) string { return "agm_" + g[:10] })
	if want, _ := graphDigest(r.Nodes, r.Occurrences, r.Edges, r.IntegrityContradictions); sha != want {
		t.Fatalf("sealed digest without edges %s, want %s", sha, want)
	}
	check(r)
	r.Edges = edges

	var d digester
	if got, want := d.artifactID(odd), "art_"+fastDigest(jcsField{"schema_version", artifactSchemaVersion}, jcsField{"sha256", odd}); got != want {
		t.Fatalf("artifact ID %s, want %s", got, want)
	}
	if got, want := d.occurrenceID("art_1", odd, "file"), "occ_"+fastDigest(jcsField{"root_artifact_id", "art_1"}, jcsField{"logical_path", odd}, jcsField{"entry_kind", "file"}); got != want {
		t.Fatalf("occurrence ID %s, want %s", got, want)
	}
	e := r.Edges[5]
	if got, want := d.edgeID(&e), "edge_"+fastDigest(jcsField{"parent_artifact_id", e.ParentArtifactID}, jcsField{"child_artifact_id", e.ChildArtifactID},
		jcsField{"relation", e.Relation}, jcsField{"occurrence_id", e.OccurrenceID}, jcsField{"logical_path", *e.LogicalPath}); got != want {
		t.Fatalf("edge ID %s, want %s", got, want)
	}
}

// TestPlainString checks the word-at-a-time test against the byte test for
// every byte at every position of a word and in the tail.
func TestPlainString(t *testing.T) {
	for c := range 256 {
		for _, n := range []int{1, 8, 9, 16, 23} {
			for at := range n {
				b := []byte(strings.Repeat("a", n))
				b[at] = byte(c)
				want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
				if got := plainString(string(b)); got != want {
					t.Fatalf("plainString with byte %#x at %d of %d = %v", c, at, n, got)
				}
			}
		}
	}
}

// TestStreamListKeepsOrder: the chunks of a list are written in order
// however the encoders are scheduled, with more encoders than cores so that
// one is often delayed between taking a chunk and encoding it, and with
// the buffers handed from one list to the next.
func TestStreamListKeepsOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	n := 512 * 64
	item := func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(i), 10) }
	want := string(appendJCSList(nil, n, item))
	var bufs chunkBufs
	for run := range 1000 { // the chunks of the slotted window came out of order about once in 150 lists here
		var got []byte
		streamList(n, item, func(p []byte) { got = append(got, p...) }, &bufs)
		if string(got) != want {
			t.Fatalf("run %d: the chunks were written out of order", run)
		}
	}
}
