package cli

import "testing"

// TestCommandForms: advice printed by a command that takes no tool names
// names the command a CLI user runs instead of each tool, and the
// endpoint argument the browser commands take.
func TestCommandForms(t *testing.T) {
	tools := map[string]bool{"list_procedures": true, "capture_browser_scenario": false, "list_browser_targets": false,
		"export_evidence_bundle": true, "binary_session": false, "list_bookmarks": true}
	tool := func(n string) (bool, bool) { target, ok := tools[n]; return target, ok }
	for _, c := range []struct{ command, in, want string }{
		{"trace", "Name a procedure of the program (list_procedures lists them) or a mapped 0x address; call again.",
			"Name a procedure of the program (rea call --target FILE list_procedures lists them) or a mapped 0x address; run the command again."},
		{"list-browser-targets", "Start Chromium and pass http://127.0.0.1:PORT as cdp_endpoint, or use capture_browser_scenario, which launches its own browser.",
			"Start Chromium and pass http://127.0.0.1:PORT as ENDPOINT, or use rea capture-browser-scenario, which launches its own browser."},
		{"inspect-web-page", "Call list_browser_targets on the same cdp_endpoint.", "Run rea list-browser-targets on the same ENDPOINT."},
		{"analyze", "Export the bundle with export_evidence_bundle.", "Export the bundle with rea evidence-export FILE."},
		// Already a command line, or not a tool: kept.
		{"analyze", "Run rea call --target FILE list_procedures; details.partial_observation holds it.", "Run rea call --target FILE list_procedures; details.partial_observation holds it."},
		// Commands that take tool names keep them.
		{"call", "Call list_browser_targets on the same cdp_endpoint.", "Call list_browser_targets on the same cdp_endpoint."},
		// rea annotate names a tool as a step of itself; its steps take
		// JSON arguments, not flags. Before, it printed the tools' names.
		{"annotate", "Use an address inside a segment (list_procedures).", "Use an address inside a segment (rea annotate FILE list_procedures)."},
		{"annotate", "List the bookmarks with list_bookmarks; call again.", "List the bookmarks with rea annotate FILE list_bookmarks; run the command again."},
		{"annotate", "Export the bundle with export_evidence_bundle.", "Export the bundle with rea evidence-export FILE."},
	} {
		if got := commandForms(c.command, c.in, tool); got != c.want {
			t.Errorf("%s %q:\n got %q\nwant %q", c.command, c.in, got, c.want)
		}
	}
}
