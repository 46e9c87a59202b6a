package cdp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/network"

	"rea/ports"
)

// defaultMaxAXNodes is max_ax_nodes when none is given, and the bound of
// a scenario's accessibility artifact.
const defaultMaxAXNodes = 2000

func limitsOrDefault(l ports.BrowserLimits) ports.BrowserLimits {
	d := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	d64 := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	d(&l.MaxFrames, 200)
	d(&l.MaxDOMNodes, 2000)
	d(&l.MaxAXNodes, defaultMaxAXNodes)
	d(&l.MaxScripts, 200)
	d(&l.MaxResources, 2000)
	d(&l.MaxWorkers, 500)
	d(&l.MaxStorageKeys, 1000)
	d(&l.MaxNetworkEvents, 1000)
	d(&l.MaxConsoleEvents, 200)
	d(&l.MaxWebSocketEvents, 500)
	d64(&l.MaxScriptSourceBytes, 1<<20)
	d64(&l.MaxTotalSourceBytes, 4<<20)
	d(&l.MaxTextFieldBytes, 1<<10)
	d(&l.MaxTotalTextBytes, 64<<10)
	d64(&l.MaxJSONBodyBytes, 1<<20)
	d64(&l.MaxTotalJSONBytes, 4<<20)
	d64(&l.MaxWebSocketBytes, 64<<10)
	return l
}

// metadataHeaders are the response headers kept for core's safe metadata.
var metadataHeaders = []string{
	"content-encoding", "content-length", "content-security-policy",
	"cross-origin-embedder-policy", "cross-origin-opener-policy", "cross-origin-resource-policy",
	"link", "mcp-server", "permissions-policy", "referrer-policy",
	"x-content-type-options", "x-model-context", "x-webmcp",
}

// ledger accumulates completeness facts.
type ledger struct {
	excluded    map[[2]string]int
	truncated   map[string]bool
	unavailable map[string]string
	dropped     ports.BrowserDropped
	limitations []string
}

func newLedger() *ledger {
	return &ledger{excluded: map[[2]string]int{}, truncated: map[string]bool{}, unavailable: map[string]string{}}
}

func (l *ledger) exclude(section, reason string, n int) {
	if n > 0 {
		l.excluded[[2]string{section, reason}] += n
	}
}

func (l *ledger) unavailableSection(section, method string) {
	if _, ok := l.unavailable[section]; !ok {
		l.unavailable[section] = "provider_unavailable"
		l.limitations = append(l.limitations, method+" was unavailable from this browser target.")
	}
}

func (l *ledger) completeness() ports.BrowserCompleteness {
	var c ports.BrowserCompleteness
	for k, n := range l.excluded {
		c.Excluded = append(c.Excluded, ports.BrowserExclusion{Section: k[0], Reason: k[1], Count: n})
	}
	slices.SortFunc(c.Excluded, func(a, b ports.BrowserExclusion) int {
		if x := strings.Compare(a.Section, b.Section); x != 0 {
			return x
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	for s := range l.truncated {
		c.Truncated = append(c.Truncated, s)
	}
	slices.Sort(c.Truncated)
	for s, r := range l.unavailable {
		c.Unavailable = append(c.Unavailable, ports.BrowserUnavailable{Section: s, Reason: r})
	}
	slices.SortFunc(c.Unavailable, func(a, b ports.BrowserUnavailable) int { return strings.Compare(a.Section, b.Section) })
	c.Dropped = l.dropped
	return c
}

// pageCapture is the event-driven state of one inspection.
type pageCapture struct {
	mu    sync.Mutex
	sid   string
	sc    scope
	lim   ports.BrowserLimits
	req   ports.BrowserInspectRequest
	led   *ledger
	stop  chan struct{} // closed on an origin violation
	stopO sync.Once

	mainFrame string
	oopFrames []ports.BrowserFrame // in-scope frames in other renderer processes
	armed     bool                 // after the first post-window gate: navigations discard the capture
	changed   bool
	violation bool

	contexts    map[int64]string
	scripts     map[string]*ports.BrowserScript
	scriptOrder []string
	requests    map[string]*ports.BrowserRequest
	reqOrder    []string
	metadata    map[string]*ports.BrowserResponseMetadata
	sockets     map[string]*ports.BrowserWebSocket
	wsOrder     []string
	wsEvents    []ports.BrowserWebSocketEvent
	console     []ports.BrowserConsoleEvent
	textBytes   int
	// Runtime.enable replays the console messages the page logged before
	// the attach: those stamped before consoleFrom (ms since the epoch; the
	// browser is on loopback, so on this clock) are counted, not kept.
	consoleFrom float64
	replayed    int
	// created holds every WebSocket opened during the capture, kept or
	// not; unattributedFrames counts frames of the others, opened before
	// the attach, whose URL (and so origin) Chromium never reports.
	created            map[string]bool
	unattributedFrames int
	// axDocs are the in-scope documents of the DOM snapshot by frame id, so
	// the accessibility read knows a document's size before asking for its
	// tree; domOversized says the snapshot was over the message bound.
	axDocs       map[string]axDocument
	domOversized bool
}

func (pc *pageCapture) violate() {
	pc.violation = true
	pc.stopO.Do(func() { close(pc.stop) })
}

func (pc *pageCapture) onEvent(ev event) {
	if ev.SessionID != pc.sid {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	switch ev.Method {
	case cdproto.EventRuntimeExecutionContextCreated:
		var e evExecutionContextCreated
		if decode(ev.Params, &e) && len(e.Context.AuxData.FrameID) <= 256 {
			if len(pc.contexts) >= pc.lim.MaxScripts && pc.contexts[e.Context.ID] == "" {
				pc.led.truncated["scripts"] = true
				return
			}
			pc.contexts[e.Context.ID] = e.Context.AuxData.FrameID
		}
	case cdproto.EventRuntimeExecutionContextDestroyed:
		var e evExecutionContextDestroyed
		if decode(ev.Params, &e) {
			delete(pc.contexts, e.ExecutionContextID)
		}
	case cdproto.EventRuntimeExecutionContextsCleared:
		clear(pc.contexts)
	case cdproto.EventDebuggerScriptParsed:
		pc.scriptParsed(ev)
	case cdproto.EventNetworkRequestWillBeSent:
		pc.requestWillBeSent(ev)
	case cdproto.EventNetworkResponseReceived:
		pc.responseReceived(ev)
	case cdproto.EventNetworkLoadingFinished:
		var e evLoadingFinished
		if decode(ev.Params, &e) {
			if r := pc.requests[e.RequestID]; r != nil {
				n := e.EncodedDataLength
				r.EncodedDataLength = &n
			}
		}
	case cdproto.EventRuntimeConsoleAPICalled:
		pc.consoleCalled(ev)
	case cdproto.EventRuntimeExceptionThrown:
		pc.exceptionThrown(ev)
	case cdproto.EventNetworkWebSocketCreated:
		var e evWebSocketCreated
		if !decode(ev.Params, &e) || e.RequestID == "" {
			pc.led.exclude("websocket_connections", "invalid_protocol_value", 1)
			return
		}
		pc.created[e.RequestID] = true
		u := wsToHTTP(e.URL)
		if r := pc.sc.reason(u); r != "" {
			pc.led.exclude("websocket_connections", r, 1)
			return
		}
		if pc.sockets[e.RequestID] == nil {
			if len(pc.sockets) >= pc.lim.MaxWebSocketEvents {
				pc.led.dropped.WebSocketConnections++
				pc.led.truncated["websocket_connections"] = true
				return
			}
			clean, _ := sanitizeURL(e.URL)
			pc.sockets[e.RequestID] = &ports.BrowserWebSocket{RequestID: e.RequestID, URL: clean, Origin: originOfString(u)}
			pc.wsOrder = append(pc.wsOrder, e.RequestID)
		}
	case cdproto.EventNetworkWebSocketFrameSent, cdproto.EventNetworkWebSocketFrameReceived:
		pc.webSocketFrame(ev)
	case cdproto.EventPageFrameNavigated:
		var e evFrameNavigated
		if !decode(ev.Params, &e) || e.Frame == nil || e.Frame.ParentID != "" {
			return
		}
		if pc.armed {
			pc.changed = true
		}
		u := e.Frame.URL + e.Frame.URLFragment
		if pc.sc.reason(u) == "disallowed_origin" {
			pc.violate()
		}
	}
}

func (pc *pageCapture) scriptParsed(ev event) {
	var e evScriptParsed
	if !decode(ev.Params, &e) || e.ScriptID == nil || *e.ScriptID == "" || len(*e.ScriptID) > 256 {
		pc.led.exclude("scripts", "invalid_protocol_value", 1)
		return
	}
	if r := pc.sc.reason(e.URL); r != "" {
		pc.led.exclude("scripts", r, 1)
		return
	}
	id := *e.ScriptID
	if pc.scripts[id] == nil && len(pc.scripts) >= pc.lim.MaxScripts {
		pc.led.dropped.Scripts++
		pc.led.truncated["scripts"] = true
		return
	}
	clean, origin := sanitizeURL(e.URL)
	s := &ports.BrowserScript{
		ScriptID: id, FrameID: pc.contexts[e.ExecutionContextID], URL: clean, Origin: origin,
		CDPHash: cut(e.Hash, 512), Length: e.Length, IsModule: e.IsModule, Language: cut(e.ScriptLanguage, 100),
	}
	if e.SourceMapURL != "" {
		if m, ok := resolveRef(e.URL, e.SourceMapURL); ok && pc.sc.allows(m) {
			s.SourceMapURL, _ = sanitizeURL(m)
		} else {
			r := "unsupported_url"
			if ok {
				r = pc.sc.reason(m)
			}
			pc.led.exclude("source_maps", r, 1)
		}
	}
	if pc.scripts[id] == nil {
		pc.scriptOrder = append(pc.scriptOrder, id)
	}
	pc.scripts[id] = s
}

func (pc *pageCapture) requestWillBeSent(ev event) {
	var e evRequestWillBeSent
	if !decode(ev.Params, &e) || e.RequestID == nil || *e.RequestID == "" || len(*e.RequestID) > 256 || e.Request == nil {
		pc.led.exclude("network_requests", "invalid_protocol_value", 1)
		return
	}
	id := *e.RequestID
	u := e.Request.URL + e.Request.URLFragment
	if r := pc.sc.reason(u); r != "" {
		pc.led.exclude("network_requests", r, 1)
		if pc.requests[id] != nil {
			// a redirect out of scope drops the whole chain
			delete(pc.requests, id)
			delete(pc.metadata, id)
			pc.reqOrder = slices.DeleteFunc(pc.reqOrder, func(s string) bool { return s == id })
		}
		return
	}
	clean, origin := sanitizeURL(u)
	if prev := pc.requests[id]; prev != nil {
		if e.RedirectResponse == nil {
			pc.led.truncated["network_requests"] = true // an id reused without redirect data
			return
		}
		prev.Redirects = append(prev.Redirects, ports.BrowserRedirect{URL: prev.URL, Origin: prev.Origin, Status: e.RedirectResponse.Status})
		prev.URL, prev.Origin = clean, origin
		prev.Method = cutDefault(e.Request.Method, 32, "GET")
		return
	}
	if len(pc.requests) >= pc.lim.MaxNetworkEvents {
		pc.led.dropped.NetworkRequests++
		pc.led.truncated["network_requests"] = true
		return
	}
	r := &ports.BrowserRequest{
		RequestID: id, URL: clean, Origin: origin, Method: cutDefault(e.Request.Method, 32, "GET"),
		ResourceType: cut(e.Type, 100), Initiator: ports.BrowserInitiator{Type: "other"},
		RequestBodyStatus: "not_approved", ResponseBodyStatus: "not_approved",
	}
	if in := e.Initiator; in != nil {
		r.Initiator.Type = cutDefault(in.Type, 100, "other")
		loc := topFrame(in.Stack)
		if loc == nil && in.URL != "" {
			loc = &evCallFrame{URL: in.URL, LineNumber: in.LineNumber, ColumnNumber: in.ColumnNumber}
		}
		if loc != nil {
			if rr := pc.sc.reason(loc.URL); rr != "" {
				pc.led.exclude("network_initiators", rr, 1)
			} else {
				c, _ := sanitizeURL(loc.URL)
				r.Initiator.URL = &c
				r.Initiator.Line, r.Initiator.Column = oneBased(loc.LineNumber), loc.ColumnNumber
			}
		}
	}
	if pc.req.IncludeJSONBodyShapes {
		r.RequestBodyStatus = "unavailable"
		if e.Request.PostData != nil && isJSONMime(headerValue(e.Request.Headers, "content-type")) {
			body := []byte(*e.Request.PostData)
			if int64(len(body)) > pc.lim.MaxJSONBodyBytes {
				r.RequestBodyStatus = "truncated"
				pc.led.truncated["json_body_shapes"] = true
			} else {
				r.RequestBody, r.RequestBodyStatus = body, "included"
			}
		}
	}
	pc.requests[id] = r
	pc.reqOrder = append(pc.reqOrder, id)
}

func (pc *pageCapture) responseReceived(ev event) {
	var e evResponseReceived
	if !decode(ev.Params, &e) || e.RequestID == nil || e.Response == nil {
		pc.led.exclude("network_requests", "invalid_protocol_value", 1)
		return
	}
	id := *e.RequestID
	r := pc.requests[id]
	if r == nil {
		return
	}
	if rr := pc.sc.reason(e.Response.URL); rr != "" {
		pc.led.exclude("network_requests", rr, 1)
		delete(pc.requests, id)
		pc.reqOrder = slices.DeleteFunc(pc.reqOrder, func(s string) bool { return s == id })
		return
	}
	st := e.Response.Status
	mt := cut(e.Response.MimeType, 256)
	r.Status, r.MimeType = &st, &mt
	if len(pc.metadata) >= pc.lim.MaxNetworkEvents {
		pc.led.truncated["metadata"] = true
		return
	}
	md := &ports.BrowserResponseMetadata{RequestID: id, URL: r.URL, MimeType: mt, Headers: map[string]string{}}
	n := 0
	for k, v := range e.Response.Headers {
		if n++; n > 500 {
			break
		}
		lk := strings.ToLower(k)
		if _, ok := slices.BinarySearch(metadataHeaders, lk); ok {
			if s, ok := v.(string); ok {
				md.Headers[lk] = cut(s, 16384)
			}
		}
	}
	pc.metadata[id] = md
}

func (pc *pageCapture) consoleCalled(ev event) {
	var e evConsoleAPICalled
	if !decode(ev.Params, &e) {
		pc.led.exclude("console_events", "invalid_protocol_value", 1)
		return
	}
	var loc *evCallFrame
	if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
		loc = &e.StackTrace.CallFrames[0]
	}
	pc.addConsole(e.Type, e.Timestamp, loc, e.Args)
}

// exceptionThrown keeps an uncaught exception as a console event of type
// "exception", located where it was thrown, so a page that fails is not
// reported as a quiet one. Its text (with IncludeConsoleText) is the error's
// first description line ("TypeError: x is not a function") or a thrown
// primitive's value; never the stack or an object's properties.
func (pc *pageCapture) exceptionThrown(ev event) {
	var e evExceptionThrown
	if !decode(ev.Params, &e) || e.ExceptionDetails == nil {
		pc.led.exclude("console_events", "invalid_protocol_value", 1)
		return
	}
	d := e.ExceptionDetails
	loc := topFrame(d.StackTrace)
	if loc == nil && d.URL != "" {
		loc = &evCallFrame{URL: d.URL, LineNumber: d.LineNumber, ColumnNumber: d.ColumnNumber}
	}
	var args []evRemoteObject
	if x := d.Exception; x != nil {
		a := *x
		if a.Subtype == "error" && a.Description != "" {
			first, _, _ := strings.Cut(a.Description, "\n")
			msg, _ := json.Marshal(first)
			a = evRemoteObject{Type: "error", Value: msg}
		}
		args = append(args, a)
	}
	pc.addConsole("exception", e.Timestamp, loc, args)
}

// addConsole records one console event thrown or logged at loc.
func (pc *pageCapture) addConsole(typ string, timestamp float64, loc *evCallFrame, args []evRemoteObject) {
	if loc == nil {
		pc.led.exclude("console_events", "unattributed_origin", 1)
		return
	}
	if r := pc.sc.reason(loc.URL); r != "" {
		pc.led.exclude("console_events", r, 1)
		return
	}
	if timestamp > 0 && timestamp < pc.consoleFrom {
		pc.replayed++
		return
	}
	if len(pc.console) >= pc.lim.MaxConsoleEvents {
		pc.led.dropped.ConsoleEvents++
		pc.led.truncated["console_events"] = true
		return
	}
	clean, _ := sanitizeURL(loc.URL)
	ce := ports.BrowserConsoleEvent{Type: cut(typ, 100), Timestamp: timestamp, URL: clean, ArgumentTypes: []string{}}
	if loc.LineNumber != nil {
		ce.Line = *loc.LineNumber + 1
	}
	if loc.ColumnNumber != nil {
		ce.Column = *loc.ColumnNumber
	}
	for i, a := range args {
		if i >= 100 {
			break
		}
		ce.ArgumentTypes = append(ce.ArgumentTypes, cut(a.Type, 100))
		if !pc.req.IncludeConsoleText {
			continue
		}
		text, ok := primitiveText(a)
		if !ok {
			continue
		}
		room := min(pc.lim.MaxTextFieldBytes, pc.lim.MaxTotalTextBytes-pc.textBytes)
		if len(text) > room {
			text = cutBytes(text, max(room, 0))
			ce.TruncatedValues++
			pc.led.truncated["console_text"] = true
		}
		pc.textBytes += len(text)
		ce.Values = append(ce.Values, ports.BrowserConsoleValue{ArgumentIndex: i, Type: a.Type, Text: text})
	}
	pc.console = append(pc.console, ce)
}

// primitiveText renders a primitive console argument; objects are never
// rendered.
func primitiveText(a evRemoteObject) (string, bool) {
	switch a.Type {
	case "string", "error":
		var s string
		if decode(a.Value, &s) {
			return s, true
		}
	case "boolean", "number":
		if a.UnserializableValue != "" {
			return a.UnserializableValue, true
		}
		if len(a.Value) > 0 {
			return string(a.Value), true
		}
	case "bigint":
		return a.UnserializableValue, a.UnserializableValue != ""
	case "undefined":
		return "undefined", true
	}
	return "", false
}

func (pc *pageCapture) webSocketFrame(ev event) {
	var e evWebSocketFrame
	if !decode(ev.Params, &e) || e.Response == nil {
		pc.led.exclude("websocket_frames", "invalid_protocol_value", 1)
		return
	}
	if pc.sockets[e.RequestID] == nil {
		if pc.created[e.RequestID] {
			return // out of scope or over the cap, counted when it opened
		}
		// A socket opened before the attach: Chromium never reports its
		// URL, so its origin cannot be checked and its frames are left
		// out, counted so that an empty list is not read as no traffic.
		pc.led.exclude("websocket_frames", "unattributed_origin", 1)
		pc.unattributedFrames++
		return
	}
	if len(pc.wsEvents) >= pc.lim.MaxWebSocketEvents {
		pc.led.dropped.WebSocketFrames++
		pc.led.truncated["websocket_frames"] = true
		return
	}
	dir := "sent"
	if ev.Method == cdproto.EventNetworkWebSocketFrameReceived {
		dir = "received"
	}
	we := ports.BrowserWebSocketEvent{RequestID: e.RequestID, Direction: dir, Opcode: int(e.Response.Opcode)}
	var payload []byte
	if we.Opcode == 1 {
		payload = []byte(e.Response.PayloadData)
	} else if b, err := base64.StdEncoding.DecodeString(e.Response.PayloadData); err == nil {
		payload = b
	} else {
		pc.led.exclude("websocket_frames", "invalid_protocol_value", 1)
	}
	we.PayloadBytes = len(payload)
	if pc.req.IncludeWebSocketShapes && we.Opcode == 1 {
		if int64(len(payload)) > pc.lim.MaxWebSocketBytes {
			we.Truncated = true
			pc.led.truncated["websocket_shapes"] = true
		} else {
			we.Payload = payload
		}
	}
	pc.wsEvents = append(pc.wsEvents, we)
}

// InspectPage captures one page passively in BROWSER.md §3's order.
func (e *Engine) InspectPage(ctx context.Context, req ports.BrowserInspectRequest) (*ports.BrowserPageCapture, error) {
	if req.ObservationMS < 0 || req.ObservationMS > 10000 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "observation_ms", Msg: "observation_ms must be 0..10000"}
	}
	if req.IncludeStorageFingerprints && !req.IncludeStorageKeys {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "include_storage_fingerprints", Msg: "storage fingerprints need include_storage_keys"}
	}
	a, err := e.attach(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	defer a.close(ctx)
	pc := &pageCapture{
		sid: a.page.id, sc: a.scope, lim: limitsOrDefault(req.Limits), req: req, led: newLedger(),
		stop: make(chan struct{}), contexts: map[int64]string{}, scripts: map[string]*ports.BrowserScript{},
		requests: map[string]*ports.BrowserRequest{}, metadata: map[string]*ports.BrowserResponseMetadata{},
		sockets: map[string]*ports.BrowserWebSocket{}, created: map[string]bool{},
	}
	out := &ports.BrowserPageCapture{Browser: a.info, Target: a.target, AllowedOrigins: a.scope.list}
	if !req.IncludeConsoleText {
		pc.led.exclude("console_text", "not_approved", 1)
	}
	if !req.IncludeJSONBodyShapes {
		pc.led.exclude("json_body_shapes", "not_approved", 1)
	}
	if !req.IncludeWebSocketShapes {
		pc.led.exclude("websocket_shapes", "not_approved", 1)
	}
	a.c.setListener(pc.onEvent)

	// 1. Page domain and the gate.
	if err := a.enable(ctx, "Page", nil); err != nil {
		return nil, err
	}
	if _, err := e.gate(ctx, a); err != nil {
		return nil, err
	}
	// 2. Runtime, Debugger, Network.
	pc.mu.Lock()
	pc.consoleFrom = float64(time.Now().UnixMicro()) / 1000
	pc.mu.Unlock()
	if err := a.enable(ctx, "Runtime", nil); err != nil {
		return nil, err
	}
	if note, err := a.enableDebugger(ctx, debugger.EnableParams{MaxScriptsCacheSize: 4194304}); err != nil {
		return nil, err
	} else if note != "" {
		pc.mu.Lock()
		pc.led.limitations = append(pc.led.limitations, note)
		pc.mu.Unlock()
	}
	total, per := int64(4194304), int64(1048576)
	if err := a.enable(ctx, "Network", network.EnableParams{MaxTotalBufferSize: &total, MaxResourceBufferSize: &per}); err != nil {
		return nil, err
	}
	started := time.Now().UTC()
	out.Network.CoverageStartedAt = started
	// 3. The observation window.
	if err := e.window(ctx, a, pc, time.Duration(req.ObservationMS)*time.Millisecond); err != nil {
		return nil, err
	}
	ended := time.Now().UTC()
	out.CaptureWindow = ports.BrowserCaptureWindow{StartedAt: started, EndedAt: ended, ObservationMS: req.ObservationMS}
	// 4. JSON response bodies.
	if req.IncludeJSONBodyShapes {
		if err := e.responseBodies(ctx, a, pc); err != nil {
			return nil, err
		}
	}
	// 5. Gate, frames; from here a main-frame navigation discards the capture.
	ft, err := e.gate(ctx, a)
	if err != nil {
		return nil, err
	}
	pc.mu.Lock()
	pc.armed = true
	pc.mainFrame = string(ft.Frame.ID)
	out.Frames = framesOf(ft, a.scope, pc.lim.MaxFrames, pc.led)
	pc.mu.Unlock()
	if len(out.Frames) == 0 {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "no frame is within the allowed origins"}
	}
	frameSet := map[string]bool{}
	for _, f := range out.Frames {
		frameSet[f.FrameID] = true
	}
	// 6.–11.
	ports.Observe(ctx, "capture", "reading resources, DOM, accessibility, scripts, workers, storage")
	if out.Resources, err = e.resources(ctx, a, pc); err != nil {
		return nil, err
	}
	if !req.ScriptsOnly {
		if out.DOM, err = e.domSnapshot(ctx, a, pc); err != nil {
			return nil, err
		}
		if out.Accessibility, err = e.accessibility(ctx, a, pc, out.Frames); err != nil {
			return nil, err
		}
	}
	pc.mu.Lock()
	scripts := make([]ports.BrowserScript, 0, len(pc.scriptOrder))
	for _, id := range pc.scriptOrder {
		scripts = append(scripts, *pc.scripts[id])
	}
	pc.mu.Unlock()
	if err := e.scriptSources(ctx, a, pc, scripts); err != nil {
		return nil, err
	}
	out.Scripts, out.ScriptsTotal = scripts, len(scripts)
	if out.Workers, err = e.workers(ctx, a, pc, frameSet, out.Frames[0].FrameID); err != nil {
		return nil, err
	}
	if !req.ScriptsOnly {
		if out.Storage, err = e.storage(ctx, a, pc, out.Frames[0]); err != nil {
			return nil, err
		}
	}
	// 12. The final gate.
	ft2, err := e.gate(ctx, a)
	if err != nil {
		return nil, err
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.violation {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the page navigated outside the allowed origins"}
	}
	if pc.changed || !sameDocument(ft.Frame, ft2.Frame) {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetChanged, Msg: "the main frame navigated during the capture"}
	}
	for _, id := range pc.reqOrder {
		out.Network.Requests = append(out.Network.Requests, *pc.requests[id])
		if md := pc.metadata[id]; md != nil {
			out.Metadata.Responses = append(out.Metadata.Responses, *md)
		}
	}
	for _, id := range pc.wsOrder {
		out.Network.WebSockets = append(out.Network.WebSockets, *pc.sockets[id])
	}
	out.Network.WebSocketEvents = pc.wsEvents
	out.Console = pc.console
	out.Frames = withFrames(out.Frames, pc.oopFrames)
	out.Completeness = pc.led.completeness()
	out.Limitations = pc.led.limitations
	if out.Frames[0].URL != out.Target.URL {
		out.Limitations = append(out.Limitations, fmt.Sprintf("The main frame's URL changed during the observation window: target.url and target.title are from the attach (%s); frames, DOM, scripts and resources are of %s.", out.Target.URL, out.Frames[0].URL))
	}
	if pc.unattributedFrames > 0 {
		out.Limitations = append(out.Limitations, fmt.Sprintf("%d WebSocket frame(s) on sockets opened before the attach were left out: Chromium does not report such a socket's URL, so its origin could not be checked. capture_browser_scenario observes a page's sockets from their start.", pc.unattributedFrames))
	}
	if pc.replayed > 0 {
		out.Limitations = append(out.Limitations, fmt.Sprintf("%d console message(s) logged before the attach, which Chromium replays when the console is enabled, were left out: console events start at the attach. capture_browser_scenario observes a page from its first request.", pc.replayed))
	}
	return out, nil
}

// window waits the observation window, ending early with target_not_allowed
// on an out-of-scope navigation and with disconnected when the target goes.
func (e *Engine) window(ctx context.Context, a *attachment, pc *pageCapture, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
	ports.Observe(ctx, "observe", "observing the page for "+itoa(int(d.Milliseconds()))+" ms")
	for {
		select {
		case <-ctx.Done():
			return cancelled(ctx)
		case <-pc.stop:
			return &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the page navigated outside the allowed origins"}
		case <-a.gone():
			if be := a.c.failureNow(); be != nil {
				return be
			}
			return errDetached()
		case <-tick.C:
			pc.mu.Lock()
			n := len(pc.requests) + len(pc.console) + len(pc.scripts) + len(pc.wsEvents)
			pc.mu.Unlock()
			ports.Observe(ctx, "observe", itoa(int(time.Since(start).Milliseconds()))+" of "+itoa(int(d.Milliseconds()))+" ms, "+itoa(n)+" events kept")
		case <-t.C:
			return nil
		}
	}
}

type responseBodyResult struct {
	Body          string `json:"body"`
	Base64Encoded bool   `json:"base64Encoded"`
}

func (e *Engine) responseBodies(ctx context.Context, a *attachment, pc *pageCapture) error {
	pc.mu.Lock()
	var ids []string
	for _, id := range pc.reqOrder {
		r := pc.requests[id]
		r.ResponseBodyStatus = "unavailable"
		if r.MimeType != nil && isJSONMime(*r.MimeType) {
			ids = append(ids, id)
		}
	}
	pc.mu.Unlock()
	var total int64
	failed := false
	for _, id := range ids {
		if failed {
			break
		}
		var res responseBodyResult
		err := a.page.c.call(ctx, a.page.id, network.CommandGetResponseBody, network.GetResponseBodyParams{RequestID: network.RequestID(id)}, &res)
		if err != nil {
			if be, ok := ports.AsBrowserError(err); ok && be.Code != ports.BrowserProtocolError {
				return err
			}
			failed = true
			pc.mu.Lock()
			pc.led.unavailableSection("json_body_shapes", network.CommandGetResponseBody)
			pc.mu.Unlock()
			continue
		}
		body := []byte(res.Body)
		if res.Base64Encoded {
			b, err := base64.StdEncoding.DecodeString(res.Body)
			if err != nil {
				continue
			}
			body = b
		}
		pc.mu.Lock()
		if r := pc.requests[id]; r != nil {
			if int64(len(body)) > pc.lim.MaxJSONBodyBytes || total+int64(len(body)) > pc.lim.MaxTotalJSONBytes {
				r.ResponseBodyStatus = "truncated"
				pc.led.truncated["json_body_shapes"] = true
			} else {
				total += int64(len(body))
				r.ResponseBody, r.ResponseBodyStatus = body, "included"
			}
		}
		pc.mu.Unlock()
	}
	return nil
}

func isJSONMime(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func headerValue(raw []byte, name string) string {
	var m map[string]any
	if decode(raw, &m) {
		for k, v := range m {
			if strings.EqualFold(k, name) {
				s, _ := v.(string)
				return s
			}
		}
	}
	return ""
}

// wsToHTTP maps ws(s) URLs to http(s) for scope checks.
func wsToHTTP(u string) string {
	switch {
	case strings.HasPrefix(u, "ws://"):
		return "http://" + u[5:]
	case strings.HasPrefix(u, "wss://"):
		return "https://" + u[6:]
	}
	return u
}

// resolveRef resolves ref against base.
func resolveRef(base, ref string) (string, bool) {
	b, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	return b.ResolveReference(r).String(), true
}

// cut bounds s to n bytes without splitting a code point.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutBytes(s, n)
}

func cutBytes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func cutDefault(s string, n int, def string) string {
	if s == "" {
		return def
	}
	return cut(s, n)
}
