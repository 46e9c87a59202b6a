package main

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"
)

type valueFlowRecord struct {
	Status    string `json:"status"`
	Truncated bool   `json:"truncated"`
	Summary   struct {
		CallingConvention string   `json:"calling_convention"`
		Parameters        []string `json:"parameters"`
		Calls             int      `json:"calls"`
		Returns           int      `json:"returns"`
	} `json:"summary"`
	Parameters page `json:"parameters"`
}

// TestMCPValueFlow: analyze_function over MCP on the gcc-built fixture
// records native_value_flow as observed, with dispatch(int c, const char
// *s)'s parameters rdi and rsi, and inspect_analysis_view pages them.
func TestMCPValueFlow(t *testing.T) {
	is := is.New(t)
	full, _ := featureFixture(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": full}).isError)
	ev, m := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "dispatch"}))
	var d struct {
		Flow valueFlowRecord `json:"native_value_flow"`
	}
	decode(t, m, &d)
	is.Equal(d.Flow.Status, "observed")
	is.True(!d.Flow.Truncated)
	is.Equal(d.Flow.Summary.CallingConvention, "sysv-amd64")
	is.Equal(d.Flow.Summary.Parameters, []string{"rdi", "rsi"})
	is.Equal(d.Flow.Summary.Calls, 2) // handler and fallback
	is.Equal(d.Flow.Summary.Returns, 1)
	is.Equal(len(d.Flow.Parameters.Items), 2)

	_, v := evidence(t, call(t, cs, "inspect_analysis_view", map[string]any{
		"source": map[string]any{"kind": "retained-evidence", "evidence_id": ev.EvidenceID},
		"view":   map[string]any{"kind": "native", "facet": "value_flow_parameters", "offset": 1, "limit": 1}}))
	items := v["item"].(map[string]any)["items"].([]any)
	is.Equal(len(items), 1)
	is.Equal(items[0].(map[string]any)["location"], "rsi")
}

// TestCLIValueFlow: the same through `rea call --target`.
func TestCLIValueFlow(t *testing.T) {
	is := is.New(t)
	full, _ := featureFixture(t)
	out, errOut, code := runCLI(t, "--format", "json", "call", "analyze_function", `{"procedure":"dispatch"}`, "--target", full)
	is.Equal(code, 0)
	var ev struct {
		NormalizedResult struct {
			Flow valueFlowRecord `json:"native_value_flow"`
		} `json:"normalized_result"`
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, errOut)
	}
	is.Equal(ev.NormalizedResult.Flow.Status, "observed")
	is.Equal(ev.NormalizedResult.Flow.Summary.Parameters, []string{"rdi", "rsi"})
}
