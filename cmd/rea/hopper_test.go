package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
)

var (
	fakeHopperOnce sync.Once
	fakeHopperBin  string
	fakeHopperErr  error
)

// fakeHopper builds the Hopper adapter's fake launcher once per test binary.
func fakeHopper(t *testing.T) string {
	t.Helper()
	fakeHopperOnce.Do(func() {
		dir := filepath.Join(filepath.Dir(reaBin), "fakehopper")
		if err := os.Mkdir(dir, 0o755); err != nil {
			fakeHopperErr = err
			return
		}
		fakeHopperBin = filepath.Join(dir, "Hopper")
		if out, err := exec.Command("go", "build", "-o", fakeHopperBin, "rea/adapters/hopper/testdata/fakehopper").CombinedOutput(); err != nil {
			fakeHopperErr = &buildError{what: "Hopper", err: err, out: string(out)}
		}
	})
	if fakeHopperErr != nil {
		t.Fatal(fakeHopperErr)
	}
	return fakeHopperBin
}

// newHopperHost is a host whose HOPPER_LAUNCHER_PATH is the fake launcher
// answering from the adapter's fixture transcript; env is added to rea
// serve's environment.
func newHopperHost(t *testing.T, env ...string) *engineHost {
	t.Helper()
	fake := fakeHopper(t)
	h, dir := newEngineHost(t, "hopper", "FAKE_HOPPER")
	launcher := filepath.Join(dir, "Hopper")
	if err := os.Symlink(fake, launcher); err != nil {
		t.Fatal(err)
	}
	transcript, err := filepath.Abs("../../adapters/hopper/testdata/fixture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	h.serve(func(k string) bool { return strings.HasPrefix(k, "HOPPER_") || strings.HasPrefix(k, "REA_HOPPER_") },
		append([]string{"HOPPER_LAUNCHER_PATH=" + launcher, "FAKE_HOPPER_TRANSCRIPT=" + transcript}, env...))
	return h
}

// hopperKind is how the shared engine tests drive the fake Hopper.
var hopperKind = engineKind{
	newHost: func(t *testing.T, env ...string) *engineHost { return newHopperHost(t, env...) },
	name:    "Hopper", fake: "FAKE_HOPPER", timeoutEnv: "REA_HOPPER_STARTUP_TIMEOUT_MS",
	waiting: "hopper_startup: waiting for Hopper's analysis and bridge readiness",
}

// TestHopperOverStdio: with HOPPER_LAUNCHER_PATH naming the adapter's fake
// launcher, the built rea lists Hopper as available, open_binary with
// provider_id hopper binds it without starting it, the first query starts
// it, decompilation answers through it, and close_binary leaves no root or
// process.
func TestHopperOverStdio(t *testing.T) {
	is := is.New(t)
	h := newHopperHost(t)
	h.open()
	is.Equal(len(h.launchers()), 0) // open_binary does not start Hopper

	text, isErr := h.mustCall("binary_overview", map[string]any{}, "")
	is.True(!isErr) // text
	p, n := overviewProvider(t, text)
	is.Equal(p, "hopper")
	is.Equal(n, float64(3))
	text, isErr = h.mustCall("procedure_pseudo_code", map[string]any{"procedure": "helper"}, "")
	if isErr {
		t.Fatalf("procedure_pseudo_code through Hopper: %s", text)
	}
	is.True(strings.Contains(text, `j_puts(\"hello, hopper\")`)) // text

	text, isErr = h.mustCall("close_binary", map[string]any{}, "")
	is.True(!isErr) // text
	left, _ := os.ReadDir(h.tmp)
	is.Equal(len(left), 0) // no root, socket or bootstrap left
	is.Equal(len(h.launchers()), 1)
	for _, pid := range h.launchers() {
		is.True(!alive(pid)) // the launcher is gone
	}
}

// TestHopperWaitingNoticesOverStdio: as Ghidra's, with Hopper's notice; it
// runs in parallel with Ghidra's.
func TestHopperWaitingNoticesOverStdio(t *testing.T) {
	testWaitingNoticesOverStdio(t, hopperKind)
}

// TestHopperStartupOverStdio: as Ghidra's (cancel, reopen and the analysis
// snapshot; timeout; crash; a process left behind).
func TestHopperStartupOverStdio(t *testing.T) {
	testStartupOverStdio(t, hopperKind)
}
