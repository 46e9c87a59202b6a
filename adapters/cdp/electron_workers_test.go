package cdp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

// electronApp writes a renderer page and worker scripts into a fresh
// directory and returns its realpath (the file gate compares realpaths).
func electronApp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"index.html":  "<!doctype html><script src=renderer.js></script>\n",
		"renderer.js": "new Worker('outer.js');\n",
		"outer.js":    "new Worker('inner.js');\n",
		"inner.js":    "setInterval(() => {}, 1000);\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// electronInspect inspects the fake's page T1 of the application in dir.
func electronInspect(f *cdptest.Server, dir string) (*ports.ElectronPageCapture, error) {
	return cdp.NewRuntime(nil).InspectElectronPage(context.Background(), ports.ElectronInspectRequest{
		Endpoint: f.URL, TargetID: "T1", AllowedFileRoots: []string{dir}, ObservationMS: 20})
}

// electronPassive checks that the fake received only allowlisted methods
// and that a worker's session got nothing but Target.setAutoAttach.
func electronPassive(t *testing.T, f *cdptest.Server) {
	t.Helper()
	assertNeverSent(t, f)
	for _, m := range f.Methods() {
		if !slices.Contains(electronAllowed, m) {
			t.Errorf("the passive Electron inspection sent %s", m)
		}
	}
	for _, c := range f.Calls() {
		if c.SessionID != "" && c.SessionID != "S1" && c.Method != "Target.setAutoAttach" {
			t.Errorf("%s sent to session %s", c.Method, c.SessionID)
		}
	}
}

func workerExclusions(pc *ports.ElectronPageCapture) map[string]int {
	got := map[string]int{}
	for _, x := range pc.Completeness.Excluded {
		if x.Section == "workers" {
			got[x.Reason] = x.Count
		}
	}
	return got
}

// A renderer's dedicated worker, listed unnamed by Chromium, is named by
// auto-attach and then gated like any file: a script inside the
// application's files is kept with its path.
func TestElectronWorkerNamedByAutoAttach(t *testing.T) {
	dir := electronApp(t)
	other := electronApp(t) // an existing file outside the allowed root
	cases := []struct {
		name      string
		scriptURL string // what the browser fills in while attached
		opts      cdptest.Options
		want      string // the worker's file path, or "" when excluded
		excluded  string // the exclusion reason of the dedicated worker
	}{
		{name: "application file", scriptURL: "file://" + dir + "/outer.js", want: filepath.Join(dir, "outer.js")},
		{name: "page socket", scriptURL: "file://" + dir + "/outer.js", opts: cdptest.Options{NoBrowserSocket: true}, want: filepath.Join(dir, "outer.js")},
		{name: "outside the root", scriptURL: "file://" + other + "/outer.js", excluded: "outside_root"},
		{name: "missing file", scriptURL: "file://" + dir + "/gone.js", excluded: "unsupported_url"},
		{name: "blob script", scriptURL: "blob:file:///5f1c", excluded: "unsupported_url"},
		{name: "never named", scriptURL: "", excluded: "unattributed_origin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			opts := c.opts
			opts.Targets = []cdptest.Target{{ID: "T1", Type: "page", Title: "App", URL: "file://" + dir + "/index.html"}}
			chromiumWorkers(&opts, c.scriptURL, "")
			f := cdptest.New(&opts)
			defer f.Close()
			pc, err := electronInspect(f, dir)
			is.NoErr(err)
			electronPassive(t, f)
			want := []ports.ElectronWorker{}
			if c.want != "" {
				want = append(want, ports.ElectronWorker{TargetID: "DW", Type: "worker", FilePath: c.want})
			}
			is.Equal(pc.Workers, want)
			exclusions := map[string]int{"out_of_target_scope": 1} // the shared worker
			if c.excluded != "" {
				exclusions[c.excluded]++
			}
			is.Equal(workerExclusions(pc), exclusions)

			// Auto-attach goes to the page's session and is turned off
			// again; with every worker named, no worker session is asked.
			page := "S1"
			if opts.NoBrowserSocket {
				page = ""
			}
			sessions, on := autoAttachCalls(t, f)
			if c.name == "never named" {
				is.Equal(on, []bool{true, true, false})
				is.Equal(sessions, []string{page, "WS1", page})
			} else {
				is.Equal(on, []bool{true, false})
				is.Equal(sessions, []string{page, page})
			}
		})
	}
}

// A worker started by a worker is named from its parent's session. What
// the workers' sessions say is not the page's.
func TestElectronNestedWorkerNamed(t *testing.T) {
	is := is.New(t)
	dir := electronApp(t)
	opts := cdptest.Options{Targets: []cdptest.Target{{ID: "T1", Type: "page", URL: "file://" + dir + "/index.html"}},
		After: map[string][]cdptest.Event{"Target.setAutoAttach": {
			{Method: "Runtime.executionContextCreated", Session: "WS1", Params: map[string]any{"context": map[string]any{"id": 7, "origin": "", "name": "", "auxData": map[string]any{}}}},
			{Method: "Debugger.scriptParsed", Session: "WS1", Params: map[string]any{"scriptId": "w1", "url": "", "executionContextId": 7}},
			{Method: "Debugger.scriptParsed", Session: "WS2", Params: map[string]any{"scriptId": "w2", "url": "file://" + dir + "/inner.js", "executionContextId": 7}},
		}}}
	chromiumWorkers(&opts, "file://"+dir+"/outer.js", "file://"+dir+"/inner.js")
	f := cdptest.New(&opts)
	defer f.Close()
	pc, err := electronInspect(f, dir)
	is.NoErr(err)
	electronPassive(t, f)
	is.Equal(pc.Workers, []ports.ElectronWorker{
		{TargetID: "DW", Type: "worker", FilePath: filepath.Join(dir, "outer.js")},
		{TargetID: "DW2", Type: "worker", FilePath: filepath.Join(dir, "inner.js")},
	})
	sessions, on := autoAttachCalls(t, f)
	is.Equal(sessions, []string{"S1", "WS1", "S1"})
	is.Equal(on, []bool{true, true, false})
	for _, x := range pc.Completeness.Excluded {
		if x.Section == "scripts" && x.Reason == "unattributed_origin" {
			t.Errorf("a worker session's script was counted as the page's: %+v", x)
		}
	}
}

// On a Chromium that names no worker's parent frame (148), the renderer's
// own workers are the ones its auto-attach announces; OW, never announced,
// is another page's. Before, all three were out_of_target_scope.
func TestElectronWorkerWithoutAParentAttributedByAutoAttach(t *testing.T) {
	is := is.New(t)
	dir := electronApp(t)
	opts := cdptest.Options{Targets: []cdptest.Target{{ID: "T1", Type: "page", URL: "file://" + dir + "/index.html"}}}
	chromium148Workers(&opts, "file://"+dir+"/outer.js", "file://"+dir+"/inner.js")
	f := cdptest.New(&opts)
	defer f.Close()
	pc, err := electronInspect(f, dir)
	is.NoErr(err)
	electronPassive(t, f)
	is.Equal(pc.Workers, []ports.ElectronWorker{
		{TargetID: "DW", Type: "worker", FilePath: filepath.Join(dir, "outer.js")},
		{TargetID: "DW2", Type: "worker", FilePath: filepath.Join(dir, "inner.js")},
	})
	is.Equal(workerExclusions(pc), map[string]int{"out_of_target_scope": 2}) // OW, the shared worker
	is.True(!slices.ContainsFunc(pc.Limitations, func(l string) bool { return strings.Contains(l, "dedicated worker(s)") }))
}

// A worker session that never answers leaves the workers it started
// unnamed after a bounded wait; the capture goes on.
func TestElectronNestedWorkerSessionSilent(t *testing.T) {
	is := is.New(t)
	defer cdp.SetWorkerAttachWait(cdp.SetWorkerAttachWait(20 * time.Millisecond))
	dir := electronApp(t)
	opts := cdptest.Options{Targets: []cdptest.Target{{ID: "T1", Type: "page", URL: "file://" + dir + "/index.html"}},
		Unanswered: func(c cdptest.Call) bool { return c.SessionID == "WS1" }}
	chromiumWorkers(&opts, "file://"+dir+"/outer.js", "file://"+dir+"/inner.js")
	f := cdptest.New(&opts)
	defer f.Close()
	pc, err := electronInspect(f, dir)
	is.NoErr(err)
	electronPassive(t, f)
	is.Equal(pc.Workers, []ports.ElectronWorker{{TargetID: "DW", Type: "worker", FilePath: filepath.Join(dir, "outer.js")}})
	is.Equal(workerExclusions(pc), map[string]int{"out_of_target_scope": 1, "unattributed_origin": 1})
	_, on := autoAttachCalls(t, f)
	is.Equal(on, []bool{true, true, false}) // turned off on the page all the same
}

// A browser that refuses auto-attach leaves the worker unnamed and
// excluded (unattributed, as a web page's is); the capture succeeds.
func TestElectronWorkerAutoAttachRefused(t *testing.T) {
	for name, rpc := range map[string]*cdptest.RPCError{
		"unknown": {Code: -32601, Message: "'Target.setAutoAttach' wasn't found"},
		"refused": {Code: -32000, Message: "Not allowed"},
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			dir := electronApp(t)
			opts := cdptest.Options{Targets: []cdptest.Target{{ID: "T1", Type: "page", URL: "file://" + dir + "/index.html"}},
				Handlers: map[string]cdptest.Handler{"Target.setAutoAttach": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) { return nil, rpc }}}
			chromiumWorkers(&opts, "file://"+dir+"/outer.js", "")
			f := cdptest.New(&opts)
			defer f.Close()
			pc, err := electronInspect(f, dir)
			is.NoErr(err)
			electronPassive(t, f)
			is.Equal(pc.Workers, []ports.ElectronWorker{})
			is.Equal(workerExclusions(pc), map[string]int{"out_of_target_scope": 1, "unattributed_origin": 1})
			_, on := autoAttachCalls(t, f)
			is.Equal(on, []bool{true})
		})
	}
}

// Losing the connection while naming workers fails the capture; it never
// returns a partial result.
func TestElectronWorkerAutoAttachConnectionLost(t *testing.T) {
	is := is.New(t)
	dir := electronApp(t)
	opts := cdptest.Options{Targets: []cdptest.Target{{ID: "T1", Type: "page", URL: "file://" + dir + "/index.html"}}, CloseOn: "Target.setAutoAttach"}
	chromiumWorkers(&opts, "file://"+dir+"/outer.js", "")
	f := cdptest.New(&opts)
	defer f.Close()
	pc, err := electronInspect(f, dir)
	is.Equal(pc, nil)
	is.Equal(code(t, err), ports.BrowserDisconnected)
}

// TestElectronWorkersLiveOnChromium: Chromium with file access from files
// stands in for an Electron renderer (same CDP, same target model; Chromium
// blocks `new Worker` on file: pages without the flag). The renderer starts
// a worker from the application's files, which starts one of its own, and
// a blob: worker. Once all have answered, the title counts the outer
// worker's ticks ("ready N").
func TestElectronWorkersLiveOnChromium(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed; live Electron worker test skipped")
	}
	dir := electronApp(t)
	for name, text := range map[string]string{
		"index.html": "<!doctype html><title>starting</title><script src=renderer.js></script>\n",
		"renderer.js": `let got = 0, ticks = 0;
const w = new Worker("outer.js");
w.onmessage = (e) => { if (e.data === "inner") got++; else if (got === 2) document.title = "ready " + ++ticks; };
const b = new Worker(URL.createObjectURL(new Blob(["postMessage('blob')"], {type: "text/javascript"})));
b.onmessage = () => got++;
`,
		"outer.js": `const inner = new Worker("inner.js");
inner.onmessage = () => { postMessage("inner"); setInterval(() => postMessage("tick"), 100); };
`,
		"inner.js": "postMessage('hi');\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: "file://" + dir + "/index.html", ExtraArgs: []string{"--allow-file-access-from-files"}})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	defer func() {
		if err := b.Close(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}()
	e := cdp.NewRuntime(nil)
	roots := []string{dir}
	// page waits for the renderer to show a "ready" title other than not.
	page := func(not string) (id, title string) {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			l, err := e.ListElectronTargets(ctx, ports.ElectronListRequest{Endpoint: b.Endpoint(), AllowedFileRoots: roots})
			if err != nil || len(l.Targets) != 1 {
				continue
			}
			if tg := l.Targets[0]; strings.HasPrefix(tg.Title, "ready ") && tg.Title != not {
				return tg.TargetID, tg.Title
			}
		}
		return "", ""
	}
	tid, _ := page("")
	if tid == "" {
		t.Fatal("the renderer never reported its workers ready")
	}
	pc, err := e.InspectElectronPage(ctx, ports.ElectronInspectRequest{Endpoint: b.Endpoint(), TargetID: tid, AllowedFileRoots: roots, ObservationMS: 100})
	if err != nil {
		t.Fatalf("inspect: %v", err)
	}
	skipWithoutWorkerParents(t, pc.Limitations)
	want := []ports.ElectronWorker{
		{TargetID: "?", Type: "worker", FilePath: filepath.Join(dir, "outer.js")},
		{TargetID: "?", Type: "worker", FilePath: filepath.Join(dir, "inner.js")},
	}
	got := slices.Clone(pc.Workers)
	for i := range got {
		got[i].TargetID = "?"
	}
	slices.SortFunc(got, func(a, b ports.ElectronWorker) int { return strings.Compare(b.FilePath, a.FilePath) })
	if !slices.Equal(got, want) {
		t.Errorf("workers %+v, want outer.js and inner.js; excluded %+v", pc.Workers, pc.Completeness.Excluded)
	}
	if x := workerExclusions(pc); x["unsupported_url"] != 1 || len(x) != 1 {
		t.Errorf("worker exclusions %v, want the blob: worker as unsupported_url", x)
	}
	// The workers were neither paused nor stopped: the renderer still
	// hears the outer worker's ticks.
	_, before := page("")
	if _, after := page(before); after == "" {
		t.Errorf("the outer worker stopped ticking after the capture (title stays %q)", before)
	}
}

// A frame of another site in an Electron renderer runs in its own process,
// which the page's frame tree does not list: the Electron capture names it
// as inspect_web_page does, with the same limitation, and excludes it from
// frames with the file gate's reason. Before, it said nothing of such a
// frame. One inside the file gate (not expected from Chromium, which counts
// file: URLs as one site) is named, not listed: an Electron frame cannot say
// what was not captured of it.
func TestElectronOutOfProcessFrameNamed(t *testing.T) {
	is := is.New(t)
	dir := electronApp(t)
	iframes := []any{
		map[string]any{"targetId": "T1", "type": "page", "title": "", "url": "file://" + dir + "/index.html", "attached": true, "canAccessOpener": false},
		map[string]any{"targetId": "IF1", "type": "iframe", "title": "", "url": "https://ads.example/f.html", "attached": false, "parentFrameId": "F1", "canAccessOpener": false},
		map[string]any{"targetId": "IF2", "type": "iframe", "title": "", "url": "https://ads.example/g.html", "attached": false, "parentFrameId": "OTHER", "canAccessOpener": false},
	}
	opts := cdptest.Options{Targets: []cdptest.Target{{ID: "T1", Type: "page", URL: "file://" + dir + "/index.html"}},
		Handlers: map[string]cdptest.Handler{"Target.getTargets": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
			return map[string]any{"targetInfos": iframes}, nil
		}}}
	f := cdptest.New(&opts)
	defer f.Close()
	pc, err := electronInspect(f, dir)
	is.NoErr(err)
	electronPassive(t, f)
	is.True(slices.ContainsFunc(pc.Limitations, func(l string) bool {
		return l == "1 frame(s) of another site run in their own renderer process (not named: outside allowed_file_roots): Chromium does not list such a frame in the page's "+
			"frame tree, so its DOM, accessibility tree, child frames, scripts, resources, network and console are not in this capture, which reads the page's own process; "+
			"none is listed in frames (outside allowed_file_roots, or past max_frames)."
	}))
	is.True(slices.Contains(pc.Completeness.Excluded, ports.BrowserExclusion{Section: "frames", Reason: "unsupported_url", Count: 2})) // one in the frame tree, IF1
	is.Equal(len(pc.Frames), 1)

	iframes = append(iframes, map[string]any{"targetId": "IF3", "type": "iframe", "title": "", "url": "file://" + dir + "/renderer.js", "attached": false, "parentFrameId": "F1", "canAccessOpener": false})
	pc, err = electronInspect(f, dir)
	is.NoErr(err)
	is.True(slices.ContainsFunc(pc.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "2 frame(s) of another site run in their own renderer process ("+filepath.Join(dir, "renderer.js")+") and 1 more not named (outside allowed_file_roots, or past four): ") &&
			strings.HasSuffix(l, "; 1 of them listed in frames, each with not_captured naming what is missing.")
	}))
	// Listed last, as inspect_web_page lists such a frame: before, it was
	// only named, and frames said nothing of what was missing of it.
	is.Equal(pc.Frames[1:], []ports.ElectronFrame{{FrameID: "IF3", ParentFrameID: "F1", FilePath: filepath.Join(dir, "renderer.js"),
		NotCaptured: []string{"frames", "dom", "scripts", "resources"}}})
	for _, s := range []string{"dom", "resources", "scripts"} {
		is.True(slices.Contains(pc.Completeness.Unavailable, ports.BrowserUnavailable{Section: s, Reason: "provider_unavailable"}))
	}
}

// TestElectronOutOfProcessFrameLiveOnChromium: Chromium stands in for an
// Electron renderer, as in TestElectronWorkersLiveOnChromium. An
// application page with a frame of an http site (its own renderer process)
// gets the limitation inspect_web_page gives it.
func TestElectronOutOfProcessFrameLiveOnChromium(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live Electron frame test skipped")
	}
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><p>inner</p></body></html>`))
	}))
	defer inner.Close()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	page := `<!doctype html><title>app</title><iframe src="` + inner.URL + `/frame.html"></iframe>`
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: "file://" + dir + "/index.html"})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	defer func() {
		if err := b.Close(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}()
	e := cdp.NewRuntime(nil)
	roots := []string{dir}
	var pc *ports.ElectronPageCapture
	limitation := func() bool {
		return pc != nil && slices.ContainsFunc(pc.Limitations, func(l string) bool {
			return strings.HasPrefix(l, "1 frame(s) of another site run in their own renderer process (not named: outside allowed_file_roots): ")
		})
	}
	// The frame's process may start after the page's: inspect until the
	// browser lists it, for at most 20 s.
	for deadline := time.Now().Add(20 * time.Second); !limitation() && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		l, err := e.ListElectronTargets(ctx, ports.ElectronListRequest{Endpoint: b.Endpoint(), AllowedFileRoots: roots})
		if err != nil || len(l.Targets) != 1 {
			continue
		}
		if pc, err = e.InspectElectronPage(ctx, ports.ElectronInspectRequest{Endpoint: b.Endpoint(), TargetID: l.Targets[0].TargetID, AllowedFileRoots: roots, ObservationMS: 100}); err != nil {
			t.Fatalf("inspect: %v", err)
		}
	}
	if !limitation() {
		var got []string
		if pc != nil {
			got = pc.Limitations
		}
		t.Fatalf("no limitation names the http frame of another site; limitations %q", got)
	}
	if len(pc.Frames) != 1 {
		t.Errorf("frames %+v, want the application's page alone", pc.Frames)
	}
}
