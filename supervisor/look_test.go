//go:build linux

package supervisor_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/matryer/is"

	"rea/supervisor"
)

// A look reads each process's environment once: a later look reuses what
// an earlier one read of the same process. Before, every look read again
// the environment of every process born after the launcher and not proven
// ours (the machine's, at each of a capture's 50 ms looks).
func TestEnvironmentIsReadOncePerProcess(t *testing.T) {
	is := is.New(t)
	r, _ := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	reads := supervisor.CountEnvironReads(r)
	// A stranger born after the launcher: the test's, not the run's.
	stranger := exec.Command("sleep", "30")
	is.NoErr(stranger.Start())
	t.Cleanup(func() { stranger.Process.Kill(); stranger.Wait() })
	pid := stranger.Process.Pid

	for range 3 {
		r.Lineage(context.Background())
	}
	_, err := r.Look(context.Background())
	is.NoErr(err)
	is.Equal(reads(pid), 1) // read at the first look only
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, nil)
}

// Look returns the processes it proves the run's, as Lineage does, so
// that a process proven ours by descent is known at a stop even after its
// parent exited.
func TestLookProvesWhatItReads(t *testing.T) {
	is := is.New(t)
	r, pids := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	is.Equal(len(pids), 1)
	ids := identify(t, pids...)
	owned, err := r.Look(context.Background())
	is.NoErr(err)
	is.Equal(len(owned), 2)
	is.Equal(owned[0].PID < owned[1].PID, true) // sorted by pid
	byPID := map[int]supervisor.Owned{}
	for _, o := range owned {
		byPID[o.PID] = o
	}
	is.Equal(byPID[r.PID()].Start, r.StartTick())
	is.Equal(byPID[ids[0].pid].Start, ids[0].start)
	is.Equal(byPID[ids[0].pid].PPID, r.PID())
	is.True(!byPID[ids[0].pid].ByRunID)                    // proven by descent
	is.True(supervisor.Knows(r, ids[0].pid, ids[0].start)) // proven at this look
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
}
