package browser

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"rea/core"
	"rea/core/web"
	"rea/ports"
)

var artifactKinds = []string{"screenshot", "dom", "accessibility", "url", "history", "storage"}

func opCaptureScenario() *core.Operation {
	kinds := `{"type":"array","uniqueItems":true,"items":{"enum":["screenshot","dom","accessibility","url","history","storage"]}}`
	return &core.Operation{
		Name:  "capture_browser_scenario",
		Title: "Capture Browser Scenario",
		Description: "Launch a headless Chromium that rea owns (fresh profile, temporary directory), open start_url, run the scripted " +
			"actions (goto, click, fill, wait_for_timeout; CSS locators), record in-scope console, network, WebSocket and frame events " +
			"per step and the requested artifacts (screenshot, DOM, accessibility text, URL, history, storage), fail out-of-scope requests, " +
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
  "value":{"type":"object","additionalProperties":false,"required":["source"],"properties":{"source":{"enum":["literal","secret"],"description":"literal: value; secret: secret_id."},"value":{"type":"string","maxLength":65536},"secret_id":{"type":"string","minLength":1,"maxLength":64}},"description":"fill: a literal or a declared secret."},
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

// scenarioRequest checks the domain rules the schema cannot express and
// builds the engine request.
func scenarioRequest(op string, a CaptureBrowserScenarioInput) (*ports.BrowserScenarioRequest, error) {
	bad := func(path []any, f string, args ...any) error {
		return core.InvalidRequest(op, core.Issue{Path: path, Reason: core.ReasonInvalidValue, Message: fmt.Sprintf(f, args...)})
	}
	u, err := url.Parse(a.StartURL.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, bad([]any{"start_url", "url"}, "start_url.url must be an http(s) URL without userinfo")
	}
	if len(a.StartURL.Query) > 0 {
		q := u.Query()
		for _, p := range a.StartURL.Query {
			q.Add(p.Name, p.Value)
		}
		u.RawQuery = q.Encode()
	}
	var vp ports.BrowserViewport
	if e := a.Environment; e != nil && e.Viewport != nil {
		vp = ports.BrowserViewport{Width: intOr(e.Viewport.Width, 0), Height: intOr(e.Viewport.Height, 0)}
		if e.Viewport.DeviceScaleFactor != nil {
			vp.DeviceScaleFactor = *e.Viewport.DeviceScaleFactor
		}
	}
	req := &ports.BrowserScenarioRequest{ExecutablePath: a.Browser.ExecutablePath, StartURL: u.String(), AllowedOrigins: a.AllowedOrigins,
		Viewport: vp, CaptureAtEnd: []string{"url"}}
	if c := a.Capture; c != nil {
		req.CaptureAfterEachStep, req.CaptureAtEnd = c.AfterEachStep, c.AtEnd
	}
	if l := a.Limits; l != nil {
		req.MaxEvents, req.DurationMS, req.StepTimeoutMS = intOr(l.MaxEvents, 0), intOr(l.DurationMS, 0), intOr(l.StepTimeoutMS, 0)
	}
	secrets := map[string]bool{}
	envs := map[string]bool{}
	for i, s := range a.Secrets {
		if secrets[s.SecretID] || envs[s.EnvironmentVariable] {
			return nil, bad([]any{"secrets", i}, "secret ids and environment variables must be unique")
		}
		secrets[s.SecretID], envs[s.EnvironmentVariable] = true, true
		req.Secrets = append(req.Secrets, ports.BrowserScenarioSecret{SecretID: s.SecretID, EnvironmentVariable: s.EnvironmentVariable})
	}
	ids := map[string]bool{"scenario_start": true}
	for i, ac := range a.Actions {
		path := func(f string) []any { return []any{"actions", i, f} }
		if ids[ac.StepID] {
			return nil, bad(path("step_id"), "step_id %q is not unique", ac.StepID)
		}
		ids[ac.StepID] = true
		st := ports.BrowserScenarioStep{StepID: ac.StepID, Action: ac.Action, TimeoutMS: ac.TimeoutMS}
		switch ac.Action {
		case "goto":
			if ac.Destination == "" {
				return nil, bad(path("destination"), "goto needs destination")
			}
			st.Action, st.URL = "navigate", ac.Destination
		case "click", "fill":
			if ac.Locator == nil {
				return nil, bad(path("locator"), "%s needs locator", ac.Action)
			}
			st.Selector = ac.Locator.CSS.Selector
			if ac.Action == "click" {
				break
			}
			st.Action = "type"
			switch {
			case ac.Value == nil:
				return nil, bad(path("value"), "fill needs value")
			case ac.Value.Source == "secret":
				if !secrets[ac.Value.SecretID] {
					return nil, bad(path("value"), "secret %q is not declared in secrets", ac.Value.SecretID)
				}
				st.SecretID = ac.Value.SecretID
			case ac.Value.Value == nil:
				return nil, bad(path("value"), "a literal value needs value")
			default:
				st.Text = *ac.Value.Value
			}
		case "wait_for_timeout":
			if ac.DurationMS == nil {
				return nil, bad(path("duration_ms"), "wait_for_timeout needs duration_ms")
			}
			st.Action, st.DurationMS = "wait", *ac.DurationMS
		}
		req.Steps = append(req.Steps, st)
	}
	return req, nil
}

func handleCaptureScenario(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	run := c.BrowserScenarios()
	if run == nil {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": no browser scenario runner is wired into this build",
			Remediation: "Use a rea build with the CDP engine (adapters/cdp).",
			Details:     map[string]any{"provider_id": scenarioProviderID, "operation": op, "reason": "engine_missing"}}
	}
	args, err := core.Input[CaptureBrowserScenarioInput](c)
	if err != nil {
		return nil, err
	}
	req, err := scenarioRequest(op, args)
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
		return nil, scenarioErr(op, err)
	}
	res := normalizeScenario(capt, req, args)
	ver := scenarioProviderVersion
	prod := capt.Browser.Product
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceObserved, Predicate: "rea.browser-scenario-capture/v1",
		Authority: authorityReplay, Provider: &core.ProviderRef{ID: scenarioProviderID, Name: "Owned Chromium scenario runner (CDP)", Version: &ver},
		Environment: environment(ports.BrowserInfo{Product: prod, Revision: capt.Browser.Version}, "process")}, nil
}

// sanitizedURL is BROWSER.md §2's sanitized URL ([N]: userinfo removed).
func sanitizedURL(s string) WebSanitizedURL {
	u, err := url.Parse(s)
	if err != nil {
		return WebSanitizedURL{URL: s, QueryParameterNames: []string{}}
	}
	red := u.User != nil
	u.User = nil
	names := []string{}
	for k := range u.Query() {
		names = append(names, k)
	}
	sort.Strings(names)
	origin := originOf(u)
	if (u.Scheme == "ws" || u.Scheme == "wss") && u.Host != "" {
		// ws and wss URLs have origins of their own, as a browser's URL
		// parser gives them (new URL("ws://h/x").origin is "ws://h").
		origin = u.Scheme + "://" + u.Host
	}
	return WebSanitizedURL{URL: u.String(), Origin: core.OptString(origin), QueryParameterNames: names, Redacted: red}
}

// scenarioTextArtifact is a redacted text artifact (DOM, accessibility).
type scenarioTextArtifact struct {
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
	Text   string `json:"text"`
}

func textArtifact(b []byte) scenarioTextArtifact {
	sum := sha256.Sum256(b)
	return scenarioTextArtifact{SHA256: hex.EncodeToString(sum[:]), Bytes: len(b), Text: string(b)}
}

// The states of a scenario artifact (WebScenarioArtifacts holds each as
// any: the schema's union by state).
type (
	artifactNotRequested struct {
		State string `json:"state"`
	}
	artifactMissing struct {
		State  string `json:"state"`
		Reason string `json:"reason"`
	}
	artifactTruncated struct {
		State    string `json:"state"`
		Observed int    `json:"observed"`
		Retained int    `json:"retained"`
		Reason   string `json:"reason"`
		// Value is what was kept, for the storage artifact (its first 512
		// items per list) and the DOM (its serialized HTML's start); the
		// others keep none.
		Value any `json:"value,omitempty"`
	}
	artifactCaptured struct {
		State string `json:"state"`
		Value any    `json:"value"` // CaptureWebScreenshotResultArtifact, scenarioTextArtifact, WebSanitizedURL or scenarioHistory
	}
	scenarioHistoryEntry struct {
		Type string          `json:"type"`
		Name WebSanitizedURL `json:"name"`
	}
	scenarioHistory struct {
		Length            int                    `json:"length"`
		CurrentURL        WebSanitizedURL        `json:"current_url"`
		NavigationEntries []scenarioHistoryEntry `json:"navigation_entries"`
	}
	// scenarioStorage is the storage artifact: names and cookie
	// attributes, each value only as the SHA-256 of its text with the
	// scenario's secrets replaced (value_state hashed), or, for a value that
	// held a secret, no digest at all (redacted-secret).
	scenarioStorage struct {
		Cookies        []scenarioCookie      `json:"cookies"`
		LocalStorage   []scenarioStoredValue `json:"local_storage"`
		SessionStorage []scenarioStoredValue `json:"session_storage"`
	}
	scenarioStoredValue struct {
		Name        string  `json:"name"`
		ValueState  string  `json:"value_state"`
		ValueSHA256 *string `json:"value_sha256"`
	}
	scenarioCookie struct {
		Name        string  `json:"name"`
		Domain      string  `json:"domain"`
		Path        string  `json:"path"`
		Secure      bool    `json:"secure"`
		HTTPOnly    bool    `json:"http_only"`
		SameSite    string  `json:"same_site"`
		ValueState  string  `json:"value_state"`
		ValueSHA256 *string `json:"value_sha256"`
	}
)

// storedValue is a stored value as the storage artifact keeps it.
func storedValue(v ports.BrowserStoredValue) scenarioStoredValue {
	out := scenarioStoredValue{Name: truncate(v.Name, 1024), ValueState: "redacted-secret"}
	if !v.HadSecret {
		sum := sha256.Sum256([]byte(v.Value))
		h := hex.EncodeToString(sum[:])
		out.ValueState, out.ValueSHA256 = "hashed", &h
	}
	return out
}

// storageArtifact keeps at most 512 items per list (the schema's bound),
// the first by name (cookies then by domain and path), since the browser
// lists them in no stable order and a run-to-run comparison needs the same
// items; it also returns how many items there were and how many it kept.
func storageArtifact(st *ports.BrowserScenarioStorage) (scenarioStorage, int, int) {
	out := scenarioStorage{Cookies: []scenarioCookie{}, LocalStorage: []scenarioStoredValue{}, SessionStorage: []scenarioStoredValue{}}
	total := len(st.Cookies) + len(st.LocalStorage) + len(st.SessionStorage)
	cookies := slices.Clone(st.Cookies)
	slices.SortStableFunc(cookies, func(a, b ports.BrowserStoredCookie) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Domain, b.Domain), strings.Compare(a.Path, b.Path))
	})
	byName := func(l []ports.BrowserStoredValue) []ports.BrowserStoredValue {
		l = slices.Clone(l)
		slices.SortStableFunc(l, func(a, b ports.BrowserStoredValue) int { return strings.Compare(a.Name, b.Name) })
		return l
	}
	for i, c := range cookies {
		if i == 512 {
			break
		}
		v := storedValue(c.BrowserStoredValue)
		out.Cookies = append(out.Cookies, scenarioCookie{Name: v.Name, Domain: truncate(c.Domain, 2048), Path: truncate(c.Path, 4096), Secure: c.Secure,
			HTTPOnly: c.HTTPOnly, SameSite: c.SameSite, ValueState: v.ValueState, ValueSHA256: v.ValueSHA256})
	}
	for _, l := range []struct {
		in  []ports.BrowserStoredValue
		out *[]scenarioStoredValue
	}{{byName(st.LocalStorage), &out.LocalStorage}, {byName(st.SessionStorage), &out.SessionStorage}} {
		for i, v := range l.in {
			if i == 512 {
				break
			}
			*l.out = append(*l.out, storedValue(v))
		}
	}
	return out, total, len(out.Cookies) + len(out.LocalStorage) + len(out.SessionStorage)
}

func normalizeScenario(capt *ports.BrowserScenarioCapture, req *ports.BrowserScenarioRequest, args CaptureBrowserScenarioInput) *CaptureBrowserScenarioResult {
	type pending struct {
		step int
		ev   scenarioEventRecord
	}
	var evs []pending
	dropped := capt.Dropped
	for _, e := range capt.Events {
		ev := scenarioEvent(e)
		if ev == nil {
			dropped++
			continue
		}
		evs = append(evs, pending{e.StepIndex, ev})
	}
	// Renumber after any event that could not be represented.
	items := make([]any, len(evs))
	seqByStep := map[int][2]int{}
	for i, p := range evs {
		p.ev.setSequence(i + 1)
		items[i] = p.ev
		r, ok := seqByStep[p.step]
		if !ok {
			r = [2]int{i + 1, i + 1}
		}
		r[1] = i + 1
		seqByStep[p.step] = r
	}
	// A step is named by the action the caller wrote (fill, not the
	// engine's type), as compare_web_captures aligns and reports it.
	asked := map[string]string{}
	for _, a := range args.Actions {
		asked[a.StepID] = a.Action
	}
	stepsOut := make([]WebScenarioStep, len(capt.Steps))
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
		var errv *string
		if s.Status != "completed" {
			msg := s.Error
			if msg == "" {
				msg = s.Status
			}
			msg = truncate(msg, 4096)
			errv = &msg
		}
		for _, m := range missing {
			capMissing[m] = true
		}
		for _, t := range trunc {
			capTrunc[t] = true
		}
		action := s.Action
		if a, ok := asked[s.StepID]; ok && s.StepIndex > 0 {
			action = a
		}
		stepsOut[i] = WebScenarioStep{StepIndex: s.StepIndex, StepID: s.StepID, Action: action, Status: s.Status, Error: errv,
			ElapsedMS: max(s.ElapsedMS, 0), BeforeURL: sanitizedURL(s.BeforeURL), AfterURL: sanitizedURL(s.AfterURL),
			EventSequenceStart: start, EventSequenceEnd: end, Artifacts: arts, Completeness: scenarioCompleteness(missing, trunc)}
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
	lims = append(lims, "WebSocket text frames keep their first 64 KiB (secrets redacted), binary frames only their byte counts; workers, popups and downloads are not observed.")
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
	return &CaptureBrowserScenarioResult{SchemaVersion: 1,
		Browser: CaptureBrowserScenarioResultBrowser{Mode: "launch", ProcessOwnership: "provider-owned", Cleanup: "terminated-owned-process",
			Product: product, Version: version},
		Scenario: CaptureBrowserScenarioResultScenario{StartOrigin: capt.StartOrigin, AllowedOrigins: origins, ActionCount: len(args.Actions),
			SecretReferences: secretRefs},
		DurationMS: max(capt.DurationMS, 0), Steps: stepsOut,
		Events:       CaptureBrowserScenarioResultEvents{Retained: len(items), Dropped: dropped, Items: items},
		Completeness: scenarioCompleteness(keys(capMissing), keys(capTrunc)), Limitations: lims}
}

func scenarioCompleteness(missing, trunc []string) web.WebScenarioCompleteness {
	missing, trunc = core.NonNil(missing), core.NonNil(trunc)
	slices.Sort(missing)
	slices.Sort(trunc)
	missing, trunc = slices.Compact(missing), slices.Compact(trunc)
	switch {
	case len(trunc) > 0:
		return web.WebScenarioCompleteness{Status: "truncated", EqualityEligible: false, MissingSections: missing, TruncatedSections: trunc}
	case len(missing) > 0:
		return web.WebScenarioCompleteness{Status: "incomplete", EqualityEligible: false, MissingSections: missing, TruncatedSections: trunc}
	}
	return web.WebScenarioCompleteness{Status: "complete", EqualityEligible: true, MissingSections: missing, TruncatedSections: trunc}
}

func scenarioArtifacts(s ports.BrowserScenarioStepResult, want []string) (WebScenarioArtifacts, []string, []string) {
	a := s.Artifacts
	out := WebScenarioArtifacts{}
	field := map[string]*any{"screenshot": &out.Screenshot, "dom": &out.DOM, "accessibility": &out.Accessibility,
		"url": &out.URL, "history": &out.History, "storage": &out.Storage}
	var missing, trunc []string
	for _, k := range artifactKinds {
		dst := field[k]
		if !slices.Contains(want, k) {
			*dst = artifactNotRequested{State: "not_requested"}
			continue
		}
		if s.Status == "cancelled" {
			*dst = artifactMissing{State: "missing", Reason: "not executed after an earlier action failure"}
			missing = append(missing, k)
			continue
		}
		if why, ok := a.Missing[k]; ok {
			if why == "" {
				why = "not captured"
			}
			*dst = artifactMissing{State: "missing", Reason: truncate(why, 1024)}
			missing = append(missing, k)
			continue
		}
		var v any
		var size, kept int
		cutHere := slices.Contains(a.Truncated, k)
		switch k {
		case "storage":
			if a.Storage != nil {
				v, size, kept = storageArtifact(a.Storage)
				cutHere = cutHere || kept < size
			}
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
				entries := []scenarioHistoryEntry{}
				for _, e := range h.NavigationEntries {
					if len(entries) == 256 {
						break
					}
					t := e.Type
					if !slices.Contains([]string{"navigate", "reload", "back_forward", "prerender"}, t) {
						t = "unknown"
					}
					entries = append(entries, scenarioHistoryEntry{Type: t, Name: sanitizedURL(e.Name)})
				}
				v = scenarioHistory{Length: h.Length, CurrentURL: sanitizedURL(h.CurrentURL), NavigationEntries: entries}
			}
		}
		switch {
		case v == nil:
			*dst = artifactMissing{State: "missing", Reason: "the engine returned no " + k}
			missing = append(missing, k)
		case k == "dom" && cutHere:
			observed := max(a.DOMBytes, size)
			*dst = artifactTruncated{State: "truncated", Observed: observed, Retained: size, Value: v,
				Reason: "the serialized HTML is cut at the engine's size limit: value holds its first retained bytes of observed"}
			trunc = append(trunc, k)
		case k == "accessibility" && cutHere:
			// Read in part (a large page, node by node): the artifact
			// keeps its text, whose last line says what was not read, and
			// the step's truncated_sections list it, so no comparison
			// treats it as whole (the truncated state carries no text).
			*dst = artifactCaptured{State: "captured", Value: v}
			trunc = append(trunc, k)
		case k == "storage" && cutHere:
			*dst = artifactTruncated{State: "truncated", Observed: size, Retained: kept, Value: v,
				Reason: "each storage list keeps its first 512 items by name; observed counts the items of all three lists"}
			trunc = append(trunc, k)
		case cutHere:
			*dst = artifactTruncated{State: "truncated", Observed: size, Retained: size, Reason: "cut at the engine's size limit; the full size was not measured"}
			trunc = append(trunc, k)
		default:
			*dst = artifactCaptured{State: "captured", Value: v}
		}
	}
	return out, missing, trunc
}

// scenarioEventRecord is one event of a scenario capture: one struct per
// kind (the schema's union by kind), numbered once the events that cannot
// be represented are dropped.
type scenarioEventRecord interface{ setSequence(int) }

type (
	consoleEvent struct {
		Sequence  int              `json:"sequence"`
		StepIndex int              `json:"step_index"`
		Kind      string           `json:"kind"`
		Level     string           `json:"level"`
		Text      string           `json:"text"`
		URL       *WebSanitizedURL `json:"url"`
	}
	pageErrorEvent struct {
		Sequence  int     `json:"sequence"`
		StepIndex int     `json:"step_index"`
		Kind      string  `json:"kind"`
		Message   string  `json:"message"`
		Stack     *string `json:"stack"`
	}
	networkEvent struct {
		Sequence     int             `json:"sequence"`
		StepIndex    int             `json:"step_index"`
		Kind         string          `json:"kind"`
		Method       string          `json:"method"`
		URL          WebSanitizedURL `json:"url"`
		ResourceType string          `json:"resource_type"`
		HeaderNames  []string        `json:"header_names"`
		Status       *int            `json:"status"`
		Failure      *string         `json:"failure"`
	}
	urlEvent struct {
		Sequence  int             `json:"sequence"`
		StepIndex int             `json:"step_index"`
		Kind      string          `json:"kind"`
		URL       WebSanitizedURL `json:"url"`
	}
	frameEvent struct {
		Sequence     int             `json:"sequence"`
		StepIndex    int             `json:"step_index"`
		Kind         string          `json:"kind"`
		URL          WebSanitizedURL `json:"url"`
		PayloadBytes int             `json:"payload_bytes"`
		Truncated    bool            `json:"truncated"`
		PayloadType  string          `json:"payload_type"`
		PayloadText  *string         `json:"payload_text"`
	}
	frameNavigatedEvent struct {
		Sequence  int              `json:"sequence"`
		StepIndex int              `json:"step_index"`
		Kind      string           `json:"kind"`
		URL       *WebSanitizedURL `json:"url"` // null: no in-scope http(s) URL (Chromium's error page)
		Name      *string          `json:"name"`
	}
)

func (e *consoleEvent) setSequence(n int)        { e.Sequence = n }
func (e *pageErrorEvent) setSequence(n int)      { e.Sequence = n }
func (e *networkEvent) setSequence(n int)        { e.Sequence = n }
func (e *urlEvent) setSequence(n int)            { e.Sequence = n }
func (e *frameEvent) setSequence(n int)          { e.Sequence = n }
func (e *frameNavigatedEvent) setSequence(n int) { e.Sequence = n }

// scenarioEvent maps one engine event to its schema branch, or nil when
// it has none.
func scenarioEvent(e ports.BrowserScenarioEvent) scenarioEventRecord {
	u := sanitizedURL(e.URL)
	network := func(status *int, failure *string) scenarioEventRecord {
		method := e.Method
		if method == "" {
			method = "UNKNOWN"
		}
		rt := e.ResourceType
		if rt == "" {
			rt = "Other"
		}
		names := []string{}
		for _, n := range e.HeaderNames {
			if len(names) == 256 {
				break
			}
			names = append(names, truncate(n, 256))
		}
		return &networkEvent{StepIndex: e.StepIndex, Kind: e.Kind, Method: truncate(method, 32), URL: u, ResourceType: truncate(rt, 64),
			HeaderNames: names, Status: status, Failure: failure}
	}
	switch e.Kind {
	case "console":
		level := e.Level
		if level == "" {
			level = "log"
		}
		var cu *WebSanitizedURL
		if e.URL != "" {
			cu = &u
		}
		return &consoleEvent{StepIndex: e.StepIndex, Kind: e.Kind, Level: truncate(level, 64), Text: truncate(e.Text, 65536), URL: cu}
	case "page-error":
		var stack *string
		if e.Stack != "" {
			st := truncate(e.Stack, 262144)
			stack = &st
		}
		return &pageErrorEvent{StepIndex: e.StepIndex, Kind: e.Kind, Message: truncate(e.Text, 65536), Stack: stack}
	case "request":
		return network(nil, nil)
	case "response":
		if e.Status < 100 || e.Status > 599 {
			return nil
		}
		status := e.Status
		return network(&status, nil)
	case "request-failed":
		f := e.Failure
		if f == "" {
			f = "failed"
		}
		f = truncate(f, 1024)
		return network(nil, &f)
	case "websocket-opened", "websocket-closed":
		return &urlEvent{StepIndex: e.StepIndex, Kind: e.Kind, URL: u}
	case "websocket-frame-sent", "websocket-frame-received":
		if e.PayloadBinary {
			return &frameEvent{StepIndex: e.StepIndex, Kind: e.Kind, URL: u, PayloadBytes: e.PayloadBytes, PayloadType: "binary"}
		}
		text := truncate(e.Text, 65536)
		return &frameEvent{StepIndex: e.StepIndex, Kind: e.Kind, URL: u, PayloadBytes: e.PayloadBytes, PayloadType: "text",
			PayloadText: &text, Truncated: e.PayloadTruncated || len(text) < len(e.Text)}
	case "frame-navigated", "frame-attached", "frame-detached":
		var fu *WebSanitizedURL
		if e.URL != "" {
			fu = &u
		}
		return &frameNavigatedEvent{StepIndex: e.StepIndex, Kind: e.Kind, URL: fu}
	}
	return nil
}

// scenarioErr is browserErr in capture_browser_scenario's own terms. The
// engine names a step's fields and actions its way (url, selector, text,
// secret_id; navigate, type, wait) where the caller wrote destination,
// locator and value, goto, fill and wait_for_timeout, and its field paths
// are slash-joined; and the browser it could not reach is one it launches
// itself, so the advice is about browser.executable_path, not a
// cdp_endpoint this tool does not take.
func scenarioErr(op string, err error) error {
	if be, ok := ports.AsBrowserError(err); ok && be.Code == ports.BrowserInvalidRequest {
		return core.InvalidRequest(op, core.Issue{Path: scenarioPath(be.Field), Reason: core.ReasonInvalidValue, Message: scenarioTerms.Replace(be.Error())})
	}
	out := browserErr(op, err)
	var ce *core.Error
	if errors.As(out, &ce) {
		if r, ok := scenarioRemediation[ce.Code]; ok {
			ce.Remediation = r
		}
		if be, ok := ports.AsBrowserError(err); ok && be.Code == ports.BrowserSecretUnavailable {
			// The call cannot carry the value: it is read from the
			// server's own environment, so the fix is outside the call.
			ce.Remediation = "Set the environment variable this secret's environment_variable names in the environment rea serve starts with, " +
				"then restart it and call again; or, for a value that is not secret, pass it as {source: literal, value}."
		}
	}
	return out
}

var scenarioTerms = strings.NewReplacer("navigate needs", "goto needs", "type needs a selector", "fill needs a locator",
	"click needs a selector", "click needs a locator", "on a type step", "on a fill step", "wait needs", "wait_for_timeout needs")

// scenarioFields maps the engine's step fields to the input's.
var scenarioFields = map[string]string{"url": "destination", "selector": "locator", "text": "value", "secret_id": "value"}

// scenarioPath turns an engine field ("actions/1/url", "start_url") into
// the input's issue path (["actions", 1, "destination"], ["start_url", "url"]).
func scenarioPath(field string) []any {
	if field == "" {
		return []any{}
	}
	if field == "start_url" {
		return []any{"start_url", "url"}
	}
	parts := strings.Split(field, "/")
	path := make([]any, 0, len(parts))
	for i, p := range parts {
		if n, err := strconv.Atoi(p); err == nil {
			path = append(path, n)
			continue
		}
		if i == 2 && parts[0] == "actions" && scenarioFields[p] != "" {
			p = scenarioFields[p]
		}
		path = append(path, p)
	}
	return path
}

var scenarioRemediation = map[core.Code]string{
	core.CodeProviderUnavailable: "capture_browser_scenario launches its own Chromium: install it (Debian: apt-get install chromium) or pass " +
		"browser.executable_path naming a Chromium executable, then call again; a browser that crashed during the run also ends here.",
}
