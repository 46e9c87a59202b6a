package gdbremote_test

import (
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

func TestTraceBadTargets(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	os.WriteFile(script, []byte("echo no shebang\n"), 0o755)
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("\x7fELF"), 0o644)
	cases := []struct {
		name string
		path string
		want error
	}{
		{"missing", filepath.Join(dir, "nothing"), ports.ErrTargetNotFound},
		{"directory", dir, ports.ErrTargetNotExecutable},
		{"not executable", plain, ports.ErrTargetNotExecutable},
		{"script without shebang", script, ports.ErrTargetNotExecutable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
				Launch:      &ports.TraceLaunch{Path: tc.path},
				Breakpoints: []ports.TraceBreakpoint{{Address: 0x1000}},
			})
			is.True(errors.Is(err, tc.want))
			var te *ports.TraceError
			is.True(errors.As(err, &te))
			is.True(te.Partial != nil)
			is.Equal(te.Partial.Coverage.StopReason, ports.TraceStopFailed)
		})
	}
}

func TestTraceServerMissing(t *testing.T) {
	is := is.New(t)
	none := filepath.Join(t.TempDir(), "missing")
	tr := gdbremote.New(&gdbremote.Options{Server: filepath.Join(t.TempDir(), "gdbserver"),
		Emulators: map[string]string{"arm64": none, "x86-64": none, "x86": none}})
	is.True(errors.Is(tr.Available(), ports.ErrDebuggerMissing))
	_, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: "/bin/true"},
		Breakpoints: []ports.TraceBreakpoint{{Address: 0x1000}},
	})
	is.True(errors.Is(err, ports.ErrDebuggerMissing))
	is.True(errors.Is(err, ports.ErrUnavailable))
}

func TestTraceAttachMissingPID(t *testing.T) {
	is := is.New(t)
	_, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Attach:      &ports.TraceAttach{PID: 1 << 30},
		Breakpoints: []ports.TraceBreakpoint{{Address: 0x1000}},
	})
	is.True(errors.Is(err, ports.ErrTargetNotFound))
	is.True(errors.Is(err, ports.ErrNotFound))
}

func TestTraceAddressNotMapped(t *testing.T) {
	needServer(t)
	bin := buildC(t, "calls.c", "calls", "-no-pie", "-fno-pie")
	for _, bp := range []ports.TraceBreakpoint{
		{Address: 0x10, Name: "nowhere"},
		{Address: 0x1000, Module: "libnotloaded.so.1", Name: "unloaded"},
	} {
		t.Run(bp.Name, func(t *testing.T) {
			is := is.New(t)
			_, err := traceOne(t, bin, []ports.TraceBreakpoint{bp}, "")
			is.True(errors.Is(err, ports.ErrAddressNotMapped))
			var te *ports.TraceError
			is.True(errors.As(err, &te))
			is.Equal(te.Op, "breakpoint")
			is.True(te.Partial.ProcessID > 0)
		})
	}
}

func TestTraceLibraryFunction(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "calls.c", "calls", "-pie", "-fPIE")
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	f, err := elf.Open(libc)
	if err != nil {
		t.Skipf("no %s: %v", libc, err)
	}
	syms, _ := f.DynamicSymbols()
	f.Close()
	var strtol uint64
	for _, s := range syms {
		if s.Name == "strtol" {
			strtol = s.Value
		}
	}
	is.True(strtol != 0)
	res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: strtol, Module: "libc.so.6", Name: "strtol"}}, "")
	is.NoErr(err)
	is.Equal(len(res.Hits), 0) // no argument: atoi, hence strtol, is not called
	res, err = func() (*ports.TraceResult, error) {
		id := runID(t)
		defer noneLeft(t, id)
		return gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
			Launch:      &ports.TraceLaunch{Path: bin, Args: []string{"42"}},
			Breakpoints: []ports.TraceBreakpoint{{Address: strtol, Module: "libc.so.6", Name: "strtol"}},
			RunID:       id,
		})
	}()
	is.NoErr(err)
	is.Equal(len(res.Hits), 1)
	h := res.Hits[0] // atoi("42") is strtol("42", NULL, 10) inlined
	is.Equal(h.Arguments[1].Value, uint64(0))
	is.Equal(h.Arguments[2].Value, uint64(10))
	is.True(h.Returned)
	is.Equal(h.ReturnValue, uint64(42))
	is.Equal(h.CallerModule, bin)
	is.Equal(*res.Exit.Code, 42)
	is.Equal(filepath.Base(res.Breakpoints[0].Module), "libc.so.6")
}

func TestTraceTimeLimit(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "loop.c", "loop")
	// An unrelated process named like ours: it must survive the trace.
	decoy := filepath.Join(t.TempDir(), "gdbserver")
	sleep, err := os.ReadFile("/bin/sleep")
	is.NoErr(err)
	is.NoErr(os.WriteFile(decoy, sleep, 0o755))
	other := exec.Command(decoy, "60")
	is.NoErr(other.Start())
	defer func() {
		other.Process.Kill()
		other.Wait()
	}()
	id := runID(t)
	defer noneLeft(t, id)
	res, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}},
		MaxDuration: time.Second,
		RunID:       id,
	})
	is.NoErr(err)
	is.Equal(res.Coverage.StopReason, ports.TraceStopTimeLimit)
	is.True(res.Exit == nil)
	args := firstArgs(res.Hits, "target")
	is.True(len(args) > 0)
	for i, a := range args {
		is.Equal(a, uint64(i)) // every call, in order, until the deadline
	}
	is.Equal(res.Coverage.HitsDropped, 0)
	is.True(other.Process.Signal(syscall.Signal(0)) == nil) // the decoy is alive
	for _, a := range res.Signals {
		is.True(a.ID != other.Process.Pid)
	}
}

func TestTraceCancel(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "loop.c", "loop")
	id := runID(t)
	defer noneLeft(t, id)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	_, err := gdbremote.New(nil).TraceCalls(ctx, ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}},
		RunID:       id,
	})
	is.True(errors.Is(err, context.Canceled))
	var te *ports.TraceError
	is.True(errors.As(err, &te))
	is.Equal(te.Partial.Coverage.StopReason, ports.TraceStopCancelled)
	is.True(len(te.Partial.Hits) > 0)
}

// The server dies mid-trace: the error says so and keeps the hits seen.
func TestTraceServerDies(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "loop.c", "loop")
	id := runID(t)
	defer noneLeft(t, id)
	go func() {
		// Kill the gdbserver of this run (proven ours by its run ID) once
		// the trace is under way.
		time.Sleep(700 * time.Millisecond)
		for _, pid := range withRunID(id) {
			if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); string(comm) == "gdbserver\n" {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	_, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}},
		RunID:       id,
		MaxDuration: 10 * time.Second,
	})
	is.True(errors.Is(err, ports.ErrDebuggerDied))
	var te *ports.TraceError
	is.True(errors.As(err, &te))
	is.Equal(te.Op, "trace")
	is.True(len(te.Partial.Hits) > 0)
}

// Once max_hits are recorded, the first call past them ends the trace at
// once: the program rea launched is killed (no exit), the deadline is not
// waited for, and that call is counted in hits_dropped. Before, the trace
// kept stopping at every call, counting it, until the program ended or the
// deadline passed.
func TestTraceHitLimitEndsALaunchedProgram(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "loop.c", "loop")
	id := runID(t)
	defer noneLeft(t, id)
	res, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}},
		MaxHits:     5,
		MaxDuration: 2 * time.Minute, // the loop never ends: only the hit limit stops it
		RunID:       id,
	})
	is.NoErr(err)
	is.Equal(res.Coverage.StopReason, ports.TraceStopHitLimit)
	is.True(res.Exit == nil) // killed, not exited
	is.Equal(firstArgs(res.Hits, "target"), []uint64{0, 1, 2, 3, 4})
	is.Equal(res.Coverage.HitsDropped, 1) // the call that ended the trace
	is.True(hasNote(res.Coverage.Notes, "max_hits (5) was reached", "launched was killed"))
}

// A call still waiting for its return when the hit limit ends the trace
// is pending, not missing: the program was stopped before it could return.
// Here main never returns before the limit, so the trace holds main's hit
// unreturned; it is named in a note and not counted in returns_missing.
// Before, returns_missing said 1, as if main's return had been lost.
func TestTraceHitLimitLeavesPendingReturnsOutOfMissing(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "loop.c", "loop")
	id := runID(t)
	defer noneLeft(t, id)
	res, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Launch: &ports.TraceLaunch{Path: bin},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "main"), Name: "main"},
			{Address: symbol(t, bin, "target"), Name: "target"}},
		MaxHits:     3,
		MaxDuration: 2 * time.Minute,
		RunID:       id,
	})
	is.NoErr(err)
	is.Equal(res.Coverage.StopReason, ports.TraceStopHitLimit)
	is.Equal(len(res.Hits), 3)
	is.Equal(res.Hits[0].Name, "main")
	is.True(!res.Hits[0].Returned)
	is.True(res.Hits[1].Returned)
	is.Equal(res.Coverage.ReturnsMissing, 0)
	is.True(hasNote(res.Coverage.Notes, "1 recorded call(s) were still waiting for their return", "pending"))
}

func hasNote(notes []string, parts ...string) bool {
	for _, n := range notes {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(n, p)
		}
		if all {
			return true
		}
	}
	return false
}

// Attach to a process the test started: once max_hits are recorded the next
// call ends the trace, which detaches (never kills: rea did not start it),
// and the program runs on without its breakpoints.
func TestTraceAttach(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "loop.c", "loop")
	cmd := exec.Command(bin)
	is.NoErr(cmd.Start())
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	time.Sleep(100 * time.Millisecond)
	id := runID(t)
	res, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Attach:      &ports.TraceAttach{PID: cmd.Process.Pid},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}},
		MaxHits:     3,
		MaxDuration: 2 * time.Minute, // only the hit limit ends the trace
		RunID:       id,
	})
	noneLeft(t, id)
	is.NoErr(err)
	is.Equal(res.ProcessID, cmd.Process.Pid)
	is.Equal(res.Coverage.StopReason, ports.TraceStopHitLimit)
	is.Equal(res.Coverage.HitsDropped, 1)
	is.True(hasNote(res.Coverage.Notes, "max_hits (3) was reached", "attached process was released"))
	for _, a := range res.Signals {
		is.True(a.ID != cmd.Process.Pid) // never signalled
	}
	args := firstArgs(res.Hits, "target")
	is.Equal(len(args), 3)
	is.Equal(args[1], args[0]+1)
	is.Equal(args[2], args[0]+2)
	// Still running, not stopped or trapped.
	time.Sleep(200 * time.Millisecond)
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
	is.NoErr(err)
	is.True(!isZombie(string(stat)))
	is.True(cmd.ProcessState == nil)
}

func TestTraceBadRequests(t *testing.T) {
	bp := []ports.TraceBreakpoint{{Address: 0x1000}}
	launch := &ports.TraceLaunch{Path: "/bin/true"}
	cases := map[string]ports.TraceRequest{
		"neither":        {Breakpoints: bp},
		"both":           {Launch: launch, Attach: &ports.TraceAttach{PID: 1}, Breakpoints: bp},
		"no breakpoints": {Launch: launch},
		"too many hits":  {Launch: launch, Breakpoints: bp, MaxHits: ports.MaxTraceHits + 1},
		"negative time":  {Launch: launch, Breakpoints: bp, MaxDuration: -1},
		"env without =":  {Launch: &ports.TraceLaunch{Path: "/bin/true", Env: []string{"A"}}, Breakpoints: bp},
		"env NUL":        {Launch: &ports.TraceLaunch{Path: "/bin/true", Env: []string{"A=\x00"}}, Breakpoints: bp},
		"env run id":     {Launch: &ports.TraceLaunch{Path: "/bin/true", Env: []string{"REA_PROCESS_RUN_ID=x"}}, Breakpoints: bp},
		"arg NUL":        {Launch: &ports.TraceLaunch{Path: "/bin/true", Args: []string{"a\x00"}}, Breakpoints: bp},
		"dir is a file":  {Launch: &ports.TraceLaunch{Path: "/bin/true", Dir: "/bin/true"}, Breakpoints: bp},
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			_, err := gdbremote.New(nil).TraceCalls(context.Background(), req)
			is.True(errors.Is(err, ports.ErrTraceRequest))
		})
	}
	many := make([]ports.TraceBreakpoint, gdbremote.MaxBreakpoints+1)
	_, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{Launch: launch, Breakpoints: many})
	is.New(t).True(errors.Is(err, ports.ErrTraceRequest))
}

// Arguments reach the program as given (no shell), and the working directory
// and environment are the request's.
func TestTraceLaunchEnvironment(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "calls.c", "calls")
	dir := t.TempDir()
	id := runID(t)
	defer noneLeft(t, id)
	res, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin, Args: []string{"5 $(false)"}, Dir: dir, Env: []string{"A=b"}},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}},
		RunID:       id,
	})
	is.NoErr(err)
	is.Equal(*res.Exit.Code, 5)   // atoi("5 $(false)"): the shell never saw it
	is.Equal(len(res.Signals), 0) // the server exited by itself
	is.Equal(len(res.Remaining), 0)
}

// A symbol breakpoint finds a library function the program calls through
// its GOT (-fno-plt: no PLT entry to break on) once the loader mapped it; a
// name no library exports, an indirect function, and a static executable
// (no loader list) are typed request errors.
func TestTraceSymbolBreakpoint(t *testing.T) {
	needServer(t)
	is := is.New(t)
	bin := buildC(t, "calls.c", "calls-noplt", "-fno-plt", "-O1")
	trace := func(bin string, args []string, bps ...ports.TraceBreakpoint) (*ports.TraceResult, error) {
		id := runID(t)
		defer noneLeft(t, id)
		return gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
			Launch: &ports.TraceLaunch{Path: bin, Args: args}, Breakpoints: bps, RunID: id,
		})
	}
	bps := []ports.TraceBreakpoint{{Symbol: "strtol", Name: "strtol"}}
	res, err := trace(bin, []string{"42"}, bps...)
	is.NoErr(err)
	is.Equal(bps[0].Address, uint64(0)) // the caller's request is not rewritten
	is.Equal(len(res.Hits), 1)
	is.Equal(res.Hits[0].ReturnValue, uint64(42))
	is.Equal(filepath.Base(res.Breakpoints[0].Module), "libc.so.6")
	is.True(res.Breakpoints[0].Address != 0)

	_, err = trace(bin, nil, ports.TraceBreakpoint{Symbol: "no_such_function_anywhere", Name: "x"})
	is.True(errors.Is(err, ports.ErrAddressNotMapped))
	is.True(strings.Contains(err.Error(), "no_such_function_anywhere"))
	_, err = trace(bin, nil, ports.TraceBreakpoint{Symbol: "strlen", Name: "strlen"}) // an IFUNC in glibc
	is.True(errors.Is(err, ports.ErrAddressNotMapped))
	is.True(strings.Contains(err.Error(), "strlen@plt"))
	_, err = trace(bin, nil, ports.TraceBreakpoint{Symbol: "strtol", Address: 4, Name: "x"})
	is.True(errors.Is(err, ports.ErrTraceRequest))

	static := buildC(t, "calls.c", "calls-static", "-static")
	_, err = trace(static, nil, ports.TraceBreakpoint{Symbol: "no_such_function_anywhere", Name: "x"})
	is.True(errors.Is(err, ports.ErrAddressNotMapped))

	// In a static program an indirect function is the program's own: its
	// address is the resolver's, which runs once while relocations are
	// applied. Before, the trace silently recorded that one resolver call
	// (a return value that is a code address) and none of the calls.
	var ifunc uint64
	f, ferr := elf.Open(static)
	is.NoErr(ferr)
	syms, ferr := f.Symbols()
	f.Close()
	is.NoErr(ferr)
	for _, sym := range syms {
		if sym.Name == "strlen" && elf.ST_TYPE(sym.Info) == elf.STT_GNU_IFUNC {
			ifunc = sym.Value
		}
	}
	if ifunc == 0 {
		t.Skip("this C library's static strlen is no indirect function")
	}
	_, err = trace(static, nil, ports.TraceBreakpoint{Address: ifunc, Name: "strlen"})
	is.True(errors.Is(err, ports.ErrAddressNotMapped))
	if !strings.Contains(err.Error(), "indirect function") || !strings.Contains(err.Error(), "__strlen_") {
		t.Errorf("the refusal does not say strlen is an indirect function and name its implementations: %v", err)
	}
}
