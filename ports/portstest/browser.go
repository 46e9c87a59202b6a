package portstest

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// BrowserEnv is what RunBrowser observes: an endpoint that serves at least
// one page target whose main frame is on Origin.
type BrowserEnv struct {
	Endpoint string // http://127.0.0.1:PORT
	TargetID string
	Origin   string
}

// RunBrowser checks that o honours the browser observer contracts of
// rea/ports: endpoints outside 127.0.0.1/[::1] with an explicit port are
// invalid_request; listings are sorted, unique and scoped; a missing target
// is target_not_found for every per-target capability; captures stay in
// scope, keep no source unless asked and report sorted completeness;
// screenshots are PNGs with their IHDR size; WebMCP discovery reports a
// status; timelines number their events; a cancelled context gives an
// error matching context.Canceled.
func RunBrowser(t *testing.T, o ports.BrowserObserver, env BrowserEnv) {
	t.Helper()
	ctx := t.Context()
	ref := ports.BrowserTargetRef{Endpoint: env.Endpoint, TargetID: env.TargetID}

	t.Run("Info", func(t *testing.T) {
		is.New(t).NoErr(checkInfo(o.Info()))
	})
	t.Run("InvalidEndpoints", func(t *testing.T) {
		port := env.Endpoint[strings.LastIndexByte(env.Endpoint, ':')+1:]
		for _, ep := range []string{"http://localhost:" + port, "http://u@127.0.0.1:" + port, "http://127.0.0.1:" + port + "/x", "http://192.0.2.1:" + port, "http://127.0.0.1"} {
			_, err := o.ListTargets(ctx, ports.BrowserListRequest{Endpoint: ep})
			if be, ok := ports.AsBrowserError(err); !ok || be.Code != ports.BrowserInvalidRequest {
				t.Errorf("%s: want invalid_request, got %v", ep, err)
			}
		}
	})
	t.Run("List", func(t *testing.T) {
		is := is.New(t)
		list, err := o.ListTargets(ctx, ports.BrowserListRequest{Endpoint: env.Endpoint, AllowedOrigins: []string{env.Origin}})
		is.NoErr(err)
		is.True(slices.IsSortedFunc(list.Targets, func(a, b ports.BrowserTarget) int { return strings.Compare(a.TargetID, b.TargetID) }))
		is.True(slices.ContainsFunc(list.Targets, func(tg ports.BrowserTarget) bool { return tg.TargetID == env.TargetID }))
		for i, tg := range list.Targets {
			is.Equal(tg.Type, "page")
			is.Equal(tg.Origin, env.Origin)
			is.True(i == 0 || list.Targets[i-1].TargetID != tg.TargetID)
		}
	})
	t.Run("MissingTarget", func(t *testing.T) {
		is := is.New(t)
		missing := ports.BrowserTargetRef{Endpoint: env.Endpoint, TargetID: "no-such-target"}
		for _, err := range []error{
			second(o.InspectPage(ctx, ports.BrowserInspectRequest{Target: missing})),
			second(o.ObserveSession(ctx, ports.BrowserObserveRequest{Target: missing, ObservationMS: 1})),
			second(o.DiscoverWebMCPTools(ctx, ports.WebMCPRequest{Target: missing})),
			second(o.CaptureScreenshot(ctx, ports.BrowserScreenshotRequest{Target: missing})),
		} {
			be, ok := ports.AsBrowserError(err)
			is.True(ok)
			is.Equal(be.Code, ports.BrowserTargetNotFound)
		}
	})
	t.Run("Inspect", func(t *testing.T) {
		is := is.New(t)
		c, err := o.InspectPage(ctx, ports.BrowserInspectRequest{Target: ref, ObservationMS: 50})
		is.NoErr(err)
		is.Equal(c.Target.TargetID, env.TargetID)
		is.True(len(c.Frames) > 0)
		is.Equal(c.Frames[0].ParentFrameID, "")
		for _, f := range c.Frames {
			is.Equal(f.Origin, env.Origin)
		}
		for _, s := range c.Scripts {
			is.Equal(s.Origin, env.Origin)
			is.Equal(s.Source, nil) // sources were not requested
		}
		for _, r := range c.Network.Requests {
			is.Equal(r.Origin, env.Origin)
		}
		is.True(slices.IsSortedFunc(c.Completeness.Excluded, func(a, b ports.BrowserExclusion) int {
			return strings.Compare(a.Section+"\x00"+a.Reason, b.Section+"\x00"+b.Reason)
		}))
		is.True(slices.IsSorted(c.Completeness.Truncated))
		is.True(!c.CaptureWindow.EndedAt.Before(c.CaptureWindow.StartedAt))
	})
	t.Run("Screenshot", func(t *testing.T) {
		is := is.New(t)
		s, err := o.CaptureScreenshot(ctx, ports.BrowserScreenshotRequest{Target: ref})
		is.NoErr(err)
		is.True(bytes.HasPrefix(s.PNG, []byte("\x89PNG\r\n\x1a\n")))
		is.True(s.Width > 0 && s.Height > 0)
	})
	t.Run("WebMCP", func(t *testing.T) {
		is := is.New(t)
		d, err := o.DiscoverWebMCPTools(ctx, ports.WebMCPRequest{Target: ref, ObservationMS: 25})
		is.NoErr(err)
		is.True(d.Status == "available" || (d.Status == "unavailable" && d.UnavailableReason != ""))
	})
	t.Run("Observe", func(t *testing.T) {
		is := is.New(t)
		tl, err := o.ObserveSession(ctx, ports.BrowserObserveRequest{Target: ref, ObservationMS: 50})
		is.NoErr(err)
		is.True(slices.Contains([]string{"window_elapsed", "target_left_scope", "target_terminated"}, tl.Window.EndReason))
		for i, ev := range tl.Timeline {
			is.Equal(ev.Sequence, i)
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		is := is.New(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := o.InspectPage(cctx, ports.BrowserInspectRequest{Target: ref, ObservationMS: 50})
		is.True(errors.Is(err, context.Canceled))
	})
}

func second[T any](_ T, err error) error { return err }
