package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestGhidraLineageOverStdio, TestHopperLineageOverStdio: binary_session's
// process_lineage is not_observed while the lazy engine has not started
// (open_binary starts nothing), and the engine's verified observation of
// its launcher once the first query has started it.
func TestGhidraLineageOverStdio(t *testing.T) { testLineageOverStdio(t, ghidraKind) }
func TestHopperLineageOverStdio(t *testing.T) { testLineageOverStdio(t, hopperKind) }

func testLineageOverStdio(t *testing.T, k engineKind) {
	is := is.New(t)
	h := k.newHost(t)
	h.open()
	lineage := func() map[string]any {
		text, isErr := h.mustCall("binary_session", map[string]any{}, "")
		is.True(!isErr) // binary_session
		var out struct {
			Result struct {
				AnalysisRun struct {
					ProcessLineage map[string]any `json:"process_lineage"`
				} `json:"analysis_run"`
			} `json:"result"`
		}
		is.NoErr(json.Unmarshal([]byte(text), &out))
		return out.Result.AnalysisRun.ProcessLineage
	}
	is.Equal(lineage(), map[string]any{"status": "not_observed"})
	_, isErr := h.mustCall("binary_overview", map[string]any{}, "")
	is.True(!isErr) // binary_overview starts the engine
	got := lineage()
	is.Equal(got["status"], "snapshots")
	snaps, _ := got["snapshots"].([]any)
	is.Equal(len(snaps), 1)
	snap, _ := snaps[0].(map[string]any)
	is.Equal(snap["provider"].(map[string]any)["id"], strings.ToLower(k.name))
	obs, _ := snap["observation"].(map[string]any)
	is.Equal(obs["status"], "verified")
	launchers := h.launchers()
	is.Equal(len(launchers), 1)
	is.Equal(obs["launcher_pid"], float64(launchers[0]))
	_, isErr = h.mustCall("close_binary", map[string]any{}, "")
	is.True(!isErr) // close_binary
	roots, live := h.settle()
	is.Equal(len(roots), 0)
	is.Equal(len(live), 0)
}
