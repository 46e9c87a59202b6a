package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/ports"
)

// callsJS makes requests through a keyed callee, two parenthesized ones
// (the form bundlers emit for an imported function's call) and an XHR,
// whose request V8 attributes to send() while its URL is at open().
const callsJS = `let n = 0;
function tick() {
  n++;
  window["fetch"]("/api/keyed");
  (0, window.fetch)("/api/member");
  (0, fetch)("/api/plain");
  const x = new XMLHttpRequest();
  x.open("GET", "/api/xhr");
  x.send();
  if (n < 100) setTimeout(tick, 50);
}
tick();
`

// TestLiveCallSitesAgree: over MCP, analyze_web_bundle puts each fetch
// where inspect_web_page's initiator of its request does (V8's position:
// the parenthesis that opens the arguments of a keyed or parenthesized
// callee), and an XHR's endpoint at its open() call with send_location at
// the send() call the request's initiator names.
func TestLiveCallSitesAgree(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live browser tests skipped")
	}
	is := is.New(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><meta charset="utf-8"><script src="/calls.js"></script><title>calls</title><p>calls</p>`)
	})
	mux.HandleFunc("/calls.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		fmt.Fprint(w, callsJS)
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "{}") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: srv.URL + "/app"})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	t.Cleanup(func() { b.Close(ctx) })
	target := ""
	for deadline := time.Now().Add(20 * time.Second); target == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if l, err := cdp.New(nil).ListTargets(ctx, ports.BrowserListRequest{Endpoint: b.Endpoint()}); err == nil {
			for _, tg := range l.Targets {
				if strings.HasPrefix(tg.URL, srv.URL+"/app") && tg.Title == "calls" {
					target = tg.TargetID
				}
			}
		}
	}
	if target == "" {
		t.Fatal("the page never appeared")
	}
	cs := mcpClient(t)
	base := map[string]any{"cdp_endpoint": b.Endpoint(), "target_id": target}
	_, insp := evidence(t, call(t, cs, "inspect_web_page", map[string]any{"cdp_endpoint": b.Endpoint(), "target_id": target, "observation_ms": 500}))
	num := func(v any) int { return int(v.(float64)) }
	initiator := map[string][2]int{}
	for _, it := range insp["network"].(map[string]any)["requests"].([]any) {
		r := it.(map[string]any)
		in := r["initiator"].(map[string]any)
		path := strings.TrimPrefix(r["url"].(string), srv.URL)
		if _, seen := initiator[path]; !seen && strings.HasPrefix(path, "/api/") && in["line"] != nil {
			initiator[path] = [2]int{num(in["line"]), num(in["column"])}
			t.Logf("initiator of %s at %d:%d %q", path, num(in["line"]), num(in["column"]), textAt(t, callsJS, num(in["line"]), num(in["column"])))
		}
	}
	is.Equal(len(initiator), 4)
	is.True(strings.HasPrefix(textAt(t, callsJS, initiator["/api/keyed"][0], initiator["/api/keyed"][1]), `("/api/keyed")`))
	is.True(strings.HasPrefix(textAt(t, callsJS, initiator["/api/xhr"][0], initiator["/api/xhr"][1]), `send()`))

	_, bundle := evidence(t, call(t, cs, "analyze_web_bundle", base))
	at := func(loc map[string]any) [2]int { return [2]int{num(loc["line"]), num(loc["column"])} }
	found := 0
	for _, it := range bundle["observations"].(map[string]any)["endpoints"].([]any) {
		e := it.(map[string]any)
		loc := at(e["location"].(map[string]any))
		t.Logf("endpoint %v (%v) at %v %q", e["value"], e["kind"], loc, textAt(t, callsJS, loc[0], loc[1]))
		switch v := e["value"].(string); v {
		case "/api/keyed", "/api/member", "/api/plain":
			is.Equal(loc, initiator[v]) // where V8 places the call
			found++
		case "/api/xhr":
			is.True(strings.HasPrefix(textAt(t, callsJS, loc[0], loc[1]), `open("GET", "/api/xhr")`))
			send, ok := e["send_location"].(map[string]any)
			is.True(ok) // the send() the request's initiator names
			is.Equal(at(send), initiator[v])
			found++
		}
	}
	is.Equal(found, 4)
}
