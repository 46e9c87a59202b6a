//go:build linux

package pty

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/supervisor"
)

// look is one recorded look at /proc: the table and each process's argv
// (absent: unreadable, as a process that is exiting).
type look struct {
	table map[int]supervisor.Proc
	argv  map[int][]string
}

// replay runs a sampler over recorded looks, one every 50 ms. Pids are
// above Linux's pid_max (2^22), so no real process is read for sockets.
func replay(launcher int, looks []look) *sampler {
	s := newSampler(launcher, 100, "run", 1000)
	i := 0
	s.table = func() (map[int]supervisor.Proc, error) { return looks[i].table, nil }
	s.argv = func(pid int) ([]string, bool) { a, ok := looks[i].argv[pid]; return a, ok }
	s.carries = func(int, string) (bool, bool) { return false, true }
	for i = range looks {
		s.sample(int64(i) * 50)
	}
	return s
}

// A child sampled between its fork and its exec has its parent's argv; a
// later look at the same process with another argv supersedes it, even
// when the exec kept the kernel's command name (make running make -C sub,
// as a recursive make does). Before, the argv was read again only when
// the command name changed, so such a child stayed "make -j2" under
// "make -j2". The samples keep both commands, in order.
func TestLaterArgvSupersedesTheForkCopy(t *testing.T) {
	is := is.New(t)
	const make, sub, cc = 5000001, 5000002, 5000003
	proc := func(pid, ppid int, start uint64, comm string) supervisor.Proc {
		return supervisor.Proc{PID: pid, PPID: ppid, PGID: make, SID: make, Start: start, State: 'S', Comm: comm}
	}
	parent := []string{"make", "-j2"}
	looks := []look{
		{ // both children just forked
			table: map[int]supervisor.Proc{make: proc(make, 1, 100, "make"), sub: proc(sub, make, 101, "make"), cc: proc(cc, make, 102, "make")},
			argv:  map[int][]string{make: parent, sub: parent, cc: parent},
		},
		{ // both exec'd: one kept the name make, the other is gcc
			table: map[int]supervisor.Proc{make: proc(make, 1, 100, "make"), sub: proc(sub, make, 101, "make"), cc: proc(cc, make, 102, "gcc")},
			argv:  map[int][]string{make: parent, sub: {"make", "-C", "sub"}, cc: {"gcc", "-c", "a.c"}},
		},
		{ // gcc is exiting: its argv reads empty, and the earlier read stands
			table: map[int]supervisor.Proc{make: proc(make, 1, 100, "make"), sub: proc(sub, make, 101, "make"), cc: proc(cc, make, 102, "gcc")},
			argv:  map[int][]string{make: parent, sub: {"make", "-C", "sub"}},
		},
	}
	s := replay(make, looks)
	got := map[int]string{}
	for _, p := range s.processes() {
		is.True(p.ArgvReadable)
		got[p.PID] = strings.Join(p.Argv, " ")
	}
	is.Equal(got, map[int]string{make: "make -j2", sub: "make -C sub", cc: "gcc -c a.c"})
	var history []string
	for _, sm := range s.samples {
		if sm.PID == sub {
			history = append(history, sm.Command)
		}
	}
	is.Equal(history, []string{"make -j2", "make -C sub"})
}

// A process whose argv no look could read (it was exiting each time) is
// named by its kernel command name in brackets, as ps writes it, not as if
// it had run with no arguments. Before, it was "as".
func TestUnreadArgvIsTheBracketedName(t *testing.T) {
	is := is.New(t)
	const sh, as = 5000011, 5000012
	s := replay(sh, []look{{
		table: map[int]supervisor.Proc{sh: {PID: sh, PPID: 1, PGID: sh, SID: sh, Start: 100, Comm: "sh"},
			as: {PID: as, PPID: sh, PGID: sh, SID: sh, Start: 101, Comm: "as"}},
		argv: map[int][]string{sh: {"sh", "-c", "as x.s"}},
	}})
	var cmds []string
	for _, p := range s.processes() {
		cmds = append(cmds, commandOf(p))
	}
	is.Equal(cmds, []string{"sh -c as x.s", "[as]"})
	is.Equal(s.samples[1].Command, "[as]")
}
