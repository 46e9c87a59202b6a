package binary_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"rea/core"
	"rea/core/binary"
	"rea/core/standard"
	"rea/core/typecheck"
)

// TestTypesMatchSchemas is the generation check of the typed functions:
// each input and result type must agree with its operation's hand-written
// schema (property names, JSON types, required).
func TestTypesMatchSchemas(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op            string
		input, result reflect.Type
	}{
		{"open_binary", reflect.TypeFor[core.OpenBinaryInput](), reflect.TypeFor[core.OpenBinaryResult]()},
		{"binary_overview", reflect.TypeFor[binary.OverviewInput](), reflect.TypeFor[binary.Overview]()},
		{"analyze_function", reflect.TypeFor[binary.AnalyzeFunctionInput](), reflect.TypeFor[binary.Dossier]()},
		{"get_call_graph", reflect.TypeFor[binary.CallGraphInput](), reflect.TypeFor[binary.CallGraph]()},
	} {
		op, ok := cat.Lookup(tc.op)
		if !ok {
			t.Fatalf("no operation %s", tc.op)
		}
		for _, p := range typecheck.Check(op.Input, tc.input, false) {
			t.Errorf("%s input: %s", tc.op, p)
		}
		for _, p := range typecheck.Check(op.Result, tc.result, true) {
			t.Errorf("%s result: %s", tc.op, p)
		}
	}
}

// TestCheckTypeFindsDifferences shows the check failing on a type that
// differs from its schema in each way it looks at.
func TestCheckTypeFindsDifferences(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","additionalProperties":false,"required":["a","b","c"],
 "properties":{"a":{"type":"string"},"b":{"type":["integer","null"]},"c":{"type":"array","items":{"type":"string"}},"d":{"type":"boolean"}}}`)
	type wrong struct {
		A int      `json:"a"`           // string in the schema
		B int      `json:"b"`           // the schema allows null
		C []string `json:"c,omitempty"` // required, but may be omitted
		E bool     `json:"e"`           // no such property; d has no field
	}
	got := strings.Join(typecheck.Check(schema, reflect.TypeFor[wrong](), true), "\n")
	for _, want := range []string{".a: the schema says string", ".b: the schema allows null", ".c: required by the schema",
		".e: field wrong.E has no property", ".d: property of the schema has no field"} {
		if !strings.Contains(got, want) {
			t.Errorf("the check did not report %q; it said:\n%s", want, got)
		}
	}
	type right struct {
		A string   `json:"a"`
		B *int     `json:"b"`
		C []string `json:"c"`
		D bool     `json:"d,omitempty"`
	}
	if p := typecheck.Check(schema, reflect.TypeFor[right](), true); len(p) != 0 {
		t.Errorf("a matching type differs: %v", p)
	}
}
