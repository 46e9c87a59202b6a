package srcmap

import (
	"strings"
	"testing"
)

// TestVLQDigits: each base64 digit decodes to its value, alone and as a
// continuation, and any other byte is refused.
func TestVLQDigits(t *testing.T) {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for d := range 32 { // a single digit: sign in bit 0, value above it
		v, next, err := vlq(digits[d:d+1], 0)
		want := int32(d >> 1)
		if d&1 == 1 {
			want = -want
		}
		if err != nil || next != 1 || v != want {
			t.Fatalf("%q: %d %d %v, want %d", digits[d], v, next, err, want)
		}
	}
	for d := 32; d < 64; d++ { // a continuation digit, then "B" (1 << 5 before the sign)
		v, next, err := vlq(digits[d:d+1]+"B", 0)
		raw := int64(d&31) | 1<<5
		want := int32(raw >> 1)
		if raw&1 == 1 {
			want = -want
		}
		if err != nil || next != 2 || v != want {
			t.Fatalf("%q: %d %d %v, want %d", digits[d:d+1]+"B", v, next, err, want)
		}
	}
	for c := range 256 {
		if strings.IndexByte(digits, byte(c)) >= 0 {
			continue
		}
		if _, _, err := vlq(string([]byte{byte(c)}), 0); err == nil {
			t.Fatalf("byte %#x decoded", c)
		}
	}
	for m, want := range map[string]int{"": 0, ";;": 0, "AAAA": 1, "AAAA,CAAC;;AACA": 3, ",A,,B;": 2} {
		if got := Count(m); got != want {
			t.Fatalf("Count(%q) = %d, want %d", m, got, want)
		}
	}
}

// TestDecode: lines, the section offset on the first line only, sources
// out of range counted and sourceless, one-field segments.
func TestDecode(t *testing.T) {
	var got []Segment
	out, err := Decode("AAAA,CAAC;AACA,CCAA;A", 2, 10, 1, func(s Segment) error { got = append(got, s); return nil })
	want := []Segment{{2, 10, 0, 0, 0}, {2, 11, 0, 0, 1}, {3, 0, 0, 1, 1}, {3, 1, -1, 0, 0}, {4, 0, -1, 0, 0}}
	if err != nil || out != 1 || len(got) != len(want) {
		t.Fatalf("%v %d %v, want %v", got, out, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("segment %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
