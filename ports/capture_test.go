package ports_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

func TestNewCaptureScenarioDefaults(t *testing.T) {
	is := is.New(t)
	s := ports.NewCaptureScenario("prog")
	is.Equal(s.WorkingDirectory, ".")
	is.Equal(s.Terminal, ports.CaptureTerminal{Columns: 80, Rows: 24, Scrollback: 1000})
	is.Equal(s.TimeoutMS, int64(30000))
	is.Equal(s.IdleTimeoutMS, int64(30000))
	is.Equal(s.SettleMS, int64(100))
	is.Equal(s.FinalizationMS, int64(0))
	is.Equal(s.Limits, ports.CaptureLimits{OutputBytes: 1e6, Files: 1e4, FileBytes: 1e7, Processes: 1000, FilesystemDepth: 16})
	is.Equal(s.Normalization.Paths, false)
	is.Equal(s.Normalization.PIDs, true)
	is.Equal(s.Normalization.Ports, true)
	is.Equal(s.Normalization.TimeBucketMS, int64(10))
	is.True(s.Arguments != nil && s.Environment != nil) // empty, not null
}

func TestScenarioError(t *testing.T) {
	is := is.New(t)
	var err error = &ports.ScenarioError{Path: []any{"events", 2, "at_ms"}, Reason: ports.IssueOutOfRange, Message: "too late"}
	err = fmt.Errorf("capture: %w", err)
	is.True(errors.Is(err, ports.ErrInvalidScenario))
	is.True(!errors.Is(err, ports.ErrCleanupIncomplete))
	is.Equal(err.Error(), "capture: capture scenario: events.2.at_ms: too late")
}

func TestCaptureError(t *testing.T) {
	is := is.New(t)
	partial := &ports.ProcessCapture{}
	err := error(&ports.CaptureError{Disposition: ports.DispositionCancelled, Cause: context.Canceled, Partial: partial})
	is.True(errors.Is(err, context.Canceled))
	is.True(!errors.Is(err, ports.ErrCleanupIncomplete))
	is.Equal(err.Error(), "process capture: context canceled")

	// A cleanup failure is matched, and its resources are reachable.
	partial.Cleanup.Err = &ports.CleanupError{Resources: []ports.OwnedResource{{Kind: ports.ResourceProcess, ID: "42", Reason: "still running"}}}
	err = &ports.CaptureError{Disposition: ports.DispositionFailed, Partial: partial}
	is.True(errors.Is(err, ports.ErrCleanupIncomplete))
	var ce *ports.CleanupError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Kinds(), []string{ports.ResourceProcess})
	is.Equal(err.Error(), "process capture: cleanup incomplete: process 42: still running")
	var capErr *ports.CaptureError
	is.True(errors.As(err, &capErr))
	is.Equal(capErr.Partial, partial)
}
