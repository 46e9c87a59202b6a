package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCLIAdviceNamesCommands: what a command's error tells a CLI user to
// do names commands and flags, not MCP tools and their JSON arguments.
// Before: rea list-browser-targets said to pass the endpoint "as
// cdp_endpoint, or use capture_browser_scenario"; rea evidence-import said
// to name a file "that export_evidence_bundle (rea evidence-export)
// wrote"; rea evidence-export --call without --target said "rea call
// --target FILE, or the command's path"; rea disassemble --format json
// pointed at procedure_assembly; rea annotate named tools bare.
func TestCLIAdviceNamesCommands(t *testing.T) {
	bin := needFixture(t)
	notBundle := filepath.Join(t.TempDir(), "notes.json")
	if err := os.WriteFile(notBundle, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A snake_case word the CLI cannot take: a tool name or a JSON argument.
	snake := regexp.MustCompile(`\b[a-z][a-z0-9]*(_[a-z0-9]+)+\b`)
	for _, tc := range []struct {
		args       []string
		want       string
		allowSnake string // a tool name in its CLI form (rea call TOOL)
		not        string
	}{
		{[]string{"list-browser-targets", "http://127.0.0.1:1"}, "as ENDPOINT, or use rea capture-browser-scenario", "", ""},
		{[]string{"evidence-import", notBundle}, "a file that rea evidence-export wrote", "", ""},
		{[]string{"inspect-evidence-bundle", `{"path":"` + notBundle + `"}`}, "a file that rea evidence-export wrote", "", ""},
		{[]string{"evidence-export", filepath.Join(t.TempDir(), "out.json"), "--call", "list_names"}, "with --target FILE: rea evidence-export OUTPUT --target FILE --call list_names", "list_names", "rea call"},
		{[]string{"disassemble", bin, "--format", "json"}, "rea call --target FILE procedure_assembly", "procedure_assembly", ""},
		// rea annotate names a tool as its own step (it said "with list_bookmarks").
		{[]string{"annotate", bin, `unset_bookmark={"address":"main"}`}, "List the bookmarks with rea annotate FILE list_bookmarks;", "list_bookmarks", ""},
	} {
		_, errOut, code := runCLI(t, tc.args...)
		if code == 0 {
			t.Errorf("%v: exit 0", tc.args)
			continue
		}
		if !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: %q does not say %q", tc.args, errOut, tc.want)
		}
		if tc.not != "" && strings.Contains(errOut, tc.not) {
			t.Errorf("%v: %q says %q", tc.args, errOut, tc.not)
		}
		advice := errOut // a usage error: its one line
		if i := strings.Index(errOut, "what to do:"); i >= 0 {
			advice = errOut[i:]
		}
		for _, w := range snake.FindAllString(advice, -1) {
			if w != tc.allowSnake {
				t.Errorf("%v: the advice names %s: %q", tc.args, w, advice)
			}
		}
	}
}
