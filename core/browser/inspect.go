package browser

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"rea/core"
	"rea/core/web"
	"rea/ports"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

const inspectOptions = `"observation_ms":{"type":"integer","minimum":0,"maximum":10000,"default":500,"description":"Observation window in milliseconds."},
"include_accessibility_text":{"type":"boolean","default":false,"description":"Keep accessibility names and descriptions (bounded)."},
"include_console_text":{"type":"boolean","default":false,"description":"Keep primitive console argument text (bounded)."},
"include_json_body_shapes":{"type":"boolean","default":false,"description":"Summarize JSON request and response bodies as value-free shapes."},
"include_websocket_shapes":{"type":"boolean","default":false,"description":"Summarize text WebSocket payloads as value-free shapes."},
"include_storage_keys":{"type":"boolean","default":false,"description":"List localStorage, sessionStorage, IndexedDB and Cache Storage names."},
"include_storage_fingerprints":{"type":"boolean","default":false,"description":"SHA-256 fingerprints of stored values (needs include_storage_keys)."}`

func opInspectPage() *core.Operation {
	return &core.Operation{
		Name:  "inspect_web_page",
		Title: "Inspect Web Page",
		Description: "Attach to one page target passively (no navigation, script evaluation or input) and capture it over an observation " +
			"window: frames, value-free DOM structure, accessibility tree, scripts (optionally their sources as artifacts), resources, " +
			"network requests and WebSocket frames after attachment, console events, workers, safe response metadata, storage " +
			"inventory, with section-level completeness. The result is valid input to compare_web_captures.",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input: schemaObj([]string{"cdp_endpoint", "target_id"}, propEndpoint, propTarget, propOrigins, inspectOptions,
			`"include_script_sources":{"type":"boolean","default":false,"description":"Keep script sources (1 MiB each, 4 MiB in all) as rea://web-content artifacts."}`,
			`"detail":{"enum":["concise","complete"],"default":"concise","description":"concise: DOM and accessibility keep their first 50 nodes (totals counted) and the complete record is retained as parent_evidence_id; complete: every node."}`),
		Result:      defResult("web_inspection"),
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE"}`, `{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE","observation_ms":1000,"include_script_sources":true,"include_storage_keys":true}`),
		Unavailable: browserUnavailable,
		Handler:     handleInspectPage,
	}
}

// inspectRequest reads the inspect options.
func inspectRequest(op string, in InspectWebPageInput, sources bool) (ports.BrowserInspectRequest, error) {
	req := ports.BrowserInspectRequest{Target: targetRef(in.CdpEndpoint, in.TargetID, in.AllowedOrigins), ObservationMS: intOr(in.ObservationMS, 500),
		IncludeScriptSources: sources || isSet(in.IncludeScriptSources), IncludeConsoleText: isSet(in.IncludeConsoleText),
		IncludeAccessibilityText: isSet(in.IncludeAccessibilityText), IncludeStorageKeys: isSet(in.IncludeStorageKeys),
		IncludeStorageFingerprints: isSet(in.IncludeStorageFingerprints), IncludeJSONBodyShapes: isSet(in.IncludeJSONBodyShapes),
		IncludeWebSocketShapes: isSet(in.IncludeWebsocketShapes)}
	if req.IncludeStorageFingerprints && !req.IncludeStorageKeys {
		return req, core.InvalidRequest(op, core.Issue{Path: []any{"include_storage_fingerprints"}, Reason: core.ReasonInvalidValue,
			Message: "include_storage_fingerprints needs include_storage_keys"})
	}
	return req, nil
}

func handleInspectPage(ctx context.Context, c *core.Call) (any, error) {
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[InspectWebPageInput](c)
	if err != nil {
		return nil, err
	}
	req, err := inspectRequest(c.Op.Name, in, false)
	if err != nil {
		return nil, err
	}
	c.Observe(fmt.Sprintf("capturing page over %d ms", req.ObservationMS))
	pc, err := b.InspectPage(ctx, req)
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	c.Observe("normalizing capture")
	res := normalizeInspection(pc, req)
	fitScriptSources(res, pc, c.ResultBytes)
	obs := observed(b.Info(), pc.Browser, "rea.web-page-inspection/v2", res, nil)
	if in.Detail == "complete" || len(res.DOM.Nodes) <= conciseNodes && len(res.Accessibility.Nodes) <= conciseNodes {
		return obs, nil
	}
	return conciseInspection(c, obs, res, pc)
}

// conciseNodes is how many DOM and accessibility nodes a concise
// inspect_web_page result keeps of each.
const conciseNodes = 50

// conciseInspection seals the complete inspection as a "detail":"complete"
// call records it, retains it, and returns the concise result: the DOM and
// accessibility lists cut to their first conciseNodes nodes (pre-order, so
// the top of each tree; total_nodes still counts all), both sections
// marked truncated, parent_evidence_id and evidence_links[0] naming the
// complete record. On a 300-item page the two lists were 286 KB of a
// 290 KB result. compare_web_captures reads the complete record through
// parent_evidence_id; reconcile_javascript_runtime reads only scripts,
// which stay whole.
func conciseInspection(c *core.Call, obs *core.Observation, res *InspectWebPageResult, pc *ports.BrowserPageCapture) (*core.Observation, error) {
	parent, err := c.RetainComplete(obs)
	if err != nil {
		return nil, err
	}
	page := *res
	var cut []string
	if n := len(res.DOM.Nodes); n > conciseNodes {
		page.DOM.Nodes = res.DOM.Nodes[:conciseNodes]
		cut = append(cut, fmt.Sprintf("%d of %d DOM nodes", conciseNodes, n))
		pc.Completeness.Truncated = append(pc.Completeness.Truncated, "dom")
	}
	if n := len(res.Accessibility.Nodes); n > conciseNodes {
		page.Accessibility.Nodes = res.Accessibility.Nodes[:conciseNodes]
		cut = append(cut, fmt.Sprintf("%d of %d accessibility nodes", conciseNodes, n))
		pc.Completeness.Truncated = append(pc.Completeness.Truncated, "accessibility")
	}
	page.Completeness = completeness(pc.Completeness, pageAttachLimited)
	page.ParentEvidenceID = string(parent)
	page.Limitations = append(slices.Clone(res.Limitations), fmt.Sprintf("Concise: the first %s are listed (document order); "+
		"the complete record is %s (parent_evidence_id, which compare_web_captures compares), "+
		"or call again with detail \"complete\".", strings.Join(cut, " and "), parent))
	out := *obs
	out.Result = &page
	out.Links = []core.EvidenceID{parent}
	return &out, nil
}

// outOfProcessSections are what a capture holds nothing of for a frame in
// another renderer process (the engine reads the page's own process); the
// first five are marked unavailable.
var outOfProcessSections = []string{"frames", "dom", "accessibility", "scripts", "resources", "network_requests", "console_events"}

// markOutOfProcess records the sections a frame in another renderer
// process leaves incomplete as unavailable, so that no comparison calls
// them unchanged: the frame's DOM, scripts or child frames may have changed
// unseen. Network and console are attach-limited already.
func markOutOfProcess(pc *ports.BrowserPageCapture) {
	if !slices.ContainsFunc(pc.Frames, func(f ports.BrowserFrame) bool { return f.OutOfProcess }) {
		return
	}
	for _, s := range outOfProcessSections[:5] {
		if !slices.ContainsFunc(pc.Completeness.Unavailable, func(u ports.BrowserUnavailable) bool { return u.Section == s }) {
			pc.Completeness.Unavailable = append(pc.Completeness.Unavailable, ports.BrowserUnavailable{Section: s, Reason: "provider_unavailable"})
		}
	}
}

// normalizeInspection derives inspect_web_page's result from the raw capture.
func normalizeInspection(pc *ports.BrowserPageCapture, req ports.BrowserInspectRequest) *InspectWebPageResult {
	markOutOfProcess(pc)
	frames := make([]web.WebInspectionFrame, len(pc.Frames))
	for i, f := range pc.Frames {
		frames[i] = web.WebInspectionFrame{FrameID: f.FrameID, ParentFrameID: core.OptString(f.ParentFrameID), URL: f.URL, Origin: core.OptString(f.Origin)}
		if f.OutOfProcess {
			frames[i].NotCaptured = slices.Clone(outOfProcessSections)
		}
	}
	nodes := make([]web.WebInspectionDOMNode, len(pc.DOM.Nodes))
	for i, n := range pc.DOM.Nodes {
		nodes[i] = web.WebInspectionDOMNode{Index: n.Index, ParentIndex: n.ParentIndex, NodeType: n.NodeType, NodeName: n.NodeName,
			NodeValueLength: n.NodeValueLength, AttributeNames: core.NonNil(n.AttributeNames)}
	}
	ax := pc.Accessibility
	axNodes := make([]web.WebInspectionAccessibilityNode, len(ax.Nodes))
	for i, n := range ax.Nodes {
		states := make([]web.WebInspectionAccessibilityNodeState, len(n.States))
		for j, s := range n.States {
			states[j] = web.WebInspectionAccessibilityNodeState{Name: s, Value: json.RawMessage("true")}
		}
		axNodes[i] = web.WebInspectionAccessibilityNode{NodeID: n.NodeID, ParentID: core.OptString(n.ParentID), Role: core.OptString(n.Role),
			Name: n.Name, Description: n.Description, Ignored: n.Ignored, States: states}
	}
	textStatus := ax.TextCapture
	if textStatus == "" {
		textStatus = "not_approved"
	}
	resources, byURL := normalizeResources(pc.Resources)
	lims := append([]string{}, pc.Limitations...)
	lims = append(lims, "Accessibility states keep names only; value true marks a state that holds on the node (a state Chromium reports as false is left out).")
	if gone := unreportedScripts(pc); len(gone) > 0 {
		lims = append(lims, unreportedScriptsNote(gone))
	}
	if len(pc.Network.Requests) == 0 && len(pc.Network.WebSockets) == 0 && len(pc.Network.WebSocketEvents) == 0 {
		lims = append(lims, fmt.Sprintf("No request or WebSocket activity was seen in the %d ms after the attach; what the page requested "+
			"before (its load, the calls it made then) is not observable here: capture_browser_scenario records a page from its first "+
			"request, and a longer observation_ms catches periodic calls.", pc.CaptureWindow.ObservationMS))
	}
	truncatedFields := ax.TruncatedFields
	return &InspectWebPageResult{
		SchemaVersion: 2,
		Browser:       browserJSON(pc.Browser),
		Target: web.WebInspectionTarget{TargetID: pc.Target.TargetID, Type: pc.Target.Type, Title: pc.Target.Title, URL: pc.Target.URL,
			Origin: pc.Target.Origin, Attached: pc.Target.Attached},
		CaptureWindow: web.WebInspectionCaptureWindow{StartedAt: isoTime(pc.CaptureWindow.StartedAt), EndedAt: isoTime(pc.CaptureWindow.EndedAt),
			ObservationMS: pc.CaptureWindow.ObservationMS},
		Completeness: completeness(pc.Completeness, pageAttachLimited),
		Frames:       frames,
		DOM:          web.WebInspectionDOM{TotalNodes: pc.DOM.TotalNodes, Nodes: nodes},
		Accessibility: web.WebInspectionAccessibility{TotalNodes: ax.TotalNodes, Nodes: axNodes,
			TextCapture: web.WebInspectionAccessibilityTextCapture{Status: textStatus, RetainedBytes: ax.RetainedBytes, ExcludedFields: ax.ExcludedFields,
				TruncatedFields: &truncatedFields}},
		Scripts:     web.WebInspectionScripts{Total: pc.ScriptsTotal, Items: normalizeScripts(pc.Scripts, byURL)},
		Resources:   resources,
		Network:     normalizeNetwork(pc, req),
		Console:     normalizeConsole(pc, req),
		Workers:     normalizeWorkers(pc.Workers),
		Metadata:    normalizeMetadata(pc),
		Storage:     normalizeStorage(pc.Storage, fingerprintsRead(pc, req)),
		Limitations: lims,
	}
}

// unreportedScripts lists, sorted, the URLs of script resources the page
// loaded that the debugger reported no script for. Chromium's debugger
// replays only the scripts V8 still holds: a classic script whose code is
// no longer reachable once it ran is discarded, so a page attached to
// minutes after it loaded can show its bundle under resources and no
// script at all.
func unreportedScripts(pc *ports.BrowserPageCapture) []string {
	seen := map[string]bool{}
	for _, s := range pc.Scripts {
		seen[s.URL] = true
	}
	var out []string
	for _, r := range pc.Resources {
		if r.Type == "Script" && !seen[r.URL] {
			seen[r.URL] = true
			out = append(out, r.URL)
		}
	}
	sort.Strings(out)
	return out
}

// unreportedScriptsNote says which script resources have no script and why.
func unreportedScriptsNote(urls []string) string {
	list := urls
	if len(list) > 5 {
		list = list[:5]
	}
	more := ""
	if len(urls) > len(list) {
		more = fmt.Sprintf(" and %d more", len(urls)-len(list))
	}
	return fmt.Sprintf("%d script resource(s) the page loaded have no script in this capture (%s%s): Chromium's debugger reports only "+
		"the scripts V8 still holds, and V8 discards a script none of whose code is reachable any more. Their sources were not seen; "+
		"reload the page and capture it again soon after it loads to see them.", len(urls), strings.Join(list, ", "), more)
}

// resourceIdentity is what a resource_key digests.
type resourceIdentity struct {
	URL         string   `json:"url"`
	Origin      *string  `json:"origin"`
	Type        string   `json:"type"`
	MimeType    string   `json:"mime_type"`
	ContentSize *float64 `json:"content_size"`
}

func normalizeResources(rs []ports.BrowserResource) ([]web.WebInspectionResource, map[string][]string) {
	seen := map[string]bool{}
	items := []web.WebInspectionResource{}
	byURL := map[string][]string{}
	for _, r := range rs {
		typ := r.Type
		if typ == "" {
			typ = "Other"
		}
		id := resourceIdentity{URL: r.URL, Origin: core.OptString(r.Origin), Type: typ, MimeType: r.MimeType, ContentSize: r.ContentSize}
		key := "res_" + core.MustDigest(id)
		if seen[key] {
			continue
		}
		seen[key] = true
		items = append(items, web.WebInspectionResource{ResourceKey: key, URL: id.URL, Origin: id.Origin, Type: id.Type, MimeType: id.MimeType,
			ContentSize: id.ContentSize})
		byURL[r.URL] = append(byURL[r.URL], key)
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].ResourceKey != items[j].ResourceKey {
			return items[i].ResourceKey < items[j].ResourceKey
		}
		return items[i].URL < items[j].URL
	})
	return items, byURL
}

// scriptIdentity is what a script_key digests.
type scriptIdentity struct {
	URL          string  `json:"url"`
	CDPHash      string  `json:"cdp_hash"`
	Length       int     `json:"length"`
	IsModule     bool    `json:"is_module"`
	Language     *string `json:"language"`
	SourceMapURL *string `json:"source_map_url"`
}

// The alternatives of a script's resource_reconciliation and source (the
// schema's unions; WebScript holds them as any).
type (
	reconciliationExact struct {
		Status      string `json:"status"`
		ResourceKey string `json:"resource_key"`
	}
	reconciliationAmbiguous struct {
		Status                string   `json:"status"`
		CandidateResourceKeys []string `json:"candidate_resource_keys"`
	}
	reconciliationUnmatched struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	scriptSourceArtifact struct {
		URI       string `json:"uri"`
		SHA256    string `json:"sha256"`
		Bytes     int    `json:"bytes"`
		MediaType string `json:"media_type"`
		Charset   string `json:"charset"`
		Text      string `json:"text"`
	}
	scriptSourceIncluded struct {
		Included bool                 `json:"included"`
		Artifact scriptSourceArtifact `json:"artifact"`
	}
	scriptSourceOmitted struct {
		Included bool   `json:"included"`
		Reason   string `json:"reason"`
	}
)

func normalizeScripts(ss []ports.BrowserScript, byURL map[string][]string) []web.WebScript {
	type item struct {
		base, srcDigest, frame string
		s                      web.WebScript
	}
	items := make([]item, 0, len(ss))
	for _, s := range ss {
		id := scriptIdentity{URL: s.URL, CDPHash: s.CDPHash, Length: s.Length, IsModule: s.IsModule,
			Language: core.OptString(s.Language), SourceMapURL: core.OptString(s.SourceMapURL)}
		base := "scr_" + core.MustDigest(id)
		w := web.WebScript{FrameID: core.OptString(s.FrameID), URL: s.URL, Origin: core.OptString(s.Origin), CdpHash: s.CDPHash,
			Length: s.Length, IsModule: s.IsModule, Language: id.Language, SourceMapURL: id.SourceMapURL}
		switch keys := byURL[s.URL]; {
		case len(keys) == 1:
			w.ResourceReconciliation = reconciliationExact{Status: "exact", ResourceKey: keys[0]}
		case len(keys) > 1:
			c := slices.Clone(keys)
			slices.Sort(c)
			w.ResourceReconciliation = reconciliationAmbiguous{Status: "ambiguous", CandidateResourceKeys: c}
		default:
			w.ResourceReconciliation = reconciliationUnmatched{Status: "unmatched", Reason: "no_exact_sanitized_url"}
		}
		digest := ""
		if s.Source != nil {
			sum := sha256.Sum256(s.Source)
			digest = hex.EncodeToString(sum[:])
			w.Source = scriptSourceIncluded{Included: true, Artifact: scriptSourceArtifact{URI: "rea://web-content/sha256/" + digest,
				SHA256: digest, Bytes: len(s.Source), MediaType: "text/javascript", Charset: "utf-8",
				Text: strings.ToValidUTF8(string(s.Source), "\uFFFD")}}
		} else {
			reason := s.SourceReason
			if reason == "" {
				reason = "source capture was not approved"
			}
			w.Source = scriptSourceOmitted{Included: false, Reason: reason}
		}
		items = append(items, item{base, digest, s.FrameID, w})
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.base != b.base {
			return a.base < b.base
		}
		if a.srcDigest != b.srcDigest {
			return a.srcDigest < b.srcDigest
		}
		return a.frame < b.frame
	})
	count := map[string]int{}
	for _, it := range items {
		count[it.base]++
	}
	n := map[string]int{}
	out := make([]web.WebScript, len(items))
	for i, it := range items {
		key := it.base
		if count[it.base] > 1 {
			n[it.base]++
			key += "_" + strconv.Itoa(n[it.base])
		}
		it.s.ScriptKey = key
		out[i] = it.s
	}
	return out
}

func bodyStatus(s string) string {
	switch s {
	case "included", "unavailable", "truncated", "not_approved":
		return s
	}
	return "unavailable"
}

func floatOf(p *int) *float64 {
	if p == nil {
		return nil
	}
	f := float64(*p)
	return &f
}

func normalizeNetwork(pc *ports.BrowserPageCapture, req ports.BrowserInspectRequest) web.WebInspectionNetwork {
	reqs := make([]web.WebInspectionNetworkRequest, len(pc.Network.Requests))
	for i, r := range pc.Network.Requests {
		shapes := web.WebInspectionNetworkRequestBodyShapes{Status: "not_approved"}
		if req.IncludeJSONBodyShapes {
			rq, rs := bodyStatus(r.RequestBodyStatus), bodyStatus(r.ResponseBodyStatus)
			if r.RequestBody != nil {
				if s := jsonShape(r.RequestBody); s != nil {
					shapes.Request = s
				} else {
					rq = "unavailable"
				}
			}
			if r.ResponseBody != nil {
				if s := jsonShape(r.ResponseBody); s != nil {
					shapes.Response = s
				} else {
					rs = "unavailable"
				}
			}
			st := "unavailable"
			switch {
			case rq == "included" && rs == "included":
				st = "included"
			case rq == "included" || rs == "included":
				st = "partial"
			case rq == "truncated" || rs == "truncated":
				st = "truncated"
			case rq == "not_approved" && rs == "not_approved":
				st = "not_approved"
			}
			shapes.Status = st
		}
		redirects := make([]web.WebInspectionRedirect, len(r.Redirects))
		for j, h := range r.Redirects {
			redirects[j] = web.WebInspectionRedirect{URL: h.URL, Origin: core.OptString(h.Origin), Status: h.Status}
		}
		method := r.Method
		if method == "" {
			method = "GET"
		}
		itype := r.Initiator.Type
		if itype == "" {
			itype = "other"
		}
		reqs[i] = web.WebInspectionNetworkRequest{RequestID: r.RequestID, URL: r.URL, Origin: core.OptString(r.Origin), Method: method,
			ResourceType: core.OptString(r.ResourceType), Status: floatOf(r.Status), MimeType: r.MimeType,
			EncodedDataLength: r.EncodedDataLength,
			Initiator:         web.WebInspectionNetworkRequestInitiator{Type: itype, URL: r.Initiator.URL, Line: r.Initiator.Line, Column: r.Initiator.Column},
			BodyShapes:        shapes, Redirects: &redirects}
	}
	ws := make([]web.WebInspectionNetworkWebsocketEvent, len(pc.Network.WebSocketEvents))
	for i, e := range pc.Network.WebSocketEvents {
		var shape *web.WebInspectionNetworkWebsocketEventPayloadShape
		if req.IncludeWebSocketShapes {
			switch {
			case e.Opcode != 1:
				shape = &web.WebInspectionNetworkWebsocketEventPayloadShape{Format: "binary"}
			case e.Truncated:
				shape = &web.WebInspectionNetworkWebsocketEventPayloadShape{Format: "text", Truncated: true}
			case e.Payload != nil:
				if s := jsonShape(e.Payload); s != nil {
					shape = &web.WebInspectionNetworkWebsocketEventPayloadShape{Format: "json", JSONShape: s}
				} else {
					shape = &web.WebInspectionNetworkWebsocketEventPayloadShape{Format: "text"}
				}
			}
		}
		ws[i] = web.WebInspectionNetworkWebsocketEvent{RequestID: e.RequestID, Direction: e.Direction, Opcode: e.Opcode, PayloadBytes: e.PayloadBytes, PayloadShape: shape}
	}
	sockets := make([]web.WebInspectionNetworkWebsocket, len(pc.Network.WebSockets))
	for i, w := range pc.Network.WebSockets {
		sockets[i] = web.WebInspectionNetworkWebsocket{RequestID: w.RequestID, URL: w.URL, Origin: core.OptString(w.Origin)}
	}
	return web.WebInspectionNetwork{Requests: reqs, WebsocketEvents: ws, Websockets: &sockets,
		CoverageStartedAt: isoTime(pc.Network.CoverageStartedAt), PriorActivityAvailable: false}
}

func normalizeConsole(pc *ports.BrowserPageCapture, req ports.BrowserInspectRequest) web.WebInspectionConsole {
	evs := make([]web.WebInspectionConsoleEvent, len(pc.Console))
	for i, e := range pc.Console {
		zero := 0
		tc := web.WebInspectionConsoleEventTextCapture{Status: "not_approved", Values: []web.WebInspectionConsoleEventTextCaptureValue{},
			TruncatedValues: &zero}
		if req.IncludeConsoleText {
			vals := make([]web.WebInspectionConsoleEventTextCaptureValue, len(e.Values))
			n := 0
			for j, v := range e.Values {
				vals[j] = web.WebInspectionConsoleEventTextCaptureValue{ArgumentIndex: v.ArgumentIndex, Type: v.Type, Text: v.Text}
				n += len(v.Text)
			}
			st := "included"
			if e.TruncatedValues > 0 {
				st = "truncated"
			}
			truncated := e.TruncatedValues
			tc = web.WebInspectionConsoleEventTextCapture{Status: st, Values: vals, RetainedBytes: n, TruncatedValues: &truncated}
		}
		var line, col *int
		if e.URL != "" {
			l, c := e.Line, e.Column
			line, col = &l, &c
		}
		evs[i] = web.WebInspectionConsoleEvent{Type: e.Type, Timestamp: e.Timestamp, ArgumentTypes: core.NonNil(e.ArgumentTypes),
			URL: core.OptString(e.URL), Line: line, Column: col, TextCapture: tc}
	}
	return web.WebInspectionConsole{Events: evs, CoverageStartedAt: isoTime(pc.Network.CoverageStartedAt), PriorActivityAvailable: false}
}

func normalizeWorkers(ws []ports.BrowserWorker) []web.WebInspectionWorker {
	out := make([]web.WebInspectionWorker, len(ws))
	for i, w := range ws {
		out[i] = web.WebInspectionWorker{TargetID: w.TargetID, Type: w.Type, URL: w.URL, Origin: core.OptString(w.Origin), Attached: w.Attached,
			OpenerTargetID: core.OptString(w.OpenerTargetID), ParentFrameID: core.OptString(w.ParentFrameID)}
	}
	return out
}

// fingerprintsRead reports whether the capture read every stored value it
// could fingerprint: they were asked for, and no storage read was cut or
// unavailable. An origin with nothing stored then has complete, empty
// fingerprints, equal to another such origin's; before, no fingerprint
// meant incomplete, so an empty storage never compared unchanged. A capture
// with fingerprints it was not asked for (a fake's) counts as asking.
func fingerprintsRead(pc *ports.BrowserPageCapture, req ports.BrowserInspectRequest) bool {
	if !req.IncludeStorageFingerprints && len(pc.Storage.Fingerprints) == 0 {
		return false
	}
	if slices.Contains(pc.Completeness.Truncated, "storage") {
		return false
	}
	return !slices.ContainsFunc(pc.Completeness.Unavailable, func(u ports.BrowserUnavailable) bool {
		return u.Section == "storage" || u.Section == "storage_keys"
	})
}

func normalizeStorage(s ports.BrowserStorage, read bool) web.WebInspectionStorage {
	type fp struct {
		sort string
		f    web.WebInspectionStorageContentFingerprint
	}
	fps := make([]fp, 0, len(s.Fingerprints))
	complete := true
	for _, f := range s.Fingerprints {
		id := map[string]string{}
		for k, v := range f.Identity {
			id[k] = v
		}
		idDigest := core.MustDigest(id)
		fps = append(fps, fp{f.Scope + ":" + idDigest, web.WebInspectionStorageContentFingerprint{Scope: f.Scope, IdentitySHA256: idDigest,
			ValueSHA256: core.OptString(f.ValueSHA256), Complete: f.Complete}})
		complete = complete && f.Complete
	}
	sort.Slice(fps, func(i, j int) bool { return fps[i].sort < fps[j].sort })
	list := make([]web.WebInspectionStorageContentFingerprint, len(fps))
	for i, f := range fps {
		list[i] = f.f
	}
	return web.WebInspectionStorage{Origin: s.Origin, UsageBytes: s.UsageBytes, QuotaBytes: s.QuotaBytes,
		LocalStorageKeys: core.NonNil(s.LocalStorageKeys), SessionStorageKeys: core.NonNil(s.SessionStorageKeys),
		IndexedDbNames: core.NonNil(s.IndexedDBNames), CacheNames: core.NonNil(s.CacheNames),
		ContentFingerprints: list, FingerprintAlgorithm: "sha256", FingerprintsComplete: complete && read,
		ValuesRedacted: true}
}

// ---- safe metadata

var agentLinkRels = map[string]bool{"mcp": true, "model-context": true, "ai-plugin": true, "service-desc": true}

var cspKeywords = map[string]bool{"'self'": true, "'none'": true, "'unsafe-inline'": true, "'unsafe-eval'": true, "'strict-dynamic'": true,
	"'unsafe-hashes'": true, "'report-sample'": true, "'wasm-unsafe-eval'": true, "'unsafe-allow-redirects'": true, "*": true}

func originOf(u *url.URL) string {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func normalizeMetadata(pc *ports.BrowserPageCapture) web.WebInspectionMetadata {
	allowed := map[string]bool{}
	for _, o := range pc.AllowedOrigins {
		allowed[o] = true
	}
	hints := []web.WebInspectionMetadataAgentHint{}
	hintSeen := map[string]bool{}
	addHint := func(mech, decl string, u *string) {
		k := mech + "\x00" + decl + "\x00"
		if u == nil {
			k += "<nil>"
		} else {
			k += *u
		}
		if hintSeen[k] {
			return
		}
		hintSeen[k] = true
		hints = append(hints, web.WebInspectionMetadataAgentHint{Mechanism: mech, Declaration: decl, URL: u, Trust: "page-declared-untrusted"})
	}
	responses := make([]web.WebInspectionMetadataResponse, 0, len(pc.Metadata.Responses))
	for _, r := range pc.Metadata.Responses {
		h := r.Headers
		base, _ := url.Parse(r.URL)
		var clen *int
		if v, ok := h["content-length"]; ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
				c := int(n)
				clen = &c
			}
		}
		responses = append(responses, web.WebInspectionMetadataResponse{RequestID: r.RequestID, URL: r.URL, MimeType: core.OptString(r.MimeType),
			ContentLength: clen, ContentEncoding: core.OptString(strings.TrimSpace(h["content-encoding"])),
			CSP: parseCSP(h["content-security-policy"], allowed), Links: parseLinks(h["link"], base, allowed, addHint),
			Policies: web.WebInspectionMetadataResponsePolicies{Coop: token(h["cross-origin-opener-policy"]), Coep: token(h["cross-origin-embedder-policy"]),
				Corp: token(h["cross-origin-resource-policy"]), ReferrerPolicy: token(h["referrer-policy"]),
				XContentTypeOptions: token(h["x-content-type-options"]), PermissionsPolicyFeatures: permissionsFeatures(h["permissions-policy"])}})
		for _, name := range []string{"x-model-context", "x-webmcp", "mcp-server"} {
			if _, ok := h[name]; ok {
				addHint("response_header", name, nil)
			}
		}
		if base != nil {
			for _, p := range []string{"/.well-known/ai-plugin.json", "/.well-known/mcp", "/.well-known/model-context"} {
				if base.Path == p {
					u := r.URL
					addHint("well_known_resource", p, &u)
				}
			}
		}
	}
	for _, rel := range pc.DOM.LinkRels {
		addHint("dom_link_rel", rel, nil)
	}
	domURLs := make([]web.WebInspectionMetadataDOMUrl, len(pc.DOM.URLs))
	excluded := 0
	for i, d := range pc.DOM.URLs {
		domURLs[i] = web.WebInspectionMetadataDOMUrl{NodeIndex: d.NodeIndex, Attribute: d.Attribute, URL: d.URL, DestinationScope: d.DestinationScope}
		if d.DestinationScope != "approved" {
			excluded++
		}
	}
	return web.WebInspectionMetadata{Responses: responses, DOMUrls: domURLs, AgentHints: hints,
		ExcludedDOMUrls: excluded, HeadersAllowlisted: true}
}

// token is a policy header's single token, lower-cased, or nil.
func token(v string) *string {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" || len(v) > 100 {
		return nil
	}
	for i, r := range v {
		ok := r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-')
		if !ok {
			return nil
		}
	}
	return &v
}

func permissionsFeatures(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	if len(out) > 200 {
		out = out[:200]
	}
	return core.NonNil(out)
}

func parseCSP(v string, allowed map[string]bool) web.WebInspectionMetadataResponseCSP {
	dirs := []web.WebInspectionMetadataResponseCSPDirective{}
	nonces, hashes := 0, 0
	src := func(kind, value string) web.WebInspectionMetadataResponseCSPDirectiveSource {
		return web.WebInspectionMetadataResponseCSPDirectiveSource{Kind: kind, Value: &value}
	}
	for _, d := range strings.Split(v, ";") {
		f := strings.Fields(d)
		if len(f) == 0 || len(dirs) >= 100 {
			continue
		}
		name := strings.ToLower(f[0])
		if token(name) == nil || strings.ContainsAny(name, "_.") {
			continue
		}
		srcs := []web.WebInspectionMetadataResponseCSPDirectiveSource{}
		for _, s := range f[1:] {
			ls := strings.ToLower(s)
			switch {
			case strings.HasPrefix(ls, "'nonce-"):
				nonces++
			case strings.HasPrefix(ls, "'sha256-"), strings.HasPrefix(ls, "'sha384-"), strings.HasPrefix(ls, "'sha512-"):
				hashes++
			case cspKeywords[ls]:
				srcs = append(srcs, src("keyword", ls))
			case strings.HasSuffix(ls, ":") && !strings.Contains(ls, "/"):
				srcs = append(srcs, src("scheme", ls))
			default:
				u, err := url.Parse(s)
				if o := originOf(u); err == nil && o != "" {
					kind := "external_origin"
					if allowed[o] {
						kind = "approved_origin"
					}
					srcs = append(srcs, src(kind, o))
				} else {
					srcs = append(srcs, web.WebInspectionMetadataResponseCSPDirectiveSource{Kind: "other"})
				}
			}
		}
		dirs = append(dirs, web.WebInspectionMetadataResponseCSPDirective{Name: name, Sources: srcs})
	}
	return web.WebInspectionMetadataResponseCSP{Directives: dirs, NonceCount: nonces, HashCount: hashes}
}

func parseLinks(v string, base *url.URL, allowed map[string]bool, hint func(string, string, *string)) []web.WebInspectionMetadataResponseLink {
	out := []web.WebInspectionMetadataResponseLink{}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, "<") {
			continue
		}
		end := strings.Index(part, ">")
		if end < 0 {
			continue
		}
		ref := part[1:end]
		params := map[string]string{}
		for _, p := range strings.Split(part[end+1:], ";") {
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
				params[k] = strings.Trim(strings.TrimSpace(val), `"`)
			}
		}
		var href *string
		scope := "unsupported"
		if base != nil {
			if u, err := base.Parse(ref); err == nil {
				if o := originOf(u); o != "" {
					scope = "outside_policy"
					if allowed[o] {
						h := u.String()
						scope, href = "approved", &h
					}
				}
			}
		}
		rels := []string{}
		for _, r := range strings.Fields(strings.ToLower(params["rel"])) {
			if len(rels) < 32 && !slices.Contains(rels, r) {
				rels = append(rels, r)
			}
			if agentLinkRels[r] {
				hint("link_rel", r, href)
			}
		}
		opt := func(k string) *string {
			if v, ok := params[k]; ok {
				return &v
			}
			return nil
		}
		out = append(out, web.WebInspectionMetadataResponseLink{Href: href, DestinationScope: scope, Rel: rels, As: opt("as"), Type: opt("type"),
			Crossorigin: opt("crossorigin")})
	}
	return out
}

// ---- JSON shape (BROWSER.md §3)

const (
	maxShapePaths = 2048
	maxShapeNodes = 5000
	maxShapeDepth = 20
)

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

func escapeSegment(s string) string {
	if utf8.RuneCountInString(s) > 256 {
		s = string([]rune(s)[:256])
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// jsonShape is the value-free shape of a JSON document, or nil when it is
// not JSON.
func jsonShape(b []byte) *web.WebJSONShape {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var root any
	if dec.Decode(&root) != nil || dec.More() {
		return nil
	}
	type entry struct {
		types map[string]bool
		obs   int
	}
	props := map[string]*entry{}
	var order []string
	type frame struct {
		v     any
		path  string
		depth int
	}
	stack := []frame{{root, "", 0}}
	nodes, maxDepth, truncated := 0, 0, false
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if nodes >= maxShapeNodes {
			truncated = true
			break
		}
		nodes++
		maxDepth = max(maxDepth, f.depth)
		if f.path != "" {
			e := props[f.path]
			if e == nil {
				if len(props) >= maxShapePaths {
					truncated = true
					continue
				}
				e = &entry{types: map[string]bool{}}
				props[f.path] = e
				order = append(order, f.path)
			}
			e.types[jsonType(f.v)] = true
			e.obs++
		}
		if f.depth >= maxShapeDepth {
			if t := jsonType(f.v); t == "object" || t == "array" {
				truncated = true
			}
			continue
		}
		var kids []frame
		switch t := f.v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				kids = append(kids, frame{t[k], f.path + "/" + escapeSegment(k), f.depth + 1})
			}
		case []any:
			for _, x := range t {
				kids = append(kids, frame{x, f.path + "/*", f.depth + 1})
			}
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	slices.Sort(order)
	list := make([]web.WebJSONShapeProperty, len(order))
	for i, p := range order {
		e := props[p]
		types := make([]string, 0, len(e.types))
		for _, t := range jsonValueTypes {
			if e.types[t] {
				types = append(types, t)
			}
		}
		list[i] = web.WebJSONShapeProperty{Path: p, Types: types, Observations: e.obs}
	}
	return &web.WebJSONShape{RootType: jsonType(root), NodeCount: nodes, MaxDepthObserved: maxDepth, Properties: list, Truncated: &truncated}
}

var jsonValueTypes = []string{"object", "array", "string", "number", "boolean", "null"}
