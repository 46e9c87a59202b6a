package native

import (
	"cmp"
	"context"
	"encoding/binary"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"rea/ports"
)

// span is a run of string bytes [start, end) inside one region.
type span struct{ start, end int }

// scanRegions finds the strings of every region and sorts them by address.
// refs, sorted by address, are the literal references of a Go or Rust
// binary (strings_lit.go); a region they point into is split into literals.
// Regions are read in windows (strings_window.go) except where literals
// are split, the pieces on every core (strings_par.go); the list's records
// are charged to the call's memory budget as it grows (held says what the
// set keeps reserved).
func scanRegions(ctx context.Context, src source, regions []region, opts Options, refs []litRef) (_ *stringSet, err error) {
	var out []strRec
	ch := &charge{ctx: ctx, what: "the strings list"}
	defer func() {
		if err != nil {
			ch.release()
		}
	}()
	pieces, limits, err := planRegions(ctx, src, regions, refs)
	if err != nil {
		return nil, err
	}
	if out, err = scanPieces(ctx, src, regions, pieces, opts, out, ch); err != nil {
		return nil, err
	}
	if err := ch.to(recBytes * int64(cap(out))); err != nil {
		return nil, err
	}
	// Literals sharing a start (only in Go and Rust binaries) come longest
	// first. Each region's strings are sorted already, and regions usually
	// come in address order.
	less := func(a, b strRec) int {
		return recLess(regions[a.region].addr+a.off, regions[b.region].addr+b.off, a, b)
	}
	if !slices.IsSortedFunc(out, less) {
		slices.SortStableFunc(out, less)
	}
	return &stringSet{regions: regions, recs: slices.Clip(out), limits: limits, held: ch.release}, nil
}

// recBytes is the size of a strRec.
const recBytes = int64(unsafe.Sizeof(strRec{}))

// charge holds reservations (ports.Reserve) for a list while it grows, in
// steps of at least a MiB.
type charge struct {
	ctx      context.Context
	what     string
	held     int64
	releases []func()
}

// to makes sure n bytes are reserved.
func (c *charge) to(n int64) error {
	if n <= c.held {
		return nil
	}
	step := max(n-c.held, 1<<20)
	rel, err := ports.Reserve(c.ctx, c.what, step)
	if err != nil {
		return err
	}
	c.releases = append(c.releases, rel)
	c.held += step
	return nil
}

// release drops every reservation.
func (c *charge) release() {
	for _, r := range c.releases {
		r()
	}
	c.releases, c.held = nil, 0
}

// strRec is one string in compact form: where it is and how long, its
// value read from the file when the list is handed out (a large binary has
// millions of strings; the list is kept in this form, a quarter of the
// size of its ports.String records and without copies of the bytes).
type strRec struct {
	off    uint64 // from the start of its region
	n      int    // ByteLength
	region int32  // index in stringSet.regions
	wide   bool   // UTF-16LE, else ASCII
}

// stringSet is the Strings list of an analysis.
type stringSet struct {
	regions []region
	recs    []strRec // sorted as the list is: by address, ASCII first, longest first
	limits  []string // what the scan left out
	held    func()   // releases the memory reserved for recs
}

// recLess orders two records at addresses x and y: by address, then
// charset ("ascii" before "utf-16le"), longest first.
func recLess(x, y uint64, a, b strRec) int {
	return cmp.Or(cmp.Compare(x, y), cmp.Compare(boolInt(a.wide), boolInt(b.wide)), cmp.Compare(b.n, a.n))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// strings materializes the list, reading each value from the file: a view
// of the mapping, or, without one, only the bytes the value needs.
func (set *stringSet) strings(ctx context.Context, src source, opts Options) ([]ports.String, error) {
	out := make([]ports.String, len(set.recs))
	for i, s := range set.recs {
		if i&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r := set.regions[s.region]
		if s.off+uint64(s.n) > src.clamp(r.off, r.size) {
			return nil, &ports.FormatError{Format: src.format, Offset: int64(min(r.off+s.off, 1<<62)), Msg: "string beyond its section"}
		}
		need := uint64(s.n)
		if s.wide {
			need = min(need, 2*uint64(opts.MaxStringBytes)+2)
		} else {
			need = min(need, uint64(opts.MaxStringBytes)+1)
		}
		b, err := src.view(r.off+s.off, need) // pinned by the caller (Analysis.enter)
		if err != nil {
			return nil, err
		}
		out[i] = stringOf(b, s, r, opts)
	}
	return out, nil
}

// stringAt is the string s of region r, whose bytes are data.
func stringAt(data []byte, s strRec, r region, opts Options) ports.String {
	return stringOf(data[s.off:s.off+uint64(s.n)], s, r, opts)
}

// stringOf is the string s of region r whose bytes start b: all of them, or
// at least as many as its value can hold plus one character.
func stringOf(b []byte, s strRec, r region, opts Options) ports.String {
	str := ports.String{Address: r.addr + s.off, FileOffset: r.off + s.off, ByteLength: s.n, Section: r.name}
	if !s.wide {
		str.Charset = "ascii"
		if len(b) > opts.MaxStringBytes {
			b, str.Truncated = b[:opts.MaxStringBytes], true
		}
		str.Value = string(b)
		return str
	}
	str.Charset = "utf-16le"
	buf := make([]byte, 0, min(len(b)/2, opts.MaxStringBytes))
	for i := 0; i+1 < len(b); i += 2 {
		c := rune(binary.LittleEndian.Uint16(b[i:]))
		if utf16.IsSurrogate(c) && i+3 < len(b) {
			if r := utf16.DecodeRune(c, rune(binary.LittleEndian.Uint16(b[i+2:]))); r != utf8.RuneError {
				c = r
				i += 2
			}
		}
		if len(buf)+utf8.RuneLen(c) > opts.MaxStringBytes {
			str.Truncated = true
			break
		}
		buf = utf8.AppendRune(buf, c)
	}
	str.Value = string(buf)
	return str
}

// isASCII is whether b is text in a literal: printable ASCII, tab, or a
// line break. A C message such as "\n%s: crc error\n" is one literal whose
// code loads the address of its first line break; a scan that stopped at
// line breaks would list it one byte late and find no code using it.
func isASCII(b byte) bool { return b == '\t' || b == '\n' || b == '\r' || (b >= 0x20 && b <= 0x7e) }

// enoughText is whether a run of text is a string: at least minChars
// characters that are not line breaks (line breaks join and end the text of
// a literal but do not make a run long enough on their own, so binary data
// holding 0x0a or 0x0d bytes yields no more strings than before), and not
// only spaces, tabs and line breaks. Its characters are every step-th byte:
// 1 for ASCII, 2 for UTF-16LE runs of Latin-1 characters.
func enoughText(text []byte, minChars, step int) bool {
	n, visible := 0, false
	for i := 0; i < len(text); i += step {
		if b := text[i]; b != '\n' && b != '\r' {
			n++
			visible = visible || b > ' '
			if n >= minChars && visible {
				return true
			}
		}
	}
	return false
}

func isLatin(b byte) bool { return isASCII(b) || b >= 0xa0 }

// scanBytes appends the ASCII and UTF-16LE runs of data to out, sorted as
// scanRegions sorts. UTF-16LE runs are found at both byte parities. An ASCII
// run that runs into the first character of a UTF-16LE run (the only way the
// two can overlap, since every other byte of the latter is zero) is cut
// where the UTF-16LE run starts.
func scanBytes(ctx context.Context, data []byte, r region, opts Options, out []strRec) ([]strRec, error) {
	minChars := opts.MinStringChars
	wide, err := wideSpans(ctx, data, minChars)
	if err != nil {
		return nil, err
	}
	wide = slices.DeleteFunc(wide, func(s span) bool { return !enoughText(data[s.start:s.end], minChars, 2) })
	base := len(out)
	// ASCII runs come in address order, so the first UTF-16LE run starting
	// inside one is found by a cursor rather than a search.
	k := 0
	emitASCII := func(s span) {
		for k < len(wide) && wide[k].start < s.start+1 {
			k++
		}
		if k < len(wide) && wide[k].start < s.end {
			s.end = wide[k].start
		}
		if s.end-s.start < minChars || !enoughText(data[s.start:s.end], minChars, 1) {
			return
		}
		out = append(out, asciiString(data, s, r, opts))
	}
	if minChars >= 1 && minChars <= maxFastRun {
		check := func() error { return ctx.Err() }
		if err := asciiRuns(data, minChars, check, emitASCII); err != nil {
			return nil, err
		}
	} else {
		for i, next := 0, 0; i < len(data); {
			if i >= next {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				next = i + 1<<20
			}
			start := nextASCII(data, i)
			i = nextNonASCII(data, start)
			if i-start >= minChars && start < len(data) {
				emitASCII(span{start, i})
			}
		}
	}
	ascii := len(out)
	out = appendWide(data, wide, r, opts, out)
	mergeSorted(out[base:], ascii-base)
	return out, nil
}

// asciiByte is isASCII as a table.
var asciiByte = func() (t [256]bool) {
	for b := range t {
		t[b] = isASCII(byte(b))
	}
	return t
}()

// stringLess is the order of the Strings list: by address, then charset,
// longest first.
func stringLess(a, b ports.String) int {
	return cmp.Or(cmp.Compare(a.Address, b.Address), cmp.Compare(a.Charset, b.Charset), cmp.Compare(b.ByteLength, a.ByteLength))
}

// mergeSorted sorts s, records of one region whose first n and remaining
// elements are each sorted, stably.
func mergeSorted(s []strRec, n int) {
	stringLess := func(a, b strRec) int { return recLess(a.off, b.off, a, b) }
	if n == 0 || n == len(s) || stringLess(s[n-1], s[n]) <= 0 {
		return
	}
	left := slices.Clone(s[:n])
	i, j, o := 0, n, 0
	for i < len(left) && j < len(s) {
		if stringLess(s[j], left[i]) < 0 {
			s[o] = s[j]
			j++
		} else {
			s[o] = left[i]
			i++
		}
		o++
	}
	copy(s[o:], left[i:])
}

// asciiString is the ASCII string at s of region r.
func asciiString(_ []byte, s span, r region, _ Options) strRec {
	return strRec{off: uint64(s.start), n: s.end - s.start, region: r.index}
}

// wideSpans finds the UTF-16LE runs of Latin-1 characters of data, at both
// byte parities, sorted by start. A character is a Latin-1 byte followed by
// a zero byte, so the scan visits the zero bytes only: the character that
// ends at each one extends the run of its parity when it follows the run's
// last character, and otherwise ends that run and starts the next.
func wideSpans(ctx context.Context, data []byte, minChars int) ([]span, error) {
	var runs [2][]span
	if minChars >= 1 && minChars <= maxFastWide {
		var err error
		if runs, err = wideRuns(data, minChars, func() error { return ctx.Err() }); err != nil {
			return nil, err
		}
		return mergeRuns(runs[0], runs[1]), nil
	}
	var start, end [2]int // the current run of each parity: [start, end), empty when start == end
	for z, next := nextZero(data, 1), 0; z < len(data); z = nextZero(data, z+1) {
		if z >= next {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			next = z + 1<<20
		}
		i := z - 1
		if !latinByte[data[i]] {
			continue
		}
		p := i & 1
		if end[p] == i && start[p] < end[p] {
			end[p] = i + 2
			continue
		}
		if (end[p]-start[p])/2 >= minChars {
			runs[p] = append(runs[p], span{start[p], end[p]})
		}
		start[p], end[p] = i, i+2
	}
	for p := range 2 {
		if (end[p]-start[p])/2 >= minChars {
			runs[p] = append(runs[p], span{start[p], end[p]})
		}
	}
	return mergeRuns(runs[0], runs[1]), nil
}

// mergeRuns merges two lists of runs sorted by start.
func mergeRuns(a, b []span) []span {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	merged := make([]span, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].start < a[0].start {
			merged, b = append(merged, b[0]), b[1:]
		} else {
			merged, a = append(merged, a[0]), a[1:]
		}
	}
	return append(append(merged, a...), b...)
}

// appendWide appends the UTF-16LE strings at the spans.
func appendWide(_ []byte, wide []span, r region, _ Options, out []strRec) []strRec {
	for _, s := range wide {
		out = append(out, strRec{off: uint64(s.start), n: s.end - s.start, region: r.index, wide: true})
	}
	return out
}
