package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"rea/core"
)

// The evidence commands share core's projections with the MCP tools:
// inspect-evidence-bundle is get_evidence_bundle over a file, evidence-export
// and evidence-import run export_evidence_bundle and import_evidence_bundle
// in a fresh session, and compare runs compare_bundles.

type inspectBundleCmd struct {
	Arguments string `arg:"" help:"The bundle file's path, or JSON (inline, @FILE or - for stdin): {\"path\":...,\"detail\":\"summary\",\"filters\":{...}}; filters match exactly: evidence_id, operation, target_sha256, analysis_profile_digest, procedure_address."`
	Detail    string `enum:",summary,complete" default:"" help:"With a plain path: summary prints the records' identities; complete (the default) the whole bundle (described as text; --format json prints its canonical bytes)."`
}

func (c *inspectBundleCmd) Run(e *env) error {
	arg := c.Arguments
	// A plain path, as evidence-import and compare take one: not JSON, not
	// @FILE, not stdin.
	if t := strings.TrimSpace(arg); t != "" && t != "-" && !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "@") {
		m := map[string]any{"path": t}
		if c.Detail != "" {
			m["detail"] = c.Detail
		}
		b, _ := json.Marshal(m)
		arg = string(b)
	}
	raw, err := e.source().jsonArg("inspect-evidence-bundle", "arguments", arg)
	if err != nil {
		return err
	}
	args, err := absPathArg(string(raw), "path")
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(e.opts.Stdout, 256<<10)
	var canon *bytes.Buffer
	w := io.Writer(out)
	if e.g.Format != "json" { // the complete bundle is read here, then rendered
		canon = &bytes.Buffer{}
		w = canon
	}
	sum, err := e.opts.Catalog.InspectBundleFile(e.ctx, args, w)
	if err != nil {
		return err
	}
	if sum == nil && canon != nil {
		if err := writeBundleText(out, bundlePath(args), canon.Bytes()); err != nil {
			return err
		}
		return out.Flush()
	}
	if sum == nil { // complete: the canonical bundle was streamed
		fmt.Fprintln(out)
		return out.Flush()
	}
	if e.g.Format == "json" {
		return e.writeJSON(sum)
	}
	writeSummary(e.opts.Stdout, sum)
	return nil
}

// absPathArg makes a relative path argument absolute, so the CLI accepts
// what a shell user types while core keeps requiring absolute paths.
func absPathArg(raw, key string) (json.RawMessage, error) {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, core.InvalidRequest("inspect-evidence-bundle", core.Issue{Path: []any{}, Reason: core.ReasonInvalidType,
			Message: "arguments are not one JSON object", Expected: "object"})
	}
	if p, ok := m[key].(string); ok && p != "" && !filepath.IsAbs(p) {
		if abs, err := filepath.Abs(p); err == nil {
			m[key] = abs
		}
	}
	return json.Marshal(m)
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

type evidenceExportCmd struct {
	Output    string   `arg:"" help:"Destination bundle file." type:"path"`
	From      []string `sep:"none" help:"Bundle files to import first (validated; repeatable)." type:"path"`
	Target    string   `help:"Open this file with open_binary before the calls." type:"path"`
	Call      []string `sep:"none" help:"A call to record first, as 'TOOL', 'TOOL {json}', 'TOOL={json}' or 'TOOL @FILE' (repeatable, in order)."`
	Overwrite bool     `help:"Replace an existing regular file at OUTPUT."`
}

func (c *evidenceExportCmd) Run(e *env) error {
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	for _, f := range c.From {
		if _, err := e.call(s, "import_evidence_bundle", map[string]any{"path": abs(f)}); err != nil {
			return err
		}
	}
	if c.Target != "" {
		if _, err := e.open(s, c.Target); err != nil {
			return err
		}
	}
	for _, spec := range c.Call {
		tool, args := splitStep(spec)
		raw, err := e.source().jsonArg(tool, "--call arguments", args)
		if err != nil {
			return err
		}
		if _, err := e.call(s, tool, raw); err != nil {
			return err
		}
	}
	res, err := e.call(s, "export_evidence_bundle", map[string]any{"path": abs(c.Output), "overwrite": c.Overwrite})
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(res.Value)
	}
	r := res.Value.(*core.ExportResult)
	fmt.Fprintf(e.opts.Stdout, "wrote %s and %s (%d bytes) to %s\n", plural(r.Records, "record"), plural(r.Unknowns, "unknown revision"), r.Bytes, r.Path)
	return nil
}

type evidenceImportCmd struct {
	Path string `arg:"" help:"Bundle file to validate." type:"path"`
}

func (c *evidenceImportCmd) Run(e *env) error {
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	res, err := e.call(s, "import_evidence_bundle", map[string]any{"path": abs(c.Path)})
	if err != nil {
		return err
	}
	sum, err := e.call(s, "get_evidence_bundle", map[string]any{"detail": "summary"})
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(map[string]any{"import": res.Value, "summary": sum.Value})
	}
	r := res.Value.(*core.ImportResult)
	fmt.Fprintf(e.opts.Stdout, "%s: valid canonical bundle, %s, %s\n", abs(c.Path), plural(r.Total, "record"), plural(r.UnknownsAdded, "unknown"))
	writeSummary(e.opts.Stdout, sum.Value.(*core.BundleSummary))
	return nil
}

type compareCmd struct {
	Left     string `arg:"" help:"Left bundle file, or the older native binary." type:"path"`
	Right    string `arg:"" help:"Right bundle file, or the newer native binary." type:"path"`
	Complete bool   `help:"For two binaries: also list unchanged functions and every dimension in full (--format json)."`
}

func (c *compareCmd) Run(e *env) error {
	if ok, err := c.compareBinaries(e); ok {
		return err
	}
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	res, err := s.CompareBundleFiles(e.ctx, abs(c.Left), abs(c.Right))
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(res.Evidence)
	}
	var out struct {
		Counts     map[string]int `json:"counts"`
		Conclusion string         `json:"conclusion"`
		Reasons    []string       `json:"conclusion_reasons"`
		Added      []struct {
			EvidenceID string `json:"evidence_id"`
			Operation  string `json:"operation"`
		} `json:"added"`
		Removed []struct {
			EvidenceID string `json:"evidence_id"`
			Operation  string `json:"operation"`
		} `json:"removed"`
		Changed []struct {
			Left    struct{ Operation string } `json:"left"`
			Reasons []string                   `json:"reasons"`
		} `json:"changed"`
	}
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &out); err != nil {
		return err
	}
	w := e.opts.Stdout
	fmt.Fprintf(w, "%s: %d added, %d removed, %d changed, %d unchanged\n", out.Conclusion, out.Counts["added"], out.Counts["removed"], out.Counts["changed"], out.Counts["unchanged"])
	for _, r := range out.Reasons {
		fmt.Fprintf(w, "  note: %s\n", r)
	}
	for _, a := range out.Added {
		fmt.Fprintf(w, "  + %s %s\n", a.Operation, a.EvidenceID)
	}
	for _, r := range out.Removed {
		fmt.Fprintf(w, "  - %s %s\n", r.Operation, r.EvidenceID)
	}
	for _, ch := range out.Changed {
		fmt.Fprintf(w, "  ~ %s (%s)\n", ch.Left.Operation, strings.Join(ch.Reasons, ", "))
	}
	fmt.Fprintf(w, "evidence %s\n", res.Evidence.EvidenceID)
	return nil
}

func writeSummary(w io.Writer, s *core.BundleSummary) {
	fmt.Fprintf(w, "%d of %d records match; %s\n", s.MatchingRecords, s.TotalRetainedRecords, plural(s.UnknownRevisions, "unknown revision"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range s.Records {
		target := "-"
		if r.Subject != nil {
			target = r.Subject.Name + " " + r.Subject.Digest.SHA256[:12]
		}
		// The procedure is the last column, and only where there is one:
		// an empty last cell left the padding of the one before it at the
		// end of the line.
		proc := ""
		if d, ok := r.NativeDossier.(map[string]any); ok && d["available"] == true {
			proc = "\t" + fmt.Sprint(d["procedure_address"])
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s%s\n", r.EvidenceID, r.Operation, r.Provider.ID, target, proc)
	}
	tw.Flush()
}

// plural counts n of a noun: "1 record", "2 records", "0 records", "2
// seed matches".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	for _, end := range []string{"s", "x", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			return fmt.Sprintf("%d %ses", n, noun)
		}
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// counted counts n with the singular or plural given: "1 entry", "2 entries".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
