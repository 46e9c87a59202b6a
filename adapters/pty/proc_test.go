//go:build linux

package pty

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/supervisor"
)

// look is one recorded look: the capture's processes (as the supervisor's
// census proved them) and each process's argv (absent: unreadable, as a
// process that is exiting).
type look struct {
	table map[int]supervisor.Proc
	argv  map[int][]string
}

// owned is tab as a look returns it: sorted by pid.
func owned(tab map[int]supervisor.Proc) []supervisor.Owned {
	out := make([]supervisor.Owned, 0, len(tab))
	for _, p := range tab {
		out = append(out, supervisor.Owned{Proc: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// replay runs a sampler over recorded looks, one every 50 ms. Pids are
// above Linux's pid_max (2^22), so no real process is read for sockets.
func replay(launcher int, looks []look) *sampler {
	i := 0
	s := newSampler(launcher, 1000, func() ([]supervisor.Owned, error) { return owned(looks[i].table), nil })
	s.argv = func(pid int) ([]string, bool) { a, ok := looks[i].argv[pid]; return a, ok }
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

// The listening tables are read once a look for each network namespace in
// which a live process holds a socket not yet recorded as a listener, and
// through a process of that namespace. Before, rea's own /proc/net/tcp and
// tcp6 were read at every look at which any live process held any socket,
// a listener already recorded included (each read walks the kernel's whole
// socket hash), and a namespace of the program's own was never read.
func TestListeningTablesAreReadPerNamespaceForNewSockets(t *testing.T) {
	is := is.New(t)
	const sh, a, b = 5000021, 5000022, 5000023
	proc := func(pid, ppid int, start uint64) supervisor.Proc {
		return supervisor.Proc{PID: pid, PPID: ppid, PGID: sh, SID: sh, Start: start, State: 'S', Comm: "x"}
	}
	tab := map[int]supervisor.Proc{sh: proc(sh, 1, 100), a: proc(a, sh, 101), b: proc(b, sh, 102)}
	// a (namespace 1) listens on 8080 (inode 901) from the second look;
	// b (namespace 2, its own) listens on 22 (inode 902) from the third.
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	row := func(port, inode string) string {
		return "   0: 0100007F:" + port + " 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 " + inode + " 1 0 100 0 0 10 0\n"
	}
	holds := []map[int][]string{
		{},
		{a: {"901"}},
		{a: {"901"}, b: {"902"}},
		{a: {"901"}, b: {"902"}},
	}
	i := 0
	s := newSampler(sh, 1000, func() ([]supervisor.Owned, error) { return owned(tab), nil })
	s.argv = func(int) ([]string, bool) { return []string{"x"}, true }
	s.socketInodes = func(pid int) ([]string, bool) { return holds[i][pid], true }
	s.netns = func(pid int) (string, error) {
		if pid == b {
			return "net:[2]", nil
		}
		return "net:[1]", nil
	}
	reads := map[int][]string{} // look -> "pid proto" of each table read
	s.netTable = func(pid int, proto string) ([]byte, error) {
		reads[i] = append(reads[i], strconv.Itoa(pid)+" "+proto)
		switch {
		case proto == "tcp" && pid == a:
			return []byte(header + row("1F90", "901")), nil
		case proto == "tcp" && pid == b:
			return []byte(header + row("0016", "902")), nil
		}
		return []byte(header), nil
	}
	for i = range holds {
		s.sample(int64(i) * 50)
	}
	is.Equal(reads, map[int][]string{
		1: {"5000022 tcp", "5000022 tcp6"}, // a's new socket, in a's namespace
		2: {"5000023 tcp", "5000023 tcp6"}, // b's, in b's; a's is recorded
	})
	got := s.listening()
	is.Equal(len(got), 2)
	is.Equal([]int{got[0].PID, got[0].Port, int(got[0].FirstSeenMS)}, []int{a, 8080, 50})
	is.Equal([]int{got[1].PID, got[1].Port, int(got[1].FirstSeenMS)}, []int{b, 22, 100})
}

// A process's argv is read once for each program image it runs (its
// Image, which an exec changes) and command name, not at every look;
// while it runs its parent's image (forked, not exec'd) it is read at
// every look. Before, every look read every live process's argv.
func TestArgvIsReadOncePerImage(t *testing.T) {
	is := is.New(t)
	const sh, child, other = 5000031, 5000032, 5000033
	proc := func(pid, ppid int, start, image uint64, comm string) supervisor.Proc {
		return supervisor.Proc{PID: pid, PPID: ppid, PGID: sh, SID: sh, Start: start, State: 'S', Comm: comm, Image: image}
	}
	// The child is forked (its parent's image, 7) at the first two looks,
	// execs a.sh before the third and b.sh before the fourth, keeping the
	// name sh; the other process renames itself before the fourth.
	images := []uint64{7, 7, 8, 9, 9}
	names := []string{"x", "x", "x", "y", "y"}
	argvs := map[uint64][]string{7: {"sh"}, 8: {"sh", "a.sh"}, 9: {"sh", "b.sh"}}
	i := 0
	s := newSampler(sh, 1000, func() ([]supervisor.Owned, error) {
		return owned(map[int]supervisor.Proc{
			sh:    proc(sh, 1, 100, 7, "sh"),
			child: proc(child, sh, 101, images[i], "sh"),
			other: proc(other, sh, 102, 5, names[i]),
		}), nil
	})
	reads := map[int]int{}
	s.argv = func(pid int) ([]string, bool) {
		reads[pid]++
		switch pid {
		case child:
			return argvs[images[i]], true
		case other:
			return []string{names[i]}, true
		}
		return []string{"sh"}, true
	}
	for i = range images {
		s.sample(int64(i) * 50)
	}
	is.Equal(reads, map[int]int{sh: 1, child: 4, other: 2})
	history := map[int][]string{}
	for _, sm := range s.samples {
		history[sm.PID] = append(history[sm.PID], sm.Command)
	}
	is.Equal(history[child], []string{"sh", "sh a.sh", "sh b.sh"})
	is.Equal(history[other], []string{"x", "y"})
}

// In rea's own network namespace a look reads the namespace's listeners
// first and a process's descriptors only when it must: when a listener
// appears that no earlier look explained (every live process is then
// read), and for a process no earlier look read. A listener a process
// opens after its first look is found at the first look that lists it;
// another program's listener is read for once; a new process holding it
// (inherited, or handed) is credited with it. Before, every look read
// every live process's descriptors.
func TestOwnNamespaceDescriptorsAreReadWhenAListenerIsUnexplained(t *testing.T) {
	is := is.New(t)
	const sh, a, c = 5000031, 5000032, 5000033
	proc := func(pid, ppid int, start uint64) supervisor.Proc {
		return supervisor.Proc{PID: pid, PPID: ppid, PGID: sh, SID: sh, Start: start, State: 'S', Comm: "x"}
	}
	two := map[int]supervisor.Proc{sh: proc(sh, 1, 100), a: proc(a, sh, 101)}
	three := map[int]supervisor.Proc{sh: proc(sh, 1, 100), a: proc(a, sh, 101), c: proc(c, sh, 103)}
	l := func(port int, inode string) protoListener {
		return protoListener{proto: "tcp", listener: listener{addr: net.IPv4(127, 0, 0, 1).To4(), port: port, inode: inode}}
	}
	looks := []struct {
		tab       map[int]supervisor.Proc
		holds     map[int][]string
		listening []protoListener
	}{
		{two, map[int][]string{a: {"900"}}, nil},                                                         // a's socket does not listen yet
		{two, map[int][]string{a: {"900"}}, nil},                                                         // nothing new: nothing read
		{two, map[int][]string{a: {"900"}}, []protoListener{l(8080, "900")}},                             // a's socket listens
		{two, map[int][]string{a: {"900"}}, []protoListener{l(8080, "900")}},                             // explained
		{two, map[int][]string{a: {"900"}}, []protoListener{l(8080, "900"), l(22, "999")}},               // another program's
		{three, map[int][]string{a: {"900"}, c: {"999"}}, []protoListener{l(8080, "900"), l(22, "999")}}, // c holds it
		{three, map[int][]string{a: {"900"}, c: {"999"}}, []protoListener{l(8080, "900"), l(22, "999")}},
	}
	i := 0
	s := newSampler(sh, 1000, func() ([]supervisor.Owned, error) { return owned(looks[i].tab), nil })
	s.argv = func(int) ([]string, bool) { return []string{"x"}, true }
	s.netns = func(int) (string, error) { return "net:[1]", nil }
	s.ownNS, s.scanAllUpTo = "net:[1]", 0
	s.ownListeners = func() ([]protoListener, error) { return looks[i].listening, nil }
	s.fdSig = func(int, bool) (uint64, bool) { return 1, true } // no process is handed a descriptor
	s.netTable = func(pid int, proto string) ([]byte, error) {
		t.Errorf("look %d read the %s table through %d", i, proto, pid)
		return nil, nil
	}
	reads := map[int][]int{} // look -> pids whose descriptors it read
	s.socketInodes = func(pid int) ([]string, bool) {
		reads[i] = append(reads[i], pid)
		return looks[i].holds[pid], true
	}
	for i = range looks {
		s.sample(int64(i) * 50)
	}
	is.Equal(reads, map[int][]int{
		0: {sh, a}, // new
		2: {sh, a}, // 900 unexplained
		4: {sh, a}, // 999 unexplained: another program's
		5: {c},     // new
	})
	got := s.listening()
	is.Equal(len(got), 2)
	is.Equal([]int{got[0].PID, got[0].Port, int(got[0].FirstSeenMS)}, []int{a, 8080, 100})
	is.Equal([]int{got[1].PID, got[1].Port, int(got[1].FirstSeenMS)}, []int{c, 22, 250})
}

// A look at one or two processes reads their descriptors, not the
// namespace's listeners, which cost about as much: a lone program's
// capture does not pay for the listing at every look.
func TestFewProcessesAreReadWithoutListingTheListeners(t *testing.T) {
	is := is.New(t)
	const sh = 5000041
	tab := map[int]supervisor.Proc{sh: {PID: sh, PPID: 1, PGID: sh, SID: sh, Start: 100, State: 'S', Comm: "x"}}
	s := newSampler(sh, 1000, func() ([]supervisor.Owned, error) { return owned(tab), nil })
	s.argv = func(int) ([]string, bool) { return []string{"x"}, true }
	s.netns = func(int) (string, error) { return "net:[1]", nil }
	s.ownNS, s.scanAllUpTo = "net:[1]", 2
	listed := 0
	s.ownListeners = func() ([]protoListener, error) { listed++; return nil, nil }
	reads := 0
	s.socketInodes = func(int) ([]string, bool) { reads++; return nil, true }
	for i := range 3 {
		s.sample(int64(i) * 50)
	}
	is.Equal(listed, 0)
	is.Equal(reads, 3)
}

// In a network namespace other than rea's (which rea's socket diagnostics
// do not see) a look reads the namespace's counters (sockstat) first, and
// reads every process's descriptors only when they changed, or at the
// first look, or when otherRescanLooks passed; otherwise only a new
// process's. A process's namespace is read once for each image it runs.
// Before, every look read every live process's namespace and descriptors,
// and the listening tables at every look at which a process held a socket
// that did not listen (a connection, a Unix socket), each read walking the
// kernel's whole connection hash.
func TestOtherNamespaceIsScannedWhenItsCountersChange(t *testing.T) {
	is := is.New(t)
	const sh, a, c = 5000051, 5000052, 5000053
	proc := func(pid, ppid int, start, image uint64) supervisor.Proc {
		return supervisor.Proc{PID: pid, PPID: ppid, PGID: sh, SID: sh, Start: start, State: 'S', Comm: "x", Image: image}
	}
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	row := func(state string) string {
		return "   0: 0100007F:1F90 00000000:0000 " + state + " 00000000:00000000 00:00000000 00000000     0        0 901 1 0 100 0 0 10 0\n"
	}
	const looks = otherRescanLooks + 5
	i := 0
	counters := func() string { // 901 listens from look 2
		if i < 2 {
			return "sockets: 1 TCP: 0"
		}
		return "sockets: 1 TCP: 1"
	}
	s := newSampler(sh, 1000, func() ([]supervisor.Owned, error) {
		tab := map[int]supervisor.Proc{sh: proc(sh, 1, 100, 7), a: proc(a, sh, 101, 8)}
		if i >= 3 { // c is born
			tab[c] = proc(c, sh, 103, 9)
		}
		if i >= 4 { // a execs
			tab[a] = proc(a, sh, 101, 10)
		}
		return owned(tab), nil
	})
	s.argv = func(int) ([]string, bool) { return []string{"x"}, true }
	s.ownNS, s.scanAllUpTo = "net:[1]", 0
	s.ownListeners = func() ([]protoListener, error) {
		t.Errorf("look %d listed rea's namespace", i)
		return nil, nil
	}
	nsReads := map[int]int{}
	s.netns = func(pid int) (string, error) { nsReads[pid]++; return "net:[2]", nil }
	s.sockstat = func(pid int) (string, error) { return counters(), nil }
	s.fdSig = func(int, bool) (uint64, bool) { return 1, true } // no process is handed a descriptor
	tables := map[int]int{}                                     // look -> tables read
	s.netTable = func(pid int, proto string) ([]byte, error) {
		tables[i]++
		if proto == "tcp" && i >= 2 {
			return []byte(header + row("0A")), nil
		}
		return []byte(header), nil
	}
	reads := map[int][]int{} // look -> pids whose descriptors it read
	s.socketInodes = func(pid int) ([]string, bool) {
		reads[i] = append(reads[i], pid)
		if pid == a {
			return []string{"901"}, true
		}
		return nil, true
	}
	for i = range looks {
		s.sample(int64(i) * 50)
	}
	is.Equal(reads, map[int][]int{
		0:                    {sh, a},    // the first look at the namespace
		2:                    {sh, a},    // its counters changed
		3:                    {c},        // new
		otherRescanLooks + 2: {sh, a, c}, // the rescan, otherRescanLooks after the last full scan
	})
	is.Equal(tables, map[int]int{0: 2, 2: 2}) // 901 is recorded from look 2
	is.Equal(nsReads, map[int]int{sh: 1, a: 2, c: 1})
	got := s.listening()
	is.Equal(len(got), 1)
	is.Equal([]int{got[0].PID, got[0].Port, int(got[0].FirstSeenMS)}, []int{a, 8080, 100})
}

// A process that rewrites its argv in place (setproctitle), with no exec
// and no rename, is read again argvRecheckLooks looks after its last read:
// the capture then shows its new argv, keeps the first read since its
// exec, labelled as such, and says when a look first read the new one. An
// exec starts afresh. Before, the first read stood for the process's life.
func TestArgvRewrittenInPlaceIsReadAgain(t *testing.T) {
	is := is.New(t)
	const srv = 5000061
	image := uint64(7)
	argv := []string{"nginx", "-g", "daemon off;"}
	s := newSampler(srv, 1000, func() ([]supervisor.Owned, error) {
		return owned(map[int]supervisor.Proc{srv: {PID: srv, PPID: 1, PGID: srv, SID: srv, Start: 100, State: 'S', Comm: "nginx", Image: image}}), nil
	})
	reads := 0
	s.argv = func(int) ([]string, bool) { reads++; return argv, true }
	look := 0
	sample := func(n int) {
		for range n {
			s.sample(int64(look) * 50)
			look++
		}
	}
	sample(3)
	argv = []string{"nginx: master process"} // rewritten after look 2
	sample(argvRecheckLooks)
	p := s.processes()[0]
	is.Equal(p.Argv, []string{"nginx: master process"})
	is.Equal(p.FirstReadArgv, []string{"nginx", "-g", "daemon off;"})
	is.Equal(p.ArgvRewrittenMS, int64(argvRecheckLooks*50)) // the recheck look
	is.Equal(reads, 2)                                      // the first look and the recheck, not every look
	var cmds []string
	for _, sm := range s.samples {
		cmds = append(cmds, sm.Command)
	}
	is.Equal(cmds, []string{"nginx -g daemon off;", "nginx: master process"})

	image, argv = 8, []string{"sh", "-c", "x"} // an exec
	sample(1)
	p = s.processes()[0]
	is.Equal(p.Argv, []string{"sh", "-c", "x"})
	is.Equal(p.FirstReadArgv, nil)
	is.Equal(p.ArgvRewrittenMS, int64(0))
}

// A process already read that is handed a socket that already listened,
// held by no process of the capture (another program's), is credited with
// it at the next look, in rea's network namespace and in another: its
// descriptors' sum changed, so they are read again. One that held no
// socket when it was read is compared by the count of its descriptors;
// one that did, by their numbers (handed a socket over a Unix socket it
// then closes, it has as many as before). Before, in rea's namespace it
// never was (the listener was explained as another program's); in
// another, only at the rescan otherRescanLooks after the last full scan
// (the namespace's counters do not change when a socket changes hands).
func TestHandedListenerIsCreditedAtTheNextLook(t *testing.T) {
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	const row = "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0 100 0 0 10 0\n"
	for _, tc := range []struct {
		ns         string
		heldSocket bool // b held a Unix socket when first read, and closes it when handed the listener
	}{
		{"net:[1]", false}, {"net:[2]", false}, {"net:[1]", true}, {"net:[2]", true},
	} {
		t.Run(fmt.Sprintf("%s held=%v", tc.ns, tc.heldSocket), func(t *testing.T) {
			is := is.New(t)
			const sh, a, b = 5000071, 5000072, 5000073
			tab := map[int]supervisor.Proc{}
			for i, pid := range []int{sh, a, b} {
				tab[pid] = supervisor.Proc{PID: pid, PPID: sh, PGID: sh, SID: sh, Start: uint64(100 + i), State: 'S', Comm: "x", Image: 7}
			}
			const handedAt = 3
			i := 0
			s := newSampler(sh, 1000, func() ([]supervisor.Owned, error) { return owned(tab), nil })
			s.argv = func(int) ([]string, bool) { return []string{"x"}, true }
			s.netns = func(int) (string, error) { return tc.ns, nil }
			s.ownNS, s.scanAllUpTo = "net:[1]", 0
			s.ownListeners = func() ([]protoListener, error) {
				return []protoListener{{proto: "tcp", listener: listener{addr: net.IPv4(127, 0, 0, 1).To4(), port: 8080, inode: "999"}}}, nil
			}
			s.sockstat = func(int) (string, error) { return "sockets: 3 TCP: 1", nil }
			s.netTable = func(pid int, proto string) ([]byte, error) {
				if proto == "tcp" {
					return []byte(header + row), nil
				}
				return []byte(header), nil
			}
			s.fdSig = func(pid int, list bool) (uint64, bool) {
				if pid != b || i < handedAt {
					return 1, true
				}
				if list {
					return 2, true // another number
				}
				if tc.heldSocket {
					return 1, true // as many as before
				}
				return 2, true
			}
			s.socketInodes = func(pid int) ([]string, bool) {
				switch {
				case pid == b && i >= handedAt:
					return []string{"999"}, true
				case pid == b && tc.heldSocket:
					return []string{"500"}, true
				}
				return nil, true
			}
			for i = range handedAt + 2 {
				s.sample(int64(i) * 50)
			}
			got := s.listening()
			is.Equal(len(got), 1)
			is.Equal([]int{got[0].PID, got[0].Port, int(got[0].FirstSeenMS)}, []int{b, 8080, handedAt * 50})
		})
	}
}

// A listener whose holder exits, leaving it to a child that inherited it
// (and that an earlier look already read), is credited to the child at the
// next look, in rea's own namespace (its listeners listed), in another
// (its counters unchanged: a socket changing hands changes none) and at a
// look at one or two processes. A zombie holds no descriptor: its
// listener is looked for as soon as it is one. Before, the listener stayed
// the first holder's, which had exited.
func TestListenerLeftToAChildIsCreditedToIt(t *testing.T) {
	const sh, a, c = 5000061, 5000062, 5000063
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	table := header + "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 900 1 0 100 0 0 10 0\n"
	proc := func(pid, ppid int, start uint64, state byte) supervisor.Proc {
		return supervisor.Proc{PID: pid, PPID: ppid, PGID: sh, SID: sh, Start: start, State: state, Comm: "x"}
	}
	for _, mode := range []string{"own", "other", "few"} {
		for _, zombie := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s zombie=%v", mode, zombie), func(t *testing.T) {
				is := is.New(t)
				base := map[int]supervisor.Proc{sh: proc(sh, 1, 100, 'S')}
				if mode == "few" {
					base = map[int]supervisor.Proc{} // a is the launcher
				}
				with := func(ps ...supervisor.Proc) map[int]supervisor.Proc {
					out := map[int]supervisor.Proc{}
					for k, v := range base {
						out[k] = v
					}
					for _, p := range ps {
						out[p.PID] = p
					}
					return out
				}
				gone := with(proc(c, a, 102, 'S'))
				if zombie {
					gone = with(proc(a, sh, 101, 'Z'), proc(c, a, 102, 'S'))
				}
				looks := []map[int]supervisor.Proc{
					with(proc(a, sh, 101, 'S')),                       // a listens
					with(proc(a, sh, 101, 'S'), proc(c, a, 102, 'S')), // c inherits it
					gone, // a exits (or is a zombie)
					gone,
				}
				i := 0
				s := newSampler(sh, 1000, func() ([]supervisor.Owned, error) { return owned(looks[i]), nil })
				s.argv = func(int) ([]string, bool) { return []string{"x"}, true }
				s.netns = func(int) (string, error) { return "net:[1]", nil }
				s.sockstat = func(int) (string, error) { return "sockets: 3 TCP: 1", nil }
				s.fdSig = func(int, bool) (uint64, bool) { return 1, true }
				s.socketInodes = func(pid int) ([]string, bool) {
					if looks[i][pid].State == 'S' && (pid == a || pid == c) {
						return []string{"900"}, true
					}
					return nil, true
				}
				s.netTable = func(_ int, proto string) ([]byte, error) {
					if proto == "tcp" {
						return []byte(table), nil
					}
					return []byte(header), nil
				}
				switch mode {
				case "own":
					s.ownNS, s.scanAllUpTo = "net:[1]", 0
					s.ownListeners = func() ([]protoListener, error) {
						return []protoListener{{proto: "tcp", listener: listener{addr: net.IPv4(127, 0, 0, 1).To4(), port: 8080, inode: "900"}}}, nil
					}
				case "other":
					s.ownListeners, s.scanAllUpTo = nil, 0
				case "few":
					s.ownNS, s.scanAllUpTo = "net:[1]", 2
				}
				credited := []int{}
				for i = range looks {
					s.sample(int64(i) * 50)
					credited = append(credited, s.listening()[0].PID)
				}
				is.Equal(credited, []int{a, a, c, c})
				got := s.listening()
				is.Equal(len(got), 1)
				is.Equal([]int{got[0].Port, int(got[0].FirstSeenMS)}, []int{8080, 0})
			})
		}
	}
}
