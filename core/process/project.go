package process

import (
	"strconv"
	"time"

	"rea/core"
	"rea/ports"
)

// The projection of a ports.ProcessCapture. normalized_result holds the
// normalized observations a comparison reads (and the run-independent
// bookkeeping); raw_result holds what differs on every run (pids, raw
// frames, real paths, signal attempts with their pids).

func scenarioJSON(s ports.CaptureScenario, redactSensitive bool) map[string]any {
	evs := []any{}
	for _, e := range s.Events {
		m := map[string]any{"type": e.Type, "at_ms": e.AtMS}
		switch e.Type {
		case ports.EventInput:
			m["data"], m["sensitive"] = e.Data, e.Sensitive
			if e.Sensitive && redactSensitive {
				m["data"] = "<redacted-input>"
			}
		case ports.EventResize:
			m["columns"], m["rows"] = e.Columns, e.Rows
		case ports.EventSignal:
			m["signal"] = e.Signal
		}
		evs = append(evs, m)
	}
	pats := []any{}
	for _, p := range s.Normalization.Patterns {
		pats = append(pats, map[string]any{"pattern": p.Pattern, "replacement": p.Replacement})
	}
	env := map[string]any{}
	for k, v := range s.Environment {
		env[k] = v
	}
	out := map[string]any{
		"working_directory": s.WorkingDirectory, "environment": env,
		"filesystem_observation_paths": core.NonNil(s.FilesystemObservationPaths),
		"terminal":                     map[string]any{"columns": s.Terminal.Columns, "rows": s.Terminal.Rows, "scrollback": s.Terminal.Scrollback},
		"events":                       evs, "timeout_ms": s.TimeoutMS, "idle_timeout_ms": s.IdleTimeoutMS, "settle_ms": s.SettleMS,
		"limits": map[string]any{"output_bytes": s.Limits.OutputBytes, "files": s.Limits.Files, "file_bytes": s.Limits.FileBytes,
			"processes": s.Limits.Processes, "filesystem_depth": s.Limits.FilesystemDepth},
		"normalization": map[string]any{"paths": s.Normalization.Paths, "pids": s.Normalization.PIDs, "ports": s.Normalization.Ports,
			"time_bucket_ms": s.Normalization.TimeBucketMS, "patterns": pats},
	}
	if s.FinalizationMS > 0 {
		out["finalization_ms"] = s.FinalizationMS
	}
	return out
}

// comparisonContract is what two captures must share to be compared
// (§1.4): the scenario without the executable and arguments, sensitive
// input as <redacted-input>, and the normalization versions.
func comparisonContract(pc *ports.ProcessCapture) map[string]any {
	c := scenarioJSON(pc.Scenario, true)
	c["ambient_environment"] = "unknown"
	c["rendered_line_format"] = pc.NormalizationApplied.RenderedLineFormat
	if pc.Scenario.Normalization.Ports {
		c["port_normalization_version"] = pc.NormalizationApplied.PortNormalizationVersion
	}
	if len(pc.Scenario.Normalization.Patterns) > 0 {
		c["pattern_normalization_version"] = pc.NormalizationApplied.PatternNormalizationVersion
	}
	return c
}

func digestOf(v any) any {
	d, err := core.Digest(v)
	if err != nil {
		return nil
	}
	return d
}

func renderedJSON(f ports.RenderedFrame) map[string]any {
	return map[string]any{"sequence": f.Sequence, "at_ms": f.AtMS, "columns": f.Columns, "rows": f.Rows,
		"cursor": map[string]any{"x": f.CursorX, "y": f.CursorY}, "active_buffer": f.ActiveBuffer,
		"lines": core.NonNil(f.Lines), "serialized_state": f.SerializedState}
}

func normalizationJSON(n ports.NormalizationRecord) map[string]any {
	return map[string]any{"version": n.Version, "port_normalization_version": core.OrNull(n.PortNormalizationVersion),
		"pattern_normalization_version": core.OrNull(n.PatternNormalizationVersion), "rendered_line_format": n.RenderedLineFormat,
		"placeholders": core.NonNil(n.Placeholders)}
}

func exitJSON(e ports.CaptureExit) map[string]any {
	var code, elapsed any
	if e.Code != nil {
		code = *e.Code
	}
	if e.ElapsedMS != nil {
		elapsed = *e.ElapsedMS
	}
	var fin any
	if e.Finalization != nil {
		sigs := []any{}
		for _, s := range e.Finalization.Signals {
			sigs = append(sigs, map[string]any{"signal": s.Signal, "sent_at_ms": s.SentAtMS, "target": s.Target,
				"delivery": s.Delivery, "reason": core.OrNull(s.Reason)})
		}
		var fe any
		if e.Finalization.ElapsedMS != nil {
			fe = *e.Finalization.ElapsedMS
		}
		fin = map[string]any{"requested_ms": e.Finalization.RequestedMS, "elapsed_ms": fe, "signals": sigs}
	}
	return map[string]any{"reason": e.Reason, "exited": e.Exited, "exit_code": code, "signal": core.OrNull(e.Signal),
		"elapsed_ms": elapsed, "finalization": fin}
}

func fileEntries(fs []ports.FileEntry) []any {
	out := []any{}
	for _, f := range fs {
		out = append(out, map[string]any{"path": f.Path, "type": f.Type, "mode": f.Mode, "size": f.Size,
			"sha256": core.OrNull(f.SHA256), "symlink_target": core.OrNull(f.SymlinkTarget)})
	}
	return out
}

func fsTrunc(t ports.FilesystemTruncation) map[string]any {
	om := []any{}
	for _, h := range t.HashOmissions {
		om = append(om, map[string]any{"path": h.Path, "size_bytes": h.SizeBytes, "remaining_budget_bytes": h.RemainingBudgetBytes, "reason": h.Reason})
	}
	return map[string]any{"files_limit": t.FilesLimit, "depth_limit": t.DepthLimit, "enumeration_truncated": t.EnumerationTruncated,
		"enumeration_reasons": core.NonNil(t.EnumerationReasons), "hash_budget_bytes": t.HashBudgetBytes, "hashed_bytes": t.HashedBytes,
		"hash_omissions": om}
}

func termTrunc(t ports.TerminalTruncation) map[string]any {
	return map[string]any{"budget_bytes": t.BudgetBytes, "observed_bytes": t.ObservedBytes, "retained_bytes": t.RetainedBytes,
		"observed_frames": t.ObservedFrames, "retained_frames": t.RetainedFrames}
}

func timeJSON(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// captureResultOf is the normalized_result of a capture.
func captureResultOf(pc *ports.ProcessCapture) map[string]any {
	sc := scenarioJSON(pc.Scenario, false)
	sc["executable"] = pc.Scenario.Executable
	sc["arguments"] = core.NonNil(pc.Scenario.Arguments)
	sc["executable_sha256"] = core.OrNull(pc.Executable.SHA256)
	contract := comparisonContract(pc)
	norm := normalizationJSON(pc.NormalizationApplied)

	frames := []any{}
	for _, f := range pc.Frames {
		frames = append(frames, map[string]any{"sequence": f.Sequence, "at_ms": f.AtMS, "data": f.Data})
	}
	rendered := []any{}
	for _, f := range pc.RenderedFrames {
		rendered = append(rendered, renderedJSON(f))
	}
	inter := []any{}
	for _, e := range pc.InteractionEvents {
		var disp any
		if e.DispatchedAtMS != nil {
			disp = *e.DispatchedAtMS
		}
		m := map[string]any{"sequence": e.Sequence, "scheduled_at_ms": e.ScheduledAtMS, "dispatched_at_ms": disp, "type": e.Type,
			"data": e.Data, "outcome": e.Outcome, "reason": core.OrNull(e.Reason)}
		if e.Type == ports.EventSignal {
			m["signal_delivery"] = core.OrNull(string(e.SignalDelivery))
		}
		if e.RedactedByteSize > 0 {
			m["redacted_byte_size"] = e.RedactedByteSize
		}
		inter = append(inter, m)
	}
	procs := []any{}
	for _, p := range pc.NormalizedProcesses {
		procs = append(procs, map[string]any{"id": p.ID, "parent_id": p.ParentID, "group_id": p.GroupID, "session_id": p.SessionID,
			"command": p.Command, "first_seen_ms": p.FirstSeenMS})
	}
	samples := normalizedSamples(pc)
	socks := []any{}
	for _, s := range pc.ListeningSockets {
		socks = append(socks, map[string]any{"protocol": s.Protocol, "loopback": s.Loopback, "port": s.NormalizedPort, "first_seen_ms": s.FirstSeenMS})
	}
	effects := []any{}
	for _, e := range pc.FileEffects {
		effects = append(effects, map[string]any{"path": e.Path, "effect": e.Effect, "reason": core.OrNull(e.Reason)})
	}
	roots := []any{}
	for i := range pc.ObservationRoots {
		roots = append(roots, "root_"+strconv.Itoa(i))
	}
	journal := []any{}
	for _, j := range pc.EventJournal {
		journal = append(journal, map[string]any{"capture_order": j.CaptureOrder, "collection": j.Collection, "index": j.Index})
	}
	unknowns := []any{}
	for _, n := range pc.Coverage {
		unknowns = append(unknowns, map[string]any{"scope": n.Scope, "reason": n.Reason})
	}
	st := pc.Settlement
	m := pc.Manifest
	return map[string]any{
		"scenario": sc,
		"executable": map[string]any{"selected_sha256": core.OrNull(pc.Executable.SelectedSHA256), "sha256": core.OrNull(pc.Executable.SHA256),
			"identity": map[string]any{"state": pc.Executable.State, "reason": core.OrNull(pc.Executable.Reason)}, "size": pc.Executable.Size,
			"mode": pc.Executable.Mode},
		"terminal":           map[string]any{"frames": frames, "rendered_frames": rendered, "final_screen": renderedJSON(pc.FinalScreen)},
		"interaction_events": inter,
		"exit":               exitJSON(pc.Exit),
		"settlement":         map[string]any{"state": st.State, "elapsed_ms": st.ElapsedMS, "remaining": len(st.Remaining), "reason": core.OrNull(st.Reason)},
		"processes":          map[string]any{"tree": procs, "samples": samples, "coverage": "sampled"},
		"ports":              socks,
		"filesystem": map[string]any{"roots": roots, "before": fileEntries(pc.FilesBefore), "after": fileEntries(pc.FilesAfter),
			"effects": effects},
		"event_journal": journal,
		"truncation": map[string]any{"truncated": pc.Truncation.Truncated, "raw_terminal": termTrunc(pc.Truncation.RawTerminal),
			"rendered_terminal": termTrunc(pc.Truncation.RenderedTerminal), "filesystem_before": fsTrunc(pc.Truncation.FilesystemBefore),
			"filesystem_after": fsTrunc(pc.Truncation.FilesystemAfter),
			"process": map[string]any{"sample_limit": pc.Truncation.Process.SampleLimit, "sampling_partial": pc.Truncation.Process.SamplingPartial,
				"retained_samples": pc.Truncation.Process.RetainedSamples, "sample_limit_reached": pc.Truncation.Process.SampleLimitReached,
				"sampling_failures": pc.Truncation.Process.SamplingFailures, "coverage": "sampled"}},
		"residual_unknowns": unknowns,
		"cleanup": map[string]any{"owned_process_group": pc.Cleanup.OwnedProcessGroup.State, "terminal_renderer": pc.Cleanup.TerminalRenderer.State,
			"temporary_root": pc.Cleanup.TemporaryRoot.State},
		"manifest": map[string]any{
			"provider_version": m.ProviderVersion, "platform": m.Platform, "architecture": m.Architecture, "pty_backend": m.PTYBackend,
			"terminal_emulator": m.TerminalEmulator, "started_at": timeJSON(m.StartedAt), "completed_at": timeJSON(m.CompletedAt),
			"comparison_contract":        contract,
			"full_scenario_sha256":       digestOf(sc),
			"comparison_contract_sha256": digestOf(contract),
			"normalization_sha256":       digestOf(norm),
			"selected_executable_sha256": core.OrNull(pc.Executable.SelectedSHA256), "executable_sha256": core.OrNull(pc.Executable.SHA256),
			"normalized_output_sha256": m.NormalizedOutputSHA256, "final_screen_sha256": m.FinalScreenSHA256,
			"environment_notes": core.NonNil(m.EnvironmentNotes)},
		"normalization": norm,
	}
}

// normalizedSamples renumbers the sampled pids as NormalizedProcesses
// does: 1.. in first-seen order, 0 outside the capture.
func normalizedSamples(pc *ports.ProcessCapture) []any {
	ids := map[int]int{}
	id := func(pid int) int {
		if pid == 0 {
			return 0
		}
		if n, ok := ids[pid]; ok {
			return n
		}
		return 0
	}
	for _, p := range pc.Processes {
		if _, ok := ids[p.PID]; !ok {
			ids[p.PID] = len(ids) + 1
		}
	}
	out := []any{}
	for _, s := range pc.ProcessSamples {
		if _, ok := ids[s.PID]; !ok {
			ids[s.PID] = len(ids) + 1
		}
		out = append(out, map[string]any{"at_ms": s.AtMS, "id": id(s.PID), "parent_id": id(s.ParentPID), "group_id": id(s.ProcessGroupID),
			"session_id": id(s.SessionID)})
	}
	return out
}

// captureRaw is the run-specific part: pids, raw frames, real paths and
// every signal attempt.
func captureRaw(pc *ports.ProcessCapture) map[string]any {
	raw := []any{}
	for _, f := range pc.Frames {
		if f.HasRaw {
			raw = append(raw, map[string]any{"sequence": f.Sequence, "raw": f.Raw})
		}
	}
	procs := []any{}
	for _, p := range pc.Processes {
		procs = append(procs, map[string]any{"pid": p.PID, "parent_pid": p.ParentPID, "process_group_id": p.ProcessGroupID,
			"session_id": p.SessionID, "comm": p.Comm, "argv": p.Argv, "first_seen_ms": p.FirstSeenMS, "last_seen_ms": p.LastSeenMS,
			"by_run_id": p.ByRunID})
	}
	samples := []any{}
	for _, s := range pc.ProcessSamples {
		samples = append(samples, map[string]any{"at_ms": s.AtMS, "pid": s.PID, "parent_pid": s.ParentPID, "command": s.Command,
			"process_group_id": s.ProcessGroupID, "session_id": s.SessionID})
	}
	socks := []any{}
	for _, s := range pc.ListeningSockets {
		socks = append(socks, map[string]any{"protocol": s.Protocol, "address": s.Address, "port": s.Port, "pid": s.PID})
	}
	return map[string]any{"run_id": pc.RunID, "working_directory": pc.WorkingDirectory, "temporary_root": pc.TemporaryRoot,
		"executable":        map[string]any{"path": pc.Executable.Path, "checked": core.NonNil(pc.Executable.Checked)},
		"observation_roots": core.NonNil(pc.ObservationRoots), "raw_frames": raw, "processes": procs, "process_samples": samples,
		"listening_sockets": socks, "signal_attempts": signalAttempts(pc.SignalAttempts, pc.StartedAt),
		"settlement_remaining": core.NonNil(pc.Settlement.Remaining), "cleanup": cleanupOf(pc.Cleanup),
		"raw_output_sha256": pc.Manifest.RawOutputSHA256, "started_at": timeJSON(pc.StartedAt), "completed_at": timeJSON(pc.CompletedAt)}
}
