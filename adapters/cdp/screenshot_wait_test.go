package cdp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
)

// The frame wait depends on whether the browser will draw the page at all:
// a hidden page in headful Chromium never gets a frame and fails fast; one
// in headless Chromium is drawn, late under load, and gets the full wait,
// as one in a browser of unknown mode does.
func TestFrameWait(t *testing.T) {
	headless, headful := "headless", "headful"
	full := cdp.SetScreenshotFrameWait(0)
	cdp.SetScreenshotFrameWait(full)
	short := cdp.SetHiddenFrameWait(0)
	cdp.SetHiddenFrameWait(short)
	for _, c := range []struct {
		name       string
		mode       string
		visibility string
		want       time.Duration
		why        string
	}{
		{"visible", headful, "visible", full, "background"},
		{"unknown", headful, "", full, "background"},
		{"hidden, headful", headful, "hidden", short, "draws no frame"},
		{"hidden, unknown mode", "", "hidden", full, "a headless one may draw it late or not at all"},
		{"hidden, headless", headless, "hidden", full, "headless Chromium still draws"},
		{"visible, headless", headless, "visible", full, "background"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			got, why := cdp.FrameWait(c.mode, c.visibility)
			is.Equal(got, c.want)
			is.True(strings.Contains(why, c.why))
		})
	}
}
