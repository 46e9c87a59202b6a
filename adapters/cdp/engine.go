package cdp

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	cdpt "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"rea/ports"
)

// ProviderID is the provider of the passive web tools (BROWSER.md §6).
const ProviderID = "rea-cdp-browser"

// Options configure an Engine. nil means defaults.
type Options struct {
	// GateInterval and GateAttempts pace the main-frame gate's wait for a
	// blank or non-http(s) main frame to settle (25 ms × 80).
	GateInterval time.Duration
	GateAttempts int
	// Launcher starts owned scenario browsers; nil uses chromium.
	Launcher Launcher
}

// Engine observes browsers over CDP. It holds no connection between calls
// and is safe for concurrent use.
type Engine struct {
	opts Options
}

var (
	_ ports.BrowserObserver       = (*Engine)(nil)
	_ ports.BrowserScenarioRunner = (*Engine)(nil)
	_ ports.SourceMapFetcher      = (*Engine)(nil)
)

// New returns an Engine.
func New(opts *Options) *Engine {
	e := &Engine{}
	if opts != nil {
		e.opts = *opts
	}
	if e.opts.GateInterval <= 0 {
		e.opts.GateInterval = 25 * time.Millisecond
	}
	if e.opts.GateAttempts <= 0 {
		e.opts.GateAttempts = 80
	}
	if e.opts.Launcher == nil {
		e.opts.Launcher = ChromiumLauncher{}
	}
	return e
}

// Info names the engine.
func (e *Engine) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: ProviderID, Name: "Chrome DevTools Protocol observer", Version: "2"}
}

// ListTargets lists an endpoint's page targets within the origin filter.
func (e *Engine) ListTargets(ctx context.Context, req ports.BrowserListRequest) (*ports.BrowserTargetList, error) {
	ep, err := parseEndpoint(req.Endpoint)
	if err != nil {
		return nil, err
	}
	origins, err := normalizeOrigins(req.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	sc := newScope(origins)
	v, list, err := discover(ctx, ep)
	if err != nil {
		return nil, err
	}
	out := &ports.BrowserTargetList{Browser: v.info, Targets: []ports.BrowserTarget{}}
	for _, d := range list {
		switch {
		case d.Type != "page":
			out.Excluded.NonPage++
		case d.Origin == "":
			out.Excluded.UnsupportedURL++
		case len(origins) > 0 && !sc.set[d.Origin]:
			out.Excluded.DisallowedOrigin++
		case d.socket == "" && v.browserWS == "":
			out.Excluded.Unconnectable++
		default:
			out.Targets = append(out.Targets, d.BrowserTarget)
		}
	}
	if n := out.Excluded.Unconnectable; n > 0 {
		out.Limitations = append(out.Limitations, itoa(n)+" otherwise allowed page target(s) lacked a validated direct CDP WebSocket and were excluded.")
	}
	slices.SortFunc(out.Targets, func(a, b ports.BrowserTarget) int { return strings.Compare(a.TargetID, b.TargetID) })
	return out, nil
}

// attachment is one attached page target.
type attachment struct {
	c       *conn
	page    session // the target's session
	browser session // the browser connection ("" session); page-socket attachments have none
	flat    bool
	info    ports.BrowserInfo
	origin  string // the endpoint's origin
	target  ports.BrowserTarget
	scope   scope
	enabled []string // domains to disable on close, in enable order
}

// attach discovers the endpoint afresh, checks the target and its scope
// and opens a session: the browser socket with a flat session first, else
// the target's own page socket.
func (e *Engine) attach(ctx context.Context, ref ports.BrowserTargetRef) (*attachment, error) {
	ep, err := parseEndpoint(ref.Endpoint)
	if err != nil {
		return nil, err
	}
	if ref.TargetID == "" || len(ref.TargetID) > 256 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "target_id", Msg: "target_id must be 1..256 characters"}
	}
	origins, err := normalizeOrigins(ref.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	v, list, err := discover(ctx, ep)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(list, func(d discovered) bool { return d.TargetID == ref.TargetID })
	if i < 0 {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotFound, Msg: "no target " + ref.TargetID}
	}
	d := list[i]
	if d.Type != "page" {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "target is a " + d.Type + ", not a page"}
	}
	if d.Origin == "" {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "target URL has no http(s) origin"}
	}
	if len(origins) == 0 {
		origins = []string{d.Origin}
	}
	sc := newScope(origins)
	if !sc.set[d.Origin] {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "target origin " + d.Origin + " is outside allowed_origins"}
	}
	a := &attachment{info: v.info, origin: ep.Origin, target: d.BrowserTarget, scope: sc}
	if err := a.connect(ctx, v, d); err != nil {
		return nil, err
	}
	return a, nil
}

// connect opens a's connection to the page target d: the browser socket
// with a flat session first, else the target's page socket.
func (a *attachment) connect(ctx context.Context, v version, d discovered) error {
	switch {
	case v.browserWS != "":
		c, err := dialConn(ctx, v.browserWS)
		if err != nil {
			return err
		}
		flatten := true
		res, err := call(ctx, session{c: c}, target.AttachToTarget, target.AttachToTargetParams{TargetID: target.ID(d.TargetID), Flatten: &flatten})
		if err != nil {
			c.close()
			return err
		}
		if n := len(res.SessionID); n < 1 || n > 256 {
			c.close()
			return &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "Target.attachToTarget returned an invalid sessionId"}
		}
		a.c, a.flat = c, true
		a.page = session{c: c, id: string(res.SessionID)}
		c.sessionDone(a.page.id) // watch it from now on
		a.browser = session{c: c}
	case d.socket != "":
		c, err := dialConn(ctx, d.socket)
		if err != nil {
			return err
		}
		a.c = c
		a.page = session{c: c}
	default:
		return &ports.BrowserError{Code: ports.BrowserInvalidEndpointResponse, Msg: "the target has no validated CDP WebSocket"}
	}
	return nil
}

// gone is closed when the target's session detaches (its target closed or
// crashed) or the connection fails.
func (a *attachment) gone() <-chan struct{} { return a.c.sessionDone(a.page.id) }

// enable runs <Domain>.enable and remembers to disable it.
func (a *attachment) enable(ctx context.Context, domain string, params any) error {
	if err := a.page.c.call(ctx, a.page.id, domain+".enable", params, nil); err != nil {
		return err
	}
	a.enabled = append(a.enabled, domain)
	return nil
}

// enableDebugger enables the Debugger domain (for the scripts it reports)
// and tells it to skip every pause: with a debugger attached, V8 stops at
// each debugger statement (anti-debugging pages run them in a loop), so
// without this a passive capture froze the page for its whole window and
// saw none of its activity. The skip goes first: sent after the enable, a
// timer's debugger statement could pause the page in between (a live page
// with a 2 ms timer mostly did), and a skip does not resume a pause already
// taken. A browser that refuses it before the enable is asked again after;
// one that refuses it then too is not an error: the returned limitation
// says what it may mean.
func (a *attachment) enableDebugger(ctx context.Context, params any) (limitation string, err error) {
	skip := func() (refused bool, err error) {
		if err := a.page.c.call(ctx, a.page.id, debugger.CommandSetSkipAllPauses, debugger.SetSkipAllPausesParams{Skip: true}, nil); err != nil {
			if ctx.Err() != nil {
				return false, cancelled(ctx)
			}
			return true, nil
		}
		return false, nil
	}
	refused, err := skip()
	if err != nil {
		return "", err
	}
	if err := a.enable(ctx, "Debugger", params); err != nil {
		return "", err
	}
	if refused {
		if refused, err = skip(); err != nil {
			return "", err
		}
	}
	if refused {
		return "Debugger.setSkipAllPauses was refused, so the page may have paused at a debugger statement during the window.", nil
	}
	return "", nil
}

// close disables the enabled domains (errors ignored), detaches a flat
// session and closes the socket, whatever ctx says.
func (a *attachment) close(ctx context.Context) {
	cctx, cancel := cleanupContext(ctx)
	defer cancel()
	a.c.setListener(nil)
	for _, d := range slices.Backward(a.enabled) {
		a.page.c.call(cctx, a.page.id, d+".disable", nil, nil)
	}
	if a.flat {
		call(cctx, a.browser, target.DetachFromTarget, target.DetachFromTargetParams{SessionID: target.SessionID(a.page.id)})
	}
	a.c.close()
}

// frameTree returns the page's frame tree.
func (a *attachment) frameTree(ctx context.Context) (*page.FrameTree, error) {
	res, err := call(ctx, a.page, page.GetFrameTree, cdpt.Empty{})
	if err != nil {
		return nil, err
	}
	if res.FrameTree == nil || res.FrameTree.Frame == nil {
		return nil, &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "Page.getFrameTree returned no main frame"}
	}
	return res.FrameTree, nil
}

// gate is BROWSER.md §2's main-frame gate: an in-scope main frame passes,
// an out-of-scope http(s) one fails at once, and a blank or other one is
// polled until it settles.
func (e *Engine) gate(ctx context.Context, a *attachment) (*page.FrameTree, error) {
	ft, err := settledFrame(ctx, a, e.opts.GateAttempts, e.opts.GateInterval, func(u string) bool {
		r := a.scope.reason(u)
		return r == "" || r == "disallowed_origin"
	})
	if err != nil {
		return nil, err
	}
	switch a.scope.reason(frameURL(ft.Frame)) {
	case "":
		return ft, nil
	case "disallowed_origin":
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the main frame left the allowed origins"}
	}
	return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the main frame has no allowed origin"}
}

// settledFrame reads a's frame tree until settled accepts its main frame's
// URL, at most attempts times interval apart, and returns the last tree
// read (settled or not); the caller judges it.
func settledFrame(ctx context.Context, a *attachment, attempts int, interval time.Duration, settled func(url string) bool) (*page.FrameTree, error) {
	for i := 0; ; i++ {
		ft, err := a.frameTree(ctx)
		if err != nil || settled(frameURL(ft.Frame)) || i+1 >= attempts {
			return ft, err
		}
		if err := sleep(ctx, interval, nil); err != nil {
			return nil, err
		}
	}
}

func frameURL(f *cdpt.Frame) string {
	if f == nil {
		return ""
	}
	return f.URL + f.URLFragment
}

// sleep waits d or until ctx ends or stop closes.
func sleep(ctx context.Context, d time.Duration, stop <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return cancelled(ctx)
	case <-t.C:
	case <-stop:
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

// sameDocument reports whether two frame-tree snapshots show the same main
// document: same frame, same loader, same origin. A same-document history
// change (pushState) keeps the document, so it is not a navigation.
func sameDocument(a, b *cdpt.Frame) bool {
	return a.ID == b.ID && a.LoaderID == b.LoaderID && originOfString(a.URL) == originOfString(b.URL)
}
