package jsapp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"rea/core"
)

// Reconstruction: what must be rebuilt to re-implement a traced feature
// (the obligation ledger), and how much of it a reconstruction covers.
// An obligation is derived from one node on the trace's paths; its
// requirement names the observable behaviour (a channel, an endpoint, an
// export, a module) so a re-implementation can be checked by analysing it
// with analyze_javascript_application.

func opBuildReconstructionLedger() *core.Operation {
	return &core.Operation{
		Name:  "build_reconstruction_obligation_ledger",
		Title: "Build Reconstruction Obligation Ledger",
		Description: "From a trace_application_feature result and the application it traced (each inline or retained), list what a " +
			"re-implementation must provide: modules, IPC channels (with their handler and sender sides), context-bridge APIs, endpoints, " +
			"storage, system APIs, workers, native exports and Electron processes on the traced paths, each with the evidence that supports it and " +
			"whether that evidence is complete (evidenced), partial or unknown.",
		Kind:    core.KindApplication,
		Effects: jsappEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["trace","application"],
 "properties":{
  "trace":{"anyOf":[{"type":"object","additionalProperties":false,"required":["kind","evidence_id"],"properties":{"kind":{"const":"retained-evidence"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}},
   {"type":"object","required":["evidence_id","operation","normalized_result"],"properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"operation":{"const":"trace_application_feature"},"normalized_result":{"type":"object"}}}]},
  "application":` + jsappEvidenceInput + `,
  "limits":{"type":"object","additionalProperties":false,"properties":{"max_obligations":{"type":"integer","minimum":1,"maximum":10000}}}}}`),
		Result:   genericResult("ledger_id", "source_trace_id", "source_graph_id", "obligations", "summary", "coverage"),
		Examples: []json.RawMessage{json.RawMessage(`{"trace":{"kind":"retained-evidence","evidence_id":"ev_2222222222222222222222222222222222222222222222222222222222222222"},"application":` + retainedExample + `}`)},
		Handler:  handleBuildLedger,
	}
}

// obligationKinds maps node kinds to what must be rebuilt.
var obligationKinds = map[string]string{
	"javascript-asset": "module", "javascript-module": "bundled-module", "source-module": "original-source",
	"ipc-channel": "ipc-channel", "context-bridge-api": "bridge-api", "endpoint": "endpoint", "target": "endpoint",
	"storage": "storage", "worker": "worker", "service-worker": "worker", "native-export": "native-export", "native-addon": "native-addon",
	"electron-main": "process", "electron-preload": "process", "electron-renderer": "process", "electron-utility": "process",
	"browser-window": "window", "system-api": "system-api",
}

func handleBuildLedger(ctx context.Context, c *core.Call) (any, error) {
	tev, err := jsappEvidenceArg(c, "trace", "trace_application_feature")
	if err != nil {
		return nil, err
	}
	aev, err := jsappEvidenceArg(c, "application", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	ix, err := indexApp(aev)
	if err != nil {
		return nil, err
	}
	var tr struct {
		TraceID       string           `json:"trace_id"`
		SourceGraphID string           `json:"source_graph_id"`
		Paths         []map[string]any `json:"paths"`
		SeedMatches   []map[string]any `json:"seed_matches"`
	}
	if err := json.Unmarshal(tev.NormalizedResult, &tr); err != nil {
		return nil, err
	}
	if tr.SourceGraphID != ix.res.Graph.GraphID {
		return nil, referenceErr(aev.EvidenceID, "wrong_operation", "the application the trace was computed on (graph "+tr.SourceGraphID+")", "graph "+ix.res.Graph.GraphID)
	}
	in, err := core.Input[BuildReconstructionObligationLedgerInput](c)
	if err != nil {
		return nil, err
	}
	maxOb := 2000
	if in.Limits != nil {
		maxOb = cmp.Or(in.Limits.MaxObligations, maxOb)
	}
	onPath := map[string]bool{}
	for _, s := range tr.SeedMatches {
		if id, ok := s["node_id"].(string); ok {
			onPath[id] = true
		}
	}
	for _, p := range tr.Paths {
		if ids, ok := p["node_ids"].([]any); ok {
			for _, x := range ids {
				if s, ok := x.(string); ok {
					onPath[s] = true
				}
			}
		}
	}
	var obs []map[string]any
	summary := map[string]int{"total": 0, "evidenced": 0, "partial": 0, "unknown": 0}
	byKind := map[string]int{}
	truncated := false
	for _, id := range jaKeys(onPath) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := ix.nodes[id]
		if n == nil {
			continue
		}
		kind, ok := obligationKinds[n.Kind]
		if !ok {
			continue
		}
		if len(obs) >= maxOb {
			truncated = true
			break
		}
		o := obligation(ix, n, kind)
		obs = append(obs, o)
		summary["total"]++
		summary[o["status"].(string)]++
		byKind[kind]++
	}
	res := &BuildReconstructionObligationLedgerResult{SourceTraceID: tr.TraceID, SourceGraphID: tr.SourceGraphID, Obligations: jaMaps(obs),
		Summary:  LedgerSummary{Counts: summary, ByKind: byKind},
		Coverage: ReconstructionCoverage{Status: map[bool]string{true: "partial", false: "complete"}[truncated], Truncated: truncated}}
	res.LedgerID = digestWithout(res, "ledger_id")
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Links: []core.EvidenceID{tev.EvidenceID, aev.EvidenceID}}, nil
}

// obligation describes one node as a requirement with its support.
func obligation(ix *appIndex, n *Node, kind string) map[string]any {
	status := "evidenced"
	var req string
	match := map[string]any{"kind": n.Kind}
	switch n.Kind {
	case "javascript-asset":
		p := n.propString("path")
		req = "provide module " + p
		match["path"] = p
		if st := n.propString("status"); st != "parsed" {
			status = "partial"
		}
		if ex, ok := n.prop("exports").([]any); ok {
			match["exports"] = ex
			req += fmt.Sprintf(" exporting %d names", len(ex))
		}
	case "javascript-module":
		req = "provide bundled module " + n.propString("module_id")
		match["fingerprint_sha256"] = n.propString("fingerprint_sha256")
	case "source-module":
		req = "provide original source " + n.propString("original_source")
		match["original_source"] = n.propString("original_source")
		if has, _ := n.prop("has_content").(bool); !has {
			status = "partial"
		}
	case "ipc-channel":
		ch := n.propString("channel")
		req = fmt.Sprintf("handle IPC channel %q in the main process and call it from the renderer side", ch)
		match["channel"] = ch
		if n.propString("status") != "paired" {
			status = "partial"
		}
	case "context-bridge-api":
		req = "expose window." + n.propString("world_key") + " through contextBridge"
		match["world_key"] = n.propString("world_key")
		match["members"] = n.prop("members")
	case "endpoint", "target":
		req = "contact " + n.propString("url")
		match["url"] = n.propString("url")
		if lit, ok := n.prop("literal").(bool); ok && !lit {
			status = "partial"
		}
	case "storage":
		req = "persist to " + n.label()
		match["key"] = n.label()
		if strings.Contains(n.propString("key"), "${}") {
			status = "partial"
		}
	case "worker", "service-worker":
		req = "run " + n.Kind + " " + n.label()
		match["label"] = n.label()
	case "native-export":
		req = "implement native export " + n.propString("export") + " of " + n.propString("addon")
		match["export"] = n.propString("export")
		status = "unknown" // its behaviour is native code, not in this Evidence
	case "native-addon":
		req = "provide native add-on " + n.propString("path")
		match["path"] = n.propString("path")
		status = "unknown"
	case "system-api":
		// A call the code makes to the system (sinks.go). With constant
		// arguments the rebuilt app must make that very call; with a
		// computed one it must call the API, and what it hands it is
		// known here only as the source writes it: partial.
		req = "call " + n.label()
		match["api"] = n.propString("api")
		lit, _ := n.prop("literal").(bool)
		match["literal"] = lit
		if lit {
			match["call"] = n.label()
		} else {
			status = "partial"
		}
	case "browser-window":
		req = "create a browser window"
		for _, k := range []string{"contextIsolation", "nodeIntegration", "sandbox"} {
			if v := n.prop(k); v != nil {
				match[k] = v
			}
		}
		if n.prop("web_preferences_unseen") != nil {
			status = "partial" // some settings were past the engine's cut or computed
		}
	default:
		req = "run the " + strings.TrimPrefix(n.Kind, "electron-") + " process " + n.propString("path")
		match["role"] = n.propString("role")
	}
	locs := []any{}
	for _, o := range n.Observations {
		for _, l := range o.Evidence.Locations {
			locs = append(locs, l)
		}
		if len(locs) > 8 {
			break
		}
	}
	if n.Kind == "ipc-channel" && ix != nil {
		// A channel's node is derived (no location of its own): its
		// evidence is where it is handled and where it is called.
		for _, e := range append(append([]*Edge(nil), ix.out[n.NodeID]...), ix.in[n.NodeID]...) {
			for _, l := range e.Evidence.Locations {
				if len(locs) > 8 {
					break
				}
				locs = append(locs, l)
			}
		}
	}
	o := map[string]any{"node_id": n.NodeID, "kind": kind, "requirement": req, "status": status, "match": match, "evidence_locations": locs}
	o["obligation_id"] = core.MustDigest(map[string]any{"node_id": n.NodeID, "kind": kind, "requirement": req})
	return o
}

func opEvaluateReconstructionCoverage() *core.Operation {
	return &core.Operation{
		Name:  "evaluate_reconstruction_coverage",
		Title: "Evaluate Reconstruction Coverage",
		Description: "Check a reconstruction against an obligation ledger: the reconstruction is analyze_javascript_application Evidence of " +
			"the re-implementation (inline or retained). Each obligation is covered (an equivalent channel, endpoint, storage key, bridge API, " +
			"module or export is observed), missing, or unknown (native behaviour or evidence too weak to decide).",
		Kind:    core.KindApplication,
		Effects: jsappEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["ledger","reconstruction"],
 "properties":{
  "ledger":{"anyOf":[{"type":"object","additionalProperties":false,"required":["kind","evidence_id"],"properties":{"kind":{"const":"retained-evidence"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}},
   {"type":"object","required":["evidence_id","operation","normalized_result"],"properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"operation":{"const":"build_reconstruction_obligation_ledger"},"normalized_result":{"type":"object"}}}]},
  "reconstruction":` + jsappEvidenceInput + `}}`),
		Result:   genericResult("evaluation_id", "ledger_id", "reconstruction_graph_id", "items", "summary", "coverage"),
		Examples: []json.RawMessage{json.RawMessage(`{"ledger":{"kind":"retained-evidence","evidence_id":"ev_3333333333333333333333333333333333333333333333333333333333333333"},"reconstruction":` + retainedExample + `}`)},
		Handler:  handleEvaluateCoverage,
	}
}

func handleEvaluateCoverage(ctx context.Context, c *core.Call) (any, error) {
	lev, err := jsappEvidenceArg(c, "ledger", "build_reconstruction_obligation_ledger")
	if err != nil {
		return nil, err
	}
	rev, err := jsappEvidenceArg(c, "reconstruction", "analyze_javascript_application")
	if err != nil {
		return nil, err
	}
	ix, err := indexApp(rev)
	if err != nil {
		return nil, err
	}
	var ledger struct {
		LedgerID    string           `json:"ledger_id"`
		Obligations []map[string]any `json:"obligations"`
	}
	if err := json.Unmarshal(lev.NormalizedResult, &ledger); err != nil {
		return nil, err
	}
	// What the reconstruction offers, by obligation kind.
	have := map[string]map[string]bool{}
	put := func(kind, key string) {
		if have[kind] == nil {
			have[kind] = map[string]bool{}
		}
		have[kind][key] = true
	}
	// What an obligation's match asks beyond its key: the exports of each
	// module (by path), the members of each bridge API (absent when
	// the analysis could not list them) and whether each IPC channel is
	// paired (handled and called).
	moduleExports := map[string][]map[string]bool{}
	bridgeMembers := map[string]map[string]bool{}
	ipcPaired := map[string]bool{}
	for _, n := range ix.res.Graph.Nodes {
		switch n.Kind {
		case "javascript-asset":
			p := n.propString("path")
			put("module", p)
			names := map[string]bool{}
			if ex, ok := n.prop("exports").([]any); ok {
				for _, x := range ex {
					names[fmt.Sprint(x)] = true
				}
			}
			moduleExports[p] = append(moduleExports[p], names)
			if ex, ok := n.prop("exports").([]any); ok {
				for _, x := range ex {
					put("export", fmt.Sprint(x))
				}
			}
		case "javascript-module":
			put("bundled-module", n.propString("fingerprint_sha256"))
		case "source-module":
			put("original-source", normalizeOriginal(n.propString("original_source")))
		case "ipc-channel":
			put("ipc-channel", n.propString("channel"))
			if n.propString("status") == "paired" {
				ipcPaired[n.propString("channel")] = true
			}
		case "context-bridge-api":
			put("bridge-api", n.propString("world_key"))
			if ms, ok := n.prop("members").([]any); ok {
				set := bridgeMembers[n.propString("world_key")]
				if set == nil {
					set = map[string]bool{}
					bridgeMembers[n.propString("world_key")] = set
				}
				for _, m := range ms {
					set[fmt.Sprint(m)] = true
				}
			}
		case "endpoint", "target":
			put("endpoint", n.propString("url"))
		case "storage":
			put("storage", n.label())
		case "worker", "service-worker":
			put("worker", pathBase(n.label()))
		case "native-export":
			put("native-export", n.propString("export"))
		case "native-addon":
			put("native-addon", n.propString("path"))
		case "electron-main", "electron-preload", "electron-renderer", "electron-utility":
			put("process", n.propString("role"))
		case "browser-window":
			put("window", "window")
		case "system-api":
			put("system-api", n.propString("api"))
			if lit, _ := n.prop("literal").(bool); lit {
				put("system-api", n.label())
			}
		}
	}
	var items []CoverageItem
	summary := map[string]int{"covered": 0, "missing": 0, "unknown": 0}
	for i, o := range ledger.Obligations {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		kind, _ := o["kind"].(string)
		m, _ := o["match"].(map[string]any)
		key := ""
		switch kind {
		case "module":
			key = fmt.Sprint(m["path"])
		case "bundled-module":
			key = fmt.Sprint(m["fingerprint_sha256"])
		case "original-source":
			key = normalizeOriginal(fmt.Sprint(m["original_source"]))
		case "ipc-channel":
			key = fmt.Sprint(m["channel"])
		case "bridge-api":
			key = fmt.Sprint(m["world_key"])
		case "endpoint":
			key = fmt.Sprint(m["url"])
		case "storage":
			key = fmt.Sprint(m["key"])
		case "worker":
			key = pathBase(fmt.Sprint(m["label"]))
		case "native-export":
			key = fmt.Sprint(m["export"])
		case "native-addon":
			key = fmt.Sprint(m["path"])
		case "process":
			key = fmt.Sprint(m["role"])
		case "window":
			key = "window"
		case "system-api":
			// A constant call by itself; a computed one by its API (the
			// reconstruction's expression need not read the same).
			key = fmt.Sprint(m["api"])
			if lit, _ := m["literal"].(bool); lit {
				key = fmt.Sprint(m["call"])
			}
		}
		status, at := "missing", key
		if kind == "module" || kind == "native-addon" {
			at = pathIn(have[kind], key)
		}
		if have[kind][at] {
			status = matchedStatus(kind, at, o, m, moduleExports, bridgeMembers, ipcPaired)
		}
		if kind == "native-export" || kind == "native-addon" {
			if status == "covered" {
				status = "unknown" // the name exists; its native behaviour is unobserved
			} else {
				status = "missing"
			}
		}
		summary[status]++
		items = append(items, CoverageItem{ObligationID: o["obligation_id"], Kind: kind, Key: key, Status: status})
	}
	sort.SliceStable(items, func(i, j int) bool {
		return fmt.Sprint(items[i].ObligationID) < fmt.Sprint(items[j].ObligationID)
	})
	total := len(items)
	ratio := 0.0
	if total > 0 {
		ratio = float64(summary["covered"]) / float64(total)
	}
	if items == nil {
		items = []CoverageItem{}
	}
	res := &EvaluateReconstructionCoverageResult{LedgerID: ledger.LedgerID, ReconstructionGraphID: ix.res.Graph.GraphID, Items: items,
		Summary:  CoverageSummary{Counts: summary, Total: total, CoveredRatio: float64(int(ratio*10000)) / 10000},
		Coverage: ReconstructionCoverage{Status: "complete"}}
	res.EvaluationID = digestWithout(res, "evaluation_id")
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Links: []core.EvidenceID{lev.EvidenceID, rev.EvidenceID}}, nil
}

// pathIn is the path of have that a ledger's file path p names: p itself,
// else the one path that ends in /p or that p ends in with a / before it
// (the same tree under another root: an ASAR inside a ZIP). Files of the
// same name in other folders do not meet (src/util.js, lib/util.js).
// It is p when none or several do.
func pathIn(have map[string]bool, p string) string {
	if have[p] {
		return p
	}
	found := ""
	for q := range have {
		if strings.HasSuffix(q, "/"+p) || strings.HasSuffix(p, "/"+q) {
			if found != "" {
				return p
			}
			found = q
		}
	}
	return cmp.Or(found, p)
}

// matchedStatus decides an obligation whose key the reconstruction has:
// the key alone does not cover what the match also asks. A module must
// export every name the ledger lists; a bridge API must expose every member (unknown when the
// reconstruction's members could not be listed); an IPC channel the
// original both handled and called (its obligation evidenced) must be
// paired in the reconstruction too, not only handled or only called.
func matchedStatus(kind, key string, o, m map[string]any, moduleExports map[string][]map[string]bool, bridgeMembers map[string]map[string]bool, ipcPaired map[string]bool) string {
	switch kind {
	case "module":
		want, _ := m["exports"].([]any)
		for _, names := range moduleExports[key] {
			if hasAll(names, want) {
				return "covered"
			}
		}
		return "missing"
	case "bridge-api":
		want, _ := m["members"].([]any)
		if len(want) == 0 {
			return "covered"
		}
		got, ok := bridgeMembers[key]
		if !ok {
			return "unknown"
		}
		if hasAll(got, want) {
			return "covered"
		}
		return "missing"
	case "ipc-channel":
		if o["status"] == "evidenced" && !ipcPaired[key] {
			return "missing"
		}
	}
	return "covered"
}

// hasAll reports whether set holds every name in want.
func hasAll(set map[string]bool, want []any) bool {
	for _, w := range want {
		if !set[fmt.Sprint(w)] {
			return false
		}
	}
	return true
}
