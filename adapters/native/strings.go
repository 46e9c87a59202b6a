package native

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"rea/ports"
)

// span is a run of string bytes [start, end) inside one region.
type span struct{ start, end int }

// scanRegions finds the strings of every region and sorts them by address.
// refs, sorted by address, are the literal references of a Go or Rust
// binary (strings_lit.go); a region they point into is split into literals.
func scanRegions(ctx context.Context, src source, regions []region, opts Options, refs []litRef) ([]ports.String, error) {
	var out []ports.String
	for i, r := range regions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ports.Observe(ctx, "strings", fmt.Sprintf("section %d of %d (%s)", i+1, len(regions), r.name))
		n := src.clamp(r.off, r.size)
		if n == 0 {
			continue
		}
		data, err := src.view(r.off, n)
		if err != nil {
			return nil, err
		}
		if in := refsIn(refs, r.addr, uint64(len(data))); len(in) > 0 {
			out, err = scanLiterals(ctx, data, r, opts, in, out)
		} else {
			out, err = scanBytes(ctx, data, r, opts, out)
		}
		if err != nil {
			return nil, err
		}
	}
	// Literals sharing a start (only in Go and Rust binaries) come longest
	// first. Each region's strings are sorted already, and regions usually
	// come in address order.
	if !slices.IsSortedFunc(out, stringLess) {
		slices.SortStableFunc(out, stringLess)
	}
	return out, nil
}

func isASCII(b byte) bool { return b == '\t' || (b >= 0x20 && b <= 0x7e) }

func isLatin(b byte) bool { return isASCII(b) || b >= 0xa0 }

// scanBytes appends the ASCII and UTF-16LE runs of data to out, sorted as
// scanRegions sorts. UTF-16LE runs are found at both byte parities. An ASCII
// run that runs into the first character of a UTF-16LE run (the only way the
// two can overlap, since every other byte of the latter is zero) is cut
// where the UTF-16LE run starts.
func scanBytes(ctx context.Context, data []byte, r region, opts Options, out []ports.String) ([]ports.String, error) {
	minChars := opts.MinStringChars
	wide, err := wideSpans(ctx, data, minChars)
	if err != nil {
		return nil, err
	}
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
		if s.end-s.start < minChars {
			return
		}
		out = append(out, asciiString(data, s, r, opts))
	}
	for i := 0; i < len(data); {
		if i&0xfffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if !asciiByte[data[i]] {
			i++
			continue
		}
		start := i
		for i < len(data) && asciiByte[data[i]] {
			i++
		}
		if i-start >= minChars {
			emitASCII(span{start, i})
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

// mergeSorted sorts s, whose first n and remaining elements are each
// sorted, stably.
func mergeSorted(s []ports.String, n int) {
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

// asciiString is the ASCII string at s, its value cut at the maximum length.
func asciiString(data []byte, s span, r region, opts Options) ports.String {
	v, truncated := data[s.start:s.end], false
	if len(v) > opts.MaxStringBytes {
		v, truncated = v[:opts.MaxStringBytes], true
	}
	return ports.String{
		Address:    r.addr + uint64(s.start),
		FileOffset: r.off + uint64(s.start),
		Value:      string(v),
		Charset:    "ascii",
		ByteLength: s.end - s.start,
		Truncated:  truncated,
		Section:    r.name,
	}
}

// wideSpans finds the UTF-16LE runs of Latin-1 characters of data, at both
// byte parities, sorted by start.
func wideSpans(ctx context.Context, data []byte, minChars int) ([]span, error) {
	var wide []span
	even := 0
	for parity := 0; parity < 2; parity++ {
		start, i := -1, parity
		for ; i+1 < len(data); i += 2 {
			if (i-parity)&0xfffff == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			if data[i+1] == 0 && isLatin(data[i]) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 && (i-start)/2 >= minChars {
				wide = append(wide, span{start, i})
			}
			start = -1
		}
		if start >= 0 && (i-start)/2 >= minChars {
			wide = append(wide, span{start, i})
		}
		if parity == 0 {
			even = len(wide)
		}
	}
	// Each parity's runs are in order: merge them.
	if even > 0 && even < len(wide) {
		merged := make([]span, 0, len(wide))
		a, b := wide[:even], wide[even:]
		for len(a) > 0 && len(b) > 0 {
			if b[0].start < a[0].start {
				merged, b = append(merged, b[0]), b[1:]
			} else {
				merged, a = append(merged, a[0]), a[1:]
			}
		}
		wide = append(append(merged, a...), b...)
	}
	return wide, nil
}

// appendWide appends the UTF-16LE strings at the spans.
func appendWide(data []byte, wide []span, r region, opts Options, out []ports.String) []ports.String {
	for _, s := range wide {
		buf := make([]byte, 0, min((s.end-s.start)/2, opts.MaxStringBytes))
		truncated := false
		for i := s.start; i < s.end; i += 2 {
			c := rune(data[i])
			if len(buf)+utf8.RuneLen(c) > opts.MaxStringBytes {
				truncated = true
				break
			}
			buf = utf8.AppendRune(buf, c)
		}
		out = append(out, ports.String{
			Address:    r.addr + uint64(s.start),
			FileOffset: r.off + uint64(s.start),
			Value:      string(buf),
			Charset:    "utf-16le",
			ByteLength: s.end - s.start,
			Truncated:  truncated,
			Section:    r.name,
		})
	}
	return out
}
