package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rea/core"
)

// An application whose Evidence cannot fit what the session retains is
// refused before parsing, with the setting that raises the bound; with the
// bound raised it is answered.
func TestJSAppLedgerRoomCheckedBeforeWork(t *testing.T) {
	app := t.TempDir()
	for i := range 4000 { // about 1.2 MB of lower bound: over the 1 MiB ledger below
		p := filepath.Join(app, "lib", fmt.Sprintf("d%02d", i%40), fmt.Sprintf("component-module-%04d.js", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("module.exports = %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(core.LedgerBytesEnv, "1048576")
	e := jaCallErr(t, jaSession(t), t.Context(), "analyze_javascript_application", map[string]any{"path": app})
	if e == nil || e.Code != core.CodeResourceConstraint || e.Details["setting"] != core.LedgerBytesEnv || e.Details["resource"] != "evidence-ledger" {
		t.Fatalf("want resource_constraint naming %s, got %v", core.LedgerBytesEnv, e)
	}
	t.Setenv(core.LedgerBytesEnv, fmt.Sprint(256<<20))
	ev := jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": app})
	if r := decodeApp(t, ev); r.Statistics["parsed_assets"] != 4000 {
		t.Fatalf("parsed %d of 4000 assets", r.Statistics["parsed_assets"])
	}
}
