package js_test

import (
	"testing"
	"unicode/utf16"

	"github.com/matryer/is"
)

// TestSyntaxErrorLocation: a syntax error is located as rea locates code,
// line 1-based and column 0-based in UTF-16 code units (the parser's own
// column is 1-based in runes). Before the stray "(" on line 2 stand "é"
// (2 bytes, 1 unit) and two "😀" (4 bytes, 2 units each): 28 units, 33
// bytes, 26 runes.
func TestSyntaxErrorLocation(t *testing.T) {
	is := is.New(t)
	line2 := `const s = "é😀😀"; function ( {`
	f := facts(t, "let a = 1;\n"+line2+"\n")
	is.True(!f.Parsed)
	is.Equal(len(f.Errors), 1)
	e := f.Errors[0]
	is.Equal(e.Line, 2)
	prefix := line2[:len(`const s = "é😀😀"; function `)]
	is.Equal(e.Column, len(utf16.Encode([]rune(prefix))))
	is.Equal(e.Offset, int64(len("let a = 1;\n")+len(prefix)))
}

// TestSyntaxErrorLocationAfterOtherLineTerminators: the parser counts lines
// by \n, \r, \r\n, U+2028 and U+2029, so the error's offset is found by the
// same terminators. Before, only \n was counted: after a \r\n line, a lone
// \r line and a U+2028 line (4 lines by the parser, 2 by \n), the offset
// pointed past the end of the source and was -1.
func TestSyntaxErrorLocationAfterOtherLineTerminators(t *testing.T) {
	is := is.New(t)
	head := "let a = 1;\r\nlet b = 2;\rlet c = 3;\u2028let d = 4;\u2029"
	bad := `const s = "é"; function ( {`
	f := facts(t, head+bad+"\n")
	is.True(!f.Parsed)
	is.Equal(len(f.Errors), 1)
	e := f.Errors[0]
	is.Equal(e.Line, 5)
	prefix := bad[:len(`const s = "é"; function `)]
	is.Equal(e.Offset, int64(len(head)+len(prefix)))
	is.Equal(e.Column, len(utf16.Encode([]rune(prefix))))
}
