package web

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"

	"rea/core"
)

// Advertised examples of compare_web_captures: small but complete captures
// of a local shop page, built as Go values so every key and digest is
// consistent with the rules the comparison and its validation apply.

type jv = map[string]any

const (
	exOrigin  = "http://127.0.0.1:4173"
	exPageURL = exOrigin + "/app"
	exFrameID = "8A1E4C7D2B9F03E5A6C4D2B1F0E9A7C3"
)

func exStrings(s ...string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func exSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func exBrowser() jv {
	return jv{"product": "Chrome/126.0.6478.126", "protocol_version": "1.3", "revision": "@8e7d5e4a1f2b0c3d9e6f",
		"user_agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.6478.126 Safari/537.36",
		"js_version": "12.6.228.21"}
}

func exLedger(status string, conditions []string, attach, policy []string, excluded []any) jv {
	if excluded == nil {
		excluded = []any{}
	}
	return jv{"status": status, "conditions": exStrings(conditions...), "policy_filtered_sections": exStrings(policy...),
		"attach_limited_sections": exStrings(attach...), "truncated_sections": []any{}, "unavailable_sections": []any{},
		"excluded": excluded, "dropped_events": jv{"scripts": 0, "network_requests": 0, "console_events": 0,
			"websocket_connections": 0, "websocket_frames": 0, "webmcp_tools": 0, "timeline_events": 0, "total": 0}}
}

func exResource(url, typ, mime string, size any) jv {
	r := jv{"url": url, "origin": exOrigin, "type": typ, "mime_type": mime, "content_size": size}
	r["resource_key"] = "res_" + core.MustDigest(r)
	return r
}

func exScript(url, hash string, length int, module bool, resourceKey string) jv {
	id := jv{"url": url, "cdp_hash": hash, "length": length, "is_module": module, "language": "JavaScript", "source_map_url": nil}
	return jv{"script_key": "scr_" + core.MustDigest(id), "frame_id": exFrameID, "url": url, "origin": exOrigin, "cdp_hash": hash,
		"length": length, "is_module": module, "language": "JavaScript", "source_map_url": nil,
		"resource_reconciliation": jv{"status": "exact", "resource_key": resourceKey},
		"source":                  jv{"included": false, "reason": "source capture was not approved"}}
}

func exDOMNode(index, parent, typ int, name string, valueLen int, attrs ...string) jv {
	return jv{"index": index, "parent_index": parent, "node_type": typ, "node_name": name,
		"node_value_length": valueLen, "attribute_names": exStrings(attrs...)}
}

// exInspection is an inspect_web_page result; withVendor adds a second
// module script as a later deployment would.
func exInspection(withVendor bool) jv {
	const started = "2026-03-02T10:00:00.000Z"
	app := exResource(exOrigin+"/app.js", "Script", "text/javascript", 1843)
	doc := exResource(exPageURL, "Document", "text/html", nil)
	resources := []any{doc, app}
	scripts := []any{exScript(exOrigin+"/app.js", "4f0c9a1e7b2d", 1843, true, app["resource_key"].(string))}
	nodes := []any{exDOMNode(0, -1, 9, "#document", 0), exDOMNode(1, 0, 1, "HTML", 0, "lang"), exDOMNode(2, 1, 1, "BODY", 0),
		exDOMNode(3, 2, 1, "BUTTON", 0, "aria-label"), exDOMNode(4, 2, 1, "SCRIPT", 0, "src", "type")}
	domURLs := []any{jv{"node_index": 4, "attribute": "src", "url": exOrigin + "/app.js", "destination_scope": "approved"}}
	if withVendor {
		vendor := exResource(exOrigin+"/vendor.js", "Script", "text/javascript", 5120)
		resources = append(resources, vendor)
		scripts = append(scripts, exScript(exOrigin+"/vendor.js", "9d3b27c41e08", 5120, true, vendor["resource_key"].(string)))
		nodes = append(nodes, exDOMNode(5, 2, 1, "SCRIPT", 0, "src", "type"))
		domURLs = append(domURLs, jv{"node_index": 5, "attribute": "src", "url": exOrigin + "/vendor.js", "destination_scope": "approved"})
	}
	sortByKey(resources, "resource_key")
	sortByKey(scripts, "script_key")
	excluded := []any{
		jv{"section": "console_text", "reason": "not_approved", "count": 0},
		jv{"section": "json_body_shapes", "reason": "not_approved", "count": 1},
		jv{"section": "script_sources", "reason": "not_approved", "count": len(scripts)},
		jv{"section": "websocket_shapes", "reason": "not_approved", "count": 0},
	}
	return jv{
		"schema_version": 2,
		"browser":        exBrowser(),
		"target": jv{"target_id": "7F1C2E5A9B3D4F60A1B2C3D4E5F60718", "type": "page", "title": "Shop", "url": exPageURL,
			"origin": exOrigin, "attached": false},
		"capture_window": jv{"started_at": started, "ended_at": "2026-03-02T10:00:00.620Z", "observation_ms": 500},
		"completeness": exLedger("policy_filtered", []string{"attach_limited", "policy_filtered"},
			[]string{"console_events", "metadata", "network_requests", "websocket_connections", "websocket_frames"},
			[]string{"console_text", "json_body_shapes", "script_sources", "websocket_shapes"}, excluded),
		"frames": []any{jv{"frame_id": exFrameID, "parent_frame_id": nil, "url": exPageURL, "origin": exOrigin}},
		"dom":    jv{"total_nodes": len(nodes), "nodes": nodes},
		"accessibility": jv{"total_nodes": 2,
			"text_capture": jv{"status": "included", "retained_bytes": 15, "excluded_fields": 0, "truncated_fields": 0},
			"nodes": []any{
				jv{"node_id": "1", "parent_id": nil, "role": "RootWebArea", "name": "Shop", "description": nil, "ignored": false,
					"states": []any{jv{"name": "focusable", "value": true}}},
				jv{"node_id": "7", "parent_id": "1", "role": "button", "name": "Add to cart", "description": nil, "ignored": false,
					"states": []any{jv{"name": "focusable", "value": true}}},
			}},
		"scripts":   jv{"total": len(scripts), "items": scripts},
		"resources": resources,
		"network": jv{"requests": []any{jv{
			"request_id": "31337.12", "url": exOrigin + "/api/cart", "origin": exOrigin, "method": "POST", "resource_type": "Fetch",
			"status": 200, "mime_type": "application/json", "encoded_data_length": 312,
			"initiator":   jv{"type": "script", "url": exOrigin + "/app.js", "line": 41, "column": 12},
			"body_shapes": jv{"status": "not_approved", "request": nil, "response": nil},
		}}, "websocket_events": []any{}, "coverage_started_at": started, "prior_activity_available": false},
		"console": jv{"events": []any{}, "coverage_started_at": started, "prior_activity_available": false},
		"workers": []any{},
		"metadata": jv{
			"responses": []any{jv{
				"request_id": "31337.12", "url": exOrigin + "/api/cart", "mime_type": "application/json", "content_length": 312,
				"content_encoding": "gzip",
				"csp": jv{"directives": []any{jv{"name": "default-src", "sources": []any{jv{"kind": "keyword", "value": "'self'"}}}},
					"nonce_count": 0, "hash_count": 0},
				"links": []any{},
				"policies": jv{"coop": "same-origin", "coep": nil, "corp": nil, "referrer_policy": "strict-origin-when-cross-origin",
					"x_content_type_options": "nosniff", "permissions_policy_features": []any{}},
			}},
			"dom_urls": domURLs, "agent_hints": []any{}, "excluded_dom_urls": 0, "headers_allowlisted": true,
		},
		"storage": jv{"origin": exOrigin, "usage_bytes": 2048, "quota_bytes": int64(299632129228),
			"local_storage_keys": exStrings("cart"), "session_storage_keys": []any{}, "indexed_db_names": []any{}, "cache_names": []any{},
			"content_fingerprints": []any{jv{"scope": "local_storage", "identity_sha256": exSHA256("cart"),
				"value_sha256": exSHA256(`{"items":[]}`), "complete": true}},
			"fingerprint_algorithm": "sha256", "fingerprints_complete": true, "values_redacted": true},
		"limitations": exStrings("Observation starts when REA attaches; prior network and console activity is unavailable."),
	}
}

func sortByKey(items []any, key string) {
	sort.Slice(items, func(i, j int) bool { return items[i].(jv)[key].(string) < items[j].(jv)[key].(string) })
}

func exWebMCP() jv {
	schema := jv{"type": "object", "properties": jv{"sku": jv{"type": "string"}}, "required": exStrings("sku")}
	return jv{
		"schema_version": 1,
		"browser":        exBrowser(),
		"target":         jv{"target_id": "7F1C2E5A9B3D4F60A1B2C3D4E5F60718", "url": exPageURL, "origin": exOrigin},
		"status":         "available",
		"tools": jv{"total": 1, "items": []any{jv{
			"tool_key": "webmcp_" + exSHA256(exPageURL+"\x00add_to_cart"), "name": "add_to_cart",
			"description": "Add a product to the cart.", "frame_id": exFrameID, "frame_url": exPageURL, "owner_origin": exOrigin,
			"declaration_kind": "imperative", "input_schema": schema, "input_schema_sha256": core.MustDigest(schema),
			"annotations":         jv{"read_only": false, "untrusted_content": nil, "autosubmit": nil},
			"registration_source": jv{"url": exOrigin + "/app.js", "line": 12, "column": 4},
			"trust":               "page-declared-untrusted",
		}}},
		"completeness": exLedger("complete_within_window", []string{"complete_within_window"}, nil, nil, nil),
		"limitations":  []any{},
	}
}

func exURL(u string) jv {
	var origin any = exOrigin
	if u == "about:blank" {
		origin = nil
	}
	return jv{"url": u, "origin": origin, "query_parameter_names": []any{}, "redacted": false}
}

func exTextArtifact(text string) jv {
	return jv{"sha256": exSHA256(text), "bytes": len(text), "text": text}
}

func exArtifacts(dom, url jv) jv {
	a := jv{"screenshot": jv{"state": "not_requested"}, "dom": jv{"state": "not_requested"},
		"accessibility": jv{"state": "not_requested"}, "url": jv{"state": "not_requested"},
		"history": jv{"state": "not_requested"}, "storage": jv{"state": "not_requested"}}
	if dom != nil {
		a["dom"] = jv{"state": "captured", "value": dom}
	}
	if url != nil {
		a["url"] = jv{"state": "captured", "value": url}
	}
	return a
}

var exComplete = jv{"status": "complete", "equality_eligible": true, "missing_sections": []any{}, "truncated_sections": []any{}}

func exNetworkEvent(seq, step int, kind, method, path, typ string, status any) jv {
	return jv{"sequence": seq, "step_index": step, "kind": kind, "method": method, "url": exURL(exOrigin + path),
		"resource_type": typ, "header_names": exStrings("accept", "user-agent"), "status": status, "failure": nil}
}

// exScenario is a capture_browser_scenario result of opening the shop and
// clicking "Add to cart"; build stamps the page's build id.
func exScenario(build string, elapsed int) jv {
	html := `<html lang="en"><body data-build="` + build + `"><button aria-label="Add to cart">Add to cart</button><span>1 item</span></body></html>`
	return jv{
		"schema_version": 1,
		"browser": jv{"mode": "launch", "process_ownership": "provider-owned", "cleanup": "terminated-owned-process",
			"product": "chromium", "version": "126.0.6478.126"},
		"scenario":    jv{"start_origin": exOrigin, "allowed_origins": exStrings(exOrigin), "action_count": 1, "secret_references": []any{}},
		"duration_ms": 700 + elapsed,
		"steps": []any{
			jv{"step_index": 0, "step_id": "scenario_start", "action": "goto_start", "status": "completed", "error": nil,
				"elapsed_ms": 410, "before_url": exURL("about:blank"), "after_url": exURL(exPageURL),
				"event_sequence_start": 1, "event_sequence_end": 2,
				"artifacts": exArtifacts(nil, exURL(exPageURL)), "completeness": exComplete},
			jv{"step_index": 1, "step_id": "add-to-cart", "action": "click", "status": "completed", "error": nil,
				"elapsed_ms": elapsed, "before_url": exURL(exPageURL), "after_url": exURL(exPageURL),
				"event_sequence_start": 3, "event_sequence_end": 4,
				"artifacts": exArtifacts(exTextArtifact(html), exURL(exPageURL)), "completeness": exComplete},
		},
		"events": jv{"retained": 4, "dropped": 0, "items": []any{
			exNetworkEvent(1, 0, "request", "GET", "/app", "document", nil),
			exNetworkEvent(2, 0, "response", "GET", "/app", "document", 200),
			exNetworkEvent(3, 1, "request", "POST", "/api/cart", "fetch", nil),
			exNetworkEvent(4, 1, "response", "POST", "/api/cart", "fetch", 200),
		}},
		"completeness": exComplete,
		"limitations":  []any{},
	}
}

// exScenarioBrief is a small complete capture_browser_scenario result: the
// start page and one click that leads to next, whose URL is the one
// artifact captured; no events.
func exScenarioBrief(next string, elapsed int) jv {
	step := func(i int, id, action string, before, after, captured jv, ms int) jv {
		return jv{"step_index": i, "step_id": id, "action": action, "status": "completed", "error": nil, "elapsed_ms": ms,
			"before_url": before, "after_url": after, "event_sequence_start": 1, "event_sequence_end": 0,
			"artifacts": exArtifacts(nil, captured), "completeness": exComplete}
	}
	return jv{
		"schema_version": 1,
		"browser": jv{"mode": "launch", "process_ownership": "provider-owned", "cleanup": "terminated-owned-process",
			"product": "chromium", "version": "126.0.6478.126"},
		"scenario":    jv{"start_origin": exOrigin, "allowed_origins": exStrings(exOrigin), "action_count": 1, "secret_references": []any{}},
		"duration_ms": 700 + elapsed,
		"steps": []any{step(0, "scenario_start", "goto_start", exURL("about:blank"), exURL(exPageURL), nil, 410),
			step(1, "open-cart", "click", exURL(exPageURL), exURL(next), exURL(next), elapsed)},
		"events":       jv{"retained": 0, "dropped": 0, "items": []any{}},
		"completeness": exComplete,
		"limitations":  []any{},
	}
}

func webCompareExamples() []json.RawMessage {
	out := make([]json.RawMessage, len(generatedCompareExamples))
	for i, e := range generatedCompareExamples {
		out[i] = e
	}
	return out
}

// buildWebCompareExamples builds webCompareExamples' text (generated into
// schemas_generated.go, like the schemas).
func buildWebCompareExamples() []json.RawMessage {
	// The first, two retained inspect_web_page references (the IDs are
	// placeholders: an agent passes the evidence_id its inspections
	// returned), is advertised; the others (inline captures, 4 KB and
	// more) exceed ExampleBudget with it and stay test examples.
	ref := func(digit string) jv {
		return jv{"kind": "retained-evidence", "evidence_id": "ev_" + strings.Repeat(digit, 64)}
	}
	examples := []any{
		jv{"before": jv{"inspection": ref("0")}, "after": jv{"inspection": ref("1"), "webmcp": nil}},
		jv{"before_scenario": exScenarioBrief(exOrigin+"/cart", 120), "after_scenario": exScenarioBrief(exOrigin+"/basket", 95)},
		jv{"before": jv{"inspection": exInspection(false)}, "after": jv{"inspection": exInspection(false), "webmcp": nil}},
		jv{"before_scenario": exScenario("2026.03.01", 120), "after_scenario": exScenario("2026.03.02", 95),
			"normalization": jv{"rules": []any{jv{"rule_id": "build-id", "artifacts": exStrings("dom"),
				"match": "2026.03.02", "replacement": "2026.03.01"}}}},
		jv{"before": jv{"inspection": exInspection(false), "webmcp": exWebMCP()},
			"after": jv{"inspection": exInspection(true), "webmcp": exWebMCP()}, "max_changes": 500},
	}
	out := make([]json.RawMessage, len(examples))
	for i, e := range examples {
		raw, err := core.MarshalNoEscape(e)
		if err != nil {
			panic("core: compare_web_captures example: " + err.Error())
		}
		out[i] = raw
	}
	return out
}
