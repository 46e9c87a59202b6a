package browser_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

var (
	catOnce sync.Once
	cat     *core.Catalog
	catErr  error
)

func catalog(t *testing.T) *core.Catalog {
	t.Helper()
	catOnce.Do(func() {
		if cat, catErr = standard.Catalog(); catErr == nil {
			cat.SetCheckOutputs(true)
		}
	})
	if catErr != nil {
		t.Fatal(catErr)
	}
	return cat
}

// session wires b (and a scenario runner, when given) into a fresh session.
func session(t *testing.T, b ports.BrowserObserver, run ports.BrowserScenarioRunner) *core.Session {
	t.Helper()
	opts := &core.RegistryOptions{JavaScript: portstest.FakeJS{}, Scenarios: run}
	if b != nil {
		opts.Browser = b
	}
	reg, err := core.NewRegistry(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return core.NewSession(catalog(t), reg, nil)
}

func call(t *testing.T, s *core.Session, name string, args any) (map[string]any, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(context.Background(), name, raw, nil)
	if err != nil {
		return nil, err
	}
	b, err := res.StructuredJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m, nil
}

func mustCall(t *testing.T, s *core.Session, name string, args any) map[string]any {
	t.Helper()
	m, err := call(t, s, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func result(m map[string]any) map[string]any { return m["normalized_result"].(map[string]any) }

const ep = "http://127.0.0.1:9222"

func richFake() *portstest.BrowserFake {
	f := portstest.NewBrowserFake()
	status := 200
	mime := "application/json"
	size := 42.0
	f.Capture = &ports.BrowserPageCapture{
		Frames:    []ports.BrowserFrame{{FrameID: "F1", URL: "http://app.test/", Origin: "http://app.test"}},
		DOM:       ports.BrowserDOM{TotalNodes: 2, Nodes: []ports.BrowserDOMNode{{Index: 0, ParentIndex: -1, NodeType: 9, NodeName: "#document"}, {Index: 1, ParentIndex: 0, NodeType: 1, NodeName: "HTML", AttributeNames: []string{"lang"}}}, LinkRels: []string{"mcp"}},
		Resources: []ports.BrowserResource{{FrameID: "F1", URL: "http://app.test/app.js", Origin: "http://app.test", Type: "Script", MimeType: "text/javascript", ContentSize: &size}},
		Scripts: []ports.BrowserScript{{ScriptID: "1", FrameID: "F1", URL: "http://app.test/app.js", Origin: "http://app.test", CDPHash: "abc", Length: 60, IsModule: true, Language: "JavaScript",
			Source: []byte(`import "./dep.js"; fetch("/api/items"); const routes = [{path: "/home"}]; navigator.modelContext.registerTool({name: "search"});`)}},
		ScriptsTotal: 1,
		Network: ports.BrowserNetwork{Requests: []ports.BrowserRequest{{RequestID: "R1", URL: "http://app.test/api", Origin: "http://app.test", Method: "POST", Status: &status, MimeType: &mime,
			RequestBody: []byte(`{"a":[1,{"b":null}]}`), RequestBodyStatus: "included", ResponseBodyStatus: "unavailable"}}},
		Metadata: ports.BrowserMetadata{Responses: []ports.BrowserResponseMetadata{{RequestID: "R0", URL: "http://app.test/", MimeType: "text/html",
			Headers: map[string]string{"content-length": "12", "content-security-policy": "script-src 'self' 'nonce-x' https://cdn.example; object-src 'none'", "link": `</mcp.json>; rel="mcp"`, "x-content-type-options": "nosniff"}}}},
		Storage:      ports.BrowserStorage{Origin: "http://app.test", LocalStorageKeys: []string{"k"}, Fingerprints: []ports.BrowserStorageFingerprint{{Scope: "local_storage", Identity: map[string]string{"key": "k"}, ValueSHA256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Complete: true}}},
		Completeness: ports.BrowserCompleteness{Excluded: []ports.BrowserExclusion{{Section: "script_sources", Reason: "not_approved", Count: 1}}},
	}
	return f
}

func TestPassiveToolsOverTheFake(t *testing.T) {
	is := is.New(t)
	f := richFake()
	s := session(t, f, nil)

	l := result(mustCall(t, s, "list_browser_targets", map[string]any{"cdp_endpoint": ep}))
	is.Equal(len(l["targets"].([]any)), 1)

	ev := mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_json_body_shapes": true})
	is.Equal(ev["predicate_type"], "rea.web-page-inspection/v2")
	is.Equal(ev["authority"], "external-service")
	is.Equal(ev["provider"].(map[string]any)["id"], "fake-browser")
	is.Equal(ev["environment"].(map[string]any)["id"], "FakeChrome/1.0@fake")
	insp := result(ev)
	comp := insp["completeness"].(map[string]any)
	is.Equal(comp["status"], "policy_filtered")
	is.Equal(comp["conditions"], []any{"attach_limited", "policy_filtered"})
	scripts := insp["scripts"].(map[string]any)["items"].([]any)
	sc := scripts[0].(map[string]any)
	is.Equal(sc["resource_reconciliation"].(map[string]any)["status"], "exact")
	is.Equal(sc["source"].(map[string]any)["included"], true)
	req := insp["network"].(map[string]any)["requests"].([]any)[0].(map[string]any)
	shapes := req["body_shapes"].(map[string]any)
	is.Equal(shapes["status"], "partial")
	props := shapes["request"].(map[string]any)["properties"].([]any)
	is.Equal(len(props), 3) // /a, /a/*, /a/*/b
	md := insp["metadata"].(map[string]any)
	resp := md["responses"].([]any)[0].(map[string]any)
	csp := resp["csp"].(map[string]any)
	is.Equal(csp["nonce_count"], 1.0)
	is.Equal(resp["content_length"], 12.0)
	is.Equal(len(md["agent_hints"].([]any)), 2) // link_rel and dom_link_rel

	// A second capture compares: compare_web_captures accepts what
	// inspect_web_page produced.
	ev2 := mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_json_body_shapes": true})
	diff := result(mustCall(t, s, "compare_web_captures", map[string]any{
		"before": map[string]any{"inspection": insp}, "after": map[string]any{"inspection": result(ev2)}}))
	is.True(diff["overall_status"] != "changed")

	f.Tools = []ports.WebMCPTool{{Name: "search", FrameID: "F1", FrameURL: "http://app.test/", OwnerOrigin: "http://app.test", InputSchema: []byte(`{"type":"object"}`)}}
	w := result(mustCall(t, s, "discover_webmcp_tools", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	is.Equal(w["status"], "available")
	tools := w["tools"].(map[string]any)["items"].([]any)
	is.Equal(len(tools), 1)
	is.True(tools[0].(map[string]any)["input_schema_sha256"] != nil)
	diff = result(mustCall(t, s, "compare_web_captures", map[string]any{
		"before": map[string]any{"inspection": insp, "webmcp": w}, "after": map[string]any{"inspection": result(ev2), "webmcp": w}}))
	is.Equal(diff["dimensions"].(map[string]any)["webmcp"].(map[string]any)["status"], "unchanged")

	o := result(mustCall(t, s, "observe_web_session", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "observation_ms": 10}))
	is.Equal(o["window"].(map[string]any)["end_reason"], "window_elapsed")

	shot := result(mustCall(t, s, "capture_web_screenshot", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	art := shot["artifact"].(map[string]any)
	is.Equal(shot["viewport"], map[string]any{"width": 1.0, "height": 1.0})
	cmp := result(mustCall(t, s, "compare_web_screenshots", map[string]any{"before": art, "after": art}))
	is.Equal(cmp["status"], "identical")

	b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	obs := b["observations"].(map[string]any)
	is.Equal(b["capture"].(map[string]any)["scripts_analyzed"], 1.0)
	is.True(len(obs["chunks"].(map[string]any)["edges"].([]any)) >= 1)
	is.Equal(obs["source_maps"].(map[string]any)["status"], "not_requested")
}

func TestBundleFindsRoutesEndpointsAndDeclarationsWithTheRealShape(t *testing.T) {
	// The fake JS engine scans imports only; calls need a richer engine.
	is := is.New(t)
	f := richFake()
	reg, _ := core.NewRegistry(nil, &core.RegistryOptions{Browser: f, JavaScript: callsJS{}})
	s := core.NewSession(catalog(t), reg, nil)
	b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	obs := b["observations"].(map[string]any)
	is.Equal(len(obs["endpoints"].([]any)), 2)
	is.Equal(obs["endpoints"].([]any)[0].(map[string]any)["value"], "/api/items")
	is.Equal(obs["endpoints"].([]any)[1].(map[string]any)["value"], "${}/orders")
	is.Equal(len(obs["routes"].([]any)), 1)
	is.Equal(obs["routes"].([]any)[0].(map[string]any)["detector"], "data:property:routes")
	d := obs["webmcp_declarations"].([]any)[0].(map[string]any)
	is.Equal(d["name"], "search")
	is.Equal(d["schema_property_names"], []any{"q"})
}

// A finding whose call has no literal first argument (fetch("/x?" + n),
// api.get(url)) is placed at its call, as V8 places it (the callee's name),
// found from its template's first literal or from the member name, not at
// line 0.
func TestBundleFindingsWithoutALiteralArgumentAreLocated(t *testing.T) {
	is := is.New(t)
	f := richFake()
	src := "let n = 1;\r\nfunction go() {\r\n  fetch(\"/x?\" + n);\r\n  api.get(`${base}/v1`);\r\n}\r\n"
	f.Capture.Scripts[0].Source = []byte(src)
	reg, _ := core.NewRegistry(nil, &core.RegistryOptions{Browser: f, JavaScript: siteJS{src}})
	s := core.NewSession(catalog(t), reg, nil)
	b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	obs := b["observations"].(map[string]any)
	loc := obs["endpoints"].([]any)[0].(map[string]any)["location"].(map[string]any)
	is.Equal([]any{loc["line"], loc["column"]}, []any{3.0, 2.0}) // fetch
	loc = obs["endpoints"].([]any)[1].(map[string]any)["location"].(map[string]any)
	is.Equal([]any{loc["line"], loc["column"]}, []any{4.0, 6.0}) // get
}

// siteJS reports the two calls of its source as the engine does: neither
// has a literal first argument (Offset -1); the first template has a
// literal, whose offset it carries, the second none, and the member
// callee's name carries its offset. Each call's Position is where V8 places
// it, the callee's name.
type siteJS struct{ src string }

func (siteJS) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "site-js", Name: "site", Version: "1"}
}
func (e siteJS) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	at := func(s string) int64 { return int64(strings.Index(e.src, s)) }
	return &ports.JSFacts{Parsed: true, Calls: []ports.JSCall{
		{Callee: "fetch", Offset: -1, CalleeOffset: -1, Position: int32(at("fetch(")), Args: []ports.JSValue{{Kind: ports.JSValTemplate, Value: "/x?${}", Offset: at(`"/x?"`),
			Parts: []ports.JSValue{{Kind: ports.JSValName, Value: "n"}}}}},
		{Callee: "api.get", Offset: -1, CalleeOffset: int32(at("get(")), Position: int32(at("get(")), Args: []ports.JSValue{{Kind: ports.JSValTemplate, Value: "${}/v1", Offset: -1,
			Parts: []ports.JSValue{{Kind: ports.JSValName, Value: "base"}}}}},
	}}, nil
}

// callsJS reports fixed calls, standing in for the tdewolff engine.
type callsJS struct{}

func (callsJS) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "calls-js", Name: "calls", Version: "1"}
}
func (callsJS) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	str := func(s string) ports.JSValue { return ports.JSValue{Kind: ports.JSValString, Value: s} }
	return &ports.JSFacts{Parsed: true, Calls: []ports.JSCall{
		{Callee: "fetch", Offset: 19, Position: -1, Args: []ports.JSValue{str("/api/items")}},
		// A URL built from a computed base is the endpoint
		// analyze_javascript_application reports too.
		{Callee: "fetch", Offset: 40, Position: -1, Args: []ports.JSValue{{Kind: ports.JSValTemplate, Value: "${}/orders", Parts: []ports.JSValue{{Kind: ports.JSValName, Value: "base"}}}}},
		{Callee: "fetch", Offset: 60, Position: -1, Args: []ports.JSValue{{Kind: ports.JSValName, Value: "url"}}}, // computed: none
		// A path in an argument is not a route by itself: route tables
		// come from the engine as Routes.
		{Callee: "define", Position: -1, Args: []ports.JSValue{{Kind: ports.JSValArray, Items: []ports.JSValue{{Kind: ports.JSValObject, Props: []ports.JSProp{{Key: "path", Value: str("/etc/hosts")}}}}}}},
		{Callee: "navigator.modelContext.registerTool", Position: -1, Args: []ports.JSValue{{Kind: ports.JSValObject, Props: []ports.JSProp{
			{Key: "name", Value: str("search")},
			{Key: "inputSchema", Value: ports.JSValue{Kind: ports.JSValObject, Props: []ports.JSProp{{Key: "properties", Value: ports.JSValue{Kind: ports.JSValObject, Props: []ports.JSProp{{Key: "q", Value: ports.JSValue{Kind: ports.JSValObject}}}}}}}}}}}},
	}, Routes: []ports.JSRoute{{Path: "/home", Offset: 10, Parent: -1, Via: "property:routes"}}}, nil
}

func TestEngineErrorsMapToCodes(t *testing.T) {
	cases := []struct {
		code ports.BrowserErrorCode
		want core.Code
	}{
		{ports.BrowserEndpointUnreachable, core.CodeProviderUnavailable},
		{ports.BrowserInvalidEndpointResponse, core.CodeUnreadableOutput},
		{ports.BrowserTargetNotFound, core.CodeTargetUnavailable},
		{ports.BrowserTargetNotAllowed, core.CodeTargetUnavailable},
		{ports.BrowserTargetChanged, core.CodeTargetUnavailable},
		{ports.BrowserProtocolError, core.CodeUnreadableOutput},
		{ports.BrowserDisconnected, core.CodeProviderUnavailable},
		{ports.BrowserPayloadLimit, core.CodeTruncated},
		{ports.BrowserProcessOwnership, core.CodeUnreadableOutput},
		{ports.BrowserCleanupFailed, core.CodeCleanupIncomplete},
		{ports.BrowserCancelled, core.CodeCancelled},
		{ports.BrowserTimeout, core.CodeProviderTimeout},
		{ports.BrowserSecretUnavailable, core.CodeUnreadableOutput},
		{ports.BrowserInvalidRequest, core.CodeInvalidRequest},
	}
	tools := map[string]map[string]any{
		"list_browser_targets":   {"cdp_endpoint": ep},
		"inspect_web_page":       {"cdp_endpoint": ep, "target_id": "T1"},
		"observe_web_session":    {"cdp_endpoint": ep, "target_id": "T1"},
		"discover_webmcp_tools":  {"cdp_endpoint": ep, "target_id": "T1"},
		"analyze_web_bundle":     {"cdp_endpoint": ep, "target_id": "T1"},
		"capture_web_screenshot": {"cdp_endpoint": ep, "target_id": "T1"},
	}
	for _, c := range cases {
		for name, args := range tools {
			f := portstest.NewBrowserFake()
			f.Err = &ports.BrowserError{Code: c.code, Msg: "injected"}
			_, err := call(t, session(t, f, nil), name, args)
			var e *core.Error
			if !errors.As(err, &e) || e.Code != c.want {
				t.Fatalf("%s with %s: got %v, want %s", name, c.code, err, c.want)
			}
			if c.want != core.CodeInvalidRequest && e.Details["reason"] != string(c.code) && c.code != ports.BrowserCancelled {
				t.Fatalf("%s with %s: details %v", name, c.code, e.Details)
			}
			// The advice is about browsers, not the kernel's default about
			// binary targets and analysis providers.
			advice := map[core.Code]string{core.CodeTargetUnavailable: "list_browser_targets", core.CodeProviderUnavailable: "--remote-debugging-port",
				core.CodeProviderTimeout: "to the front"}
			if want, ok := advice[c.want]; ok && !strings.Contains(e.Envelope().Error.Remediation.Action, want) {
				t.Fatalf("%s with %s: remediation %q does not name %s", name, c.code, e.Envelope().Error.Remediation.Action, want)
			}
			// A target that exists but is out of scope, or an endpoint that
			// is not Chromium's, says what to pass instead.
			byReason := map[ports.BrowserErrorCode]string{ports.BrowserTargetNotAllowed: "allowed_origins that includes its origin",
				ports.BrowserInvalidEndpointResponse: "not the page's own server"}
			if want, ok := byReason[c.code]; ok && !strings.Contains(e.Envelope().Error.Remediation.Action, want) {
				t.Fatalf("%s with %s: remediation %q does not say %q", name, c.code, e.Envelope().Error.Remediation.Action, want)
			}
		}
	}
}

func TestNoEngineIsCapabilityUnavailable(t *testing.T) {
	is := is.New(t)
	s := session(t, nil, nil)
	_, err := call(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"})
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeCapabilityUnavailable)
	_, err = call(t, s, "capture_browser_scenario", map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": "http://127.0.0.1:1/"},
		"actions": []any{map[string]any{"step_id": "w", "action": "wait_for_timeout", "duration_ms": 1}}})
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeCapabilityUnavailable)
	// compare_web_screenshots needs no engine.
	_, err = call(t, s, "compare_web_screenshots", map[string]any{"before": map[string]any{"data_base64": base64.StdEncoding.EncodeToString(portstest.FakePNG)},
		"after": map[string]any{"data_base64": base64.StdEncoding.EncodeToString(portstest.FakePNG)}})
	is.NoErr(err)
}

func TestInvalidEndpointIsInvalidRequest(t *testing.T) {
	is := is.New(t)
	s := session(t, portstest.NewBrowserFake(), nil)
	for _, bad := range []string{"http://localhost:9222", "http://10.0.0.1:9222", "http://u:p@127.0.0.1:9222", "http://127.0.0.1:9222/json"} {
		_, err := call(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": bad, "target_id": "T1"})
		var e *core.Error
		is.True(errors.As(err, &e))
		is.Equal(e.Code, core.CodeInvalidRequest)
	}
	_, err := call(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_storage_fingerprints": true})
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeInvalidRequest)
}

func TestCancelledCaptureIsCancelledAndNotRecorded(t *testing.T) {
	is := is.New(t)
	s := session(t, portstest.NewBrowserFake(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Call(ctx, "inspect_web_page", json.RawMessage(`{"cdp_endpoint":"`+ep+`","target_id":"T1"}`), nil)
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeCancelled)
}

// pngOf encodes an RGBA image as an unfiltered-or-Sub PNG.
func pngOf(w, h int, pix []byte, filter byte) []byte {
	var raw bytes.Buffer
	for y := 0; y < h; y++ {
		raw.WriteByte(filter)
		row := pix[y*w*4 : (y+1)*w*4]
		for i := range row {
			v := row[i]
			if filter == 1 && i >= 4 {
				v -= row[i-4]
			}
			raw.WriteByte(v)
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		out.WriteString(typ)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 6
	chunk("IHDR", ihdr)
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

func TestCompareScreenshotsFindsRegions(t *testing.T) {
	is := is.New(t)
	s := session(t, nil, nil)
	w, h := 40, 30
	a := bytes.Repeat([]byte{255, 255, 255, 255}, w*h)
	b := bytes.Clone(a)
	for y := 2; y < 6; y++ {
		for x := 30; x < 35; x++ {
			copy(b[(y*w+x)*4:], []byte{0, 0, 0, 255})
		}
	}
	enc := func(p []byte, f byte) map[string]any {
		return map[string]any{"data_base64": base64.StdEncoding.EncodeToString(pngOf(w, h, p, f))}
	}
	r := result(mustCall(t, s, "compare_web_screenshots", map[string]any{"before": enc(a, 0), "after": enc(a, 1)}))
	is.Equal(r["status"], "identical") // filters differ, pixels do not
	r = result(mustCall(t, s, "compare_web_screenshots", map[string]any{"before": enc(a, 0), "after": enc(b, 1)}))
	is.Equal(r["status"], "different")
	is.Equal(r["changed_pixels"], 20.0)
	is.Equal(r["maximum_channel_delta"], 255.0)
	regions := r["regions"].([]any)
	is.Equal(len(regions), 1)
	is.Equal(regions[0].(map[string]any)["x"], 24.0)
	is.Equal(regions[0].(map[string]any)["changed_pixels"], 20.0)
	r = result(mustCall(t, s, "compare_web_screenshots", map[string]any{"before": enc(a, 0), "after": map[string]any{"data_base64": base64.StdEncoding.EncodeToString(pngOf(w, h-1, a[:w*(h-1)*4], 0))}}))
	is.Equal(r["status"], "dimension_mismatch")

	// Malformed, unsupported and over-limit inputs are typed.
	var e *core.Error
	_, err := call(t, s, "compare_web_screenshots", map[string]any{"before": map[string]any{"data_base64": "bm90IGEgcG5n"}, "after": enc(a, 0)})
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeInvalidRequest)
	_, err = call(t, s, "compare_web_screenshots", map[string]any{"before": enc(a, 0), "after": enc(a, 0), "maximum_pixels": 10})
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeResourceConstraint)
	gray := pngOf(w, h, a, 0)
	gray[8+8+9] = 0 // colour type 0
	_, err = call(t, s, "compare_web_screenshots", map[string]any{"before": map[string]any{"data_base64": base64.StdEncoding.EncodeToString(gray)}, "after": enc(a, 0)})
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeUnsupportedTarget)
	_, err = call(t, s, "compare_web_screenshots", map[string]any{"before": map[string]any{"data_base64": enc(a, 0)["data_base64"], "sha256": "00000000000000000000000000000000000000000000000000000000000000ff"}, "after": enc(a, 0)})
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeInvalidRequest)
}

// fakeRunner is a scenario runner that returns a fixed capture.
type fakeRunner struct {
	got     ports.BrowserScenarioRequest
	extra   []ports.BrowserScenarioEvent  // appended to the fixed events
	storage *ports.BrowserScenarioStorage // the last step's storage artifact
	// dom, when set, is the last step's DOM artifact, cut by the engine
	// from a document of domBytes bytes.
	dom      []byte
	domBytes int
	// ax, when set, is the last step's accessibility artifact, read only
	// in part (node by node) by the engine.
	ax []byte
}

func (r *fakeRunner) RunScenario(ctx context.Context, req ports.BrowserScenarioRequest) (*ports.BrowserScenarioCapture, error) {
	run := r // the loop below names each step's result r
	if err := ctx.Err(); err != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserCancelled, Err: err}
	}
	r.got = req
	u := "http://app.test/next"
	out := &ports.BrowserScenarioCapture{Browser: ports.BrowserScenarioBrowser{Mode: "launch", ProcessOwnership: "provider-owned", Cleanup: "terminated-owned-process", Product: "Chrome/148", Version: "537.36"},
		StartOrigin: "http://app.test", AllowedOrigins: []string{"http://app.test"}, DurationMS: 12,
		Events: []ports.BrowserScenarioEvent{{Sequence: 0, StepIndex: 0, Kind: "request", Method: "GET", URL: "http://app.test/", ResourceType: "Document"},
			{Sequence: 1, StepIndex: 0, Kind: "response", Method: "GET", URL: "http://app.test/", ResourceType: "Document", Status: 200, HeaderNames: []string{"content-type", "date"}},
			{Sequence: 2, StepIndex: 1, Kind: "console", Level: "log", Text: "hi [REDACTED:pw]"},
			{Sequence: 3, StepIndex: 1, Kind: "page-error", Text: "x is not a function", Stack: "TypeError: x is not a function\n    at http://app.test/a.js:1:2"}}}
	for _, ev := range r.extra {
		ev.Sequence = len(out.Events)
		out.Events = append(out.Events, ev)
	}
	steps := append([]ports.BrowserScenarioStep{{StepID: "scenario_start", Action: "goto_start"}}, req.Steps...)
	for i, s := range steps {
		r := ports.BrowserScenarioStepResult{StepIndex: i, StepID: s.StepID, Action: s.Action, Status: "completed", BeforeURL: "http://app.test/", AfterURL: u, EventSequenceStart: -1, EventSequenceEnd: -1}
		r.Artifacts.URL = &u
		if i == len(steps)-1 {
			r.Artifacts.Screenshot = portstest.FakePNG
			r.Artifacts.DOM = []byte("<html></html>")
			r.Artifacts.Storage = run.storage
			if run.dom != nil {
				r.Artifacts.DOM, r.Artifacts.DOMBytes = run.dom, run.domBytes
				r.Artifacts.Truncated = []string{"dom"}
			}
			if run.ax != nil {
				r.Artifacts.Accessibility = run.ax
				r.Artifacts.Truncated = append(r.Artifacts.Truncated, "accessibility")
			}
		}
		out.Steps = append(out.Steps, r)
	}
	return out, nil
}

func TestScenarioCapturesCompare(t *testing.T) {
	is := is.New(t)
	run := &fakeRunner{}
	s := session(t, nil, run)
	args := map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": "http://app.test/", "query": []any{map[string]any{"name": "a", "value": "1"}}},
		"actions": []any{
			map[string]any{"step_id": "login", "action": "fill", "locator": map[string]any{"css": map[string]any{"selector": "#pw"}}, "value": map[string]any{"source": "secret", "secret_id": "pw"}},
			map[string]any{"step_id": "go", "action": "click", "locator": map[string]any{"css": map[string]any{"selector": "a"}}},
		},
		"secrets": []any{map[string]any{"secret_id": "pw", "environment_variable": "APP_PW"}},
		"capture": map[string]any{"after_each_step": []any{"url"}, "at_end": []any{"screenshot", "dom"}}}
	ev := mustCall(t, s, "capture_browser_scenario", args)
	is.Equal(ev["authority"], "controlled-replay")
	is.Equal(ev["environment"].(map[string]any)["isolation"], "process")
	is.Equal(run.got.StartURL, "http://app.test/?a=1")
	is.Equal(run.got.Steps[0].Action, "type")
	is.Equal(run.got.Steps[0].SecretID, "pw")
	r := result(ev)
	steps := r["steps"].([]any)
	is.Equal(len(steps), 3)
	is.Equal(steps[0].(map[string]any)["event_sequence_start"], 1.0)
	is.Equal(steps[0].(map[string]any)["event_sequence_end"], 2.0)
	is.Equal(steps[2].(map[string]any)["event_sequence_start"], 5.0)
	is.Equal(steps[2].(map[string]any)["event_sequence_end"], 4.0)
	// Steps are named by the actions the caller wrote, not the engine's.
	is.Equal(steps[0].(map[string]any)["action"], "goto_start")
	is.Equal(steps[1].(map[string]any)["action"], "fill")
	is.Equal(steps[2].(map[string]any)["action"], "click")
	items := r["events"].(map[string]any)["items"].([]any)
	resp, perr := items[1].(map[string]any), items[3].(map[string]any)
	is.Equal(resp["method"], "GET")
	is.Equal(resp["header_names"], []any{"content-type", "date"})
	is.Equal(perr["message"], "x is not a function")
	is.Equal(perr["stack"], "TypeError: x is not a function\n    at http://app.test/a.js:1:2")
	is.Equal(r["completeness"].(map[string]any)["status"], "complete")
	ev2 := mustCall(t, s, "capture_browser_scenario", args)
	diff := result(mustCall(t, s, "compare_web_captures", map[string]any{"before_scenario": r, "after_scenario": result(ev2)}))
	is.Equal(diff["overall_status"], "unchanged")

	// Domain rules the schema cannot state.
	bad := map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": "http://app.test/"},
		"actions": []any{map[string]any{"step_id": "f", "action": "fill", "locator": map[string]any{"css": map[string]any{"selector": "#x"}}, "value": map[string]any{"source": "secret", "secret_id": "nope"}}}}
	_, err := call(t, s, "capture_browser_scenario", bad)
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeInvalidRequest)
	bad["start_url"] = map[string]any{"url": "file:///etc/passwd"}
	_, err = call(t, s, "capture_browser_scenario", bad)
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeInvalidRequest)
}

func TestProgressReachesTheCaller(t *testing.T) {
	is := is.New(t)
	s := session(t, portstest.NewBrowserFake(), nil)
	p := &progress{}
	_, err := s.Call(context.Background(), "inspect_web_page", json.RawMessage(`{"cdp_endpoint":"`+ep+`","target_id":"T1","observation_ms":5}`), &core.CallOptions{Progress: p})
	is.NoErr(err)
	p.mu.Lock()
	defer p.mu.Unlock()
	is.True(len(p.msgs) >= 2)
	_ = time.Second
}

type progress struct {
	mu   sync.Mutex
	msgs []string
}

func (p *progress) Observe(phase, msg string) {
	p.mu.Lock()
	p.msgs = append(p.msgs, phase+": "+msg)
	p.mu.Unlock()
}
func (p *progress) Finish(phase, msg string) { p.Observe(phase, msg) }

// WebSocket frames keep what the engine saw: a text frame its payload (cut
// to 64 KiB, marked truncated) and the socket's URL, a binary frame only
// its size.
func TestScenarioWebSocketFrames(t *testing.T) {
	is := is.New(t)
	const ws = "ws://app.test/live"
	long := strings.Repeat("ab", 40000)
	run := &fakeRunner{extra: []ports.BrowserScenarioEvent{
		{StepIndex: 1, Kind: "websocket-opened", URL: ws},
		{StepIndex: 1, Kind: "websocket-frame-received", URL: ws, Text: `{"tick":1}`, PayloadBytes: 10},
		{StepIndex: 1, Kind: "websocket-frame-sent", URL: ws, PayloadBinary: true, PayloadBytes: 3},
		{StepIndex: 1, Kind: "websocket-frame-received", URL: ws, Text: long, PayloadBytes: len(long)},
		{StepIndex: 1, Kind: "websocket-closed", URL: ws},
		// The engine reports a main frame on Chromium's error page (a
		// refused or failed navigation) with no URL.
		{StepIndex: 1, Kind: "frame-navigated"},
	}}
	s := session(t, nil, run)
	r := result(mustCall(t, s, "capture_browser_scenario", map[string]any{"browser": map[string]any{"mode": "launch"},
		"start_url": map[string]any{"url": "http://app.test/"},
		"actions":   []any{map[string]any{"step_id": "w", "action": "wait_for_timeout", "duration_ms": 10}}}))
	var frames []map[string]any
	for _, it := range r["events"].(map[string]any)["items"].([]any) {
		ev := it.(map[string]any)
		if k := ev["kind"].(string); strings.HasPrefix(k, "websocket-") {
			is.Equal(ev["url"].(map[string]any)["url"], ws)
			// A socket URL has an origin, as a browser's URL parser gives
			// it (null before: an agent could not tie it to its page).
			is.Equal(ev["url"].(map[string]any)["origin"], "ws://app.test")
			if strings.HasPrefix(k, "websocket-frame-") {
				frames = append(frames, ev)
			}
		}
	}
	is.Equal(len(frames), 3)
	// A frame on no in-scope URL has url null, not an empty URL with a
	// null origin.
	items := r["events"].(map[string]any)["items"].([]any)
	last := items[len(items)-1].(map[string]any)
	is.Equal(last["kind"], "frame-navigated")
	is.Equal(last["url"], nil)
	is.Equal(frames[0]["payload_type"], "text")
	is.Equal(frames[0]["payload_text"], `{"tick":1}`)
	is.Equal(frames[0]["truncated"], false)
	is.Equal(frames[1]["payload_type"], "binary")
	is.Equal(frames[1]["payload_text"], nil)
	is.Equal(frames[1]["payload_bytes"], 3.0)
	is.Equal(frames[2]["payload_type"], "text")
	is.Equal(len(frames[2]["payload_text"].(string)), 65536)
	is.Equal(frames[2]["truncated"], true)
	is.Equal(frames[2]["payload_bytes"], float64(len(long)))
}

// inspectRecorder records the inspection requests its fake answers.
type inspectRecorder struct {
	*portstest.BrowserFake
	got []ports.BrowserInspectRequest
}

func (r *inspectRecorder) InspectPage(ctx context.Context, req ports.BrowserInspectRequest) (*ports.BrowserPageCapture, error) {
	r.got = append(r.got, req)
	return r.BrowserFake.InspectPage(ctx, req)
}

// analyze_web_bundle asks the engine for the scripts alone (no DOM
// snapshot, accessibility tree or storage, which it never reports and which
// on a large page are the slow, oversized replies); inspect_web_page still
// asks for everything.
func TestBundleAsksForScriptsOnly(t *testing.T) {
	is := is.New(t)
	r := &inspectRecorder{BrowserFake: portstest.NewBrowserFake()}
	s := session(t, r, nil)
	mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_accessibility_text": true})
	mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"})
	is.Equal(len(r.got), 2)
	is.True(r.got[0].ScriptsOnly)
	is.True(r.got[0].IncludeScriptSources)
	is.True(!r.got[1].ScriptsOnly)
}

// Text cut to a byte bound keeps every whole character that fits: a cut
// that falls just after a two-byte character keeps it.
func TestScenarioTextCutKeepsWholeCharacters(t *testing.T) {
	is := is.New(t)
	text := strings.Repeat("é", 32769) // 65538 bytes; 65536 end on a character boundary
	run := &fakeRunner{extra: []ports.BrowserScenarioEvent{{StepIndex: 1, Kind: "console", Level: "log", Text: text}}}
	s := session(t, nil, run)
	r := result(mustCall(t, s, "capture_browser_scenario", map[string]any{"browser": map[string]any{"mode": "launch"},
		"start_url": map[string]any{"url": "http://app.test/"},
		"actions":   []any{map[string]any{"step_id": "w", "action": "wait_for_timeout", "duration_ms": 10}}}))
	items := r["events"].(map[string]any)["items"].([]any)
	got := items[len(items)-1].(map[string]any)["text"].(string)
	is.Equal(len(got), 65536)
	is.Equal(got, text[:65536])
}

// errRunner is a scenario runner that fails with err.
type errRunner struct{ err error }

func (r errRunner) RunScenario(context.Context, ports.BrowserScenarioRequest) (*ports.BrowserScenarioCapture, error) {
	return nil, r.err
}

// The engine's refusals and failures reach the caller in the tool's own
// terms: a goto out of scope names actions/N/destination and goto (not
// the engine's url and navigate), and a browser that cannot be started is
// advised about executable_path, not about a cdp_endpoint the tool has not.
func TestScenarioEngineErrorsInTheToolsTerms(t *testing.T) {
	is := is.New(t)
	args := map[string]any{"browser": map[string]any{"mode": "launch", "executable_path": "/opt/chrome"}, "start_url": map[string]any{"url": "http://app.test/"},
		"actions": []any{map[string]any{"step_id": "w", "action": "wait_for_timeout", "duration_ms": 1},
			map[string]any{"step_id": "away", "action": "goto", "destination": "http://elsewhere.test/"}}}
	s := session(t, nil, errRunner{&ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "actions/1/url",
		Msg: "navigate needs an http(s) URL within allowed_origins (http://app.test)"}})
	_, err := call(t, s, "capture_browser_scenario", args)
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeInvalidRequest)
	issue := e.Details["issues"].([]core.Issue)[0]
	is.Equal(issue.Path, []any{"actions", 1, "destination"})
	is.True(strings.Contains(issue.Message, "goto needs an http(s) URL within allowed_origins (http://app.test)"))
	is.True(!strings.Contains(e.Message, "navigate"))

	s = session(t, nil, errRunner{&ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "cannot start /opt/chrome: no such file or directory"}})
	_, err = call(t, s, "capture_browser_scenario", args)
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeProviderUnavailable)
	is.True(strings.Contains(e.Remediation, "executable_path"))
	is.True(!strings.Contains(e.Remediation, "cdp_endpoint"))

	// A secret the server's environment lacks is fixed outside the call:
	// the advice says where, not "correct the cause".
	s = session(t, nil, errRunner{&ports.BrowserError{Code: ports.BrowserSecretUnavailable, Msg: "secret pw: environment variable PW is not set"}})
	_, err = call(t, s, "capture_browser_scenario", args)
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeUnreadableOutput)
	is.True(strings.Contains(e.Remediation, "environment rea serve starts with"))
}

// A screenshot over maximum_image_bytes is advised to raise it, not to
// "correct the cause".
func TestScreenshotPayloadLimitAdvice(t *testing.T) {
	is := is.New(t)
	f := portstest.NewBrowserFake()
	f.Err = &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: "the screenshot is over maximum_image_bytes"}
	s := session(t, f, nil)
	_, err := call(t, s, "capture_web_screenshot", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "maximum_image_bytes": 100})
	var e *core.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, core.CodeTruncated)
	is.True(strings.Contains(e.Remediation, "maximum_image_bytes"))
}

// An empty tool list from a browser whose WebMCP domain answers says that
// it may be the browser (the feature off), not the page, so an agent does
// not read it as "the page declares no tools".
func TestWebMCPEmptyListSaysWhyItMayBe(t *testing.T) {
	is := is.New(t)
	const why = "No tool was registered: a page registers WebMCP tools only in a browser running with the WebMCP feature"
	f := portstest.NewBrowserFake()
	f.Tools = []ports.WebMCPTool{}
	r := result(mustCall(t, session(t, f, nil), "discover_webmcp_tools", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	is.Equal(r["status"], "available")
	is.True(slices.ContainsFunc(r["limitations"].([]any), func(l any) bool { return strings.HasPrefix(l.(string), why) }))

	f.Tools = []ports.WebMCPTool{{Name: "search", FrameID: "F1", FrameURL: "http://app.test/", OwnerOrigin: "http://app.test"}}
	r = result(mustCall(t, session(t, f, nil), "discover_webmcp_tools", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	is.True(!slices.ContainsFunc(r["limitations"].([]any), func(l any) bool { return strings.HasPrefix(l.(string), why) }))
}

// mapFetcher serves one source map body for every request.
type mapFetcher struct{ body string }

func (m mapFetcher) FetchSourceMap(ctx context.Context, req ports.SourceMapRequest) (*ports.SourceMapFetch, error) {
	return &ports.SourceMapFetch{URL: req.URL, Status: "included", Body: []byte(m.body)}, nil
}

// With an included source map each finding also names where the original
// source has it: an agent asking which source line sends a request got
// only the bundle's line 1 and a column before.
func TestBundleFindingsNameTheirOriginalSourcePosition(t *testing.T) {
	is := is.New(t)
	f := richFake()
	// Line 1 holds two calls from two sources; line 2 (after \r\n) one more
	// from the second; line 3 has no mapping.
	src := "fetch(\"/a\");fetch(\"/b\")\r\nfetch(\"/c\")\nfetch(\"/d\")\n"
	f.Capture.Scripts[0].Source = []byte(src)
	f.Capture.Scripts[0].SourceMapURL = "http://app.test/app.js.map"
	at := func(s string) int64 { return int64(strings.Index(src, s)) }
	str := func(s string) ports.JSValue {
		return ports.JSValue{Kind: ports.JSValString, Value: s, Offset: at(`"` + s + `"`)}
	}
	js := factsJS{&ports.JSFacts{Parsed: true, Calls: []ports.JSCall{
		{Callee: "fetch", Offset: -1, Position: int32(at(`fetch("/a"`)), Args: []ports.JSValue{str("/a")}},
		{Callee: "fetch", Offset: -1, Position: int32(at(`fetch("/b"`)), Args: []ports.JSValue{str("/b")}},
		{Callee: "fetch", Offset: -1, Position: int32(at(`fetch("/c"`)), Args: []ports.JSValue{str("/c")}},
		{Callee: "fetch", Offset: -1, Position: int32(at(`fetch("/d"`)), Args: []ports.JSValue{str("/d")}},
	}}}
	// Findings sit at their call (column 0 and 12 of line 1). AACE: column
	// 0 -> a.js line 2 column 2; YCEE: column 12 (the second fetch) -> b.js
	// line 4 column 4; ;AAAA: line 2 column 0 -> b.js line 4 column 4.
	m := mapFetcher{`{"version":3,"sources":["src/a.js","src/b.js"],"names":[],"mappings":"AACE,YCEE;AAAA"}`}
	reg, _ := core.NewRegistry(nil, &core.RegistryOptions{Browser: f, JavaScript: js, SourceMaps: m})
	s := core.NewSession(catalog(t), reg, nil)
	b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1", "fetch_source_maps": true}))
	obs := b["observations"].(map[string]any)
	is.Equal(obs["source_maps"].(map[string]any)["status"], "included")
	got := map[string]any{}
	for _, e := range obs["endpoints"].([]any) {
		e := e.(map[string]any)
		got[e["value"].(string)] = e["location"].(map[string]any)["original"]
	}
	is.Equal(got["/a"], map[string]any{"source": "src/a.js", "line": 2.0, "column": 2.0})
	is.Equal(got["/b"], map[string]any{"source": "src/b.js", "line": 4.0, "column": 4.0})
	is.Equal(got["/c"], map[string]any{"source": "src/b.js", "line": 4.0, "column": 4.0})
	is.Equal(got["/d"], nil) // line 3 has no mapping

	// Without fetch_source_maps no finding claims an original position.
	b = result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	for _, e := range b["observations"].(map[string]any)["endpoints"].([]any) {
		is.Equal(e.(map[string]any)["location"].(map[string]any)["original"], nil)
	}
}

// factsJS reports fixed facts for every script.
type factsJS struct{ facts *ports.JSFacts }

func (factsJS) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "facts-js", Name: "facts", Version: "1"}
}
func (e factsJS) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	return e.facts, nil
}

// A page attached to long after it loaded lists its bundle under resources
// while the debugger reports no script for it (V8 discarded it). Before,
// analyze_web_bundle said complete with 0 scripts and inspect_web_page
// said nothing; now both say which script resources went unseen and why.
func TestScriptResourcesWithoutAScriptAreReported(t *testing.T) {
	is := is.New(t)
	f := richFake()
	f.Capture.Scripts, f.Capture.ScriptsTotal = nil, 0
	s := session(t, f, nil)
	b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	is.Equal(b["completeness"].(map[string]any)["status"], "partial")
	var reasons []string
	for _, u := range b["unknowns"].([]any) {
		u := u.(map[string]any)
		if u["dimension"] == "script_source" {
			reasons = append(reasons, u["reason"].(string))
		}
	}
	is.Equal(len(reasons), 1)
	is.True(strings.Contains(reasons[0], "http://app.test/app.js"))
	r := result(mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	found := false
	for _, l := range r["limitations"].([]any) {
		found = found || strings.Contains(l.(string), "1 script resource(s) the page loaded have no script in this capture (http://app.test/app.js)")
	}
	is.True(found)

	// With the script reported, neither says so.
	f = richFake()
	s = session(t, f, nil)
	r = result(mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	for _, l := range r["limitations"].([]any) {
		is.True(!strings.Contains(l.(string), "have no script"))
	}
}

// "Log in and tell me what the app stores": the scenario's storage
// artifact lists cookies and localStorage/sessionStorage names with their
// values only as digests, and a value that held a secret without one.
// Before, storage could not be requested and was always not_requested.
func TestScenarioStorageArtifact(t *testing.T) {
	is := is.New(t)
	run := &fakeRunner{storage: &ports.BrowserScenarioStorage{
		Cookies: []ports.BrowserStoredCookie{{BrowserStoredValue: ports.BrowserStoredValue{Name: "sid", Value: "s123"}, Domain: "app.test", Path: "/",
			HTTPOnly: true, SameSite: "Lax"}},
		LocalStorage:   []ports.BrowserStoredValue{{Name: "token", Value: "tok-1"}, {Name: "pw", Value: "[REDACTED:pw]", HadSecret: true}},
		SessionStorage: []ports.BrowserStoredValue{{Name: "user", Value: "alice"}},
	}}
	s := session(t, nil, run)
	args := map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": "http://app.test/login"},
		"actions": []any{map[string]any{"step_id": "go", "action": "click", "locator": map[string]any{"css": map[string]any{"selector": "#go"}}}},
		"capture": map[string]any{"at_end": []any{"storage"}}}
	r := result(mustCall(t, s, "capture_browser_scenario", args))
	is.Equal(run.got.CaptureAtEnd, []string{"storage"})
	steps := r["steps"].([]any)
	st := steps[1].(map[string]any)["artifacts"].(map[string]any)["storage"].(map[string]any)
	is.Equal(st["state"], "captured")
	v := st["value"].(map[string]any)
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	is.Equal(v["cookies"], []any{map[string]any{"name": "sid", "domain": "app.test", "path": "/", "secure": false, "http_only": true, "same_site": "Lax",
		"value_state": "hashed", "value_sha256": sum("s123")}})
	is.Equal(v["local_storage"], []any{map[string]any{"name": "pw", "value_state": "redacted-secret", "value_sha256": nil}, // by name
		map[string]any{"name": "token", "value_state": "hashed", "value_sha256": sum("tok-1")}})
	is.Equal(v["session_storage"], []any{map[string]any{"name": "user", "value_state": "hashed", "value_sha256": sum("alice")}})
	b, _ := json.Marshal(r)
	is.True(!strings.Contains(string(b), "tok-1")) // values never appear
	// The first step did not ask for it.
	is.Equal(steps[0].(map[string]any)["artifacts"].(map[string]any)["storage"], map[string]any{"state": "not_requested"})
	// Two equal runs compare unchanged; a changed value is a change.
	diff := result(mustCall(t, s, "compare_web_captures", map[string]any{"before_scenario": r, "after_scenario": result(mustCall(t, s, "capture_browser_scenario", args))}))
	is.Equal(diff["overall_status"], "unchanged")
	run.storage.LocalStorage[0].Value = "tok-2" // token
	diff = result(mustCall(t, s, "compare_web_captures", map[string]any{"before_scenario": r, "after_scenario": result(mustCall(t, s, "capture_browser_scenario", args))}))
	is.Equal(diff["overall_status"], "changed")
}

// A page with more than 512 localStorage items: the storage artifact is
// truncated and still carries what it kept, the first 512 items of each
// list by name whatever order the browser listed them in, with the total
// count as observed. Before, the truncated state had no value, so the
// whole artifact (cookies and sessionStorage too) was lost.
func TestScenarioStorageOver512Items(t *testing.T) {
	is := is.New(t)
	local := make([]ports.BrowserStoredValue, 600)
	for i := range local {
		local[i] = ports.BrowserStoredValue{Name: fmt.Sprintf("k%04d", 599-i), Value: "v"} // the browser's order: reversed
	}
	run := &fakeRunner{storage: &ports.BrowserScenarioStorage{
		Cookies:        []ports.BrowserStoredCookie{{BrowserStoredValue: ports.BrowserStoredValue{Name: "sid", Value: "s"}, Domain: "app.test", Path: "/", SameSite: "Lax"}},
		LocalStorage:   local,
		SessionStorage: []ports.BrowserStoredValue{{Name: "user", Value: "alice"}},
	}}
	s := session(t, nil, run)
	args := map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": "http://app.test/"},
		"actions": []any{map[string]any{"step_id": "go", "action": "click", "locator": map[string]any{"css": map[string]any{"selector": "#go"}}}},
		"capture": map[string]any{"at_end": []any{"storage"}}}
	r := result(mustCall(t, s, "capture_browser_scenario", args))
	st := r["steps"].([]any)[1].(map[string]any)["artifacts"].(map[string]any)["storage"].(map[string]any)
	is.Equal(st["state"], "truncated")
	is.Equal(st["observed"], 602.0) // 1 cookie, 600 local, 1 session
	is.Equal(st["retained"], 514.0)
	v := st["value"].(map[string]any)
	kept := v["local_storage"].([]any)
	is.Equal(len(kept), 512)
	is.Equal(kept[0].(map[string]any)["name"], "k0000")
	is.Equal(kept[511].(map[string]any)["name"], "k0511")
	is.Equal(len(v["cookies"].([]any)), 1)
	is.Equal(len(v["session_storage"].([]any)), 1)
	is.Equal(r["completeness"].(map[string]any)["status"], "truncated")

	// The browser listing the same items in another order keeps the same.
	slices.Reverse(run.storage.LocalStorage)
	r2 := result(mustCall(t, s, "capture_browser_scenario", args))
	is.Equal(r2["steps"].([]any)[1].(map[string]any)["artifacts"].(map[string]any)["storage"], st)
	// compare_web_captures accepts it and claims nothing about truncated storage.
	diff := result(mustCall(t, s, "compare_web_captures", map[string]any{"before_scenario": r, "after_scenario": r2}))
	is.True(diff["overall_status"] != "unchanged")
}

// A passive capture that saw no network activity says that its window
// started at the attach: asked what a page calls, an agent saw empty
// request lists that read as "nothing" for a page that had fetched JSON
// and opened a WebSocket while loading.
func TestInspectWithoutNetworkActivitySaysWhy(t *testing.T) {
	is := is.New(t)
	f := richFake()
	f.Capture.Network = ports.BrowserNetwork{}
	f.Capture.CaptureWindow.ObservationMS = 500
	s := session(t, f, nil)
	has := func(r map[string]any) bool {
		for _, l := range r["limitations"].([]any) {
			if strings.HasPrefix(l.(string), "No request or WebSocket activity was seen in the 500 ms after the attach") {
				return true
			}
		}
		return false
	}
	is.True(has(result(mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))))
	f = richFake() // one request observed
	f.Capture.CaptureWindow.ObservationMS = 500
	is.True(!has(result(mustCall(t, session(t, f, nil), "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))))
}

// A DOM over the engine's bound keeps its start: the truncated artifact
// carries the retained text, with the whole document's size as observed.
// An agent used to get the state alone ("the full size was not measured")
// and nothing of the page.
func TestScenarioTruncatedDOMKeepsItsStart(t *testing.T) {
	is := is.New(t)
	kept := strings.Repeat("<p>x</p>", 100)
	s := session(t, nil, &fakeRunner{dom: []byte(kept), domBytes: 5000})
	r := result(mustCall(t, s, "capture_browser_scenario", map[string]any{"browser": map[string]any{"mode": "launch"},
		"start_url": map[string]any{"url": "http://app.test/"},
		"actions":   []any{map[string]any{"step_id": "w", "action": "wait_for_timeout", "duration_ms": 10}},
		"capture":   map[string]any{"at_end": []any{"dom"}}}))
	d := r["steps"].([]any)[1].(map[string]any)["artifacts"].(map[string]any)["dom"].(map[string]any)
	is.Equal(d["state"], "truncated")
	is.Equal(d["observed"], 5000.0)
	is.Equal(d["retained"], float64(len(kept)))
	v := d["value"].(map[string]any)
	is.Equal(v["text"], kept)
	is.Equal(v["bytes"], float64(len(kept)))
	is.True(strings.Contains(d["reason"].(string), "first"))
	is.Equal(r["completeness"].(map[string]any)["status"], "truncated")
	// compare_web_captures accepts it and claims nothing about a cut DOM.
	diff := result(mustCall(t, s, "compare_web_captures", map[string]any{"before_scenario": r, "after_scenario": r}))
	is.True(diff["overall_status"] != "unchanged")
}

// An accessibility artifact the engine read only in part (a large page,
// read node by node) keeps its text, whose last line says what was not
// read, and the step's completeness lists it as truncated, so
// compare_web_captures claims nothing about it. Before, core turned it
// into a truncated state without its text ("the full size was not
// measured").
func TestScenarioPartialAccessibilityKeepsItsText(t *testing.T) {
	is := is.New(t)
	kept := "RootWebArea \"large\"\n  button \"first-button\"\nThe accessibility tree was read node by node, for the first 4 of its document's 40009 DOM nodes; the other 40005 were not read.\n"
	s := session(t, nil, &fakeRunner{ax: []byte(kept)})
	r := result(mustCall(t, s, "capture_browser_scenario", map[string]any{"browser": map[string]any{"mode": "launch"},
		"start_url": map[string]any{"url": "http://app.test/"},
		"actions":   []any{map[string]any{"step_id": "w", "action": "wait_for_timeout", "duration_ms": 10}},
		"capture":   map[string]any{"at_end": []any{"accessibility"}}}))
	step := r["steps"].([]any)[1].(map[string]any)
	a := step["artifacts"].(map[string]any)["accessibility"].(map[string]any)
	is.Equal(a["state"], "captured")
	is.Equal(a["value"].(map[string]any)["text"], kept)
	is.Equal(step["completeness"].(map[string]any)["truncated_sections"], []any{"accessibility"})
	is.Equal(r["completeness"].(map[string]any)["status"], "truncated")
	diff := result(mustCall(t, s, "compare_web_captures", map[string]any{"before_scenario": r, "after_scenario": r}))
	is.True(diff["overall_status"] != "unchanged")
}

// callsSrc has calls whose callee the parse cannot place per call: two
// registerTool calls through one destructured name, one through a renamed
// alias, two fetches in one function, a new WebSocket and a top-level fetch.
const callsSrc = "function setup() {\n" +
	"  const {registerTool} = navigator.modelContext;\n" +
	"  registerTool({ name: \"one\", description: \"d\" });\n" +
	"  registerTool({ name: \"two\", description: \"d\" });\n" +
	"  const {registerTool: r} = navigator.modelContext;\n" +
	"  r({ name: \"three\" });\n" +
	"  fetch(\"/a\"); fetch(base + \"/b\");\n" +
	"  new WebSocket(\"ws://x/s\");\n" +
	"  api.get(`/v1/${id}`);\n" +
	"}\n" +
	"fetch(\"/top\");\n"

// recordedJS reports callsSrc's calls as adapters/js does (recorded): the
// CalleeOffset of a plain or aliased name is its first use in the function
// (the destructuring for registerTool and r, the first fetch for both), -1
// at the top level; a member's is its property name at the call. Position
// is where V8 places each call, which the engine takes from the parse.
type recordedJS struct{}

func (recordedJS) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "recorded-js", Name: "recorded", Version: "1"}
}
func (recordedJS) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	at := func(s string, nth int) int64 {
		off := 0
		for ; nth > 0; nth-- {
			off += strings.Index(callsSrc[off:], s) + 1
		}
		return int64(off + strings.Index(callsSrc[off:], s))
	}
	str := func(s string) ports.JSValue {
		return ports.JSValue{Kind: ports.JSValString, Value: s, Offset: at(`"`+s+`"`, 0)}
	}
	tool := func(name string) []ports.JSValue {
		return []ports.JSValue{{Kind: ports.JSValObject, Offset: -1, Props: []ports.JSProp{{Key: "name", Value: str(name)}}}}
	}
	reg := "navigator.modelContext.registerTool"
	return &ports.JSFacts{Parsed: true, Calls: []ports.JSCall{
		{Callee: reg, Offset: -1, CalleeOffset: int32(at("registerTool", 0)), Position: int32(at("registerTool", 1)), Args: tool("one")},
		{Callee: reg, Offset: -1, CalleeOffset: int32(at("registerTool", 0)), Position: int32(at("registerTool", 2)), Args: tool("two")},
		{Callee: reg, Offset: -1, CalleeOffset: int32(at("r}", 0)), Position: int32(at("r({", 0)), Args: tool("three")},
		{Callee: "fetch", Offset: at(`"/a"`, 0), CalleeOffset: int32(at("fetch", 0)), Position: int32(at("fetch", 0)), Args: []ports.JSValue{str("/a")}},
		{Callee: "fetch", Offset: -1, CalleeOffset: int32(at("fetch", 0)), Position: int32(at("fetch", 1)), Args: []ports.JSValue{{Kind: ports.JSValTemplate, Value: "${}/b", Offset: at(`"/b"`, 0),
			Parts: []ports.JSValue{{Kind: ports.JSValName, Value: "base", Offset: -1}}}}},
		{Callee: "WebSocket", New: true, Offset: at(`"ws://x/s"`, 0), CalleeOffset: int32(at("WebSocket", 0)), Position: int32(at("new WebSocket", 0)), Args: []ports.JSValue{str("ws://x/s")}},
		{Callee: "api.get", Offset: at("`/v1/", 0), CalleeOffset: int32(at("get", 0)), Position: int32(at("get", 0)), Args: []ports.JSValue{{Kind: ports.JSValTemplate, Value: "/v1/${}", Offset: at("`/v1/", 0),
			Parts: []ports.JSValue{{Kind: ports.JSValName, Value: "id", Offset: -1}}}}},
		{Callee: "fetch", Offset: at(`"/top"`, 0), CalleeOffset: -1, Position: int32(at(`fetch("/top"`, 0)), Args: []ports.JSValue{str("/top")}},
	}}, nil
}

// analyze_web_bundle places each endpoint and WebMCP declaration where V8
// places the call (inspect_web_page's initiators, discover_webmcp_tools'
// registrations): a plain or aliased callee's name at this call, a
// member's last name, `new` for a construction. Before, endpoints sat at
// their URL literal (on the initiator's line only) and two registerTool
// calls through one destructured name shared the destructuring's position.
func TestBundleFindingsSitAtTheCallV8Reports(t *testing.T) {
	is := is.New(t)
	f := richFake()
	f.Capture.Scripts[0].Source = []byte(callsSrc)
	reg, _ := core.NewRegistry(nil, &core.RegistryOptions{Browser: f, JavaScript: recordedJS{}})
	s := core.NewSession(catalog(t), reg, nil)
	b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	obs := b["observations"].(map[string]any)
	lines := strings.Split(callsSrc, "\n")
	text := func(x any) string {
		loc := x.(map[string]any)["location"].(map[string]any)
		line, col := int(loc["line"].(float64)), int(loc["column"].(float64))
		return fmt.Sprintf("%d:%s", line, lines[line-1][col:])
	}
	var got []string
	for _, d := range obs["webmcp_declarations"].([]any) {
		got = append(got, d.(map[string]any)["name"].(string)+"@"+text(d))
	}
	is.Equal(got, []string{
		`one@3:registerTool({ name: "one", description: "d" });`,
		`two@4:registerTool({ name: "two", description: "d" });`,
		`three@6:r({ name: "three" });`,
	})
	got = nil
	for _, e := range obs["endpoints"].([]any) {
		got = append(got, e.(map[string]any)["value"].(string)+"@"+text(e))
	}
	is.Equal(got, []string{
		`/a@7:fetch("/a"); fetch(base + "/b");`,
		`${}/b@7:fetch(base + "/b");`,
		`ws://x/s@8:new WebSocket("ws://x/s");`,
		"/v1/${}@9:get(`/v1/${id}`);",
		`/top@11:fetch("/top");`,
	})
}

// A passive capture names each WebSocket it saw open: its frames carry a
// request id, and an agent asking which socket a frame was on got no URL
// for any id. compare_web_captures still accepts the capture, and one
// without the list (made before it) too.
func TestInspectNamesItsWebSockets(t *testing.T) {
	is := is.New(t)
	f := richFake()
	f.Capture.Network.WebSockets = []ports.BrowserWebSocket{{RequestID: "WS1", URL: "ws://app.test/live?room=1", Origin: "http://app.test"}}
	f.Capture.Network.WebSocketEvents = []ports.BrowserWebSocketEvent{{RequestID: "WS1", Direction: "sent", Opcode: 1, PayloadBytes: 2}}
	s := session(t, f, nil)
	r := result(mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	net := r["network"].(map[string]any)
	is.Equal(net["websockets"], []any{map[string]any{"request_id": "WS1", "url": "ws://app.test/live?room=1", "origin": "http://app.test"}})
	is.Equal(net["websocket_events"].([]any)[0].(map[string]any)["request_id"], "WS1")
	diff := result(mustCall(t, s, "compare_web_captures", map[string]any{"before": map[string]any{"inspection": r}, "after": map[string]any{"inspection": r}}))
	is.True(diff["overall_status"] != nil)
	delete(net, "websockets")
	diff = result(mustCall(t, s, "compare_web_captures", map[string]any{"before": map[string]any{"inspection": r}, "after": map[string]any{"inspection": r}}))
	is.True(diff["overall_status"] != nil)
}

// xhrOtherSrc sends through an x of another function.
const xhrOtherSrc = "function a() {\n" +
	"  const x = new XMLHttpRequest();\n" +
	"  x.open(\"GET\", \"/a\");\n" +
	"}\n" +
	"function b() {\n" +
	"  const x = new XMLHttpRequest();\n" +
	"  x.send();\n" +
	"}\n"

const xhrSrc = "function load() {\n" +
	"  const x = new XMLHttpRequest();\n" +
	"  x.open(\"GET\", \"/a\");\n" +
	"  x.onload = done;\n" +
	"  x.send();\n" +
	"  x.open(\"POST\", \"/b\");\n" +
	"  y.send();\n" +
	"}\n"

// xhrJS reports xhrSrc's calls as adapters/js does: a member's
// CalleeOffset and Position are its property name at the call, a
// construction's Position its new.
type xhrJS struct{}

func (xhrJS) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "xhr-js", Name: "recorded", Version: "1"}
}
func (xhrJS) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	if string(req.Source) == xhrOtherSrc {
		at := func(s string) int64 { return int64(strings.Index(xhrOtherSrc, s)) }
		return &ports.JSFacts{Parsed: true, Calls: []ports.JSCall{
			{Callee: "x.open", Offset: at(`"GET"`), CalleeOffset: int32(at(`open(`)), Position: int32(at(`open(`)), Args: []ports.JSValue{
				{Kind: ports.JSValString, Value: "GET", Offset: at(`"GET"`)}, {Kind: ports.JSValString, Value: "/a", Offset: at(`"/a"`)}}},
			{Callee: "x.send", Offset: -1, CalleeOffset: int32(at("send(")), Position: int32(at("send(")), Args: []ports.JSValue{}},
		}}, nil
	}
	at := func(s string) int64 { return int64(strings.Index(xhrSrc, s)) }
	str := func(s string) ports.JSValue {
		return ports.JSValue{Kind: ports.JSValString, Value: s, Offset: at(`"` + s + `"`)}
	}
	return &ports.JSFacts{Parsed: true, Calls: []ports.JSCall{
		{Callee: "XMLHttpRequest", New: true, Offset: -1, CalleeOffset: int32(at("XMLHttpRequest")), Position: int32(at("new XMLHttpRequest"))},
		{Callee: "x.open", Offset: at(`"GET"`), CalleeOffset: int32(at(`open("GET"`)), Position: int32(at(`open("GET"`)), Args: []ports.JSValue{str("GET"), str("/a")}},
		{Callee: "x.send", Offset: -1, CalleeOffset: int32(at("send();\n  x.open")), Position: int32(at("send();\n  x.open")), Args: []ports.JSValue{}},
		{Callee: "x.open", Offset: at(`"POST"`), CalleeOffset: int32(at(`open("POST"`)), Position: int32(at(`open("POST"`)), Args: []ports.JSValue{str("POST"), str("/b")}},
		{Callee: "y.send", Offset: -1, CalleeOffset: int32(at("send();\n}")), Position: int32(at("send();\n}")), Args: []ports.JSValue{}},
	}}, nil
}

// An XHR's request is made at send(), where inspect_web_page's initiator
// places it, while its URL is at open(): analyze_web_bundle keeps the
// endpoint at open() and names the receiver's following send() as
// send_location. Before, the endpoint named open() alone, and an agent
// matching a request's initiator to it found nothing. An open() with no
// send() of its receiver after it has no send_location.
func TestBundleXHREndpointNamesItsSend(t *testing.T) {
	is := is.New(t)
	f := richFake()
	f.Capture.Scripts[0].Source = []byte(xhrSrc)
	reg, _ := core.NewRegistry(nil, &core.RegistryOptions{Browser: f, JavaScript: xhrJS{}})
	s := core.NewSession(catalog(t), reg, nil)
	b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	lines := strings.Split(xhrSrc, "\n")
	text := func(loc map[string]any) string {
		line, col := int(loc["line"].(float64)), int(loc["column"].(float64))
		return fmt.Sprintf("%d:%s", line, lines[line-1][col:])
	}
	var got []string
	for _, e := range b["observations"].(map[string]any)["endpoints"].([]any) {
		m := e.(map[string]any)
		g := m["value"].(string) + "@" + text(m["location"].(map[string]any))
		if send, ok := m["send_location"].(map[string]any); ok {
			g += " sent@" + text(send)
		}
		got = append(got, g)
	}
	is.Equal(got, []string{
		`/a@3:open("GET", "/a"); sent@5:send();`,
		`/b@6:open("POST", "/b");`,
	})

	// The send() of another function's x is not this request's: no
	// send_location, and send_unpaired says which send() and why. Before,
	// it was taken as the send_location.
	f.Capture.Scripts[0].Source = []byte(xhrOtherSrc)
	b = result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
	e := b["observations"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
	is.Equal(e["send_location"], nil)
	is.Equal(e["send_unpaired"], "x.send() at 7:4 was not taken as this request's send: the send() is outside the block that holds the open(), so it may be another function's x")
}

// An origin with nothing stored, inspected with fingerprints, has read
// every value there is: its fingerprints are complete, and two such
// inspections compare storage as unchanged. Before, no fingerprint meant
// incomplete, so empty storage was always unknown. Without the opt-in, or
// with a storage read unavailable, it stays incomplete.
func TestEmptyStorageIsCompleteAndUnchanged(t *testing.T) {
	is := is.New(t)
	f := richFake()
	usage, quota := 0.0, 1e9
	f.Capture.Storage = ports.BrowserStorage{Origin: "http://app.test", UsageBytes: &usage, QuotaBytes: &quota}
	s := session(t, f, nil)
	args := map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_storage_keys": true, "include_storage_fingerprints": true}
	inspect := func(args map[string]any) map[string]any {
		return result(mustCall(t, s, "inspect_web_page", args))
	}
	storageOf := func(before, after map[string]any) map[string]any {
		diff := result(mustCall(t, s, "compare_web_captures", map[string]any{
			"before": map[string]any{"inspection": before}, "after": map[string]any{"inspection": after}}))
		return diff["dimensions"].(map[string]any)["storage"].(map[string]any)
	}
	a, b := inspect(args), inspect(args)
	is.Equal(a["storage"].(map[string]any)["fingerprints_complete"], true)
	is.Equal(storageOf(a, b)["status"], "unchanged")

	t.Run("not asked for", func(t *testing.T) {
		is := is.New(t)
		c := inspect(map[string]any{"cdp_endpoint": ep, "target_id": "T1", "include_storage_keys": true})
		is.Equal(c["storage"].(map[string]any)["fingerprints_complete"], false)
		is.Equal(storageOf(a, c)["status"], "unknown")
	})
	t.Run("a read unavailable", func(t *testing.T) {
		is := is.New(t)
		f.Capture.Completeness.Unavailable = []ports.BrowserUnavailable{{Section: "storage", Reason: "provider_unavailable"}}
		defer func() { f.Capture.Completeness.Unavailable = nil }()
		c := inspect(args)
		is.Equal(c["storage"].(map[string]any)["fingerprints_complete"], false)
		is.Equal(storageOf(a, c)["status"], "unknown")
	})
}

// A frame of another site in its own renderer process is listed with what
// was not captured of it, the sections it leaves incomplete are marked
// unavailable, and comparing such captures never calls the DOM unchanged:
// the frame's content may differ unseen. Before, the frame was only named
// in a limitation and two captures compared dom_structure unchanged.
func TestOutOfProcessFrameIsListedAndNeverUnchanged(t *testing.T) {
	is := is.New(t)
	f := richFake()
	f.Capture.Frames = append(f.Capture.Frames, ports.BrowserFrame{FrameID: "IF1", ParentFrameID: "F1",
		URL: "http://widget.test/w.html", Origin: "http://widget.test", OutOfProcess: true})
	s := session(t, f, nil)
	args := map[string]any{"cdp_endpoint": ep, "target_id": "T1", "allowed_origins": []string{"http://app.test", "http://widget.test"}}
	a := result(mustCall(t, s, "inspect_web_page", args))
	frames := a["frames"].([]any)
	is.Equal(len(frames), 2)
	is.Equal(frames[0].(map[string]any)["not_captured"], nil)
	is.Equal(frames[1].(map[string]any)["not_captured"], []any{"frames", "dom", "accessibility", "scripts", "resources", "network_requests", "console_events"})
	is.Equal(a["completeness"].(map[string]any)["unavailable_sections"], []any{"accessibility", "dom", "frames", "resources", "scripts"})
	b := result(mustCall(t, s, "inspect_web_page", args))
	diff := result(mustCall(t, s, "compare_web_captures", map[string]any{
		"before": map[string]any{"inspection": a}, "after": map[string]any{"inspection": b}}))
	dom := diff["dimensions"].(map[string]any)["dom_structure"].(map[string]any)
	is.Equal(dom["status"], "unknown")
	is.True(strings.Contains(dom["reason"].(string), "the before inspection lists 1 frame(s) of another site whose content it did not read (http://widget.test/w.html)"))
}

// A WebMCP declaration whose input schema the engine cut (more properties
// than it keeps, ports.JSValue.PropsCut) says its property names are not
// all of them, as does one whose schema is not an object literal; before,
// a cut schema read as complete.
func TestBundleSchemaPropertyNamesSayWhenCut(t *testing.T) {
	str := func(s string) ports.JSValue { return ports.JSValue{Kind: ports.JSValString, Value: s} }
	obj := func(cut bool, props ...ports.JSProp) ports.JSValue {
		return ports.JSValue{Kind: ports.JSValObject, Props: props, PropsCut: cut}
	}
	prop := func(k string, v ports.JSValue) ports.JSProp { return ports.JSProp{Key: k, Value: v} }
	schemaOf := func(schema ports.JSValue) ports.JSCall {
		return ports.JSCall{Callee: "navigator.modelContext.registerTool", Position: -1, Args: []ports.JSValue{
			obj(false, prop("name", str("t")), prop("inputSchema", schema))}}
	}
	cases := []struct {
		name     string
		schema   ports.JSValue
		names    []any
		complete bool
	}{
		{"whole", obj(false, prop("properties", obj(false, prop("b", obj(false)), prop("a", obj(false))))), []any{"a", "b"}, true},
		{"properties cut", obj(false, prop("properties", obj(true, prop("a", obj(false))))), []any{"a"}, false},
		{"schema cut before properties", obj(true, prop("type", str("object"))), []any{}, false},
		{"schema without properties", obj(false, prop("type", str("object"))), []any{}, true},
		{"schema by name", ports.JSValue{Kind: ports.JSValName, Value: "schema"}, []any{}, false},
		{"properties by name", obj(false, prop("properties", ports.JSValue{Kind: ports.JSValName, Value: "props"})), []any{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			reg, _ := core.NewRegistry(nil, &core.RegistryOptions{Browser: richFake(),
				JavaScript: factsJS{&ports.JSFacts{Parsed: true, Calls: []ports.JSCall{schemaOf(c.schema)}}}})
			s := core.NewSession(catalog(t), reg, nil)
			b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
			d := b["observations"].(map[string]any)["webmcp_declarations"].([]any)[0].(map[string]any)
			is.Equal(d["schema_property_names"], c.names)
			is.Equal(d["schema_property_names_complete"], c.complete)
		})
	}
}

// A provideContext whose tools array the engine cut (it keeps an array's
// first 16 items, then an item "…") lists the first 16 declarations and
// says, as an unknown of dimension webmcp_declarations naming the
// script, that the list lacks the rest; so does one whose tools, or a
// registerTool whose tool, is computed. Before, the list read as whole
// and the result as complete.
func TestBundleWebMCPDeclarationsSayWhenCut(t *testing.T) {
	str := func(s string) ports.JSValue { return ports.JSValue{Kind: ports.JSValString, Value: s} }
	tool := func(i int) ports.JSValue {
		return ports.JSValue{Kind: ports.JSValObject, Props: []ports.JSProp{{Key: "name", Value: str(fmt.Sprintf("t%d", i))}}}
	}
	provide := func(tools ports.JSValue) ports.JSCall {
		return ports.JSCall{Callee: "navigator.modelContext.provideContext", Position: -1, Args: []ports.JSValue{
			{Kind: ports.JSValObject, Props: []ports.JSProp{{Key: "tools", Value: tools}}}}}
	}
	var items []ports.JSValue
	for i := range 16 {
		items = append(items, tool(i))
	}
	cut := ports.JSValue{Kind: ports.JSValArray, Items: append(slices.Clone(items), ports.JSValue{Kind: ports.JSValOther, Value: "…", Offset: -1})}
	whole := ports.JSValue{Kind: ports.JSValArray, Items: items}
	name := ports.JSValue{Kind: ports.JSValName, Value: "tools"}
	cases := []struct {
		name    string
		call    ports.JSCall
		decls   int
		unknown bool
	}{
		{"16 tools, whole", provide(whole), 16, false},
		{"tools cut at 16", provide(cut), 16, true},
		{"tools by name", provide(name), 0, true},
		{"registerTool by name", ports.JSCall{Callee: "navigator.modelContext.registerTool", Position: -1, Args: []ports.JSValue{name}}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			reg, _ := core.NewRegistry(nil, &core.RegistryOptions{Browser: richFake(),
				JavaScript: factsJS{&ports.JSFacts{Parsed: true, Calls: []ports.JSCall{c.call}}}})
			s := core.NewSession(catalog(t), reg, nil)
			b := result(mustCall(t, s, "analyze_web_bundle", map[string]any{"cdp_endpoint": ep, "target_id": "T1"}))
			is.Equal(len(b["observations"].(map[string]any)["webmcp_declarations"].([]any)), c.decls)
			var dims []string
			for _, u := range b["unknowns"].([]any) {
				u := u.(map[string]any)
				if u["dimension"] == "webmcp_declarations" {
					dims = append(dims, u["reason"].(string))
					is.True(len(u["affected_script_keys"].([]any)) > 0)
				}
			}
			is.Equal(len(dims) > 0, c.unknown)
			if c.unknown {
				is.Equal(b["completeness"].(map[string]any)["status"], "partial")
				is.True(strings.Contains(dims[0], "16 items"))
			}
		})
	}
}
