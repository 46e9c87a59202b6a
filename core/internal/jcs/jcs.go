// Package jcs writes RFC 8785 (JSON Canonicalization Scheme) forms: numbers
// as ECMAScript writes them, strings with only the escapes JSON requires,
// object keys in UTF-16 code-unit order, and JSON text canonicalized in one
// pass over its bytes (raw.go). It is the kernel's canonicalizer, kept apart
// from the kernel's types; rea/core re-exports what the families use.
// It imports the standard library only.
package jcs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds nesting in canonicalized values.
const MaxDepth = 512

// AppendNumber appends the JCS form of the JSON number literal s: integers
// within ±2^53 keep their digits, anything else is the nearest double.
func AppendNumber(dst []byte, s string) ([]byte, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= -(1<<53) && n <= 1<<53 {
		return strconv.AppendInt(dst, n, 10), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("canonical json: number %q: %w", s, err)
	}
	return AppendFloat(dst, f)
}

// AppendInt appends n as encoding/json's digits canonicalize: exact within
// ±2^53, the nearest double beyond.
func AppendInt(dst []byte, n int64) ([]byte, error) {
	if n >= -(1<<53) && n <= 1<<53 {
		return strconv.AppendInt(dst, n, 10), nil
	}
	return AppendFloat(dst, float64(n))
}

// AppendUint is AppendInt for unsigned integers.
func AppendUint(dst []byte, u uint64) ([]byte, error) {
	if u <= 1<<53 {
		return strconv.AppendUint(dst, u, 10), nil
	}
	return AppendFloat(dst, float64(u))
}

// AppendFloat appends f as ECMAScript's Number::toString writes it (RFC 8785
// §3.2.2.3): the shortest digits that read back as f, in positional notation
// when 1e-6 <= |f| < 1e21 and in exponent notation otherwise, with no
// leading zero in the exponent; both zeros are "0". NaN and the infinities
// are refused.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errors.New("canonical json: NaN and Infinity are not JSON")
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64), nil
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// strconv writes at least two exponent digits ("1e-07"); the exponent
	// here is at most -7 or at least 21, so only a one-digit negative
	// exponent carries a zero to drop.
	for i := len(dst) - 1; i > start; i-- {
		if dst[i] == 'e' {
			if dst[i+2] == '0' {
				dst = append(dst[:i+2], dst[i+3:]...)
			}
			break
		}
	}
	return dst, nil
}

const hexDigits = "0123456789abcdef"

// plainByte marks the ASCII bytes a JSON string holds as they are.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string, escaping only what RFC 8785
// requires: '"', '\\' and control characters. Invalid UTF-8 is replaced by
// U+FFFD, as a JSON decoder would have done.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		// A run of bytes that need nothing goes in one append.
		j := i
		for j < len(s) && plainByte[s[j]] {
			j++
		}
		if j > i {
			dst = append(dst, s[i:j]...)
			if i = j; i == len(s) {
				break
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				if c < 0x20 {
					dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				} else {
					dst = append(dst, c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// CompareKeys orders keys by UTF-16 code units, as RFC 8785 sorts object
// members: bytewise while the differing bytes are ASCII, rune by rune from
// the differing rune otherwise.
func CompareKeys(a, b string) int { return compareKeys(a, b) }

// compareKeys is CompareKeys on strings or bytes (AppendRaw's keys).
func compareKeys[K ~string | ~[]byte](a, b K) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	if a[i] < 0x80 && b[i] < 0x80 {
		return int(a[i]) - int(b[i])
	}
	for i > 0 && (a[i]&0xC0 == 0x80) { // back to the start of the rune
		i--
	}
	if lessUTF16(string(a[i:]), string(b[i:])) { // for bytes, rare: converts only the tails
		return -1
	}
	return 1
}

// lessUTF16 orders strings by UTF-16 code units.
func lessUTF16(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return utf16Key(ra) < utf16Key(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

// utf16Key maps a rune to a value ordered like its first UTF-16 code unit,
// breaking ties by the rune itself.
func utf16Key(r rune) uint64 {
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return uint64(hi)<<16 | uint64(lo)
	}
	return uint64(r) << 16
}
