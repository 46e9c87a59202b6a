package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// A page both filtered by policy and attached late reads as both in text:
// its status alone is policy_filtered, and the sections each condition
// touched and the limitations are listed as the JSON lists them.
func TestCoverageTextNamesEveryCondition(t *testing.T) {
	is := is.New(t)
	var r map[string]any
	is.NoErr(json.Unmarshal([]byte(`{"completeness":{"status":"policy_filtered","conditions":["attach_limited","policy_filtered"],
		"attach_limited_sections":["console_events","network_requests"],"policy_filtered_sections":["script_sources"],
		"truncated_sections":[],"unavailable_sections":["storage"]},
		"limitations":["Observation starts when REA attaches; prior network and console activity is unavailable."]}`), &r))
	comp := obj(r["completeness"])
	is.Equal(conditions(comp), "attach_limited, policy_filtered")
	var b strings.Builder
	writeCoverage(&b, comp, arr(r["limitations"]))
	is.Equal(b.String(), "policy_filtered: script_sources\n"+
		"attach_limited: console_events, network_requests\n"+
		"unavailable: storage\n"+
		"note: Observation starts when REA attaches; prior network and console activity is unavailable.\n")
	// A complete observation adds nothing.
	b.Reset()
	writeCoverage(&b, map[string]any{"status": "complete_within_window", "conditions": []any{"complete_within_window"}}, nil)
	is.Equal(b.String(), "")
}
