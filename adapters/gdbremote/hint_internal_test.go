package gdbremote

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// A trace under an emulator that ran out of time says when a library came
// from the host rather than the sysroot (Debian's libc6-i386 under
// qemu-i386), and how to give the loader the sysroot's.
func TestHostLibraryHint(t *testing.T) {
	s := &session{sysroot: "/usr/i686-linux-gnu", res: &ports.TraceResult{Modules: []ports.TraceModule{
		{Path: "/tmp/prog"}, {Name: "/lib32/libc.so.6", Path: "/lib32/libc.so.6"}, {Name: "/lib/ld-linux.so.2", Path: "/usr/i686-linux-gnu/lib/ld-linux.so.2"}}}}
	err := s.classify(context.DeadlineExceeded)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v: not a deadline", err)
	}
	for _, want := range []string{"host's /lib32/libc.so.6", "LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	// The sysroot's libraries, a host program (no sysroot), or a cancel:
	// no hint.
	s.res.Modules[1].Path = "/usr/i686-linux-gnu/lib/libc.so.6"
	if err := s.classify(context.DeadlineExceeded); err != context.DeadlineExceeded {
		t.Errorf("sysroot's libc: %v", err)
	}
	s.res.Modules[1].Path, s.sysroot = "/lib32/libc.so.6", ""
	if err := s.classify(context.DeadlineExceeded); err != context.DeadlineExceeded {
		t.Errorf("no emulator: %v", err)
	}
	s.sysroot = "/usr/i686-linux-gnu"
	if err := s.classify(context.Canceled); err != context.Canceled {
		t.Errorf("cancel: %v", err)
	}
}

// A Go program under an emulator gets asyncpreemptoff=1 first in GODEBUG,
// so a setting of its own (the last one wins) still does; the rest of its
// environment is kept, and rea's is used when the request gives none.
func TestNoAsyncPreemption(t *testing.T) {
	for _, c := range []struct{ env, want []string }{
		{[]string{"A=1", "GODEBUG=madvdontneed=1,asyncpreemptoff=0", "B=2"}, []string{"A=1", "B=2", "GODEBUG=asyncpreemptoff=1,madvdontneed=1,asyncpreemptoff=0"}},
		{[]string{"A=1"}, []string{"A=1", "GODEBUG=asyncpreemptoff=1"}},
		{[]string{"GODEBUG="}, []string{"GODEBUG=asyncpreemptoff=1"}},
		{[]string{}, []string{"GODEBUG=asyncpreemptoff=1"}},
	} {
		if got := noAsyncPreemption(c.env); !slices.Equal(got, c.want) {
			t.Errorf("noAsyncPreemption(%q) = %q, want %q", c.env, got, c.want)
		}
	}
	t.Setenv("REA_TEST_MARK", "x")
	if got := noAsyncPreemption(nil); !slices.Contains(got, "REA_TEST_MARK=x") || got[len(got)-1] != "GODEBUG=asyncpreemptoff=1" && !strings.HasPrefix(got[len(got)-1], "GODEBUG=asyncpreemptoff=1,") {
		t.Errorf("rea's environment: %q", got)
	}
}

// QEMU's version decides how its stub numbers the x87 registers (by the
// stack from 8.0); the installed emulator, when there is one, says its own.
func TestEmulatorVersion(t *testing.T) {
	for text, want := range map[string][2]int{
		"qemu-i386 version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\nCopyright (c) 2003-2022 Fabrice Bellard\n": {7, 2},
		"qemu-i386 version 10.0.3\n": {10, 0},
		"qemu-i386 version x\n":      {-1},
		"nothing here":               {-1},
	} {
		major, minor, ok := parseEmulatorVersion(text)
		if ok != (want[0] >= 0) || ok && (major != want[0] || minor != want[1]) {
			t.Errorf("parseEmulatorVersion(%q) = %d.%d %v", text, major, minor, ok)
		}
	}
	qemu, err := exec.LookPath("qemu-i386")
	if err != nil {
		t.Skip("qemu-i386 is not installed (Debian package qemu-user)")
	}
	major, _, ok := emulatorVersion(context.Background(), qemu)
	if !ok || major < 2 {
		t.Fatalf("%s --version: %d, %v", qemu, major, ok)
	}
	t.Logf("%s is QEMU %d", qemu, major)
}
