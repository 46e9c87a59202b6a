// Package cdp observes web pages over the Chrome DevTools Protocol: it
// implements ports.BrowserObserver (listing targets, passive page
// inspection, session timelines, WebMCP discovery, screenshots),
// ports.SourceMapFetcher and ports.BrowserScenarioRunner (an owned
// Chromium with a fresh profile).
//
// Passive capabilities attach to a browser someone else runs. They speak
// CDP over this package's own WebSocket client (internal/wsock) and JSON-RPC
// correlator (conn.go), with cdproto's typed commands; they never go
// through chromedp.NewContext, which would evaluate script in the page,
// enable extra domains and close the tab on cancel. They send only
// enable/disable, reads and Target.attachToTarget/detachFromTarget: never
// Page.navigate, Page.reload, Runtime.evaluate, Runtime.callFunctionOn,
// Input.*, Target.closeTarget, Browser.close or WebMCP.invokeTool. Event
// payloads are decoded into this package's own structs, where an absent id
// differs from a zero one.
//
// Owned scenario browsers are launched by launch.go (the Launcher seam) and
// driven with chromedp.
//
// cdp imports the standard library, rea/ports, its own subpackages and
// github.com/chromedp/{cdproto,chromedp}; never core or another adapter.
package cdp
