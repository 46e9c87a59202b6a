//go:build linux

package supervisor_test

import (
	"context"
	"syscall"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
	"rea/supervisor"
)

// A PID the run once owned can be reused by a stranger: the start time tells
// them apart, and the stranger is never signalled.
func TestRecycledOrForgedPIDIsRefused(t *testing.T) {
	is := is.New(t)
	_, stranger := startUnrelated(t, 0)
	r, pids := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	ids := identify(t, pids...)

	// Revalidation right before the signal: a start time that differs from
	// the one recorded means another process now holds the PID.
	supervisor.SignalAsIfOwned(r, stranger.pid, stranger.start+1, syscall.SIGKILL)
	sigs := r.Signals()
	is.Equal(len(sigs), 1)
	is.Equal(sigs[0].ID, stranger.pid)
	is.Equal(sigs[0].Result, ports.SignalRefusedNotOwned)
	is.True(sigs[0].Reason != "")
	is.True(alive(stranger))

	// A forged record (the stranger's PID with another start time) proves
	// nothing: it is not in the lineage and not signalled at cleanup.
	supervisor.ForgeKnown(r, stranger.pid, stranger.start-1)
	checkLineage(t, r, r.Lineage(context.Background()), pids)
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
	is.True(alive(stranger))
	for _, a := range r.Signals()[1:] {
		is.True(a.ID != stranger.pid)
	}

	// The same check for a process that is really ours goes through.
	r2, pids2 := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	ticks, err := supervisor.StartTicks(pids2[0])
	is.NoErr(err)
	supervisor.SignalAsIfOwned(r2, pids2[0], ticks, syscall.SIGKILL)
	is.Equal(r2.Signals()[0].Result, ports.SignalDelivered)
	is.NoErr(r2.Cleanup(context.Background()))
	checkGone(t, r2, identify(t)[:0])
}
