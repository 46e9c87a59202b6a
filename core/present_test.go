package core_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"rea/core"
)

func compile(t *testing.T, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("urn:advertised", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("urn:advertised")
	if err != nil {
		t.Fatalf("advertised schema does not compile: %v\n%s", err, schema)
	}
	return s
}

func accepts(s *jsonschema.Schema, instance []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// reducedPresentations pins which tools are advertised in reduced form in
// the compact profile. Changing it is a product decision. None is since
// compare_web_captures' captures are advertised shallowly (its compact form
// is now inline).
var reducedPresentations = map[string]bool{}

func TestAdvertisedSchemasBothProfiles(t *testing.T) {
	c := catalog(t)
	for _, p := range []core.SchemaProfile{core.ProfileFull, core.ProfileCompact} {
		reduced := map[string]bool{}
		for _, op := range c.Operations() {
			t.Run(string(p)+"/"+op.Name, func(t *testing.T) {
				is := is.New(t)
				adv := op.AdvertisedInput(p)
				var m map[string]any
				is.NoErr(json.Unmarshal(adv, &m))
				is.Equal(m["type"], "object")
				for _, k := range []string{"anyOf", "oneOf", "allOf"} {
					_, has := m[k]
					is.True(!has) // no root unions
				}
				s := compile(t, adv)
				examples := op.AdvertisedExamples(c)
				is.True(len(examples) > 0)
				for _, ex := range examples {
					if err := accepts(s, ex); err != nil {
						t.Fatalf("advertised schema rejects advertised example %s: %v", ex, err)
					}
				}
				if p == core.ProfileCompact {
					is.True(len(adv) <= core.CompactBudget)
					is.True(!strings.Contains(string(adv), `"$ref"`))
					if k := op.Presentation(p); k == core.PresentReduced || k == core.PresentMinimal {
						reduced[op.Name] = true
					}
				} else {
					is.Equal(m["examples"] != nil, true)
				}
			})
		}
		if p == core.ProfileCompact {
			is := is.New(t)
			is.Equal(reduced, reducedPresentations)
		}
	}
}

func TestParseSchemaProfile(t *testing.T) {
	is := is.New(t)
	p, err := core.ParseSchemaProfile("", false)
	is.NoErr(err)
	is.Equal(p, core.ProfileFull)
	for _, ok := range []string{"full", "compact"} {
		p, err := core.ParseSchemaProfile(ok, true)
		is.NoErr(err)
		is.Equal(string(p), ok)
	}
	for _, bad := range []string{"", "FULL", "compact ", "reduced"} {
		_, err := core.ParseSchemaProfile(bad, true)
		ce := core.AsError("start", err)
		is.Equal(ce.Code, core.CodeConfigurationInvalid)
		is.True(strings.Contains(ce.Message, core.SchemaProfileEnv))
	}
}

func unionOp(input string, examples ...string) *core.Operation {
	var ex []json.RawMessage
	for _, e := range examples {
		ex = append(ex, json.RawMessage(e))
	}
	return &core.Operation{Name: "union_tool", Title: "Union", Description: "Compares two things.", Kind: core.KindApplication,
		RequiresSession: true, Input: json.RawMessage(input), Result: json.RawMessage(`{}`), Examples: ex,
		Handler: func(ctx context.Context, c *core.Call) (any, error) { return nil, nil }}
}

const unionSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","description":"Compare captures.",
 "$defs":{"cap":{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}}},
 "anyOf":[
  {"type":"object","additionalProperties":false,"required":["before","after"],"properties":{"before":{"$ref":"#/$defs/cap"},"after":{"$ref":"#/$defs/cap"},"max_changes":{"type":"integer","minimum":1}}},
  {"type":"object","additionalProperties":false,"required":["before_scenario","after_scenario"],"properties":{"before_scenario":{"$ref":"#/$defs/cap"},"after_scenario":{"$ref":"#/$defs/cap"},"normalization":{"type":"object"},"max_changes":{"type":"integer","minimum":1}}}
 ]}`

func TestRootUnionFlattened(t *testing.T) {
	is := is.New(t)
	c, err := core.NewCatalog([]*core.Operation{unionOp(unionSchema,
		`{"before":{"id":"a"},"after":{"id":"b"}}`, `{"before_scenario":{"id":"a"},"after_scenario":{"id":"b"},"max_changes":5}`)})
	is.NoErr(err)
	is.NoErr(c.Check())
	op, _ := c.Lookup("union_tool")
	var m map[string]any
	is.NoErr(json.Unmarshal(op.AdvertisedInput(core.ProfileFull), &m))
	props := m["properties"].(map[string]any)
	is.Equal(len(props), 6)
	_, hasReq := m["required"]
	is.True(!hasReq) // no field is required in every group
	dep := m["dependentRequired"].(map[string]any)
	is.Equal(dep["before"], []any{"after"})
	is.Equal(dep["after_scenario"], []any{"before_scenario"})
	_, hasMax := dep["max_changes"]
	is.True(!hasMax) // owned by both groups, which share no required field
	is.Equal(m["minProperties"], float64(2))
	is.Equal(m["additionalProperties"], false)
	desc := m["description"].(string)
	is.True(strings.Contains(desc, "Provide a complete input group: before + after + [max_changes]; before_scenario + after_scenario + [max_changes] + [normalization]."))

	// The advertised form accepts a mix; canonical validation still rejects it.
	mixed := []byte(`{"before":{"id":"a"},"after":{"id":"b"},"before_scenario":{"id":"c"},"after_scenario":{"id":"d"}}`)
	is.NoErr(accepts(compile(t, op.AdvertisedInput(core.ProfileFull)), mixed))
	_, err = c.Validate(op, mixed)
	is.Equal(core.AsError("union_tool", err).Code, core.CodeInvalidRequest)
	// Compact inlines the references.
	compact := op.AdvertisedInput(core.ProfileCompact)
	is.Equal(op.Presentation(core.ProfileCompact), core.PresentInline)
	is.True(!strings.Contains(string(compact), "$ref"))
	is.NoErr(accepts(compile(t, compact), []byte(`{"before":{"id":"a"},"after":{"id":"b"}}`)))
}

func TestCompactFallsBackToReducedAndMinimal(t *testing.T) {
	is := is.New(t)
	// 400 properties, each a distinct enum: too large to inline, small
	// enough to reduce.
	var props []string
	for i := 0; i < 400; i++ {
		props = append(props, fmt.Sprintf(`"p%03d":{"enum":["value-%03d-a","value-%03d-b","value-%03d-c"],"description":"d"}`, i, i, i, i))
	}
	big := `{"type":"object","additionalProperties":false,"required":["p000"],"properties":{` + strings.Join(props, ",") + `}}`
	c, err := core.NewCatalog([]*core.Operation{unionOp(big, `{"p000":"value-000-a"}`)})
	is.NoErr(err)
	op, _ := c.Lookup("union_tool")
	adv := op.AdvertisedInput(core.ProfileCompact)
	is.Equal(op.Presentation(core.ProfileCompact), core.PresentReduced)
	is.True(len(adv) <= core.CompactBudget)
	is.NoErr(accepts(compile(t, adv), []byte(`{"p000":"value-000-a"}`)))
	is.True(strings.Contains(string(adv), "the server validates complete inputs"))

	// A recursive schema is never advertised: Check names it.
	cyclic := `{"type":"object","properties":{"node":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}}}`
	c, err = core.NewCatalog([]*core.Operation{unionOp(cyclic, `{}`)})
	is.NoErr(err)
	err = c.Check()
	is.True(err != nil && strings.Contains(err.Error(), "recursive"))

	// Thousands of long property names: even the reduced form is too big.
	props = props[:0]
	for i := 0; i < 2000; i++ {
		props = append(props, fmt.Sprintf(`"a_rather_long_property_name_%04d":{"type":"string"}`, i))
	}
	huge := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	c, err = core.NewCatalog([]*core.Operation{unionOp(huge, `{}`)})
	is.NoErr(err)
	op, _ = c.Lookup("union_tool")
	adv = op.AdvertisedInput(core.ProfileCompact)
	is.Equal(op.Presentation(core.ProfileCompact), core.PresentMinimal)
	is.True(len(adv) <= core.CompactBudget)
}

func TestCompactExpandsUnconstrainedFields(t *testing.T) {
	is := is.New(t)
	s := `{"type":"object","properties":{"anything":{},"obj":{"type":"object","description":"x","examples":[{"a":1}]}},"description":"Root stays."}`
	c, _ := core.NewCatalog([]*core.Operation{unionOp(s, `{}`)})
	op, _ := c.Lookup("union_tool")
	var m map[string]any
	is.NoErr(json.Unmarshal(op.AdvertisedInput(core.ProfileCompact), &m))
	is.Equal(m["description"], "Root stays.")
	p := m["properties"].(map[string]any)
	is.Equal(p["anything"].(map[string]any)["type"], []any{"null", "boolean", "object", "array", "number", "string"})
	_, hasDesc := p["obj"].(map[string]any)["description"]
	is.True(!hasDesc)
}

func TestRepeatedDefinitionsShared(t *testing.T) {
	is := is.New(t)
	item := `{"type":"object","additionalProperties":false,"required":["name","value"],"properties":{"name":{"type":"string","description":"A rather long description so that sharing pays off."},"value":{"type":"integer"}}}`
	s := `{"type":"object","properties":{"a":` + item + `,"b":` + item + `,"c":{"type":"array","items":` + item + `}}}`
	c, _ := core.NewCatalog([]*core.Operation{unionOp(s, `{"a":{"name":"x","value":1}}`)})
	op, _ := c.Lookup("union_tool")
	adv := op.AdvertisedInput(core.ProfileFull)
	is.Equal(strings.Count(string(adv), "rather long description"), 1)
	is.NoErr(accepts(compile(t, adv), []byte(`{"a":{"name":"x","value":1},"c":[{"name":"y","value":2}]}`)))
	is.True(accepts(compile(t, adv), []byte(`{"b":{"name":"x"}}`)) != nil)
}

func producedOps(produced map[string]string) (producer, consumer *core.Operation) {
	nop := func(ctx context.Context, c *core.Call) (any, error) { return nil, nil }
	thing := `{"description":"A made thing.","type":"object","additionalProperties":false,"required":["id"],
	 "properties":{"id":{"type":"string","pattern":"^t_"}}}`
	producer = &core.Operation{Name: "make_thing", Title: "Make", Description: "Makes a thing.", Kind: core.KindApplication,
		Input: json.RawMessage(`{"type":"object","additionalProperties":false}`), Result: json.RawMessage(thing),
		Examples: []json.RawMessage{json.RawMessage(`{}`)}, Handler: nop}
	consumer = &core.Operation{Name: "use_thing", Title: "Use", Description: "Uses a thing.", Kind: core.KindApplication,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
		 "required":["thing"],"properties":{"thing":{"$ref":"#/$defs/thing","description":"The thing to use."}},
		 "$defs":{"thing":` + thing + `,"unused":{"type":"string"}}}`),
		Result: json.RawMessage(`{"type":"object"}`), Examples: []json.RawMessage{json.RawMessage(`{"thing":{"id":"t_1"}}`)},
		Produced: produced, Handler: nop}
	return producer, consumer
}

// TestProducedInputsAdvertisedShallowly: an input subschema declared as
// another operation's result (Operation.Produced) is advertised as an
// object naming that operation and its output schema $id, while the server
// keeps validating the whole shape; Check refuses a declaration that names
// no operation or no subschema.
func TestProducedInputsAdvertisedShallowly(t *testing.T) {
	is := is.New(t)
	producer, consumer := producedOps(map[string]string{"#/$defs/thing": "make_thing"})
	c, err := core.NewCatalog([]*core.Operation{producer, consumer})
	is.NoErr(err)
	is.NoErr(c.Check())
	var out struct {
		ID string `json:"$id"`
	}
	is.NoErr(json.Unmarshal(producer.OutputSchema(), &out))
	is.True(strings.HasPrefix(out.ID, "urn:rea:tool-output:sha256:"))
	for _, p := range []core.SchemaProfile{core.ProfileFull, core.ProfileCompact} {
		adv := consumer.AdvertisedInput(p)
		if p == core.ProfileFull { // the compact profile strips nested prose
			is.True(strings.Contains(string(adv), out.ID))       // names the producer's output schema
			is.True(strings.Contains(string(adv), "make_thing")) // and the producer
		}
		is.True(!strings.Contains(string(adv), `"pattern"`)) // not the shape
		is.True(!strings.Contains(string(adv), `"unused"`))  // unreferenced definitions go
		is.NoErr(accepts(compile(t, adv), []byte(`{"thing":{"id":"x","extra":1}}`)))
	}
	var m map[string]any
	is.NoErr(json.Unmarshal(consumer.AdvertisedInput(core.ProfileFull), &m))
	def := m["$defs"].(map[string]any)["thing"].(map[string]any)
	is.Equal(def["type"], "object")
	is.True(strings.HasPrefix(def["description"].(string), "A made thing. ")) // its own description stays first
	_, err = c.Validate(consumer, json.RawMessage(`{"thing":{"id":"x"}}`))
	is.Equal(core.AsError("use_thing", err).Code, core.CodeInvalidRequest) // validation keeps the canonical shape

	for _, bad := range []map[string]string{{"#/$defs/thing": "no_such_tool"}, {"#/$defs/nothing": "make_thing"},
		{"#/$defs/thing": "use_thing"}} {
		producer, consumer := producedOps(bad)
		c, err := core.NewCatalog([]*core.Operation{producer, consumer})
		is.NoErr(err)
		if err := c.Check(); err == nil {
			t.Errorf("Check accepted Produced %v", bad)
		}
	}
}
