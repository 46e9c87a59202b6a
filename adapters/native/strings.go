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
		data, err := src.read(r.off, n)
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
	// Literals sharing a start (only in Go and Rust binaries) come longest first.
	slices.SortStableFunc(out, func(a, b ports.String) int {
		return cmp.Or(cmp.Compare(a.Address, b.Address), cmp.Compare(a.Charset, b.Charset), cmp.Compare(b.ByteLength, a.ByteLength))
	})
	return out, nil
}

func isASCII(b byte) bool { return b == '\t' || (b >= 0x20 && b <= 0x7e) }

func isLatin(b byte) bool { return isASCII(b) || b >= 0xa0 }

// scanBytes appends the ASCII and UTF-16LE runs of data to out. UTF-16LE
// runs are found at both byte parities. An ASCII run that runs into the first
// character of a UTF-16LE run (the only way the two can overlap, since every
// other byte of the latter is zero) is cut where the UTF-16LE run starts.
func scanBytes(ctx context.Context, data []byte, r region, opts Options, out []ports.String) ([]ports.String, error) {
	minChars := opts.MinStringChars
	wide, err := wideSpans(ctx, data, minChars)
	if err != nil {
		return nil, err
	}

	emitASCII := func(s span) {
		if k, _ := slices.BinarySearchFunc(wide, s.start+1, func(w span, t int) int { return cmp.Compare(w.start, t) }); k < len(wide) && wide[k].start < s.end {
			s.end = wide[k].start
		}
		if s.end-s.start < minChars {
			return
		}
		out = append(out, asciiString(data, s, r, opts))
	}
	start := -1
	for i, b := range data {
		if i&0xfffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if isASCII(b) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emitASCII(span{start, i})
		}
		start = -1
	}
	if start >= 0 {
		emitASCII(span{start, len(data)})
	}
	return appendWide(data, wide, r, opts, out), nil
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
	}
	slices.SortFunc(wide, func(a, b span) int { return cmp.Compare(a.start, b.start) })
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
