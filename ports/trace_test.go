package ports_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

func TestTraceErrorKinds(t *testing.T) {
	cases := []struct {
		cause   error
		generic error // nil: matches none of the generic sentinels
	}{
		{ports.ErrDebuggerMissing, ports.ErrUnavailable},
		{ports.ErrDebuggerDied, ports.ErrUnavailable},
		{ports.ErrTargetNotFound, ports.ErrNotFound},
		{ports.ErrAddressNotMapped, ports.ErrNotFound},
		{ports.ErrTargetNotExecutable, ports.ErrUnsupported},
		{ports.ErrTraceRequest, nil},
		{context.Canceled, nil},
	}
	generics := []error{ports.ErrUnavailable, ports.ErrNotFound, ports.ErrUnsupported, ports.ErrMalformed}
	for _, tc := range cases {
		t.Run(tc.cause.Error(), func(t *testing.T) {
			is := is.New(t)
			err := error(&ports.TraceError{Op: "trace", Err: fmt.Errorf("detail: %w", tc.cause), Partial: &ports.TraceResult{}})
			is.True(errors.Is(err, tc.cause))
			for _, g := range generics {
				is.Equal(errors.Is(err, g), g == tc.generic)
			}
			var te *ports.TraceError
			is.True(errors.As(fmt.Errorf("wrapped: %w", err), &te))
			is.True(te.Partial != nil)
		})
	}
}

func TestTraceErrorCleanup(t *testing.T) {
	is := is.New(t)
	ce := &ports.CleanupError{Resources: []ports.OwnedResource{{Kind: ports.ResourceProcess, ID: "12", Reason: "alive"}}}
	err := error(&ports.TraceError{Op: "cleanup", Err: ce, Partial: &ports.TraceResult{Remaining: ce.Resources}})
	is.True(errors.Is(err, ports.ErrCleanupIncomplete))
	is.Equal(err.Error(), "trace: cleanup: cleanup incomplete: process 12: alive")
}
