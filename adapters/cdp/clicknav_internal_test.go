package cdp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/matryer/is"
)

// A click's wait ends when the navigation it started settles, woken by the
// events themselves (no polling): asked, it waits; committed, it returns.
func TestClickWaitWakesOnTheNavigationEvents(t *testing.T) {
	is := is.New(t)
	r := &scenarioRun{sc: newScope(nil), max: 100, red: strings.NewReplacer()}
	r.onEvent(&page.EventFrameNavigated{Frame: &cdp.Frame{ID: "main", URL: "about:blank"}})
	is.Equal(r.navSettled.Load(), int64(0)) // the start settles nothing

	done := make(chan struct{})
	go func() { r.awaitClickNavigation(context.Background(), 0); close(done) }()
	r.onEvent(&page.EventFrameRequestedNavigation{FrameID: "main", Disposition: page.ClientNavigationDispositionCurrentTab})
	select {
	case <-done:
		t.Fatal("the wait ended before the navigation the click started settled")
	case <-time.After(clickNavGrace + 30*time.Millisecond):
	}
	r.onEvent(&page.EventFrameNavigated{Frame: &cdp.Frame{ID: "main", URL: "about:blank#2"}})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not end when the navigation committed")
	}
	is.Equal(r.navSettled.Load(), r.navAsked.Load())
}
