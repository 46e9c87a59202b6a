//go:build linux

package pty_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/pty"
	"rea/ports"
)

func TestPromptAnsweredByInputEvents(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "prompt"))
	sc.Terminal = ports.CaptureTerminal{Columns: 40, Rows: 10, Scrollback: 100}
	sc.Events = []ports.CaptureEvent{
		{AtMS: 200, Type: ports.EventInput, Data: "ada\n"},
		{AtMS: 400, Type: ports.EventInput, Data: "hunter2\n", Sensitive: true},
	}
	sc.TimeoutMS = 10000
	sc.Normalization.Paths = true
	sc.Normalization.Patterns = []ports.LiteralReplacement{{Pattern: "ada", Replacement: "<name>"}}
	p := &progress{}
	c, err := capture(t, e, ports.WithProgress(context.Background(), p), sc)
	is.NoErr(err)

	out := text(c)
	is.True(strings.Contains(out, "name? "))
	is.True(strings.Contains(out, "hello <name>"))             // literal pattern
	is.True(strings.Contains(out, "the secret is <redacted>")) // sensitive input, wherever it appears
	is.True(strings.Contains(out, "pid=<pid>"))                // the launcher's pid
	is.True(strings.Contains(out, "port=:<port>"))             // contextual port
	is.True(strings.Contains(out, "tmp=<temporary-root>"))     // TMPDIR is the temporary root
	// The secret is nowhere in the observation, raw forms included.
	var all strings.Builder
	enc := json.NewEncoder(&all)
	enc.SetEscapeHTML(false)
	is.NoErr(enc.Encode(c))
	is.True(!strings.Contains(all.String(), "hunter2"))
	is.True(strings.Contains(all.String(), "<redacted-input:8-bytes>"))
	// Frames keep the raw form only when normalization changed them.
	raws := 0
	for _, f := range c.Frames {
		if f.HasRaw {
			raws++
			is.True(strings.Contains(f.Raw, strconv.Itoa(c.Processes[0].PID)) || strings.Contains(f.Raw, "ada") || strings.Contains(f.Raw, ":8080"))
		}
	}
	is.True(raws > 0)

	is.Equal(c.Exit.Reason, ports.DispositionExited)
	is.True(c.Exit.Exited)
	is.True(c.Exit.Code != nil && *c.Exit.Code == 3)
	is.Equal(c.Exit.Signal, "")
	is.True(c.Exit.ElapsedMS != nil)
	is.True(c.Exit.Finalization == nil)
	is.Equal(c.Settlement.State, ports.SettlementQuiesced)
	is.Equal(len(c.InteractionEvents), 2)
	is.Equal(c.InteractionEvents[0].Data, "ada\n")
	is.Equal(c.InteractionEvents[0].Outcome, ports.OutcomeDispatched)
	is.True(c.InteractionEvents[0].DispatchedAtMS != nil && *c.InteractionEvents[0].DispatchedAtMS >= 200)
	is.Equal(c.InteractionEvents[1].Data, "<redacted-input:8-bytes>")
	is.Equal(c.Scenario.Events[1].Data, "<redacted-input:8-bytes>")

	// The rendered screen shows the dialogue, normalized and trimmed.
	screen := strings.Join(c.FinalScreen.Lines, "\n")
	is.True(strings.Contains(screen, "hello <name>"))
	is.True(strings.Contains(screen, "the secret is <redacted>"))
	is.Equal(c.FinalScreen.Columns, 40)
	is.Equal(c.FinalScreen.Rows, 10)
	is.Equal(c.FinalScreen.ActiveBuffer, ports.BufferNormal)
	is.True(len(c.RenderedFrames) > 0)
	is.True(!strings.Contains(c.FinalScreen.SerializedState, "hunter2"))

	// The process tree: the launcher, by descent, with its argv.
	is.True(len(c.Processes) >= 1)
	is.Equal(c.Processes[0].Comm, "prompt")
	is.True(c.Processes[0].ArgvReadable)
	is.Equal(c.NormalizedProcesses[0].ID, 1)
	is.Equal(c.NormalizedProcesses[0].ParentID, 0) // rea, outside the capture
	is.Equal(c.NormalizedProcesses[0].GroupID, 1)  // leads its own group
	is.Equal(c.NormalizedProcesses[0].SessionID, 1)
	is.Equal(c.NormalizedProcesses[0].Command, "<executable>")
	is.True(len(c.ProcessSamples) >= 1)
	s0 := c.ProcessSamples[0]
	is.Equal(s0.PID, c.Processes[0].PID)
	is.Equal(s0.ProcessGroupID, s0.PID)
	is.Equal(s0.SessionID, s0.PID)
	is.Equal(s0.ParentPID, os.Getpid())
	is.True(strings.HasSuffix(s0.Command, "/prompt"))
	is.Equal(s0.NormalizedCommand, "<executable>") // as the tree's command
	is.Equal(c.Processes[0].ParentPID, os.Getpid())
	is.True(!c.Processes[0].ByRunID)
	is.Equal(len(c.ListeningSockets), 0)
	is.True(!c.Truncation.Truncated)
	is.Equal(c.Truncation.RawTerminal.ObservedBytes, c.Truncation.RawTerminal.RetainedBytes)
	is.Equal(c.Truncation.RawTerminal.ObservedFrames, len(c.Frames))

	is.Equal(c.Executable.State, ports.IdentityUnchanged)
	is.Equal(len(c.Executable.SelectedSHA256), 64)
	is.Equal(c.Cleanup.OwnedProcessGroup.State, ports.CleanupNotRequired)
	is.Equal(c.Cleanup.TemporaryRoot.State, ports.CleanupCleaned)
	is.NoErr(c.Cleanup.Err)
	is.Equal(c.NormalizationApplied.PortNormalizationVersion, "contextual-endpoints-v2")
	is.Equal(c.NormalizationApplied.PatternNormalizationVersion, "literal-replacements-v1")

	// Progress: every phase, elapsed time, and the cleanup status at the end.
	seen := p.all()
	phases := map[string]bool{}
	for _, s := range seen {
		phase, msg, _ := strings.Cut(s, ": ")
		phases[phase] = true
		is.True(strings.HasPrefix(msg, "elapsed_ms="))
	}
	for _, ph := range []string{"prepare", "running", "settling", "cleanup"} {
		is.True(phases[ph])
	}
	lastMsg := seen[len(seen)-1]
	is.True(strings.Contains(lastMsg, "disposition=exited"))
	is.True(strings.Contains(lastMsg, "owned_process_group=not_required terminal_renderer=cleaned temporary_root=cleaned"))
}

func TestForkedTreeAndSetsidDaemonAreFoundAndCleanedUp(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "forker"))
	sc.TimeoutMS = 10000
	sc.SettleMS = 300
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.True(strings.Contains(text(c), "forked"))
	is.Equal(c.Exit.Reason, ports.DispositionExited)
	is.True(*c.Exit.Code == 0)
	is.Equal(c.Settlement.State, ports.SettlementAliveAtDeadline)
	is.True(len(c.Settlement.Remaining) >= 3) // child, grandchild (sleep), daemon
	launcher := c.Processes[0]
	var sleepSeen, daemonSeen bool
	for _, p := range c.Processes {
		if len(p.Argv) > 0 && p.Argv[0] == "sleep" {
			sleepSeen = true
			is.True(p.ProcessGroupID == launcher.PID) // a grandchild, in the launcher's group
		}
		if p.SessionID != launcher.SessionID {
			daemonSeen = true
		}
	}
	is.True(sleepSeen)
	is.True(daemonSeen)
	// The normalized ids count the capture's processes only, 1.. in the
	// order they were seen; a parent outside the capture is 0.
	for i, p := range c.NormalizedProcesses {
		is.Equal(p.ID, i+1)
		is.True(p.ParentID < p.ID) // the launcher's is 0; a child's is seen before it
	}
	// The daemon left the session: it is in a group of its own, and it was
	// signalled (it is gone: noneLeft in capture checked it).
	is.Equal(c.Cleanup.OwnedProcessGroup.State, ports.CleanupCleaned)
	is.NoErr(c.Cleanup.Err)
	kills := 0
	for _, a := range c.SignalAttempts {
		if a.Result == ports.SignalDelivered {
			kills++
		}
	}
	is.True(kills >= 2) // the launcher's group and the daemon
}

// A grandchild started without the run ID, orphaned when its parent exits
// but still in the launcher's process group, was seen as a descendant while
// its parent lived: it is the capture's and is stopped. Before, the
// supervisor first looked at the tree after the launcher had exited, could
// not prove the orphan, left it running and the cleanup said cleaned.
func TestOrphanWithoutRunIDIsStopped(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "escape"))
	sc.TimeoutMS = 10000
	sc.Normalization.PIDs = false // the output names the orphan's pid
	c, err := e.CaptureProcess(context.Background(), ports.CaptureRequest{Scenario: sc})
	var pid int
	if c != nil {
		fmt.Sscanf(text(c)[strings.Index(text(c), "escaped "):], "escaped %d", &pid)
	}
	if pid > 0 {
		defer syscall.Kill(pid, syscall.SIGKILL) // started by this test's capture
	}
	is.NoErr(err)
	is.True(pid > 0)
	is.Equal(c.Cleanup.OwnedProcessGroup.State, ports.CleanupCleaned)
	gone := false
	for range 100 {
		if !running(pid) {
			gone = true
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	is.True(gone) // the orphan was stopped
}

// running reports whether pid is a live process: a killed orphan whose new
// parent (here, an init that does not reap) has not reaped it stays a
// zombie, which signal 0 still finds.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// The same orphan, left by a child that exits at once: no look may have seen
// it as a descendant, so it may be unproven. It is then left alone (never
// signalled without proof) but reported: the cleanup is not "cleaned"
// while a member of the launcher's process group is alive. Before, the
// launcher's group was forgotten once the launcher exited, and the report
// said cleaned with the orphan running.
func TestUnprovenOrphanIsReportedNotHidden(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "escape"))
	sc.Arguments = []string{"fast"}
	sc.TimeoutMS = 10000
	sc.Normalization.PIDs = false
	c, err := e.CaptureProcess(context.Background(), ports.CaptureRequest{Scenario: sc})
	var ce *ports.CaptureError
	if errors.As(err, &ce) {
		c = ce.Partial
	} else {
		is.NoErr(err)
	}
	var pid int
	if i := strings.Index(text(c), "escaped "); i >= 0 {
		fmt.Sscanf(text(c)[i:], "escaped %d", &pid)
	}
	if pid > 0 {
		defer syscall.Kill(pid, syscall.SIGKILL) // started by this test's capture
	}
	is.True(pid > 0)
	time.Sleep(200 * time.Millisecond)
	if !running(pid) {
		t.Logf("orphan %d stopped; cleanup %+v", pid, c.Cleanup.OwnedProcessGroup)
		return // proven and stopped
	}
	t.Logf("orphan %d alive; err %v; cleanup %+v", pid, err, c.Cleanup.OwnedProcessGroup)
	is.True(err != nil) // cleanup_incomplete
	is.True(c.Cleanup.OwnedProcessGroup.State != ports.CleanupCleaned)
	if !strings.Contains(c.Cleanup.OwnedProcessGroup.Reason, strconv.Itoa(pid)) {
		t.Errorf("the cleanup does not name the orphan %d: %q", pid, c.Cleanup.OwnedProcessGroup.Reason)
	}
}

// An unrelated process with the same name as the captured one, started here
// outside rea, survives every stop sequence.
func TestIgnoresSIGTERMFinalizationAndUnrelatedNamesake(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	bin := program(t, "ignoreterm")
	stranger := exec.Command(bin)
	is.NoErr(stranger.Start())
	defer func() {
		stranger.Process.Kill()
		stranger.Wait()
	}()

	sc := ports.NewCaptureScenario(bin)
	sc.TimeoutMS = 600
	sc.FinalizationMS = 300
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.True(strings.Contains(text(c), "ignoring SIGTERM"))
	is.Equal(c.Exit.Reason, ports.DispositionTimeout)
	is.True(c.Exit.Exited)
	is.True(c.Exit.Code == nil)
	is.Equal(c.Exit.Signal, "SIGKILL")
	fin := c.Exit.Finalization
	is.True(fin != nil)
	is.Equal(fin.RequestedMS, int64(300))
	is.True(len(fin.Signals) >= 2)
	is.Equal(fin.Signals[0].Signal, "SIGTERM")
	is.Equal(fin.Signals[0].Delivery, ports.DeliverySignaled)
	is.Equal(fin.Signals[len(fin.Signals)-1].Signal, "SIGKILL")
	is.True(fin.Signals[len(fin.Signals)-1].SentAtMS-fin.Signals[0].SentAtMS >= 250) // the grace was honoured
	is.True(fin.ElapsedMS != nil)
	is.Equal(c.Cleanup.OwnedProcessGroup.State, ports.CleanupCleaned)

	// The namesake is alive and was never a target.
	is.NoErr(stranger.Process.Signal(syscallZero()))
	for _, a := range c.SignalAttempts {
		is.True(a.ID != stranger.Process.Pid)
	}

	// Idle timeout, with no finalization: SIGKILL at once, no record.
	sc.TimeoutMS, sc.IdleTimeoutMS, sc.FinalizationMS = 10000, 300, 0
	c, err = capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.Equal(c.Exit.Reason, ports.DispositionIdleTimeout)
	is.True(c.Exit.Finalization == nil)
	is.Equal(c.Exit.Signal, "SIGKILL")
	is.NoErr(stranger.Process.Signal(syscallZero()))
}

// finalization_ms 0 kills at once, as the scenario's schema says: at a
// deadline the program gets SIGKILL, not a SIGTERM it could act on. Before,
// the stop sequence sent SIGTERM first even with no grace: a program that
// keeps SIGTERM's default action died of it (exit signal SIGTERM, and the
// only signal attempt a SIGTERM), and one with a handler could run it.
func TestZeroFinalizationKillsAtOnce(t *testing.T) {
	e := engine(t)
	for _, prog := range []string{"/bin/sleep", program(t, "termhandler")} {
		t.Run(filepath.Base(prog), func(t *testing.T) {
			is := is.New(t)
			sc := ports.NewCaptureScenario(prog)
			if prog == "/bin/sleep" {
				sc.Arguments = []string{"30"}
			}
			sc.TimeoutMS, sc.IdleTimeoutMS, sc.FinalizationMS = 10000, 300, 0
			c, err := capture(t, e, context.Background(), sc)
			is.NoErr(err)
			is.True(!strings.Contains(text(c), "got SIGTERM")) // no handler ran
			is.Equal(c.Exit.Reason, ports.DispositionIdleTimeout)
			is.Equal(c.Exit.Signal, "SIGKILL")
			is.True(c.Exit.Code == nil)
			is.True(c.Exit.Finalization == nil)
		})
	}
}

func TestFilesInsideAndOutsideObservationPaths(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	work := t.TempDir()
	inside := filepath.Join(work, "observed")
	outside := filepath.Join(work, "elsewhere")
	is.NoErr(os.Mkdir(inside, 0o755))
	is.NoErr(os.Mkdir(outside, 0o755))
	is.NoErr(os.WriteFile(filepath.Join(inside, "mod.txt"), []byte("before\n"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(inside, "del.txt"), []byte("doomed\n"), 0o644))
	is.NoErr(os.WriteFile(filepath.Join(inside, "same.txt"), []byte("same\n"), 0o644))
	is.NoErr(os.Symlink("/etc/hostname", filepath.Join(inside, "escape")))

	sc := ports.NewCaptureScenario(program(t, "files"))
	sc.WorkingDirectory = work
	sc.Arguments = []string{"observed", "elsewhere"}
	sc.FilesystemObservationPaths = []string{"observed"}
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	got := map[string]string{}
	for _, f := range c.FileEffects {
		got[f.Path] = f.Effect
	}
	is.Equal(got, map[string]string{
		"root_0:.":        ports.EffectUnchanged, // a directory's size and times are not compared
		"root_0:new.txt":  ports.EffectCreated,
		"root_0:mod.txt":  ports.EffectModified,
		"root_0:del.txt":  ports.EffectDeleted,
		"root_0:same.txt": ports.EffectUnchanged,
		"root_0:escape":   ports.EffectUnchanged,
	})
	for _, f := range c.FilesAfter {
		is.True(!strings.Contains(f.Path, "outside"))
		switch f.Path {
		case "root_0:new.txt":
			is.Equal(f.Type, ports.FileRegular)
			is.Equal(f.Size, int64(len("created\n")))
			sum := sha256.Sum256([]byte("created\n"))
			is.Equal(f.SHA256, hex.EncodeToString(sum[:]))
		case "root_0:escape":
			is.Equal(f.Type, ports.FileSymlink)
			is.Equal(f.SymlinkTarget, "<outside-declared-root>")
		}
	}
	b, err := os.ReadFile(filepath.Join(outside, "outside.txt"))
	is.NoErr(err)
	is.Equal(string(b), "outside\n") // the program did write there; it is simply not observed
	is.Equal(len(c.ObservationRoots), 1)
	is.Equal(c.Truncation.FilesystemAfter.HashedBytes > 0, true)
}

// Limits of 0, which the advertised schema allows (minimum 0), keep
// nothing of their kind and say the capture is truncated. Before, the
// engine refused 0 output_bytes, files or processes as outside 1..2^53.
func TestZeroLimitsKeepNothing(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644))
	sc := ports.NewCaptureScenario("/bin/sh")
	sc.Arguments = []string{"-c", "echo hello"}
	sc.FilesystemObservationPaths = []string{dir}
	sc.Limits = ports.CaptureLimits{}
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.Equal(len(c.Frames), 0)
	is.Equal(len(c.FilesAfter), 0)
	is.True(c.Truncation.Truncated)
	is.True(c.Truncation.RawTerminal.ObservedBytes > 0) // the output was seen, not kept
	is.True(c.Truncation.FilesystemAfter.EnumerationTruncated)
}

func TestLoopbackListener(t *testing.T) {
	is := is.New(t)
	sc := ports.NewCaptureScenario(program(t, "listen"))
	sc.Events = []ports.CaptureEvent{{AtMS: 800, Type: ports.EventInput, Data: "\n"}}
	sc.TimeoutMS = 10000
	c, port := listenerCapture(t, sc)
	ls := c.ListeningSockets[0]
	is.Equal(ls.Port, port)
	is.Equal(ls.Protocol, "tcp")
	is.Equal(ls.Address, "127.0.0.1")
	is.True(ls.Loopback)
	is.Equal(ls.PID, c.Processes[0].PID)
	is.Equal(ls.NormalizedPort, "<port>")
	is.True(strings.Contains(text(c), "127.0.0.1:<port>"))
	is.True(strings.Contains(text(c), "bye"))
}

// A socket that listens after its process was first looked at is found:
// a look reads the namespace's listeners first, and reads every process's
// descriptors when one appears that no earlier look explained.
func TestLateLoopbackListener(t *testing.T) {
	is := is.New(t)
	sc := ports.NewCaptureScenario(program(t, "listen"))
	sc.Arguments = []string{"late"}
	sc.Events = []ports.CaptureEvent{{AtMS: 800, Type: ports.EventInput, Data: "\n"}, {AtMS: 900, Type: ports.EventInput, Data: "\n"}}
	sc.TimeoutMS = 10000
	c, port := listenerCapture(t, sc)
	is.Equal(c.ListeningSockets[0].Port, port)
	is.Equal(c.ListeningSockets[0].Address, "127.0.0.1")
	is.Equal(c.ListeningSockets[0].PID, c.Processes[0].PID)
	is.True(c.ListeningSockets[0].FirstSeenMS >= 800) // not before it listened
}

// A listener in a network namespace of the program's own is found: the
// listening tables are read through a process of each namespace. Before,
// they were read from rea's /proc/net, which lists rea's namespace only.
func TestListenerInItsOwnNetworkNamespace(t *testing.T) {
	is := is.New(t)
	unshare, ip := ownNamespaceTools(t)
	sc := ports.NewCaptureScenario(unshare)
	sc.Arguments = []string{"-rn", "/bin/sh", "-c", ip + " link set lo up && exec " + program(t, "listen")}
	sc.Events = []ports.CaptureEvent{{AtMS: 800, Type: ports.EventInput, Data: "\n"}}
	sc.TimeoutMS = 10000
	c, port := listenerCapture(t, sc)
	is.Equal(c.ListeningSockets[0].Port, port)
	is.True(c.ListeningSockets[0].Loopback)
}

// A socket that listens late in a network namespace of the program's own,
// where more than two of its processes live, is found: the namespace's
// counters changed, so every process's descriptors are read again.
func TestLateListenerInItsOwnNetworkNamespace(t *testing.T) {
	is := is.New(t)
	unshare, ip := ownNamespaceTools(t)
	sc := ports.NewCaptureScenario(unshare)
	sc.Arguments = []string{"-rn", "/bin/sh", "-c", ip + " link set lo up && { sleep 30 & a=$!; sleep 30 & b=$!; " +
		program(t, "listen") + " late; kill $a $b; }"}
	sc.Events = []ports.CaptureEvent{{AtMS: 800, Type: ports.EventInput, Data: "\n"}, {AtMS: 900, Type: ports.EventInput, Data: "\n"}}
	sc.TimeoutMS = 10000
	c, port := listenerCapture(t, sc)
	is.True(len(c.Processes) >= 4) // unshare's sh, two sleeps, listen
	is.Equal(c.ListeningSockets[0].Port, port)
	is.True(c.ListeningSockets[0].FirstSeenMS >= 800) // not before it listened
}

// ownNamespaceTools returns unshare and ip, or skips when the host cannot
// give the program a network namespace of its own.
func ownNamespaceTools(t *testing.T) (unshare, ip string) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare is not installed")
	}
	ip, err = exec.LookPath("ip")
	if err != nil {
		t.Skip("ip is not installed")
	}
	if b, err := exec.Command(unshare, "-rn", ip, "link", "set", "lo", "up").CombinedOutput(); err != nil {
		t.Skipf("no network namespace of our own here (unshare -rn: %v: %s)", err, b)
	}
	return unshare, ip
}

// listenerCapture captures sc, a run of testdata/listen, and returns the
// capture and the loopback port the program printed, checking that the
// capture found one listening socket.
func listenerCapture(t *testing.T, sc ports.CaptureScenario) (*ports.ProcessCapture, int) {
	t.Helper()
	is := is.New(t)
	c, err := capture(t, engine(t), context.Background(), sc)
	is.NoErr(err)
	m := regexp.MustCompile(`127\.0\.0\.1:(\d+)`).FindStringSubmatch(strings.Join(rawText(c), ""))
	is.True(m != nil) // it listened
	port, _ := strconv.Atoi(m[1])
	is.Equal(len(c.ListeningSockets), 1)
	return c, port
}

func rawText(c *ports.ProcessCapture) []string {
	var out []string
	for _, f := range c.Frames {
		if f.HasRaw {
			out = append(out, f.Raw)
		} else {
			out = append(out, f.Data)
		}
	}
	return out
}

func TestOutputFloodIsBounded(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "flood"))
	sc.Arguments = []string{"50000"} // 3.2 MB
	sc.Limits.OutputBytes = 64 << 10
	sc.TimeoutMS = 20000
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.Equal(c.Exit.Reason, ports.DispositionExited)
	tr := c.Truncation
	is.True(tr.Truncated)
	is.True(tr.RawTerminal.RetainedBytes <= 64<<10)
	is.True(tr.RawTerminal.ObservedBytes >= 50000*64) // "\n" becomes "\r\n" on the terminal
	is.True(tr.RawTerminal.RetainedFrames < tr.RawTerminal.ObservedFrames)
	is.True(tr.RenderedTerminal.RetainedBytes <= 64<<10)
	is.True(len(text(c)) <= 64<<10)
	// The final screen is still the end of the flood.
	is.True(strings.HasPrefix(c.FinalScreen.Lines[0], "xxxxxxxx"))
}

func TestExitsAtOnce(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "exitnow"))
	sc.Events = []ports.CaptureEvent{
		{AtMS: 2000, Type: ports.EventInput, Data: "late\n", Sensitive: true},
		{AtMS: 2000, Type: ports.EventResize, Columns: 100, Rows: 30},
		{AtMS: 2500, Type: ports.EventSignal, Signal: "SIGINT"},
	}
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.True(*c.Exit.Code == 7)
	is.Equal(len(c.Frames), 0)
	is.Equal(len(c.InteractionEvents), 3)
	for _, ev := range c.InteractionEvents {
		is.Equal(ev.Outcome, ports.OutcomeTargetExited)
		is.True(ev.DispatchedAtMS == nil)
	}
	is.Equal(c.InteractionEvents[0].Data, "<not-dispatched>")
	is.Equal(c.InteractionEvents[1].Data, "100x30")
	is.Equal(c.InteractionEvents[2].Data, "SIGINT")
	is.Equal(len(c.SignalAttempts), 0)
	is.Equal(c.Settlement.State, ports.SettlementQuiesced)
	is.Equal(c.FinalScreen.Lines, make([]string, 24))
}

func TestResizeAndSignalEvents(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "ignoreterm"))
	sc.Events = []ports.CaptureEvent{
		{AtMS: 100, Type: ports.EventResize, Columns: 50, Rows: 5},
		{AtMS: 300, Type: ports.EventSignal, Signal: "SIGINT"},
	}
	sc.TimeoutMS = 10000
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.Equal(c.Exit.Reason, ports.DispositionExited)
	is.Equal(c.Exit.Signal, "SIGINT")
	is.True(c.Exit.Code == nil)
	is.Equal(c.InteractionEvents[0].Data, "50x5")
	is.Equal(c.InteractionEvents[0].Outcome, ports.OutcomeDispatched)
	is.Equal(c.InteractionEvents[1].SignalDelivery, ports.SignalDelivered)
	is.Equal(c.FinalScreen.Columns, 50)
	is.Equal(c.FinalScreen.Rows, 5)
	is.Equal(len(c.SignalAttempts), 1)
	is.Equal(c.SignalAttempts[0].Signal, "SIGINT")
	is.Equal(c.SignalAttempts[0].ID, c.Processes[0].PID)
	resized := false
	for _, f := range c.RenderedFrames {
		if f.Columns == 50 && f.Rows == 5 {
			resized = true
		}
	}
	is.True(resized)
}

func TestCancellationKeepsPartialObservation(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "ignoreterm"))
	sc.TimeoutMS = 20000
	sc.FinalizationMS = 5000 // cancellation does not wait for it
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	c, err := capture(t, e, ctx, sc)
	is.True(c == nil)
	is.True(errors.Is(err, context.Canceled))
	var ce *ports.CaptureError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Disposition, ports.DispositionCancelled)
	p := ce.Partial
	is.True(strings.Contains(text(p), "ignoring SIGTERM"))
	is.Equal(p.Exit.Reason, ports.DispositionCancelled)
	is.True(p.Exit.Code == nil)
	is.True(p.Exit.Finalization == nil)
	is.True(len(p.SignalAttempts) >= 1)
	var term, kill bool
	for _, a := range p.SignalAttempts {
		is.True(a.Result != "")
		term = term || a.Signal == "SIGTERM"
		kill = kill || a.Signal == "SIGKILL" && a.Result == ports.SignalDelivered
	}
	is.True(!term && kill) // cancellation has no grace: SIGKILL only
	is.Equal(p.Cleanup.OwnedProcessGroup.State, ports.CleanupCleaned)
	is.True(len(p.Processes) == 1)

	// Cancelled before the launch: nothing was seen, so no elapsed time and
	// no exit code.
	done, stop := context.WithCancel(context.Background())
	stop()
	_, err = capture(t, e, done, sc)
	is.True(errors.As(err, &ce))
	is.True(errors.Is(err, context.Canceled))
	is.True(ce.Partial.Exit.ElapsedMS == nil)
	is.True(ce.Partial.Exit.Code == nil)
	is.True(!ce.Partial.Exit.Exited)
}

func TestBadInput(t *testing.T) {
	e := engine(t)
	dir := t.TempDir()
	notExec := filepath.Join(dir, "plain")
	os.WriteFile(notExec, []byte("\x7fELF"), 0o644)
	script := filepath.Join(dir, "script")
	os.WriteFile(script, []byte("echo no shebang\n"), 0o755)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	good := program(t, "exitnow")

	cases := []struct {
		name string
		edit func(*ports.CaptureScenario)
		path string
		want string
	}{
		{"missing", func(s *ports.CaptureScenario) { s.Executable = filepath.Join(dir, "nope") }, "executable", "could not be resolved"},
		{"missing on PATH", func(s *ports.CaptureScenario) { s.Executable = "rea-no-such-program" }, "executable", "not found"},
		{"directory", func(s *ports.CaptureScenario) { s.Executable = dir }, "executable", "is a directory"},
		{"not executable", func(s *ports.CaptureScenario) { s.Executable = notExec }, "executable", "not executable"},
		{"script without shebang", func(s *ports.CaptureScenario) { s.Executable = script }, "executable", "#!"},
		{"empty executable", func(s *ports.CaptureScenario) { s.Executable = "" }, "executable", "empty"},
		{"NUL in executable", func(s *ports.CaptureScenario) { s.Executable = "a\x00b" }, "executable", "NUL"},
		{"working directory is a file", func(s *ports.CaptureScenario) { s.WorkingDirectory = file }, "working_directory", "not a directory"},
		{"working directory missing", func(s *ports.CaptureScenario) { s.WorkingDirectory = filepath.Join(dir, "nope") }, "working_directory", "could not be resolved"},
		{"env name with =", func(s *ports.CaptureScenario) { s.Environment = map[string]string{"A=B": "x"} }, "environment", "'='"},
		{"env name with NUL", func(s *ports.CaptureScenario) { s.Environment = map[string]string{"A\x00": "x"} }, "environment", "NUL"},
		{"env empty name", func(s *ports.CaptureScenario) { s.Environment = map[string]string{"": "x"} }, "environment", "empty"},
		{"env run id", func(s *ports.CaptureScenario) {
			s.Environment = map[string]string{"REA_PROCESS_RUN_ID": "mine"}
		}, "environment", "REA_PROCESS_RUN_ID"},
		{"events out of order", func(s *ports.CaptureScenario) {
			s.Events = []ports.CaptureEvent{{AtMS: 200, Type: "input", Data: "a"}, {AtMS: 100, Type: "input", Data: "b"}}
		}, "events", "time order"},
		{"event past the timeout", func(s *ports.CaptureScenario) {
			s.TimeoutMS = 1000
			s.Events = []ports.CaptureEvent{{AtMS: 1001, Type: "input", Data: "a"}}
		}, "events", "timeout_ms"},
		{"unknown signal", func(s *ports.CaptureScenario) {
			s.Events = []ports.CaptureEvent{{AtMS: 1, Type: "signal", Signal: "SIGHUP"}}
		}, "events", "SIGHUP"},
		{"unknown event", func(s *ports.CaptureScenario) { s.Events = []ports.CaptureEvent{{AtMS: 1, Type: "click"}} }, "events", "click"},
		{"zero columns", func(s *ports.CaptureScenario) { s.Terminal.Columns = 0 }, "terminal", "outside"},
		{"zero timeout", func(s *ports.CaptureScenario) { s.TimeoutMS = 0 }, "timeout_ms", "outside"},
		// Each dimension is in range, but the emulator would hold 65535x65535
		// cells (hundreds of gigabytes): the run must be refused, not crash
		// the server.
		{"terminal too large", func(s *ports.CaptureScenario) {
			s.Terminal.Columns, s.Terminal.Rows, s.Terminal.Scrollback = 65535, 65535, 0
		}, "terminal", "cells"},
		{"scrollback too large for the width", func(s *ports.CaptureScenario) {
			s.Terminal.Columns, s.Terminal.Rows, s.Terminal.Scrollback = 2000, 24, 1_000_000
		}, "terminal", "cells"},
		{"resize too large", func(s *ports.CaptureScenario) {
			s.Events = []ports.CaptureEvent{{AtMS: 1, Type: "resize", Columns: 65535, Rows: 65535}}
		}, "events", "cells"},
		{"empty pattern", func(s *ports.CaptureScenario) {
			s.Normalization.Patterns = []ports.LiteralReplacement{{Pattern: ""}}
		}, "normalization", "empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			sc := ports.NewCaptureScenario(good)
			tc.edit(&sc)
			c, err := e.CaptureProcess(context.Background(), ports.CaptureRequest{Scenario: sc})
			is.True(c == nil)
			is.True(errors.Is(err, ports.ErrInvalidScenario))
			var se *ports.ScenarioError
			is.True(errors.As(err, &se))
			is.Equal(se.Path[0], tc.path)
			if !strings.Contains(se.Message, tc.want) {
				t.Errorf("message %q lacks %q", se.Message, tc.want)
			}
		})
	}
}

// A name without a slash is looked up on the scenario's PATH first.
func TestExecutableResolution(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	bin := program(t, "exitnow")
	sc := ports.NewCaptureScenario("exitnow")
	sc.Environment = map[string]string{"PATH": "/nonexistent:" + filepath.Dir(bin)}
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.Equal(c.Executable.Path, bin)
	is.Equal(c.Executable.Checked, []string{"/nonexistent/exitnow", bin})
	is.True(*c.Exit.Code == 7)

	// Relative to the working directory.
	sc = ports.NewCaptureScenario("./exitnow")
	sc.WorkingDirectory = filepath.Dir(bin)
	c, err = capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.Equal(c.Executable.Path, bin)
}

// A bare name is looked up on PATH only, as a shell does; when the working
// directory holds a program of that name, the refusal says to pass ./name,
// and a directory PATH names twice is checked once. Before, the message
// said only "not found" and listed the duplicate.
func TestExecutableResolutionNamesTheFileBesideIt(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	bin := program(t, "exitnow")
	sc := ports.NewCaptureScenario("exitnow")
	sc.WorkingDirectory = filepath.Dir(bin)
	sc.Environment = map[string]string{"PATH": "/nonexistent:/nonexistent"}
	_, err := e.CaptureProcess(context.Background(), ports.CaptureRequest{Scenario: sc})
	var se *ports.ScenarioError
	is.True(errors.As(err, &se))
	is.True(strings.Contains(se.Message, "pass ./exitnow to run "+bin))
	is.Equal(strings.Count(se.Message, "/nonexistent/exitnow"), 1)
}

func syscallZero() os.Signal { return syscall.Signal(0) }

// An executable that passes resolution but cannot be started (a script whose
// interpreter is missing) fails after the setup: a CaptureError with the
// partial observation, and nothing left behind.
func TestLaunchFailure(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	script := filepath.Join(t.TempDir(), "script")
	is.NoErr(os.WriteFile(script, []byte("#!/nonexistent/interpreter\n"), 0o755))
	sc := ports.NewCaptureScenario(script)
	c, err := capture(t, e, context.Background(), sc)
	is.True(c == nil)
	var ce *ports.CaptureError
	is.True(errors.As(err, &ce))
	is.Equal(ce.Disposition, ports.DispositionFailed)
	is.True(errors.Is(err, os.ErrNotExist))
	is.True(!errors.Is(err, ports.ErrCleanupIncomplete))
	is.Equal(ce.Partial.Exit.Reason, ports.DispositionFailed)
	is.True(ce.Partial.Exit.ElapsedMS == nil)
	is.Equal(ce.Partial.Cleanup.TemporaryRoot.State, ports.CleanupCleaned)
	is.Equal(len(ce.Partial.Executable.SelectedSHA256), 64)
	// No terminal was observed: the final screen stays the zero frame,
	// which core reports as null.
	is.Equal([]int{ce.Partial.FinalScreen.Columns, ce.Partial.FinalScreen.Rows, len(ce.Partial.FinalScreen.Lines)}, []int{0, 0, 0})
	// It records the normalization its scenario's rules apply, as a
	// capture that ran records it, and the journal of what it stored (the
	// files before the launch), so that a comparison finds the same rules
	// and what it did observe. Before, both were empty: compared with a
	// run of the same scenario, every dimension was unknown because the
	// normalization rules "differed".
	is.Equal(ce.Partial.NormalizationApplied.RenderedLineFormat, "trailing-spaces-trimmed-v1")
	is.Equal(ce.Partial.NormalizationApplied.PortNormalizationVersion, "contextual-endpoints-v2")
	is.Equal(ce.Partial.EventJournal, []ports.JournalEntry{{CaptureOrder: 0, Collection: ports.JournalFilesystem, Index: 0},
		{CaptureOrder: 1, Collection: ports.JournalLifecycle, Index: 0}, {CaptureOrder: 2, Collection: ports.JournalLifecycle, Index: 1},
		{CaptureOrder: 3, Collection: ports.JournalFilesystem, Index: 1}})
}

// A launch that fails (an ELF header with nothing after it: exec format
// error)
// journals what a capture's journal ends with (§1.2, §1.4): the exit, the
// settlement and the files after settlement, which nothing changed.
// Before, its journal stopped at the files before the launch: it was not
// complete (no lifecycle entries) and had one checkpoint of two.
func TestLaunchFailureJournalIsComplete(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "notaprogram")
	is.NoErr(os.WriteFile(bin, append([]byte("\x7fELF"), make([]byte, 60)...), 0o755))
	sc := ports.NewCaptureScenario(bin)
	sc.FilesystemObservationPaths = []string{dir}
	sc.Events = []ports.CaptureEvent{{Type: ports.EventInput, AtMS: 10, Data: "x\n"}}
	_, err := capture(t, e, context.Background(), sc)
	var ce *ports.CaptureError
	is.True(errors.As(err, &ce))
	is.True(errors.Is(err, syscall.ENOEXEC))
	p := ce.Partial
	is.Equal(p.EventJournal, []ports.JournalEntry{{CaptureOrder: 0, Collection: ports.JournalFilesystem, Index: 0},
		{CaptureOrder: 1, Collection: ports.JournalInteractionEvents, Index: 0},
		{CaptureOrder: 2, Collection: ports.JournalLifecycle, Index: 0}, {CaptureOrder: 3, Collection: ports.JournalLifecycle, Index: 1},
		{CaptureOrder: 4, Collection: ports.JournalFilesystem, Index: 1}})
	is.Equal(p.Exit.Reason, ports.DispositionFailed)
	is.Equal(p.Settlement.State, ports.SettlementQuiesced)
	is.Equal(p.FilesAfter, p.FilesBefore)
	// Its record says what it could not be: the scenario's budgets, and
	// why the identity is unknown. Before, the budgets were 0 and the
	// reason empty.
	is.Equal(p.Truncation.RawTerminal.BudgetBytes, sc.Limits.OutputBytes)
	is.Equal(p.Truncation.RenderedTerminal.BudgetBytes, sc.Limits.OutputBytes)
	is.Equal(p.Truncation.Process.SampleLimit, sc.Limits.Processes)
	is.Equal(p.Executable.State, ports.IdentityUnknown)
	is.True(strings.Contains(p.Executable.Reason, "not launched"))
	is.Equal(len(p.FileEffects), 2) // the root and the file, unchanged
	for _, fe := range p.FileEffects {
		is.Equal(fe.Effect, ports.EffectUnchanged)
	}
}

// A failed launch settles as quiesced (nothing was launched, so nothing
// remains), a state CAPTURE-REPLAY-MANAGED.md §1.3 documents, and records
// each scenario event as not dispatched. Before, its settlement state was
// "" and its interaction events were missing.
func TestLaunchFailureSettlesAndRecordsItsEvents(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	script := filepath.Join(t.TempDir(), "script")
	is.NoErr(os.WriteFile(script, []byte("#!/nonexistent/interpreter\n"), 0o755))
	sc := ports.NewCaptureScenario(script)
	sc.Events = []ports.CaptureEvent{{Type: ports.EventInput, AtMS: 50, Data: "secret\n", Sensitive: true},
		{Type: ports.EventResize, AtMS: 60, Columns: 100, Rows: 30}}
	_, err := capture(t, e, context.Background(), sc)
	var ce *ports.CaptureError
	is.True(errors.As(err, &ce))
	p := ce.Partial
	is.Equal(p.Settlement.State, ports.SettlementQuiesced)
	is.Equal(len(p.InteractionEvents), 2)
	for i, ev := range p.InteractionEvents {
		is.Equal(ev.Sequence, i)
		is.True(ev.DispatchedAtMS == nil)
		is.Equal(ev.Outcome, ports.OutcomeFailed)
		is.True(strings.Contains(ev.Reason, "not launched"))
	}
	is.Equal(p.InteractionEvents[0].Data, "<not-dispatched>") // the secret is not recorded
	is.Equal(p.InteractionEvents[1].Data, "100x30")
	is.Equal(p.EventJournal[1:], []ports.JournalEntry{{CaptureOrder: 1, Collection: ports.JournalInteractionEvents, Index: 0},
		{CaptureOrder: 2, Collection: ports.JournalInteractionEvents, Index: 1}, {CaptureOrder: 3, Collection: ports.JournalLifecycle, Index: 0},
		{CaptureOrder: 4, Collection: ports.JournalLifecycle, Index: 1}, {CaptureOrder: 5, Collection: ports.JournalFilesystem, Index: 1}})
}

// settle_ms=0: one empty look after the exit settles the tree.
func TestZeroSettle(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "exitnow"))
	sc.SettleMS = 0
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.Equal(c.Settlement.State, ports.SettlementQuiesced)
	is.Equal(c.Cleanup.OwnedProcessGroup.State, ports.CleanupNotRequired)
}

// Cancelling a flood returns promptly with what was read, even though the
// emulator is behind, and leaves nothing running.
func TestCancelDuringFlood(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario(program(t, "flood"))
	sc.Arguments = []string{"100000000"}
	sc.TimeoutMS = 60000
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(400*time.Millisecond, cancel)
	_, err := capture(t, e, ctx, sc)
	var ce *ports.CaptureError
	is.True(errors.As(err, &ce))
	is.True(errors.Is(err, context.Canceled))
	is.True(len(ce.Partial.Frames) > 0)
	is.True(ce.Partial.Truncation.RawTerminal.ObservedBytes > 0)
	is.Equal(ce.Partial.Cleanup.OwnedProcessGroup.State, ports.CleanupCleaned)
}

// finalization_ms 0 kills the whole tree at once, not only the launcher: a
// child with a SIGTERM handler (here under a shell that waits for it) gets
// SIGKILL and no SIGTERM. Before, the supervisor's stop sequence still sent
// SIGTERM to the rest of the tree first.
func TestZeroFinalizationKillsTheChildrenAtOnce(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario("/bin/sh")
	sc.Arguments = []string{"-c", program(t, "termhandler") + " & wait"}
	sc.TimeoutMS, sc.IdleTimeoutMS, sc.FinalizationMS = 10000, 500, 0
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.True(strings.Contains(text(c), "waiting")) // the child ran
	is.Equal(c.Exit.Reason, ports.DispositionIdleTimeout)
	for _, a := range c.SignalAttempts {
		is.True(a.Signal != "SIGTERM") // nothing got a SIGTERM it could act on
	}
	is.True(!strings.Contains(text(c), "got SIGTERM"))
}

// A stop without grace has one owner signal: the supervisor's stop
// sequence, whose context has already ended, sends SIGKILL only, to the
// whole owned group at once. Before, the capture first sent the launcher a
// SIGKILL of its own (a process attempt), and the shell's death then hung
// up the child, so the supervisor found nothing left to stop.
func TestZeroFinalizationSignalsTheLauncherOnce(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	sc := ports.NewCaptureScenario("/bin/sh")
	sc.Arguments = []string{"-c", program(t, "termhandler") + " & wait"}
	sc.TimeoutMS, sc.IdleTimeoutMS, sc.FinalizationMS = 10000, 500, 0
	c, err := capture(t, e, context.Background(), sc)
	is.NoErr(err)
	is.Equal(c.Exit.Reason, ports.DispositionIdleTimeout)
	is.Equal(c.Exit.Signal, "SIGKILL")
	is.Equal(len(c.SignalAttempts), 1)
	a := c.SignalAttempts[0]
	is.Equal(a.Signal, "SIGKILL")
	is.Equal(a.Target, ports.TargetProcessGroup) // the supervisor's round, not a launcher-only kill
	is.Equal(a.ID, c.Processes[0].PID)           // the launcher leads its group
	is.Equal(a.Result, ports.SignalDelivered)
}

// The same program run from two places (a v1 and a v2 build directory)
// gives the same normalized process commands: the launched program's path
// is replaced by <executable> in the process tree even when path
// normalization is off (the default), as pids and ports are, and the
// capture lists the placeholder among those applied. Before, the commands
// kept the two paths, so compare_process_captures reported the launcher
// as changed.
func TestProgramPathIsNormalizedInProcessCommands(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	src, err := os.ReadFile(program(t, "termhandler"))
	is.NoErr(err)
	var cmds [][]string
	for _, v := range []string{"v1", "v2"} {
		dir := filepath.Join(t.TempDir(), v)
		is.NoErr(os.MkdirAll(dir, 0o755))
		bin := filepath.Join(dir, "app")
		is.NoErr(os.WriteFile(bin, src, 0o755))
		sc := ports.NewCaptureScenario(bin)
		sc.Arguments = []string{"--flag", bin + ".conf"}
		sc.TimeoutMS, sc.IdleTimeoutMS = 10000, 400
		is.True(!sc.Normalization.Paths)
		c, err := capture(t, e, context.Background(), sc)
		is.NoErr(err)
		is.True(slices.Contains(c.NormalizationApplied.Placeholders, "<executable>"))
		var got []string
		for _, p := range c.NormalizedProcesses {
			got = append(got, p.Command)
		}
		cmds = append(cmds, got)
	}
	is.True(len(cmds[0]) > 0)
	is.Equal(cmds[0][0], "<executable> --flag <executable>.conf")
	is.Equal(cmds[0], cmds[1])
}

// The temporary root rea names anew for each run (the program's TMPDIR)
// is <temporary-root> in process commands, path normalization or not.
// Before, two runs of the same build differed in every command naming a
// temporary file (make -j2: gcc's cc1 -o /tmp/rea-capture-N/ccX.s), so
// compare_process_captures reported the process tree changed.
func TestTemporaryRootIsNormalizedInProcessCommands(t *testing.T) {
	is := is.New(t)
	e := engine(t)
	named := false
	// Two runs: a sample may catch the inner shell between its fork and
	// its exec, under its parent's command.
	for range 2 {
		sc := ports.NewCaptureScenario("/bin/sh")
		sc.Arguments = []string{"-c", `sh -c "sleep 0.4; true" "$TMPDIR/work"`}
		sc.TimeoutMS, sc.IdleTimeoutMS = 10000, 2000
		is.True(!sc.Normalization.Paths)
		c, err := capture(t, e, context.Background(), sc)
		is.NoErr(err)
		for _, p := range c.NormalizedProcesses {
			if strings.Contains(p.Command, c.TemporaryRoot) {
				t.Errorf("a command names the temporary root: %q", p.Command)
			}
			named = named || p.Command == "sh -c sleep 0.4; true <temporary-root>/work"
		}
	}
	is.True(named)
}

// Output read before an input event is journaled before it, even when the
// capture loop falls behind and finds both ready at once (held back here,
// as a slow process sample on a loaded host holds it): the prompt comes
// first, then the input that answers it. Before, select chose between the
// waiting output and the due event at random, so about half the captures
// journaled the prompt after the input, and compare_process_captures
// reported the terminal changed between two runs of the same program.
func TestOutputReadBeforeAnEventIsJournaledFirst(t *testing.T) {
	defer pty.SetLoopStartDelay(300 * time.Millisecond)()
	e := engine(t)
	for i := 0; i < 8; i++ {
		is := is.New(t)
		sc := ports.NewCaptureScenario(program(t, "prompt"))
		sc.Events = []ports.CaptureEvent{{Type: ports.EventInput, AtMS: 50, Data: "bob\n"}, {Type: ports.EventInput, AtMS: 400, Data: "pw\n"}}
		sc.TimeoutMS = 5000
		c, err := capture(t, e, context.Background(), sc)
		is.NoErr(err)
		prompt, input := -1, -1
		for k, j := range c.EventJournal {
			switch {
			case j.Collection == ports.JournalFrames && prompt < 0 && strings.Contains(c.Frames[j.Index].Data, "name? "):
				prompt = k
			case j.Collection == ports.JournalInteractionEvents && input < 0:
				input = k
			}
		}
		is.True(prompt >= 0 && input >= 0)
		is.True(prompt < input) // the prompt, then the answer
	}
}

// A program that rewrites its argv in place (setproctitle), with no exec
// and no rename, is shown with its new argv; the argv first read is kept,
// labelled as the first read, with when a look first read the new one.
// Before, the capture kept the first read for the process's life. Looks
// reread the argv at every look here, so that the test does not wait on
// the recheck interval.
func TestArgvRewrittenInPlaceIsSeen(t *testing.T) {
	is := is.New(t)
	defer pty.SetArgvRecheckLooks(1)()
	sc := ports.NewCaptureScenario(program(t, "retitle"))
	sc.Arguments = []string{"--first", "launch"}
	sc.Events = []ports.CaptureEvent{{AtMS: 500, Type: ports.EventInput, Data: "\n"}, {AtMS: 1500, Type: ports.EventInput, Data: "\n"}}
	sc.TimeoutMS = 10000
	c, err := capture(t, engine(t), context.Background(), sc)
	is.NoErr(err)
	is.True(strings.Contains(text(c), "bye"))
	first := "<executable> --first launch"
	var cmds []string
	for _, s := range c.ProcessSamples {
		cmds = append(cmds, s.NormalizedCommand)
	}
	if !slices.Contains(cmds, first) {
		// Its start was slow enough that both lines were typed before a
		// look read its argv after the exec: nothing to tell apart.
		t.Skipf("no look read the argv before the rewrite: %q", cmds)
	}
	is.Equal(len(c.Processes), 1)
	p, n := c.Processes[0], c.NormalizedProcesses[0]
	is.Equal(p.Argv, []string{"retitled: worker"})
	is.Equal(p.FirstReadArgv, []string{sc.Executable, "--first", "launch"})
	is.True(p.ArgvRewrittenMS >= 500) // not before it was rewritten
	is.Equal(n.Command, "retitled: worker")
	is.Equal(n.FirstReadCommand, first)
	is.Equal(n.CommandRewrittenMS, p.ArgvRewrittenMS)
	is.Equal(cmds[len(cmds)-1], "retitled: worker")
}

// A listening socket handed (SCM_RIGHTS) to a process of the capture that
// was already read, by a parent outside the capture (this test) that
// listened before the capture began and then leaves it, is credited to
// the process. Three processes live (sh and two sleeps besides it), so
// the looks list rea's namespace's listeners and read a process's
// descriptors only when they must. Before, the listener was explained as
// another program's at the first look and never credited.
func TestHandedListenerIsCredited(t *testing.T) {
	is := is.New(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	path := filepath.Join(t.TempDir(), "s")
	u, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	is.NoErr(err)
	defer u.Close()
	handed := make(chan error, 1)
	go func() {
		c, err := u.AcceptUnix()
		if err != nil {
			handed <- err
			return
		}
		defer c.Close()
		f, err := l.(*net.TCPListener).File()
		if err != nil {
			handed <- err
			return
		}
		_, _, err = c.WriteMsgUnix([]byte{0}, syscall.UnixRights(int(f.Fd())), nil)
		f.Close()
		l.Close() // the parent leaves it to the child
		handed <- err
	}()
	sc := ports.NewCaptureScenario("/bin/sh")
	sc.Arguments = []string{"-c", "sleep 30 & a=$!; sleep 30 & b=$!; " + program(t, "recvfd") + " " + path + "; kill $a $b"}
	sc.Events = []ports.CaptureEvent{{AtMS: 800, Type: ports.EventInput, Data: "\n"}, {AtMS: 1800, Type: ports.EventInput, Data: "\n"}}
	sc.TimeoutMS = 10000
	c, err := capture(t, engine(t), context.Background(), sc)
	is.NoErr(err)
	is.NoErr(<-handed)
	is.True(strings.Contains(text(c), "received"))
	is.True(strings.Contains(text(c), "bye"))
	recv := 0
	for _, p := range c.Processes {
		if len(p.Argv) > 0 && strings.HasSuffix(p.Argv[0], "recvfd") {
			recv = p.PID
		}
	}
	is.True(recv != 0)
	is.Equal(len(c.ListeningSockets), 1)
	is.Equal(c.ListeningSockets[0].Port, port)
	is.Equal(c.ListeningSockets[0].PID, recv)
	is.True(c.ListeningSockets[0].FirstSeenMS >= 800) // not before it was handed
}

// A listener whose process exits, leaving it to a child that inherited it
// across fork, is credited to the child: testdata/handoff's parent listens,
// forks a child that keeps the socket, and exits; its keeper (the launcher)
// lives on until the next line. Run alone (three processes, then two: a
// look reads every process) and beside two sleeps (rea's namespace's
// listeners listed). Before, the listener stayed the exited parent's.
func TestListenerLeftToAChildIsCredited(t *testing.T) {
	for _, beside := range []bool{false, true} {
		t.Run(fmt.Sprintf("beside=%v", beside), func(t *testing.T) {
			is := is.New(t)
			sc := ports.NewCaptureScenario(program(t, "handoff"))
			if beside {
				sc = ports.NewCaptureScenario("/bin/sh")
				sc.Arguments = []string{"-c", "sleep 30 & a=$!; sleep 30 & b=$!; " + program(t, "handoff") + "; kill $a $b"}
			}
			sc.Events = []ports.CaptureEvent{{AtMS: 800, Type: ports.EventInput, Data: "\n"}, {AtMS: 1800, Type: ports.EventInput, Data: "\n"}}
			sc.TimeoutMS = 10000
			c, port := listenerCapture(t, sc)
			is.True(strings.Contains(text(c), "parent gone"))
			is.True(strings.Contains(text(c), "bye"))
			m := regexp.MustCompile(`parent (\d+) child (\d+)`).FindStringSubmatch(strings.Join(rawText(c), ""))
			is.True(m != nil)
			parent, _ := strconv.Atoi(m[1])
			child, _ := strconv.Atoi(m[2])
			seen := map[int]ports.CapturedProcess{}
			for _, p := range c.Processes {
				seen[p.PID] = p
			}
			if seen[parent].PID == 0 || seen[child].PID == 0 || seen[child].LastSeenMS <= seen[parent].LastSeenMS {
				t.Skip("no look saw the child after the parent exited (the inputs came too close together)")
			}
			is.Equal(c.ListeningSockets[0].Port, port)
			is.Equal(c.ListeningSockets[0].PID, child)
			is.True(c.ListeningSockets[0].FirstSeenMS < seen[parent].LastSeenMS+1) // first seen while the parent held it
		})
	}
}
