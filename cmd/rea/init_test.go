package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// initFree are rea's packages that run no code when a rea process starts:
// no package-level map literal, regexp, sync.OnceValue or call result, no
// init function. Each such variable would run in every process, and its
// code and data would stay resident (the kernel maps the executable 64 KB
// around each page touched) although most commands never use it. Their
// tables are switches, arrays of constants or built on first use instead.
var initFree = []string{
	"rea/adapters/asar",
	"rea/adapters/cdp",
	"rea/adapters/gdbremote",
	"rea/adapters/ghidra",
	"rea/adapters/hopper",
	"rea/adapters/hosts",
	"rea/adapters/internal/lazyengine",
	"rea/adapters/native/internal/winapi",
	"rea/adapters/probe",
	"rea/adapters/pty",
	"rea/core/present",
	"rea/core/product",
	"rea/supervisor",
}

// TestStartUpRunsNoInitOfInitFreePackages reads the runtime's own list of
// the package initializers a rea process runs (GODEBUG=inittrace=1 prints
// one line per package with init code) and fails when one of initFree is
// among them.
func TestStartUpRunsNoInitOfInitFreePackages(t *testing.T) {
	cmd := exec.Command(reaBin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rea version: %v\n%s", err, out)
	}
	ran := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "init" && strings.HasPrefix(f[2], "@") {
			ran[f[1]] = true
		}
	}
	if !ran["rea/core"] {
		t.Fatalf("no init trace of rea/core in rea version's output (has GODEBUG=inittrace changed?):\n%s", out)
	}
	for _, p := range initFree {
		if ran[p] {
			t.Errorf("%s runs init code at every rea start-up: make its package-level tables switches, arrays of constants or built on first use (a sync.Once in a struct, not sync.OnceValue)", p)
		}
	}
}
