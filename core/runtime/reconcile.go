package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
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
			"assets layers) with runtime observations (observe_javascript_runtime, inspect_electron_page, capture_electron_scenario, " +
			"inspect_web_page), " +
			"without I/O: each runtime script is matched by content (V8's SHA-256 content hash vs. the file digest) and " +
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
  "runtime_observations":{"type":"array","minItems":1,"maxItems":32,"description":"Evidence of observe_javascript_runtime, inspect_electron_page, capture_electron_scenario or inspect_web_page, inline or retained.","items":` + evidenceInput + `},
  "limits":{"type":"object","additionalProperties":false,"properties":{
    "max_runtime_entities":{"type":"integer","minimum":1,"maximum":1000000,"default":10000},
    "max_reconciliation_items":{"type":"integer","minimum":1,"maximum":1000000,"default":20000},
    "max_static_load_states":{"type":"integer","minimum":1,"maximum":1000000,"default":20000}}},
  "detail":{"enum":["concise","complete"],"default":"concise","description":"concise: load states other than resident-in-loaded-asset (summary counts all); complete: every one."}}}`),
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
	// sees are the Electron process roles whose script loads the capture
	// observes: a node inspector target is a main process, a page is a
	// renderer; a scenario observes no script loads.
	sees []string
}

func handleReconcile(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	in, err := core.Input[reconcileArgs](c)
	if err != nil {
		return nil, err
	}
	var layers []*layer
	apps := 0
	for i, sl := range in.StaticLayers {
		// The parameters name inputs by reference, whichever form came in.
		ev, err := evidenceArg(c, []any{"static_layers", i, "analysis"}, []producer{staticProducer})
		if err != nil {
			return nil, err
		}
		l := &layer{role: sl.Role, ev: ev, byPath: map[string][]*staticNode{}, byDigest: map[string][]*staticNode{},
			channels: map[string][]*staticNode{}, inWorker: map[string]bool{}}
		if err := decodeStatic(ev.NormalizedResult, &l.res); err != nil || l.res.Graph.GraphID == "" {
			return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: op + ": application evidence has no graph",
				Details: map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "invalid_record"}}
		}
		if l.role == "application" {
			apps++
		}
		for j, rm := range sl.RuntimeMappings {
			mp := mapping{Kind: rm.Kind, ArtifactPrefix: rm.ArtifactPrefix, Root: rm.Root, Prefix: rm.Prefix}
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
	lim := in.Limits
	if lim == nil {
		lim = &ReconcileLimits{}
	}
	maxEntities := intOr(lim.MaxRuntimeEntities, 10000)
	maxItems := intOr(lim.MaxReconciliationItems, 20000)
	maxStates := intOr(lim.MaxStaticLoadStates, 20000)

	var captures []capture
	var entities []*runtimeEntity
	nodes := []RuntimeGraphNode{}
	omittedEntities := 0
	seenCap := map[core.EvidenceID]bool{}
	for i := range in.RuntimeObservations {
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
		nodes = append(nodes, RuntimeGraphNode{NodeID: cp.targetID, Kind: "runtime-target", CaptureEvidenceID: string(ev.EvidenceID), Label: cp.kind})
		for _, e := range ents {
			if len(entities) >= maxEntities {
				omittedEntities++
				continue
			}
			entities = append(entities, e)
			nodes = append(nodes, RuntimeGraphNode{NodeID: e.nodeID, Kind: "runtime-" + e.kind, CaptureEvidenceID: string(ev.EvidenceID), Label: e.label})
		}
	}

	app := layers[slices.IndexFunc(layers, func(l *layer) bool { return l.role == "application" })]
	items := []Reconciliation{}
	edges := []RuntimeGraphEdge{}
	loadedBy := map[*staticNode][]string{}
	exercised := map[int]bool{} // captures with at least one script mapped into the application
	summary := map[string]int{"matched": 0, "ambiguous": 0, "unmatched": 0, "unknown": 0}
	for _, e := range entities {
		it := reconcileEntity(e, layers)
		if it.node != nil {
			loadedBy[it.node] = append(loadedBy[it.node], e.nodeID)
			edges = append(edges, RuntimeGraphEdge{EdgeID: "jre_" + core.MustDigest([]string{e.nodeID, it.node.NodeID, "observed_as"}),
				SourceNodeID: e.nodeID, TargetNodeID: it.node.NodeID, TargetLayerID: it.layer.id, Relation: "observed_as",
				Authority: "cross-layer-reconciliation", State: "inferred", Basis: it.basis})
		}
		if it.mapped && e.kind == "script" {
			exercised[e.capture] = true
		}
		summary[it.status]++
		k := reconciliationKey{EntityKind: e.kind, RuntimeNodeID: e.nodeID, Status: it.status, Basis: strPtr(it.basis), Confidence: it.confidence,
			Reason: it.reason, CandidateStaticCount: len(it.candidates), CandidateStaticNodes: core.NonNil(it.candidates)}
		if it.node != nil {
			k.StaticLayerID, k.StaticNodeID = &it.layer.id, &it.node.NodeID
		}
		items = append(items, Reconciliation{ReconciliationID: "jrr_item_" + core.MustDigest(k), EntityKind: k.EntityKind, RuntimeNodeID: k.RuntimeNodeID,
			StaticLayerID: k.StaticLayerID, StaticNodeID: k.StaticNodeID, Status: k.Status, Basis: k.Basis, Confidence: k.Confidence, Reason: k.Reason,
			CandidateStaticCount: k.CandidateStaticCount, CandidateStaticNodes: k.CandidateStaticNodes})
	}
	slices.SortFunc(items, func(a, b Reconciliation) int { return strings.Compare(a.ReconciliationID, b.ReconciliationID) })
	omittedItems := 0
	if len(items) > maxItems {
		omittedItems = len(items) - maxItems
		items = items[:maxItems]
	}

	// Load states of the application's modules.
	complete := false
	sees := map[string]bool{} // Electron process roles a complete, exercised capture observed
	for i, cp := range captures {
		if cp.complete && exercised[i] {
			complete = true
			for _, r := range cp.sees {
				sees[r] = true
			}
		}
	}
	roles := app.processRoles()
	states := []StaticLoadState{}
	stateCount := map[string]int{}
	resident := 0 // resident-in-loaded-asset states left out of a concise result
	// A static module is resident in a loaded asset when loading that asset
	// put it in memory: a bundled module (the asset contains it), or an
	// original source listed by a source map the asset (or one of its
	// bundled modules) maps to.
	parent := map[string]*staticNode{}    // bundled module -> the asset containing it
	mapper := map[string]*staticNode{}    // source map -> the asset or bundled module mapping to it
	sourceMap := map[string]*staticNode{} // source module -> the source map listing it
	byID := map[string]*staticNode{}
	for _, n := range app.res.Graph.Nodes {
		byID[n.NodeID] = n
	}
	for _, e := range app.res.Graph.Edges {
		s, t := byID[e.Source], byID[e.Target]
		if s == nil || t == nil {
			continue
		}
		switch {
		case e.Relation == "contains" && s.Kind == "javascript-asset" && t.Kind == "javascript-module":
			parent[t.NodeID] = s
		case e.Relation == "maps_to" && t.Kind == "source-map":
			mapper[t.NodeID] = s
		case e.Relation == "contains" && s.Kind == "source-map" && t.Kind == "source-module":
			sourceMap[t.NodeID] = s
		}
	}
	hostOf := func(n *staticNode) *staticNode {
		if n.Kind == "source-module" {
			if sm := sourceMap[n.NodeID]; sm != nil {
				n = mapper[sm.NodeID]
			} else {
				n = nil
			}
		}
		switch {
		case n == nil:
			return nil
		case n.Kind == "javascript-module":
			return parent[n.NodeID]
		case n.Kind == "javascript-asset":
			return n
		}
		return nil
	}
	for _, n := range app.res.Graph.Nodes {
		if n.Kind != "javascript-asset" && n.Kind != "javascript-module" && n.Kind != "source-module" {
			continue
		}
		host := hostOf(n)
		if host == nil {
			continue
		}
		// The path names the asset and, for what it holds, the module id
		// or the original source as the map names it; static_node_id
		// tells apart two entries with one path.
		p := host.prop("path")
		switch n.Kind {
		case "javascript-module":
			p += "#" + n.prop("module_id")
		case "source-module":
			p += "#source:" + n.prop("original_source")
		}
		ids := slices.Clone(loadedBy[host])
		slices.Sort(ids)
		st := StaticLoadState{StaticLayerID: app.id, StaticNodeID: n.NodeID, Path: p, RuntimeNodeIDs: core.NonNil(ids)}
		switch {
		case len(ids) > 0 && n.Kind == "source-module":
			st.State, st.Reason = "resident-in-loaded-asset", "a loaded asset's source map lists this original source"
		case len(ids) > 0 && host != n:
			st.State, st.Reason = "resident-in-loaded-asset", "the asset that bundles this module was loaded"
		case len(ids) > 0:
			st.State, st.Reason = "loaded", "a runtime script matched this module"
		case app.inWorker[host.NodeID]:
			st.State, st.Reason = "unknown", "the module runs in a worker isolate, which a passive observation of the main target does not see"
		case len(roles[host.NodeID]) > 0 && !slices.ContainsFunc(roles[host.NodeID], func(r string) bool { return sees[r] }):
			st.State, st.Reason = "unknown", unseenRolesReason(roles[host.NodeID])
		case complete:
			st.State, st.Reason = "not-observed-in-capture", "no complete capture that exercised the application root loaded this module"
		default:
			st.State, st.Reason = "unknown", "no complete capture exercised the application root"
		}
		stateCount[st.State]++
		if st.State == "resident-in-loaded-asset" && in.Detail != "complete" {
			resident++ // counted in summary; a bundle gives one per module
			continue
		}
		states = append(states, st)
	}
	slices.SortFunc(states, func(a, b StaticLoadState) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.StaticNodeID, b.StaticNodeID))
	})
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

	layerRows := make([]ReconciledLayer, len(layers))
	var links []core.EvidenceID
	for i, l := range layers {
		mps := make([]ReconciledLayerMapping, len(l.mappings))
		for j, m := range l.mappings {
			mps[j] = ReconciledLayerMapping{Kind: m.Kind, Root: strPtr(m.Root), Prefix: strPtr(m.Prefix), ArtifactPrefix: m.ArtifactPrefix}
		}
		layerRows[i] = ReconciledLayer{LayerID: l.id, Role: l.role, EvidenceID: string(l.ev.EvidenceID), GraphID: l.res.Graph.GraphID,
			RootArtifactSHA256: l.res.Root, InputPath: l.res.InputPath, Format: l.res.Format, RuntimeMappings: mps}
		links = append(links, l.ev.EvidenceID)
	}
	capRows := make([]ReconciledCapture, len(captures))
	for i, cp := range captures {
		capRows[i] = ReconciledCapture{EvidenceID: string(cp.ev.EvidenceID), CaptureSHA256: core.MustDigest(json.RawMessage(cp.ev.NormalizedResult)),
			Kind: cp.kind, TargetNodeID: cp.targetID, Complete: cp.complete}
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
	slices.SortFunc(edges, func(a, b RuntimeGraphEdge) int { return strings.Compare(a.EdgeID, b.EdgeID) })
	slices.SortFunc(nodes, func(a, b RuntimeGraphNode) int { return strings.Compare(a.NodeID, b.NodeID) })
	res := &ReconcileJavaScriptRuntimeResult{
		SchemaVersion:      1,
		ReconciliationID:   "jrr_" + core.MustDigest(map[string]any{"layers": layerRows, "captures": capRows}),
		StaticLayers:       layerRows,
		RuntimeCaptures:    capRows,
		Graph:              RuntimeGraph{Nodes: nodes, Edges: edges},
		Summary:            summary,
		Reconciliations:    items,
		StaticLoadStates:   states,
		SourceMapAuthority: SourceMapAuthority{UsedForPrimaryMatching: false, Reason: "source maps are analyst hints; matching uses content digests and locations only"},
		Coverage: ReconcileCoverage{Status: status, OmittedRuntimeEntities: omittedEntities, OmittedReconciliationItems: omittedItems,
			OmittedStaticLoadStates: omittedStates},
		EvidenceLinks: linkStrs,
		Limitations: []string{
			"Content matching compares V8's script hash (SHA-256 of the source text) with the static file digest: a source Node or a bundler wrapped or rewrote does not match by content.",
			"not-observed-in-capture means only that the supplied captures did not see the module load; code paths the run did not exercise stay unobserved.",
		},
	}
	if resident > 0 {
		res.Limitations = append(res.Limitations, fmt.Sprintf("%d resident-in-loaded-asset load states (modules or sources inside a loaded asset) "+
			"are counted in summary.load_state_resident_in_loaded_asset, not listed; detail \"complete\" lists them.", resident))
	}
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceInferred, Authority: authorityInference,
		Predicate: "rea.javascript-runtime-reconciliation/v1", Links: links}, nil
}

// reconcileArgs is ReconcileJavaScriptRuntimeInput without its Evidence
// members, which EvidenceAt resolves: decoding inline Evidence into
// json.RawMessage fields would copy tens of MB (21 MB of peak RSS for a
// webpack analysis) only to be ignored.
type reconcileArgs struct {
	StaticLayers []struct {
		Role            string           `json:"role"`
		RuntimeMappings []RuntimeMapping `json:"runtime_mappings,omitempty"`
	} `json:"static_layers"`
	RuntimeObservations []struct{}       `json:"runtime_observations"`
	Limits              *ReconcileLimits `json:"limits,omitempty"`
	Detail              string           `json:"detail,omitempty"`
}

// reconciliationKey is a reconciliation item without its id: the id is
// the digest of the rest.
type reconciliationKey struct {
	EntityKind           string   `json:"entity_kind"`
	RuntimeNodeID        string   `json:"runtime_node_id"`
	StaticLayerID        *string  `json:"static_layer_id"`
	StaticNodeID         *string  `json:"static_node_id"`
	Status               string   `json:"status"`
	Basis                *string  `json:"basis"`
	Confidence           string   `json:"confidence"`
	Reason               string   `json:"reason"`
	CandidateStaticCount int      `json:"candidate_static_count"`
	CandidateStaticNodes []string `json:"candidate_static_nodes"`
}

// fileURLPath is the absolute path of a file: URL with an empty (or
// localhost) host; escaped separators and NULs are refused, as the
// Electron file gate refuses them.
func fileURLPath(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.User != nil {
		return "", false
	}
	low := strings.ToLower(u.EscapedPath())
	if strings.Contains(low, "%2f") || strings.Contains(low, "%5c") || strings.Contains(u.Path, "\x00") || !strings.HasPrefix(u.Path, "/") {
		return "", false
	}
	return path.Clean(u.Path), true
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

// processRoles maps each node an Electron process runs to the process
// roles (main, preload, renderer, utility) that run it, sorted: what an
// electron-process node loads and what those modules import or load in
// turn, plus the roles the analysis derived for an asset.
func (l *layer) processRoles() map[string][]string {
	byID := map[string]*staticNode{}
	for _, n := range l.res.Graph.Nodes {
		byID[n.NodeID] = n
	}
	next := map[string][]string{}
	for _, e := range l.res.Graph.Edges {
		if e.Relation == "loads" || e.Relation == "imports" {
			next[e.Source] = append(next[e.Source], e.Target)
		}
	}
	set := map[string]map[string]bool{}
	add := func(id, role string) bool {
		if set[id] == nil {
			set[id] = map[string]bool{}
		}
		if set[id][role] {
			return false
		}
		set[id][role] = true
		return true
	}
	for _, n := range l.res.Graph.Nodes {
		var seeds []string
		if strings.HasPrefix(n.Kind, "electron-") && n.prop("role") != "" {
			seeds = []string{n.prop("role")}
		}
		for _, o := range n.Observations {
			if rs, ok := o.Properties["roles"].([]any); ok {
				for _, r := range rs {
					if r, ok := r.(string); ok && r != "" {
						seeds = append(seeds, r)
					}
				}
			}
		}
		for _, role := range seeds {
			queue := []string{n.NodeID}
			for len(queue) > 0 {
				id := queue[0]
				queue = queue[1:]
				// A worker's code runs in its own isolate, not the process
				// role's main context.
				if byID[id] != nil && byID[id].Kind == "worker" {
					continue
				}
				for _, t := range next[id] {
					if add(t, role) {
						queue = append(queue, t)
					}
				}
			}
			add(n.NodeID, role)
		}
	}
	out := make(map[string][]string, len(set))
	for id, rs := range set {
		if byID[id] != nil && strings.HasPrefix(byID[id].Kind, "electron-") {
			continue
		}
		for r := range rs {
			out[id] = append(out[id], r)
		}
		slices.Sort(out[id])
	}
	return out
}

// unseenRolesReason is the load-state reason of a module whose Electron
// process roles no complete capture observed.
func unseenRolesReason(roles []string) string {
	hints := map[string]string{
		"main":     "observe_javascript_runtime on the main process's inspector target does",
		"renderer": "inspect_electron_page or observe_javascript_runtime on the page target does",
	}
	names := map[string]string{"main": "the Electron main process", "renderer": "an Electron renderer", "preload": "an Electron preload",
		"utility": "an Electron utility process"}
	var hs, ns []string
	for _, r := range roles {
		if h := hints[r]; h != "" {
			hs = append(hs, h)
		}
		n := names[r]
		if n == "" {
			n = "the Electron " + r + " role"
		}
		ns = append(ns, n)
	}
	s := "the module runs in " + strings.Join(ns, " and ") + ", whose script loads no complete capture observed"
	if len(hs) > 0 {
		s += " (" + strings.Join(hs, "; ") + ")"
	}
	return s
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
			TargetID     string `json:"target_id"`
			ProtocolType string `json:"protocol_type"`
		} `json:"target"`
		Capture struct {
			Truncated bool `json:"truncated"`
		} `json:"capture"`
		Completeness struct {
			Status string `json:"status"`
			// inspect_web_page's sections the capture could not see whole
			AttachLimited []string `json:"attach_limited_sections"`
			Truncated     []string `json:"truncated_sections"`
			Unavailable   []string `json:"unavailable_sections"`
		} `json:"completeness"`
		Scripts json.RawMessage `json:"scripts"`
		// inspect_electron_page's workers, each a gated file it saw run
		Workers []struct {
			TargetID string `json:"target_id"`
			FilePath string `json:"file_path"`
		} `json:"workers"`
		IPC struct {
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
		switch r.Target.ProtocolType {
		case "node":
			cp.sees = []string{"main"}
		case "page":
			cp.sees = []string{"renderer"}
		}
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
		cp.kind, cp.complete, cp.sees = "electron", r.Completeness.Status == "complete", []string{"renderer"}
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
		// A worker's script ran in its own isolate, which the page's
		// script list does not hold: it is matched by its location (the
		// capture has no hash for it).
		for _, w := range r.Workers {
			if w.FilePath != "" {
				ents = append(ents, &runtimeEntity{nodeID: node("worker", w.TargetID+"\x00"+w.FilePath), kind: "script", capture: idx, filePath: w.FilePath, label: w.FilePath})
			}
		}
	case "inspect_web_page":
		// A browser page: file: script URLs are files (mapped under the
		// analyzed root like Electron's), http(s) ones go through the
		// operator's url-prefix mappings.
		// A passive attach always misses the network before it (status
		// attach_limited); the scripts section alone decides here.
		cc := r.Completeness
		cp.kind, cp.sees = "browser", []string{"renderer"}
		cp.complete = !slices.Contains(cc.AttachLimited, "scripts") && !slices.Contains(cc.Truncated, "scripts") && !slices.Contains(cc.Unavailable, "scripts")
		var s struct {
			Items []struct {
				Key  string `json:"script_key"`
				Hash string `json:"cdp_hash"`
				URL  string `json:"url"`
			} `json:"items"`
		}
		json.Unmarshal(r.Scripts, &s)
		for _, it := range s.Items {
			e := &runtimeEntity{nodeID: node("script", it.Key), kind: "script", capture: idx, hash: strings.ToLower(it.Hash), label: it.URL}
			if p, ok := fileURLPath(it.URL); ok {
				e.filePath = p
			} else {
				e.url = it.URL
			}
			ents = append(ents, e)
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
