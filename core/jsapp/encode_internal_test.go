package jsapp

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"rea/core"
)

// canonicalArray must give CanonicalJSON's bytes for every length and
// number of goroutines.
func TestCanonicalArrayMatchesCanonicalJSON(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 8} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 63, 64, 65, 200, 1000} {
			var items []*Edge
			for i := range n {
				items = append(items, &Edge{EdgeID: fmt.Sprint("e", i), SourceNodeID: "a", TargetNodeID: "b", Relation: "imports",
					Properties: map[string]any{"i": i, "s": "\u2028<é>"}, Evidence: at("x.js", int64(i)), IdentifierStrategy: IDStrategy{"s", "t"}})
			}
			arr, err := canonicalArray(items)
			if err != nil {
				t.Fatal(err)
			}
			got := arr.bytes()
			want, err := core.CanonicalJSON(items)
			if n == 0 {
				want = []byte("[]")
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("GOMAXPROCS %d, %d items: got %.80s…, want %.80s… (%v)", procs, n, got, want, err)
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

// sealMembers must give core.SealObject's bytes and ID.
func TestSealMembersMatchesSealObject(t *testing.T) {
	var edges []*Edge
	for i := range 300 {
		edges = append(edges, &Edge{EdgeID: fmt.Sprint("e", i), Relation: "imports", Properties: map[string]any{}, Evidence: at("x.js", -1)})
	}
	arr, err := canonicalArray(edges)
	if err != nil {
		t.Fatal(err)
	}
	for _, empty := range []bool{false, true} {
		a, b := arr, any(edges)
		if empty {
			a, b = chunkedArray{}, []*Edge{}
		}
		got, gotID, err := sealMembers(map[string]any{"schema": "S", "schema_version": 1, "edges": a, "limitations": []string{"l"}, "zz": nil}, "graph_id", "jag_")
		if err != nil {
			t.Fatal(err)
		}
		want, wantID, err := core.SealObject(map[string]any{"schema": "S", "schema_version": 1, "edges": b, "limitations": []string{"l"}, "zz": nil}, "graph_id", "jag_")
		if err != nil || gotID != wantID || !bytes.Equal(got, want) {
			t.Fatalf("empty %v: got %s %.120s, want %s %.120s (%v)", empty, gotID, got, wantID, want, err)
		}
	}
}
