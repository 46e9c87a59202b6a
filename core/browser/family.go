// Package browser is rea's browser family: the eight tools that observe
// live web pages through ports.BrowserObserver (list_browser_targets,
// inspect_web_page, observe_web_session, discover_webmcp_tools,
// analyze_web_bundle, capture_web_screenshot), compare screenshots locally
// (compare_web_screenshots) and run owned browser scenarios
// (capture_browser_scenario), per BROWSER.md. The engine returns raw
// observations; this package derives keys, digests, completeness and the
// normalized results, whose shapes are the ones compare_web_captures (core/web)
// accepts: the result schemas are taken from that operation's input schema.
package browser

//go:generate go test -run ^TestGeneratedSchemasCurrent$ . -args -update

import (
	"context"
	"errors"
	"runtime"

	"rea/core"
	"rea/ports"
)

// Family is the browser family.
func Family() core.Family {
	return core.Family{Name: "browser", Types: operationTypes, Operations: []*core.Operation{
		opListTargets(), opInspectPage(), opObserveSession(), opDiscoverWebMCP(), opAnalyzeBundle(),
		opCaptureScreenshot(), opCompareScreenshots(), opCaptureScenario(),
	}}
}

// Evidence provenance (BROWSER.md §6).
const (
	scenarioProviderID      = "rea-playwright-browser-scenario"
	scenarioProviderVersion = "1"
	authorityExternal       = "external-service"
	authorityReplay         = "controlled-replay"
)

// browserUnavailable is the tool_availability hook of the passive tools.
func browserUnavailable(r *core.Registry) (string, string) {
	if r.Browser() == nil {
		return "provider_unavailable", "This build has no browser observer wired in; use a rea build with the CDP engine."
	}
	return "", ""
}

func scenarioUnavailable(r *core.Registry) (string, string) {
	if a := r.ScenarioAvailability(); !a.Available {
		return "provider_unavailable", "Install Chromium (Debian: apt-get install chromium) or pass browser.executable_path; " + a.Reason
	}
	return "", ""
}

// needBrowser returns the observer or capability_unavailable.
func needBrowser(c *core.Call) (ports.BrowserObserver, error) {
	if b := c.Browser(); b != nil {
		return b, nil
	}
	op := c.Op.Name
	return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": no browser observer is wired into this build",
		Remediation: "Use a rea build with the CDP engine (adapters/cdp).",
		Details:     map[string]any{"provider_id": "rea-cdp-browser", "operation": op, "reason": "engine_missing"}}
}

// browserErr maps an engine failure to core.Error per BROWSER.md §7.
func browserErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return &core.Error{Code: core.CodeCancelled, Message: op + ": cancelled", Err: err,
			Details: map[string]any{"operation": op, "reason": "cancelled", "cleanup": "complete"}}
	}
	be, ok := ports.AsBrowserError(err)
	if !ok {
		if errors.Is(err, context.DeadlineExceeded) {
			return &core.Error{Code: core.CodeProviderTimeout, Message: op + ": " + err.Error(), Err: err,
				Details: map[string]any{"operation": op, "reason": "timeout"}}
		}
		return &core.Error{Code: core.CodeExecutionFailure, Message: op + ": " + err.Error(), Err: err,
			Details: map[string]any{"operation": op}}
	}
	msg := op + ": " + be.Error()
	details := map[string]any{"operation": op, "reason": string(be.Code)}
	var code core.Code
	switch be.Code {
	case ports.BrowserInvalidRequest:
		field := be.Field
		path := []any{}
		if field != "" {
			path = []any{field}
		}
		return core.InvalidRequest(op, core.Issue{Path: path, Reason: core.ReasonInvalidValue, Message: be.Error()})
	case ports.BrowserPayloadLimit:
		code = core.CodeTruncated
	case ports.BrowserTargetNotFound, ports.BrowserTargetNotAllowed, ports.BrowserTargetChanged:
		code = core.CodeTargetUnavailable
	case ports.BrowserEndpointUnreachable, ports.BrowserDisconnected:
		code = core.CodeProviderUnavailable
	case ports.BrowserCancelled:
		code = core.CodeCancelled
		details["cleanup"] = "complete"
	case ports.BrowserTimeout:
		code = core.CodeProviderTimeout
	case ports.BrowserCleanupFailed:
		code = core.CodeCleanupIncomplete
		details["cleanup"] = "incomplete"
		details["resources"] = core.NonNil(be.Resources)
	default:
		code = core.CodeUnreadableOutput
	}
	if be.Cleanup == "incomplete" && code != core.CodeCleanupIncomplete {
		details["cleanup"] = "incomplete"
		details["resources"] = core.NonNil(be.Resources)
	}
	rem := browserRemediation[code]
	switch {
	case op == "capture_browser_scenario":
		// Its own advice replaces these (scenarioErr): it takes no cdp_endpoint.
	case be.Code == ports.BrowserTargetNotAllowed:
		// The target exists: listing it again would name the same id.
		rem = "Pass the target_id of a page (list_browser_targets lists them with their origins) and an allowed_origins that includes its origin, or omit allowed_origins to scope the call to the page's own origin."
	case be.Code == ports.BrowserInvalidEndpointResponse:
		rem = "cdp_endpoint did not answer as Chromium's DevTools endpoint (GET /json/version and /json/list): pass http://127.0.0.1:PORT where PORT is the browser's --remote-debugging-port (its profile's DevToolsActivePort file names it), not the page's own server."
	}
	if code == core.CodeTruncated && op == "capture_web_screenshot" {
		rem = "Call again with a larger maximum_image_bytes (at most 8388608); a viewport over 32 million pixels cannot be captured at all."
	}
	return &core.Error{Code: code, Message: msg, Err: err, Details: details, Remediation: rem}
}

// browserRemediation replaces the kernel's default advice, which is about
// binary targets and analysis providers, for the codes a browser reports.
var browserRemediation = map[core.Code]string{
	core.CodeTargetUnavailable: "Call list_browser_targets on the same cdp_endpoint and pass one of its target_id values; the page may have closed or navigated out of allowed_origins.",
	core.CodeProviderUnavailable: "Start Chromium with --remote-debugging-port=PORT (loopback) and pass http://127.0.0.1:PORT as cdp_endpoint, " +
		"or use capture_browser_scenario, which launches its own browser.",
	core.CodeProviderTimeout: "The browser did not answer in time: a tab in the background draws no frames (bring it to the front), or the page is busy; call again.",
}

// providerRef is the Evidence provider of an engine.
func providerRef(info ports.ProviderInfo) *core.ProviderRef {
	v := info.Version
	return &core.ProviderRef{ID: info.ID, Name: info.Name, Version: &v}
}

// environment is the web environment of BROWSER.md §6.
func environment(b ports.BrowserInfo, isolation string) *core.Environment {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x86_64"
	case "386":
		arch = "x86"
	}
	return &core.Environment{ID: b.Product + "@" + b.Revision, Platform: runtime.GOOS, Architecture: arch, Isolation: isolation}
}

func browserJSON(b ports.BrowserInfo) WebBrowser {
	return WebBrowser{Product: b.Product, ProtocolVersion: b.ProtocolVersion, Revision: b.Revision,
		UserAgent: b.UserAgent, JSVersion: b.JSVersion}
}

// observed wraps a normalized result as browser Evidence.
func observed(info ports.ProviderInfo, b ports.BrowserInfo, predicate string, result any, limitations []string) *core.Observation {
	return &core.Observation{Result: result, Unbound: true, Confidence: core.ConfidenceObserved,
		Predicate: predicate, Authority: authorityExternal, Provider: providerRef(info),
		Environment: environment(b, "none"), Limitations: limitations}
}

// isSet reads an optional boolean input (absent is false).
func isSet(p *bool) bool { return p != nil && *p }

// intOr reads an optional integer input, or its default.
func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// targetRef is the page a passive tool attaches to.
func targetRef(endpoint, targetID string, allowedOrigins []string) ports.BrowserTargetRef {
	return ports.BrowserTargetRef{Endpoint: endpoint, TargetID: targetID, AllowedOrigins: core.NonNil(allowedOrigins)}
}
