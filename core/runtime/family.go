// Package runtime is rea's running-JavaScript family (BROWSER.md "JS
// runtime, V8 Inspector", "Electron" and reconcile_javascript_runtime): it
// lists and observes Node and Electron processes through
// ports.JavaScriptRuntimeObserver (list_javascript_runtime_targets,
// observe_javascript_runtime, list_electron_targets, inspect_electron_page,
// capture_electron_scenario) and reconciles the static application graph
// of analyze_javascript_application with those observations
// (reconcile_javascript_runtime, no I/O). The engine returns raw
// observations; this package derives keys, digests and Evidence.
package runtime

import (
	"context"
	"encoding/json"
	"errors"
	goruntime "runtime"

	"rea/core"
	"rea/ports"
)

// Family is the running-JavaScript family.
func Family() core.Family {
	return core.Family{Name: "runtime", Types: operationTypes, Operations: []*core.Operation{
		opListRuntimeTargets(), opObserveRuntime(), opListElectronTargets(), opInspectElectronPage(),
		opCaptureElectronScenario(), opReconcile(),
	}}
}

// Evidence provenance (BROWSER.md §6).
const (
	v8ProviderID             = "rea-v8-inspector"
	electronProviderID       = "rea-cdp-electron"
	electronActiveProviderID = "rea-playwright-electron-active"
	authorityExternal        = "external-service"
	authorityReplay          = "controlled-replay"
	authorityInference       = "analyst-inference"
)

var passiveEffects = core.Effects{AccessesNetwork: true, Idempotent: true, MutatesSession: true}

func ex(s ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(s))
	for i, v := range s {
		out[i] = json.RawMessage(v)
	}
	return out
}

// runtimeUnavailable is the tool_availability hook of the engine tools.
func runtimeUnavailable(r *core.Registry) (string, string) {
	if r.Runtime() == nil {
		return "provider_unavailable", "This build has no JavaScript runtime observer wired in; use a rea build with the CDP engine."
	}
	return "", ""
}

// needRuntime returns the observer or capability_unavailable.
func needRuntime(c *core.Call, providerID string) (ports.JavaScriptRuntimeObserver, error) {
	if r := c.Runtime(); r != nil {
		return r, nil
	}
	op := c.Op.Name
	return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": no JavaScript runtime observer is wired into this build",
		Remediation: "Use a rea build with the CDP engine (adapters/cdp).",
		Details:     map[string]any{"provider_id": providerID, "operation": op, "reason": "engine_missing"}}
}

// runtimeErr maps an engine failure to core.Error per BROWSER.md §7.
func runtimeErr(op string, err error) error {
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
	details := map[string]any{"operation": op, "reason": string(be.Code)}
	var code core.Code
	switch be.Code {
	case ports.BrowserInvalidRequest:
		path := []any{}
		if be.Field != "" {
			path = []any{be.Field}
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
	ce := &core.Error{Code: code, Message: op + ": " + be.Error(), Err: err, Details: details}
	switch code {
	case core.CodeTargetUnavailable:
		ce.Remediation = "Check the target id or path and its scope: list the targets again, and keep files inside allowed_file_roots or application_root."
		if op == "capture_electron_scenario" { // it has no targets to list: its paths are at fault
			ce.Remediation = "Check executable_path (an Electron executable; npm install electron puts one at node_modules/electron/dist/electron) " +
				"and application_path (a directory or .asar inside application_root), then call again."
		}
		if op == "observe_javascript_runtime" && be.Code == ports.BrowserTargetNotAllowed {
			// Refused for its scope, an attached client or the kind the
			// caller declared: say which kinds fit which target.
			ce.Remediation = "List the targets again (list_javascript_runtime_targets) and pass one in scope and not attached, with " +
				"runtime_kind node or electron-main for a node target, electron-preload or electron-renderer for a page (its protocol_type), or no runtime_kind."
		}
	case core.CodeProviderTimeout:
		if op == "capture_electron_scenario" { // the owned app or its hook did not answer in time
			ce.Remediation = "Pass a larger limits.duration_ms (at most 60000) or limits.action_ms (at most 5000); if the hook never connected, " +
				"check that executable_path is an Electron executable that starts application_path (run it by hand to see its output), then call again."
		}
	case core.CodeProviderUnavailable:
		ce.Remediation = "Start the runtime with its inspector on loopback (node --inspect=127.0.0.1:PORT, or an Electron app with --remote-debugging-port=PORT) " +
			"and pass that http://127.0.0.1:PORT endpoint, or use capture_electron_scenario, which launches the app itself."
		if op == "capture_electron_scenario" { // the app it launched went away
			ce.Remediation = "Check that executable_path is an Electron executable (node is not) and that it starts application_path " +
				"(run it by hand to see its output), then call again."
		}
	}
	return ce
}

func arch() string {
	switch a := goruntime.GOARCH; a {
	case "amd64":
		return "x86_64"
	case "386":
		return "x86"
	default:
		return a
	}
}

// observed wraps a normalized result as runtime Evidence.
func observed(providerID, version, envID, predicate, authority string, result any, limitations []string) *core.Observation {
	v := version
	return &core.Observation{Result: result, Unbound: true, Confidence: core.ConfidenceObserved,
		Predicate: predicate, Authority: authority, Provider: &core.ProviderRef{ID: providerID, Name: providerID, Version: &v},
		Environment: &core.Environment{ID: envID, Platform: goruntime.GOOS, Architecture: arch(), Isolation: "none"},
		Limitations: limitations}
}

// Shared input property declarations.
const (
	propInspector = `"inspector_endpoint":{"type":"string","minLength":1,"maxLength":2048,"description":"V8 inspector HTTP endpoint on loopback (node --inspect=127.0.0.1:PORT): http://127.0.0.1:PORT or http://[::1]:PORT (no localhost, path, query or userinfo)."}`
	propCDP       = `"cdp_endpoint":{"type":"string","minLength":1,"maxLength":2048,"description":"CDP HTTP endpoint of an Electron application on loopback (--remote-debugging-port): http://127.0.0.1:PORT or http://[::1]:PORT."}`
	propTarget    = `"target_id":{"type":"string","minLength":1,"maxLength":256,"description":"Target id from the matching list tool."}`
	propRoots     = `"allowed_file_roots":{"type":"array","maxItems":32,"items":{"type":"string","minLength":1,"maxLength":4096},"description":"Absolute directories whose files are in scope (after realpath); absent: every verifiable file."}`
	propOrigins   = `"allowed_origins":{"type":"array","maxItems":32,"items":{"type":"string","minLength":1,"maxLength":2048},"description":"Exact http(s) origins in scope for URL locations; absent: every http(s) origin."}`
	propPage      = `"offset":{"type":"integer","minimum":0,"default":0,"description":"Targets to skip."},
"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100,"description":"Targets to return."}`
)

// page cuts a sorted list to offset/limit (nil: 0 and 100).
func page[T any](items []T, offset, limit *int) TargetPage[T] {
	off, lim := intOr(offset, 0), intOr(limit, 100)
	total := len(items)
	if off > total {
		off = total
	}
	end := min(total, off+lim)
	var next *int
	if end < total {
		next = &end
	}
	return TargetPage[T]{Items: items[off:end], Total: total, Offset: off, Limit: lim, NextOffset: next}
}

// intOr is an optional integer input, d when absent.
func intOr(p *int, d int) int {
	if p == nil {
		return d
	}
	return *p
}

// strPtr is a nullable string: nil for "".
func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// intPtr is a nullable id: nil for 0 (unknown).
func intPtr(v int) *int {
	if v == 0 {
		return nil
	}
	return &v
}
