package jsapp

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"rea/ports"
)

// TestSitePositionsEndLinesAsTheParserDoes: the line and column a semantic
// relation gets (trace_javascript_semantics) end lines at \n, \r, \r\n,
// U+2028 and U+2029, as the parser, V8 and the other tools' code locations
// do, and count columns in UTF-16 code units, whichever path the sweep takes
// (a file without \r or U+2028 takes a faster one).
func TestSitePositionsEndLinesAsTheParserDoes(t *testing.T) {
	terminators := regexp.MustCompile("\r\n|\r|\n|\u2028|\u2029")
	want := func(src string, off int) genPos {
		pre := src[:off]
		ends := terminators.FindAllStringIndex(pre, -1)
		start := 0
		if len(ends) > 0 {
			start = ends[len(ends)-1][1]
		}
		return genPos{int32(len(ends)), int32(len(utf16.Encode([]rune(pre[start:]))))}
	}
	for _, src := range []string{
		"export const a = 1;\nexport const b = 2;\n",
		"x\r\nexport const a = 1;\r\n\r\nexport const b = 'é😀'; export const c = 3;",
		"x\rexport const a = 1;\u2028export const b = 2;\u2029\u2029export const c = \"“é”\";export const d = 4;",
		"é😀“x”\n\r\n\u2028y export const a = 1; export const b = 2;",
	} {
		var f ports.JSFacts
		var offs []int
		for i := 0; ; {
			j := strings.Index(src[i:], "export const ")
			if j < 0 {
				break
			}
			off := i + j + len("export const ")
			offs = append(offs, off)
			f.Exports = append(f.Exports, ports.JSExport{Name: src[off : off+1], Offset: int64(off)})
			i = off
		}
		got := sitePositions(&f, []byte(src))
		if len(got) != len(offs) {
			t.Fatalf("%q: %d positions for %d offsets", src, len(got), len(offs))
		}
		for k, off := range offs {
			if got[k].off != int64(off) || got[k].genPos != want(src, off) {
				t.Errorf("%q offset %d: got %+v, want %+v", src, off, got[k], want(src, off))
			}
		}
	}
}

// positionFromEnd, which places a sourceMappingURL comment by reading from
// it to the end, agrees with positionsAt's sweep from the start whatever
// ends the lines before it and whatever its line holds.
func TestPositionFromEndAgreesWithPositionsAt(t *testing.T) {
	for _, pre := range []string{"", "a\n", "x\r\ny\r\n", "x\ry\u2028é😀 ", "a\u2029“b”\n\r\nc; "} {
		src := []byte(pre + "//# sourceMappingURL=a.js.map\n")
		off := int64(len(pre))
		want := positionsAt(src, []int64{off})[0].genPos
		if got := positionFromEnd(src, off, lineCount(src)); got != want {
			t.Errorf("%q: %+v, want %+v", pre, got, want)
		}
	}
}
