package hopper

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Configuration read from the environment by the program that wires the
// provider (cmd/rea), never by the provider itself.
const (
	// EnvLauncher names Hopper's launcher executable.
	EnvLauncher = "HOPPER_LAUNCHER_PATH"
	// EnvLoaderArgs overrides the loader arguments (a JSON string array).
	EnvLoaderArgs = "HOPPER_LOADER_ARGS_JSON"
	// EnvStartupTimeout bounds the first query's wait for Hopper's
	// analysis and the bridge's readiness, in milliseconds.
	EnvStartupTimeout = "REA_HOPPER_STARTUP_TIMEOUT_MS"
	// EnvDemoHelper names the X11 helper that runs the Hopper 6.4.2 Linux
	// demo (Options.DemoHelper, read with ParseDemoHelper), for example
	// this repository's scripts/hopper-demo-x11.py. Unset, the demo is
	// refused when it would start.
	EnvDemoHelper = "REA_HOPPER_DEMO_HELPER"
	// DefaultStartupTimeout applies when EnvStartupTimeout is not set.
	DefaultStartupTimeout = 120_000 * time.Millisecond
	maxStartupTimeoutMS   = 2_147_483_647
)

// ParseStartupTimeout reads a REA_HOPPER_STARTUP_TIMEOUT_MS value: a decimal
// integer from 1 to 2147483647 without sign, leading zero, exponent or
// spaces. Anything else (empty, "0", "01", "1e3", "abc", "2147483648") is a
// configuration error naming the variable and the accepted range.
func ParseStartupTimeout(s string) (time.Duration, error) {
	bad := func(why string) (time.Duration, error) {
		return 0, fmt.Errorf("%s=%q is invalid: %s; want a decimal integer of milliseconds from 1 to %d",
			EnvStartupTimeout, s, why, maxStartupTimeoutMS)
	}
	switch {
	case s == "":
		return bad("empty")
	case len(s) > 10:
		return bad("too large")
	case s[0] == '0' && len(s) == 1:
		return bad("zero")
	case s[0] == '0':
		return bad("leading zero")
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return bad("not a decimal integer")
		}
		n = n*10 + int64(s[i]-'0')
	}
	if n > maxStartupTimeoutMS {
		return bad("too large")
	}
	return time.Duration(n) * time.Millisecond, nil
}

// ParseDemoHelper reads a REA_HOPPER_DEMO_HELPER value: the absolute,
// clean path (at most 4096 bytes, no NUL) of an existing regular file that
// Options.Python can read. Anything else is a configuration error naming
// the variable, so a mistyped helper stops start-up rather than the first
// query of a Hopper session.
func ParseDemoHelper(s string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%s=%q is invalid: %s; want the absolute path of the X11 helper script (scripts/hopper-demo-x11.py)",
			EnvDemoHelper, s, why)
	}
	switch {
	case s == "":
		return bad("empty")
	case len(s) > 4096 || strings.IndexByte(s, 0) >= 0:
		return bad("not a usable path")
	case !filepath.IsAbs(s):
		return bad("not an absolute path")
	case filepath.Clean(s) != s:
		return bad("not a clean path")
	}
	fi, err := os.Stat(s)
	switch {
	case err != nil:
		return bad("cannot be read: " + err.Error())
	case !fi.Mode().IsRegular():
		return bad("not a regular file")
	}
	f, err := os.Open(s)
	if err != nil {
		return bad("cannot be read: " + err.Error())
	}
	f.Close()
	return s, nil
}

// ParseLoaderArgs reads HOPPER_LOADER_ARGS_JSON: a JSON array of at most 64
// non-empty strings without NUL, each at most 4096 bytes.
func ParseLoaderArgs(s string) ([]string, error) {
	var args []string
	if err := json.Unmarshal([]byte(s), &args); err != nil || args == nil {
		return nil, fmt.Errorf("%s must be a JSON array of strings", EnvLoaderArgs)
	}
	if len(args) > 64 {
		return nil, fmt.Errorf("%s has %d arguments; at most 64 are accepted", EnvLoaderArgs, len(args))
	}
	for _, a := range args {
		if a == "" || len(a) > 4096 || containsNUL(a) {
			return nil, fmt.Errorf("%s: every argument must be a non-empty string of at most 4096 bytes without NUL", EnvLoaderArgs)
		}
	}
	return args, nil
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}
