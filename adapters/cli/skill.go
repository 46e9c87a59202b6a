package cli

import (
	"fmt"
	"sort"
	"strings"

	"rea/core"
)

// skillDescription is the skill's one-line description (its front matter).
const skillDescription = "Reverse engineer binaries, archives and JavaScript or Electron apps with rea's MCP tools: open a target, list and search what it holds, follow code and data, and keep every finding as content-addressed Evidence."

// kindTitles names the tool groups in the skill, in the order shown.
var kindTitles = []struct {
	kind  core.Kind
	title string
}{
	{core.KindSession, "Session and Evidence"},
	{core.KindOfficialProxy, "Provider primitives (need an open target)"},
	{core.KindEnhanced, "Workflows over the primitives"},
	{core.KindNativeProvider, "Native code"},
	{core.KindArtifactProvider, "Archives and directories"},
	{core.KindApplication, "JavaScript and Electron applications"},
}

// SkillFor is the agent skill of this build: version, tool count and
// catalog digest in its metadata, and a guide generated from the catalog.
func SkillFor(cat *core.Catalog, version string) Skill {
	ops := cat.Operations()
	byKind := map[core.Kind][]*core.Operation{}
	for _, op := range ops {
		byKind[op.Kind] = append(byKind[op.Kind], op)
	}
	var b strings.Builder
	b.WriteString("# rea\n\n")
	b.WriteString("rea is an MCP server (`rea serve`) for static reverse engineering. Every result is an Evidence record whose `evidence_id` is the digest of what was observed, so findings can be cited, compared and exported.\n\n")
	b.WriteString("## Workflow\n\n")
	b.WriteString("1. Call `binary_session` first: it names the server's version and catalog digest, the providers, and which tools are available now.\n")
	b.WriteString("2. Open a native file with `open_binary` (ELF, PE, Mach-O); one target per connection. Archives, directories and apps need no open target: pass their path to the artifact or application tools.\n")
	b.WriteString("3. Start broad (`binary_overview`, `inventory_artifact`, `analyze_javascript_application`), then narrow with the search and code tools. Pages are bounded: follow `next_offset` or `cursor` rather than asking for everything.\n")
	b.WriteString("4. Cite `evidence_id`s in your answer. Pass retained records to later tools as `{\"kind\":\"retained-evidence\",\"evidence_id\":\"ev_...\"}` instead of copying them, and read them back through the `rea://evidence/{evidence_id}` resource.\n")
	b.WriteString("5. Finish with `export_evidence_bundle` when the user wants the findings kept; `close_binary` releases the target.\n")
	b.WriteString("6. An error is one JSON envelope with `code`, `retryable` and `remediation`: follow the remediation instead of retrying blindly.\n\n")
	b.WriteString("The server's prompts (`prompts/list`) are ready-made investigation recipes: triage a binary, find the code behind a string, map an Electron app's IPC, compare two versions, export an evidence bundle.\n\n")
	fmt.Fprintf(&b, "## Tools (%d)\n", len(ops))
	seen := map[core.Kind]bool{}
	section := func(title string, list []*core.Operation) {
		if len(list) == 0 {
			return
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		fmt.Fprintf(&b, "\n### %s\n\n", title)
		for _, op := range list {
			fmt.Fprintf(&b, "- `%s`: %s\n", op.Name, op.Title)
		}
	}
	for _, k := range kindTitles {
		seen[k.kind] = true
		section(k.title, byKind[k.kind])
	}
	var rest []*core.Operation
	for k, list := range byKind {
		if !seen[k] {
			rest = append(rest, list...)
		}
	}
	section("Other tools", rest)
	return Skill{Description: skillDescription, Version: version, ToolCount: len(ops),
		CatalogDigest: cat.Identity().Combined, Body: b.String()}
}
