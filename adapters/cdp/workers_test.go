package cdp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

// chromiumWorkers scripts what Chromium 156 does with a page's dedicated
// workers (recorded live, see TestLiveWorkers). Target.getTargets lists
// them related to the main frame with empty URLs. Target.setAutoAttach on
// the page's session announces the page's worker DW (script scriptURL) on
// session WS1, before its reply; on WS1 it announces DW2, the worker DW
// started (nestedURL; none when ""), on WS2. Worker sessions then speak on
// their own.
func chromiumWorkers(opts *cdptest.Options, scriptURL, nestedURL string) {
	scriptWorkers(opts, scriptURL, nestedURL, "F1")
}

// chromium148Workers scripts what Chromium 148 does with the same page: it
// names no worker's parent frame, neither in Target.getTargets nor in
// Target.attachedToTarget, and lists OW, a dedicated worker of another
// page, which no session of this page announces.
func chromium148Workers(opts *cdptest.Options, scriptURL, nestedURL string) {
	scriptWorkers(opts, scriptURL, nestedURL, "")
}

func scriptWorkers(opts *cdptest.Options, scriptURL, nestedURL, parent string) {
	if opts.Handlers == nil {
		opts.Handlers = map[string]cdptest.Handler{}
	}
	worker := func(id, url string, attached bool) map[string]any {
		w := map[string]any{"targetId": id, "type": "worker", "title": url, "url": url, "attached": attached, "canAccessOpener": false}
		if parent != "" {
			w["parentFrameId"] = parent
		}
		return w
	}
	opts.Handlers["Target.getTargets"] = func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
		infos := []any{
			map[string]any{"targetId": "T1", "type": "page", "title": "", "url": "http://app.test/index.html", "attached": true, "canAccessOpener": false},
			worker("DW", "", false),
			map[string]any{"targetId": "SW", "type": "shared_worker", "title": "", "url": "http://app.test/s.js", "attached": false, "canAccessOpener": false},
		}
		if nestedURL != "" {
			infos = append(infos, worker("DW2", "", false))
		}
		if parent == "" {
			infos = append(infos, worker("OW", "", false))
		}
		return map[string]any{"targetInfos": infos}, nil
	}
	if opts.Handlers["Target.setAutoAttach"] != nil {
		return
	}
	opts.Handlers["Target.setAutoAttach"] = func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
		var p struct {
			AutoAttach bool `json:"autoAttach"`
		}
		json.Unmarshal(c.Params, &p)
		announce := func(id, url, sid string) {
			// On a page socket the page's own events carry no session.
			s.Emit(cdptest.Event{Method: "Target.attachedToTarget", Session: c.SessionID, Browser: c.SessionID == "", Params: map[string]any{
				"sessionId":          sid,
				"targetInfo":         worker(id, url, true),
				"waitingForDebugger": false,
			}})
			s.Emit(cdptest.Event{Method: "Inspector.workerScriptLoaded", Session: sid})
			s.Emit(cdptest.Event{Method: "Runtime.consoleAPICalled", Session: sid, Params: map[string]any{"type": "log", "args": []any{map[string]any{"type": "string", "value": "from " + id}}}})
		}
		switch {
		case !p.AutoAttach:
		case c.SessionID == "S1" || c.SessionID == "":
			announce("DW", scriptURL, "WS1")
		case c.SessionID == "WS1" && nestedURL != "":
			announce("DW2", nestedURL, "WS2")
		}
		return map[string]any{}, nil
	}
}

// autoAttachCalls checks every Target.setAutoAttach the fake received and
// returns, in order, the session each went to and whether it turned
// auto-attach on.
func autoAttachCalls(t *testing.T, f *cdptest.Server) (sessions []string, on []bool) {
	t.Helper()
	for _, call := range f.Calls() {
		if call.Method != "Target.setAutoAttach" {
			continue
		}
		var p map[string]any
		if err := json.Unmarshal(call.Params, &p); err != nil {
			t.Fatal(err)
		}
		// Never pause what starts meanwhile; leave frames alone.
		if p["waitForDebuggerOnStart"] != false || p["flatten"] != true {
			t.Errorf("setAutoAttach %s", call.Params)
		}
		if p["autoAttach"] == true && dump(p["filter"]) != `[{"exclude":false,"type":"worker"},{"exclude":true}]` {
			t.Errorf("setAutoAttach filter %s", dump(p["filter"]))
		}
		sessions = append(sessions, call.SessionID)
		on = append(on, p["autoAttach"] == true)
	}
	return sessions, on
}

func TestWorkerNamedByAutoAttach(t *testing.T) {
	cases := []struct {
		name      string
		scriptURL string // what the browser fills in while attached
		opts      cdptest.Options
		want      string // the worker's URL, or "" when excluded
		excluded  string // the exclusion reason of the dedicated worker
	}{
		{name: "same origin", scriptURL: "http://app.test/w.js", want: "http://app.test/w.js"},
		{name: "userinfo removed", scriptURL: "http://u:p@app.test/w.js", want: "http://app.test/w.js"},
		{name: "page socket", scriptURL: "http://app.test/w.js", opts: cdptest.Options{NoBrowserSocket: true}, want: "http://app.test/w.js"},
		{name: "another origin", scriptURL: "http://cdn.example/w.js", excluded: "disallowed_origin"},
		{name: "blob script", scriptURL: "blob:http://app.test/5f1c", excluded: "unsupported_url"},
		{name: "never named", scriptURL: "", excluded: "unattributed_origin"},
		{name: "auto-attach unknown", scriptURL: "http://app.test/w.js", excluded: "unattributed_origin", opts: cdptest.Options{
			Handlers: map[string]cdptest.Handler{"Target.setAutoAttach": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				return nil, &cdptest.RPCError{Code: -32601, Message: "'Target.setAutoAttach' wasn't found"}
			}}}},
		{name: "auto-attach refused", scriptURL: "http://app.test/w.js", excluded: "unattributed_origin", opts: cdptest.Options{
			Handlers: map[string]cdptest.Handler{"Target.setAutoAttach": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
				return nil, &cdptest.RPCError{Code: -32000, Message: "Not allowed"}
			}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			opts := c.opts
			chromiumWorkers(&opts, c.scriptURL, "")
			f := cdptest.New(&opts)
			defer f.Close()
			got, err := engine().InspectPage(context.Background(), fullInspect(f))
			is.NoErr(err)
			assertNeverSent(t, f)
			i := slices.IndexFunc(got.Workers, func(w ports.BrowserWorker) bool { return w.TargetID == "DW" })
			if c.want == "" {
				is.Equal(i, -1)
			} else {
				is.True(i >= 0)
				is.Equal(got.Workers[i], ports.BrowserWorker{TargetID: "DW", Type: "worker", URL: c.want, Origin: "http://app.test", ParentFrameID: "F1"})
			}
			excluded := map[string]int{}
			for _, x := range got.Completeness.Excluded {
				if x.Section == "workers" {
					excluded[x.Reason] = x.Count
				}
			}
			want := map[string]int{"out_of_target_scope": 1} // the shared worker
			if c.excluded != "" {
				want[c.excluded]++
			}
			is.Equal(excluded, want)
			is.Equal(len(got.Console), 1) // the worker session's console is not the page's

			// Auto-attach goes to the page's session and is turned off
			// again; with every worker named, no worker session is asked.
			page := "S1"
			if opts.NoBrowserSocket {
				page = ""
			}
			sessions, on := autoAttachCalls(t, f)
			switch c.name {
			case "auto-attach unknown", "auto-attach refused":
				is.Equal(on, []bool{true})
				is.Equal(sessions, []string{page})
			case "never named":
				// DW's own session might have named a worker DW started.
				is.Equal(on, []bool{true, true, false})
				is.Equal(sessions, []string{page, "WS1", page})
			default:
				is.Equal(on, []bool{true, false})
				is.Equal(sessions, []string{page, page})
			}
			for _, call := range f.Calls() {
				if call.SessionID != "" && call.SessionID != "S1" && call.Method != "Target.setAutoAttach" {
					t.Errorf("%s sent to session %s", call.Method, call.SessionID)
				}
			}
		})
	}
}

// A page whose workers are all named is read once, without auto-attach.
func TestWorkerAlreadyNamedNeedsNoAttach(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	got, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	is.Equal(len(got.Workers), 1)
	is.True(!f.Received("Target.setAutoAttach"))
}

// Losing the connection while learning worker URLs fails the capture, as
// any other lost connection does; it never returns a partial result.
func TestWorkerAutoAttachConnectionLost(t *testing.T) {
	is := is.New(t)
	opts := cdptest.Options{CloseOn: "Target.setAutoAttach"}
	chromiumWorkers(&opts, "http://app.test/w.js", "")
	f := cdptest.New(&opts)
	defer f.Close()
	got, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.Equal(got, nil)
	is.Equal(code(t, err), ports.BrowserDisconnected)
}

// A worker started by a worker is named from its parent's session.
func TestNestedWorkerNamed(t *testing.T) {
	is := is.New(t)
	opts := cdptest.Options{}
	chromiumWorkers(&opts, "http://app.test/outer.js", "http://app.test/inner.js")
	f := cdptest.New(&opts)
	defer f.Close()
	got, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	assertNeverSent(t, f)
	urls := map[string]string{}
	for _, w := range got.Workers {
		urls[w.TargetID] = w.URL
	}
	is.Equal(urls, map[string]string{"DW": "http://app.test/outer.js", "DW2": "http://app.test/inner.js"})
	sessions, on := autoAttachCalls(t, f)
	is.Equal(sessions, []string{"S1", "WS1", "S1"}) // WS2's workers were all named: not asked
	is.Equal(on, []bool{true, true, false})
	for _, call := range f.Calls() {
		if call.SessionID == "WS1" && call.Method != "Target.setAutoAttach" {
			t.Errorf("%s sent to a worker's session", call.Method)
		}
	}
}

// A worker session that never answers leaves the workers it started
// unnamed after a bounded wait; the capture goes on.
func TestNestedWorkerSessionSilent(t *testing.T) {
	is := is.New(t)
	defer cdp.SetWorkerAttachWait(cdp.SetWorkerAttachWait(20 * time.Millisecond))
	opts := cdptest.Options{Unanswered: func(c cdptest.Call) bool { return c.SessionID == "WS1" }}
	chromiumWorkers(&opts, "http://app.test/outer.js", "http://app.test/inner.js")
	f := cdptest.New(&opts)
	defer f.Close()
	got, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	is.Equal(len(got.Workers), 1)
	is.Equal(got.Workers[0].URL, "http://app.test/outer.js")
	is.True(slices.Contains(got.Completeness.Excluded, ports.BrowserExclusion{Section: "workers", Reason: "unattributed_origin", Count: 1}))
	_, on := autoAttachCalls(t, f)
	is.Equal(on, []bool{true, true, false}) // turned off on the page all the same
}

// A service worker of the page's origin belongs to no page, so the
// workers section leaves it out as out_of_target_scope; a limitation now
// names it, since it may answer the page's requests. One of another
// origin is not named.
func TestServiceWorkerOfThePageOriginNamed(t *testing.T) {
	is := is.New(t)
	opts := cdptest.Options{Handlers: map[string]cdptest.Handler{"Target.getTargets": func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
		return map[string]any{"targetInfos": []any{
			map[string]any{"targetId": "T1", "type": "page", "title": "", "url": "http://app.test/index.html", "attached": true, "canAccessOpener": false},
			map[string]any{"targetId": "SW1", "type": "service_worker", "title": "", "url": "http://app.test/sw.js", "attached": false, "canAccessOpener": false},
			map[string]any{"targetId": "SW2", "type": "service_worker", "title": "", "url": "http://cdn.example/sw.js", "attached": false, "canAccessOpener": false},
		}}, nil
	}}}
	f := cdptest.New(&opts)
	defer f.Close()
	got, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.NoErr(err)
	assertNeverSent(t, f)
	is.Equal(len(got.Workers), 0)
	is.True(slices.Contains(got.Completeness.Excluded, ports.BrowserExclusion{Section: "workers", Reason: "out_of_target_scope", Count: 2}))
	is.True(slices.ContainsFunc(got.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "1 service worker(s) of the page's origin are running (http://app.test/sw.js): ")
	}))
}

// A frame of another site runs in its own renderer process, which the
// page's frame tree does not list: a limitation names it (in scope) or
// counts it (outside), so an agent knows its DOM and scripts are not in
// the capture. Before, the page looked as if it had no such frame. An
// in-scope one (and one nested in it) is listed in frames, marked out of
// process, after its parent's subtree; one outside the scope is excluded
// from frames with its reason, as an in-process frame would be.
func TestOutOfProcessFrameNamed(t *testing.T) {
	is := is.New(t)
	opts := cdptest.Options{Handlers: map[string]cdptest.Handler{"Target.getTargets": func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
		return map[string]any{"targetInfos": []any{
			map[string]any{"targetId": "T1", "type": "page", "title": "", "url": "http://app.test/index.html", "attached": true, "canAccessOpener": false},
			map[string]any{"targetId": "IF1", "type": "iframe", "title": "", "url": "http://app.test:8443/frame.html?x=1", "attached": false, "parentFrameId": "F1", "canAccessOpener": false},
			map[string]any{"targetId": "IF2", "type": "iframe", "title": "", "url": "http://ads.example/f.html", "attached": false, "parentFrameId": "F1", "canAccessOpener": false},
			map[string]any{"targetId": "IF3", "type": "iframe", "title": "", "url": "http://app.test/other.html", "attached": false, "parentFrameId": "OTHER", "canAccessOpener": false},
			map[string]any{"targetId": "IF4", "type": "iframe", "title": "", "url": "http://app.test:8443/nested.html", "attached": false, "parentFrameId": "IF1", "canAccessOpener": false},
		}}, nil
	}}}
	f := cdptest.New(&opts)
	defer f.Close()
	req := fullInspect(f)
	req.Target.AllowedOrigins = []string{"http://app.test", "http://app.test:8443"}
	got, err := engine().InspectPage(context.Background(), req)
	is.NoErr(err)
	assertNeverSent(t, f)
	is.True(slices.ContainsFunc(got.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "3 frame(s) of another site run in their own renderer process (http://app.test:8443/frame.html?x=1, http://app.test:8443/nested.html) and 1 more not named "+
			"(outside allowed_origins, or past four): ")
	}))
	is.Equal(got.Frames[len(got.Frames)-2:], []ports.BrowserFrame{
		{FrameID: "IF1", ParentFrameID: "F1", URL: "http://app.test:8443/frame.html?x=1", Origin: "http://app.test:8443", OutOfProcess: true},
		{FrameID: "IF4", ParentFrameID: "IF1", URL: "http://app.test:8443/nested.html", Origin: "http://app.test:8443", OutOfProcess: true}})
	is.True(slices.Contains(got.Completeness.Excluded, ports.BrowserExclusion{Section: "frames", Reason: "disallowed_origin", Count: 2})) // one in the frame tree, IF2
	req.Target.AllowedOrigins = []string{"http://app.test"}
	got, err = engine().InspectPage(context.Background(), req)
	is.NoErr(err)
	is.True(slices.ContainsFunc(got.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "3 frame(s) of another site run in their own renderer process (not named: outside allowed_origins): ")
	}))
	is.True(!slices.ContainsFunc(got.Frames, func(f ports.BrowserFrame) bool { return f.OutOfProcess }))
	is.True(slices.Contains(got.Completeness.Excluded, ports.BrowserExclusion{Section: "frames", Reason: "disallowed_origin", Count: 4}))
}

// Record fingerprints share one budget of max_storage_keys: a cache left
// unread once IndexedDB records spent it makes storage truncated, so its
// fingerprints are not called complete. Before, the cache was skipped
// silently and the fingerprints read as complete.
func TestCacheSkippedPastTheRecordBudgetIsTruncated(t *testing.T) {
	is := is.New(t)
	opts := cdptest.Options{Handlers: map[string]cdptest.Handler{
		"IndexedDB.requestDatabase": func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
			return map[string]any{"databaseWithObjectStores": map[string]any{"name": "db1", "version": 1,
				"objectStores": []any{map[string]any{"name": "s1", "keyPath": map[string]any{"type": "null"}, "autoIncrement": false, "indexes": []any{}}}}}, nil
		},
		"IndexedDB.requestData": func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
			return map[string]any{"objectStoreDataEntries": []any{
				map[string]any{"key": map[string]any{"type": "number", "value": 1}, "primaryKey": map[string]any{"type": "number", "value": 1}, "value": map[string]any{"type": "string", "value": "a"}},
				map[string]any{"key": map[string]any{"type": "number", "value": 2}, "primaryKey": map[string]any{"type": "number", "value": 2}, "value": map[string]any{"type": "string", "value": "b"}},
			}, "hasMore": false}, nil
		},
		"CacheStorage.requestCacheNames": func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
			return map[string]any{"caches": []any{map[string]any{"cacheId": "C1", "securityOrigin": "http://app.test", "storageKey": "k", "cacheName": "v1"}}}, nil
		},
	}}
	f := cdptest.New(&opts)
	defer f.Close()
	req := fullInspect(f)
	req.Limits.MaxStorageKeys = 2
	got, err := engine().InspectPage(context.Background(), req)
	is.NoErr(err)
	is.Equal(got.Storage.CacheNames, []string{"v1"})
	is.True(!slices.Contains(f.Methods(), "CacheStorage.requestEntries"))
	is.True(slices.Contains(got.Completeness.Truncated, "storage"))
}

// Chromium 148 lists a page's dedicated workers with neither an opener nor
// a parent frame, so Target.getTargets cannot tie them to the page; the
// page's auto-attach announces its own (DW and DW2, which DW started), and
// OW, which no session of the page announces, is another page's. Before,
// every such worker was excluded as out_of_target_scope with a limitation
// saying it could not be attributed, and the workers section read as empty.
// A worker so placed had an empty parent_frame_id, though the session that
// announced it runs for the main frame (F1): it now names that frame.
func TestWorkerWithoutAParentAttributedByAutoAttach(t *testing.T) {
	for _, socket := range []string{"browser", "page"} {
		t.Run(socket, func(t *testing.T) {
			is := is.New(t)
			opts := cdptest.Options{NoBrowserSocket: socket == "page"}
			chromium148Workers(&opts, "http://app.test/outer.js", "http://app.test/inner.js")
			f := cdptest.New(&opts)
			defer f.Close()
			got, err := engine().InspectPage(context.Background(), fullInspect(f))
			is.NoErr(err)
			assertNeverSent(t, f)
			is.Equal(got.Workers, []ports.BrowserWorker{
				{TargetID: "DW", Type: "worker", URL: "http://app.test/outer.js", Origin: "http://app.test", ParentFrameID: "F1"},
				{TargetID: "DW2", Type: "worker", URL: "http://app.test/inner.js", Origin: "http://app.test", ParentFrameID: "F1"}})
			is.True(slices.Contains(got.Completeness.Excluded, ports.BrowserExclusion{Section: "workers", Reason: "out_of_target_scope", Count: 2})) // OW, the shared worker
			is.True(!slices.ContainsFunc(got.Limitations, func(l string) bool { return strings.Contains(l, "dedicated worker(s)") }))
			// Every worker session is asked, even once all are named:
			// only then is a worker never announced known to be another
			// page's.
			sessions, on := autoAttachCalls(t, f)
			page := map[string]string{"browser": "S1", "page": ""}[socket]
			is.Equal(sessions, []string{page, "WS1", "WS2", page})
			is.Equal(on, []bool{true, true, true, false})
		})
	}
}

// A worker the browser names no parent of stays unattributable when the
// page's auto-attach cannot place it: refused, or a worker session that
// stays silent (OW might then be a worker DW started). It is excluded as
// out_of_target_scope, and a limitation counts it and says why.
func TestWorkerWithoutAParentUnattributable(t *testing.T) {
	cases := []struct {
		name    string
		opts    cdptest.Options
		workers int // listed
		n       int // counted unattributable
	}{
		{name: "auto-attach refused", n: 2, opts: cdptest.Options{Handlers: map[string]cdptest.Handler{"Target.setAutoAttach": func(*cdptest.Server, cdptest.Call) (any, *cdptest.RPCError) {
			return nil, &cdptest.RPCError{Code: -32000, Message: "Not allowed"}
		}}}},
		{name: "worker session silent", workers: 1, n: 1, opts: cdptest.Options{Unanswered: func(c cdptest.Call) bool { return c.SessionID == "WS1" }}},
	}
	defer cdp.SetWorkerAttachWait(cdp.SetWorkerAttachWait(20 * time.Millisecond))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			opts := c.opts
			chromium148Workers(&opts, "http://app.test/w.js", "")
			f := cdptest.New(&opts)
			defer f.Close()
			got, err := engine().InspectPage(context.Background(), fullInspect(f))
			is.NoErr(err)
			is.Equal(len(got.Workers), c.workers)
			is.True(slices.Contains(got.Completeness.Excluded, ports.BrowserExclusion{Section: "workers", Reason: "out_of_target_scope", Count: c.n + 1})) // and the shared worker
			is.True(slices.ContainsFunc(got.Limitations, func(l string) bool {
				return strings.HasPrefix(l, fmt.Sprintf("%d dedicated worker(s) in the browser were excluded as out_of_target_scope because the browser names neither their opener nor their parent frame", c.n))
			}))
		})
	}
}
