package main

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// callsJS makes requests through a keyed callee, two parenthesized ones
// (the form bundlers emit for an imported function's call), an optional
// call, a plain call far to the right of a minified line and an XHR, whose
// request V8 attributes to send() while its URL is at open().
var callsJS = `let n = 0;
function tick() {
  n++;
  window["fetch"]("/api/keyed");
  (0, window.fetch)("/api/member");
  (0, fetch)("/api/plain");
  fetch?.("/api/optional");
  var p="` + strings.Repeat("x", 3000) + `";if(p)fetch(p.slice(0,0)+"/api/far");
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
	is := is.New(t)
	cs, base, site := liveSession(t, "calls", callsJS)
	initiator, _ := initiators(t, cs, base, site, callsJS)
	is.Equal(len(initiator), 6)
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
		case "/api/keyed", "/api/member", "/api/plain", "/api/optional", "${}/api/far":
			is.Equal(loc, initiator[strings.TrimPrefix(v, "${}")]) // where V8 places the call
			found++
		case "/api/xhr":
			is.True(strings.HasPrefix(textAt(t, callsJS, loc[0], loc[1]), `open("GET", "/api/xhr")`))
			send, ok := e["send_location"].(map[string]any)
			is.True(ok) // the send() the request's initiator names
			is.Equal(at(send), initiator[v])
			found++
		}
	}
	is.Equal(found, 6)
}
