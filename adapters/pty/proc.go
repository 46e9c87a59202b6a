//go:build linux

package pty

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"rea/ports"
	"rea/supervisor"
)

// The capture observes its processes from /proc. Observation never signals:
// stopping and cleaning up are the supervisor's, which proves ownership again
// before every signal.

type procKey struct {
	pid   int
	start uint64
}

func readArgv(pid int) ([]string, bool) {
	b, err := supervisor.ReadProcFile(pid, "cmdline", 64<<10)
	if err != nil || len(b) == 0 {
		return nil, false // unreadable, or a kernel thread / zombie
	}
	b = bytes.TrimRight(b, "\x00")
	parts := strings.Split(string(b), "\x00")
	for i := range parts {
		parts[i] = toValidUTF8(parts[i])
	}
	return parts, true
}

type procRecord struct {
	ports.CapturedProcess
	key       procKey
	lastSig   string
	argvImage uint64   // the Proc.Image the argv was read at; 0: read it at every look
	argvComm  string   // the command name it was read at
	argvLook  int      // the look (sampler.looks) it was read at
	imageArgv []string // the first argv read since the last exec
}

// argvRecheckLooks is how many looks (of 50 ms) an argv read stands for a
// process that neither exec'd nor renamed itself since: a process can
// rewrite its argv in place (setproctitle), which nothing the stat shows
// tells, and reading every live process's argv at every look was an
// eighth of a capture's CPU (see sample).
var argvRecheckLooks = 20

// sampler keeps the process tree as it grew. Which processes are the
// capture's is the supervisor's census (Run.Look): the launcher, a child
// (born no earlier) of a process already proven the capture's, or one that
// carries the run ID in its initial environment and was born no earlier
// than the launcher (a daemon that called setsid).
type sampler struct {
	launcher int
	limit    int64

	// What a look reads of /proc: the capture's processes and a process's
	// argv. A test replays recorded looks through them.
	look func() ([]supervisor.Owned, error)
	argv func(pid int) ([]string, bool)
	// What the socket scan reads: a process's network namespace, its
	// namespace's listening table and its socket descriptors.
	netns        func(pid int) (string, error)
	netTable     func(pid int, proto string) ([]byte, error)
	socketInodes func(pid int) ([]string, bool)
	// fdSig sums up pid's open descriptors: their count (fdCount), or,
	// with list, their numbers (fdSignature). A process handed a
	// descriptor (SCM_RIGHTS, pidfd_getfd) shows another sum (see handed).
	fdSig func(pid int, list bool) (uint64, bool)
	// sockstat reads the counters of pid's network namespace that a new
	// socket, or a socket that starts to listen, changes (see
	// sampleOtherNamespace).
	sockstat func(pid int) (string, error)
	// rea's own network namespace and its listeners (see
	// sampleOwnNamespace); ownListeners nil: every namespace, rea's
	// included, is sampled as another (sampleOtherNamespace). A look at no
	// more than scanAllUpTo live processes scans them all: listing the
	// listeners costs about as much as reading one or two processes'
	// descriptors.
	ownNS        string
	ownListeners func() ([]protoListener, error)
	scanAllUpTo  int
	diag         *diagSocket

	procs      map[procKey]*procRecord
	order      []procKey
	samples    []ports.ProcessSample
	partial    bool
	limitHit   bool
	failures   int
	firstFail  string
	sockets    map[string]*ports.ListeningSocket
	sockOrder  []string
	listeners  map[string]bool    // inodes of the sockets recorded as listening and held by a live process of the capture
	holders    map[string]procKey // each recorded listener's inode -> the process credited with it
	foreign    map[string]bool    // listening in rea's namespace, held by no process of the capture at the last full scan
	scanned    map[procKey]bool
	sigs       map[procKey]fdSum // each process's fdSig when its descriptors were last read
	sigNext    int               // where the next look's descriptor sums start (see sumsToCheck)
	unreadable map[int]string
	looks      int
	nsOf       map[procKey]nsSeen  // each live process's network namespace, read once per program image
	others     map[string]*otherNS // the namespaces other than rea's (or all, without the diagnostics) at the last look
}

// nsSeen is a process's network namespace as read while it ran image.
type nsSeen struct {
	image uint64
	ns    string
}

// otherNS is what the last looks read of a network namespace other than
// rea's: its counters (sockstat) when its processes were last scanned,
// the look that scanned them all, and the processes whose descriptors
// were read since.
type otherNS struct {
	counters string
	fullAt   int
	scanned  map[procKey]bool
}

// otherRescanLooks bounds how many looks (of 50 ms) pass between two
// scans of every process of another namespace, whatever its counters say.
const otherRescanLooks = 20

func newSampler(launcher int, limit int64, look func() ([]supervisor.Owned, error)) *sampler {
	s := &sampler{
		launcher: launcher, limit: limit, look: look, argv: readArgv,
		netns: netnsOf, netTable: netTableOf, socketInodes: socketInodes, fdSig: fdSums, sockstat: sockstatOf,
		sigs:  map[procKey]fdSum{},
		procs: map[procKey]*procRecord{}, sockets: map[string]*ports.ListeningSocket{},
		unreadable: map[int]string{}, listeners: map[string]bool{}, holders: map[string]procKey{},
		foreign: map[string]bool{}, scanned: map[procKey]bool{},
		nsOf: map[procKey]nsSeen{}, others: map[string]*otherNS{},
	}
	if ns, err := supervisor.ReadProcLink(os.Getpid(), "ns/net"); err == nil {
		s.diag = &diagSocket{}
		s.ownNS, s.ownListeners, s.scanAllUpTo = ns, s.diag.listeners, 2
	}
	return s
}

// close releases what the sampler keeps open between looks.
func (s *sampler) close() {
	if s.diag != nil {
		s.diag.close()
	}
}

func (s *sampler) fail(err error) {
	s.failures++
	s.partial = true
	if s.firstFail == "" {
		s.firstFail = err.Error()
	}
}

// sample takes one look and returns the capture's live processes.
func (s *sampler) sample(atMS int64) []supervisor.Proc {
	owned, err := s.look()
	if err != nil {
		s.fail(err)
		return nil
	}
	live := make([]supervisor.Proc, 0, len(owned))
	image := make(map[int]uint64, len(owned))
	for _, o := range owned {
		image[o.PID] = o.Image
	}
	for _, o := range owned {
		p := o.Proc
		live = append(live, p)
		k := procKey{p.PID, p.Start}
		rec, ok := s.procs[k]
		if !ok {
			rec = &procRecord{key: k, CapturedProcess: ports.CapturedProcess{PID: p.PID, FirstSeenMS: atMS, ByRunID: o.ByRunID}}
			s.procs[k] = rec
			s.order = append(s.order, k)
		}
		rec.ParentPID, rec.ProcessGroupID, rec.SessionID = p.PPID, p.PGID, p.SID
		rec.LastSeenMS = atMS
		// The argv is read again whenever the process may have changed it
		// since the last read, and a later read supersedes an earlier: a
		// child seen between its fork and its exec has its parent's argv,
		// and an exec need not change the kernel's command name (make
		// running make, sh running sh), so the name alone does not tell
		// that it happened; nor does the executable's path (make runs the
		// same /usr/bin/make). So it is read when the process's program
		// image (Proc.Image) changed, which every exec does, or is unknown;
		// when its command name changed (a program that renames itself);
		// and at every look while it runs its parent's image, forked and
		// not exec'd (a shell's subshell, a server's worker, which may
		// rewrite its argv as its title). The stat was read before the
		// argv, so an exec between the two makes the next look read it
		// again. And it is read again argvRecheckLooks looks after the
		// last read, whatever the stat says: a process that rewrites its
		// argv in place (setproctitle: nginx, postgres), without exec or
		// rename, in an image of its own, is then seen with its new argv
		// up to a second late (before, never: its first read stood). A
		// read that fails (the process is exiting) keeps what an earlier
		// one read, and is tried again at the next look.
		rec.Comm = p.Comm
		forked := p.Image != 0 && image[p.PPID] == p.Image
		stale := s.looks-rec.argvLook >= argvRecheckLooks
		if !rec.ArgvReadable || p.Image == 0 || p.Image != rec.argvImage || p.Comm != rec.argvComm || forked || stale {
			if argv, readable := s.argv(p.PID); readable {
				rec.setArgv(argv, p, s.looks, atMS)
			}
		}
		cmd := commandOf(rec.CapturedProcess)
		sig := fmt.Sprintf("%d\x00%s\x00%d\x00%d", p.PPID, cmd, p.PGID, p.SID)
		if sig != rec.lastSig {
			rec.lastSig = sig
			if int64(len(s.samples)) >= s.limit {
				s.limitHit, s.partial = true, true
			} else {
				s.samples = append(s.samples, ports.ProcessSample{
					AtMS: atMS, PID: p.PID, ParentPID: p.PPID, Command: cmd,
					ProcessGroupID: p.PGID, SessionID: p.SID,
				})
			}
		}
	}
	s.sampleSockets(live, atMS)
	return live
}

// setArgv records argv, read at look (at atMS) while the process ran p's
// image with p's command name. A read under an image other than the last
// read's (an exec), or under an unknown one, starts the image's argv
// afresh; a read that differs from the image's first read says the
// process rewrote its argv in place, and when.
func (rec *procRecord) setArgv(argv []string, p supervisor.Proc, look int, atMS int64) {
	switch {
	case !rec.ArgvReadable || p.Image == 0 || p.Image != rec.argvImage:
		rec.imageArgv, rec.FirstReadArgv, rec.ArgvRewrittenMS = argv, nil, 0
	case slices.Equal(argv, rec.imageArgv):
		rec.FirstReadArgv, rec.ArgvRewrittenMS = nil, 0 // rewritten back
	case !slices.Equal(argv, rec.Argv):
		rec.FirstReadArgv, rec.ArgvRewrittenMS = rec.imageArgv, atMS
	}
	rec.Argv, rec.ArgvReadable, rec.argvImage, rec.argvComm, rec.argvLook = argv, true, p.Image, p.Comm, look
}

// sampleSockets records the listening TCP sockets the live processes hold:
// those of rea's own network namespace by sampleOwnNamespace, those of
// another (and of every one when the kernel's socket diagnostics are
// unavailable) by sampleOtherNamespace, and, at a look at no more than
// scanAllUpTo processes, all of them by scanSockets.
func (s *sampler) sampleSockets(live []supervisor.Proc, atMS int64) {
	s.looks++
	s.pruneNamespaces(live)
	released := s.releaseGoneHolders(live)
	if len(live) <= s.scanAllUpTo {
		// Every process is read: the next look that lists the listeners
		// reads again every process it does not skip, and sampleOwnNamespace
		// skips none but those it scanned itself.
		clear(s.scanned)
		clear(s.sigs) // unread: a later look reads the descriptors again rather than compare
		s.scanSockets(live, atMS, false)
		return
	}
	var here, unknown []supervisor.Proc
	var order []string
	byNS := map[string][]supervisor.Proc{}
	for _, p := range live {
		ns, err := s.namespace(p)
		switch {
		case err != nil:
			unknown = append(unknown, p) // gone, or not ours to read
		case ns == s.ownNS && s.ownListeners != nil:
			here = append(here, p)
		default:
			if byNS[ns] == nil {
				order = append(order, ns)
			}
			byNS[ns] = append(byNS[ns], p)
		}
	}
	if len(here) > 0 && !s.sampleOwnNamespace(here, atMS) {
		order = append(order, s.ownNS)
		byNS[s.ownNS] = append(byNS[s.ownNS], here...)
	}
	others := make(map[string]*otherNS, len(order))
	for _, ns := range order {
		st := s.others[ns]
		if released && st != nil {
			st.scanned = nil // a listener lost its holder: every process is read again, once
		}
		others[ns] = s.sampleOtherNamespace(st, byNS[ns], atMS)
	}
	s.others = others
	if len(unknown) > 0 && s.ownListeners == nil {
		s.scanSockets(unknown, atMS, false)
	}
}

// releaseGoneHolders forgets, as explained, the recorded listeners whose
// holder is no longer a live process of the capture (it exited, or is a
// zombie, which holds no descriptor): a process that listens, hands the
// socket to a child (inherited across fork, or SCM_RIGHTS) and exits
// leaves the child serving it. Such a listener is then looked for as a
// new one: in rea's own namespace it is unexplained while listed, so the
// look reads every process's descriptors (sampleOwnNamespace); in another
// every process is read once (sampleOtherNamespace); and record credits
// whoever holds it now. It reports whether one was released. It costs a
// map lookup per recorded listener a look, and a read of the descriptors
// only at a look after a holder of a listener left.
func (s *sampler) releaseGoneHolders(live []supervisor.Proc) bool {
	if len(s.holders) == 0 {
		return false
	}
	alive := make(map[procKey]bool, len(live))
	for _, p := range live {
		if !p.Dead() {
			alive[procKey{p.PID, p.Start}] = true
		}
	}
	released := false
	for in, k := range s.holders {
		if s.listeners[in] && !alive[k] {
			delete(s.listeners, in)
			released = true
		}
	}
	return released
}

// namespace names p's network namespace, read once for each program image
// it runs (an exec, as unshare -n's or ip netns exec's, may follow a change
// of namespace; a process that changes it and does not exec is looked for
// in the namespace it was first read in).
func (s *sampler) namespace(p supervisor.Proc) (string, error) {
	k := procKey{p.PID, p.Start}
	if seen, ok := s.nsOf[k]; ok && p.Image != 0 && seen.image == p.Image {
		return seen.ns, nil
	}
	ns, err := s.netns(p.PID)
	if err == nil {
		s.nsOf[k] = nsSeen{image: p.Image, ns: ns}
	}
	return ns, err
}

// pruneNamespaces forgets the namespaces and descriptor sums read of
// processes no longer live.
func (s *sampler) pruneNamespaces(live []supervisor.Proc) {
	if len(s.nsOf) <= len(live) && len(s.sigs) <= len(live) {
		return // nothing to forget unless some are gone
	}
	keep := make(map[procKey]bool, len(live))
	for _, p := range live {
		keep[procKey{p.PID, p.Start}] = true
	}
	for k := range s.nsOf {
		if !keep[k] {
			delete(s.nsOf, k)
		}
	}
	for k := range s.sigs {
		if !keep[k] {
			delete(s.sigs, k)
		}
	}
}

// sampleOtherNamespace records the listening sockets that procs (live, of
// one network namespace other than rea's) hold, and returns what the next
// look needs of it. rea's socket diagnostics see its own namespace only,
// so here the counters of the namespace (its sockstat, through one of its
// processes: the sockets in use, and the TCP and TCP6 sockets in the
// kernel's hashes, which a new socket, a connection and a socket that
// starts to listen each change) stand in for its listeners: when they
// changed since the last look read them, or at the first look at the
// namespace, or when otherRescanLooks passed since the last full scan,
// every process is scanned (scanSockets: its descriptors, and the tables
// when it holds a socket not yet recorded as a listener); otherwise only
// the processes not scanned yet (new ones) and those whose descriptors
// changed since they were read (see handed; a socket that changes hands
// changes no counter). So a socket that starts to listen while another
// socket of the namespace stops being hashed (a connection reset) in the
// same look is found up to otherRescanLooks looks late; a process already
// scanned that is handed a socket that already listened is credited with
// it as in rea's own namespace.
func (s *sampler) sampleOtherNamespace(st *otherNS, procs []supervisor.Proc, atMS int64) *otherNS {
	if st == nil {
		st = &otherNS{}
	}
	counters, err := s.sockstat(procs[0].PID)
	full := err != nil || st.scanned == nil || counters != st.counters || s.looks-st.fullAt >= otherRescanLooks
	scan := procs
	if !full {
		scan = nil
		check := s.sumsToCheck(procs)
		for _, p := range procs {
			if k := (procKey{p.PID, p.Start}); !st.scanned[k] || check[k] && s.handed(k) {
				scan = append(scan, p)
			}
		}
	}
	read := s.scanSockets(scan, atMS, true)
	next := &otherNS{counters: counters, fullAt: st.fullAt, scanned: make(map[procKey]bool, len(procs))}
	if err != nil {
		next.counters = "" // unread: the next look scans every process again
	}
	if full {
		next.fullAt = s.looks
	}
	for _, p := range procs {
		k := procKey{p.PID, p.Start}
		if read[k] || (!full && st.scanned[k]) {
			next.scanned[k] = true
		}
	}
	return next
}

// sampleOwnNamespace records the listening sockets of rea's own network
// namespace that the processes here (live, of that namespace) hold. It
// reads the namespace's listeners first, through the kernel's socket
// diagnostics (tens of microseconds), and reads a process's descriptors
// (tens of microseconds a process) only when it must: every live process
// of the namespace when a listener appears that no earlier look explained
// (neither recorded as the capture's nor found, at the last such scan,
// held by none of its processes: another program's), and otherwise only
// the processes not scanned at an earlier look (new ones, which may hold a
// listener they inherited or were handed). So a listener a process of the
// capture opens, or a socket it makes listen, at any time, is found at the
// first look that lists it, as before. A process already scanned that is
// later handed (SCM_RIGHTS, pidfd_getfd) a socket that was already
// listening, and that the last full scan found held by no process of the
// capture, is read again while such a listener is listed, when its
// descriptors changed (handed; sumsPerLook processes a look, in turn): so
// it is credited a look later for every sumsPerLook processes that live,
// unless within the same look it closed as many descriptors as it gained
// or moved the socket onto the number of one it closed (see readSockets).
// It reports false when the diagnostics failed; they are not used again.
func (s *sampler) sampleOwnNamespace(here []supervisor.Proc, atMS int64) bool {
	ls, err := s.ownListeners()
	if err != nil {
		s.ownListeners = nil
		return false
	}
	byInode := make(map[string]protoListener, len(ls))
	unexplained := false
	for _, l := range ls {
		byInode[l.inode] = l
		if !s.listeners[l.inode] && !s.foreign[l.inode] {
			unexplained = true
		}
	}
	// A listener no process of the capture held at the last full scan
	// (another program's) may since have been handed to one: a process
	// whose descriptors changed is read again while there is one.
	foreignNow := false
	for _, l := range ls {
		foreignNow = foreignNow || !s.listeners[l.inode]
	}
	var check map[procKey]bool
	if foreignNow && !unexplained {
		check = s.sumsToCheck(here)
	}
	scanned := make(map[procKey]bool, len(here))
	for _, p := range here {
		k := procKey{p.PID, p.Start}
		if !unexplained && s.scanned[k] && (!check[k] || !s.handed(k)) {
			scanned[k] = true
			continue
		}
		inodes, ok := s.readSockets(p, true)
		scanned[k] = ok // unreadable: read again at the next look
		for _, in := range inodes {
			if l, held := byInode[in]; held && !s.listeners[in] {
				s.record(l.proto, l.listener, k, atMS)
			}
		}
	}
	s.scanned = scanned
	foreign := map[string]bool{}
	for _, l := range ls {
		if !s.listeners[l.inode] {
			foreign[l.inode] = true
		}
	}
	s.foreign = foreign
	return true
}

// record records listener l, of protocol proto, held by the process k
// (pid k.pid). A listener already recorded whose holder left (see
// releaseGoneHolders) is credited to k from now on; its first look
// (FirstSeenMS) stays; the record has no place for the first holder.
func (s *sampler) record(proto string, l listener, k procKey, atMS int64) {
	key := proto + " " + l.inode
	s.listeners[l.inode] = true
	if ls, seen := s.sockets[key]; seen {
		if was := s.holders[l.inode]; was != k {
			s.holders[l.inode], ls.PID = k, k.pid
		}
		return
	}
	s.holders[l.inode] = k
	s.sockets[key] = &ports.ListeningSocket{
		Protocol: proto, Address: l.addr.String(), Port: l.port,
		Loopback: l.addr.IsLoopback(), PID: k.pid, FirstSeenMS: atMS,
	}
	s.sockOrder = append(s.sockOrder, key)
}

// scanSockets records the listening TCP sockets the processes live hold
// by reading every one's descriptors at every look.
//
// A process sees the sockets of its own network namespace, so the listening
// tables are read through a process of the namespace that holds the socket
// (/proc/PID/net/tcp), once a look for each namespace in which a live
// process holds a socket not yet recorded, not through rea's own /proc/net.
// Reading a table walks the kernel's whole socket hash (about a millisecond
// here, however few sockets it lists), so a socket already recorded as a
// listener does not make a look read it again; a connected socket does,
// since a socket can listen later than it was made.
//
// It returns the processes whose descriptors it read.
func (s *sampler) scanSockets(live []supervisor.Proc, atMS int64, sig bool) map[procKey]bool {
	var order []string
	read := make(map[procKey]bool, len(live))
	held := map[string]map[string]procKey{} // namespace -> socket inode -> the first process holding it
	through := map[string]int{}             // namespace -> a pid of it to read its tables through
	for _, p := range live {
		ns := ""
		inodes, ok := s.readSockets(p, sig)
		read[procKey{p.PID, p.Start}] = ok
		for _, in := range inodes {
			if s.listeners[in] {
				continue
			}
			if ns == "" {
				var err error
				if ns, err = s.namespace(p); err != nil {
					read[procKey{p.PID, p.Start}] = false
					break // gone, or not ours to read
				}
				if held[ns] == nil {
					order = append(order, ns)
					held[ns], through[ns] = map[string]procKey{}, p.PID
				}
			}
			if _, ok := held[ns][in]; !ok {
				held[ns][in] = procKey{p.PID, p.Start}
			}
		}
	}
	for _, ns := range order {
		for _, proto := range []string{"tcp", "tcp6"} {
			b, err := s.netTable(through[ns], proto)
			if err != nil && !errors.Is(err, supervisor.ErrTooLarge) {
				continue
			}
			for _, l := range parseListeners(proto, b) {
				k, ok := held[ns][l.inode]
				if !ok {
					continue
				}
				s.record(proto, l, k, atMS)
			}
		}
	}
	return read
}

// fdSum is what a process's descriptors summed up to when they were
// read: their count and numbers, and which of the two a later look
// compares (listed: the numbers).
type fdSum struct {
	count, numbers uint64
	listed         bool
}

// readSockets reads the inodes of the sockets p holds (socketInodes), and,
// with sig, first what its descriptors sum up to (fdSig), which handed
// compares with at a later look: a descriptor handed to it after the sum
// changes the next sum.
func (s *sampler) readSockets(p supervisor.Proc, sig bool) ([]string, bool) {
	k := procKey{p.PID, p.Start}
	var sum fdSum
	countOK, numbersOK := false, false
	if sig {
		sum.count, countOK = s.fdSig(p.PID, false)
		sum.numbers, numbersOK = s.fdSig(p.PID, true)
	}
	inodes, ok := s.socketInodes(p.PID)
	if ok && countOK && numbersOK {
		// A process can be handed a descriptor over a Unix socket it
		// holds and then close that socket, its count unchanged: its
		// numbers are compared. One that held no socket must open one
		// (or call pidfd_getfd) to be handed a descriptor: its count
		// grows unless it closed as many others within the same look.
		// A count of 0 is a kernel older than 6.2, which does not
		// count.
		sum.listed = len(inodes) > 0 || sum.count == 0
		s.sigs[k] = sum
	} else {
		delete(s.sigs, k)
	}
	return inodes, ok
}

// sumsPerLook bounds how many processes' descriptor sums a look lists
// (see handed): a look at more checks sumsPerLook of them, the next look
// the next ones, in turn.
const sumsPerLook = 32

// sumsToCheck returns the processes of procs whose descriptor sums this
// look checks: all of them, or sumsPerLook from where the last look's
// stopped.
func (s *sampler) sumsToCheck(procs []supervisor.Proc) map[procKey]bool {
	n := min(len(procs), sumsPerLook)
	out := make(map[procKey]bool, n)
	start := 0
	if len(procs) > sumsPerLook {
		start = s.sigNext % len(procs)
		s.sigNext = start + n
	}
	for i := range n {
		p := procs[(start+i)%len(procs)]
		out[procKey{p.PID, p.Start}] = true
	}
	return out
}

// handed reports whether the descriptors of the process k, already read,
// may have changed since: their sum differs from the one read with them
// (or either is unknown). It stats /proc/PID/fd (its size is the count),
// or, for a process that held a socket, lists the descriptors' numbers,
// without reading where each leads (a readlink each, which a read of its
// sockets costs).
func (s *sampler) handed(k procKey) bool {
	was, ok := s.sigs[k]
	if !ok {
		return true
	}
	if was.listed {
		now, ok := s.fdSig(k.pid, true)
		return !ok || now != was.numbers
	}
	now, ok := s.fdSig(k.pid, false)
	return !ok || now != was.count
}

// fdSums is fdSig: fdSignature with list, else fdCount.
func fdSums(pid int, list bool) (uint64, bool) {
	if list {
		return fdSignature(pid)
	}
	return fdCount(pid)
}

// fdCount is how many descriptors pid has open: the size of its
// /proc/PID/fd (Linux 6.2 on; 0 before).
func fdCount(pid int) (uint64, bool) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat("/proc/"+strconv.Itoa(pid)+"/fd", &st)
		if err == syscall.EINTR {
			continue
		}
		return uint64(max(st.Size, 0)), err == nil
	}
}

// fdSignature sums up pid's open descriptors (the first 4096): their
// count and numbers. A process handed a descriptor has one more, or, if
// it closed another since (the connection that brought it), another
// number, unless it moved the new one onto the closed one's number
// (dup2) within the same look.
func fdSignature(pid int) (uint64, bool) {
	h := uint64(14695981039346656037)
	n := uint64(0)
	err := supervisor.ListProcDir(pid, "fd", 4096, func(name []byte) {
		n++
		for _, c := range name {
			h ^= uint64(c)
			h *= 1099511628211
		}
		h ^= ' '
		h *= 1099511628211
	})
	return h ^ n<<56, err == nil
}

// socketInodes returns the inodes of the sockets among pid's open files
// (the first 4096). It reads with plain system calls (see
// supervisor.ReadProcLink). ok is false when the descriptors could not be
// listed (the process is gone, or not ours to read).
func socketInodes(pid int) (inodes []string, ok bool) {
	var out []string
	err := supervisor.ListProcDir(pid, "fd", 4096, func(n []byte) {
		link, err := supervisor.ReadProcLink(pid, "fd/"+string(n))
		if err != nil {
			return
		}
		if in, ok := strings.CutPrefix(link, "socket:["); ok {
			out = append(out, strings.TrimSuffix(in, "]"))
		}
	})
	return out, err == nil
}

// netnsOf names pid's network namespace (net:[INODE]).
func netnsOf(pid int) (string, error) {
	return supervisor.ReadProcLink(pid, "ns/net")
}

// sockstatOf reads the counters of pid's network namespace that a socket
// that starts to listen changes: the sockets in use, and the TCP and TCP6
// sockets in the kernel's hashes (the listening and connection hashes; a
// table of the namespace's own, read in microseconds, unlike the listening
// tables, which walk the connection hash). The other counters of the files
// are the machine's, not the namespace's, and are left out.
func sockstatOf(pid int) (string, error) {
	var out []byte
	for _, name := range []string{"net/sockstat", "net/sockstat6"} {
		b, err := supervisor.ReadProcFile(pid, name, 4096)
		if err != nil && name == "net/sockstat" {
			return "", err
		}
		for line := range bytes.Lines(b) {
			f := bytes.Fields(line)
			if len(f) >= 3 && (string(f[0]) == "sockets:" || string(f[0]) == "TCP:" || string(f[0]) == "TCP6:") {
				out = append(append(append(out, f[0]...), f[2]...), ' ')
			}
		}
	}
	return string(out), nil
}

// netTableOf reads the listening table proto (tcp or tcp6) of pid's
// network namespace.
func netTableOf(pid int, proto string) ([]byte, error) {
	return supervisor.ReadProcFile(pid, "net/"+proto, 16<<20)
}

type listener struct {
	addr  net.IP
	port  int
	inode string
}

// parseListeners reads /proc/net/tcp{,6} and returns the sockets in LISTEN
// state (0A). Addresses are hex in host byte order per 32-bit word.
func parseListeners(proto string, b []byte) []listener {
	var out []listener
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		host, port, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		raw, err := hex.DecodeString(host)
		if err != nil || (proto == "tcp" && len(raw) != 4) || (proto == "tcp6" && len(raw) != 16) {
			continue
		}
		ip := make(net.IP, len(raw))
		for w := 0; w+4 <= len(raw); w += 4 {
			ip[w], ip[w+1], ip[w+2], ip[w+3] = raw[w+3], raw[w+2], raw[w+1], raw[w]
		}
		pn, err := strconv.ParseUint(port, 16, 16)
		if err != nil {
			continue
		}
		out = append(out, listener{addr: ip, port: int(pn), inode: f[9]})
	}
	return out
}

// commandOf is a process's command line: its argv joined by spaces, or,
// when no look could read the argv (a process that was exiting), its
// kernel command name in brackets, as ps writes it, so that a comparison
// tells the name (the first 15 bytes of the program's file name) from a
// command run with no arguments.
func commandOf(p ports.CapturedProcess) string {
	if p.ArgvReadable {
		return strings.Join(p.Argv, " ")
	}
	return "[" + p.Comm + "]"
}

// processes returns the records in first-seen order.
func (s *sampler) processes() []ports.CapturedProcess {
	out := make([]ports.CapturedProcess, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, s.procs[k].CapturedProcess)
	}
	return out
}

func (s *sampler) listening() []ports.ListeningSocket {
	out := make([]ports.ListeningSocket, 0, len(s.sockOrder))
	for _, k := range s.sockOrder {
		out = append(out, *s.sockets[k])
	}
	return out
}

// pids returns every pid seen, for normalization.
func (s *sampler) pids() []int {
	seen := map[int]bool{s.launcher: true}
	out := []int{s.launcher}
	add := func(p int) {
		if p > 1 && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, k := range s.order {
		r := s.procs[k]
		add(r.PID)
		add(r.ProcessGroupID)
		add(r.SessionID)
	}
	return out
}
