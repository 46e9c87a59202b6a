package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"rea/core"
	"rea/ports"
)

func opCaptureProcessScenario() *core.Operation {
	return &core.Operation{
		Name:  "capture_process_scenario",
		Title: "Capture Process Scenario",
		Description: "Run a declared program in a pseudo-terminal as an owned process group, drive it with timed input, resize and signal " +
			"events, and record the terminal output (raw and rendered), the exit, the process tree, listening ports and filesystem effects, " +
			"normalized for comparison. Everything launched is stopped and cleaned up; a failure carries details.partial_observation.",
		Kind: core.KindApplication,
		Effects: core.Effects{MutatesSession: true, WritesFilesystem: true, LaunchesProcess: true, AccessesNetwork: true,
			ExecutesForeignCode: true},
		Input:    captureInput,
		Result:   captureResult,
		Examples: captureExamples,
		Handler:  handleCaptureProcessScenario,
	}
}

// scenarioEvent is one element of the input's events (a union of the
// input, resize and signal shapes, which the input type keeps raw).
type scenarioEvent struct {
	Type      string `json:"type"`
	AtMS      int64  `json:"at_ms"`
	Data      string `json:"data"`
	Sensitive bool   `json:"sensitive"`
	Columns   int    `json:"columns"`
	Rows      int    `json:"rows"`
	Signal    string `json:"signal"`
}

func setInt(dst *int64, v *int) {
	if v != nil {
		*dst = int64(*v)
	}
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

// ScenarioFromInput turns validated capture_process_scenario input into a
// scenario, filling the contract's defaults for absent fields.
func ScenarioFromInput(in CaptureProcessScenarioInput) (ports.CaptureScenario, error) {
	s := ports.NewCaptureScenario(in.Executable)
	if in.Arguments != nil {
		s.Arguments = in.Arguments
	}
	if in.WorkingDirectory != nil {
		s.WorkingDirectory = *in.WorkingDirectory
	}
	if in.Environment != nil {
		s.Environment = in.Environment
	}
	if in.FilesystemObservationPaths != nil {
		s.FilesystemObservationPaths = in.FilesystemObservationPaths
	}
	s.Arguments, s.FilesystemObservationPaths = core.NonNil(s.Arguments), core.NonNil(s.FilesystemObservationPaths)
	if s.Environment == nil {
		s.Environment = map[string]string{}
	}
	if t := in.Terminal; t != nil {
		if t.Columns != nil {
			s.Terminal.Columns = *t.Columns
		}
		if t.Rows != nil {
			s.Terminal.Rows = *t.Rows
		}
		if t.Scrollback != nil {
			s.Terminal.Scrollback = *t.Scrollback
		}
	}
	setInt(&s.TimeoutMS, in.TimeoutMS)
	setInt(&s.IdleTimeoutMS, in.IdleTimeoutMS)
	setInt(&s.SettleMS, in.SettleMS)
	setInt(&s.FinalizationMS, in.FinalizationMS)
	if l := in.Limits; l != nil {
		setInt(&s.Limits.OutputBytes, l.OutputBytes)
		setInt(&s.Limits.Files, l.Files)
		setInt(&s.Limits.FileBytes, l.FileBytes)
		setInt(&s.Limits.Processes, l.Processes)
		setInt(&s.Limits.FilesystemDepth, l.FilesystemDepth)
	}
	if n := in.Normalization; n != nil {
		setBool(&s.Normalization.Paths, n.Paths)
		setBool(&s.Normalization.PIDs, n.Pids)
		setBool(&s.Normalization.Ports, n.Ports)
		setInt(&s.Normalization.TimeBucketMS, n.TimeBucketMS)
		for _, p := range n.Patterns {
			s.Normalization.Patterns = append(s.Normalization.Patterns, ports.LiteralReplacement{Pattern: p.Pattern, Replacement: p.Replacement})
		}
	}
	s.Events = nil
	for _, raw := range in.Events {
		var e scenarioEvent
		if err := json.Unmarshal(raw, &e); err != nil {
			return s, err
		}
		s.Events = append(s.Events, ports.CaptureEvent{AtMS: e.AtMS, Type: e.Type, Data: e.Data, Sensitive: e.Sensitive,
			Columns: e.Columns, Rows: e.Rows, Signal: e.Signal})
	}
	return s, nil
}

// redactArgs replaces sensitive input in the recorded parameters, so no
// secret reaches the Evidence or the ledger.
func redactArgs(args map[string]any) {
	evs, _ := args["events"].([]any)
	for _, e := range evs {
		m, _ := e.(map[string]any)
		if m == nil || m["sensitive"] != true {
			continue
		}
		if d, ok := m["data"].(string); ok {
			m["data"] = fmt.Sprintf("<redacted-input:%d-bytes>", len(d))
		}
	}
}

func handleCaptureProcessScenario(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	eng := c.Capturer()
	if eng == nil {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": no process-capture engine is wired into this build",
			Details: map[string]any{"provider_id": providerID, "operation": op, "reason": "engine_missing"}}
	}
	in, err := core.Input[CaptureProcessScenarioInput](c)
	if err != nil {
		return nil, err
	}
	sc, err := ScenarioFromInput(in)
	if err != nil {
		return nil, core.InvalidRequest(op, core.Issue{Path: []any{}, Reason: core.ReasonInvalidType, Message: "arguments do not decode: " + err.Error()})
	}
	redactArgs(c.Args)
	pc, err := eng.CaptureProcess(ctx, ports.CaptureRequest{Scenario: sc, RunID: c.RunID()})
	if err != nil {
		e := captureError(op, err)
		// A cancelled call records nothing (core.Session.Call), and its
		// client reads no answer: its partial observation stays whole.
		var ce *ports.CaptureError
		if in.Detail != "complete" && ctx.Err() == nil && errors.As(err, &ce) && ce.Partial != nil {
			concisePartial(c, e, ce.Partial)
		}
		return nil, e
	}
	obs, res := captureObservation(pc)
	if in.Detail == "complete" {
		return obs, nil
	}
	return conciseCaptureObservation(c, obs, res)
}

// captureObservation is the Observation of pc (complete) and its result.
func captureObservation(pc *ports.ProcessCapture) (*core.Observation, *CaptureProcessScenarioResult) {
	res := captureResultOf(pc)
	var lim []string
	for _, u := range res.ResidualUnknowns {
		lim = append(lim, u.Scope+": "+u.Reason)
	}
	name := filepath.Base(pc.Executable.Path)
	sha := pc.Executable.SelectedSHA256
	return &core.Observation{Result: res, Raw: captureRaw(pc), Limitations: lim, Confidence: core.ConfidenceObserved,
		Predicate: CapturePredicate, Authority: captureAuthority,
		Subject:     &core.Subject{Name: name, Digest: core.SubjectDigest{SHA256: sha}, Format: "executable", LocalPath: pc.Executable.Path},
		Provider:    &core.ProviderRef{ID: providerID, Name: "REA deterministic process harness", Version: core.OptString("3")},
		Environment: &core.Environment{ID: runtime.GOOS + "-" + runtime.GOARCH, Platform: pc.Manifest.Platform, Architecture: evidenceArch(pc.Manifest.Architecture), Isolation: "process"},
	}, res
}

// CapturePredicate is the predicate of capture Evidence.
const CapturePredicate = "rea.process-capture"

// captureAuthority is the authority of a capture (spec §1.4) and of a
// comparison of two.
const captureAuthority = "controlled-replay"

const providerID = "rea-process"

func evidenceArch(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "386":
		return "x86"
	case "arm64":
		return "arm64"
	case "arm":
		return "arm"
	}
	return goarch
}

// captureError maps an engine failure to the contract's codes, with the
// projected partial observation.
func captureError(op string, err error) error {
	var se *ports.ScenarioError
	if errors.As(err, &se) {
		return core.InvalidRequest(op, core.Issue{Path: se.Path, Reason: se.Reason, Message: se.Message})
	}
	if errors.Is(err, ports.ErrUnavailable) {
		return &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": " + err.Error(),
			Details: map[string]any{"provider_id": providerID, "operation": op, "reason": "platform_unsupported"}}
	}
	var ce *ports.CaptureError
	if !errors.As(err, &ce) {
		return &core.Error{Code: core.CodeProcessCaptureFailed, Message: op + ": " + err.Error(),
			Details: map[string]any{"partial_observation": nil}}
	}
	details := map[string]any{"partial_observation": partialObservation(ce)}
	var cl *ports.CleanupError
	switch {
	case errors.As(err, &cl) || errors.Is(err, ports.ErrCleanupIncomplete):
		if cl != nil {
			details["resources"] = cl.Kinds()
		}
		return &core.Error{Code: core.CodeCleanupIncomplete, Message: op + ": " + err.Error(), Details: details,
			Remediation: "Inspect and stop the listed resources; rea could not prove they were released."}
	case errors.Is(ce.Cause, context.Canceled) || errors.Is(ce.Cause, context.DeadlineExceeded):
		return &core.Error{Code: core.CodeCancelled, Message: op + ": " + err.Error(), Details: details}
	}
	e := &core.Error{Code: core.CodeProcessCaptureFailed, Message: op + ": " + err.Error(), Details: details}
	switch {
	case ce.Partial != nil && ce.Partial.Exit.Reason != ports.DispositionFailed && ce.Partial.Executable.SelectedSHA256 == "":
		// It ran, but rea could not read the file to digest it (executable
		// and not readable by rea's user): no digest names the record.
		e.Remediation = "The program ran and details.partial_observation holds what was observed, but rea could not read the executable " +
			"to digest it, so the capture is not retained as Evidence. To retain it, make the file readable by the user rea runs as, " +
			"or pass a readable copy of it as executable."
	case ce.Partial != nil && ce.Partial.Exit.Reason == ports.DispositionFailed:
		// The engine gives this exit to a program it did not launch: what
		// to pass instead is mostly another executable, which the generic
		// advice does not say.
		e.Remediation = "The program was not launched (the message says why). If the executable cannot be started, pass as executable " +
			"a program this host can start (an ELF binary for its CPU, or a script whose #! interpreter exists), or its interpreter " +
			"with the script in arguments."
	}
	return e
}

func partialObservation(ce *ports.CaptureError) map[string]any {
	var cause any
	if ce.Cause != nil {
		cause = ce.Cause.Error()
	}
	out := map[string]any{"disposition": ce.Disposition, "execution_failure": cause, "capture": nil, "cleanup": nil}
	if ce.Partial != nil {
		res := captureResultOf(ce.Partial)
		out["capture"] = res
		out["cleanup"] = cleanupOf(ce.Partial.Cleanup)
		out["signal_attempts"] = signalAttempts(ce.Partial.SignalAttempts, ce.Partial.StartedAt)
		out["limitations"] = partialLimitations("it is not retained as Evidence (only a concise call that was not cancelled retains it)", res.ResidualUnknowns)
	}
	return out
}

// partialLimitations are the limitations of a failed capture's partial
// observation carried whole in the error: that it is whole and inline
// (why: unretained), then what the capture did not observe (its residual
// unknowns, as a capture's limitations are).
func partialLimitations(unretained string, unknowns []CaptureUnknown) []string {
	lim := []string{"This is the failed capture's complete partial observation, inline: " + unretained + "."}
	for _, u := range unknowns {
		lim = append(lim, u.Scope+": "+u.Reason)
	}
	return lim
}

func ms(t, start time.Time) int64 {
	if t.IsZero() || start.IsZero() {
		return 0
	}
	return t.Sub(start).Milliseconds()
}

func signalAttempts(sa []ports.SignalAttempt, start time.Time) []any {
	out := []any{}
	for _, a := range sa {
		out = append(out, map[string]any{"target": a.Target, "id": a.ID, "signal": a.Signal, "at_ms": ms(a.At, start),
			"result": string(a.Result), "reason": core.OrNull(a.Reason)})
	}
	return out
}

func cleanupEntry(e ports.CleanupEntry) map[string]any {
	un := []any{}
	for _, p := range e.UnverifiedProcesses {
		un = append(un, map[string]any{"pid": p.PID, "reason": p.Reason})
	}
	return map[string]any{"state": e.State, "reason": core.OrNull(e.Reason), "unverified_processes": un}
}

func cleanupOf(c ports.CaptureCleanup) map[string]any {
	var errText any
	var resources = []any{}
	if c.Err != nil {
		errText = c.Err.Error()
		var cl *ports.CleanupError
		if errors.As(c.Err, &cl) {
			for _, r := range cl.Resources {
				resources = append(resources, map[string]any{"kind": r.Kind, "id": r.ID, "reason": r.Reason})
			}
		}
	}
	return map[string]any{"owned_process_group": cleanupEntry(c.OwnedProcessGroup), "terminal_renderer": cleanupEntry(c.TerminalRenderer),
		"temporary_root": cleanupEntry(c.TemporaryRoot), "error": errText, "remaining": resources}
}
