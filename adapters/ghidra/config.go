package ghidra

import (
	"fmt"
	"time"
)

// Configuration read from the environment by the program that wires the
// provider (cmd/rea), never by the provider itself.
const (
	// EnvInstallDir names the Ghidra installation.
	EnvInstallDir = "GHIDRA_INSTALL_DIR"
	// EnvStartupTimeout bounds the first query's wait for import, analysis
	// and bridge readiness, in milliseconds.
	EnvStartupTimeout = "REA_GHIDRA_STARTUP_TIMEOUT_MS"
	// DefaultStartupTimeout is the startup deadline when EnvStartupTimeout
	// is not set.
	DefaultStartupTimeout = 330_000 * time.Millisecond
	// maxStartupTimeoutMS is the largest accepted value (2^31-1).
	maxStartupTimeoutMS = 2_147_483_647
)

// ParseStartupTimeout reads a REA_GHIDRA_STARTUP_TIMEOUT_MS value: a decimal
// integer from 1 to 2147483647 without sign, leading zero, exponent or
// spaces. Anything else (empty, "0", "01", "1e3", "abc", "2147483648") is a
// configuration error whose message names the variable and the accepted
// range. The CLI calls it at start-up when the variable is set.
func ParseStartupTimeout(s string) (time.Duration, error) {
	bad := func(why string) (time.Duration, error) {
		return 0, fmt.Errorf("%s=%q is invalid: %s; want a decimal integer of milliseconds from 1 to %d",
			EnvStartupTimeout, s, why, maxStartupTimeoutMS)
	}
	if s == "" {
		return bad("empty")
	}
	if len(s) > 10 {
		return bad("too large")
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return bad("not a decimal integer")
		}
		if i == 0 && c == '0' {
			if len(s) == 1 {
				return bad("zero")
			}
			return bad("leading zero")
		}
		n = n*10 + int64(c-'0')
	}
	if n > maxStartupTimeoutMS {
		return bad("too large")
	}
	return time.Duration(n) * time.Millisecond, nil
}
