package cdp

import "time"

// SetScreenshotFrameWait sets how long a screenshot waits for its frame,
// for a test, and returns the wait it replaced.
func SetScreenshotFrameWait(d time.Duration) time.Duration {
	old := screenshotFrameWait
	screenshotFrameWait = d
	return old
}
