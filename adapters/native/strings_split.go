package native

import (
	"cmp"
	"context"
	"slices"
	"unicode/utf8"
)

// Splitting a region of a Go or Rust binary into its literals.

// Byte classes of literal text: printable ASCII, tab and line breaks (isASCII:
// literals hold whole messages, line breaks included), and the bytes of a
// UTF-8 literal, which add everything from 0x80.
const (
	classText uint8 = 1 << iota
	classUTF8
)

var byteClass = func() (t [256]uint8) {
	for b := range t {
		if isASCII(byte(b)) {
			t[b] = classText | classUTF8
		} else if b >= 0x80 {
			t[b] = classUTF8
		}
	}
	return t
}()

// textRuns returns the runs of text bytes of data at least minLen long.
func textRuns(ctx context.Context, data []byte, minLen int) ([]span, error) {
	var out []span
	start := -1
	for i, b := range data {
		if i&0xfffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if byteClass[b]&classText != 0 {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= minLen {
			out = append(out, span{start, i})
		}
		start = -1
	}
	if start >= 0 && len(data)-start >= minLen {
		out = append(out, span{start, len(data)})
	}
	return out, nil
}

// classOf returns the classes every byte of b belongs to.
func classOf(b []byte) uint8 {
	c := classText | classUTF8
	for _, x := range b {
		if c &= byteClass[x]; c == 0 {
			break
		}
	}
	return c
}

// refsIn returns the refs (sorted by address) whose address is in
// [addr, addr+n).
func refsIn(refs []litRef, addr, n uint64) []litRef {
	key := func(r litRef, t uint64) int { return cmp.Compare(r.addr, t) }
	i, _ := slices.BinarySearchFunc(refs, addr, key)
	j, _ := slices.BinarySearchFunc(refs, addr+n, key)
	if addr+n < addr {
		j = len(refs)
	}
	return refs[i:max(i, j)]
}

// litCandidate is a literal a reference suggests: [s, e) in the region, its
// byte class, and, for a tagged length, the index of its other reading.
type litCandidate struct {
	s, e  int
	class uint8
	other int // -1 when the length has one reading
	bad   bool
}

// crossWindow bounds how many later candidates each one is compared with.
const crossWindow = 64

// scanLiterals appends the strings of a region that Go or Rust literal
// references point into. Each referenced ASCII literal is one string with
// its exact address and length, line breaks included; the text around and
// between them (literals whose references were not found, and UTF-8
// literals, which the "ascii" charset cannot hold whole) is split at every
// referenced address and literal end, and its pieces of at least
// MinStringChars bytes are reported as strings too. UTF-16LE runs are found
// as in scanBytes.
//
// A length is trusted only when its literal is text and crosses no other
// literal (literals are disjoint or nested; one that starts inside another
// and ends past it means one of the two lengths is wrong, so neither is
// used, though both starts still split the text). Of a tagged length's two
// readings the one that crosses nothing wins, and of two clean ones the one
// ending where other evidence puts a boundary.
//
// Work and memory follow the region's bytes: a budget proportional to them
// bounds the bytes checked, and references past it are left out.
func scanLiterals(ctx context.Context, data []byte, r region, opts Options, refs []litRef, out []strRec) ([]strRec, error) {
	minChars := opts.MinStringChars
	text, err := textRuns(ctx, data, minChars)
	if err != nil {
		return nil, err
	}
	var cands []litCandidate
	var cuts []int
	budget := 8*len(data) + 1<<20
	add := func(s, e int) int {
		if e > len(data) || budget <= 0 {
			return -1
		}
		budget -= e - s + 64
		c := classOf(data[s:e])
		if c&classText == 0 && (c == 0 || !utf8.Valid(data[s:e])) {
			return -1
		}
		cands = append(cands, litCandidate{s: s, e: e, class: c, other: -1})
		return len(cands) - 1
	}
	for i, ref := range refs {
		if i&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s := int(ref.addr - r.addr)
		if byteClass[data[s]] == 0 {
			continue
		}
		cuts = append(cuts, s)
		if ref.n == 0 || ref.n > uint64(len(data)-s) {
			continue
		}
		full := add(s, s+int(ref.n))
		if ref.tagged {
			if half := add(s, s+int(ref.n>>1)); half >= 0 && full >= 0 {
				cands[full].other, cands[half].other = half, full
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Crossing pairs: both lengths are suspect.
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(cands[a].s, cands[b].s), cmp.Compare(cands[a].e, cands[b].e))
	})
	for k, i := range order {
		a := &cands[i]
		for _, j := range order[k+1 : min(len(order), k+1+crossWindow)] {
			b := &cands[j]
			if b.s >= a.e {
				break
			}
			if b.s > a.s && b.e > a.e && a.other != j {
				a.bad, b.bad = true, true
			}
		}
	}
	// Boundaries other evidence gives: literal starts and the ends of text.
	starts := slices.Clone(cuts)
	slices.Sort(starts)
	boundary := func(e int) bool {
		if e == len(data) || byteClass[data[e]] == 0 {
			return true
		}
		_, ok := slices.BinarySearch(starts, e)
		return ok
	}
	var lits []span
	for i := range cands {
		c := &cands[i]
		if c.bad {
			continue
		}
		if o := c.other; o >= 0 && !cands[o].bad {
			// Both readings are clean: keep the one ending on a boundary,
			// the shorter when both or neither do.
			mine, theirs := boundary(c.e), boundary(cands[o].e)
			if theirs && !mine || mine == theirs && cands[o].e < c.e {
				continue
			}
		}
		cuts = append(cuts, c.e)
		if c.class&classText != 0 {
			lits = append(lits, span{c.s, c.e})
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	slices.SortFunc(lits, func(a, b span) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) })
	lits = slices.Compact(lits)

	// The union of the literals, to tell covered text from the rest.
	var cover []span
	for _, l := range lits {
		if l.end-l.start >= minChars {
			out = append(out, asciiString(data, l, r, opts))
		}
		if n := len(cover); n > 0 && l.start <= cover[n-1].end {
			cover[n-1].end = max(cover[n-1].end, l.end)
		} else {
			cover = append(cover, l)
		}
	}
	c, m := 0, 0
	for _, t := range text {
		for a := t.start; a < t.end; {
			for c < len(cuts) && cuts[c] <= a {
				c++
			}
			b := t.end
			if c < len(cuts) && cuts[c] < t.end {
				b = cuts[c]
			}
			// Every literal boundary is a cut, so [a, b) is inside a literal or outside all.
			for m < len(cover) && cover[m].end <= a {
				m++
			}
			if b-a >= minChars && !(m < len(cover) && cover[m].start <= a) {
				out = append(out, asciiString(data, span{a, b}, r, opts))
			}
			a = b
		}
	}
	wide, err := wideSpans(ctx, data, minChars)
	if err != nil {
		return nil, err
	}
	return appendWide(data, wide, r, opts, out), nil
}
