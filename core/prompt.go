package core

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Prompt is an investigation recipe served as an MCP prompt: declared once
// here, projected by the front ends (adapters/mcp registers it with
// prompts/list and prompts/get). It is part of the catalog identity.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	Arguments   []PromptArgument `json:"arguments"`
	// text writes the user message from validated arguments.
	text func(args map[string]string) string
}

// PromptArgument is one argument of a prompt; every value is a string.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// PromptMessage is the one user message a prompt renders to.
type PromptMessage struct {
	Description string
	Text        string
}

// ErrPromptNotFound is what RenderPrompt returns for a name no prompt has.
var ErrPromptNotFound = errors.New("prompt not found")

// Prompts lists the prompts, sorted by name.
func Prompts() []Prompt {
	ps := []Prompt{
		{
			Name:        "triage_binary",
			Title:       "Triage a binary",
			Description: "Open a native executable or library and summarize what it is, what it imports and what stands out, citing Evidence.",
			Arguments: []PromptArgument{
				{Name: "path", Description: "Absolute path of the ELF, PE or Mach-O file.", Required: true},
				{Name: "focus", Description: "What to look for first (for example network code, licensing, crypto)."},
			},
			text: func(a map[string]string) string {
				var b strings.Builder
				fmt.Fprintf(&b, "Triage the binary at %s with rea.\n\n", a["path"])
				b.WriteString("1. Call binary_session, then open_binary with that path.\n")
				b.WriteString("2. Call binary_overview (detail: detailed) and inspect_binary_layout: format, architecture, entry point, segments, imports and exports.\n")
				b.WriteString("3. Page through search_strings for URLs, paths, version strings, error messages and key names; follow the interesting ones with find_code_for_string.\n")
				b.WriteString("4. For the two or three functions that matter most, call analyze_function and read the returned view.\n")
				if f := a["focus"]; f != "" {
					fmt.Fprintf(&b, "5. Focus on: %s.\n", f)
				}
				b.WriteString("\nReport what the binary is and does, cite the evidence_id of each finding, and list what stays unknown (record_unknown).")
				return b.String()
			},
		},
		{
			Name:        "find_code_for_string",
			Title:       "Find the code behind a string or UI label",
			Description: "Locate the code that uses a string (a message, a URL, a UI label) in a binary or a JavaScript application, and explain it.",
			Arguments: []PromptArgument{
				{Name: "path", Description: "Absolute path of the binary, application directory or .asar.", Required: true},
				{Name: "text", Description: "The string or UI label, as shown.", Required: true},
			},
			text: func(a map[string]string) string {
				return fmt.Sprintf("Find the code behind the text %q in %s with rea.\n\n"+
					"For a native binary: open_binary, then find_code_for_string with the text (try a shorter distinctive part if nothing matches), and for each user the returned procedure call analyze_function and trace_call_path from the entry point.\n"+
					"For a JavaScript or Electron application (a directory or .asar): analyze_javascript_application, then trace_application_feature or trace_feature with the text.\n\n"+
					"Explain what the code does when the string is used, cite each evidence_id, and say which matches were only partial.", a["text"], a["path"])
			},
		},
		{
			Name:        "map_electron_ipc",
			Title:       "Map an Electron app's IPC surface",
			Description: "List an Electron application's IPC channels, who sends and who handles each, and what the preload bridge exposes, without running it.",
			Arguments: []PromptArgument{
				{Name: "path", Description: "Absolute path of the application directory, its resources directory or app.asar.", Required: true},
			},
			text: func(a map[string]string) string {
				return fmt.Sprintf("Map the IPC surface of the Electron application at %s with rea, without running it.\n\n"+
					"1. inventory_artifact the path to see the archive's files and their integrity.\n"+
					"2. analyze_javascript_application (detail: complete) and read its processes, IPC edges and bridge exposures through inspect_analysis_view.\n"+
					"3. For every channel, name the sender (renderer, preload, main), the handler and its arguments; trace_javascript_semantics where a handler's behaviour matters.\n\n"+
					"Produce a table of channels with their evidence_id, and flag handlers that reach the file system, processes or the network.", a["path"])
			},
		},
		{
			Name:        "compare_versions",
			Title:       "Compare two versions",
			Description: "Compare two versions of a binary, archive or application and explain what changed.",
			Arguments: []PromptArgument{
				{Name: "old_path", Description: "Absolute path of the older version.", Required: true},
				{Name: "new_path", Description: "Absolute path of the newer version.", Required: true},
			},
			text: func(a map[string]string) string {
				return fmt.Sprintf("Compare %s (old) with %s (new) with rea.\n\n"+
					"Archives and directories: compare_artifacts. JavaScript or Electron applications: compare_application_versions and compare_javascript_export_shapes. "+
					"Native binaries: open each in turn (one target per connection), record binary_overview and the functions of interest, export an Evidence bundle for each with export_evidence_bundle, then compare_bundles.\n\n"+
					"Summarize what was added, removed and changed, most significant first, with the evidence_id of each claim.", a["old_path"], a["new_path"])
			},
		},
		{
			Name:        "export_evidence_bundle",
			Title:       "Export an evidence bundle",
			Description: "Write the Evidence this connection has recorded to a bundle file that can be verified and imported later.",
			Arguments: []PromptArgument{
				{Name: "destination", Description: "Absolute path of the bundle file to write.", Required: true},
			},
			text: func(a map[string]string) string {
				return fmt.Sprintf("Export the Evidence recorded on this connection to %s with rea.\n\n"+
					"1. get_evidence_bundle (detail: summary) to see what is retained; list_unknowns for what stays open.\n"+
					"2. export_evidence_bundle with destination %s (it never overwrites unless asked).\n"+
					"3. Report the bundle_digest and the number of records, and mention the unknowns that travel with it.", a["destination"], a["destination"])
			},
		},
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps
}

// RenderPrompt renders a prompt with its arguments. An unknown prompt is
// ErrPromptNotFound; a missing required or unknown argument is
// invalid_request.
func RenderPrompt(name string, args map[string]string) (*PromptMessage, error) {
	for _, p := range Prompts() {
		if p.Name != name {
			continue
		}
		var names []string
		var issues []Issue
		for _, a := range p.Arguments {
			names = append(names, a.Name)
			if a.Required && strings.TrimSpace(args[a.Name]) == "" {
				issues = append(issues, Issue{Path: []any{a.Name}, Reason: ReasonMissingArgument, Message: "argument " + a.Name + " is required"})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(args)) {
			if !slices.Contains(names, k) {
				is := Issue{Path: []any{k}, Reason: ReasonUnknownArgument, Message: "prompt " + name + " has no argument " + k}
				suggestName(&is, names) // as a tool's unknown argument gets
				issues = append(issues, is)
			}
		}
		if len(issues) > 0 {
			return nil, InvalidRequest("prompts/get", issues...)
		}
		return &PromptMessage{Description: p.Description, Text: p.text(args)}, nil
	}
	return nil, ErrPromptNotFound
}

// promptCatalog is the prompt part of the catalog identity.
func promptCatalog() []any {
	out := []any{}
	for _, p := range Prompts() {
		args := make([]any, len(p.Arguments))
		for i, a := range p.Arguments {
			args[i] = map[string]any{"name": a.Name, "description": a.Description, "required": a.Required}
		}
		out = append(out, map[string]any{"name": p.Name, "title": p.Title, "description": p.Description, "arguments": args})
	}
	return out
}
