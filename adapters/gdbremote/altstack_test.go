package gdbremote_test

import "testing"

// A handler running on an alternate signal stack above the thread's own
// (sigaltstack) stops in a frame above the call it interrupted; that call
// is live, on another stack, and returns after the handler. Before, work
// was taken for a call longjmp left: "work(1)u noted(10)r" on x86-64 and
// under QEMU for 32-bit x86 (the AArch64 lane under QEMU passed without
// the check too; why was not looked into).
func TestTraceSignalOnAlternateStack(t *testing.T) {
	needServer(t)
	eachArch(t, "altstack.c", []string{"-pthread"}, func(t *testing.T, bin string) {
		got, res := traceStates(t, bin, nil, 100, "work", "noted")
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
