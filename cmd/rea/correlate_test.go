package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// correlate_static_and_runtime on real traces: the two versions of the C
// program of diff_test.go, compared statically, each run under gdbserver
// with the changed, added, removed and an unchanged function traced, and
// a capture of each run compared.
func TestMCPCorrelateStaticAndRuntime(t *testing.T) {
	if _, err := exec.LookPath("gdbserver"); err != nil {
		t.Skip("gdbserver is not installed (Debian: apt-get install gdbserver)")
	}
	is := is.New(t)
	v1, v2, _, _ := diffBuilds(t, "O0")
	cs := mcpClient(t)
	sr := call(t, cs, "compare_binaries", map[string]any{"left_path": v1, "right_path": v2, "detail": "complete"})
	static, _ := evidence(t, sr)
	var inline map[string]any // the same record, inline
	is.NoErr(json.Unmarshal([]byte(sr.text), &inline))
	ref := func(id string) map[string]any { return map[string]any{"kind": "retained-evidence", "evidence_id": id} }
	trace := func(bin string, procs ...string) string {
		t.Helper()
		if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
			t.Fatal(r.text)
		}
		ev, m := evidence(t, call(t, cs, "trace_native_calls", map[string]any{"procedures": procs, "arguments": []string{"x"}}))
		is.True(len(m["hits"].([]any)) >= len(procs)-1)
		return string(ev.EvidenceID)
	}
	left := trace(v1, "limit", "greet", "classify", "twice", "old_only")
	right := trace(v2, "limit", "greet", "classify", "twice", "new_only")
	dir := t.TempDir()
	c1, _ := evidence(t, call(t, cs, "capture_process_scenario", map[string]any{"executable": v1, "working_directory": dir, "timeout_ms": 10000}))
	c2, _ := evidence(t, call(t, cs, "capture_process_scenario", map[string]any{"executable": v2, "working_directory": dir, "timeout_ms": 10000}))
	pc, pcm := evidence(t, call(t, cs, "compare_process_captures", map[string]any{"left": ref(string(c1.EvidenceID)), "right": ref(string(c2.EvidenceID))}))

	res := sessionResult(t, call(t, cs, "correlate_static_and_runtime", map[string]any{
		"static_comparisons":  []any{ref(string(static.EvidenceID))},
		"runtime_comparisons": []any{ref(left), ref(right), ref(string(pc.EvidenceID))},
		"mappings":            []any{map[string]any{"runtime_evidence_id": left, "side": "left"}, map[string]any{"runtime_evidence_id": right, "side": "right"}},
		"limit":               500,
	}))
	// The static comparison inline reads the same.
	inlineRes := sessionResult(t, call(t, cs, "correlate_static_and_runtime", map[string]any{
		"static_comparisons":  []any{inline},
		"runtime_comparisons": []any{ref(left), ref(right), ref(string(pc.EvidenceID))},
		"mappings":            []any{map[string]any{"runtime_evidence_id": left, "side": "left"}, map[string]any{"runtime_evidence_id": right, "side": "right"}},
		"limit":               500,
	}))
	is.Equal(inlineRes, res)
	byName := map[string]map[string]any{}
	for _, f := range res["functions"].([]any) {
		f := f.(map[string]any)
		for _, side := range []string{"left", "right"} {
			if s, ok := f[side].(map[string]any); ok {
				byName[s["name"].(string)] = f
			}
		}
	}
	for _, n := range []string{"limit", "greet", "classify"} {
		is.Equal(byName[n]["correlation"], "changed-and-executed")
		is.Equal(byName[n]["left_hits"], 1.0)
		is.Equal(byName[n]["right_hits"], 1.0)
	}
	is.Equal(byName["old_only"]["correlation"], "removed-and-executed")
	is.Equal(byName["new_only"]["correlation"], "added-and-executed")
	is.Equal(byName["twice"]["correlation"], "unchanged")
	is.Equal(byName["twice"]["arguments_differ"], false)
	is.Equal(byName["sum"]["correlation"], "unchanged") // unchanged and not traced
	first := res["functions"].([]any)[0].(map[string]any)
	is.Equal(first["correlation"], "changed-and-executed") // ranked first
	rt := res["runtime"].([]any)
	is.Equal(len(rt), 3)
	pcs := rt[2].(map[string]any)
	is.Equal(pcs["side"], "both")
	is.Equal(pcs["status"], "changed") // greet's string reached the terminal
	// changed_dimensions are the comparison's changed, added or removed
	// dimensions; an unknown one (ports, under its residual unknown) is
	// no change (before, every dimension not unchanged was listed).
	want := []any{}
	for _, d := range pcm["dimensions"].([]any) {
		if d := d.(map[string]any); d["status"] == "changed" || d["status"] == "added" || d["status"] == "removed" {
			want = append(want, d["dimension"])
		}
	}
	is.True(len(want) > 0)
	is.Equal(pcs["changed_dimensions"], want)

	// Bad input: a trace without a mapping, Evidence of another operation.
	code, _ := errCode(t, call(t, cs, "correlate_static_and_runtime", map[string]any{
		"static_comparisons": []any{ref(string(static.EvidenceID))}, "runtime_comparisons": []any{ref(left)},
		"mappings": []any{map[string]any{"runtime_evidence_id": right, "side": "right"}}}))
	is.Equal(string(code), "invalid_request")
	code, details := errCode(t, call(t, cs, "correlate_static_and_runtime", map[string]any{
		"static_comparisons": []any{inline, ref(left)}, "runtime_comparisons": []any{ref(left)},
		"mappings": []any{map[string]any{"runtime_evidence_id": left, "side": "left"}}}))
	is.Equal(string(code), "invalid_request")
	is.Equal(details["issues"].([]any)[0].(map[string]any)["path"], []any{"static_comparisons", 1.0}) // the trace, not a static comparison
	code, _ = errCode(t, call(t, cs, "correlate_static_and_runtime", map[string]any{
		"static_comparisons": []any{inline}, "runtime_comparisons": []any{ref("ev_" + strings.Repeat("2", 64))},
		"mappings": []any{map[string]any{"runtime_evidence_id": left, "side": "left"}}}))
	is.Equal(string(code), "evidence_integrity_mismatch") // not retained here
}
