package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// canonicalViaTree is the reference: decode with encoding/json, re-encode
// the tree.
func canonicalViaTree(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after value")
	}
	return encodeTree(nil, v, 0)
}

// encodeTree writes a decoded value as rea/core's encoder does: the same
// depth limit, keys sorted by CompareKeys.
func encodeTree(dst []byte, v any, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, errors.New("nesting too deep")
	}
	var err error
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return fmt.Append(dst, x), nil
	case string:
		return AppendString(dst, x), nil
	case json.Number:
		return AppendNumber(dst, string(x))
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = encodeTree(dst, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, CompareKeys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(AppendString(dst, k), ':')
			if dst, err = encodeTree(dst, x[k], depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, fmt.Errorf("unexpected %T", v)
}

// hasDuplicateKeys reports whether some object in raw names a key twice.
func hasDuplicateKeys(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		obj  bool
		keys map[string]bool
		key  bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top != nil && top.obj {
					top.key = true
				}
				stack = append(stack, &frame{obj: t == '{', keys: map[string]bool{}, key: t == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.obj && top.key {
				if top.keys[t] {
					return true
				}
				top.keys[t] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true
		}
	}
}

var rawCanonCases = []string{
	`{"b":1,"a":[true,false,null,"x\u00e9\ud83d\ude00",-0,1.50,1e3,0.000001,123456789012345678901]}`,
	`  {"a":{"z":1,"y":2},"a":{"k":3}}  `,
	`{"\u00e9":1,"e":2,"\ud800":3,"` + "\xff" + `":4}`,
	`"\ud800\udc00 \ud800 x"`, `[]`, `{}`, `[[],{},[{}]]`, `"` + "a\xc3" + `"`,
	`{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `.5`, `+1`, `1e`, `"\x01"`, `tru`, `nul`, `[1 2]`, `{"a" 1}`, `{"a":1`, `1 2`, ``, ` `,
	`1e400`, `-1e400`, `"\u12"`, `"\q"`, strings.Repeat("[", 513) + strings.Repeat("]", 513), strings.Repeat("[", 512) + strings.Repeat("]", 512),
}

func checkRawCanon(t *testing.T, raw []byte) {
	checkSameAsPrev(t, "", raw)
	want, werr := canonicalViaTree(raw)
	got, gerr := AppendRaw(nil, raw)
	switch {
	case werr == nil && gerr == nil:
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", raw, got, want)
		}
	case werr != nil && gerr == nil:
		t.Fatalf("%q: accepted (%s), reference refuses: %v", raw, got, werr)
	case werr == nil && gerr != nil:
		// The one permitted difference: a value overwritten by a later
		// duplicate key must itself be canonicalizable.
		if !hasDuplicateKeys(raw) {
			t.Fatalf("%q: refused (%v), reference gives %s", raw, gerr, want)
		}
	}
}

func TestAppendRawMatchesTree(t *testing.T) {
	for _, c := range rawCanonCases {
		checkRawCanon(t, []byte(c))
	}
	// Records as they are written (already canonical) come back unchanged.
	ev := []byte(`{"a":[1,2,{"b":"c"}],"d":null}`)
	got, err := AppendRaw(nil, ev)
	if err != nil || !bytes.Equal(got, ev) {
		t.Fatalf("%s %v", got, err)
	}
}

func FuzzAppendRaw(f *testing.F) {
	for _, c := range rawCanonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkRawCanon(t, raw) })
}
