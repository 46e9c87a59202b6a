package typecheck_test

import (
	"reflect"
	"strings"
	"testing"

	"rea/core/typecheck"
)

func TestCheck(t *testing.T) {
	type page struct {
		Items []string `json:"items"`
		Next  *int     `json:"next"`
	}
	type summary struct {
		Total int `json:"total"`
	}
	type input struct {
		Path  string `json:"path,omitempty"`
		Limit *int   `json:"limit,omitempty"` // omitted when nil, never null
		ID    string `json:"evidence_id,omitempty"`
	}
	type named struct {
		TraceID string `json:"trace_id"`
		Paths   []int  `json:"paths,omitempty"`
	}
	union := `{"anyOf":[
	 {"type":"object","required":["items","next"],"properties":{"items":{"type":"array","items":{"type":"string"}},"next":{"type":["integer","null"]}}},
	 {"type":"object","required":["total"],"properties":{"total":{"type":"integer"}}}]}`
	inputUnion := `{"anyOf":[
	 {"type":"object","required":["path"],"properties":{"path":{"type":"string"},"limit":{"type":"integer"}}},
	 {"type":"object","required":["evidence_id"],"properties":{"evidence_id":{"type":"string"}}}]}`
	for _, tc := range []struct {
		name, schema string
		t            reflect.Type
		result       bool
		want         string // a substring of the differences; "" for none
	}{
		{"result matches the first alternative", union, reflect.TypeFor[page](), true, ""},
		{"result matches the second alternative", union, reflect.TypeFor[summary](), true, ""},
		{"result matches no alternative", union, reflect.TypeFor[input](), true, "no alternative of the union matches"},
		{"input against the flattened union", inputUnion, reflect.TypeFor[input](), false, ""},
		{"input missing a property", inputUnion, reflect.TypeFor[summary](), false, "property of the schema has no field"},
		{"required names only", `{"type":"object","required":["trace_id"]}`, reflect.TypeFor[named](), true, ""},
		{"required name omitted", `{"type":"object","required":["trace_id","paths"]}`, reflect.TypeFor[named](), true, "paths: required by the schema, but named may omit it"},
		{"required name missing", `{"type":"object","required":["graph"]}`, reflect.TypeFor[named](), true, "graph: required by the schema, no field"},
		{"pointer without omitempty may be null", `{"type":"object","properties":{"next":{"type":"integer"}}}`, reflect.TypeFor[struct {
			Next *int `json:"next,omitempty"`
		}](), false, ""},
		{"field of a closed object with no property", `{"type":"object","additionalProperties":false,"required":["next"],"properties":{"next":{"type":["integer","null"]}}}`, reflect.TypeFor[summary](), true, "has no property"},
		{"field an open object does not list", `{"type":"object","required":["next"],"properties":{"next":{"type":["integer","null"]}}}`, reflect.TypeFor[page](), true, ""},
	} {
		got := strings.Join(typecheck.Check([]byte(tc.schema), tc.t, tc.result), "\n")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
