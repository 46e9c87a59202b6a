package process

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

// CaptureProcessScenarioInputLimits is part of the input of capture_process_scenario.
type CaptureProcessScenarioInputLimits struct {
	FileBytes       *int `json:"file_bytes,omitempty"`
	Files           *int `json:"files,omitempty"`
	FilesystemDepth *int `json:"filesystem_depth,omitempty"`
	OutputBytes     *int `json:"output_bytes,omitempty"`
	Processes       *int `json:"processes,omitempty"`
}

// CaptureProcessScenarioInputNormalizationPattern is part of the input of capture_process_scenario.
type CaptureProcessScenarioInputNormalizationPattern struct {
	Pattern     string `json:"pattern"`
	Replacement string `json:"replacement"`
}

// CaptureProcessScenarioInputNormalization is part of the input of capture_process_scenario.
type CaptureProcessScenarioInputNormalization struct {
	Paths        *bool                                             `json:"paths,omitempty"`
	Patterns     []CaptureProcessScenarioInputNormalizationPattern `json:"patterns,omitempty"`
	Pids         *bool                                             `json:"pids,omitempty"`
	Ports        *bool                                             `json:"ports,omitempty"`
	TimeBucketMS *int                                              `json:"time_bucket_ms,omitempty"`
}

// CaptureProcessScenarioInputTerminal is part of the input of capture_process_scenario.
type CaptureProcessScenarioInputTerminal struct {
	Columns    *int `json:"columns,omitempty"`
	Rows       *int `json:"rows,omitempty"`
	Scrollback *int `json:"scrollback,omitempty"`
}

// CaptureProcessScenarioInput is the input of capture_process_scenario.
type CaptureProcessScenarioInput struct {
	Executable                 string                                    `json:"executable"`                             // Program to run: a path, or a name looked up in the scenario's PATH, then the host's.
	Arguments                  []string                                  `json:"arguments,omitempty"`                    // Arguments after the program name.
	Detail                     string                                    `json:"detail,omitempty"`                       // concise (default): rendered frames as changed lines; complete: every frame's lines and styled state.
	Environment                map[string]string                         `json:"environment,omitempty"`                  // Variables set on top of the host environment.
	Events                     []json.RawMessage                         `json:"events,omitempty"`                       // Timed events: input text, terminal resize or a signal to the launched process; at_ms is non-decreasing and ...
	FilesystemObservationPaths []string                                  `json:"filesystem_observation_paths,omitempty"` // Directories or files whose state is checkpointed before the launch and after settlement.
	FinalizationMS             *int                                      `json:"finalization_ms,omitempty"`              // Grace between SIGTERM and SIGKILL at a deadline; 0 kills at once.
	IdleTimeoutMS              *int                                      `json:"idle_timeout_ms,omitempty"`              // Deadline without terminal output.
	Limits                     *CaptureProcessScenarioInputLimits        `json:"limits,omitempty"`
	Normalization              *CaptureProcessScenarioInputNormalization `json:"normalization,omitempty"`
	SettleMS                   *int                                      `json:"settle_ms,omitempty"` // How long the tree may take to empty after the exit.
	Terminal                   *CaptureProcessScenarioInputTerminal      `json:"terminal,omitempty"`
	TimeoutMS                  *int                                      `json:"timeout_ms,omitempty"`        // Deadline of the run.
	WorkingDirectory           *string                                   `json:"working_directory,omitempty"` // Working directory of the program (nil: "."; "" is kept as given).
}

// CaptureProcessScenarioResult is the result of capture_process_scenario:
// the normalized observations a comparison reads (the run-specific part is
// the Evidence's raw_result, built as an open map in captureRaw).
type CaptureProcessScenarioResult struct {
	Scenario          CaptureScenarioRecord       `json:"scenario"`
	Executable        CaptureExecutable           `json:"executable"`
	Terminal          any                         `json:"terminal"` // CaptureTerminalRecord, or CaptureTerminalChanges in a concise result
	InteractionEvents []CaptureInteractionEvent   `json:"interaction_events"`
	Exit              CaptureExit                 `json:"exit"`
	Settlement        CaptureSettlement           `json:"settlement"`
	Processes         CaptureProcesses            `json:"processes"`
	Ports             []CapturePort               `json:"ports"`
	Filesystem        CaptureFilesystem           `json:"filesystem"`
	EventJournal      []CaptureJournalEntry       `json:"event_journal"`
	Truncation        CaptureTruncation           `json:"truncation"`
	ResidualUnknowns  []CaptureUnknown            `json:"residual_unknowns"`
	Cleanup           CaptureCleanupStates        `json:"cleanup"`
	Manifest          CaptureManifest             `json:"manifest"`
	Normalization     CaptureNormalizationApplied `json:"normalization"`
	// ParentEvidenceID is only in a concise result: the retained complete
	// record, which compare_process_captures reads instead.
	ParentEvidenceID string `json:"parent_evidence_id,omitempty"`
	// Failure is only in the record of a failed capture (a partial
	// observation): the error's code and message, so that a comparison
	// says which side failed and what it did not observe.
	Failure *CaptureFailure `json:"failure,omitempty"`
}

// CaptureFailure is the error a failed capture's call returned.
type CaptureFailure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// CaptureScenarioEvent is one scenario event as recorded: the fields of
// its type only (data and sensitive for input, columns and rows for
// resize, signal for signal).
type CaptureScenarioEvent struct {
	Type      string  `json:"type"`
	AtMS      int64   `json:"at_ms"`
	Data      *string `json:"data,omitempty"`
	Sensitive *bool   `json:"sensitive,omitempty"`
	Columns   *int    `json:"columns,omitempty"`
	Rows      *int    `json:"rows,omitempty"`
	Signal    *string `json:"signal,omitempty"`
}

// CaptureTerminalSize is a scenario's terminal.
type CaptureTerminalSize struct {
	Columns    int `json:"columns"`
	Rows       int `json:"rows"`
	Scrollback int `json:"scrollback"`
}

// CaptureLimitsRecord is a scenario's limits.
type CaptureLimitsRecord struct {
	OutputBytes     int64 `json:"output_bytes"`
	Files           int64 `json:"files"`
	FileBytes       int64 `json:"file_bytes"`
	Processes       int64 `json:"processes"`
	FilesystemDepth int64 `json:"filesystem_depth"`
}

// CaptureNormalizationRecord is a scenario's normalization settings.
type CaptureNormalizationRecord struct {
	Paths        bool                                              `json:"paths"`
	PIDs         bool                                              `json:"pids"`
	Ports        bool                                              `json:"ports"`
	TimeBucketMS int64                                             `json:"time_bucket_ms"`
	Patterns     []CaptureProcessScenarioInputNormalizationPattern `json:"patterns"`
}

// CaptureScenarioRecord is the scenario as resolved (sensitive input as
// the engine redacted it).
type CaptureScenarioRecord struct {
	Executable                 string                     `json:"executable"`
	Arguments                  []string                   `json:"arguments"`
	ExecutableSHA256           *string                    `json:"executable_sha256"`
	WorkingDirectory           string                     `json:"working_directory"`
	Environment                map[string]string          `json:"environment"`
	FilesystemObservationPaths []string                   `json:"filesystem_observation_paths"`
	Terminal                   CaptureTerminalSize        `json:"terminal"`
	Events                     []CaptureScenarioEvent     `json:"events"`
	TimeoutMS                  int64                      `json:"timeout_ms"`
	IdleTimeoutMS              int64                      `json:"idle_timeout_ms"`
	SettleMS                   int64                      `json:"settle_ms"`
	FinalizationMS             int64                      `json:"finalization_ms,omitempty"`
	Limits                     CaptureLimitsRecord        `json:"limits"`
	Normalization              CaptureNormalizationRecord `json:"normalization"`
}

// CaptureComparisonContract is what two captures must share to be
// compared: the scenario without the executable and its arguments,
// sensitive input as <redacted-input>, and the normalization versions
// that apply.
type CaptureComparisonContract struct {
	WorkingDirectory            string                     `json:"working_directory"`
	Environment                 map[string]string          `json:"environment"`
	FilesystemObservationPaths  []string                   `json:"filesystem_observation_paths"`
	Terminal                    CaptureTerminalSize        `json:"terminal"`
	Events                      []CaptureScenarioEvent     `json:"events"`
	TimeoutMS                   int64                      `json:"timeout_ms"`
	IdleTimeoutMS               int64                      `json:"idle_timeout_ms"`
	SettleMS                    int64                      `json:"settle_ms"`
	FinalizationMS              int64                      `json:"finalization_ms,omitempty"`
	Limits                      CaptureLimitsRecord        `json:"limits"`
	Normalization               CaptureNormalizationRecord `json:"normalization"`
	AmbientEnvironment          string                     `json:"ambient_environment"`
	RenderedLineFormat          string                     `json:"rendered_line_format"`
	PortNormalizationVersion    *string                    `json:"port_normalization_version,omitempty"`
	PatternNormalizationVersion *string                    `json:"pattern_normalization_version,omitempty"`
}

// CaptureIdentity says whether the executable's identity held.
type CaptureIdentity struct {
	State  string  `json:"state"`
	Reason *string `json:"reason"`
}

// CaptureExecutable is the launched file's identity.
type CaptureExecutable struct {
	SelectedSHA256 *string         `json:"selected_sha256"`
	SHA256         *string         `json:"sha256"`
	Identity       CaptureIdentity `json:"identity"`
	Size           int64           `json:"size"`
	Mode           uint32          `json:"mode"`
}

// CaptureFrame is one normalized terminal output frame.
type CaptureFrame struct {
	Sequence int    `json:"sequence"`
	AtMS     int64  `json:"at_ms"`
	Data     string `json:"data"`
}

// CaptureCursor is a rendered frame's cursor.
type CaptureCursor struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// CaptureRenderedFrame is one rendered screen.
type CaptureRenderedFrame struct {
	Sequence        int           `json:"sequence"`
	AtMS            int64         `json:"at_ms"`
	Columns         int           `json:"columns"`
	Rows            int           `json:"rows"`
	Cursor          CaptureCursor `json:"cursor"`
	ActiveBuffer    string        `json:"active_buffer"`
	Lines           []string      `json:"lines"`
	SerializedState string        `json:"serialized_state"`
}

// CaptureTerminalRecord is the terminal output, raw frames normalized and
// rendered screens.
type CaptureTerminalRecord struct {
	Frames         []CaptureFrame         `json:"frames"`
	RenderedFrames []CaptureRenderedFrame `json:"rendered_frames"`
	FinalScreen    *CaptureRenderedFrame  `json:"final_screen"` // null when no terminal was observed (the launch failed)
}

// CaptureInteractionEvent is one dispatched (or failed) scenario event;
// signal_delivery only for a signal, redacted_byte_size only for
// sensitive input.
type CaptureInteractionEvent struct {
	Sequence         int      `json:"sequence"`
	ScheduledAtMS    int64    `json:"scheduled_at_ms"`
	DispatchedAtMS   *int64   `json:"dispatched_at_ms"`
	Type             string   `json:"type"`
	Data             string   `json:"data"`
	Outcome          string   `json:"outcome"`
	Reason           *string  `json:"reason"`
	SignalDelivery   **string `json:"signal_delivery,omitempty"` // signal events only (outer pointer set); null when nothing was delivered
	RedactedByteSize int      `json:"redacted_byte_size,omitempty"`
}

// CaptureFinalizationSignal is one signal sent at a deadline.
type CaptureFinalizationSignal struct {
	Signal   string  `json:"signal"`
	SentAtMS int64   `json:"sent_at_ms"`
	Target   string  `json:"target"`
	Delivery string  `json:"delivery"`
	Reason   *string `json:"reason"`
}

// CaptureFinalization is the stop at a deadline with a grace period.
type CaptureFinalization struct {
	RequestedMS int64                       `json:"requested_ms"`
	ElapsedMS   *int64                      `json:"elapsed_ms"`
	Signals     []CaptureFinalizationSignal `json:"signals"`
}

// CaptureExit is how the launched process ended.
type CaptureExit struct {
	Reason       string               `json:"reason"`
	Exited       bool                 `json:"exited"`
	ExitCode     *int                 `json:"exit_code"`
	Signal       *string              `json:"signal"`
	ElapsedMS    *int64               `json:"elapsed_ms"`
	Finalization *CaptureFinalization `json:"finalization"`
}

// CaptureSettlement is whether the process tree emptied after the exit.
type CaptureSettlement struct {
	State     string  `json:"state"`
	ElapsedMS int64   `json:"elapsed_ms"`
	Remaining int     `json:"remaining"`
	Reason    *string `json:"reason"`
}

// CaptureProcess is one process of the tree, ids renumbered.
type CaptureProcess struct {
	ID          int    `json:"id"`
	ParentID    int    `json:"parent_id"`
	GroupID     int    `json:"group_id"`
	SessionID   int    `json:"session_id"`
	Command     string `json:"command"`
	FirstSeenMS int64  `json:"first_seen_ms"`
	// FirstReadCommand and CommandRewrittenMS are set only for a process
	// that rewrote its argv in place (setproctitle) without an exec:
	// the command first read since its last exec, and when a look first
	// read Command.
	FirstReadCommand   *string `json:"first_read_command,omitempty"`
	CommandRewrittenMS *int64  `json:"command_rewritten_ms,omitempty"`
}

// CaptureProcessSample is one sampled change of a process, ids renumbered
// and its command normalized (an exec changes only the command).
type CaptureProcessSample struct {
	AtMS      int64  `json:"at_ms"`
	ID        int    `json:"id"`
	ParentID  int    `json:"parent_id"`
	GroupID   int    `json:"group_id"`
	SessionID int    `json:"session_id"`
	Command   string `json:"command"`
}

// CaptureProcesses is the normalized process tree and its samples.
type CaptureProcesses struct {
	Tree     []CaptureProcess       `json:"tree"`
	Samples  []CaptureProcessSample `json:"samples"`
	Coverage string                 `json:"coverage"`
	// TreeCount and SampleCount are only in a concise result: the
	// processes and samples the complete record holds, of which Tree and
	// Samples may list the first.
	TreeCount   *int `json:"tree_count,omitempty"`
	SampleCount *int `json:"sample_count,omitempty"`
}

// CapturePort is one listening socket, its port normalized.
type CapturePort struct {
	Protocol    string `json:"protocol"`
	Loopback    bool   `json:"loopback"`
	Port        string `json:"port"`
	FirstSeenMS int64  `json:"first_seen_ms"`
}

// CaptureFileEntry is one entry of a filesystem checkpoint.
type CaptureFileEntry struct {
	Path          string  `json:"path"`
	Type          string  `json:"type"`
	Mode          uint32  `json:"mode"`
	Size          int64   `json:"size"`
	SHA256        *string `json:"sha256"`
	SymlinkTarget *string `json:"symlink_target"`
}

// CaptureFileEffect is what happened to one path.
type CaptureFileEffect struct {
	Path   string  `json:"path"`
	Effect string  `json:"effect"`
	Reason *string `json:"reason"`
}

// CaptureFilesystem is the checkpoints before the launch and after the
// settlement, and the effects between them.
type CaptureFilesystem struct {
	Roots   []string            `json:"roots"`
	Before  []CaptureFileEntry  `json:"before"`
	After   []CaptureFileEntry  `json:"after"`
	Effects []CaptureFileEffect `json:"effects"`
	// BeforeCount, AfterCount and EffectCount are only in a concise
	// result: the entries and effects the complete record holds, of which
	// Before, After and Effects may list the first.
	BeforeCount *int `json:"before_count,omitempty"`
	AfterCount  *int `json:"after_count,omitempty"`
	EffectCount *int `json:"effect_count,omitempty"`
}

// CaptureJournalEntry orders one observation across collections.
type CaptureJournalEntry struct {
	CaptureOrder int    `json:"capture_order"`
	Collection   string `json:"collection"`
	Index        int    `json:"index"`
}

// CaptureTerminalTruncation is what a terminal budget kept.
type CaptureTerminalTruncation struct {
	BudgetBytes    int64 `json:"budget_bytes"`
	ObservedBytes  int64 `json:"observed_bytes"`
	RetainedBytes  int64 `json:"retained_bytes"`
	ObservedFrames int   `json:"observed_frames"`
	RetainedFrames int   `json:"retained_frames"`
}

// CaptureHashOmission is a file left unhashed.
type CaptureHashOmission struct {
	Path                 string `json:"path"`
	SizeBytes            int64  `json:"size_bytes"`
	RemainingBudgetBytes int64  `json:"remaining_budget_bytes"`
	Reason               string `json:"reason"`
}

// CaptureFilesystemTruncation is what a filesystem checkpoint left out.
type CaptureFilesystemTruncation struct {
	FilesLimit           int64                 `json:"files_limit"`
	DepthLimit           int64                 `json:"depth_limit"`
	EnumerationTruncated bool                  `json:"enumeration_truncated"`
	EnumerationReasons   []string              `json:"enumeration_reasons"`
	HashBudgetBytes      int64                 `json:"hash_budget_bytes"`
	HashedBytes          int64                 `json:"hashed_bytes"`
	HashOmissions        []CaptureHashOmission `json:"hash_omissions"`
}

// CaptureProcessTruncation is what process sampling kept.
type CaptureProcessTruncation struct {
	SampleLimit        int64  `json:"sample_limit"`
	SamplingPartial    bool   `json:"sampling_partial"`
	RetainedSamples    int    `json:"retained_samples"`
	SampleLimitReached bool   `json:"sample_limit_reached"`
	SamplingFailures   int    `json:"sampling_failures"`
	Coverage           string `json:"coverage"`
}

// CaptureTruncation is every budget's outcome.
type CaptureTruncation struct {
	Truncated        bool                        `json:"truncated"`
	RawTerminal      CaptureTerminalTruncation   `json:"raw_terminal"`
	RenderedTerminal CaptureTerminalTruncation   `json:"rendered_terminal"`
	FilesystemBefore CaptureFilesystemTruncation `json:"filesystem_before"`
	FilesystemAfter  CaptureFilesystemTruncation `json:"filesystem_after"`
	Process          CaptureProcessTruncation    `json:"process"`
}

// CaptureUnknown is a residual unknown: what could not be observed.
type CaptureUnknown struct {
	Scope  string `json:"scope"`
	Reason string `json:"reason"`
}

// CaptureCleanupStates is the state of each owned resource's cleanup.
type CaptureCleanupStates struct {
	OwnedProcessGroup string `json:"owned_process_group"`
	TerminalRenderer  string `json:"terminal_renderer"`
	TemporaryRoot     string `json:"temporary_root"`
}

// CaptureManifest is the run's provenance and the digests a comparison
// checks.
type CaptureManifest struct {
	ProviderVersion          string                    `json:"provider_version"`
	Platform                 string                    `json:"platform"`
	Architecture             string                    `json:"architecture"`
	PTYBackend               string                    `json:"pty_backend"`
	TerminalEmulator         string                    `json:"terminal_emulator"`
	StartedAt                *string                   `json:"started_at"`
	CompletedAt              *string                   `json:"completed_at"`
	ComparisonContract       CaptureComparisonContract `json:"comparison_contract"`
	FullScenarioSHA256       *string                   `json:"full_scenario_sha256"`
	ComparisonContractSHA256 *string                   `json:"comparison_contract_sha256"`
	NormalizationSHA256      *string                   `json:"normalization_sha256"`
	SelectedExecutableSHA256 *string                   `json:"selected_executable_sha256"`
	ExecutableSHA256         *string                   `json:"executable_sha256"`
	NormalizedOutputSHA256   string                    `json:"normalized_output_sha256"`
	FinalScreenSHA256        *string                   `json:"final_screen_sha256"` // null when no screen was observed (the launch failed), as terminal.final_screen
	EnvironmentNotes         []string                  `json:"environment_notes"`
}

// CaptureNormalizationApplied is the normalization the capture applied.
type CaptureNormalizationApplied struct {
	Version                     string   `json:"version"`
	PortNormalizationVersion    *string  `json:"port_normalization_version"`
	PatternNormalizationVersion *string  `json:"pattern_normalization_version"`
	RenderedLineFormat          string   `json:"rendered_line_format"`
	Placeholders                []string `json:"placeholders"`
}

// CompareProcessCapturesInput is the input of compare_process_captures.
// Left and Right are Evidence arguments, kept raw and resolved with
// Call.EvidenceArg (inline Evidence can be large).
type CompareProcessCapturesInput struct {
	Left            json.RawMessage `json:"left"`
	Right           json.RawMessage `json:"right"`
	MaxCaptureAgeMS *int            `json:"max_capture_age_ms,omitempty"` // Reject a capture completed longer ago than this.
}

// CompareProcessCapturesResult is the result of compare_process_captures.
type CompareProcessCapturesResult struct {
	Status          string                       `json:"status"`
	LeftEvidenceID  string                       `json:"left_evidence_id"`
	RightEvidenceID string                       `json:"right_evidence_id"`
	Contract        ProcessComparisonContract    `json:"contract"`
	Dimensions      []ProcessComparisonDimension `json:"dimensions"`
	FirstDivergence ProcessFirstDivergence       `json:"first_divergence"`
	// Incomplete lists each side that failed or whose program exited
	// before its scenario finished; absent when neither did.
	Incomplete []ProcessCaptureGap `json:"incomplete,omitempty"`
}

// ProcessCaptureGap is a compared capture that failed (a launch that
// failed, a cleanup that did not finish) or whose program exited before
// its scenario's events were due, and what it did not observe. A dimension
// that reads what one side did not observe is unknown, not changed: only a
// difference in what both observed is one.
type ProcessCaptureGap struct {
	Side        string   `json:"side"` // left or right
	EvidenceID  string   `json:"evidence_id"`
	Failed      bool     `json:"failed"`
	Reason      string   `json:"reason"`       // the failure, or which events the program did not live to receive
	NotObserved []string `json:"not_observed"` // fields of normalized_result ("terminal", "exit", "filesystem.after"), or "terminal after interaction event N"
}

// ProcessComparisonContract says whether the captures' comparison
// contracts and normalizations are the same.
type ProcessComparisonContract struct {
	Equal              bool   `json:"equal"`
	LeftSHA256         string `json:"left_sha256"`
	RightSHA256        string `json:"right_sha256"`
	NormalizationEqual bool   `json:"normalization_equal"`
}

// ProcessComparisonDimension is one dimension's outcome.
type ProcessComparisonDimension struct {
	Dimension  string  `json:"dimension"`
	Status     string  `json:"status"`
	Reason     *string `json:"reason"`
	LeftCount  int     `json:"left_count"`
	RightCount int     `json:"right_count"`
	// Difference is the dimension's first differing item on each side
	// (null on a side that has none): how an exit, a file or a process
	// changed. Processes are matched regardless of order: theirs is the
	// first process each side lacks, index its place among the side's
	// processes sorted by command. Only an observed difference has one.
	Difference *ProcessDimensionDifference `json:"difference,omitempty"`
}

// ProcessDimensionDifference is a dimension's first unequal item, as the
// captures hold it (open-ended JSON, null on the side that has none).
type ProcessDimensionDifference struct {
	Index int             `json:"index"`
	Left  json.RawMessage `json:"left"`
	Right json.RawMessage `json:"right"`
}

// ProcessFirstDivergence is the earliest difference: status found (with
// the dimension, the index and both items, null on the side that has
// none), unknown (with the reason) or none. Left, Right and their at_ms
// are the compared items as the captures hold them (open-ended JSON).
type ProcessFirstDivergence struct {
	Status    string          `json:"status"`
	Reason    string          `json:"reason,omitempty"`
	Dimension string          `json:"dimension,omitempty"`
	Index     *int            `json:"index,omitempty"`
	Left      json.RawMessage `json:"left,omitempty"`
	Right     json.RawMessage `json:"right,omitempty"`
	LeftAtMS  json.RawMessage `json:"left_at_ms,omitempty"`
	RightAtMS json.RawMessage `json:"right_at_ms,omitempty"`
}

// TraceNativeCallsInput is the input of trace_native_calls.
type TraceNativeCallsInput struct {
	Procedures       []string          `json:"procedures"`                  // Procedures to trace: names from the open analysis (such as main or printf@plt) or 0x link-time addresses.
	Arguments        []string          `json:"arguments,omitempty"`         // Arguments after the program name; its standard input is empty (/dev/null).
	AttachPID        int               `json:"attach_pid,omitempty"`        // Attach to this running process instead of launching one; its executable must be the open target.
	Convention       string            `json:"convention,omitempty"`        // Calling convention for the arguments; default go for a Go binary, else the platform's C convention.
	Environment      map[string]string `json:"environment,omitempty"`       // Variables set on top of rea's environment.
	FromMain         bool              `json:"from_main,omitempty"`         // Record from main's entry on (a launched C program), not C start-up's calls.
	MaxHits          *int              `json:"max_hits,omitempty"`          // Hits recorded; the next stops tracing.
	Program          string            `json:"program,omitempty"`           // The executable to launch; defaults to the open target, whose SHA-256 it must have.
	TimeoutMS        *int              `json:"timeout_ms,omitempty"`        // Time limit of the trace.
	WorkingDirectory string            `json:"working_directory,omitempty"` // Working directory of the program.
	Detail           string            `json:"detail,omitempty"`            // complete: every hit, not a first page.
}

// TraceNativeCallsResult is the result of trace_native_calls.
type TraceNativeCallsResult struct {
	Program      TraceProgram      `json:"program"`
	Convention   string            `json:"convention"`
	Breakpoints  []TraceBreakpoint `json:"breakpoints"`
	Hits         []TraceHit        `json:"hits"`
	Coverage     TraceCoverage     `json:"coverage"`
	Exit         *TraceExit        `json:"exit"`         // nil when the program did not exit during the trace
	Architecture string            `json:"architecture"` // "" when the tracer could not tell
}

// TraceProgram identifies the traced executable.
type TraceProgram struct {
	SHA256 string `json:"sha256"`
}

// TraceProcedure is a static procedure of the open analysis.
type TraceProcedure struct {
	Address string  `json:"address"`
	Name    *string `json:"name"`
}

// TraceBreakpoint is one breakpoint as placed.
type TraceBreakpoint struct {
	Name      string          `json:"name"`
	Address   string          `json:"address"`
	Module    *string         `json:"module"`
	Procedure *TraceProcedure `json:"procedure"`
	// Parameters are the procedure's parameters as the debug information
	// or the C library's prototype gives them; empty when neither does.
	Parameters       []TraceParameter `json:"parameters"`
	ParametersSource *string          `json:"parameters_source"` // dwarf or libc-prototype; nil when unknown
	// Hits counts the breakpoint's recorded hits in a concise page of a
	// trace (tracePage); absent when every hit is listed.
	Hits *int `json:"hits,omitempty"`
}

// TraceParameter is one parameter of a traced procedure.
type TraceParameter struct {
	Name     *string `json:"name"`
	Type     *string `json:"type"`
	Register *string `json:"register"` // "stack" when passed on the stack; "rax,rbx" for a value of several parts; nil when unknown
	// Constant is the parameter's value in a specialized copy
	// (name.constprop.0) that takes no argument for it (register "none").
	Constant *string `json:"constant,omitempty"`
}

// TraceArgument is one argument register's value at a call.
type TraceArgument struct {
	Register  string       `json:"register"`       // "[esp+4],[esp+8]" for a value of two slots; "none" for a constant
	Value     string       `json:"value"`          // hex; a floating-point parameter's as decimal text ("2.5")
	Bits      *string      `json:"bits,omitempty"` // a floating-point value's IEEE (or x87) bits, hex
	Parameter *string      `json:"parameter"`      // the parameter it carries (s.len: a Go string's length), when known
	String    *TraceString `json:"string"`         // the text it points at, for a char pointer or Go string or []byte parameter
	// StringAtReturn is the text in the buffer it points at when the call
	// returned, for a buffer the function fills (a char pointer without
	// const: sprintf's and strcpy's destination); absent otherwise.
	StringAtReturn *TraceString `json:"string_at_return,omitempty"`
	// Constant is, for a parameter a specialized copy (gcc's
	// name.constprop.0) has as a constant and takes no argument for, its
	// value as the breakpoint's parameter gives it ("7"): Value is that
	// constant, read from no register. Absent otherwise.
	Constant *string `json:"constant,omitempty"`
	// ValueAtReturn is what a scanf-style call stored through this
	// pointer, as its conversion types it (%d: hex, %f: decimal text);
	// absent for other arguments, and for a conversion not assigned.
	ValueAtReturn *string `json:"value_at_return,omitempty"`
	// PointsTo is where the value points in the program's own image or a
	// library, for an argument that may be an address (a pointer, or of
	// unknown type); absent when it points elsewhere (see Stack, Heap and
	// Mapping).
	PointsTo *TracePointee `json:"points_to,omitempty"`
	// Stack is where the value points in a thread's stack, as an offset
	// from that thread's stack pointer at the call ("sp+0x18": a caller's
	// frame; "sp-0x8": the red zone), for an argument that may be an
	// address; StackThread names the thread when it is not the calling
	// one, numbered as raw_result's hits number threads. Absent elsewhere
	// and where the stack's extent is unknown.
	Stack       *string `json:"stack,omitempty"`
	StackThread *int    `json:"stack_thread,omitempty"`
	// Heap says the value points into the process's heap: the brk heap
	// (malloc's main arena) or a glibc thread arena's; under qemu-user
	// the brk heap only. Absent otherwise.
	Heap bool `json:"heap,omitempty"`
	// Mapping is the memory mapping the value points into when it is in
	// none of the above: a file's (not the program or a library) or
	// anonymous memory; absent where the process's map is not known.
	Mapping *TraceMapping `json:"mapping,omitempty"`
	// TLS is where the value points in a thread's static thread-local
	// storage (the TLS blocks of the program and the libraries loaded
	// with it, and the thread's descriptor, beside its thread pointer), as
	// an offset from that thread's pointer at the call ("tp-0x80": a
	// __thread variable of an x86-64 program; "tp+0x10" on AArch64), for
	// an argument that may be an address; TLSThread names the thread when
	// it is not the calling one, numbered as raw_result's hits number
	// threads. Absent elsewhere, and where the thread's pointer or the
	// program's TLS layout is not known (a Go or musl program).
	TLS       *string `json:"tls,omitempty"`
	TLSThread *int    `json:"tls_thread,omitempty"`
}

// TraceMapping is a mapping of the traced process: the file (null for
// anonymous memory; the kernel's name for its own, such as "[vdso]") and
// the offset in the file, or from the mapping's start when it has none.
// That start is the one the process's memory map shows: the kernel merges
// adjacent anonymous mappings of the same permissions, so the offset may
// count from an earlier mmap than the one holding the value.
type TraceMapping struct {
	File   *string `json:"file"`
	Offset string  `json:"offset"`
}

// TracePointee is a place in the traced program's image or a library: its
// link-time address, which the static tools take, the section holding it,
// the label there, or the sized object around it with the offset into it
// (scratch+0x8; in a library, the dynamic symbol around it: stderr's FILE
// is _IO_2_1_stderr_) and, in the program's code, the procedure
// containing it.
type TracePointee struct {
	Module    *string         `json:"module"` // the library's file; null for the program
	Address   string          `json:"address"`
	Section   string          `json:"section"`
	Name      *string         `json:"name"`
	Procedure *TraceProcedure `json:"procedure"`
}

// TraceString is the text a char pointer argument pointed at when the call
// began (or, for string_at_return, when it returned), up to its NUL, or a Go string or []byte argument's bytes, by its
// length: at most 256 bytes (bytes that are not UTF-8 as \xNN).
type TraceString struct {
	Text      *string `json:"text"`      // nil when the memory could not be read (a null or wild pointer)
	Truncated bool    `json:"truncated"` // no NUL within the bytes read, or a Go value longer than them
}

// TraceHit is one recorded call.
type TraceHit struct {
	Sequence        int             `json:"sequence"`
	Breakpoint      int             `json:"breakpoint"`
	Name            string          `json:"name"`
	Address         string          `json:"address"`
	Procedure       *TraceProcedure `json:"procedure"`
	Arguments       []TraceArgument `json:"arguments"`
	Caller          *string         `json:"caller"`        // the return address: what the call pushed or left in the link register
	CallSite        *string         `json:"call_site"`     // the call instruction returning to Caller, as procedure_callers' call_sites give it; nil when the analysis has none ending there (a caller in a library or no module, undecoded code) or a tail call entered this call
	CallerModule    *string         `json:"caller_module"` // nil for the main executable; "" for none the tracer knows (the vDSO, generated code)
	CallerProcedure *TraceProcedure `json:"caller_procedure"`
	Returned        bool            `json:"returned"`
	ReturnValue     *string         `json:"return_value"`          // as value is
	ReturnBits      *string         `json:"return_bits,omitempty"` // as bits is
	// TailCallFrom is the sequence of the recorded hit whose tail call
	// (a jump, its frame popped) entered this call; Caller and
	// CallerProcedure are then where both return.
	TailCallFrom *int `json:"tail_call_from,omitempty"`
}

// TraceCoverage says what the trace could not see.
type TraceCoverage struct {
	StopReason       string   `json:"stop_reason"`
	Threads          int      `json:"threads"`
	HitsDropped      int      `json:"hits_dropped"`
	ReturnsMissing   int      `json:"returns_missing"`
	ForksNotFollowed int      `json:"forks_not_followed"`
	Notes            []string `json:"notes"`
	// HitsRecorded counts every recorded hit in a concise page of a trace
	// (tracePage), which lists only the first; absent when every hit is
	// listed.
	HitsRecorded *int `json:"hits_recorded,omitempty"`
}

// TraceExit is the traced program's exit.
type TraceExit struct {
	Code   *int    `json:"code"`
	Signal *string `json:"signal"`
}

var operationTypes = map[string]core.Types{
	"capture_process_scenario": core.TypesOf[CaptureProcessScenarioInput, CaptureProcessScenarioResult](),
	"compare_process_captures": core.TypesOf[CompareProcessCapturesInput, CompareProcessCapturesResult](),
	"trace_native_calls":       core.TypesOf[TraceNativeCallsInput, TraceNativeCallsResult](),
}
