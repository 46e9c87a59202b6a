package cli

import "testing"

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
