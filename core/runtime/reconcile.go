package runtime

import (
	"context"
	"encoding/json"
	"path"
	"slices"
	"strings"

	"rea/core"
	"rea/core/jsapp"
)

var reconcileEffects = core.Effects{Idempotent: true, MutatesSession: true}

const retainedExample = `{"kind":"retained-evidence","evidence_id":"ev_0000000000000000000000000000000000000000000000000000000000000000"}`

func opReconcile() *core.Operation {
	return &core.Operation{
		Name:  "reconcile_javascript_runtime",
		Title: "Reconcile JavaScript Runtime",
		Description: "Reconcile the static application graph of analyze_javascript_application (one application layer, optional cache and " +
			"assets layers) with runtime observations (observe_javascript_runtime, inspect_electron_page, capture_electron_scenario), " +
			"without I/O: each runtime script is matched by content (V8's SHA-256 content hash against the static file digest) and " +
			"location (files under the analyzed root, or operator mappings) to a static node, as matched, ambiguous, unmatched or " +
			"unknown with the basis and confidence; each static module gets a load state (loaded, resident-in-loaded-asset, " +
			"not-observed-in-capture, unknown); IPC channels seen in a scenario are tied to the static channel nodes; matches add " +
			"observed_as edges.",
		Kind:    core.KindApplication,
		Effects: reconcileEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["static_layers","runtime_observations"],
 "properties":{
  "static_layers":{"type":"array","minItems":1,"maxItems":8,"description":"Static analyses; exactly one has role application.","items":{"type":"object","additionalProperties":false,"required":["role","analysis"],"properties":{
    "role":{"enum":["application","cache","assets"]},
    "analysis":` + evidenceInput + `,
    "runtime_mappings":{"type":"array","maxItems":32,"description":"Where runtime locations live in the analyzed artifact, beyond the analyzed root itself.","items":{"type":"object","additionalProperties":false,"required":["kind","artifact_prefix"],"properties":{
      "kind":{"enum":["file-root","url-prefix"]},"root":{"type":"string","minLength":1,"maxLength":4096},"prefix":{"type":"string","minLength":1,"maxLength":4096},"artifact_prefix":{"type":"string","maxLength":4096}}}}}}},
  "runtime_observations":{"type":"array","minItems":1,"maxItems":32,"description":"Evidence of observe_javascript_runtime, inspect_electron_page or capture_electron_scenario, inline or retained.","items":` + evidenceInput + `},
  "limits":{"type":"object","additionalProperties":false,"properties":{
    "max_runtime_entities":{"type":"integer","minimum":1,"maximum":1000000,"default":10000},
    "max_reconciliation_items":{"type":"integer","minimum":1,"maximum":1000000,"default":20000},
    "max_static_load_states":{"type":"integer","minimum":1,"maximum":1000000,"default":20000}}}}}`),
		Result:   reconcileSchema,
		Examples: ex(`{"static_layers":[{"role":"application","analysis":` + retainedExample + `}],"runtime_observations":[{"kind":"retained-evidence","evidence_id":"ev_1111111111111111111111111111111111111111111111111111111111111111"}]}`),
		Handler:  handleReconcile,
	}
}

var reconcileSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["schema_version","reconciliation_id","static_layers","runtime_captures","graph","summary","reconciliations","static_load_states","source_map_authority","coverage","evidence_links","limitations"],
"properties":{
 "schema_version":{"const":1},
 "reconciliation_id":{"type":"string","pattern":"^jrr_[0-9a-f]{64}$"},
 "static_layers":{"type":"array","items":{"type":"object","required":["layer_id","role","evidence_id","graph_id","root_artifact_sha256","input_path","format","runtime_mappings"]}},
 "runtime_captures":{"type":"array","items":{"type":"object","required":["evidence_id","capture_sha256","kind","target_node_id","complete"]}},
 "graph":{"type":"object","required":["nodes","edges"],"properties":{"nodes":{"type":"array","items":{"type":"object"}},"edges":{"type":"array","items":{"type":"object"}}}},
 "summary":{"type":"object","additionalProperties":{"type":"integer"}},
 "reconciliations":{"type":"array","items":{"type":"object","additionalProperties":false,
   "required":["reconciliation_id","entity_kind","runtime_node_id","static_layer_id","static_node_id","status","basis","confidence","reason","candidate_static_count","candidate_static_nodes"],
   "properties":{"reconciliation_id":{"type":"string"},"entity_kind":{"enum":["script","ipc-channel"]},"runtime_node_id":{"type":"string"},
     "static_layer_id":{"type":["string","null"]},"static_node_id":{"type":["string","null"]},"status":{"enum":["matched","ambiguous","unmatched","unknown"]},
     "basis":{"type":["string","null"]},"confidence":{"enum":["high","medium","low","none"]},"reason":{"type":"string"},
     "candidate_static_count":{"type":"integer","minimum":0},"candidate_static_nodes":{"type":"array","items":{"type":"string"}}}}},
 "static_load_states":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["static_layer_id","static_node_id","path","state","reason","runtime_node_ids"],
   "properties":{"static_layer_id":{"type":"string"},"static_node_id":{"type":"string"},"path":{"type":"string"},"state":{"enum":["loaded","resident-in-loaded-asset","not-observed-in-capture","unknown"]},"reason":{"type":"string"},"runtime_node_ids":{"type":"array","items":{"type":"string"}}}}},
 "source_map_authority":{"type":"object","required":["used_for_primary_matching","reason"],"properties":{"used_for_primary_matching":{"const":false},"reason":{"type":"string"}}},
 "coverage":{"type":"object","required":["status","omitted_runtime_entities","omitted_reconciliation_items","omitted_static_load_states"],"properties":{"status":{"enum":["complete-within-inputs","partial","truncated"]},
   "omitted_runtime_entities":{"type":"integer"},"omitted_reconciliation_items":{"type":"integer"},"omitted_static_load_states":{"type":"integer"}}},
 "evidence_links":{"type":"array","items":{"type":"string"}},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

// staticNode is the part of an application graph node reconciliation uses.
type staticNode struct {
	NodeID       string
	Kind         string
	Identity     map[string]any
	Observations []jsapp.Observation
}

func (n *staticNode) prop(k string) string {
	for _, o := range n.Observations {
		if s, ok := o.Properties[k].(string); ok && s != "" {
			return s
		}
	}
	if s, ok := n.Identity[k].(string); ok {
		return s
	}
	return ""
}

type staticEdge struct {
	Source, Target, Relation string
}

type staticResult struct {
	InputPath string `json:"input_path"`
	Root      string `json:"root_artifact_sha256"`
	Format    string `json:"format"`
	Graph     struct {
		GraphID string
		Nodes   []*staticNode
		Edges   []staticEdge
	} `json:"-"` // decodeStatic fills it
}

// decodeStatic reads an application result: its graph through the
// application family's decoder (the graph's wire form is lean, see
// jsapp.DecodeGraph).
func decodeStatic(normalized []byte, res *staticResult) error {
	if err := json.Unmarshal(normalized, res); err != nil {
		return err
	}
	g, err := jsapp.DecodeGraph(normalized)
	if err != nil {
		return err
	}
	res.Graph.GraphID = g.GraphID
	res.Graph.Nodes = make([]*staticNode, len(g.Nodes))
	for i, n := range g.Nodes {
		res.Graph.Nodes[i] = &staticNode{NodeID: n.NodeID, Kind: n.Kind, Identity: n.Identity, Observations: n.Observations}
	}
	res.Graph.Edges = make([]staticEdge, len(g.Edges))
	for i, e := range g.Edges {
		res.Graph.Edges[i] = staticEdge{Source: e.SourceNodeID, Target: e.TargetNodeID, Relation: e.Relation}
	}
	return nil
}

type mapping struct {
	Kind, Root, Prefix, ArtifactPrefix string
}

// layer is one indexed static layer.
type layer struct {
	id       string
	role     string
	ev       *core.Evidence
	res      staticResult
	mappings []mapping
	byPath   map[string][]*staticNode
	byDigest map[string][]*staticNode
	channels map[string][]*staticNode
	inWorker map[string]bool // node ids loaded by a worker node
}

// runtimeEntity is one runtime script or IPC channel to reconcile.
type runtimeEntity struct {
	nodeID   string
	kind     string // script | ipc-channel
	capture  int
	filePath string // scripts with a file location
	url      string // scripts with a URL location
	hash     string // V8 content hash (SHA-256 of the source), "" when none
	channel  string
	label    string
}

type capture struct {
	ev       *core.Evidence
	kind     string
	targetID string
	complete bool
}

func handleReconcile(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	rawLayers, _ := c.Args["static_layers"].([]any)
	var layers []*layer
	apps := 0
	for i, rl := range rawLayers {
		m, _ := rl.(map[string]any)
		// The parameters name inputs by reference, whichever form came in.
		ev, err := evidenceArg(c, []any{"static_layers", i, "analysis"}, []producer{staticProducer})
		if err != nil {
			return nil, err
		}
		l := &layer{role: m["role"].(string), ev: ev, byPath: map[string][]*staticNode{}, byDigest: map[string][]*staticNode{},
			channels: map[string][]*staticNode{}, inWorker: map[string]bool{}}
		if err := decodeStatic(ev.NormalizedResult, &l.res); err != nil || l.res.Graph.GraphID == "" {
			return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: op + ": application evidence has no graph",
				Details: map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "invalid_record"}}
		}
		if l.role == "application" {
			apps++
		}
		rms, _ := m["runtime_mappings"].([]any)
		for j, rm := range rms {
			mm, _ := rm.(map[string]any)
			mp := mapping{Kind: mm["kind"].(string), ArtifactPrefix: str(mm["artifact_prefix"])}
			mp.Root, mp.Prefix = str(mm["root"]), str(mm["prefix"])
			if (mp.Kind == "file-root" && !strings.HasPrefix(mp.Root, "/")) || (mp.Kind == "url-prefix" && mp.Prefix == "") {
				return nil, core.InvalidRequest(op, core.Issue{Path: []any{"static_layers", i, "runtime_mappings", j}, Reason: core.ReasonInvalidValue,
					Message: "a file-root mapping needs an absolute root, a url-prefix mapping a prefix"})
			}
			l.mappings = append(l.mappings, mp)
		}
		l.index()
		l.id = "jrl_" + core.MustDigest(map[string]any{"role": l.role, "evidence_id": string(ev.EvidenceID), "index": i})
		layers = append(layers, l)
	}
	if apps != 1 {
		return nil, core.InvalidRequest(op, core.Issue{Path: []any{"static_layers"}, Reason: core.ReasonInvalidValue, Message: "exactly one static layer must have role application"})
	}
	limits, _ := c.Args["limits"].(map[string]any)
	maxEntities := core.IntArg(limits, "max_runtime_entities", 10000)
	maxItems := core.IntArg(limits, "max_reconciliation_items", 20000)
	maxStates := core.IntArg(limits, "max_static_load_states", 20000)

	rawObs, _ := c.Args["runtime_observations"].([]any)
	var captures []capture
	var entities []*runtimeEntity
	nodes := []map[string]any{}
	omittedEntities := 0
	seenCap := map[core.EvidenceID]bool{}
	for i := range rawObs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ev, err := evidenceArg(c, []any{"runtime_observations", i}, runtimeProducers)
		if err != nil {
			return nil, err
		}
		if seenCap[ev.EvidenceID] {
			continue
		}
		seenCap[ev.EvidenceID] = true
		cp, ents, err := runtimeEntities(ev, len(captures))
		if err != nil {
			return nil, err
		}
		captures = append(captures, cp)
		nodes = append(nodes, map[string]any{"node_id": cp.targetID, "kind": "runtime-target", "capture_evidence_id": string(ev.EvidenceID), "label": cp.kind})
		for _, e := range ents {
			if len(entities) >= maxEntities {
				omittedEntities++
				continue
			}
			entities = append(entities, e)
			nodes = append(nodes, map[string]any{"node_id": e.nodeID, "kind": "runtime-" + e.kind, "capture_evidence_id": string(ev.EvidenceID), "label": e.label})
		}
	}

	app := layers[slices.IndexFunc(layers, func(l *layer) bool { return l.role == "application" })]
	var items []map[string]any
	var edges []map[string]any
	loadedBy := map[*staticNode][]string{}
	exercised := map[int]bool{} // captures with at least one script mapped into the application
	summary := map[string]int{"matched": 0, "ambiguous": 0, "unmatched": 0, "unknown": 0}
	for _, e := range entities {
		it := reconcileEntity(e, layers)
		if it.node != nil {
			loadedBy[it.node] = append(loadedBy[it.node], e.nodeID)
			edges = append(edges, map[string]any{"edge_id": "jre_" + core.MustDigest([]string{e.nodeID, it.node.NodeID, "observed_as"}),
				"source_node_id": e.nodeID, "target_node_id": it.node.NodeID, "target_layer_id": it.layer.id, "relation": "observed_as",
				"authority": "cross-layer-reconciliation", "state": "inferred", "basis": it.basis})
		}
		if it.mapped && e.kind == "script" {
			exercised[e.capture] = true
		}
		summary[it.status]++
		row := map[string]any{"entity_kind": e.kind, "runtime_node_id": e.nodeID, "static_layer_id": nil, "static_node_id": nil,
			"status": it.status, "basis": nullable(it.basis), "confidence": it.confidence, "reason": it.reason,
			"candidate_static_count": len(it.candidates), "candidate_static_nodes": core.NonNil(it.candidates)}
		if it.node != nil {
			row["static_layer_id"], row["static_node_id"] = it.layer.id, it.node.NodeID
		}
		row["reconciliation_id"] = "jrr_item_" + core.MustDigest(row)
		items = append(items, row)
	}
	slices.SortFunc(items, func(a, b map[string]any) int {
		return strings.Compare(a["reconciliation_id"].(string), b["reconciliation_id"].(string))
	})
	omittedItems := 0
	if len(items) > maxItems {
		omittedItems = len(items) - maxItems
		items = items[:maxItems]
	}

	// Load states of the application's modules.
	complete := false
	for i, cp := range captures {
		if cp.complete && exercised[i] {
			complete = true
		}
	}
	var states []map[string]any
	stateCount := map[string]int{}
	parent := map[string]*staticNode{} // bundled module -> the asset containing it
	byID := map[string]*staticNode{}
	for _, n := range app.res.Graph.Nodes {
		byID[n.NodeID] = n
	}
	for _, e := range app.res.Graph.Edges {
		if s, t := byID[e.Source], byID[e.Target]; e.Relation == "contains" && s != nil && t != nil && s.Kind == "javascript-asset" && t.Kind == "javascript-module" {
			parent[t.NodeID] = s
		}
	}
	for _, n := range app.res.Graph.Nodes {
		if n.Kind != "javascript-asset" && n.Kind != "javascript-module" {
			continue
		}
		p, host := n.prop("path"), n
		if n.Kind == "javascript-module" {
			if host = parent[n.NodeID]; host == nil {
				continue
			}
			p = host.prop("path") + "#" + n.prop("module_id") + n.NodeID[len(n.NodeID)-8:]
		}
		ids := slices.Clone(loadedBy[host])
		slices.Sort(ids)
		st := map[string]any{"static_layer_id": app.id, "static_node_id": n.NodeID, "path": p, "runtime_node_ids": core.NonNil(ids)}
		switch {
		case len(ids) > 0 && host != n:
			st["state"], st["reason"] = "resident-in-loaded-asset", "the asset that bundles this module was loaded"
		case len(ids) > 0:
			st["state"], st["reason"] = "loaded", "a runtime script matched this module"
		case app.inWorker[host.NodeID]:
			st["state"], st["reason"] = "unknown", "the module runs in a worker isolate, which a passive observation of the main target does not see"
		case complete:
			st["state"], st["reason"] = "not-observed-in-capture", "no complete capture that exercised the application root loaded this module"
		default:
			st["state"], st["reason"] = "unknown", "no complete capture exercised the application root"
		}
		stateCount[st["state"].(string)]++
		states = append(states, st)
	}
	slices.SortFunc(states, func(a, b map[string]any) int { return strings.Compare(a["path"].(string), b["path"].(string)) })
	omittedStates := 0
	if len(states) > maxStates {
		omittedStates = len(states) - maxStates
		states = states[:maxStates]
	}
	for k, v := range stateCount {
		summary["load_state_"+strings.ReplaceAll(k, "-", "_")] = v
	}
	summary["runtime_entities"] = len(entities)
	summary["observed_as_edges"] = len(edges)

	layerRows := make([]map[string]any, len(layers))
	var links []core.EvidenceID
	for i, l := range layers {
		mps := make([]map[string]any, len(l.mappings))
		for j, m := range l.mappings {
			mps[j] = map[string]any{"kind": m.Kind, "root": nullable(m.Root), "prefix": nullable(m.Prefix), "artifact_prefix": m.ArtifactPrefix}
		}
		layerRows[i] = map[string]any{"layer_id": l.id, "role": l.role, "evidence_id": string(l.ev.EvidenceID), "graph_id": l.res.Graph.GraphID,
			"root_artifact_sha256": l.res.Root, "input_path": l.res.InputPath, "format": l.res.Format, "runtime_mappings": mps}
		links = append(links, l.ev.EvidenceID)
	}
	capRows := make([]map[string]any, len(captures))
	for i, cp := range captures {
		capRows[i] = map[string]any{"evidence_id": string(cp.ev.EvidenceID), "capture_sha256": core.MustDigest(json.RawMessage(cp.ev.NormalizedResult)),
			"kind": cp.kind, "target_node_id": cp.targetID, "complete": cp.complete}
		links = append(links, cp.ev.EvidenceID)
	}
	status := "complete-within-inputs"
	if omittedEntities+omittedItems+omittedStates > 0 {
		status = "truncated"
	} else if !complete {
		status = "partial"
	}
	linkStrs := make([]string, len(links))
	for i, l := range links {
		linkStrs[i] = string(l)
	}
	slices.SortFunc(edges, func(a, b map[string]any) int { return strings.Compare(a["edge_id"].(string), b["edge_id"].(string)) })
	slices.SortFunc(nodes, func(a, b map[string]any) int { return strings.Compare(a["node_id"].(string), b["node_id"].(string)) })
	res := map[string]any{
		"schema_version":       1,
		"static_layers":        layerRows,
		"runtime_captures":     capRows,
		"graph":                map[string]any{"nodes": nodes, "edges": core.NonNil(edges)},
		"summary":              summary,
		"reconciliations":      core.NonNil(items),
		"static_load_states":   core.NonNil(states),
		"source_map_authority": map[string]any{"used_for_primary_matching": false, "reason": "source maps are analyst hints; matching uses content digests and locations only"},
		"coverage": map[string]any{"status": status, "omitted_runtime_entities": omittedEntities, "omitted_reconciliation_items": omittedItems,
			"omitted_static_load_states": omittedStates},
		"evidence_links": linkStrs,
		"limitations": []string{
			"Content matching compares V8's script hash (SHA-256 of the source text) with the static file digest: a source Node or a bundler wrapped or rewrote does not match by content.",
			"not-observed-in-capture means only that the supplied captures did not see the module load; code paths the run did not exercise stay unobserved.",
		},
	}
	res["reconciliation_id"] = "jrr_" + core.MustDigest(map[string]any{"layers": layerRows, "captures": capRows})
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceInferred, Authority: authorityInference,
		Predicate: "rea.javascript-runtime-reconciliation/v1", Links: links}, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// index builds the layer's lookups.
func (l *layer) index() {
	workers := map[string]bool{}
	for _, n := range l.res.Graph.Nodes {
		switch n.Kind {
		case "ipc-channel":
			if ch := n.prop("channel"); ch != "" {
				l.channels[ch] = append(l.channels[ch], n)
			}
		case "worker":
			workers[n.NodeID] = true
		}
		p, d := n.prop("path"), n.prop("sha256")
		if n.Kind == "artifact" || n.Kind == "package" || p == "" {
			continue
		}
		l.byPath[p] = append(l.byPath[p], n)
		if d != "" {
			l.byDigest[d] = append(l.byDigest[d], n)
		}
	}
	for _, e := range l.res.Graph.Edges {
		if e.Relation == "loads" && workers[e.Source] {
			l.inWorker[e.Target] = true
		}
	}
}

// artifactPath maps a runtime location into the layer: files under the
// analyzed root (automatic) or an operator file-root, URLs under an
// operator url-prefix. basis names how.
func (l *layer) artifactPath(e *runtimeEntity) (p, basis string, ok bool) {
	if e.filePath != "" {
		root := strings.TrimRight(l.res.InputPath, "/")
		if root != "" && strings.HasPrefix(e.filePath, root+"/") {
			return strings.TrimPrefix(e.filePath, root+"/"), "artifact-path", true
		}
		for _, m := range l.mappings {
			r := strings.TrimRight(m.Root, "/")
			if m.Kind == "file-root" && strings.HasPrefix(e.filePath, r+"/") {
				return path.Join(m.ArtifactPrefix, strings.TrimPrefix(e.filePath, r+"/")), "operator-file-mapping", true
			}
		}
	}
	if e.url != "" {
		for _, m := range l.mappings {
			if m.Kind == "url-prefix" && strings.HasPrefix(e.url, m.Prefix) {
				rest := strings.TrimPrefix(e.url, m.Prefix)
				if i := strings.IndexAny(rest, "?#"); i >= 0 {
					rest = rest[:i]
				}
				return path.Join(m.ArtifactPrefix, rest), "operator-url-mapping", true
			}
		}
	}
	return "", "", false
}

type outcome struct {
	status, basis, confidence, reason string
	layer                             *layer
	node                              *staticNode
	candidates                        []string
	mapped                            bool
}

type cand struct {
	l *layer
	n *staticNode
}

func ids(cs []cand) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.n.NodeID
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// reconcileEntity applies BROWSER.md's matching rules to one entity.
func reconcileEntity(e *runtimeEntity, layers []*layer) outcome {
	if e.kind == "ipc-channel" {
		var cs []cand
		for _, l := range layers {
			for _, n := range l.channels[e.channel] {
				cs = append(cs, cand{l, n})
			}
		}
		switch len(cs) {
		case 1:
			return outcome{status: "matched", basis: "ipc-channel-name", confidence: "high", reason: "unique-channel-name-match", layer: cs[0].l, node: cs[0].n, candidates: ids(cs)}
		case 0:
			return outcome{status: "unmatched", confidence: "none", reason: "no-static-channel"}
		}
		return outcome{status: "ambiguous", confidence: "low", reason: "several-static-channels", candidates: ids(cs)}
	}
	var byLoc, byDigest, both []cand
	mapped, basis := false, ""
	for _, l := range layers {
		p, b, ok := l.artifactPath(e)
		if ok {
			mapped = true
			if basis == "" {
				basis = b
			}
			for _, n := range l.byPath[p] {
				byLoc = append(byLoc, cand{l, n})
			}
		}
		if e.hash != "" {
			for _, n := range l.byDigest[e.hash] {
				byDigest = append(byDigest, cand{l, n})
			}
		}
	}
	for _, d := range byDigest {
		if slices.ContainsFunc(byLoc, func(c cand) bool { return c.n == d.n }) {
			both = append(both, d)
		}
	}
	o := outcome{mapped: mapped}
	if e.hash != "" {
		switch {
		case len(both) == 1:
			return outcome{status: "matched", basis: "content-sha256", confidence: "high", reason: "content-and-location-match", layer: both[0].l, node: both[0].n, candidates: ids(byDigest), mapped: mapped}
		case len(byDigest) == 1:
			return outcome{status: "matched", basis: "content-sha256", confidence: "high", reason: "unique-content-match", layer: byDigest[0].l, node: byDigest[0].n, candidates: ids(byDigest), mapped: mapped}
		case len(byDigest) > 1:
			o.status, o.confidence, o.reason, o.candidates = "ambiguous", "low", "several-static-nodes-share-the-content", ids(byDigest)
			return o
		case len(byLoc) > 0:
			o.status, o.confidence, o.reason, o.candidates = "unmatched", "none", "captured-content-disagrees-with-static-location", ids(byLoc)
			return o
		case mapped:
			o.status, o.confidence, o.reason = "unmatched", "none", "no-static-content-match"
			return o
		}
		o.status, o.confidence, o.reason = "unknown", "none", "no-authorized-location-mapping"
		return o
	}
	switch {
	case len(byLoc) == 1:
		return outcome{status: "matched", basis: basis, confidence: "medium", reason: "unique-location-match", layer: byLoc[0].l, node: byLoc[0].n, candidates: ids(byLoc), mapped: true}
	case len(byLoc) > 1:
		o.status, o.confidence, o.reason, o.candidates = "ambiguous", "low", "several-static-nodes-at-the-location", ids(byLoc)
	case mapped:
		o.status, o.confidence, o.reason = "unmatched", "none", "no-static-node-at-the-location"
	default:
		o.status, o.confidence, o.reason = "unknown", "none", "no-authorized-location-mapping"
	}
	return o
}

// runtimeEntities reads a runtime observation's scripts (and a scenario's
// IPC channels) as entities.
func runtimeEntities(ev *core.Evidence, idx int) (capture, []*runtimeEntity, error) {
	var r struct {
		Target struct {
			TargetID string `json:"target_id"`
		} `json:"target"`
		Capture struct {
			Truncated bool `json:"truncated"`
		} `json:"capture"`
		Completeness struct {
			Status string `json:"status"`
		} `json:"completeness"`
		Scripts json.RawMessage `json:"scripts"`
		IPC     struct {
			Events []struct {
				Channel string `json:"channel"`
			} `json:"events"`
			Truncated bool `json:"truncated"`
		} `json:"ipc"`
		Coverage struct {
			Status string `json:"status"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil {
		return capture{}, nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: "runtime observation is not readable: " + err.Error(),
			Details: map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "invalid_record"}}
	}
	cp := capture{ev: ev}
	node := func(kind, key string) string {
		return "jrn_" + core.MustDigest(map[string]any{"capture": string(ev.EvidenceID), "kind": kind, "key": key})
	}
	var ents []*runtimeEntity
	switch ev.Operation {
	case "observe_javascript_runtime":
		cp.kind, cp.complete = "v8-inspector", !r.Capture.Truncated
		var s struct {
			Items []struct {
				Key      string `json:"script_key"`
				Hash     string `json:"cdp_hash"`
				Location struct {
					Kind         string `json:"kind"`
					FilePath     string `json:"file_path"`
					SanitizedURL string `json:"sanitized_url"`
				} `json:"location"`
			} `json:"items"`
		}
		json.Unmarshal(r.Scripts, &s)
		for _, it := range s.Items {
			e := &runtimeEntity{nodeID: node("script", it.Key), kind: "script", capture: idx, hash: strings.ToLower(it.Hash),
				filePath: it.Location.FilePath, url: it.Location.SanitizedURL, label: it.Location.FilePath + it.Location.SanitizedURL}
			ents = append(ents, e)
		}
	case "inspect_electron_page":
		cp.kind, cp.complete = "electron", r.Completeness.Status == "complete"
		var s struct {
			Items []struct {
				Key      string `json:"script_key"`
				Hash     string `json:"cdp_hash"`
				FilePath string `json:"file_path"`
			} `json:"items"`
		}
		json.Unmarshal(r.Scripts, &s)
		for _, it := range s.Items {
			ents = append(ents, &runtimeEntity{nodeID: node("script", it.Key), kind: "script", capture: idx, hash: strings.ToLower(it.Hash), filePath: it.FilePath, label: it.FilePath})
		}
	case "capture_electron_scenario":
		cp.kind, cp.complete = "electron-active", r.Coverage.Status == "complete" && !r.IPC.Truncated
		seen := map[string]bool{}
		for _, ev := range r.IPC.Events {
			if ev.Channel == "" || seen[ev.Channel] {
				continue
			}
			seen[ev.Channel] = true
			ents = append(ents, &runtimeEntity{nodeID: node("ipc-channel", ev.Channel), kind: "ipc-channel", capture: idx, channel: ev.Channel, label: ev.Channel})
		}
	}
	cp.targetID = node("target", r.Target.TargetID)
	slices.SortFunc(ents, func(a, b *runtimeEntity) int { return strings.Compare(a.nodeID, b.nodeID) })
	return cp, ents, nil
}
