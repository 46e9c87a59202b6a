package cdp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rea/ports"
)

// FuzzDiscovery drives /json/version and /json/list parsing with untrusted
// bytes: any input gives a result or a typed error, never a panic, and
// every accepted socket stays on the endpoint.
func FuzzDiscovery(f *testing.F) {
	f.Add([]byte(`{"Browser":"Chrome/1","Protocol-Version":"1.3","User-Agent":"u","V8-Version":"1","WebKit-Version":"w","webSocketDebuggerUrl":"ws://127.0.0.1:9222/devtools/browser/abc"}`))
	f.Add([]byte(`[{"id":"T1","type":"page","title":"t","url":"http://a.test/","webSocketDebuggerUrl":"ws://evil.test:9222/devtools/page/T1"}]`))
	f.Add([]byte(`[{"id":"T1","type":"page","url":"http://u:p@a.test/","attached":true,"webSocketDebuggerUrl":"ws://127.0.0.1:9222/devtools/page/T1?x"}]`))
	f.Add([]byte(`{"Browser":1}`))
	f.Add([]byte(`[`))
	f.Add([]byte("\xff\xfe"))
	ep, _ := parseEndpoint("http://127.0.0.1:9222")
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := parseVersion(b, ep); err == nil && v.browserWS != "" {
			checkSocket(t, v.browserWS)
		}
		if list, err := parseList(b, ep); err == nil {
			for _, d := range list {
				if d.TargetID == "" {
					t.Fatal("accepted an empty target id")
				}
				if d.socket != "" {
					checkSocket(t, d.socket)
				}
			}
		}
	})
}

func checkSocket(t *testing.T, ws string) {
	if len(ws) < 21 || ws[:21] != "ws://127.0.0.1:9222/d" {
		t.Fatalf("socket %q left the endpoint", ws)
	}
}

// FuzzMessage drives the CDP message decoder and the dispatcher.
func FuzzMessage(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"result":{}}`, `{"id":1,"error":{"code":-32601,"message":"x"}}`,
		`{"method":"Page.frameNavigated","params":{"frame":{"id":"F"}},"sessionId":"S"}`,
		`{"id":0}`, `{"id":9007199254740992}`, `{"id":"1"}`, `{"method":""}`, `{"method":"X","params":[]}`,
		`[]`, `null`, `{"id":1,"result":[]}`, `{"sessionId":5,"method":"X"}`, "{\"method\":\"X\",\"params\":{\"a\":\"\xff\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, be := decodeMessage(b)
		if (m == nil) == (be == nil) {
			t.Fatal("decodeMessage must give exactly one of a message and an error")
		}
		if be != nil && be.Code != "protocol_error" {
			t.Fatalf("code %s", be.Code)
		}
		// feed it to the event handlers too
		pc := &pageCapture{sc: newScope([]string{"http://a.test"}), lim: limitsOrDefault(limitsZero), led: newLedger(),
			stop: make(chan struct{}), contexts: map[int64]string{}, scripts: map[string]*scriptT{},
			requests: map[string]*requestT{}, metadata: map[string]*metadataT{}, sockets: map[string]*socketT{}, created: map[string]bool{}}
		if m != nil && m.Method != nil {
			var method string
			if decode(m.Method, &method) {
				for _, meth := range fuzzMethods {
					pc.onEvent(event{Method: meth, Params: m.Params})
				}
			}
		}
		pc.onEvent(event{Method: "Network.requestWillBeSent", Params: b})
		pc.onEvent(event{Method: "Debugger.scriptParsed", Params: b})
		pc.onEvent(event{Method: "Runtime.consoleAPICalled", Params: b})
		pc.onEvent(event{Method: "Network.webSocketFrameReceived", Params: b})
		tl := &timeline{sc: pc.sc, max: 10, done: make(chan struct{})}
		for _, meth := range fuzzMethods {
			tl.onEvent(event{Method: meth, Params: b})
		}
		st := &wmState{sc: pc.sc, frames: map[string]wmFrame{"F": {url: "http://a.test/"}}, tools: map[[2]string]webmcpToolT{}, max: 5, maxSchema: 100, limits: map[string]bool{}}
		st.onEvent(event{Method: "WebMCP.toolsAdded", Params: b})
	})
}

var fuzzMethods = []string{
	"Runtime.executionContextCreated", "Debugger.scriptParsed", "Network.requestWillBeSent", "Network.responseReceived",
	"Network.loadingFinished", "Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Network.webSocketCreated", "Network.webSocketFrameSent",
	"Page.frameNavigated", "Page.navigatedWithinDocument", "Page.frameRequestedNavigation", "Page.lifecycleEvent",
	"Network.loadingFailed", "Target.detachedFromTarget", "Inspector.targetCrashed",
}

type (
	scriptT     = ports.BrowserScript
	requestT    = ports.BrowserRequest
	metadataT   = ports.BrowserResponseMetadata
	socketT     = ports.BrowserWebSocket
	webmcpToolT = ports.WebMCPTool
)

var limitsZero ports.BrowserLimits

// A Node inspector's /json/version has no User-Agent: the error says which
// tools read it instead of naming the missing member.
func TestVersionOfANodeInspector(t *testing.T) {
	ep, _ := parseEndpoint("http://127.0.0.1:9229")
	_, err := parseVersion([]byte(`{"Browser":"node.js/v20.20.2","Protocol-Version":"1.1"}`), ep)
	var be *ports.BrowserError
	if !errors.As(err, &be) || be.Code != ports.BrowserInvalidEndpointResponse || !strings.Contains(be.Msg, "list_javascript_runtime_targets") {
		t.Fatalf("got %v", err)
	}
	if _, err := parseVersion([]byte(`{"Browser":"Chrome/1"}`), ep); err == nil || !strings.Contains(err.Error(), "lacks string Protocol-Version") {
		t.Fatalf("a browser's incomplete version: got %v", err)
	}
}

// A step whose own time ran out says what it waited for, not only
// "context deadline exceeded".
func TestStepErrorSaysWhatItWaitedFor(t *testing.T) {
	late := context.DeadlineExceeded
	click := stepError(ports.BrowserScenarioStep{Action: "click", Selector: "#nope"}, 2*time.Second, late, true)
	if click == nil || !strings.Contains(click.Error(), "no visible element matched #nope within 2s") {
		t.Fatalf("click: %v", click)
	}
	nav := stepError(ports.BrowserScenarioStep{Action: "goto_start", URL: "http://127.0.0.1:9/"}, time.Second, late, true)
	if nav == nil || !strings.Contains(nav.Error(), "did not load within 1s") {
		t.Fatalf("navigate: %v", nav)
	}
	// A navigation the scope refused (a redirect out of allowed_origins)
	// says so and what to add, not only Chromium's net error.
	blocked := stepError(ports.BrowserScenarioStep{Action: "navigate", URL: "http://127.0.0.1:8080/out"}, time.Second, errors.New("page load error net::ERR_BLOCKED_BY_CLIENT"), false)
	if blocked == nil || !strings.Contains(blocked.Error(), "redirected to an origin outside allowed_origins") || !strings.Contains(blocked.Error(), "add that origin to allowed_origins") {
		t.Fatalf("blocked navigation: %v", blocked)
	}
	other := errors.New("node not interactable")
	if got := stepError(ports.BrowserScenarioStep{Action: "click", Selector: "#a"}, time.Second, other, false); got != other {
		t.Fatalf("an error before the step's time ran out is kept: %v", got)
	}
}
