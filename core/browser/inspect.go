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
			`"include_script_sources":{"type":"boolean","default":false,"description":"Keep script sources (1 MiB each, 4 MiB in all) as rea://web-content artifacts."}`),
		Result:      defResult("web_inspection"),
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE"}`, `{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE","observation_ms":1000,"include_script_sources":true,"include_storage_keys":true}`),
		Unavailable: browserUnavailable,
		Handler:     handleInspectPage,
	}
}

// inspectRequest reads the inspect options.
func inspectRequest(op string, args map[string]any, sources bool) (ports.BrowserInspectRequest, error) {
	req := ports.BrowserInspectRequest{Target: targetRef(args), ObservationMS: core.IntArg(args, "observation_ms", 500),
		IncludeScriptSources: sources || boolArg(args, "include_script_sources"), IncludeConsoleText: boolArg(args, "include_console_text"),
		IncludeAccessibilityText: boolArg(args, "include_accessibility_text"), IncludeStorageKeys: boolArg(args, "include_storage_keys"),
		IncludeStorageFingerprints: boolArg(args, "include_storage_fingerprints"), IncludeJSONBodyShapes: boolArg(args, "include_json_body_shapes"),
		IncludeWebSocketShapes: boolArg(args, "include_websocket_shapes")}
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
	req, err := inspectRequest(c.Op.Name, c.Args, false)
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
	return observed(b.Info(), pc.Browser, "rea.web-page-inspection/v2", res, nil), nil
}

// normalizeInspection derives inspect_web_page's result from the raw capture.
func normalizeInspection(pc *ports.BrowserPageCapture, req ports.BrowserInspectRequest) map[string]any {
	frames := make([]any, len(pc.Frames))
	for i, f := range pc.Frames {
		frames[i] = map[string]any{"frame_id": f.FrameID, "parent_frame_id": nullable(f.ParentFrameID), "url": f.URL, "origin": nullable(f.Origin)}
	}
	nodes := make([]any, len(pc.DOM.Nodes))
	for i, n := range pc.DOM.Nodes {
		nodes[i] = map[string]any{"index": n.Index, "parent_index": n.ParentIndex, "node_type": n.NodeType, "node_name": n.NodeName,
			"node_value_length": n.NodeValueLength, "attribute_names": core.NonNil(n.AttributeNames)}
	}
	ax := pc.Accessibility
	axNodes := make([]any, len(ax.Nodes))
	for i, n := range ax.Nodes {
		states := make([]any, len(n.States))
		for j, s := range n.States {
			states[j] = map[string]any{"name": s, "value": true}
		}
		axNodes[i] = map[string]any{"node_id": n.NodeID, "parent_id": nullable(n.ParentID), "role": nullable(n.Role),
			"name": nullableP(n.Name), "description": nullableP(n.Description), "ignored": n.Ignored, "states": states}
	}
	textStatus := ax.TextCapture
	if textStatus == "" {
		textStatus = "not_approved"
	}
	resources, byURL := normalizeResources(pc.Resources)
	comp := pc.Completeness
	lims := append([]string{}, pc.Limitations...)
	lims = append(lims, "Accessibility states keep names only; value true marks a state the node reported.")
	res := map[string]any{
		"schema_version": 2,
		"browser":        browserJSON(pc.Browser),
		"target":         map[string]any{"target_id": pc.Target.TargetID, "type": pc.Target.Type, "title": pc.Target.Title, "url": pc.Target.URL, "origin": pc.Target.Origin, "attached": pc.Target.Attached},
		"capture_window": map[string]any{"started_at": isoTime(pc.CaptureWindow.StartedAt), "ended_at": isoTime(pc.CaptureWindow.EndedAt), "observation_ms": pc.CaptureWindow.ObservationMS},
		"completeness":   completeness(comp, pageAttachLimited),
		"frames":         frames,
		"dom":            map[string]any{"total_nodes": pc.DOM.TotalNodes, "nodes": nodes},
		"accessibility": map[string]any{"total_nodes": ax.TotalNodes, "nodes": axNodes,
			"text_capture": map[string]any{"status": textStatus, "retained_bytes": ax.RetainedBytes, "excluded_fields": ax.ExcludedFields, "truncated_fields": ax.TruncatedFields}},
		"scripts":     map[string]any{"total": pc.ScriptsTotal, "items": normalizeScripts(pc.Scripts, byURL)},
		"resources":   resources,
		"network":     normalizeNetwork(pc, req),
		"console":     normalizeConsole(pc, req),
		"workers":     normalizeWorkers(pc.Workers),
		"metadata":    normalizeMetadata(pc),
		"storage":     normalizeStorage(pc.Storage),
		"limitations": lims,
	}
	return res
}

func normalizeResources(rs []ports.BrowserResource) ([]any, map[string][]string) {
	type item struct {
		key string
		m   map[string]any
		url string
	}
	seen := map[string]bool{}
	var items []item
	byURL := map[string][]string{}
	for _, r := range rs {
		typ := r.Type
		if typ == "" {
			typ = "Other"
		}
		m := map[string]any{"url": r.URL, "origin": nullable(r.Origin), "type": typ, "mime_type": r.MimeType, "content_size": nullableP(r.ContentSize)}
		key := "res_" + core.MustDigest(m)
		if seen[key] {
			continue
		}
		seen[key] = true
		m["resource_key"] = key
		items = append(items, item{key, m, r.URL})
		byURL[r.URL] = append(byURL[r.URL], key)
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].key != items[j].key {
			return items[i].key < items[j].key
		}
		return items[i].url < items[j].url
	})
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it.m
	}
	return out, byURL
}

func normalizeScripts(ss []ports.BrowserScript, byURL map[string][]string) []any {
	type item struct {
		base, srcDigest, frame string
		m                      map[string]any
	}
	items := make([]item, 0, len(ss))
	for _, s := range ss {
		ident := map[string]any{"url": s.URL, "cdp_hash": s.CDPHash, "length": s.Length, "is_module": s.IsModule,
			"language": nullable(s.Language), "source_map_url": nullable(s.SourceMapURL)}
		base := "scr_" + core.MustDigest(ident)
		m := map[string]any{"frame_id": nullable(s.FrameID), "url": s.URL, "origin": nullable(s.Origin), "cdp_hash": s.CDPHash,
			"length": s.Length, "is_module": s.IsModule, "language": nullable(s.Language), "source_map_url": nullable(s.SourceMapURL)}
		switch keys := byURL[s.URL]; {
		case len(keys) == 1:
			m["resource_reconciliation"] = map[string]any{"status": "exact", "resource_key": keys[0]}
		case len(keys) > 1:
			c := slices.Clone(keys)
			slices.Sort(c)
			m["resource_reconciliation"] = map[string]any{"status": "ambiguous", "candidate_resource_keys": c}
		default:
			m["resource_reconciliation"] = map[string]any{"status": "unmatched", "reason": "no_exact_sanitized_url"}
		}
		digest := ""
		if s.Source != nil {
			sum := sha256.Sum256(s.Source)
			digest = hex.EncodeToString(sum[:])
			m["source"] = map[string]any{"included": true, "artifact": map[string]any{"uri": "rea://web-content/sha256/" + digest,
				"sha256": digest, "bytes": len(s.Source), "media_type": "text/javascript", "charset": "utf-8",
				"text": strings.ToValidUTF8(string(s.Source), "\uFFFD")}}
		} else {
			reason := s.SourceReason
			if reason == "" {
				reason = "source capture was not approved"
			}
			m["source"] = map[string]any{"included": false, "reason": reason}
		}
		items = append(items, item{base, digest, s.FrameID, m})
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
	out := make([]any, len(items))
	for i, it := range items {
		key := it.base
		if count[it.base] > 1 {
			n[it.base]++
			key += "_" + strconv.Itoa(n[it.base])
		}
		it.m["script_key"] = key
		out[i] = it.m
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

func normalizeNetwork(pc *ports.BrowserPageCapture, req ports.BrowserInspectRequest) map[string]any {
	reqs := make([]any, len(pc.Network.Requests))
	for i, r := range pc.Network.Requests {
		shapes := map[string]any{"status": "not_approved", "request": nil, "response": nil}
		if req.IncludeJSONBodyShapes {
			rq, rs := bodyStatus(r.RequestBodyStatus), bodyStatus(r.ResponseBodyStatus)
			if r.RequestBody != nil {
				if s := jsonShape(r.RequestBody); s != nil {
					shapes["request"] = s
				} else {
					rq = "unavailable"
				}
			}
			if r.ResponseBody != nil {
				if s := jsonShape(r.ResponseBody); s != nil {
					shapes["response"] = s
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
			shapes["status"] = st
		}
		redirects := make([]any, len(r.Redirects))
		for j, h := range r.Redirects {
			redirects[j] = map[string]any{"url": h.URL, "origin": nullable(h.Origin), "status": h.Status}
		}
		method := r.Method
		if method == "" {
			method = "GET"
		}
		itype := r.Initiator.Type
		if itype == "" {
			itype = "other"
		}
		reqs[i] = map[string]any{"request_id": r.RequestID, "url": r.URL, "origin": nullable(r.Origin), "method": method,
			"resource_type": nullable(r.ResourceType), "status": nullableP(r.Status), "mime_type": nullableP(r.MimeType),
			"encoded_data_length": nullableP(r.EncodedDataLength),
			"initiator":           map[string]any{"type": itype, "url": nullableP(r.Initiator.URL), "line": nullableP(r.Initiator.Line), "column": nullableP(r.Initiator.Column)},
			"body_shapes":         shapes, "redirects": redirects}
	}
	ws := make([]any, len(pc.Network.WebSocketEvents))
	for i, e := range pc.Network.WebSocketEvents {
		var shape any
		if req.IncludeWebSocketShapes {
			switch {
			case e.Opcode != 1:
				shape = map[string]any{"format": "binary", "json_shape": nil}
			case e.Truncated:
				shape = map[string]any{"format": "text", "json_shape": nil, "truncated": true}
			case e.Payload != nil:
				if s := jsonShape(e.Payload); s != nil {
					shape = map[string]any{"format": "json", "json_shape": s}
				} else {
					shape = map[string]any{"format": "text", "json_shape": nil}
				}
			}
		}
		ws[i] = map[string]any{"request_id": e.RequestID, "direction": e.Direction, "opcode": e.Opcode, "payload_bytes": e.PayloadBytes, "payload_shape": shape}
	}
	return map[string]any{"requests": reqs, "websocket_events": ws,
		"coverage_started_at": isoTime(pc.Network.CoverageStartedAt), "prior_activity_available": false}
}

func normalizeConsole(pc *ports.BrowserPageCapture, req ports.BrowserInspectRequest) map[string]any {
	evs := make([]any, len(pc.Console))
	for i, e := range pc.Console {
		tc := map[string]any{"status": "not_approved", "values": []any{}, "retained_bytes": 0, "truncated_values": 0}
		if req.IncludeConsoleText {
			vals := make([]any, len(e.Values))
			n := 0
			for j, v := range e.Values {
				vals[j] = map[string]any{"argument_index": v.ArgumentIndex, "type": v.Type, "text": v.Text}
				n += len(v.Text)
			}
			st := "included"
			if e.TruncatedValues > 0 {
				st = "truncated"
			}
			tc = map[string]any{"status": st, "values": vals, "retained_bytes": n, "truncated_values": e.TruncatedValues}
		}
		var line, col any
		if e.URL != "" {
			line, col = e.Line, e.Column
		}
		evs[i] = map[string]any{"type": e.Type, "timestamp": e.Timestamp, "argument_types": core.NonNil(e.ArgumentTypes),
			"url": nullable(e.URL), "line": line, "column": col, "text_capture": tc}
	}
	return map[string]any{"events": evs, "coverage_started_at": isoTime(pc.Network.CoverageStartedAt), "prior_activity_available": false}
}

func normalizeWorkers(ws []ports.BrowserWorker) []any {
	out := make([]any, len(ws))
	for i, w := range ws {
		out[i] = map[string]any{"target_id": w.TargetID, "type": w.Type, "url": w.URL, "origin": nullable(w.Origin), "attached": w.Attached,
			"opener_target_id": nullable(w.OpenerTargetID), "parent_frame_id": nullable(w.ParentFrameID)}
	}
	return out
}

func normalizeStorage(s ports.BrowserStorage) map[string]any {
	type fp struct {
		sort string
		m    map[string]any
	}
	fps := make([]fp, 0, len(s.Fingerprints))
	complete := true
	for _, f := range s.Fingerprints {
		id := map[string]any{}
		for k, v := range f.Identity {
			id[k] = v
		}
		idDigest := core.MustDigest(id)
		fps = append(fps, fp{f.Scope + ":" + idDigest, map[string]any{"scope": f.Scope, "identity_sha256": idDigest,
			"value_sha256": nullable(f.ValueSHA256), "complete": f.Complete}})
		complete = complete && f.Complete
	}
	sort.Slice(fps, func(i, j int) bool { return fps[i].sort < fps[j].sort })
	list := make([]any, len(fps))
	for i, f := range fps {
		list[i] = f.m
	}
	return map[string]any{"origin": s.Origin, "usage_bytes": nullableP(s.UsageBytes), "quota_bytes": nullableP(s.QuotaBytes),
		"local_storage_keys": core.NonNil(s.LocalStorageKeys), "session_storage_keys": core.NonNil(s.SessionStorageKeys),
		"indexed_db_names": core.NonNil(s.IndexedDBNames), "cache_names": core.NonNil(s.CacheNames),
		"content_fingerprints": list, "fingerprint_algorithm": "sha256", "fingerprints_complete": complete && len(fps) > 0,
		"values_redacted": true}
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

func normalizeMetadata(pc *ports.BrowserPageCapture) map[string]any {
	allowed := map[string]bool{}
	for _, o := range pc.AllowedOrigins {
		allowed[o] = true
	}
	var hints []any
	hintSeen := map[string]bool{}
	addHint := func(mech, decl string, u any) {
		k := mech + "\x00" + decl + "\x00" + fmt.Sprint(u)
		if hintSeen[k] {
			return
		}
		hintSeen[k] = true
		hints = append(hints, map[string]any{"mechanism": mech, "declaration": decl, "url": u, "trust": "page-declared-untrusted"})
	}
	responses := make([]any, 0, len(pc.Metadata.Responses))
	for _, r := range pc.Metadata.Responses {
		h := r.Headers
		base, _ := url.Parse(r.URL)
		var clen any
		if v, ok := h["content-length"]; ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
				clen = n
			}
		}
		responses = append(responses, map[string]any{"request_id": r.RequestID, "url": r.URL, "mime_type": nullable(r.MimeType),
			"content_length": clen, "content_encoding": nullable(strings.TrimSpace(h["content-encoding"])),
			"csp": parseCSP(h["content-security-policy"], allowed), "links": parseLinks(h["link"], base, allowed, addHint),
			"policies": map[string]any{"coop": token(h["cross-origin-opener-policy"]), "coep": token(h["cross-origin-embedder-policy"]),
				"corp": token(h["cross-origin-resource-policy"]), "referrer_policy": token(h["referrer-policy"]),
				"x_content_type_options": token(h["x-content-type-options"]), "permissions_policy_features": permissionsFeatures(h["permissions-policy"])}})
		for _, name := range []string{"x-model-context", "x-webmcp", "mcp-server"} {
			if _, ok := h[name]; ok {
				addHint("response_header", name, nil)
			}
		}
		if base != nil {
			for _, p := range []string{"/.well-known/ai-plugin.json", "/.well-known/mcp", "/.well-known/model-context"} {
				if base.Path == p {
					addHint("well_known_resource", p, r.URL)
				}
			}
		}
	}
	for _, rel := range pc.DOM.LinkRels {
		addHint("dom_link_rel", rel, nil)
	}
	domURLs := make([]any, len(pc.DOM.URLs))
	excluded := 0
	for i, d := range pc.DOM.URLs {
		domURLs[i] = map[string]any{"node_index": d.NodeIndex, "attribute": d.Attribute, "url": nullableP(d.URL), "destination_scope": d.DestinationScope}
		if d.DestinationScope != "approved" {
			excluded++
		}
	}
	return map[string]any{"responses": responses, "dom_urls": domURLs, "agent_hints": core.NonNil(hints),
		"excluded_dom_urls": excluded, "headers_allowlisted": true}
}

func token(v string) any {
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
	return v
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

func parseCSP(v string, allowed map[string]bool) map[string]any {
	dirs := []any{}
	nonces, hashes := 0, 0
	for _, d := range strings.Split(v, ";") {
		f := strings.Fields(d)
		if len(f) == 0 || len(dirs) >= 100 {
			continue
		}
		name := strings.ToLower(f[0])
		if token(name) == nil || strings.ContainsAny(name, "_.") {
			continue
		}
		srcs := []any{}
		for _, s := range f[1:] {
			ls := strings.ToLower(s)
			switch {
			case strings.HasPrefix(ls, "'nonce-"):
				nonces++
			case strings.HasPrefix(ls, "'sha256-"), strings.HasPrefix(ls, "'sha384-"), strings.HasPrefix(ls, "'sha512-"):
				hashes++
			case cspKeywords[ls]:
				srcs = append(srcs, map[string]any{"kind": "keyword", "value": ls})
			case strings.HasSuffix(ls, ":") && !strings.Contains(ls, "/"):
				srcs = append(srcs, map[string]any{"kind": "scheme", "value": ls})
			default:
				u, err := url.Parse(s)
				if o := originOf(u); err == nil && o != "" {
					kind := "external_origin"
					if allowed[o] {
						kind = "approved_origin"
					}
					srcs = append(srcs, map[string]any{"kind": kind, "value": o})
				} else {
					srcs = append(srcs, map[string]any{"kind": "other", "value": nil})
				}
			}
		}
		dirs = append(dirs, map[string]any{"name": name, "sources": srcs})
	}
	return map[string]any{"directives": dirs, "nonce_count": nonces, "hash_count": hashes}
}

func parseLinks(v string, base *url.URL, allowed map[string]bool, hint func(string, string, any)) []any {
	out := []any{}
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
		var href any
		scope := "unsupported"
		if base != nil {
			if u, err := base.Parse(ref); err == nil {
				if o := originOf(u); o != "" {
					scope = "outside_policy"
					if allowed[o] {
						scope, href = "approved", u.String()
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
		opt := func(k string) any {
			if v, ok := params[k]; ok {
				return v
			}
			return nil
		}
		out = append(out, map[string]any{"href": href, "destination_scope": scope, "rel": rels, "as": opt("as"), "type": opt("type"), "crossorigin": opt("crossorigin")})
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
func jsonShape(b []byte) map[string]any {
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
	list := make([]any, len(order))
	for i, p := range order {
		e := props[p]
		types := make([]string, 0, len(e.types))
		for _, t := range jsonValueTypes {
			if e.types[t] {
				types = append(types, t)
			}
		}
		list[i] = map[string]any{"path": p, "types": types, "observations": e.obs}
	}
	return map[string]any{"root_type": jsonType(root), "node_count": nodes, "max_depth_observed": maxDepth, "properties": list, "truncated": truncated}
}

var jsonValueTypes = []string{"object", "array", "string", "number", "boolean", "null"}
