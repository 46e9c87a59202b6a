package browser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"rea/core"
	"rea/ports"
)

var artifactKinds = []string{"screenshot", "dom", "accessibility", "url", "history"}

func opCaptureScenario() *core.Operation {
	kinds := `{"type":"array","uniqueItems":true,"items":{"enum":["screenshot","dom","accessibility","url","history"]}}`
	return &core.Operation{
		Name:  "capture_browser_scenario",
		Title: "Capture Browser Scenario",
		Description: "Launch a headless Chromium that rea owns (fresh profile and temporary directory), open start_url, run the scripted " +
			"actions (goto, click, fill, wait_for_timeout; CSS locators), record in-scope console, network, WebSocket and frame events " +
			"per step and the requested artifacts (screenshot, DOM, accessibility text, URL, history), fail out-of-scope requests, " +
			"and remove every process and file afterwards. Secrets are read from the server's environment and appear only as " +
			"[REDACTED:<secret_id>]. The result is valid input to compare_web_captures.",
		Kind: core.KindApplication,
		// CONTRACTS.md §10: scenario captures carry every flag and are not
		// idempotent; the page's own scripts run (executesForeignCode).
		Effects: core.Effects{MutatesTarget: true, MutatesSession: true, WritesFilesystem: true, LaunchesProcess: true, AccessesNetwork: true,
			ChangesUIState: true, MayDiscardData: true, ExecutesForeignCode: true},
		Input: schemaObj([]string{"browser", "start_url", "actions"},
			`"browser":{"type":"object","additionalProperties":false,"required":["mode"],"description":"The owned browser to launch.","properties":{"mode":{"const":"launch"},"executable_path":{"type":"string","minLength":1,"maxLength":4096,"description":"Chromium executable; absent picks chromium from PATH."},"headless":{"const":true,"default":true}}}`,
			`"start_url":{"type":"object","additionalProperties":false,"required":["url"],"properties":{"url":{"type":"string","minLength":1,"maxLength":65536,"description":"http(s) URL without userinfo."},"query":{"type":"array","maxItems":256,"items":{"type":"object","additionalProperties":false,"required":["name","value"],"properties":{"name":{"type":"string"},"value":{"type":"string"}}},"default":[]}}}`,
			propOrigins,
			`"environment":{"type":"object","additionalProperties":false,"properties":{"viewport":{"type":"object","additionalProperties":false,"properties":{"width":{"type":"integer","minimum":1,"maximum":8192,"default":1280},"height":{"type":"integer","minimum":1,"maximum":8192,"default":720},"device_scale_factor":{"type":"number","exclusiveMinimum":0,"maximum":4,"default":1}}}}}`,
			`"actions":{"type":"array","minItems":1,"maxItems":128,"description":"Steps in order; after a failure later steps are cancelled.","items":{"type":"object","additionalProperties":false,"required":["step_id","action"],"properties":{
  "step_id":{"type":"string","pattern":"^[A-Za-z][A-Za-z0-9._-]*$","maxLength":64},
  "action":{"enum":["goto","click","fill","wait_for_timeout"]},
  "destination":{"type":"string","minLength":1,"maxLength":65536,"description":"goto: the URL."},
  "locator":{"type":"object","additionalProperties":false,"required":["css"],"properties":{"css":{"type":"object","additionalProperties":false,"required":["selector"],"properties":{"selector":{"type":"string","minLength":1,"maxLength":4096}}}},"description":"click, fill: the element."},
  "value":{"type":"object","additionalProperties":false,"required":["source"],"properties":{"source":{"enum":["literal","secret"]},"value":{"type":"string","maxLength":65536},"secret_id":{"type":"string","minLength":1,"maxLength":64}},"description":"fill: a literal or a declared secret."},
  "duration_ms":{"type":"integer","minimum":0,"maximum":10000,"description":"wait_for_timeout: how long."},
  "timeout_ms":{"type":"integer","minimum":1,"maximum":60000}}}}`,
			`"secrets":{"type":"array","maxItems":64,"items":{"type":"object","additionalProperties":false,"required":["secret_id","environment_variable"],"properties":{"secret_id":{"type":"string","pattern":"^[A-Za-z][A-Za-z0-9._-]*$","maxLength":64},"environment_variable":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_]*$","maxLength":256}}}}`,
			`"capture":{"type":"object","additionalProperties":false,"properties":{"after_each_step":`+kinds+`,"at_end":`+kinds+`}}`,
			`"limits":{"type":"object","additionalProperties":false,"properties":{"duration_ms":{"type":"integer","minimum":1000,"maximum":300000,"default":60000},"step_timeout_ms":{"type":"integer","minimum":1,"maximum":60000,"default":5000},"max_events":{"type":"integer","minimum":1,"maximum":100000,"default":10000}}}`),
		Result: defResult("web_scenario_capture"),
		Examples: ex(`{"browser":{"mode":"launch"},"start_url":{"url":"http://127.0.0.1:8080/app"},"actions":[{"step_id":"open","action":"click","locator":{"css":{"selector":"button#open"}}},{"step_id":"pause","action":"wait_for_timeout","duration_ms":200}],"capture":{"after_each_step":["url"],"at_end":["screenshot","dom"]}}`,
			`{"browser":{"mode":"launch"},"start_url":{"url":"http://127.0.0.1:8080/login"},"actions":[{"step_id":"user","action":"fill","locator":{"css":{"selector":"#password"}},"value":{"source":"secret","secret_id":"pw"}}],"secrets":[{"secret_id":"pw","environment_variable":"APP_PASSWORD"}]}`),
		Unavailable: scenarioUnavailable,
		Handler:     handleCaptureScenario,
	}
}

type scenarioArgs struct {
	Browser struct {
		Mode           string `json:"mode"`
		ExecutablePath string `json:"executable_path"`
	} `json:"browser"`
	StartURL struct {
		URL   string `json:"url"`
		Query []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"query"`
	} `json:"start_url"`
	AllowedOrigins []string `json:"allowed_origins"`
	Environment    struct {
		Viewport struct {
			Width             int     `json:"width"`
			Height            int     `json:"height"`
			DeviceScaleFactor float64 `json:"device_scale_factor"`
		} `json:"viewport"`
	} `json:"environment"`
	Actions []struct {
		StepID      string `json:"step_id"`
		Action      string `json:"action"`
		Destination string `json:"destination"`
		Locator     *struct {
			CSS struct {
				Selector string `json:"selector"`
			} `json:"css"`
		} `json:"locator"`
		Value *struct {
			Source   string  `json:"source"`
			Value    *string `json:"value"`
			SecretID string  `json:"secret_id"`
		} `json:"value"`
		DurationMS *int `json:"duration_ms"`
		TimeoutMS  int  `json:"timeout_ms"`
	} `json:"actions"`
	Secrets []ports.BrowserScenarioSecret `json:"-"`
	RawSec  []struct {
		SecretID            string `json:"secret_id"`
		EnvironmentVariable string `json:"environment_variable"`
	} `json:"secrets"`
	Capture struct {
		AfterEachStep []string `json:"after_each_step"`
		AtEnd         []string `json:"at_end"`
	} `json:"capture"`
	Limits struct {
		DurationMS    int `json:"duration_ms"`
		StepTimeoutMS int `json:"step_timeout_ms"`
		MaxEvents     int `json:"max_events"`
	} `json:"limits"`
}

// scenarioRequest checks the domain rules the schema cannot express and
// builds the engine request.
func scenarioRequest(op string, m map[string]any) (*ports.BrowserScenarioRequest, *scenarioArgs, error) {
	raw, err := core.MarshalNoEscape(m)
	if err != nil {
		return nil, nil, err
	}
	var a scenarioArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, core.InvalidRequest(op, core.Issue{Path: []any{}, Reason: core.ReasonInvalidType, Message: err.Error()})
	}
	bad := func(path []any, f string, args ...any) error {
		return core.InvalidRequest(op, core.Issue{Path: path, Reason: core.ReasonInvalidValue, Message: fmt.Sprintf(f, args...)})
	}
	u, err := url.Parse(a.StartURL.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, nil, bad([]any{"start_url", "url"}, "start_url.url must be an http(s) URL without userinfo")
	}
	if len(a.StartURL.Query) > 0 {
		q := u.Query()
		for _, p := range a.StartURL.Query {
			q.Add(p.Name, p.Value)
		}
		u.RawQuery = q.Encode()
	}
	req := &ports.BrowserScenarioRequest{ExecutablePath: a.Browser.ExecutablePath, StartURL: u.String(), AllowedOrigins: a.AllowedOrigins,
		Viewport:             ports.BrowserViewport{Width: a.Environment.Viewport.Width, Height: a.Environment.Viewport.Height, DeviceScaleFactor: a.Environment.Viewport.DeviceScaleFactor},
		CaptureAfterEachStep: a.Capture.AfterEachStep, CaptureAtEnd: a.Capture.AtEnd,
		MaxEvents: a.Limits.MaxEvents, DurationMS: a.Limits.DurationMS, StepTimeoutMS: a.Limits.StepTimeoutMS}
	if _, ok := m["capture"]; !ok {
		req.CaptureAtEnd = []string{"url"}
	}
	secrets := map[string]bool{}
	envs := map[string]bool{}
	for i, s := range a.RawSec {
		if secrets[s.SecretID] || envs[s.EnvironmentVariable] {
			return nil, nil, bad([]any{"secrets", i}, "secret ids and environment variables must be unique")
		}
		secrets[s.SecretID], envs[s.EnvironmentVariable] = true, true
		req.Secrets = append(req.Secrets, ports.BrowserScenarioSecret{SecretID: s.SecretID, EnvironmentVariable: s.EnvironmentVariable})
	}
	ids := map[string]bool{"scenario_start": true}
	for i, ac := range a.Actions {
		path := func(f string) []any { return []any{"actions", i, f} }
		if ids[ac.StepID] {
			return nil, nil, bad(path("step_id"), "step_id %q is not unique", ac.StepID)
		}
		ids[ac.StepID] = true
		st := ports.BrowserScenarioStep{StepID: ac.StepID, Action: ac.Action, TimeoutMS: ac.TimeoutMS}
		switch ac.Action {
		case "goto":
			if ac.Destination == "" {
				return nil, nil, bad(path("destination"), "goto needs destination")
			}
			st.Action, st.URL = "navigate", ac.Destination
		case "click", "fill":
			if ac.Locator == nil {
				return nil, nil, bad(path("locator"), "%s needs locator", ac.Action)
			}
			st.Selector = ac.Locator.CSS.Selector
			if ac.Action == "click" {
				break
			}
			st.Action = "type"
			switch {
			case ac.Value == nil:
				return nil, nil, bad(path("value"), "fill needs value")
			case ac.Value.Source == "secret":
				if !secrets[ac.Value.SecretID] {
					return nil, nil, bad(path("value"), "secret %q is not declared in secrets", ac.Value.SecretID)
				}
				st.SecretID = ac.Value.SecretID
			case ac.Value.Value == nil:
				return nil, nil, bad(path("value"), "a literal value needs value")
			default:
				st.Text = *ac.Value.Value
			}
		case "wait_for_timeout":
			if ac.DurationMS == nil {
				return nil, nil, bad(path("duration_ms"), "wait_for_timeout needs duration_ms")
			}
			st.Action, st.DurationMS = "wait", *ac.DurationMS
		}
		req.Steps = append(req.Steps, st)
	}
	return req, &a, nil
}

func handleCaptureScenario(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	run := c.BrowserScenarios()
	if run == nil {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": no browser scenario runner is wired into this build",
			Remediation: "Use a rea build with the CDP engine (adapters/cdp).",
			Details:     map[string]any{"provider_id": scenarioProviderID, "operation": op, "reason": "engine_missing"}}
	}
	req, args, err := scenarioRequest(op, c.Args)
	if err != nil {
		return nil, err
	}
	if req.ExecutablePath == "" {
		if a := c.ScenarioAvailability(); !a.Available {
			return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": " + a.Reason,
				Remediation: "Install Chromium (Debian: apt-get install chromium) or pass browser.executable_path.",
				Details:     map[string]any{"provider_id": scenarioProviderID, "operation": op, "reason": a.Code}}
		}
	}
	c.Observe("launching owned browser")
	capt, err := run.RunScenario(ctx, *req)
	if err != nil {
		return nil, browserErr(op, err)
	}
	res := normalizeScenario(capt, req, args)
	ver := scenarioProviderVersion
	prod := capt.Browser.Product
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceObserved, Predicate: "rea.browser-scenario-capture/v1",
		Authority: authorityReplay, Provider: &core.ProviderRef{ID: scenarioProviderID, Name: "Owned Chromium scenario runner (CDP)", Version: &ver},
		Environment: environment(ports.BrowserInfo{Product: prod, Revision: capt.Browser.Version}, "process")}, nil
}

// sanitizedURL is BROWSER.md §2's sanitized URL ([N]: userinfo removed).
func sanitizedURL(s string) map[string]any {
	u, err := url.Parse(s)
	if err != nil {
		return map[string]any{"url": s, "origin": nil, "query_parameter_names": []string{}, "redacted": false}
	}
	red := u.User != nil
	u.User = nil
	names := []string{}
	for k := range u.Query() {
		names = append(names, k)
	}
	sort.Strings(names)
	return map[string]any{"url": u.String(), "origin": nullable(originOf(u)), "query_parameter_names": names, "redacted": red}
}

func textArtifact(b []byte) map[string]any {
	sum := sha256.Sum256(b)
	return map[string]any{"sha256": hex.EncodeToString(sum[:]), "bytes": len(b), "text": string(b)}
}

func normalizeScenario(capt *ports.BrowserScenarioCapture, req *ports.BrowserScenarioRequest, args *scenarioArgs) map[string]any {
	items := make([]any, 0, len(capt.Events))
	dropped := capt.Dropped
	for _, e := range capt.Events {
		ev := scenarioEvent(e)
		if ev == nil {
			dropped++
			continue
		}
		items = append(items, ev)
	}
	// Renumber after any event that could not be represented.
	seqByStep := map[int][2]int{}
	for i, it := range items {
		m := it.(map[string]any)
		m["sequence"] = i + 1
		si := m["step_index"].(int)
		r, ok := seqByStep[si]
		if !ok {
			r = [2]int{i + 1, i + 1}
		}
		r[1] = i + 1
		seqByStep[si] = r
	}
	stepsOut := make([]any, len(capt.Steps))
	capMissing, capTrunc := map[string]bool{}, map[string]bool{}
	next := 1
	for i, s := range capt.Steps {
		want := slices.Clone(req.CaptureAfterEachStep)
		if i == len(capt.Steps)-1 {
			want = append(want, req.CaptureAtEnd...)
		}
		arts, missing, trunc := scenarioArtifacts(s, want)
		if s.Status != "completed" {
			missing = append(missing, "action")
		}
		start, end := next, next-1
		if r, ok := seqByStep[s.StepIndex]; ok {
			start, end = r[0], r[1]
			next = end + 1
		}
		var errv any
		if s.Status != "completed" {
			msg := s.Error
			if msg == "" {
				msg = s.Status
			}
			errv = truncate(msg, 4096)
		}
		for _, m := range missing {
			capMissing[m] = true
		}
		for _, t := range trunc {
			capTrunc[t] = true
		}
		stepsOut[i] = map[string]any{"step_index": s.StepIndex, "step_id": s.StepID, "action": s.Action, "status": s.Status, "error": errv,
			"elapsed_ms": max(s.ElapsedMS, 0), "before_url": sanitizedURL(s.BeforeURL), "after_url": sanitizedURL(s.AfterURL),
			"event_sequence_start": start, "event_sequence_end": end, "artifacts": arts, "completeness": scenarioCompleteness(missing, trunc)}
	}
	if dropped > 0 {
		capTrunc["events"] = true
	}
	keys := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	secretRefs := []string{}
	for _, s := range req.Secrets {
		secretRefs = append(secretRefs, s.SecretID)
	}
	lims := []string{}
	for _, l := range capt.Limitations {
		if l != "" && len(lims) < 63 {
			lims = append(lims, truncate(l, 2048))
		}
	}
	lims = append(lims, "WebSocket frame payloads are not retained: frames report their byte counts with payload_type binary; workers, popups and downloads are not observed.")
	origins := core.NonNil(capt.AllowedOrigins)
	if len(origins) > 32 {
		origins = origins[:32]
	}
	product, version := capt.Browser.Product, capt.Browser.Version
	if product == "" {
		product = "unknown"
	}
	if version == "" {
		version = "unknown"
	}
	return map[string]any{"schema_version": 1,
		"browser": map[string]any{"mode": "launch", "process_ownership": "provider-owned", "cleanup": "terminated-owned-process", "product": product, "version": version},
		"scenario": map[string]any{"start_origin": capt.StartOrigin, "allowed_origins": origins, "action_count": len(args.Actions),
			"secret_references": secretRefs},
		"duration_ms": max(capt.DurationMS, 0), "steps": stepsOut,
		"events":       map[string]any{"retained": len(items), "dropped": dropped, "items": items},
		"completeness": scenarioCompleteness(keys(capMissing), keys(capTrunc)), "limitations": lims}
}

func scenarioCompleteness(missing, trunc []string) map[string]any {
	missing, trunc = core.NonNil(missing), core.NonNil(trunc)
	slices.Sort(missing)
	slices.Sort(trunc)
	missing, trunc = slices.Compact(missing), slices.Compact(trunc)
	switch {
	case len(trunc) > 0:
		return map[string]any{"status": "truncated", "equality_eligible": false, "missing_sections": missing, "truncated_sections": trunc}
	case len(missing) > 0:
		return map[string]any{"status": "incomplete", "equality_eligible": false, "missing_sections": missing, "truncated_sections": trunc}
	}
	return map[string]any{"status": "complete", "equality_eligible": true, "missing_sections": missing, "truncated_sections": trunc}
}

func scenarioArtifacts(s ports.BrowserScenarioStepResult, want []string) (map[string]any, []string, []string) {
	a := s.Artifacts
	out := map[string]any{"storage": map[string]any{"state": "not_requested"}}
	var missing, trunc []string
	for _, k := range artifactKinds {
		if !slices.Contains(want, k) {
			out[k] = map[string]any{"state": "not_requested"}
			continue
		}
		if s.Status == "cancelled" {
			out[k] = map[string]any{"state": "missing", "reason": "not executed after an earlier action failure"}
			missing = append(missing, k)
			continue
		}
		if why, ok := a.Missing[k]; ok {
			if why == "" {
				why = "not captured"
			}
			out[k] = map[string]any{"state": "missing", "reason": truncate(why, 1024)}
			missing = append(missing, k)
			continue
		}
		var v any
		var size int
		switch k {
		case "screenshot":
			if len(a.Screenshot) > 0 {
				v, size = screenshotArtifact(a.Screenshot), len(a.Screenshot)
			}
		case "dom":
			if a.DOM != nil {
				v, size = textArtifact([]byte(strings.ToValidUTF8(string(a.DOM), "\uFFFD"))), len(a.DOM)
			}
		case "accessibility":
			if a.Accessibility != nil {
				v, size = textArtifact([]byte(strings.ToValidUTF8(string(a.Accessibility), "\uFFFD"))), len(a.Accessibility)
			}
		case "url":
			if a.URL != nil {
				v = sanitizedURL(*a.URL)
			}
		case "history":
			if h := a.History; h != nil {
				entries := []any{}
				for _, e := range h.NavigationEntries {
					if len(entries) == 256 {
						break
					}
					t := e.Type
					if !slices.Contains([]string{"navigate", "reload", "back_forward", "prerender"}, t) {
						t = "unknown"
					}
					entries = append(entries, map[string]any{"type": t, "name": sanitizedURL(e.Name)})
				}
				v = map[string]any{"length": h.Length, "current_url": sanitizedURL(h.CurrentURL), "navigation_entries": entries}
			}
		}
		switch {
		case v == nil:
			out[k] = map[string]any{"state": "missing", "reason": "the engine returned no " + k}
			missing = append(missing, k)
		case slices.Contains(a.Truncated, k):
			out[k] = map[string]any{"state": "truncated", "observed": size, "retained": size, "reason": "cut at the engine's size limit; the full size was not measured"}
			trunc = append(trunc, k)
		default:
			out[k] = map[string]any{"state": "captured", "value": v}
		}
	}
	return out, missing, trunc
}

// scenarioEvent maps one engine event to its schema branch, or nil when
// it has none.
func scenarioEvent(e ports.BrowserScenarioEvent) map[string]any {
	m := map[string]any{"step_index": e.StepIndex, "kind": e.Kind}
	u := sanitizedURL(e.URL)
	network := func(status, failure any) map[string]any {
		method := e.Method
		if method == "" {
			method = "UNKNOWN"
		}
		rt := e.ResourceType
		if rt == "" {
			rt = "Other"
		}
		m["method"], m["url"], m["resource_type"], m["header_names"], m["status"], m["failure"] = truncate(method, 32), u, truncate(rt, 64), []string{}, status, failure
		return m
	}
	switch e.Kind {
	case "console":
		level := e.Level
		if level == "" {
			level = "log"
		}
		var cu any
		if e.URL != "" {
			cu = u
		}
		m["level"], m["text"], m["url"] = truncate(level, 64), truncate(e.Text, 65536), cu
	case "page-error":
		m["message"], m["stack"] = truncate(e.Text, 65536), nil
	case "request":
		return network(nil, nil)
	case "response":
		if e.Status < 100 || e.Status > 599 {
			return nil
		}
		return network(e.Status, nil)
	case "request-failed":
		f := e.Failure
		if f == "" {
			f = "failed"
		}
		return network(nil, truncate(f, 1024))
	case "websocket-opened", "websocket-closed":
		m["url"] = u
	case "websocket-frame-sent", "websocket-frame-received":
		m["url"], m["payload_bytes"], m["truncated"], m["payload_type"], m["payload_text"] = u, e.PayloadBytes, false, "binary", nil
	case "frame-navigated", "frame-attached", "frame-detached":
		m["url"], m["name"] = u, nil
	default:
		return nil
	}
	return m
}
