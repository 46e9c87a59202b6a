package cdp_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

// autoAttaching reports whether the last Target.setAutoAttach the fake
// received turned auto-attach on.
func autoAttaching(s *cdptest.Server) bool {
	on := false
	for _, c := range s.Calls() {
		if c.Method == "Target.setAutoAttach" {
			var p struct {
				AutoAttach bool `json:"autoAttach"`
			}
			json.Unmarshal(c.Params, &p)
			on = p.AutoAttach
		}
	}
	return on
}

// chromiumWorkers scripts what Chromium 156 does with a page's dedicated
// worker (recorded live, see TestLiveWorkers): Target.getTargets lists it
// related to the main frame with an empty URL until a client attaches, and
// with scriptURL while the page session auto-attaches; turning auto-attach
// on announces the worker's session (which then speaks on its own), and
// turning it off detaches it.
func chromiumWorkers(opts *cdptest.Options, scriptURL string) {
	if opts.Handlers == nil {
		opts.Handlers = map[string]cdptest.Handler{}
	}
	opts.Handlers["Target.getTargets"] = func(s *cdptest.Server, c cdptest.Call) (any, *cdptest.RPCError) {
		u, attached := "", false
		if autoAttaching(s) {
			u, attached = scriptURL, true
		}
		return map[string]any{"targetInfos": []any{
			map[string]any{"targetId": "T1", "type": "page", "title": "", "url": "http://app.test/index.html", "attached": true, "canAccessOpener": false},
			map[string]any{"targetId": "DW", "type": "worker", "title": u, "url": u, "attached": attached, "parentFrameId": "F1", "canAccessOpener": false},
			map[string]any{"targetId": "SW", "type": "shared_worker", "title": "", "url": "http://app.test/s.js", "attached": false, "canAccessOpener": false},
		}}, nil
	}
	opts.After = map[string][]cdptest.Event{"Target.setAutoAttach": {
		{Method: "Inspector.workerScriptLoaded", Session: "WS"},
		{Method: "Runtime.consoleAPICalled", Session: "WS", Params: map[string]any{"type": "log", "args": []any{map[string]any{"type": "string", "value": "from the worker"}}}},
	}}
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
			chromiumWorkers(&opts, c.scriptURL)
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

			// Auto-attach goes to the page's session, never pauses what
			// starts meanwhile, leaves frames alone, and is turned off.
			var onOff []bool
			for _, call := range f.Calls() {
				if call.SessionID != "" && call.SessionID != "S1" {
					t.Errorf("%s sent to session %s", call.Method, call.SessionID)
				}
				if call.Method != "Target.setAutoAttach" {
					continue
				}
				is.Equal(call.SessionID, map[bool]string{true: "", false: "S1"}[opts.NoBrowserSocket])
				var p map[string]any
				is.NoErr(json.Unmarshal(call.Params, &p))
				is.Equal(p["waitForDebuggerOnStart"], false)
				is.Equal(p["flatten"], true)
				if p["autoAttach"] == true {
					is.Equal(dump(p["filter"]), `[{"exclude":false,"type":"worker"},{"exclude":true}]`)
				}
				onOff = append(onOff, p["autoAttach"].(bool))
			}
			if c.name == "auto-attach unknown" || c.name == "auto-attach refused" {
				is.Equal(onOff, []bool{true})
			} else {
				is.Equal(onOff, []bool{true, false})
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
	chromiumWorkers(&opts, "http://app.test/w.js")
	f := cdptest.New(&opts)
	defer f.Close()
	got, err := engine().InspectPage(context.Background(), fullInspect(f))
	is.Equal(got, nil)
	is.Equal(code(t, err), ports.BrowserDisconnected)
}
