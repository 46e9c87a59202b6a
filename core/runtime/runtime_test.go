package runtime_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/runtime"
	"rea/core/standard"
	"rea/ports"
	"rea/ports/portstest"
)

var (
	catOnce sync.Once
	cat     *core.Catalog
	catErr  error
)

func session(t *testing.T, r ports.JavaScriptRuntimeObserver) *core.Session {
	t.Helper()
	catOnce.Do(func() {
		if cat, catErr = standard.Catalog(); catErr == nil {
			cat.SetCheckOutputs(true)
		}
	})
	if catErr != nil {
		t.Fatal(catErr)
	}
	opts := &core.RegistryOptions{JavaScript: portstest.FakeJS{}}
	if r != nil {
		opts.Runtime = r
	}
	reg, err := core.NewRegistry(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return core.NewSession(cat, reg, nil)
}

func call(t *testing.T, s *core.Session, name string, args any) (map[string]any, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(context.Background(), name, raw, nil)
	if err != nil {
		return nil, err
	}
	b, err := res.StructuredJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m, nil
}

func mustCall(t *testing.T, s *core.Session, name string, args any) map[string]any {
	t.Helper()
	m, err := call(t, s, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func result(m map[string]any) map[string]any { return m["normalized_result"].(map[string]any) }

func retained(m map[string]any) map[string]any {
	return map[string]any{"kind": "retained-evidence", "evidence_id": m["evidence_id"]}
}

func codeOf(err error) core.Code {
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

// app writes a small application and returns its root and the files'
// SHA-256 digests.
func app(t *testing.T) (string, map[string]string) {
	dir := t.TempDir()
	files := map[string]string{
		"package.json":  `{"name":"app","version":"1.0.0","type":"module","main":"main.mjs"}`,
		"main.mjs":      "import './lib/used.mjs';\n",
		"lib/used.mjs":  "export const used = 1;\n",
		"lib/never.mjs": "export const never = 1;\n",
		"lib/twin1.mjs": "export const twin = 1;\n",
		"lib/twin2.mjs": "export const twin = 1;\n",
	}
	sums := map[string]string{}
	for p, body := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256([]byte(body))
		sums[p] = hex.EncodeToString(s[:])
	}
	return dir, sums
}

func script(id, path, hash string) ports.RuntimeScript {
	return ports.RuntimeScript{ScriptID: id, ContextID: 1, Location: ports.RuntimeLocation{Kind: "file", FilePath: path}, CDPHash: hash, Length: 10, IsModule: true}
}

func TestObserveAndReconcile(t *testing.T) {
	is := is.New(t)
	dir, sums := app(t)
	f := portstest.NewRuntimeFake(dir)
	f.Scripts = []ports.RuntimeScript{
		script("1", dir+"/main.mjs", sums["main.mjs"]),
		script("2", dir+"/lib/used.mjs", sums["lib/used.mjs"]),
		script("3", dir+"/lib/twin1.mjs", sums["lib/twin1.mjs"]),                  // content shared by two files, location decides
		script("4", "/elsewhere/copy.mjs", sums["lib/used.mjs"]),                  // unique content, no location
		script("5", dir+"/lib/changed.mjs", hex.EncodeToString(make([]byte, 32))), // under the root, no such content
		script("6", "/opt/other.mjs", hex.EncodeToString(make([]byte, 32))),       // no mapping at all
	}
	s := session(t, f)
	list := result(mustCall(t, s, "list_javascript_runtime_targets", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229"}))
	is.Equal(len(list["targets"].(map[string]any)["items"].([]any)), 1)
	obs := mustCall(t, s, "observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1", "runtime_kind": "node"})
	o := result(obs)
	is.Equal(o["target"].(map[string]any)["runtime_kind_authority"], "caller-declared-unverified")
	is.Equal(len(o["scripts"].(map[string]any)["items"].([]any)), 6)
	is.Equal(obs["predicate_type"], "rea.javascript-runtime-observation/v1")
	is.Equal(obs["provider"].(map[string]any)["id"], "rea-v8-inspector")

	an := mustCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	rec := mustCall(t, s, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": retained(an)}},
		"runtime_observations": []any{retained(obs)},
	})
	is.Equal(rec["authority"], "analyst-inference")
	is.Equal(rec["confidence"], "inferred")
	r := result(rec)
	reasons := map[string]int{}
	for _, it := range r["reconciliations"].([]any) {
		m := it.(map[string]any)
		reasons[m["status"].(string)+"/"+m["reason"].(string)]++
	}
	is.Equal(reasons, map[string]int{
		"matched/content-and-location-match":     3,
		"matched/unique-content-match":           1,
		"unmatched/no-static-content-match":      1,
		"unknown/no-authorized-location-mapping": 1,
	})
	states := map[string]string{}
	for _, st := range r["static_load_states"].([]any) {
		m := st.(map[string]any)
		states[m["path"].(string)] = m["state"].(string)
	}
	is.Equal(states["main.mjs"], "loaded")
	is.Equal(states["lib/used.mjs"], "loaded")
	is.Equal(states["lib/never.mjs"], "not-observed-in-capture")
	is.Equal(states["lib/twin2.mjs"], "not-observed-in-capture")
	edges := r["graph"].(map[string]any)["edges"].([]any)
	is.Equal(len(edges), 4)
	is.Equal(edges[0].(map[string]any)["relation"], "observed_as")
	is.Equal(r["coverage"].(map[string]any)["status"], "complete-within-inputs")

	// The same inputs inline give the same reconciliation.
	rec2 := mustCall(t, s, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": an}},
		"runtime_observations": []any{obs},
	})
	is.Equal(result(rec2)["reconciliation_id"], r["reconciliation_id"])
	is.Equal(rec2["evidence_id"], rec["evidence_id"]) // parameters hold references either way
	layerEv := r["static_layers"].([]any)[0].(map[string]any)["evidence_id"]
	if p, ok := result(an)["parent_evidence_id"].(string); ok && result(an)["graph"] == nil {
		is.Equal(layerEv, p) // the summary view was followed to its retained parent
	} else {
		is.Equal(layerEv, an["evidence_id"])
	}

	// The results decode into the operations' Go types, field for field.
	for _, tc := range []struct {
		m map[string]any
		v any
	}{{rec, &runtime.ReconcileJavaScriptRuntimeResult{}}, {obs, &runtime.ObserveJavaScriptRuntimeResult{}}} {
		b, _ := json.Marshal(result(tc.m))
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		is.NoErr(dec.Decode(tc.v))
	}
}

func TestReconcileRejectsWrongInputs(t *testing.T) {
	dir, _ := app(t)
	f := portstest.NewRuntimeFake(dir)
	s := session(t, f)
	obs := mustCall(t, s, "observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1"})
	an := mustCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	list := mustCall(t, s, "list_javascript_runtime_targets", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229"})
	cases := []struct {
		name string
		args map[string]any
		want core.Code
	}{
		{"observation as the static layer", map[string]any{"static_layers": []any{map[string]any{"role": "application", "analysis": retained(obs)}}, "runtime_observations": []any{retained(obs)}}, core.CodeEvidenceIntegrityMismatch},
		{"analysis as an observation", map[string]any{"static_layers": []any{map[string]any{"role": "application", "analysis": retained(an)}}, "runtime_observations": []any{retained(an)}}, core.CodeEvidenceIntegrityMismatch},
		{"a target list as an observation", map[string]any{"static_layers": []any{map[string]any{"role": "application", "analysis": retained(an)}}, "runtime_observations": []any{retained(list)}}, core.CodeEvidenceIntegrityMismatch},
		{"two application layers", map[string]any{"static_layers": []any{map[string]any{"role": "application", "analysis": retained(an)}, map[string]any{"role": "application", "analysis": retained(an)}}, "runtime_observations": []any{retained(obs)}}, core.CodeInvalidRequest},
		{"no application layer", map[string]any{"static_layers": []any{map[string]any{"role": "cache", "analysis": retained(an)}}, "runtime_observations": []any{retained(obs)}}, core.CodeInvalidRequest},
		{"tampered inline evidence", map[string]any{"static_layers": []any{map[string]any{"role": "application", "analysis": retained(an)}}, "runtime_observations": []any{tamper(obs)}}, core.CodeEvidenceIntegrityMismatch},
		{"missing reference", map[string]any{"static_layers": []any{map[string]any{"role": "application", "analysis": retained(an)}}, "runtime_observations": []any{map[string]any{"kind": "retained-evidence", "evidence_id": "ev_" + hex.EncodeToString(make([]byte, 32))}}}, core.CodeEvidenceIntegrityMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(t, s, "reconcile_javascript_runtime", tc.args)
			if got := codeOf(err); got != tc.want {
				t.Fatalf("got %v (%v), want %s", got, err, tc.want)
			}
		})
	}
}

func tamper(ev map[string]any) map[string]any {
	b, _ := json.Marshal(ev)
	var c map[string]any
	json.Unmarshal(b, &c)
	c["normalized_result"].(map[string]any)["schema_version"] = 2
	return c
}

func TestRuntimeErrorsAreTyped(t *testing.T) {
	dir, _ := app(t)
	f := portstest.NewRuntimeFake(dir)
	s := session(t, f)
	for _, tc := range []struct {
		args map[string]any
		want core.Code
	}{
		{map[string]any{"inspector_endpoint": "http://192.168.1.2:9229", "target_id": "N1"}, core.CodeInvalidRequest},
		{map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "X"}, core.CodeTargetUnavailable},
		{map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1", "runtime_kind": "electron-preload"}, core.CodeTargetUnavailable},
		{map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1", "runtime_kind": "bun"}, core.CodeInvalidRequest},
	} {
		_, err := call(t, s, "observe_javascript_runtime", tc.args)
		if got := codeOf(err); got != tc.want {
			t.Errorf("%v: got %v (%v), want %s", tc.args, got, err, tc.want)
		}
	}
	f.Err = &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "refused"}
	_, err := call(t, s, "list_javascript_runtime_targets", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229"})
	if codeOf(err) != core.CodeProviderUnavailable {
		t.Errorf("unreachable: got %v", err)
	}
	var ce *core.Error
	if !errors.As(err, &ce) || !strings.Contains(ce.Envelope().Error.Remediation.Action, "--inspect") {
		t.Errorf("unreachable: the remediation does not say how to start an inspector: %v", err)
	}
	// Without an engine the tools are capability_unavailable.
	_, err = call(t, session(t, nil), "observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1"})
	if codeOf(err) != core.CodeCapabilityUnavailable {
		t.Errorf("no engine: got %v", err)
	}
}

// A target lost mid-window fails as disconnected (provider_unavailable),
// and the error's details carry the partial observation, normalized like a
// result, with the limitation naming the loss. Before, the details held
// only the operation and the reason.
func TestObserveDisconnectKeepsThePartialObservation(t *testing.T) {
	dir, _ := app(t)
	f := portstest.NewRuntimeFake(dir)
	s := session(t, f)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Err = &ports.PartialError[ports.RuntimeObservation]{
		Err: &ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "the target went away during the observation"},
		Partial: &ports.RuntimeObservation{Target: f.Targets[0], StartedAt: now, EndedAt: now.Add(40 * time.Millisecond), ObservationMS: 5000,
			Scripts:     []ports.RuntimeScript{script("1", filepath.Join(dir, "main.js"), strings.Repeat("a", 64))},
			Contexts:    []ports.RuntimeContext{{ContextID: 1, Name: "main", State: "live"}},
			Limitations: []string{"The target went away 40 ms into the 5000 ms window"}},
	}
	_, err := call(t, s, "observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": f.Targets[0].TargetID, "runtime_kind": "node"})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeProviderUnavailable {
		t.Fatalf("got %v, want provider_unavailable", err)
	}
	b, _ := json.Marshal(ce.Envelope())
	var env struct {
		Error struct {
			Details struct {
				Reason  string `json:"reason"`
				Partial *struct {
					Capture struct {
						ObservationMS int `json:"observation_ms"`
					} `json:"capture"`
					Scripts struct {
						Items []map[string]any `json:"items"`
					} `json:"scripts"`
					ExecutionContexts []map[string]any `json:"execution_contexts"`
					Limitations       []string         `json:"limitations"`
				} `json:"partial_observation"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	d := env.Error.Details
	if d.Reason != "disconnected" || d.Partial == nil {
		t.Fatalf("details: %s", b)
	}
	if d.Partial.Capture.ObservationMS != 5000 || len(d.Partial.Scripts.Items) != 1 || len(d.Partial.ExecutionContexts) != 1 ||
		!strings.Contains(strings.Join(d.Partial.Limitations, "\n"), "went away") {
		t.Errorf("partial observation: %s", b)
	}
	// The remediation says the process ended and what to do about a
	// process rea did not start.
	if !strings.Contains(ce.Remediation, "process ended") || !strings.Contains(ce.Remediation, "start it again with --inspect") {
		t.Errorf("remediation: %q", ce.Remediation)
	}
}

// A page lost mid-window fails as disconnected (provider_unavailable), as
// observe_javascript_runtime does, and the details carry the partial
// capture normalized like a result, with the limitation naming the loss
// and the sections not read marked unavailable. Before, the details held
// only the operation and the reason.
func TestInspectElectronPageDisconnectKeepsThePartialCapture(t *testing.T) {
	dir, sums := app(t)
	f := portstest.NewRuntimeFake(dir)
	s := session(t, f)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Page = &ports.ElectronPageCapture{Target: ports.ElectronTarget{TargetID: "P1", Type: "page", FilePath: dir + "/index.html"}}
	f.Err = &ports.PartialError[ports.ElectronPageCapture]{
		Err: &ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "target_terminated: the target closed or detached during the call"},
		Partial: &ports.ElectronPageCapture{Browser: ports.BrowserInfo{Product: "Electron/31", Revision: "r"},
			Target:        ports.ElectronTarget{TargetID: "P1", Type: "page", Title: "App", FilePath: dir + "/index.html"},
			CaptureWindow: ports.BrowserCaptureWindow{StartedAt: now, EndedAt: now.Add(40 * time.Millisecond), ObservationMS: 5000},
			Frames:        []ports.ElectronFrame{{FrameID: "F1", FilePath: dir + "/index.html"}},
			Scripts:       []ports.ElectronScript{{ScriptID: "1", FrameID: "F1", FilePath: dir + "/main.mjs", CDPHash: sums["main.mjs"], Length: 25, IsModule: true}},
			ScriptsTotal:  1,
			Completeness: ports.BrowserCompleteness{Unavailable: []ports.BrowserUnavailable{{Section: "dom", Reason: "provider_unavailable"},
				{Section: "resources", Reason: "provider_unavailable"}, {Section: "workers", Reason: "provider_unavailable"}}},
			Limitations: []string{"The page went away 40 ms into the 5000 ms window"}},
	}
	_, err := call(t, s, "inspect_electron_page", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222", "target_id": "P1", "observation_ms": 5000})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeProviderUnavailable {
		t.Fatalf("got %v, want provider_unavailable", err)
	}
	b, _ := json.Marshal(ce.Envelope())
	var env struct {
		Error struct {
			Details struct {
				Reason  string `json:"reason"`
				Partial *struct {
					CaptureWindow struct {
						ObservationMS int `json:"observation_ms"`
					} `json:"capture_window"`
					Completeness struct {
						Status string `json:"status"`
					} `json:"completeness"`
					Frames  []map[string]any `json:"frames"`
					Scripts struct {
						Items []map[string]any `json:"items"`
					} `json:"scripts"`
					Limitations []string `json:"limitations"`
				} `json:"partial_observation"`
			} `json:"details"`
			Remediation struct {
				Action string `json:"action"`
			} `json:"remediation"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	d := env.Error.Details
	if d.Reason != "disconnected" || d.Partial == nil {
		t.Fatalf("details: %s", b)
	}
	if d.Partial.CaptureWindow.ObservationMS != 5000 || d.Partial.Completeness.Status != "partial" || len(d.Partial.Frames) != 1 ||
		len(d.Partial.Scripts.Items) != 1 || !strings.Contains(strings.Join(d.Partial.Limitations, "\n"), "went away") {
		t.Errorf("partial observation: %s", b)
	}
	if !strings.Contains(env.Error.Remediation.Action, "partial_observation") {
		t.Errorf("the remediation does not point at the partial capture: %s", b)
	}
}

func TestElectronToolsNormalize(t *testing.T) {
	is := is.New(t)
	dir, sums := app(t)
	f := portstest.NewRuntimeFake(dir)
	size, nine := 12.0, 9
	f.Page = &ports.ElectronPageCapture{Browser: ports.BrowserInfo{Product: "Electron/31", Revision: "r"},
		Target:       ports.ElectronTarget{TargetID: "P1", Type: "page", Title: "App", FilePath: dir + "/index.html"},
		Frames:       []ports.ElectronFrame{{FrameID: "F1", FilePath: dir + "/index.html"}},
		Scripts:      []ports.ElectronScript{{ScriptID: "1", FrameID: "F1", FilePath: dir + "/main.mjs", CDPHash: sums["main.mjs"], Length: 25, IsModule: true, Language: "JavaScript"}},
		Resources:    []ports.ElectronResource{{FrameID: "F1", FilePath: dir + "/main.mjs", Type: "Script", MimeType: "text/javascript", ContentSize: &size}},
		ScriptsTotal: 1}
	f.Scenario = &ports.ElectronScenarioCapture{ExecutablePath: "/opt/e/electron", ApplicationPath: dir, ElectronVersion: "31.0.0", Status: "complete",
		Actions:     []ports.ElectronActionResult{{StepID: "s1", Kind: "click", Status: "completed", ElapsedMS: 5}},
		IPC:         []ports.ElectronEvent{{Sequence: 0, Family: "ipc", Kind: "invoke", Phase: "observed", Channel: "dialog:open", Direction: "renderer-to-main", ArgumentShapes: []string{"object{path}"}}},
		IPCObserved: 1, Processes: []ports.ElectronProcess{{PID: 42, Role: "main"}}, ObservedRoles: []string{"main"},
		EndedProcesses: []ports.ElectronEndedProcess{{PID: 43, Role: "renderer", Reason: "crashed", ExitCode: &nine}, {Role: "gpu", Reason: "killed"}}}
	s := session(t, f)
	l := result(mustCall(t, s, "list_electron_targets", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222"}))
	is.Equal(len(l["targets"].(map[string]any)["items"].([]any)), 1)
	pg := mustCall(t, s, "inspect_electron_page", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222", "target_id": "P1"})
	is.Equal(pg["predicate_type"], "rea.electron-page-inspection/v1")
	sc := mustCall(t, s, "capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": "/opt/e/electron", "application_path": dir,
		"actions": []any{map[string]any{"step_id": "s1", "kind": "click", "selector": "#open"}}})
	is.Equal(sc["predicate_type"], "rea.electron-active-scenario/v1")
	is.Equal(sc["environment"].(map[string]any)["isolation"], "process")
	ipc := result(sc)["ipc"].(map[string]any)
	is.Equal(ipc["retained"], 1.0)
	// Processes gone before the snapshot are listed with their exit; an
	// unnamed pid and a missing exit code are null.
	procs := result(sc)["processes"].(map[string]any)
	is.Equal(len(procs["items"].([]any)), 1)
	is.Equal(procs["ended"], []any{map[string]any{"pid": 43.0, "role": "renderer", "reason": "crashed", "exit_code": 9.0},
		map[string]any{"pid": nil, "role": "gpu", "reason": "killed", "exit_code": nil}})
	an := mustCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	rec := result(mustCall(t, s, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": retained(an)}},
		"runtime_observations": []any{retained(pg), retained(sc)},
	}))
	kinds := map[string]string{}
	for _, it := range rec["reconciliations"].([]any) {
		m := it.(map[string]any)
		kinds[m["entity_kind"].(string)] = m["status"].(string)
	}
	is.Equal(kinds["script"], "matched")
	is.Equal(kinds["ipc-channel"], "unmatched") // the fake JavaScript engine finds no IPC channels
	_, err := call(t, s, "capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": "/opt/e/electron", "application_path": dir,
		"actions": []any{map[string]any{"step_id": "s1", "kind": "click"}}})
	is.Equal(codeOf(err), core.CodeInvalidRequest)
	f.Err = &ports.BrowserError{Code: ports.BrowserCleanupFailed, Cleanup: "incomplete", Resources: []string{"process"}}
	_, err = call(t, s, "capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": "/opt/e/electron", "application_path": dir})
	is.Equal(codeOf(err), core.CodeCleanupIncomplete)
	var ce *core.Error
	errors.As(err, &ce)
	is.Equal(ce.Details["partial_observation"], nil) // nothing was observed
	// The app exited before its hook connected: the advice is about the
	// executable, not to use the tool that just failed.
	f.Err = &ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "target_exited"}
	_, err = call(t, s, "capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": "/opt/e/electron", "application_path": dir})
	is.Equal(codeOf(err), core.CodeProviderUnavailable)
	errors.As(err, &ce)
	is.True(strings.Contains(ce.Envelope().Error.Remediation.Action, "executable_path"))
	// A timeout names the limits to raise.
	f.Err = &ports.BrowserError{Code: ports.BrowserTimeout, Msg: "the application's hook did not connect within limits.duration_ms (1000 ms)"}
	_, err = call(t, s, "capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": "/opt/e/electron", "application_path": dir})
	is.Equal(codeOf(err), core.CodeProviderTimeout)
	errors.As(err, &ce)
	is.True(strings.HasPrefix(ce.Envelope().Error.Remediation.Action, "Pass a larger limits.duration_ms"))
	// A run that failed after the hook connected carries what it saw,
	// normalized like a result.
	partial := *f.Scenario
	partial.Status = "cleanup_failed"
	f.Err = &ports.ElectronScenarioError{Err: &ports.BrowserError{Code: ports.BrowserCleanupFailed, Cleanup: "incomplete", Resources: []string{"process"}}, Partial: &partial}
	_, err = call(t, s, "capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": "/opt/e/electron", "application_path": dir})
	is.Equal(codeOf(err), core.CodeCleanupIncomplete)
	errors.As(err, &ce)
	var po map[string]any
	b, _ := json.Marshal(ce.Details["partial_observation"])
	is.NoErr(json.Unmarshal(b, &po))
	is.True(po != nil)
	is.Equal(po["coverage"].(map[string]any)["status"], "cleanup_failed")
	is.Equal(len(po["actions"].([]any)), 1)
	is.Equal(ce.Details["resources"], []string{"process"})
}

// TestReconcileWebPageObservation: inspect_web_page Evidence is a runtime
// capture: a file: page's scripts map under the analyzed root and match by
// content; an http(s) script matches through an operator url-prefix
// mapping; other browser Evidence (a target list) is refused with a typed
// error naming the producers accepted.
func TestReconcileWebPageObservation(t *testing.T) {
	is := is.New(t)
	dir, sums := app(t)
	b := portstest.NewBrowserFake()
	b.Pages = append(b.Pages, ports.BrowserTarget{TargetID: "F1", Type: "page", Title: "App", URL: "file://" + dir + "/index.html", Origin: "null"})
	b.Capture = &ports.BrowserPageCapture{Scripts: []ports.BrowserScript{
		{ScriptID: "1", FrameID: "M", URL: "file://" + dir + "/main.mjs", CDPHash: sums["main.mjs"], Length: 25, IsModule: true, Language: "JavaScript"},
		{ScriptID: "2", FrameID: "M", URL: "file://" + dir + "/lib/used.mjs", CDPHash: sums["lib/used.mjs"], Length: 23, IsModule: true, Language: "JavaScript"},
		{ScriptID: "3", FrameID: "M", URL: "http://app.test/static/twin2.mjs", Length: 23, IsModule: true, Language: "JavaScript"},
		{ScriptID: "4", FrameID: "M", URL: "file://" + dir + "/lib%2Fnever.mjs", CDPHash: hex.EncodeToString(make([]byte, 32)), Length: 1},
	}, ScriptsTotal: 4}
	catOnce.Do(func() {
		if cat, catErr = standard.Catalog(); catErr == nil {
			cat.SetCheckOutputs(true)
		}
	})
	is.NoErr(catErr)
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{JavaScript: portstest.FakeJS{}, Browser: b})
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	page := mustCall(t, s, "inspect_web_page", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222", "target_id": "F1"})
	is.Equal(page["predicate_type"], "rea.web-page-inspection/v2")
	an := mustCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	rec := result(mustCall(t, s, "reconcile_javascript_runtime", map[string]any{
		"static_layers": []any{map[string]any{"role": "application", "analysis": retained(an),
			"runtime_mappings": []any{map[string]any{"kind": "url-prefix", "prefix": "http://app.test/static/", "artifact_prefix": "lib"}}}},
		"runtime_observations": []any{retained(page)},
	}))
	is.Equal(rec["runtime_captures"].([]any)[0].(map[string]any)["kind"], "browser")
	reasons := map[string]int{}
	for _, it := range rec["reconciliations"].([]any) {
		m := it.(map[string]any)
		reasons[m["status"].(string)+"/"+m["reason"].(string)+"/"+fmtNil(m["basis"])]++
	}
	is.Equal(reasons, map[string]int{
		"matched/content-and-location-match/content-sha256":  2, // main.mjs, lib/used.mjs
		"matched/unique-location-match/operator-url-mapping": 1, // no hash: the mapped location alone, medium confidence
		"unknown/no-authorized-location-mapping/<nil>":       1, // an escaped separator is no file location
	})
	states := map[string]string{}
	for _, st := range rec["static_load_states"].([]any) {
		m := st.(map[string]any)
		states[m["path"].(string)] = m["state"].(string)
	}
	is.Equal(states["main.mjs"], "loaded")
	is.Equal(states["lib/twin2.mjs"], "loaded")
	is.Equal(states["lib/never.mjs"], "not-observed-in-capture")

	list := mustCall(t, s, "list_browser_targets", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222"})
	_, err = call(t, s, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": retained(an)}},
		"runtime_observations": []any{retained(list)},
	})
	is.Equal(codeOf(err), core.CodeEvidenceIntegrityMismatch)
	var ce *core.Error
	errors.As(err, &ce)
	is.Equal(ce.Details["reason"], "wrong_operation")
	is.True(strings.Contains(ce.Details["expected"].(string), "inspect_web_page"))
}

func fmtNil(v any) string {
	if v == nil {
		return "<nil>"
	}
	return v.(string)
}

// electronApp writes an Electron-shaped application whose main process
// (package.json main) requires a module of its own, and a renderer page.
func electronApp(t *testing.T) (string, map[string]string) {
	dir := t.TempDir()
	files := map[string]string{
		"package.json": `{"name":"e","version":"1.0.0","main":"main.js","devDependencies":{"electron":"31.0.0"}}`,
		"main.js":      "const { BrowserWindow } = require('electron');\nrequire('./lib/menu.js');\n",
		"lib/menu.js":  "module.exports = 1;\n",
		"index.html":   "<script src=\"renderer.js\"></script>",
		"renderer.js":  "document.title = 'x';\n",
		"worker.js":    "self.onmessage = () => {};\n",
	}
	sums := map[string]string{}
	for p, body := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256([]byte(body))
		sums[p] = hex.EncodeToString(s[:])
	}
	return dir, sums
}

func loadStates(rec map[string]any) map[string][2]string {
	out := map[string][2]string{}
	for _, s := range rec["static_load_states"].([]any) {
		m := s.(map[string]any)
		out[m["path"].(string)] = [2]string{m["state"].(string), m["reason"].(string)}
	}
	return out
}

// TestReconcileMainProcessModulesUnknownFromRendererCapture: a renderer
// page capture (inspect_electron_page) sees the renderer's scripts only.
// The main process's modules were reported not-observed-in-capture from
// it, as if the run had not loaded them, though the application cannot
// run without its main process; they are unknown, with the reason.
func TestReconcileMainProcessModulesUnknownFromRendererCapture(t *testing.T) {
	is := is.New(t)
	dir, sums := electronApp(t)
	f := portstest.NewRuntimeFake(dir)
	f.Page = &ports.ElectronPageCapture{Browser: ports.BrowserInfo{Product: "Electron/31", Revision: "r"},
		Target:       ports.ElectronTarget{TargetID: "P1", Type: "page", Title: "App", FilePath: dir + "/index.html"},
		Frames:       []ports.ElectronFrame{{FrameID: "F1", FilePath: dir + "/index.html"}},
		Scripts:      []ports.ElectronScript{{ScriptID: "1", FrameID: "F1", FilePath: dir + "/renderer.js", CDPHash: sums["renderer.js"], Length: 21, Language: "JavaScript"}},
		ScriptsTotal: 1}
	s := session(t, f)
	pg := mustCall(t, s, "inspect_electron_page", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222", "target_id": "P1"})
	an := mustCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	rec := result(mustCall(t, s, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": retained(an)}},
		"runtime_observations": []any{retained(pg)},
	}))
	st := loadStates(rec)
	is.Equal(st["renderer.js"][0], "loaded")
	is.Equal(st["worker.js"][0], "not-observed-in-capture") // not tied to a process: the page capture's scope
	for _, p := range []string{"main.js", "lib/menu.js"} {
		is.Equal(st[p], [2]string{"unknown", "the module runs in the Electron main process, whose script loads no complete capture observed " +
			"(observe_javascript_runtime on the main process's inspector target does)"})
	}
	// A complete observation of the main process's node target covers it.
	f.Scripts = []ports.RuntimeScript{script("1", dir+"/main.js", sums["main.js"])}
	obs := mustCall(t, s, "observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1", "runtime_kind": "electron-main"})
	rec = result(mustCall(t, s, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": retained(an)}},
		"runtime_observations": []any{retained(pg), retained(obs)},
	}))
	st = loadStates(rec)
	is.Equal(st["main.js"][0], "loaded")
	is.Equal(st["lib/menu.js"][0], "not-observed-in-capture")
}

// TestReconcileElectronPageWorkersAreLoaded: inspect_electron_page lists
// the page's workers with their gated files; reconciliation ignored them,
// so a worker script the capture saw running stayed unknown ("a passive
// observation ... does not see") or not-observed-in-capture. A worker's
// file is now a runtime script matched by location (it has no hash).
func TestReconcileElectronPageWorkersAreLoaded(t *testing.T) {
	is := is.New(t)
	dir, sums := electronApp(t)
	f := portstest.NewRuntimeFake(dir)
	f.Page = &ports.ElectronPageCapture{Browser: ports.BrowserInfo{Product: "Electron/31", Revision: "r"},
		Target:       ports.ElectronTarget{TargetID: "P1", Type: "page", Title: "App", FilePath: dir + "/index.html"},
		Frames:       []ports.ElectronFrame{{FrameID: "F1", FilePath: dir + "/index.html"}},
		Scripts:      []ports.ElectronScript{{ScriptID: "1", FrameID: "F1", FilePath: dir + "/renderer.js", CDPHash: sums["renderer.js"], Length: 21, Language: "JavaScript"}},
		Workers:      []ports.ElectronWorker{{TargetID: "W1", Type: "worker", FilePath: dir + "/worker.js"}},
		ScriptsTotal: 1}
	s := session(t, f)
	pg := mustCall(t, s, "inspect_electron_page", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222", "target_id": "P1"})
	an := mustCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	rec := result(mustCall(t, s, "reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": retained(an)}},
		"runtime_observations": []any{retained(pg)},
	}))
	is.Equal(loadStates(rec)["worker.js"][0], "loaded")
	found := false
	for _, it := range rec["reconciliations"].([]any) {
		m := it.(map[string]any)
		if m["reason"] == "unique-location-match" {
			found = true
			is.Equal(m["entity_kind"], "script")
			is.Equal(m["status"], "matched")
			is.Equal(m["confidence"], "medium")
			is.Equal(m["basis"], "artifact-path")
		}
	}
	is.True(found)
}

// TestObservePageTargetNamesItsWorkersHonestly: the NodeWorker domain is
// Node's; for a page (or a worker) target the limitation named it anyway,
// pointing an agent at a Node mechanism a browser does not have. A page's
// workers are targets of their own that the list tool shows.
func TestObservePageTargetNamesItsWorkersHonestly(t *testing.T) {
	is := is.New(t)
	dir, _ := app(t)
	f := portstest.NewRuntimeFake(dir)
	f.Targets = append(f.Targets, ports.RuntimeTarget{TargetID: "P1", ProtocolType: "page", Title: "App",
		Location: ports.RuntimeLocation{Kind: "file", FilePath: dir + "/main.mjs"}})
	s := session(t, f)
	worker := func(target string) string {
		r := result(mustCall(t, s, "observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": target}))
		for _, u := range r["unavailable_without_instrumentation"].([]any) {
			if strings.Contains(u.(string), "worker") {
				return u.(string)
			}
		}
		return ""
	}
	is.Equal(worker("N1"), "worker thread scripts (the NodeWorker domain is not enabled by a passive observation)")
	is.Equal(worker("P1"), "scripts of the workers the target started (each worker is a target of its own, which list_javascript_runtime_targets lists)")
}

// TestKindMismatchRemediationNamesTheKinds: observing a node target as an
// Electron page is refused, and the advice says which runtime_kind fits
// which target. Before, the advice was only "Check the target id or path
// and its scope: list the targets again, and keep files inside
// allowed_file_roots or application_root", which does not mention the kind
// the agent got wrong.
func TestKindMismatchRemediationNamesTheKinds(t *testing.T) {
	dir, _ := app(t)
	s := session(t, portstest.NewRuntimeFake(dir))
	_, err := call(t, s, "observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1", "runtime_kind": "electron-renderer"})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeTargetUnavailable {
		t.Fatalf("got %v, want target_unavailable", err)
	}
	if a := ce.Envelope().Error.Remediation.Action; !strings.Contains(a, "runtime_kind node or electron-main for a node target") {
		t.Errorf("the remediation does not say which runtime_kind fits: %q", a)
	}
}

// TestScenarioMissingFileAdviceNamesThePaths: capture_electron_scenario with
// an executable_path or application_path that does not exist is told to fix
// those paths, not to "list the targets again", which this tool has none
// of. Before, on a machine without Electron the advice was "Check the target
// id or path and its scope: list the targets again, and keep files inside
// allowed_file_roots or application_root".
func TestScenarioMissingFileAdviceNamesThePaths(t *testing.T) {
	dir, _ := app(t)
	f := portstest.NewRuntimeFake(dir)
	s := session(t, f)
	f.Err = &ports.BrowserError{Code: ports.BrowserTargetNotFound, Msg: "executable_path does not exist: /opt/e/electron"}
	_, err := call(t, s, "capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": "/opt/e/electron", "application_path": dir})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeTargetUnavailable {
		t.Fatalf("got %v, want target_unavailable", err)
	}
	a := ce.Envelope().Error.Remediation.Action
	if strings.Contains(a, "list the targets") || !strings.Contains(a, "executable_path") || !strings.Contains(a, "npm install electron") {
		t.Errorf("the remediation does not say how to fix the paths: %q", a)
	}
}

// A frame of another site in its own renderer process is listed with
// not_captured naming the sections that hold nothing of it, as
// inspect_web_page's frames are; a frame of the page's process has none.
func TestInspectElectronPageFrameSaysWhatWasNotCaptured(t *testing.T) {
	is := is.New(t)
	dir, _ := app(t)
	f := portstest.NewRuntimeFake(dir)
	f.Page = &ports.ElectronPageCapture{Browser: ports.BrowserInfo{Product: "Electron/31", Revision: "r"},
		Target: ports.ElectronTarget{TargetID: "P1", Type: "page", Title: "App", FilePath: dir + "/index.html"},
		Frames: []ports.ElectronFrame{{FrameID: "F1", FilePath: dir + "/index.html"},
			{FrameID: "IF1", ParentFrameID: "F1", FilePath: dir + "/index.html", NotCaptured: []string{"frames", "dom", "scripts", "resources"}}}}
	pg := result(mustCall(t, session(t, f), "inspect_electron_page", map[string]any{"cdp_endpoint": "http://127.0.0.1:9222", "target_id": "P1"}))
	frames := pg["frames"].([]any)
	is.Equal(frames[0].(map[string]any)["not_captured"], nil)
	is.Equal(frames[1].(map[string]any)["not_captured"], []any{"frames", "dom", "scripts", "resources"})
}
