package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func init() { checkCanonicalDirect = true } // every CanonicalJSON in core's tests compares both paths

type directInner struct {
	Z  string  `json:"z"`
	A  *int64  `json:"a,omitempty"`
	N  *string `json:"n"`
	No string  `json:"-"`
	x  int
}

type directOuter struct {
	Name  string            `json:"name"`
	Items []directInner     `json:"items"`
	Empty []string          `json:"empty,omitempty"`
	Nil   []string          `json:"nil_list"`
	Map   map[string]any    `json:"map"`
	Typed map[string]int    `json:"typed,omitempty"`
	Raw   json.RawMessage   `json:"raw"`
	Num   json.Number       `json:"num"`
	ID    EvidenceID        `json:"id"`
	Bytes []byte            `json:"bytes"`
	Big   int64             `json:"big"`
	UBig  uint64            `json:"ubig"`
	F     float64           `json:"f"`
	Any   any               `json:"any"`
	Arr   [2]bool           `json:"arr"`
	Plain int               // no tag: the field name
	Ptr   *directInner      `json:"ptr,omitempty"`
	Strs  map[string]string `json:"strs"`
	Zero  []string          `json:"zero,omitzero"`   // omitted when nil, written when empty
	ZeroP *float64          `json:"zero_p,omitzero"` // omitted when nil
}

// TestCanonicalDirectMatchesTwoPass: the direct encoder writes exactly what
// encoding/json plus Canonicalize write, for the shapes rea seals.
func TestCanonicalDirectMatchesTwoPass(t *testing.T) {
	seven := int64(7)
	values := []any{
		nil, true, "a\u2028b\"\\\x01\xff", 0, -0.0, 1.5, 1e21, 1e-7, math.MaxInt64, int64(-(1 << 60) - 1), uint64(1<<63 + 5),
		[]any{1, "x", nil, map[string]any{"b": 1, "a": []any{}}},
		map[string]any{"\U0001F600": 1, "\uE000": 2, "z": 3, "": 4, "aa": 5, "a": 6},
		[]map[string]any{{"k": json.RawMessage(` {"y":1, "x":[1.0,2e0]} `)}, nil},
		directOuter{Name: "n", Items: []directInner{{Z: "z", A: &seven}, {}}, Map: map[string]any{"m": []string{"q"}},
			Raw: json.RawMessage(`{"b":1,"a":2}`), Num: "12.50", ID: "ev_1", Bytes: []byte{0, 1, 2, 250}, Big: 1<<53 + 1,
			UBig: 1<<64 - 1, F: 0.1, Any: map[string]int{"x": 1}, Plain: 3, Ptr: &directInner{Z: "p"}, Strs: map[string]string{"b": "1", "a": "2"},
			Zero: []string{}, ZeroP: new(float64)},
		&directOuter{},
		map[string]map[string][]int{"a": {"b": {1, 2}}},
	}
	for i, v := range values {
		direct, err := appendDirect(nil, v, 0)
		if err != nil {
			t.Fatalf("%d: direct: %v", i, err)
		}
		want, err := canonicalTwoPass(v)
		if err != nil {
			t.Fatalf("%d: two-pass: %v", i, err)
		}
		if !bytes.Equal(direct, want) {
			t.Errorf("%d: direct %s\n two-pass %s", i, direct, want)
		}
	}
}

// Unsupported shapes fall back to the two-pass path, with the same bytes.
func TestCanonicalDirectFallsBack(t *testing.T) {
	type embedded struct{ A int }
	type withEmbedded struct {
		embedded
		B int
	}
	type withString struct {
		N int `json:"n,string"`
	}
	type withUnicodeTag struct {
		N int `json:"\u00e9t\u00e9"`
	}
	type withIsZero struct {
		T time.Time `json:"t,omitzero"` // encoding/json asks time.Time's IsZero
	}
	for _, v := range []any{float32(0.1), map[int]string{2: "b", 1: "a"}, withEmbedded{embedded{1}, 2}, withString{5}, withUnicodeTag{1}, withIsZero{}} {
		if _, err := appendDirect(nil, v, 0); err != errDirectUnsupported {
			t.Errorf("%T: %v, want errDirectUnsupported", v, err)
		}
		got, err := CanonicalJSON(v)
		want, werr := canonicalTwoPass(v)
		if err != nil || werr != nil || !bytes.Equal(got, want) {
			t.Errorf("%T: %s %v / %s %v", v, got, err, want, werr)
		}
	}
	for _, v := range []any{math.NaN(), map[string]any{"x": math.Inf(1)}} {
		if _, err := CanonicalJSON(v); err == nil {
			t.Errorf("%v: no error", v)
		}
	}
}

// FuzzCanonicalDirect: any JSON text, decoded as rea decodes arguments
// (numbers as float64 or json.Number), encodes the same both ways.
func FuzzCanonicalDirect(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.5,"x"],"a":null}`, `[1e300,-0,0.1]`, `{"\ud83d\ude00":1,"\ue000":2}`, `"\u2028"`, `123456789012345678901`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		n, err := decodeJSON(b)
		for _, x := range []any{v, n} {
			if x == nil && err != nil {
				continue
			}
			direct, derr := appendDirect(nil, x, 0)
			want, werr := canonicalTwoPass(x)
			if (derr == nil) != (werr == nil) || !bytes.Equal(direct, want) {
				t.Fatalf("%q: direct %s %v, two-pass %s %v", b, direct, derr, want, werr)
			}
		}
	})
}

// SealObject's ID is the digest of the object without it, and its bytes are
// the canonical form of the object with it.
func TestSealObject(t *testing.T) {
	obj := map[string]any{"nodes": []any{map[string]any{"b": 1, "a": "x"}}, "schema": "S", "\u00e9": true, "graph_id": "ignored"}
	sealed, id, err := SealObject(obj, "graph_id", "jag_")
	if err != nil {
		t.Fatal(err)
	}
	without := map[string]any{"nodes": obj["nodes"], "schema": "S", "\u00e9": true}
	if id != "jag_"+MustDigest(without) {
		t.Fatalf("id %s", id)
	}
	with := map[string]any{"nodes": obj["nodes"], "schema": "S", "\u00e9": true, "graph_id": id}
	want, _ := canonicalTwoPass(with)
	if !bytes.Equal(sealed.AppendTo(nil), want) {
		t.Fatalf("sealed %s\nwant %s", sealed.AppendTo(nil), want)
	}
	// Embedded in a larger value it is copied as is, both ways.
	outer := map[string]any{"graph": sealed, "z": 1}
	got, err := CanonicalJSON(outer)
	if err != nil || !bytes.Equal(got, []byte(`{"graph":`+string(want)+`,"z":1}`)) {
		t.Fatalf("%s %v", got, err)
	}
}

// A Canonical is made only of canonical text: ParseCanonical refuses other
// text, decoding canonicalizes, CanonicalArray gives CanonicalJSON's bytes
// whatever the number of items, and a Canonical field or member is written
// as it is (the same bytes as encoding/json + Canonicalize).
func TestCanonicalValue(t *testing.T) {
	for _, bad := range []string{`{"b":1,"a":2}`, `{"a": 1}`, `1.0`, `"\u0041"`, `[1]x`, ``, `{"a":1,"a":2}`} {
		if _, err := ParseCanonical([]byte(bad)); err == nil {
			t.Errorf("ParseCanonical accepted %q", bad)
		}
	}
	good, err := ParseCanonical([]byte(`{"a":[1,"x"],"b":null}`))
	if err != nil {
		t.Fatal(err)
	}
	var dec struct{ G Canonical }
	if err := json.Unmarshal([]byte(`{"G": {"b": 1.0, "a": "\u0041"}}`), &dec); err != nil || string(dec.G.AppendTo(nil)) != `{"a":"A","b":1}` {
		t.Fatalf("decoded %s %v", dec.G.AppendTo(nil), err)
	}
	for _, n := range []int{0, 1, 63, 64, 65, 1000} {
		items := make([]any, n)
		for i := range items {
			items[i] = map[string]any{"i": i, "s": strings.Repeat("x", i%5)}
		}
		arr, err := CanonicalArray(items)
		want, _ := CanonicalJSON(items)
		if err != nil || !bytes.Equal(arr.AppendTo(nil), want) {
			t.Fatalf("%d items: %s, want %s (%v)", n, arr.AppendTo(nil), want, err)
		}
	}
	// Runs written in pieces: items that grow along the array fill many
	// pieces of each run; an item's error is the array's.
	grow := func(dst []byte, i int) ([]byte, error) {
		if i == 7777 {
			return dst, errors.New("item 7777")
		}
		return AppendCanonical(dst, []any{i, strings.Repeat("y", i/64)})
	}
	for _, n := range []int{7000, 20000} {
		arr, err := CanonicalArrayFunc(n, grow)
		items := make([]any, n)
		for i := range items {
			items[i] = []any{i, strings.Repeat("y", i/64)}
		}
		want, _ := CanonicalJSON(items)
		if (err != nil) != (n > 7777) || (err == nil && !bytes.Equal(arr.AppendTo(nil), want)) {
			t.Fatalf("%d growing items: %.80s…, want %.80s… (%v)", n, arr.AppendTo(nil), want, err)
		}
	}
	type result struct {
		Z    int       `json:"z"`
		G    Canonical `json:"g"`
		None Canonical `json:"none"`
	}
	v := result{Z: 1, G: good}
	got, err := CanonicalJSON(v)
	want, werr := canonicalTwoPass(v)
	if err != nil || werr != nil || !bytes.Equal(got, want) || string(got) != `{"g":{"a":[1,"x"],"b":null},"none":null,"z":1}` {
		t.Fatalf("direct %s %v, two-pass %s %v", got, err, want, werr)
	}
	// Written as it is, never encoded again: text made inside the package
	// (here deliberately not canonical) comes out unchanged.
	prev := checkCanonicalDirect
	SetCanonicalCheck(false)
	defer SetCanonicalCheck(prev)
	if got, err := CanonicalJSON(result{G: Canonical{[][]byte{[]byte(`{"b":1,`), []byte(`"a":2}`)}}}); err != nil || !bytes.Contains(got, []byte(`"g":{"b":1,"a":2}`)) {
		t.Fatalf("%s %v", got, err)
	}
	if obj, id, err := SealObject(map[string]any{"rows": good, "k": "v"}, "", ""); err != nil || id != "" || string(obj.AppendTo(nil)) != `{"k":"v","rows":{"a":[1,"x"],"b":null}}` {
		t.Fatalf("%s %q %v", obj.AppendTo(nil), id, err)
	}
}
