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

// One list of each convention's argument registers serves the tracer,
// the trace's prototypes and its limitations: the C conventions' whatever
// the architecture, Go's by it, none for cdecl or an unknown pairing.
func TestArgumentRegisters(t *testing.T) {
	for _, c := range []struct {
		conv             ports.CallingConvention
		arch             string
		ints, floats     int
		firstInt, lastFl string
	}{
		{ports.ConventionSysV, "", 6, 8, "rdi", "xmm7"},
		{ports.ConventionAAPCS64, "arm64", 8, 8, "x0", "v7"},
		{ports.ConventionGo, "x86-64", 9, 15, "rax", "xmm14"},
		{ports.ConventionGo, "arm64", 16, 16, "x0", "v15"},
		{ports.ConventionGo, "x86", 0, 0, "", ""},
		{ports.ConventionCdecl, "x86", 0, 0, "", ""},
		{"ms-x64", "x86-64", 0, 0, "", ""},
	} {
		ints, floats := ports.ArgumentRegisters(c.conv, c.arch)
		if len(ints) != c.ints || len(floats) != c.floats ||
			c.ints > 0 && (ints[0] != c.firstInt || floats[len(floats)-1] != c.lastFl) {
			t.Errorf("%s on %q: %v %v", c.conv, c.arch, ints, floats)
		}
	}
}

// The line terminators every code location counts lines by.
func TestLineEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		at   int
		want int
	}{
		{"a\nb", 1, 1}, {"a\r\nb", 1, 2}, {"a\rb", 1, 1}, {"a\r", 1, 1}, {"a\u2028b", 1, 3}, {"a\u2029", 1, 3},
		{"a\u2027b", 1, 0}, {"\xe2\x80", 0, 0}, {"ab", 0, 0}, {"é", 0, 0},
	} {
		if got := ports.LineEnd([]byte(c.in), c.at); got != c.want {
			t.Errorf("LineEnd(%q, %d) = %d, want %d", c.in, c.at, got, c.want)
		}
	}
}
