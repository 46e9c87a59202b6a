package cdp

import (
	"context"
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
