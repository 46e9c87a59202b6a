package cdp

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"rea/ports"
)

// The V8 inspector lane (BROWSER.md "JS runtime, V8 Inspector"): Node's
// --inspect endpoint and any V8 target reachable over a loopback inspector.
// Discovery differs from a browser's (Node's /json/version has only Browser
// and Protocol-Version, and its sockets live at /<id>), so it has its own
// parser here; the WebSocket client, correlator and endpoint rules are the
// browser lane's.

// RuntimeProviderID is the provider of the V8 tools (BROWSER.md §6).
const RuntimeProviderID = "rea-v8-inspector"

// RuntimeOptions configure a RuntimeEngine; nil means defaults.
type RuntimeOptions struct {
	// ElectronLauncher starts owned Electron applications; nil uses
	// supervisor-owned processes of the request's executable.
	Hook []byte // the preload hook source; nil uses the embedded one
	// GraceDelay is how long an owned application has to exit after
	// SIGTERM (2 s).
	GraceDelay time.Duration
	// TempParent is where owned temporary directories go ("" = os.TempDir).
	TempParent string
	// Tap, when set, watches each scenario's hook conversation (tests
	// record it, or stand in for the hook, with it).
	Tap *ScenarioTap
}

// ScenarioTap watches capture_electron_scenario's conversation with the
// preload hook, for the record/replay harness: a recording wraps the
// hook's connection and notes the process events; a replay dials the
// control socket as the hook would, while a process that never connects
// stands in for the application. Nil fields are skipped; each is called
// from the scenario's goroutine.
type ScenarioTap struct {
	// Listening: the control socket is open at path, before the launch.
	Listening func(path string)
	// Conn wraps the hook's accepted connection.
	Conn func(net.Conn) net.Conn
	// Started: the application was launched as pid with argv.
	Started func(pid int, argv []string)
	// Ended: after cleanup, the signals rea sent the application's
	// process group (names, in order) and the launcher's exit code (-1
	// when a signal ended it or no exit was seen).
	Ended func(signals []string, exitCode int)
}

// RuntimeEngine observes running JavaScript: Node over its V8 inspector,
// Electron pages over CDP, and owned Electron scenarios.
type RuntimeEngine struct {
	opts    RuntimeOptions
	browser *Engine
}

var _ ports.JavaScriptRuntimeObserver = (*RuntimeEngine)(nil)

// NewRuntime returns a RuntimeEngine.
func NewRuntime(opts *RuntimeOptions) *RuntimeEngine {
	e := &RuntimeEngine{browser: New(nil)}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.GraceDelay <= 0 {
		e.opts.GraceDelay = 2 * time.Second
	}
	return e
}

// Info names the engine.
func (e *RuntimeEngine) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: RuntimeProviderID, Name: "V8 inspector and Electron observer", Version: "1"}
}

func fieldErr(err error, field string) error {
	if be, ok := ports.AsBrowserError(err); ok && be.Code == ports.BrowserInvalidRequest && be.Field == "cdp_endpoint" {
		c := *be
		c.Field = field
		return &c
	}
	return err
}

// v8Target is one /json/list entry of an inspector.
type v8Target struct {
	id, typ, title, rawURL string
	attached               bool
	socket                 string
}

func discoverV8(ctx context.Context, ep endpoint) (ports.RuntimeInfo, []v8Target, error) {
	vb, err := getJSON(ctx, ep, "/json/version", maxVersionBytes)
	if err != nil {
		return ports.RuntimeInfo{}, nil, err
	}
	info, err := parseV8Version(vb)
	if err != nil {
		return ports.RuntimeInfo{}, nil, err
	}
	lb, err := getJSON(ctx, ep, "/json/list", maxListBytes)
	if err != nil {
		return ports.RuntimeInfo{}, nil, err
	}
	list, err := parseV8List(lb, ep)
	return info, list, err
}

// parseV8Version reads an inspector's /json/version: Browser and
// Protocol-Version are required strings, V8-Version optional.
func parseV8Version(b []byte) (ports.RuntimeInfo, error) {
	var m map[string]json.RawMessage
	if err := strictObject(b, &m); err != nil {
		return ports.RuntimeInfo{}, invalidResponse("/json/version is not a JSON object")
	}
	str := func(k string, required bool) (string, error) {
		r, ok := m[k]
		if !ok {
			if required {
				return "", invalidResponse("/json/version lacks string " + k)
			}
			return "", nil
		}
		var s string
		if json.Unmarshal(r, &s) != nil || len(s) > 1024 {
			return "", invalidResponse("/json/version has a bad " + k)
		}
		return s, nil
	}
	var info ports.RuntimeInfo
	var err error
	if info.Product, err = str("Browser", true); err != nil {
		return info, err
	}
	if info.ProtocolVersion, err = str("Protocol-Version", true); err != nil {
		return info, err
	}
	if info.V8Version, err = str("V8-Version", false); err != nil {
		return info, err
	}
	return info, nil
}

func parseV8List(b []byte, ep endpoint) ([]v8Target, error) {
	var raw []map[string]json.RawMessage
	if len(b) == 0 || json.Unmarshal(b, &raw) != nil {
		return nil, invalidResponse("/json/list is not an array of objects")
	}
	if len(raw) > maxTargets {
		return nil, &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: "/json/list has over 1000 targets"}
	}
	out := make([]v8Target, 0, len(raw))
	for i, m := range raw {
		var t v8Target
		var ws string
		if err := readListItem(m, i, listField{"id", &t.id, true, 256}, listField{"type", &t.typ, true, 100},
			listField{"title", &t.title, false, 16384}, listField{"url", &t.rawURL, false, 65536},
			listField{"webSocketDebuggerUrl", &ws, false, 65536}); err != nil {
			return nil, err
		}
		if t.id == "" || strings.Contains(t.id, "/") {
			return nil, invalidResponse("/json/list item " + strconv.Itoa(i) + " has an empty or invalid id")
		}
		if r, ok := m["attached"]; ok && json.Unmarshal(r, &t.attached) != nil {
			return nil, invalidResponse("/json/list item " + strconv.Itoa(i) + " has a bad attached")
		}
		t.socket = v8SocketURL(ws, ep, t.id)
		out = append(out, t)
	}
	return out, nil
}

// v8SocketURL validates an inspector target's socket: ws:, the endpoint's
// port, no userinfo, query or fragment, path /<id>, /devtools/node/<id> or
// /devtools/page/<id> with the target's id. The host is rewritten to the
// endpoint's. "" when unusable.
func v8SocketURL(raw string, ep endpoint, id string) string {
	if raw == "" || strings.ContainsAny(raw, "?#") {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "ws" || u.User != nil || u.Port() != ep.Port || u.RawQuery != "" {
		return ""
	}
	switch u.Path {
	case "/" + id, "/devtools/node/" + id, "/devtools/page/" + id:
	default:
		return ""
	}
	host := strings.Trim(ep.Host[:strings.LastIndex(ep.Host, ":")], "[]")
	return "ws://" + net.JoinHostPort(host, ep.Port) + u.EscapedPath()
}

// runtimeScope is a validated RuntimeScope.
type runtimeScope struct {
	roots   []string // realpath'd
	origins map[string]bool
}

func newRuntimeScope(s ports.RuntimeScope) (runtimeScope, error) {
	rs := runtimeScope{origins: map[string]bool{}}
	for _, r := range s.AllowedFileRoots {
		if r == "" || !filepath.IsAbs(r) || strings.ContainsRune(r, 0) {
			return rs, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "allowed_file_roots", Msg: "a file root must be an absolute path without NUL"}
		}
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			return rs, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "allowed_file_roots", Msg: "file root does not exist: " + r}
		}
		rs.roots = append(rs.roots, real)
	}
	origins, err := normalizeOrigins(s.AllowedOrigins)
	if err != nil {
		return rs, err
	}
	for _, o := range origins {
		rs.origins[o] = true
	}
	return rs, nil
}

// fileGate applies BROWSER.md's file gate to a file: URL. It returns the
// realpath, or an exclusion reason: unsupported_location (not a usable
// file URL), unresolved (well-formed but not verifiable here) or
// outside_file_roots.
func (s runtimeScope) fileGate(raw string) (string, string) {
	if len(raw) > 65536 {
		return "", "unsupported_location"
	}
	low := strings.ToLower(raw)
	if strings.Contains(low, "%2f") || strings.Contains(low, "%5c") || strings.Contains(low, "%00") || strings.ContainsRune(raw, 0) {
		return "", "unsupported_location"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" || u.Host != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", "unsupported_location"
	}
	p := u.Path
	if p == "" || p == "/" || !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return "", "unsupported_location"
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", "unresolved"
	}
	if len(s.roots) > 0 && !underAny(real, s.roots) {
		return "", "outside_file_roots"
	}
	return real, ""
}

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// locate classifies a script or target URL. The reason is "" when the
// location is usable, else builtin | invalid_protocol_value |
// unsupported_location | outside_file_roots | outside_origins.
func (s runtimeScope) locate(raw string, maxBytes int) (ports.RuntimeLocation, string) {
	switch {
	case raw == "" || len(raw) > maxBytes:
		return ports.RuntimeLocation{}, "invalid_protocol_value"
	case strings.HasPrefix(raw, "node:"):
		return ports.RuntimeLocation{}, "builtin"
	case strings.HasPrefix(raw, "file:"):
		p, why := s.fileGate(raw)
		switch why {
		case "":
			return ports.RuntimeLocation{Kind: "file", FilePath: p}, ""
		case "unresolved":
			return ports.RuntimeLocation{Kind: "unresolved", ReportedURL: raw, Reason: "unverifiable-file-location"}, ""
		}
		return ports.RuntimeLocation{}, why
	}
	clean, origin := sanitizeURL(raw)
	if origin == "" {
		// Node reports CommonJS paths of older versions as plain absolute
		// paths; they pass the gate as file URLs.
		if filepath.IsAbs(raw) {
			return s.locate((&url.URL{Scheme: "file", Path: raw}).String(), maxBytes)
		}
		return ports.RuntimeLocation{}, "unsupported_location"
	}
	if len(s.origins) > 0 && !s.origins[origin] {
		return ports.RuntimeLocation{}, "outside_origins"
	}
	return ports.RuntimeLocation{Kind: "url", Origin: origin, URL: clean}, ""
}

// ListRuntimeTargets lists an inspector's targets within the scope.
func (e *RuntimeEngine) ListRuntimeTargets(ctx context.Context, req ports.RuntimeListRequest) (*ports.RuntimeTargetList, error) {
	ep, err := parseEndpoint(req.Endpoint)
	if err != nil {
		return nil, fieldErr(err, "inspector_endpoint")
	}
	sc, err := newRuntimeScope(req.Scope)
	if err != nil {
		return nil, err
	}
	info, list, err := discoverV8(ctx, ep)
	if err != nil {
		return nil, err
	}
	out := &ports.RuntimeTargetList{Runtime: info, Targets: []ports.RuntimeTarget{}}
	for _, t := range list {
		loc, why := sc.locate(t.rawURL, 16384)
		switch why {
		case "outside_file_roots":
			out.Excluded.OutsideFileRoots++
			continue
		case "outside_origins":
			out.Excluded.OutsideOrigins++
			continue
		case "":
		default:
			out.Excluded.UnsupportedLocation++
			continue
		}
		if t.socket == "" {
			out.Excluded.Unconnectable++
			continue
		}
		out.Targets = append(out.Targets, ports.RuntimeTarget{TargetID: t.id, ProtocolType: t.typ, Title: t.title, Attached: t.attached, Location: loc})
	}
	if n := out.Excluded.Unconnectable; n > 0 {
		out.Limitations = append(out.Limitations, itoa(n)+" otherwise allowed target(s) lacked a validated inspector WebSocket and were excluded.")
	}
	slices.SortFunc(out.Targets, func(a, b ports.RuntimeTarget) int { return strings.Compare(a.TargetID, b.TargetID) })
	return out, nil
}

// kindFits says whether a declared runtime kind fits a target's protocol
// type: node and electron-main need node, preload and renderer need page.
func kindFits(kind, typ string) bool {
	switch kind {
	case "":
		return true
	case "node", "electron-main":
		return typ == "node"
	case "electron-preload", "electron-renderer":
		return typ == "page"
	}
	return false
}

func runtimeLimits(l ports.RuntimeLimits) ports.RuntimeLimits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxEvents, 10000)
	def(&l.MaxScripts, 2000)
	def(&l.MaxContexts, 1000)
	def(&l.MaxLocationBytes, 16384)
	def(&l.MaxTotalMetadataSize, 4<<20)
	return l
}

// v8Capture collects one observation's events on the reader goroutine.
type v8Capture struct {
	mu       sync.Mutex
	sc       runtimeScope
	lim      ports.RuntimeLimits
	obs      ports.RuntimeObservation
	scripts  map[string]bool
	contexts map[int]int // context id -> index in obs.Contexts
	trunc    map[string]bool
	urlless  int // scripts with an empty URL (dynamic code)
	// ended is closed when every context seen has been destroyed on a
	// node target: the program is exiting, and Node keeps an exiting
	// process alive while a debugger stays attached.
	ended     chan struct{}
	endOnExit bool
	live      int
	// mainPath is a node target's own file; sawMain says a script at it
	// was parsed (under --inspect-brk it never is). Paths, not URLs, are
	// compared: Node lists the target's URL unescaped and escapes the
	// script's.
	mainPath string
	sawMain  bool
}

// contextGone notes a destroyed context; on a node target the last one
// ends the observation. Called with mu held.
func (c *v8Capture) contextGone() {
	c.live--
	if c.live == 0 && c.endOnExit {
		select {
		case <-c.ended:
		default:
			close(c.ended)
		}
	}
}

func (c *v8Capture) truncate(reason string) {
	c.obs.EventsDropped++
	c.trunc[reason] = true
}

func (c *v8Capture) onEvent(ev event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Method {
	case "Debugger.scriptParsed", "Debugger.scriptFailedToParse",
		"Runtime.executionContextCreated", "Runtime.executionContextDestroyed", "Runtime.executionContextsCleared":
	default:
		return
	}
	c.obs.EventsObserved++
	if c.obs.EventsRetained >= c.lim.MaxEvents {
		c.truncate("max_events")
		return
	}
	switch ev.Method {
	case "Debugger.scriptParsed", "Debugger.scriptFailedToParse":
		c.obs.ScriptsObserved++
		var p evScriptParsed
		if !decode(ev.Params, &p) || p.ScriptID == nil || *p.ScriptID == "" || len(*p.ScriptID) > 256 || len(p.Hash) > 256 || p.Length < 0 {
			c.obs.Excluded.InvalidProtocolValue++
			return
		}
		loc, why := c.sc.locate(p.URL, c.lim.MaxLocationBytes)
		if why == "" && c.mainPath != "" && loc.Kind == "file" && loc.FilePath == c.mainPath {
			c.sawMain = true
		}
		switch why {
		case "":
		case "builtin":
			c.obs.Excluded.Builtin++
			return
		case "invalid_protocol_value":
			// Node's own modules have node: URLs; a script without one is
			// code the program compiled at run time (eval, new Function,
			// vm without a filename), counted apart for a limitation.
			c.obs.Excluded.InvalidProtocolValue++
			if p.URL == "" {
				c.urlless++
			}
			return
		case "outside_file_roots":
			c.obs.Excluded.OutsideFileRoots++
			return
		case "outside_origins":
			c.obs.Excluded.OutsideOrigins++
			return
		default:
			c.obs.Excluded.UnsupportedLocation++
			return
		}
		if c.scripts[*p.ScriptID] {
			return
		}
		if len(c.obs.Scripts) >= c.lim.MaxScripts {
			c.truncate("max_scripts")
			return
		}
		size := len(p.URL) + len(p.Hash) + len(*p.ScriptID) + 64
		if c.obs.MetadataBytes+size > c.lim.MaxTotalMetadataSize {
			c.truncate("max_total_metadata_bytes")
			return
		}
		c.obs.MetadataBytes += size
		c.scripts[*p.ScriptID] = true
		c.obs.Scripts = append(c.obs.Scripts, ports.RuntimeScript{ScriptID: *p.ScriptID, ContextID: int(p.ExecutionContextID), Location: loc,
			CDPHash: p.Hash, Length: p.Length, IsModule: p.IsModule, Failed: ev.Method == "Debugger.scriptFailedToParse"})
	case "Runtime.executionContextCreated":
		var p struct {
			Context *struct {
				ID     *int64 `json:"id"`
				Origin string `json:"origin"`
				Name   string `json:"name"`
			} `json:"context"`
		}
		if !decode(ev.Params, &p) || p.Context == nil || p.Context.ID == nil || len(p.Context.Origin) > c.lim.MaxLocationBytes || len(p.Context.Name) > 1024 {
			c.obs.Excluded.InvalidProtocolValue++
			return
		}
		id := int(*p.Context.ID)
		if _, ok := c.contexts[id]; ok {
			return
		}
		if len(c.obs.Contexts) >= c.lim.MaxContexts {
			c.truncate("max_execution_contexts")
			return
		}
		c.contexts[id] = len(c.obs.Contexts)
		c.obs.Contexts = append(c.obs.Contexts, ports.RuntimeContext{ContextID: id, Name: p.Context.Name, Origin: p.Context.Origin, State: "live"})
		c.live++
	case "Runtime.executionContextDestroyed":
		var p evExecutionContextDestroyed
		if decode(ev.Params, &p) {
			if i, ok := c.contexts[int(p.ExecutionContextID)]; ok && c.obs.Contexts[i].State == "live" {
				c.obs.Contexts[i].State = "destroyed"
				c.contextGone()
			}
		}
	case "Runtime.executionContextsCleared":
		for _, i := range c.contexts {
			if c.obs.Contexts[i].State == "live" {
				c.obs.Contexts[i].State = "destroyed"
				c.contextGone()
			}
		}
	}
	c.obs.EventsRetained++
}

// ObserveRuntime attaches to one inspector target, sends Runtime.enable,
// Debugger.setSkipAllPauses{skip:true} and Debugger.enable{} and nothing
// else, records what it reports over the window and closes the socket. The
// skip keeps the observation passive: without it the runtime stops at each
// debugger statement for as long as the socket stays open. On a node
// target the window ends early when every context is destroyed: Node keeps
// an exiting program alive until the debugger disconnects.
func (e *RuntimeEngine) ObserveRuntime(ctx context.Context, req ports.RuntimeObserveRequest) (*ports.RuntimeObservation, error) {
	ep, err := parseEndpoint(req.Endpoint)
	if err != nil {
		return nil, fieldErr(err, "inspector_endpoint")
	}
	if req.TargetID == "" || len(req.TargetID) > 256 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "target_id", Msg: "target_id must be 1..256 characters"}
	}
	switch req.RuntimeKind {
	case "", "node", "electron-main", "electron-preload", "electron-renderer":
	default:
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "runtime_kind", Msg: "unknown runtime_kind " + strconv.Quote(req.RuntimeKind)}
	}
	if req.ObservationMS < 0 || req.ObservationMS > 60000 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "observation_ms", Msg: "observation_ms must be 0..60000"}
	}
	sc, err := newRuntimeScope(req.Scope)
	if err != nil {
		return nil, err
	}
	info, list, err := discoverV8(ctx, ep)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(list, func(t v8Target) bool { return t.id == req.TargetID })
	if i < 0 {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotFound, Msg: "no target " + req.TargetID}
	}
	t := list[i]
	if t.attached {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the target is already attached to another debugger"}
	}
	loc, why := sc.locate(t.rawURL, 16384)
	if why != "" {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the target's location is not allowed (" + why + ")"}
	}
	if !kindFits(req.RuntimeKind, t.typ) {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "runtime_kind " + req.RuntimeKind + " does not match a " + t.typ + " target"}
	}
	if t.socket == "" {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidEndpointResponse, Msg: "the target has no validated inspector WebSocket"}
	}
	c, err := dialConn(ctx, t.socket)
	if err != nil {
		if be, ok := ports.AsBrowserError(err); ok && be.Code == ports.BrowserEndpointUnreachable {
			// The endpoint answered discovery, so a refused socket means
			// another debugger holds the target.
			return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the target refused a debugger session (already attached?)", Err: err}
		}
		return nil, err
	}
	defer c.close()
	cap := &v8Capture{sc: sc, lim: runtimeLimits(req.Limits), scripts: map[string]bool{}, contexts: map[int]int{}, trunc: map[string]bool{},
		ended: make(chan struct{}), endOnExit: t.typ == "node"}
	if t.typ == "node" && loc.Kind == "file" {
		cap.mainPath = loc.FilePath
	}
	cap.obs.Runtime = info
	cap.obs.Target = ports.RuntimeTarget{TargetID: t.id, ProtocolType: t.typ, Title: t.title, Attached: t.attached, Location: loc}
	c.setListener(cap.onEvent)
	started := time.Now().UTC()
	skipRefused := false
	// lost is the failure of an observation whose socket closed: the
	// target ended (or closed its inspector), and what it reported before
	// travels with the error, whether the loss came during the enables or
	// the window.
	lost := func() error {
		c.setListener(nil)
		cap.mu.Lock()
		defer cap.mu.Unlock()
		obs := cap.finish(started, req.ObservationMS, loc, false, skipRefused)
		at := int(obs.EndedAt.Sub(started).Milliseconds())
		gone, why := targetGone(ctx, ep, t.id)
		what := "the observed process ended"
		if !gone {
			what = "the target's inspector closed this session"
		}
		what += " " + itoa(at) + " ms into the " + itoa(req.ObservationMS) + " ms window (" + why + ")"
		obs.Limitations = append(obs.Limitations, "The target went away: "+what+"; this partial observation holds what was reported before, anything later is unknown.")
		return &ports.PartialError[ports.RuntimeObservation]{Err: &ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "target_exited: " + what}, Partial: obs}
	}
	enable := func(method string, params json.RawMessage) error {
		if err := c.call(ctx, "", method, params, nil); err != nil {
			if ctx.Err() == nil && c.failureNow() != nil {
				return lost()
			}
			return err
		}
		return nil
	}
	if err := enable("Runtime.enable", nil); err != nil {
		return nil, err
	}
	// A debugger attached with pauses enabled stops the runtime at every
	// debugger statement until it resumes, so an observed server stopped
	// serving for the whole window. The skip goes first: sent after
	// Debugger.enable, a timer's debugger statement could pause the runtime
	// in between, and a skip does not resume a pause already taken. V8
	// accepts it before the domain is enabled; a runtime that refuses it
	// there is asked again after the enable.
	skip := func() (refused bool, err error) {
		if err := c.call(ctx, "", "Debugger.setSkipAllPauses", json.RawMessage(`{"skip":true}`), nil); err != nil {
			if ctx.Err() != nil {
				return false, cancelled(ctx)
			}
			if c.failureNow() != nil {
				return false, lost()
			}
			return true, nil
		}
		return false, nil
	}
	skipRefused, err = skip()
	if err != nil {
		return nil, err
	}
	if err := enable("Debugger.enable", json.RawMessage(`{}`)); err != nil {
		return nil, err
	}
	if skipRefused {
		if skipRefused, err = skip(); err != nil {
			return nil, err
		}
	}
	ports.Observe(ctx, "observe", "observing the runtime for "+itoa(req.ObservationMS)+" ms")
	exited := false
	timer := time.NewTimer(time.Duration(req.ObservationMS) * time.Millisecond)
	defer timer.Stop()
	// A report each second keeps a client that resets its request timeout
	// on progress waiting through a window as long as that timeout.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			cap.mu.Lock()
			scripts, contexts := len(cap.obs.Scripts), len(cap.obs.Contexts)
			cap.mu.Unlock()
			ports.Observe(ctx, "observe", itoa(int(time.Since(started).Milliseconds()))+" of "+itoa(req.ObservationMS)+" ms, "+
				itoa(scripts)+" scripts, "+itoa(contexts)+" contexts")
			continue
		case <-ctx.Done():
			return nil, cancelled(ctx)
		case <-c.done:
			// The target went away (a process killed mid-window closes the
			// socket without destroying its contexts): the status stays
			// disconnected, and what was seen before travels with it.
			return nil, lost()
		case <-cap.ended:
			exited = true
		case <-timer.C:
		}
		break
	}
	c.setListener(nil)
	cap.mu.Lock()
	defer cap.mu.Unlock()
	return cap.finish(started, req.ObservationMS, loc, exited, skipRefused), nil
}

// targetGone says, after an inspector socket closed, whether the target
// is gone from its endpoint (the process ended, or at least its inspector
// did) and why the observation lost it, in words for a limitation. An
// exit that destroys the contexts ends the window normally instead, so a
// process gone this way crashed, aborted or was killed. rea did not start
// the process, so its exit status is not knowable here.
func targetGone(ctx context.Context, ep endpoint, id string) (bool, string) {
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_, list, err := discoverV8(pctx, ep)
	if err != nil {
		return true, "the inspector socket closed with its execution contexts not destroyed and the endpoint no longer answers, " +
			"as when the process crashes, aborts or is killed; rea did not start it, so its exit status is unknown"
	}
	if !slices.ContainsFunc(list, func(t v8Target) bool { return t.id == id }) {
		return true, "the inspector socket closed with its execution contexts not destroyed and the endpoint no longer lists the target"
	}
	return false, "the socket closed while the endpoint still lists the target: the program closed its inspector (inspector.close()) " +
		"or another client took the session over"
}

// finish is the observation as it stands, with the limitations it needs.
// Called with mu held, after the listener is removed.
func (c *v8Capture) finish(started time.Time, windowMS int, loc ports.RuntimeLocation, exited, skipRefused bool) *ports.RuntimeObservation {
	obs := c.obs
	obs.StartedAt, obs.EndedAt, obs.ObservationMS = started, time.Now().UTC(), windowMS
	for r := range c.trunc {
		obs.TruncationReasons = append(obs.TruncationReasons, r)
	}
	slices.Sort(obs.TruncationReasons)
	obs.Limitations = slices.Clone(obs.Limitations)
	if windowMS == 0 {
		obs.Limitations = append(obs.Limitations, "observation_ms was 0: only what the runtime reported on attach (the scripts and contexts "+
			"already there when Runtime.enable and Debugger.enable answered) was recorded; no window followed.")
	}
	if c.urlless > 0 {
		obs.Limitations = append(obs.Limitations, itoa(c.urlless)+" script(s) had no URL: code compiled at run time (eval, new Function, vm without a filename); "+
			"they have no location, are counted under invalid_protocol_value and are not listed.")
	}
	if exited {
		obs.Limitations = append(obs.Limitations, "The program ended during the window: every execution context was destroyed, and the observation stopped then ("+
			itoa(int(obs.EndedAt.Sub(started).Milliseconds()))+" of "+itoa(windowMS)+" ms) rather than keep the exiting process alive, as Node does while a debugger is attached.")
	}
	if c.mainPath != "" && !c.sawMain && !exited && len(obs.TruncationReasons) == 0 {
		obs.Limitations = append(obs.Limitations, "The target's own script ("+loc.FilePath+") was not parsed: the program has not started "+
			"(node --inspect-brk and --inspect-wait wait for a debugger to send Runtime.runIfWaitingForDebugger, which a passive observation never sends), "+
			"or V8 had already collected that script.")
	}
	if skipRefused {
		obs.Limitations = append(obs.Limitations, "Debugger.setSkipAllPauses was refused, so the runtime may have paused at a debugger statement during the window.")
	}
	obs.Scripts = slices.Clone(obs.Scripts)
	obs.Contexts = slices.Clone(obs.Contexts)
	return &obs
}

// statExists reports whether p exists (for tests and the scenario runner).
func statExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
