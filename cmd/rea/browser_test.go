package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/core"
	"rea/ports"
)

// neverSent are the methods no passive browser tool may send (BROWSER.md §1).
var neverSent = []string{"Page.navigate", "Page.reload", "Runtime.evaluate", "Runtime.callFunctionOn", "Target.closeTarget", "Browser.close", "WebMCP.invokeTool"}

// passiveCalls are the passive tools with arguments for endpoint ep and
// target T1 of the recording fake.
func passiveCalls(ep string) map[string]map[string]any {
	t := map[string]any{"cdp_endpoint": ep, "target_id": "T1"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range t {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	return map[string]map[string]any{
		"list_browser_targets":   {"cdp_endpoint": ep},
		"inspect_web_page":       with(map[string]any{"observation_ms": 20, "include_script_sources": true, "include_storage_keys": true, "include_storage_fingerprints": true, "include_json_body_shapes": true, "include_console_text": true, "include_accessibility_text": true, "include_websocket_shapes": true}),
		"observe_web_session":    with(map[string]any{"observation_ms": 20}),
		"discover_webmcp_tools":  with(map[string]any{"observation_ms": 20}),
		"analyze_web_bundle":     with(map[string]any{"observation_ms": 20, "fetch_source_maps": true}),
		"capture_web_screenshot": t,
	}
}

func TestMCPPassiveBrowserToolsNeverSendActiveMethods(t *testing.T) {
	cs := mcpClient(t)
	for name := range passiveCalls("") {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			srv := cdptest.New(nil)
			defer srv.Close()
			r := call(t, cs, name, passiveCalls(srv.URL)[name])
			if r.isError {
				t.Fatalf("%s over the fake: %s", name, r.text)
			}
			ev, _ := evidence(t, r)
			is.Equal(ev.Authority, "external-service")
			is.Equal(ev.Provider.ID, cdp.ProviderID)
			for _, m := range neverSent {
				if srv.Received(m) {
					t.Errorf("%s sent %s", name, m)
				}
			}
			for _, m := range srv.Methods() {
				if strings.HasPrefix(m, "Input.") {
					t.Errorf("%s sent %s", name, m)
				}
			}
		})
	}
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestMCPBrowserErrorsAreEnvelopes sends every BROWSER.md §7 failure the
// recording fake can produce through MCP: each is the canonical envelope
// with its code, and the connection keeps working.
func TestMCPBrowserErrorsAreEnvelopes(t *testing.T) {
	cs := mcpClient(t)
	cases := []struct {
		name   string
		opts   *cdptest.Options
		ep     string // overrides the fake's URL
		tool   string
		args   map[string]any
		code   core.Code
		reason string
	}{
		{name: "unreachable", ep: closedPort(t), tool: "list_browser_targets", code: core.CodeProviderUnavailable, reason: "endpoint_unreachable"},
		{name: "localhost", ep: "http://localhost:9222", tool: "inspect_web_page", code: core.CodeInvalidRequest},
		{name: "userinfo", ep: "http://u:p@127.0.0.1:9222", tool: "inspect_web_page", code: core.CodeInvalidRequest},
		{name: "path", ep: "http://127.0.0.1:9222/json", tool: "capture_web_screenshot", code: core.CodeInvalidRequest},
		{name: "non-json", opts: &cdptest.Options{Discovery: cdptest.DiscoveryNonJSON}, tool: "list_browser_targets", code: core.CodeUnreadableOutput, reason: "invalid_endpoint_response"},
		{name: "oversized", opts: &cdptest.Options{Discovery: cdptest.DiscoveryOversizedList}, tool: "list_browser_targets", code: core.CodeTruncated, reason: "payload_limit"},
		{name: "malformed", opts: &cdptest.Options{Discovery: cdptest.DiscoveryMalformedVersion}, tool: "inspect_web_page", code: core.CodeUnreadableOutput, reason: "invalid_endpoint_response"},
		{name: "missing target", tool: "inspect_web_page", args: map[string]any{"target_id": "nope"}, code: core.CodeTargetUnavailable, reason: "target_not_found"},
		{name: "out of scope", tool: "observe_web_session", args: map[string]any{"allowed_origins": []any{"http://other.test"}, "observation_ms": 20}, code: core.CodeTargetUnavailable, reason: "target_not_allowed"},
		{name: "garbage frame", opts: &cdptest.Options{GarbageOn: "Page.enable"}, tool: "inspect_web_page", code: core.CodeUnreadableOutput, reason: "protocol_error"},
		{name: "closed mid-capture", opts: &cdptest.Options{CloseOn: "Runtime.enable"}, tool: "inspect_web_page", code: core.CodeProviderUnavailable, reason: "disconnected"},
		{name: "navigates out", opts: &cdptest.Options{NavigateOutMethod: "Network.enable", NavigateOutURL: "http://evil.test/"}, tool: "inspect_web_page", code: core.CodeTargetUnavailable},
		{name: "screenshot garbage", opts: &cdptest.Options{GarbageOn: "Page.captureScreenshot"}, tool: "capture_web_screenshot", code: core.CodeUnreadableOutput, reason: "protocol_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			srv := cdptest.New(c.opts)
			defer srv.Close()
			ep := srv.URL
			if c.ep != "" {
				ep = c.ep
			}
			args := map[string]any{"cdp_endpoint": ep}
			if c.tool != "list_browser_targets" {
				args["target_id"] = "T1"
			}
			if c.tool == "inspect_web_page" {
				args["observation_ms"] = 20
			}
			for k, v := range c.args {
				args[k] = v
			}
			code, details := errCode(t, call(t, cs, c.tool, args))
			is.Equal(code, c.code)
			if c.reason != "" {
				is.Equal(details["reason"], c.reason)
			}
			for _, m := range neverSent {
				is.True(!srv.Received(m))
			}
		})
	}
	// The connection survived every failure.
	srv := cdptest.New(nil)
	defer srv.Close()
	r := call(t, cs, "list_browser_targets", map[string]any{"cdp_endpoint": srv.URL})
	if r.isError {
		t.Fatal(r.text)
	}
}

func TestMCPBrowserProgressWithToken(t *testing.T) {
	is := is.New(t)
	a, err := wire(noEnv)
	is.NoErr(err)
	var mu sync.Mutex
	var notes []*sdk.ProgressNotificationParams
	st, ct := sdk.NewInMemoryTransports()
	_, err = a.server(nil).Connect(context.Background(), st)
	is.NoErr(err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "progress", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			notes = append(notes, r.Params)
			mu.Unlock()
		}}).Connect(context.Background(), ct, nil)
	is.NoErr(err)
	defer cs.Close()
	srv := cdptest.New(nil)
	defer srv.Close()
	p := &sdk.CallToolParams{Name: "inspect_web_page", Arguments: map[string]any{"cdp_endpoint": srv.URL, "target_id": "T1", "observation_ms": 300}}
	p.SetProgressToken("insp")
	res, err := cs.CallTool(context.Background(), p)
	is.NoErr(err)
	is.True(!res.IsError)
	deadline := time.Now().Add(3 * time.Second)
	for {
		mu.Lock()
		n := len(notes)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	is.True(len(notes) >= 2) // an observation and the terminal notification
	is.Equal(notes[0].ProgressToken, "insp")
}

func TestMCPBrowserCancellationIsCancelled(t *testing.T) {
	is := is.New(t)
	a, err := wire(noEnv)
	is.NoErr(err)
	s := core.NewSession(a.cat, a.reg, nil)
	srv := cdptest.New(nil)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(150 * time.Millisecond); cancel() }()
	raw, _ := json.Marshal(map[string]any{"cdp_endpoint": srv.URL, "target_id": "T1", "observation_ms": 5000})
	_, err = s.Call(ctx, "inspect_web_page", raw, nil)
	is.Equal(core.AsError("", err).Code, core.CodeCancelled)
	// The fake saw the session detached.
	deadline := time.Now().Add(2 * time.Second)
	for !srv.Received("Target.detachFromTarget") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	is.True(srv.Received("Target.detachFromTarget"))
}

// ---- live Chromium

const liveHTML = `<!doctype html>
<html><head><title>rea browser fixture</title>
<link rel="mcp" href="/mcp.json">
<script type="module" src="/app/app.js"></script>
</head><body><main><h1>Fixture</h1>
<button id="go" aria-label="ax-private-label-value">Go</button>
<input id="name" type="text" aria-label="name-field">
<a href="/app/other">other</a>
<div id="out"></div></main></body></html>`

const liveJS = `let n = 0;
localStorage.setItem("fixture-key", "fixture-secret-value");
const open = indexedDB.open("fixture-db", 1);
open.onupgradeneeded = () => open.result.createObjectStore("things", { keyPath: "id" });
const ws = new WebSocket("ws://" + location.host + "/ws");
ws.onopen = () => ws.send(JSON.stringify({ kind: "hello" }));
function tick() {
  n++;
  console.log("tick", n);
  fetch("/api", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user: "u", items: [1, 2] }) });
  if (n <= 2) history.pushState({ n }, "", "/app/session-" + n);
  if (n < 40) setTimeout(tick, 150);
}
tick();
function createBrowserRouter(r) { return r; }
const router = createBrowserRouter([{ path: "/app/settings" }]);
document.getElementById("go").addEventListener("click", () => {
  document.getElementById("out").textContent = "clicked";
  console.log("clicked");
});
document.getElementById("name").addEventListener("input", (e) => { document.getElementById("out").textContent = "typed"; });
//# sourceMappingURL=app.js.map
`

func liveSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws:")
		fmt.Fprint(w, liveHTML)
	}
	mux.HandleFunc("/app", page)
	mux.HandleFunc("/app/", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/app/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, liveJS)
		case r.URL.Path == "/app/app.js.map":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"version":3,"file":"app.js","sources":["src/app.ts"],"sourcesContent":["export {}"],"names":[],"mappings":"AAAA"}`)
		case r.URL.Path == "/app/other":
			fmt.Fprint(w, `<!doctype html><title>other</title><p>other page</p>`)
		case r.URL.Path == "/app/links":
			fmt.Fprint(w, `<!doctype html><title>links</title><a id="nav" href="/app/slow">slow page</a>`)
		case r.URL.Path == "/app/slow":
			time.Sleep(300 * time.Millisecond) // the click returns well before this commits
			fmt.Fprint(w, `<!doctype html><title>slow</title><p>slow page</p>`)
		default:
			page(w, r)
		}
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true,"items":[{"id":1}]}`)
	})
	mux.HandleFunc("/mcp.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{}`) })
	mux.HandleFunc("/ws", cdptest.EchoWebSocket)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// liveChromium launches an owned headless Chromium on the fixture site and
// returns its endpoint and the fixture page's target id.
func liveChromium(t *testing.T, site string) (string, string) {
	t.Helper()
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live browser tests skipped")
	}
	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: site + "/app"})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	e := cdp.New(nil)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if l, err := e.ListTargets(ctx, ports.BrowserListRequest{Endpoint: b.Endpoint()}); err == nil {
			for _, tg := range l.Targets {
				if strings.HasPrefix(tg.URL, site+"/app") {
					time.Sleep(400 * time.Millisecond)
					return b.Endpoint(), tg.TargetID
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the fixture page never appeared")
	return "", ""
}

func TestLiveBrowserToolsOverMCPAndCLI(t *testing.T) {
	site := liveSite(t)
	ep, target := liveChromium(t, site.URL)
	cs := mcpClient(t)
	is := is.New(t)
	base := map[string]any{"cdp_endpoint": ep, "target_id": target}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	_, list := evidence(t, call(t, cs, "list_browser_targets", map[string]any{"cdp_endpoint": ep}))
	is.True(len(list["targets"].([]any)) >= 1)

	opts := map[string]any{"observation_ms": 400, "include_storage_keys": true, "include_json_body_shapes": true}
	_, insp1 := evidence(t, call(t, cs, "inspect_web_page", with(opts)))
	_, insp2 := evidence(t, call(t, cs, "inspect_web_page", with(opts)))
	is.True(len(insp1["network"].(map[string]any)["requests"].([]any)) > 0)
	is.True(strings.Contains(fmt.Sprint(insp1["storage"].(map[string]any)["local_storage_keys"]), "fixture-key"))
	is.True(!strings.Contains(fmt.Sprint(insp1), "fixture-secret-value")) // values never leave the browser
	is.True(!strings.Contains(fmt.Sprint(insp1), "ax-private-label-value"))
	_, diff := evidence(t, call(t, cs, "compare_web_captures", map[string]any{"before": map[string]any{"inspection": insp1}, "after": map[string]any{"inspection": insp2}}))
	is.True(diff["overall_status"] != nil)

	_, sess := evidence(t, call(t, cs, "observe_web_session", with(map[string]any{"observation_ms": 300})))
	is.Equal(sess["window"].(map[string]any)["end_reason"], "window_elapsed")
	// The page loaded before attach: its lifecycle so far arrives at attach.
	is.True(strings.Contains(fmt.Sprint(sess["limitations"]), "of the document loaded before attach"))

	_, wm := evidence(t, call(t, cs, "discover_webmcp_tools", base))
	is.True(wm["status"] == "available" || wm["status"] == "unavailable")

	_, bundle := evidence(t, call(t, cs, "analyze_web_bundle", with(map[string]any{"observation_ms": 200, "fetch_source_maps": true})))
	obs := bundle["observations"].(map[string]any)
	is.True(strings.Contains(fmt.Sprint(obs["endpoints"]), "/api"))
	is.True(strings.Contains(fmt.Sprint(obs["routes"]), "/app/settings"))
	is.Equal(obs["source_maps"].(map[string]any)["status"], "included")

	_, shot1 := evidence(t, call(t, cs, "capture_web_screenshot", base))
	_, shot2 := evidence(t, call(t, cs, "capture_web_screenshot", base))
	_, sd := evidence(t, call(t, cs, "compare_web_screenshots", map[string]any{"before": shot1["artifact"], "after": shot2["artifact"]}))
	is.True(sd["status"] == "identical" || sd["status"] == "different")
	is.True(sd["status"] != "dimension_mismatch")

	// CLI parity: each command answers in text and JSON.
	out, errOut, code := runCLI(t, "list-browser-targets", ep)
	is.Equal(code, 0)
	is.True(strings.Contains(out, target))
	_ = errOut
	out, _, code = runCLI(t, "inspect-web-page", ep, target, "--observation-ms", "100")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "completeness:"))
	// A late attach shows even when policy filtering ranks first in status.
	is.True(strings.Contains(out, "completeness: attach_limited"))
	is.True(strings.Contains(out, "\nattach_limited: ") && strings.Contains(out, "network_requests"))
	is.True(strings.Contains(out, "\nnote: ")) // the limitations reach the text too
	out, _, code = runCLI(t, "--format", "json", "inspect-web-page", ep, target, "--observation-ms", "100")
	is.Equal(code, 0)
	_, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	for _, args := range [][]string{
		{"observe-web-session", ep, target, "--observation-ms", "100"},
		{"discover-webmcp-tools", ep, target},
		{"analyze-web-bundle", ep, target, "--observation-ms", "100"},
	} {
		out, errOut, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errOut)
		}
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	_, _, code = runCLI(t, "capture-web-screenshot", ep, target, "-o", a)
	is.Equal(code, 0)
	_, _, code = runCLI(t, "capture-web-screenshot", ep, target, "-o", b)
	is.Equal(code, 0)
	out, _, code = runCLI(t, "compare-web-screenshots", a, b)
	is.Equal(code, 0)
	is.True(strings.Contains(out, "identical") || strings.Contains(out, "different"))
	_, _, code = runCLI(t, "inspect-web-page", ep)
	is.Equal(code, 2) // TARGET missing
}

// TestLiveScenarioLeavesNothing runs capture_browser_scenario over MCP and
// the CLI and checks that no process or file of the run remains.
func TestLiveScenarioLeavesNothing(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live browser tests skipped")
	}
	is := is.New(t)
	site := liveSite(t)
	scenarioDir := t.TempDir() // before TMPDIR changes
	// A short root: Chromium's socket paths must fit in sun_path.
	tmp, err := os.MkdirTemp("/tmp", "rbs")
	is.NoErr(err)
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)
	cs := mcpClient(t)
	args := map[string]any{"browser": map[string]any{"mode": "launch"}, "start_url": map[string]any{"url": site.URL + "/app"},
		"actions": []any{
			map[string]any{"step_id": "type", "action": "fill", "locator": map[string]any{"css": map[string]any{"selector": "#name"}}, "value": map[string]any{"source": "literal", "value": "abc"}},
			map[string]any{"step_id": "click", "action": "click", "locator": map[string]any{"css": map[string]any{"selector": "#go"}}},
			map[string]any{"step_id": "away", "action": "goto", "destination": site.URL + "/app/other"},
		},
		"capture": map[string]any{"after_each_step": []any{"url"}, "at_end": []any{"screenshot", "dom", "accessibility", "history"}}}
	_, r1 := evidence(t, call(t, cs, "capture_browser_scenario", args))
	steps := r1["steps"].([]any)
	is.Equal(len(steps), 4)
	for _, s := range steps {
		is.Equal(s.(map[string]any)["status"], "completed")
	}
	_, r2 := evidence(t, call(t, cs, "capture_browser_scenario", args))
	_, diff := evidence(t, call(t, cs, "compare_web_captures", map[string]any{"before_scenario": r1, "after_scenario": r2}))
	is.Equal(diff["comparison_kind"], "browser_scenario")

	raw, _ := json.Marshal(args)
	file := filepath.Join(scenarioDir, "scenario.json")
	is.NoErr(os.WriteFile(file, raw, 0o600))
	out, errOut, code := runCLI(t, "capture-browser-scenario", file)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	is.True(strings.Contains(out, "scenario:"))

	// Nothing of the runs remains: no file under TMPDIR, no process naming it.
	entries, err := os.ReadDir(tmp)
	is.NoErr(err)
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), tmp) {
			t.Errorf("process left behind: %s: %q", p, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}

// TestMCPBrowserFloodIsTruncatedNotFailed: a page that floods console and
// network events gives a complete answer whose completeness says truncated.
func TestMCPBrowserFloodIsTruncatedNotFailed(t *testing.T) {
	is := is.New(t)
	cs := mcpClient(t)
	srv := cdptest.New(&cdptest.Options{Flood: 3000})
	defer srv.Close()
	_, r := evidence(t, call(t, cs, "inspect_web_page", map[string]any{"cdp_endpoint": srv.URL, "target_id": "T1", "observation_ms": 200}))
	comp := r["completeness"].(map[string]any)
	is.Equal(comp["status"], "truncated")
	is.True(comp["dropped_events"].(map[string]any)["total"].(float64) > 0)
	is.True(len(r["network"].(map[string]any)["requests"].([]any)) <= 1000)
}

// TestLiveScenarioClickFollowsItsNavigation: a click on a link to a page
// that answers slowly reports the page it led to as its after_url, as a
// browser automation's click waits for the navigation it started.
func TestLiveScenarioClickFollowsItsNavigation(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live browser tests skipped")
	}
	is := is.New(t)
	site := liveSite(t)
	tmp, err := os.MkdirTemp("/tmp", "rbs")
	is.NoErr(err)
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)
	cs := mcpClient(t)
	_, r := evidence(t, call(t, cs, "capture_browser_scenario", map[string]any{"browser": map[string]any{"mode": "launch"},
		"start_url": map[string]any{"url": site.URL + "/app/links"},
		"actions":   []any{map[string]any{"step_id": "follow", "action": "click", "locator": map[string]any{"css": map[string]any{"selector": "#nav"}}}},
		"capture":   map[string]any{"after_each_step": []any{"url", "dom", "screenshot", "history"}}}))
	steps := r["steps"].([]any)
	is.Equal(len(steps), 2)
	step := steps[1].(map[string]any)
	is.Equal(step["status"], "completed")
	url := func(k string) string { return fmt.Sprint(step[k].(map[string]any)["url"]) }
	is.True(strings.HasSuffix(url("before_url"), "/app/links"))
	is.True(strings.HasSuffix(url("after_url"), "/app/slow")) // not /app/links
	// What the step captured is of the page the click led to.
	is.True(strings.Contains(fmt.Sprint(step["artifacts"].(map[string]any)["dom"]), "slow page"))
}
