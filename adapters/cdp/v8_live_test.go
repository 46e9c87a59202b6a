package cdp_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/ports"
)

// tickScript prints a numbered tick every 10 ms, each after a debugger
// statement: a debugger that does not skip pauses stops it at the first.
const tickScript = `let n = 0;
setInterval(() => {
  n++;
  debugger;
  process.stdout.write("tick " + n + "\n");
}, 10);
`

// ticker is a running node --inspect process and the ticks it printed.
type ticker struct {
	endpoint string
	pid      int
	script   string
	mu       sync.Mutex
	ticks    int
	changed  chan struct{} // closed and replaced on each tick
}

func (tk *ticker) wait() <-chan struct{} {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.changed
}

func (tk *ticker) count() int {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.ticks
}

// startTicker runs tickScript under node --inspect=127.0.0.1:0 and returns
// once the inspector is listening.
func startTicker(t *testing.T) *ticker { return startTickerScript(t, tickScript) }

// startTickerScript runs src as tick.js like startTicker, with core dumps
// off (a test's script may abort).
func startTickerScript(t *testing.T, src string) *ticker {
	t.Helper()
	needNode(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "tick.js")
	if err := os.WriteFile(script, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -c 0; exec node --inspect=127.0.0.1:0 "$0"`, script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	tk := &ticker{changed: make(chan struct{}), pid: cmd.Process.Pid, script: script}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "tick ")); err == nil {
				tk.mu.Lock()
				tk.ticks = n
				close(tk.changed)
				tk.changed = make(chan struct{})
				tk.mu.Unlock()
			}
		}
	}()
	listening := regexp.MustCompile(`Debugger listening on ws://127\.0\.0\.1:(\d+)/`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case port := <-found:
		tk.endpoint = "http://127.0.0.1:" + port
	case <-time.After(20 * time.Second):
		t.Fatal("node never printed its inspector address")
	}
	return tk
}

// progressFunc adapts a function to ports.Progress.
type progressFunc func(phase, message string)

func (f progressFunc) Observe(phase, message string) { f(phase, message) }

// TestV8ObserveDoesNotPauseAtDebuggerStatements observes a live Node
// process whose timer runs a debugger statement before each tick it
// prints. When the window opens (the "observe" progress step, sent after
// the enables), the test waits for two more ticks from the script itself:
// a runtime stopped at the debugger statement prints none (at most one
// already past it), so without Debugger.setSkipAllPauses the wait fails.
func TestV8ObserveDoesNotPauseAtDebuggerStatements(t *testing.T) {
	is := is.New(t)
	tk := startTicker(t)
	e := cdp.NewRuntime(nil)
	ctx := context.Background()
	var list *ports.RuntimeTargetList
	var err error
	for i := 0; i < 100; i++ {
		if list, err = e.ListRuntimeTargets(ctx, ports.RuntimeListRequest{Endpoint: tk.endpoint}); err == nil && len(list.Targets) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	is.NoErr(err)
	is.True(len(list.Targets) == 1)
	var inWindow, start int
	var waitErr string
	pctx := ports.WithProgress(ctx, progressFunc(func(phase, _ string) {
		if phase != "observe" {
			return
		}
		start = tk.count()
		for tk.count() < start+2 {
			select {
			case <-tk.wait():
			case <-time.After(10 * time.Second): // a deadlock guard, not a measurement
				waitErr = "the script printed no tick after the observation window opened: the runtime is paused"
				return
			}
		}
		inWindow = tk.count() - start
	}))
	o, err := e.ObserveRuntime(pctx, ports.RuntimeObserveRequest{Endpoint: tk.endpoint, TargetID: list.Targets[0].TargetID, RuntimeKind: "node", ObservationMS: 200})
	is.NoErr(err)
	if waitErr != "" {
		t.Fatal(waitErr)
	}
	is.True(inWindow >= 2)
	is.Equal(len(o.Limitations), 0)
}

// tickerTarget waits until the ticker's inspector lists its target.
func tickerTarget(t *testing.T, e *cdp.RuntimeEngine, tk *ticker) string {
	t.Helper()
	for i := 0; i < 100; i++ {
		if list, err := e.ListRuntimeTargets(context.Background(), ports.RuntimeListRequest{Endpoint: tk.endpoint}); err == nil && len(list.Targets) == 1 {
			return list.Targets[0].TargetID
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the ticker's inspector never listed its target")
	return ""
}

func hasLimitation(lims []string, part string) bool {
	return slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, part) })
}

// observation_ms 0 records what the attach reports (the scripts already
// loaded, the main context) and opens no window, saying so. Before, 0 ran
// as a 100 ms window and the capture said observation_ms 100.
func TestV8ObserveZeroWindowKeepsOnlyTheAttach(t *testing.T) {
	is := is.New(t)
	tk := startTicker(t)
	e := cdp.NewRuntime(nil)
	root, err := filepath.EvalSymlinks(filepath.Dir(tk.script))
	is.NoErr(err)
	o, err := e.ObserveRuntime(context.Background(), ports.RuntimeObserveRequest{Endpoint: tk.endpoint, TargetID: tickerTarget(t, e, tk),
		RuntimeKind: "node", ObservationMS: 0, Scope: ports.RuntimeScope{AllowedFileRoots: []string{root}}})
	is.NoErr(err)
	is.Equal(o.ObservationMS, 0)
	is.True(hasLimitation(o.Limitations, "observation_ms was 0"))
	is.True(len(o.Contexts) >= 1) // the main context, reported on attach
	is.True(slices.ContainsFunc(o.Scripts, func(s ports.RuntimeScript) bool { return strings.HasSuffix(s.Location.FilePath, "/tick.js") }))
}

// A target killed with SIGKILL mid-window fails as disconnected, and the
// error carries what was observed before: the program's own script and
// its context, with a limitation naming the loss. Before, the error had
// no observation at all.
func TestV8ObserveKeepsWhatWasSeenWhenTheTargetIsKilled(t *testing.T) {
	is := is.New(t)
	tk := startTicker(t)
	e := cdp.NewRuntime(nil)
	root, err := filepath.EvalSymlinks(filepath.Dir(tk.script))
	is.NoErr(err)
	pctx := ports.WithProgress(context.Background(), progressFunc(func(phase, _ string) {
		if phase == "observe" {
			syscall.Kill(tk.pid, syscall.SIGKILL) // the test started it
		}
	}))
	_, err = e.ObserveRuntime(pctx, ports.RuntimeObserveRequest{Endpoint: tk.endpoint, TargetID: tickerTarget(t, e, tk),
		RuntimeKind: "node", ObservationMS: 60000, Scope: ports.RuntimeScope{AllowedFileRoots: []string{root}}})
	be, ok := ports.AsBrowserError(err)
	is.True(ok)
	is.Equal(be.Code, ports.BrowserDisconnected)
	var pe *ports.PartialError[ports.RuntimeObservation]
	is.True(errors.As(err, &pe))
	is.True(pe.Partial != nil)
	is.Equal(pe.Partial.ObservationMS, 60000)
	is.True(len(pe.Partial.Contexts) >= 1)
	is.True(slices.ContainsFunc(pe.Partial.Scripts, func(s ports.RuntimeScript) bool { return strings.HasSuffix(s.Location.FilePath, "/tick.js") }))
	is.True(hasLimitation(pe.Partial.Limitations, "The target went away"))
}

// A Node program that aborts mid-window (a crash: its socket closes with
// its contexts alive) fails as disconnected with an error that names the
// process's end, not a browser, and says its exit status is unknown (rea
// did not start it); the partial observation keeps its script and says the
// same. Before, the message was "the target went away during the
// observation: disconnected: the browser closed the connection".
func TestV8ObserveNamesTheEndOfTheObservedProcess(t *testing.T) {
	is := is.New(t)
	tk := startTickerScript(t, tickScript+"process.on('SIGUSR2', () => process.abort());\n")
	e := cdp.NewRuntime(nil)
	root, err := filepath.EvalSymlinks(filepath.Dir(tk.script))
	is.NoErr(err)
	pctx := ports.WithProgress(context.Background(), progressFunc(func(phase, _ string) {
		if phase == "observe" {
			syscall.Kill(tk.pid, syscall.SIGUSR2) // the test started it; it aborts
		}
	}))
	_, err = e.ObserveRuntime(pctx, ports.RuntimeObserveRequest{Endpoint: tk.endpoint, TargetID: tickerTarget(t, e, tk),
		RuntimeKind: "node", ObservationMS: 60000, Scope: ports.RuntimeScope{AllowedFileRoots: []string{root}}})
	is.True(ports.IsCode(err, ports.BrowserDisconnected))
	msg := err.Error()
	is.True(!strings.Contains(msg, "browser"))                   // not a browser
	is.True(strings.Contains(msg, "the observed process ended")) // its end, named
	is.True(strings.Contains(msg, "its exit status is unknown")) // and what rea cannot know
	var pe *ports.PartialError[ports.RuntimeObservation]
	is.True(errors.As(err, &pe))
	is.True(slices.ContainsFunc(pe.Partial.Scripts, func(s ports.RuntimeScript) bool { return strings.HasSuffix(s.Location.FilePath, "/tick.js") }))
	is.True(hasLimitation(pe.Partial.Limitations, "the observed process ended"))
}
