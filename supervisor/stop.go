package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"syscall"
	"time"

	"rea/ports"
)

// pollInterval is how often a stop sequence looks for processes that are
// still there.
const pollInterval = 20 * time.Millisecond

// Stop runs the stop sequence: close stdin (and wait up to ExitDelay),
// SIGTERM to the proven processes, wait up to GraceDelay, SIGKILL to those
// left (and to any proven process that appears meanwhile), wait up to
// WaitDelay. When ctx ends, the exit and grace delays are cut short; the
// wait after SIGKILL is not. A stop whose ctx has already ended by the time
// a signal is due (no grace) sends SIGKILL only. Stop returns nil when no proven process
// remains, else a *ports.CleanupError listing the processes (and owned
// process groups) left. Every signal attempt is kept (Signals).
func (r *Run) Stop(ctx context.Context) error {
	r.stopMu.Lock()
	defer r.stopMu.Unlock()
	r.mu.Lock()
	started := r.started
	stdin := r.stdin
	r.mu.Unlock()
	if !started {
		return nil
	}
	if stdin != nil {
		stdin.Close()
	}
	// The process table is read even when ctx has ended: only waits are cut
	// short by ctx.
	look := context.WithoutCancel(ctx)
	c := r.take(look)
	if !r.quiet(c) && stdin != nil && r.opts.ExitDelay > 0 {
		c = r.waitQuiet(ctx, r.opts.ExitDelay, nil)
	}
	if r.quiet(c) {
		return r.processesLeft(c)
	}
	// A stop without grace (ctx already ended: "kill at once", or a
	// cancelled call) sends no SIGTERM: however soon SIGKILL followed, a
	// process could die of SIGTERM or run its handler.
	if ctx.Err() == nil {
		ports.Observe(ctx, "cleanup", fmt.Sprintf("SIGTERM to %d owned processes", r.countLive(c)))
		term := newRound(syscall.SIGTERM)
		r.signalRound(c, term)
		c = r.waitQuiet(ctx, r.opts.GraceDelay, nil)
	}
	if !r.quiet(c) {
		ports.Observe(ctx, "cleanup", fmt.Sprintf("SIGKILL to %d owned processes", r.countLive(c)))
		kill := newRound(syscall.SIGKILL)
		r.signalRound(c, kill)
		// SIGKILL cannot be ignored: wait for it whatever ctx says, bounded
		// by WaitDelay, so a cancelled caller does not get a report of
		// processes that were only dying.
		c = r.waitQuiet(look, r.opts.WaitDelay, kill)
	}
	return r.processesLeft(c)
}

// quiet reports whether nothing the run owns is alive. Without a process
// table only the launcher is known.
func (r *Run) quiet(c census) bool {
	if c.err != nil {
		select {
		case <-r.exited:
			return true
		default:
			return false
		}
	}
	return len(c.owned) == 0
}

func (r *Run) countLive(c census) int {
	if c.err != nil {
		return 1
	}
	return len(c.owned)
}

// waitQuiet polls until the run is quiet, d has passed, or ctx ends. With a
// round, each poll also signals proven processes the round has not reached
// yet (children forked while the others were being killed).
func (r *Run) waitQuiet(ctx context.Context, d time.Duration, rd *round) census {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-deadline.C:
			return r.take(context.WithoutCancel(ctx))
		case <-ctx.Done():
			return r.take(context.WithoutCancel(ctx))
		case <-tick.C:
		}
		c := r.take(context.WithoutCancel(ctx))
		if r.quiet(c) {
			return c
		}
		if rd != nil {
			r.signalRound(c, rd)
		}
	}
}

// round remembers what one signal has already been sent to.
type round struct {
	sig       syscall.Signal
	processes map[int]uint64 // pid -> start ticks
	groups    map[int]bool
	refused   map[int]bool
}

func newRound(sig syscall.Signal) *round {
	return &round{sig: sig, processes: map[int]uint64{}, groups: map[int]bool{}, refused: map[int]bool{}}
}

// signalRound sends rd's signal to every proven process of c it has not
// reached yet: a whole process group when every live member is proven ours,
// else each proven member by itself. Unproven members are recorded as refused.
func (r *Run) signalRound(c census, rd *round) {
	if c.err != nil {
		r.signalLauncher(rd)
		return
	}
	byGroup := map[int][]procInfo{}
	for _, p := range c.sortedOwned() {
		byGroup[p.pgid] = append(byGroup[p.pgid], p)
	}
	groups := make([]int, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	sort.Ints(groups)
	for _, g := range groups {
		members := byGroup[g]
		_, owned := c.members[g]
		if owned && c.groupClean(g) && !rd.groups[g] {
			if r.signalGroup(g, members, rd.sig) {
				rd.groups[g] = true
				for _, p := range members {
					rd.processes[p.pid] = p.start
				}
				continue
			}
		}
		if owned && !c.groupClean(g) {
			for _, m := range c.members[g] {
				if reason, ok := c.unverified[m]; ok && !rd.refused[m] {
					rd.refused[m] = true
					r.record(ports.TargetProcess, m, rd.sig, ports.SignalRefusedNotOwned,
						"member of owned process group "+strconv.Itoa(g)+" not proven ours: "+reason)
				}
			}
		}
		for _, p := range members {
			if s, ok := rd.processes[p.pid]; ok && s == p.start {
				continue
			}
			rd.processes[p.pid] = p.start
			r.signalProcess(p, rd.sig)
		}
	}
}

// signalGroup signals group g after checking that one of its proven members
// still has its PID, start time and group: a process group ID cannot be
// reused while a member lives, so the group is still the one we proved.
func (r *Run) signalGroup(g int, members []procInfo, sig syscall.Signal) bool {
	for _, p := range members {
		cur, err := readStat(p.pid)
		if err != nil || cur.dead() || cur.start != p.start || cur.pgid != g {
			continue
		}
		err = killGroup(g, sig)
		r.record(ports.TargetProcessGroup, g, sig, result(err), reason(err))
		return err == nil
	}
	return false
}

// signalProcess signals one proven process after revalidating its start
// time. The handle is opened first (a pidfd on Linux), so the process checked
// is the process signalled.
func (r *Run) signalProcess(p procInfo, sig syscall.Signal) {
	r.mu.Lock()
	launcher := r.cmd != nil && p.pid == r.pid
	r.mu.Unlock()
	if launcher {
		select {
		case <-r.exited:
			r.record(ports.TargetProcess, p.pid, sig, ports.SignalNoSuchProcess, "exited")
			return
		default:
		}
	}
	h, err := os.FindProcess(p.pid)
	if err != nil {
		r.record(ports.TargetProcess, p.pid, sig, ports.SignalError, err.Error())
		return
	}
	defer h.Release()
	r.signalChecked(h, p, sig)
}

func (r *Run) signalChecked(h *os.Process, p procInfo, sig syscall.Signal) {
	cur, err := readStat(p.pid)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist), err == nil && cur.dead():
		r.record(ports.TargetProcess, p.pid, sig, ports.SignalNoSuchProcess, "exited")
		return
	case err != nil:
		r.record(ports.TargetProcess, p.pid, sig, ports.SignalRefusedNotOwned, "start time could not be revalidated: "+err.Error())
		return
	case cur.start != p.start:
		r.record(ports.TargetProcess, p.pid, sig, ports.SignalRefusedNotOwned,
			fmt.Sprintf("pid now belongs to a process started at tick %d, not %d", cur.start, p.start))
		return
	}
	err = h.Signal(sig)
	r.record(ports.TargetProcess, p.pid, sig, result(err), reason(err))
}

// signalLauncher is the stop sequence without a process table: the launcher
// only, through the handle exec gave us, which cannot refer to another process.
func (r *Run) signalLauncher(rd *round) {
	r.mu.Lock()
	cmd, pid := r.cmd, r.pid
	r.mu.Unlock()
	if cmd == nil || rd.processes[pid] != 0 {
		return
	}
	rd.processes[pid] = 1
	select {
	case <-r.exited:
		r.record(ports.TargetProcess, pid, rd.sig, ports.SignalNoSuchProcess, "exited")
		return
	default:
	}
	err := cmd.Process.Signal(rd.sig)
	r.record(ports.TargetProcess, pid, rd.sig, result(err), reason(err))
}

func result(err error) ports.SignalResult {
	switch {
	case err == nil:
		return ports.SignalDelivered
	case errors.Is(err, os.ErrProcessDone), errors.Is(err, syscall.ESRCH):
		return ports.SignalNoSuchProcess
	default:
		return ports.SignalError
	}
}

func reason(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (r *Run) record(target string, id int, sig syscall.Signal, res ports.SignalResult, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.signals = append(r.signals, ports.SignalAttempt{
		Target: target, ID: id, Signal: SignalName(sig), At: time.Now().UTC(), Result: res, Reason: why,
	})
}

// SignalName names a signal as the capture and cleanup records do
// ("SIGTERM"), or "signal N" for one without a name here.
func SignalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return "signal " + strconv.Itoa(int(sig))
}

// processesLeft turns a census into the process part of a cleanup report.
func (r *Run) processesLeft(c census) error {
	r.mu.Lock()
	pid, pgid := r.pid, r.pgid
	r.mu.Unlock()
	var left []ports.OwnedResource
	if c.err != nil {
		select {
		case <-r.exited:
			if !groupGone(pgid) {
				left = append(left, ports.OwnedResource{Kind: ports.ResourceProcessGroup, ID: strconv.Itoa(pgid),
					Reason: "descendants could not be enumerated: " + c.err.Error()})
			}
		default:
			left = append(left, ports.OwnedResource{Kind: ports.ResourceProcess, ID: strconv.Itoa(pid), Reason: "launcher still running"})
		}
	}
	for _, p := range c.sortedOwned() {
		left = append(left, ports.OwnedResource{Kind: ports.ResourceProcess, ID: strconv.Itoa(p.pid),
			Reason: fmt.Sprintf("%s still running (state %c)", p.comm, p.state)})
	}
	groups := make([]int, 0, len(c.members))
	for g := range c.members {
		groups = append(groups, g)
	}
	sort.Ints(groups)
	for _, g := range groups {
		if c.groupClean(g) {
			continue
		}
		for _, m := range c.members[g] {
			if why, ok := c.unverified[m]; ok {
				left = append(left, ports.OwnedResource{Kind: ports.ResourceProcessGroup, ID: strconv.Itoa(g),
					Reason: fmt.Sprintf("member %d not proven ours (%s), so not signalled", m, why)})
			}
		}
	}
	if len(left) == 0 {
		return nil
	}
	return &ports.CleanupError{Resources: left}
}
