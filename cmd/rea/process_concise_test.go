package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// Over MCP, a concise capture made in one connection and passed inline to
// compare_process_captures in another (which does not hold its complete
// record): compared as it is when nothing the comparison reads was cut
// (greeter's), with the answer the making connection gives; refused when
// frames were cut (seq's), the advice naming the complete record and a
// bundle, and compared once the bundle exported there is imported here.
// Before, both were refused.
func TestMCPCompareConciseCapturesAcrossConnections(t *testing.T) {
	is := is.New(t)
	exe := buildC(t, "greeter", greeterC)
	maker, other := mcpClient(t), mcpClient(t)
	left, _ := evidence(t, call(t, maker, "capture_process_scenario", captureArgs(exe, t.TempDir(), "alice\n")))
	right, _ := evidence(t, call(t, maker, "capture_process_scenario", captureArgs(exe, t.TempDir(), "bob\n")))
	var page struct {
		Parent string `json:"parent_evidence_id"`
	}
	is.NoErr(json.Unmarshal(left.NormalizedResult, &page))
	is.True(page.Parent != "") // concise
	inline := func(ev *core.Evidence) any {
		var m any
		is.NoErr(json.Unmarshal(mustJSON(t, ev), &m))
		return m
	}
	answer := func(m map[string]any) string {
		return string(mustJSON(t, map[string]any{"status": m["status"], "dimensions": m["dimensions"], "first_divergence": m["first_divergence"]}))
	}
	args := map[string]any{"left": inline(left), "right": inline(right)}
	_, want := evidence(t, call(t, maker, "compare_process_captures", args))
	got, m := evidence(t, call(t, other, "compare_process_captures", args))
	is.Equal(answer(m), answer(want))
	is.True(strings.Contains(answer(m), "hello bob"))
	is.True(strings.Contains(strings.Join(got.Limitations, "\n"), "rebuilt"))

	// A long output is cut: refused in the other connection, saying what
	// to pass.
	long, _ := evidence(t, call(t, maker, "capture_process_scenario", map[string]any{"executable": "seq", "arguments": []string{"1", "30000"}, "timeout_ms": 10000}))
	is.NoErr(json.Unmarshal(long.NormalizedResult, &page))
	args = map[string]any{"left": inline(long), "right": inline(long)}
	r := call(t, other, "compare_process_captures", args)
	code, details := errCode(t, r)
	t.Log(r.text)
	is.Equal(code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(details["complete_evidence_id"], page.Parent)
	is.True(strings.Contains(r.text, "export_evidence_bundle") && strings.Contains(r.text, "rea://evidence/"+page.Parent))

	// As the advice says: the bundle exported there, imported here.
	bundle := filepath.Join(t.TempDir(), "bundle.json")
	if r := call(t, maker, "export_evidence_bundle", map[string]any{"path": bundle}); r.isError {
		t.Fatal(r.text)
	}
	if r := call(t, other, "import_evidence_bundle", map[string]any{"path": bundle}); r.isError {
		t.Fatal(r.text)
	}
	_, m = evidence(t, call(t, other, "compare_process_captures", args))
	is.True(strings.Contains(answer(m), `"dimension":"terminal","left_count"`))
	noDescendants(t)
}
