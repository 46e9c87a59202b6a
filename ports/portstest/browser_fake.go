package portstest

import (
	"context"
	"encoding/base64"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"rea/ports"
)

// BrowserFake is a working in-memory ports.BrowserObserver for tests of
// code that consumes browser observations (core's browser family). Its
// endpoint is any http://127.0.0.1:PORT; it has the page targets in Pages
// and answers every capability from them without I/O. Set Err to make every
// call after validation fail with it.
type BrowserFake struct {
	Browser ports.BrowserInfo
	Pages   []ports.BrowserTarget
	// Capture is returned (with Target and window filled in) by
	// InspectPage; nil gives a one-frame capture.
	Capture *ports.BrowserPageCapture
	Tools   []ports.WebMCPTool // nil: WebMCP unavailable
	Err     error
}

var _ ports.BrowserObserver = (*BrowserFake)(nil)

// NewBrowserFake returns a fake with one page, "T1" at http://app.test/.
func NewBrowserFake() *BrowserFake {
	return &BrowserFake{
		Browser: ports.BrowserInfo{Product: "FakeChrome/1.0", ProtocolVersion: "1.3", Revision: "fake", UserAgent: "Fake", JSVersion: "1.0"},
		Pages:   []ports.BrowserTarget{{TargetID: "T1", Type: "page", Title: "App", URL: "http://app.test/", Origin: "http://app.test"}},
	}
}

// FakePNG is the 1×1 PNG the fake's screenshots return.
var FakePNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

// Info names the fake.
func (f *BrowserFake) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "fake-browser", Name: "in-memory browser observer", Version: "1"}
}

func (f *BrowserFake) endpoint(ctx context.Context, ep string) error {
	u, err := url.Parse(ep)
	bad := err != nil || u.Scheme != "http" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" ||
		(u.Hostname() != "127.0.0.1" && u.Hostname() != "::1")
	if !bad {
		p, err := strconv.Atoi(u.Port())
		bad = err != nil || p < 1 || p > 65535
	}
	if bad {
		return &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "cdp_endpoint", Msg: "not a loopback CDP endpoint"}
	}
	if ctx.Err() != nil {
		return &ports.BrowserError{Code: ports.BrowserCancelled, Err: ctx.Err()}
	}
	return f.Err
}

func (f *BrowserFake) target(ctx context.Context, ref ports.BrowserTargetRef) (ports.BrowserTarget, error) {
	if err := f.endpoint(ctx, ref.Endpoint); err != nil {
		return ports.BrowserTarget{}, err
	}
	i := slices.IndexFunc(f.Pages, func(t ports.BrowserTarget) bool { return t.TargetID == ref.TargetID })
	if i < 0 {
		return ports.BrowserTarget{}, &ports.BrowserError{Code: ports.BrowserTargetNotFound, Msg: "no target " + ref.TargetID}
	}
	t := f.Pages[i]
	if len(ref.AllowedOrigins) > 0 && !slices.Contains(ref.AllowedOrigins, t.Origin) {
		return ports.BrowserTarget{}, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed}
	}
	return t, nil
}

// ListTargets lists the fake's pages within the filter.
func (f *BrowserFake) ListTargets(ctx context.Context, req ports.BrowserListRequest) (*ports.BrowserTargetList, error) {
	if err := f.endpoint(ctx, req.Endpoint); err != nil {
		return nil, err
	}
	out := &ports.BrowserTargetList{Browser: f.Browser, Targets: []ports.BrowserTarget{}}
	for _, t := range f.Pages {
		if len(req.AllowedOrigins) > 0 && !slices.Contains(req.AllowedOrigins, t.Origin) {
			out.Excluded.DisallowedOrigin++
			continue
		}
		out.Targets = append(out.Targets, t)
	}
	slices.SortFunc(out.Targets, func(a, b ports.BrowserTarget) int { return strings.Compare(a.TargetID, b.TargetID) })
	return out, nil
}

// InspectPage returns Capture for the target.
func (f *BrowserFake) InspectPage(ctx context.Context, req ports.BrowserInspectRequest) (*ports.BrowserPageCapture, error) {
	t, err := f.target(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	var c ports.BrowserPageCapture
	if f.Capture != nil {
		c = *f.Capture
	} else {
		c.Frames = []ports.BrowserFrame{{FrameID: "F1", URL: t.URL, Origin: t.Origin}}
	}
	now := time.Now().UTC()
	c.Browser, c.Target, c.AllowedOrigins = f.Browser, t, []string{t.Origin}
	c.CaptureWindow = ports.BrowserCaptureWindow{StartedAt: now, EndedAt: now, ObservationMS: req.ObservationMS}
	return &c, nil
}

// ObserveSession returns an empty timeline that elapsed.
func (f *BrowserFake) ObserveSession(ctx context.Context, req ports.BrowserObserveRequest) (*ports.BrowserSessionTimeline, error) {
	t, err := f.target(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	final := t.URL
	return &ports.BrowserSessionTimeline{Browser: f.Browser, AllowedOrigins: []string{t.Origin},
		Target: ports.BrowserSessionTarget{TargetID: t.TargetID, InitialURL: t.URL, FinalURL: &final},
		Window: ports.BrowserSessionWindow{ArmedAt: now, EndedAt: now, RequestedMS: req.ObservationMS, EndReason: "window_elapsed"}}, nil
}

// DiscoverWebMCPTools returns Tools, or unavailable when Tools is nil.
func (f *BrowserFake) DiscoverWebMCPTools(ctx context.Context, req ports.WebMCPRequest) (*ports.WebMCPDiscovery, error) {
	t, err := f.target(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	d := &ports.WebMCPDiscovery{Browser: f.Browser, Target: t, Status: "available", Tools: slices.Clone(f.Tools)}
	if f.Tools == nil {
		d.Status, d.UnavailableReason, d.Tools = "unavailable", "the fake has no WebMCP domain", []ports.WebMCPTool{}
	}
	return d, nil
}

// CaptureScreenshot returns FakePNG.
func (f *BrowserFake) CaptureScreenshot(ctx context.Context, req ports.BrowserScreenshotRequest) (*ports.BrowserScreenshot, error) {
	t, err := f.target(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	return &ports.BrowserScreenshot{Browser: f.Browser, Target: t, CapturedAt: time.Now().UTC(), Width: 1, Height: 1, PNG: slices.Clone(FakePNG)}, nil
}
