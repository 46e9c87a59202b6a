// Package cdptest is a scripted fake of a Chrome DevTools endpoint for
// boundary tests: HTTP discovery (/json/version, /json/list) and WebSocket
// sockets that answer commands with scripted results, emit scripted events,
// and record every method they receive. Modes break discovery (non-JSON,
// oversized, malformed, non-200) and sockets (garbage frames, a close
// mid-capture, an out-of-scope navigation, event floods, commands left
// unanswered).
//
// It imports the standard library and adapters/cdp/internal/wsock only.
package cdptest

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"time"

	"rea/adapters/cdp/internal/wsock"
)

// Discovery modes.
const (
	DiscoveryOK               = ""
	DiscoveryNonJSON          = "non-json"
	DiscoveryOversizedVersion = "oversized-version"
	DiscoveryOversizedList    = "oversized-list"
	DiscoveryMalformedVersion = "malformed-version"
	DiscoveryMalformedList    = "malformed-list"
	DiscoveryStatus500        = "status-500"
	DiscoveryRedirect         = "redirect"
)

// Target is one /json/list entry.
type Target struct {
	ID, Type, Title, URL string
	Attached             bool
	NoSocket             bool // no webSocketDebuggerUrl
}

// Call is one command the fake received.
type Call struct {
	Method    string
	SessionID string
	Params    json.RawMessage
}

// RPCError is a scripted error reply.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Event is a scripted notification. Page events go to the page session
// (on a browser socket) or to the page socket; Browser events carry no
// session; an event with a Session goes to that session (a target the page
// session auto-attached) on either socket.
type Event struct {
	Method  string
	Params  any
	Browser bool
	Session string
}

// Handler answers a command: a result (marshalled to JSON), or an error.
type Handler func(s *Server, c Call) (any, *RPCError)

// Options script a fake. The zero value is a working browser with one page
// target "T1" at http://app.test/index.html.
type Options struct {
	Targets         []Target
	Discovery       string
	UserAgent       string // /json/version's User-Agent ("FakeAgent")
	NoBrowserSocket bool   // /json/version's socket is unusable: page sockets are used
	SessionID       string // returned by Target.attachToTarget ("S1"); "-" returns ""
	// Handlers override or add command answers.
	Handlers map[string]Handler
	// After lists events sent after the reply to a method.
	After map[string][]Event
	// GarbageOn sends a non-JSON text frame instead of the reply to this
	// method; BinaryOn a binary frame; CloseOn closes the socket (the
	// target went away).
	GarbageOn, BinaryOn, CloseOn string
	// NavigateOutOn makes the main frame navigate to this URL after the
	// reply to NavigateOutMethod.
	NavigateOutMethod, NavigateOutURL string
	// Flood sends this many console and network events after Network.enable.
	Flood int
	// Unanswered picks commands the fake reads and never answers (a target
	// that hangs).
	Unanswered func(Call) bool
}

// Server is a running fake.
type Server struct {
	URL  string // http://127.0.0.1:PORT
	opts Options
	sockets

	mu       sync.Mutex
	hits     int
	calls    []Call
	frameURL string
	loaderID int
}

// New starts a fake; Close stops it and its sockets.
func New(opts *Options) *Server {
	s := &Server{}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Targets == nil {
		s.opts.Targets = []Target{{ID: "T1", Type: "page", Title: "App", URL: "http://app.test/index.html"}}
	}
	if s.opts.SessionID == "" {
		s.opts.SessionID = "S1"
	}
	s.frameURL = s.opts.Targets[0].URL
	s.loaderID = 1
	mux := http.NewServeMux()
	mux.HandleFunc("/json/version", s.version)
	mux.HandleFunc("/json/list", s.list)
	mux.HandleFunc("/devtools/", s.socket)
	s.URL = s.listen(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits++
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	return s
}

// Calls returns every command received so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Hits counts the HTTP requests (discovery and socket handshakes) served.
func (s *Server) Hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

// Port is the server's TCP port.
func (s *Server) Port() string { return s.URL[strings.LastIndexByte(s.URL, ':')+1:] }

// Methods returns the method names received so far, in order.
func (s *Server) Methods() []string {
	var out []string
	for _, c := range s.Calls() {
		out = append(out, c.Method)
	}
	return out
}

// Received reports whether any command of the method (or, for a name
// ending in ".", of the domain) was received.
func (s *Server) Received(method string) bool {
	for _, m := range s.Methods() {
		if m == method || (strings.HasSuffix(method, ".") && strings.HasPrefix(m, method)) {
			return true
		}
	}
	return false
}

// SetFrameURL changes the main frame's URL as a navigation would (a new
// loader), without an event.
func (s *Server) SetFrameURL(u string) {
	s.mu.Lock()
	s.frameURL = u
	s.loaderID++
	s.mu.Unlock()
}

// Emit sends an event on every open socket now.
func (s *Server) Emit(ev Event) {
	for _, c := range s.open() {
		s.send(c, ev, true)
	}
}

func (s *Server) host() string { return strings.TrimPrefix(s.URL, "http://") }

func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	ws := "ws://" + s.host() + "/devtools/browser/B1"
	if s.opts.NoBrowserSocket {
		ws = "ws://" + s.host() + "/elsewhere"
	}
	v := map[string]any{
		"Browser": "FakeChrome/1.0", "Protocol-Version": "1.3", "User-Agent": cmp.Or(s.opts.UserAgent, "FakeAgent"),
		"V8-Version": "1.2.3", "WebKit-Version": "537.36 (@fake)", "webSocketDebuggerUrl": ws,
	}
	switch s.opts.Discovery {
	case DiscoveryNonJSON:
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>not json</html>")
		return
	case DiscoveryOversizedVersion:
		v["Browser"] = strings.Repeat("x", 70<<10)
	case DiscoveryMalformedVersion:
		v["Protocol-Version"] = 13
	case DiscoveryStatus500:
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	case DiscoveryRedirect:
		http.Redirect(w, r, "http://127.0.0.1:1/json/version", http.StatusFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	var items []map[string]any
	for _, t := range s.opts.Targets {
		it := map[string]any{"id": t.ID, "type": t.Type, "title": t.Title, "url": t.URL, "attached": t.Attached}
		if !t.NoSocket {
			it["webSocketDebuggerUrl"] = "ws://" + s.host() + "/devtools/page/" + t.ID
		}
		items = append(items, it)
	}
	switch s.opts.Discovery {
	case DiscoveryOversizedList:
		w.Write([]byte("[" + strings.Repeat(" ", 3<<20) + "]"))
		return
	case DiscoveryMalformedList:
		fmt.Fprint(w, `[{"id": 7, "type": "page", "url": "http://app.test/"}]`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(items)
}

func (s *Server) socket(w http.ResponseWriter, r *http.Request) {
	c, err := wsock.Upgrade(w, r, 64<<20)
	if err != nil {
		return
	}
	s.add(c)
	pageSocket := strings.HasPrefix(r.URL.Path, "/devtools/page/")
	go s.serve(c, pageSocket)
}

type wire struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
}

func (s *Server) serve(c *wsock.Conn, pageSocket bool) {
	defer c.Close()
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		var m wire
		if json.Unmarshal(data, &m) != nil {
			return
		}
		s.mu.Lock()
		s.calls = append(s.calls, Call{Method: m.Method, SessionID: m.SessionID, Params: m.Params})
		s.mu.Unlock()
		switch m.Method {
		case s.opts.GarbageOn:
			c.WriteMessage(wsock.OpText, []byte("this is not json"))
			continue
		case s.opts.BinaryOn:
			c.WriteMessage(wsock.OpBinary, []byte{0, 1, 2})
			continue
		case s.opts.CloseOn:
			c.Close()
			return
		}
		if s.opts.Unanswered != nil && s.opts.Unanswered(Call{Method: m.Method, SessionID: m.SessionID, Params: m.Params}) {
			continue
		}
		res, rerr := s.answer(Call{Method: m.Method, SessionID: m.SessionID, Params: m.Params})
		reply := map[string]any{"id": m.ID}
		if m.SessionID != "" {
			reply["sessionId"] = m.SessionID
		}
		if rerr != nil {
			reply["error"] = rerr
		} else {
			reply["result"] = res
		}
		b, _ := json.Marshal(reply)
		c.WriteMessage(wsock.OpText, b)
		for _, ev := range s.opts.After[m.Method] {
			s.send(c, ev, !pageSocket)
		}
		for _, ev := range s.defaultEvents(m.Method) {
			s.send(c, ev, !pageSocket)
		}
		if m.Method == s.opts.NavigateOutMethod && s.opts.NavigateOutURL != "" {
			s.SetFrameURL(s.opts.NavigateOutURL)
			s.send(c, Event{Method: "Page.frameNavigated", Params: map[string]any{"frame": s.frame()}}, !pageSocket)
		}
	}
}

// send writes one event; on a browser socket page events carry the session.
func (s *Server) send(c *wsock.Conn, ev Event, browserSocket bool) {
	msg := map[string]any{"method": ev.Method, "params": ev.Params}
	if ev.Params == nil {
		msg["params"] = map[string]any{}
	}
	switch {
	case ev.Session != "":
		msg["sessionId"] = ev.Session
	case browserSocket && !ev.Browser:
		msg["sessionId"] = s.opts.SessionID
	}
	b, _ := json.Marshal(msg)
	c.WriteMessage(wsock.OpText, b)
}

// WriteRaw sends raw bytes on every open socket (for broken-frame tests).
func (s *Server) WriteRaw(b []byte) {
	for _, c := range s.open() {
		c.WriteRaw(b)
	}
}

func (s *Server) frame() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]any{"id": "F1", "loaderId": fmt.Sprintf("L%d", s.loaderID), "url": s.frameURL,
		"securityOrigin": origin(s.frameURL), "mimeType": "text/html", "domainAndRegistry": "",
		"secureContextType": "InsecureScheme", "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": []string{}}
}

func origin(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[:i+3+j]
		}
	}
	return u
}

func (s *Server) base() string { return origin(s.opts.Targets[0].URL) }

func (s *Server) answer(c Call) (any, *RPCError) {
	if h := s.opts.Handlers[c.Method]; h != nil {
		return h(s, c)
	}
	b := s.base()
	switch c.Method {
	case "Target.attachToTarget":
		sid := s.opts.SessionID
		if sid == "-" {
			sid = ""
		}
		return map[string]any{"sessionId": sid}, nil
	case "Page.getFrameTree":
		return map[string]any{"frameTree": map[string]any{"frame": s.frame(), "childFrames": []any{
			map[string]any{"frame": map[string]any{"id": "F2", "parentId": "F1", "loaderId": "L9", "url": "http://ads.example/frame.html"}},
		}}}, nil
	case "Page.getResourceTree":
		return map[string]any{"frameTree": map[string]any{"frame": s.frame(), "resources": []any{
			map[string]any{"url": b + "/app.js", "type": "Script", "mimeType": "text/javascript", "contentSize": 120},
			map[string]any{"url": "http://cdn.example/lib.js", "type": "Script", "mimeType": "text/javascript"},
		}}}, nil
	case "DOMSnapshot.captureSnapshot":
		strs := []string{s.frameURL, "#document", "HTML", "BODY", "A", "href", "/next", "SCRIPT", "src", "http://cdn.example/lib.js", "LINK", "rel", "mcp", "#text", "hello"}
		return map[string]any{"strings": strs, "documents": []any{map[string]any{
			"documentURL": 0,
			"nodes": map[string]any{
				"parentIndex": []int{-1, 0, 1, 2, 2, 2, 2},
				"nodeType":    []int{9, 1, 1, 1, 1, 1, 3},
				"nodeName":    []int{1, 2, 3, 4, 7, 10, 13},
				"nodeValue":   []int{-1, -1, -1, -1, -1, -1, 14},
				"attributes":  [][]int{{}, {}, {}, {5, 6}, {8, 9}, {11, 12}, {}},
			},
		}}}, nil
	case "Accessibility.getFullAXTree":
		return map[string]any{"nodes": []any{
			map[string]any{"nodeId": "1", "ignored": false, "role": map[string]any{"type": "role", "value": "RootWebArea"}, "name": map[string]any{"type": "computedString", "value": "App"}, "childIds": []string{"2"}},
			map[string]any{"nodeId": "2", "parentId": "1", "ignored": false, "role": map[string]any{"type": "role", "value": "button"},
				"name":       map[string]any{"type": "computedString", "value": "ax-private-label-value"},
				"properties": []any{map[string]any{"name": "focusable", "value": map[string]any{"type": "booleanOrUndefined", "value": true}}}},
		}}, nil
	case "Debugger.getScriptSource":
		return map[string]any{"scriptSource": "console.log('fake');"}, nil
	case "Target.getTargets":
		return map[string]any{"targetInfos": []any{
			map[string]any{"targetId": "T1", "type": "page", "title": "", "url": s.frameURL, "attached": true, "canAccessOpener": false},
			map[string]any{"targetId": "W1", "type": "worker", "title": "", "url": b + "/worker.js", "attached": false, "openerId": "T1", "canAccessOpener": false},
			map[string]any{"targetId": "W2", "type": "service_worker", "title": "", "url": "http://other.example/sw.js", "attached": false, "canAccessOpener": false},
		}}, nil
	case "Storage.getUsageAndQuota":
		return map[string]any{"usage": 10, "quota": 100, "overrideActive": false}, nil
	case "DOMStorage.getDOMStorageItems":
		return map[string]any{"entries": [][]string{{"token", "secret-value"}}}, nil
	case "IndexedDB.requestDatabaseNames":
		return map[string]any{"databaseNames": []string{"db1"}}, nil
	case "IndexedDB.requestDatabase":
		return map[string]any{"databaseWithObjectStores": map[string]any{"name": "db1", "version": 1, "objectStores": []any{}}}, nil
	case "CacheStorage.requestCacheNames":
		return map[string]any{"caches": []any{}}, nil
	case "Network.getCookies":
		return map[string]any{"cookies": []any{map[string]any{"name": "sid", "value": "cookie-secret", "domain": "app.test", "path": "/"}}}, nil
	case "Network.getResponseBody":
		return map[string]any{"body": `{"ok":true}`, "base64Encoded": false}, nil
	case "Page.captureScreenshot":
		return map[string]any{"data": base64.StdEncoding.EncodeToString(PNG(8, 6))}, nil
	case "WebMCP.enable":
		return nil, &RPCError{Code: -32601, Message: "'WebMCP.enable' wasn't found"}
	}
	return map[string]any{}, nil
}

// defaultEvents is what a page shows once a domain is enabled.
// Console timestamps are milliseconds since the epoch, as Chromium's are;
// Runtime.enable first replays a message the page logged a minute before.
func (s *Server) defaultEvents(method string) []Event {
	b := s.base()
	now := float64(time.Now().UnixMicro()) / 1000
	switch method {
	case "Runtime.enable":
		return []Event{
			{Method: "Runtime.executionContextCreated", Params: map[string]any{"context": map[string]any{"id": 1, "origin": b, "name": "", "uniqueId": "u1", "auxData": map[string]any{"frameId": "F1", "isDefault": true}}}},
			{Method: "Runtime.consoleAPICalled", Params: map[string]any{"type": "log", "executionContextId": 1, "timestamp": now - 60000,
				"args":       []any{map[string]any{"type": "string", "value": "logged before the attach"}},
				"stackTrace": map[string]any{"callFrames": []any{map[string]any{"functionName": "", "scriptId": "1", "url": b + "/app.js", "lineNumber": 1, "columnNumber": 1}}}}},
			{Method: "Runtime.consoleAPICalled", Params: map[string]any{"type": "log", "executionContextId": 1, "timestamp": now + 1.5,
				"args":       []any{map[string]any{"type": "string", "value": "Bearer console-secret"}, map[string]any{"type": "number", "value": 42}, map[string]any{"type": "object", "className": "Object"}},
				"stackTrace": map[string]any{"callFrames": []any{map[string]any{"functionName": "", "scriptId": "1", "url": b + "/app.js", "lineNumber": 3, "columnNumber": 7}}}}},
			{Method: "Runtime.consoleAPICalled", Params: map[string]any{"type": "log", "executionContextId": 1, "timestamp": now + 1.6,
				"args":       []any{map[string]any{"type": "string", "value": "third party"}},
				"stackTrace": map[string]any{"callFrames": []any{map[string]any{"url": "http://cdn.example/lib.js", "lineNumber": 1, "columnNumber": 1}}}}},
		}
	case "Debugger.enable":
		return []Event{
			{Method: "Debugger.scriptParsed", Params: map[string]any{"scriptId": "1", "url": b + "/app.js", "executionContextId": 1, "hash": "abc", "length": 20, "isModule": true, "scriptLanguage": "JavaScript", "sourceMapURL": "app.js.map",
				"startLine": 0, "startColumn": 0, "endLine": 1, "endColumn": 0}},
			{Method: "Debugger.scriptParsed", Params: map[string]any{"scriptId": "2", "url": "http://cdn.example/lib.js", "executionContextId": 1, "hash": "def", "length": 5}},
			{Method: "Debugger.scriptParsed", Params: map[string]any{"url": b + "/noid.js"}},
		}
	case "Network.enable":
		evs := []Event{
			{Method: "Network.requestWillBeSent", Params: map[string]any{"requestId": "R1", "loaderId": "L1", "documentURL": s.frameURL, "type": "Fetch", "frameId": "F1",
				"request":   map[string]any{"url": b + "/api?token=x", "method": "POST", "headers": map[string]any{"Content-Type": "application/json"}, "postData": `{"user":"u"}`},
				"initiator": map[string]any{"type": "script", "stack": map[string]any{"callFrames": []any{map[string]any{"url": b + "/app.js", "lineNumber": 4, "columnNumber": 2}}}}}},
			{Method: "Network.responseReceived", Params: map[string]any{"requestId": "R1", "type": "Fetch",
				"response": map[string]any{"url": b + "/api?token=x", "status": 200, "mimeType": "application/json",
					"headers": map[string]any{"Content-Type": "application/json", "Content-Security-Policy": "default-src 'self'", "Set-Cookie": "sid=secret", "X-WebMCP": "1"}}}},
			{Method: "Network.loadingFinished", Params: map[string]any{"requestId": "R1", "encodedDataLength": 321}},
			{Method: "Network.requestWillBeSent", Params: map[string]any{"requestId": "R2", "type": "Script", "request": map[string]any{"url": "http://cdn.example/lib.js", "method": "GET"}}},
			{Method: "Network.webSocketCreated", Params: map[string]any{"requestId": "WS1", "url": strings.Replace(b, "http", "ws", 1) + "/ws"}},
			{Method: "Network.webSocketFrameSent", Params: map[string]any{"requestId": "WS1", "timestamp": 2, "response": map[string]any{"opcode": 1, "mask": true, "payloadData": `{"kind":"ping"}`}}},
			{Method: "Network.webSocketFrameReceived", Params: map[string]any{"requestId": "WS1", "timestamp": 2, "response": map[string]any{"opcode": 2, "mask": false, "payloadData": "!!not base64!!"}}},
		}
		for i := 0; i < s.opts.Flood; i++ {
			evs = append(evs,
				Event{Method: "Network.requestWillBeSent", Params: map[string]any{"requestId": fmt.Sprintf("F%d", i), "type": "XHR", "request": map[string]any{"url": b + fmt.Sprintf("/flood/%d", i), "method": "GET"}}},
				Event{Method: "Runtime.consoleAPICalled", Params: map[string]any{"type": "log", "timestamp": now + 1, "args": []any{map[string]any{"type": "string", "value": "flood"}},
					"stackTrace": map[string]any{"callFrames": []any{map[string]any{"url": b + "/app.js", "lineNumber": 1, "columnNumber": 1}}}}})
		}
		return evs
	}
	return nil
}

// PNG returns a w×h RGBA PNG.
func PNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 30), uint8(y * 40), 200, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// EchoWebSocket is an http.HandlerFunc that echoes WebSocket messages, for
// fixture sites.
func EchoWebSocket(w http.ResponseWriter, r *http.Request) {
	c, err := wsock.Upgrade(w, r, 1<<20)
	if err != nil {
		return
	}
	go func() {
		defer c.Close()
		for {
			op, data, err := c.ReadMessage()
			if err != nil {
				return
			}
			if c.WriteMessage(op, data) != nil {
				return
			}
		}
	}()
}
