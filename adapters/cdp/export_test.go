package cdp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"rea/ports"
)

// SetScreenshotFrameWait sets how long a screenshot waits for its frame,
// for a test, and returns the wait it replaced.
func SetScreenshotFrameWait(d time.Duration) time.Duration {
	old := screenshotFrameWait
	screenshotFrameWait = d
	return old
}

// SetHiddenFrameWait sets how long a screenshot of a hidden page in a
// headful browser waits for its frame, for a test, and returns the wait it
// replaced.
func SetHiddenFrameWait(d time.Duration) time.Duration {
	old := hiddenFrameWait
	hiddenFrameWait = d
	return old
}

// FrameWait is frameWait, for a test; mode is "headless", "headful" or
// "" (unknown).
func FrameWait(mode, visibility string) (time.Duration, string) {
	return frameWait(map[string]browserMode{"headless": modeHeadless, "headful": modeHeadful}[mode], visibility)
}

// SetWorkerAttachWait sets how long a capture gives workers' sessions to
// name the workers they started, for a test, and returns the wait it
// replaced.
func SetWorkerAttachWait(d time.Duration) time.Duration {
	old := workerAttachWait
	workerAttachWait = d
	return old
}

// SetMaxMessageBytes sets the bound on one CDP message, for a test, and
// returns the bound it replaced.
func SetMaxMessageBytes(n int64) int64 {
	old := maxMessageBytes
	maxMessageBytes = n
	return old
}

// SetArtifactWait sets how long each scenario artifact may take, for a
// test, and returns the wait it replaced.
func SetArtifactWait(d time.Duration) time.Duration {
	old := artifactWait
	artifactWait = d
	return old
}

// PageVisibility attaches to a target and reads its document.visibilityState
// the way a screenshot does ("" when unknown).
func (e *Engine) PageVisibility(ctx context.Context, ref ports.BrowserTargetRef) (string, error) {
	a, err := e.attach(ctx, ref)
	if err != nil {
		return "", err
	}
	defer a.close(ctx)
	return visibility(ctx, a), nil
}

// WaitForLoadedPage waits, on events and until ctx ends, for a page target
// at url whose document has fired load, and returns its target id. It
// listens to the browser socket (Target.setDiscoverTargets names every
// target and each change of URL), attaches to the page and enables its
// lifecycle events, which Chromium replays for a document already loaded,
// then detaches: nothing is evaluated or navigated. For live tests that
// need a page launched on a file:// or http:// URL to have run its scripts.
func WaitForLoadedPage(ctx context.Context, endpoint, url string) (string, error) {
	ep, err := parseEndpoint(endpoint)
	if err != nil {
		return "", err
	}
	v, _, err := discover(ctx, ep)
	if err != nil {
		return "", err
	}
	c, err := dialConn(ctx, v.browserWS)
	if err != nil {
		return "", err
	}
	defer c.close()
	found := make(chan string, 1)
	loaded := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	session := ""
	c.setListener(func(ev event) {
		switch ev.Method {
		case "Target.targetCreated", "Target.targetInfoChanged":
			var e struct {
				TargetInfo workerTarget `json:"targetInfo"`
			}
			if decode(ev.Params, &e) && e.TargetInfo.Type == "page" && e.TargetInfo.URL == url {
				select {
				case found <- e.TargetInfo.TargetID:
				default:
				}
			}
		case "Page.lifecycleEvent":
			var e struct {
				Name string `json:"name"`
			}
			mu.Lock()
			ours := ev.SessionID == session && session != ""
			mu.Unlock()
			if ours && decode(ev.Params, &e) && e.Name == "load" {
				once.Do(func() { close(loaded) })
			}
		}
	})
	if err := c.call(ctx, "", "Target.setDiscoverTargets", map[string]any{"discover": true}, nil); err != nil {
		return "", err
	}
	var id string
	select {
	case id = <-found:
	case <-ctx.Done():
		return "", fmt.Errorf("no page at %s: %w", url, ctx.Err())
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &att); err != nil {
		return "", err
	}
	mu.Lock()
	session = att.SessionID
	mu.Unlock()
	defer c.call(context.WithoutCancel(ctx), "", "Target.detachFromTarget", map[string]any{"sessionId": att.SessionID}, nil)
	if err := c.call(ctx, att.SessionID, "Page.enable", nil, nil); err != nil {
		return "", err
	}
	if err := c.call(ctx, att.SessionID, "Page.setLifecycleEventsEnabled", map[string]any{"enabled": true}, nil); err != nil {
		return "", err
	}
	select {
	case <-loaded:
		return id, nil
	case <-ctx.Done():
		return "", fmt.Errorf("the page at %s never fired load: %w", url, ctx.Err())
	}
}
