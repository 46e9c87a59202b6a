package cli

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"

	"rea/core/standard"
)

// The defaults trace-feature's help names are the tool's own, as its
// schema states them.
func TestTraceFeatureHelpDefaults(t *testing.T) {
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	op, ok := cat.Lookup("trace_application_feature")
	if !ok {
		t.Fatal("no trace_application_feature")
	}
	var s struct {
		Properties struct {
			Limits struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			} `json:"limits"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(op.Input, &s); err != nil {
		t.Fatal(err)
	}
	def := regexp.MustCompile(`default,? (\d+)`)
	typ := reflect.TypeFor[traceFeatureCmd]()
	for field, limit := range map[string]string{"MaxDepth": "max_depth", "MaxPaths": "max_paths"} {
		f, _ := typ.FieldByName(field)
		help := def.FindStringSubmatch(f.Tag.Get("help"))
		tool := def.FindStringSubmatch(s.Properties.Limits.Properties[limit].Description)
		if help == nil || tool == nil || help[1] != tool[1] {
			t.Errorf("%s: help says %v, the tool %v", limit, help, tool)
		}
	}
}
