package gdbremote_test

import (
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// mid ends in a tail call of leaf (a jump): leaf's entry stops with mid's
// return address and stack pointer, and no return address pushed. That is
// no stop of mid's activation at its own entry (a signal handler returns
// to the entry it interrupted), so leaf's call is recorded, and mid returns
// with it. Before, each leaf call was taken for mid re-entered by a signal
// handler: not recorded, and counted in a note about signal handlers.
func TestTraceTailCall(t *testing.T) {
	needServer(t)
	eachArch(t, "tailcall.c", []string{"-foptimize-sibling-calls"}, testTailCall)
}

func testTailCall(t *testing.T, bin string) {
	cases := []struct {
		name    string
		maxHits int
		want    string // each hit: name(argument) and r (returned) or p (pending)
		stop    string
		note    string
	}{
		{"exit", 100, "mid(0)r leaf(1)r mid(10)r leaf(11)r mid(20)r leaf(21)r", ports.TraceStopExited,
			"(hit sequence 0 to 1, 2 to 3, 4 to 5)"},
		// The stop past the limit is leaf's entry: mid(20) is pending in it.
		{"hit-limit", 5, "mid(0)r leaf(1)r mid(10)r leaf(11)r mid(20)p", ports.TraceStopHitLimit,
			"the stop past max_hits entered a call by a tail call from hit sequence 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, res := traceStates(t, bin, []string{"3"}, tc.maxHits, "mid", "leaf")
			is.Equal(res.Coverage.StopReason, tc.stop)
			is.Equal(got, tc.want)
			is.Equal(res.Coverage.ReturnsMissing, 0)
			is.True(!hasNote(res.Coverage.Notes, "a signal handler returned to the entry"))
			is.True(hasNote(res.Coverage.Notes, tc.note))
			for i, h := range res.Hits {
				// leaf is entered by mid's tail call, mid by main's call.
				if h.TailCall != (h.Name == "leaf") || h.TailCall && (h.TailCallFrom != i-1 || h.ReturnAddress != res.Hits[i-1].ReturnAddress) {
					t.Errorf("hit %d %s: tail call %v from %d", i, h.Name, h.TailCall, h.TailCallFrom)
				}
				if !h.Returned {
					continue
				}
				// leaf(y) returns 2y+1, and mid returns what leaf returns, at
				// the same stop.
				x := uint32(h.Arguments[0].Value)
				if h.Name == "mid" {
					x++
					is.Equal(h.ReturnSequence, res.Hits[i+1].ReturnSequence)
				}
				is.Equal(uint32(h.ReturnValue), 2*x+1)
			}
		})
	}
}
