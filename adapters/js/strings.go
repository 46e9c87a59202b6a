package js

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeString decodes a quoted string literal token ('...' or "...") or a
// template chunk (`...`, `...${, }...${, }...`). ok is false for anything
// else. Invalid escapes are kept as written; lone surrogates become U+FFFD.
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	q := raw[0]
	switch q {
	case '"', '\'':
		if raw[len(raw)-1] != q {
			return "", false
		}
		return unescape(raw[1 : len(raw)-1]), true
	case '`', '}':
		return templateChunk(raw)
	}
	return "", false
}

// templateChunk strips a template part's delimiters and decodes it.
func templateChunk(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	b := raw
	if b[0] == '`' || b[0] == '}' {
		b = b[1:]
	}
	switch {
	case len(b) >= 2 && b[len(b)-2] == '$' && b[len(b)-1] == '{':
		b = b[:len(b)-2]
	case len(b) >= 1 && b[len(b)-1] == '`':
		b = b[:len(b)-1]
	}
	return unescape(b), true
}

func unescape(b []byte) string {
	if !strings.ContainsRune(string(b), '\\') {
		if utf8.Valid(b) {
			return string(b)
		}
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	var sb strings.Builder
	sb.Grow(len(b))
	var pending rune = -1 // a high surrogate waiting for its pair
	flush := func() {
		if pending >= 0 {
			sb.WriteRune(utf8.RuneError)
			pending = -1
		}
	}
	writeUnit := func(r rune) {
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 {
				flush()
				pending = r
				return
			}
			if pending >= 0 {
				sb.WriteRune(utf16.DecodeRune(pending, r))
				pending = -1
				return
			}
			sb.WriteRune(utf8.RuneError)
			return
		}
		flush()
		sb.WriteRune(r)
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			r, n := utf8.DecodeRune(b[i:])
			flush()
			sb.WriteRune(r)
			i += n
			continue
		}
		e := b[i+1]
		i += 2
		switch e {
		case 'n':
			writeUnit('\n')
		case 't':
			writeUnit('\t')
		case 'r':
			writeUnit('\r')
		case 'b':
			writeUnit('\b')
		case 'f':
			writeUnit('\f')
		case 'v':
			writeUnit('\v')
		case '0':
			writeUnit(0)
		case '\r':
			if i < len(b) && b[i] == '\n' {
				i++
			}
		case '\n':
		case 'x':
			if i+2 <= len(b) {
				if v, err := strconv.ParseUint(string(b[i:i+2]), 16, 8); err == nil {
					writeUnit(rune(v))
					i += 2
					continue
				}
			}
			sb.WriteString("\\x")
		case 'u':
			if i < len(b) && b[i] == '{' {
				end := strings.IndexByte(string(b[i:]), '}')
				if end > 1 {
					if v, err := strconv.ParseUint(string(b[i+1:i+end]), 16, 32); err == nil && v <= utf8.MaxRune {
						writeUnit(rune(v))
						i += end + 1
						continue
					}
				}
			} else if i+4 <= len(b) {
				if v, err := strconv.ParseUint(string(b[i:i+4]), 16, 16); err == nil {
					writeUnit(rune(v))
					i += 4
					continue
				}
			}
			sb.WriteString("\\u")
		default:
			r, n := utf8.DecodeRune(b[i-1:])
			i += n - 1
			if r == '\u2028' || r == '\u2029' {
				continue // line continuation
			}
			writeUnit(r)
		}
	}
	flush()
	return sb.String()
}

// indexRare is bytes.Index(s, sep), searching for sep's byte at rare, a
// byte seldom in code: bytes.Index's vectorised byte search stops at each
// of sep's first byte, and the markers every file is scanned for start
// with common ones ('p' of "pack", '.' of ".exports").
func indexRare(s, sep []byte, rare int) int {
	c := sep[rare]
	for i := rare; i < len(s); {
		j := bytes.IndexByte(s[i:], c)
		if j < 0 {
			return -1
		}
		at := i + j - rare
		if at+len(sep) <= len(s) && string(s[at:at+len(sep)]) == string(sep) {
			return at
		}
		i += j + 1
	}
	return -1
}
