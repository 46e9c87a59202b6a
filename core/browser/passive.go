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

func handleListTargets(ctx context.Context, c *core.Call) (any, error) {
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[ListBrowserTargetsInput](c)
	if err != nil {
		return nil, err
	}
	c.Observe("listing targets")
	l, err := b.ListTargets(ctx, ports.BrowserListRequest{Endpoint: in.CdpEndpoint, AllowedOrigins: core.NonNil(in.AllowedOrigins)})
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	targets := make([]ListBrowserTargetsResultTarget, len(l.Targets))
	for i, t := range l.Targets {
		targets[i] = ListBrowserTargetsResultTarget{TargetID: t.TargetID, Type: t.Type, Title: t.Title, URL: t.URL, Origin: core.OptString(t.Origin),
			Attached: t.Attached}
	}
	res := &ListBrowserTargetsResult{Browser: browserJSON(l.Browser), Targets: targets,
		Excluded: ListBrowserTargetsResultExcluded{DisallowedOrigin: l.Excluded.DisallowedOrigin, UnsupportedURL: l.Excluded.UnsupportedURL,
			NonPage: l.Excluded.NonPage, Unconnectable: l.Excluded.Unconnectable},
		Limitations: core.NonNil(l.Limitations)}
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
 "timeline":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["sequence","type","timestamp","frame_id","loader_id","request_id","url","destination_scope","detail","http_status"],
   "properties":{"sequence":{"type":"integer"},"type":{"enum":["navigation_requested","navigation_committed","same_origin_reload","same_document_navigation","redirect","load_failed","lifecycle","target_terminated"]},
   "timestamp":{"type":"string"},"frame_id":{"type":["string","null"]},"loader_id":{"type":["string","null"]},"request_id":{"type":["string","null"]},"url":{"type":["string","null"]},
   "destination_scope":{"enum":["approved","outside_policy","unsupported",null]},"detail":{"type":["string","null"]},
   "http_status":{"type":["integer","null"],"description":"A commit's main document response status (a 404 page commits too); a redirect's 3xx; else null."}}}},
 "completeness":{"type":"object"},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

func handleObserveSession(ctx context.Context, c *core.Call) (any, error) {
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[ObserveWebSessionInput](c)
	if err != nil {
		return nil, err
	}
	ms := intOr(in.ObservationMS, 10000)
	c.Observe(fmt.Sprintf("observing for %d ms", ms))
	t, err := b.ObserveSession(ctx, ports.BrowserObserveRequest{Target: targetRef(in.CdpEndpoint, in.TargetID, in.AllowedOrigins), ObservationMS: ms,
		MaxTimelineEvents: intOr(in.MaxTimelineEvents, 2000)})
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	events := make([]ObserveWebSessionResultTimelineItem, len(t.Timeline))
	for i, e := range t.Timeline {
		events[i] = ObserveWebSessionResultTimelineItem{Sequence: e.Sequence, Type: e.Type, Timestamp: isoTime(e.Timestamp),
			FrameID: e.FrameID, LoaderID: e.LoaderID, RequestID: e.RequestID, URL: e.URL, DestinationScope: e.DestinationScope, Detail: e.Detail, HTTPStatus: e.HTTPStatus}
	}
	res := &ObserveWebSessionResult{SchemaVersion: 1, Browser: browserJSON(t.Browser),
		Target: ObserveWebSessionResultTarget{TargetID: t.Target.TargetID, InitialURL: t.Target.InitialURL, FinalURL: t.Target.FinalURL},
		Window: ObserveWebSessionResultWindow{ArmedAt: isoTime(t.Window.ArmedAt), EndedAt: isoTime(t.Window.EndedAt),
			RequestedMS: t.Window.RequestedMS, EndReason: t.Window.EndReason},
		Timeline: events, Completeness: completeness(ports.BrowserCompleteness{Dropped: t.Dropped}, []string{"timeline"}),
		Limitations: core.NonNil(t.Limitations)}
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
	in, err := core.Input[DiscoverWebMCPToolsInput](c)
	if err != nil {
		return nil, err
	}
	c.Observe("collecting WebMCP registrations")
	d, err := b.DiscoverWebMCPTools(ctx, ports.WebMCPRequest{Target: targetRef(in.CdpEndpoint, in.TargetID, in.AllowedOrigins),
		ObservationMS: intOr(in.ObservationMS, 100), MaxTools: intOr(in.MaxTools, 500), MaxSchemaBytes: intOr(in.MaxSchemaBytes, 262144)})
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	return observed(b.Info(), d.Browser, "rea.webmcp-discovery/v1", webMCPResult(d), nil), nil
}

func webMCPResult(d *ports.WebMCPDiscovery) *DiscoverWebMCPToolsResult {
	items := make([]DiscoverWebMCPToolsResultToolsItem, 0, len(d.Tools))
	seen := map[string]bool{}
	for _, t := range d.Tools {
		sum := sha256.Sum256([]byte(t.FrameURL + "\x00" + t.Name))
		key := "webmcp_" + hex.EncodeToString(sum[:])
		if seen[key] {
			continue
		}
		seen[key] = true
		// The page-declared schema is untrusted JSON of any shape: kept
		// raw (canonical), with its digest.
		var schema json.RawMessage
		var schemaDigest *string
		if len(t.InputSchema) > 0 {
			var v any
			dec := json.NewDecoder(bytesReader(t.InputSchema))
			dec.UseNumber()
			if dec.Decode(&v) == nil {
				if c, err := core.CanonicalJSON(v); err == nil {
					schema = c
					sum := sha256.Sum256(c) // core.Digest of v
					dg := hex.EncodeToString(sum[:])
					schemaDigest = &dg
				}
			}
		}
		kind := "imperative"
		if t.Declarative {
			kind = "declarative"
		}
		var src *DiscoverWebMCPToolsResultToolsItemRegistrationSource
		if r := t.RegistrationSource; r != nil {
			line, col := r.Line, r.Column
			src = &DiscoverWebMCPToolsResultToolsItemRegistrationSource{URL: r.URL, Line: &line, Column: &col}
		}
		items = append(items, DiscoverWebMCPToolsResultToolsItem{ToolKey: key, Name: t.Name, Description: t.Description,
			FrameID: t.FrameID, FrameURL: t.FrameURL, OwnerOrigin: t.OwnerOrigin, DeclarationKind: kind,
			InputSchema: schema, InputSchemaSHA256: schemaDigest,
			Annotations: DiscoverWebMCPToolsResultToolsItemAnnotations{ReadOnly: t.Annotations.ReadOnly,
				UntrustedContent: t.Annotations.UntrustedContent, Autosubmit: t.Annotations.Autosubmit},
			RegistrationSource: src, Trust: "page-declared-untrusted"})
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
	if status == "available" && len(items)+d.Dropped.WebMCPTools == 0 {
		// Chromium answers WebMCP.enable with its feature off too, and a
		// page then registers nothing (checked on Chromium 156).
		lims = append(lims, "No tool was registered: a page registers WebMCP tools only in a browser running with the WebMCP feature "+
			"(Chromium 156: --enable-features=WebMCPTesting,WebMCP), and this result cannot tell a browser without it from a page that declares none.")
	}
	return &DiscoverWebMCPToolsResult{SchemaVersion: 1, Browser: browserJSON(d.Browser),
		Target: DiscoverWebMCPToolsResultTarget{TargetID: d.Target.TargetID, URL: d.Target.URL, Origin: d.Target.Origin},
		Status: status, Tools: DiscoverWebMCPToolsResultTools{Total: len(items) + d.Dropped.WebMCPTools, Items: items},
		Completeness: completeness(comp, nil), Limitations: lims}
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

func screenshotArtifact(png []byte) CaptureWebScreenshotResultArtifact {
	sum := sha256.Sum256(png)
	h := hex.EncodeToString(sum[:])
	return CaptureWebScreenshotResultArtifact{URI: "rea://web-screenshot/sha256/" + h, SHA256: h, Bytes: len(png), MediaType: "image/png",
		DataBase64: base64.StdEncoding.EncodeToString(png)}
}

func handleCaptureScreenshot(ctx context.Context, c *core.Call) (any, error) {
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[CaptureWebScreenshotInput](c)
	if err != nil {
		return nil, err
	}
	c.Observe("capturing viewport")
	s, err := b.CaptureScreenshot(ctx, ports.BrowserScreenshotRequest{Target: targetRef(in.CdpEndpoint, in.TargetID, in.AllowedOrigins),
		MaxImageBytes: intOr(in.MaximumImageBytes, 4<<20)})
	if err != nil {
		return nil, browserErr(c.Op.Name, err)
	}
	res := &CaptureWebScreenshotResult{SchemaVersion: 1, Browser: browserJSON(s.Browser),
		Target:     CaptureWebScreenshotResultTarget{TargetID: s.Target.TargetID, URL: s.Target.URL, Origin: s.Target.Origin},
		CapturedAt: isoTime(s.CapturedAt), Viewport: CaptureWebScreenshotResultViewport{Width: s.Width, Height: s.Height},
		Artifact: screenshotArtifact(s.PNG), Completeness: ScreenshotCompleteness{}, Limitations: core.NonNil(s.Limitations)}
	return observed(b.Info(), s.Browser, "rea.web-screenshot/v1", res, nil), nil
}
