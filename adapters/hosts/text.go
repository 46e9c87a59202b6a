package hosts

import (
	"fmt"
	"io"
	"strings"
)

// Text forms for the command line. The JSON forms are the types
// themselves (encoding/json with their tags).

func (a Action) label() string {
	if a.ClientName == "" {
		return "agent skill"
	}
	return fmt.Sprintf("%s (%s)", a.ClientName, a.Scope)
}

// WriteText prints the plan, one action per line, and the client files
// that hold nothing of rea's (uninstall) together on the last:
//
//	create           Codex (user)         /home/u/.codex/config.toml  (backup: /home/u/.codex/config.toml.rea.backup)
func (p Plan) WriteText(w io.Writer) error {
	var b strings.Builder
	if len(p.Actions) == 0 {
		b.WriteString("no supported MCP client detected: install one (Claude Code, Codex, Cursor, Gemini CLI, ...) and start it once, or name it with --client, then run setup again\n")
	}
	var skipped []string
	for _, a := range p.Actions {
		if a.Kind == ActionSkip && a.ClientName != "" {
			skipped = append(skipped, a.label())
			continue
		}
		fmt.Fprintf(&b, "%-16s %-26s %s", a.Kind, a.label(), a.Path)
		if a.BackupPath != "" {
			fmt.Fprintf(&b, "  (backup: %s)", a.BackupPath)
		}
		b.WriteByte('\n')
		if a.Kind == ActionInvalid || a.Kind == ActionRetain {
			fmt.Fprintf(&b, "%-16s %s\n", "", a.Detail)
		}
	}
	if len(skipped) > 0 {
		// Uninstall visits every supported client: the files without
		// rea are one line (the JSON lists each).
		fmt.Fprintf(&b, "%-16s %d client files hold no rea entry: %s\n", ActionSkip, len(skipped), strings.Join(skipped, ", "))
	}
	if p.Blocked {
		b.WriteString("\nnothing will be changed until these are fixed:\n")
		for _, x := range p.Blockers {
			fmt.Fprintf(&b, "  %s\n", x)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText prints what was done, one outcome per line, and how many
// client files were skipped on the last.
func (r Result) WriteText(w io.Writer) error {
	var b strings.Builder
	skipped := 0
	for _, o := range r.Outcomes {
		if o.Status == OutcomeSkipped && o.Client != "" {
			skipped++
			continue
		}
		fmt.Fprintf(&b, "%-11s %-34s %s", o.Status, o.ID, o.Path)
		if o.BackupPath != "" {
			fmt.Fprintf(&b, "  (backup: %s)", o.BackupPath)
		}
		b.WriteByte('\n')
		if o.Status == OutcomeFailed {
			fmt.Fprintf(&b, "%-11s %s\n", "", o.Detail)
		}
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "%-11s %d client files held no rea entry\n", OutcomeSkipped, skipped)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteChecks prints doctor checks: "ok" or "FAIL", the name, the detail,
// and the remediation of a failing check.
func WriteChecks(w io.Writer, checks []Check) error {
	var b strings.Builder
	for _, c := range checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "%s  %-34s %s\n", mark, c.Name, c.Detail)
		if !c.OK && c.Remediation != "" {
			fmt.Fprintf(&b, "      %-34s -> %s\n", "", c.Remediation)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
