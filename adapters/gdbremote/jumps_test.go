package gdbremote_test

import "testing"

// first longjmps back to main, which then calls second through the same
// pointer call from the same site: second's entry has first's return
// address and stack pointer, as a tail call would, but the thread called
// longjmp in between (jumps.go), so first was unwound and second is main's
// call. Before, second was taken for first's tail call and first returned
// with it: "first(0)r second(1)r".
func TestTraceLongjmpThenCallFromTheSameSite(t *testing.T) {
	needServer(t)
	eachArch(t, "jumps.c", []string{"-foptimize-sibling-calls"}, func(t *testing.T, bin string) {
		got, res := traceStates(t, bin, []string{"p"}, 100, "first", "second")
		if got != "first(0)u second(1)r" {
			t.Errorf("hits %q, want first(0)u second(1)r", got)
		}
		if hasNote(res.Coverage.Notes, "tail call") {
			t.Errorf("a tail call is noted: %q", res.Coverage.Notes)
		}
	})
}

// down tail-calls itself (a jump to its own entry, with its caller's
// return address and stack pointer) and calls no longjmp: each call is
// recorded and returns with the last, as any tail call, and each pair is
// noted once. Before, each was taken for a setjmp loop: "down(3)u down(2)u
// down(1)u down(0)r".
func TestTraceSelfTailCall(t *testing.T) {
	needServer(t)
	eachArch(t, "jumps.c", []string{"-foptimize-sibling-calls"}, func(t *testing.T, bin string) {
		got, res := traceStates(t, bin, []string{"s"}, 100, "down")
		if got != "down(3)r down(2)r down(1)r down(0)r" {
			t.Errorf("hits %q, want down(3)r down(2)r down(1)r down(0)r", got)
		}
		if !hasNote(res.Coverage.Notes, "(hit sequence 0 to 1, 1 to 2, 2 to 3)") {
			t.Errorf("notes %q", res.Coverage.Notes)
		}
		for i, h := range res.Hits {
			if h.TailCall != (i > 0) || h.TailCall && h.TailCallFrom != i-1 {
				t.Errorf("down(%d): tail call %v from %d", h.Arguments[0].Value, h.TailCall, h.TailCallFrom)
			}
			if h.Returned && (h.ReturnValue != 0 || h.ReturnSequence != res.Hits[3].ReturnSequence) {
				t.Errorf("down(%d) returned %d at %d, not with down(0)", h.Arguments[0].Value, h.ReturnValue, h.ReturnSequence)
			}
		}
	})
}
