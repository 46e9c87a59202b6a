package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// Inventory and extraction have separate max_total_bytes budgets: a ZIP
// whose (well compressed) contents fit the budget once inventories and
// extracts, though the container yields its bytes twice; before, the
// container counted both passes against one budget and extraction failed.
func TestInventoryAndExtractionBudgetsAreSeparate(t *testing.T) {
	is := is.New(t)
	cs := mcpClient(t)
	dir := t.TempDir()
	payload := bytes.Repeat([]byte("rea "), 150_000) // 600,000 bytes, deflates to a few KB
	zipPath := filepath.Join(dir, "big.zip")
	writeZip(t, zipPath, map[string][]byte{"payload.txt": payload})
	const budget = 900_000 // one pass (archive + entry) fits, two do not
	_, m := evidence(t, call(t, cs, "inventory_artifact", map[string]any{"path": zipPath, "max_total_bytes": budget}))
	is.True(m != nil)
	_, m = evidence(t, call(t, cs, "extract_artifact", map[string]any{"path": zipPath, "max_total_bytes": budget}))
	out := m["output_root"].(string)
	defer os.RemoveAll(out)
	got, err := os.ReadFile(filepath.Join(out, "payload.txt"))
	is.NoErr(err)
	is.True(bytes.Equal(got, payload))
	// Extraction past its own budget still fails as a typed limit.
	code, details := errCode(t, call(t, cs, "extract_artifact", map[string]any{"path": zipPath, "max_total_bytes": 500_000}))
	is.Equal(string(code), "truncated")
	is.Equal(details["limit"], "max_total_bytes")
}
