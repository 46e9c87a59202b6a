package jsapp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"rea/core"
)

func opCompareApplicationVersions() *core.Operation {
	return &core.Operation{
		Name:  "compare_application_versions",
		Title: "Compare Application Versions",
		Description: "Compare two analyze_javascript_application results (each inline or retained). Nodes are matched in unique-only tiers: " +
			"content digest, source-map original, structural fingerprint, canonical path, artifact-local key, then the original source " +
			"within the source map of the same path, package name, and exported names; a candidate that is not unique on both sides " +
			"in any tier stays unknown. Items are added, removed, changed, unchanged, unknown or contradiction (an integrity " +
			"contradiction is never unchanged); each names its nodes with a human label (file, module, original source and map, package@version) " +
			"beside the node IDs. An app inside a ZIP's ASAR (resources/app.asar) is compared from that root; root_alignment names it.",
		Kind:    core.KindApplication,
		Effects: jsappEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["left","right"],
 "properties":{"left":` + jsappEvidenceInput + `,"right":` + jsappEvidenceInput + `,
  "left_native_observations":{"type":"array","maxItems":64,"items":{"type":"object"}},
  "right_native_observations":{"type":"array","maxItems":64,"items":{"type":"object"}},
  "limits":{"type":"object","additionalProperties":false,"properties":{"max_items":{"type":"integer","minimum":1,"maximum":200000}}}}}`),
		Result:   genericResult("comparison_id", "left_graph_id", "right_graph_id", "graph", "items", "matching", "summary", "coverage"),
		Examples: []json.RawMessage{json.RawMessage(`{"left":` + retainedExample + `,"right":{"kind":"retained-evidence","evidence_id":"ev_1111111111111111111111111111111111111111111111111111111111111111"}}`)},
		Handler:  handleCompareVersions,
	}
}

// comparable node kinds and how a node is keyed in each tier.
type cmpNode struct {
	n        *Node
	content  string // sha256
	original string // source-map original (source-module, or the module it maps to)
	finger   string
	path     string
	local    string // namespace/key without the artifact digest
	props    string // the digest of the observation properties that matter
	propMap  map[string]any
	contra   bool
	// Keys of the later tiers, which pair what the first five leave
	// ambiguous: the original source within the source map of the same
	// path (a package ships one original in several maps), a package by
	// name, a module by its exported names.
	inMap   string
	pkgName string
	exports string
	label   string
}

// cmpNodes are ix's nodes as compare_application_versions pairs them.
// When ix is a release ZIP holding its app in one ASAR (asarRoot), that
// ASAR's paths are named as asName names them: "<asar>/" when the other
// side is such a ZIP as well, "" when it is the bare ASAR, whose own paths
// start inside the archive.
func cmpNodes(ix *appIndex, asName string) []*cmpNode {
	contra := map[string]bool{}
	for _, c := range ix.res.Contradictions {
		if p, ok := c["logical_path"].(string); ok {
			contra[p] = true
		}
	}
	root := asarRoot(ix)
	var out []*cmpNode
	for _, n := range ix.res.Graph.Nodes {
		if n.Kind == "artifact" {
			continue
		}
		c := &cmpNode{n: n}
		switch n.Kind {
		case "javascript-asset", "native-addon", "source-map":
			c.content = n.propString("sha256")
			c.path = n.propString("path")
			if n.Kind == "javascript-asset" {
				c.exports = exportNames(n)
			}
		case "package":
			c.path = n.propString("path")
			c.pkgName = n.propString("name")
		case "source-module":
			c.original = normalizeOriginal(n.propString("original_source"))
			if s, ok := n.Identity["source_sha256"].(string); ok {
				c.content = s
			}
			if m := sourceMapOf(ix, n); m != "" && c.original != "" {
				c.inMap = m + "\x00" + c.original
			}
		case "javascript-module":
			c.finger = n.propString("fingerprint_sha256")
			for _, e := range ix.out[n.NodeID] {
				if e.Relation == "maps_to" {
					if t := ix.nodes[e.TargetNodeID]; t != nil && t.Kind == "source-module" {
						c.original = normalizeOriginal(t.propString("original_source"))
					}
				}
			}
			c.local = n.propString("module_id")
			c.exports = exportNames(n)
			if a := n.propString("asset"); a != "" && c.original != "" {
				c.inMap = a + "\x00" + c.original
			}
		default:
			if ns, ok := n.Identity["namespace"].(string); ok {
				c.local = ns + "\x00" + fmt.Sprint(n.Identity["key"])
			}
		}
		c.contra = contra[c.path]
		props := comparedProps(n)
		if root != "" {
			c.path, c.local, c.inMap = unroot(c.path, root, asName), unroot(c.local, root, asName), unroot(c.inMap, root, asName)
			props = unrootValue(props, root, asName, 0).(map[string]any)
		}
		c.props, c.propMap = core.MustDigest(props), props
		out = append(out, c)
	}
	// Labelled as traces label: two nodes of a side that read alike
	// ("worker.js") are told apart by kind, file or ID.
	ids := make([]string, len(out))
	for i, c := range out {
		ids[i] = c.n.NodeID
	}
	labels := traceLabels(ix, ids)
	for _, c := range out {
		c.label = labels[c.n.NodeID]
	}
	return out
}

// asarRoot is the ASAR a release ZIP holds the app in, by its path in the
// ZIP ("app-1.0.0.asar", "resources/app.asar" as Electron packages it),
// when every JavaScript file and package of the analysis lies in that one
// ASAR; else "". Versions name it differently, and a bare ASAR's paths
// start inside it, so paths and keys are compared with it named alike
// (unroot).
func asarRoot(ix *appIndex) string {
	if ix.res.Format == "asar" {
		return ""
	}
	root := ""
	for _, n := range ix.res.Graph.Nodes {
		if n.Kind != "javascript-asset" && n.Kind != "package" {
			continue
		}
		p := n.propString("path")
		i := strings.Index(p, ".asar/")
		if i < 0 || root != "" && p[:i+5] != root {
			return ""
		}
		root = p[:i+5]
	}
	return root
}

// unroot names the ASAR root of the paths s holds alike on both sides
// ("main:app-1.asar/main.js" is "main:<asar>/main.js" when as is
// "<asar>/"); between two ZIPs the root is kept as a name, not dropped, so
// a resolved worker's key (the path app-1.asar/worker.js) stays apart from
// an unresolved one's (the specifier worker.js). Against the bare ASAR it
// is dropped (as is ""), as the ASAR's own analysis names its paths.
func unroot(s, root, as string) string {
	return strings.ReplaceAll(s, root+"/", as)
}

// asarNames are the names cmpNodes gives the ASAR roots of the two sides
// (see cmpNodes): "" against a side whose paths start at the app (a bare
// ASAR, a directory, a ZIP holding the files themselves).
func asarNames(l, r *appIndex) (string, string) {
	ln, rn := "<asar>/", "<asar>/"
	if asarRoot(l) == "" {
		rn = ""
	}
	if asarRoot(r) == "" {
		ln = ""
	}
	return ln, rn
}

// unrootValue is v with unroot applied to its strings, a few levels deep.
func unrootValue(v any, root, as string, depth int) any {
	switch t := v.(type) {
	case string:
		return unroot(t, root, as)
	case []any:
		if depth > 4 {
			return t
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = unrootValue(x, root, as, depth+1)
		}
		return out
	case map[string]any:
		if depth > 4 {
			return t
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = unrootValue(x, root, as, depth+1)
		}
		return out
	}
	return v
}

// comparedProps merges a node's observations' properties, positions and
// paths left out (they are not content, and neither is where a source
// module's path resolves). The observations come in the evidence's order,
// which is not the app's: a property they give different values is the
// set of those values (in canonical order), so the same observations in
// another order compare as equal.
func comparedProps(n *Node) map[string]any {
	props := map[string]any{}
	var several map[string][]any
	for i, o := range n.Observations {
		for k, v := range o.Properties {
			switch k {
			case "path", "start", "end", "asset", "created_in", "exposed_by":
				continue // positions and paths are not content
			case "resolved_path", "outside_app":
				// A source module's follow from where its map lies (an
				// ASAR's ../../src is outside the bare ASAR, inside the ZIP
				// that holds it); its original_source is compared.
				continue
			}
			prev, seen := props[k]
			if i == 0 || !seen {
				props[k] = v
				continue
			}
			if several[k] == nil {
				if string(canonicalOf(prev)) == string(canonicalOf(v)) {
					continue
				}
				if several == nil {
					several = map[string][]any{}
				}
				several[k] = []any{prev}
			}
			several[k] = append(several[k], v)
		}
	}
	for k, vs := range several {
		set := map[string]any{}
		for _, v := range vs {
			set[string(canonicalOf(v))] = v
		}
		values := make([]any, 0, len(set))
		for _, j := range jaKeys(set) {
			values = append(values, set[j])
		}
		props[k] = values
	}
	return props
}

type tier struct {
	name string
	key  func(*cmpNode) string
}

var compareTiers = []tier{
	{"content_digest", func(c *cmpNode) string {
		if c.content == "" {
			return ""
		}
		return c.n.Kind + "\x00" + c.content
	}},
	{"source_map_original", func(c *cmpNode) string {
		if c.original == "" {
			return ""
		}
		return c.n.Kind + "\x00" + c.original
	}},
	{"structural_fingerprint", func(c *cmpNode) string {
		if c.finger == "" {
			return ""
		}
		return c.n.Kind + "\x00" + c.finger
	}},
	{"canonical_path", func(c *cmpNode) string {
		if c.path == "" {
			return ""
		}
		return c.n.Kind + "\x00" + c.path
	}},
	{"artifact_local_key", func(c *cmpNode) string {
		if c.local == "" {
			return ""
		}
		return c.n.Kind + "\x00" + c.local
	}},
	{"original_in_source_map", func(c *cmpNode) string {
		if c.inMap == "" {
			return ""
		}
		return c.n.Kind + "\x00" + c.inMap
	}},
	{"package_name", func(c *cmpNode) string {
		if c.pkgName == "" {
			return ""
		}
		return c.n.Kind + "\x00" + c.pkgName
	}},
	{"export_names", func(c *cmpNode) string {
		if c.exports == "" {
			return ""
		}
		return c.n.Kind + "\x00" + c.exports
	}},
}

func handleCompareVersions(ctx context.Context, c *core.Call) (any, error) {
	lev, err := jsappEvidenceArg(c, "left", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	rev, err := jsappEvidenceArg(c, "right", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lix, err := indexApp(lev)
	if err != nil {
		return nil, err
	}
	rix, err := indexApp(rev)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[CompareApplicationVersionsInput](c)
	if err != nil {
		return nil, err
	}
	maxItems := 50000
	if in.Limits != nil {
		maxItems = cmp.Or(in.Limits.MaxItems, maxItems)
	}
	lname, rname := asarNames(lix, rix)
	left, right := cmpNodes(lix, lname), cmpNodes(rix, rname)
	// Say which ASAR each side's paths were read inside, so a reader
	// knows resources/app.asar/main.js was compared as main.js.
	var align *RootAlignment
	if lr, rr := asarRoot(lix), asarRoot(rix); lr != "" || rr != "" {
		align = &RootAlignment{Left: lr, Right: rr}
	}
	matchedL, matchedR := map[*cmpNode]bool{}, map[*cmpNode]bool{}
	pair := map[*cmpNode]*cmpNode{} // left -> right
	// ambiguous holds, for each node a tier could not pair uniquely, the
	// other side's candidates it competed for; it stays unknown only while
	// one of them is still unpaired at the end.
	ambiguous := map[*cmpNode][]*cmpNode{}
	counts := map[string]int{}
	items := []VersionItem{}
	for _, t := range compareTiers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lk, rk := map[string][]*cmpNode{}, map[string][]*cmpNode{}
		for _, n := range left {
			if k := t.key(n); k != "" && !matchedL[n] {
				lk[k] = append(lk[k], n)
			}
		}
		for _, n := range right {
			if k := t.key(n); k != "" && !matchedR[n] {
				rk[k] = append(rk[k], n)
			}
		}
		for _, k := range jaKeys(lk) {
			ls, rs := lk[k], rk[k]
			if len(rs) == 0 {
				continue
			}
			if len(ls) != 1 || len(rs) != 1 {
				for _, n := range ls {
					ambiguous[n] = append(ambiguous[n], rs...)
				}
				for _, n := range rs {
					ambiguous[n] = append(ambiguous[n], ls...)
				}
				continue
			}
			l, r := ls[0], rs[0]
			matchedL[l], matchedR[r], pair[l] = true, true, r
			delete(ambiguous, l)
			delete(ambiguous, r)
			counts[t.name]++
			items = append(items, compareItem(l, r, t.name))
		}
	}
	open := func(n *cmpNode, other map[*cmpNode]bool) bool {
		for _, o := range ambiguous[n] {
			if !other[o] {
				return true
			}
		}
		return false
	}
	unknown := 0
	for _, n := range left {
		if matchedL[n] {
			continue
		}
		st := "removed"
		if open(n, matchedR) {
			st = "unknown"
			unknown++
		}
		items = append(items, compareItem(n, nil, st))
	}
	for _, n := range right {
		if matchedR[n] {
			continue
		}
		st := "added"
		if open(n, matchedL) {
			st = "unknown"
			unknown++
		}
		items = append(items, compareItem(nil, n, st))
	}
	counts["ambiguous"] = unknown
	crossLabels(left, right, pair)
	sort.SliceStable(items, func(i, j int) bool { return items[i].ItemID < items[j].ItemID })
	summary := map[string]int{"added": 0, "removed": 0, "changed": 0, "unchanged": 0, "unknown": 0, "contradiction": 0}
	for _, it := range items {
		summary[it.Status]++
	}
	truncated := false
	if len(items) > maxItems {
		items, truncated = items[:maxItems], true
	}
	cov := VersionCoverage{Status: "complete", Truncated: truncated, LeftCoverage: lix.res.Coverage["status"], RightCoverage: rix.res.Coverage["status"]}
	if truncated || lix.res.Coverage["status"] != "complete" || rix.res.Coverage["status"] != "complete" {
		cov.Status = "partial"
	}
	res := &CompareApplicationVersionsResult{LeftGraphID: lix.res.Graph.GraphID, RightGraphID: rix.res.Graph.GraphID,
		Items: items, Matching: counts, Summary: summary, Coverage: cov, RootAlignment: align}
	res.ComparisonID = "javc_" + digestWithout(res, "comparison_id")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Links: []core.EvidenceID{lev.EvidenceID, rev.EvidenceID}}, nil
}

// crossLabels tells apart a label of the left side and the same label of
// the right that name nodes not paired together (a removed file
// "worker.js" and an added worker "worker.js"), as traceLabels tells
// apart the nodes of one side: by kind, then by kind and file, then by
// kind and ID. Each label names one node per side, so each clash is one
// node of each; nodes of the same ID keep their label. The items hold
// pointers to the labels, so this may run after they are built.
func crossLabels(left, right []*cmpNode, pair map[*cmpNode]*cmpNode) {
	byLabel := make(map[string]*cmpNode, len(left))
	for _, l := range left {
		byLabel[l.label] = l
	}
	var clashes [][2]*cmpNode
	for _, r := range right {
		if l := byLabel[r.label]; l != nil && pair[l] != r && l.n.NodeID != r.n.NodeID {
			clashes = append(clashes, [2]*cmpNode{l, r})
		}
	}
	for _, c := range clashes {
		l, r := c[0].n, c[1].n
		ln, rn := kindNoun(l.Kind), kindNoun(r.Kind)
		switch lf, rf := nodeFile(l), nodeFile(r); {
		case ln != rn:
		case lf != "" && rf != "" && lf != rf:
			ln, rn = ln+" in "+lf, rn+" in "+rf
		case shortNodeID(l.NodeID) != shortNodeID(r.NodeID):
			ln, rn = ln+" "+shortNodeID(l.NodeID), rn+" "+shortNodeID(r.NodeID)
		default:
			ln, rn = ln+" "+l.NodeID, rn+" "+r.NodeID
		}
		c[0].label += " (" + ln + ")"
		c[1].label += " (" + rn + ")"
	}
}

// compareItem builds one item. strategy is a tier name for a match, or a
// status for an unmatched node.
func compareItem(l, r *cmpNode, strategy string) VersionItem {
	var it VersionItem
	var left, right any // the IDs digested into item_id (null when absent)
	if l != nil {
		it.LeftNodeID, it.LeftLabel, it.NodeKind = &l.n.NodeID, &l.label, l.n.Kind
		left = l.n.NodeID
	}
	if r != nil {
		it.RightNodeID, it.RightLabel, it.NodeKind = &r.n.NodeID, &r.label, r.n.Kind
		right = r.n.NodeID
	}
	if l != nil && r != nil {
		it.Match = &VersionMatch{Strategy: strategy, Unique: true}
		it.Dimensions = map[string]string{
			"content":    dim(l.content, r.content),
			"properties": dim(l.props, r.props),
			"path":       dim(l.path, r.path),
		}
		it.Status = "unchanged"
		if it.Dimensions["content"] == "changed" || it.Dimensions["properties"] == "changed" {
			it.Status = "changed"
			it.Changes = propertyChanges(l.propMap, r.propMap)
			if it.Dimensions["content"] == "changed" && !slices.ContainsFunc(it.Changes, func(c PropertyChange) bool { return c.Property == "sha256" }) {
				// A digest held in the identity only (a source map's
				// original: its sourcesContent's sha256).
				it.Changes = append([]PropertyChange{{Property: "content", Before: orNil(l.content), After: orNil(r.content)}}, it.Changes...)
			}
		}
		if l.contra || r.contra {
			it.Status = "contradiction"
		}
	} else {
		it.Status, it.Dimensions = strategy, map[string]string{}
	}
	it.ItemID = core.MustDigest(map[string]any{"left": left, "right": right, "kind": it.NodeKind})
	return it
}

func dim(a, b string) string {
	switch {
	case a == "" && b == "":
		return "not-applicable"
	case a == b:
		return "unchanged"
	}
	return "changed"
}

func opCompareSourceToBundle() *core.Operation {
	return &core.Operation{
		Name:  "compare_source_to_bundle",
		Title: "Compare Source to Bundle",
		Description: "Map an original source tree (left: analyze_javascript_application of the source directory) onto a bundled app " +
			"(right: its analysis, with source maps), inline or retained. Each file is unchanged (a map's sourcesContent or a shipped file " +
			"has its bytes), modified, removed (gone from output), duplicated (in several maps) or unknown (ambiguous path); bundled " +
			"sources with no file on the left are listed as unmapped.",
		Kind:    core.KindApplication,
		Effects: jsappEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["left","right"],
 "properties":{"left":` + jsappEvidenceInput + `,"right":` + jsappEvidenceInput + `,
  "limits":{"type":"object","additionalProperties":false,"properties":{"max_items":{"type":"integer","minimum":1,"maximum":200000}}}}}`),
		Result:   genericResult("comparison_id", "items", "unmapped_current_node_ids", "summary", "coverage"),
		Examples: []json.RawMessage{json.RawMessage(`{"left":` + retainedExample + `,"right":{"kind":"retained-evidence","evidence_id":"ev_1111111111111111111111111111111111111111111111111111111111111111"}}`)},
		Handler:  handleSourceToBundle,
	}
}

// normalizeOriginal strips bundler prefixes and leading ./ and ../ from a
// source-map source.
func normalizeOriginal(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		// webpack's eval-source-map names a source webpack://app/./a.js?5a03
		if q := strings.IndexAny(s, "?#"); q >= 0 {
			s = s[:q]
		}
		if j := strings.IndexByte(s, '/'); j >= 0 && !strings.HasPrefix(s, "./") {
			s = s[j+1:]
		}
	}
	for {
		switch {
		case strings.HasPrefix(s, "./"):
			s = s[2:]
		case strings.HasPrefix(s, "../"):
			s = s[3:]
		case strings.HasPrefix(s, "/"):
			s = s[1:]
		default:
			return s
		}
	}
}

func handleSourceToBundle(ctx context.Context, c *core.Call) (any, error) {
	lev, err := jsappEvidenceArg(c, "left", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	rev, err := jsappEvidenceArg(c, "right", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	lix, err := indexApp(lev)
	if err != nil {
		return nil, err
	}
	rix, err := indexApp(rev)
	if err != nil {
		return nil, err
	}
	type orig struct {
		n    *Node
		norm string
		sha  string
	}
	var origs []orig
	for _, n := range rix.res.Graph.Nodes {
		if n.Kind == "source-module" {
			sha, _ := n.Identity["source_sha256"].(string)
			origs = append(origs, orig{n, normalizeOriginal(n.propString("original_source")), sha})
		}
	}
	// The right side's files by content and by path: a source file no map
	// names may be shipped as it is (main.js and preload.js are copied
	// beside the bundle, not bundled).
	shipped, shippedAt := map[string][]*Node{}, map[string]*Node{}
	for _, n := range rix.res.Graph.Nodes {
		if n.Kind == "javascript-asset" {
			shipped[n.propString("sha256")] = append(shipped[n.propString("sha256")], n)
			shippedAt[n.propString("path")] = n
		}
	}
	used := map[string]bool{}
	items := []SourceMapping{}
	summary := map[string]int{"unchanged": 0, "modified": 0, "removed": 0, "split": 0, "merged": 0, "duplicated": 0, "unknown": 0}
	for i, n := range lix.res.Graph.Nodes {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if n.Kind != "javascript-asset" {
			continue
		}
		p := n.propString("path")
		sha := n.propString("sha256")
		var cands []orig
		for _, o := range origs {
			if o.norm == p || strings.HasSuffix(p, "/"+o.norm) || strings.HasSuffix(o.norm, "/"+p) {
				cands = append(cands, o)
			}
		}
		status, conf := "removed", core.ConfidenceDerived
		var candIDs []string
		for _, o := range cands {
			candIDs = append(candIDs, o.n.NodeID)
			used[o.n.NodeID] = true
		}
		norms := map[string]bool{}
		for _, o := range cands {
			norms[o.norm] = true
		}
		switch {
		case len(cands) == 0:
			// In no map: shipped as it is, byte for byte (one file, else
			// the one at the same path), or changed at the same path.
			same := shipped[sha]
			if len(same) > 1 && shippedAt[p] != nil && shippedAt[p].propString("sha256") == sha {
				same = []*Node{shippedAt[p]}
			}
			switch {
			case sha != "" && len(same) == 1:
				status, conf, candIDs = "unchanged", core.ConfidenceObserved, []string{same[0].NodeID}
			case sha != "" && len(same) > 1:
				status, conf = "duplicated", core.ConfidenceObserved
				for _, o := range same {
					candIDs = append(candIDs, o.NodeID)
				}
			case shippedAt[p] != nil:
				status, candIDs = "modified", []string{shippedAt[p].NodeID}
			}
		case len(norms) > 1:
			status, conf = "unknown", core.ConfidenceInferred
		case len(cands) > 1:
			status = "duplicated"
		case cands[0].sha == "":
			status, conf = "unknown", core.ConfidenceInferred
		case cands[0].sha == sha:
			status, conf = "unchanged", core.ConfidenceObserved
		default:
			status = "modified"
		}
		summary[status]++
		it := SourceMapping{SourcePath: p, SourceNodeID: n.NodeID, Status: status, Candidates: jaStrList(candIDs), Confidence: conf}
		it.MappingID = digestWithout(it, "mapping_id")
		items = append(items, it)
	}
	var unmapped []string
	for _, o := range origs {
		if !used[o.n.NodeID] {
			unmapped = append(unmapped, o.n.NodeID)
		}
	}
	sort.Strings(unmapped)
	res := &CompareSourceToBundleResult{LeftGraphID: lix.res.Graph.GraphID, RightGraphID: rix.res.Graph.GraphID, Items: items,
		UnmappedCurrentNodeIDs: jaStrList(unmapped), Summary: summary,
		Coverage: SourceToBundleCoverage{Status: "complete", SourceModules: len(origs)}}
	res.ComparisonID = "stbc_" + digestWithout(res, "comparison_id")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Links: []core.EvidenceID{lev.EvidenceID, rev.EvidenceID}}, nil
}

func jaStrList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func opCompareJSExportShapes() *core.Operation {
	return &core.Operation{
		Name:  "compare_javascript_export_shapes",
		Title: "Compare JavaScript Export Shapes",
		Description: "Compare the exports of one module in two analyzed applications (each inline or retained): the module is selected by path " +
			"(asset path, bundled module id, or the original source a bundled module maps to) on each side. Each exported name is added, removed, changed (its value kind, declared " +
			"parameter count or rest parameter differs), unchanged, or unknown (a side's value is computed at run time, e.g. a re-export " +
			"or a call result). Shapes are read from the source, never by executing it.",
		Kind:    core.KindApplication,
		Effects: jsappEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["left","right","left_module_path","right_module_path"],
 "properties":{"left":` + jsappEvidenceInput + `,"right":` + jsappEvidenceInput + `,
  "left_module_path":{"type":"string","minLength":1},"right_module_path":{"type":"string","minLength":1},
  "left_export_name":{"type":"string","minLength":1},"right_export_name":{"type":"string","minLength":1},
  "limits":{"type":"object","additionalProperties":false,"properties":{"max_changes":{"type":"integer","minimum":1,"maximum":100000}}}}}`),
		Result:   genericResult("comparison_id", "left", "right", "changes", "summary", "runtime_validation", "coverage"),
		Examples: []json.RawMessage{json.RawMessage(`{"left":` + retainedExample + `,"right":{"kind":"retained-evidence","evidence_id":"ev_1111111111111111111111111111111111111111111111111111111111111111"},"left_module_path":"src/api.js","right_module_path":"src/api.js"}`)},
		Handler:  handleExportShapes,
	}
}

// moduleExport is one exported name of a selected module with its shape
// (nil when the analysis recorded none).
type moduleExport struct {
	name  string
	shape map[string]any
}

func selectModule(ix *appIndex, p string) (ExportModuleSide, []moduleExport) {
	var cands []*Node
	for _, n := range ix.res.Graph.Nodes {
		switch n.Kind {
		case "javascript-asset":
			if n.propString("path") == p {
				cands = append(cands, n)
			}
		case "javascript-module":
			if n.propString("module_id") == p {
				cands = append(cands, n)
			}
		}
	}
	if len(cands) == 0 {
		// An original source path: the bundled module that maps to it
		// (src/api.js, or webpack://app/./src/api.js as the map names it).
		want := normalizeOriginal(p)
		for _, n := range ix.res.Graph.Nodes {
			if n.Kind != "javascript-module" {
				continue
			}
			for _, e := range ix.out[n.NodeID] {
				if t := ix.nodes[e.TargetNodeID]; e.Relation == "maps_to" && t != nil && t.Kind == "source-module" &&
					normalizeOriginal(t.propString("original_source")) == want {
					cands = append(cands, n)
					break
				}
			}
		}
	}
	ids := make([]string, 0, len(cands))
	for _, n := range cands {
		ids = append(ids, n.NodeID)
	}
	side := ExportModuleSide{Status: "not-found", Candidates: jaStrList(ids)}
	switch len(cands) {
	case 0:
		return side, nil
	case 1:
		side.Status, side.SelectedNodeID = "selected", &cands[0].NodeID
		shapes := map[string]map[string]any{}
		if l, ok := cands[0].prop("export_shapes").([]any); ok {
			for _, x := range l {
				if m, ok := x.(map[string]any); ok {
					if name, ok := m["name"].(string); ok {
						shapes[name] = map[string]any{"kind": m["kind"], "params": m["params"], "rest": m["rest"]}
					}
				}
			}
		}
		// The names importers see (export * expanded) when the analysis
		// recorded shapes, else the names as written.
		var names []string
		for name := range shapes {
			names = append(names, name)
		}
		if len(names) == 0 {
			if l, ok := cands[0].prop("exports").([]any); ok {
				for _, x := range l {
					if s, ok := x.(string); ok {
						names = append(names, s)
					}
				}
			}
		}
		var out []moduleExport
		for _, n := range uniqueUTF16(names) {
			out = append(out, moduleExport{name: n, shape: shapes[n]})
		}
		return side, out
	}
	side.Status = "ambiguous"
	return side, nil
}

// shapeKnown reports whether an export's shape was observed.
func shapeKnown(s map[string]any) bool {
	return s != nil && s["kind"] != nil && s["kind"] != "unknown"
}

// sameShape compares kind, declared parameters and rest parameter.
func sameShape(a, b map[string]any) bool {
	return fmt.Sprint(a["kind"], a["params"], a["rest"]) == fmt.Sprint(b["kind"], b["params"], b["rest"])
}

func exportSide(e *moduleExport) *ExportValue {
	if e == nil {
		return nil
	}
	v := &ExportValue{Present: true, Value: e.shape}
	if e.shape == nil {
		v.Value = map[string]any{"kind": "unknown", "params": nil, "rest": false}
	}
	return v
}

func handleExportShapes(ctx context.Context, c *core.Call) (any, error) {
	lev, err := jsappEvidenceArg(c, "left", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	rev, err := jsappEvidenceArg(c, "right", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	lix, err := indexApp(lev)
	if err != nil {
		return nil, err
	}
	rix, err := indexApp(rev)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[CompareJavascriptExportShapesInput](c)
	if err != nil {
		return nil, err
	}
	ls, lex := selectModule(lix, in.LeftModulePath)
	rs, rex := selectModule(rix, in.RightModulePath)
	filter := func(exps []moduleExport, n string) map[string]*moduleExport {
		only := n != ""
		out := map[string]*moduleExport{}
		for i := range exps {
			if !only || exps[i].name == n {
				out[exps[i].name] = &exps[i]
			}
		}
		return out
	}
	lset, rset := filter(lex, in.LeftExportName), filter(rex, in.RightExportName)
	maxChanges := 100000
	if in.Limits != nil {
		maxChanges = cmp.Or(in.Limits.MaxChanges, maxChanges)
	}
	changes := []ExportChange{}
	summary := map[string]int{"added": 0, "removed": 0, "changed": 0, "unchanged": 0, "unknown": 0}
	zero := 0
	coverage := ExportCoverage{Status: "complete", OmittedCount: &zero, Limits: []GraphLimit{}, Basis: "export-names-and-static-value-shapes"}
	if ls.Status == "selected" && rs.Status == "selected" {
		all := map[string]bool{}
		for k := range lset {
			all[k] = true
		}
		for k := range rset {
			all[k] = true
		}
		omitted := 0
		for _, k := range jaKeys(all) {
			l, r := lset[k], rset[k]
			st := "unchanged"
			switch {
			case l == nil:
				st = "added"
			case r == nil:
				st = "removed"
			case !shapeKnown(l.shape) || !shapeKnown(r.shape):
				st = "unknown"
			case !sameShape(l.shape, r.shape):
				st = "changed"
			}
			summary[st]++
			if len(changes) >= maxChanges {
				omitted++
				continue
			}
			ch := ExportChange{Path: []string{k}, Status: st, Left: exportSide(l), Right: exportSide(r)}
			ch.ChangeID = digestWithout(ch, "change_id")
			changes = append(changes, ch)
		}
		switch {
		case omitted > 0:
			coverage.Status, coverage.Truncated, coverage.OmittedCount = "partial", true, &omitted
			coverage.Limits = []GraphLimit{{Name: "max_changes", Value: int64(maxChanges), Unit: "changes"}}
		case summary["unknown"] > 0:
			unknown := summary["unknown"]
			coverage.Status, coverage.OmittedCount = "partial", &unknown
		}
	} else {
		summary["unknown"]++
		coverage.Status, coverage.OmittedCount = "unknown", nil
	}
	// A module with more exports than its node's properties hold lists its
	// first names only (exportsRoom): what lies past them is not compared.
	if cut := max(unlistedExports(lix, ls, len(lex)), unlistedExports(rix, rs, len(rex))); cut > 0 && coverage.Status != "unknown" {
		coverage.Status, coverage.Truncated, coverage.OmittedCount = "partial", true, &cut
		coverage.Limits = append(coverage.Limits, GraphLimit{Name: "property_nodes", Value: jagMaxPropNodes, Unit: "nodes"})
	}
	res := &CompareJavascriptExportShapesResult{Left: ls, Right: rs, Changes: changes, Summary: summary,
		RuntimeValidation: ExportRuntimeValidation{Status: "not-performed", Reason: "rea compares statically observed export names and value shapes and never executes code"},
		Coverage:          coverage}
	res.ComparisonID = "jesc_" + digestWithout(res, "comparison_id")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Links: []core.EvidenceID{lev.EvidenceID, rev.EvidenceID},
		Limitations: []string{"Export value shapes are what the source shows (value kind, declared parameters, rest parameter); values computed at run time are unknown, and rea does not execute code to learn them."}}, nil
}

// unlistedExports is how many of a selected module's export names its node
// does not list (exports_total past the names it keeps).
func unlistedExports(ix *appIndex, side ExportModuleSide, listed int) int {
	if side.SelectedNodeID == nil || ix.nodes[*side.SelectedNodeID] == nil {
		return 0
	}
	total, _ := ix.nodes[*side.SelectedNodeID].prop("exports_total").(float64) // decoded JSON
	return max(0, int(total)-listed)
}

// Bounds of a changed item's property changes: how many properties it
// names, the encoded size up to which a value is given whole, and how
// many elements of a changed list it names on each side.
const (
	maxPropertyChanges = 16
	maxChangeValue     = 160
	maxChangeElements  = 10
)

// propertyChanges says which properties differ between a pair's left and
// right observations (positions and paths left out, as the properties
// dimension leaves them), in name order: each with its before and after
// value (null when absent) when they are short; a long list with the
// elements only one side has; a long object by its changed members,
// named property.member; a long string cut, with its length.
func propertyChanges(l, r map[string]any) []PropertyChange {
	var out []PropertyChange
	keys := map[string]bool{}
	for k := range l {
		keys[k] = true
	}
	for k := range r {
		keys[k] = true
	}
	for _, k := range jaKeys(keys) {
		out = appendChange(out, k, l[k], r[k], 0)
	}
	if len(out) > maxPropertyChanges {
		n := len(out) - maxPropertyChanges + 1
		out = append(out[:maxPropertyChanges-1], PropertyChange{Property: fmt.Sprintf("(%d more)", n)})
	}
	return out
}

func appendChange(out []PropertyChange, k string, a, b any, depth int) []PropertyChange {
	ja, jb := canonicalOf(a), canonicalOf(b)
	if string(ja) == string(jb) {
		return out
	}
	if len(ja) <= maxChangeValue && len(jb) <= maxChangeValue {
		return append(out, PropertyChange{Property: k, Before: a, After: b})
	}
	ma, oka := a.(map[string]any)
	mb, okb := b.(map[string]any)
	if oka && okb && depth == 0 {
		keys := map[string]bool{}
		for x := range ma {
			keys[x] = true
		}
		for x := range mb {
			keys[x] = true
		}
		for _, x := range jaKeys(keys) {
			out = appendChange(out, k+"."+x, ma[x], mb[x], depth+1)
		}
		return out
	}
	la, oka := a.([]any)
	lb, okb := b.([]any)
	if oka && okb {
		c := PropertyChange{Property: k, Before: fmt.Sprintf("%d items", len(la)), After: fmt.Sprintf("%d items", len(lb))}
		c.Removed, c.Added = listDiff(la, lb), listDiff(lb, la)
		return append(out, c)
	}
	return append(out, PropertyChange{Property: k, Before: shortValue(a, ja), After: shortValue(b, jb)})
}

// listDiff is the elements of a that b lacks, at most maxChangeElements.
func listDiff(a, b []any) []any {
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[string(canonicalOf(x))] = true
	}
	var out []any
	for _, x := range a {
		if !in[string(canonicalOf(x))] {
			if len(out) == maxChangeElements {
				break
			}
			out = append(out, shortValue(x, canonicalOf(x)))
		}
	}
	return out
}

// shortValue is v when its encoding j is short, else a cut string or a
// description of its size.
func shortValue(v any, j []byte) any {
	if len(j) <= maxChangeValue {
		return v
	}
	switch t := v.(type) {
	case string:
		return truncateUTF8(t, maxChangeValue) + fmt.Sprintf("… (%d bytes)", len(t))
	case []any:
		return fmt.Sprintf("%d items", len(t))
	case map[string]any:
		return fmt.Sprintf("object of %d members", len(t))
	}
	return fmt.Sprintf("%d bytes", len(j))
}

// canonicalOf is v's canonical JSON (a value decoded from JSON always
// encodes; nil on the impossible failure).
func canonicalOf(v any) []byte {
	j, _ := core.CanonicalJSON(v)
	return j
}

// orNil is s, or nil when it is empty (a change's absent side).
func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}
