package jsapp_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"rea/core/jsapp"
	"rea/core/standard"
	"rea/core/typecheck"
)

// TestTypesMatchSchemas checks the typed function's input and complete
// result against the operation's schemas.
func TestTypesMatchSchemas(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	op, ok := cat.Lookup("analyze_javascript_application")
	if !ok {
		t.Fatal("no analyze_javascript_application")
	}
	// What AnalyzeApplication sends: the input and detail "complete".
	type sent struct {
		jsapp.AnalyzeApplicationInput
		Detail string `json:"detail"`
	}
	for _, p := range typecheck.Check(op.Input, reflect.TypeFor[sent](), false) {
		t.Errorf("input: %s", p)
	}
	// The result is complete | summary view; the typed function asks for
	// the complete one.
	var res struct {
		AnyOf []json.RawMessage `json:"anyOf"`
		Defs  json.RawMessage   `json:"$defs"`
	}
	if err := json.Unmarshal(op.Result, &res); err != nil || len(res.AnyOf) == 0 {
		t.Fatalf("result schema: %v", err)
	}
	var complete map[string]json.RawMessage
	if err := json.Unmarshal(res.AnyOf[0], &complete); err != nil {
		t.Fatal(err)
	}
	complete["$defs"] = res.Defs
	b, _ := json.Marshal(complete)
	for _, p := range typecheck.Check(b, reflect.TypeFor[jsapp.Application](), true) {
		t.Errorf("result: %s", p)
	}
}
