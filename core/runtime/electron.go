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

func browserInfo(b ports.BrowserInfo) ElectronBrowser {
	return ElectronBrowser{Product: b.Product, ProtocolVersion: b.ProtocolVersion, Revision: b.Revision, UserAgent: b.UserAgent, JSVersion: b.JSVersion}
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
	in, err := core.Input[ListElectronTargetsInput](c)
	if err != nil {
		return nil, err
	}
	c.Observe("listing Electron targets")
	l, err := r.ListElectronTargets(ctx, ports.ElectronListRequest{Endpoint: in.CdpEndpoint, AllowedFileRoots: core.NonNil(in.AllowedFileRoots)})
	if err != nil {
		return nil, runtimeErr(c.Op.Name, err)
	}
	items := make([]ElectronTarget, len(l.Targets))
	for i, t := range l.Targets {
		items[i] = ElectronTarget{TargetID: t.TargetID, Type: t.Type, Title: t.Title, FilePath: t.FilePath, Attached: t.Attached}
	}
	res := &ListElectronTargetsResult{SchemaVersion: 1, Browser: browserInfo(l.Browser), Targets: page(items, in.Offset, in.Limit),
		Excluded: ElectronTargetsExcluded{NonPage: l.Excluded.NonPage, OutsideRoot: l.Excluded.OutsideRoot, UnsupportedURL: l.Excluded.UnsupportedURL,
			Unconnectable: l.Excluded.Unconnectable},
		Limitations: core.NonNil(l.Limitations)}
	return observed(electronProviderID, "1", browserEnvID(l.Browser), "rea.electron-target-list/v1", authorityExternal, res, nil), nil
}

// ---- inspect_electron_page

func opInspectElectronPage() *core.Operation {
	return &core.Operation{
		Name:  "inspect_electron_page",
		Title: "Inspect Electron Page",
		Description: "Attach to one file-gated Electron page target passively (no navigation, evaluation or input) and capture over an " +
			"observation window: frames, value-free DOM structure, parsed scripts with " +
			"their content hashes (optionally sources), resources and workers, all of gated files, with section completeness. No network, " +
			"accessibility or storage. The result is valid input to reconcile_javascript_runtime.",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input: core.InputSchema([]string{"cdp_endpoint", "target_id"}, propCDP, propTarget, propRoots,
			`"observation_ms":{"type":"integer","minimum":0,"maximum":10000,"default":100,"description":"Observation window in ms; 0 reads the page at once."}`,
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
 "frames":{"type":"array","items":{"type":"object","required":["frame_id","parent_frame_id","file_path"],"properties":{"not_captured":{"type":"array","items":{"type":"string"},
   "description":"A frame in another renderer process (listed last): only its id, parent and path were read, not these sections."}}}},
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
	in, err := core.Input[InspectElectronPageInput](c)
	if err != nil {
		return nil, err
	}
	lm := in.Limits
	if lm == nil {
		lm = &InspectElectronPageLimits{}
	}
	req := ports.ElectronInspectRequest{Endpoint: in.CdpEndpoint, TargetID: in.TargetID, AllowedFileRoots: core.NonNil(in.AllowedFileRoots),
		ObservationMS: intOr(in.ObservationMS, 100), IncludeScriptSources: in.IncludeScriptSources != nil && *in.IncludeScriptSources,
		Limits: ports.BrowserLimits{MaxFrames: intOr(lm.MaxFrames, 0), MaxDOMNodes: intOr(lm.MaxDOMNodes, 0),
			MaxScripts: intOr(lm.MaxScripts, 0), MaxResources: intOr(lm.MaxResources, 0), MaxWorkers: intOr(lm.MaxWorkers, 0)}}
	c.Observe(fmt.Sprintf("capturing the Electron page over %d ms", req.ObservationMS))
	pc, err := r.InspectElectronPage(ctx, req)
	if err != nil {
		// A page lost in or after the window (disconnected) keeps what
		// was seen before, as observe_javascript_runtime's target does.
		return nil, withPartial(runtimeErr(c.Op.Name, err), err, func(pc *ports.ElectronPageCapture) any { return normalizeElectronPage(pc) },
			"The page went away during the inspection; details.partial_observation holds what was seen before, and its limitations "+
				"name the read that was lost. Inspect again while the page is open, with a window that ends before it closes.")
	}
	return observed(electronProviderID, "1", browserEnvID(pc.Browser), "rea.electron-page-inspection/v1", authorityExternal, normalizeElectronPage(pc), nil), nil
}

func normalizeElectronPage(pc *ports.ElectronPageCapture) *InspectElectronPageResult {
	frames := make([]ElectronFrame, len(pc.Frames))
	for i, f := range pc.Frames {
		frames[i] = ElectronFrame{FrameID: f.FrameID, ParentFrameID: strPtr(f.ParentFrameID), FilePath: f.FilePath, NotCaptured: slices.Clone(f.NotCaptured)}
	}
	nodes := make([]ElectronDOMNode, len(pc.DOM.Nodes))
	for i, n := range pc.DOM.Nodes {
		nodes[i] = ElectronDOMNode{Index: n.Index, ParentIndex: n.ParentIndex, NodeType: n.NodeType, NodeName: n.NodeName,
			NodeValueLength: n.NodeValueLength, AttributeNames: core.NonNil(n.AttributeNames)}
	}
	scripts := make([]ElectronScript, 0, len(pc.Scripts))
	for _, s := range pc.Scripts {
		sc := ElectronScript{FrameID: strPtr(s.FrameID), FilePath: s.FilePath, CDPHash: s.CDPHash, Length: s.Length, IsModule: s.IsModule, Language: strPtr(s.Language)}
		// The key digests the script's identity: the item without its key and source.
		sc.ScriptKey = "electron_script_" + core.MustDigest(struct {
			FrameID  *string `json:"frame_id"`
			FilePath string  `json:"file_path"`
			CDPHash  string  `json:"cdp_hash"`
			Length   int     `json:"length"`
			IsModule bool    `json:"is_module"`
			Language *string `json:"language"`
		}{sc.FrameID, sc.FilePath, sc.CDPHash, sc.Length, sc.IsModule, sc.Language})
		if s.Source != nil {
			sum := sha256.Sum256(s.Source)
			d := hex.EncodeToString(sum[:])
			text := string(s.Source)
			if !utf8.ValidString(text) {
				text = strings.ToValidUTF8(text, "\uFFFD")
			}
			sc.Source = &ElectronScriptSource{URI: "rea://electron-content/sha256/" + d, SHA256: d, Bytes: len(s.Source), MediaType: "text/javascript", Text: text}
		}
		scripts = append(scripts, sc)
	}
	slices.SortFunc(scripts, func(a, b ElectronScript) int { return strings.Compare(a.ScriptKey, b.ScriptKey) })
	scripts = slices.CompactFunc(scripts, func(a, b ElectronScript) bool { return a.ScriptKey == b.ScriptKey })
	resources := make([]ElectronResource, 0, len(pc.Resources))
	for _, r := range pc.Resources {
		er := ElectronResource{FrameID: r.FrameID, FilePath: r.FilePath, Type: r.Type, MimeType: r.MimeType, ContentSize: r.ContentSize}
		er.ResourceKey = "electron_resource_" + core.MustDigest(struct {
			FilePath    string   `json:"file_path"`
			Type        string   `json:"type"`
			MimeType    string   `json:"mime_type"`
			ContentSize *float64 `json:"content_size"`
		}{er.FilePath, er.Type, er.MimeType, er.ContentSize})
		resources = append(resources, er)
	}
	slices.SortFunc(resources, func(a, b ElectronResource) int { return strings.Compare(a.ResourceKey, b.ResourceKey) })
	workers := make([]ElectronWorker, len(pc.Workers))
	for i, w := range pc.Workers {
		workers[i] = ElectronWorker{TargetID: w.TargetID, Type: w.Type, FilePath: w.FilePath}
	}
	comp := pc.Completeness
	excluded := make([]ElectronExcluded, len(comp.Excluded))
	for i, x := range comp.Excluded {
		excluded[i] = ElectronExcluded{Section: x.Section, Reason: x.Reason, Count: x.Count}
	}
	unavailable := make([]ElectronUnavailable, len(comp.Unavailable))
	for i, u := range comp.Unavailable {
		unavailable[i] = ElectronUnavailable{Section: u.Section, Reason: u.Reason}
	}
	status := "complete"
	if len(comp.Truncated) > 0 || len(comp.Unavailable) > 0 {
		status = "partial"
	}
	return &InspectElectronPageResult{
		SchemaVersion: 1, Browser: browserInfo(pc.Browser),
		Target: ElectronTarget{TargetID: pc.Target.TargetID, Type: pc.Target.Type, Title: pc.Target.Title, FilePath: pc.Target.FilePath, Attached: pc.Target.Attached},
		CaptureWindow: ElectronCaptureWindow{StartedAt: pc.CaptureWindow.StartedAt.Format(time.RFC3339Nano), EndedAt: pc.CaptureWindow.EndedAt.Format(time.RFC3339Nano),
			ObservationMS: pc.CaptureWindow.ObservationMS},
		Completeness: ElectronCompleteness{Status: status, Excluded: excluded, Truncated: core.NonNil(comp.Truncated), Unavailable: unavailable},
		Frames:       frames,
		DOM:          ElectronDOM{TotalNodes: pc.DOM.TotalNodes, Nodes: nodes},
		Scripts:      ElectronScripts{Total: pc.ScriptsTotal, Items: scripts},
		Resources:    resources,
		Workers:      workers,
		Limitations:  core.NonNil(pc.Limitations),
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
 "processes":{"type":"object","required":["items","truncated","ended"]},
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
	in, err := core.Input[CaptureElectronScenarioInput](c)
	if err != nil {
		return nil, err
	}
	req := ports.ElectronScenarioRequest{RunID: c.RunID(), ExecutablePath: in.ExecutablePath, ApplicationPath: in.ApplicationPath,
		ApplicationRoot: in.ApplicationRoot, Args: core.NonNil(in.Args)}
	for _, a := range in.Actions {
		act := ports.ElectronAction{StepID: a.StepID, Kind: a.Kind, Selector: a.Selector, Delivery: a.Delivery, URL: a.URL,
			WindowIndex: intOr(a.WindowIndex, 0), DurationMS: intOr(a.DurationMS, 0)}
		if act.Kind == "click" && act.Selector == "" || act.Kind == "deep-link" && (act.Delivery == "" || act.URL == "") {
			return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"actions"}, Reason: core.ReasonMissingArgument, Message: "click needs selector; deep-link needs delivery and url"})
		}
		req.Actions = append(req.Actions, act)
	}
	if lm := in.Limits; lm != nil {
		req.DurationMS, req.ActionMS = intOr(lm.DurationMS, 0), intOr(lm.ActionMS, 0)
		req.MaxIPCEvents, req.MaxEvents = intOr(lm.IPCEvents, 0), intOr(lm.RuntimeEvents, 0)
		req.MaxProcesses, req.MaxWindows = intOr(lm.Processes, 0), intOr(lm.Windows, 0)
	}
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
				// Canonical bytes, so the envelope shows it as it would be sealed.
				if b, err := core.CanonicalJSON(normalizeScenario(se.Partial)); err == nil {
					e.Details["partial_observation"] = json.RawMessage(b)
				}
			}
		}
		return nil, ce
	}
	o := observed(electronActiveProviderID, "1", "electron@"+cap.ElectronVersion, "rea.electron-active-scenario/v1", authorityReplay, normalizeScenario(cap), nil)
	o.Environment.Isolation = "process"
	return o, nil
}

func events(evs []ports.ElectronEvent) []ElectronEvent {
	out := make([]ElectronEvent, len(evs))
	for i, e := range evs {
		out[i] = ElectronEvent{Sequence: e.Sequence, Family: e.Family, Kind: e.Kind, Phase: e.Phase, Channel: strPtr(e.Channel),
			Direction: strPtr(e.Direction), ArgumentShapes: core.NonNil(e.ArgumentShapes), Role: strPtr(e.Role), PID: intPtr(e.PID),
			WindowID: intPtr(e.WindowID), WebContentsID: intPtr(e.WebContentsID), ElapsedMS: e.ElapsedMS}
	}
	return out
}

func normalizeScenario(c *ports.ElectronScenarioCapture) *CaptureElectronScenarioResult {
	actions := make([]ElectronActionResult, len(c.Actions))
	for i, a := range c.Actions {
		actions[i] = ElectronActionResult{StepID: a.StepID, Kind: a.Kind, Status: a.Status, Error: strPtr(a.Error), ElapsedMS: a.ElapsedMS}
	}
	windows := make([]ElectronWindow, len(c.Windows))
	for i, w := range c.Windows {
		windows[i] = ElectronWindow{WindowID: w.WindowID, WebContentsID: w.WebContentsID, URL: w.URL, Title: w.Title, Visible: w.Visible, Destroyed: w.Destroyed, Crashed: w.Crashed}
	}
	procs := make([]ElectronProcess, len(c.Processes))
	for i, p := range c.Processes {
		procs[i] = ElectronProcess{PID: p.PID, Role: p.Role}
	}
	ended := make([]ElectronEndedProcess, len(c.EndedProcesses))
	for i, p := range c.EndedProcesses {
		ended[i] = ElectronEndedProcess{PID: intPtr(p.PID), Role: p.Role, Reason: strPtr(p.Reason), ExitCode: p.ExitCode}
	}
	renderers := make([]ElectronRenderer, len(c.Renderers))
	for i, r := range c.Renderers {
		renderers[i] = ElectronRenderer{WebContentsID: r.WebContentsID, WindowID: intPtr(r.WindowID), PID: intPtr(r.PID), Loaded: r.Loaded, Attached: r.Attached, Crashed: r.Crashed}
	}
	families := map[string]bool{}
	for _, e := range c.IPC {
		families[e.Family] = true
	}
	for _, e := range c.Timeline {
		families[e.Family] = true
	}
	var observedF []string
	for _, f := range []string{"ipc", "renderer", "shell", "navigation", "permission", "download", "popup", "updater", "os"} {
		if families[f] {
			observedF = append(observedF, f)
		}
	}
	return &CaptureElectronScenarioResult{
		SchemaVersion: 1,
		Application: ElectronApplication{ExecutablePath: c.ExecutablePath, ApplicationPath: c.ApplicationPath, ElectronVersion: strPtr(c.ElectronVersion),
			ProcessOwnership: "provider-owned", Cleanup: "terminated-owned-process"},
		Actions:   actions,
		Windows:   windows,
		Processes: ElectronProcesses{Items: procs, Truncated: c.ProcessesTrunc, Ended: ended},
		Renderers: renderers,
		IPC:       ElectronEvents{Events: events(c.IPC), Observed: c.IPCObserved, Retained: len(c.IPC), Truncated: c.IPCObserved > len(c.IPC)},
		Timeline:  ElectronEvents{Events: events(c.Timeline), Observed: c.TimelineObs, Retained: len(c.Timeline), Truncated: c.TimelineObs > len(c.Timeline)},
		Coverage: ElectronCoverage{Status: c.Status, ObservedEventFamilies: core.NonNil(observedF), UnavailableEventFamilies: []string{"renderer-internal-state", "network"},
			ObservedRoles: core.NonNil(c.ObservedRoles), PreCaptureActivity: "unavailable"},
		Limitations: append([]string{"IPC is recorded in the main process (ipcMain handlers and listeners, webContents.send) and in each renderer the hook attached to (ipcRenderer sends, invokes, listener registrations and deliveries); messages over MessagePorts after their transfer, and renderer-to-renderer messages, are not seen.",
			"Argument shapes name types and object keys, never values."}, c.Limitations...),
	}
}
