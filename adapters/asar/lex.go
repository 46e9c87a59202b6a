package asar

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// lexer reads the header's JSON one token at a time, as encoding/json's
// Decoder.Token does (commas and colons are checked, not returned), but
// without an interface value per token: a header of tens of thousands of
// entries is read in a fraction of the time. It accepts exactly the JSON
// text encoding/json accepts and decodes strings the same way (invalid
// UTF-8 and lone surrogates become U+FFFD); lex_test.go compares the two.
type lexer struct {
	b     []byte
	i     int
	stack []lexState // one per open object or array
	tops  int        // top-level values read
}

type lexState uint8

const (
	objFirst lexState = iota // after '{'
	objKey                   // after a key, before ':'
	objValue                 // after a member's value
	arrFirst                 // after '['
	arrValue                 // after an element
)

type tokKind uint8

const (
	tokObject    tokKind = iota + 1 // {
	tokObjectEnd                    // }
	tokArray                        // [
	tokArrayEnd                     // ]
	tokString                       // a key or a string value, in s
	tokNumber                       // its text in num
	tokTrue
	tokFalse
	tokNull
)

type token struct {
	kind tokKind
	s    string // a string's decoded value
	num  []byte // a number's text, within the input
}

var errLexEOF = errors.New("unexpected end of JSON input")

func (l *lexer) ws() {
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

func (l *lexer) syntax(what string) error {
	if l.i >= len(l.b) {
		return errLexEOF
	}
	return fmt.Errorf("invalid character %q %s", l.b[l.i], what)
}

// more reports whether the current object or array has another member or
// element (Decoder.More).
func (l *lexer) more() bool {
	l.ws()
	return l.i < len(l.b) && l.b[l.i] != ']' && l.b[l.i] != '}'
}

// atEOF reports whether only whitespace is left.
func (l *lexer) atEOF() bool {
	l.ws()
	return l.i == len(l.b)
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	l.ws()
	if n := len(l.stack); n > 0 {
		top := &l.stack[n-1]
		switch *top {
		case objFirst, objValue:
			if l.i < len(l.b) && l.b[l.i] == '}' {
				l.i++
				l.stack = l.stack[:n-1]
				return token{kind: tokObjectEnd}, nil
			}
			if *top == objValue {
				if l.i >= len(l.b) || l.b[l.i] != ',' {
					return token{}, l.syntax("after object key:value pair")
				}
				l.i++
				l.ws()
			}
			if l.i >= len(l.b) || l.b[l.i] != '"' {
				return token{}, l.syntax("looking for beginning of object key string")
			}
			s, err := l.str()
			if err != nil {
				return token{}, err
			}
			*top = objKey
			return token{kind: tokString, s: s}, nil
		case objKey:
			if l.i >= len(l.b) || l.b[l.i] != ':' {
				return token{}, l.syntax("after object key")
			}
			l.i++
			l.ws()
			*top = objValue
		case arrFirst, arrValue:
			if l.i < len(l.b) && l.b[l.i] == ']' {
				l.i++
				l.stack = l.stack[:n-1]
				return token{kind: tokArrayEnd}, nil
			}
			if *top == arrValue {
				if l.i >= len(l.b) || l.b[l.i] != ',' {
					return token{}, l.syntax("after array element")
				}
				l.i++
				l.ws()
			}
			*top = arrValue
		}
	} else {
		if l.tops > 0 && l.i < len(l.b) {
			return token{}, l.syntax("after top-level value")
		}
		l.tops++
	}
	return l.value()
}

// value reads the value at l.i.
func (l *lexer) value() (token, error) {
	if l.i >= len(l.b) {
		return token{}, errLexEOF
	}
	switch c := l.b[l.i]; c {
	case '{':
		l.i++
		l.stack = append(l.stack, objFirst)
		return token{kind: tokObject}, nil
	case '[':
		l.i++
		l.stack = append(l.stack, arrFirst)
		return token{kind: tokArray}, nil
	case '"':
		s, err := l.str()
		return token{kind: tokString, s: s}, err
	case 't':
		return l.literal("true", tokTrue)
	case 'f':
		return l.literal("false", tokFalse)
	case 'n':
		return l.literal("null", tokNull)
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return l.number()
		}
	}
	return token{}, l.syntax("looking for beginning of value")
}

func (l *lexer) literal(word string, k tokKind) (token, error) {
	for j := 0; j < len(word); j++ {
		if l.i >= len(l.b) {
			return token{}, errLexEOF
		}
		if l.b[l.i] != word[j] {
			return token{}, l.syntax("in literal " + word)
		}
		l.i++
	}
	return token{kind: k}, nil
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (l *lexer) number() (token, error) {
	start := l.i
	digits := func() int {
		n := 0
		for l.i < len(l.b) && l.b[l.i] >= '0' && l.b[l.i] <= '9' {
			l.i++
			n++
		}
		return n
	}
	if l.b[l.i] == '-' {
		l.i++
	}
	switch {
	case l.i >= len(l.b):
		return token{}, errLexEOF
	case l.b[l.i] == '0':
		l.i++
	case l.b[l.i] >= '1' && l.b[l.i] <= '9':
		digits()
	default:
		return token{}, l.syntax("in numeric literal")
	}
	if l.i < len(l.b) && l.b[l.i] == '.' {
		l.i++
		if digits() == 0 {
			return token{}, l.syntax("after decimal point in numeric literal")
		}
	}
	if l.i < len(l.b) && (l.b[l.i] == 'e' || l.b[l.i] == 'E') {
		l.i++
		if l.i < len(l.b) && (l.b[l.i] == '+' || l.b[l.i] == '-') {
			l.i++
		}
		if digits() == 0 {
			return token{}, l.syntax("in exponent of numeric literal")
		}
	}
	return token{kind: tokNumber, num: l.b[start:l.i]}, nil
}

// str reads the string at l.i (a '"').
func (l *lexer) str() (string, error) {
	start := l.i + 1
	for i := start; i < len(l.b); i++ {
		switch c := l.b[i]; {
		case c == '"':
			l.i = i + 1
			return string(l.b[start:i]), nil
		case c == '\\' || c < 0x20 || c >= 0x80:
			return l.slowStr(start, i)
		}
	}
	l.i = len(l.b)
	return "", errLexEOF
}

// slowStr decodes a string with escapes, control characters or non-ASCII
// bytes, from its start; b[start:i] is plain ASCII.
func (l *lexer) slowStr(start, i int) (string, error) {
	out := make([]byte, 0, i-start+16)
	out = append(out, l.b[start:i]...)
	for i < len(l.b) {
		c := l.b[i]
		switch {
		case c == '"':
			l.i = i + 1
			return string(out), nil
		case c < 0x20:
			l.i = i
			return "", l.syntax("in string literal")
		case c == '\\':
			i++
			if i >= len(l.b) {
				l.i = i
				return "", errLexEOF
			}
			switch e := l.b[i]; e {
			case '"', '\\', '/':
				out = append(out, e)
				i++
			case 'b':
				out, i = append(out, '\b'), i+1
			case 'f':
				out, i = append(out, '\f'), i+1
			case 'n':
				out, i = append(out, '\n'), i+1
			case 'r':
				out, i = append(out, '\r'), i+1
			case 't':
				out, i = append(out, '\t'), i+1
			case 'u':
				r, ok := hex4(l.b, i+1)
				if !ok {
					l.i = min(i+1, len(l.b))
					for l.i < len(l.b) && l.i < i+5 && isHex(l.b[l.i]) {
						l.i++
					}
					return "", l.syntax("in \\u hexadecimal character escape")
				}
				i += 5
				if utf16.IsSurrogate(r) {
					if i+1 < len(l.b) && l.b[i] == '\\' && l.b[i+1] == 'u' {
						if r2, ok := hex4(l.b, i+2); ok {
							if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
								out = utf8.AppendRune(out, d)
								i += 6
								continue
							}
						}
					}
					r = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, r)
			default:
				l.i = i
				return "", l.syntax("in string escape code")
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(l.b[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, unicode.ReplacementChar)
			} else {
				out = append(out, l.b[i:i+size]...)
			}
			i += size
		}
	}
	l.i = len(l.b)
	return "", errLexEOF
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
