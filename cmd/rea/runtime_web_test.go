package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/ports"
)

// TestLiveWebPageReconciled serves a small web application on loopback to
// an owned headless Chromium, inspects the page (inspect_web_page) and
// reconciles the page's scripts with the application's static analysis
// through a url-prefix mapping: the loaded scripts match by content and
// location, and the script the page never loads is not-observed-in-capture.
func TestLiveWebPageReconciled(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live browser tests skipped")
	}
	is := is.New(t)
	dir := t.TempDir()
	for p, body := range map[string]string{
		"package.json": `{"name":"web-fixture","version":"1.0.0","main":"app.js"}`,
		"index.html":   `<!doctype html><title>web</title><script src="app.js"></script><script type="module" src="mod.js"></script>`,
		"app.js":       "window.appLoaded = true;\n",
		"mod.js":       "import { label } from './lib.js';\nlocation.hash = label;\n",
		"lib.js":       "export const label = 'loaded';\n",
		"never.js":     "export const never = 1;\n",
	} {
		is.NoErr(os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644))
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: srv.URL + "/index.html"})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	var target string
	var seen []ports.BrowserTarget
	e := cdp.New(nil)
	for deadline := time.Now().Add(20 * time.Second); target == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if l, err := e.ListTargets(ctx, ports.BrowserListRequest{Endpoint: b.Endpoint()}); err == nil {
			seen = l.Targets
			for _, tg := range l.Targets {
				// mod.js sets the fragment once its import has loaded.
				if strings.HasPrefix(tg.URL, srv.URL+"/") && strings.HasSuffix(tg.URL, "#loaded") {
					target = tg.TargetID
				}
			}
		}
	}
	if target == "" {
		t.Fatalf("the fixture page never loaded its modules: %+v", seen)
	}
	cs := mcpClient(t)
	pgEv, _ := evidence(t, call(t, cs, "inspect_web_page", map[string]any{"cdp_endpoint": b.Endpoint(), "target_id": target, "observation_ms": 200}))
	anEv, _ := evidence(t, call(t, cs, "analyze_javascript_application", map[string]any{"path": dir}))
	_, rec := evidence(t, call(t, cs, "reconcile_javascript_runtime", map[string]any{
		"static_layers": []any{map[string]any{"role": "application", "analysis": map[string]any{"kind": "retained-evidence", "evidence_id": string(anEv.EvidenceID)},
			"runtime_mappings": []any{map[string]any{"kind": "url-prefix", "prefix": srv.URL + "/", "artifact_prefix": ""}}}},
		"runtime_observations": []any{map[string]any{"kind": "retained-evidence", "evidence_id": string(pgEv.EvidenceID)}},
	}))
	is.Equal(rec["runtime_captures"].([]any)[0].(map[string]any)["kind"], "browser")
	matched := 0
	for _, it := range rec["reconciliations"].([]any) {
		m := it.(map[string]any)
		is.Equal(m["status"], "matched")
		is.Equal(m["reason"], "content-and-location-match") // Chromium's V8 hashes the source text like Node's
		matched++
	}
	is.Equal(matched, 3) // app.js, mod.js, lib.js
	states := map[string]string{}
	for _, s := range rec["static_load_states"].([]any) {
		m := s.(map[string]any)
		states[m["path"].(string)] = m["state"].(string)
	}
	for _, f := range []string{"app.js", "mod.js", "lib.js"} {
		is.Equal(states[f], "loaded")
	}
	is.Equal(states["never.js"], "not-observed-in-capture")
}
