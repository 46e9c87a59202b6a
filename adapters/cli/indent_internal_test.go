package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"rea/core"
)

// writeIndented must write what json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) writes.
func TestWriteIndentedMatchesEncoder(t *testing.T) {
	cases := []any{
		nil, 1, "s", []any{}, map[string]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{1, "x,y:{z}[w]", map[string]any{"d": nil}}},
		map[string]any{"esc": "quote \" backslash \\ \\\" <tag> & \u2028 é \n\t", "k\"{": []any{[]any{[]any{}}}},
		json.RawMessage(`{"raw":[1,2,{"n":"v"}],"e":{}}`),
		struct {
			A string          `json:"a"`
			B []int           `json:"b"`
			C json.RawMessage `json:"c"`
		}{"x", nil, json.RawMessage(`[ {"y" : [ ] } ]`)},
	}
	for _, v := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeIndented(&got, v); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%#v:\ngot  %q\nwant %q", v, got.String(), want.String())
		}
	}
}

// indentSamples are JSON texts whose tokens the chunked tests split
// everywhere: strings holding escapes, quotes, brackets and multi-byte
// characters, numbers, literals, empty and deep containers, whitespace.
var indentSamples = []string{
	`null`, `1`, `-1.5e+30`, `"s"`, `""`, `[]`, `{}`, `true`, `false`,
	` { "a" : [ 1 , { } , [ ] , -0.5E-3 , true , false , null ] ,"b":"x,y:{z}[w] \u2028 \\\" é 😀" } `,
	`{"esc":"quote \" backslash \\ \\\" \\\\\" <tag> & \n\t\/","k\"{":[[[]]],"":{"":""}}`,
	"\t[\n1,\r\n2 ]\n",
	`["\\","\\\\","\"","\\\"","]","}",",",":","\u0022"]`,
	strings.Repeat(`[{"d":`, 40) + `[]` + strings.Repeat(`}]`, 40),
	`{"graph":[` + strings.Repeat(`{"k\"{":["a\\","b]"],"n":-1.5e3,"t":true,"e":{},"z":[]},`, 2000) + `{}]}`,
	// strings about as long as the ones write copies when it meets them
	// (shortString), with an escape or a bracket near the end
	`["` + strings.Repeat("s", shortString-1) + `","` + strings.Repeat("s", shortString) + `","` + strings.Repeat("s", shortString+1) + `"]`,
	`{"` + strings.Repeat("k", shortString-2) + `\"":"` + strings.Repeat("v", shortString-1) + `\\","` + strings.Repeat("w", shortString) + `\"]}{":[]}`,
}

// wantIndented is encoding/json's indentation of src: compacted, then
// indented with prefix "" and indent "  ", ending in a line break.
func wantIndented(t testing.TB, src []byte) string {
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, src); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	return out.String() + "\n"
}

// indentInChunks writes src to an indenter in the pieces cut at cuts.
func indentInChunks(src []byte, cuts []int) (string, error) {
	var got bytes.Buffer
	in := &indenter{w: &got}
	prev := 0
	for _, c := range append(cuts, len(src)) {
		if _, err := in.Write(src[prev:c]); err != nil {
			return "", err
		}
		prev = c
	}
	err := in.end()
	return got.String(), err
}

// The indenter keeps its state across writes: a string, an escape, a
// number or a literal cut anywhere is indented as json.Indent indents the
// whole text.
func TestIndenterWritesInAnyPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 22))
	for i, s := range indentSamples {
		src := []byte(s)
		want := wantIndented(t, src)
		var everyByte []int
		for j := 1; j < len(src); j++ {
			everyByte = append(everyByte, j)
		}
		pieces := map[string][]int{"whole": nil, "byte by byte": everyByte}
		for k := range 20 {
			var cuts []int
			for j := 0; j < len(src); j += 1 + r.IntN(1+len(src)/8) {
				if j > 0 {
					cuts = append(cuts, j)
				}
			}
			pieces[fmt.Sprintf("random %d", k)] = cuts
		}
		for name, cuts := range pieces {
			got, err := indentInChunks(src, cuts)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("sample %d, %s:\ngot  %.300q\nwant %.300q", i, name, got, want)
			}
		}
	}
}

// FuzzIndenter: any valid JSON text, written in any pieces, is indented
// as json.Indent indents it; any other input does not panic.
func FuzzIndenter(f *testing.F) {
	for i, s := range indentSamples {
		f.Add([]byte(s), uint64(i))
	}
	f.Add([]byte(`{"a":"\`), uint64(1))
	f.Fuzz(func(t *testing.T, src []byte, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 0))
		var cuts []int
		for j := 0; j < len(src); j += 1 + r.IntN(8) {
			if j > 0 {
				cuts = append(cuts, j)
			}
		}
		got, err := indentInChunks(src, cuts)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(src) {
			return
		}
		if want := wantIndented(t, src); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	})
}

// writeResult writes the bytes rea call wrote before it streamed: the
// indented Result.StructuredJSON.
func TestWriteResultMatchesStructuredJSON(t *testing.T) {
	ev := &core.Evidence{EvidenceID: "ev_x", Subject: &core.Subject{Name: "a <b>"}, Provider: core.ProviderRef{ID: "p", Name: "P"},
		Operation: "op", Parameters: json.RawMessage(`{"path":"/a b"}`), RawResult: json.RawMessage(`null`),
		NormalizedResult: json.RawMessage(indentSamples[len(indentSamples)-1]), Limitations: []string{"l\"1 \u2028"}, Locations: []core.Location{}}
	for _, res := range []*core.Result{{Evidence: ev}, {Value: map[string]any{"s": "<&> \u2028", "n": []any{1, map[string]any{}}}}, {}} {
		j, err := res.StructuredJSON()
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if err := writeIndented(&want, json.RawMessage(j)); err != nil {
			t.Fatal(err)
		}
		if err := writeResult(&got, res); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("got  %.300q\nwant %.300q", got.String(), want.String())
		}
	}
}

// Writing a large record keeps no copy of it: raw JSON and a call's
// Evidence are indented from their own bytes, which before took a
// compact copy or two (and the record's canonical JSON) as large as the
// record.
func TestWriteIndentedHoldsNoCopy(t *testing.T) {
	big := []byte(`{"s":"` + strings.Repeat("x", 8<<20) + `"}`)
	ev := &core.Evidence{Parameters: json.RawMessage(`{}`), RawResult: json.RawMessage(`null`), NormalizedResult: big}
	allocated := func(write func() error) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := write(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	if n := allocated(func() error { return writeIndented(io.Discard, json.RawMessage(big)) }); n > uint64(len(big))/4 {
		t.Errorf("writeIndented of %d bytes of raw JSON allocated %d bytes", len(big), n)
	}
	if n := allocated(func() error { return writeResult(io.Discard, &core.Result{Evidence: ev}) }); n > uint64(len(big))/4 {
		t.Errorf("writeResult of a %d-byte record allocated %d bytes", len(big), n)
	}
}
