package ports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

type terminalViewKey struct{}

// WithTerminalView returns a context under which a capture engine copies the
// captured program's raw terminal output to w as it arrives: a live view for
// a person watching (rea capture on a terminal). The view never slows or
// changes the capture: output a slow w cannot take is dropped from the view
// only.
func WithTerminalView(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, terminalViewKey{}, w)
}

// TerminalView returns the writer WithTerminalView put in ctx, or nil.
func TerminalView(ctx context.Context) io.Writer {
	w, _ := ctx.Value(terminalViewKey{}).(io.Writer)
	return w
}

// Process capture: an engine runs a declared program in a pseudo-terminal as
// an owned process group, drives it with timed events and reports what it
// observed. The engine returns raw and normalized observations; core turns
// them into Evidence (canonical digests of the scenario, the comparison
// contract and the normalization rules are core's, so no engine can hash
// differently).

// ProcessCapturer runs one capture scenario. CaptureProcess blocks until the
// program has exited (or was stopped at a deadline), the tree has settled and
// everything the capture owned has been cleaned up. It is safe for concurrent
// use; each call owns its own processes.
//
// Errors: a *ScenarioError (errors.Is ErrInvalidScenario) before anything was
// launched; otherwise a *CaptureError that carries the partial observation.
// Cancelling ctx stops the program at once (SIGKILL after the supervisor's
// SIGTERM round) and returns a *CaptureError whose Cause is ctx's error.
// Progress goes to ports.Observe(ctx, phase, message) with phase one of
// "prepare", "running", "settling", "cleanup".
type ProcessCapturer interface {
	CaptureProcess(ctx context.Context, req CaptureRequest) (*ProcessCapture, error)
}

// CaptureRequest is one capture.
type CaptureRequest struct {
	Scenario CaptureScenario
	// RunID is the value of REA_PROCESS_RUN_ID (core passes
	// analysis_run.run_id); "" means a new random one.
	RunID string
}

// CaptureScenario is the scenario of CAPTURE-REPLAY-MANAGED.md §1.1. Core
// fills the schema defaults (NewCaptureScenario gives them); the engine
// validates ranges and never substitutes a default for an explicit zero,
// except where noted.
type CaptureScenario struct {
	Executable                 string            // >= 1 byte, no NUL
	Arguments                  []string          // no NUL
	WorkingDirectory           string            // "" means "."
	Environment                map[string]string // overrides on the host environment
	FilesystemObservationPaths []string          // relative to the working directory unless absolute
	Terminal                   CaptureTerminal
	Events                     []CaptureEvent // at_ms non-decreasing, each <= TimeoutMS
	TimeoutMS                  int64          // >= 1
	IdleTimeoutMS              int64          // >= 1
	SettleMS                   int64          // >= 0
	FinalizationMS             int64          // >= 0; 0 means SIGKILL at once on a deadline
	Limits                     CaptureLimits
	Normalization              CaptureNormalization
}

// CaptureTerminal is the PTY's size and the emulator's scrollback.
type CaptureTerminal struct {
	Columns    int // 1..65535
	Rows       int // 1..65535
	Scrollback int // >= 0 lines
}

// Event types.
const (
	EventInput  = "input"
	EventResize = "resize"
	EventSignal = "signal"
)

// CaptureEvent is one timed event. Type selects the fields that apply.
type CaptureEvent struct {
	AtMS      int64
	Type      string // EventInput, EventResize or EventSignal
	Data      string // input: the bytes written to the terminal
	Sensitive bool   // input: never stored raw; also redacted wherever it appears in the output
	Columns   int    // resize
	Rows      int    // resize
	Signal    string // signal: SIGINT, SIGTERM or SIGKILL, sent to the launched process
}

// CaptureLimits bound what a capture keeps.
type CaptureLimits struct {
	OutputBytes     int64 // raw terminal bytes kept (and, separately, rendered bytes)
	Files           int64 // entries per filesystem checkpoint
	FileBytes       int64 // bytes hashed per filesystem checkpoint
	Processes       int64 // process samples kept
	FilesystemDepth int64 // directory levels below each observation path
}

// CaptureNormalization says which observed values are replaced by
// placeholders before comparison.
type CaptureNormalization struct {
	Paths        bool
	PIDs         bool
	Ports        bool
	TimeBucketMS int64 // >= 1
	Patterns     []LiteralReplacement
}

// LiteralReplacement replaces every occurrence of Pattern (a literal, not a
// regular expression) by Replacement.
type LiteralReplacement struct {
	Pattern     string // >= 1 byte
	Replacement string
}

// NewCaptureScenario returns a scenario for executable with the contract's
// defaults.
func NewCaptureScenario(executable string) CaptureScenario {
	return CaptureScenario{
		Executable:       executable,
		Arguments:        []string{},
		WorkingDirectory: ".",
		Environment:      map[string]string{},
		Terminal:         CaptureTerminal{Columns: 80, Rows: 24, Scrollback: 1000},
		TimeoutMS:        30000,
		IdleTimeoutMS:    30000,
		SettleMS:         100,
		Limits: CaptureLimits{
			OutputBytes: 1_000_000, Files: 10_000, FileBytes: 10_000_000,
			Processes: 1000, FilesystemDepth: 16,
		},
		Normalization: CaptureNormalization{PIDs: true, Ports: true, TimeBucketMS: 10},
	}
}

// ErrInvalidScenario: the scenario was rejected before anything was
// launched. errors.As with *ScenarioError gives where and why.
var ErrInvalidScenario = errors.New("invalid capture scenario")

// Scenario issue reasons (the reasons of CONTRACTS.md §5's input issues).
const (
	IssueInvalidValue  = "invalid_value"
	IssueOutOfRange    = "out_of_range"
	IssueInvalidFormat = "invalid_format"
)

// ScenarioError rejects a scenario. Path locates the field (strings and
// ints, as details.issues[].path), Reason is one of the Issue constants.
type ScenarioError struct {
	Path    []any
	Reason  string
	Message string
}

func (e *ScenarioError) Error() string {
	parts := make([]string, len(e.Path))
	for i, p := range e.Path {
		parts[i] = fmt.Sprint(p)
	}
	return "capture scenario: " + strings.Join(parts, ".") + ": " + e.Message
}

// Is reports whether target is ErrInvalidScenario.
func (e *ScenarioError) Is(target error) bool { return target == ErrInvalidScenario }

// Capture dispositions: why the capture stopped running the program.
const (
	DispositionExited      = "exited"
	DispositionTimeout     = "timeout"
	DispositionIdleTimeout = "idle_timeout"
	DispositionCancelled   = "cancelled"
	DispositionFailed      = "failed"
)

// CaptureError is a capture that did not complete. Partial holds everything
// observed (never nil once the scenario was accepted): its Exit has nil
// ElapsedMS and Code when no exit was seen, and SignalAttempts keeps every
// signal attempt with its delivery result. errors.Is matches Cause (a
// context error for a cancellation) and ErrCleanupIncomplete when owned
// resources remain.
type CaptureError struct {
	Disposition string // DispositionCancelled or DispositionFailed
	Cause       error  // what went wrong; nil when only the cleanup failed
	Partial     *ProcessCapture
}

func (e *CaptureError) Error() string {
	var parts []string
	if e.Cause != nil {
		parts = append(parts, e.Cause.Error())
	}
	if e.Partial != nil && e.Partial.Cleanup.Err != nil {
		parts = append(parts, e.Partial.Cleanup.Err.Error())
	}
	if len(parts) == 0 {
		parts = append(parts, e.Disposition)
	}
	return "process capture: " + strings.Join(parts, "; ")
}

// Unwrap gives the cause and the cleanup error.
func (e *CaptureError) Unwrap() []error {
	var errs []error
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	if e.Partial != nil && e.Partial.Cleanup.Err != nil {
		errs = append(errs, e.Partial.Cleanup.Err)
	}
	return errs
}

// ProcessCapture is the raw observation of one capture. Times are
// milliseconds since the launch, bucketed by Normalization.TimeBucketMS
// (floor) where the field says "at".
type ProcessCapture struct {
	RunID            string
	Scenario         CaptureScenario // as resolved; sensitive input data replaced by <redacted-input:N-bytes>
	WorkingDirectory string          // real path
	TemporaryRoot    string          // owned, removed by cleanup; TMPDIR unless the scenario sets it
	Executable       ExecutableIdentity
	StartedAt        time.Time
	CompletedAt      time.Time

	Frames            []CaptureFrame
	RenderedFrames    []RenderedFrame
	FinalScreen       RenderedFrame // the screen at the end (Sequence -1), kept even when frames were truncated
	InteractionEvents []InteractionEvent
	Exit              CaptureExit
	Settlement        Settlement
	SignalAttempts    []SignalAttempt // every attempt: scenario signal events and stop rounds, in order

	ProcessSamples       []ProcessSample // a row each time a process's (ppid, command, pgid, sid) changed
	Processes            []CapturedProcess
	NormalizedProcesses  []NormalizedProcess
	ListeningSockets     []ListeningSocket
	FilesBefore          []FileEntry
	FilesAfter           []FileEntry
	FileEffects          []FileEffect
	ObservationRoots     []string // real paths of FilesystemObservationPaths, as root_<i>
	EventJournal         []JournalEntry
	Truncation           CaptureTruncation
	Coverage             []CoverageNote // what could not be observed and why (residual unknowns)
	Cleanup              CaptureCleanup
	Manifest             CaptureManifest
	NormalizationApplied NormalizationRecord
}

// Executable identity states (§1.2).
const (
	IdentityUnchanged = "path_metadata_unchanged"
	IdentityUnknown   = "unknown"
)

// ExecutableIdentity is the resolved executable and its digests.
type ExecutableIdentity struct {
	Path           string   // resolved absolute path
	Checked        []string // the candidates looked at, in order
	SelectedSHA256 string   // hex SHA-256 of the file hashed before launch
	SHA256         string   // SelectedSHA256 when the identity held, "" (null) otherwise
	State          string   // IdentityUnchanged or IdentityUnknown
	Reason         string   // why the identity is unknown
	Size           int64
	Mode           uint32
	Device, Inode  uint64
	MtimeNS        int64
	CtimeNS        int64
}

// CaptureFrame is one chunk read from the PTY. Data is normalized; Raw is the
// chunk before normalization (sensitive input already redacted) and is set
// only when normalization changed it.
type CaptureFrame struct {
	Sequence int
	AtMS     int64
	Data     string
	Raw      string
	HasRaw   bool
}

// Active buffers of a rendered frame.
const (
	BufferNormal    = "normal"
	BufferAlternate = "alternate"
)

// RenderedFrame is the emulated screen after one write or resize. Lines are
// the viewport rows, normalized and right-trimmed
// ("trailing-spaces-trimmed-v1"); SerializedState is the emulator's styled
// rendering of the screen, normalized.
type RenderedFrame struct {
	Sequence        int
	AtMS            int64
	Columns, Rows   int
	CursorX         int
	CursorY         int
	ActiveBuffer    string
	Lines           []string
	SerializedState string
}

// Interaction outcomes.
const (
	OutcomeDispatched   = "dispatched"
	OutcomeTargetExited = "target_exited"
	OutcomeFailed       = "failed"
)

// InteractionEvent is one scenario event and what became of it. Data is the
// input text (or <redacted-input:N-bytes>, or <not-dispatched>), "CxR" for a
// resize, or the signal name.
type InteractionEvent struct {
	Sequence         int
	ScheduledAtMS    int64
	DispatchedAtMS   *int64 // nil when not dispatched
	Type             string
	Data             string
	Outcome          string
	Reason           string // why it failed
	SignalDelivery   SignalResult
	RedactedByteSize int // sensitive input only
}

// CaptureExit is how the run ended. Code is set only for a normal exit;
// Signal names the terminating signal when one was seen. ElapsedMS is nil
// when no exit was seen.
type CaptureExit struct {
	Reason       string // a Disposition constant
	Exited       bool   // the launched process was seen to end
	Code         *int
	Signal       string
	ElapsedMS    *int64
	Finalization *Finalization // a deadline with FinalizationMS > 0
}

// Finalization records a deadline stop with a grace interval.
type Finalization struct {
	RequestedMS int64
	ElapsedMS   *int64 // from the first finalization signal to the exit; nil without an exit
	Signals     []FinalizationSignal
}

// Finalization signal deliveries.
const (
	DeliverySignaled        = "signaled"
	DeliveryGone            = "gone"
	DeliveryIdentityChanged = "identity-changed"
	DeliveryUnverified      = "unverified"
)

// FinalizationSignal is one signal of a finalization.
type FinalizationSignal struct {
	Signal   string // SIGTERM or SIGKILL
	SentAtMS int64
	Target   string // TargetProcess or TargetProcessGroup
	ID       int
	Delivery string
	Reason   string // unverified only
}

// Settlement states.
const (
	SettlementQuiesced        = "quiesced"
	SettlementAliveAtDeadline = "alive_at_deadline"
	SettlementUnverifiable    = "unverifiable"
)

// Settlement is what remained of the tree after the launched process ended.
type Settlement struct {
	State     string
	ElapsedMS int64  // from the exit (or stop) to the settlement decision
	Remaining []int  // owned pids alive at the deadline
	Reason    string // unverifiable only
}

// ProcessSample is a sampled process row, kept when the process first
// appears and each time (ppid, command, pgid, sid) changes.
type ProcessSample struct {
	AtMS           int64
	PID            int
	ParentPID      int
	Command        string // argv joined by spaces, else the kernel's comm in brackets ([as]), as ps writes it
	ProcessGroupID int
	SessionID      int
	// NormalizedCommand is Command normalized and trimmed as
	// NormalizedProcess.Command is: what a sample shows changed at an exec.
	NormalizedCommand string
}

// CapturedProcess is one owned process seen during the capture (a pid and
// start time), as the tree grew.
type CapturedProcess struct {
	PID            int
	ParentPID      int
	ProcessGroupID int
	SessionID      int
	Comm           string
	Argv           []string // nil when unreadable; the last argv read
	ArgvReadable   bool
	// FirstReadArgv is the argv the first read since the process's last
	// exec found, set when a later read of the same program image found
	// another (a process that rewrote its argv in place, as setproctitle
	// does: nginx, postgres, node's process.title); nil otherwise. It is
	// the argv the process was launched with only if the process did not
	// rewrite it before the first look; it is never set for a process
	// whose image the kernel hides (an exec cannot be told from a
	// rewrite there).
	FirstReadArgv []string
	// ArgvRewrittenMS is when a look first read the current Argv, when
	// FirstReadArgv is set: the rewrite happened after the read before
	// it, which may be up to a second earlier.
	ArgvRewrittenMS int64
	FirstSeenMS     int64
	LastSeenMS      int64
	ByRunID         bool // found through REA_PROCESS_RUN_ID, not descent (a daemon that left)
}

// NormalizedProcess is a CapturedProcess with pids renumbered 1.. in first
// seen order (the launcher, then pid, parent, group, session); 0 means a
// process outside the capture. Command is normalized; the launched
// program's path in it is <executable> even when Paths normalization is off.
type NormalizedProcess struct {
	ID, ParentID, GroupID, SessionID int
	Command                          string
	FirstSeenMS                      int64
	// FirstReadCommand is the normalized FirstReadArgv, "" when it is nil;
	// CommandRewrittenMS is ArgvRewrittenMS.
	FirstReadCommand   string
	CommandRewrittenMS int64
}

// ListeningSocket is a listening TCP socket held by an owned process.
type ListeningSocket struct {
	Protocol       string // tcp or tcp6
	Address        string
	Port           int
	Loopback       bool
	PID            int
	FirstSeenMS    int64
	NormalizedPort string // "<port>" when ports are normalized, else the number
}

// File entry types.
const (
	FileRegular   = "file"
	FileDirectory = "directory"
	FileSymlink   = "symlink"
	FileOther     = "other"
)

// FileEntry is one entry of a filesystem checkpoint. Path is
// "root_<i>:<relative path>" ("." for the root itself). SHA256 is "" (null)
// when not hashed.
type FileEntry struct {
	Path          string
	Type          string
	Mode          uint32
	Size          int64
	SHA256        string
	SymlinkTarget string // "<outside-declared-root>" for a target outside the root
}

// File effects.
const (
	EffectCreated   = "created"
	EffectDeleted   = "deleted"
	EffectModified  = "modified"
	EffectUnchanged = "unchanged"
	EffectUnknown   = "unknown"
)

// FileEffect compares one path between the checkpoints.
type FileEffect struct {
	Path   string
	Effect string
	Reason string // unknown only
}

// Journal collections.
const (
	JournalFrames            = "frames"
	JournalRenderedFrames    = "rendered_frames"
	JournalInteractionEvents = "interaction_events"
	JournalLifecycle         = "lifecycle" // index 0 exit, 1 settlement
	JournalProcessSamples    = "process_samples"
	JournalFilesystem        = "filesystem_checkpoints" // index 0 before, 1 after_settlement
)

// JournalEntry orders one stored observation among all of them.
type JournalEntry struct {
	CaptureOrder int
	Collection   string
	Index        int
}

// TerminalTruncation accounts for one terminal budget. Raw bytes are counted
// after sensitive input was redacted (what would have been stored); rendered
// bytes are the lines and serialized state of each frame.
type TerminalTruncation struct {
	BudgetBytes    int64
	ObservedBytes  int64
	RetainedBytes  int64
	ObservedFrames int
	RetainedFrames int
}

// Truncation reasons of a filesystem checkpoint.
const (
	TruncFilesLimit      = "files_limit"
	TruncDepthLimit      = "depth_limit"
	TruncIdentityChanged = "identity_changed"
	HashOmitBudget       = "file_bytes_budget"
	HashOmitChanged      = "file_changed_or_short_read"
)

// FilesystemTruncation accounts for one checkpoint.
type FilesystemTruncation struct {
	FilesLimit           int64
	DepthLimit           int64
	EnumerationTruncated bool
	EnumerationReasons   []string
	HashBudgetBytes      int64
	HashedBytes          int64
	HashOmissions        []HashOmission
}

// HashOmission is a regular file whose digest was not taken.
type HashOmission struct {
	Path                 string
	SizeBytes            int64
	RemainingBudgetBytes int64
	Reason               string
}

// ProcessTruncation accounts for process sampling.
type ProcessTruncation struct {
	SampleLimit          int64
	SamplingPartial      bool
	RetainedSamples      int
	SampleLimitReached   bool
	SamplingFailures     int
	FirstSamplingFailure string
}

// CaptureTruncation: Truncated is true when frames were omitted, a
// checkpoint's enumeration or hashing omitted something, or sampling was
// partial.
type CaptureTruncation struct {
	Truncated        bool
	RawTerminal      TerminalTruncation
	RenderedTerminal TerminalTruncation
	FilesystemBefore FilesystemTruncation
	FilesystemAfter  FilesystemTruncation
	Process          ProcessTruncation
}

// Coverage scopes.
const (
	ScopeProcess     = "process"
	ScopeEnvironment = "environment"
	ScopeNetwork     = "network"
	ScopeFilesystem  = "filesystem"
	ScopeInteraction = "interaction"
	ScopeTerminal    = "terminal"
	ScopeExit        = "exit"
)

// CoverageNote is something the capture could not observe, and why.
type CoverageNote struct {
	Scope  string
	Reason string
}

// Cleanup states.
const (
	CleanupCleaned     = "cleaned"
	CleanupFailed      = "failed"
	CleanupUnverified  = "unverified"
	CleanupNotRequired = "not_required"
)

// CleanupEntry is the cleanup of one owned resource.
type CleanupEntry struct {
	State               string
	Reason              string
	UnverifiedProcesses []UnverifiedProcess
}

// UnverifiedProcess is a process whose ownership could not be proven.
type UnverifiedProcess struct {
	PID    int
	Reason string
}

// CaptureCleanup reports the cleanup. Err is nil, or a *CleanupError naming
// only owned resources left.
type CaptureCleanup struct {
	OwnedProcessGroup CleanupEntry
	TerminalRenderer  CleanupEntry
	TemporaryRoot     CleanupEntry
	Err               error
}

// CaptureManifest describes the environment of the capture and the digests
// the engine computed (hex SHA-256 of bytes). Digests over canonical JSON
// (full scenario, comparison contract, normalization) are core's.
type CaptureManifest struct {
	ProviderVersion  string
	Platform         string // GOOS
	Architecture     string // GOARCH
	PTYBackend       string
	TerminalEmulator string
	StartedAt        time.Time
	CompletedAt      time.Time
	// SHA-256 of the terminal bytes observed (sensitive input redacted), of
	// the normalized frames' data concatenated, and of the final screen's
	// lines joined by "\n".
	RawOutputSHA256        string
	NormalizedOutputSHA256 string
	FinalScreenSHA256      string
	EnvironmentNotes       []string // what the child's environment was built from
}

// NormalizationRecord names the rules applied, so a comparison can tell
// whether two captures were normalized alike.
type NormalizationRecord struct {
	Version                     string // "rea-capture-normalization-v1"
	PortNormalizationVersion    string // when ports are normalized
	PatternNormalizationVersion string // when patterns are given
	RenderedLineFormat          string // "trailing-spaces-trimmed-v1"
	Placeholders                []string
}
