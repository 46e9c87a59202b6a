package gdbremote_test

import (
	"bytes"
	"cmp"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// needServer skips a live test when gdbserver is not installed.
func needServer(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gdbserver"); err != nil {
		t.Skip("gdbserver is not installed (Debian package gdbserver); the replay tests cover the protocol")
	}
}

// toolPackages are the Debian packages of the tools the tests build with.
var toolPackages = map[string]string{"gcc": "gcc", "strip": "binutils", "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu",
	"i686-linux-gnu-gcc": "gcc-i686-linux-gnu"}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed: apt install %s", name, cmp.Or(toolPackages[name], name))
	}
}

// buildC compiles testdata/src/<src> with gcc and extra flags.
func buildC(t *testing.T, src, out string, flags ...string) string {
	t.Helper()
	needTool(t, "gcc")
	bin := filepath.Join(t.TempDir(), out)
	args := append([]string{"-O1", "-o", bin, filepath.Join("testdata", "src", src)}, flags...)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return bin
}

// symbol returns the link-time address of a function symbol.
func symbol(t *testing.T, bin, name string) uint64 {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			return s.Value
		}
	}
	t.Fatalf("%s has no function %s", bin, name)
	return 0
}

// stripped returns a copy of bin without its symbol table.
func stripped(t *testing.T, bin string) string {
	t.Helper()
	needTool(t, "strip")
	out := bin + ".stripped"
	if b, err := exec.Command("strip", "-o", out, bin).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Symbols(); err == nil {
		t.Fatalf("%s still has symbols", out)
	}
	return out
}

// runID returns a run ID unique to the test.
func runID(t *testing.T) string {
	return fmt.Sprintf("gdbremote-test-%d-%d", os.Getpid(), time.Now().UnixNano())
}

// noneLeft fails the test if any process still carries the run ID, or if any
// child of the test process other than those in keep is alive.
func noneLeft(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := withRunID(id)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of run %s remain: %v", id, left)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func withRunID(id string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	want := []byte("REA_PROCESS_RUN_ID=" + id + "\x00")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		if bytes.Contains(append(b, 0), want) {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && isZombie(string(st)) {
				continue
			}
			out = append(out, pid)
		}
	}
	return out
}

func isZombie(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// eachArch runs run on src built for each architecture the tracer
// handles: the host's (x86-64) with gcc and flags, and static AArch64
// and 32-bit x86 programs under QEMU with the same flags, each skipped
// where its tools are missing.
func eachArch(t *testing.T, src string, flags []string, run func(t *testing.T, bin string)) {
	out := strings.TrimSuffix(src, ".c")
	for _, lane := range []struct{ arch, emulated string }{{"x86-64", ""}, {"arm64", "arm64"}, {"x86", "x86"}} {
		t.Run(lane.arch, func(t *testing.T) {
			if lane.emulated == "" {
				run(t, buildC(t, src, out, flags...))
				return
			}
			needEmulation(t, lane.emulated)
			run(t, buildFor(t, lane.emulated, src, out, append([]string{"-static"}, flags...)...))
		})
	}
}

// traceStates traces bin launched with args, stopping at maxHits, and
// gives each hit as name(first argument) and r (returned), u (unwound) or
// p (pending).
func traceStates(t *testing.T, bin string, args []string, maxHits int, names ...string) (string, *ports.TraceResult) {
	t.Helper()
	id := runID(t)
	defer noneLeft(t, id)
	var bps []ports.TraceBreakpoint
	for _, n := range names {
		bps = append(bps, ports.TraceBreakpoint{Address: symbol(t, bin, n), Name: n})
	}
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{Launch: &ports.TraceLaunch{Path: bin, Args: args},
		Breakpoints: bps, MaxHits: maxHits, MaxDuration: 2 * time.Minute, RunID: id})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hits {
		state := "?"
		switch {
		case h.Returned && !h.Unwound:
			state = "r"
		case h.Unwound && !h.Returned:
			state = "u"
		case !h.Returned && h.ReturnSequence < 0:
			state = "p"
		}
		got = append(got, fmt.Sprintf("%s(%d)%s", h.Name, uint32(h.Arguments[0].Value), state))
	}
	return strings.Join(got, " "), res
}
