package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"rea/core"
	"rea/core/standard"
)

// tools/list carries every tool's whole advertised schemas, never the
// stand-ins the server registers them with.
func TestToolsListCarriesWholeSchemas(t *testing.T) {
	h := start(t)
	cat, err := core.NewCatalog(testOperations())
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	same := func(got any, want json.RawMessage) bool {
		g, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if json.Unmarshal(g, &a) != nil || json.Unmarshal(want, &b) != nil {
			return false
		}
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return bytes.Equal(x, y)
	}
	for _, tool := range res.Tools {
		op, ok := cat.Lookup(tool.Name)
		if !ok {
			t.Fatalf("%s: not in the catalog", tool.Name)
		}
		if !same(tool.InputSchema, cat.AdvertisedInput(op)) {
			t.Errorf("%s: listed input schema is not the advertised one", tool.Name)
		}
		if !same(tool.OutputSchema, op.OutputSchema()) {
			t.Errorf("%s: listed output schema is not the advertised one", tool.Name)
		}
	}
}

// What the SDK checks while registering a tool, and no longer sees (the
// server registers each tool with a stand-in input schema and no output
// schema, then sets them), holds for every advertised schema in both profiles: the input is an object
// schema, no property carries x-mcp-header, the output is JSON.
func TestAdvertisedSchemasPassSDKChecks(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	var walk func(name string, v any)
	walk = func(name string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "x-mcp-header" {
					t.Errorf("%s: x-mcp-header in the input schema", name)
				}
				walk(name, c)
			}
		case []any:
			for _, c := range x {
				walk(name, c)
			}
		}
	}
	for _, p := range []core.SchemaProfile{core.ProfileFull, core.ProfileCompact} {
		for _, op := range cat.Operations() {
			var in map[string]any
			if err := json.Unmarshal(op.AdvertisedInput(p), &in); err != nil || in["type"] != "object" {
				t.Errorf("%s (%s): input schema is not an object schema (%v)", op.Name, p, err)
			}
			walk(op.Name, in)
			var out any
			if err := json.Unmarshal(op.OutputSchema(), &out); err != nil {
				t.Errorf("%s: output schema: %v", op.Name, err)
			}
		}
	}
}
