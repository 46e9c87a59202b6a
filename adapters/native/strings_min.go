package native

import (
	"context"
	"sync"

	"rea/ports"
)

// The shortest lengths a caller may ask strings of (StringsMinChars). At
// one character every byte before a zero reads as a UTF-16LE string of one
// character and cuts the ASCII run it ends ("puts" listed as "put" and
// "s"); past 16 a list only drops strings a search would match.
const (
	MinMinStringChars = 2
	MaxMinStringChars = 16
)

// otherStrings is the strings list for one shortest length other than the
// profile's: the last one asked for, computed once and kept until another
// is asked for. It is never written to the warm cache, whose entries are
// keyed by the profile (and so by its min_string_chars): a cached list is
// never served for another length, and the profile's list is never
// replaced by one of another length.
type otherStrings struct {
	mu   sync.Mutex
	min  int
	list *lazy[*stringSet]
}

// StringsMinChars is the strings list of runs of at least minChars
// characters (MinMinStringChars to MaxMinStringChars; others are clamped), the profile's
// own list when minChars is its min_string_chars. Strings of fewer than the
// profile's characters are found by scanning again (once per length, the
// last length kept): the profile's list, a subset, cannot give them.
func (a *Analysis) StringsMinChars(minChars int) ports.StringLister {
	minChars = min(max(minChars, MinMinStringChars), MaxMinStringChars)
	if minChars == a.opts.MinStringChars {
		return a
	}
	return &minStrings{a: a, min: minChars}
}

// minStrings lists an analysis's strings of at least min characters.
type minStrings struct {
	a   *Analysis
	min int
}

var _ ports.StringPager = (*minStrings)(nil)

// listFor is the list of strings of at least n characters, replacing the
// one kept for another length (whose memory reservation it releases).
func (o *otherStrings) listFor(n int) *lazy[*stringSet] {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.list == nil || o.min != n {
		if o.list != nil {
			o.list.drop(func(s *stringSet) {
				if s.held != nil {
					s.held()
				}
			})
		}
		o.min, o.list = n, &lazy[*stringSet]{}
	}
	return o.list
}

func (m *minStrings) Strings(ctx context.Context) ([]ports.String, error) {
	opts := m.a.opts
	opts.MinStringChars = m.min
	return m.a.stringsOf(ctx, m.a.other.listFor(m.min), opts, "strings", func(set *stringSet) *stringSet { return set })
}

func (m *minStrings) StringsPage(ctx context.Context, offset, limit int) ([]ports.String, int, error) {
	opts := m.a.opts
	opts.MinStringChars = m.min
	total := 0
	out, err := m.a.stringsOf(ctx, m.a.other.listFor(m.min), opts, "strings page", pagePick(offset, limit, &total))
	return out, total, err
}
