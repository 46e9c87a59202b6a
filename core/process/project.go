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

func scenarioEvents(s ports.CaptureScenario, redactSensitive bool) []CaptureScenarioEvent {
	evs := []CaptureScenarioEvent{}
	for _, e := range s.Events {
		ev := CaptureScenarioEvent{Type: e.Type, AtMS: e.AtMS}
		switch e.Type {
		case ports.EventInput:
			data, sensitive := e.Data, e.Sensitive
			if e.Sensitive && redactSensitive {
				data = "<redacted-input>"
			}
			ev.Data, ev.Sensitive = &data, &sensitive
		case ports.EventResize:
			cols, rows := e.Columns, e.Rows
			ev.Columns, ev.Rows = &cols, &rows
		case ports.EventSignal:
			sig := e.Signal
			ev.Signal = &sig
		}
		evs = append(evs, ev)
	}
	return evs
}

func scenarioNormalization(n ports.CaptureNormalization) CaptureNormalizationRecord {
	pats := []CaptureProcessScenarioInputNormalizationPattern{}
	for _, p := range n.Patterns {
		pats = append(pats, CaptureProcessScenarioInputNormalizationPattern{Pattern: p.Pattern, Replacement: p.Replacement})
	}
	return CaptureNormalizationRecord{Paths: n.Paths, PIDs: n.PIDs, Ports: n.Ports, TimeBucketMS: n.TimeBucketMS, Patterns: pats}
}

func scenarioEnvironment(s ports.CaptureScenario) map[string]string {
	env := make(map[string]string, len(s.Environment))
	for k, v := range s.Environment {
		env[k] = v
	}
	return env
}

func scenarioLimits(l ports.CaptureLimits) CaptureLimitsRecord {
	return CaptureLimitsRecord{OutputBytes: l.OutputBytes, Files: l.Files, FileBytes: l.FileBytes, Processes: l.Processes,
		FilesystemDepth: l.FilesystemDepth}
}

func scenarioTerminal(t ports.CaptureTerminal) CaptureTerminalSize {
	return CaptureTerminalSize{Columns: t.Columns, Rows: t.Rows, Scrollback: t.Scrollback}
}

// scenarioRecord is the full scenario of a capture.
func scenarioRecord(pc *ports.ProcessCapture) CaptureScenarioRecord {
	s := pc.Scenario
	return CaptureScenarioRecord{
		Executable: s.Executable, Arguments: core.NonNil(s.Arguments), ExecutableSHA256: core.OptString(pc.Executable.SHA256),
		WorkingDirectory: s.WorkingDirectory, Environment: scenarioEnvironment(s),
		FilesystemObservationPaths: core.NonNil(s.FilesystemObservationPaths), Terminal: scenarioTerminal(s.Terminal),
		Events: scenarioEvents(s, false), TimeoutMS: s.TimeoutMS, IdleTimeoutMS: s.IdleTimeoutMS, SettleMS: s.SettleMS,
		FinalizationMS: s.FinalizationMS, Limits: scenarioLimits(s.Limits), Normalization: scenarioNormalization(s.Normalization),
	}
}

// comparisonContract is what two captures must share to be compared
// (§1.4): the scenario without the executable and arguments, sensitive
// input as <redacted-input>, and the normalization versions.
func comparisonContract(pc *ports.ProcessCapture) CaptureComparisonContract {
	s := pc.Scenario
	c := CaptureComparisonContract{
		WorkingDirectory: s.WorkingDirectory, Environment: scenarioEnvironment(s),
		FilesystemObservationPaths: core.NonNil(s.FilesystemObservationPaths), Terminal: scenarioTerminal(s.Terminal),
		Events: scenarioEvents(s, true), TimeoutMS: s.TimeoutMS, IdleTimeoutMS: s.IdleTimeoutMS, SettleMS: s.SettleMS,
		FinalizationMS: s.FinalizationMS, Limits: scenarioLimits(s.Limits), Normalization: scenarioNormalization(s.Normalization),
		AmbientEnvironment: "unknown", RenderedLineFormat: pc.NormalizationApplied.RenderedLineFormat,
	}
	if s.Normalization.Ports {
		v := pc.NormalizationApplied.PortNormalizationVersion
		c.PortNormalizationVersion = &v
	}
	if len(s.Normalization.Patterns) > 0 {
		v := pc.NormalizationApplied.PatternNormalizationVersion
		c.PatternNormalizationVersion = &v
	}
	return c
}

func digestOf(v any) *string {
	d, err := core.Digest(v)
	if err != nil {
		return nil
	}
	return &d
}

func renderedJSON(f ports.RenderedFrame) CaptureRenderedFrame {
	return CaptureRenderedFrame{Sequence: f.Sequence, AtMS: f.AtMS, Columns: f.Columns, Rows: f.Rows,
		Cursor: CaptureCursor{X: f.CursorX, Y: f.CursorY}, ActiveBuffer: f.ActiveBuffer,
		Lines: core.NonNil(f.Lines), SerializedState: f.SerializedState}
}

func normalizationJSON(n ports.NormalizationRecord) CaptureNormalizationApplied {
	return CaptureNormalizationApplied{Version: n.Version, PortNormalizationVersion: core.OptString(n.PortNormalizationVersion),
		PatternNormalizationVersion: core.OptString(n.PatternNormalizationVersion), RenderedLineFormat: n.RenderedLineFormat,
		Placeholders: core.NonNil(n.Placeholders)}
}

func exitJSON(e ports.CaptureExit) CaptureExit {
	out := CaptureExit{Reason: e.Reason, Exited: e.Exited, ExitCode: e.Code, Signal: core.OptString(e.Signal), ElapsedMS: e.ElapsedMS}
	if e.Finalization != nil {
		sigs := []CaptureFinalizationSignal{}
		for _, s := range e.Finalization.Signals {
			sigs = append(sigs, CaptureFinalizationSignal{Signal: s.Signal, SentAtMS: s.SentAtMS, Target: s.Target,
				Delivery: s.Delivery, Reason: core.OptString(s.Reason)})
		}
		out.Finalization = &CaptureFinalization{RequestedMS: e.Finalization.RequestedMS, ElapsedMS: e.Finalization.ElapsedMS, Signals: sigs}
	}
	return out
}

func fileEntries(fs []ports.FileEntry) []CaptureFileEntry {
	out := []CaptureFileEntry{}
	for _, f := range fs {
		out = append(out, CaptureFileEntry{Path: f.Path, Type: f.Type, Mode: f.Mode, Size: f.Size,
			SHA256: core.OptString(f.SHA256), SymlinkTarget: core.OptString(f.SymlinkTarget)})
	}
	return out
}

func fsTrunc(t ports.FilesystemTruncation) CaptureFilesystemTruncation {
	om := []CaptureHashOmission{}
	for _, h := range t.HashOmissions {
		om = append(om, CaptureHashOmission{Path: h.Path, SizeBytes: h.SizeBytes, RemainingBudgetBytes: h.RemainingBudgetBytes, Reason: h.Reason})
	}
	return CaptureFilesystemTruncation{FilesLimit: t.FilesLimit, DepthLimit: t.DepthLimit, EnumerationTruncated: t.EnumerationTruncated,
		EnumerationReasons: core.NonNil(t.EnumerationReasons), HashBudgetBytes: t.HashBudgetBytes, HashedBytes: t.HashedBytes,
		HashOmissions: om}
}

func termTrunc(t ports.TerminalTruncation) CaptureTerminalTruncation {
	return CaptureTerminalTruncation{BudgetBytes: t.BudgetBytes, ObservedBytes: t.ObservedBytes, RetainedBytes: t.RetainedBytes,
		ObservedFrames: t.ObservedFrames, RetainedFrames: t.RetainedFrames}
}

func timeJSON(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// captureResultOf is the normalized_result of a capture.
func captureResultOf(pc *ports.ProcessCapture) *CaptureProcessScenarioResult {
	sc := scenarioRecord(pc)
	contract := comparisonContract(pc)
	norm := normalizationJSON(pc.NormalizationApplied)

	frames := []CaptureFrame{}
	for _, f := range pc.Frames {
		frames = append(frames, CaptureFrame{Sequence: f.Sequence, AtMS: f.AtMS, Data: f.Data})
	}
	rendered := []CaptureRenderedFrame{}
	for _, f := range pc.RenderedFrames {
		rendered = append(rendered, renderedJSON(f))
	}
	inter := []CaptureInteractionEvent{}
	for _, e := range pc.InteractionEvents {
		ie := CaptureInteractionEvent{Sequence: e.Sequence, ScheduledAtMS: e.ScheduledAtMS, DispatchedAtMS: e.DispatchedAtMS, Type: e.Type,
			Data: e.Data, Outcome: e.Outcome, Reason: core.OptString(e.Reason), RedactedByteSize: e.RedactedByteSize}
		if e.Type == ports.EventSignal {
			d := core.OptString(string(e.SignalDelivery))
			ie.SignalDelivery = &d
		}
		inter = append(inter, ie)
	}
	procs := []CaptureProcess{}
	for _, p := range pc.NormalizedProcesses {
		cp := CaptureProcess{ID: p.ID, ParentID: p.ParentID, GroupID: p.GroupID, SessionID: p.SessionID,
			Command: tempNames(p.Command), FirstSeenMS: p.FirstSeenMS}
		if p.FirstReadCommand != "" {
			first, at := tempNames(p.FirstReadCommand), p.CommandRewrittenMS
			cp.FirstReadCommand, cp.CommandRewrittenMS = &first, &at
		}
		procs = append(procs, cp)
	}
	socks := []CapturePort{}
	for _, s := range pc.ListeningSockets {
		socks = append(socks, CapturePort{Protocol: s.Protocol, Loopback: s.Loopback, Port: s.NormalizedPort, FirstSeenMS: s.FirstSeenMS})
	}
	effects := []CaptureFileEffect{}
	for _, e := range pc.FileEffects {
		effects = append(effects, CaptureFileEffect{Path: e.Path, Effect: e.Effect, Reason: core.OptString(e.Reason)})
	}
	roots := []string{}
	for i := range pc.ObservationRoots {
		roots = append(roots, "root_"+strconv.Itoa(i))
	}
	journal := []CaptureJournalEntry{}
	for _, j := range pc.EventJournal {
		journal = append(journal, CaptureJournalEntry{CaptureOrder: j.CaptureOrder, Collection: j.Collection, Index: j.Index})
	}
	unknowns := []CaptureUnknown{}
	for _, n := range pc.Coverage {
		unknowns = append(unknowns, CaptureUnknown{Scope: n.Scope, Reason: n.Reason})
	}
	// The engine's terminal is at least 1x1 once it exists: a 0-column
	// final screen is one never observed (the launch failed), reported as
	// null rather than as a screen the program left empty.
	var final *CaptureRenderedFrame
	var finalDigest *string // the final screen's digest, null with the screen
	if pc.FinalScreen.Columns > 0 && pc.FinalScreen.Rows > 0 {
		f := renderedJSON(pc.FinalScreen)
		final = &f
		finalDigest = core.OptString(pc.Manifest.FinalScreenSHA256)
	} else {
		unknowns = append(unknowns, CaptureUnknown{Scope: "terminal", Reason: "no screen was observed (the program never ran in the terminal): terminal.final_screen is null"})
	}
	st := pc.Settlement
	m := pc.Manifest
	pt := pc.Truncation.Process
	return &CaptureProcessScenarioResult{
		Scenario: sc,
		Executable: CaptureExecutable{SelectedSHA256: core.OptString(pc.Executable.SelectedSHA256), SHA256: core.OptString(pc.Executable.SHA256),
			Identity: CaptureIdentity{State: pc.Executable.State, Reason: core.OptString(pc.Executable.Reason)}, Size: pc.Executable.Size,
			Mode: pc.Executable.Mode},
		Terminal:          CaptureTerminalRecord{Frames: frames, RenderedFrames: rendered, FinalScreen: final},
		InteractionEvents: inter,
		Exit:              exitJSON(pc.Exit),
		Settlement:        CaptureSettlement{State: st.State, ElapsedMS: st.ElapsedMS, Remaining: len(st.Remaining), Reason: core.OptString(st.Reason)},
		Processes:         CaptureProcesses{Tree: procs, Samples: normalizedSamples(pc), Coverage: "sampled"},
		Ports:             socks,
		Filesystem:        CaptureFilesystem{Roots: roots, Before: fileEntries(pc.FilesBefore), After: fileEntries(pc.FilesAfter), Effects: effects},
		EventJournal:      journal,
		Truncation: CaptureTruncation{Truncated: pc.Truncation.Truncated, RawTerminal: termTrunc(pc.Truncation.RawTerminal),
			RenderedTerminal: termTrunc(pc.Truncation.RenderedTerminal), FilesystemBefore: fsTrunc(pc.Truncation.FilesystemBefore),
			FilesystemAfter: fsTrunc(pc.Truncation.FilesystemAfter),
			Process: CaptureProcessTruncation{SampleLimit: pt.SampleLimit, SamplingPartial: pt.SamplingPartial,
				RetainedSamples: pt.RetainedSamples, SampleLimitReached: pt.SampleLimitReached,
				SamplingFailures: pt.SamplingFailures, Coverage: "sampled"}},
		ResidualUnknowns: unknowns,
		Cleanup: CaptureCleanupStates{OwnedProcessGroup: pc.Cleanup.OwnedProcessGroup.State, TerminalRenderer: pc.Cleanup.TerminalRenderer.State,
			TemporaryRoot: pc.Cleanup.TemporaryRoot.State},
		Manifest: CaptureManifest{
			ProviderVersion: m.ProviderVersion, Platform: m.Platform, Architecture: m.Architecture, PTYBackend: m.PTYBackend,
			TerminalEmulator: m.TerminalEmulator, StartedAt: timeJSON(m.StartedAt), CompletedAt: timeJSON(m.CompletedAt),
			ComparisonContract:       contract,
			FullScenarioSHA256:       digestOf(sc),
			ComparisonContractSHA256: digestOf(contract),
			NormalizationSHA256:      digestOf(norm),
			SelectedExecutableSHA256: core.OptString(pc.Executable.SelectedSHA256), ExecutableSHA256: core.OptString(pc.Executable.SHA256),
			NormalizedOutputSHA256: m.NormalizedOutputSHA256, FinalScreenSHA256: finalDigest,
			EnvironmentNotes: core.NonNil(m.EnvironmentNotes)},
		Normalization: norm,
	}
}

// normalizedSamples names the sampled pids by the ids the engine gave them
// in NormalizedProcesses (the tree), so that a sample and the tree name one
// process alike; 0 is outside the capture. A pid the tree does not hold
// takes the next id. Each carries its command as the engine normalized it,
// with temporary names as the comparison writes them (tempNames): a sample
// kept for an exec differs from the one before only in its command.
func normalizedSamples(pc *ports.ProcessCapture) []CaptureProcessSample {
	ids := map[int]int{}
	next := 0
	learn := func(pid, id int) {
		if pid == 0 {
			return
		}
		if _, ok := ids[pid]; !ok {
			ids[pid] = id
		}
		next = max(next, id)
	}
	if len(pc.NormalizedProcesses) == len(pc.Processes) {
		for i, p := range pc.Processes {
			n := pc.NormalizedProcesses[i]
			learn(p.PID, n.ID)
			learn(p.ParentPID, n.ParentID)
			learn(p.ProcessGroupID, n.GroupID)
			learn(p.SessionID, n.SessionID)
		}
	}
	id := func(pid int) int { return ids[pid] }
	out := []CaptureProcessSample{}
	for _, s := range pc.ProcessSamples {
		if _, ok := ids[s.PID]; !ok && s.PID != 0 {
			next++
			ids[s.PID] = next
		}
		out = append(out, CaptureProcessSample{AtMS: s.AtMS, ID: id(s.PID), ParentID: id(s.ParentPID), GroupID: id(s.ProcessGroupID),
			SessionID: id(s.SessionID), Command: tempNames(s.NormalizedCommand)})
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
		proc := map[string]any{"pid": p.PID, "parent_pid": p.ParentPID, "process_group_id": p.ProcessGroupID,
			"session_id": p.SessionID, "comm": p.Comm, "argv": p.Argv, "first_seen_ms": p.FirstSeenMS, "last_seen_ms": p.LastSeenMS,
			"by_run_id": p.ByRunID}
		if p.FirstReadArgv != nil {
			proc["first_read_argv"], proc["argv_rewritten_ms"] = p.FirstReadArgv, p.ArgvRewrittenMS
		}
		procs = append(procs, proc)
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
