package hopper

import (
	"errors"
	"fmt"
	"time"

	"rea/ports"
)

// RemoteError is an error the bridge answered with (PROVIDERS.md §2.3):
// Code is -32000, Type one of capability_unavailable (errors.Is
// ports.ErrUnsupported: core's capability_unavailable), invalid_request
// (errors.Is ports.ErrNotFound: rea asked about something Hopper does not
// know), authorization, bridge_exception or remote (no sentinel:
// execution_failure).
type RemoteError struct {
	Code    int
	Message string
	Type    string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("hopper bridge: %s: %s", e.Type, e.Message)
}

// Is maps the remote type onto a sentinel.
func (e *RemoteError) Is(target error) bool {
	switch e.Type {
	case "capability_unavailable":
		return target == ports.ErrUnsupported
	case "invalid_request":
		return target == ports.ErrNotFound
	}
	return false
}

// StartupError is a failed engine start, reported by the query that started
// it. Kind is "timeout" (errors.Is ports.ErrTimeout, Deadline set),
// "cancelled" (errors.Is context.Canceled), "process" (Hopper exited before
// the bridge was ready) or "start" (anything else before or during the
// handshake); the last two match no sentinel: execution_failure.
type StartupError struct {
	Kind     string
	Deadline time.Duration
	Err      error
}

func (e *StartupError) Error() string {
	switch e.Kind {
	case "timeout":
		return fmt.Sprintf("hopper startup: analysis and bridge readiness did not finish within the %d ms startup deadline (%s)",
			e.Deadline.Milliseconds(), EnvStartupTimeout)
	case "cancelled":
		return "hopper startup: cancelled by the caller"
	}
	return "hopper startup: " + e.Err.Error()
}

func (e *StartupError) Unwrap() error { return e.Err }

// Is makes a startup timeout a timeout.
func (e *StartupError) Is(target error) bool {
	return e.Kind == "timeout" && target == ports.ErrTimeout
}

// errCrashed is the state of an analysis whose engine died after it was
// ready: reported, never replaced.
var errCrashed = errors.New("hopper engine exited after startup; close the analysis and open it again")
