package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// maxCanonicalDepth bounds nesting in canonicalized values.
const maxCanonicalDepth = 512

// Canonicalize returns the RFC 8785 (JCS) form of the JSON text raw
// (canonical_raw.go).
func Canonicalize(raw []byte) ([]byte, error) {
	return canonicalizeRaw(nil, raw)
}

// CanonicalJSON marshals v with encoding/json and returns its JCS form.
func CanonicalJSON(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return Canonicalize(raw)
	}
	out, err := appendDirect(nil, v, 0)
	if checkCanonicalDirect {
		want, werr := canonicalTwoPass(v)
		if err != errDirectUnsupported && ((err == nil) != (werr == nil) || !bytes.Equal(out, want)) {
			panic(fmt.Sprintf("canonical json: the direct encoder differs from encoding/json + Canonicalize for %T:\n direct %.300s (%v)\n two-pass %.300s (%v)", v, out, err, want, werr))
		}
	}
	if err != errDirectUnsupported {
		return out, err
	}
	return canonicalTwoPass(v)
}

// canonicalTwoPass marshals with encoding/json and canonicalizes the text.
func canonicalTwoPass(v any) ([]byte, error) {
	raw, err := MarshalNoEscape(v)
	if err != nil {
		return nil, err
	}
	return Canonicalize(raw)
}

// Digest is the lowercase hex SHA-256 of JCS(v).
func Digest(v any) (string, error) {
	c, err := CanonicalJSON(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// MustDigest is Digest for values built by rea itself, where failure is a
// programmer error.
func MustDigest(v any) string {
	d, err := Digest(v)
	if err != nil {
		panic("core: digest of internal value: " + err.Error())
	}
	return d
}

// decodeJSON decodes one JSON value, keeping numbers exact, and rejects
// trailing data.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("canonical json: trailing data after value")
	}
	return v, nil
}

// AppendCanonical appends the JCS encoding of a decoded JSON value (nil, bool,
// string, json.Number, float64, integer kinds, []any, map[string]any) to dst.
func AppendCanonical(dst []byte, v any) ([]byte, error) {
	out, err := appendDirect(dst, v, 0)
	if err == errDirectUnsupported {
		return nil, fmt.Errorf("canonical json: unsupported type %T", v)
	}
	return out, err
}

func appendCanonicalNumber(dst []byte, s string) ([]byte, error) {
	// Integers within the exactly representable range keep their digits.
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= -(1<<53) && n <= 1<<53 {
		return strconv.AppendInt(dst, n, 10), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("canonical json: number %q: %w", s, err)
	}
	return appendFloat(dst, f)
}

func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errors.New("canonical json: NaN and Infinity are not JSON")
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return append(dst, s...), nil
}

const hexDigits = "0123456789abcdef"

// plainJSONByte marks the ASCII bytes a JSON string holds as they are.
var plainJSONByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendCanonicalString escapes only what RFC 8785 requires: '"', '\\' and
// control characters. Invalid UTF-8 is replaced by U+FFFD, as a JSON decoder
// would have done.
func AppendCanonicalString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		// A run of bytes that need nothing goes in one append.
		j := i
		for j < len(s) && plainJSONByte[s[j]] {
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

// lessUTF16 orders strings by UTF-16 code units, as RFC 8785 sorts keys.
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

// MarshalNoEscape is json.Marshal without HTML escaping.
func MarshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Hex renders an address, offset or size as a canonical "0x" hex string, the
// form used for every such value that can exceed 2^53.
func Hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

// ParseHex parses an address written as "0x..." hex (or plain decimal digits).
func ParseHex(s string) (uint64, error) {
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		return strconv.ParseUint(s[2:], 16, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}
