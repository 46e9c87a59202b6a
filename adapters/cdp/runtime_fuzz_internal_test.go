package cdp

import (
	"encoding/json"
	"testing"

	"rea/ports"
)

// FuzzDecodeHookMessage: any line from an Electron hook gives a message or
// an error, never a panic.
func FuzzDecodeHookMessage(f *testing.F) {
	f.Add([]byte(`{"type":"ready","electron_version":"31.0.0"}`))
	f.Add([]byte(`{"type":"snapshot","windows":[{"window_id":1,"web_contents_id":null}],"ipc":[{"channel":"a","argument_shapes":["string"]}]}`))
	f.Add([]byte(`{"type":"action","step_id":"s","status":"failed","elapsed_ms":-1}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"type":"snapshot","renderers":[{"web_contents_id":1,"window_id":null,"pid":-4,"loaded":true}],"ipc":[{"role":"renderer","pid":-1,"window_id":2,"web_contents_id":null,"elapsed_ms":-9}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeHookMessage(b)
		if err == nil {
			for _, ev := range append(m.IPC, m.Timeline...) {
				e := cutEvent(ev)
				if len(e.ArgumentShapes) > 32 || len(e.Channel) > 1024 || len(e.Role) > 32 || e.PID < 0 || e.WindowID < 0 || e.WebContentsID < 0 || e.ElapsedMS < 0 {
					t.Fatalf("unbounded event %+v", e)
				}
			}
			for _, r := range m.Renderers {
				if positive(r.PID) < 0 || positive(r.WindowID) < 0 {
					t.Fatalf("negative id %+v", r)
				}
			}
		}
	})
}

// FuzzV8Discovery: any /json/version or /json/list body gives a result or
// a typed error.
func FuzzV8Discovery(f *testing.F) {
	f.Add([]byte(`{"Browser":"node.js/v20","Protocol-Version":"1.1"}`), []byte(`[{"id":"a","type":"node","url":"file:///x.js","webSocketDebuggerUrl":"ws://127.0.0.1:9229/a"}]`))
	f.Add([]byte(`{}`), []byte(`[{"id":7}]`))
	ep := endpoint{Origin: "http://127.0.0.1:9229", Host: "127.0.0.1:9229", Port: "9229"}
	f.Fuzz(func(t *testing.T, v, l []byte) {
		if _, err := parseV8Version(v); err != nil {
			if _, ok := ports.AsBrowserError(err); !ok {
				t.Fatalf("untyped error %v", err)
			}
		}
		if _, err := parseV8List(l, ep); err != nil {
			if _, ok := ports.AsBrowserError(err); !ok {
				t.Fatalf("untyped error %v", err)
			}
		}
	})
}

// FuzzV8Events: any event params are counted or kept within the limits,
// never a panic.
func FuzzV8Events(f *testing.F) {
	f.Add("Debugger.scriptParsed", []byte(`{"scriptId":"1","url":"file:///tmp/x.js","hash":"ab","length":3}`))
	f.Add("Runtime.executionContextCreated", []byte(`{"context":{"id":1,"origin":"","name":"n"}}`))
	f.Add("Runtime.executionContextDestroyed", []byte(`{"executionContextId":1}`))
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		if !json.Valid(params) {
			return
		}
		c := &v8Capture{lim: runtimeLimits(ports.RuntimeLimits{MaxScripts: 2, MaxContexts: 2, MaxEvents: 4}), scripts: map[string]bool{}, contexts: map[int]int{}, trunc: map[string]bool{}}
		for i := 0; i < 3; i++ {
			c.onEvent(event{Method: method, Params: params})
		}
		c.onEvent(event{Method: "Runtime.executionContextsCleared", Params: json.RawMessage(`{}`)})
		if len(c.obs.Scripts) > 2 || len(c.obs.Contexts) > 2 || c.obs.EventsRetained > 4 {
			t.Fatalf("limits not applied: %+v", c.obs)
		}
	})
}
