package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"rea/core"
	"rea/ports"
)

const browserInfoSchema = `{"type":"object","required":["product","protocol_version","revision","user_agent","js_version"],"properties":{"product":{"type":"string"},"protocol_version":{"type":"string"},"revision":{"type":"string"},"user_agent":{"type":"string"},"js_version":{"type":"string"}}}`

func browserJSON(b ports.BrowserInfo) map[string]any {
	return map[string]any{"product": b.Product, "protocol_version": b.ProtocolVersion, "revision": b.Revision, "user_agent": b.UserAgent, "js_version": b.JSVersion}
}

func browserEnvID(b ports.BrowserInfo) string { return b.Product + "@" + b.Revision }

// ---- list_electron_targets

func opListElectronTargets() *core.Operation {
	return &core.Operation{
		Name:  "list_electron_targets",
		Title: "List Electron Targets",
		Description: "List the page targets of an Electron application's loopback CDP endpoint without attaching: file: pages that pass " +
			"the file gate (no %2f or %5c, no NUL, an existing realpath, under allowed_file_roots when given), sorted by target_id, with " +
			"counts of the targets left out (not a page, outside the roots, unsupported URL, no validated WebSocket).",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input:   core.InputSchema([]string{"cdp_endpoint"}, propCDP, propRoots, propPage),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["schema_version","browser","targets","excluded","limitations"],"properties":{
 "schema_version":{"const":1},"browser":` + browserInfoSchema + `,
 "targets":{"type":"object","required":["items","total","offset","limit","next_offset"],"properties":{
   "items":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["target_id","type","title","file_path","attached"],
     "properties":{"target_id":{"type":"string"},"type":{"type":"string"},"title":{"type":"string"},"file_path":{"type":"string"},"attached":{"type":"boolean"}}}},
   "total":{"type":"integer"},"offset":{"type":"integer"},"limit":{"type":"integer"},"next_offset":{"type":["integer","null"]}}},
 "excluded":{"type":"object","additionalProperties":false,"required":["non_page","outside_root","unsupported_url","unconnectable"],"properties":{
   "non_page":{"type":"integer"},"outside_root":{"type":"integer"},"unsupported_url":{"type":"integer"},"unconnectable":{"type":"integer"}}},
 "limitations":{"type":"array","items":{"type":"string"}}}}`),
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222"}`, `{"cdp_endpoint":"http://127.0.0.1:9222","allowed_file_roots":["/opt/App/resources/app"]}`),
		Unavailable: runtimeUnavailable,
		Handler:     handleListElectronTargets,
	}
}

func handleListElectronTargets(ctx context.Context, c *core.Call) (any, error) {
	r, err := needRuntime(c, electronProviderID)
	if err != nil {
		return nil, err
	}
	ep, _ := core.StringArg(c.Args, "cdp_endpoint")
	c.Observe("listing Electron targets")
	l, err := r.ListElectronTargets(ctx, ports.ElectronListRequest{Endpoint: ep, AllowedFileRoots: strArgs(c.Args, "allowed_file_roots")})
	if err != nil {
		return nil, runtimeErr(c.Op.Name, err)
	}
	items := make([]any, len(l.Targets))
	for i, t := range l.Targets {
		items[i] = map[string]any{"target_id": t.TargetID, "type": t.Type, "title": t.Title, "file_path": t.FilePath, "attached": t.Attached}
	}
	kept, pg := page(items, c.Args)
	pg["items"] = kept
	res := map[string]any{"schema_version": 1, "browser": browserJSON(l.Browser), "targets": pg,
		"excluded": map[string]any{"non_page": l.Excluded.NonPage, "outside_root": l.Excluded.OutsideRoot, "unsupported_url": l.Excluded.UnsupportedURL,
			"unconnectable": l.Excluded.Unconnectable},
		"limitations": core.NonNil(l.Limitations)}
	return observed(electronProviderID, "1", browserEnvID(l.Browser), "rea.electron-target-list/v1", authorityExternal, res, nil), nil
}

// ---- inspect_electron_page

func opInspectElectronPage() *core.Operation {
	return &core.Operation{
		Name:  "inspect_electron_page",
		Title: "Inspect Electron Page",
		Description: "Attach to one file-gated Electron page target passively (no navigation, evaluation or input) and capture over an " +
			"observation window: frames (breadth first, ungated subtrees excluded), value-free DOM structure, parsed scripts with " +
			"their content hashes (optionally sources), resources and workers of gated files, with section completeness. No network, " +
			"accessibility or storage. The result is valid input to reconcile_javascript_runtime.",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input: core.InputSchema([]string{"cdp_endpoint", "target_id"}, propCDP, propTarget, propRoots,
			`"observation_ms":{"type":"integer","minimum":0,"maximum":10000,"default":100,"description":"Observation window in milliseconds."}`,
			`"include_script_sources":{"type":"boolean","default":false,"description":"Keep script sources (1 MiB each, 4 MiB in all) as artifacts."}`,
			`"limits":{"type":"object","additionalProperties":false,"properties":{"max_frames":{"type":"integer","minimum":1,"maximum":10000,"default":200},
  "max_dom_nodes":{"type":"integer","minimum":1,"maximum":100000,"default":2000},"max_scripts":{"type":"integer","minimum":1,"maximum":100000,"default":500},
  "max_resources":{"type":"integer","minimum":1,"maximum":100000,"default":2000},"max_workers":{"type":"integer","minimum":1,"maximum":10000,"default":500}}}`),
		Result:      electronInspectSchema,
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE"}`, `{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE","allowed_file_roots":["/opt/App/resources/app"],"include_script_sources":true}`),
		Unavailable: runtimeUnavailable,
		Handler:     handleInspectElectronPage,
	}
}

var electronInspectSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["schema_version","browser","target","capture_window","completeness","frames","dom","scripts","resources","workers","limitations"],
"properties":{
 "schema_version":{"const":1},"browser":` + browserInfoSchema + `,
 "target":{"type":"object","required":["target_id","type","title","file_path","attached"]},
 "capture_window":{"type":"object","required":["started_at","ended_at","observation_ms"]},
 "completeness":{"type":"object","required":["status","excluded","truncated","unavailable"],"properties":{"status":{"enum":["complete","partial"]},
   "excluded":{"type":"array","items":{"type":"object","required":["section","reason","count"]}},"truncated":{"type":"array","items":{"type":"string"}},
   "unavailable":{"type":"array","items":{"type":"object","required":["section","reason"]}}}},
 "frames":{"type":"array","items":{"type":"object","required":["frame_id","parent_frame_id","file_path"]}},
 "dom":{"type":"object","required":["total_nodes","nodes"]},
 "scripts":{"type":"object","required":["total","items"],"properties":{"total":{"type":"integer"},"items":{"type":"array","items":{"type":"object","required":["script_key","frame_id","file_path","cdp_hash","length","is_module","language","source"],
   "properties":{"script_key":{"type":"string","pattern":"^electron_script_[0-9a-f]{64}$"},"frame_id":{"type":["string","null"]},"file_path":{"type":"string"},
     "cdp_hash":{"type":"string"},"length":{"type":"integer","minimum":0},"is_module":{"type":"boolean"},"language":{"type":["string","null"]},
     "source":{"type":["object","null"],"required":["uri","sha256","bytes","media_type","text"]}}}}}},
 "resources":{"type":"array","items":{"type":"object","required":["resource_key","frame_id","file_path","type","mime_type","content_size"]}},
 "workers":{"type":"array","items":{"type":"object","required":["target_id","type","file_path"]}},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

func handleInspectElectronPage(ctx context.Context, c *core.Call) (any, error) {
	r, err := needRuntime(c, electronProviderID)
	if err != nil {
		return nil, err
	}
	ep, _ := core.StringArg(c.Args, "cdp_endpoint")
	id, _ := core.StringArg(c.Args, "target_id")
	lm, _ := c.Args["limits"].(map[string]any)
	req := ports.ElectronInspectRequest{Endpoint: ep, TargetID: id, AllowedFileRoots: strArgs(c.Args, "allowed_file_roots"),
		ObservationMS: core.IntArg(c.Args, "observation_ms", 100), IncludeScriptSources: boolArg(c.Args, "include_script_sources"),
		Limits: ports.BrowserLimits{MaxFrames: core.IntArg(lm, "max_frames", 0), MaxDOMNodes: core.IntArg(lm, "max_dom_nodes", 0),
			MaxScripts: core.IntArg(lm, "max_scripts", 0), MaxResources: core.IntArg(lm, "max_resources", 0), MaxWorkers: core.IntArg(lm, "max_workers", 0)}}
	c.Observe(fmt.Sprintf("capturing the Electron page over %d ms", req.ObservationMS))
	pc, err := r.InspectElectronPage(ctx, req)
	if err != nil {
		return nil, runtimeErr(c.Op.Name, err)
	}
	return observed(electronProviderID, "1", browserEnvID(pc.Browser), "rea.electron-page-inspection/v1", authorityExternal, normalizeElectronPage(pc), nil), nil
}

func normalizeElectronPage(pc *ports.ElectronPageCapture) map[string]any {
	frames := make([]any, len(pc.Frames))
	for i, f := range pc.Frames {
		frames[i] = map[string]any{"frame_id": f.FrameID, "parent_frame_id": nullable(f.ParentFrameID), "file_path": f.FilePath}
	}
	nodes := make([]any, len(pc.DOM.Nodes))
	for i, n := range pc.DOM.Nodes {
		nodes[i] = map[string]any{"index": n.Index, "parent_index": n.ParentIndex, "node_type": n.NodeType, "node_name": n.NodeName,
			"node_value_length": n.NodeValueLength, "attribute_names": core.NonNil(n.AttributeNames)}
	}
	scripts := make([]map[string]any, 0, len(pc.Scripts))
	for _, s := range pc.Scripts {
		ident := map[string]any{"frame_id": nullable(s.FrameID), "file_path": s.FilePath, "cdp_hash": s.CDPHash, "length": s.Length, "is_module": s.IsModule, "language": nullable(s.Language)}
		m := map[string]any{"script_key": "electron_script_" + core.MustDigest(ident)}
		for k, v := range ident {
			m[k] = v
		}
		m["source"] = nil
		if s.Source != nil {
			sum := sha256.Sum256(s.Source)
			d := hex.EncodeToString(sum[:])
			text := string(s.Source)
			if !utf8.ValidString(text) {
				text = strings.ToValidUTF8(text, "\uFFFD")
			}
			m["source"] = map[string]any{"uri": "rea://electron-content/sha256/" + d, "sha256": d, "bytes": len(s.Source), "media_type": "text/javascript", "text": text}
		}
		scripts = append(scripts, m)
	}
	slices.SortFunc(scripts, func(a, b map[string]any) int {
		return strings.Compare(a["script_key"].(string), b["script_key"].(string))
	})
	scripts = slices.CompactFunc(scripts, func(a, b map[string]any) bool { return a["script_key"] == b["script_key"] })
	resources := make([]map[string]any, 0, len(pc.Resources))
	for _, r := range pc.Resources {
		var size any
		if r.ContentSize != nil {
			size = *r.ContentSize
		}
		ident := map[string]any{"file_path": r.FilePath, "type": r.Type, "mime_type": r.MimeType, "content_size": size}
		m := map[string]any{"resource_key": "electron_resource_" + core.MustDigest(ident), "frame_id": r.FrameID}
		for k, v := range ident {
			m[k] = v
		}
		resources = append(resources, m)
	}
	slices.SortFunc(resources, func(a, b map[string]any) int {
		return strings.Compare(a["resource_key"].(string), b["resource_key"].(string))
	})
	workers := make([]any, len(pc.Workers))
	for i, w := range pc.Workers {
		workers[i] = map[string]any{"target_id": w.TargetID, "type": w.Type, "file_path": w.FilePath}
	}
	comp := pc.Completeness
	excluded := make([]any, len(comp.Excluded))
	for i, x := range comp.Excluded {
		excluded[i] = map[string]any{"section": x.Section, "reason": x.Reason, "count": x.Count}
	}
	unavailable := make([]any, len(comp.Unavailable))
	for i, u := range comp.Unavailable {
		unavailable[i] = map[string]any{"section": u.Section, "reason": u.Reason}
	}
	status := "complete"
	if len(comp.Truncated) > 0 || len(comp.Unavailable) > 0 {
		status = "partial"
	}
	return map[string]any{
		"schema_version": 1, "browser": browserJSON(pc.Browser),
		"target":         map[string]any{"target_id": pc.Target.TargetID, "type": pc.Target.Type, "title": pc.Target.Title, "file_path": pc.Target.FilePath, "attached": pc.Target.Attached},
		"capture_window": map[string]any{"started_at": pc.CaptureWindow.StartedAt.Format(time.RFC3339Nano), "ended_at": pc.CaptureWindow.EndedAt.Format(time.RFC3339Nano), "observation_ms": pc.CaptureWindow.ObservationMS},
		"completeness":   map[string]any{"status": status, "excluded": excluded, "truncated": core.NonNil(comp.Truncated), "unavailable": unavailable},
		"frames":         frames,
		"dom":            map[string]any{"total_nodes": pc.DOM.TotalNodes, "nodes": nodes},
		"scripts":        map[string]any{"total": pc.ScriptsTotal, "items": scripts},
		"resources":      resources,
		"workers":        workers,
		"limitations":    core.NonNil(pc.Limitations),
	}
}

// ---- capture_electron_scenario

var scenarioEffects = core.Effects{AccessesNetwork: true, ChangesUIState: true, LaunchesProcess: true, MayDiscardData: true,
	MutatesSession: true, MutatesTarget: true, WritesFilesystem: true, ExecutesForeignCode: true}

func opCaptureElectronScenario() *core.Operation {
	return &core.Operation{
		Name:  "capture_electron_scenario",
		Title: "Capture Electron Scenario",
		Description: "Launch an Electron application (an Electron executable plus an application directory or ASAR inside " +
			"application_root) as a provider-owned process group with a recording hook, run scripted actions (click, wait, " +
			"renderer-reload, renderer-crash, deep-link) with per-action deadlines, and return windows, processes, IPC traffic " +
			"(channels and argument shapes, never values), the effects the hook blocked (shell, navigation, permissions, downloads, " +
			"popups, updater, OS) and a timeline. Every owned process and temporary directory is removed afterwards; failing that the " +
			"call fails with cleanup_incomplete.",
		Kind:    core.KindApplication,
		Effects: scenarioEffects,
		Input: core.InputSchema([]string{"schema_version", "executable_path", "application_path"},
			`"schema_version":{"const":1,"description":"Input schema version."}`,
			`"executable_path":{"type":"string","minLength":1,"maxLength":4096,"description":"Absolute path of the Electron executable."}`,
			`"application_path":{"type":"string","minLength":1,"maxLength":4096,"description":"Absolute path of the application directory or .asar."}`,
			`"application_root":{"type":"string","minLength":1,"maxLength":4096,"description":"Absolute directory the application must lie in (after realpath); default: the application's parent directory."}`,
			`"args":{"type":"array","maxItems":32,"items":{"type":"string","maxLength":4096},"description":"Extra arguments for the application."}`,
			`"actions":{"type":"array","maxItems":100,"description":"Scripted actions, run in order.","items":{"type":"object","additionalProperties":false,"required":["step_id","kind"],"properties":{
  "step_id":{"type":"string","minLength":1,"maxLength":128},"kind":{"enum":["click","wait","renderer-reload","renderer-crash","deep-link"]},
  "selector":{"type":"string","minLength":1,"maxLength":1024},"window_index":{"type":"integer","minimum":0,"maximum":31,"default":0},
  "duration_ms":{"type":"integer","minimum":0,"maximum":10000},"delivery":{"enum":["open-url","second-instance"]},"url":{"type":"string","minLength":1,"maxLength":4096}}}}`,
			`"limits":{"type":"object","additionalProperties":false,"properties":{"duration_ms":{"type":"integer","minimum":1000,"maximum":60000,"default":60000},
  "action_ms":{"type":"integer","minimum":100,"maximum":5000,"default":5000},"ipc_events":{"type":"integer","minimum":1,"maximum":2000,"default":2000},
  "runtime_events":{"type":"integer","minimum":1,"maximum":5000,"default":5000},"processes":{"type":"integer","minimum":1,"maximum":32,"default":32},
  "windows":{"type":"integer","minimum":1,"maximum":32,"default":32}}}`),
		Result:      scenarioSchema,
		Examples:    ex(`{"schema_version":1,"executable_path":"/opt/electron/electron","application_path":"/srv/app","actions":[{"step_id":"open","kind":"click","selector":"#open"}]}`),
		Unavailable: runtimeUnavailable,
		Handler:     handleCaptureElectronScenario,
	}
}

const eventSchema = `{"type":"object","required":["sequence","family","kind","phase","channel","direction","argument_shapes","role","pid","window_id","web_contents_id","elapsed_ms"],"properties":{"sequence":{"type":"integer"},"family":{"type":"string"},"kind":{"type":"string"},"phase":{"type":"string"},"channel":{"type":["string","null"]},"direction":{"type":["string","null"]},"argument_shapes":{"type":"array","maxItems":32,"items":{"type":"string"}},"role":{"type":["string","null"],"description":"The process that saw the event: main or renderer."},"pid":{"type":["integer","null"]},"window_id":{"type":["integer","null"]},"web_contents_id":{"type":["integer","null"]},"elapsed_ms":{"type":"integer"}}}`

var scenarioSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["schema_version","application","actions","windows","processes","renderers","ipc","timeline","coverage","limitations"],
"properties":{
 "schema_version":{"const":1},
 "application":{"type":"object","required":["executable_path","application_path","electron_version","process_ownership","cleanup"]},
 "actions":{"type":"array","items":{"type":"object","required":["step_id","kind","status","error","elapsed_ms"]}},
 "windows":{"type":"array","items":{"type":"object","required":["window_id","web_contents_id","url","title","visible","destroyed","crashed"]}},
 "processes":{"type":"object","required":["items","truncated"]},
 "renderers":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["web_contents_id","window_id","pid","loaded","attached","crashed"],"properties":{
   "web_contents_id":{"type":"integer"},"window_id":{"type":["integer","null"]},"pid":{"type":["integer","null"]},"loaded":{"type":"boolean"},"attached":{"type":"boolean","description":"The hook's renderer half reported from this renderer since its last load."},"crashed":{"type":"boolean"}}}},
 "ipc":{"type":"object","required":["events","observed","retained","truncated"],"properties":{"events":{"type":"array","items":` + eventSchema + `},"observed":{"type":"integer"},"retained":{"type":"integer"},"truncated":{"type":"boolean"}}},
 "timeline":{"type":"object","required":["events","observed","retained","truncated"],"properties":{"events":{"type":"array","items":` + eventSchema + `},"observed":{"type":"integer"},"retained":{"type":"integer"},"truncated":{"type":"boolean"}}},
 "coverage":{"type":"object","required":["status","observed_event_families","unavailable_event_families","observed_roles","pre_capture_activity"],
   "properties":{"status":{"enum":["complete","partial_attach","capture_truncated","hook_conflict","target_exited","cleanup_failed"]},
     "observed_event_families":{"type":"array","items":{"type":"string"}},"unavailable_event_families":{"type":"array","items":{"type":"string"}},
     "observed_roles":{"type":"array","items":{"type":"string"}},"pre_capture_activity":{"type":"string"}}},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

func handleCaptureElectronScenario(ctx context.Context, c *core.Call) (any, error) {
	r, err := needRuntime(c, electronActiveProviderID)
	if err != nil {
		return nil, err
	}
	req := ports.ElectronScenarioRequest{RunID: c.RunID()}
	req.ExecutablePath, _ = core.StringArg(c.Args, "executable_path")
	req.ApplicationPath, _ = core.StringArg(c.Args, "application_path")
	req.ApplicationRoot, _ = core.StringArg(c.Args, "application_root")
	req.Args = strArgs(c.Args, "args")
	acts, _ := c.Args["actions"].([]any)
	for _, a := range acts {
		m, _ := a.(map[string]any)
		act := ports.ElectronAction{StepID: str(m["step_id"]), Kind: str(m["kind"]), Selector: str(m["selector"]), Delivery: str(m["delivery"]), URL: str(m["url"]),
			WindowIndex: core.IntArg(m, "window_index", 0), DurationMS: core.IntArg(m, "duration_ms", 0)}
		if act.Kind == "click" && act.Selector == "" || act.Kind == "deep-link" && (act.Delivery == "" || act.URL == "") {
			return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"actions"}, Reason: core.ReasonMissingArgument, Message: "click needs selector; deep-link needs delivery and url"})
		}
		req.Actions = append(req.Actions, act)
	}
	lm, _ := c.Args["limits"].(map[string]any)
	req.DurationMS, req.ActionMS = core.IntArg(lm, "duration_ms", 0), core.IntArg(lm, "action_ms", 0)
	req.MaxIPCEvents, req.MaxEvents = core.IntArg(lm, "ipc_events", 0), core.IntArg(lm, "runtime_events", 0)
	req.MaxProcesses, req.MaxWindows = core.IntArg(lm, "processes", 0), core.IntArg(lm, "windows", 0)
	c.Observe("launching the Electron application")
	cap, err := r.RunElectronScenario(ctx, req)
	if err != nil {
		// What the run observed before it failed goes with the error
		// (CONTRACTS.md §5 partial_observation), null when nothing was.
		ce := runtimeErr(c.Op.Name, err)
		var se *ports.ElectronScenarioError
		if e, ok := ce.(*core.Error); ok && e.Code != core.CodeInvalidRequest {
			if e.Details == nil {
				e.Details = map[string]any{}
			}
			e.Details["partial_observation"] = nil
			if errors.As(err, &se) && se.Partial != nil {
				e.Details["partial_observation"] = normalizeScenario(se.Partial)
			}
		}
		return nil, ce
	}
	o := observed(electronActiveProviderID, "1", "electron@"+cap.ElectronVersion, "rea.electron-active-scenario/v1", authorityReplay, normalizeScenario(cap), nil)
	o.Environment.Isolation = "process"
	return o, nil
}

// nullInt is an id, null when 0 (unknown).
func nullInt(v int) any {
	if v == 0 {
		return nil
	}
	return v
}

func eventsJSON(evs []ports.ElectronEvent) []any {
	out := make([]any, len(evs))
	for i, e := range evs {
		out[i] = map[string]any{"sequence": e.Sequence, "family": e.Family, "kind": e.Kind, "phase": e.Phase, "channel": nullable(e.Channel),
			"direction": nullable(e.Direction), "argument_shapes": core.NonNil(e.ArgumentShapes), "role": nullable(e.Role), "pid": nullInt(e.PID),
			"window_id": nullInt(e.WindowID), "web_contents_id": nullInt(e.WebContentsID), "elapsed_ms": e.ElapsedMS}
	}
	return out
}

func normalizeScenario(c *ports.ElectronScenarioCapture) map[string]any {
	actions := make([]any, len(c.Actions))
	for i, a := range c.Actions {
		actions[i] = map[string]any{"step_id": a.StepID, "kind": a.Kind, "status": a.Status, "error": nullable(a.Error), "elapsed_ms": a.ElapsedMS}
	}
	windows := make([]any, len(c.Windows))
	for i, w := range c.Windows {
		windows[i] = map[string]any{"window_id": w.WindowID, "web_contents_id": w.WebContentsID, "url": w.URL, "title": w.Title, "visible": w.Visible, "destroyed": w.Destroyed, "crashed": w.Crashed}
	}
	procs := make([]any, len(c.Processes))
	for i, p := range c.Processes {
		procs[i] = map[string]any{"pid": p.PID, "role": p.Role}
	}
	renderers := make([]any, len(c.Renderers))
	for i, r := range c.Renderers {
		renderers[i] = map[string]any{"web_contents_id": r.WebContentsID, "window_id": nullInt(r.WindowID), "pid": nullInt(r.PID), "loaded": r.Loaded,
			"attached": r.Attached, "crashed": r.Crashed}
	}
	families := map[string]bool{}
	for _, e := range c.IPC {
		families[e.Family] = true
	}
	for _, e := range c.Timeline {
		families[e.Family] = true
	}
	var observedF, unavailableF []string
	for _, f := range []string{"ipc", "renderer", "shell", "navigation", "permission", "download", "popup", "updater", "os"} {
		if families[f] {
			observedF = append(observedF, f)
		}
	}
	unavailableF = []string{"renderer-internal-state", "network"}
	return map[string]any{
		"schema_version": 1,
		"application": map[string]any{"executable_path": c.ExecutablePath, "application_path": c.ApplicationPath, "electron_version": nullable(c.ElectronVersion),
			"process_ownership": "provider-owned", "cleanup": "terminated-owned-process"},
		"actions":   actions,
		"windows":   windows,
		"processes": map[string]any{"items": procs, "truncated": c.ProcessesTrunc},
		"renderers": renderers,
		"ipc":       map[string]any{"events": eventsJSON(c.IPC), "observed": c.IPCObserved, "retained": len(c.IPC), "truncated": c.IPCObserved > len(c.IPC)},
		"timeline":  map[string]any{"events": eventsJSON(c.Timeline), "observed": c.TimelineObs, "retained": len(c.Timeline), "truncated": c.TimelineObs > len(c.Timeline)},
		"coverage": map[string]any{"status": c.Status, "observed_event_families": core.NonNil(observedF), "unavailable_event_families": unavailableF,
			"observed_roles": core.NonNil(c.ObservedRoles), "pre_capture_activity": "unavailable"},
		"limitations": append([]string{"IPC is recorded in the main process (ipcMain handlers and listeners, webContents.send) and in each renderer the hook attached to (ipcRenderer sends, invokes, listener registrations and deliveries); messages over MessagePorts after their transfer, and renderer-to-renderer messages, are not seen.",
			"Argument shapes name types and object keys, never values."}, c.Limitations...),
	}
}
