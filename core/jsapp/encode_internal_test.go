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
					Properties: map[string]any{"i": i, "s": "\u2028<é>"}, Evidence: at("x.js", int64(i)), IdentifierStrategy: &IDStrategy{"s", "t"}})
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

// lazyRows must give the bytes of the rows built first and encoded as one
// array, for every length and number of goroutines, and return (not
// panic on) a row that does not encode.
func TestLazyRowsMatchBuiltRows(t *testing.T) {
	row := func(i int) any {
		return []any{i, "\u2028<é>", map[string]any{"b": i % 3, "a": []any{nil, true}}, fmt.Sprint("r", i)}
	}
	for _, procs := range []int{1, 2, 3, 8} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 63, 64, 65, 200, 5000} {
			rows := make([]any, n)
			for i := range rows {
				rows[i] = row(i)
			}
			want, err := core.CanonicalJSON(rows)
			if err != nil {
				t.Fatal(err)
			}
			arr, err := lazyRows(n, row)
			if got := arr.AppendTo(nil); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("GOMAXPROCS %d, %d rows: got %.80s…, want %.80s… (%v)", procs, n, got, want, err)
			}
		}
		if _, err := lazyRows(300, func(i int) any { return []any{i, func() {}} }); err == nil {
			t.Fatalf("GOMAXPROCS %d: a row holding a func encoded", procs)
		}
		runtime.GOMAXPROCS(prev)
	}
}

// A group written into the array of groups is its groupJSON's encoding.
func TestGroupItemMatchesGroupJSON(t *testing.T) {
	rows, err := core.CanonicalArrayFunc(3, func(dst []byte, i int) ([]byte, error) { return core.AppendCanonical(dst, []any{i, "é\u2028"}) })
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []groupJSON{{Kind: "a<b", Identity: []string{"path", "x\""}, Rows: rows}, {Kind: "k", Identity: []string{}, Rows: rows}, {Kind: "", Rows: rows}} {
		items := []*groupItem{{g: g, rest: 10}, {g: g, rest: 1 << 20}}
		arr, err := canonicalArray(items)
		if err != nil {
			t.Fatal(err)
		}
		want, err := core.CanonicalJSON([]groupJSON{g, g})
		if got := arr.AppendTo(nil); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("groups written %s, want %s (%v)", got, want, err)
		}
	}
}
