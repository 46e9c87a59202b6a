package jsapp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"

	"rea/core"
)

const retainedExample = `{"kind":"retained-evidence","evidence_id":"ev_0000000000000000000000000000000000000000000000000000000000000000"}`

func opTraceApplicationFeature() *core.Operation {
	return &core.Operation{
		Name:  "trace_application_feature",
		Title: "Trace Application Feature",
		Description: "Trace one feature through a JavaScript application graph (analyze_javascript_application Evidence, inline or retained): " +
			"seed by module path, string literal (or a computed storage key's expression, or a system API: shell.openExternal), route (URL or page), context-bridge api, IPC channel or native export, then follow edges " +
			"outgoing, incoming or both within bounded depth. Paths list their node and edge IDs with a human label per node (file, module, " +
			"original source, channel; its kind too where two read alike), the relation and location (path, offset, line, column, else unknown_reason) per step, end kind, authorities and whether any step is inferred. " +
			"coverage.cut_by names each limit that cut the trace and what it left out; a seed that matches nothing gets suggestions, seeds that match.",
		Kind:    core.KindApplication,
		Effects: jsappEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["application","seed"],
 "properties":{
  "application":` + jsappEvidenceInput + `,
  "seed":{"type":"object","additionalProperties":false,"required":["kind","value"],"properties":{
   "kind":{"enum":["module","string","route","api","ipc-channel","native-export"]},
   "value":{"type":"string","minLength":1,"maxLength":4096},
   "match":{"enum":["exact","prefix","substring"],"description":"Default exact."},
   "case_sensitive":{"type":"boolean","description":"Default true."}}},
  "direction":{"enum":["outgoing","incoming","both"],"description":"Default both."},
  "limits":{"type":"object","additionalProperties":false,"properties":{
   "max_depth":{"type":"integer","minimum":1,"maximum":32,"description":"Steps from a seed at most; default 8."},
   "max_paths":{"type":"integer","minimum":1,"maximum":1000,"description":"Paths returned at most; default 20."},
   "max_nodes":{"type":"integer","minimum":1,"maximum":20000,"description":"Nodes visited (and returned in graph) at most; default 200."}}},
  "native_observations":{"type":"array","maxItems":64,"items":{"type":"object"},"description":"Native analysis Evidence (inline) for the add-ons the trace reaches."}
 }}`),
		Result: genericResult("trace_id", "source_graph_id", "seed_matches", "paths", "graph", "native_handoffs", "summary", "coverage"),
		Examples: []json.RawMessage{
			json.RawMessage(`{"application":` + retainedExample + `,"seed":{"kind":"module","value":"search.js","match":"exact"}}`),
			json.RawMessage(`{"application":` + retainedExample + `,"seed":{"kind":"ipc-channel","value":"dialog:open"},"direction":"both","limits":{"max_depth":6}}`)},
		Handler: handleTraceFeature,
	}
}

type traceLimits struct{ depth, paths, nodes int }

func limitsArg(m *TraceApplicationFeatureInputLimits) traceLimits {
	// Concise by default: the graph holds every node visited, about 700
	// bytes each; a caller raises the limits coverage names.
	l := traceLimits{depth: 8, paths: 20, nodes: 200}
	if m != nil {
		l.depth = cmp.Or(m.MaxDepth, l.depth)
		l.paths = cmp.Or(m.MaxPaths, l.paths)
		l.nodes = cmp.Or(m.MaxNodes, l.nodes)
	}
	return l
}

func textMatcher(value, match string, cs bool) func(string) bool {
	norm := func(s string) string { return s }
	if !cs {
		norm = strings.ToLower
	}
	v := norm(value)
	switch match {
	case "prefix":
		return func(s string) bool { return strings.HasPrefix(norm(s), v) }
	case "substring":
		return func(s string) bool { return strings.Contains(norm(s), v) }
	}
	return func(s string) bool { return norm(s) == v }
}

// seedNodes finds the nodes a seed names.
func seedNodes(ix *appIndex, kind string, match func(string) bool) []string {
	set := map[string]bool{}
	for _, n := range ix.res.Graph.Nodes {
		seedTexts(n, kind, func(s string) {
			if match(s) {
				set[n.NodeID] = true
			}
		})
	}
	if kind == "string" {
		for _, s := range ix.res.StringIndex {
			if match(s.Value) {
				set[s.NodeID] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		if ix.nodes[id] != nil {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// seedTexts calls f with each text by which a seed of kind names node n
// (none empty); the application's string index names more nodes to a
// string seed.
func seedTexts(n *Node, kind string, f func(string)) {
	g := func(ss ...string) {
		for _, s := range ss {
			if s != "" {
				f(s)
			}
		}
	}
	// A file by its path or its name.
	file := func(prop string) {
		p := n.propString(prop)
		g(p, pathBase(p))
	}
	switch kind {
	case "module":
		switch n.Kind {
		case "javascript-asset":
			file("path")
		case "javascript-module":
			g(n.propString("module_id"))
		case "source-module":
			file("original_source")
		}
	case "route":
		switch n.Kind {
		case "endpoint", "target":
			g(n.propString("url"))
		case "electron-renderer":
			file("path")
		}
	case "api":
		if n.Kind == "context-bridge-api" {
			key := n.propString("world_key")
			g(key)
			if ms, ok := n.prop("members").([]any); ok {
				for _, m := range ms {
					s, _ := m.(string)
					g(key+"."+s, s)
				}
			}
		}
	case "ipc-channel":
		if n.Kind == "ipc-channel" {
			g(n.propString("channel"))
		}
	case "native-export":
		switch n.Kind {
		case "native-export":
			g(n.propString("export"))
		case "native-addon":
			file("path")
		}
	case "string":
		for _, k := range []string{"url", "channel", "key", "world_key", "expression"} {
			g(n.propString(k))
		}
		// A system API by its name or its call as written
		// (shell.openExternal, shell.openExternal(url)).
		if n.Kind == "system-api" {
			g(n.propString("api"), n.label())
		}
	}
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

type step struct {
	node string
	edge string
	way  way // the way the step took edge
	prev int
	dep  int
	// again: the step reaches a node an earlier step reached from the
	// same node, through another persists_to edge (another call on the
	// same storage key); it ends its path and is no node of its own.
	again bool
}

func edgeAuthority(e *Edge) string {
	if e.Evidence.Confidence == core.ConfidenceInferred {
		return "analyst-inference"
	}
	return core.AuthorityShippedArtifact
}

func handleTraceFeature(ctx context.Context, c *core.Call) (any, error) {
	ev, err := jsappEvidenceArg(c, "application", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	ix, err := indexApp(ev)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in, err := core.Input[TraceApplicationFeatureInput](c)
	if err != nil {
		return nil, err
	}
	kind, value, match := in.Seed.Kind, in.Seed.Value, cmp.Or(in.Seed.Match, "exact")
	cs := true
	if in.Seed.CaseSensitive != nil {
		cs = *in.Seed.CaseSensitive
	}
	dir := cmp.Or(in.Direction, "both")
	d := dirOf(dir)
	lim := limitsArg(in.Limits)
	seeds := seedNodes(ix, kind, textMatcher(value, match, cs))
	matched := len(seeds)
	walk := newTraceWalk(ix, d, lim, seeds)
	if err := walk.run(ctx); err != nil {
		return nil, err
	}
	steps, seen, edgesSeen, edgeByID := walk.steps, walk.seen, walk.edgesSeen, walk.edgeByID
	seeds = seeds[:min(len(seeds), lim.nodes)]
	ids := append([]string{}, seeds...)
	for _, s := range steps {
		ids = append(ids, s.node)
	}
	labelOf := traceLabels(ix, ids)
	node := func(id string) TraceNode {
		return TraceNode{NodeID: id, Kind: ix.nodes[id].Kind, Label: labelOf[id]}
	}
	// Paths end at leaves of the traversal tree.
	hasChild := make([]bool, len(steps))
	for _, s := range steps {
		if s.prev >= 0 {
			hasChild[s.prev] = true
		}
	}
	var paths []map[string]any
	endKinds := map[string]int{}
	pathsLeft := 0
	for i := range steps {
		if hasChild[i] || steps[i].prev < 0 {
			continue
		}
		if len(paths) >= lim.paths {
			pathsLeft++
			continue
		}
		var nodes, edges, labels, relations []string
		var locations []map[string]any
		auth := map[string]bool{}
		inference := false
		for j := i; j >= 0; j = steps[j].prev {
			nodes = append(nodes, steps[j].node)
			label := labelOf[steps[j].node]
			if steps[j].edge != "" {
				edges = append(edges, steps[j].edge)
				e := edgeByID[steps[j].edge]
				if l := dynamicStorageStep(ix.nodes[steps[j].node], e); l != "" {
					label = l
				}
				relations = append(relations, relationFrom(e, steps[steps[j].prev].node))
				locations = append(locations, stepLocation(e))
				auth[edgeAuthority(e)] = true
				if e.Evidence.Confidence == core.ConfidenceInferred {
					inference = true
				}
			}
			labels = append(labels, label)
		}
		reverse(nodes)
		reverse(edges)
		reverse(labels)
		reverse(relations)
		reverse(locations)
		end := ix.nodes[nodes[len(nodes)-1]].Kind
		endKinds[end]++
		p := map[string]any{"node_ids": nodes, "edge_ids": edges, "end_kind": end, "authorities": jaKeys(auth), "contains_inference": inference,
			"labels": labels, "relations": jaStrList(relations), "locations": append([]map[string]any{}, locations...)}
		p["path_id"] = core.MustDigest(map[string]any{"node_ids": nodes, "edge_ids": edges})
		paths = append(paths, p)
	}
	matches := make([]TraceNode, 0, len(seeds))
	for _, s := range seeds {
		matches = append(matches, node(s))
	}
	var gnodes []TraceNode
	for _, s := range steps {
		if !s.again {
			gnodes = append(gnodes, node(s.node))
		}
	}
	var gedges []map[string]any
	for _, id := range jaKeys(edgesSeen) {
		e := edgeByID[id]
		if seen[e.SourceNodeID] && seen[e.TargetNodeID] {
			gedges = append(gedges, map[string]any{"edge_id": e.EdgeID, "source_node_id": e.SourceNodeID, "target_node_id": e.TargetNodeID, "relation": e.Relation})
		}
	}
	sort.Slice(gnodes, func(i, j int) bool { return gnodes[i].NodeID < gnodes[j].NodeID })
	handoffs := nativeHandoffs(in.NativeObservations, ix, seen)
	var graph *TraceGraph
	if len(gnodes) > 0 {
		graph = &TraceGraph{Nodes: gnodes, Edges: jaMaps(gedges)}
	}
	cuts := walk.cuts(pathsLeft)
	cov := TraceCoverage{Status: "complete", Limits: TraceLimits{MaxDepth: lim.depth, MaxPaths: lim.paths, MaxNodes: lim.nodes}, CutBy: cuts}
	if len(cuts) > 0 {
		cov.Status, cov.Truncated = "partial", true
	}
	if len(seeds) == 0 {
		cov.Status = "empty"
	}
	res := &TraceApplicationFeatureResult{SourceGraphID: ix.res.Graph.GraphID, Seed: TraceSeed{Kind: kind, Value: value, Match: match, CaseSensitive: cs},
		Direction: dir, SeedMatches: matches, Paths: jaMaps(paths), Graph: graph, NativeHandoffs: handoffs,
		Summary:  TraceSummary{SeedMatches: matched, Paths: len(paths), NodesVisited: len(gnodes), EdgesVisited: len(gedges), EndKinds: endKinds},
		Coverage: cov}
	if len(seeds) == 0 {
		res.Suggestions = suggestSeeds(ix, res.Seed)
	}
	res.TraceID = "jatr_" + digestWithout(res, "trace_id")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var lims []string
	if len(seeds) == 0 {
		lims = append(lims, suggestionNote(res.Suggestions))
	}
	if l := stoppedBy(cuts); l != "" {
		lims = append(lims, l)
	}
	lims = append(lims, unresolvedHandlerNotes(ix, seen)...) // gap_handlers.go
	return &core.Observation{Result: res, Unbound: true, Subject: subjectOf(ev), Confidence: core.ConfidenceDerived, Links: []core.EvidenceID{ev.EvidenceID}, Limitations: lims}, nil
}

// subjectOf is a trace's subject: the application its analysis Evidence
// is about, as a view of that Evidence has it; nil (no single artifact)
// when the analysis has none.
func subjectOf(ev *core.Evidence) *core.Subject {
	if ev.Subject == nil {
		return nil
	}
	s := *ev.Subject
	return &s
}

// traceNode is a node of a trace: its ID, kind and human label.
func traceNode(ix *appIndex, n *Node) TraceNode {
	return TraceNode{NodeID: n.NodeID, Kind: n.Kind, Label: humanLabel(ix, n)}
}

// stepLocation is where a path step's edge was seen, as the other
// JavaScript tools place code: the file, its byte offset and the offset's
// line (1-based) and column (0-based, UTF-16 units). Where the graph has
// no line (an edge from package metadata or a source map's list of
// sources, a call no token places), those are null and unknown_reason
// says why.
func stepLocation(e *Edge) map[string]any {
	loc := map[string]any{"path": nil, "offset": nil, "line": nil, "column": nil}
	if len(e.Evidence.Locations) == 0 {
		loc["unknown_reason"] = "the graph records no place for this " + e.Relation + " edge"
		return loc
	}
	l := e.Evidence.Locations[0]
	loc["path"] = l.Path
	if l.Offset != nil {
		loc["offset"] = *l.Offset
	}
	if l.Line > 0 {
		loc["line"], loc["column"] = l.Line, l.Column
		return loc
	}
	switch {
	case e.Evidence.Basis == "package-metadata":
		why := "declared by package metadata"
		if f, _ := e.Properties["field"].(string); f != "" {
			why += " (the " + f + " field)"
		}
		loc["unknown_reason"] = why + ", not by a statement"
	case e.Relation == "contains":
		loc["unknown_reason"] = "the file holds it (a source map's sources, an archive's entries): no statement places it"
	case e.Evidence.Basis == "source-map":
		loc["unknown_reason"] = "read from a source map, which records no position for it"
	case l.Offset != nil:
		loc["unknown_reason"] = "the line and column of this offset were not kept"
	default:
		loc["unknown_reason"] = "no literal or call position places it in the source"
	}
	return loc
}

// relationFrom names a path step's edge as read from the step before it:
// the relation when the path follows the edge, "relation by" (imports by,
// loads by) when it walks the edge backwards.
func relationFrom(e *Edge, prev string) string {
	if e.SourceNodeID == prev {
		return e.Relation
	}
	return e.Relation + " by"
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// nativeHandoffs lists the native exports and add-ons the trace reached,
// with the native Evidence supplied for them, if any.
func nativeHandoffs(list []json.RawMessage, ix *appIndex, seen map[string]bool) []map[string]any {
	var supplied []map[string]any
	{
		for _, b := range list {
			if ev, err := core.ParseEvidence(b); err == nil {
				name := ""
				if ev.Subject != nil {
					name = ev.Subject.Name
				}
				supplied = append(supplied, map[string]any{"evidence_id": string(ev.EvidenceID), "name": name})
			}
		}
	}
	out := []map[string]any{}
	for _, id := range jaKeys(seen) {
		n := ix.nodes[id]
		if n.Kind != "native-export" && n.Kind != "native-addon" {
			continue
		}
		addon := n.propString("addon")
		if addon == "" {
			addon = n.propString("path")
		}
		h := map[string]any{"node_id": id, "kind": n.Kind, "addon": addon, "export": core.OrNull(n.propString("export")), "native_evidence_id": nil, "status": "unobserved"}
		for _, s := range supplied {
			if s["name"] == pathBase(addon) {
				h["native_evidence_id"], h["status"] = s["evidence_id"], "observed"
			}
		}
		out = append(out, h)
	}
	return out
}

func opTraceJSSemantics() *core.Operation {
	return &core.Operation{
		Name:  "trace_javascript_semantics",
		Title: "Trace JavaScript Semantics",
		Description: "Query the semantic relations of an analyzed application (inline or retained analyze_javascript_application Evidence): " +
			"for an exported symbol, its definitions (exports; a re-export names the one it passes on as definition, and takes its value) and references (imports naming it); for a module path or specifier, " +
			"who imports it and what it imports. Unresolved frontiers (computed specifiers) on the involved modules are listed.",
		Kind:    core.KindApplication,
		Effects: jsappEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["application","query"],
 "properties":{
  "application":` + jsappEvidenceInput + `,
  "query":{"type":"object","additionalProperties":false,"required":["kind","value"],"properties":{
   "kind":{"enum":["symbol","module","specifier"]},"value":{"type":"string","minLength":1,"maxLength":4096},
   "match":{"enum":["exact","prefix","substring"]}}},
  "limits":{"type":"object","additionalProperties":false,"properties":{"max_results":{"type":"integer","minimum":1,"maximum":10000,"description":"Definitions and references returned at most, together; default 100. coverage.truncated says when it cut them."}}}
 }}`),
		Result: genericResult("query", "source_graph_id", "semantic_graph_id", "definitions", "references", "unknown_frontiers", "summary", "coverage"),
		Examples: []json.RawMessage{json.RawMessage(`{"application":` + retainedExample + `,"query":{"kind":"symbol","value":"search"}}`),
			json.RawMessage(`{"application":` + retainedExample + `,"query":{"kind":"module","value":"src/search.js"}}`)},
		Handler: handleTraceSemantics,
	}
}

func handleTraceSemantics(ctx context.Context, c *core.Call) (any, error) {
	ev, err := jsappEvidenceArg(c, "application", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	ix, err := indexApp(ev)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[TraceJavascriptSemanticsInput](c)
	if err != nil {
		return nil, err
	}
	kind, value, match := in.Query.Kind, in.Query.Value, cmp.Or(in.Query.Match, "exact")
	maxResults := 100
	if in.Limits != nil {
		maxResults = cmp.Or(in.Limits.MaxResults, maxResults)
	}
	m := textMatcher(value, match, true)
	defs, refs := []map[string]any{}, []map[string]any{}
	involved := map[string]bool{}
	modules := map[string]bool{}
	if kind == "module" {
		for _, n := range ix.res.Graph.Nodes {
			if n.Kind == "javascript-asset" && (m(n.propString("path")) || m(pathBase(n.propString("path")))) {
				modules[n.NodeID] = true
			}
		}
	}
	omitted := 0
	var reexports *reexportIndex
	decorate := func(r map[string]any) map[string]any {
		// Each result names its modules by path as well as by node.
		out := maps.Clone(r)
		for _, side := range []string{"source", "target"} {
			if id, ok := r[side+"_node_id"].(string); ok && ix.nodes[id] != nil {
				if p := ix.nodes[id].propString("path"); p != "" {
					out[side+"_path"] = p
				}
			}
		}
		if isNull(r["offset"]) {
			out["unknown_reason"] = unlocatedReason(r)
		}
		// The original source by its path, as the source-module node
		// names it.
		if id, ok := r["original_node_id"].(string); ok && ix.nodes[id] != nil {
			out["original_source"] = ix.nodes[id].propString("original_source")
		}
		return out
	}
	add := func(list *[]map[string]any, r map[string]any) {
		// A match left out still involves its module: its frontiers are
		// listed whatever max_results cut.
		if s, ok := r["source_node_id"].(string); ok {
			involved[s] = true
		}
		if len(defs)+len(refs) >= maxResults {
			omitted++
			return
		}
		out := decorate(r)
		// A re-export (export {a as b} from "./x", or an imported a
		// exported as b) is where this file passes the name on; the
		// definition is the exports relation of the module it comes from.
		if spec, _ := r["specifier"].(string); r["relation"] == "exports" && spec != "" {
			if reexports == nil {
				reexports = newReexportIndex(ix.res.Semantic.Relations)
			}
			out["definition"] = nil
			// The module the specifier resolves to, as an import of it
			// names it.
			if tgt := reexports.module(r); tgt != "" && isNull(r["target_node_id"]) && ix.nodes[tgt] != nil {
				out["target_node_id"] = tgt
				if p := ix.nodes[tgt].propString("path"); p != "" {
					out["target_path"] = p
				}
			}
			if d, why := reexports.definition(r); d != nil {
				out["definition"] = decorate(d)
				// The file passes on the definition's value: its kind is
				// the definition's, which the re-export's own row cannot
				// know.
				if v, _ := r["value"].(map[string]any); v == nil || v["kind"] == "unknown" {
					if dv, ok := d["value"].(map[string]any); ok && dv["kind"] != "unknown" {
						out["value"], out["value_from"] = dv, "definition"
					}
				}
			} else {
				out["definition_unknown_reason"] = why
			}
		}
		*list = append(*list, out)
	}
	for i, r := range ix.res.Semantic.Relations {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rel, _ := r["relation"].(string)
		src, _ := r["source_node_id"].(string)
		tgt, _ := r["target_node_id"].(string)
		spec, _ := r["specifier"].(string)
		switch kind {
		case "symbol":
			if rel == "exports" {
				if name, _ := r["name"].(string); m(name) {
					add(&defs, r)
				}
				continue
			}
			if names, ok := r["names"].([]any); ok {
				for _, x := range names {
					if s, _ := x.(string); m(s) {
						add(&refs, r)
						break
					}
				}
			}
		case "module":
			if modules[src] {
				if rel == "exports" {
					add(&defs, r)
				} else {
					add(&refs, r)
				}
			} else if tgt != "" && modules[tgt] {
				add(&refs, r)
			}
		case "specifier":
			if rel != "exports" && m(spec) {
				add(&refs, r)
			}
		}
	}
	frontiers := []map[string]any{}
	for _, f := range ix.res.Semantic.Frontiers {
		if id, _ := f["node_id"].(string); involved[id] || modules[id] {
			frontiers = append(frontiers, f)
		}
	}
	cov := SemanticsCoverage{Status: "complete", Truncated: omitted > 0, Limits: SemanticsLimits{MaxResults: maxResults}, OmittedCount: omitted}
	if omitted > 0 {
		cov.Status = "partial"
	}
	empty := len(defs)+len(refs)+omitted == 0
	if empty {
		cov.Status = "empty"
	}
	res := &TraceJavascriptSemanticsResult{Query: SemanticsQuery{Kind: kind, Value: value, Match: match}, SourceGraphID: ix.res.Graph.GraphID,
		SemanticGraphID: ix.res.Semantic.GraphID, Definitions: defs, References: refs, UnknownFrontiers: frontiers,
		Summary: SemanticsSummary{Definitions: len(defs), References: len(refs), UnknownFrontiers: len(frontiers)}, Coverage: cov}
	// The semantic graph relates files and bundled modules; the source
	// modules a source map names are known by their text, not their
	// exports. A symbol defined inside a bundle without a module table is
	// therefore not found, and an empty answer must say so.
	var lim []string
	switch {
	case empty && kind == "module" && len(modules) == 0:
		lim = append(lim, "No JavaScript file's path or name matches the query; the answer is empty.")
	case empty && kind == "module":
		lim = append(lim, "The files that match the query have no import, require or export recorded; the answer is empty.")
	case empty:
		lim = append(lim, fmt.Sprintf("No %s of an import, require or export matches the query; the answer is empty.", map[string]string{"symbol": "exported or imported name", "specifier": "specifier"}[kind]))
	}
	if n, _ := ix.res.Statistics["source_modules"].(float64); n > 0 && len(defs)+len(refs) == 0 && kind != "specifier" {
		lim = append(lim, fmt.Sprintf("The application's %d source module(s), known from source maps, are not in the semantic graph: "+
			"a symbol defined inside a bundle whose modules were not recovered is not found here. trace_application_feature with a "+
			"string seed, or inspect_analysis_view on modules, reaches them.", int(n)))
	}
	return &core.Observation{Result: res, Unbound: true, Subject: subjectOf(ev), Confidence: core.ConfidenceDerived, Links: []core.EvidenceID{ev.EvidenceID}, Limitations: lim}, nil
}

// unlocatedReason says why a semantic relation has no offset (and so no
// line, column or original position).
func unlocatedReason(r map[string]any) string {
	rel, _ := r["relation"].(string)
	spec, _ := r["specifier"].(string)
	switch {
	case rel == "exports" && r["kind"] == "default":
		return "anonymous default export: no name in the source locates it"
	case rel == "exports":
		return "the parser recorded no position for this export"
	case spec == "":
		return "computed specifier: no literal in the source locates it"
	}
	return "the parser recorded no position for this import"
}
