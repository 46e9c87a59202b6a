package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// A reader for the few fields the text output of a large result needs:
// encoding/json decodes the tens of MB of an inventory's Evidence at about
// 70 MB/s, most of it in members the text never shows. These functions walk
// a JSON value's members and elements as raw slices of the input; only the
// values asked for are decoded. The input is JSON rea produced; malformed
// input is an error, never a panic.

var errScan = errors.New("malformed JSON in the result")

func scanWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the end of the JSON value starting at b[i].
func scanValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errScan
	}
	switch b[i] {
	case '"':
		for i++; ; {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return 0, errScan
			}
			i += j
			// The quote ends the string unless an odd number of
			// backslashes precede it.
			k := i
			for k > 0 && b[k-1] == '\\' {
				k--
			}
			if (i-k)%2 == 0 {
				return i + 1, nil
			}
			i++
		}
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, err := scanValue(b, i)
				if err != nil {
					return 0, err
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, errScan
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\t' && b[i] != '\r' {
		i++
	}
	if i == start {
		return 0, errScan
	}
	return i, nil
}

// scanMembers calls fn with each element of the array or each member (key
// and value) of the object b (open is '[' or '{'); fn walks each value
// itself, so a nested list is read once: it gets the input from the
// value's first byte on and returns the value's length. It returns the list's length.
func scanMembers(b []byte, open byte, fn func(key, rest []byte) (int, error)) (int, error) {
	i := scanWS(b, 0)
	if i >= len(b) || b[i] != open {
		return 0, errScan
	}
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	i = scanWS(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1, nil
	}
	for {
		var key []byte
		if open == '{' {
			end, err := scanValue(b, i)
			if err != nil || b[i] != '"' {
				return 0, errScan
			}
			key, i = b[i:end], scanWS(b, end)
			if i >= len(b) || b[i] != ':' {
				return 0, errScan
			}
			i = scanWS(b, i+1)
		}
		if i >= len(b) {
			return 0, errScan
		}
		n, err := fn(key, b[i:])
		if err != nil {
			return 0, err
		}
		if n <= 0 || n > len(b)-i {
			return 0, errScan
		}
		i = scanWS(b, i+n)
		switch {
		case i < len(b) && b[i] == ',':
			i = scanWS(b, i+1)
		case i < len(b) && b[i] == closing:
			return i + 1, nil
		default:
			return 0, errScan
		}
	}
}

// scanNullOr reads the value at the start of rest: null, or a list walked
// by scanMembers with fn. It returns the value's length.
func scanNullOr(rest []byte, open byte, fn func(key, rest []byte) (int, error)) (int, error) {
	if len(rest) > 0 && rest[0] == 'n' {
		end, err := scanValue(rest, 0)
		if err != nil || string(rest[:end]) != "null" {
			return 0, errScan
		}
		return end, nil
	}
	return scanMembers(rest, open, fn)
}

// scanField reads one member value at the start of rest with fn, returning
// its length.
func scanField(rest []byte, fn func(v []byte) error) (int, error) {
	end, err := scanValue(rest, 0)
	if err != nil {
		return 0, err
	}
	return end, fn(rest[:end])
}

// scanString decodes a JSON string (raw slice with its quotes); null is "".
func scanString(v []byte) (string, error) {
	if string(v) == "null" {
		return "", nil
	}
	if len(v) < 2 || v[0] != '"' {
		return "", errScan
	}
	plain := true
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return string(v[1 : len(v)-1]), nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// plain reports whether v is a JSON string with no escapes (its text
// between the quotes is its value).
func plain(v []byte) bool {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}

// stringIs reports whether the JSON string v (raw, with its quotes; null is
// "") is want, without copying it when it has no escapes.
func stringIs(v []byte, want string) (bool, error) {
	if plain(v) {
		return string(v[1:len(v)-1]) == want, nil
	}
	s, err := scanString(v)
	return s == want, err
}

// isKey reports whether the raw key k (with quotes) is name.
func isKey(k []byte, name string) bool {
	return len(k) == len(name)+2 && string(k[1:len(k)-1]) == name
}

func scanInt(v []byte) (int64, error) { return strconv.ParseInt(string(v), 10, 64) }
