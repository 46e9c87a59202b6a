package gdbremote_test

import (
	"strings"
	"testing"
)

// A program killed by a signal says which recorded calls it interrupted:
// lookup's second call dies of SIGSEGV. Before, only returns_missing
// counted it, and an agent had to find the call with no return itself.
func TestTraceCrashNamesTheCallsItInterrupted(t *testing.T) {
	needServer(t)
	got, res := traceStates(t, buildC(t, "crash.c", "crash"), []string{"1"}, 100, "lookup")
	if !strings.HasPrefix(got, "lookup(") || !strings.HasSuffix(got, ")r lookup(0)p") { // the first argument is the table
		t.Errorf("hits %q, want lookup(table)r lookup(0)p", got)
	}
	if res.Exit == nil || res.Exit.Signal != "SIGSEGV" {
		t.Fatalf("exit %+v, want SIGSEGV", res.Exit)
	}
	if !hasNote(res.Coverage.Notes, "killed by SIGSEGV while 1 recorded call(s) had not returned", "lookup (hit sequence 1)") {
		t.Errorf("notes %q", res.Coverage.Notes)
	}
}

// A launched program's standard input is empty (gdbserver keeps its own
// for the protocol and gives the program /dev/null), as
// trace_native_calls' arguments say: a program reading it sees end of
// file at once.
func TestTraceLaunchedProgramReadsNoInput(t *testing.T) {
	needServer(t)
	_, res := traceStates(t, buildC(t, "stdin.c", "stdin"), nil, 100, "main")
	if res.Exit == nil || res.Exit.Code == nil || *res.Exit.Code != 3 {
		t.Errorf("exit %+v, want code 3 (end of file on stdin)", res.Exit)
	}
}
