package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/accessibility"
	cdpt "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"rea/ports"
)

var stepIDPattern = lazyRegexp{expr: `^[A-Za-z][A-Za-z0-9._-]*$`}

// lazyRegexp is compiled on first use: a package-level regexp, map or
// sync.OnceValue is init code every rea process runs; this struct of a
// constant is laid out by the linker.
type lazyRegexp struct {
	once sync.Once
	re   *regexp.Regexp
	expr string
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func scenarioArtifact(a string) bool {
	switch a {
	case "screenshot", "dom", "accessibility", "url", "history", "storage":
		return true
	}
	return false
}

const maxDOMArtifactBytes = 1 << 20

func invalidScenario(field, msg string) error {
	return &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: field, Msg: msg}
}

func validateScenario(req *ports.BrowserScenarioRequest) (scope, error) {
	clean, origin := sanitizeURL(req.StartURL)
	if origin == "" || clean != req.StartURL {
		return scope{}, invalidScenario("start_url", "start_url must be an http(s) URL without userinfo")
	}
	origins, err := normalizeOrigins(req.AllowedOrigins)
	if err != nil {
		return scope{}, err
	}
	if len(origins) == 0 {
		origins = []string{origin}
	}
	sc := newScope(origins)
	if !sc.set[origin] {
		return scope{}, invalidScenario("start_url", "start_url is outside allowed_origins")
	}
	if len(req.Steps) == 0 || len(req.Steps) > 128 {
		return scope{}, invalidScenario("actions", "a scenario needs 1..128 steps")
	}
	seen := map[string]bool{"scenario_start": true}
	for i, s := range req.Steps {
		f := fmt.Sprintf("actions/%d", i)
		if !stepIDPattern.get().MatchString(s.StepID) || seen[s.StepID] {
			return scope{}, invalidScenario(f+"/step_id", "step ids must match ^[A-Za-z][A-Za-z0-9._-]*$ and be unique")
		}
		seen[s.StepID] = true
		switch s.Action {
		case "navigate":
			if _, o := sanitizeURL(s.URL); o == "" || !sc.set[o] {
				return scope{}, invalidScenario(f+"/url", "navigate needs an http(s) URL within allowed_origins ("+strings.Join(sc.list, ", ")+")")
			}
		case "click", "type":
			if strings.TrimSpace(s.Selector) == "" {
				return scope{}, invalidScenario(f+"/selector", s.Action+" needs a selector")
			}
			if s.SecretID != "" && (s.Action != "type" || s.Text != "" || !slices.ContainsFunc(req.Secrets, func(x ports.BrowserScenarioSecret) bool { return x.SecretID == s.SecretID })) {
				return scope{}, invalidScenario(f+"/secret_id", "secret_id must name a declared secret, on a type step without text")
			}
		case "wait":
			if s.DurationMS < 0 || s.DurationMS > 10000 {
				return scope{}, invalidScenario(f+"/duration_ms", "wait needs duration_ms 0..10000")
			}
		default:
			return scope{}, invalidScenario(f+"/action", "unknown action "+s.Action)
		}
	}
	ids, envs := map[string]bool{}, map[string]bool{}
	for i, x := range req.Secrets {
		if !stepIDPattern.get().MatchString(x.SecretID) || ids[x.SecretID] || x.EnvironmentVariable == "" || envs[x.EnvironmentVariable] {
			return scope{}, invalidScenario(fmt.Sprintf("secrets/%d", i), "secret ids and environment variables must be unique and non-empty")
		}
		ids[x.SecretID], envs[x.EnvironmentVariable] = true, true
	}
	for _, list := range [][]string{req.CaptureAfterEachStep, req.CaptureAtEnd} {
		for _, a := range list {
			if !scenarioArtifact(a) {
				return scope{}, invalidScenario("capture", "unknown artifact "+a)
			}
		}
	}
	return sc, nil
}

// scenarioRun is the event state of one run.
type scenarioRun struct {
	red     *strings.Replacer
	sockets sync.Map // request id → URL of an in-scope WebSocket
	// requests maps a request id to what a failure of it may say: an
	// in-scope request's method and URL, an out-of-scope one's method and
	// origin only (its path stays out of the capture, as its events do).
	requests sync.Map
	mu       sync.Mutex
	sc       scope
	max      int
	step     int
	events   []ports.BrowserScenarioEvent
	dropped  int
	// Main-frame navigations requested and settled (committed, or the
	// document's load failed): a click waits for the one it started.
	mainFrame            cdpt.FrameID
	navAsked, navSettled atomic.Int64
	navOnce              sync.Once
	navMoved             chan struct{} // a count above changed (navChanged)
	// Chromium reports the headers its network stack adds or receives
	// beyond the page's view (cookie, set-cookie among them) only in the
	// ExtraInfo events, which come before or after their request or
	// response event: their names join that event's, hop by hop of a
	// redirect chain (hops is keyed by kind and request id).
	hops map[string]*hopNames
	// loading holds the in-scope requests not yet finished or failed, by
	// request id: a page whose load event never fires names them.
	loading sync.Map
	// outSockets counts the WebSockets opened outside the scope, which
	// CDP cannot refuse, and outSocketOrigins names their first origins.
	outSockets       int
	outSocketOrigins []string
	// swCalls counts the page's navigator.serviceWorker.register calls,
	// which the stub refused; swURLs names the first scripts.
	swCalls int
	swURLs  []string
}

// socketOrigin is a WebSocket URL's origin (ws:// or wss://), "" when it
// has none.
func socketOrigin(u string) string {
	o := originOfString(wsToHTTP(u))
	switch {
	case strings.HasPrefix(o, "http://"):
		return "ws://" + o[len("http://"):]
	case strings.HasPrefix(o, "https://"):
		return "wss://" + o[len("https://"):]
	}
	return ""
}

// socketLimitation says what the run could not do about WebSockets: none
// is refused, and those outside the scope are left out, counted and named
// by origin so that the caller knows what to add to allowed_origins.
// swBinding is the binding through which the service worker stub reports
// a refused registration; swStub replaces navigator.serviceWorker.register
// in every document of the page before its scripts run (BROWSER.md §5:
// unregister workers and stub register). A launched browser's profile is
// fresh, so there is no registration to unregister; the network already
// bypasses service workers, and without the stub a page's own
// registration succeeded unobserved and left a worker running beside it.
// The stub keeps the binding's function and removes its global name, and
// rejects as a browser that refuses service workers does.
const swBinding = "__reaServiceWorkerRegister"

const swStub = `(() => {
  const report = globalThis.` + swBinding + `;
  try { delete globalThis.` + swBinding + `; } catch (e) {}
  const c = globalThis.navigator && navigator.serviceWorker;
  if (!c || typeof report !== "function") return;
  const register = function register(url) {
    let u = "";
    try { u = new URL(String(url), location.href).href; } catch (e) { u = String(url); }
    try { report(u.slice(0, 2048)); } catch (e) {}
    return Promise.reject(new DOMException("Service worker registration is disabled in this scenario.", "SecurityError"));
  };
  Object.defineProperty(Object.getPrototypeOf(c), "register", {value: register, writable: true, configurable: true, enumerable: true});
})();`

// onRegister records one refused service worker registration of script u.
func (r *scenarioRun) onRegister(u string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.swCalls++
	if u = r.red.Replace(r.sc.stepURL(cut(u, 2048))); len(r.swURLs) < 4 && !slices.Contains(r.swURLs, u) {
		r.swURLs = append(r.swURLs, u)
	}
}

// swLimitation says which registrations the stub refused; "" when none.
func (r *scenarioRun) swLimitation() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.swCalls == 0 {
		return ""
	}
	return fmt.Sprintf("The page called navigator.serviceWorker.register %d time(s) (%s); a scenario refuses service workers "+
		"(the call rejects with SecurityError and the network bypasses workers), so the page ran without one and no worker "+
		"answered its requests.", r.swCalls, strings.Join(r.swURLs, ", "))
}

func (r *scenarioRun) socketLimitation() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.outSockets == 0 {
		return "CDP cannot route or block WebSockets: an out-of-scope WebSocket would be neither blocked nor recorded; none was opened."
	}
	var add []string
	for _, o := range r.outSocketOrigins {
		add = append(add, wsToHTTP(o))
	}
	return fmt.Sprintf("CDP cannot route or block WebSockets: %d WebSocket connection(s) to origins outside allowed_origins (%s) were opened, "+
		"not blocked, and not recorded. To record them, add %s to allowed_origins.", r.outSockets, strings.Join(r.outSocketOrigins, ", "), strings.Join(add, ", "))
}

// stillLoading names up to three in-scope requests still loading, sorted,
// and how many there are; "" when none is.
func (r *scenarioRun) stillLoading() string {
	var urls []string
	r.loading.Range(func(_, v any) bool {
		urls = append(urls, v.(string))
		return true
	})
	if len(urls) == 0 {
		return ""
	}
	slices.Sort(urls)
	n := len(urls)
	if len(urls) > 3 {
		urls = urls[:3]
	}
	return fmt.Sprintf("%d request(s) were still loading: %s", n, strings.Join(urls, ", "))
}

// maxExtraNames bounds the request ids tracked beyond the recorded
// events: those of requests outside the scope never find their events.
const maxExtraNames = 4096

// maxHops bounds the hops followed on one request id (Chromium stops a
// redirect chain at 20).
const maxHops = 64

// hopNames pairs the ExtraInfo events of one request id and kind with its
// request or response events in order: the k-th ExtraInfo belongs to the
// k-th hop of a redirect chain, whichever of the two comes first.
type hopNames struct {
	at    []int      // event index of each hop seen, -1 when the hop kept no event
	extra [][]string // names of ExtraInfo events that came before their hop, by hop
	seen  int        // ExtraInfo events seen
}

// hopsLocked returns the hop state of key, or nil past the bound.
func (r *scenarioRun) hopsLocked(key string) *hopNames {
	if q, ok := r.hops[key]; ok {
		return q
	}
	if r.hops == nil {
		r.hops = map[string]*hopNames{}
	}
	if len(r.hops) >= maxExtraNames+2*r.max {
		return nil
	}
	q := &hopNames{}
	r.hops[key] = q
	return q
}

// addWithHeaders adds a request or response event of request id and
// merges into it the header names its hop's ExtraInfo event gave or will
// give.
func (r *scenarioRun) addWithHeaders(ev ports.BrowserScenarioEvent, id network.RequestID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.hopsLocked(ev.Kind + "\x00" + string(id))
	if q == nil || len(q.at) >= maxHops {
		r.addLocked(ev)
		return
	}
	if k := len(q.at); k < len(q.extra) {
		ev.HeaderNames = mergeNames(ev.HeaderNames, q.extra[k])
		q.extra[k] = nil
	}
	q.at = append(q.at, r.addLocked(ev))
}

// skipHop counts a hop of request id that records no event (outside the
// scope), so that the next hop's ExtraInfo is not taken for this one's.
func (r *scenarioRun) skipHop(kind string, id network.RequestID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if q := r.hopsLocked(kind + "\x00" + string(id)); q != nil && len(q.at) < maxHops {
		if k := len(q.at); k < len(q.extra) {
			q.extra[k] = nil
		}
		q.at = append(q.at, -1)
	}
}

// extraHeaders merges the names of an ExtraInfo event into its hop's
// request or response event (kind), or holds them until that event comes.
func (r *scenarioRun) extraHeaders(kind string, id network.RequestID, h network.Headers) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.hopsLocked(kind + "\x00" + string(id))
	if q == nil || q.seen >= maxHops {
		return
	}
	k := q.seen
	q.seen++
	if k < len(q.at) {
		if i := q.at[k]; i >= 0 {
			r.events[i].HeaderNames = mergeNames(r.events[i].HeaderNames, headerNames(h))
		}
		return
	}
	for len(q.extra) <= k {
		q.extra = append(q.extra, nil)
	}
	q.extra[k] = headerNames(h)
}

func mergeNames(a, b []string) []string {
	out := append(append(make([]string, 0, len(a)+len(b)), a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// settle counts a main-frame navigation as settled, never past those asked
// (one that no click asked for, such as the start, settles none).
func (r *scenarioRun) settle() {
	defer r.navNudge()
	for {
		n := r.navSettled.Load()
		if n >= r.navAsked.Load() || r.navSettled.CompareAndSwap(n, n+1) {
			return
		}
	}
}

// navChanged is signalled (it holds at most one signal) after navAsked
// or navSettled changes: the one waiter, awaitClickNavigation, checks the
// counts and then waits on it, so no change between the two is missed.
func (r *scenarioRun) navChanged() chan struct{} {
	r.navOnce.Do(func() { r.navMoved = make(chan struct{}, 1) })
	return r.navMoved
}

func (r *scenarioRun) navNudge() {
	select {
	case r.navChanged() <- struct{}{}:
	default:
	}
}

// clickNavGrace is how long after a click a navigation it started is looked
// for: the browser reports the request just after the input is handled.
const clickNavGrace = 50 * time.Millisecond

// awaitClickNavigation waits, as a browser automation's click does, for a
// main-frame navigation the click started to commit or fail (so the step's
// after_url is where the click led), until ctx ends. asked is navAsked
// before the click.
func (r *scenarioRun) awaitClickNavigation(ctx context.Context, asked int64) {
	grace := time.NewTimer(clickNavGrace)
	defer grace.Stop()
	for r.navAsked.Load() == asked {
		select {
		case <-ctx.Done():
			return
		case <-grace.C:
			return // the click started no navigation
		case <-r.navChanged():
		}
	}
	for r.navSettled.Load() < r.navAsked.Load() {
		select {
		case <-ctx.Done():
			return
		case <-r.navChanged():
		}
	}
}

// requestSeen is what a request's failure event reports of it.
type requestSeen struct {
	method, url string
	outside     bool // url is the origin of a request the policy refused
}

func (r *scenarioRun) add(ev ports.BrowserScenarioEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(ev)
}

// addLocked adds ev with r.mu held and returns its index, or -1 when the
// event limit dropped it.
func (r *scenarioRun) addLocked(ev ports.BrowserScenarioEvent) int {
	if len(r.events) >= r.max {
		r.dropped++
		return -1
	}
	ev.Sequence, ev.StepIndex = len(r.events), r.step
	ev.Text, ev.Stack, ev.URL, ev.Failure = r.red.Replace(ev.Text), r.red.Replace(ev.Stack), r.red.Replace(ev.URL), r.red.Replace(ev.Failure)
	if strings.HasPrefix(ev.Kind, "websocket-frame-") && len(ev.Text) > 65536 { // cut after redaction: no secret is half kept
		ev.Text, ev.PayloadTruncated = cut(ev.Text, 65536), true
	}
	r.events = append(r.events, ev)
	return len(r.events) - 1
}

// wsFrame is a WebSocket frame event on the socket at url. A text frame
// (opcode 1) keeps its payload (add cuts it to 64 KiB once secrets are
// redacted); any other frame keeps only its size (cdproto has decoded its
// base64 payloadData).
func wsFrame(kind, url string, f *network.WebSocketFrame) ports.BrowserScenarioEvent {
	ev := ports.BrowserScenarioEvent{Kind: kind, URL: url, PayloadBytes: len(f.PayloadData)}
	if f.Opcode != 1 {
		ev.PayloadBinary = true
		return ev
	}
	ev.Text = string(f.PayloadData)
	return ev
}

func (r *scenarioRun) onEvent(ev any) {
	switch e := ev.(type) {
	case *runtime.EventBindingCalled:
		if e.Name == swBinding {
			r.onRegister(e.Payload)
		}
	case *runtime.EventConsoleAPICalled:
		var parts []string
		for _, a := range e.Args {
			if t, ok := primitiveText(evRemoteObject{Type: string(a.Type), Value: json.RawMessage(a.Value), UnserializableValue: string(a.UnserializableValue)}); ok {
				parts = append(parts, t)
			}
		}
		url := ""
		if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
			url = e.StackTrace.CallFrames[0].URL
		}
		r.add(ports.BrowserScenarioEvent{Kind: "console", Level: string(e.Type), Text: cut(strings.Join(parts, " "), 65536), URL: url})
	case *runtime.EventExceptionThrown:
		msg, stack := "", ""
		if d := e.ExceptionDetails; d != nil {
			msg, stack = pageError(d.Text, d.Exception)
		}
		r.add(ports.BrowserScenarioEvent{Kind: "page-error", Text: cut(msg, 65536), Stack: cut(stack, 262144)})
	case *network.EventRequestWillBeSent:
		if e.Request == nil {
			break
		}
		if rr := e.RedirectResponse; rr != nil {
			// The hop's response (a 3xx) has no responseReceived of its
			// own: without this event a redirect chain read as requests
			// with no answers. Its request was the one seen last on the id.
			if r.sc.allows(rr.URL) {
				ev := ports.BrowserScenarioEvent{Kind: "response", URL: rr.URL, ResourceType: string(e.Type), Status: int(rr.Status),
					HeaderNames: headerNames(rr.Headers)}
				if v, ok := r.requests.Load(e.RequestID); ok {
					ev.Method = v.(requestSeen).method
				}
				r.addWithHeaders(ev, e.RequestID)
			} else {
				r.skipHop("response", e.RequestID)
			}
		}
		if r.sc.allows(e.Request.URL) {
			r.requests.Store(e.RequestID, requestSeen{method: e.Request.Method, url: e.Request.URL})
			r.loading.Store(e.RequestID, e.Request.URL)
			r.addWithHeaders(ports.BrowserScenarioEvent{Kind: "request", Method: e.Request.Method, URL: e.Request.URL, ResourceType: string(e.Type),
				HeaderNames: headerNames(e.Request.Headers)}, e.RequestID)
		} else {
			r.skipHop("request", e.RequestID)
			if o := originOfString(e.Request.URL); o != "" {
				r.requests.Store(e.RequestID, requestSeen{method: e.Request.Method, url: o, outside: true})
			}
		}
	case *network.EventResponseReceived:
		if e.Response != nil && r.sc.allows(e.Response.URL) {
			ev := ports.BrowserScenarioEvent{Kind: "response", URL: e.Response.URL, ResourceType: string(e.Type), Status: int(e.Response.Status),
				HeaderNames: headerNames(e.Response.Headers)}
			// The response names no method; its request did.
			if v, ok := r.requests.Load(e.RequestID); ok {
				ev.Method = v.(requestSeen).method
			}
			r.addWithHeaders(ev, e.RequestID)
		}
	case *network.EventRequestWillBeSentExtraInfo:
		r.extraHeaders("request", e.RequestID, e.Headers)
	case *network.EventResponseReceivedExtraInfo:
		r.extraHeaders("response", e.RequestID, e.Headers)
	case *network.EventLoadingFinished:
		r.loading.Delete(e.RequestID)
	case *network.EventLoadingFailed:
		r.loading.Delete(e.RequestID)
		if e.Type == network.ResourceTypeDocument {
			r.settle()
		}
		ev := ports.BrowserScenarioEvent{Kind: "request-failed", ResourceType: string(e.Type), Failure: e.ErrorText}
		if v, ok := r.requests.Load(e.RequestID); ok {
			seen := v.(requestSeen)
			ev.Method, ev.URL = seen.method, seen.url
			if seen.outside {
				ev.Failure = "blocked: the origin is outside allowed_origins (" + e.ErrorText + ")"
			}
		}
		r.add(ev)
	case *network.EventWebSocketCreated:
		if r.sc.allows(wsToHTTP(e.URL)) {
			r.sockets.Store(e.RequestID, e.URL)
			r.add(ports.BrowserScenarioEvent{Kind: "websocket-opened", URL: e.URL})
		} else {
			o := r.red.Replace(socketOrigin(e.URL))
			r.mu.Lock()
			r.outSockets++
			if o != "" && len(r.outSocketOrigins) < 8 && !slices.Contains(r.outSocketOrigins, o) {
				r.outSocketOrigins = append(r.outSocketOrigins, o)
			}
			r.mu.Unlock()
		}
	case *network.EventWebSocketClosed:
		if u, ok := r.sockets.Load(e.RequestID); ok {
			r.add(ports.BrowserScenarioEvent{Kind: "websocket-closed", URL: u.(string)})
		}
	case *network.EventWebSocketFrameSent:
		if u, ok := r.sockets.Load(e.RequestID); ok && e.Response != nil {
			r.add(wsFrame("websocket-frame-sent", u.(string), e.Response))
		}
	case *network.EventWebSocketFrameReceived:
		if u, ok := r.sockets.Load(e.RequestID); ok && e.Response != nil {
			r.add(wsFrame("websocket-frame-received", u.(string), e.Response))
		}
	case *page.EventFrameStoppedLoading:
		if e.FrameID == r.mainFrame {
			r.settle() // a navigation the browser dropped (204, a download) ends here
		}
	case *page.EventFrameRequestedNavigation:
		if r.mainFrame != "" && e.FrameID == r.mainFrame && e.Disposition == page.ClientNavigationDispositionCurrentTab {
			r.navAsked.Add(1)
			r.navNudge()
		}
	case *page.EventFrameNavigated:
		if e.Frame != nil && e.Frame.ParentID == "" {
			r.mainFrame = e.Frame.ID
			r.settle()
			u := e.Frame.URL
			if !r.sc.allows(u) {
				u = ""
			}
			r.add(ports.BrowserScenarioEvent{Kind: "frame-navigated", URL: u})
		}
	}
}

// RunScenario launches an owned browser with a fresh profile, runs the
// steps and removes the browser and its profile. Requests to origins
// outside the scope are failed with BlockedByClient before they leave the
// browser. A cleanup failure is returned as cleanup_failed even when the
// steps succeeded.
func (e *Engine) RunScenario(ctx context.Context, req ports.BrowserScenarioRequest) (out *ports.BrowserScenarioCapture, err error) {
	sc, err := validateScenario(&req)
	if err != nil {
		return nil, err
	}
	if req.MaxEvents <= 0 {
		req.MaxEvents = 10000
	}
	if req.DurationMS <= 0 {
		req.DurationMS = 60000
	}
	if req.StepTimeoutMS <= 0 {
		req.StepTimeoutMS = 5000
	}
	vp := req.Viewport
	if vp.Width <= 0 {
		vp.Width = 1280
	}
	if vp.Height <= 0 {
		vp.Height = 720
	}
	if vp.DeviceScaleFactor <= 0 {
		vp.DeviceScaleFactor = 1
	}
	began := time.Now()
	// Steps stop at the duration limit; the run itself gets a little longer
	// to record that and return what it observed.
	deadline := began.Add(time.Duration(req.DurationMS) * time.Millisecond)
	runCtx, cancelRun := context.WithDeadline(ctx, deadline.Add(finishGrace))
	defer cancelRun()
	secrets := map[string]string{}
	for _, x := range req.Secrets {
		v, ok := os.LookupEnv(x.EnvironmentVariable)
		if !ok || v == "" {
			return nil, &ports.BrowserError{Code: ports.BrowserSecretUnavailable, Msg: "secret " + x.SecretID + ": environment variable " + x.EnvironmentVariable + " is not set (or empty) in the rea server's environment"}
		}
		secrets[x.SecretID] = v
	}
	red := newRedactor(secrets)
	ports.Observe(ctx, "launch", "starting an owned browser")
	b, err := e.opts.Launcher.Launch(runCtx, LaunchSpec{ExecutablePath: req.ExecutablePath})
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := b.Close(context.WithoutCancel(ctx)); cerr != nil {
			out, err = nil, cerr
		}
	}()
	ep, err := parseEndpoint(b.Endpoint())
	if err != nil {
		return nil, err
	}
	v, _, err := discover(runCtx, ep)
	if err != nil {
		return nil, err
	}
	if v.browserWS == "" {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidEndpointResponse, Msg: "the owned browser gave no browser WebSocket"}
	}
	allocCtx, cancelAlloc := remote.NewAllocator(runCtx, v.browserWS, remote.NoModifyURL)
	defer cancelAlloc()
	tctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(func(string, ...any) {}), chromedp.WithErrorf(func(string, ...any) {}))
	defer cancelTab()

	_, startOrigin := sanitizeURL(req.StartURL)
	out = &ports.BrowserScenarioCapture{
		Browser: ports.BrowserScenarioBrowser{Mode: "launch", ProcessOwnership: "provider-owned", Cleanup: "terminated-owned-process",
			Product: v.info.Product, Version: v.info.Revision},
		StartOrigin: startOrigin, AllowedOrigins: sc.list,
	}
	run := &scenarioRun{sc: sc, max: req.MaxEvents, red: red}
	if err := chromedp.Do(tctx); err != nil { // opens the tab
		return nil, scenarioErr(runCtx, err)
	}
	if err := chromedp.Listen(tctx, func(ev any) {
		if p, ok := ev.(*fetch.EventRequestPaused); ok {
			go e.policy(tctx, sc, p)
			return
		}
		run.onEvent(ev)
	}); err != nil {
		return nil, scenarioErr(runCtx, err)
	}
	setup := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdpt.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
			return err
		}
		if _, err := cdpt.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		// Owned pages load from the network, never from a service worker,
		// and cannot register one (swStub).
		if _, err := cdpt.Call(ctx, t, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return err
		}
		if _, err := cdpt.Call(ctx, t, runtime.AddBinding, runtime.AddBindingParams{Name: swBinding}); err != nil {
			return err
		}
		if _, err := cdpt.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: swStub}); err != nil {
			return err
		}
		if _, err := cdpt.Call(ctx, t, runtime.Enable, cdpt.Empty{}); err != nil {
			return err
		}
		_, err := cdpt.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(vp.Width), Height: int64(vp.Height), DeviceScaleFactor: vp.DeviceScaleFactor})
		return err
	})
	if err := chromedp.Do(tctx, setup); err != nil {
		return nil, scenarioErr(runCtx, err)
	}
	steps := append([]ports.BrowserScenarioStep{{StepID: "scenario_start", Action: "goto_start", URL: req.StartURL}}, req.Steps...)
	failed := false
	for i, s := range steps {
		res := ports.BrowserScenarioStepResult{StepIndex: i, StepID: s.StepID, Action: s.Action, EventSequenceStart: -1, EventSequenceEnd: -1}
		if failed {
			res.Status, res.Error = "cancelled", "not executed after an earlier action failure"
			out.Steps = append(out.Steps, res)
			continue
		}
		run.mu.Lock()
		run.step = i
		first := len(run.events)
		run.mu.Unlock()
		ports.Observe(ctx, "scenario", "step "+itoa(i+1)+" of "+itoa(len(steps))+": "+s.Action)
		res.BeforeURL = currentURL(tctx)
		t0 := time.Now()
		timeout := s.TimeoutMS
		if timeout <= 0 {
			timeout = req.StepTimeoutMS
		}
		if s.SecretID != "" {
			s.Text = secrets[s.SecretID]
		}
		asked := run.navAsked.Load()
		dctx, cancelStep := context.WithDeadline(tctx, deadline)
		serr := runStep(dctx, s, time.Duration(timeout)*time.Millisecond)
		if serr == nil && s.Action == "click" {
			nctx, cancel := context.WithDeadline(dctx, t0.Add(time.Duration(timeout)*time.Millisecond))
			run.awaitClickNavigation(nctx, asked)
			cancel()
		}
		outOfTime := serr != nil && dctx.Err() != nil && tctx.Err() == nil
		late := !time.Now().Before(deadline)
		cancelStep()
		res.ElapsedMS = time.Since(t0).Milliseconds()
		if runCtx.Err() != nil {
			return nil, cancelled(runCtx)
		}
		if outOfTime {
			serr = fmt.Errorf("limits.duration_ms (%d ms) ran out before this step finished; later steps were not run", req.DurationMS)
		} else if serr != nil && (s.Action == "goto_start" || s.Action == "navigate") && errors.Is(serr, context.DeadlineExceeded) {
			// Say what kept the load event from firing, and how to wait
			// longer for a page that is only slow.
			if pending := run.stillLoading(); pending != "" {
				serr = fmt.Errorf("%w; %s", serr, pending)
			}
			serr = fmt.Errorf("%w; a slower page needs a larger limits.step_timeout_ms (or the step's timeout_ms), at most 60000", serr)
		}
		if serr != nil {
			failed = true
			res.Status, res.Error = "failed", cut(red.Replace(serr.Error()), 1024)
		} else {
			res.Status = "completed"
		}
		res.AfterURL = red.Replace(sc.stepURL(currentURL(tctx)))
		res.BeforeURL = red.Replace(sc.stepURL(res.BeforeURL))
		want := req.CaptureAfterEachStep
		if i == len(steps)-1 {
			want = append(slices.Clone(want), req.CaptureAtEnd...)
		}
		if late {
			res.Artifacts = ports.BrowserScenarioArtifacts{Missing: map[string]string{}}
			for _, k := range want {
				res.Artifacts.Missing[k] = "not captured: limits.duration_ms ran out"
			}
		} else {
			res.Artifacts = captureArtifacts(tctx, sc, want, res.AfterURL, red, deadline)
		}
		run.mu.Lock()
		if n := len(run.events); n > first {
			res.EventSequenceStart, res.EventSequenceEnd = first, n-1
		}
		run.mu.Unlock()
		out.Steps = append(out.Steps, res)
	}
	run.mu.Lock()
	out.Events, out.Dropped = slices.Clone(run.events), run.dropped
	run.mu.Unlock()
	// Neither Fetch nor Network.setBlockedURLs intercepts WebSocket
	// handshakes (checked on Chromium 148), so out-of-scope sockets cannot be
	// refused; their events are left out.
	out.Limitations = append(out.Limitations, run.socketLimitation())
	if l := run.swLimitation(); l != "" {
		out.Limitations = append(out.Limitations, l)
	}
	cancelTab()
	out.DurationMS = time.Since(began).Milliseconds()
	return out, nil
}

// policy answers one paused request: out-of-scope http(s) fails as
// BlockedByClient, everything else continues.
func (e *Engine) policy(ctx context.Context, sc scope, p *fetch.EventRequestPaused) {
	u := ""
	if p.Request != nil {
		u = p.Request.URL
	}
	if o := originOfString(u); o != "" && !sc.set[o] {
		chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: p.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: p.RequestID})
}

func scenarioErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	if _, ok := ports.AsBrowserError(err); ok {
		return err
	}
	return &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "the owned browser failed", Err: err}
}

// finishGrace is how long past limits.duration_ms a run may take to end
// its interrupted step and return the capture (reading the page's URL
// takes at most 2 s; artifacts are not captured after the limit).
const finishGrace = 5 * time.Second

func runStep(ctx context.Context, s ports.BrowserScenarioStep, timeout time.Duration) error {
	if s.Action == "wait" {
		// A wait is the step's own duration (at most 10 s), not something
		// waited for: the step timeout, 5 s by default, does not cut it.
		return chromedp.Do(ctx, chromedp.Sleep(time.Duration(s.DurationMS)*time.Millisecond))
	}
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var err error
	switch s.Action {
	case "goto_start", "navigate":
		err = chromedp.Do(sctx, chromedp.Navigate(s.URL))
	case "click":
		err = chromedp.Do(sctx, chromedp.Click(chromedp.CSS(s.Selector), chromedp.NodeVisible))
	case "type":
		err = chromedp.Do(sctx, chromedp.SendKeys(chromedp.CSS(s.Selector), s.Text, chromedp.NodeVisible))
	default:
		return fmt.Errorf("unknown action %q", s.Action)
	}
	return stepError(s, timeout, err, ctx.Err() == nil && sctx.Err() != nil)
}

// stepError says what a failed step waited for: the step's own time
// running out reads "context deadline exceeded" otherwise.
func stepError(s ports.BrowserScenarioStep, timeout time.Duration, err error, timedOut bool) error {
	if err != nil && s.Action != "click" && s.Action != "type" && strings.Contains(err.Error(), "net::ERR_BLOCKED_BY_CLIENT") {
		// The destination itself is in scope (checked before the run), so
		// what the scope refused is where it redirected.
		return fmt.Errorf("the navigation to %s was blocked: it redirected to an origin outside allowed_origins, which the step's request-failed event names; add that origin to allowed_origins to follow it (%w)", s.URL, err)
	}
	if err == nil || !timedOut {
		return err
	}
	switch s.Action {
	case "click", "type":
		return fmt.Errorf("no visible element matched %s within %s: %w", s.Selector, timeout, err)
	}
	return fmt.Errorf("the page at %s did not load within %s: %w", s.URL, timeout, err)
}

// stepURL is u as a step reports it. An http(s) page outside the scope
// can only be Chromium's error page for a navigation the policy blocked
// (every such request is failed), whose history entry keeps the URL it was
// refused: it is named by its origin alone, as the failed request is, so
// its path and query stay out of the capture.
func (sc scope) stepURL(u string) string {
	if o := originOfString(u); o != "" && !sc.allows(u) {
		return o
	}
	return u
}

// currentURL is the current history entry's URL, "" when unknown.
func currentURL(ctx context.Context) string {
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	h, err := chromedp.Run(hctx, chromedp.NavigationEntries())
	for err != nil && strings.Contains(err.Error(), "Not attached to an active page") {
		// Right after a cross-document commit the page's frame host can
		// still be swapping: ask again until it answers or time runs out.
		select {
		case <-hctx.Done():
			return ""
		case <-time.After(20 * time.Millisecond):
		}
		h, err = chromedp.Run(hctx, chromedp.NavigationEntries())
	}
	if err != nil || h.CurrentIndex < 0 || int(h.CurrentIndex) >= len(h.Entries) {
		return ""
	}
	u, _ := sanitizeURL(h.Entries[h.CurrentIndex].URL)
	return u
}

// artifactWait is how long each artifact of a step may take; a variable
// only so that a test can shorten it.
var artifactWait = 5 * time.Second

// captureArtifacts takes the artifacts in want, each within artifactWait
// (so a slow one, the DOM of a very large page, does not starve the
// others; the accessibility tree's wait grows with the page, axArtifact)
// and never past the run's deadline.
func captureArtifacts(ctx context.Context, sc scope, want []string, url string, red *strings.Replacer, deadline time.Time) ports.BrowserScenarioArtifacts {
	var a ports.BrowserScenarioArtifacts
	var actx context.Context
	missing := func(k, why string) {
		if a.Missing == nil {
			a.Missing = map[string]string{}
		}
		if actx != nil && errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			why = fmt.Sprintf("not captured within %s (a very large page takes longer)", artifactWait)
			if !time.Now().Before(deadline) {
				why = "not captured: limits.duration_ms ran out"
			}
		}
		a.Missing[k] = why
	}
	// The cheap ones first: an accessibility tree still being built keeps
	// the page busy after its wait is over.
	for _, k := range []string{"url", "history", "storage", "screenshot", "dom", "accessibility"} {
		if !slices.Contains(want, k) {
			continue
		}
		actx = nil
		if url == "" {
			// The URL could not be read (currentURL gives up after 2 s): the
			// page is not known to be outside the scope, only unknown.
			missing(k, "the page's URL could not be read after the step (the page was still loading or busy), so its origin could not be checked")
			continue
		}
		if k != "url" && !sc.allows(url) {
			why := "current page is outside approved origins"
			if originOfString(url) != "" {
				why = "the page's navigation to " + url + " was blocked (outside allowed_origins): the tab shows Chromium's error page"
			}
			missing(k, why)
			continue
		}
		until := time.Now().Add(artifactWait)
		if deadline.Before(until) {
			until = deadline
		}
		var cancel context.CancelFunc
		actx, cancel = context.WithDeadline(ctx, until)
		defer cancel() // at most one per artifact kind
		switch k {
		case "url":
			u := url
			a.URL = &u
		case "screenshot":
			png, err := chromedp.Run(actx, chromedp.CaptureScreenshot())
			if err != nil {
				missing(k, err.Error())
			} else {
				a.Screenshot = png
			}
		case "dom":
			html, err := chromedp.Run(actx, chromedp.OuterHTML(chromedp.CSS("html")))
			if err != nil {
				missing(k, err.Error())
				continue
			}
			var cut bool
			if a.DOM, a.DOMBytes, cut = domArtifact(html, red); cut {
				a.Truncated = append(a.Truncated, "dom")
			}
		case "accessibility":
			// Its wait follows the page's size (axArtifact), and its
			// reason says so: not the fixed wait's.
			text, partial, why := axArtifact(ctx, chromedpAXCall, deadline)
			if why != "" {
				actx = nil
				missing(k, why)
				continue
			}
			a.Accessibility = []byte(red.Replace(string(text)))
			if partial {
				a.Truncated = append(a.Truncated, "accessibility")
			}
		case "history":
			h, err := chromedp.Run(actx, chromedp.NavigationEntries())
			if err != nil {
				missing(k, err.Error())
				continue
			}
			hist := &ports.BrowserHistory{Length: len(h.Entries), CurrentURL: url}
			for _, en := range h.Entries {
				t := "unknown"
				switch en.TransitionType {
				case page.TransitionTypeReload:
					t = "reload"
				case page.TransitionTypeLink, page.TransitionTypeTyped, page.TransitionTypeAddressBar, page.TransitionTypeFormSubmit, page.TransitionTypeAutoToplevel, page.TransitionTypeGenerated:
					t = "navigate"
				}
				name, _ := sanitizeURL(red.Replace(en.URL))
				hist.NavigationEntries = append(hist.NavigationEntries, ports.BrowserHistoryEntry{Type: t, Name: name})
			}
			a.History = hist
		case "storage":
			st, err := storageArtifact(actx, url, red)
			if err != nil {
				missing(k, err.Error())
				continue
			}
			a.Storage = st
		}
	}
	return a
}

// domArtifact is the dom artifact of a page's serialized HTML: the
// scenario's secrets replaced, and over maxDOMArtifactBytes its start, cut
// after the replacement (a secret across the bound leaves nothing of it)
// and before a tag the bound falls in; total is the whole text's size when
// cut.
func domArtifact(html string, red *strings.Replacer) (kept []byte, total int, cut bool) {
	whole := red.Replace(html)
	if len(whole) <= maxDOMArtifactBytes {
		return []byte(whole), 0, false
	}
	s := cutBytes(whole, maxDOMArtifactBytes)
	if lt := strings.LastIndexByte(s, '<'); lt > strings.LastIndexByte(s, '>') {
		s = s[:lt]
	}
	return []byte(s), len(whole), true
}

// storageArtifact reads the cookies Chromium would send to url and the
// localStorage and sessionStorage of url's origin, through the browser
// rather than the page's script (which may replace its Storage objects).
// Values keep the scenario's secrets replaced; core digests them.
func storageArtifact(ctx context.Context, url string, red *strings.Replacer) (*ports.BrowserScenarioStorage, error) {
	origin := originOfString(url)
	if origin == "" {
		return nil, errors.New("the page has no http(s) origin")
	}
	value := func(name, v string) ports.BrowserStoredValue {
		r := red.Replace(v)
		return ports.BrowserStoredValue{Name: cut(red.Replace(name), 1024), Value: r, HadSecret: r != v}
	}
	st := &ports.BrowserScenarioStorage{Cookies: []ports.BrowserStoredCookie{}, LocalStorage: []ports.BrowserStoredValue{}, SessionStorage: []ports.BrowserStoredValue{}}
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	if err != nil {
		return nil, fmt.Errorf("reading cookies: %w", err)
	}
	for _, c := range cookies.Cookies {
		ss := string(c.SameSite)
		if ss != "Strict" && ss != "None" {
			ss = "Lax" // Chromium's default when the cookie set none
		}
		st.Cookies = append(st.Cookies, ports.BrowserStoredCookie{BrowserStoredValue: value(c.Name, c.Value),
			Domain: cut(c.Domain, 2048), Path: cut(c.Path, 4096), Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: ss})
	}
	for _, local := range []bool{true, false} {
		items, err := chromedp.Call(ctx, domstorage.GetDOMStorageItems,
			domstorage.GetDOMStorageItemsParams{StorageID: &domstorage.StorageID{SecurityOrigin: origin, IsLocalStorage: local}})
		if err != nil {
			return nil, fmt.Errorf("reading DOM storage: %w", err)
		}
		list := &st.SessionStorage
		if local {
			list = &st.LocalStorage
		}
		for _, kv := range items.Entries {
			if len(kv) == 2 {
				*list = append(*list, value(kv[0], kv[1]))
			}
		}
	}
	return st, nil
}

// axBuildPerNode is what the accessibility artifact's wait grows by for
// each node of the page's document: Chromium builds a page's accessibility
// tree at the first read, which took about 9 s for a 200,000-element page
// (400,000 DOM nodes, 22 µs a node), past artifactWait, and 21 s on a
// machine with a load average of 23 on its 2 cores (52 µs a node).
const axBuildPerNode = 100 * time.Microsecond

// axCountWaits is how many artifactWaits counting the page's nodes may
// take: the count walks the whole document (3.4 s for 400,000 nodes on
// that loaded machine), before rea knows how large the page is.
const axCountWaits = 3

// axArtifact is a scenario step's accessibility artifact: the page's
// nodes are counted within axCountWaits artifactWaits, and the tree is
// read within artifactWait plus axBuildPerNode for each node counted, never past
// deadline (limits.duration_ms). When the text did not come, why says
// what was not captured, why, and what to pass instead.
func axArtifact(ctx context.Context, call axCall, deadline time.Time) (text []byte, partial bool, why string) {
	start := time.Now()
	within := func(d time.Duration) (context.Context, context.CancelFunc, bool) {
		until, cut := start.Add(d), false
		if deadline.Before(until) {
			until, cut = deadline, true
		}
		c, cancel := context.WithDeadline(ctx, until)
		return c, cancel, cut
	}
	countWait := axCountWaits * artifactWait
	cctx, cancel, cut := within(countWait)
	defer cancel()
	doc, release, err := scenarioDocument(cctx, call, axReadsPerNode*defaultMaxAXNodes)
	defer release()
	timedOut := func(c context.Context) bool { return ctx.Err() == nil && errors.Is(c.Err(), context.DeadlineExceeded) }
	if err != nil {
		switch {
		case !timedOut(cctx):
			return nil, false, err.Error()
		case cut:
			return nil, false, "not captured: limits.duration_ms ran out while the page's nodes were counted; pass a larger limits.duration_ms"
		}
		return nil, false, fmt.Sprintf("not captured within %s: counting the page's nodes took longer (a very large or busy page); "+
			"capture accessibility at_end only, or leave it out of capture", countWait)
	}
	wait := artifactWait + time.Duration(doc.nodes)*axBuildPerNode
	start = time.Now()
	rctx, rcancel, cut := within(wait)
	defer rcancel()
	text, partial, err = axTextOf(rctx, call, doc)
	if err == nil {
		return text, partial, ""
	}
	if !timedOut(rctx) {
		return nil, false, err.Error()
	}
	building := fmt.Sprintf("Chromium was still building the accessibility tree of the page's %d DOM nodes (it builds it at the first read: "+
		"about 9 s for 400,000 nodes on an idle machine)", doc.nodes)
	if cut {
		return nil, false, "not captured: limits.duration_ms ran out while " + building + "; pass a larger limits.duration_ms"
	}
	return nil, false, fmt.Sprintf("not captured within %s, the wait for a page of this size: %s; capture accessibility at a later step "+
		"or at_end, when the tree is built", wait.Round(time.Millisecond), building)
}

// axText renders the main frame's accessibility tree as indented "role
// name" lines, a deterministic text that compares Go run to Go run. A
// document with more nodes than inspect_web_page's default max_ax_nodes is
// read node by node, as inspect_web_page reads it (axReadNodeByNode),
// rather than asked for whole (getFullAXTree answers a frame's whole tree
// in one reply: 191 MB for a 200k-element page); the text's last line then
// says how many of the document's nodes were not read, and partial is
// true. The nodes are counted by scenarioDocument, whose replies are
// bounded as the read is.
func axText(ctx context.Context, call axCall) (text []byte, partial bool, err error) {
	doc, release, err := scenarioDocument(ctx, call, axReadsPerNode*defaultMaxAXNodes)
	defer release()
	if err != nil {
		return nil, false, err
	}
	return axTextOf(ctx, call, doc)
}

// axTextOf is axText of a document scenarioDocument counted.
func axTextOf(ctx context.Context, call axCall, doc axDocument) (text []byte, partial bool, err error) {
	var nodes []axNode
	var note string
	if doc.nodes > defaultMaxAXNodes {
		read, ok, err := axReadNodeByNode(ctx, call, doc, defaultMaxAXNodes, func(n axNode) { nodes = append(nodes, n) })
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, errors.New(accessibility.CommandGetPartialAXTree + " was unavailable from this browser")
		}
		note = axNotRead("The accessibility tree", read, doc.nodes, fmt.Sprintf("at most %d accessibility nodes, inspect_web_page's default max_ax_nodes", defaultMaxAXNodes))
	} else {
		var res struct {
			Nodes []axNode `json:"nodes"`
		}
		ok, err := call(ctx, accessibility.CommandGetFullAXTree, accessibility.GetFullAXTreeParams{}, &res)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, errors.New(accessibility.CommandGetFullAXTree + " was unavailable from this browser")
		}
		nodes = res.Nodes
	}
	type node struct {
		role, name string
		kids       []string
		ignored    bool
	}
	byID := map[string]*node{}
	for _, n := range nodes {
		nd := &node{ignored: n.Ignored, role: n.Role.text(), name: n.Name.text(), kids: n.ChildIDs}
		byID[n.NodeID] = nd
	}
	// A root has no parent among the nodes read: the document's, or the
	// first node read of a subtree whose parent has no DOM node.
	var roots []string
	for _, n := range nodes {
		if byID[n.ParentID] == nil {
			roots = append(roots, n.NodeID)
		}
	}
	var b strings.Builder
	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		n := byID[id]
		if n == nil || depth > 64 || b.Len() > maxDOMArtifactBytes {
			return
		}
		if !n.ignored {
			fmt.Fprintf(&b, "%s%s %q\n", strings.Repeat("  ", depth), n.role, n.name)
			depth++
		}
		for _, k := range n.kids {
			walk(k, depth)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	if note != "" {
		b.WriteString(note + "\n")
	}
	return []byte(b.String()), note != "", nil
}

// chromedpAXCall is the axCall of a scenario: it sends through the
// chromedp target of ctx. An unknown method is ok=false, any other refusal
// errAXRejected.
func chromedpAXCall(ctx context.Context, method string, params, result any) (bool, error) {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Target == nil {
		return false, chromedp.ErrInvalidContext
	}
	err := c.Target.Call(ctx, method, params, result)
	var ce *cdproto.Error
	if errors.As(err, &ce) {
		if ce.Code == -32601 {
			return false, nil
		}
		return true, fmt.Errorf("%w: %s", errAXRejected, ce.Message)
	}
	return err == nil, err
}

// scenarioDocument counts the main frame's document nodes (the document
// and its descendants in tree order, shadow trees and frames' documents
// not entered) and takes the first limit of them as remote objects, from a
// script in an isolated world: the page's own scripts neither see it nor
// can change what it reads. No reply grows with the page beyond limit
// nodes: DOMSnapshot.captureSnapshot, which counts them too, answered
// 26 MB for a 200k-element page, past the artifact's 5 s wait under load.
// The page holds the objects until release is called.
func scenarioDocument(ctx context.Context, call axCall, limit int) (doc axDocument, release func(), err error) {
	release = func() {}
	var tree struct {
		FrameTree struct {
			Frame struct {
				ID cdpt.FrameID `json:"id"`
			} `json:"frame"`
		} `json:"frameTree"`
	}
	if err := supported(call(ctx, page.CommandGetFrameTree, nil, &tree)); err != nil {
		return axDocument{}, release, err
	}
	var world page.CreateIsolatedWorldResult
	if err := supported(call(ctx, page.CommandCreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: "rea-accessibility"}, &world)); err != nil {
		return axDocument{}, release, err
	}
	var ev struct {
		Result struct {
			ObjectID runtime.RemoteObjectID `json:"objectId"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	expr := fmt.Sprintf(`(() => {
	const first = [], w = document.createTreeWalker(document);
	let n = 0;
	for (let node = document; node; node = w.nextNode(), n++) if (n < %d) first.push(node);
	first.total = n;
	return first;
})()`, limit)
	if err := supported(call(ctx, runtime.CommandEvaluate, runtime.EvaluateParams{Expression: expr, ContextID: world.ExecutionContextID, ObjectGroup: scenarioObjectGroup}, &ev)); err != nil {
		return axDocument{}, release, err
	}
	release = func() {
		rctx, cancel := cleanupContext(ctx)
		defer cancel()
		call(rctx, runtime.CommandReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: scenarioObjectGroup}, nil)
	}
	if ev.ExceptionDetails != nil || ev.Result.ObjectID == "" {
		return axDocument{}, release, errors.New("counting the document's nodes failed")
	}
	own := true
	var props struct {
		Result []struct {
			Name  string `json:"name"`
			Value *struct {
				ObjectID runtime.RemoteObjectID `json:"objectId"`
				Value    json.RawMessage        `json:"value"`
			} `json:"value"`
		} `json:"result"`
	}
	if err := supported(call(ctx, runtime.CommandGetProperties, runtime.GetPropertiesParams{ObjectID: ev.Result.ObjectID, OwnProperties: &own}, &props)); err != nil {
		return axDocument{}, release, err
	}
	doc.objectIDs = make([]runtime.RemoteObjectID, 0, limit)
	at := map[int]runtime.RemoteObjectID{}
	for _, p := range props.Result {
		if p.Value == nil {
			continue
		}
		if p.Name == "total" {
			json.Unmarshal(p.Value.Value, &doc.nodes)
		} else if i, err := strconv.Atoi(p.Name); err == nil && i >= 0 && i < limit && p.Value.ObjectID != "" {
			at[i] = p.Value.ObjectID
		}
	}
	for i := 0; i < len(at); i++ {
		id, ok := at[i]
		if !ok {
			break
		}
		doc.objectIDs = append(doc.objectIDs, id)
	}
	return doc, release, nil
}

// scenarioObjectGroup holds the remote objects scenarioDocument takes.
const scenarioObjectGroup = "rea-accessibility"

// supported is a command's error, or one saying the browser does not know
// the command.
func supported(ok bool, err error) error {
	if err == nil && !ok {
		return errors.New("the browser does not support a command the accessibility artifact needs")
	}
	return err
}

// newRedactor replaces secret values, longest first, with
// [REDACTED:<secret_id>].
func newRedactor(secrets map[string]string) *strings.Replacer {
	type kv struct{ id, v string }
	var list []kv
	for id, v := range secrets {
		list = append(list, kv{id, v})
	}
	slices.SortFunc(list, func(a, b kv) int {
		if len(a.v) != len(b.v) {
			return len(b.v) - len(a.v)
		}
		return strings.Compare(a.id, b.id)
	})
	var pairs []string
	for _, x := range list {
		pairs = append(pairs, x.v, "[REDACTED:"+x.id+"]")
	}
	return strings.NewReplacer(pairs...)
}

// pageError splits an uncaught exception into the error's message and its
// stack, as a page's error event gives them: V8 describes an Error as its
// stack ("TypeError: x is not a function\n    at f (app.js:3:9)"), whose
// first line is the class and the message; a thrown primitive has only its
// value. text is the exception's summary ("Uncaught"), used when nothing
// better is known.
func pageError(text string, ex *runtime.RemoteObject) (msg, stack string) {
	if ex == nil {
		return text, ""
	}
	if ex.Description == "" {
		if v, ok := primitiveText(evRemoteObject{Type: string(ex.Type), Value: json.RawMessage(ex.Value), UnserializableValue: string(ex.UnserializableValue)}); ok {
			return v, ""
		}
		return text, ""
	}
	first, rest, multi := strings.Cut(ex.Description, "\n")
	msg = first
	if ex.ClassName != "" {
		msg = strings.TrimPrefix(first, ex.ClassName+": ")
	}
	if multi && strings.Contains(rest, "    at ") {
		stack = ex.Description
	}
	return msg, stack
}

// headerNames is the names of h, lowercased, sorted and unique: what a
// capture keeps of headers (their values may be credentials).
func headerNames(h network.Headers) []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, strings.ToLower(k))
	}
	slices.Sort(names)
	return slices.Compact(names)
}
