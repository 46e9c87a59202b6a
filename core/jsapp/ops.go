package jsapp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"time"

	"rea/core"
	"rea/core/artifact"
)

func jsappOperations() []*core.Operation {
	return []*core.Operation{opAnalyzeJSApp(), opTraceApplicationFeature(), opTraceJSSemantics(), opCompareApplicationVersions(),
		opCompareSourceToBundle(), opCompareJSExportShapes(), opBuildReconstructionLedger(), opEvaluateReconstructionCoverage()}
}

// Default analysis deadline (§16: 300000 ms per source).
const defaultAnalysisTimeoutMS = 300000

var jsappEffects = core.Effects{MutatesSession: true, Idempotent: true}

func opAnalyzeJSApp() *core.Operation {
	return &core.Operation{
		Name:  "analyze_javascript_application",
		Title: "Analyze JavaScript Application",
		Description: "Map a JavaScript or Electron application (a directory, an ASAR archive, a ZIP archive holding one, or a single JavaScript file) without executing it: packages and entry points, " +
			"JavaScript assets and their imports, Electron processes (main, preload, renderer, utility) from BrowserWindow " +
			"webPreferences.preload, loadFile/loadURL and utilityProcess.fork, contextBridge APIs, IPC channels (paired only when one " +
			"literal handler meets literal senders), workers and service workers, literal endpoints, storage, system APIs (shell.openExternal/openPath, child_process, a computed loadURL), .node add-ons, webpack/rspack/esbuild " +
			"module tables and source maps mapped to original sources. Returns the JavaScript Application Graph with content-derived IDs, in its lean form (graph schema_version 4: nodes as rows, references are indexes into them; node, edge and observation IDs are derivable). " +
			"detail:\"summary\" retains the complete Evidence and returns its summary view; follow up with trace_application_feature " +
			"or the comparison tools using {\"kind\":\"retained-evidence\",\"evidence_id\"}.",
		Kind:    core.KindApplication,
		Effects: jsappEffects,
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "description":"Analyze a JavaScript application directory, .asar, ZIP or tar archive, or JavaScript file.",
 "properties":{
  "path":{"type":"string","minLength":1,"description":"Application directory, ASAR archive (by content, whatever its name), ZIP-based archive (zip, apk, ipa, msix, appx; ASARs inside it are read too) or tar archive (.tar, .tgz npm package, .tar.zst) holding JavaScript, or a single JavaScript file."},
  "format":{"enum":["auto","asar","directory","zip","tar"],"description":"auto (default) chooses from the content: a directory, an ASAR archive, a ZIP-based or tar archive or a JavaScript file."},
  "integrity_policy":{"enum":["fail","record-and-continue"],"description":"fail (default) stops at the first ASAR integrity mismatch; record-and-continue quarantines contradicted files and continues."},
  "detail":{"enum":["complete","summary"],"description":"complete (default) returns the whole graph; summary retains it and returns the summary view naming the retained parent."},
  "analysis_timeout_ms":{"type":"integer","minimum":1,"maximum":2147483647,"description":"Deadline for the analysis (default 300000). On expiry the error is provider_timeout with details.partial_observation."},
  "max_heap_mb":{"type":"integer","minimum":128,"maximum":16384,"description":"Accepted for compatibility with the reference's V8 worker; rea's engine is Go and bounds memory by its own limits."}
 },
 "required":["path"]}`),
		Result:   jsappResultSchema(),
		Examples: []json.RawMessage{json.RawMessage(`{"path":"."}`), json.RawMessage(`{"path":"/opt/App/resources/app.asar","detail":"summary"}`), json.RawMessage(`{"path":"/opt/App/resources/app.asar","format":"asar","integrity_policy":"record-and-continue","analysis_timeout_ms":60000}`)},
		Handler:  handleAnalyzeJSApp,
	}
}

func handleAnalyzeJSApp(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	eng := c.JavaScript()
	if eng == nil {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": no JavaScript engine is wired into this build",
			Details: map[string]any{"provider_id": "rea-js", "operation": op, "reason": "engine_missing"}}
	}
	in, err := core.Input[analyzeArgs](c)
	if err != nil {
		return nil, err
	}
	p := in.Path
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, core.InvalidRequest(op, core.Issue{Path: []any{"path"}, Reason: core.ReasonInvalidValue, Message: err.Error()})
	}
	format := in.Format
	if format == "" {
		format = "auto"
	}
	policy := in.IntegrityPolicy
	if policy == "" {
		policy = artifact.IntegrityFail
	}
	detail, timeoutMS := in.Detail, in.AnalysisTimeoutMS
	if timeoutMS == 0 {
		timeoutMS = defaultAnalysisTimeoutMS
	}
	actx, cancel := context.WithTimeout(ctx, time.Duration(timeoutMS)*time.Millisecond)
	defer cancel()
	info := eng.Info()
	prov := core.ProviderRef{ID: info.ID, Name: info.Name, Version: &info.Version}
	out, err := analyzeJSApp(actx, jsappRequest{op: op, path: abs, given: p, format: format, policy: policy, engine: eng,
		openers: c.Containers(), observe: c.Observe, room: c.LedgerRoom})
	if ctx.Err() != nil {
		return nil, ctx.Err() // cancelled by the caller: nothing is recorded
	}
	timedOut := actx.Err() != nil && errors.Is(actx.Err(), context.DeadlineExceeded)
	if err != nil {
		if timedOut {
			return nil, jsappTimeout(op, timeoutMS, map[string]any{"phase": "inventory", "input_path": abs, "format": format,
				"statistics": nil, "graph": nil, "coverage": map[string]any{"status": "unknown", "truncated": true}})
		}
		return nil, err
	}
	if timedOut || out.partial {
		return nil, jsappTimeout(op, timeoutMS, out.result)
	}
	var lims []string
	if in.MaxHeapMB != 0 {
		lims = append(lims, "max_heap_mb bounds the reference's V8 worker; rea's Go engine does not use it.")
	}
	app, err := applicationOf(out.result)
	if err != nil {
		return nil, err
	}
	obs := &core.Observation{Result: app, Subject: out.subject, Provider: &prov, Locations: out.locs, Limitations: lims}
	if detail != "summary" {
		return obs, nil
	}
	// summary: retain the complete record (recorded as detail complete
	// would be, without the detail argument) and answer its summary view.
	parentArgs := map[string]any{}
	for k, v := range c.Args {
		if k != "detail" {
			parentArgs[k] = v
		}
	}
	parent, err := c.Seal(c.Op, parentArgs, obs)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := c.Retain(parent); err != nil {
		return nil, err
	}
	view, err := c.ProjectView(parent, core.ViewSpec{Kind: "summary"})
	if err != nil {
		return nil, err
	}
	return &core.Observation{Result: view, Subject: out.subject, Provider: &prov, Links: []core.EvidenceID{parent.EvidenceID},
		Locations: out.locs, Confidence: core.ConfidenceDerived}, nil
}

func jsappTimeout(op string, ms int, partial any) *core.Error {
	return &core.Error{Code: core.CodeProviderTimeout, Message: op + ": analysis_timeout_ms elapsed before the analysis completed",
		Remediation: "Retry with a larger analysis_timeout_ms, or analyze a smaller part of the application; details.partial_observation holds what was gathered.",
		Details:     map[string]any{"operation": op, "timeout_ms": ms, "partial_observation": partial}}
}
