//go:build linux

package supervisor_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// A look reads the stat of only the processes that could be the run's or
// in a group of the run's: those born no earlier than the launcher and
// those in the launcher's session. A process born before the launcher, in
// a session of its own, is read at the first look only (not at every
// look). Before, every
// look read every process's stat on the machine.
func TestLookReadsOnlyWhatItNeeds(t *testing.T) {
	is := is.New(t)
	// A stranger in a session of its own, born at least a clock tick
	// before the launcher: the wait is on /proc/uptime, not on a delay.
	pid, _, _ := startStranger(t)
	born, err := supervisor.StartTicks(pid)
	is.NoErr(err)
	for uptimeTicks(t) <= born+1 {
		time.Sleep(5 * time.Millisecond)
	}

	r, pids := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	reads := supervisor.CountStatReads(r)
	const looks = 5
	for range looks {
		owned, err := r.Look(context.Background())
		is.NoErr(err)
		is.Equal(len(owned), 2) // the launcher and its child
	}
	// Read at the first look, and again only if the kernel dropped its
	// /proc directory from its cache (it then gives it a new inode).
	is.True(reads(pid) < looks)
	is.Equal(reads(r.PID()), looks) // the run's, read at every look
	is.Equal(reads(pids[0]), looks)
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, nil)
}

// uptimeTicks is the time since boot in clock ticks, from /proc/uptime.
func uptimeTicks(t *testing.T) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Fatal(err)
	}
	sec, frac, _ := strings.Cut(strings.Fields(string(b))[0], ".")
	s, err1 := strconv.ParseUint(sec, 10, 64)
	c, err2 := strconv.ParseUint((frac + "00")[:2], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/uptime: %q", b)
	}
	return s*100 + c
}

// A process proven ours at one look is still attributed, with its new
// parent, at a later look after its parent exited and it was reparented,
// though nothing in its environment says it is ours; one that exited
// between the two looks is not. Looks read only part of the table: the
// run's processes must be read again at every look, not taken from what
// an earlier look read.
func TestLookFollowsReparentedAndExitedProcesses(t *testing.T) {
	is := is.New(t)
	r, pids := start(t, context.Background(), fast(t), helperSpec("leave", nil))
	is.Equal(len(pids), 2)
	ids := identify(t, pids...)
	owned, err := r.Look(context.Background())
	is.NoErr(err)
	got := map[int]int{} // pid -> parent pid
	for _, o := range owned {
		got[o.PID] = o.PPID
		is.True(!o.ByRunID)
	}
	is.Equal(len(got), 3)
	is.Equal(got[pids[0]], r.PID())
	is.Equal(got[pids[1]], r.PID())

	// One child exits (the launcher does not reap it: a zombie), then the
	// launcher exits and the other child is reparented.
	is.NoErr(syscall.Kill(pids[0], syscall.SIGKILL))
	eventually(t, "the killed child dies", func() bool { return !alive(ids[0]) }) // kill returns before it does
	is.NoErr(r.Stdin().Close())
	<-r.Exited()

	owned, err = r.Look(context.Background())
	is.NoErr(err)
	is.Equal(len(owned), 1)
	is.Equal(owned[0].PID, pids[1])
	is.Equal(owned[0].Start, ids[1].start)
	is.True(owned[0].PPID != r.PID()) // reparented
	is.True(!owned[0].ByRunID)
	is.True(supervisor.Knows(r, ids[1].pid, ids[1].start))
	is.True(!supervisor.Knows(r, ids[0].pid, ids[0].start))
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
}

// A process born after the launcher that a look proved not the run's (not
// a descendant, its environment without the run ID) is not read again at
// every look while its parent lives: its parent is read instead. Before,
// every look read it, as every process born after the launcher.
func TestStrangerIsReadOnceWhileItsParentLives(t *testing.T) {
	is := is.New(t)
	r, _ := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	reads := supervisor.CountStatReads(r)
	// The test's child, born after the launcher, in a session of its own
	// (the launcher's is the test's).
	pid, _, _ := startStranger(t)
	const looks = 5
	for range looks {
		owned, err := r.Look(context.Background())
		is.NoErr(err)
		is.Equal(len(owned), 2) // the launcher and its child
	}
	// Read at the first look, and again only if the kernel dropped its
	// /proc directory from its cache (it then gives it a new inode).
	is.True(reads(pid) < looks)
	is.Equal(reads(os.Getpid()), looks) // its parent, read at every look
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, nil)
}

// A stranger whose parent exited is read again: it was reparented, and
// its new parent may be a process of the run (a subreaper), which would
// make it the run's. A look that kept its earlier reading would keep its
// dead parent.
func TestStrangerIsReadAgainWhenItsParentExits(t *testing.T) {
	is := is.New(t)
	r, _ := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	parent := exec.Command("sh", "-c", "sleep 30 & echo $!; wait")
	parent.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // not the launcher's session, which is read
	out, err := parent.StdoutPipe()
	is.NoErr(err)
	is.NoErr(parent.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	is.NoErr(err)
	child, err := strconv.Atoi(strings.TrimSpace(line))
	is.NoErr(err)
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	for range 2 { // the first proves it a stranger, the second keeps that reading
		_, err := r.Look(context.Background())
		is.NoErr(err)
	}
	parents, err := supervisor.LookParents(r)
	is.NoErr(err)
	is.Equal(parents[child], parent.Process.Pid)

	is.NoErr(parent.Process.Kill())
	parent.Wait() // reaped: the child was reparented before
	parents, err = supervisor.LookParents(r)
	is.NoErr(err)
	is.True(parents[child] != parent.Process.Pid)
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, nil)
}

// A stranger that died while its parent lives, not reaped (a zombie,
// whose /proc directory stays), is seen dead within strangerRecheckLooks
// looks: its reading is renewed whatever its parent. Before, a look kept
// its reading, live, until its parent reaped it, which a parent need
// never do.
func TestDeadStrangerIsSeenDeadBeforeItIsReaped(t *testing.T) {
	is := is.New(t)
	r, _ := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	pid, kill, reap := startStranger(t)
	for range 2 { // the first proves it a stranger, the second keeps that reading
		_, err := r.Look(context.Background())
		is.NoErr(err)
	}
	parents, err := supervisor.LookParents(r)
	is.NoErr(err)
	_, live := parents[pid]
	is.True(live)

	kill() // a zombie until reap
	seenDead := false
	for range 2 * supervisor.StrangerRecheckLooks {
		parents, err := supervisor.LookParents(r)
		is.NoErr(err)
		if _, live := parents[pid]; !live {
			seenDead = true
			break
		}
	}
	is.True(seenDead)
	reap()
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, nil)
}

// A stranger whose parent lives is watched through a pidfd, not read
// again every strangerRecheckLooks looks: read at the first look (and
// once more, after its pidfd is opened, to check the pidfd names it),
// then not again while it lives; and when it dies, not reaped (a zombie),
// it is seen dead at the very next look. Before, it was read once a
// second (strangerRecheckLooks looks) and seen dead up to that late.
func TestStrangerExitIsWatchedNotReread(t *testing.T) {
	is := is.New(t)
	r, _ := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	reads := supervisor.CountStatReads(r)
	pid, kill, reap := startStranger(t)
	const looks = 4*supervisor.StrangerRecheckLooks + 1
	for range looks {
		_, err := r.Look(context.Background())
		is.NoErr(err)
	}
	// 2, or a few more if the kernel dropped its /proc directory from its
	// cache (a new inode: read again); the recheck read it 5 times.
	t.Logf("the stranger was read %d times in %d looks", reads(pid), looks)
	is.True(reads(pid) <= 3)
	is.True(supervisor.WatchedStrangers(r) >= 1)

	kill() // a zombie until reap
	parents, err := supervisor.LookParents(r)
	is.NoErr(err)
	_, live := parents[pid]
	is.True(!live) // at the next look
	reap()
	is.NoErr(r.Cleanup(context.Background()))
	is.Equal(supervisor.WatchedStrangers(r), 0) // every pidfd closed
	checkGone(t, r, nil)
}

// Past maxStrangerFDs a stranger is not watched: it is read again every
// strangerRecheckLooks looks, as before.
func TestStrangerPastTheBoundIsRechecked(t *testing.T) {
	is := is.New(t)
	defer supervisor.SetMaxStrangerFDs(0)()
	r, _ := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	reads := supervisor.CountStatReads(r)
	pid, _, _ := startStranger(t)
	const looks = 4*supervisor.StrangerRecheckLooks + 1
	for range looks {
		_, err := r.Look(context.Background())
		is.NoErr(err)
	}
	is.True(reads(pid) >= 5) // the first look and every recheck
	is.Equal(supervisor.WatchedStrangers(r), 0)
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, nil)
}

// startStranger starts the test's own child, sleep 30, in a session of
// its own (not the launcher's, which is read). kill kills it and waits
// until it is dead but not reaped (a zombie); reap reaps it. Whatever is
// left is done when the test ends.
func startStranger(t *testing.T) (pid int, kill, reap func()) {
	t.Helper()
	stranger := exec.Command("sleep", "30")
	stranger.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	pid = stranger.Process.Pid
	killed, reaped := false, false
	kill = func() {
		t.Helper()
		killed = true
		if err := stranger.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		for {
			p, err := supervisor.ReadProc(pid)
			if err != nil {
				t.Fatal(err)
			}
			if p.Dead() {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	reap = func() {
		reaped = true
		stranger.Wait()
	}
	t.Cleanup(func() {
		if !reaped {
			if !killed {
				stranger.Process.Kill()
			}
			stranger.Wait()
		}
	})
	return pid, kill, reap
}
