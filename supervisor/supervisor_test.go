//go:build linux

package supervisor_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/matryer/is"

	"rea/ports"
	"rea/supervisor"
)

// fast keeps the stop sequence short; the tests never assert on durations.
func fast(t *testing.T) *supervisor.Options {
	return &supervisor.Options{GraceDelay: 200 * time.Millisecond, WaitDelay: time.Minute, TempParent: t.TempDir()}
}

// start launches a helper, reads its pid line, and registers a cleanup that
// fails the test if anything of the run remains.
func start(t *testing.T, ctx context.Context, opts *supervisor.Options, spec supervisor.Spec) (*supervisor.Run, []int) {
	t.Helper()
	r, err := supervisor.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	// Every run owns a temporary root, its working directory; checkGone
	// checks that it was removed.
	root, err := r.TempDir("run-")
	if err != nil {
		t.Fatal(err)
	}
	rootOf.Store(r, root)
	if spec.Dir == "" {
		spec.Dir = root
	}
	if err := r.Start(ctx, spec); err != nil {
		t.Fatal(err)
	}
	own(t, r)
	line := readLine(t, r.Stdout())
	if strings.HasPrefix(line, "pids") {
		return r, parsePidsT(t, line)
	}
	return r, nil
}

// own cleans r up when the test ends and, as a last resort for a failing
// test, kills whatever still carries the run's ID, so a broken supervisor
// does not leak the test's processes.
func own(t *testing.T, r *supervisor.Run) {
	t.Cleanup(func() {
		cctx, cancel := supervisor.CleanupContext(context.Background(), 2*time.Minute)
		defer cancel()
		r.Cleanup(cctx)
		for _, pid := range leftovers(r.ID()) {
			syscall.Kill(pid, syscall.SIGKILL)
			if !t.Failed() {
				t.Errorf("process %d of run %s outlived its cleanup", pid, r.ID())
			}
		}
	})
}

func parsePidsT(t *testing.T, line string) []int {
	t.Helper()
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "pids" {
		t.Fatalf("not a pid line: %q", line)
	}
	var pids []int
	for _, s := range f[1:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, n)
	}
	return pids
}

// checkLineage checks that a verified snapshot carries every field and lists
// exactly the descendants expected.
func checkLineage(t *testing.T, r *supervisor.Run, l ports.ProcessLineage, want []int) {
	t.Helper()
	is := is.New(t)
	is.Equal(l.Status, ports.LineageVerified)
	is.True(!l.ObservedAt.IsZero())
	is.Equal(l.LauncherPID, r.PID())
	is.Equal(l.LauncherParentPID, os.Getpid())
	is.Equal(l.ProcessGroupID, r.PID())
	is.True(!l.LauncherStartTime.IsZero())
	is.True(l.LauncherCommand != "")
	is.Equal(l.Reason, "")
	var got []int
	for _, d := range l.Descendants {
		got = append(got, d.PID)
		s, ok := readStat(d.PID)
		is.True(ok)
		is.Equal(d.ParentPID, s.ppid)
		is.Equal(d.ProcessGroupID, s.pgid)
		is.True(d.ParentPID > 0)
		is.True(d.ProcessGroupID > 0)
		is.True(!d.StartTime.IsZero())
		is.True(!d.StartTime.Before(l.LauncherStartTime))
		is.True(d.Command != "")
	}
	is.True(slices.IsSorted(got))
	want = slices.Sorted(slices.Values(want))
	is.Equal(got, want)
}

// rootOf maps a Run made by start to its temporary root.
var rootOf sync.Map

// checkGone checks from /proc and the file system that nothing of the run is
// left.
func checkGone(t *testing.T, r *supervisor.Run, ids []identity, roots ...string) {
	t.Helper()
	is := is.New(t)
	if root, ok := rootOf.Load(r); ok {
		roots = append(roots, root.(string))
	}
	if left := leftovers(r.ID(), ids...); len(left) > 0 {
		t.Fatalf("processes of the run remain: %v", left)
	}
	select {
	case <-r.Exited(): // the launcher was reaped
	default:
		t.Fatal("the launcher was not waited for")
	}
	for _, root := range roots {
		_, err := os.Lstat(root)
		is.True(errors.Is(err, os.ErrNotExist)) // temporary root removed
	}
}

func delivered(sigs []ports.SignalAttempt, signal string) int {
	n := 0
	for _, s := range sigs {
		if s.Signal == signal && s.Result == ports.SignalDelivered {
			n++
		}
	}
	return n
}

func TestTreeIsStoppedWithItsGrandchildren(t *testing.T) {
	is := is.New(t)
	opts := fast(t)
	r, err := supervisor.New(opts)
	is.NoErr(err)
	own(t, r)
	root, err := r.TempDir("tree-")
	is.NoErr(err)
	is.NoErr(os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o600))
	is.NoErr(os.Mkdir(filepath.Join(root, "ro"), 0o500))
	spec := helperSpec("tree", nil, "2", "2")
	spec.Dir = root
	is.NoErr(r.Start(context.Background(), spec))
	pids := parsePidsT(t, readLine(t, r.Stdout()))
	is.Equal(len(pids), 6) // 2 children, 4 grandchildren
	ids := identify(t, pids...)

	checkLineage(t, r, r.Lineage(context.Background()), pids)

	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids, root)
	sigs := r.Signals()
	is.True(delivered(sigs, "SIGTERM") > 0)
	is.Equal(sigs[0].Target, ports.TargetProcessGroup) // every member proven: the group as a whole
	is.Equal(sigs[0].ID, r.PID())
	is.True(!sigs[0].At.IsZero())
	// Cleanup again: nothing left, nothing signalled.
	is.NoErr(r.Cleanup(context.Background()))
	is.Equal(len(r.Signals()), len(sigs))
}

func TestTermIgnoredGetsKill(t *testing.T) {
	is := is.New(t)
	r, pids := start(t, context.Background(), fast(t),
		helperSpec("tree", []string{ignoreTermEnv + "=1"}, "1", "2"))
	ids := identify(t, pids...)
	checkLineage(t, r, r.Lineage(context.Background()), pids)

	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
	sigs := r.Signals()
	is.True(delivered(sigs, "SIGTERM") > 0)
	is.True(delivered(sigs, "SIGKILL") > 0)
	state, err := r.Wait(context.Background())
	is.True(err != nil) // killed
	is.Equal(state.Sys().(syscall.WaitStatus).Signal(), syscall.SIGKILL)
}

func TestCleanupAfterTheContextEnded(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, pids := start(t, context.Background(), fast(t), helperSpec("tree", []string{ignoreTermEnv + "=1"}, "1", "2"))
	ids := identify(t, pids...)
	cancel()
	// The grace delay is cut short, SIGKILL is still waited for.
	is.NoErr(r.Cleanup(ctx))
	checkGone(t, r, ids)
	is.True(delivered(r.Signals(), "SIGKILL") > 0)
}

func TestEarlyExit(t *testing.T) {
	is := is.New(t)
	r, err := supervisor.New(fast(t))
	is.NoErr(err)
	own(t, r)
	is.NoErr(r.Start(context.Background(), helperSpec("exit", nil, "3")))
	state, err := r.Wait(context.Background())
	var ee *exec.ExitError
	is.True(errors.As(err, &ee))
	is.Equal(state.ExitCode(), 3)

	l := r.Lineage(context.Background())
	is.Equal(l.Status, ports.LineageUnavailable)
	is.Equal(l.Reason, ports.LineageReasonLauncherGone)
	is.Equal(l.LauncherPID, r.PID())
	is.Equal(l.ProcessGroupID, r.PID())
	is.True(!l.ObservedAt.IsZero())

	is.NoErr(r.Cleanup(context.Background()))
	is.Equal(len(r.Signals()), 0) // nothing to signal
	checkGone(t, r, nil)
}

func TestEarlyExitLeavesAnOrphanThatIsStillOurs(t *testing.T) {
	is := is.New(t)
	r, pids := start(t, context.Background(), fast(t), helperSpec("orphan", nil))
	is.Equal(len(pids), 1)
	ids := identify(t, pids...)
	_, err := r.Wait(context.Background())
	is.NoErr(err)
	is.True(alive(ids[0])) // the orphan outlived its parent, reparented

	l := r.Lineage(context.Background())
	is.Equal(l.Status, ports.LineageUnavailable)
	is.Equal(l.Reason, ports.LineageReasonLauncherGone)

	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
	is.True(delivered(r.Signals(), "SIGTERM") > 0)
}

func TestOutlivesACancelledCall(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, pids := start(t, ctx, fast(t), helperSpec("tree", []string{ignoreTermEnv + "=1"}, "1", "1"))
	ids := identify(t, pids...)
	// The call that started the run is cancelled while the tree is still
	// running: the stop sequence runs without anyone calling Stop.
	cancel()
	eventually(t, "the cancelled run's processes to be stopped", func() bool {
		return len(leftovers(r.ID(), ids...)) == 0
	})
	eventually(t, "the launcher to be reaped", func() bool {
		select {
		case <-r.Exited():
			return true
		default:
			return false
		}
	})
	is.True(delivered(r.Signals(), "SIGKILL") > 0)
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
}

func TestDaemonInItsOwnSession(t *testing.T) {
	t.Run("launcher alive", func(t *testing.T) {
		is := is.New(t)
		r, pids := start(t, context.Background(), fast(t), helperSpec("daemon", nil, "stay"))
		is.Equal(len(pids), 1)
		ids := identify(t, pids...)
		s, _ := readStat(pids[0])
		is.Equal(s.sid, pids[0]) // it is a session leader, outside our group
		is.Equal(s.pgid, pids[0])

		checkLineage(t, r, r.Lineage(context.Background()), pids)
		is.NoErr(r.Cleanup(context.Background()))
		checkGone(t, r, ids)
		// Two groups, each signalled as a whole.
		var groups []int
		for _, a := range r.Signals() {
			if a.Target == ports.TargetProcessGroup && a.Signal == "SIGTERM" {
				groups = append(groups, a.ID)
			}
		}
		slices.Sort(groups)
		is.Equal(groups, slices.Sorted(slices.Values([]int{r.PID(), pids[0]})))
	})
	t.Run("launcher gone before any look", func(t *testing.T) {
		// Only the run ID in its environment says the daemon is ours.
		is := is.New(t)
		r, pids := start(t, context.Background(), fast(t), helperSpec("daemon", nil, "exit"))
		ids := identify(t, pids...)
		_, err := r.Wait(context.Background())
		is.NoErr(err)
		is.True(alive(ids[0]))
		is.NoErr(r.Cleanup(context.Background()))
		checkGone(t, r, ids)
		is.True(delivered(r.Signals(), "SIGTERM") > 0)
	})
}

// startUnrelated starts a process with the same program (so the same command
// name) outside any Run, optionally in process group pgid, and stops it when
// the test ends.
func startUnrelated(t *testing.T, pgid int) (*exec.Cmd, identity) {
	t.Helper()
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, supervisor.RunIDEnv+"=") {
			env = append(env, e)
		}
	}
	c := exec.Command(os.Args[0], "0", "0")
	c.Env = append(env, helperEnv+"=tree")
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Process.Kill()
		c.Wait()
	})
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	return c, identify(t, c.Process.Pid)[0]
}

func TestUnrelatedProcessWithTheSameNameIsNeverSignalled(t *testing.T) {
	is := is.New(t)
	_, stranger := startUnrelated(t, 0)
	r, pids := start(t, context.Background(), fast(t), helperSpec("tree", []string{ignoreTermEnv + "=1"}, "1", "2"))
	ids := identify(t, pids...)
	sc, _ := os.ReadFile("/proc/" + strconv.Itoa(stranger.pid) + "/comm")
	lc, _ := os.ReadFile("/proc/" + strconv.Itoa(r.PID()) + "/comm")
	is.Equal(string(sc), string(lc)) // same command name

	checkLineage(t, r, r.Lineage(context.Background()), pids)
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
	is.True(alive(stranger))
	for _, a := range r.Signals() {
		is.True(a.ID != stranger.pid)
	}
}

func TestDescendantInAForeignGroupIsSignalledAlone(t *testing.T) {
	is := is.New(t)
	// The grandchild joins the test's own process group, which is not ours.
	r, pids := start(t, context.Background(), fast(t), helperSpec("join", nil, strconv.Itoa(syscall.Getpgrp())))
	ids := identify(t, pids...)
	s, _ := readStat(pids[0])
	is.Equal(s.pgid, syscall.Getpgrp())

	checkLineage(t, r, r.Lineage(context.Background()), pids)
	is.NoErr(r.Cleanup(context.Background())) // the foreign group is not reported
	checkGone(t, r, ids)
	var alone bool
	for _, a := range r.Signals() {
		is.True(!(a.Target == ports.TargetProcessGroup && a.ID == syscall.Getpgrp())) // never the foreign group
		is.True(a.ID != os.Getpid())
		if a.Target == ports.TargetProcess && a.ID == pids[0] && a.Result == ports.SignalDelivered {
			alone = true
		}
	}
	is.True(alone)
}

func TestStrangerInOurGroupIsRefusedAndReported(t *testing.T) {
	is := is.New(t)
	r, pids := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "1"))
	ids := identify(t, pids...)
	// A process without our run ID joins the launcher's group.
	strangerCmd, stranger := startUnrelated(t, r.PID())
	s, _ := readStat(stranger.pid)
	is.Equal(s.pgid, r.PID())

	l := r.Lineage(context.Background())
	is.Equal(l.Status, ports.LineageUnavailable)
	is.Equal(l.Reason, ports.LineageReasonUnowned)

	err := r.Cleanup(context.Background())
	var ce *ports.CleanupError
	is.True(errors.As(err, &ce))
	is.True(errors.Is(err, ports.ErrCleanupIncomplete))
	is.Equal(ce.Kinds(), []string{ports.ResourceProcessGroup}) // only the owned group, nothing else
	is.Equal(ce.Resources[0].ID, strconv.Itoa(r.PID()))
	is.True(strings.Contains(ce.Resources[0].Reason, strconv.Itoa(stranger.pid)))
	// Our processes were stopped one by one, the stranger never.
	is.Equal(len(leftovers(r.ID(), ids...)), 0)
	is.True(alive(stranger))
	refused := false
	for _, a := range r.Signals() {
		is.True(a.Target != ports.TargetProcessGroup) // the group was never signalled
		if a.ID == stranger.pid {
			is.Equal(a.Result, ports.SignalRefusedNotOwned)
			refused = true
		}
	}
	is.True(refused)

	// Once the stranger is gone the run cleans up completely.
	strangerCmd.Process.Kill()
	strangerCmd.Wait()
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
}

func TestRunIDReachesTheProcess(t *testing.T) {
	is := is.New(t)
	opts := fast(t)
	opts.RunID = "0f6d6c3e-7c55-4d9a-9a55-3c7f1b2a9e10"
	// A run ID already in the given environment is replaced, not kept.
	r, _ := start(t, context.Background(), opts, helperSpec("env", []string{supervisor.RunIDEnv + "=forged"}))
	is.Equal(r.ID(), opts.RunID)
	is.NoErr(r.Cleanup(context.Background()))

	r2, err := supervisor.Start(context.Background(), helperSpec("env", nil), fast(t))
	is.NoErr(err)
	own(t, r2)
	is.Equal(readLine(t, r2.Stdout()), "env "+r2.ID())
	is.True(len(r2.ID()) == 36)
}

func TestStdinIsClosedFirst(t *testing.T) {
	is := is.New(t)
	opts := fast(t)
	opts.ExitDelay = 2 * time.Minute // ends as soon as the process is gone
	r, _ := start(t, context.Background(), opts, helperSpec("stdin", nil))
	_, err := r.Stdin().Write([]byte("some input\n"))
	is.NoErr(err)
	// Closing stdin is enough for this process: no signal is needed.
	is.NoErr(r.Cleanup(context.Background()))
	is.Equal(len(r.Signals()), 0)
	state, err := r.Wait(context.Background())
	is.NoErr(err)
	is.Equal(state.ExitCode(), 0)
	checkGone(t, r, nil)
}

func TestTemporaryRootsAndSockets(t *testing.T) {
	is := is.New(t)
	opts := fast(t)
	r, err := supervisor.New(opts)
	is.NoErr(err)
	a, err := r.TempDir("a-")
	is.NoErr(err)
	b, err := r.TempDir("b-")
	is.NoErr(err)
	info, err := os.Stat(a)
	is.NoErr(err)
	is.Equal(info.Mode().Perm(), os.FileMode(0o700))
	is.NoErr(os.MkdirAll(filepath.Join(a, "deep", "er"), 0o700))
	is.NoErr(os.Chmod(filepath.Join(a, "deep"), 0o500))

	sock := filepath.Join(opts.TempParent, "s.sock")
	ln, err := net.Listen("unix", sock)
	is.NoErr(err)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	r.RegisterSocket(sock)
	notSock := filepath.Join(opts.TempParent, "plain")
	is.NoErr(os.WriteFile(notSock, nil, 0o600))
	r.RegisterSocket(notSock) // something else now: not ours, left alone

	// b is replaced by another directory: the run no longer owns that path.
	is.NoErr(os.Rename(b, b+".moved"))
	is.NoErr(os.Mkdir(b, 0o700))

	err = r.Cleanup(context.Background())
	var ce *ports.CleanupError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Kinds(), []string{ports.ResourceTemporaryRoot})
	is.Equal(len(ce.Resources), 1)
	is.Equal(ce.Resources[0].ID, b)
	for _, p := range []string{a, sock} {
		_, err := os.Lstat(p)
		is.True(errors.Is(err, os.ErrNotExist))
	}
	_, err = os.Lstat(notSock)
	is.NoErr(err)
	_, err = os.Lstat(b)
	is.NoErr(err) // not ours any more, left in place

	_, err = r.TempDir("late-")
	is.True(err != nil) // a cleaned-up run takes nothing new
}

func TestStartFailures(t *testing.T) {
	is := is.New(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for name, tc := range map[string]struct {
		ctx  context.Context
		spec supervisor.Spec
	}{
		"empty path":     {context.Background(), supervisor.Spec{}},
		"missing":        {context.Background(), supervisor.Spec{Path: filepath.Join(t.TempDir(), "none")}},
		"not in PATH":    {context.Background(), supervisor.Spec{Path: "rea-supervisor-no-such-program"}},
		"NUL in arg":     {context.Background(), supervisor.Spec{Path: os.Args[0], Args: []string{"a\x00b"}}},
		"bad env":        {context.Background(), supervisor.Spec{Path: os.Args[0], Env: []string{"NOEQUALS"}}},
		"tty, no stdin":  {context.Background(), supervisor.Spec{Path: os.Args[0], ControllingTerminal: true}},
		"cancelled":      {cancelled, helperSpec("exit", nil, "0")},
		"not executable": {context.Background(), supervisor.Spec{Path: "/etc/hostname"}},
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			r, err := supervisor.Start(tc.ctx, tc.spec, fast(t))
			is.True(err != nil)
			is.True(r == nil)
		})
	}

	_, err := supervisor.New(&supervisor.Options{RunID: "has space"})
	is.True(err != nil)
	_, err = supervisor.New(&supervisor.Options{RunID: strings.Repeat("a", 129)})
	is.True(err != nil)

	r, err := supervisor.New(fast(t))
	is.NoErr(err)
	l := r.Lineage(context.Background())
	is.Equal(l.Status, ports.LineageUnavailable) // nothing launched
	is.NoErr(r.Start(context.Background(), helperSpec("exit", nil, "0")))
	is.True(r.Start(context.Background(), helperSpec("exit", nil, "0")) != nil) // one process per run
	is.NoErr(r.Cleanup(context.Background()))
	is.True(r.Start(context.Background(), helperSpec("exit", nil, "0")) != nil) // cleaned up
	_, err = supervisor.New(nil)
	is.NoErr(err)
}

// A script whose #! interpreter is missing fails to start with ENOENT, as a
// missing file does; the error says the file is there and names the
// interpreter. Before, it read "fork/exec SCRIPT: no such file or
// directory", which sends the user looking for the script.
func TestStartNamesAMissingInterpreter(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "bad.sh")
	is.NoErr(os.WriteFile(script, []byte("#!/nonexistent/interp -x\necho hi\n"), 0o755))
	_, err := supervisor.Start(context.Background(), supervisor.Spec{Path: script}, fast(t))
	is.True(err != nil)
	is.True(errors.Is(err, os.ErrNotExist))
	is.True(strings.Contains(err.Error(), "the interpreter its #! line names, /nonexistent/interp, does not"))

	_, err = supervisor.Start(context.Background(), supervisor.Spec{Path: filepath.Join(dir, "none")}, fast(t))
	is.True(err != nil)
	is.True(!strings.Contains(err.Error(), "the file exists")) // a missing file is only that
}

func TestConcurrentCallers(t *testing.T) {
	is := is.New(t)
	r, pids := start(t, context.Background(), fast(t), helperSpec("tree", nil, "1", "3"))
	ids := identify(t, pids...)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 4 {
			case 0:
				r.Lineage(context.Background())
			case 1:
				r.Stop(context.Background())
			case 2:
				r.Signals()
			case 3:
				r.Cleanup(context.Background())
			}
		}()
	}
	wg.Wait()
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
}

func TestControllingTerminal(t *testing.T) {
	is := is.New(t)
	master, slave, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	spec := helperSpec("tty", nil)
	spec.Stdin, spec.Stdout, spec.Stderr = slave, slave, slave
	spec.ControllingTerminal = true
	r, err := supervisor.Start(context.Background(), spec, fast(t))
	slave.Close()
	is.NoErr(err)
	own(t, r)
	is.True(r.Stdin() == nil && r.Stdout() == nil) // the caller's files, no pipes
	f := strings.Fields(readLine(t, master))
	is.Equal(len(f), 4)
	is.Equal(f[0], "tty")
	is.Equal(f[1], strconv.Itoa(r.PID())) // session leader
	is.Equal(f[2], strconv.Itoa(r.PID()))
	is.True(f[3] != "0") // has a controlling terminal
	checkLineage(t, r, r.Lineage(context.Background()), nil)
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, nil)
}

// openPTY opens a pseudo-terminal pair with the standard library only.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := master.Fd()
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		master.Close()
		return nil, nil, e
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		master.Close()
		return nil, nil, e
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// A launcher that exits before anyone looked at the process table must not
// hide an unproven process it left in its group or session (here a child
// without the run ID, reparented when the launcher exited). Before, the
// launcher's group was remembered only from a look taken while the launcher
// lived, so Cleanup found nothing owned and reported success.
func TestLauncherGoneBeforeAnyLookStillOwnsItsGroupAndSession(t *testing.T) {
	for _, where := range []string{"group", "session"} {
		t.Run(where, func(t *testing.T) {
			is := is.New(t)
			spec := helperSpec("hide", nil, where)
			spec.Session = where == "session"
			r, pids := start(t, context.Background(), fast(t), spec)
			is.Equal(len(pids), 1)
			hidden := identify(t, pids...)[0]
			t.Cleanup(func() { syscall.Kill(hidden.pid, syscall.SIGKILL) })
			_, err := r.Wait(context.Background())
			is.NoErr(err)
			s, _ := readStat(hidden.pid)
			is.Equal(s.sid == r.PID(), where == "session")
			is.Equal(s.pgid == r.PID(), where == "group")

			err = r.Cleanup(context.Background())
			var ce *ports.CleanupError
			is.True(errors.As(err, &ce)) // the unproven process is reported, not forgotten
			is.Equal(ce.Kinds(), []string{ports.ResourceProcessGroup})
			is.Equal(ce.Resources[0].ID, strconv.Itoa(s.pgid))
			is.True(strings.Contains(ce.Resources[0].Reason, strconv.Itoa(hidden.pid)))
			is.True(alive(hidden)) // and never signalled
			for _, a := range r.Signals() {
				is.True(a.ID != hidden.pid || a.Result == ports.SignalRefusedNotOwned)
			}

			syscall.Kill(hidden.pid, syscall.SIGKILL)
			eventually(t, "the hidden process to be reaped", func() bool { return !alive(hidden) })
			is.NoErr(r.Cleanup(context.Background()))
			checkGone(t, r, nil)
		})
	}
}

// A stop without grace (its context already ended: finalization 0, or a
// cancelled call) sends SIGKILL to every proven process at once. Before,
// the stop sequence sent SIGTERM first, however soon SIGKILL followed, so a
// child with a SIGTERM handler could run it.
func TestStopWithoutGraceSendsNoSIGTERM(t *testing.T) {
	is := is.New(t)
	file := filepath.Join(t.TempDir(), "handled")
	r, pids := start(t, context.Background(), fast(t), helperSpec("termfile", nil, file))
	ids := identify(t, pids...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	is.NoErr(r.Stop(ctx))
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
	for _, a := range r.Signals() {
		is.Equal(a.Signal, "SIGKILL") // never SIGTERM
	}
	is.True(delivered(r.Signals(), "SIGKILL") > 0)
	_, err := os.Stat(file)
	is.True(errors.Is(err, os.ErrNotExist)) // the handler never ran

	// With grace the handler runs: SIGTERM comes first (a long grace, so
	// the handler has all the time it needs; it exits once it wrote).
	file = filepath.Join(t.TempDir(), "handled")
	opts := fast(t)
	opts.GraceDelay = 2 * time.Minute
	r, pids = start(t, context.Background(), opts, helperSpec("termfile", nil, file))
	ids = identify(t, pids...)
	is.NoErr(r.Cleanup(context.Background()))
	checkGone(t, r, ids)
	is.True(delivered(r.Signals(), "SIGTERM") > 0)
	_, err = os.Stat(file)
	is.NoErr(err)
}
