package cdp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

// neverSent are the methods no passive capability may send (BROWSER.md §1),
// and Runtime.runIfWaitingForDebugger, which would start a target some other
// client holds paused.
var neverSent = []string{
	"Page.navigate", "Page.reload", "Runtime.evaluate", "Runtime.callFunctionOn", "Input.",
	"Target.closeTarget", "Browser.close", "WebMCP.invokeTool", "Runtime.runIfWaitingForDebugger",
}

func assertNeverSent(t *testing.T, f *cdptest.Server) {
	t.Helper()
	for _, m := range neverSent {
		if f.Received(m) {
			t.Errorf("a passive call sent %s; methods: %v", m, f.Methods())
		}
	}
}

func engine() *cdp.Engine {
	return cdp.New(&cdp.Options{GateInterval: time.Millisecond, GateAttempts: 3})
}

func ref(f *cdptest.Server) ports.BrowserTargetRef {
	return ports.BrowserTargetRef{Endpoint: f.URL, TargetID: "T1"}
}

func code(t *testing.T, err error) ports.BrowserErrorCode {
	t.Helper()
	be, ok := ports.AsBrowserError(err)
	if !ok {
		t.Fatalf("want a BrowserError, got %v", err)
	}
	return be.Code
}

func fullInspect(f *cdptest.Server) ports.BrowserInspectRequest {
	return ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 20,
		IncludeScriptSources: true, IncludeConsoleText: true, IncludeAccessibilityText: true,
		IncludeStorageKeys: true, IncludeStorageFingerprints: true, IncludeJSONBodyShapes: true, IncludeWebSocketShapes: true}
}

func TestEndpointRulesBeforeIO(t *testing.T) {
	f := cdptest.New(nil)
	defer f.Close()
	p := f.Port()
	bad := []string{
		"http://localhost:" + p, "http://user:pw@127.0.0.1:" + p, "http://127.0.0.1:" + p + "/json",
		"http://127.0.0.1:" + p + "?x=1", "http://127.0.0.1:" + p + "#f", "https://127.0.0.1:" + p,
		"http://127.0.0.1", "http://127.0.0.1:0", "http://127.0.0.1:99999", "http://10.0.0.1:" + p,
		"http://0x7f.0.0.1:" + p, "http://[::2]:" + p, "ws://127.0.0.1:" + p, "127.0.0.1:" + p, "",
		"http://127.0.0.1:0" + p, "http://127.1:" + p,
	}
	e := engine()
	for _, ep := range bad {
		t.Run(ep, func(t *testing.T) {
			is := is.New(t)
			_, err := e.ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: ep})
			is.Equal(code(t, err), ports.BrowserInvalidRequest)
			_, err = e.InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ports.BrowserTargetRef{Endpoint: ep, TargetID: "T1"}})
			is.Equal(code(t, err), ports.BrowserInvalidRequest)
		})
	}
	if f.Hits() != 0 {
		t.Errorf("invalid endpoints reached the network: %d requests", f.Hits())
	}
	_, err := e.ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: f.URL, AllowedOrigins: []string{"http://*.example"}})
	is.New(t).Equal(code(t, err), ports.BrowserInvalidRequest)
	// A page URL or a bare host:port given as an origin is refused with
	// the origin to pass instead; a wildcard has none to offer.
	for in, want := range map[string]string{"http://127.0.0.1:8080/app?x=1": ": use http://127.0.0.1:8080", "127.0.0.1:8080": ": use http://127.0.0.1:8080",
		"http://*.example": "origin: http://*.example"} {
		_, err = e.ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: f.URL, AllowedOrigins: []string{in, "https://app.test/"}})
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("allowed_origins %q: %v, want a message ending %q", in, err, want)
		}
	}
	// localhost is refused with the address to use instead.
	_, err = e.ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: "http://localhost:" + p})
	is.New(t).True(strings.Contains(err.Error(), "use http://127.0.0.1:"+p))
}

func TestDiscoveryErrors(t *testing.T) {
	cases := []struct {
		mode string
		want ports.BrowserErrorCode
	}{
		{cdptest.DiscoveryNonJSON, ports.BrowserInvalidEndpointResponse},
		{cdptest.DiscoveryMalformedVersion, ports.BrowserInvalidEndpointResponse},
		{cdptest.DiscoveryMalformedList, ports.BrowserInvalidEndpointResponse},
		{cdptest.DiscoveryStatus500, ports.BrowserInvalidEndpointResponse},
		{cdptest.DiscoveryRedirect, ports.BrowserInvalidEndpointResponse},
		{cdptest.DiscoveryOversizedVersion, ports.BrowserPayloadLimit},
		{cdptest.DiscoveryOversizedList, ports.BrowserPayloadLimit},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			is := is.New(t)
			f := cdptest.New(&cdptest.Options{Discovery: c.mode})
			defer f.Close()
			_, err := engine().ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: f.URL})
			is.Equal(code(t, err), c.want)
			_, err = engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(f)})
			is.Equal(code(t, err), c.want)
		})
	}
}

func TestEndpointUnreachable(t *testing.T) {
	is := is.New(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err)
	addr := l.Addr().String()
	l.Close()
	_, err = engine().ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: "http://" + addr})
	is.Equal(code(t, err), ports.BrowserEndpointUnreachable)
	is.True(errors.Is(err, ports.ErrUnavailable))
}

func TestListing(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(&cdptest.Options{NoBrowserSocket: true, Targets: []cdptest.Target{
		{ID: "T2", Type: "page", URL: "http://app.test/b"},
		{ID: "T1", Type: "page", URL: "http://user:pw@app.test/a"},
		{ID: "T3", Type: "page", URL: "http://other.test/"},
		{ID: "T4", Type: "page", URL: "about:blank"},
		{ID: "T5", Type: "service_worker", URL: "http://app.test/sw.js"},
		{ID: "T6", Type: "page", URL: "http://app.test/c", NoSocket: true},
	}})
	defer f.Close()
	list, err := engine().ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: f.URL, AllowedOrigins: []string{"http://app.test/"}})
	is.NoErr(err)
	is.Equal(len(list.Targets), 2)
	is.Equal(list.Targets[0].TargetID, "T1")
	is.Equal(list.Targets[0].URL, "http://app.test/a") // userinfo removed
	is.Equal(list.Excluded, ports.BrowserListExclusions{DisallowedOrigin: 1, UnsupportedURL: 1, NonPage: 1, Unconnectable: 1})
	is.Equal(len(list.Limitations), 1)
	is.Equal(list.Browser.Product, "FakeChrome/1.0")
	is.Equal(list.Browser.Revision, "537.36 (@fake)")
	is.Equal(f.Calls(), nil) // listing never opens a socket
}

func TestTargetErrors(t *testing.T) {
	f := cdptest.New(&cdptest.Options{Targets: []cdptest.Target{
		{ID: "T1", Type: "page", URL: "http://app.test/"},
		{ID: "W", Type: "worker", URL: "http://app.test/w.js"},
		{ID: "B", Type: "page", URL: "about:blank"},
	}})
	defer f.Close()
	e := engine()
	ctx := context.Background()
	cases := []struct {
		name string
		ref  ports.BrowserTargetRef
		want ports.BrowserErrorCode
	}{
		{"missing", ports.BrowserTargetRef{Endpoint: f.URL, TargetID: "nope"}, ports.BrowserTargetNotFound},
		{"non-page", ports.BrowserTargetRef{Endpoint: f.URL, TargetID: "W"}, ports.BrowserTargetNotAllowed},
		{"null origin", ports.BrowserTargetRef{Endpoint: f.URL, TargetID: "B"}, ports.BrowserTargetNotAllowed},
		{"outside origins", ports.BrowserTargetRef{Endpoint: f.URL, TargetID: "T1", AllowedOrigins: []string{"http://else.test"}}, ports.BrowserTargetNotAllowed},
		{"empty id", ports.BrowserTargetRef{Endpoint: f.URL}, ports.BrowserInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			_, err := e.InspectPage(ctx, ports.BrowserInspectRequest{Target: c.ref})
			is.Equal(code(t, err), c.want)
			_, err = e.ObserveSession(ctx, ports.BrowserObserveRequest{Target: c.ref, ObservationMS: 10})
			is.Equal(code(t, err), c.want)
			_, err = e.DiscoverWebMCPTools(ctx, ports.WebMCPRequest{Target: c.ref})
			is.Equal(code(t, err), c.want)
			_, err = e.CaptureScreenshot(ctx, ports.BrowserScreenshotRequest{Target: c.ref})
			is.Equal(code(t, err), c.want)
		})
	}
}

func TestMidCaptureErrors(t *testing.T) {
	cases := []struct {
		name string
		opts cdptest.Options
		want ports.BrowserErrorCode
	}{
		{"navigates out during the window", cdptest.Options{NavigateOutMethod: "Network.enable", NavigateOutURL: "http://evil.test/"}, ports.BrowserTargetNotAllowed},
		{"navigates within scope after the window", cdptest.Options{NavigateOutMethod: "DOMSnapshot.captureSnapshot", NavigateOutURL: "http://app.test/next"}, ports.BrowserTargetChanged},
		{"target closed mid-capture", cdptest.Options{CloseOn: "DOMSnapshot.captureSnapshot"}, ports.BrowserDisconnected},
		{"target detached during the window", cdptest.Options{After: map[string][]cdptest.Event{"Network.enable": {
			{Method: "Target.detachedFromTarget", Params: map[string]any{"sessionId": "S1", "targetId": "T1"}, Browser: true}}}}, ports.BrowserDisconnected},
		{"garbage frame", cdptest.Options{GarbageOn: "Page.getResourceTree"}, ports.BrowserProtocolError},
		{"binary frame", cdptest.Options{BinaryOn: "Page.getResourceTree"}, ports.BrowserProtocolError},
		{"empty session id", cdptest.Options{SessionID: "-"}, ports.BrowserProtocolError},
		{"required command rejected", cdptest.Options{Handlers: map[string]cdptest.Handler{
			"Page.getResourceTree": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				return nil, &cdptest.RPCError{Code: -32000, Message: "no"}
			}}}, ports.BrowserProtocolError},
		{"optional command rejected otherwise than unknown", cdptest.Options{Handlers: map[string]cdptest.Handler{
			"Storage.getUsageAndQuota": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				return nil, &cdptest.RPCError{Code: -32000, Message: "no"}
			}}}, ports.BrowserProtocolError},
		{"target with no usable socket", cdptest.Options{NoBrowserSocket: true, Targets: []cdptest.Target{{ID: "T1", Type: "page", URL: "http://app.test/", NoSocket: true}}}, ports.BrowserInvalidEndpointResponse},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			f := cdptest.New(&c.opts)
			defer f.Close()
			out, err := engine().InspectPage(context.Background(), fullInspect(f))
			is.Equal(out, nil) // never a partial result
			is.Equal(code(t, err), c.want)
			assertNeverSent(t, f)
		})
	}
}

func TestCancelAndTimeout(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := engine().InspectPage(ctx, ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 10000})
	is.Equal(code(t, err), ports.BrowserCancelled)
	is.True(errors.Is(err, context.Canceled))
	// cleanup ran under its own context: domains disabled, session detached
	m := f.Methods()
	for _, want := range []string{"Network.disable", "Debugger.disable", "Runtime.disable", "Page.disable", "Target.detachFromTarget"} {
		is.True(slices.Contains(m, want))
	}
	tctx, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	_, err = engine().ObserveSession(tctx, ports.BrowserObserveRequest{Target: ref(f), ObservationMS: 10000})
	is.Equal(code(t, err), ports.BrowserTimeout)
	is.True(errors.Is(err, ports.ErrTimeout))
}

func TestInspectOnFake(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	assertNeverSent(t, f)
	m := f.Methods()
	// BROWSER.md §3's order of the steps
	order := []string{"Target.attachToTarget", "Page.enable", "Page.getFrameTree", "Runtime.enable", "Debugger.enable", "Network.enable",
		"Network.getResponseBody", "Page.getResourceTree", "DOMSnapshot.captureSnapshot", "Accessibility.getFullAXTree",
		"Debugger.getScriptSource", "Target.getTargets", "Storage.getUsageAndQuota", "Network.disable", "Target.detachFromTarget"}
	last := -1
	for _, o := range order {
		i := slices.Index(m, o)
		if i <= last {
			t.Fatalf("%s out of order in %v", o, m)
		}
		last = i
	}
	for _, call := range f.Calls() {
		if call.Method == "Target.getTargets" && call.SessionID != "" {
			t.Error("Target.getTargets must go to the browser, without sessionId")
		}
		if strings.HasPrefix(call.Method, "Page.") && call.SessionID != "S1" {
			t.Errorf("%s without the attach session", call.Method)
		}
	}
	is.Equal(len(c.Frames), 1) // the ads.example child frame is out of scope
	is.Equal(len(c.Scripts), 1)
	is.Equal(c.Scripts[0].FrameID, "F1")
	is.Equal(c.Scripts[0].SourceMapURL, "http://app.test/app.js.map")
	is.Equal(string(c.Scripts[0].Source), "console.log('fake');")
	is.Equal(len(c.Resources), 1)
	is.Equal(len(c.Network.Requests), 1)
	r := c.Network.Requests[0]
	is.Equal(r.Method, "POST")
	is.Equal(*r.Status, 200)
	is.Equal(*r.EncodedDataLength, 321.0)
	is.Equal(*r.Initiator.URL, "http://app.test/app.js")
	// CDP's 0-based lineNumber 4 is rea's line 5; the column stays 0-based.
	is.Equal([2]int{*r.Initiator.Line, *r.Initiator.Column}, [2]int{5, 2})
	is.Equal(string(r.RequestBody), `{"user":"u"}`)
	is.Equal(string(r.ResponseBody), `{"ok":true}`)
	is.Equal(len(c.Metadata.Responses), 1)
	_, hasCookie := c.Metadata.Responses[0].Headers["set-cookie"]
	is.True(!hasCookie)
	is.Equal(c.Metadata.Responses[0].Headers["x-webmcp"], "1")
	// The message Runtime.enable replays from before the attach is left
	// out, and a limitation counts it.
	is.Equal(len(c.Console), 1)
	is.True(slices.ContainsFunc(c.Limitations, func(l string) bool { return strings.HasPrefix(l, "1 console message(s) logged before the attach") }))
	is.Equal(c.Console[0].ArgumentTypes, []string{"string", "number", "object"})
	is.Equal(len(c.Console[0].Values), 2) // the object is never rendered
	// CDP's lineNumber 3 and columnNumber 7 are rea's line 4, column 7.
	is.Equal([2]int{c.Console[0].Line, c.Console[0].Column}, [2]int{4, 7})
	is.Equal(len(c.Network.WebSocketEvents), 2)
	is.Equal(c.Network.WebSocketEvents[1].PayloadBytes, 0) // bad base64
	is.Equal(len(c.Workers), 1)
	is.Equal(c.Workers[0].TargetID, "W1")
	is.Equal(c.DOM.TotalNodes, 7)
	is.Equal(c.DOM.LinkRels, []string{"mcp"})
	is.Equal(c.DOM.Nodes[6].NodeValueLength, 5)
	is.Equal(len(c.Accessibility.Nodes), 2)
	is.Equal(*c.Accessibility.Nodes[1].Name, "ax-private-label-value")
	is.Equal(c.Accessibility.Nodes[1].States, []string{"focusable"})
	is.Equal(c.Storage.LocalStorageKeys, []string{"token"})
	is.True(!strings.Contains(dump(c.Storage), "secret-value"))
	is.True(!strings.Contains(dump(c.Storage), "cookie-secret"))
	want := map[[2]string]int{
		{"frames", "disallowed_origin"}: 1, {"scripts", "disallowed_origin"}: 1, {"scripts", "invalid_protocol_value"}: 1,
		{"resources", "disallowed_origin"}: 1, {"network_requests", "disallowed_origin"}: 1, {"console_events", "disallowed_origin"}: 1,
		{"websocket_frames", "invalid_protocol_value"}: 1, {"workers", "out_of_target_scope"}: 1, {"metadata", "disallowed_origin"}: 1,
	}
	for _, x := range c.Completeness.Excluded {
		if n, ok := want[[2]string{x.Section, x.Reason}]; ok && n != x.Count {
			t.Errorf("excluded %s/%s = %d, want %d", x.Section, x.Reason, x.Count, n)
		}
		delete(want, [2]string{x.Section, x.Reason})
	}
	is.Equal(len(want), 0)
}

func TestInspectDefaultsKeepNoText(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 10})
	is.NoErr(err)
	assertNeverSent(t, f)
	is.True(!f.Received("Debugger.getScriptSource"))
	is.True(!f.Received("Network.getResponseBody"))
	is.True(!f.Received("DOMStorage.getDOMStorageItems"))
	is.True(!f.Received("Network.getCookies"))
	raw := dump(c)
	for _, s := range []string{"ax-private-label-value", "console-secret", `"user"`, "ping", "secret-value"} {
		is.True(!strings.Contains(raw, s))
	}
	is.Equal(c.Accessibility.ExcludedFields, 2)
	is.Equal(c.Scripts[0].SourceReason, "source capture was not approved")
}

func TestOptionalDomainsDegrade(t *testing.T) {
	is := is.New(t)
	unknown := func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
		return nil, &cdptest.RPCError{Code: -32601, Message: "method not found"}
	}
	f := cdptest.New(&cdptest.Options{Handlers: map[string]cdptest.Handler{
		"Accessibility.getFullAXTree": unknown, "Target.getTargets": unknown, "Storage.getUsageAndQuota": unknown,
		"DOMStorage.getDOMStorageItems": unknown, "Network.getResponseBody": unknown,
	}})
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	is.Equal(c.Accessibility.TextCapture, "unavailable")
	sections := map[string]bool{}
	for _, u := range c.Completeness.Unavailable {
		sections[u.Section] = true
	}
	for _, s := range []string{"accessibility", "workers", "storage", "storage_keys", "json_body_shapes"} {
		is.True(sections[s])
	}
	is.True(slices.Contains(c.Limitations, "Accessibility.getFullAXTree was unavailable from this browser target."))
}

func TestEventFlood(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(&cdptest.Options{Flood: 3000})
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 200,
		Limits: ports.BrowserLimits{MaxNetworkEvents: 50, MaxConsoleEvents: 10}})
	is.NoErr(err)
	is.Equal(len(c.Network.Requests), 50)
	is.Equal(len(c.Console), 10)
	is.True(c.Completeness.Dropped.NetworkRequests > 0)
	is.True(c.Completeness.Dropped.ConsoleEvents > 0)
	is.True(slices.Contains(c.Completeness.Truncated, "network_requests"))
	is.True(slices.Contains(c.Completeness.Truncated, "console_events"))
}

func TestPageSocketFallback(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(&cdptest.Options{NoBrowserSocket: true})
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 10})
	is.NoErr(err)
	is.Equal(len(c.Scripts), 1)
	is.True(!f.Received("Target.attachToTarget"))
	for _, call := range f.Calls() {
		is.Equal(call.SessionID, "")
	}
}

func TestObserveOnFake(t *testing.T) {
	lifecycle := cdptest.Event{Method: "Page.lifecycleEvent", Params: map[string]any{"frameId": "F1", "loaderId": "L1", "name": "DOMContentLoaded", "timestamp": 1}}
	sameDoc := cdptest.Event{Method: "Page.navigatedWithinDocument", Params: map[string]any{"frameId": "F1", "url": "http://app.test/session-1?token=x"}}
	out := cdptest.Event{Method: "Page.frameNavigated", Params: map[string]any{"frame": map[string]any{"id": "F1", "loaderId": "L2", "url": "http://evil.test/"}, "type": "Navigation"}}
	detached := cdptest.Event{Method: "Target.detachedFromTarget", Params: map[string]any{"sessionId": "S1", "targetId": "T1"}, Browser: true}
	cases := []struct {
		name   string
		events []cdptest.Event
		end    string
		final  bool
	}{
		{"window elapses", []cdptest.Event{lifecycle, sameDoc}, "window_elapsed", true},
		{"leaves scope", []cdptest.Event{sameDoc, out}, "target_left_scope", false},
		{"terminated", []cdptest.Event{lifecycle, detached}, "target_terminated", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			f := cdptest.New(&cdptest.Options{After: map[string][]cdptest.Event{"Page.setLifecycleEventsEnabled": c.events}})
			defer f.Close()
			tl, err := engine().ObserveSession(context.Background(), ports.BrowserObserveRequest{Target: ref(f), ObservationMS: 150})
			is.NoErr(err)
			assertNeverSent(t, f)
			is.Equal(tl.Window.EndReason, c.end)
			is.Equal(tl.Target.FinalURL != nil, c.final)
			is.True(len(tl.Timeline) >= 2)
			for i, ev := range tl.Timeline {
				is.Equal(ev.Sequence, i)
			}
			// The attached document's DOMContentLoaded arrives when rea
			// enables lifecycle events: its time is the attach time.
			replayed := strings.Contains(strings.Join(tl.Limitations, " "), "1 lifecycle event(s) of the document loaded before attach (domcontentloaded)")
			is.Equal(replayed, c.events[0].Method == "Page.lifecycleEvent")
			if c.end == "target_left_scope" {
				last := tl.Timeline[len(tl.Timeline)-1]
				is.Equal(last.URL, nil)
				is.Equal(*last.DestinationScope, "outside_policy")
			}
		})
	}
}

func TestWebMCPOnFake(t *testing.T) {
	t.Run("unavailable", func(t *testing.T) {
		is := is.New(t)
		f := cdptest.New(nil)
		defer f.Close()
		d, err := engine().DiscoverWebMCPTools(context.Background(), ports.WebMCPRequest{Target: ref(f)})
		is.NoErr(err)
		is.Equal(d.Status, "unavailable")
		is.True(d.UnavailableReason != "")
		assertNeverSent(t, f)
	})
	enable := map[string]cdptest.Handler{"WebMCP.enable": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) { return map[string]any{}, nil }}
	t.Run("tools", func(t *testing.T) {
		is := is.New(t)
		added := cdptest.Event{Method: "WebMCP.toolsAdded", Params: map[string]any{"tools": []any{
			map[string]any{"name": "search", "description": "Search", "frameId": "F1", "backendNodeId": 12,
				"inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnly": true},
				"stackTrace": map[string]any{"callFrames": []any{map[string]any{"url": "http://app.test/app.js", "lineNumber": 3, "columnNumber": 1}}}},
			map[string]any{"name": "imperative", "description": "", "frameId": "F1"},
			map[string]any{"name": "ad", "description": "", "frameId": "F2"},
			map[string]any{"name": "gone", "description": "", "frameId": "F1"},
		}}}
		removed := cdptest.Event{Method: "WebMCP.toolsRemoved", Params: map[string]any{"tools": []any{map[string]any{"name": "gone", "frameId": "F1"}}}}
		f := cdptest.New(&cdptest.Options{Handlers: enable, After: map[string][]cdptest.Event{"WebMCP.enable": {added, removed}}})
		defer f.Close()
		d, err := engine().DiscoverWebMCPTools(context.Background(), ports.WebMCPRequest{Target: ref(f), ObservationMS: 30})
		is.NoErr(err)
		assertNeverSent(t, f)
		is.Equal(d.Status, "available")
		is.Equal(len(d.Tools), 2)
		is.Equal(d.Tools[0].Name, "imperative")
		is.True(!d.Tools[0].Declarative)
		is.Equal(d.Tools[0].Annotations.ReadOnly, nil)
		s := d.Tools[1]
		is.True(s.Declarative)
		is.Equal(*s.Annotations.ReadOnly, true)
		is.Equal(s.Annotations.Autosubmit, nil)
		is.Equal(string(s.InputSchema), `{"type":"object"}`)
		is.Equal(s.RegistrationSource.Line, 4)   // CDP's lineNumber 3 is 0-based; rea's lines are 1-based
		is.Equal(s.RegistrationSource.Column, 1) // columns are 0-based in both
		is.True(f.Received("WebMCP.disable"))
	})
	t.Run("malformed", func(t *testing.T) {
		is := is.New(t)
		bad := cdptest.Event{Method: "WebMCP.toolsAdded", Params: map[string]any{"tools": "nope"}}
		f := cdptest.New(&cdptest.Options{Handlers: enable, After: map[string][]cdptest.Event{"WebMCP.enable": {bad}}})
		defer f.Close()
		_, err := engine().DiscoverWebMCPTools(context.Background(), ports.WebMCPRequest{Target: ref(f), ObservationMS: 30})
		is.Equal(code(t, err), ports.BrowserProtocolError)
	})
}

func TestScreenshotOnFake(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	s, err := engine().CaptureScreenshot(context.Background(), ports.BrowserScreenshotRequest{Target: ref(f)})
	is.NoErr(err)
	assertNeverSent(t, f)
	is.Equal(s.Width, 8)
	is.Equal(s.Height, 6)
	for _, c := range []struct {
		name string
		data any
		max  int
		want ports.BrowserErrorCode
	}{
		{"over the byte cap", nil, 10, ports.BrowserPayloadLimit},
		{"not canonical base64", "aGk", 0, ports.BrowserPayloadLimit},
		{"not a PNG", "aGVsbG8gd29ybGQ=", 0, ports.BrowserProtocolError},
		{"too many pixels", pngHeader(40000, 40000), 0, ports.BrowserPayloadLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			var h map[string]cdptest.Handler
			if c.data != nil {
				h = map[string]cdptest.Handler{"Page.captureScreenshot": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
					return map[string]any{"data": c.data}, nil
				}}
			}
			f := cdptest.New(&cdptest.Options{Handlers: h})
			defer f.Close()
			_, err := engine().CaptureScreenshot(context.Background(), ports.BrowserScreenshotRequest{Target: ref(f), MaxImageBytes: c.max})
			is.Equal(code(t, err), c.want)
		})
	}
	t.Run("a background tab draws no frame", func(t *testing.T) {
		is := is.New(t)
		defer cdp.SetScreenshotFrameWait(cdp.SetScreenshotFrameWait(100 * time.Millisecond))
		f := cdptest.New(&cdptest.Options{Handlers: map[string]cdptest.Handler{"Page.captureScreenshot": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
			time.Sleep(time.Second) // Chromium's answer for a tab that draws nothing: none
			return map[string]any{"data": ""}, nil
		}}})
		defer f.Close()
		_, err := engine().CaptureScreenshot(context.Background(), ports.BrowserScreenshotRequest{Target: ref(f)})
		is.Equal(code(t, err), ports.BrowserTimeout) // unbounded, the fake's late empty answer is not a PNG
		is.True(strings.Contains(err.Error(), "background"))
	})
	// hiddenPage answers the visibility read with "hidden", the
	// screenshot with answer after late and Browser.getBrowserCommandLine
	// with args (refused when there are none, as without
	// --enable-automation).
	hiddenPage := func(late time.Duration, answer string, args ...string) map[string]cdptest.Handler {
		return map[string]cdptest.Handler{
			"Browser.getBrowserCommandLine": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				if len(args) == 0 {
					return nil, &cdptest.RPCError{Code: -32000, Message: "Command line not returned because --enable-automation not set."}
				}
				return map[string]any{"arguments": args}, nil
			},
			"DOM.getDocument": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				return map[string]any{"root": map[string]any{"nodeId": 1, "backendNodeId": 1, "nodeType": 9, "nodeName": "#document", "localName": "", "nodeValue": ""}}, nil
			},
			"DOM.resolveNode": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				return map[string]any{"object": map[string]any{"type": "object", "objectId": "doc-1"}}, nil
			},
			"Runtime.getProperties": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				return map[string]any{"result": []any{
					map[string]any{"name": "hidden", "value": map[string]any{"type": "boolean", "value": true}, "configurable": true, "enumerable": true},
					map[string]any{"name": "visibilityState", "value": map[string]any{"type": "string", "value": "hidden"}, "configurable": true, "enumerable": true},
				}}, nil
			},
			"Page.captureScreenshot": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				time.Sleep(late)
				return map[string]any{"data": answer}, nil
			},
		}
	}
	t.Run("a hidden page is named at once", func(t *testing.T) {
		// document.visibilityState, read through the DOM without running
		// page script, says the tab is in the background: a headful
		// browser draws it no frame, so the capture waits 3 s, not the
		// full 15 s frame wait, and says why.
		is := is.New(t)
		f := cdptest.New(&cdptest.Options{Handlers: hiddenPage(5*time.Second, "", "/usr/lib/chromium/chromium", "--enable-automation")}) // the fake answers late with no image
		defer f.Close()
		_, err := engine().CaptureScreenshot(context.Background(), ports.BrowserScreenshotRequest{Target: ref(f)})
		is.Equal(code(t, err), ports.BrowserTimeout)
		is.True(strings.Contains(err.Error(), `document.visibilityState is "hidden"`))
		is.True(strings.Contains(err.Error(), "bring the tab to the front"))
		is.True(f.Received("Runtime.releaseObject"))
		assertNeverSent(t, f)
	})
	t.Run("a hidden page in headless Chromium is drawn late", func(t *testing.T) {
		// Headless Chromium draws a hidden page, late on a loaded machine:
		// the capture gives it the full frame wait. Before, the short
		// hidden wait failed it (TestLiveScreenshotReadsVisibility in a
		// full suite run).
		is := is.New(t)
		defer cdp.SetHiddenFrameWait(cdp.SetHiddenFrameWait(20 * time.Millisecond))
		f := cdptest.New(&cdptest.Options{UserAgent: "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/150.0.0.0 Safari/537.36",
			Handlers: hiddenPage(300*time.Millisecond, base64.StdEncoding.EncodeToString(cdptest.PNG(3, 2)), "/usr/lib/chromium/chromium", "--headless=new", "--enable-automation")})
		defer f.Close()
		s, err := engine().CaptureScreenshot(context.Background(), ports.BrowserScreenshotRequest{Target: ref(f)})
		is.NoErr(err)
		is.Equal(s.Width, 3)
	})
	t.Run("headless is read from the switches, not the user agent", func(t *testing.T) {
		// A headless browser started with --user-agent (or a page's
		// override) reports a desktop agent: before, the capture took it
		// for headful and failed the hidden page after the short wait.
		// The switches the browser reports decide now; a browser that
		// keeps them to itself gets the full wait, HeadlessChrome in its
		// agent or not.
		for _, c := range []struct {
			name string
			args []string
		}{
			{"switches say headless", []string{"/usr/lib/chromium/chromium", "--headless=new", "--enable-automation", "--user-agent=Mozilla/5.0 Chrome/156"}},
			{"switches unknown", nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				is := is.New(t)
				defer cdp.SetHiddenFrameWait(cdp.SetHiddenFrameWait(20 * time.Millisecond))
				f := cdptest.New(&cdptest.Options{UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0.0.0 Safari/537.36",
					Handlers: hiddenPage(300*time.Millisecond, base64.StdEncoding.EncodeToString(cdptest.PNG(3, 2)), c.args...)})
				defer f.Close()
				s, err := engine().CaptureScreenshot(context.Background(), ports.BrowserScreenshotRequest{Target: ref(f)})
				is.NoErr(err)
				is.Equal(s.Width, 3)
			})
		}
		t.Run("switches say headful, whatever the agent", func(t *testing.T) {
			is := is.New(t)
			defer cdp.SetHiddenFrameWait(cdp.SetHiddenFrameWait(20 * time.Millisecond))
			f := cdptest.New(&cdptest.Options{UserAgent: "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156.0.0.0 Safari/537.36",
				Handlers: hiddenPage(300*time.Millisecond, base64.StdEncoding.EncodeToString(cdptest.PNG(3, 2)), "/usr/lib/chromium/chromium", "--enable-automation")})
			defer f.Close()
			_, err := engine().CaptureScreenshot(context.Background(), ports.BrowserScreenshotRequest{Target: ref(f)})
			is.Equal(code(t, err), ports.BrowserTimeout)
		})
	})
	t.Run("navigation during capture", func(t *testing.T) {
		is := is.New(t)
		f := cdptest.New(&cdptest.Options{NavigateOutMethod: "Page.captureScreenshot", NavigateOutURL: "http://app.test/other"})
		defer f.Close()
		_, err := engine().CaptureScreenshot(context.Background(), ports.BrowserScreenshotRequest{Target: ref(f)})
		is.Equal(code(t, err), ports.BrowserTargetChanged)
	})
}

type progressLog struct {
	mu     sync.Mutex
	phases []string
}

func (p *progressLog) Observe(phase, msg string) {
	p.mu.Lock()
	p.phases = append(p.phases, phase+": "+msg)
	p.mu.Unlock()
}

func TestProgress(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	p := &progressLog{}
	ctx := ports.WithProgress(context.Background(), p)
	_, err := engine().InspectPage(ctx, ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 1100})
	is.NoErr(err)
	p.mu.Lock()
	defer p.mu.Unlock()
	is.True(slices.ContainsFunc(p.phases, func(s string) bool { return strings.HasPrefix(s, "observe: observing the page for 1100 ms") }))
	is.True(slices.ContainsFunc(p.phases, func(s string) bool { return strings.Contains(s, " of 1100 ms, ") }))
	is.True(slices.ContainsFunc(p.phases, func(s string) bool { return strings.HasPrefix(s, "capture: ") }))
}

func TestStorageRecordFingerprints(t *testing.T) {
	is := is.New(t)
	h := func(v any) cdptest.Handler {
		return func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) { return v, nil }
	}
	f := cdptest.New(&cdptest.Options{Handlers: map[string]cdptest.Handler{
		"IndexedDB.requestDatabase": h(map[string]any{"databaseWithObjectStores": map[string]any{"name": "db1", "version": 1,
			"objectStores": []any{map[string]any{"name": "things", "keyPath": map[string]any{"type": "string", "string": "id"}, "autoIncrement": false, "indexes": []any{}}}}}),
		"IndexedDB.requestData": h(map[string]any{"hasMore": true, "objectStoreDataEntries": []any{
			map[string]any{"key": map[string]any{"type": "number", "value": 1}, "primaryKey": map[string]any{"type": "number", "value": 1},
				"value": map[string]any{"type": "object", "objectId": "o1", "preview": map[string]any{"type": "object", "overflow": false,
					"properties": []any{map[string]any{"name": "secret", "type": "string", "value": "idb-secret"}}}}},
			map[string]any{"key": map[string]any{"type": "number", "value": 2}, "primaryKey": map[string]any{"type": "number", "value": 2},
				"value": map[string]any{"type": "object", "objectId": "o2", "preview": map[string]any{"type": "object", "overflow": true, "properties": []any{}}}},
		}}),
		"CacheStorage.requestCacheNames": h(map[string]any{"caches": []any{map[string]any{"cacheId": "c1", "securityOrigin": "http://app.test", "storageKey": "", "cacheName": "v1"}}}),
		"CacheStorage.requestEntries": h(map[string]any{"returnCount": 2, "cacheDataEntries": []any{
			map[string]any{"requestURL": "http://app.test/small", "requestMethod": "GET", "requestHeaders": []any{}},
			map[string]any{"requestURL": "http://app.test/big", "requestMethod": "GET", "requestHeaders": []any{}},
		}}),
		"CacheStorage.requestCachedResponse": func(_ *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
			body := "c21hbGw=" // "small"
			if strings.Contains(string(c.Params), "/big") {
				body = base64.StdEncoding.EncodeToString(make([]byte, 70<<10))
			}
			return map[string]any{"response": map[string]any{"body": body}}, nil
		},
	}})
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	complete := map[string][2]int{}
	for _, fp := range c.Storage.Fingerprints {
		n := complete[fp.Scope]
		if fp.Complete {
			n[0]++
		} else {
			n[1]++
		}
		complete[fp.Scope] = n
	}
	is.Equal(complete["indexed_db_schema"], [2]int{1, 0})
	is.Equal(complete["indexed_db_record"], [2]int{1, 1}) // the overflowing preview is incomplete
	is.Equal(complete["cache_entry"], [2]int{1, 1})       // the body over 64 KiB is incomplete
	is.Equal(complete["cookie"], [2]int{1, 0})
	is.True(slices.Contains(c.Completeness.Truncated, "storage")) // hasMore
	is.True(!strings.Contains(dump(c.Storage), "idb-secret"))
	is.True(!strings.Contains(dump(c.Storage), "c21hbGw"))
	is.True(slices.IsSortedFunc(c.Storage.Fingerprints, func(a, b ports.BrowserStorageFingerprint) int { return strings.Compare(a.Scope, b.Scope) }))
}

// A scripts-only capture (analyze_web_bundle's) takes no DOM snapshot,
// accessibility tree or storage, and still reads the scripts' sources.
func TestInspectScriptsOnly(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	req := fullInspect(f)
	req.ScriptsOnly = true
	c, err := engine().InspectPage(context.Background(), req)
	is.NoErr(err)
	assertNeverSent(t, f)
	for _, m := range []string{"DOMSnapshot.captureSnapshot", "Accessibility.getFullAXTree", "Storage.getUsageAndQuota", "DOMStorage.getDOMStorageItems"} {
		if f.Received(m) {
			t.Errorf("a scripts-only capture sent %s", m)
		}
	}
	is.True(f.Received("Debugger.getScriptSource"))
	is.True(len(c.Scripts) > 0)
	is.True(c.Scripts[0].Source != nil)
	is.Equal(len(c.DOM.Nodes), 0)
	is.Equal(len(c.Accessibility.Nodes), 0)
}

// A frame on a socket the capture never saw open (opened before the attach)
// is counted as unattributed; a frame on an out-of-scope socket seen opening
// is not (that socket is counted under websocket_connections).
func TestInspectFramesOfUnknownSockets(t *testing.T) {
	is := is.New(t)
	frame := func(id string) cdptest.Event {
		return cdptest.Event{Method: "Network.webSocketFrameReceived", Params: map[string]any{"requestId": id, "timestamp": 3,
			"response": map[string]any{"opcode": 1, "mask": false, "payloadData": "x"}}}
	}
	f := cdptest.New(&cdptest.Options{After: map[string][]cdptest.Event{"Network.enable": {
		{Method: "Network.webSocketCreated", Params: map[string]any{"requestId": "WS9", "url": "ws://evil.test/ws"}},
		frame("WS9"), frame("WS9"), frame("EARLIER"),
	}}})
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 50})
	is.NoErr(err)
	counts := map[string]int{}
	for _, x := range c.Completeness.Excluded {
		counts[x.Section+"/"+x.Reason] = x.Count
	}
	is.Equal(counts["websocket_frames/unattributed_origin"], 1)
	is.Equal(counts["websocket_connections/disallowed_origin"], 1)
	is.True(slices.Contains(c.Limitations, "1 WebSocket frame(s) on sockets opened before the attach were left out: Chromium does not report such a socket's URL, so its origin could not be checked. capture_browser_scenario observes a page's sockets from their start."))
	is.Equal(len(c.Network.WebSockets), 1) // the fake's own in-scope WS1
}

// A reply over the message bound costs its section, not the capture: the
// oversized accessibility tree (a page with a very large document) leaves
// accessibility empty and truncated, with a limitation, and the commands
// after it on the same connection still answer.
func TestInspectOversizedAccessibilityTree(t *testing.T) {
	is := is.New(t)
	old := cdp.SetMaxMessageBytes(1 << 20)
	defer cdp.SetMaxMessageBytes(old)
	huge := cdptest.Handler(func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
		return map[string]any{"nodes": []any{map[string]any{"nodeId": "1", "ignored": false, "role": map[string]any{"type": "role", "value": strings.Repeat("x", 2<<20)}}}}, nil
	})
	f := cdptest.New(&cdptest.Options{Handlers: map[string]cdptest.Handler{"Accessibility.getFullAXTree": huge}})
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	is.Equal(len(c.Accessibility.Nodes), 0)
	is.True(slices.Contains(c.Completeness.Truncated, "accessibility"))
	is.True(slices.Contains(c.Completeness.Excluded, ports.BrowserExclusion{Section: "accessibility", Reason: "resource_budget_exhausted", Count: 1}))
	is.True(slices.Contains(c.Limitations, "Accessibility.getFullAXTree's reply exceeded the 1 MiB message bound, so the accessibility section is empty; the page is too large for it."))
	is.True(c.DOM.TotalNodes > 0)                             // taken before
	is.True(len(c.Scripts) > 0 && c.Scripts[0].Source != nil) // read after, on the same connection
	is.True(f.Received("Storage.getUsageAndQuota"))
}

// A main-frame navigation during the observation window is allowed, but
// the target record is the page at the attach: the capture says the two
// differ instead of pairing one page's URL and title with another's DOM.
func TestInspectNavigatedDuringWindowSaysSo(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(&cdptest.Options{NavigateOutMethod: "Network.enable", NavigateOutURL: "http://app.test/next"})
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 20})
	is.NoErr(err)
	is.Equal(c.Target.URL, "http://app.test/index.html")
	is.Equal(c.Frames[0].URL, "http://app.test/next")
	is.True(slices.Contains(c.Limitations, "The main frame's URL changed during the observation window: target.url and target.title are from the attach (http://app.test/index.html); frames, DOM, scripts and resources are of http://app.test/next."))

	same := cdptest.New(nil)
	defer same.Close()
	c, err = engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(same), ObservationMS: 20})
	is.NoErr(err)
	is.True(!slices.ContainsFunc(c.Limitations, func(l string) bool { return strings.Contains(l, "URL changed during the observation window") }))
}

// The Debugger a passive capture enables (for the scripts it reports) is
// told to skip every pause just before it is enabled, so a debugger
// statement in the page cannot freeze it; a browser refusing that is asked
// again after the enable, then noted, not fatal.
func TestInspectSkipsAllPauses(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 10})
	is.NoErr(err)
	m := f.Methods()
	i := slices.Index(m, "Debugger.enable")
	is.True(i >= 1)
	is.Equal(m[i-1], "Debugger.setSkipAllPauses") // before the enable: no pause can come first
	is.Equal(slices.Index(m, "Debugger.setSkipAllPauses"), i-1)
	for _, call := range f.Calls() {
		if call.Method == "Debugger.setSkipAllPauses" {
			is.Equal(string(call.Params), `{"skip":true}`)
		}
	}
	is.True(!slices.ContainsFunc(c.Limitations, func(l string) bool { return strings.Contains(l, "setSkipAllPauses") }))

	refused := cdptest.New(&cdptest.Options{Handlers: map[string]cdptest.Handler{"Debugger.setSkipAllPauses": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
		return nil, &cdptest.RPCError{Code: -32601, Message: "'Debugger.setSkipAllPauses' wasn't found"}
	}}})
	defer refused.Close()
	c, err = engine().InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ref(refused), ObservationMS: 10})
	is.NoErr(err)
	is.True(slices.Contains(c.Limitations, "Debugger.setSkipAllPauses was refused, so the page may have paused at a debugger statement during the window."))
	skips := 0
	for _, meth := range refused.Methods() {
		if meth == "Debugger.setSkipAllPauses" {
			skips++
		}
	}
	is.Equal(skips, 2) // refused before the enable, asked again after it
}

// largeDocument is a fake whose main-frame document holds n nodes (the DOM
// snapshot names its frame and backend node ids) and whose accessibility
// domain answers getPartialAXTree one node at a time; node 2 has no
// accessibility object (Chromium answers with node id "0").
func largeDocument(n int) *cdptest.Server {
	return cdptest.New(&cdptest.Options{Handlers: map[string]cdptest.Handler{
		"DOMSnapshot.captureSnapshot": func(s *cdptest.Server, _ cdptest.Call) (any, *cdptest.RPCError) {
			parents, types, names, values, ids, attrs := make([]int, n), make([]int, n), make([]int, n), make([]int, n), make([]int, n), make([][]int, n)
			for i := range n {
				parents[i], types[i], names[i], values[i], ids[i], attrs[i] = i-1, 1, 2, -1, 100+i, []int{}
			}
			return map[string]any{"strings": []string{"http://app.test/index.html", "F1", "DIV"}, "documents": []any{map[string]any{
				"documentURL": 0, "frameId": 1,
				"nodes": map[string]any{"parentIndex": parents, "nodeType": types, "nodeName": names, "nodeValue": values, "backendNodeId": ids, "attributes": attrs},
			}}}, nil
		},
		"Accessibility.getPartialAXTree": func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
			var p struct {
				BackendNodeID  int   `json:"backendNodeId"`
				FetchRelatives *bool `json:"fetchRelatives"`
			}
			if json.Unmarshal(c.Params, &p) != nil || p.FetchRelatives == nil || *p.FetchRelatives {
				return nil, &cdptest.RPCError{Code: -32602, Message: "want one node, no relatives"}
			}
			if p.BackendNodeID == 102 {
				return map[string]any{"nodes": []any{map[string]any{"nodeId": "0", "ignored": true}}}, nil
			}
			id := strconv.Itoa(p.BackendNodeID)
			return map[string]any{"nodes": []any{map[string]any{"nodeId": id, "parentId": strconv.Itoa(p.BackendNodeID - 1), "ignored": false,
				"role": map[string]any{"type": "role", "value": "generic"}, "childIds": []string{strconv.Itoa(p.BackendNodeID + 1)}, "backendDOMNodeId": p.BackendNodeID}}}, nil
		},
	}})
}

// A document larger than max_ax_nodes is not asked for its whole
// accessibility tree: Chromium's getFullAXTree returns every node whatever
// its depth (a 200k-element page's reply was 191 MB, past the 64 MiB bound,
// so the section came back empty after 30 s). Its nodes are read one at a
// time in document order until the limit is kept, and the capture says how
// much of the document was not read.
func TestInspectLargeDocumentReadsAccessibilityNodeByNode(t *testing.T) {
	is := is.New(t)
	f := largeDocument(50)
	defer f.Close()
	req := ports.BrowserInspectRequest{Target: ref(f), ObservationMS: 10, Limits: ports.BrowserLimits{MaxAXNodes: 5}}
	c, err := engine().InspectPage(context.Background(), req)
	is.NoErr(err)
	is.True(!f.Received("Accessibility.getFullAXTree"))
	partial := 0
	for _, m := range f.Methods() {
		if m == "Accessibility.getPartialAXTree" {
			partial++
		}
	}
	is.Equal(partial, 6) // five kept, one with no accessibility object
	is.Equal(len(c.Accessibility.Nodes), 5)
	is.Equal(c.Accessibility.Nodes[0].NodeID, "100")
	is.Equal(c.Accessibility.Nodes[2].NodeID, "103")
	is.Equal(c.Accessibility.Nodes[0].FrameID, "F1")
	is.Equal(c.Accessibility.Nodes[0].Role, "generic")
	is.True(slices.Contains(c.Completeness.Truncated, "accessibility"))
	is.True(slices.Contains(c.Limitations, "The accessibility tree of frame F1 was read node by node, for the first 6 of its document's 50 DOM nodes (max_ax_nodes 5); the other 44 were not read: Chromium returns a frame's whole tree in one reply, whatever its depth."))
}

// An uncaught exception is what an agent inspecting a failing page looks
// for first: it is a console event of type "exception" at the throwing
// frame, with the error's first description line as its text (opted in),
// never the stack; a thrown primitive keeps its value; one out of scope is
// excluded like any console event.
func TestInspectKeepsUncaughtExceptions(t *testing.T) {
	is := is.New(t)
	now := float64(time.Now().UnixMilli()) + 1000
	thrown := func(url string, ex map[string]any, stack bool) cdptest.Event {
		d := map[string]any{"exceptionId": 1, "text": "Uncaught", "lineNumber": 4, "columnNumber": 9, "url": url, "exception": ex}
		if stack {
			d["stackTrace"] = map[string]any{"callFrames": []any{map[string]any{"functionName": "f", "scriptId": "1", "url": url, "lineNumber": 2, "columnNumber": 5}}}
		}
		return cdptest.Event{Method: "Runtime.exceptionThrown", Params: map[string]any{"timestamp": now, "exceptionDetails": d}}
	}
	f := cdptest.New(&cdptest.Options{After: map[string][]cdptest.Event{"Network.enable": {
		thrown("http://app.test/app.js", map[string]any{"type": "object", "subtype": "error", "className": "TypeError",
			"description": "TypeError: Cannot read properties of null (reading 'x')\n    at f (http://app.test/app.js:3:6)"}, true),
		thrown("http://app.test/app.js", map[string]any{"type": "string", "value": "plain"}, false),
		thrown("http://cdn.example/lib.js", map[string]any{"type": "object", "subtype": "error", "description": "Error: third"}, true),
	}}})
	defer f.Close()
	c, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	var got []ports.BrowserConsoleEvent
	for _, e := range c.Console {
		if e.Type == "exception" {
			got = append(got, e)
		}
	}
	is.Equal(len(got), 2)
	is.Equal(got[0].URL, "http://app.test/app.js")
	is.Equal([]int{got[0].Line, got[0].Column}, []int{3, 5}) // the top frame, 1-based line
	is.Equal(got[0].ArgumentTypes, []string{"error"})
	is.Equal(got[0].Values, []ports.BrowserConsoleValue{{ArgumentIndex: 0, Type: "error", Text: "TypeError: Cannot read properties of null (reading 'x')"}})
	is.Equal([]int{got[1].Line, got[1].Column}, []int{5, 9}) // no stack: the details' location
	is.Equal(got[1].Values, []ports.BrowserConsoleValue{{ArgumentIndex: 0, Type: "string", Text: "plain"}})
	excluded := 0
	for _, x := range c.Completeness.Excluded {
		if x.Section == "console_events" && x.Reason == "disallowed_origin" {
			excluded = x.Count
		}
	}
	is.Equal(excluded, 2) // the fake's third-party log and the third-party exception
}

// TestObserveCarriesTheDocumentStatus: a navigation to a 404 or 500 page
// commits like any other, so before, the timeline could not tell an error
// page from a good one. The commit now carries the main document
// response's status, whichever of the two events Chromium sends first,
// and a subresource's or another frame's response never lands on it.
func TestObserveCarriesTheDocumentStatus(t *testing.T) {
	resp := func(loader, frame, typ string, status int) cdptest.Event {
		return cdptest.Event{Method: "Network.responseReceived", Params: map[string]any{"requestId": loader, "loaderId": loader, "frameId": frame,
			"type": typ, "timestamp": 1, "response": map[string]any{"url": "http://app.test/missing", "status": status, "mimeType": "text/html", "headers": map[string]any{}}}}
	}
	commit := func(loader string) cdptest.Event {
		return cdptest.Event{Method: "Page.frameNavigated", Params: map[string]any{"frame": map[string]any{"id": "F1", "loaderId": loader, "url": "http://app.test/missing"}, "type": "Navigation"}}
	}
	for _, c := range []struct {
		name   string
		events []cdptest.Event
		want   []int // statuses of the commits, 0 for null
	}{
		{"response then commit", []cdptest.Event{resp("L3", "F1", "Document", 404), commit("L3")}, []int{404}},
		{"commit then response", []cdptest.Event{commit("L4"), resp("L4", "F1", "Document", 500)}, []int{500}},
		{"not the document", []cdptest.Event{resp("L5", "F1", "Script", 404), resp("L5", "F9", "Document", 404), commit("L5")}, []int{0}},
		{"each commit its own", []cdptest.Event{resp("L6", "F1", "Document", 200), commit("L6"), commit("L7"), resp("L6", "F1", "Document", 503)}, []int{200, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := cdptest.New(&cdptest.Options{After: map[string][]cdptest.Event{"Page.setLifecycleEventsEnabled": c.events}})
			defer f.Close()
			tl, err := engine().ObserveSession(context.Background(), ports.BrowserObserveRequest{Target: ref(f), ObservationMS: 150})
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, ev := range tl.Timeline {
				if ev.Type != "navigation_committed" {
					continue
				}
				got = append(got, 0)
				if ev.HTTPStatus != nil {
					got[len(got)-1] = *ev.HTTPStatus
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("commit statuses %v, want %v", got, c.want)
			}
		})
	}
}

// TestEndpointWithAPathNamesTheOrigin: agents paste the discovery URL
// (http://127.0.0.1:9341/json, /json/version) or the browser socket's
// path. Before, the refusal said only "the endpoint must have no path";
// like the localhost refusal, it now names the origin to pass.
func TestEndpointWithAPathNamesTheOrigin(t *testing.T) {
	for _, c := range []struct{ endpoint, want string }{
		{"http://127.0.0.1:9341/json", "the endpoint must have no path: pass http://127.0.0.1:9341"},
		{"http://[::1]:9222/json/version", "the endpoint must have no path: pass http://[::1]:9222"},
		{"http://127.0.0.1:9222/devtools/browser/abc", "the endpoint must have no path: pass http://127.0.0.1:9222"},
		{"http://localhost:9341/json", "the endpoint must have no path: pass http://127.0.0.1:9341"},
		{"http://127.0.0.1/json", "the endpoint must have no path: pass http://127.0.0.1:PORT"},
	} {
		_, err := engine().ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: c.endpoint})
		be, ok := ports.AsBrowserError(err)
		if !ok || be.Code != ports.BrowserInvalidRequest || be.Field != "cdp_endpoint" || be.Msg != c.want {
			t.Errorf("%s: got %v, want invalid_request on cdp_endpoint: %s", c.endpoint, err, c.want)
		}
	}
}

// TestObserveRedirectCarriesItsStatus: a redirect entry said where the hop
// went but not how (301 moved, 302 found, 307 kept the method...), though
// Chromium reports the hop's response with it. The entry now carries that
// status; a hop out of the scope shows neither its URL nor its status.
func TestObserveRedirectCarriesItsStatus(t *testing.T) {
	hop := func(id, to string, status int) cdptest.Event {
		return cdptest.Event{Method: "Network.requestWillBeSent", Params: map[string]any{"requestId": id, "loaderId": id, "frameId": "F1", "type": "Document",
			"request":          map[string]any{"url": to, "method": "GET", "headers": map[string]any{}},
			"redirectResponse": map[string]any{"url": "http://app.test/old", "status": status, "mimeType": "text/html", "headers": map[string]any{}}}}
	}
	f := cdptest.New(&cdptest.Options{After: map[string][]cdptest.Event{"Page.setLifecycleEventsEnabled": {
		hop("L1", "http://app.test/moved", 301), hop("L1", "http://app.test/kept", 307), hop("L1", "http://elsewhere.test/", 302)}}})
	defer f.Close()
	tl, err := engine().ObserveSession(context.Background(), ports.BrowserObserveRequest{Target: ref(f), ObservationMS: 150})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range tl.Timeline {
		if ev.Type != "redirect" {
			continue
		}
		s := "null"
		if ev.HTTPStatus != nil {
			s = strconv.Itoa(*ev.HTTPStatus)
		}
		got = append(got, s)
	}
	if want := []string{"301", "307", "null"}; !slices.Equal(got, want) {
		t.Errorf("redirect statuses %v, want %v", got, want)
	}
}

// TestObserveSaysWhenDocumentStatusesWereNotKept: the statuses waiting for
// their commit are bounded (64); before, one past the bound was dropped
// without a word, and its commit's null http_status read as "no response
// observed". The timeline now says how many were not kept.
func TestObserveSaysWhenDocumentStatusesWereNotKept(t *testing.T) {
	var events []cdptest.Event
	for i := range 70 {
		id := "L" + strconv.Itoa(i)
		events = append(events, cdptest.Event{Method: "Network.responseReceived", Params: map[string]any{"requestId": id, "loaderId": id, "frameId": "F1",
			"type": "Document", "timestamp": 1, "response": map[string]any{"url": "http://app.test/", "status": 200, "mimeType": "text/html", "headers": map[string]any{}}}})
	}
	f := cdptest.New(&cdptest.Options{After: map[string][]cdptest.Event{"Page.setLifecycleEventsEnabled": events}})
	defer f.Close()
	tl, err := engine().ObserveSession(context.Background(), ports.BrowserObserveRequest{Target: ref(f), ObservationMS: 150})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tl.Limitations, func(l string) bool { return strings.HasPrefix(l, "6 main-document response status(es) were not kept") }) {
		t.Errorf("no limitation names the 6 statuses not kept: %q", tl.Limitations)
	}
}

// TestRemoteEndpointNamesEveryProblemAtOnce: an endpoint on another host
// was refused one problem at a time (the query, then the scheme, then the
// path, then the host), so an agent needed up to five calls to learn it
// must forward the port and pass a loopback origin. Every problem now
// comes in one message, with the origin to pass.
func TestRemoteEndpointNamesEveryProblemAtOnce(t *testing.T) {
	for _, c := range []struct{ endpoint, want string }{
		{"https://user@example.test:9341/json?x=1", "the endpoint must have no query, fragment, backslash or space; must be an http: URL; " +
			"must not carry userinfo; must have no path; must be on host 127.0.0.1 or [::1], not example.test: pass http://127.0.0.1:9341 " +
			"(a browser on another machine: forward its debugging port to this one first, e.g. ssh -L 9341:127.0.0.1:9341)"},
		{"http://example.test:9341/json", "the endpoint must have no path; must be on host 127.0.0.1 or [::1], not example.test: pass http://127.0.0.1:9341 " +
			"(a browser on another machine: forward its debugging port to this one first, e.g. ssh -L 9341:127.0.0.1:9341)"},
		{"http://192.168.1.5", "the endpoint needs an explicit port 1..65535; must be on host 127.0.0.1 or [::1], not 192.168.1.5: pass http://127.0.0.1:PORT " +
			"(a browser on another machine: forward its debugging port to this one first, e.g. ssh -L PORT:127.0.0.1:PORT)"},
	} {
		_, err := engine().ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: c.endpoint})
		be, ok := ports.AsBrowserError(err)
		if !ok || be.Code != ports.BrowserInvalidRequest || be.Field != "cdp_endpoint" || be.Msg != c.want {
			t.Errorf("%s: got %v, want invalid_request on cdp_endpoint: %s", c.endpoint, err, c.want)
		}
	}
}
