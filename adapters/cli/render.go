package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"rea/core"
)

// The text renderings of rea call and the workflow subcommands. A few
// result shapes have their own layout (assembly and pseudo code as text,
// call graphs as trees, string searches as hits, application comparisons
// and traces as tables and paths); every other result is printed as an
// outline: scalars as "key: value", lists of records as tables. --format
// json prints the record itself.

// maxRows bounds each table of the text rendering; --format json has all.
const maxRows = 200

func decodeLoose(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func renderResult(w io.Writer, tool string, res *core.Result) error {
	if res.Evidence == nil {
		b, err := core.MarshalNoEscape(res.Value)
		if err != nil {
			return err
		}
		v, err := decodeLoose(b)
		if err != nil {
			return err
		}
		outline(w, v, "")
		return nil
	}
	ev := res.Evidence
	v, err := decodeLoose(ev.NormalizedResult)
	if err != nil {
		return err
	}
	m, _ := v.(map[string]any)
	switch {
	case isString(v):
		io.WriteString(w, strings.TrimRight(v.(string), "\n")+"\n")
	case tool == "get_call_graph" || (m != nil && m["nodes"] != nil && m["edges"] != nil && m["direction"] != nil && m["depth"] != nil):
		callTree(w, m)
	case tool == "find_code_for_string":
		stringHits(w, m)
	case tool == "compare_application_versions":
		appComparison(w, m)
	case tool == "trace_application_feature":
		appTrace(w, m)
	default:
		outline(w, v, "")
	}
	evidenceFooter(w, ev)
	return nil
}

func evidenceFooter(w io.Writer, ev *core.Evidence) {
	fmt.Fprintf(w, "\nevidence %s (%s", ev.EvidenceID, ev.Operation)
	if ev.Provider.ID != "" {
		fmt.Fprintf(w, ", %s", ev.Provider.ID)
	}
	fmt.Fprintln(w, ")")
	for _, l := range ev.EvidenceLinks {
		fmt.Fprintf(w, "links    %s\n", l)
	}
	for _, l := range ev.Limitations {
		fmt.Fprintf(w, "limitation: %s\n", l)
	}
}

func isString(v any) bool { _, ok := v.(string); return ok }

// scalar formats a leaf value for a table cell or an outline line.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case string:
		if x == "" {
			return `""`
		}
		if strings.ContainsAny(x, "\n\t\r") || strings.TrimSpace(x) != x {
			return truncate(fmt.Sprintf("%q", x), 120)
		}
		return truncate(x, 120)
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case []any:
		if len(x) == 0 {
			return "-"
		}
		parts := make([]string, 0, len(x))
		for i, e := range x {
			if i == 12 {
				parts = append(parts, fmt.Sprintf("… %d more", len(x)-12))
				break
			}
			parts = append(parts, scalar(e))
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := sortedKeys(x)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+"="+scalar(x[k]))
		}
		return truncate(strings.Join(parts, " "), 120)
	}
	return fmt.Sprint(v)
}

func isLeaf(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if !isLeaf(e) || isCollection(e) {
				return false
			}
		}
		return len(x) <= 4
	case []any:
		n := 0
		for _, e := range x {
			if isCollection(e) {
				return false
			}
			n += len(scalar(e))
		}
		return n <= 100 // longer lists get a line per value
	}
	return true
}

func isCollection(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// leading keys come first in tables and outlines; the rest follow sorted.
var leading = []string{"status", "address", "name", "label", "kind", "path", "value", "start", "end", "length", "size", "node_kind", "left_label", "right_label", "procedure", "symbol", "operation"}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	rank := func(k string) int {
		for i, l := range leading {
			if l == k {
				return i
			}
		}
		return len(leading)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// outline prints v under indent: maps as key lines, lists of records as
// tables when every record is flat.
func outline(w io.Writer, v any, indent string) {
	switch x := v.(type) {
	case map[string]any:
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		var nested []string
		for _, k := range sortedKeys(x) {
			if isLeaf(x[k]) {
				fmt.Fprintf(tw, "%s%s:\t%s\n", indent, k, scalar(x[k]))
			} else {
				nested = append(nested, k)
			}
		}
		tw.Flush()
		for _, k := range nested {
			switch e := x[k].(type) {
			case []any:
				fmt.Fprintf(w, "%s%s (%d):\n", indent, k, len(e))
				if k == "limitations" && notes(w, e, indent+"  ") {
					continue
				}
			default:
				fmt.Fprintf(w, "%s%s:\n", indent, k)
			}
			outline(w, x[k], indent+"  ")
		}
	case []any:
		if table(w, x, indent) {
			return
		}
		for i, e := range x {
			if i == maxRows {
				fmt.Fprintf(w, "%s… %d more (--format json prints all)\n", indent, len(x)-maxRows)
				return
			}
			if isLeaf(e) {
				fmt.Fprintf(w, "%s- %s\n", indent, scalar(e))
				continue
			}
			fmt.Fprintf(w, "%s-\n", indent)
			outline(w, e, indent+"  ")
		}
	default:
		fmt.Fprintf(w, "%s%s\n", indent, scalar(v))
	}
}

// notes prints a list of limitations whole: they say what was not observed
// and how to get it (the advice often comes last), which a cell cut at 120
// characters loses. It reports false when the list is not all strings.
func notes(w io.Writer, l []any, indent string) bool {
	for _, e := range l {
		if !isString(e) {
			return false
		}
	}
	for _, e := range l {
		fmt.Fprintf(w, "%s- %s\n", indent, truncate(e.(string), maxNote))
	}
	return true
}

// maxNote bounds one limitation in text: far above any rea writes, it only
// stops a provider's runaway string.
const maxNote = 2000

// table prints a list of flat records as columns; it reports false when
// the list is not one.
func table(w io.Writer, rows []any, indent string) bool {
	if len(rows) == 0 {
		fmt.Fprintf(w, "%s(none)\n", indent)
		return true
	}
	cols := map[string]any{}
	for _, r := range rows {
		m, ok := r.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range m {
			if !isLeaf(v) {
				return false
			}
			cols[k] = true
		}
	}
	if len(cols) > 10 {
		return false
	}
	keys := sortedKeys(cols)
	// A column of small records (external=no thunk=no ...) is wide: after
	// the plain ones.
	compound := func(k string) bool {
		for _, r := range rows {
			if _, ok := r.(map[string]any)[k].(map[string]any); ok {
				return true
			}
		}
		return false
	}
	slices.SortStableFunc(keys, func(a, b string) int {
		ca, cb := compound(a), compound(b)
		switch {
		case ca == cb:
			return 0
		case cb:
			return -1
		}
		return 1
	})
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s%s\n", indent, strings.ToUpper(strings.Join(keys, "\t")))
	for i, r := range rows {
		if i == maxRows {
			fmt.Fprintf(tw, "%s… %d more (--format json prints all)\n", indent, len(rows)-maxRows)
			break
		}
		m := r.(map[string]any)
		cells := make([]string, len(keys))
		for j, k := range keys {
			cells[j] = scalar(m[k])
		}
		fmt.Fprintf(tw, "%s%s\n", indent, strings.Join(cells, "\t"))
	}
	tw.Flush()
	return true
}

// callTree prints get_call_graph's nodes and edges as an indented tree
// from each root; a procedure reached twice is printed once and then
// referred to.
func callTree(w io.Writer, m map[string]any) {
	nodes := map[string]map[string]any{}
	var roots []string
	for _, n := range arr(m["nodes"]) {
		nm := obj(n)
		a := str(nm["address"])
		nodes[a] = nm
		if fmt.Sprint(nm["depth"]) == "0" {
			roots = append(roots, a)
		}
	}
	out := map[string][]map[string]any{}
	for _, e := range arr(m["edges"]) {
		em := obj(e)
		from := str(em["from"])
		if str(m["direction"]) == "backward" {
			from = str(em["to"])
			em = map[string]any{"from": em["to"], "to": em["from"], "kind": em["kind"], "call_sites": em["call_sites"]}
		}
		out[from] = append(out[from], em)
	}
	label := func(a string) string {
		n := nodes[a]
		name := str(n["name"])
		if name == "" {
			name = "?"
		}
		s := a + " " + name
		if n["external"] == true {
			s += " [external]"
		}
		if n != nil && n["expanded"] == false {
			s += " [not expanded]"
		}
		return s
	}
	fmt.Fprintf(w, "call graph, %s, depth %v: %s, %s\n", str(m["direction"]), m["depth"], plural(len(nodes), "procedure"), plural(len(arr(m["edges"])), "call"))
	printed := map[string]bool{}
	var walk func(a, prefix string, depth int)
	walk = func(a, prefix string, depth int) {
		for i, e := range out[a] {
			to := str(e["to"])
			branch, next := "├─ ", "│  "
			if i == len(out[a])-1 {
				branch, next = "└─ ", "   "
			}
			kind := ""
			if k := str(e["kind"]); k != "" && k != "call" {
				kind = " (" + k + ")"
			}
			if printed[to] {
				fmt.Fprintf(w, "%s%s%s%s, see above\n", prefix, branch, label(to), kind)
				continue
			}
			printed[to] = true
			fmt.Fprintf(w, "%s%s%s%s at %s\n", prefix, branch, label(to), kind, scalar(e["call_sites"]))
			if depth < 64 {
				walk(to, prefix+next, depth+1)
			}
		}
	}
	for _, r := range roots {
		printed[r] = true
		fmt.Fprintln(w, label(r))
		walk(r, "", 0)
	}
	for _, k := range []string{"truncated", "truncation", "coverage"} {
		if v, ok := m[k]; ok && v != nil && v != false {
			fmt.Fprintf(w, "%s: %s\n", k, scalar(v))
		}
	}
}

// stringHits prints find_code_for_string: the matching strings, then the
// procedures ranked by how directly they use them.
func stringHits(w io.Writer, m map[string]any) {
	strs := arr(m["strings"])
	fmt.Fprintf(w, "strings matching %q: %d\n", str(m["query"]), len(strs))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, s := range strs {
		if i == maxRows {
			fmt.Fprintf(tw, "  … %d more\n", len(strs)-maxRows)
			break
		}
		sm := obj(obj(s)["string"])
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%q\n", str(sm["address"]), str(sm["section"]), str(sm["charset"]), truncate(str(sm["value"]), 80))
	}
	tw.Flush()
	procs := arr(m["procedures"])
	if len(procs) == 1 {
		fmt.Fprintln(w, "\ncode using them: 1 procedure")
	} else {
		fmt.Fprintf(w, "\ncode using them: %d procedures\n", len(procs))
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, p := range procs {
		if i == maxRows {
			fmt.Fprintf(tw, "  … %d more\n", len(procs)-maxRows)
			break
		}
		pm := obj(p)
		fmt.Fprintf(tw, "  %s\t%s\t%s\tat %s\n", str(pm["address"]), orName(pm["name"]), str(pm["reference"]), scalar(pm["sites"]))
	}
	tw.Flush()
	if m["truncated"] == true {
		fmt.Fprintln(w, "truncated: yes (--format json prints the record)")
	}
}

func orName(v any) string {
	if s := str(v); s != "" {
		return s
	}
	return "?"
}

// appComparison prints compare_application_versions as a table of the
// items that differ, each named by its label, then the counts.
func appComparison(w io.Writer, m map[string]any) {
	sum := obj(m["summary"])
	fmt.Fprintf(w, "application comparison: %v changed, %v added, %v removed, %v unknown, %s, %v unchanged\n",
		sum["changed"], sum["added"], sum["removed"], sum["unknown"], plural(num(sum["contradiction"]), "contradiction"), sum["unchanged"])
	items := arr(m["items"])
	order := map[string]int{"contradiction": 0, "changed": 1, "added": 2, "removed": 3, "unknown": 4, "unchanged": 5}
	sorted := append([]any(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := obj(sorted[i]), obj(sorted[j])
		if oa, ob := order[str(a["status"])], order[str(b["status"])]; oa != ob {
			return oa < ob
		}
		return itemLabel(a) < itemLabel(b)
	})
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSTATUS\tKIND\tITEM\tMATCHED BY\tCHANGED")
	shown := 0
	for _, it := range sorted {
		im := obj(it)
		if str(im["status"]) == "unchanged" {
			continue
		}
		if shown == maxRows {
			fmt.Fprintf(tw, "…\t\t%d more (--format json prints all)\n", len(items)-shown)
			break
		}
		shown++
		var changed []string
		for _, k := range sortedKeys(obj(im["dimensions"])) {
			if obj(im["dimensions"])[k] == "changed" {
				changed = append(changed, k)
			}
		}
		by := "-"
		if mt := obj(im["match"]); mt != nil {
			by = str(mt["strategy"])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", str(im["status"]), str(im["node_kind"]), truncate(itemLabel(im), 90), by, list(changed))
	}
	tw.Flush()
	if mt := obj(m["matching"]); mt != nil {
		fmt.Fprintf(w, "\nmatched by: %s\n", scalar(mt))
	}
	if cov := obj(m["coverage"]); cov != nil {
		fmt.Fprintf(w, "coverage: %s\n", scalar(cov))
	}
}

// itemLabel names a comparison item: "left → right" when the labels
// differ, else the one label, else the node IDs.
func itemLabel(im map[string]any) string {
	l, r := str(im["left_label"]), str(im["right_label"])
	switch {
	case l != "" && r != "" && l != r:
		return l + " → " + r
	case r != "":
		return r
	case l != "":
		return l
	}
	if id := str(im["right_node_id"]); id != "" {
		return id
	}
	return str(im["left_node_id"])
}

// num is a count in a decoded result (json.Number), 0 when it is not one.
func num(v any) int {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	case float64:
		return int(n)
	case int:
		return n
	}
	return 0
}

// appTrace prints trace_application_feature: the seed matches, then each
// path as its labelled steps.
func appTrace(w io.Writer, m map[string]any) {
	seed := obj(m["seed"])
	sum := obj(m["summary"])
	fmt.Fprintf(w, "trace of %s %q (%s, %s): %s, %s, %s\n", str(seed["kind"]), str(seed["value"]), str(seed["match"]),
		str(m["direction"]), plural(num(sum["seed_matches"]), "seed match"), plural(num(sum["paths"]), "path"), plural(num(sum["nodes_visited"]), "node"))
	for _, s := range arr(m["seed_matches"]) {
		sm := obj(s)
		fmt.Fprintf(w, "  seed  %s %s\n", str(sm["kind"]), nodeName(sm))
	}
	paths := arr(m["paths"])
	for i, p := range paths {
		if i == maxRows {
			fmt.Fprintf(w, "… %d more paths (--format json prints all)\n", len(paths)-maxRows)
			break
		}
		pm := obj(p)
		ids, labels, rels := arr(pm["node_ids"]), arr(pm["labels"]), arr(pm["relations"])
		infer := ""
		if pm["contains_inference"] == true {
			infer = ", inferred step"
		}
		fmt.Fprintf(w, "\npath %d → %s%s\n", i+1, str(pm["end_kind"]), infer)
		for j, id := range ids {
			name := str(id)
			if j < len(labels) && str(labels[j]) != "" {
				name = str(labels[j])
			}
			if j == 0 {
				fmt.Fprintf(w, "  %s\n", name)
				continue
			}
			rel := ""
			if j-1 < len(rels) {
				rel = str(rels[j-1]) + " "
			}
			fmt.Fprintf(w, "  %s└ %s%s\n", strings.Repeat("  ", j-1), rel, name)
		}
	}
	if hs := arr(m["native_handoffs"]); len(hs) > 0 {
		fmt.Fprintln(w, "\nnative handoffs")
		for _, h := range hs {
			hm := obj(h)
			fmt.Fprintf(w, "  %s %s %s\n", str(hm["addon"]), scalar(hm["export"]), str(hm["status"]))
		}
	}
	if cov := obj(m["coverage"]); cov != nil {
		fmt.Fprintf(w, "coverage: %s\n", scalar(cov))
	}
}

func nodeName(m map[string]any) string {
	if l := str(m["label"]); l != "" {
		return l
	}
	return str(m["node_id"])
}
