package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"rea/core"
)

// deepResult nests constraints below the advertised depth: a pattern, a
// closed object and a minimum at level 3, behind a $ref and a union.
const deepResult = `{"type":"object","additionalProperties":false,"required":["summary","items"],
 "$defs":{"leaf":{"type":"object","additionalProperties":false,"required":["id"],"properties":{
   "id":{"type":"string","pattern":"^id_[0-9]+$"},"n":{"type":"integer","minimum":0}}}},
 "properties":{
  "summary":{"description":"Counts.","type":"object","required":["total"],"properties":{"total":{"type":"integer","minimum":0}}},
  "items":{"type":"array","items":{"type":"object","required":["leaf"],"properties":{"leaf":{"$ref":"#/$defs/leaf"}}}},
  "either":{"anyOf":[{"type":"string"},{"type":"integer"}]},
  "kind":{"enum":["a","b"]}}}`

func outOp(result any) *core.Operation {
	return &core.Operation{Name: "deep_tool", Title: "Deep", Description: "Returns a deep result.", Kind: core.KindApplication,
		Input: json.RawMessage(`{"type":"object","additionalProperties":false}`), Result: json.RawMessage(deepResult),
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			return &core.Observation{Result: result, Unbound: true}, nil
		}}
}

func compileRaw(t *testing.T, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("urn:test", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("urn:test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAdvertisedOutputProjection(t *testing.T) {
	is := is.New(t)
	op := outOp(nil)
	c, err := core.NewCatalog([]*core.Operation{op})
	is.NoErr(err)
	is.NoErr(c.Check())
	var adv map[string]any
	is.NoErr(json.Unmarshal(op.OutputSchema(), &adv))
	// The result: its type and required names, its optional names listed,
	// nothing below; of the record, the two fields an agent reads first.
	nr := adv["properties"].(map[string]any)["normalized_result"].(map[string]any)
	is.Equal(nr, map[string]any{"type": "object", "required": []any{"summary", "items"},
		"properties": map[string]any{"either": map[string]any{}, "kind": map[string]any{}}})
	is.Equal(len(adv["properties"].(map[string]any)), 1)
	is.Equal(adv["required"], []any{"evidence_id", "normalized_result"})
	_, hasDefs := adv["$defs"]
	is.True(!hasDefs) // no references left to resolve
	_, hasDialect := adv["$schema"]
	is.True(!hasDialect) // MCP's default dialect; the complete schema states it
	is.True(strings.HasPrefix(adv["$id"].(string), "urn:rea:tool-output:sha256:"))

	advertised, complete := compileRaw(t, op.OutputSchema()), compileRaw(t, op.CompleteOutputSchema())
	wrap := func(result string) any {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"evidence_id":"ev_` + string(bytes.Repeat([]byte("0"), 64)) +
			`","subject":null,"provider":{"id":"rea","name":"rea","version":null},"analysis_profile":null,"predicate_type":"p","operation":"deep_tool",
			"parameters":{},"raw_result":null,"normalized_result":` + result + `,"confidence":"derived","authority":"shipped-artifact",
			"environment":null,"limitations":[],"locations":[],"evidence_links":[]}`)))
		is.NoErr(err)
		return v
	}
	good := wrap(`{"summary":{"total":1},"items":[{"leaf":{"id":"id_1","n":2}}],"either":3,"kind":"a"}`)
	is.NoErr(complete.Validate(good))
	is.NoErr(advertised.Validate(good))
	// Deep violations pass the advertisement and fail the complete schema.
	deep := wrap(`{"summary":{"total":1},"items":[{"leaf":{"id":"x","extra":true}}]}`)
	is.NoErr(advertised.Validate(deep))
	is.True(complete.Validate(deep) != nil)
	// A missing required field fails both; an unknown one only the complete.
	missing := wrap(`{"items":[]}`)
	is.True(advertised.Validate(missing) != nil)
	is.True(complete.Validate(missing) != nil)
	unknown := wrap(`{"summary":{"total":1},"items":[],"unknown":1}`)
	is.NoErr(advertised.Validate(unknown))
	is.True(complete.Validate(unknown) != nil)
}

func TestCheckOutputs(t *testing.T) {
	bad := map[string]any{"summary": map[string]any{"total": 1}, "items": []any{map[string]any{"leaf": map[string]any{"id": "nope"}}}}
	for _, on := range []bool{false, true} {
		is := is.New(t)
		op := outOp(bad)
		c, err := core.NewCatalog([]*core.Operation{op})
		is.NoErr(err)
		c.SetCheckOutputs(on)
		reg, err := core.NewRegistry(nil, nil)
		is.NoErr(err)
		_, err = core.NewSession(c, reg, nil).Call(context.Background(), "deep_tool", json.RawMessage(`{}`), nil)
		if !on {
			is.NoErr(err)
			continue
		}
		var e *core.Error
		is.True(errors.As(err, &e))
		is.Equal(e.Code, core.CodeExecutionFailure)
		is.Equal(e.Details["reason"], "output_schema_mismatch")
	}
	_, err := core.ParseCheckOutputs("yes", true)
	if err == nil {
		t.Fatal("REA_CHECK_OUTPUT_SCHEMAS=yes accepted")
	}
}
