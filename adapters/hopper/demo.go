package hopper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// The Linux demo of Hopper shows a dialog before it analyses anything, so
// rea runs it only through the X11 helper of PROVIDERS.md §2.2: a private
// Xvfb display where the helper answers the dialog, with the helper as the
// owned launcher. The helper is scripts/hopper-demo-x11.py; a session
// names it with Options.DemoHelper and runs it with Options.Python.

// demoSHA256 is the launcher the helper accepts: the Hopper 6.4.2 Linux
// demo. Tests set it to their fake launcher's digest.
var demoSHA256 = "0294ced141cc373468ee22d8343e7dac41980cb05a937994ca81c9f09afe7ded"

// unsharePath runs the helper in a user and mount namespace when the X11
// socket directory is unusable; tests replace it.
var unsharePath = "unshare"

// DefaultPython runs the X11 helper.
const DefaultPython = "/usr/bin/python3"

// The helper's strategies.
const (
	strategyDirect    = "direct"
	strategyNamespace = "user-mount-namespace"
)

// helperFailures names the helper's exit codes from 70 (an array of
// constants, laid out by the linker: a map would be built by init code
// every rea process runs).
var helperFailures = [...]string{
	"private_display_unavailable", "x11_authorization_failed", "unsupported_hopper_build",
	"invalid_launch_command", "process_ownership_mismatch", "hopper_exited_during_startup",
	"unsupported_demo_dialog", "unexpected_display_geometry", "x11_input_failed",
	"runtime_dependency_unavailable", "x11_socket_directory_unusable",
}

// helperFailure names exit code exit, "" for a code the helper does not define.
func helperFailure(exit int) string {
	if exit >= 70 && exit-70 < len(helperFailures) {
		return helperFailures[exit-70]
	}
	return ""
}

// HelperError is a failure of the Linux demo's X11 helper: FailureCode
// names its exit code ("" for a code it does not define), Diagnostics is
// the JSON of its REA_X11_DIAGNOSTIC_V1 stderr line (nil without one).
type HelperError struct {
	FailureCode string
	ExitCode    int
	Diagnostics map[string]any
}

func (e *HelperError) Error() string {
	code := e.FailureCode
	if code == "" {
		code = "unknown failure"
	}
	return fmt.Sprintf("Hopper demo X11 helper: %s (exit %d)", code, e.ExitCode)
}

// helperError reads the helper's exit and stderr.
func helperError(exit int, stderr []byte) *HelperError {
	e := &HelperError{FailureCode: helperFailure(exit), ExitCode: exit}
	for line := range bytes.Lines(stderr) {
		v, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("REA_X11_DIAGNOSTIC_V1="))
		var d map[string]any
		if ok && json.Unmarshal(v, &d) == nil {
			e.Diagnostics = d
		}
	}
	return e
}

// demoHelper is how one demo session runs the helper.
type demoHelper struct {
	python, helper, strategy string
}

// wrap puts argv under unshare for the namespace strategy.
func (d demoHelper) wrap(args []string) (string, []string) {
	if d.strategy != strategyNamespace {
		return d.python, args
	}
	return unsharePath, append([]string{"--user", "--map-root-user", "--mount", d.python}, args...)
}

// strategyArgs are the helper's strategy flags.
func (d demoHelper) strategyArgs() []string {
	if d.strategy == strategyNamespace {
		return []string{"--strategy", strategyNamespace, "--mount-private-x11"}
	}
	return []string{"--strategy", strategyDirect}
}

// probeCommand checks that the helper can run with its strategy.
func (d demoHelper) probeCommand() (string, []string) {
	return d.wrap(append([]string{d.helper, "--probe"}, d.strategyArgs()...))
}

// launchCommand runs Hopper (launcher and argv) under the helper.
func (d demoHelper) launchCommand(launcher, sock string, argv []string) (string, []string) {
	args := append([]string{d.helper}, d.strategyArgs()...)
	args = append(args, "--hopper", launcher, "--socket", sock, "--", launcher)
	return d.wrap(append(args, argv...))
}

// probeDemo probes the direct strategy and, only when the X11 socket
// directory is unusable there, the namespace strategy; it returns the
// helper to launch with. env is the helper's environment.
func probeDemo(ctx context.Context, python, helper string, env []string) (demoHelper, error) {
	d := demoHelper{python: python, helper: helper, strategy: strategyDirect}
	err := runProbe(ctx, d, env)
	var he *HelperError
	if errors.As(err, &he) && he.ExitCode == 80 {
		d.strategy = strategyNamespace
		err = runProbe(ctx, d, env)
	}
	return d, err
}

// runProbe runs one probe to its end (bounded by ctx and a minute), keeping
// 64 KiB of its stderr.
func runProbe(ctx context.Context, d demoHelper, env []string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	path, args := d.probeCommand()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = env
	var stderr limited
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return helperError(ee.ExitCode(), stderr.b.Bytes())
	}
	return fmt.Errorf("Hopper demo X11 helper probe: %w", err)
}

// limited keeps the first 64 KiB written to it.
type limited struct{ b bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := 64<<10 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// helperExit reads why the helper exited during startup from its stderr log.
func helperExit(code int, stderrLog string) error {
	b, _ := os.ReadFile(stderrLog)
	if len(b) > 64<<10 {
		b = b[len(b)-64<<10:]
	}
	return helperError(code, b)
}

// errDemoWithoutHelper is the start failure of the demo without a helper.
var errDemoWithoutHelper = errors.New("this launcher is the Hopper 6.4.2 Linux demo, which shows a dialog before it analyses anything; " +
	"rea runs it only through the X11 helper (Options.DemoHelper), which is not configured")
