package binary

import (
	"cmp"
	"slices"
	"strings"
)

// A name an agent gives may be the import's own (puts for puts@plt), the C
// name of a decorated symbol (main for _main), in other case, part of a
// longer name, or mistyped. resolveValue takes the
// first when one procedure answers to it; the others become suggestions
// in the error, so the next call can be right.

// importStub returns the one procedure whose name is s with a version or
// stub suffix (puts@plt, memcpy@GLIBC_2.14), or -1.
func (v *codeView) importStub(s string) int {
	if strings.Contains(s, "@") {
		return -1
	}
	found := -1
	for i, p := range v.procs {
		if base, _, ok := strings.Cut(p.Name, "@"); ok && base == s {
			if found >= 0 {
				return -1 // more than one: the caller must say which
			}
			found = i
		}
	}
	return found
}

// decorated returns the one procedure whose name is s as C compilers
// decorate it for 32-bit Windows and Mach-O: with a leading underscore
// (_main), and for stdcall with @ and its argument bytes (_Sleep@4); or -1.
func (v *codeView) decorated(s string) int {
	found := -1
	for i, p := range v.procs {
		n, ok := strings.CutPrefix(p.Name, "_")
		if base, bytes, at := strings.Cut(n, "@"); at && bytes != "" && strings.Trim(bytes, "0123456789") == "" {
			n = base
		}
		if ok && n == s {
			if found >= 0 {
				return -1 // more than one: the caller must say which
			}
			found = i
		}
	}
	return found
}

// maxSuggestScan bounds the names compared by edit distance.
const maxSuggestScan = 200000

// suggest returns up to three names close to s: the same but for case
// (only those, when there are any), else names holding s (shortest first),
// then names at most two edits away.
func (v *codeView) suggest(s string) []string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, p := range v.procs {
		add(p.Name)
	}
	for _, n := range v.names {
		add(n.Name)
	}
	for _, n := range v.analyst.names {
		add(n)
	}
	slices.Sort(names) // the analysts' names come from a map
	low := strings.ToLower(s)
	type cand struct {
		name string
		rank int // 0 case, 1 holds s, 2 edits
		key  int
	}
	var cs []cand
	for i, n := range names {
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

// didYouMean is the end of a "no such name" message.
func didYouMean(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(names, ", ") + "?"
}
