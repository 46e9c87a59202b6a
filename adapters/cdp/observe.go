package cdp

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"rea/ports"
)

var (
	netErrorDetail = lazyRegexp{expr: `^net::ERR_[A-Z0-9_]{1,100}$`}
	plainDetail    = lazyRegexp{expr: `^[a-z0-9_.:-]{1,100}$`}
)

// timeline is the event state of one observe_web_session call.
type timeline struct {
	mu        sync.Mutex
	sid       string
	sc        scope
	mainFrame string
	max       int
	events    []ports.BrowserTimelineEvent
	dropped   int
	reload    bool
	// The document loaded before attach: Chromium reports its lifecycle
	// so far when lifecycle events are enabled, so those arrive at the
	// attach time, not when they happened.
	attachLoader string
	committed    bool     // a navigation committed in the window
	replayed     []string // lifecycle names of the attached document, before any commit
	// docStatus holds main-frame document response statuses by loader id
	// until their commit carries them (bounded: a page cannot grow it).
	docStatus  map[string]int
	unkept     int    // document statuses not kept because docStatus was full
	lastCommit int    // 1 + the index in events of the last kept commit; 0 before one
	end        string // "" while running
	done       chan struct{}
	once       sync.Once
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (tl *timeline) finish(reason string) {
	if tl.end == "" {
		tl.end = reason
	}
	tl.once.Do(func() { close(tl.done) })
}

func (tl *timeline) add(ev ports.BrowserTimelineEvent) {
	if tl.end != "" {
		return
	}
	if len(tl.events) >= tl.max {
		tl.dropped++
		return
	}
	ev.Sequence = len(tl.events)
	ev.Timestamp = time.Now().UTC()
	tl.events = append(tl.events, ev)
}

// withURL sets an event's URL and scope; out-of-scope destinations keep no
// URL and end the window.
func (tl *timeline) withURL(ev *ports.BrowserTimelineEvent, raw string) (left bool) {
	if raw == "" {
		return false
	}
	d := tl.sc.destination(raw)
	ev.DestinationScope = &d
	if d == "approved" {
		clean, _ := sanitizeURL(raw)
		ev.URL = &clean
		return false
	}
	return d == "outside_policy"
}

func detail(s string) *string {
	s = strings.ToLower(s)
	if plainDetail.get().MatchString(s) {
		return &s
	}
	return nil
}

func (tl *timeline) onEvent(ev event) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if ev.Method == cdproto.EventTargetDetachedFromTarget {
		var e evDetached
		if decode(ev.Params, &e) && e.SessionID == tl.sid {
			tl.add(ports.BrowserTimelineEvent{Type: "target_terminated"})
			tl.finish("target_terminated")
		}
		return
	}
	if ev.SessionID != tl.sid {
		return
	}
	switch ev.Method {
	case cdproto.EventInspectorTargetCrashed:
		tl.add(ports.BrowserTimelineEvent{Type: "target_terminated"})
		tl.finish("target_terminated")
	case cdproto.EventPageFrameRequestedNavigation:
		var e evFrameRequestedNavigation
		if !decode(ev.Params, &e) || e.FrameID != tl.mainFrame {
			return
		}
		te := ports.BrowserTimelineEvent{Type: "navigation_requested", FrameID: strp(e.FrameID), Detail: detail(e.Reason)}
		tl.reload = e.Reason == "reload"
		left := tl.withURL(&te, e.URL)
		tl.add(te)
		if left {
			tl.finish("target_left_scope")
		}
	case cdproto.EventPageFrameNavigated:
		var e evFrameNavigated
		if !decode(ev.Params, &e) || e.Frame == nil || e.Frame.ParentID != "" {
			return
		}
		tl.mainFrame, tl.committed = e.Frame.ID, true
		te := ports.BrowserTimelineEvent{Type: "navigation_committed", FrameID: strp(e.Frame.ID), LoaderID: strp(e.Frame.LoaderID), Detail: detail(e.Type)}
		if tl.reload {
			te.Type, tl.reload = "same_origin_reload", false
		}
		left := tl.withURL(&te, e.Frame.URL+e.Frame.URLFragment)
		if s, ok := tl.docStatus[e.Frame.LoaderID]; ok && te.URL != nil {
			te.HTTPStatus = &s
		}
		delete(tl.docStatus, e.Frame.LoaderID)
		if tl.end == "" && len(tl.events) < tl.max {
			tl.lastCommit = len(tl.events) + 1
		}
		tl.add(te)
		if left {
			tl.finish("target_left_scope")
		}
	case cdproto.EventNetworkResponseReceived:
		// The main document's response: its status goes on the commit of
		// the same loader, so a 404 or 500 page is told from a good one.
		var e evResponseReceived
		if !decode(ev.Params, &e) || e.Type != "Document" || e.FrameID != tl.mainFrame || e.LoaderID == "" || e.Response == nil ||
			e.Response.Status < 100 || e.Response.Status > 999 {
			return
		}
		// Chromium usually reports the response before the commit; if the
		// last commit came first, it gets the status now.
		if tl.lastCommit > 0 && tl.end == "" {
			if c := &tl.events[tl.lastCommit-1]; c.LoaderID != nil && *c.LoaderID == e.LoaderID {
				if c.HTTPStatus == nil && c.URL != nil {
					s := e.Response.Status
					c.HTTPStatus = &s
				}
				return
			}
		}
		if tl.docStatus == nil {
			tl.docStatus = map[string]int{}
		}
		if _, ok := tl.docStatus[e.LoaderID]; ok || len(tl.docStatus) < maxPendingStatuses {
			tl.docStatus[e.LoaderID] = e.Response.Status
		} else if tl.end == "" {
			tl.unkept++
		}
	case cdproto.EventPageNavigatedWithinDocument:
		var e evNavigatedWithinDocument
		if !decode(ev.Params, &e) || e.FrameID != tl.mainFrame {
			return
		}
		te := ports.BrowserTimelineEvent{Type: "same_document_navigation", FrameID: strp(e.FrameID)}
		left := tl.withURL(&te, e.URL)
		tl.add(te)
		if left {
			tl.finish("target_left_scope")
		}
	case cdproto.EventNetworkRequestWillBeSent:
		var e evRequestWillBeSent
		if !decode(ev.Params, &e) || e.RedirectResponse == nil || e.Request == nil || e.FrameID != tl.mainFrame || e.Type != "Document" {
			return
		}
		te := ports.BrowserTimelineEvent{Type: "redirect", FrameID: strp(e.FrameID), LoaderID: strp(e.LoaderID), RequestID: e.RequestID}
		left := tl.withURL(&te, e.Request.URL)
		// The hop's own response (301, 302, 307...), as the scenario
		// runner records it; a hop to an out-of-scope URL shows none, as
		// its URL is not shown either.
		if s := e.RedirectResponse.Status; s >= 100 && s <= 999 && te.URL != nil {
			te.HTTPStatus = &s
		}
		tl.add(te)
		if left {
			tl.finish("target_left_scope")
		}
	case cdproto.EventNetworkLoadingFailed:
		var e evLoadingFailed
		if !decode(ev.Params, &e) || e.Type != "Document" {
			return
		}
		te := ports.BrowserTimelineEvent{Type: "load_failed", RequestID: strp(e.RequestID)}
		if netErrorDetail.get().MatchString(e.ErrorText) {
			te.Detail = &e.ErrorText
		}
		tl.add(te)
	case cdproto.EventPageLifecycleEvent:
		var e evLifecycle
		if !decode(ev.Params, &e) || e.FrameID != tl.mainFrame {
			return
		}
		if !tl.committed && e.LoaderID == tl.attachLoader && tl.end == "" && len(tl.events) < tl.max {
			tl.replayed = append(tl.replayed, strings.ToLower(e.Name))
		}
		tl.add(ports.BrowserTimelineEvent{Type: "lifecycle", FrameID: strp(e.FrameID), LoaderID: strp(e.LoaderID), Detail: detail(e.Name)})
	}
}

// maxPendingStatuses bounds the main-document statuses a timeline holds
// for commits yet to come, so a page cannot grow the map.
const maxPendingStatuses = 64

// ObserveSession records the main frame's navigation timeline.
func (e *Engine) ObserveSession(ctx context.Context, req ports.BrowserObserveRequest) (*ports.BrowserSessionTimeline, error) {
	if req.ObservationMS == 0 {
		req.ObservationMS = 10000
	}
	if req.ObservationMS < 1 || req.ObservationMS > 60000 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "observation_ms", Msg: "observation_ms must be 1..60000"}
	}
	if req.MaxTimelineEvents == 0 {
		req.MaxTimelineEvents = 2000
	}
	if req.MaxTimelineEvents < 1 || req.MaxTimelineEvents > 20000 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "max_timeline_events", Msg: "max_timeline_events must be 1..20000"}
	}
	a, err := e.attach(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	defer a.close(ctx)
	ft, err := e.gate(ctx, a)
	if err != nil {
		return nil, err
	}
	tl := &timeline{sid: a.page.id, sc: a.scope, mainFrame: string(ft.Frame.ID), attachLoader: string(ft.Frame.LoaderID),
		max: req.MaxTimelineEvents, done: make(chan struct{})}
	a.c.setListener(tl.onEvent)
	a.c.whenClosed(func(*ports.BrowserError) {
		tl.mu.Lock()
		tl.add(ports.BrowserTimelineEvent{Type: "target_terminated"})
		tl.finish("target_terminated")
		tl.mu.Unlock()
	})
	if err := a.enable(ctx, "Page", nil); err != nil {
		return nil, err
	}
	total := int64(1048576)
	if err := a.enable(ctx, "Network", network.EnableParams{MaxTotalBufferSize: &total}); err != nil {
		return nil, err
	}
	if err := a.page.c.call(ctx, a.page.id, page.CommandSetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}, nil); err != nil {
		return nil, err
	}
	initial, _ := sanitizeURL(frameURL(ft.Frame))
	out := &ports.BrowserSessionTimeline{Browser: a.info, AllowedOrigins: a.scope.list,
		Target: ports.BrowserSessionTarget{TargetID: a.target.TargetID, InitialURL: initial}}
	armed := time.Now().UTC()
	t := time.NewTimer(time.Duration(req.ObservationMS) * time.Millisecond)
	defer t.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	ports.Observe(ctx, "observe", "observing the session for "+itoa(req.ObservationMS)+" ms")
wait:
	for {
		select {
		case <-ctx.Done():
			return nil, cancelled(ctx)
		case <-tl.done:
			break wait
		case <-tick.C:
			tl.mu.Lock()
			n := len(tl.events)
			tl.mu.Unlock()
			ports.Observe(ctx, "observe", itoa(int(time.Since(armed).Milliseconds()))+" of "+itoa(req.ObservationMS)+" ms, "+itoa(n)+" timeline events")
		case <-t.C:
			tl.mu.Lock()
			tl.finish("window_elapsed")
			tl.mu.Unlock()
			break wait
		}
	}
	tl.mu.Lock()
	end := tl.end
	tl.mu.Unlock()
	if end == "window_elapsed" {
		ft2, err := a.frameTree(ctx)
		if err != nil {
			return nil, err
		}
		u := frameURL(ft2.Frame)
		if a.scope.allows(u) {
			clean, _ := sanitizeURL(u)
			out.Target.FinalURL = &clean
		} else {
			end = "target_left_scope"
		}
	}
	tl.mu.Lock()
	out.Timeline = append([]ports.BrowserTimelineEvent{}, tl.events...)
	out.Dropped.TimelineEvents = tl.dropped
	if n := len(tl.replayed); n > 0 {
		out.Limitations = append(out.Limitations, itoa(n)+" lifecycle event(s) of the document loaded before attach ("+strings.Join(tl.replayed, ", ")+
			") were reported by Chromium when rea attached: their timestamps are the attach time, not when they happened.")
	}
	if tl.unkept > 0 {
		out.Limitations = append(out.Limitations, itoa(tl.unkept)+" main-document response status(es) were not kept: "+itoa(maxPendingStatuses)+
			" responses were already waiting for a commit that had not come, so a later commit of such a response has http_status null.")
	}
	tl.mu.Unlock()
	out.Window = ports.BrowserSessionWindow{ArmedAt: armed, EndedAt: time.Now().UTC(), RequestedMS: req.ObservationMS, EndReason: end}
	return out, nil
}
