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
	WorkingDirectory           string                                    `json:"working_directory,omitempty"` // Working directory of the program.
}

// CaptureProcessScenarioResult is the result of capture_process_scenario.
type CaptureProcessScenarioResult struct {
	Scenario          json.RawMessage   `json:"scenario"`
	Executable        json.RawMessage   `json:"executable"`
	Terminal          json.RawMessage   `json:"terminal"`
	InteractionEvents []json.RawMessage `json:"interaction_events"`
	Exit              json.RawMessage   `json:"exit"`
	Settlement        json.RawMessage   `json:"settlement"`
	Processes         json.RawMessage   `json:"processes"`
	Ports             []json.RawMessage `json:"ports"`
	Filesystem        json.RawMessage   `json:"filesystem"`
	Truncation        json.RawMessage   `json:"truncation"`
	ResidualUnknowns  []json.RawMessage `json:"residual_unknowns"`
	Cleanup           json.RawMessage   `json:"cleanup"`
	Manifest          json.RawMessage   `json:"manifest"`
	Normalization     json.RawMessage   `json:"normalization"`
}

// CompareProcessCapturesInput is the input of compare_process_captures.
type CompareProcessCapturesInput struct {
	Left            json.RawMessage `json:"left"`
	Right           json.RawMessage `json:"right"`
	MaxCaptureAgeMS int             `json:"max_capture_age_ms,omitempty"` // Reject a capture completed longer ago than this.
}

// CompareProcessCapturesResult is the result of compare_process_captures.
type CompareProcessCapturesResult struct {
	Status          string            `json:"status"`
	Contract        json.RawMessage   `json:"contract"`
	Dimensions      []json.RawMessage `json:"dimensions"`
	FirstDivergence json.RawMessage   `json:"first_divergence"`
}

// TraceNativeCallsInput is the input of trace_native_calls.
type TraceNativeCallsInput struct {
	Procedures       []string          `json:"procedures"`                  // Procedures to trace: names from the open analysis (such as main or printf@plt) or 0x link-time addresses.
	Arguments        []string          `json:"arguments,omitempty"`         // Arguments after the program name.
	AttachPID        int               `json:"attach_pid,omitempty"`        // Attach to this running process instead of launching one; its executable must be the open target.
	Convention       string            `json:"convention,omitempty"`        // Calling convention for the arguments; default go for a Go binary, else the platform's C convention.
	Environment      map[string]string `json:"environment,omitempty"`       // Variables set on top of rea's environment.
	MaxHits          *int              `json:"max_hits,omitempty"`          // Hits recorded; later ones are counted.
	Program          string            `json:"program,omitempty"`           // The executable to launch; defaults to the open target, whose SHA-256 it must have.
	TimeoutMS        *int              `json:"timeout_ms,omitempty"`        // Time limit of the trace.
	WorkingDirectory string            `json:"working_directory,omitempty"` // Working directory of the program.
}

// TraceNativeCallsResult is the result of trace_native_calls.
type TraceNativeCallsResult struct {
	Program      json.RawMessage   `json:"program"`
	Convention   string            `json:"convention"`
	Breakpoints  []json.RawMessage `json:"breakpoints"`
	Hits         []json.RawMessage `json:"hits"`
	Coverage     json.RawMessage   `json:"coverage"`
	Exit         json.RawMessage   `json:"exit"`
	Architecture string            `json:"architecture,omitempty"`
}

var operationTypes = map[string]core.Types{
	"capture_process_scenario": core.TypesOf[CaptureProcessScenarioInput, CaptureProcessScenarioResult](),
	"compare_process_captures": core.TypesOf[CompareProcessCapturesInput, CompareProcessCapturesResult](),
	"trace_native_calls":       core.TypesOf[TraceNativeCallsInput, TraceNativeCallsResult](),
}
