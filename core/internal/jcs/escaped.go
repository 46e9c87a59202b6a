package jcs

import "unicode/utf8"

// EscapedLen is the UTF-8 length of s as a JSON string body (without the
// quotes), as a JSON encoder escapes it, computed without building it.
func EscapedLen(s []byte) int64 {
	var n int64
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '<' || c == '>' || c == '&': // HTML-escaping encoders write \u003c
				n += 6
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += 6 // \ufffd
		} else if r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += int64(size)
		}
		i += size
	}
	return n
}
