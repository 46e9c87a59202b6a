package ghidra

import (
	"errors"
	"fmt"
	"time"

	"rea/ports"
)

// RemoteError is an error the bridge answered with. Its Code is one of the
// bridge's codes (PROVIDERS.md §1.6); errors.Is maps them onto the ports
// sentinels core classifies: not_found → ErrNotFound; method_unavailable →
// ErrUnsupported; decompile_timeout and analysis_incomplete → ErrTimeout;
// every other code → ErrUnavailable (an execution failure).
type RemoteError struct {
	Code    string
	Message string
}

func (e *RemoteError) Error() string { return "ghidra bridge: " + e.Code + ": " + e.Message }

// Is maps the remote code onto a ports sentinel.
func (e *RemoteError) Is(target error) bool {
	switch e.Code {
	case "not_found":
		return target == ports.ErrNotFound
	case "method_unavailable":
		return target == ports.ErrUnsupported
	case "decompile_timeout", "analysis_incomplete":
		return target == ports.ErrTimeout
	case "invalid_request", "ambiguous":
		return false // rea sent something the bridge refused: a bug, not a state
	}
	return target == ports.ErrUnavailable
}

// StartupError is a failed engine start, reported by the query that started
// it. Kind is "timeout" (the startup deadline passed: errors.Is
// ports.ErrTimeout, Deadline set), "cancelled" (the caller gave up first:
// errors.Is context.Canceled), "process" (the engine exited before the bridge
// was ready) or "start" (anything else before or during the handshake);
// "process" and "start" match ports.ErrUnavailable.
type StartupError struct {
	Kind     string
	Deadline time.Duration
	Err      error
}

func (e *StartupError) Error() string {
	switch e.Kind {
	case "timeout":
		return fmt.Sprintf("ghidra startup: import, analysis and bridge readiness did not finish within the %d ms startup deadline (%s)",
			e.Deadline.Milliseconds(), EnvStartupTimeout)
	case "cancelled":
		return "ghidra startup: cancelled by the caller"
	}
	return "ghidra startup: " + e.Err.Error()
}

func (e *StartupError) Unwrap() error { return e.Err }

// Is makes every startup failure classifiable.
func (e *StartupError) Is(target error) bool {
	switch e.Kind {
	case "timeout":
		return target == ports.ErrTimeout
	case "process", "start":
		return target == ports.ErrUnavailable
	}
	return false
}

// errCrashed is the state of an analysis whose engine died after it was
// ready: it is reported, never replaced by a fresh engine.
var errCrashed = errors.New("ghidra engine exited after startup; close the analysis and open it again")
