package supervisor

import (
	"context"
	"time"

	"rea/ports"
)

// Lineage takes one bounded look at the run's processes and reports it as a
// ports.ProcessLineage: verified when the launcher is live and every member of
// the owned process groups is proven ours, else unavailable with the
// contract's reason. It never signals.
func (r *Run) Lineage(ctx context.Context) ports.ProcessLineage {
	r.mu.Lock()
	started, pid, pgid, start := r.started, r.pid, r.pgid, r.startTick
	r.mu.Unlock()
	l := ports.ProcessLineage{Status: ports.LineageUnavailable, LauncherPID: pid, ProcessGroupID: pgid}
	if !started {
		l.ObservedAt = time.Now().UTC()
		l.Reason = ports.LineageReasonLauncherGone
		return l
	}
	c := r.take(ctx)
	l.ObservedAt = time.Now().UTC()
	switch {
	case c.err != nil:
		l.Reason = ports.LineageReasonNoProcessTable
	case start == 0:
		l.Reason = ports.LineageReasonNotRevalidated
	case !c.launcherLive:
		l.Reason = ports.LineageReasonLauncherGone
	case len(c.unverified) > 0:
		l.Reason = ports.LineageReasonUnowned
	default:
		l.Status = ports.LineageVerified
		l.LauncherParentPID = c.launcher.ppid
		l.ProcessGroupID = c.launcher.pgid
		l.LauncherStartTime = startTime(c.launcher.start)
		l.LauncherCommand = c.launcher.comm
		l.Descendants = []ports.LineageProcess{}
		for _, p := range c.sortedOwned() {
			if p.pid == pid {
				continue
			}
			l.Descendants = append(l.Descendants, ports.LineageProcess{
				PID: p.pid, ParentPID: p.ppid, ProcessGroupID: p.pgid,
				StartTime: startTime(p.start), Command: p.comm,
			})
		}
	}
	return l
}
