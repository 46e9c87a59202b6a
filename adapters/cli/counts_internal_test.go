package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// A count of one names one thing. Before, rea analyze APP.asar printed "1
// html documents, 1 native addons, 1 packages" and "found 1 browser
// windows, 1 main processes".
func TestCountsSayOneThing(t *testing.T) {
	got := counts(map[string]int{"html_documents": 1, "bytes_parsed": 1, "directories": 1, "main_processes": 1,
		"context_bridge_apis": 1, "ipc_paired": 1, "storage": 1, "ipc_channels": 2, "bytes": 3305, "empty": 0})
	want := "3305 bytes, 1 byte parsed, 1 context bridge api, 1 directory, 1 html document, 2 ipc channels, 1 ipc paired, 1 main process, 1 storage"
	if got != want {
		t.Errorf("counts:\n%s\nwant\n%s", got, want)
	}
}

// plural counts in English, and the trace's header uses it. Before, a
// trace printed "1 seed matches, 1 paths".
func TestPluralCounts(t *testing.T) {
	for n, want := range map[int]string{0: "0 seed matches", 1: "1 seed match", 2: "2 seed matches"} {
		if got := plural(n, "seed match"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
	if got := plural(3, "record"); got != "3 records" {
		t.Errorf("plural(3, record) = %q", got)
	}
	var b strings.Builder
	appTrace(&b, map[string]any{"seed": map[string]any{"kind": "ipc-channel", "value": "log", "match": "exact"}, "direction": "outgoing",
		"summary": map[string]any{"seed_matches": json.Number("1"), "paths": json.Number("1"), "nodes_visited": json.Number("26")}})
	if want := `trace of ipc-channel "log" (exact, outgoing): 1 seed match, 1 path, 26 nodes`; !strings.HasPrefix(b.String(), want+"\n") {
		t.Errorf("header %q, want %q", b.String(), want)
	}
}

// The application comparison counts contradictions in English. Before:
// "0 contradiction".
func TestAppComparisonCountsContradictions(t *testing.T) {
	for n, want := range map[string]string{"0": "0 contradictions", "1": "1 contradiction", "2": "2 contradictions"} {
		var b strings.Builder
		appComparison(&b, map[string]any{"summary": map[string]any{"changed": json.Number("1"), "added": json.Number("0"), "removed": json.Number("0"),
			"unknown": json.Number("0"), "contradiction": json.Number(n), "unchanged": json.Number("3")}})
		if head := "application comparison: 1 changed, 0 added, 0 removed, 0 unknown, " + want + ", 3 unchanged\n"; !strings.HasPrefix(b.String(), head) {
			t.Errorf("%s contradictions: %q", n, b.String())
		}
	}
}
