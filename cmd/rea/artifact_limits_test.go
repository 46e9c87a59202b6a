package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"rea/adapters/asar"
)

// The per-entry limit bounds entries, not the archive that holds them: an
// ASAR larger than max_entry_bytes whose files are each within it opens,
// and a file inside it over the limit still fails.
func TestArchiveLargerThanEntryLimitOpens(t *testing.T) {
	dir := t.TempDir()
	var entries []asar.WriteEntry
	for i := range 4 {
		entries = append(entries, asar.WriteEntry{Path: fmt.Sprintf("f%d.txt", i), Type: asar.TypeFile, Data: []byte(strings.Repeat("x", 600))})
	}
	app := filepath.Join(dir, "app.asar")
	writeASAR(t, app, entries)
	s := jaSession(t)
	ev := jaCall(t, s, "inventory_artifact", map[string]any{"path": app, "max_entry_bytes": 1000, "detail": "complete"})
	if got := decodeInventory(t, ev); len(got.Occurrences) != 5 {
		t.Fatalf("want the root and 4 files, got %d occurrences", len(got.Occurrences))
	}
	big := filepath.Join(dir, "big.asar")
	writeASAR(t, big, append(entries, asar.WriteEntry{Path: "big.txt", Type: asar.TypeFile, Data: []byte(strings.Repeat("y", 1001))}))
	e := jaCallErr(t, s, t.Context(), "inventory_artifact", map[string]any{"path": big, "max_entry_bytes": 1000})
	if e == nil || e.Details["limit"] != "max_entry_bytes" || e.Details["logical_path"] != "big.txt" {
		t.Fatalf("an entry over max_entry_bytes: got %v", e)
	}
}

// The default max_entries is sized for a mid-size app, over the CLI and
// MCP alike (one default, 100,000): an archive of 10,001 files inventories
// without flags from both. Before, the MCP tool defaulted to 10,000 and
// stopped it with truncated.
func TestCLIInventoryDefaultEntriesFitMidSizeApp(t *testing.T) {
	var entries []asar.WriteEntry
	for i := range 10001 {
		entries = append(entries, asar.WriteEntry{Path: fmt.Sprintf("m%05d.js", i), Type: asar.TypeFile, Data: []byte("1\n")})
	}
	app := filepath.Join(t.TempDir(), "app.asar")
	writeASAR(t, app, entries)
	out, errOut, code := runCLI(t, "inventory", app)
	if code != 0 || !strings.Contains(out, "10001 of 10001 files verified") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	ev := jaCall(t, jaSession(t), "inventory_artifact", map[string]any{"path": app, "limit": 1})
	var r struct {
		Page struct{ Total int } `json:"page"`
	}
	if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil || r.Page.Total != 10002 {
		t.Fatalf("the MCP default: %v, %d entries", err, r.Page.Total)
	}
}
