package cli

import (
	"bytes"
	"encoding/json"
	"testing"
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
