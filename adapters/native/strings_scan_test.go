package native

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"rea/ports"
)

// referenceScan is the plain statement of scanBytes' rule, kept as the
// oracle for the faster scan: every maximal ASCII run, cut where a
// UTF-16LE run starts inside it, and every maximal UTF-16LE run of Latin-1
// characters at either parity, sorted by address, charset, longest first.
func referenceScan(data []byte, r region, opts Options) []ports.String {
	var wide []span
	for parity := 0; parity < 2; parity++ {
		start, i := -1, parity
		for ; i+1 < len(data); i += 2 {
			if data[i+1] == 0 && isLatin(data[i]) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 && (i-start)/2 >= opts.MinStringChars {
				wide = append(wide, span{start, i})
			}
			start = -1
		}
		if start >= 0 && (i-start)/2 >= opts.MinStringChars {
			wide = append(wide, span{start, i})
		}
	}
	slices.SortFunc(wide, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	wide = slices.DeleteFunc(wide, func(s span) bool {
		var chars []byte
		for i := s.start; i < s.end; i += 2 {
			chars = append(chars, data[i])
		}
		return len(bytes.TrimLeft(chars, " \t\n\r")) == 0 || len(chars)-bytes.Count(chars, []byte{'\n'})-bytes.Count(chars, []byte{'\r'}) < opts.MinStringChars
	})
	var out []ports.String
	emit := func(s span) {
		for _, w := range wide {
			if w.start > s.start && w.start < s.end {
				s.end = w.start
				break
			}
		}
		if s.end-s.start >= opts.MinStringChars && len(bytes.TrimLeft(data[s.start:s.end], " \t\n\r")) > 0 &&
			s.end-s.start-bytes.Count(data[s.start:s.end], []byte{'\n'})-bytes.Count(data[s.start:s.end], []byte{'\r'}) >= opts.MinStringChars {
			out = append(out, stringAt(data, strRec{off: uint64(s.start), n: s.end - s.start}, r, opts))
		}
	}
	start := -1
	for i, b := range data {
		if isASCII(b) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(span{start, i})
		}
		start = -1
	}
	if start >= 0 {
		emit(span{start, len(data)})
	}
	for _, s := range wide {
		var buf []byte
		truncated := false
		for i := s.start; i < s.end; i += 2 {
			if len(buf)+utf8.RuneLen(rune(data[i])) > opts.MaxStringBytes {
				truncated = true
				break
			}
			buf = utf8.AppendRune(buf, rune(data[i]))
		}
		out = append(out, ports.String{Address: r.addr + uint64(s.start), FileOffset: r.off + uint64(s.start), Value: string(buf),
			Charset: "utf-16le", ByteLength: s.end - s.start, Truncated: truncated, Section: r.name})
	}
	slices.SortStableFunc(out, stringLess)
	return out
}

// The fast scan lists exactly what the reference rule lists, on random
// mixes of ASCII, UTF-16LE, Latin-1 and binary bytes.
func TestScanBytesMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	opts := (&Options{MaxStringBytes: 16}).withDefaults()
	r := region{name: ".rodata", addr: 0x1000, off: 0x200}
	for trial := range 2000 {
		var data []byte
		for len(data) < 600 {
			switch rng.IntN(5) {
			case 0: // ASCII text
				for range rng.IntN(30) {
					data = append(data, byte(' '+rng.IntN(95)))
				}
			case 1: // UTF-16LE text, either parity
				if rng.IntN(2) == 0 {
					data = append(data, 'x')
				}
				for range rng.IntN(30) {
					data = append(data, byte(0xa0+rng.IntN(96)*int(rng.IntN(2))+rng.IntN(2)*('A'-0xa0)), 0)
				}
			case 2:
				data = append(data, 0)
			case 3:
				data = append(data, '\t', 'a', 0, 'b', 0)
			default:
				data = append(data, byte(rng.IntN(256)))
			}
		}
		recs, err := scanBytes(context.Background(), data, r, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []ports.String
		for _, rec := range recs {
			got = append(got, stringAt(data, rec, r, opts))
		}
		want := referenceScan(data, r, opts)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %d strings, reference %d\n got %v\nwant %v", trial, len(got), len(want), got, want)
		}
	}
}

// The fast scan lists what the reference rule lists at every minimum run
// length, on each side of the longest the word-at-a-time path handles,
// with runs long enough to reach it.
func TestScanBytesMatchesReferenceAnyMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := region{name: ".rodata", addr: 0x1000, off: 0x200}
	for trial := range 600 {
		minChars := []int{1, 2, 3, 5, 8, 13, 31, 63, maxFastRun, maxFastRun + 1}[trial%10]
		opts := (&Options{MaxStringBytes: 200, MinStringChars: minChars}).withDefaults()
		var data []byte
		for len(data) < 1500 {
			switch rng.IntN(5) {
			case 0:
				for range rng.IntN(140) {
					if c := rng.IntN(110); c >= 95 {
						data = append(data, "\n\r\t"[c%3]) // line breaks join text, but do not count
					} else {
						data = append(data, byte(' '+c))
					}
				}
			case 1:
				for range rng.IntN(80) {
					if c := rng.IntN(32); c >= 26 {
						data = append(data, "\n\r\t "[c%4], 0)
					} else {
						data = append(data, byte('a'+c), 0)
					}
				}
			case 2:
				data = append(data, 0)
			default:
				data = append(data, byte(rng.IntN(256)))
			}
		}
		data = data[:len(data)-rng.IntN(64)]
		recs, err := scanBytes(context.Background(), data, r, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []ports.String
		for _, rec := range recs {
			got = append(got, stringAt(data, rec, r, opts))
		}
		want := referenceScan(data, r, opts)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (min %d): %d strings, reference %d", trial, minChars, len(got), len(want))
		}
	}
}

// FuzzScanBytes checks the word-at-a-time scan against the reference rule
// on any bytes and any minimum run length.
func FuzzScanBytes(f *testing.F) {
	f.Add([]byte("hello\x00w\x00o\x00r\x00l\x00d\x00\xff\tabc"), uint8(4))
	f.Add(bytes.Repeat([]byte("a\x00"), 100), uint8(33))
	f.Add(bytes.Repeat([]byte("text"), 40), uint8(64))
	f.Add([]byte("\n%s: crc\r\n\x00\n\n\n\t \x00a\nb\nc\n\x00\n\x00x\x00\r\x00y\x00"), uint8(3))
	r := region{name: ".rodata", addr: 0x1000, off: 0x200}
	f.Fuzz(func(t *testing.T, data []byte, min uint8) {
		opts := (&Options{MaxStringBytes: 64, MinStringChars: int(min%70) + 1}).withDefaults()
		recs, err := scanBytes(context.Background(), data, r, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []ports.String
		for _, rec := range recs {
			got = append(got, stringAt(data, rec, r, opts))
		}
		if want := referenceScan(data, r, opts); !slices.Equal(got, want) {
			t.Fatalf("min %d: %d strings, reference %d", opts.MinStringChars, len(got), len(want))
		}
	})
}

// TestASCIIMaskEveryByte checks the word-at-a-time class against isASCII
// for every byte value in every lane, among neighbours of every class.
func TestASCIIMaskEveryByte(t *testing.T) {
	for _, fill := range []byte{0x00, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0x89, 0xff} {
		for b := range 256 {
			for lane := range 8 {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[lane] = byte(b)
				m := asciiMask(binary.LittleEndian.Uint64(w[:]))
				for i := range w {
					if got := m>>(8*i+7)&1 == 1; got != isASCII(w[i]) {
						t.Fatalf("byte %#02x in lane %d among %#02x: lane %d says %v", b, lane, fill, i, got)
					}
				}
			}
		}
	}
}
