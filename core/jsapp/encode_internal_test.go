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
			got := arr.AppendTo(nil)
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
