package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func TestSplitBundleRef(t *testing.T) {
	id := "ev_" + strings.Repeat("a", 64)
	for _, c := range []struct {
		ref, file, id string
		ok            bool
	}{
		{"@b.json#" + id, "b.json", id, true},
		{"@dir#1/b.json#" + id, "dir#1/b.json", id, true}, // a # in the file name
		{"@b.json", "", "", false},
		{"-", "", "", false},
		{"b.json#" + id, "", "", false}, // not a reference
	} {
		is := is.New(t)
		f, i, ok := splitBundleRef(c.ref)
		is.Equal(ok, c.ok)
		is.Equal(f, c.file)
		is.Equal(i, c.id)
	}
}

func TestParseSeed(t *testing.T) {
	is := is.New(t)
	k, v, err := parseSeed("ipc-channel:dialog:open")
	is.NoErr(err)
	is.Equal(k, "ipc-channel")
	is.Equal(v, "dialog:open")
	for _, bad := range []string{"main.js", "file:main.js", "module:", ""} {
		_, _, err := parseSeed(bad)
		is.True(err != nil)
	}
}

// Remediations printed by the CLI name flags and commands, not MCP
// arguments and tools.
func TestCLIRemediation(t *testing.T) {
	body := func(e *core.Error) core.EnvelopeBody { return e.Envelope().Error }
	for _, c := range []struct {
		command, tool string
		err           *core.Error
		want, not     string
	}{
		{"evidence-export", "", &core.Error{Code: core.CodeInvalidRequest, Remediation: "Choose another path, or pass overwrite:true to replace the existing file.",
			Details: map[string]any{"reason": core.FileReasonExists}}, "--overwrite", "overwrite:true"},
		{"call", "export_evidence_bundle", &core.Error{Code: core.CodeInvalidRequest, Details: map[string]any{"reason": core.FileReasonExists}}, `"overwrite":true`, "--overwrite"},
		{"call", "list_procedures", &core.Error{Code: core.CodeTargetUnavailable}, "rea call --target FILE list_procedures", "open_binary"},
		{"analyze", "", &core.Error{Code: core.CodeProviderUnavailable}, "--provider", "provider_id"},
		// A family's own advice stays: a browser's endpoint and page target
		// are not analysis providers or files for --target.
		{"call", "list_browser_targets", &core.Error{Code: core.CodeProviderUnavailable, Remediation: "Start Chromium with --remote-debugging-port=PORT."},
			"--remote-debugging-port", "rea providers"},
		{"call", "inspect_web_page", &core.Error{Code: core.CodeTargetUnavailable, Remediation: "Call list_browser_targets on the same cdp_endpoint."},
			"list_browser_targets", "--target FILE"},
		{"call", "nosuch", &core.Error{Code: core.CodeInvalidRequest, Message: `unknown tool "nosuch"`,
			Details: map[string]any{"issues": []core.Issue{{Path: []any{"name"}}}}}, "rea tools to list", "rea tools nosuch"},
		{"call", "binary_overview", &core.Error{Code: core.CodeCapabilityUnavailable}, "rea capabilities", "binary_session.tool_availability"},
		// Every engine that offers the capability is named, the first too.
		{"call", "procedure_pseudo_code", &core.Error{Code: core.CodeCapabilityUnavailable,
			Remediation: "ghidra offers decompile but is not installed here; rea doctor says what it needs. hopper offers decompile but is not installed here; rea doctor says what it needs."},
			"ghidra offers decompile", "binary_session.tool_availability"},
		{"call", "trace_application_feature", core.InvalidRequest("trace_application_feature", core.Issue{Path: []any{"seed"}}), "rea tools trace_application_feature", "details.issues"},
		{"analyze-javascript-application", "", &core.Error{Code: core.CodeProviderTimeout,
			Remediation: "Retry with a larger analysis_timeout_ms, or analyze a smaller part of the application."}, "--analysis-timeout-ms", "analysis_timeout_ms"},
		{"analyze-javascript-application", "", &core.Error{Code: core.CodeResourceConstraint,
			Remediation: `Call again with detail:"summary", or export the Evidence bundle to a file.`}, "--detail summary", `detail:"summary"`},
		{"inventory", "", &core.Error{Code: core.CodeResourceConstraint,
			Remediation: "Export the bundle with export_evidence_bundle, then close_binary to clear the ledger."}, "rea evidence-export FILE", "export_evidence_bundle"},
		// A colon in prose is no argument; one before a quoted value is.
		{"trace", "", &core.Error{Code: core.CodeUnsupportedTarget, Remediation: "Launch a program that starts: the message says why."},
			"that starts: the message", "--starts"},
		{"analyze-javascript-application", "", &core.Error{Code: core.CodeResourceConstraint,
			Remediation: `Call again with detail: "summary".`}, "--detail summary", `detail:`},
		// rea annotate's steps take JSON arguments, as rea call does; a
		// command reopens its target by running again.
		{"annotate", "", &core.Error{Code: core.CodeResourceConstraint,
			Remediation: `Call again with detail:"summary".`}, `detail:"summary"`, "--detail"},
		{"annotate", "", &core.Error{Code: core.CodeInvalidRequest, Remediation: "The engine does not find the target rea opened: close_binary, then open_binary the target again, or choose another engine with provider_id."},
			"run the command again, or choose another engine with --provider ID", "open_binary"},
	} {
		t.Run(c.command+" "+string(c.err.Code), func(t *testing.T) {
			got := cliRemediation(c.command, c.tool, body(c.err))
			if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
				t.Errorf("got %q; want it to hold %q and not %q", got, c.want, c.not)
			}
		})
	}
}

// An @FILE that cannot be opened is named as what it was read for, once:
// the CLI prefixes "rea: " itself (before: "rea: rea: open ...").
func TestReadMissingArgumentsFile(t *testing.T) {
	is := is.New(t)
	_, err := (&source{}).read("arguments", "@"+t.TempDir()+"/absent.json")
	var ce *core.Error
	is.True(errors.As(err, &ce))
	is.Equal(ce.Code, core.CodeTargetUnavailable)
	is.True(strings.HasPrefix(ce.Message, "arguments: open "))
}
