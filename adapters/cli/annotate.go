package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"rea/core"
)

// rea annotate: the navigation and annotation tools on one target, in one
// session, with the annotations kept in an Evidence bundle file between
// invocations (imported first when it exists, written back after a change).

type annotateCmd struct {
	Path   string   `arg:"" help:"The binary to open." type:"path"`
	Steps  []string `arg:"" help:"Tool calls in order: TOOL, TOOL=JSON or TOOL JSON, e.g. 'set_comment={\"address\":\"main\",\"comment\":\"entry\"}' inspect_address_context='{\"address\":\"main\"}'."`
	Bundle string   `name:"bundle" placeholder:"FILE" type:"path" help:"Evidence bundle that keeps the annotations: imported before the steps when it exists, replaced after a step that changed an annotation."`
}

// annotationChanging lists the steps after which the bundle is written.
var annotationChanging = map[string]bool{"set_address_name": true, "set_addresses_names": true, "set_comment": true,
	"set_inline_comment": true, "set_bookmark": true, "unset_bookmark": true}

type annotateStep struct {
	tool string
	args json.RawMessage
}

// splitStep splits one step of rea annotate or --call of rea evidence-export
// into the tool and its JSON arguments ("{}" when there are none) at the
// first = or blank: TOOL, TOOL=JSON and TOOL JSON all work in both commands.
func splitStep(s string) (tool, args string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, "= \t")
	if i < 0 {
		return s, "{}"
	}
	if args = strings.TrimSpace(s[i+1:]); args == "" {
		args = "{}"
	}
	return s[:i], args
}

func parseAnnotateSteps(steps []string) ([]annotateStep, error) {
	out := make([]annotateStep, 0, len(steps))
	for i, s := range steps {
		tool, raw := splitStep(s)
		if tool == "open_binary" || tool == "close_binary" {
			return nil, usageError{fmt.Errorf("step %d: annotate opens and closes the target itself; %s is not a step", i+1, tool)}
		}
		if !json.Valid([]byte(raw)) {
			return nil, core.InvalidRequest(tool, core.Issue{Path: []any{}, Reason: core.ReasonInvalidType,
				Message: fmt.Sprintf("step %d: arguments are not one JSON value", i+1), Expected: "object"})
		}
		out = append(out, annotateStep{tool, json.RawMessage(raw)})
	}
	return out, nil
}

func (c *annotateCmd) Run(e *env) error {
	steps, err := parseAnnotateSteps(c.Steps)
	if err != nil {
		return err
	}
	bundle := c.Bundle
	if bundle != "" {
		if bundle, err = filepath.Abs(bundle); err != nil {
			return usageError{err}
		}
	}
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	if _, err := e.open(s, c.Path); err != nil {
		return err
	}
	if bundle != "" {
		if _, err := os.Lstat(bundle); err == nil {
			if _, err := e.call(s, "import_evidence_bundle", map[string]any{"path": bundle}); err != nil {
				return err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return usageError{fmt.Errorf("--bundle: %w", err)}
		}
	}
	var results []json.RawMessage
	changed := false
	save := func() error {
		if !changed || bundle == "" {
			return nil
		}
		_, err := e.call(s, "export_evidence_bundle", map[string]any{"path": bundle, "overwrite": true})
		return err
	}
	for _, st := range steps {
		res, err := e.call(s, st.tool, st.args)
		if err != nil {
			// The changes of the steps before stay: a failed step changed
			// nothing (the annotation tools refuse atomically).
			return errors.Join(err, save())
		}
		j, err := res.StructuredJSON()
		if err != nil {
			return errors.Join(err, save())
		}
		results = append(results, j)
		changed = changed || annotationChanging[st.tool]
	}
	if err := save(); err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(results)
	}
	tools := make([]string, len(steps))
	for i, st := range steps {
		tools[i] = st.tool
	}
	if err := renderSteps(e.opts.Stdout, tools, results); err != nil {
		return err
	}
	if changed && bundle != "" {
		fmt.Fprintf(e.opts.Stdout, "\nbundle: %s\n", bundle)
	}
	return nil
}

// renderSteps prints each step of rea annotate as text: the tool and its
// Evidence ID, then its result as rea call renders one (an outline, lists
// of records as tables); inspect_address_context as one line per facet.
func renderSteps(w io.Writer, tools []string, results []json.RawMessage) error {
	for i, j := range results {
		var rec struct {
			EvidenceID string          `json:"evidence_id"`
			Result     json.RawMessage `json:"normalized_result"`
			Session    json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(j, &rec); err != nil {
			return err
		}
		body := rec.Result
		if body == nil {
			body = rec.Session
		}
		v, err := decodeLoose(body)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		if rec.EvidenceID != "" {
			fmt.Fprintf(w, "%s (evidence %s)\n", tools[i], rec.EvidenceID)
		} else {
			fmt.Fprintf(w, "%s\n", tools[i])
		}
		m, _ := v.(map[string]any)
		if tools[i] == "inspect_address_context" && m != nil && m["facets"] != nil {
			addressContext(w, m, body)
			continue
		}
		outline(w, v, "  ")
	}
	return nil
}

// facetOrder is the order inspect_address_context lists its facets in.
var facetOrder = []string{"name", "procedure", "comment", "inline_comment", "bookmark", "source"}

// addressContext prints inspect_address_context's result: its scalars,
// then a line per facet with the facet's value whole (a comment is read,
// not cut), "-" when there is none, or why it is unavailable; the source
// facet as addr2line -f -i prints it (sourceLine). body is the result.
func addressContext(w io.Writer, m map[string]any, body json.RawMessage) {
	facets, _ := m["facets"].(map[string]any)
	rest := map[string]any{}
	for k, v := range m {
		if k != "facets" {
			rest[k] = v
		}
	}
	outline(w, rest, "  ")
	fmt.Fprintln(w, "  facets:")
	keys := slices.Clone(facetOrder)
	for _, k := range sortedKeys(facets) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, k := range keys {
		f, ok := facets[k].(map[string]any)
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "    %s\t%s\n", k, facetText(k, f, body))
	}
	tw.Flush()
}

// facetText is one facet of inspect_address_context as text.
func facetText(k string, f map[string]any, body json.RawMessage) string {
	if f["status"] != "available" {
		if r, ok := f["reason"].(string); ok {
			return "unavailable: " + r
		}
		return scalar(f["status"])
	}
	if k == "source" {
		return sourceLine(body)
	}
	switch v := f["value"].(type) {
	case nil:
		return "-"
	case string:
		if strings.ContainsAny(v, "\n\t\r") {
			return truncate(strconv.Quote(v), maxNote) // one line, as the tables show it
		}
		return truncate(v, maxNote)
	case map[string]any:
		switch k {
		case "name":
			if a, _ := v["analyst_name"].(string); a != "" {
				if e, _ := v["engine_name"].(string); e != "" && e != a {
					return fmt.Sprintf("%s (engine's name %s)", a, e)
				}
			}
			return scalar(v["name"])
		case "procedure":
			name := scalar(v["name"])
			if e, _ := v["engine_name"].(string); e != "" && e != v["name"] {
				name += fmt.Sprintf(" (engine's name %s)", e)
			}
			return fmt.Sprintf("%s %s-%s", name, scalar(v["start"]), scalar(v["end"]))
		case "bookmark":
			if n, _ := v["name"].(string); n != "" {
				return "bookmarked: " + n
			}
			return "bookmarked"
		}
	}
	return scalar(f["value"])
}

// sourceLine renders inspect_address_context's source facet as addr2line
// -f -i would, on one line ("lines.c:2 in clamp, inlined at lines.c:3 in
// scale, ..."), or its reason.
func sourceLine(body json.RawMessage) string {
	type frame struct {
		Function *string `json:"function"`
		CallFile *string `json:"call_file"`
		CallLine int     `json:"call_line"`
	}
	var r struct {
		Facets struct {
			Source struct {
				Status string  `json:"status"`
				Reason *string `json:"reason"`
				Value  *struct {
					File     string  `json:"file"`
					Line     int     `json:"line"`
					Function *string `json:"function"`
					Inlined  []frame `json:"inlined"`
				} `json:"value"`
			} `json:"source"`
		} `json:"facets"`
	}
	if json.Unmarshal(body, &r) != nil {
		return ""
	}
	src := r.Facets.Source
	switch {
	case src.Status == "unavailable" && src.Reason != nil:
		return "unavailable: " + *src.Reason
	case src.Status != "available":
		return ""
	case src.Value == nil:
		return "no line"
	}
	name := func(s *string) string {
		if s == nil {
			return "??"
		}
		return *s
	}
	v := src.Value
	fn := v.Function
	if len(v.Inlined) > 0 {
		fn = v.Inlined[0].Function
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d in %s", v.File, v.Line, name(fn))
	for i, c := range v.Inlined {
		caller := v.Function
		if i+1 < len(v.Inlined) {
			caller = v.Inlined[i+1].Function
		}
		fmt.Fprintf(&b, ", inlined at %s:%d in %s", name(c.CallFile), c.CallLine, name(caller))
	}
	return b.String()
}
