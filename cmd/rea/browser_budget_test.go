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

// bigScript is a valid script of n bytes dense in the characters a JSON
// response escapes (quotes, <, >, &, line breaks), as minified bundles are.
func bigScript(n int) string {
	var b strings.Builder
	b.WriteString("var a=0,b=1,c=0,d=1,s=\"\",t=0;\n")
	for i := 0; ; i++ {
		line := fmt.Sprintf("if(a<b&&c>d){s=\"<div class=\\\"x%d\\\">\"+(t&1)}\n", i)
		if b.Len()+len(line) > n {
			break
		}
		b.WriteString(line)
	}
	for b.Len() < n {
		b.WriteByte(' ')
	}
	return b.String()
}

// TestLiveInspectOfMegabytesOfScriptsAnswers: over MCP, inspect_web_page
// with include_script_sources and default limits on a served page with
// four scripts of just under 1 MiB each (3.9 MiB in all, under the
// engine's 4 MiB) answers instead of failing with resource_constraint: the
// largest texts are left out with their digests, and the capture says so.
func TestLiveInspectOfMegabytesOfScriptsAnswers(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live browser tests skipped")
	}
	is := is.New(t)
	js := bigScript(1<<20 - 8192)
	mux := http.NewServeMux()
	mux.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><script src="/c0.js"></script><script src="/c1.js"></script><script src="/c2.js"></script><script src="/c3.js"></script><title>big</title><p>big</p>`)
	})
	for i := range 4 {
		src := js + fmt.Sprintf("\n//%d\n", i) // four distinct scripts
		mux.HandleFunc(fmt.Sprintf("/c%d.js", i), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, src)
		})
	}
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
				if strings.HasPrefix(tg.URL, srv.URL+"/app") && tg.Title == "big" { // the title follows the scripts
					target = tg.TargetID
				}
			}
		}
	}
	if target == "" {
		t.Fatal("the page never appeared")
	}
	cs := mcpClient(t)
	r := call(t, cs, "inspect_web_page", map[string]any{"cdp_endpoint": b.Endpoint(), "target_id": target, "include_script_sources": true, "observation_ms": 200})
	if r.isError {
		t.Fatalf("the default call failed: %.600s", r.text)
	}
	_, insp := evidence(t, r)
	kept, left := 0, 0
	for _, it := range insp["scripts"].(map[string]any)["items"].([]any) {
		src := it.(map[string]any)["source"].(map[string]any)
		switch {
		case src["included"] == true:
			kept++
			is.True(strings.HasPrefix(src["artifact"].(map[string]any)["text"].(string), js[:100]))
		case strings.HasPrefix(src["reason"].(string), "left out to fit the response budget (sha256 "):
			left++
		}
	}
	is.Equal(kept+left, 4)
	is.True(left > 0)
	is.True(strings.Contains(fmt.Sprint(insp["limitations"]), "allowed_origins"))
	t.Logf("%d script texts kept, %d left out; response %d bytes", kept, left, len(r.text))
}
