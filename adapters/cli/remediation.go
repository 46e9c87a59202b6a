package cli

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"rea/core"
)

// Core writes remediations for an MCP client: "pass overwrite:true", "call
// open_binary". The CLI prints what its user types instead. The rewrite
// happens here, at the boundary, from the error's code and details first
// and from the remediation text second; the MCP wire is untouched.

// cliRemediation returns the remediation to print for an error raised
// while running command (the subcommand's name) and tool (the operation
// rea call or a workflow ran, if any).
func cliRemediation(command, tool string, body core.EnvelopeBody) string {
	reason, _ := body.Details["reason"].(string)
	switch {
	case reason == core.FileReasonExists:
		if command == "call" {
			return "Choose another path, or add \"overwrite\":true to the arguments to replace the existing file."
		}
		return "Choose another path, or pass --overwrite to replace the existing file."
	// The next two replace advice about binary targets and analysis
	// providers, never a family's own (a browser's target or endpoint).
	case body.Code == core.CodeTargetUnavailable && command == "call" && strings.Contains(body.Remediation.Action, "open_binary") &&
		!strings.Contains(body.Message, "open_binary"):
		return "Name the file to analyze with --target: rea call --target FILE " + orTool(tool) + " '{...}'."
	case body.Code == core.CodeTargetUnavailable && command == "evidence-export" && strings.Contains(body.Remediation.Action, "open_binary") &&
		!strings.Contains(body.Message, "open_binary"):
		if op, _, ok := strings.Cut(body.Message, ": "); ok && tool == "" && !strings.Contains(op, " ") {
			tool = op // the --call that needed it
		}
		return "Name the file to analyze with --target FILE: rea evidence-export OUTPUT --target FILE --call " + orTool(tool) + "."
	case body.Details["selection_reason"] == "unknown_provider": // --provider, REA_ANALYSIS_PROVIDER or provider_id
		return "Run rea providers to list the engines, then choose one (or auto) with --provider ID or REA_ANALYSIS_PROVIDER."
	case body.Code == core.CodeProviderUnavailable && strings.Contains(body.Remediation.Action, "analysis_provider"):
		return "Run rea providers to see which engines exist and are available, then choose one with --provider ID (or REA_ANALYSIS_PROVIDER)."
	case body.Code == core.CodeInvalidRequest && strings.HasPrefix(body.Message, "unknown tool "):
		return "Run rea tools to list the tools, and call one of them."
	case body.Code == core.CodeCapabilityUnavailable && command == "call":
		return "Run rea capabilities, or rea call --target FILE binary_session, to see which operations the target's engine offers." + tail(body.Remediation.Action)
	// Only the tool's own invalid arguments: open_binary's (a bad
	// --provider) are not described by rea tools TOOL.
	case body.Code == core.CodeInvalidRequest && command == "call" && tool != "" && strings.HasPrefix(body.Message, tool+": "):
		if _, ok := body.Details["issues"]; ok {
			return "Correct the arguments listed below; rea tools " + tool + " describes them."
		}
	}
	return rewriteRemediation(command, body.Remediation.Action)
}

// cliMessage rewrites the one argument core's messages name for a file
// that exists (overwrite:true) into the flag the subcommands take, so the
// message and its remediation give the same advice; rea call keeps it,
// since it takes the tool's own arguments.
func cliMessage(command, msg string) string {
	if command == "call" || !strings.Contains(msg, "overwrite") {
		return msg
	}
	return remediationRewrites()[0].re.ReplaceAllString(msg, remediationRewrites()[0].with)
}

func orTool(tool string) string {
	if tool == "" {
		return "TOOL"
	}
	return tool
}

// tail keeps what a remediation says beyond a first sentence about
// binary_session, which the CLI's own advice replaces; a remediation that
// names the engines offering the capability is kept whole, each engine's
// sentence with it.
func tail(s string) string {
	i := strings.Index(s, ". ")
	if i < 0 || !strings.Contains(s[:i], "binary_session") {
		if s == "" {
			return ""
		}
		return " " + rewriteRemediation("call", s)
	}
	if i+2 < len(s) {
		return " " + rewriteRemediation("call", s[i+2:])
	}
	return ""
}

// remediationRewrites are compiled on first use (a remediation to
// rewrite), not at every start-up.
var remediationRewrites = sync.OnceValue(func() []remediationRewrite {
	return []remediationRewrite{
		// First: cliMessage applies this one to messages as well.
		{regexp.MustCompile(`pass overwrite: ?true`), "pass --overwrite"},
		// The text output prints the issues under this line; details.issues
		// is where --format json has them.
		{regexp.MustCompile(`listed in details\.issues and call again`), "listed below and run the command again"},
		{regexp.MustCompile(`(?i)call open_binary with (a readable file path|the path of the file to analyze)( first)?`), "pass the file to analyze (rea call --target FILE, or the command's path)"},
		{regexp.MustCompile(`(?i)open (the binary to trace|a target) with open_binary first`), "pass the file with --target FILE"},
		{regexp.MustCompile(`with open_binary provider_id, CLI --provider or REA_ANALYSIS_PROVIDER`), "with --provider ID (or REA_ANALYSIS_PROVIDER)"},
		{regexp.MustCompile(`select an available provider with open_binary provider_id`), "select an available provider with --provider ID"},
		{regexp.MustCompile(`binary_session\.analysis_provider_candidates`), "rea providers"},
		{regexp.MustCompile(`binary_session\.tool_availability`), "rea capabilities"},
		{regexp.MustCompile(`(?i)export the (retained diagnostic|bundle) with export_evidence_bundle`), "write the Evidence to a bundle file with rea evidence-export FILE"},
		{regexp.MustCompile(`write them to a file with export_evidence_bundle`), "write them to a file with rea evidence-export FILE"},
		{regexp.MustCompile(`export_evidence_bundle \(rea evidence-export\)`), "rea evidence-export"},
		{regexp.MustCompile(`export the Evidence bundle to a file`), "write the Evidence to a bundle file with rea evidence-export FILE"},
		{regexp.MustCompile(`List the tools with tools/list \(or rea tools\)`), "List the operations with rea tools"},
		{regexp.MustCompile(`get_evidence_bundle \{\\?"detail\\?":\\?"summary\\?"\}`), "rea inspect-evidence-bundle '{\"path\":FILE,\"detail\":\"summary\"}'"},
		// A malformed binary: the error line above already says what
		// failed and where; the details are --format json's.
		{regexp.MustCompile(` \(details\.check says what failed, details\.offset and file_size where, when known\)`), " (the line above says what failed and where)"},
		{regexp.MustCompile(`inspect_artifact still reports`), "rea inventory FILE still reports"},
		// Each command opens and closes its target itself.
		{regexp.MustCompile(`close_binary, then open_binary the target again`), "run the command again"},
		{regexp.MustCompile(`choose another engine with provider_id`), "choose another engine with --provider ID"},
	}
})

type remediationRewrite struct {
	re   *regexp.Regexp
	with string
}

// argForm matches name:value and name: "value" as core writes tool
// arguments in prose (detail:"summary", analysis_timeout_ms, provider_id);
// a colon and a space before an unquoted word are prose ("that starts:
// the message says"), not an argument.
var argForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b([a-z][a-z0-9_]*):( ?"[^"]*"|[a-z0-9_.-]+)`)
})

func rewriteRemediation(command, s string) string {
	for _, r := range remediationRewrites() {
		s = r.re.ReplaceAllString(s, r.with)
	}
	if command == "call" || command == "" || command == "annotate" {
		return s // rea call and rea annotate's steps take the tool's own JSON arguments
	}
	// A subcommand takes flags: detail:"summary" becomes --detail summary,
	// and a bare argument name becomes its flag.
	s = argForm().ReplaceAllStringFunc(s, func(m string) string {
		sub := argForm().FindStringSubmatch(m)
		return "--" + strings.ReplaceAll(sub[1], "_", "-") + " " + strings.Trim(strings.TrimSpace(sub[2]), `"`)
	})
	for _, arg := range []string{"analysis_timeout_ms", "integrity_policy", "max_items", "max_depth", "max_paths"} {
		s = strings.ReplaceAll(s, "a larger "+arg, "a larger --"+strings.ReplaceAll(arg, "_", "-"))
	}
	return s
}

// toolCommands are the commands that run a tool, where a command of its
// own does and its name is not the tool's in kebab case.
var toolCommands = map[string]string{
	"export_evidence_bundle": "rea evidence-export FILE", "import_evidence_bundle": "rea evidence-import FILE",
	"inventory_artifact": "rea inventory PATH", "extract_artifact": "rea extract-artifact PATH",
	"trace_native_calls": "rea trace", "capture_process_scenario": "rea capture",
	"compare_binaries": "rea compare LEFT RIGHT", "compare_bundles": "rea compare LEFT RIGHT",
	"trace_application_feature": "rea trace-feature", "compare_application_versions": "rea compare-apps",
	"open_binary": "rea analyze FILE",
}

// snakeWord matches a tool or argument name as core writes it in prose.
var snakeWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`) })

// commandForms rewrites, in advice printed by a command other than rea
// call and rea evidence-export --call (which take the tools' names), each
// tool the advice names into what a CLI user runs: the tool's own command
// (rea capture-browser-scenario, rea evidence-export FILE), else, for rea
// annotate, the tool as a step of it (rea annotate FILE list_bookmarks),
// else rea call TOOL (with --target FILE when the tool needs a target);
// tool reports whether a name is a tool and whether it needs a target. The
// browser and runtime commands' endpoint argument is their ENDPOINT, and
// "call again" is "run the command again".
func commandForms(command, s string, tool func(name string) (needsTarget, ok bool)) string {
	switch command {
	case "", "call", "evidence-export":
		return s
	}
	re := snakeWord()
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		w, before := s[m[0]:m[1]], s[:m[0]]
		var with string
		switch target, isTool := tool(w); {
		case strings.HasSuffix(before, "rea call ") || strings.HasSuffix(before, "rea tools ") || strings.HasSuffix(before, "FILE "):
			continue // already a command line
		case toolCommands[w] != "":
			with = toolCommands[w]
		case isTool && command == "annotate":
			with = "rea annotate FILE " + w
		case isTool && slices.Contains(Commands, strings.ReplaceAll(w, "_", "-")):
			with = "rea " + strings.ReplaceAll(w, "_", "-")
		case isTool && target:
			with = "rea call --target FILE " + w
		case isTool:
			with = "rea call " + w
		case w == "cdp_endpoint" || w == "inspector_endpoint":
			with = "ENDPOINT"
		default:
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(with)
		last = m[1]
	}
	b.WriteString(s[last:])
	out := strings.ReplaceAll(b.String(), "Call rea ", "Run rea ")
	return strings.ReplaceAll(out, "call again", "run the command again")
}
