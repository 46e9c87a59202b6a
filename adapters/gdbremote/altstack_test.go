package gdbremote_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// traceStates traces bin and gives each hit as name(first argument) and r
// (returned), u (unwound) or p (pending).
func traceStates(t *testing.T, bin string, args []string, names ...string) (string, *ports.TraceResult) {
	t.Helper()
	is := is.New(t)
	id := runID(t)
	defer noneLeft(t, id)
	var bps []ports.TraceBreakpoint
	for _, n := range names {
		bps = append(bps, ports.TraceBreakpoint{Address: symbol(t, bin, n), Name: n})
	}
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{Launch: &ports.TraceLaunch{Path: bin, Args: args},
		Breakpoints: bps, MaxHits: 100, MaxDuration: 2 * time.Minute, RunID: id})
	is.NoErr(err)
	got := ""
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
		got += fmt.Sprintf(" %s(%d)%s", h.Name, uint32(h.Arguments[0].Value), state)
	}
	if got != "" {
		got = got[1:]
	}
	return got, res
}

// A handler running on an alternate signal stack above the thread's own
// (sigaltstack) stops in a frame above the call it interrupted; that call
// is live, on another stack, and returns after the handler. Before, work
// was taken for a call longjmp left: "work(1)u noted(10)r" on x86-64 and
// under QEMU for 32-bit x86 (the AArch64 lane under QEMU passed without
// the check too; why was not looked into).
func TestTraceSignalOnAlternateStack(t *testing.T) {
	needServer(t)
	for _, lane := range []struct {
		arch  string
		build func(t *testing.T) string
	}{
		{"x86-64", func(t *testing.T) string { return buildC(t, "altstack.c", "altstack", "-pthread") }},
		{"arm64", func(t *testing.T) string {
			needEmulation(t, "arm64")
			return buildFor(t, "arm64", "altstack.c", "altstack", "-static", "-pthread")
		}},
		{"x86", func(t *testing.T) string {
			needEmulation(t, "x86")
			return buildFor(t, "x86", "altstack.c", "altstack", "-static", "-pthread")
		}},
	} {
		t.Run(lane.arch, func(t *testing.T) {
			got, res := traceStates(t, lane.build(t), nil, "work", "noted")
			if got != "work(1)r noted(10)r" {
				t.Errorf("hits %q, want work(1)r noted(10)r", got)
			}
			if len(res.Hits) > 0 && res.Hits[0].Returned && uint32(res.Hits[0].ReturnValue) != 2 {
				t.Errorf("work returned %d, want 2", res.Hits[0].ReturnValue)
			}
			if hasNote(res.Coverage.Notes, "never returned") {
				t.Errorf("notes %q", res.Coverage.Notes)
			}
		})
	}
}
