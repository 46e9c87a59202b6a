package web

import (
	"encoding/json"
	"slices"
	"sort"

	"rea/core"
)

// This file declares the JSON Schemas of compare_web_captures: the complete
// normalized results of inspect_web_page, discover_webmcp_tools and
// capture_browser_scenario it accepts (BROWSER.md §3-§5), and its own
// result. Schemas are built as Go values so shared shapes are written once
// and referenced through local #/$defs refs; none is recursive.

// js is a JSON Schema fragment under construction.
type js = map[string]any

func jsRef(name string) js { return js{"$ref": "#/$defs/" + name} }

func jsStr() js { return js{"type": "string"} }

func jsStrLen(min, max int) js {
	s := js{"type": "string", "minLength": min}
	if max > 0 {
		s["maxLength"] = max
	}
	return s
}

func jsPattern(p string) js { return js{"type": "string", "pattern": p} }

func jsInt(min int) js { return js{"type": "integer", "minimum": min} }

func jsIntRange(min, max int) js { return js{"type": "integer", "minimum": min, "maximum": max} }

func jsNum(min int) js { return js{"type": "number", "minimum": min} }

func jsBool() js { return js{"type": "boolean"} }

func jsConst(v any) js { return js{"const": v} }

func jsEnum(vs ...string) js {
	l := make([]any, len(vs))
	for i, v := range vs {
		l[i] = v
	}
	return js{"enum": l}
}

func jsNull() js { return js{"type": "null"} }

// jsAny is an explicitly permissive schema: any JSON value.
func jsAny(desc string) js { return js{"description": desc} }

// jsNullable admits null besides s.
func jsNullable(s js) js {
	if t, ok := s["type"].(string); ok && s["enum"] == nil && s["const"] == nil {
		c := js{}
		for k, v := range s {
			c[k] = v
		}
		c["type"] = []any{t, "null"}
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(s) == 1 {
		return js{"enum": append(append([]any{}, e...), nil)}
	}
	return js{"anyOf": []any{jsNull(), s}}
}

func jsArr(items js) js { return js{"type": "array", "items": items} }

func jsArrN(items js, min, max int) js {
	s := jsArr(items)
	if min > 0 {
		s["minItems"] = min
	}
	if max > 0 {
		s["maxItems"] = max
	}
	return s
}

func jsSet(items js) js { return js{"type": "array", "items": items, "uniqueItems": true} }

// jsObj is a closed object: every property is required except those listed
// as optional.
func jsObj(props js, optional ...string) js {
	req := []any{}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(optional, k) {
			req = append(req, k)
		}
	}
	return js{"type": "object", "additionalProperties": false, "required": req, "properties": props}
}

// jsLine and jsColumn are a code location in a script, as every rea tool
// reports one (ARCHITECTURE.md, "Code locations"): line 1-based, column
// 0-based in UTF-16 code units. Captures made before the convention carry
// CDP's 0-based lines, so 0 stays valid.
func jsLine() js   { return jsDesc(jsNullable(jsInt(0)), "1-based.") }
func jsColumn() js { return jsDesc(jsNullable(jsInt(0)), "0-based, in UTF-16 code units.") }

// jsDesc returns s with a description.
func jsDesc(s js, d string) js {
	c := js{}
	for k, v := range s {
		c[k] = v
	}
	c["description"] = d
	return c
}

func jsAnyOf(branches ...js) js {
	l := make([]any, len(branches))
	for i, b := range branches {
		l[i] = b
	}
	return js{"anyOf": l}
}

const (
	sha256Pattern = `^[0-9a-f]{64}$`
	dateTimeNote  = "ISO 8601 UTC time with milliseconds."
)

func jsSHA256() js { return jsPattern(sha256Pattern) }

func jsDateTime() js { return js{"type": "string", "format": "date-time", "description": dateTimeNote} }

// browserSections are the completeness sections of a passive capture
// (BROWSER.md §4).
var browserSections = []string{"frames", "dom", "accessibility", "scripts", "script_sources", "resources",
	"network_requests", "network_initiators", "console_events", "console_text", "websocket_connections",
	"websocket_frames", "websocket_shapes", "json_body_shapes", "workers", "storage", "storage_keys",
	"metadata", "webmcp_tools", "screenshot", "source_maps", "timeline"}

var browserExclusionReasons = []string{"disallowed_origin", "unsupported_url", "unattributed_origin", "not_approved",
	"out_of_target_scope", "provider_unavailable", "invalid_protocol_value", "resource_budget_exhausted"}

var browserDroppedKinds = []string{"scripts", "network_requests", "console_events", "websocket_connections",
	"websocket_frames", "webmcp_tools", "timeline_events"}

var completenessConditions = []string{"complete_within_window", "policy_filtered", "attach_limited", "truncated"}

var axStateNames = []string{"atomic", "autocomplete", "busy", "checked", "disabled", "editable", "expanded",
	"focusable", "focused", "hasPopup", "hidden", "invalid", "level", "live", "modal", "multiline",
	"multiselectable", "orientation", "pressed", "readonly", "required", "selected", "valuemax", "valuemin"}

var jsonValueTypes = []string{"object", "array", "string", "number", "boolean", "null"}

// passiveCaptureDefs are the shapes of inspect_web_page and
// discover_webmcp_tools results.
func passiveCaptureDefs() js {
	section := jsEnum(browserSections...)
	dropped := js{}
	for _, k := range browserDroppedKinds {
		dropped[k] = jsInt(0)
	}
	dropped["total"] = jsDesc(jsInt(0), "Sum of the per-kind dropped counts.")
	jsonShape := jsDesc(jsObj(js{
		"root_type":          jsEnum(jsonValueTypes...),
		"node_count":         jsInt(1),
		"max_depth_observed": jsInt(0),
		"properties": jsArr(jsObj(js{
			"path":         jsDesc(jsStr(), "JSON-pointer-like path; /* stands for array items."),
			"types":        jsArrN(jsEnum(jsonValueTypes...), 1, 0),
			"observations": jsInt(1),
		})),
		"truncated": jsBool(),
	}, "truncated"), "Value-free structural summary of a JSON payload.")
	cspSource := jsObj(js{
		"kind":  jsEnum("keyword", "scheme", "approved_origin", "external_origin", "other"),
		"value": jsNullable(jsStr()),
	})
	urlScope := jsEnum("approved", "outside_policy", "unsupported")
	return js{
		"web_browser": jsDesc(jsObj(js{
			"product": jsStr(), "protocol_version": jsStr(), "revision": jsStr(), "user_agent": jsStr(), "js_version": jsStr(),
		}), "Browser identity from /json/version."),
		"web_completeness": jsDesc(jsObj(js{
			"status":                   jsDesc(jsEnum(completenessConditions...), "Overall coverage: truncated, then policy_filtered, then attach_limited, then complete_within_window."),
			"conditions":               jsArrN(jsEnum(completenessConditions...), 1, 3),
			"policy_filtered_sections": jsDesc(jsSet(section), "Sections from which policy (origin scope, opt-in) excluded observations."),
			"attach_limited_sections":  jsDesc(jsSet(section), "Sections observed only after attachment."),
			"truncated_sections":       jsDesc(jsSet(section), "Sections cut by a limit."),
			"unavailable_sections":     jsDesc(jsSet(section), "Sections the browser could not provide."),
			"excluded": jsArr(jsObj(js{
				"section": section,
				"reason":  jsEnum(browserExclusionReasons...),
				"count":   jsNullable(jsInt(0)),
			})),
			"dropped_events": jsObj(dropped),
		}), "Section-level coverage of a bounded browser observation (BROWSER.md §4). A section listed here is never compared as unchanged."),
		"web_json_shape": jsonShape,
		"web_inspection": jsDesc(jsObj(js{
			"schema_version": jsConst(2),
			"browser":        jsRef("web_browser"),
			"target": jsObj(js{
				"target_id": jsStrLen(1, 256), "type": jsStr(), "title": jsStr(), "url": jsStr(),
				"origin": jsDesc(jsStr(), "Origin of the target URL; empty for an unsupported URL."), "attached": jsBool(),
			}),
			"capture_window": jsObj(js{"started_at": jsDateTime(), "ended_at": jsDateTime(), "observation_ms": jsInt(0)}),
			"completeness":   jsRef("web_completeness"),
			"frames": jsDesc(jsArr(jsObj(js{
				"frame_id": jsStr(), "parent_frame_id": jsNullable(jsStr()), "url": jsStr(), "origin": jsNullable(jsStr()),
				"not_captured": jsDesc(jsArr(section), "A frame of another site in its own renderer process: only its id, parent, url and origin were read, not these sections."),
			}, "not_captured")), "Frames in pre-order; the first is the main frame."),
			"dom": jsDesc(jsObj(js{
				"total_nodes": jsDesc(jsInt(0), "Nodes in scope before the node limit."),
				"nodes": jsArr(jsObj(js{
					"index": jsInt(0), "parent_index": jsInt(-1), "node_type": jsInt(0), "node_name": jsStrLen(0, 256),
					"node_value_length": jsInt(0), "attribute_names": jsArr(jsStr()),
				})),
			}), "Value-free DOM snapshot of in-scope documents."),
			"accessibility": jsObj(js{
				"total_nodes": jsInt(0),
				"text_capture": jsObj(js{
					"status":           jsEnum("not_approved", "included", "truncated", "unavailable"),
					"retained_bytes":   jsInt(0),
					"excluded_fields":  jsInt(0),
					"truncated_fields": jsInt(0),
				}, "truncated_fields"),
				"nodes": jsArr(jsObj(js{
					"node_id": jsStr(), "parent_id": jsNullable(jsStr()), "role": jsNullable(jsStr()),
					"name": jsNullable(jsStr()), "description": jsNullable(jsStr()), "ignored": jsBool(),
					"states": jsArr(jsObj(js{
						"name":  jsEnum(axStateNames...),
						"value": js{"type": []any{"boolean", "number", "string"}},
					})),
				})),
			}),
			"scripts": jsObj(js{
				"total": jsDesc(jsInt(0), "All captured scripts, including any beyond items."),
				"items": jsArr(jsRef("web_script")),
			}),
			"resources": jsArr(jsObj(js{
				"resource_key": jsPattern(`^res_[0-9a-f]{64}$`), "url": jsStr(), "origin": jsNullable(jsStr()),
				"type": jsStrLen(0, 100), "mime_type": jsStrLen(0, 256), "content_size": jsNullable(jsNum(0)),
			})),
			"network": jsDesc(jsObj(js{
				"requests": jsArr(jsObj(js{
					"request_id": jsStr(), "url": jsStr(), "origin": jsNullable(jsStr()), "method": jsStrLen(0, 32),
					"resource_type": jsNullable(jsStr()), "status": jsNullable(js{"type": "number"}),
					"mime_type": jsNullable(jsStr()), "encoded_data_length": jsNullable(jsNum(0)),
					"initiator": jsObj(js{"type": jsStr(), "url": jsNullable(jsStr()), "line": jsLine(), "column": jsColumn()}),
					"body_shapes": jsObj(js{
						"status":   jsEnum("not_approved", "included", "partial", "unavailable", "truncated"),
						"request":  jsNullable(jsRef("web_json_shape")),
						"response": jsNullable(jsRef("web_json_shape")),
					}),
					"redirects": jsDesc(jsArr(js{"type": "object"}),
						"Redirect hops on this request id, in order. BROWSER.md leaves the hop fields unverified, so each hop is an open object."),
				}, "redirects")),
				"websocket_events": jsArr(jsObj(js{
					"request_id": jsStr(), "direction": jsEnum("sent", "received"), "opcode": jsInt(0), "payload_bytes": jsInt(0),
					"payload_shape": jsNullable(jsObj(js{
						"format": jsEnum("json", "text", "binary"), "json_shape": jsNullable(jsRef("web_json_shape")), "truncated": jsBool(),
					}, "truncated")),
				})),
				"websockets":               jsArr(jsObj(js{"request_id": jsStr(), "url": jsStr(), "origin": jsNullable(jsStr())})),
				"coverage_started_at":      jsDateTime(),
				"prior_activity_available": jsConst(false),
			}, "websockets"), "Network activity observed after attachment only."),
			"console": jsObj(js{
				"events": jsArr(jsObj(js{
					"type": jsStrLen(0, 100), "timestamp": js{"type": "number"}, "argument_types": jsDesc(jsArr(jsStr()), `Each argument's JS type; an exception event has one: "error" for a thrown Error.`),
					"url": jsNullable(jsStr()), "line": jsLine(), "column": jsColumn(),
					"text_capture": jsObj(js{
						"status":         jsEnum("not_approved", "included", "truncated", "unavailable"),
						"values":         jsArr(jsObj(js{"argument_index": jsInt(0), "type": jsStr(), "text": jsStr()})),
						"retained_bytes": jsInt(0), "truncated_values": jsInt(0),
					}, "truncated_values"),
				})),
				"coverage_started_at":      jsDateTime(),
				"prior_activity_available": jsConst(false),
			}),
			"workers": jsArr(jsObj(js{
				"target_id": jsStr(), "type": jsStr(), "url": jsStr(), "origin": jsNullable(jsStr()), "attached": jsBool(),
				"opener_target_id": jsNullable(jsStr()), "parent_frame_id": jsDesc(jsNullable(jsStr()), "Its frame; for a worker the browser names no parent of, the frame of the session that announced it (the main frame)."),
			})),
			"metadata": jsDesc(jsObj(js{
				"responses": jsArr(jsObj(js{
					"request_id": jsStr(), "url": jsStr(), "mime_type": jsNullable(jsStr()),
					"content_length": jsNullable(jsInt(0)), "content_encoding": jsNullable(jsStr()),
					"csp": jsObj(js{
						"directives":  jsArr(jsObj(js{"name": jsPattern(`^[a-z][a-z0-9-]{0,99}$`), "sources": jsArr(cspSource)})),
						"nonce_count": jsInt(0), "hash_count": jsInt(0),
					}),
					"links": jsArr(jsObj(js{
						"href": jsNullable(jsStr()), "destination_scope": urlScope, "rel": jsArrN(jsStr(), 0, 32),
						"as": jsNullable(jsStr()), "type": jsNullable(jsStr()), "crossorigin": jsNullable(jsStr()),
					})),
					"policies": jsObj(js{
						"coop": jsNullable(jsStr()), "coep": jsNullable(jsStr()), "corp": jsNullable(jsStr()),
						"referrer_policy": jsNullable(jsStr()), "x_content_type_options": jsNullable(jsStr()),
						"permissions_policy_features": jsArrN(jsStr(), 0, 200),
					}),
				})),
				"dom_urls": jsArr(jsObj(js{
					"node_index": jsInt(0), "attribute": jsEnum("href", "src", "action", "formaction", "poster"),
					"url": jsNullable(jsStr()), "destination_scope": urlScope,
				})),
				"agent_hints": jsArr(jsObj(js{
					"mechanism":   jsEnum("link_rel", "dom_link_rel", "well_known_resource", "response_header"),
					"declaration": jsStr(), "url": jsNullable(jsStr()), "trust": jsConst("page-declared-untrusted"),
				})),
				"excluded_dom_urls":   jsInt(0),
				"headers_allowlisted": jsConst(true),
			}), "Safe response metadata (header-derived, values discarded), DOM URLs and agent hints."),
			"storage": jsObj(js{
				"origin": jsStr(), "usage_bytes": jsNullable(jsNum(0)), "quota_bytes": jsNullable(jsNum(0)),
				"local_storage_keys": jsArr(jsStr()), "session_storage_keys": jsArr(jsStr()),
				"indexed_db_names": jsArr(jsStr()), "cache_names": jsArr(jsStr()),
				"content_fingerprints": jsArr(jsObj(js{
					"scope":           jsEnum("cookie", "local_storage", "session_storage", "indexed_db_schema", "indexed_db_record", "cache_entry"),
					"identity_sha256": jsSHA256(), "value_sha256": jsNullable(jsSHA256()), "complete": jsBool(),
				})),
				"fingerprint_algorithm": jsConst("sha256"),
				"fingerprints_complete": jsBool(),
				"values_redacted":       jsConst(true),
			}),
			"limitations": jsArr(jsStr()),
			"parent_evidence_id": jsDesc(jsPattern(`^ev_[0-9a-f]{64}$`),
				"Only on a concise result (DOM and accessibility cut to their first nodes): the retained complete record, which compare_web_captures reads instead."),
		}, "schema_version", "parent_evidence_id"), "The normalized_result of inspect_web_page. schema_version is optional because newer captures omit it."),
		"web_script": jsObj(js{
			"script_key": jsPattern(`^scr_[0-9a-f]{64}(_[0-9]+)?$`),
			"frame_id":   jsNullable(jsStr()), "url": jsStr(), "origin": jsNullable(jsStr()), "cdp_hash": jsStrLen(0, 512),
			"length": jsInt(0), "is_module": jsBool(), "language": jsNullable(jsStr()), "source_map_url": jsNullable(jsStr()),
			"resource_reconciliation": jsAnyOf(
				jsObj(js{"status": jsConst("exact"), "resource_key": jsStr()}),
				jsObj(js{"status": jsConst("ambiguous"), "candidate_resource_keys": jsArr(jsStr())}),
				jsObj(js{"status": jsConst("unmatched"), "reason": jsConst("no_exact_sanitized_url")}),
			),
			"source": jsAnyOf(
				jsObj(js{"included": jsConst(false), "reason": jsStr()}),
				jsObj(js{"included": jsConst(true), "artifact": jsObj(js{
					"uri": jsPattern(`^rea://web-content/sha256/[0-9a-f]{64}$`), "sha256": jsSHA256(), "bytes": jsInt(0),
					"media_type": jsStrLen(1, 0), "charset": jsStrLen(1, 0), "text": jsStr(),
				})}),
			),
		}),
		"web_webmcp_discovery": jsDesc(jsObj(js{
			"schema_version": jsConst(1),
			"browser":        jsRef("web_browser"),
			"target":         jsObj(js{"target_id": jsStr(), "url": jsStr(), "origin": jsStr()}),
			"status":         jsDesc(jsEnum("available", "unavailable"), "unavailable when the browser has no WebMCP domain."),
			"tools": jsObj(js{
				"total": jsDesc(jsInt(0), "Kept plus dropped tools."),
				"items": jsArr(jsObj(js{
					"tool_key": jsPattern(`^webmcp_[0-9a-f]{64}$`), "name": jsStr(), "description": jsStr(),
					"frame_id": jsStr(), "frame_url": jsStr(), "owner_origin": jsStr(),
					"declaration_kind":    jsEnum("declarative", "imperative"),
					"input_schema":        jsAny("Raw page-declared input schema (untrusted JSON, any shape, refs unresolved) or null."),
					"input_schema_sha256": jsNullable(jsSHA256()),
					"annotations": jsObj(js{
						"read_only": jsNullable(jsBool()), "untrusted_content": jsNullable(jsBool()), "autosubmit": jsNullable(jsBool()),
					}),
					"registration_source": jsNullable(jsObj(js{"url": jsStr(), "line": jsLine(), "column": jsColumn()})),
					"trust":               jsConst("page-declared-untrusted"),
				})),
			}),
			"completeness": jsRef("web_completeness"),
			"limitations":  jsArr(jsStr()),
		}, "schema_version"), "The complete normalized_result of discover_webmcp_tools."),
		"web_passive_capture": jsDesc(jsObj(js{
			"inspection": jsDesc(jsAnyOf(jsRef("web_retained"), jsRef("web_inspection")), "inspect_web_page Evidence retained on this connection, or its normalized_result."),
			"webmcp": jsDesc(jsAnyOf(jsNull(), jsRef("web_retained"), jsRef("web_webmcp_discovery")),
				"discover_webmcp_tools Evidence or normalized_result for the same page, or null."),
		}, "webmcp"), "One passive capture of a page."),
	}
}

// scenarioArtifactKinds are the compared artifact families of a scenario.
var scenarioArtifactKinds = []string{"action_state", "screenshot", "dom", "accessibility", "url", "history", "storage", "events"}

// normalizableArtifacts are the families normalization rules may target
// (never screenshots).
var normalizableArtifacts = []string{"action_state", "dom", "accessibility", "url", "history", "storage", "events"}

var scenarioSections = []string{"action", "screenshot", "dom", "accessibility", "url", "history", "storage",
	"events", "frames", "workers", "popups", "websockets"}

// scenarioCaptureDefs are the shapes of capture_browser_scenario results.
func scenarioCaptureDefs() js {
	section := jsEnum(scenarioSections...)
	state := func(value js) js {
		return jsAnyOf(
			jsObj(js{"state": jsConst("captured"), "value": value}),
			jsRef("web_state_not_requested"), jsRef("web_state_missing"), jsRef("web_state_truncated"),
		)
	}
	url := jsRef("web_sanitized_url")
	event := func(kind js, props js) js {
		props["sequence"] = jsDesc(jsInt(1), "Receipt order across the whole capture, from 1.")
		props["step_index"] = jsDesc(jsInt(0), "Index of the step during which the event was observed.")
		props["kind"] = kind
		return jsObj(props)
	}
	network := func(kind string, status, failure js) js {
		return event(jsConst(kind), js{
			"method": jsStrLen(1, 32), "url": url, "resource_type": jsStrLen(1, 64),
			"header_names": jsArrN(jsStrLen(0, 256), 0, 256), "status": status, "failure": failure,
		})
	}
	frame := func(payloadType string, text js) js {
		return event(jsEnum("websocket-frame-sent", "websocket-frame-received"), js{
			"url": url, "payload_bytes": jsInt(0), "truncated": jsBool(), "payload_type": jsConst(payloadType), "payload_text": text,
		})
	}
	value := js{"name": jsStrLen(0, 1024)}
	hashed := func(p js) js {
		c := js{"value_state": jsConst("hashed"), "value_sha256": jsSHA256()}
		for k, v := range p {
			c[k] = v
		}
		return jsObj(c)
	}
	redacted := func(p js) js {
		c := js{"value_state": jsConst("redacted-secret"), "value_sha256": jsNull()}
		for k, v := range p {
			c[k] = v
		}
		return jsObj(c)
	}
	cookie := js{
		"name": jsStrLen(0, 1024), "domain": jsStrLen(0, 2048), "path": jsStrLen(0, 4096),
		"secure": jsBool(), "http_only": jsBool(), "same_site": jsEnum("Strict", "Lax", "None"),
	}
	return js{
		"web_sanitized_url": jsDesc(jsObj(js{
			"url": jsStr(), "origin": jsNullable(jsStr()), "query_parameter_names": jsArr(jsStr()), "redacted": jsBool(),
		}), "A sanitized browser URL."),
		"web_state_not_requested": jsObj(js{"state": jsConst("not_requested")}),
		"web_state_missing":       jsObj(js{"state": jsConst("missing"), "reason": jsStrLen(1, 1024)}),
		"web_state_truncated": jsObj(js{
			"state": jsConst("truncated"), "observed": jsInt(0), "retained": jsInt(0), "reason": jsStrLen(1, 1024),
		}),
		"web_scenario_storage": jsObj(js{
			"cookies":         jsArrN(jsAnyOf(hashed(cookie), redacted(cookie)), 0, 512),
			"local_storage":   jsArrN(jsAnyOf(hashed(value), redacted(value)), 0, 512),
			"session_storage": jsArrN(jsAnyOf(hashed(value), redacted(value)), 0, 512),
		}),
		"web_text_artifact": jsDesc(jsObj(js{
			"sha256": jsSHA256(), "bytes": jsIntRange(0, 16*1024*1024), "text": jsStrLen(0, 1048576),
		}), "Redacted text with its UTF-8 byte length and SHA-256 (checked against text)."),
		"web_scenario_completeness": jsDesc(jsAnyOf(
			jsObj(js{"status": jsConst("complete"), "equality_eligible": jsConst(true),
				"missing_sections": jsArrN(section, 0, 0), "truncated_sections": jsArrN(section, 0, 0)}),
			jsObj(js{"status": jsConst("incomplete"), "equality_eligible": jsConst(false),
				"missing_sections": jsArrN(section, 1, 0), "truncated_sections": jsArrN(section, 0, 0)}),
			jsObj(js{"status": jsConst("truncated"), "equality_eligible": jsConst(false),
				"missing_sections": jsArr(section), "truncated_sections": jsArrN(section, 1, 0)}),
		), "Scenario coverage; only a complete capture or step is equality-eligible."),
		"web_scenario_artifacts": jsDesc(jsObj(js{
			"screenshot": state(jsObj(js{
				"uri": jsPattern(`^rea://web-screenshot/sha256/[0-9a-f]{64}$`), "sha256": jsSHA256(),
				"bytes": jsIntRange(1, 8*1024*1024), "media_type": jsConst("image/png"), "data_base64": jsStrLen(0, 11184816),
			})),
			// A DOM over the engine's bound keeps its serialized HTML's start:
			// the truncated state carries it.
			"dom": jsAnyOf(
				jsObj(js{"state": jsConst("captured"), "value": jsRef("web_text_artifact")}),
				jsRef("web_state_not_requested"), jsRef("web_state_missing"),
				jsObj(js{"state": jsConst("truncated"), "observed": jsInt(0), "retained": jsInt(0), "reason": jsStrLen(1, 1024), "value": jsRef("web_text_artifact")}),
			),
			"accessibility": state(jsRef("web_text_artifact")),
			"url":           state(url),
			"history": state(jsObj(js{
				"length": jsInt(0), "current_url": url,
				"navigation_entries": jsArrN(jsObj(js{
					"type": jsEnum("navigate", "reload", "back_forward", "prerender", "unknown"), "name": url,
				}), 0, 256),
			})),
			// A storage list over 512 items keeps its first 512 by name: the
			// truncated state carries them.
			"storage": jsAnyOf(
				jsObj(js{"state": jsConst("captured"), "value": jsRef("web_scenario_storage")}),
				jsRef("web_state_not_requested"), jsRef("web_state_missing"),
				jsObj(js{"state": jsConst("truncated"), "observed": jsInt(0), "retained": jsInt(0), "reason": jsStrLen(1, 1024), "value": jsRef("web_scenario_storage")}),
			),
		}), "Artifacts captured after the step; each is captured, not_requested, missing or truncated."),
		"web_scenario_step": jsObj(js{
			"step_index":           jsInt(0),
			"step_id":              jsDesc(jsStrLen(1, 64), "Stable step identity used for alignment."),
			"action":               jsStrLen(1, 64),
			"status":               jsEnum("completed", "failed", "cancelled"),
			"error":                jsDesc(jsNullable(jsStrLen(0, 4096)), "null exactly when the step completed."),
			"elapsed_ms":           jsInt(0),
			"before_url":           url,
			"after_url":            url,
			"event_sequence_start": jsDesc(jsInt(1), "First event sequence of the step."),
			"event_sequence_end":   jsDesc(jsInt(0), "Last event sequence of the step; start-1 when the step saw no events."),
			"artifacts":            jsRef("web_scenario_artifacts"),
			"completeness":         jsRef("web_scenario_completeness"),
		}),
		"web_scenario_event": jsDesc(jsAnyOf(
			event(jsConst("console"), js{"level": jsStrLen(1, 64), "text": jsStrLen(0, 65536), "url": jsNullable(url)}),
			event(jsConst("page-error"), js{"message": jsStrLen(0, 65536), "stack": jsNullable(jsStrLen(0, 262144))}),
			network("request", jsNull(), jsNull()),
			network("response", jsIntRange(100, 599), jsNull()),
			network("request-failed", jsNull(), jsStrLen(1, 1024)),
			event(jsEnum("websocket-opened", "websocket-closed"), js{"url": url}),
			frame("text", jsStrLen(0, 65536)),
			frame("binary", jsNull()),
			event(jsEnum("frame-attached", "frame-detached", "frame-navigated", "worker-created", "worker-closed", "popup-opened", "popup-closed"),
				js{"url": jsNullable(url), "name": jsNullable(jsStrLen(0, 1024))}),
			event(jsConst("download-cancelled"), js{"suggested_filename": jsStrLen(0, 1024), "url": url}),
		), "One redacted browser event of a scenario."),
		"web_scenario_capture": jsDesc(jsObj(js{
			"schema_version": jsConst(1),
			"browser": jsObj(js{
				"mode":              jsEnum("launch", "connect"),
				"process_ownership": jsEnum("provider-owned", "external"),
				"cleanup":           jsEnum("terminated-owned-process", "disconnected-external"),
				"product":           jsStrLen(1, 1024),
				"version":           jsStrLen(1, 256),
			}),
			"scenario": jsObj(js{
				"start_origin":      jsStrLen(1, 2048),
				"allowed_origins":   jsArrN(jsStrLen(1, 2048), 1, 32),
				"action_count":      jsIntRange(1, 128),
				"secret_references": jsArrN(jsStrLen(1, 64), 0, 64),
			}),
			"duration_ms": jsInt(0),
			"steps":       jsDesc(jsArrN(jsRef("web_scenario_step"), 1, 129), "The start step (index 0) and one step per action."),
			"events": jsObj(js{
				"retained": jsDesc(jsInt(0), "Number of items."),
				"dropped":  jsInt(0),
				"items":    jsArrN(jsRef("web_scenario_event"), 0, 100000),
			}),
			"completeness": jsRef("web_scenario_completeness"),
			"limitations":  jsArrN(jsStrLen(1, 2048), 0, 64),
		}), "The complete normalized_result of capture_browser_scenario."),
		"web_normalization": jsDesc(jsObj(js{
			"rules": jsDesc(jsArrN(jsObj(js{
				"rule_id":     jsDesc(jsPattern(`\S`), "Stable rule identity; rules run in rule_id order."),
				"artifacts":   jsDesc(js{"type": "array", "items": jsEnum(normalizableArtifacts...), "minItems": 1, "uniqueItems": true}, "Artifact families whose strings this rule rewrites (never screenshots)."),
				"match":       jsDesc(jsStrLen(1, 4096), "Exact literal to replace (not a regular expression)."),
				"replacement": jsDesc(jsStr(), "Replacement text."),
			}), 0, 128), "Literal replacement rules; rule_id values are unique."),
		}), "Exact-literal normalization committed in the result."),
	}
}

var maxChangesSchema = jsDesc(js{"type": "integer", "minimum": 1, "maximum": 20000, "default": defaultMaxChanges},
	"Maximum change records (passive) or artifact differences (scenario) to retain; the rest are counted as omitted.")

// retainedSchema is a retained Evidence reference, as every compare tool
// takes one: {"kind":"retained-evidence","evidence_id"}.
var retainedSchema = jsObj(js{"kind": jsConst("retained-evidence"), "evidence_id": jsPattern(`^ev_[0-9a-f]{64}$`)})

// webCompareProduced names the operations whose results the captures are:
// tools/list advertises these definitions shallowly (an object naming the
// producer's output schema $id), and the server validates them in full.
var webCompareProduced = map[string]string{
	"#/$defs/web_inspection":       "inspect_web_page",
	"#/$defs/web_webmcp_discovery": "discover_webmcp_tools",
	"#/$defs/web_scenario_capture": "capture_browser_scenario",
}

// webCompareInputSchema is the canonical input: exactly one of the passive
// and scenario groups, as buildWebCompareInputSchema builds it, read from
// schemas_generated.go so start-up does not build it (about 50 KB).
func webCompareInputSchema() json.RawMessage { return generatedCompareInput }

// buildWebCompareInputSchema builds webCompareInputSchema's text (go
// generate ./core/web; TestGeneratedSchemasCurrent fails when they differ).
func buildWebCompareInputSchema() json.RawMessage {
	defs := passiveCaptureDefs()
	for k, v := range scenarioCaptureDefs() {
		defs[k] = v
	}
	defs["web_retained"] = retainedSchema
	passive := jsObj(js{
		"before":      jsDesc(jsRef("web_passive_capture"), "The earlier passive capture."),
		"after":       jsDesc(jsRef("web_passive_capture"), "The later passive capture, shaped like before."),
		"max_changes": maxChangesSchema,
	}, "max_changes")
	passive["required"] = []any{"before", "after"}
	scenario := jsObj(js{
		"before_scenario": jsDesc(jsAnyOf(jsRef("web_retained"), jsRef("web_scenario_capture")), "The earlier capture_browser_scenario Evidence or result."),
		"after_scenario":  jsDesc(jsAnyOf(jsRef("web_retained"), jsRef("web_scenario_capture")), "The later one."),
		"normalization": jsDesc(js{"$ref": "#/$defs/web_normalization", "default": map[string]any{"rules": []any{}}},
			"Literal normalization rules applied to both captures before comparing; defaults to no rules."),
		"max_changes": maxChangesSchema,
	}, "normalization", "max_changes")
	scenario["required"] = []any{"before_scenario", "after_scenario"}
	root := js{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"description": "Compare two supplied browser captures: two passive page captures, or two browser scenario captures.",
		"anyOf":       []any{passive, scenario},
		"$defs":       defs,
	}
	raw, err := core.MarshalNoEscape(root)
	if err != nil {
		panic("core: compare_web_captures input schema: " + err.Error())
	}
	return raw
}

// webCompareResultSchema is the normalized_result: a passive or a scenario
// comparison (generated from buildWebCompareResultSchema, like the input).
func webCompareResultSchema() json.RawMessage { return generatedCompareResult }

// buildWebCompareResultSchema builds webCompareResultSchema's text.
func buildWebCompareResultSchema() json.RawMessage {
	status := jsEnum("changed", "unchanged", "unknown")
	change := jsObj(js{
		"identity":      jsDesc(jsStr(), "Identity of the compared item (a script_key, resource_key, net_<sha256>, tool_key, storage:... or a singleton name)."),
		"change":        jsEnum("added", "removed", "modified"),
		"before_sha256": jsDesc(jsNullable(jsSHA256()), "Digest of the item's compared projection before; null when added."),
		"after_sha256":  jsDesc(jsNullable(jsSHA256()), "Digest of the item's compared projection after; null when removed."),
	})
	dimension := jsAnyOf(
		jsObj(js{"status": jsConst("changed"), "total_changes": jsInt(1), "changes": jsArr(jsRef("web_change")),
			"omitted_changes": jsInt(0), "reason": jsNull()}),
		jsObj(js{"status": jsConst("unchanged"), "total_changes": jsConst(0), "changes": jsArrN(jsRef("web_change"), 0, 0),
			"omitted_changes": jsConst(0), "reason": jsNull()}),
		jsObj(js{"status": jsConst("unknown"), "total_changes": jsConst(0), "changes": jsArrN(jsRef("web_change"), 0, 0),
			"omitted_changes": jsConst(0), "reason": jsStrLen(1, 0)}),
	)
	dims := js{}
	for _, d := range passiveDimensions {
		dims[d] = jsRef("web_dimension")
	}
	target := jsObj(js{"target_id": jsStr(), "url": jsStr()})
	evidenceState := jsEnum("captured", "not_requested", "missing", "truncated")
	passive := jsDesc(jsObj(js{
		"schema_version": jsConst(1),
		"overall_status": jsDesc(status, "changed if any dimension changed, else unknown if any is unknown, else unchanged."),
		"before_target":  target,
		"after_target":   target,
		"dimensions":     jsObj(dims),
		"limitations":    jsArr(jsStr()),
	}), "Passive capture comparison.")
	scenario := jsDesc(jsObj(js{
		"schema_version":  jsConst(1),
		"comparison_kind": jsConst("browser_scenario"),
		"overall_status":  jsDesc(status, "unchanged only when every aligned step is unchanged, both captures are equality-eligible and alignment is aligned."),
		"normalization": jsObj(js{
			"built_in_rules": jsArrN(jsEnum(builtInNormalizationRules...), 5, 5),
			"rules":          jsArr(jsObj(js{"rule_id": jsStr(), "artifacts": jsArr(jsEnum(normalizableArtifacts...)), "match": jsStr(), "replacement": jsStr()})),
			"sha256":         jsDesc(jsSHA256(), "Digest of {built_in_rules, rules}."),
		}),
		"alignment": jsObj(js{
			"status":        jsEnum("aligned", "partial", "failed"),
			"aligned_steps": jsInt(0),
			"before_only":   jsArr(jsStr()),
			"after_only":    jsArr(jsStr()),
			"failures": jsArr(jsObj(js{
				"code": jsEnum("duplicate_before_step_id", "duplicate_after_step_id", "missing_before_step",
					"missing_after_step", "action_mismatch", "capture_context_mismatch"),
				"step_id": jsNullable(jsStrLen(1, 0)),
				"reason":  jsStrLen(1, 0),
			})),
		}),
		"steps": jsArr(jsObj(js{
			"step_id": jsStrLen(1, 0), "before_step_index": jsInt(0), "after_step_index": jsInt(0),
			"before_action": jsStrLen(1, 0), "after_action": jsStrLen(1, 0), "status": status,
			"artifact_diffs": jsArr(jsObj(js{
				"artifact": jsEnum(scenarioArtifactKinds...), "status": jsEnum("changed", "unknown"),
				"before_state": evidenceState, "after_state": evidenceState,
				"before_sha256": jsNullable(jsSHA256()), "after_sha256": jsNullable(jsSHA256()),
				"reason": jsNullable(jsStrLen(1, 0)),
			})),
			"omitted_artifact_diffs": jsInt(0),
		})),
		"artifact_diffs": jsObj(js{"total": jsInt(0), "retained": jsInt(0), "omitted": jsInt(0)}),
		"limitations":    jsArr(jsStr()),
	}), "Step-aligned browser scenario comparison.")
	root := jsAnyOf(passive, scenario)
	root["$defs"] = js{"web_change": change, "web_dimension": dimension}
	raw, err := core.MarshalNoEscape(root)
	if err != nil {
		panic("core: compare_web_captures result schema: " + err.Error())
	}
	return raw
}
