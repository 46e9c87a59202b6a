package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/matryer/is"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/adapters/cdp"
	"rea/ports"
)

// locJS puts a fetch and a console call on lines that hold non-ASCII text
// before them, so a byte column, a rune column and a UTF-16 column differ.
const locJS = `let n = 0;
function tick() {
  n++;
  const a = "é😀"; fetch("/api/loc");
  const b = "😀"; console.log("loc", n);
  if (n < 100) setTimeout(tick, 50);
}
tick();
`

// textAt is the served script's text at a 1-based line and a 0-based
// UTF-16 column (the oracle for every location rea reports).
func textAt(t *testing.T, src string, line, col int) string {
	t.Helper()
	lines := strings.Split(src, "\n")
	if line < 1 || line > len(lines) {
		t.Fatalf("line %d is not in the script", line)
	}
	u := utf16.Encode([]rune(lines[line-1]))
	if col < 0 || col > len(u) {
		t.Fatalf("column %d is not on line %d", col, line)
	}
	return string(utf16.Decode(u[col:]))
}

// livePage serves an HTML page titled title that loads script (its text
// js, at /NAME.js) and answers {} under /api/, launches Chromium on it with
// extra flags, and returns the DevTools endpoint, the page's target and
// the server's URL; it skips without Chromium.
func livePage(t *testing.T, title, js string, extra ...string) (endpoint, target, site string) {
	t.Helper()
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live browser tests skipped")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><meta charset="utf-8"><script src="/%s.js"></script><title>%s</title><p>%s</p>`, title, title, title)
	})
	mux.HandleFunc("/"+title+".js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		fmt.Fprint(w, js)
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "{}") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: srv.URL + "/app", ExtraArgs: extra})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	t.Cleanup(func() { b.Close(ctx) })
	for deadline := time.Now().Add(20 * time.Second); target == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if l, err := cdp.New(nil).ListTargets(ctx, ports.BrowserListRequest{Endpoint: b.Endpoint()}); err == nil {
			for _, tg := range l.Targets {
				if strings.HasPrefix(tg.URL, srv.URL+"/app") && tg.Title == title {
					target = tg.TargetID
				}
			}
		}
	}
	if target == "" {
		t.Fatal("the page never appeared")
	}
	return b.Endpoint(), target, srv.URL
}

// liveSession is livePage with an MCP client: the client, the page's
// arguments (cdp_endpoint, target_id) and the server's URL.
func liveSession(t *testing.T, title, js string, extra ...string) (cs *sdk.ClientSession, base map[string]any, site string) {
	t.Helper()
	endpoint, target, site := livePage(t, title, js, extra...)
	return mcpClient(t), map[string]any{"cdp_endpoint": endpoint, "target_id": target}, site
}

// num reads a JSON number as an int.
func num(v any) int { return int(v.(float64)) }

// initiators inspects the page for 500 ms and returns the result and, by
// URL path under /api/ (site cut off), the first initiator position of
// each request; js is the served script, whose text there the log shows.
func initiators(t *testing.T, cs *sdk.ClientSession, base map[string]any, site, js string) (map[string][2]int, map[string]any) {
	t.Helper()
	_, insp := evidence(t, call(t, cs, "inspect_web_page", map[string]any{"cdp_endpoint": base["cdp_endpoint"], "target_id": base["target_id"], "observation_ms": 500}))
	out := map[string][2]int{}
	for _, it := range insp["network"].(map[string]any)["requests"].([]any) {
		r := it.(map[string]any)
		in := r["initiator"].(map[string]any)
		path := strings.TrimPrefix(r["url"].(string), site)
		if _, seen := out[path]; !seen && strings.HasPrefix(path, "/api/") && in["line"] != nil {
			out[path] = [2]int{num(in["line"]), num(in["column"])}
			t.Logf("initiator of %s at %d:%d %q", path, num(in["line"]), num(in["column"]), textAt(t, js, num(in["line"]), num(in["column"])))
		}
	}
	return out, insp
}

// TestLiveCodeLocationsAgree: over MCP, inspect_web_page's network
// initiator and console entry and analyze_web_bundle's endpoint name
// places in the served script with one convention (line 1-based, column
// 0-based in UTF-16 code units): each points at its text, and the bundle
// analysis puts the fetch where the initiator does (V8's call position).
func TestLiveCodeLocationsAgree(t *testing.T) {
	is := is.New(t)
	cs, base, site := liveSession(t, "loc", locJS)
	initiator, insp := initiators(t, cs, base, site, locJS)
	init, ok := initiator["/api/loc"]
	is.True(ok)
	initLine, initCol := init[0], init[1]
	is.True(strings.HasPrefix(textAt(t, locJS, initLine, initCol), `fetch("/api/loc")`))
	events := insp["console"].(map[string]any)["events"].([]any)
	is.True(len(events) > 0)
	ev := events[0].(map[string]any)
	t.Logf("console %v:%v %q", ev["line"], ev["column"], textAt(t, locJS, num(ev["line"]), num(ev["column"])))
	is.True(strings.HasPrefix(textAt(t, locJS, num(ev["line"]), num(ev["column"])), `log("loc", n)`))

	_, bundle := evidence(t, call(t, cs, "analyze_web_bundle", base))
	found := false
	for _, it := range bundle["observations"].(map[string]any)["endpoints"].([]any) {
		e := it.(map[string]any)
		loc := e["location"].(map[string]any)
		t.Logf("endpoint %v at %v:%v %q", e["value"], loc["line"], loc["column"], textAt(t, locJS, num(loc["line"]), num(loc["column"])))
		if e["value"] == "/api/loc" {
			// the fetch the request came from, where V8 places it
			is.Equal([]int{num(loc["line"]), num(loc["column"])}, []int{initLine, initCol})
			found = true
		}
	}
	is.True(found)
}

// wmJS registers one WebMCP tool after non-ASCII text on the same line,
// through whichever object this Chromium build exposes the API on.
const wmJS = `const api = document.modelContext ? "document" : "navigator";
if (api === "document") {
  const a = "é😀"; const p = document.modelContext.registerTool({ name: "loc_tool", description: "d", inputSchema: { type: "object" }, execute: async () => ({}) });
  if (p && p.catch) p.catch(() => {});
} else {
  const b = "😀"; navigator.modelContext.registerTool({ name: "loc_tool", description: "d", inputSchema: { type: "object" }, execute: async () => ({}) });
}
`

// TestLiveWebMCPLocationAgrees: one registerTool call is one location.
// discover_webmcp_tools reports V8's position of the call (its stack
// trace's top frame) and analyze_web_bundle the declaration it parsed;
// both must name the same line and column, the callee's name
// registerTool, as rea places a call with no literal argument.
func TestLiveWebMCPLocationAgrees(t *testing.T) {
	is := is.New(t)
	cs, base, _ := liveSession(t, "wm", wmJS, "--enable-features=WebMCPTesting,WebMCP")
	_, disc := evidence(t, call(t, cs, "discover_webmcp_tools", map[string]any{"cdp_endpoint": base["cdp_endpoint"], "target_id": base["target_id"], "observation_ms": 300}))
	if disc["status"] != "available" {
		t.Skipf("this Chromium build has no WebMCP domain: %v", disc["unavailable_reason"])
	}
	var src map[string]any
	for _, it := range disc["tools"].(map[string]any)["items"].([]any) {
		if tool := it.(map[string]any); tool["name"] == "loc_tool" {
			src, _ = tool["registration_source"].(map[string]any)
		}
	}
	is.True(src != nil) // the discovered tool carries V8's call position
	line, col := num(src["line"]), num(src["column"])
	t.Logf("discover_webmcp_tools %d:%d %q", line, col, textAt(t, wmJS, line, col))
	is.True(strings.HasPrefix(textAt(t, wmJS, line, col), "registerTool("))

	_, bundle := evidence(t, call(t, cs, "analyze_web_bundle", base))
	found := false
	for _, it := range bundle["observations"].(map[string]any)["webmcp_declarations"].([]any) {
		d := it.(map[string]any)
		loc := d["location"].(map[string]any)
		t.Logf("analyze_web_bundle %v at %v:%v %q", d["name"], loc["line"], loc["column"], textAt(t, wmJS, num(loc["line"]), num(loc["column"])))
		if num(loc["line"]) == line {
			is.Equal(num(loc["column"]), col) // the same call, the same column
			found = true
		}
	}
	is.True(found)
}
