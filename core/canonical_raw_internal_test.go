package core

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// canonicalViaTree is the reference: decode with encoding/json, re-encode.
func canonicalViaTree(raw []byte) ([]byte, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	return AppendCanonical(nil, v)
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
	want, werr := canonicalViaTree(raw)
	got, gerr := canonicalizeRaw(nil, raw)
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

func TestCanonicalizeRawMatchesTree(t *testing.T) {
	for _, c := range rawCanonCases {
		checkRawCanon(t, []byte(c))
	}
	// Records as they are written (already canonical) come back unchanged.
	ev := []byte(`{"a":[1,2,{"b":"c"}],"d":null}`)
	got, err := Canonicalize(ev)
	if err != nil || !bytes.Equal(got, ev) {
		t.Fatalf("%s %v", got, err)
	}
}

func FuzzCanonicalizeRaw(f *testing.F) {
	for _, c := range rawCanonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkRawCanon(t, raw) })
}
