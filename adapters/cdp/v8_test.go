package cdp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
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
	"rea/ports/portstest"
)

func v8Fake(t *testing.T, opts cdptest.InspectorOptions) *cdptest.Inspector {
	t.Helper()
	if opts.Targets == nil {
		dir, _ := filepath.Abs("testdata/nodeapp")
		opts.Targets = []cdptest.InspectorTarget{{ID: "N1", Type: "node", Title: "main.mjs", URL: "file://" + filepath.Join(dir, "main.mjs")}}
	}
	f := cdptest.NewInspector(opts)
	t.Cleanup(f.Close)
	return f
}

func v8Code(err error) ports.BrowserErrorCode {
	if be, ok := ports.AsBrowserError(err); ok {
		return be.Code
	}
	return ""
}

func TestV8ObserveSendsOnlyTheEnablesAndTheSkip(t *testing.T) {
	is := is.New(t)
	dir, _ := filepath.Abs("testdata/nodeapp")
	f := v8Fake(t, cdptest.InspectorOptions{Scripts: []map[string]any{
		{"scriptId": "1", "url": "file://" + dir + "/main.mjs", "executionContextId": 1, "hash": "aa", "length": 10, "isModule": true},
		{"scriptId": "2", "url": "node:internal/main", "executionContextId": 1, "hash": "bb", "length": 5},
		{"scriptId": "3", "url": "", "executionContextId": 1, "hash": "cc", "length": 5},
		{"scriptId": "4", "url": "file:///etc/../etc/%2fpasswd", "executionContextId": 1, "hash": "dd", "length": 5},
		{"url": "file://" + dir + "/lib/esm.mjs"}, // no scriptId: invalid
		{"scriptId": "1", "url": "file://" + dir + "/main.mjs", "executionContextId": 1, "hash": "aa", "length": 10, "isModule": true},
	}})
	e := cdp.NewRuntime(nil)
	o, err := e.ObserveRuntime(context.Background(), ports.RuntimeObserveRequest{Endpoint: f.URL, TargetID: "N1", RuntimeKind: "node", ObservationMS: 30})
	is.NoErr(err)
	is.Equal(f.Methods(), []string{"Runtime.enable", "Debugger.setSkipAllPauses", "Debugger.enable"})
	is.Equal(string(f.Calls()[2].Params), "{}")
	is.Equal(string(f.Calls()[1].Params), `{"skip":true}`)
	is.Equal(len(o.Limitations), 1) // the URL-less script
	is.Equal(len(o.Scripts), 1)
	is.Equal(o.Scripts[0].Location, ports.RuntimeLocation{Kind: "file", FilePath: filepath.Join(dir, "main.mjs")})
	is.Equal(o.Excluded.Builtin, 1)
	is.Equal(o.Excluded.UnsupportedLocation, 1)
	is.Equal(o.Excluded.InvalidProtocolValue, 2) // no scriptId; no URL
	is.Equal(len(o.Contexts), 1)
	is.Equal(o.Runtime.Product, "node.js/v20.0.0-fake")
}

func TestV8BadInputsAreTyped(t *testing.T) {
	dir, _ := filepath.Abs("testdata/nodeapp")
	ctx := context.Background()
	e := cdp.NewRuntime(nil)
	cases := []struct {
		name string
		opts cdptest.InspectorOptions
		req  func(url string) ports.RuntimeObserveRequest
		want ports.BrowserErrorCode
	}{
		{"non-loopback endpoint", cdptest.InspectorOptions{}, func(string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: "http://10.0.0.1:9229", TargetID: "N1"}
		}, ports.BrowserInvalidRequest},
		{"localhost endpoint", cdptest.InspectorOptions{}, func(string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: "http://localhost:9229", TargetID: "N1"}
		}, ports.BrowserInvalidRequest},
		{"unknown target", cdptest.InspectorOptions{}, func(u string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "nope"}
		}, ports.BrowserTargetNotFound},
		{"attached by another debugger", cdptest.InspectorOptions{Targets: []cdptest.InspectorTarget{{ID: "N1", Type: "node", URL: "file://" + dir + "/main.mjs", Attached: true}}},
			func(u string) ports.RuntimeObserveRequest {
				return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1"}
			}, ports.BrowserTargetNotAllowed},
		{"socket refused (held by another debugger)", cdptest.InspectorOptions{RefuseSockets: true},
			func(u string) ports.RuntimeObserveRequest {
				return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1"}
			}, ports.BrowserTargetNotAllowed},
		{"kind mismatch", cdptest.InspectorOptions{}, func(u string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1", RuntimeKind: "electron-renderer"}
		}, ports.BrowserTargetNotAllowed},
		{"unknown kind", cdptest.InspectorOptions{}, func(u string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1", RuntimeKind: "deno"}
		}, ports.BrowserInvalidRequest},
		{"file outside the roots", cdptest.InspectorOptions{}, func(u string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1", Scope: ports.RuntimeScope{AllowedFileRoots: []string{"/usr"}}}
		}, ports.BrowserTargetNotAllowed},
		{"%2f in the file URL", cdptest.InspectorOptions{Targets: []cdptest.InspectorTarget{{ID: "N1", Type: "node", URL: "file://" + dir + "%2fmain.mjs"}}},
			func(u string) ports.RuntimeObserveRequest {
				return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1"}
			}, ports.BrowserTargetNotAllowed},
		{"NUL in the file URL", cdptest.InspectorOptions{Targets: []cdptest.InspectorTarget{{ID: "N1", Type: "node", URL: "file://" + dir + "/main.mjs\x00.txt"}}},
			func(u string) ports.RuntimeObserveRequest {
				return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1"}
			}, ports.BrowserTargetNotAllowed},
		{"bare file://", cdptest.InspectorOptions{Targets: []cdptest.InspectorTarget{{ID: "N1", Type: "node", URL: "file://"}}},
			func(u string) ports.RuntimeObserveRequest {
				return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1"}
			}, ports.BrowserTargetNotAllowed},
		{"relative root", cdptest.InspectorOptions{}, func(u string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1", Scope: ports.RuntimeScope{AllowedFileRoots: []string{"rel"}}}
		}, ports.BrowserInvalidRequest},
		{"target exits during the window", cdptest.InspectorOptions{CloseAfterEnable: true}, func(u string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1", ObservationMS: 5000}
		}, ports.BrowserDisconnected},
		{"bad version document", cdptest.InspectorOptions{Version: map[string]any{"Browser": 7}}, func(u string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1"}
		}, ports.BrowserInvalidEndpointResponse},
		{"garbage frame poisons the connection", cdptest.InspectorOptions{RawEvents: []string{"not json"}}, func(u string) ports.RuntimeObserveRequest {
			return ports.RuntimeObserveRequest{Endpoint: u, TargetID: "N1", ObservationMS: 5000}
		}, ports.BrowserDisconnected},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := v8Fake(t, tc.opts)
			_, err := e.ObserveRuntime(ctx, tc.req(f.URL))
			if got := v8Code(err); got != tc.want {
				t.Fatalf("got %v (%v), want %s", got, err, tc.want)
			}
			if tc.want == ports.BrowserInvalidRequest && len(f.Methods()) != 0 {
				t.Fatalf("an invalid request reached the endpoint: %v", f.Methods())
			}
		})
	}
}

func TestV8ListGatesLocations(t *testing.T) {
	is := is.New(t)
	dir, _ := filepath.Abs("testdata/nodeapp")
	f := v8Fake(t, cdptest.InspectorOptions{Targets: []cdptest.InspectorTarget{
		{ID: "B", Type: "node", URL: "file://" + dir + "/main.mjs"},
		{ID: "A", Type: "node", URL: "file://" + dir + "/lib/esm.mjs", SocketPath: "/devtools/node/A"},
		{ID: "C", Type: "node", URL: "node:internal/repl"},
		{ID: "D", Type: "node", URL: "file:///usr/bin/env"},
		{ID: "E", Type: "node", URL: "file://" + dir + "/main.mjs", SocketPath: "-"},
		{ID: "F", Type: "node", URL: "file://" + dir + "/main.mjs", SocketPath: "/devtools/page/other"},
		{ID: "G", Type: "node", URL: "file://" + dir + "/no-such-file.mjs"},
	}})
	l, err := cdp.NewRuntime(nil).ListRuntimeTargets(context.Background(), ports.RuntimeListRequest{Endpoint: f.URL, Scope: ports.RuntimeScope{AllowedFileRoots: []string{dir}}})
	is.NoErr(err)
	var ids []string
	for _, tg := range l.Targets {
		ids = append(ids, tg.TargetID)
	}
	is.Equal(ids, []string{"A", "B", "G"})
	is.Equal(l.Targets[2].Location.Kind, "unresolved")
	is.Equal(l.Excluded, ports.RuntimeListExclusions{OutsideFileRoots: 1, UnsupportedLocation: 1, Unconnectable: 2})
	is.Equal(len(f.Methods()), 0) // listing never attaches
}

// TestV8LiveNode observes a running Node program with ES modules, a
// CommonJS module, a worker thread and a dynamic import.
func TestV8LiveNode(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	dir, _ := filepath.Abs("testdata/nodeapp")
	p, err := cdptest.StartNode(ctx, dir, "main.mjs", "ready")
	if err != nil {
		t.Skipf("node is not usable here: %v", err)
	}
	defer func() { is.NoErr(p.Stop(ctx)) }()
	select {
	case <-p.Ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the fixture never became ready")
	}
	e := cdp.NewRuntime(nil)
	l, err := e.ListRuntimeTargets(ctx, ports.RuntimeListRequest{Endpoint: p.Endpoint, Scope: ports.RuntimeScope{AllowedFileRoots: []string{dir}}})
	is.NoErr(err)
	is.Equal(len(l.Targets), 1)
	is.Equal(l.Targets[0].TargetID, p.TargetID)
	is.Equal(l.Targets[0].ProtocolType, "node")
	o, err := e.ObserveRuntime(ctx, ports.RuntimeObserveRequest{Endpoint: p.Endpoint, TargetID: p.TargetID, RuntimeKind: "node", ObservationMS: 100,
		Scope: ports.RuntimeScope{AllowedFileRoots: []string{dir}}})
	is.NoErr(err)
	got := map[string]ports.RuntimeScript{}
	for _, s := range o.Scripts {
		rel, _ := filepath.Rel(dir, s.Location.FilePath)
		got[rel] = s
	}
	for _, want := range []string{"main.mjs", "lib/esm.mjs", "lib/common.cjs", "lib/lazy.mjs"} {
		s, ok := got[want]
		if !ok {
			t.Fatalf("script %s not observed; got %v", want, slices.Collect(mapKeys(got)))
		}
		b, _ := os.ReadFile(filepath.Join(dir, want))
		sum := sha256.Sum256(b)
		is.Equal(s.CDPHash, hex.EncodeToString(sum[:])) // V8's hash is the source's SHA-256
	}
	is.True(got["main.mjs"].IsModule)
	is.True(!got["lib/common.cjs"].IsModule)
	if _, ok := got["lib/never.mjs"]; ok {
		t.Fatal("a never-imported module was reported loaded")
	}
	// The worker's own script lives in another isolate: a passive
	// observation of the main target does not see it.
	if _, ok := got["lib/worker.mjs"]; ok && !strings.Contains(o.Target.Title, "worker") {
		t.Log("worker script reported by the main target")
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// The engine passes the runtime conformance suite against the recording
// fake inspector.
func TestV8Conformance(t *testing.T) {
	dir, _ := filepath.Abs("testdata/nodeapp")
	dir, _ = filepath.EvalSymlinks(dir)
	f := v8Fake(t, cdptest.InspectorOptions{Scripts: []map[string]any{
		{"scriptId": "1", "url": "file://" + dir + "/main.mjs", "executionContextId": 1, "hash": "aa", "length": 10, "isModule": true},
		{"scriptId": "2", "url": "file:///usr/lib/x.js", "executionContextId": 1, "hash": "bb", "length": 5},
	}})
	portstest.RunRuntime(t, cdp.NewRuntime(nil), portstest.RuntimeEnv{Endpoint: f.URL, TargetID: "N1", Root: dir})
}

// TestV8ObserveSkipRefused: a runtime that refuses
// Debugger.setSkipAllPauses before and after the enable is still observed,
// and the observation says it may have paused.
func TestV8ObserveSkipRefused(t *testing.T) {
	is := is.New(t)
	dir, _ := filepath.Abs("testdata/nodeapp")
	f := v8Fake(t, cdptest.InspectorOptions{Refuse: []string{"Debugger.setSkipAllPauses"}, Scripts: []map[string]any{
		{"scriptId": "1", "url": "file://" + dir + "/main.mjs", "executionContextId": 1, "hash": "aa", "length": 10, "isModule": true}}})
	o, err := cdp.NewRuntime(nil).ObserveRuntime(context.Background(), ports.RuntimeObserveRequest{Endpoint: f.URL, TargetID: "N1", ObservationMS: 10})
	is.NoErr(err)
	is.Equal(f.Methods(), []string{"Runtime.enable", "Debugger.setSkipAllPauses", "Debugger.enable", "Debugger.setSkipAllPauses"})
	is.Equal(o.Limitations, []string{"Debugger.setSkipAllPauses was refused, so the runtime may have paused at a debugger statement during the window."})
}

// TestV8ObserveNamesURLlessScriptsAsDynamicCode: code compiled at run time
// by eval, new Function or vm without a filename reaches the inspector
// with an empty URL. Node's own modules all have node: URLs, so counting
// these as builtin hid the program's dynamic code; they are invalid
// protocol values (they have no location) and a limitation counts them.
func TestV8ObserveNamesURLlessScriptsAsDynamicCode(t *testing.T) {
	is := is.New(t)
	dir, _ := filepath.Abs("testdata/nodeapp")
	f := v8Fake(t, cdptest.InspectorOptions{Scripts: []map[string]any{
		{"scriptId": "1", "url": "file://" + dir + "/main.mjs", "executionContextId": 1, "hash": "aa", "length": 10, "isModule": true},
		{"scriptId": "2", "url": "node:internal/main", "executionContextId": 1, "hash": "bb", "length": 5},
		{"scriptId": "3", "url": "", "executionContextId": 1, "hash": "cc", "length": 43}, // new Function
		{"scriptId": "4", "url": "", "executionContextId": 1, "hash": "dd", "length": 7},  // eval
	}})
	o, err := cdp.NewRuntime(nil).ObserveRuntime(context.Background(), ports.RuntimeObserveRequest{Endpoint: f.URL, TargetID: "N1", RuntimeKind: "node", ObservationMS: 30})
	is.NoErr(err)
	is.Equal(o.Excluded.Builtin, 1)
	is.Equal(o.Excluded.InvalidProtocolValue, 2)
	is.Equal(o.Limitations, []string{"2 script(s) had no URL: code compiled at run time (eval, new Function, vm without a filename); " +
		"they have no location, are counted under invalid_protocol_value and are not listed."})
}

// TestV8ObserveEndsWhenTheProgramExits: a Node program that ends while a
// debugger is attached destroys its context and then waits for the
// debugger to disconnect, so an observation that kept its socket open for
// the whole window kept an exiting process alive for up to a minute and
// said nothing of the exit. It now ends at the exit and says so.
func TestV8ObserveEndsWhenTheProgramExits(t *testing.T) {
	is := is.New(t)
	f := v8Fake(t, cdptest.InspectorOptions{DestroyAfterEnable: true})
	// Without the early end the call waits the whole minute; the deadline
	// turns that into a failure instead of a slow pass.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o, err := cdp.NewRuntime(nil).ObserveRuntime(ctx, ports.RuntimeObserveRequest{Endpoint: f.URL, TargetID: "N1", RuntimeKind: "node", ObservationMS: 60000})
	is.NoErr(err)
	is.Equal(len(o.Contexts), 1)
	is.Equal(o.Contexts[0].State, "destroyed")
	is.Equal(len(o.Limitations), 1)
	is.True(strings.HasPrefix(o.Limitations[0], "The program ended during the window: every execution context was destroyed, and the observation stopped then"))
}

// TestV8ObserveSaysWhenTheProgramHasNotStarted: under node --inspect-brk
// the program waits for a debugger to send
// Runtime.runIfWaitingForDebugger, which a passive observation never
// sends, so only Node's own modules are parsed. The observation listed no
// script and said nothing, which reads as "this service loads no code"; it
// now says the target's own script was not seen and why that may be.
func TestV8ObserveSaysWhenTheProgramHasNotStarted(t *testing.T) {
	is := is.New(t)
	dir, _ := filepath.Abs("testdata/nodeapp")
	f := v8Fake(t, cdptest.InspectorOptions{Scripts: []map[string]any{
		{"scriptId": "2", "url": "node:internal/main/run_main_module", "executionContextId": 1, "hash": "bb", "length": 5},
	}})
	o, err := cdp.NewRuntime(nil).ObserveRuntime(context.Background(), ports.RuntimeObserveRequest{Endpoint: f.URL, TargetID: "N1", RuntimeKind: "node", ObservationMS: 30})
	is.NoErr(err)
	is.Equal(len(o.Scripts), 0)
	is.Equal(o.Limitations, []string{"The target's own script (" + filepath.Join(dir, "main.mjs") + ") was not parsed: the program has not started " +
		"(node --inspect-brk and --inspect-wait wait for a debugger to send Runtime.runIfWaitingForDebugger, which a passive observation never sends), " +
		"or V8 had already collected that script."})
}

// TestEndpointErrorsNameTheFix: the endpoints an agent most often gets
// wrong are refused with the message saying what to pass instead. Before,
// http://127.0.0.1 (no port) was refused as "the endpoint host must be
// 127.0.0.1 or [::1]", which names the host it has, and Node's own
// "Debugger listening on ws://..." URL got only "must be an http: URL".
func TestEndpointErrorsNameTheFix(t *testing.T) {
	e := cdp.NewRuntime(nil)
	for _, c := range []struct{ endpoint, want string }{
		{"http://127.0.0.1", "the endpoint needs an explicit port 1..65535: http://127.0.0.1:PORT"},
		{"http://[::1]", "the endpoint needs an explicit port 1..65535: http://[::1]:PORT"},
		{"ws://127.0.0.1:9229/0f2c6a0e-5b7d-4c1e-9a55-0d3f1b2c4e6a", "the endpoint must be an http: URL: for the inspector socket " +
			"ws://127.0.0.1:9229/0f2c6a0e-5b7d-4c1e-9a55-0d3f1b2c4e6a pass http://127.0.0.1:9229 (the last path segment is the target_id)"},
		{"127.0.0.1:9229", "the endpoint is not a URL: pass http://127.0.0.1:9229"},
	} {
		_, err := e.ListRuntimeTargets(context.Background(), ports.RuntimeListRequest{Endpoint: c.endpoint})
		be, ok := ports.AsBrowserError(err)
		if !ok || be.Code != ports.BrowserInvalidRequest || be.Field != "inspector_endpoint" || be.Msg != c.want {
			t.Errorf("%s: got %v, want invalid_request on inspector_endpoint: %s", c.endpoint, err, c.want)
		}
	}
}

// TestV8ObserveFindsTheOwnScriptUnderAnotherSpelling: Node lists its
// target's URL unescaped (file:///srv/sp ace/main.cjs) and reports the
// script escaped (file:///srv/sp%20ace/main.cjs); the two name one file,
// so the program has started and no limitation says otherwise.
func TestV8ObserveFindsTheOwnScriptUnderAnotherSpelling(t *testing.T) {
	is := is.New(t)
	dir := filepath.Join(t.TempDir(), "sp ace", "café")
	is.NoErr(os.MkdirAll(dir, 0o755))
	main := filepath.Join(dir, "main.cjs")
	is.NoErr(os.WriteFile(main, []byte("setInterval(() => {}, 1000);\n"), 0o644))
	f := v8Fake(t, cdptest.InspectorOptions{Targets: []cdptest.InspectorTarget{{ID: "N1", Type: "node", Title: "main.cjs", URL: "file://" + main}},
		Scripts: []map[string]any{{"scriptId": "1", "url": (&url.URL{Scheme: "file", Path: main}).String(), "executionContextId": 1, "hash": "aa", "length": 29}}})
	o, err := cdp.NewRuntime(nil).ObserveRuntime(context.Background(), ports.RuntimeObserveRequest{Endpoint: f.URL, TargetID: "N1", RuntimeKind: "node", ObservationMS: 30})
	is.NoErr(err)
	is.Equal(len(o.Scripts), 1)
	is.Equal(len(o.Limitations), 0)
}
