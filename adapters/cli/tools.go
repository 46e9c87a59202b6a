package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"rea/core"
)

type toolsCmd struct {
	Name string `arg:"" optional:"" help:"Print one operation's description, arguments (types, defaults) and example."`
}

func (c *toolsCmd) Run(e *env) error {
	ops := e.opts.Catalog.Operations()
	if c.Name != "" {
		op, ok := e.opts.Catalog.Lookup(c.Name)
		if !ok {
			return unknownTool(e, c.Name)
		}
		ops = []*core.Operation{op}
	}
	if e.g.Format == "json" {
		out := make([]map[string]any, len(ops))
		for i, op := range ops {
			out[i] = map[string]any{"name": op.Name, "title": op.Title, "kind": op.Kind, "description": op.Description,
				"effects": op.Effects, "annotations": op.Effects.Annotations(), "input_schema": e.opts.Catalog.AdvertisedInput(op),
				"output_schema": op.OutputSchema(), "complete_output_schema": op.CompleteOutputSchema(),
				"examples": op.Examples} // every declared example; tools/list advertises those within ExampleBudget
		}
		if c.Name != "" {
			return e.writeJSON(out[0])
		}
		return e.writeJSON(out)
	}
	if c.Name != "" {
		return writeToolHelp(e.opts.Stdout, ops[0], e.opts.Catalog.AdvertisedInput(ops[0]))
	}
	tw := tabwriter.NewWriter(e.opts.Stdout, 0, 4, 2, ' ', 0)
	for _, op := range ops {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", op.Name, op.Kind, op.Title)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.opts.Stdout, "\nrea tools NAME describes one; rea call NAME ARGS runs it.")
	return nil
}

// unknownTool is rea tools NAME for a name the catalog lacks, in the words
// rea call uses for it (this said "no operation named NAME").
func unknownTool(e *env, name string) error {
	msg := fmt.Sprintf("unknown tool %q", name)
	return &core.Error{Code: core.CodeInvalidRequest, Message: msg, Remediation: didYouMean(e.opts.Catalog, name) + "Run rea tools for the list.",
		Details: map[string]any{"operation": name}}
}

// didYouMean names the operations whose names hold name or are held in
// it ("Did you mean list_procedures? "), or nothing.
func didYouMean(cat *core.Catalog, name string) string {
	var near []string
	for _, op := range cat.Operations() {
		if name != "" && (strings.Contains(op.Name, name) || strings.Contains(name, op.Name)) {
			near = append(near, op.Name)
		}
	}
	if len(near) == 0 {
		return ""
	}
	return "Did you mean " + strings.Join(near, ", ") + "? "
}

// writeToolHelp prints what rea tools NAME shows: the description, each
// argument with its type, default and description, and an example call.
func writeToolHelp(w io.Writer, op *core.Operation, input json.RawMessage) error {
	var schema map[string]any
	if err := json.Unmarshal(input, &schema); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s (%s)\n\n", op.Name, op.Title, op.Kind)
	fmt.Fprintln(w, wrap(op.Description, 88, ""))
	req := map[string]bool{}
	for _, r := range arr(schema["required"]) {
		req[str(r)] = true
	}
	fmt.Fprintln(w, "\nArguments")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if len(obj(schema["properties"])) == 0 {
		fmt.Fprintln(tw, "  (none)")
	}
	defs := obj(schema["$defs"])
	writeProps(tw, defs, schema, req, "", 0)
	tw.Flush()
	if d := str(schema["description"]); d != "" && strings.Contains(d, "group") {
		fmt.Fprintf(w, "\n%s\n", wrap(d, 88, ""))
	}
	examples := op.Examples
	if len(examples) > 0 {
		fmt.Fprintln(w, "\nExample")
		ex := string(examples[0])
		fmt.Fprintf(w, "  rea call %s %s\n", op.Name, shellQuote(ex))
		if len(examples) > 1 {
			fmt.Fprintf(w, "  (%d more in rea --format json tools %s, under examples)\n", len(examples)-1, op.Name)
		}
	}
	var evArgs []string
	for k, p := range obj(schema["properties"]) {
		if t := schemaType(defs, obj(p)); strings.Contains(t, "retained reference") || strings.Contains(t, "inline Evidence") {
			evArgs = append(evArgs, k)
		}
	}
	if len(evArgs) > 0 {
		sort.Strings(evArgs)
		fmt.Fprintf(w, "\nEvidence arguments (%s) can come from a file: rea call %s '{...}' --evidence %s=@FILE (or @BUNDLE#ev_ID, or - for stdin)\n",
			strings.Join(evArgs, ", "), op.Name, evArgs[0])
	}
	if op.NeedsTarget {
		fmt.Fprintf(w, "\nNeeds an open target: rea call --target FILE %s ...\n", op.Name)
	}
	return nil
}

func writeProps(tw io.Writer, defs, schema map[string]any, req map[string]bool, prefix string, depth int) {
	props := obj(schema["properties"])
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	for _, k := range names {
		p := resolveRef(defs, obj(props[k]))
		name := prefix + k
		flag := ""
		if req[k] {
			flag = "required"
		}
		def := ""
		if d, ok := p["default"]; ok {
			b, _ := json.Marshal(d)
			def = "default " + string(b)
		} else if m := defaultInText().FindStringSubmatch(str(p["description"])); m != nil && obj(p["properties"]) == nil {
			// An object's fields have rows of their own with their
			// defaults; its description's "(default 0)" speaks of them.
			def = "default " + strings.TrimSpace(m[1])
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", name, schemaType(defs, p), flag, def, truncate(oneLine(str(p["description"]), 400), 100))
		if depth < 2 && obj(p["properties"]) != nil {
			sub := map[string]bool{}
			for _, r := range arr(p["required"]) {
				sub[str(r)] = true
			}
			writeProps(tw, defs, p, sub, name+".", depth+1)
		}
	}
}

var defaultInText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\(?\bdefaults? (?:is |to )?([^.;()]{1,40})[.;)]?`)
})

func resolveRef(defs, p map[string]any) map[string]any {
	for i := 0; i < 8; i++ {
		ref := str(p["$ref"])
		if ref == "" {
			return p
		}
		name := ref[strings.LastIndexByte(ref, '/')+1:]
		d := obj(defs[name])
		if d == nil {
			return p
		}
		merged := map[string]any{}
		for k, v := range d {
			merged[k] = v
		}
		for k, v := range p {
			if k != "$ref" {
				merged[k] = v
			}
		}
		p = merged
	}
	return p
}

// schemaType is a short type for one argument: string, integer 1-500,
// one of a|b|c, object, array of string, or the alternatives of a union.
func schemaType(defs, p map[string]any) string {
	p = resolveRef(defs, p)
	if c, ok := p["const"]; ok {
		b, _ := json.Marshal(c)
		return string(b)
	}
	if en := arr(p["enum"]); len(en) > 0 {
		parts := make([]string, len(en))
		for i, v := range en {
			if s, ok := v.(string); ok {
				parts[i] = s
			} else {
				b, _ := json.Marshal(v)
				parts[i] = string(b)
			}
		}
		return truncate(strings.Join(parts, "|"), 60)
	}
	for _, u := range []string{"anyOf", "oneOf"} {
		if alts := arr(p[u]); len(alts) > 0 {
			parts := []string{}
			seen := map[string]bool{}
			for _, a := range alts {
				t := schemaType(defs, obj(a))
				if d := str(obj(a)["description"]); strings.Contains(d, "retained") {
					t = "retained reference"
				} else if strings.Contains(d, "inline") || strings.Contains(d, "Inline") {
					t = "inline Evidence"
				}
				if !seen[t] {
					seen[t] = true
					parts = append(parts, t)
				}
			}
			return strings.Join(parts, " or ")
		}
	}
	var t string
	switch x := p["type"].(type) {
	case string:
		t = x
	case []any:
		parts := make([]string, len(x))
		for i, v := range x {
			parts[i] = str(v)
		}
		t = strings.Join(parts, "|")
	default:
		t = "any"
	}
	switch t {
	case "integer", "number":
		lo, hasLo := p["minimum"]
		hi, hasHi := p["maximum"]
		switch {
		case hasLo && hasHi:
			t += " " + plainNumber(lo) + "-" + plainNumber(hi)
		case hasLo:
			t += " >=" + plainNumber(lo)
		}
	case "array":
		if it := obj(p["items"]); it != nil {
			t = "array of " + schemaType(defs, it)
		}
	}
	return t
}

// plainNumber writes a schema bound in digits (%v printed 17179869184 as
// 1.7179869184e+10).
func plainNumber(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(s) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line)
	return b.String()
}
