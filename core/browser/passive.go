package browser

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"rea/core"
	"rea/ports"
)

var passiveEffects = core.Effects{AccessesNetwork: true, Idempotent: true, MutatesSession: true}

func ex(s ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(s))
	for i, v := range s {
		out[i] = json.RawMessage(v)
	}
	return out
}

// ---- list_browser_targets

func opListTargets() *core.Operation {
	return &core.Operation{
		Name:  "list_browser_targets",
		Title: "List Browser Targets",
		Description: "List the page targets of a browser's loopback CDP endpoint without attaching to any: connectable http(s) pages " +
			"within allowed_origins (all when absent), sorted by target_id, with counts of the targets left out and why.",
		Kind:        core.KindApplication,
		Effects:     passiveEffects,
		Input:       schemaObj([]string{"cdp_endpoint"}, propEndpoint, propOrigins),
		Result:      listResultSchema,
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222"}`, `{"cdp_endpoint":"http://127.0.0.1:9222","allowed_origins":["http://127.0.0.1:8080"]}`),
		Unavailable: browserUnavailable,
		Handler:     handleListTargets,
	}
}

var listResultSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["browser","targets","excluded","limitations"],
"properties":{
 "browser":{"type":"object","description":"Browser identity from /json/version.","required":["product","protocol_version","revision","user_agent","js_version"],"properties":{"product":{"type":"string"},"protocol_version":{"type":"string"},"revision":{"type":"string"},"user_agent":{"type":"string"},"js_version":{"type":"string"}}},
 "targets":{"type":"array","description":"Connectable in-scope page targets sorted by target_id.","items":{"type":"object","additionalProperties":false,"required":["target_id","type","title","url","origin","attached"],
   "properties":{"target_id":{"type":"string"},"type":{"type":"string"},"title":{"type":"string"},"url":{"type":"string"},"origin":{"type":["string","null"]},"attached":{"type":"boolean"}}}},
 "excluded":{"type":"object","description":"Targets left out, by reason.","additionalProperties":false,"required":["disallowed_origin","unsupported_url","non_page","unconnectable"],
   "properties":{"disallowed_origin":{"type":"integer","minimum":0},"unsupported_url":{"type":"integer","minimum":0},"non_page":{"type":"integer","minimum":0},"unconnectable":{"type":"integer","minimum":0}}},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

func targetJSON(t ports.BrowserTarget) map[string]any {
	return map[string]any{"target_id": t.TargetID, "type": t.Type, "title": t.Title, "url": t.URL, "origin": nullable(t.Origin), "attached": t.Attached}
}

func handleListTargets(ctx context.Context, c *core.Call) (any, error) {
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	ep, _ := core.StringArg(c.Args, "cdp_endpoint")
	c.Observe("listing targets")
	l, err := b.ListTargets(ctx, ports.BrowserListRequest{Endpoint: ep, AllowedOrigins: strArgs(c.Args, "allowed_origins")})
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	targets := make([]any, len(l.Targets))
	for i, t := range l.Targets {
		targets[i] = targetJSON(t)
	}
	res := map[string]any{"browser": browserJSON(l.Browser), "targets": targets,
		"excluded": map[string]any{"disallowed_origin": l.Excluded.DisallowedOrigin, "unsupported_url": l.Excluded.UnsupportedURL,
			"non_page": l.Excluded.NonPage, "unconnectable": l.Excluded.Unconnectable},
		"limitations": core.NonNil(l.Limitations)}
	return observed(b.Info(), l.Browser, "rea.browser-target-list/v1", res, nil), nil
}

// ---- observe_web_session

func opObserveSession() *core.Operation {
	return &core.Operation{
		Name:  "observe_web_session",
		Title: "Observe Web Session",
		Description: "Attach to one page target passively and record its main-frame timeline over an observation window: navigation " +
			"requests and commits, same-document (SPA history) changes, redirects, load failures, lifecycle events, and the end reason " +
			"(window_elapsed, target_left_scope, target_terminated). Sends no navigation, script or input.",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input: schemaObj([]string{"cdp_endpoint", "target_id"}, propEndpoint, propTarget, propOrigins,
			`"observation_ms":{"type":"integer","minimum":1,"maximum":60000,"default":10000,"description":"Observation window in milliseconds."}`,
			`"max_timeline_events":{"type":"integer","minimum":1,"maximum":20000,"default":2000,"description":"Timeline events kept; later ones are counted as dropped."}`),
		Result:      observeResultSchema,
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE","observation_ms":2000}`),
		Unavailable: browserUnavailable,
		Handler:     handleObserveSession,
	}
}

var observeResultSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["schema_version","browser","target","window","timeline","completeness","limitations"],
"properties":{
 "schema_version":{"const":1},
 "browser":{"type":"object"},
 "target":{"type":"object","required":["target_id","initial_url","final_url"],"properties":{"target_id":{"type":"string"},"initial_url":{"type":"string"},"final_url":{"type":["string","null"],"description":"null when the page left the scope or the target ended."}}},
 "window":{"type":"object","required":["armed_at","ended_at","requested_ms","end_reason"],"properties":{"armed_at":{"type":"string"},"ended_at":{"type":"string"},"requested_ms":{"type":"integer"},"end_reason":{"enum":["window_elapsed","target_left_scope","target_terminated"]}}},
 "timeline":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["sequence","type","timestamp","frame_id","loader_id","request_id","url","destination_scope","detail"],
   "properties":{"sequence":{"type":"integer"},"type":{"enum":["navigation_requested","navigation_committed","same_origin_reload","same_document_navigation","redirect","load_failed","lifecycle","target_terminated"]},
   "timestamp":{"type":"string"},"frame_id":{"type":["string","null"]},"loader_id":{"type":["string","null"]},"request_id":{"type":["string","null"]},"url":{"type":["string","null"]},
   "destination_scope":{"enum":["approved","outside_policy","unsupported",null]},"detail":{"type":["string","null"]}}}},
 "completeness":{"type":"object"},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

func handleObserveSession(ctx context.Context, c *core.Call) (any, error) {
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	ms := core.IntArg(c.Args, "observation_ms", 10000)
	c.Observe(fmt.Sprintf("observing for %d ms", ms))
	t, err := b.ObserveSession(ctx, ports.BrowserObserveRequest{Target: targetRef(c.Args), ObservationMS: ms,
		MaxTimelineEvents: core.IntArg(c.Args, "max_timeline_events", 2000)})
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	events := make([]any, len(t.Timeline))
	for i, e := range t.Timeline {
		events[i] = map[string]any{"sequence": e.Sequence, "type": e.Type, "timestamp": isoTime(e.Timestamp),
			"frame_id": nullableP(e.FrameID), "loader_id": nullableP(e.LoaderID), "request_id": nullableP(e.RequestID),
			"url": nullableP(e.URL), "destination_scope": nullableP(e.DestinationScope), "detail": nullableP(e.Detail)}
	}
	comp := completeness(ports.BrowserCompleteness{Dropped: t.Dropped}, []string{"timeline"})
	res := map[string]any{"schema_version": 1, "browser": browserJSON(t.Browser),
		"target": map[string]any{"target_id": t.Target.TargetID, "initial_url": t.Target.InitialURL, "final_url": nullableP(t.Target.FinalURL)},
		"window": map[string]any{"armed_at": isoTime(t.Window.ArmedAt), "ended_at": isoTime(t.Window.EndedAt),
			"requested_ms": t.Window.RequestedMS, "end_reason": t.Window.EndReason},
		"timeline": events, "completeness": comp, "limitations": core.NonNil(t.Limitations)}
	return observed(b.Info(), t.Browser, "rea.web-observation-session/v1", res, nil), nil
}

// ---- discover_webmcp_tools

func opDiscoverWebMCP() *core.Operation {
	return &core.Operation{
		Name:  "discover_webmcp_tools",
		Title: "Discover WebMCP Tools",
		Description: "Attach to one page target passively and list the WebMCP tools its in-scope frames register (name, description, raw " +
			"untrusted input schema with its digest, annotations, registration source). status is unavailable, with the browser's " +
			"reason, when the browser has no WebMCP domain. Never invokes a tool.",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input: schemaObj([]string{"cdp_endpoint", "target_id"}, propEndpoint, propTarget, propOrigins,
			`"observation_ms":{"type":"integer","minimum":0,"maximum":10000,"default":100,"description":"How long to collect tool registrations after enabling the domain (at least 25 ms is waited)."}`,
			`"max_tools":{"type":"integer","minimum":1,"maximum":500,"default":500,"description":"Tools kept; later ones are counted as dropped."}`,
			`"max_schema_bytes":{"type":"integer","minimum":1,"maximum":262144,"default":262144,"description":"Largest raw input schema kept per tool; a larger one is dropped and the tool kept."}`),
		Result:      defResult("web_webmcp_discovery"),
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE"}`),
		Unavailable: browserUnavailable,
		Handler:     handleDiscoverWebMCP,
	}
}

func handleDiscoverWebMCP(ctx context.Context, c *core.Call) (any, error) {
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	c.Observe("collecting WebMCP registrations")
	d, err := b.DiscoverWebMCPTools(ctx, ports.WebMCPRequest{Target: targetRef(c.Args), ObservationMS: core.IntArg(c.Args, "observation_ms", 100),
		MaxTools: core.IntArg(c.Args, "max_tools", 500), MaxSchemaBytes: core.IntArg(c.Args, "max_schema_bytes", 262144)})
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	return observed(b.Info(), d.Browser, "rea.webmcp-discovery/v1", webMCPResult(d), nil), nil
}

func webMCPResult(d *ports.WebMCPDiscovery) map[string]any {
	items := make([]any, 0, len(d.Tools))
	seen := map[string]bool{}
	for _, t := range d.Tools {
		sum := sha256.Sum256([]byte(t.FrameURL + "\x00" + t.Name))
		key := "webmcp_" + hex.EncodeToString(sum[:])
		if seen[key] {
			continue
		}
		seen[key] = true
		var schema, schemaDigest any
		if len(t.InputSchema) > 0 {
			var v any
			dec := json.NewDecoder(bytesReader(t.InputSchema))
			dec.UseNumber()
			if dec.Decode(&v) == nil {
				schema = v
				if dg, err := core.Digest(v); err == nil {
					schemaDigest = dg
				}
			}
		}
		kind := "imperative"
		if t.Declarative {
			kind = "declarative"
		}
		var src any
		if r := t.RegistrationSource; r != nil {
			src = map[string]any{"url": r.URL, "line": r.Line, "column": r.Column}
		}
		items = append(items, map[string]any{"tool_key": key, "name": t.Name, "description": t.Description,
			"frame_id": t.FrameID, "frame_url": t.FrameURL, "owner_origin": t.OwnerOrigin, "declaration_kind": kind,
			"input_schema": schema, "input_schema_sha256": schemaDigest,
			"annotations": map[string]any{"read_only": nullableP(t.Annotations.ReadOnly),
				"untrusted_content": nullableP(t.Annotations.UntrustedContent), "autosubmit": nullableP(t.Annotations.Autosubmit)},
			"registration_source": src, "trust": "page-declared-untrusted"})
	}
	status := d.Status
	if status != "available" {
		status = "unavailable"
	}
	comp := ports.BrowserCompleteness{Dropped: d.Dropped}
	if status == "unavailable" {
		comp.Unavailable = []ports.BrowserUnavailable{{Section: "webmcp_tools", Reason: "provider_unavailable"}}
	}
	lims := core.NonNil(d.Limitations)
	if status == "unavailable" && d.UnavailableReason != "" {
		lims = append(lims, "WebMCP is unavailable from this browser: "+d.UnavailableReason)
	}
	return map[string]any{"schema_version": 1, "browser": browserJSON(d.Browser),
		"target": map[string]any{"target_id": d.Target.TargetID, "url": d.Target.URL, "origin": d.Target.Origin},
		"status": status, "tools": map[string]any{"total": len(items) + d.Dropped.WebMCPTools, "items": items},
		"completeness": completeness(comp, nil), "limitations": lims}
}

// ---- capture_web_screenshot

func opCaptureScreenshot() *core.Operation {
	return &core.Operation{
		Name:  "capture_web_screenshot",
		Title: "Capture Web Screenshot",
		Description: "Capture the viewport of one page target as PNG without navigating or scrolling it. Returns the image as an " +
			"artifact (rea://web-screenshot/sha256/<digest>, base64 data, byte size) with the viewport size read from the PNG header; " +
			"the artifact is valid input to compare_web_screenshots.",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input: schemaObj([]string{"cdp_endpoint", "target_id"}, propEndpoint, propTarget, propOrigins,
			`"maximum_image_bytes":{"type":"integer","minimum":1,"maximum":8388608,"default":4194304,"description":"Largest PNG accepted; a larger one is truncated (payload_limit)."}`),
		Result:      screenshotResultSchema,
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE"}`),
		Unavailable: browserUnavailable,
		Handler:     handleCaptureScreenshot,
	}
}

const artifactSchema = `{"type":"object","additionalProperties":false,"required":["uri","sha256","bytes","media_type","data_base64"],
 "properties":{"uri":{"type":"string","pattern":"^rea://web-screenshot/sha256/[0-9a-f]{64}$"},"sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},
 "bytes":{"type":"integer","minimum":1},"media_type":{"const":"image/png"},"data_base64":{"type":"string"}}}`

var screenshotResultSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["schema_version","browser","target","captured_at","viewport","artifact","completeness","limitations"],
"properties":{"schema_version":{"const":1},"browser":{"type":"object"},
 "target":{"type":"object","required":["target_id","url","origin"],"properties":{"target_id":{"type":"string"},"url":{"type":"string"},"origin":{"type":"string"}}},
 "captured_at":{"type":"string"},
 "viewport":{"type":"object","required":["width","height"],"properties":{"width":{"type":"integer"},"height":{"type":"integer"}}},
 "artifact":` + artifactSchema + `,
 "completeness":{"type":"object"},"limitations":{"type":"array","items":{"type":"string"}}}}`)

func screenshotArtifact(png []byte) map[string]any {
	sum := sha256.Sum256(png)
	h := hex.EncodeToString(sum[:])
	return map[string]any{"uri": "rea://web-screenshot/sha256/" + h, "sha256": h, "bytes": len(png), "media_type": "image/png",
		"data_base64": base64.StdEncoding.EncodeToString(png)}
}

func handleCaptureScreenshot(ctx context.Context, c *core.Call) (any, error) {
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	c.Observe("capturing viewport")
	s, err := b.CaptureScreenshot(ctx, ports.BrowserScreenshotRequest{Target: targetRef(c.Args),
		MaxImageBytes: core.IntArg(c.Args, "maximum_image_bytes", 4<<20)})
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	res := map[string]any{"schema_version": 1, "browser": browserJSON(s.Browser),
		"target":      map[string]any{"target_id": s.Target.TargetID, "url": s.Target.URL, "origin": s.Target.Origin},
		"captured_at": isoTime(s.CapturedAt), "viewport": map[string]any{"width": s.Width, "height": s.Height},
		"artifact": screenshotArtifact(s.PNG), "completeness": map[string]any{}, "limitations": core.NonNil(s.Limitations)}
	return observed(b.Info(), s.Browser, "rea.web-screenshot/v1", res, nil), nil
}
