package cdp_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

// whenArmed is ctx with a progress sink whose channel closes when an
// observation reports that its window began (phase "observe"): a live test
// acts on the page then, not after a fixed sleep.
func whenArmed(ctx context.Context) (context.Context, <-chan struct{}) {
	armed := make(chan struct{})
	var once sync.Once
	return ports.WithProgress(ctx, progressFunc(func(phase, _ string) {
		if phase == "observe" {
			once.Do(func() { close(armed) })
		}
	})), armed
}

// awaitArmed waits for armed, for at most 30 s.
func awaitArmed(t *testing.T, armed <-chan struct{}) {
	t.Helper()
	select {
	case <-armed:
	case <-time.After(30 * time.Second):
		t.Fatal("the observation never reported its window")
	}
}

// liveBrowser launches a headless Chromium whose first tab shows the
// fixture site, or skips the test when Chromium is missing.
func liveBrowser(t *testing.T) (endpoint, site string, targetID string) {
	t.Helper()
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	srv := fixtureSite(t)
	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: srv.URL + "/app"})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	// The page's module script has run once its document fires load:
	// waited for on the browser's events, for at most 20 s (before, the
	// list was polled and the script given a fixed 300 ms).
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	id, err := cdp.WaitForLoadedPage(wctx, b.Endpoint(), srv.URL+"/app")
	if err != nil {
		t.Fatalf("the fixture page: %v", err)
	}
	return b.Endpoint(), srv.URL, id
}

// driver opens a tab of its own with chromedp, for tests that need the
// page to do something while a passive tool watches.
func driver(t *testing.T, endpoint string) (context.Context, string) {
	t.Helper()
	actx, cancelA := remote.NewAllocator(context.Background(), endpoint)
	t.Cleanup(cancelA)
	tctx, cancelT := chromedp.NewContext(actx, chromedp.WithLogf(func(string, ...any) {}), chromedp.WithErrorf(func(string, ...any) {}))
	t.Cleanup(cancelT)
	if err := chromedp.Do(tctx); err != nil {
		t.Fatalf("open a driver tab: %v", err)
	}
	return tctx, string(chromedp.FromContext(tctx).Target.TargetID)
}

func TestLive(t *testing.T) {
	endpoint, site, tid := liveBrowser(t)
	e := cdp.New(nil)
	ctx := context.Background()
	ref := ports.BrowserTargetRef{Endpoint: endpoint, TargetID: tid}

	t.Run("list", func(t *testing.T) {
		is := is.New(t)
		list, err := e.ListTargets(ctx, ports.BrowserListRequest{Endpoint: endpoint, AllowedOrigins: []string{site}})
		is.NoErr(err)
		is.True(strings.HasPrefix(list.Browser.Product, "HeadlessChrome") || strings.Contains(list.Browser.Product, "Chrom"))
		is.True(slices.ContainsFunc(list.Targets, func(tg ports.BrowserTarget) bool { return tg.TargetID == tid && tg.Origin == site }))
	})

	t.Run("inspect default keeps no secret", func(t *testing.T) {
		is := is.New(t)
		c, err := e.InspectPage(ctx, ports.BrowserInspectRequest{Target: ref, ObservationMS: 700})
		is.NoErr(err)
		is.True(len(c.Frames) >= 1)
		is.Equal(c.Frames[0].Origin, site)
		is.True(c.DOM.TotalNodes > 5)
		is.True(slices.Contains(c.DOM.LinkRels, "mcp"))
		is.True(slices.ContainsFunc(c.Scripts, func(s ports.BrowserScript) bool {
			return strings.HasSuffix(s.URL, "/app/app.js") && s.IsModule && s.SourceMapURL == site+"/app/app.js.map" && s.Source == nil
		}))
		is.True(slices.ContainsFunc(c.Network.Requests, func(r ports.BrowserRequest) bool {
			return r.Method == "POST" && strings.Contains(r.URL, "/api") && r.Status != nil && *r.Status == 200
		}))
		is.True(len(c.Console) > 0)
		is.True(len(c.Network.WebSocketEvents) > 0 || len(c.Network.WebSockets) > 0)
		is.Equal(c.Accessibility.TextCapture, "not_approved")
		is.True(c.Accessibility.TotalNodes > 0)
		is.Equal(c.Storage.Origin, site)
		is.Equal(c.Storage.LocalStorageKeys, nil) // keys not requested
		raw := dump(c)
		for _, secret := range []string{"ax-private-label-value", "fixture-bearer-token", "fixture-secret-value", "idb-secret", `"user"`} {
			if strings.Contains(raw, secret) {
				t.Errorf("default capture retained %q", secret)
			}
		}
	})

	t.Run("inspect opt-in", func(t *testing.T) {
		is := is.New(t)
		c, err := e.InspectPage(ctx, ports.BrowserInspectRequest{Target: ref, ObservationMS: 700,
			IncludeScriptSources: true, IncludeConsoleText: true, IncludeAccessibilityText: true,
			IncludeStorageKeys: true, IncludeStorageFingerprints: true, IncludeJSONBodyShapes: true, IncludeWebSocketShapes: true})
		is.NoErr(err)
		i := slices.IndexFunc(c.Scripts, func(s ports.BrowserScript) bool { return strings.HasSuffix(s.URL, "/app/app.js") })
		is.True(i >= 0)
		is.True(bytes.Contains(c.Scripts[i].Source, []byte("pushState")))
		is.True(slices.ContainsFunc(c.Accessibility.Nodes, func(n ports.BrowserAXNode) bool {
			return n.Name != nil && *n.Name == "ax-private-label-value" && n.Role == "button"
		}))
		// A plain text input is editable and focusable; Chromium also
		// lists readonly, required, multiline and invalid as false.
		field := slices.IndexFunc(c.Accessibility.Nodes, func(n ports.BrowserAXNode) bool { return n.Name != nil && *n.Name == "name-field" })
		is.True(field >= 0)
		is.Equal(c.Accessibility.Nodes[field].States, []string{"editable", "focusable"})
		is.True(slices.ContainsFunc(c.Console, func(ev ports.BrowserConsoleEvent) bool {
			return len(ev.Values) > 0 && strings.Contains(ev.Values[0].Text, "Bearer")
		}))
		is.True(slices.ContainsFunc(c.Network.Requests, func(r ports.BrowserRequest) bool {
			return bytes.Contains(r.RequestBody, []byte(`"items"`)) && r.ResponseBodyStatus == "included" && bytes.Contains(r.ResponseBody, []byte(`"ok"`))
		}))
		is.True(slices.ContainsFunc(c.Network.WebSocketEvents, func(w ports.BrowserWebSocketEvent) bool {
			return bytes.Contains(w.Payload, []byte(`"kind"`))
		}))
		is.True(slices.Contains(c.Storage.LocalStorageKeys, "fixture-key"))
		is.True(slices.Contains(c.Storage.IndexedDBNames, "fixture-db"))
		is.True(slices.ContainsFunc(c.Storage.Fingerprints, func(f ports.BrowserStorageFingerprint) bool {
			return f.Scope == "local_storage" && f.Identity["key"] == "fixture-key" && len(f.ValueSHA256) == 64
		}))
		is.True(slices.Contains(c.Storage.CacheNames, "fixture-cache"))
		for _, scope := range []string{"indexed_db_schema", "indexed_db_record", "cache_entry", "session_storage"} {
			if !slices.ContainsFunc(c.Storage.Fingerprints, func(f ports.BrowserStorageFingerprint) bool { return f.Scope == scope && f.Complete }) {
				t.Errorf("no complete %s fingerprint in %v", scope, c.Storage.Fingerprints)
			}
		}
		for _, secret := range []string{"fixture-secret-value", "idb-secret", "cached-body"} {
			is.True(!strings.Contains(dump(c.Storage), secret))
		}
	})

	t.Run("screenshot", func(t *testing.T) {
		is := is.New(t)
		s, err := e.CaptureScreenshot(ctx, ports.BrowserScreenshotRequest{Target: ref})
		is.NoErr(err)
		img, err := png.Decode(bytes.NewReader(s.PNG))
		is.NoErr(err)
		is.Equal(img.Bounds().Dx(), s.Width)
		is.Equal(img.Bounds().Dy(), s.Height)
	})

	t.Run("webmcp", func(t *testing.T) {
		is := is.New(t)
		d, err := e.DiscoverWebMCPTools(ctx, ports.WebMCPRequest{Target: ref})
		is.NoErr(err)
		switch d.Status {
		case "unavailable":
			is.True(d.UnavailableReason != "")
		case "available":
			t.Logf("WebMCP available: %d tools", len(d.Tools))
		default:
			t.Fatalf("status %q", d.Status)
		}
	})

	t.Run("tall page screenshot is viewport sized", func(t *testing.T) {
		is := is.New(t)
		dctx, did := driver(t, endpoint)
		is.NoErr(chromedp.Do(dctx, chromedp.Navigate(site+"/tall")))
		s, err := e.CaptureScreenshot(ctx, ports.BrowserScreenshotRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: did}})
		is.NoErr(err)
		is.True(s.Height < 20000)
		is.True(s.Width*s.Height <= 32_000_000)
	})

	// observeWhile observes a new tab at /app/other for 2.5 s while it
	// navigates to paths in turn.
	observeWhile := func(t *testing.T, paths ...string) *ports.BrowserSessionTimeline {
		t.Helper()
		is := is.New(t)
		dctx, did := driver(t, endpoint)
		is.NoErr(chromedp.Do(dctx, chromedp.Navigate(site+"/app/other")))
		var wg sync.WaitGroup
		var tl *ports.BrowserSessionTimeline
		var oerr error
		octx, armed := whenArmed(ctx)
		wg.Go(func() {
			tl, oerr = e.ObserveSession(octx, ports.BrowserObserveRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: did}, ObservationMS: 2500})
		})
		awaitArmed(t, armed)
		for _, p := range paths {
			is.NoErr(chromedp.Do(dctx, chromedp.Navigate(site+p)))
		}
		wg.Wait()
		is.NoErr(oerr)
		return tl
	}

	t.Run("observe session", func(t *testing.T) {
		is := is.New(t)
		tl := observeWhile(t, "/app")
		is.Equal(tl.Window.EndReason, "window_elapsed")
		types := map[string]int{}
		for _, ev := range tl.Timeline {
			types[ev.Type]++
		}
		is.True(types["navigation_committed"] >= 1)
		is.True(types["same_document_navigation"] >= 1)
		is.True(types["lifecycle"] >= 1)
		is.True(tl.Target.FinalURL != nil && strings.HasPrefix(*tl.Target.FinalURL, site+"/app"))
	})

	// A navigation to a missing page commits like any other: the commit
	// carries the document's status, and a good page's is 200.
	t.Run("observe session error page", func(t *testing.T) {
		is := is.New(t)
		tl := observeWhile(t, "/app/missing", "/app/other")
		var got []string
		for _, ev := range tl.Timeline {
			if ev.Type == "navigation_committed" && ev.URL != nil {
				st := "null"
				if ev.HTTPStatus != nil {
					st = strconv.Itoa(*ev.HTTPStatus)
				}
				got = append(got, strings.TrimPrefix(*ev.URL, site)+" "+st)
			}
		}
		is.Equal(got, []string{"/app/missing 404", "/app/other 200"})
	})

	t.Run("target closed during observation", func(t *testing.T) {
		is := is.New(t)
		actx, cancelA := remote.NewAllocator(context.Background(), endpoint)
		defer cancelA()
		tctx, closeTab := chromedp.NewContext(actx, chromedp.WithLogf(func(string, ...any) {}), chromedp.WithErrorf(func(string, ...any) {}))
		is.NoErr(chromedp.Do(tctx, chromedp.Navigate(site+"/app/other")))
		did := string(chromedp.FromContext(tctx).Target.TargetID)
		time.AfterFunc(500*time.Millisecond, closeTab)
		tl, err := e.ObserveSession(ctx, ports.BrowserObserveRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: did}, ObservationMS: 20000})
		is.NoErr(err)
		is.Equal(tl.Window.EndReason, "target_terminated")
		is.Equal(tl.Target.FinalURL, nil)
		is.Equal(tl.Timeline[len(tl.Timeline)-1].Type, "target_terminated")
	})

	t.Run("target closed during inspection", func(t *testing.T) {
		is := is.New(t)
		actx, cancelA := remote.NewAllocator(context.Background(), endpoint)
		defer cancelA()
		tctx, closeTab := chromedp.NewContext(actx, chromedp.WithLogf(func(string, ...any) {}), chromedp.WithErrorf(func(string, ...any) {}))
		is.NoErr(chromedp.Do(tctx, chromedp.Navigate(site+"/app/other")))
		did := string(chromedp.FromContext(tctx).Target.TargetID)
		time.AfterFunc(500*time.Millisecond, closeTab)
		_, err := e.InspectPage(ctx, ports.BrowserInspectRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: did}, ObservationMS: 10000})
		is.Equal(code(t, err), ports.BrowserDisconnected)
		is.True(strings.Contains(err.Error(), "target_terminated"))
	})

	t.Run("out of scope navigation", func(t *testing.T) {
		is := is.New(t)
		dctx, did := driver(t, endpoint)
		is.NoErr(chromedp.Do(dctx, chromedp.Navigate(site+"/app/other")))
		_, err := e.InspectPage(ctx, ports.BrowserInspectRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: did, AllowedOrigins: []string{"http://127.0.0.2:1"}}})
		be, ok := ports.AsBrowserError(err)
		is.True(ok)
		is.Equal(be.Code, ports.BrowserTargetNotAllowed)
	})

	t.Run("cancel detaches", func(t *testing.T) {
		is := is.New(t)
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(300*time.Millisecond, cancel)
		_, err := e.InspectPage(cctx, ports.BrowserInspectRequest{Target: ref, ObservationMS: 5000})
		be, ok := ports.AsBrowserError(err)
		is.True(ok)
		is.Equal(be.Code, ports.BrowserCancelled)
		// the browser still serves and the target is not attached any more
		list, err := e.ListTargets(ctx, ports.BrowserListRequest{Endpoint: endpoint})
		is.NoErr(err)
		is.True(slices.ContainsFunc(list.Targets, func(tg ports.BrowserTarget) bool { return tg.TargetID == tid }))
	})
}

type recordingLauncher struct {
	mu       sync.Mutex
	browsers []cdp.OwnedBrowser
}

func (r *recordingLauncher) Launch(ctx context.Context, spec cdp.LaunchSpec) (cdp.OwnedBrowser, error) {
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, spec)
	if err == nil {
		r.mu.Lock()
		r.browsers = append(r.browsers, b)
		r.mu.Unlock()
	}
	return b, err
}

// checkNothingLeft checks that the one browser r launched left nothing: no
// process of its group or naming its profile, no profile directory, no
// temporary entry that was not among before (tempEntries before the run).
func (r *recordingLauncher) checkNothingLeft(t *testing.T, before []string) {
	t.Helper()
	is := is.New(t)
	r.mu.Lock()
	browsers := append([]cdp.OwnedBrowser(nil), r.browsers...)
	r.mu.Unlock()
	is.Equal(len(browsers), 1)
	root := filepath.Dir(browsers[0].ProfileDir())
	_, err := os.Lstat(root)
	is.True(os.IsNotExist(err))
	is.Equal(liveProcesses(browsers[0].PID(), root), nil)
	is.Equal(tempEntries(t), before)
}

func TestLiveScenario(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	site := fixtureSite(t).URL
	privateTemp(t)
	before := tempEntries(t)
	t.Setenv("REA_TEST_SCENARIO_SECRET", "s3cret-Value")
	rl := &recordingLauncher{}
	e := cdp.New(&cdp.Options{Launcher: rl})
	out, err := e.RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: site + "/app",
		Steps: []ports.BrowserScenarioStep{
			{StepID: "click", Action: "click", Selector: "#go"},
			{StepID: "type", Action: "type", Selector: "#name", Text: "hello"},
			{StepID: "secret", Action: "type", Selector: "#name", SecretID: "pw"},
			{StepID: "wait", Action: "wait", DurationMS: 300},
			{StepID: "away", Action: "navigate", URL: site + "/app/other"},
		},
		Secrets:              []ports.BrowserScenarioSecret{{SecretID: "pw", EnvironmentVariable: "REA_TEST_SCENARIO_SECRET"}},
		CaptureAfterEachStep: []string{"url", "dom"},
		CaptureAtEnd:         []string{"screenshot", "dom", "accessibility", "history"},
	})
	is.NoErr(err)
	is.Equal(len(out.Steps), 6)
	for _, s := range out.Steps {
		if s.Status != "completed" {
			t.Errorf("step %s: %s %s", s.StepID, s.Status, s.Error)
		}
	}
	last := out.Steps[5].Artifacts
	is.True(bytes.Contains(out.Steps[3].Artifacts.DOM, []byte("typed:hello[REDACTED:pw]")))
	is.True(!strings.Contains(dump(out), "s3cret-Value"))
	is.True(slices.ContainsFunc(out.Events, func(ev ports.BrowserScenarioEvent) bool { return ev.Text == "typed hello[REDACTED:pw]" }))
	is.True(last.URL != nil && *last.URL == site+"/app/other")
	is.True(len(last.Screenshot) > 0)
	is.True(bytes.Contains(last.DOM, []byte("<html")))
	is.True(bytes.Contains(last.Accessibility, []byte("RootWebArea")))
	is.True(last.History != nil && last.History.Length >= 2)
	is.True(slices.ContainsFunc(out.Events, func(ev ports.BrowserScenarioEvent) bool { return ev.Kind == "console" && ev.Text == "clicked" }))
	is.True(slices.ContainsFunc(out.Events, func(ev ports.BrowserScenarioEvent) bool {
		return ev.Kind == "request" && strings.Contains(ev.URL, "/api") && slices.Contains(ev.HeaderNames, "content-type")
	}))
	// A response carries its request's method and its own header names.
	is.True(slices.ContainsFunc(out.Events, func(ev ports.BrowserScenarioEvent) bool {
		return ev.Kind == "response" && strings.Contains(ev.URL, "/api") && ev.Method == "POST" && len(ev.HeaderNames) > 0
	}))
	// An uncaught error is its message and its stack, as the page's error
	// event gives them.
	is.True(slices.ContainsFunc(out.Events, func(ev ports.BrowserScenarioEvent) bool {
		return ev.Kind == "page-error" && ev.Text == "fixture click failure" && strings.HasPrefix(ev.Stack, "TypeError: fixture click failure\n    at ")
	}))

	rl.checkNothingLeft(t, before)
}

// privateTemp gives the test a temporary directory of its own (short enough
// for Chromium's sockets), so what other packages' tests leave in the shared
// one while this test runs cannot be taken for this test's leftovers.
func privateTemp(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "cdpt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("TMPDIR", dir)
}

func tempEntries(t *testing.T) []string {
	ents, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "rea-browser-") || strings.Contains(e.Name(), "chromium") || strings.Contains(e.Name(), "Chromium") {
			out = append(out, e.Name())
		}
	}
	return out
}

// liveProcesses lists live processes in group pgid or naming root, from /proc.
func liveProcesses(pgid int, root string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 3 || f[0] == "Z" {
			continue // a zombie has exited; only its parent's reaping is left
		}
		if f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
			continue
		}
		if cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(cl, []byte(root)) {
			out = append(out, pid)
		}
	}
	return out
}

func TestLiveScenarioCancelled(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	site := fixtureSite(t).URL
	privateTemp(t)
	before := tempEntries(t)
	rl := &recordingLauncher{}
	e := cdp.New(&cdp.Options{Launcher: rl})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &progressLog{}
	ctx = ports.WithProgress(ctx, p)
	go func() {
		// cancel once the long wait step is running
		for {
			p.mu.Lock()
			n := len(p.phases)
			p.mu.Unlock()
			if n >= 3 {
				time.Sleep(200 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	_, err := e.RunScenario(ctx, ports.BrowserScenarioRequest{StartURL: site + "/app",
		Steps: []ports.BrowserScenarioStep{{StepID: "long", Action: "wait", DurationMS: 10000, TimeoutMS: 20000}}})
	is.Equal(code(t, err), ports.BrowserCancelled)
	rl.checkNothingLeft(t, before)
}

func TestLiveScenarioForeignWebSockets(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	site := fixtureSite(t).URL
	foreign := httptest.NewServer(http.HandlerFunc(cdptest.EchoWebSocket))
	defer foreign.Close()
	port := foreign.URL[strings.LastIndexByte(foreign.URL, ':')+1:]
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: site + "/foreign?port=" + port,
		Steps:    []ports.BrowserScenarioStep{{StepID: "wait", Action: "wait", DurationMS: 700}},
	})
	is.NoErr(err)
	is.True(slices.ContainsFunc(out.Limitations, func(l string) bool { return strings.Contains(l, "cannot route or block WebSockets") }))
	opened, frames := 0, 0
	for _, ev := range out.Events {
		switch ev.Kind {
		case "websocket-opened":
			opened++
			is.True(strings.HasPrefix(ev.URL, "ws://"+strings.TrimPrefix(site, "http://")))
		case "websocket-frame-sent", "websocket-frame-received":
			frames++
		}
		is.True(!strings.Contains(ev.URL, ":"+port+"/"))
	}
	is.Equal(opened, 1)  // the in-scope socket only
	is.True(frames >= 2) // "own" sent and echoed; the foreign socket's frames are left out
	is.True(frames <= 2)
}

// A request the scenario's origin policy refuses is reported as a failed
// request with its method and origin (not its path), and says why.
func TestLiveScenarioBlockedRequestNamesItsOrigin(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer foreign.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><script>fetch(%q, {method: "POST"}).catch(() => {});</script></body></html>`, foreign.URL+"/orders/create?token=x")
	}))
	defer page.Close()
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: page.URL + "/",
		Steps:    []ports.BrowserScenarioStep{{StepID: "wait", Action: "wait", DurationMS: 500}},
	})
	is.NoErr(err)
	i := slices.IndexFunc(out.Events, func(ev ports.BrowserScenarioEvent) bool { return ev.Kind == "request-failed" })
	is.True(i >= 0)
	ev := out.Events[i]
	is.Equal(ev.URL, foreign.URL) // the origin alone
	is.Equal(ev.Method, "POST")
	is.True(strings.HasPrefix(ev.Failure, "blocked: the origin is outside allowed_origins"))
	is.True(!strings.Contains(dump(out), "/orders/create"))
}

// A scenario's WebSocket frame events name their socket and tell text from
// binary: a text frame keeps its payload, a binary one its decoded size.
func TestLiveScenarioWebSocketFrames(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	site := fixtureSite(t).URL
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: site + "/frames",
		Steps:    []ports.BrowserScenarioStep{{StepID: "wait", Action: "wait", DurationMS: 500}},
	})
	is.NoErr(err)
	socket := "ws://" + strings.TrimPrefix(site, "http://") + "/ws"
	var text, binary []ports.BrowserScenarioEvent
	for _, ev := range out.Events {
		if !strings.HasPrefix(ev.Kind, "websocket-frame-") {
			continue
		}
		is.Equal(ev.URL, socket) // the frame names its socket
		if ev.PayloadBinary {
			binary = append(binary, ev)
		} else {
			text = append(text, ev)
		}
	}
	is.Equal(len(text), 2)   // sent and echoed
	is.Equal(len(binary), 2) // sent and echoed
	for _, ev := range text {
		is.Equal(ev.Text, `{"kind":"hello","n":1}`)
		is.Equal(ev.PayloadBytes, len(ev.Text))
		is.True(!ev.PayloadTruncated)
	}
	for _, ev := range binary {
		is.Equal(ev.Text, "")
		is.Equal(ev.PayloadBytes, 3) // decoded, not base64
	}
}

// Frames of a WebSocket opened before the attach have no URL Chromium
// reports, so they are left out; the capture counts them and says so
// rather than showing an empty list as if the page were silent.
func TestLiveInspectCountsFramesOfEarlierSockets(t *testing.T) {
	endpoint, site, _ := liveBrowser(t)
	is := is.New(t)
	tctx, tid := driver(t, endpoint)
	is.NoErr(chromedp.Do(tctx, chromedp.Navigate(site+"/stream")))
	streaming := func() bool { // the page sets its title once the socket is open
		list, err := cdp.New(nil).ListTargets(context.Background(), ports.BrowserListRequest{Endpoint: endpoint})
		return err == nil && slices.ContainsFunc(list.Targets, func(tg ports.BrowserTarget) bool { return tg.TargetID == tid && tg.Title == "streaming" })
	}
	for deadline := time.Now().Add(10 * time.Second); !streaming(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the /stream page never opened its socket")
		}
	}
	c, err := cdp.New(nil).InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: tid}, ObservationMS: 500})
	is.NoErr(err)
	is.Equal(len(c.Network.WebSockets), 0) // opened before the attach
	is.Equal(len(c.Network.WebSocketEvents), 0)
	i := slices.IndexFunc(c.Completeness.Excluded, func(x ports.BrowserExclusion) bool {
		return x.Section == "websocket_frames" && x.Reason == "unattributed_origin"
	})
	is.True(i >= 0)
	is.True(c.Completeness.Excluded[i].Count >= 2) // sent and echoed, every 50 ms
	is.True(slices.ContainsFunc(c.Limitations, func(l string) bool { return strings.Contains(l, "on sockets opened before the attach were left out") }))
}

// A wait_for_timeout longer than the step timeout waits its whole duration:
// the step timeout bounds what a step waits for, not a wait itself.
func TestLiveScenarioWaitLongerThanStepTimeout(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	site := fixtureSite(t).URL
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		// The step timeout also bounds the start page's navigation, so it
		// leaves room for a loaded machine (200 ms failed that step under
		// the whole suite on 2 cores).
		StartURL: site + "/app/other", StepTimeoutMS: 3000,
		Steps: []ports.BrowserScenarioStep{{StepID: "wait", Action: "wait", DurationMS: 3300}},
	})
	is.NoErr(err)
	is.Equal(out.Steps[0].Error, "") // the navigation
	is.Equal(out.Steps[1].Status, "completed")
	is.Equal(out.Steps[1].Error, "")
}

// A scenario that outlasts its duration limit returns what it recorded: the
// step the limit interrupted fails saying so, later steps are cancelled,
// and the events so far are kept, instead of a bare timeout error. The
// limit counts the browser's launch, which took past 3 s on a loaded
// machine (the start page's requests were then not in yet): 8 s leaves
// room, and the 10 s step still outlasts it.
func TestLiveScenarioDurationLimitKeepsTheCapture(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	site := fixtureSite(t).URL
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: site + "/app/other", DurationMS: 8000, CaptureAtEnd: []string{"url"},
		Steps: []ports.BrowserScenarioStep{{StepID: "short", Action: "wait", DurationMS: 10},
			{StepID: "long", Action: "wait", DurationMS: 10000}, {StepID: "after", Action: "wait", DurationMS: 10}},
	})
	is.NoErr(err)
	is.Equal(len(out.Steps), 4)
	i := slices.IndexFunc(out.Steps, func(s ports.BrowserScenarioStepResult) bool { return s.Status == "failed" })
	is.True(i >= 0)
	is.True(strings.HasPrefix(out.Steps[i].Error, "limits.duration_ms (8000 ms) ran out before this step finished"))
	last := out.Steps[3]
	is.Equal(last.Status, "cancelled")
	is.True(len(out.Events) > 0) // the start page's requests, kept
}

// An artifact that does not come within its wait is missing with a reason
// that says so, not "context deadline exceeded".
func TestLiveScenarioArtifactWaitReason(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	site := fixtureSite(t).URL
	old := cdp.SetArtifactWait(time.Nanosecond)
	defer cdp.SetArtifactWait(old)
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: site + "/app/other", CaptureAtEnd: []string{"dom", "history", "url"},
		Steps: []ports.BrowserScenarioStep{{StepID: "w", Action: "wait", DurationMS: 10}},
	})
	is.NoErr(err)
	a := out.Steps[1].Artifacts
	is.Equal(a.Missing["dom"], "not captured within 1ns (a very large page takes longer)")
	is.Equal(a.Missing["history"], "not captured within 1ns (a very large page takes longer)")
	is.True(a.URL != nil) // needs no browser call
}

// A page that runs debugger statements (an anti-debugging loop) goes on
// running while a passive capture watches it: the capture's Debugger skips
// every pause, so the page's requests in the window are seen. The page's
// timer runs every 2 ms so that a skip sent after Debugger.enable loses
// the race to a pause (it did in 4 of 5 runs; at 50 ms it mostly won).
func TestLiveInspectDoesNotPauseAtDebuggerStatements(t *testing.T) {
	endpoint, site, _ := liveBrowser(t)
	is := is.New(t)
	tctx, tid := driver(t, endpoint)
	is.NoErr(chromedp.Do(tctx, chromedp.Navigate(site+"/debugger")))
	c, err := cdp.New(nil).InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: tid}, ObservationMS: 700})
	is.NoErr(err)
	n := 0
	for _, r := range c.Network.Requests {
		if strings.Contains(r.URL, "/api?n=") {
			n++
		}
	}
	is.True(n >= 2) // a fetch every few ms; a paused page sends none
}

// A scenario's request and response events name the headers Chromium
// reports only in its ExtraInfo events: an agent asking what a login
// stores saw a response without set-cookie and the next request without
// cookie. Names only: no cookie value reaches the capture.
func TestLiveScenarioHeaderNamesIncludeCookies(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			w.Header().Set("Set-Cookie", "srv=cookie-value-1; Path=/; HttpOnly")
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"ok":true}`))
		case "/me":
			w.Write([]byte(`{}`))
		default:
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><body><script>fetch("/login", {method: "POST"}).then(() => fetch("/me"));</script></body></html>`))
		}
	}))
	defer page.Close()
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: page.URL + "/",
		Steps:    []ports.BrowserScenarioStep{{StepID: "wait", Action: "wait", DurationMS: 500}},
	})
	is.NoErr(err)
	names := map[string][]string{}
	for _, ev := range out.Events {
		if ev.Kind == "request" || ev.Kind == "response" {
			names[ev.Kind+" "+ev.URL[len(page.URL):]] = ev.HeaderNames
		}
	}
	is.True(slices.Contains(names["response /login"], "set-cookie"))
	is.True(slices.Contains(names["request /me"], "cookie"))
	is.True(!slices.Contains(names["request /login"], "cookie")) // no cookie was set before it
	is.True(!strings.Contains(dump(out), "cookie-value-1"))
}

// The storage artifact reads what the page stored through the browser:
// the cookies sent to the page (a script's and an HttpOnly one the server
// set), localStorage and sessionStorage, with a secret typed into a field
// and stored by the page replaced before core digests it.
func TestLiveScenarioStorageArtifact(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	t.Setenv("REA_TEST_STORAGE_PW", "pw-secret-42")
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			w.Header().Set("Set-Cookie", "srv=1; Path=/; HttpOnly; SameSite=Strict")
			w.Write([]byte(`{}`))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><input id="pw"><button id="go" onclick="` +
			`fetch('/login').then(() => { localStorage.setItem('token', 'tok-1'); localStorage.setItem('pw', document.getElementById('pw').value); ` +
			`sessionStorage.setItem('user', 'alice'); document.cookie = 'sid=s123; path=/'; })">go</button></body></html>`))
	}))
	defer page.Close()
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: page.URL + "/",
		Secrets:  []ports.BrowserScenarioSecret{{SecretID: "pw", EnvironmentVariable: "REA_TEST_STORAGE_PW"}},
		Steps: []ports.BrowserScenarioStep{{StepID: "pw", Action: "type", Selector: "#pw", SecretID: "pw"},
			{StepID: "go", Action: "click", Selector: "#go"}, {StepID: "wait", Action: "wait", DurationMS: 300}},
		CaptureAtEnd: []string{"storage"},
	})
	is.NoErr(err)
	last := out.Steps[len(out.Steps)-1]
	is.Equal(last.Artifacts.Missing, nil)
	st := last.Artifacts.Storage
	is.True(st != nil)
	cookies := map[string]ports.BrowserStoredCookie{}
	for _, c := range st.Cookies {
		cookies[c.Name] = c
	}
	is.Equal(cookies["sid"].Value, "s123")
	is.True(cookies["srv"].HTTPOnly)
	is.Equal(cookies["srv"].SameSite, "Strict")
	local := map[string]ports.BrowserStoredValue{}
	for _, v := range st.LocalStorage {
		local[v.Name] = v
	}
	is.Equal(local["token"], ports.BrowserStoredValue{Name: "token", Value: "tok-1"})
	is.Equal(local["pw"], ports.BrowserStoredValue{Name: "pw", Value: "[REDACTED:pw]", HadSecret: true})
	is.Equal(st.SessionStorage, []ports.BrowserStoredValue{{Name: "user", Value: "alice"}})
	is.True(!strings.Contains(dump(out), "pw-secret-42"))
	is.Equal(out.Steps[0].Artifacts.Storage, nil) // not asked for after each step
}

// A page that navigates itself out of the scope is blocked and left on
// Chromium's error page. Before, the step's after_url and url artifact named
// the refused URL with its path and query (which the failed request keeps
// out) as if the page had gone there; now they name its origin alone, and
// the other artifacts say the navigation was blocked.
func TestLiveScenarioBlockedNavigationKeepsItsPathOut(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("elsewhere")) }))
	defer foreign.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><body><script>setTimeout(() => { location.href = %q }, 100)</script></body></html>`, foreign.URL+"/account/42?token=x")
	}))
	defer page.Close()
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL:             page.URL + "/",
		Steps:                []ports.BrowserScenarioStep{{StepID: "wait", Action: "wait", DurationMS: 600}},
		CaptureAfterEachStep: []string{"url", "dom"},
	})
	is.NoErr(err)
	last := out.Steps[len(out.Steps)-1]
	is.Equal(last.AfterURL, foreign.URL)
	is.Equal(*last.Artifacts.URL, foreign.URL)
	is.True(strings.Contains(last.Artifacts.Missing["dom"], "was blocked"))
	is.True(!strings.Contains(dump(out), "/account/42"))
}

// A start page whose load event never fires (a script that never arrives)
// fails the start step; the error now names what was still loading, where
// it said only "did not load within 5s: context deadline exceeded".
func TestLiveScenarioLoadTimeoutNamesWhatIsLoading(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	release := make(chan struct{})
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/never.js" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><p>slow</p><script src="/never.js"></script></body></html>`))
	}))
	defer page.Close()
	defer close(release)
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL:      page.URL + "/",
		StepTimeoutMS: 1500,
		Steps:         []ports.BrowserScenarioStep{{StepID: "wait", Action: "wait", DurationMS: 10}},
	})
	is.NoErr(err)
	start := out.Steps[0]
	is.Equal(start.Status, "failed")
	is.True(strings.Contains(start.Error, "did not load within 1.5s"))
	is.True(strings.Contains(start.Error, "1 request(s) were still loading: "+page.URL+"/never.js"))
	is.True(strings.HasSuffix(start.Error, "a slower page needs a larger limits.step_timeout_ms (or the step's timeout_ms), at most 60000"))
}

// On a page of 20,000 flat elements Chromium's whole accessibility tree is
// over 8 MB, even at depth 1; with the message bound at 4 MiB it used to
// leave the section empty. Read node by node, the capture keeps max_ax_nodes
// nodes from the document's start and says the rest was not read.
func TestLiveInspectLargePageKeepsAccessibilityNodes(t *testing.T) {
	endpoint, site, _ := liveBrowser(t)
	is := is.New(t)
	old := cdp.SetMaxMessageBytes(4 << 20)
	defer cdp.SetMaxMessageBytes(old)
	tctx, tid := driver(t, endpoint)
	is.NoErr(chromedp.Do(tctx, chromedp.Navigate(site+"/large")))
	c, err := cdp.New(nil).InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: tid}, ObservationMS: 100, IncludeAccessibilityText: true})
	is.NoErr(err)
	is.True(c.DOM.TotalNodes > 40000)
	is.Equal(len(c.Accessibility.Nodes), 2000)
	is.True(slices.ContainsFunc(c.Accessibility.Nodes, func(n ports.BrowserAXNode) bool {
		return n.Name != nil && *n.Name == "first-button" && n.Role == "button"
	}))
	is.True(slices.Contains(c.Completeness.Truncated, "accessibility"))
	is.True(!slices.ContainsFunc(c.Completeness.Excluded, func(x ports.BrowserExclusion) bool { return x.Section == "accessibility" }))
	is.True(slices.ContainsFunc(c.Limitations, func(l string) bool {
		return strings.Contains(l, "was read node by node") && strings.Contains(l, "DOM nodes (max_ax_nodes 2000)")
	}))
}

// A screenshot reads document.visibilityState (no page script runs) to
// answer at once for a hidden page: a tab opened in the background reads
// "hidden", the front tab "visible". Headless Chromium still draws a hidden
// tab, late on a loaded machine, so its screenshot gets the full frame wait
// and succeeds.
func TestLiveScreenshotReadsVisibility(t *testing.T) {
	endpoint, site, tid := liveBrowser(t)
	is := is.New(t)
	ctx := context.Background()
	e := cdp.New(nil)
	// The read says "" (unknown) while the document is not there yet, as
	// on a loaded machine right after a navigation: ask again until it
	// knows, for at most 10 s.
	read := func(ref ports.BrowserTargetRef) string {
		var v string
		var err error
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if v, err = e.PageVisibility(ctx, ref); err == nil && v != "" || time.Now().After(deadline) {
				break
			}
		}
		is.NoErr(err)
		return v
	}
	is.Equal(read(ports.BrowserTargetRef{Endpoint: endpoint, TargetID: tid}), "visible")
	dctx, _ := driver(t, endpoint)
	bg := true
	created, err := chromedp.Call(dctx, target.CreateTarget, target.CreateTargetParams{URL: site + "/app/other", Background: &bg})
	is.NoErr(err)
	hidden := ports.BrowserTargetRef{Endpoint: endpoint, TargetID: string(created.TargetID)}
	is.Equal(read(hidden), "hidden")
	s, err := e.CaptureScreenshot(ctx, ports.BrowserScreenshotRequest{Target: hidden})
	is.NoErr(err)
	is.True(s.Width > 0)
}

// A scenario's accessibility artifact on a large page reads the tree node
// by node under inspect_web_page's bound (2000 nodes), as inspect_web_page
// does, instead of asking getFullAXTree for all of it (a 200k-element
// page's reply was 191 MB); its last line says what was not read.
func TestLiveScenarioLargePageReadsAccessibilityNodeByNode(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	site := fixtureSite(t).URL
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: site + "/large", CaptureAtEnd: []string{"accessibility"},
		Steps: []ports.BrowserScenarioStep{{StepID: "w", Action: "wait", DurationMS: 10}},
	})
	is.NoErr(err)
	a := out.Steps[1].Artifacts
	is.Equal(a.Missing["accessibility"], "")
	text := string(a.Accessibility)
	is.True(strings.Contains(text, `button "first-button"`))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	is.True(len(lines) <= 2001) // 2000 nodes at most, and the note
	last := lines[len(lines)-1]
	is.True(strings.Contains(last, "read node by node") && strings.Contains(last, "were not read"))
	is.Equal(a.Truncated, []string{"accessibility"}) // core lists it in truncated_sections
	t.Log(last)
}

// A page's own service worker registration is refused during a scenario:
// the call rejects with SecurityError, the worker's script is never
// fetched, and a limitation names the refused script. Before, the network
// bypassed workers but the registration succeeded unobserved and started a
// worker beside the page.
func TestLiveScenarioRefusesServiceWorkerRegistration(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	var mu sync.Mutex
	var swFetched int
	var outcome string
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sw.js":
			mu.Lock()
			swFetched++
			mu.Unlock()
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte(`self.addEventListener("fetch", () => {});`))
		case "/outcome":
			mu.Lock()
			outcome = r.URL.Query().Get("r")
			mu.Unlock()
			w.Write([]byte(`{}`))
		default:
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><body><script>navigator.serviceWorker.register("/sw.js?v=1")` +
				`.then(() => "registered", e => "rejected:" + e.name).then(r => fetch("/outcome?r=" + encodeURIComponent(r)));</script></body></html>`))
		}
	}))
	defer page.Close()
	out, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{
		StartURL: page.URL + "/",
		Steps:    []ports.BrowserScenarioStep{{StepID: "wait", Action: "wait", DurationMS: 700}},
	})
	is.NoErr(err)
	mu.Lock()
	defer mu.Unlock()
	is.Equal(outcome, "rejected:SecurityError")
	is.Equal(swFetched, 0)
	is.True(slices.Contains(out.Limitations, "The page called navigator.serviceWorker.register 1 time(s) ("+page.URL+"/sw.js?v=1); a scenario refuses service workers "+
		"(the call rejects with SecurityError and the network bypasses workers), so the page ran without one and no worker answered its requests."))
}

// A frame of another site (localhost inside a 127.0.0.1 page) runs in its
// own renderer process: the inspection lists it, marked out of process,
// with its parent the main frame, and names it in a limitation.
func TestLiveInspectListsOutOfProcessFrame(t *testing.T) {
	endpoint, _, _ := liveBrowser(t)
	is := is.New(t)
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><p>inner</p></body></html>`))
	}))
	defer inner.Close()
	innerURL := strings.Replace(inner.URL, "127.0.0.1", "localhost", 1) + "/frame.html"
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><iframe src="` + innerURL + `"></iframe></body></html>`))
	}))
	defer outer.Close()
	tctx, tid := driver(t, endpoint)
	is.NoErr(chromedp.Do(tctx, chromedp.Navigate(outer.URL+"/")))
	hasFrame := func() bool {
		ts, err := chromedp.Targets(tctx)
		return err == nil && slices.ContainsFunc(ts, func(x *target.Info) bool { return x.Type == "iframe" && x.URL == innerURL })
	}
	for deadline := time.Now().Add(10 * time.Second); !hasFrame(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Skip("Chromium ran the localhost frame in the page's process (no site isolation here)")
		}
	}
	c, err := cdp.New(nil).InspectPage(context.Background(), ports.BrowserInspectRequest{Target: ports.BrowserTargetRef{Endpoint: endpoint, TargetID: tid,
		AllowedOrigins: []string{outer.URL, strings.TrimSuffix(innerURL, "/frame.html")}}, ObservationMS: 100})
	is.NoErr(err)
	is.Equal(len(c.Frames), 2)
	is.Equal(c.Frames[1].URL, innerURL)
	is.Equal(c.Frames[1].ParentFrameID, c.Frames[0].FrameID)
	is.True(c.Frames[1].OutOfProcess)
	is.True(slices.ContainsFunc(c.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "1 frame(s) of another site run in their own renderer process ("+innerURL+")")
	}))
}
