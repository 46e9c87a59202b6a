package gdbremote_test

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// Calls before main (a constructor here, the C library's start-up in a
// static program) are counted and named in a note when main's address is
// known, and FromMain records from main's entry on. Before, a small
// max_hits showed only the calls before main, and nothing said so.
func TestTraceHitsBeforeMain(t *testing.T) {
	needServer(t)
	lanes := []struct {
		name  string
		build func(t *testing.T) string
	}{
		{"pie", func(t *testing.T) string { return buildC(t, "beforemain.c", "beforemain", "-pie", "-fPIE") }},
		{"static", func(t *testing.T) string { return buildC(t, "beforemain.c", "beforemain", "-static") }},
		{"arm64", func(t *testing.T) string {
			needEmulation(t, "arm64")
			return buildFor(t, "arm64", "beforemain.c", "beforemain", "-static")
		}},
		{"x86", func(t *testing.T) string {
			needEmulation(t, "x86")
			return buildFor(t, "x86", "beforemain.c", "beforemain", "-static")
		}},
	}
	for _, lane := range lanes {
		t.Run(lane.name, func(t *testing.T) { testBeforeMain(t, lane.build(t)) })
	}
}

func testBeforeMain(t *testing.T, bin string) {
	target, main := symbol(t, bin, "target"), symbol(t, bin, "main")
	cases := []struct {
		name       string
		fromMain   bool
		main       bool // main is traced too
		maxHits    int
		want       []uint64 // target's arguments, in order
		beforeMain int
		stop, note string
	}{
		{"counted", false, false, 100, []uint64{100, 101, 0, 1, 2}, 2, ports.TraceStopExited, "2 recorded hit(s) (sequence 0 to 1) came before main was entered"},
		{"limit-before-main", false, false, 1, []uint64{100}, 1, ports.TraceStopHitLimit, "main was not entered before the trace ended (hit-limit): the 1 recorded hit(s)"},
		{"limit-at-main", false, false, 2, []uint64{100, 101}, 2, ports.TraceStopHitLimit, "2 recorded hit(s) (sequence 0 to 1) came before main"},
		{"from-main", true, false, 100, []uint64{0, 1, 2}, 0, ports.TraceStopExited, "from_main: the breakpoints were placed when main was entered"},
		{"from-main-traced", true, true, 100, []uint64{0, 1, 2}, 0, ports.TraceStopExited, "from_main: the breakpoints were placed when main was entered"},
		{"from-main-limit", true, false, 2, []uint64{0, 1}, 0, ports.TraceStopHitLimit, "from_main: the breakpoints were placed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			id := runID(t)
			defer noneLeft(t, id)
			bps := []ports.TraceBreakpoint{{Address: target, Name: "target"}}
			if tc.main {
				bps = append(bps, ports.TraceBreakpoint{Address: main, Name: "main"})
			}
			tr := gdbremote.New(nil)
			debugTap(t, tr)
			res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
				Launch: &ports.TraceLaunch{Path: bin}, Breakpoints: bps, Main: main, FromMain: tc.fromMain,
				MaxHits: tc.maxHits, MaxDuration: time.Minute, RunID: id,
			})
			is.NoErr(err)
			is.Equal(res.Coverage.StopReason, tc.stop)
			var args []uint64
			for _, a := range firstArgs(res.Hits, "target") {
				args = append(args, uint64(uint32(a)))
			}
			is.Equal(args, tc.want)
			is.Equal(res.Coverage.BeforeMain, tc.beforeMain)
			if tc.main {
				is.Equal(res.Hits[0].Name, "main")
				is.True(res.Hits[0].Returned)
			}
			if tc.stop == ports.TraceStopExited {
				is.Equal(*res.Exit.Code, 0)
				is.Equal(res.Coverage.ReturnsMissing, 0)
			}
			is.True(hasNote(res.Coverage.Notes, tc.note))
			is.Equal(len(res.Breakpoints), len(bps))
		})
	}
}

// The stop the trace makes at main's entry only to see main entered is
// no stop of the program's: return_sequence does not count it, so a trace
// that knows main numbers the returns as one that does not. Before, every
// return of a launched C program with main known came one stop later.
func TestTraceMainStopOutsideTheSequence(t *testing.T) {
	needServer(t)
	bin := buildC(t, "beforemain.c", "beforemain", "-pie", "-fPIE")
	target, main := symbol(t, bin, "target"), symbol(t, bin, "main")
	returns := func(t *testing.T, main uint64, bps ...ports.TraceBreakpoint) (seqs []int) {
		id := runID(t)
		defer noneLeft(t, id)
		res, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
			Launch: &ports.TraceLaunch{Path: bin}, Breakpoints: bps, Main: main,
			MaxHits: 100, MaxDuration: time.Minute, RunID: id,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			seqs = append(seqs, h.ReturnSequence)
		}
		return seqs
	}
	is := is.New(t)
	bp := ports.TraceBreakpoint{Address: target, Name: "target"}
	known, unknown := returns(t, main, bp), returns(t, 0, bp)
	is.Equal(len(known), 5)
	is.Equal(known, unknown)
	// With main traced, its stop is the hit's and counts.
	mainBP := ports.TraceBreakpoint{Address: main, Name: "main"}
	is.Equal(returns(t, main, bp, mainBP), returns(t, 0, bp, mainBP))
}
