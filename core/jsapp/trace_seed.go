package jsapp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// seedKinds are trace_application_feature's seed kinds, the one that
// matches any text last: a suggestion names the specific kind first (ipc
// dialog:open before the files whose strings hold it).
var seedKinds = []string{"module", "route", "api", "ipc-channel", "native-export", "string"}

const (
	maxSuggestions    = 5
	maxSuggestScanned = 200000 // texts compared with the seed's value at most
)

// suggestSeeds names, for a seed that matches nothing, the seeds closest
// to it that match: the same value as another kind of seed, the same kind
// matched as a substring whatever the case, then this kind's texts most
// like the value (by shared character trigrams), each an exact seed.
func suggestSeeds(ix *appIndex, seed TraceSeed) []TraceSuggestion {
	var out []TraceSuggestion
	tried := map[TraceSeed]bool{seed: true}
	try := func(s TraceSeed) {
		if tried[s] || len(out) >= maxSuggestions {
			return
		}
		tried[s] = true
		if ids := seedNodes(ix, s.Kind, textMatcher(s.Value, s.Match, s.CaseSensitive)); len(ids) > 0 {
			out = append(out, TraceSuggestion{Seed: s, Matches: len(ids), Example: traceNode(ix, ix.nodes[ids[0]])})
		}
	}
	for _, k := range seedKinds {
		if k != seed.Kind {
			try(TraceSeed{Kind: k, Value: seed.Value, Match: seed.Match, CaseSensitive: seed.CaseSensitive})
		}
	}
	try(TraceSeed{Kind: seed.Kind, Value: seed.Value, Match: "substring", CaseSensitive: false})
	for _, t := range likeTexts(ix, seed.Kind, seed.Value) {
		try(TraceSeed{Kind: seed.Kind, Value: t, Match: "exact", CaseSensitive: true})
	}
	return out
}

// likeTexts are the texts a seed of kind matches that are most like
// value: at least half of their character trigrams (Dice's coefficient,
// case ignored) shared, most alike first.
func likeTexts(ix *appIndex, kind, value string) []string {
	want := trigrams(strings.ToLower(value))
	if len(want) == 0 {
		return nil
	}
	type like struct {
		text  string
		score float64
	}
	var best []like
	seen := map[string]bool{}
	scanned := 0
	consider := func(s string) {
		if seen[s] || scanned >= maxSuggestScanned || len(s) > 4*len(value)+8 || 4*len(s)+8 < len(value) {
			return
		}
		seen[s] = true
		scanned++
		got := trigrams(strings.ToLower(s))
		shared := 0
		for g := range got {
			if want[g] {
				shared++
			}
		}
		if score := 2 * float64(shared) / float64(len(want)+len(got)); score >= 0.5 {
			best = append(best, like{s, score})
		}
	}
	for _, n := range ix.res.Graph.Nodes {
		seedTexts(n, kind, consider)
	}
	if kind == "string" {
		for _, s := range ix.res.StringIndex {
			consider(s.Value)
		}
	}
	slices.SortFunc(best, func(a, b like) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.text, b.text)) })
	var out []string
	for _, l := range best[:min(len(best), maxSuggestions)] {
		out = append(out, l.text)
	}
	return out
}

// trigrams is the set of s's three-byte runs, its ends marked so that
// short texts have some.
func trigrams(s string) map[string]bool {
	s = "\x00" + s + "\x00"
	out := map[string]bool{}
	for i := 0; i+3 <= len(s); i++ {
		out[s[i:i+3]] = true
	}
	return out
}

// suggestionNote says, for the Evidence's limitations, what to pass
// instead of a seed that matched nothing.
func suggestionNote(ss []TraceSuggestion) string {
	if len(ss) == 0 {
		return "No node matches the seed, nor any seed close to it; the trace is empty. Try another seed kind, match: substring, or inspect_analysis_view's modules (or the application's electron summary) for what it holds."
	}
	var parts []string
	for _, s := range ss {
		parts = append(parts, fmt.Sprintf("{kind: %s, value: %q, match: %s, case_sensitive: %v} (%d node(s), e.g. %s)", s.Seed.Kind, s.Seed.Value, s.Seed.Match, s.Seed.CaseSensitive, s.Matches, s.Example.Label))
	}
	return "No node matches the seed; the trace is empty. Seeds that match, closest first (suggestions): " + strings.Join(parts, "; ") + "."
}
