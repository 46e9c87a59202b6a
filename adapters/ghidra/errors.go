package ghidra

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rea/ports"
)

// RemoteError is an error the bridge answered with. Its Code is one of the
// bridge's codes (PROVIDERS.md §1.6); errors.Is maps them as §1.11 does
// through core's classification: not_found and ambiguous → ErrNotFound
// (core: invalid_request); method_unavailable → ErrUnsupported
// (capability_unavailable); decompile_timeout and analysis_incomplete →
// ErrTimeout (provider_timeout); decompile_cancelled → context.Canceled
// (cancelled). invalid_request (the bridge refused what rea sent, so a rea
// bug) and every other code match no sentinel: execution_failure.
type RemoteError struct {
	Code    string
	Message string
}

func (e *RemoteError) Error() string { return "ghidra bridge: " + e.Code + ": " + e.Message }

// Is maps the remote code onto a sentinel.
func (e *RemoteError) Is(target error) bool {
	switch e.Code {
	case "not_found", "ambiguous":
		return target == ports.ErrNotFound
	case "method_unavailable":
		return target == ports.ErrUnsupported
	case "decompile_timeout", "analysis_incomplete":
		return target == ports.ErrTimeout
	case "decompile_cancelled":
		return target == context.Canceled
	}
	return false
}

// StartupError is a failed engine start, reported by the query that started
// it. Kind is "timeout" (the startup deadline passed: errors.Is
// ports.ErrTimeout, Deadline set), "analysis_timeout" (Ghidra's own
// 300 s auto-analysis limit passed: errors.Is ports.ErrTimeout), "cancelled"
// (the caller gave up first: errors.Is context.Canceled), "process" (the
// engine exited before the bridge was ready) or "start" (anything else
// before or during the handshake). "process" and "start" match no sentinel:
// core reports them as execution_failure (§1.11).
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
	case "analysis_timeout":
		return "ghidra startup: Ghidra auto-analysis did not complete within its 300000 ms analysis timeout"
	}
	return "ghidra startup: " + e.Err.Error()
}

func (e *StartupError) Unwrap() error { return e.Err }

// Is makes every startup failure classifiable.
func (e *StartupError) Is(target error) bool {
	switch e.Kind {
	case "timeout", "analysis_timeout":
		return target == ports.ErrTimeout
	}
	return false
}

// errCrashed is the state of an analysis whose engine died after it was
// ready: it is reported, never replaced by a fresh engine.
var errCrashed = errors.New("ghidra engine exited after startup; close the analysis and open it again")
