package cdp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/ports"
)

// The frame wait depends on whether the browser will draw the page at all:
// a hidden page in headful Chromium never gets a frame and fails fast; one
// in headless Chromium is drawn, late under load, and gets the full wait.
func TestFrameWait(t *testing.T) {
	headless := ports.BrowserInfo{UserAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36"}
	headful := ports.BrowserInfo{UserAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"}
	full := cdp.SetScreenshotFrameWait(0)
	cdp.SetScreenshotFrameWait(full)
	short := cdp.SetHiddenFrameWait(0)
	cdp.SetHiddenFrameWait(short)
	for _, c := range []struct {
		name       string
		info       ports.BrowserInfo
		visibility string
		want       time.Duration
		why        string
	}{
		{"visible", headful, "visible", full, "background"},
		{"unknown", headful, "", full, "background"},
		{"hidden, headful", headful, "hidden", short, "draws no frame"},
		{"hidden, unknown agent", ports.BrowserInfo{}, "hidden", short, "draws no frame"},
		{"hidden, headless", headless, "hidden", full, "headless Chromium still draws"},
		{"visible, headless", headless, "visible", full, "background"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			got, why := cdp.FrameWait(c.info, c.visibility)
			is.Equal(got, c.want)
			is.True(strings.Contains(why, c.why))
		})
	}
}
