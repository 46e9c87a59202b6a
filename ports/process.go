package ports

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"
)

// Process observations: what an engine that launches a process (Ghidra, a
// browser, a captured command) reports about the processes it owns. The
// supervisor package produces them; core renders them as
// binary_session.analysis_run.process_lineage and as cleanup details.

// LineageStatus says whether a lineage snapshot could be verified.
type LineageStatus string

const (
	// LineageVerified: the launcher was live and every process listed was
	// proven ours at ObservedAt.
	LineageVerified LineageStatus = "verified"
	// LineageUnavailable: ownership could not be revalidated; Reason says why.
	LineageUnavailable LineageStatus = "unavailable"
)

// Reasons for an unavailable lineage, as the provider contract words them.
const (
	LineageReasonNoProcessTable = "process table could not be inspected"
	LineageReasonLauncherGone   = "owned launcher is not live"
	LineageReasonUnowned        = "process lineage contains an unowned or PID-reused process"
	LineageReasonNotRevalidated = "process ownership could not be revalidated"
)

// ProcessLineage is one bounded check of an owned process tree. It is a
// historical snapshot, not a live inventory: a short-lived descendant may have
// come and gone between two checks.
type ProcessLineage struct {
	Status     LineageStatus
	ObservedAt time.Time
	// The launcher rea started and the process group it leads. Both are set
	// whenever a process was launched, verified or not.
	LauncherPID    int
	ProcessGroupID int
	// Verified only.
	LauncherParentPID int
	LauncherStartTime time.Time
	LauncherCommand   string
	Descendants       []LineageProcess // sorted by PID; the launcher is not repeated here
	// Unavailable only.
	Reason string
}

// LineageProcess is one owned descendant of a launcher.
type LineageProcess struct {
	PID            int
	ParentPID      int
	ProcessGroupID int
	StartTime      time.Time // from the kernel's clock ticks since boot; to the second
	Command        string    // the kernel's command name (at most 15 bytes on Linux)
}

// LineageReporter is implemented by an Analysis (or any engine handle) that
// launched or attached to a process. ProcessLineage returns the observation
// the engine made once, when its process became ready (after the handshake),
// and retained; before that, the zero ProcessLineage (empty Status), which
// core renders as not_observed. core asks it whenever it renders
// binary_session. It never signals anything and is safe for concurrent use.
type LineageReporter interface {
	ProcessLineage(ctx context.Context) ProcessLineage
}

// SignalResult is the delivery result of one signal attempt.
type SignalResult string

const (
	SignalDelivered       SignalResult = "delivered"
	SignalNoSuchProcess   SignalResult = "no-such-process"
	SignalRefusedNotOwned SignalResult = "refused-not-owned"
	SignalError           SignalResult = "error"
)

// Signal targets.
const (
	TargetProcess      = "process"
	TargetProcessGroup = "process-group"
)

// SignalAttempt records one signal an owner sent, or refused to send, during a
// stop sequence. Failed captures keep every attempt in their
// partial_observation.
type SignalAttempt struct {
	Target string // TargetProcess or TargetProcessGroup
	ID     int    // pid or process group id
	Signal string // "SIGTERM", "SIGKILL"
	At     time.Time
	Result SignalResult
	Reason string // why it was refused or failed; "" when delivered
}

// Owned resource kinds a cleanup can leave behind.
const (
	ResourceProcess       = "process"
	ResourceProcessGroup  = "process-group"
	ResourceTemporaryRoot = "temporary-root"
	ResourceSocket        = "socket"
)

// OwnedResource is a resource its owner could not release.
type OwnedResource struct {
	Kind   string // one of the Resource constants
	ID     string // a pid, process group id or path
	Reason string
}

// ErrCleanupIncomplete: owned resources remain after a cleanup. Match it with
// errors.Is; errors.As with *CleanupError gives the resources.
var ErrCleanupIncomplete = errors.New("cleanup incomplete")

// CleanupError lists the owned resources that remain after a cleanup, and only
// those: never an unrelated process or path.
type CleanupError struct {
	Resources []OwnedResource
}

func (e *CleanupError) Error() string {
	parts := make([]string, len(e.Resources))
	for i, r := range e.Resources {
		parts[i] = r.Kind + " " + r.ID + ": " + r.Reason
	}
	return "cleanup incomplete: " + strings.Join(parts, "; ")
}

// Is reports whether target is ErrCleanupIncomplete.
func (e *CleanupError) Is(target error) bool { return target == ErrCleanupIncomplete }

// Kinds returns the distinct kinds of the remaining resources, sorted: the
// `resources` detail of a cleanup_incomplete error.
func (e *CleanupError) Kinds() []string {
	seen := map[string]bool{}
	var kinds []string
	for _, r := range e.Resources {
		if !seen[r.Kind] {
			seen[r.Kind] = true
			kinds = append(kinds, r.Kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// SignalReporter is implemented by an engine error that carries the signal
// attempts of the stop sequence that ended the engine's process (a failed or
// cancelled call that had to stop what it launched). core places them under
// the error's details.partial_observation.signals; find it with errors.As.
type SignalReporter interface {
	SignalAttempts() []SignalAttempt
}

// StopError wraps an engine failure with the signal attempts made while
// stopping the engine's processes. It matches whatever Err matches.
type StopError struct {
	Err      error
	Attempts []SignalAttempt
}

func (e *StopError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying failure.
func (e *StopError) Unwrap() error { return e.Err }

// SignalAttempts returns the attempts, in the order they were made.
func (e *StopError) SignalAttempts() []SignalAttempt { return e.Attempts }
