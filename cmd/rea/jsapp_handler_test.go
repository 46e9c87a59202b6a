package main

import (
	"slices"
	"strings"
	"testing"
)

// A trace from a channel goes through its handler into what the handler
// does and stops at the file that defines it: the file's other handlers
// and imports are not the channel's. Before, the handler's defined_in
// edge led on into everything main.js does (log:write's append,
// lib/store.js). From the file outward the trace still reaches its
// handlers' writes (TestTraceReachesEachComputedStorageKey).
func TestChannelTraceStopsAtTheHandlersFile(t *testing.T) {
	for _, dir := range []string{"outgoing", "both"} {
		var ends, all []string
		for _, p := range storageTrace(t, map[string]any{"kind": "ipc-channel", "value": "notes:save"}, dir) {
			ends = append(ends, p.Labels[len(p.Labels)-1])
			all = append(all, p.Labels...)
		}
		for _, not := range []string{"ipc log:write", "fs ${logFile}", "lib/store.js"} {
			if slices.Contains(all, not) {
				t.Errorf("%s trace from notes:save reaches %s: %q", dir, not, ends)
			}
		}
		if !slices.Contains(ends, "main.js") || !slices.ContainsFunc(all, func(s string) bool { return strings.HasPrefix(s, "fs.writeFileSync(") }) {
			t.Errorf("%s trace from notes:save ends at %q, want it through the handler's write and to its file main.js", dir, ends)
		}
	}
	// Inward, a handler's trace goes up to its file and what loads it,
	// not down into the file's other handlers.
	var into []string
	for _, p := range storageTrace(t, map[string]any{"kind": "string", "value": "${logFile}"}, "incoming") {
		into = append(into, strings.Join(p.Labels, " < "))
	}
	want := []string{`fs ${logFile} < function ipcMain.on("log:write") handler in main.js < ipc log:write`,
		`fs ${logFile} < function ipcMain.on("log:write") handler in main.js < main.js < main process main.js`}
	if !slices.Equal(into, want) {
		t.Errorf("incoming trace from logFile:\n got %q\nwant %q", into, want)
	}
}

