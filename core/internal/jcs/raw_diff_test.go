package jcs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The repository's real inputs: every schema form presented.json holds (the
// advertised schemas the catalog identity canonicalizes) and the wire
// golden file, each as it is, indented, and with every object's members in
// reverse order, so that each object of each schema is re-ordered.
func realInputs(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	add := func(name string, raw []byte) {
		out[name] = raw
		var ind bytes.Buffer
		if err := json.Indent(&ind, raw, "", "  "); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name+"/indented"] = ind.Bytes()
		out[name+"/reversed"] = reverseMembers(t, raw)
	}
	presented, err := os.ReadFile("../../presented.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools map[string]map[string]json.RawMessage
	if err := json.Unmarshal(presented, &tools); err != nil {
		t.Fatal(err)
	}
	for name, forms := range tools {
		for form, raw := range forms {
			if len(raw) > 0 && raw[0] == '{' {
				add(name+"/"+form, raw)
			}
		}
	}
	if len(out) < 3*4*90 {
		t.Fatalf("presented.json gave %d inputs; its layout changed", len(out))
	}
	add("presented.json", presented)
	wire, err := os.ReadFile("../../../cmd/rea/testdata/wire.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	add("wire.golden.json", wire)
	return out
}

// reverseMembers re-encodes raw with each object's members in descending
// key order.
func reverseMembers(t testing.TB, raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var enc func(dst []byte, v any) []byte
	enc = func(dst []byte, v any) []byte {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b string) int { return CompareKeys(b, a) })
			dst = append(dst, '{')
			for i, k := range keys {
				if i > 0 {
					dst = append(dst, ", "...)
				}
				dst = enc(dst, k)
				dst = enc(append(dst, ": "...), x[k])
			}
			return append(dst, '}')
		case []any:
			dst = append(dst, '[')
			for i, e := range x {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = enc(dst, e)
			}
			return append(dst, ']')
		case json.Number:
			return append(dst, x...)
		}
		b, err := json.Marshal(v) // strings with HTML escapes: the decoding path too
		if err != nil {
			t.Fatal(err)
		}
		return append(dst, b...)
	}
	return enc(nil, v)
}

// checkSameAsPrev holds AppendRaw to the previous implementation: the same
// bytes, appended after what dst held, or the same refusal.
func checkSameAsPrev(t *testing.T, name string, raw []byte) {
	t.Helper()
	want, werr := prevAppendRaw([]byte("x"), raw)
	got, gerr := AppendRaw([]byte("x"), raw)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !bytes.Equal(got, want) {
		t.Fatalf("%s %.200q:\n got %.300s (%v)\nwant %.300s (%v)", name, raw, got, gerr, want, werr)
	}
}

func TestAppendRawSameAsPrevOnRealInputs(t *testing.T) {
	inputs := realInputs(t)
	reordered := 0
	for name, raw := range inputs {
		checkSameAsPrev(t, name, raw)
		if strings.HasSuffix(name, "/reversed") {
			reordered++
		}
	}
	if reordered == 0 {
		t.Fatal("no re-ordered input")
	}
}

// nestedUnsorted is depth objects, each holding the next before a shorter
// key, so that every level is re-ordered.
func nestedUnsorted(depth int) []byte {
	pad := strings.Repeat("x", 64)
	s := `"leaf"`
	for range depth {
		s = `{"b":` + s + `,"a":"` + pad + `"}`
	}
	return []byte(s)
}

func TestAppendRawSameAsPrevNested(t *testing.T) {
	for _, d := range []int{1, 2, 3, 10, MaxDepth, MaxDepth + 1, MaxDepth + 2} {
		checkSameAsPrev(t, fmt.Sprint("depth ", d), nestedUnsorted(d))
	}
	for _, c := range []string{
		`{"b":{"d":[{"z":1,"y":{"q":1,"p":2}},{"b":1,"a":2}],"c":1},"a":[{"n":1,"m":2}],"a":{"k":{"j":1,"i":2}}}`,
		`[{"b":1,"a":2},{"d":{"f":1,"e":2},"c":3},{"a":1}]`,
		`{"b":1,"a":{"y":1,"x":2},"b":{"y":1,"x":2},"a":3}`,
		`{"b":1,"\u00e9":{"y":1,"x":2},"é":{"y":1,"x":2},"a":3}`,
		`{"ê":1,"é":2,"e":3}`, `{"דּ":1,"😀":2,"€":3}`, `{"aדּ":1,"a😀":2,"a€":3}`,
		`{"b":{"y":1,"x":1e400},"a":1}`, `{"b":{"y":1,"x":2},"a":"\ud800"}`,
	} {
		checkSameAsPrev(t, c, []byte(c))
	}
}

func BenchmarkAppendRaw(b *testing.B) {
	inputs := realInputs(b)
	var presented, reversed [][]byte
	for name, raw := range inputs {
		if strings.HasPrefix(name, "presented.json") || strings.HasPrefix(name, "wire") {
			continue
		}
		switch {
		case strings.HasSuffix(name, "/reversed"):
			reversed = append(reversed, raw)
		case !strings.HasSuffix(name, "/indented"):
			presented = append(presented, raw)
		}
	}
	for _, c := range []struct {
		name string
		in   [][]byte
	}{
		{"schemas", presented},         // canonical already, as the catalog identity reads them
		{"schemas-reversed", reversed}, // every object re-ordered
		{"nested-64", [][]byte{nestedUnsorted(64)}},
		{"nested-512", [][]byte{nestedUnsorted(512)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			n := 0
			for _, in := range c.in {
				n += len(in)
			}
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				for _, in := range c.in {
					if _, err := AppendRaw(nil, in); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestAppendRawMovesEachByteBoundedTimes: re-ordering nested objects
// copies what was written a bounded number of times, not once per level:
// the bytes AppendRaw allocates (the copy of what was written and the
// notes on each object) stay within a small multiple of its input however
// deep the unsorted objects nest (about 4 times here; before, 512 levels
// took about 280 times the input).
func TestAppendRawMovesEachByteBoundedTimes(t *testing.T) {
	raw := nestedUnsorted(MaxDepth)
	dst := make([]byte, 0, 2*len(raw))
	const runs = 8
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := AppendRaw(dst, raw); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 8*uint64(len(raw)) {
		t.Fatalf("AppendRaw allocated %d bytes for %d bytes of input nested %d deep", per, len(raw), MaxDepth)
	}
}
