package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"rea/core/internal/jcs"
)

// Canonicalize returns the RFC 8785 (JCS) form of the JSON text raw
// (rea/core/internal/jcs).
func Canonicalize(raw []byte) ([]byte, error) {
	return jcs.AppendRaw(nil, raw)
}

// CanonicalJSON marshals v with encoding/json and returns its JCS form.
func CanonicalJSON(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return Canonicalize(raw)
	}
	var dst []byte
	if s, ok := v.(CanonicalSizer); ok {
		dst = make([]byte, 0, s.CanonicalSize())
	}
	out, err := appendDirect(dst, v, 0)
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

// A CanonicalSizer can tell about how long its canonical form is (a bound
// close above it), so that CanonicalJSON makes its buffer once.
type CanonicalSizer interface{ CanonicalSize() int }

// appendCanonicalJSON appends CanonicalJSON(v) to dst, in place where it can.
func appendCanonicalJSON(dst []byte, v any) ([]byte, error) {
	if _, raw := v.(json.RawMessage); !raw && !checkCanonicalDirect {
		if out, err := appendDirect(dst, v, 0); err != errDirectUnsupported {
			return out, err
		}
	}
	one, err := CanonicalJSON(v)
	return append(dst, one...), err
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
	return hexSum(c), nil
}

// MustDigest is Digest for values built by rea itself, where failure is a
// programmer error.
func MustDigest(v any) string { return hexSum(mustCanonical(v)) }

func mustCanonical(v any) []byte {
	c, err := CanonicalJSON(v)
	if err != nil {
		panic("core: digest of internal value: " + err.Error())
	}
	return c
}

// hexSum is the lowercase hex SHA-256 of parts, concatenated.
func hexSum(parts ...[]byte) string { return fmt.Sprintf("%x", sha256.Sum256(bytes.Join(parts, nil))) }

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

// AppendCanonicalString appends s as a JSON string escaped as RFC 8785
// requires ('"', '\\' and control characters only); invalid UTF-8 becomes
// U+FFFD.
func AppendCanonicalString(dst []byte, s string) []byte { return jcs.AppendString(dst, s) }

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
