package browser

import (
	"testing"
)

// TestLineColIsOneBasedLineUTF16Column: bundle findings are located as
// rea locates code: line 1-based, column 0-based in UTF-16 code units, so
// they agree with CDP's initiator and console columns on non-ASCII lines.
func TestLineColIsOneBasedLineUTF16Column(t *testing.T) {
	src := []byte("a\nconst s = \"é😀\"; fetch(\"/x\")\n\xff\xfeb")
	for _, c := range []struct {
		off       int64
		line, col int
		what      string
	}{
		{0, 1, 0, "the first byte"},
		{2, 2, 0, "a line's first byte"},
		{int64(len("a\nconst s = \"é😀\"; ")), 2, 17, "after é (1 unit) and 😀 (2 units)"},
		{int64(len(src) - 1), 3, 2, "after two bytes that are not UTF-8"},
		{int64(len(src)), 3, 3, "the end"},
		{-1, 0, 0, "out of range"},
		{int64(len(src) + 1), 0, 0, "out of range"},
	} {
		if l, col := lineCol(src, c.off); l != c.line || col != c.col {
			t.Errorf("%s: lineCol(%d) = %d:%d, want %d:%d", c.what, c.off, l, col, c.line, c.col)
		}
	}
}

// TestLineColCountsTheParsersLineTerminators: lines end at \n, \r, \r\n,
// U+2028 and U+2029, as the JavaScript parser and V8 end them; before, only
// \n was counted, so a finding after a \r\n line was a line short when
// the file used \r alone or U+2028.
func TestLineColCountsTheParsersLineTerminators(t *testing.T) {
	src := []byte("a\r\nb\rc\u2028d\u2029é f")
	for _, c := range []struct {
		off       int64
		line, col int
	}{
		{int64(len("a\r\n")), 2, 0},
		{int64(len("a\r\nb\r")), 3, 0},
		{int64(len("a\r\nb\rc\u2028")), 4, 0},
		{int64(len("a\r\nb\rc\u2028d\u2029é ")), 5, 2},
	} {
		if l, col := lineCol(src, c.off); l != c.line || col != c.col {
			t.Errorf("lineCol(%d) = %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}
