package gdbremote_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// A call longjmp leaves never returns: the trace sees a later stop of its
// thread in a frame above its own and reports it unwound, neither pending
// at a hit limit nor missing at the exit. Before, at a hit limit both calls
// of each jump were pending; and as main calls work again from the same
// site with the same stack pointer, each new call was taken for the old
// one re-entered by a signal handler: work(1) and leave(1) were not
// recorded and their returns were given to work(0) and leave(0).
func TestTraceUnwoundByLongjmp(t *testing.T) {
	needServer(t)
	// The emulated lanes run static builds under QEMU's stub. AArch64 has
	// no case of a call from another site: a procedure there may call
	// without moving sp, so that rule is x86's (leaveUnwound).
	for _, lane := range []struct {
		arch    string
		build   func(t *testing.T) string
		noSites bool
	}{
		{"x86-64", func(t *testing.T) string { return buildC(t, "unwind.c", "unwind") }, false},
		{"arm64", func(t *testing.T) string {
			needEmulation(t, "arm64")
			return buildFor(t, "arm64", "unwind.c", "unwind", "-static")
		}, true},
		{"x86", func(t *testing.T) string {
			needEmulation(t, "x86")
			return buildFor(t, "x86", "unwind.c", "unwind", "-static")
		}, false},
	} {
		t.Run(lane.arch, func(t *testing.T) { testUnwound(t, lane.build(t), lane.noSites) })
	}
}

func testUnwound(t *testing.T, bin string, noSites bool) {
	work, leave, guarded, noted := symbol(t, bin, "work"), symbol(t, bin, "leave"), symbol(t, bin, "guarded"), symbol(t, bin, "noted")
	cases := []struct {
		name    string
		args    []string
		bps     []ports.TraceBreakpoint
		maxHits int
		want    string // each hit: name(argument) and r (returned) or u (unwound)
		stop    string
	}{
		// The jumps of calls 4 and 5 are seen only at the stop past the limit.
		{"hit-limit", []string{"0"}, []ports.TraceBreakpoint{{Address: work, Name: "work"}, {Address: leave, Name: "leave"}}, 6,
			"work(0)u leave(0)u work(1)r leave(1)r work(2)u leave(2)u", ports.TraceStopHitLimit},
		{"exit", []string{"4"}, []ports.TraceBreakpoint{{Address: work, Name: "work"}, {Address: leave, Name: "leave"}}, 100,
			"work(0)u leave(0)u work(1)r leave(1)r work(2)u leave(2)u work(3)r leave(3)r", ports.TraceStopExited},
		// main calls noted from another site in work's frame: at the stop
		// past the limit, then (the program exits) at a recorded call.
		{"limit-other-site", []string{"0", "n"}, []ports.TraceBreakpoint{{Address: work, Name: "work"}, {Address: noted, Name: "noted"}}, 1,
			"work(0)u", ports.TraceStopHitLimit},
		{"other-site", []string{"1", "n"}, []ports.TraceBreakpoint{{Address: work, Name: "work"}, {Address: noted, Name: "noted"}}, 100,
			"work(0)u noted(0)r", ports.TraceStopExited},
		// guarded returns to main past leave's frame: seen at that return.
		{"caught", []string{"1", "g"}, []ports.TraceBreakpoint{{Address: guarded, Name: "guarded"}, {Address: leave, Name: "leave"}}, 100,
			"guarded(0)r leave(0)u", ports.TraceStopExited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if noSites && strings.Contains(tc.name, "other-site") {
				t.Skip("no call from another site on AArch64")
			}
			is := is.New(t)
			id := runID(t)
			defer noneLeft(t, id)
			tr := gdbremote.New(nil)
			debugTap(t, tr)
			res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
				Launch:      &ports.TraceLaunch{Path: bin, Args: tc.args},
				Breakpoints: tc.bps,
				MaxHits:     tc.maxHits,
				MaxDuration: 2 * time.Minute, // the endless loop ends at the hit limit
				RunID:       id,
			})
			is.NoErr(err)
			is.Equal(res.Coverage.StopReason, tc.stop)
			got, unwound := "", ""
			for _, h := range res.Hits {
				state := "?"
				switch {
				case h.Returned && !h.Unwound:
					state = "r"
				case h.Unwound && !h.Returned:
					state = "u"
					unwound += fmt.Sprintf(", %d", h.Sequence)
				}
				got += fmt.Sprintf(" %s(%d)%s", h.Name, uint32(h.Arguments[0].Value), state)
			}
			is.Equal(got[1:], tc.want)
			is.Equal(res.Coverage.ReturnsMissing, 0)
			is.True(!hasNote(res.Coverage.Notes, "were still waiting for their return"))
			is.True(hasNote(res.Coverage.Notes, "never returned: the stack was unwound past them (longjmp)", "(hit sequence "+unwound[2:]+")"))
			for _, h := range res.Hits {
				if h.Name == "work" && h.Returned {
					is.Equal(uint32(h.ReturnValue), 2*uint32(h.Arguments[0].Value)) // n + sink, sink = n
				}
			}
		})
	}
}
