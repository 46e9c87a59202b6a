package cdp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto"
	cdpt "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"rea/ports"
)

const maxScreenshotPixels = 32_000_000

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// pngSize reads the dimensions from a PNG's IHDR; ok is false when the
// bytes do not start like a PNG.
func pngSize(b []byte) (w, h int, ok bool) {
	if len(b) < 33 || !bytes.Equal(b[:8], pngSignature) || string(b[12:16]) != "IHDR" ||
		binary.BigEndian.Uint32(b[8:12]) != 13 {
		return 0, 0, false
	}
	w, h = int(binary.BigEndian.Uint32(b[16:20])), int(binary.BigEndian.Uint32(b[20:24]))
	return w, h, w > 0 && h > 0
}

// decodeCanonicalBase64 decodes standard padded base64 and requires the
// input to be exactly what encoding the result gives back.
func decodeCanonicalBase64(s string) ([]byte, bool) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || base64.StdEncoding.EncodeToString(b) != s {
		return nil, false
	}
	return b, true
}

// screenshotFrameWait bounds the wait for the frame a screenshot captures;
// hiddenFrameWait is the wait for a page that reports itself hidden in a
// browser that draws no frame for it (see frameWait).
var (
	screenshotFrameWait = 15 * time.Second
	hiddenFrameWait     = 3 * time.Second
)

// frameWait is how long a screenshot waits for the next frame Chromium
// draws for a page of the given document.visibilityState, and what to tell
// the caller when none comes. Headful Chromium draws no frame for a tab in
// the background or a minimized window, however long one waits, so a page
// that says it is hidden fails fast there. Headless Chromium still draws a
// hidden page, only late on a loaded machine (TestLiveScreenshotReadsVisibility
// once got no frame within 3 s during a full suite run), so it gets the full
// wait, as a visible page does; so does a browser whose mode is unknown, as
// failing a frame that would have come is worse than waiting for it.
func frameWait(mode browserMode, visibility string) (time.Duration, string) {
	switch {
	case visibility != "hidden":
		return screenshotFrameWait, "Chromium draws none for a tab in the background"
	case mode == modeHeadless:
		return screenshotFrameWait, `document.visibilityState is "hidden": headless Chromium still draws such a tab, but late when the machine is loaded`
	case mode == modeUnknown:
		return screenshotFrameWait, `document.visibilityState is "hidden": the tab is in the background or its window is minimized; a headful Chromium draws no frame for it, a headless one may draw it late or not at all`
	default:
		return hiddenFrameWait, `document.visibilityState is "hidden": the tab is in the background or its window is minimized, and Chromium draws no frame for it`
	}
}

// browserMode is whether a browser draws without a display.
type browserMode int

const (
	modeUnknown browserMode = iota
	modeHeadless
	modeHeadful
)

// headlessMode tells a headless browser from a headful one by what rea
// passed it or what it reports of itself, never by its user agent, which
// --user-agent or a page's override rewrites (and new headless Chromium
// reports its product as plain Chrome/N): a browser this process launched
// has --headless=new; else Browser.getBrowserCommandLine, which Chromium
// answers only under --enable-automation (as Puppeteer and Playwright
// launch it), lists its switches. Neither → unknown.
func headlessMode(ctx context.Context, a *attachment) browserMode {
	if _, ok := launchedHeadless.Load(a.origin); ok {
		return modeHeadless
	}
	s := a.browser
	if !a.flat {
		s = a.page
	}
	var res struct {
		Arguments []string `json:"arguments"`
	}
	if s.c.call(ctx, s.id, "Browser.getBrowserCommandLine", nil, &res) != nil || len(res.Arguments) == 0 {
		return modeUnknown
	}
	for _, arg := range res.Arguments {
		if arg == "--headless" || strings.HasPrefix(arg, "--headless=") {
			return modeHeadless
		}
	}
	return modeHeadful
}

// visibility reads the page's document.visibilityState without running page
// script: the document node's remote object (DOM.resolveNode) and its
// properties, where V8 reports the values of side-effect-free native
// getters such as visibilityState. Anything else ("", on any failure, or a
// page that replaced the getter with its own) means unknown.
func visibility(ctx context.Context, a *attachment) string {
	depth := int64(0)
	var doc struct {
		Root *struct {
			BackendNodeID int64 `json:"backendNodeId"`
		} `json:"root"`
	}
	if a.page.c.call(ctx, a.page.id, dom.CommandGetDocument, dom.GetDocumentParams{Depth: &depth}, &doc) != nil || doc.Root == nil {
		return ""
	}
	var obj struct {
		Object struct {
			ObjectID string `json:"objectId"`
		} `json:"object"`
	}
	if a.page.c.call(ctx, a.page.id, dom.CommandResolveNode, dom.ResolveNodeParams{BackendNodeID: cdpt.BackendNodeID(doc.Root.BackendNodeID)}, &obj) != nil || obj.Object.ObjectID == "" {
		return ""
	}
	defer a.page.c.call(context.WithoutCancel(ctx), a.page.id, runtime.CommandReleaseObject, runtime.ReleaseObjectParams{ObjectID: runtime.RemoteObjectID(obj.Object.ObjectID)}, nil)
	var props struct {
		Result []struct {
			Name  string `json:"name"`
			Value *struct {
				Value json.RawMessage `json:"value"`
			} `json:"value"`
		} `json:"result"`
	}
	if a.page.c.call(ctx, a.page.id, runtime.CommandGetProperties, runtime.GetPropertiesParams{ObjectID: runtime.RemoteObjectID(obj.Object.ObjectID)}, &props) != nil {
		return ""
	}
	for _, p := range props.Result {
		var v string
		if p.Name == "visibilityState" && p.Value != nil && json.Unmarshal(p.Value.Value, &v) == nil {
			return v
		}
	}
	return ""
}

// CaptureScreenshot captures the viewport (never beyond it, so a very tall
// page still gives a viewport-sized image) as PNG.
func (e *Engine) CaptureScreenshot(ctx context.Context, req ports.BrowserScreenshotRequest) (*ports.BrowserScreenshot, error) {
	if req.MaxImageBytes == 0 {
		req.MaxImageBytes = 4 << 20
	}
	if req.MaxImageBytes < 1 || req.MaxImageBytes > 8<<20 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "maximum_image_bytes", Msg: "maximum_image_bytes must be 1..8388608"}
	}
	a, err := e.attach(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	defer a.close(ctx)
	var mu sync.Mutex
	navigated, left := false, false
	a.c.setListener(func(ev event) {
		if ev.SessionID != a.page.id || ev.Method != cdproto.EventPageFrameNavigated {
			return
		}
		var f evFrameNavigated
		if decode(ev.Params, &f) && f.Frame != nil && f.Frame.ParentID == "" {
			mu.Lock()
			navigated = true
			if a.scope.reason(f.Frame.URL+f.Frame.URLFragment) == "disallowed_origin" {
				left = true
			}
			mu.Unlock()
		}
	})
	if err := a.enable(ctx, "Page", nil); err != nil {
		return nil, err
	}
	ft, err := e.gate(ctx, a)
	if err != nil {
		return nil, err
	}
	var res struct {
		Data string `json:"data"`
	}
	fromSurface, beyond := true, false
	// Chromium answers captureScreenshot with the next frame it draws, and
	// headful Chromium draws none for a tab in the background: the wait is
	// bounded, and short for a hidden page such a browser will not draw.
	wait, why := frameWait(headlessMode(ctx, a), visibility(ctx, a))
	cctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := a.page.c.call(cctx, a.page.id, page.CommandCaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatPng, FromSurface: &fromSurface, CaptureBeyondViewport: &beyond}, &res); err != nil {
		if ctx.Err() == nil && cctx.Err() != nil {
			return nil, &ports.BrowserError{Code: ports.BrowserTimeout, Msg: fmt.Sprintf("the page drew no frame to capture within %s; "+
				"%s: bring the tab to the front and call again", wait, why)}
		}
		return nil, err
	}
	captured := time.Now().UTC()
	if len(res.Data) > base64.StdEncoding.EncodedLen(req.MaxImageBytes) {
		return nil, &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: "the screenshot is over maximum_image_bytes"}
	}
	img, ok := decodeCanonicalBase64(res.Data)
	if !ok {
		return nil, &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: "the screenshot data is not canonical base64"}
	}
	if len(img) > req.MaxImageBytes {
		return nil, &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: "the screenshot is over maximum_image_bytes"}
	}
	w, h, ok := pngSize(img)
	if !ok {
		return nil, &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "the screenshot is not a PNG"}
	}
	if int64(w)*int64(h) > maxScreenshotPixels {
		return nil, &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: "the screenshot is over 32,000,000 pixels"}
	}
	ft2, err := a.frameTree(ctx)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	u2 := frameURL(ft2.Frame)
	if left || a.scope.reason(u2) == "disallowed_origin" {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the page navigated outside the allowed origins"}
	}
	if navigated || !sameDocument(ft.Frame, ft2.Frame) {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetChanged, Msg: "the main frame navigated during the screenshot"}
	}
	return &ports.BrowserScreenshot{Browser: a.info, Target: a.target, CapturedAt: captured, Width: w, Height: h, PNG: img}, nil
}
