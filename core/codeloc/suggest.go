package codeloc

import (
	"cmp"
	"slices"
	"strings"
)

// maxSuggestScan bounds the names compared by edit distance.
const maxSuggestScan = 200000

// Suggest returns up to three of names close to s, for an unknown-name
// refusal: the same but for case (only those, when there are any), else
// names holding s (shortest first), then names at most two edits away.
// Empty and repeated names, and s itself (a tool refuses a name that
// names another kind of thing), are ignored; names is not changed.
func Suggest(names []string, s string) []string {
	seen := map[string]bool{s: true}
	var uniq []string
	for _, n := range names {
		if n != "" && !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	slices.Sort(uniq) // an analyst's names come from a map
	low := strings.ToLower(s)
	type cand struct {
		name string
		rank int // 0 case, 1 holds s, 2 edits
		key  int
	}
	var cs []cand
	for i, n := range uniq {
		ln := strings.ToLower(n)
		switch {
		case ln == low:
			cs = append(cs, cand{n, 0, 0})
		case len(low) >= 3 && strings.Contains(ln, low):
			cs = append(cs, cand{n, 1, len(n)})
		case i < maxSuggestScan && abs(len(ln)-len(low)) <= 2:
			if d := editDistance(ln, low, 2); d <= 2 {
				cs = append(cs, cand{n, 2, d})
			}
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.key, b.key)) })
	var out []string
	for _, c := range cs[:min(len(cs), 3)] {
		if c.rank > 0 && len(out) > 0 && cs[0].rank == 0 {
			break // the same name but for case is what was meant
		}
		out = append(out, c.name)
	}
	return out
}

func abs(n int) int { return max(n, -n) }

// editDistance is the Levenshtein distance of a and b, or limit+1 once it
// is sure to exceed limit.
func editDistance(a, b string, limit int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
