//go:build linux

package supervisor

import (
	"context"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"rea/ports"
)

// The exported /proc view is for engines that observe what they launched:
// the capture engine samples the process tree as it grows. Reading never
// signals; signalling goes through a Run, which proves ownership first.

// Proc is one process as /proc/PID/stat reports it.
type Proc struct {
	PID, PPID, PGID, SID int
	// Start is the start time in clock ticks after boot: with PID, the
	// process's identity.
	Start uint64
	State byte // R, S, D, Z, X, ...
	Comm  string
	// Image identifies the program the process runs since its last exec
	// (from where the kernel mapped it and its stack); a forked child has
	// its parent's until it execs. 0 when the kernel does not show it
	// (another user's process, a zombie). Address-space randomisation,
	// Linux's default, makes every exec's differ; without it two execs of
	// one program with arguments and environment of the same sizes may
	// show the same.
	Image uint64
}

// Dead reports a zombie or dead task.
func (p Proc) Dead() bool { return procInfo{state: p.State}.dead() }

func (p procInfo) export() Proc {
	return Proc{PID: p.pid, PPID: p.ppid, PGID: p.pgid, SID: p.sid, Start: p.start, State: p.state, Comm: p.comm, Image: p.image}
}

// ReadProc reads one process's /proc/PID/stat. A vanished process is an
// error matching os.ErrNotExist.
func ReadProc(pid int) (Proc, error) {
	p, err := readStat(pid)
	return p.export(), err
}

// ProcTable returns every live process (zombies and dead tasks excluded).
func ProcTable(ctx context.Context) (map[int]Proc, error) {
	tab, err := readTable(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[int]Proc, len(tab))
	for pid, p := range tab {
		out[pid] = p.export()
	}
	return out, nil
}

// Owned is a process a look proved the run's.
type Owned struct {
	Proc
	// ByRunID: proven at this look by the run ID in its environment, not
	// by descent from a process proven ours (a daemon that called setsid
	// and was reparented).
	ByRunID bool
}

// Look takes one look at the run's processes and returns those it proves
// the run's, sorted by pid, by the rules Lineage and the stop use (so that
// a stop knows a process proven ours by descent even after its parent
// exited): the census is the supervisor's, and an engine that samples the
// tree it launched (the capture) keeps no census of its own. It reads the
// stat of only the processes that could be the run's or in a group of the
// run's (see lookTable), not the machine's whole process table. It never
// signals.
func (r *Run) Look(ctx context.Context) ([]Owned, error) {
	r.mu.Lock()
	pid, start, launchSID := r.pid, r.startTick, r.launchSID
	r.mu.Unlock()
	if pid == 0 {
		return nil, errors.New("supervisor: nothing was launched")
	}
	if start == 0 {
		return nil, errors.New("supervisor: the launcher's start time could not be read at launch")
	}
	r.lookMu.Lock()
	defer r.lookMu.Unlock()
	if r.sessions == nil {
		r.sessions = map[int]bool{launchSID: true}
	}
	tab, stale, err := r.lookTable(ctx, start, r.sessions)
	if err != nil {
		return nil, err
	}
	c := r.census(tab, stale)
	out := make([]Owned, 0, len(c.owned))
	for _, p := range c.sortedOwned() {
		out = append(out, Owned{Proc: p.export(), ByRunID: c.byToken[p.pid]})
		if !r.sessions[p.sid] {
			// A session new to the run can hold only processes born after
			// the launcher, which every look reads; still, the next look
			// reads every process once more rather than rely on it.
			r.sessions[p.sid] = true
			r.seen = nil
		}
	}
	// The strangers the next look may take from this one's reading: those
	// whose parent lives, and is not exiting, now (see lookTable).
	for _, k := range c.strangers {
		s, ok := r.seen[k]
		p, live := tab[k]
		if _, owned := c.owned[k]; owned || !ok || !live {
			continue
		}
		if parent, up := tab[p.ppid]; up && !parent.exiting && p.ppid > 0 {
			s.p, s.stranger, s.parentStart = p, true, parent.start
			r.seen[k] = s
		}
	}
	r.watchStrangers()
	return out, nil
}

// CarriesRunID reports whether pid's initial environment sets RunIDEnv to
// runID (its first entry for the name counts). ok is false when the
// environment could not be read: another user's process, or one that is gone.
func CarriesRunID(pid int, runID string) (has, ok bool) {
	st, _ := tokenState(pid, RunIDEnv, runID)
	switch st {
	case tokenPresent:
		return true, true
	case tokenMismatch:
		return false, true
	}
	return false, false
}

// ErrTooLarge is returned by ReadBounded, with the bytes up to the bound,
// when a file is larger than the bound.
var ErrTooLarge = errors.New("larger than the read bound")

// ReadBounded reads at most limit bytes of path (a /proc file).
func ReadBounded(path string, limit int64) ([]byte, error) { return readBounded(path, limit) }

// ReadProcLink reads the symbolic link /proc/PID/name.
func ReadProcLink(pid int, name string) (string, error) {
	path := procRoot + "/" + strconv.Itoa(pid) + "/" + name
	var buf [256]byte
	for {
		n, err := syscall.Readlink(path, buf[:])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return "", &os.PathError{Op: "readlink", Path: path, Err: err}
		case n == len(buf):
			return os.Readlink(path) // longer than a socket's or namespace's link
		}
		return string(buf[:n]), nil
	}
}

// ListProcDir calls each with the name of every entry of the directory
// /proc/PID/name (such as fd), at most limit of them, without an *os.File.
func ListProcDir(pid int, name string, limit int, each func(name []byte)) error {
	return readDirents(procRoot+"/"+strconv.Itoa(pid)+"/"+name, limit, func(n []byte, _ uint64) { each(n) })
}

// ReadProcFile reads /proc/PID/name, at most limit bytes.
func ReadProcFile(pid int, name string, limit int64) ([]byte, error) {
	return readBounded(procRoot+"/"+strconv.Itoa(pid)+"/"+name, limit)
}

// SignalLauncher sends sig to the launched process only, after proving that
// its pid still names it: the handle is opened first (a pidfd), then the
// start time read at launch is checked again. The attempt is returned, not
// added to Signals (those are the stop sequence's); the caller keeps it.
func (r *Run) SignalLauncher(sig syscall.Signal) ports.SignalAttempt {
	r.mu.Lock()
	pid, start, started := r.pid, r.startTick, r.cmd != nil
	r.mu.Unlock()
	at := ports.SignalAttempt{Target: ports.TargetProcess, ID: pid, Signal: SignalName(sig), At: time.Now().UTC()}
	done := func(res ports.SignalResult, why string) ports.SignalAttempt {
		at.Result, at.Reason = res, why
		return at
	}
	if !started {
		return done(ports.SignalRefusedNotOwned, "nothing was launched")
	}
	select {
	case <-r.exited:
		return done(ports.SignalNoSuchProcess, "exited")
	default:
	}
	if start == 0 {
		return done(ports.SignalRefusedNotOwned, "the launcher's start time could not be read at launch")
	}
	h, err := os.FindProcess(pid)
	if err != nil {
		return done(ports.SignalError, err.Error())
	}
	defer h.Release()
	cur, err := readStat(pid)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist), err == nil && cur.dead():
		return done(ports.SignalNoSuchProcess, "exited")
	case err != nil:
		return done(ports.SignalRefusedNotOwned, "start time could not be revalidated: "+err.Error())
	case cur.start != start:
		return done(ports.SignalRefusedNotOwned, "the pid now belongs to another process")
	}
	err = h.Signal(sig)
	return done(result(err), reason(err))
}

// StartTick is the launcher's start time in clock ticks after boot, 0 when
// it could not be read at launch.
func (r *Run) StartTick() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.startTick
}
