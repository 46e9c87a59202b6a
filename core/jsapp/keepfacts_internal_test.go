package jsapp

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// TestKeepFactsKeepsTheIndexedStrings: the literals kept are, in order, the
// first of each value of 3 to 256 bytes, at most one past the index's cap,
// as a plain filter with a set gives them, whether a file has a few
// literals (told apart by a scan) or many (through a set), in an array of
// their own.
func TestKeepFactsKeepsTheIndexedStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := []int{0, 1, 5, 15, 16, 17, 40, 200, jsappMaxStringIndex + 50, 3 * jsappMaxStringIndex}[trial%10]
		values := 1 + r.IntN(max(1, n))
		var in []ports.JSString
		for i := range n {
			v := r.IntN(values)
			in = append(in, ports.JSString{Value: strings.Repeat("x", []int{1, 2, 3, 4, 256, 257}[v%6]) + strings.Repeat("y", v/6), Offset: int64(i)})
		}
		var want []ports.JSString
		seen := map[string]bool{}
		for _, s := range in {
			if len(s.Value) < 3 || len(s.Value) > 256 || seen[s.Value] {
				continue
			}
			seen[s.Value] = true
			want = append(want, s)
			if len(want) > jsappMaxStringIndex {
				break
			}
		}
		f := &ports.JSFacts{Strings: slices.Clone(in)}
		old := f.Strings
		keepFacts(f, nil)
		if !slices.Equal(f.Strings, want) {
			t.Fatalf("trial %d (%d literals): kept %d, want %d", trial, n, len(f.Strings), len(want))
		}
		if len(f.Strings) > 0 && &f.Strings[0] == &old[0] {
			t.Fatalf("trial %d: the kept literals hold the whole array of %d", trial, len(old))
		}
	}
}
