package cdp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"rea/ports"
	"rea/supervisor"
)

// Launcher starts a browser that rea owns. It is the one seam between this
// package and process management, so a shared supervisor can take it over.
type Launcher interface {
	Launch(ctx context.Context, spec LaunchSpec) (OwnedBrowser, error)
}

// LaunchSpec describes an owned browser.
type LaunchSpec struct {
	ExecutablePath string // "" looks up chromium, then chromium-browser, in PATH
	StartURL       string // "" opens about:blank
	ExtraArgs      []string
}

// OwnedBrowser is a running owned browser. Close ends every process it
// started and removes every file it made, and reports what it could not.
type OwnedBrowser interface {
	Endpoint() string // http://127.0.0.1:PORT
	ProfileDir() string
	PID() int
	Close(ctx context.Context) error
}

// ChromiumLauncher launches Chromium headless on 127.0.0.1 with
// --remote-debugging-port=0 and a fresh profile, in its own process group,
// and takes the port from the "DevTools listening on" line Chromium writes
// to its standard error as it starts listening, or from DevToolsActivePort,
// whichever it sees first.
type ChromiumLauncher struct {
	// StartTimeout bounds the wait for the DevTools port (30 s).
	StartTimeout time.Duration
}

// chromiumFlags are BROWSER.md §9's launch flags plus STACK.md's.
var chromiumFlags = []string{
	"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
	"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
	"--no-first-run", "--no-default-browser-check", "--disable-background-networking",
	"--disable-component-update", "--disable-dev-shm-usage", "--disable-sync",
	"--metrics-recording-only", "--disable-crash-reporter", "--disable-breakpad",
	"--password-store=basic", "--use-mock-keychain",
}

// launchedHeadless holds the endpoints of the browsers this process
// launched, all with --headless=new, until they are closed: what rea passed
// a browser tells a screenshot whether it is headless (see headless).
var launchedHeadless sync.Map

// launchEnv is the environment allowlist of an owned browser.
var launchEnv = []string{"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "HOME", "LANG", "LD_LIBRARY_PATH", "PATH", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR"}

// FindChromium returns the Chromium executable in PATH, or "".
func FindChromium() string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

type chromium struct {
	run      *supervisor.Run
	root     string // holds profile/ and tmp/
	endpoint string
	once     sync.Once
	closeErr error
}

// Launch starts Chromium and waits until its DevTools port is known. A
// Chromium that exits at start-up before it listens (it happens now and then
// on a loaded machine) is started once more, with a fresh profile, after the
// first is cleaned up; the error names both exits when the second fails too.
func (l ChromiumLauncher) Launch(ctx context.Context, spec LaunchSpec) (OwnedBrowser, error) {
	b, err := l.launchOnce(ctx, spec)
	var early *earlyExit
	if err == nil || !errors.As(err, &early) {
		return b, err
	}
	if ctx.Err() != nil {
		return nil, early.browserError()
	}
	b, err = l.launchOnce(ctx, spec)
	var again *earlyExit
	if errors.As(err, &again) {
		return nil, &ports.BrowserError{Code: ports.BrowserEndpointUnreachable,
			Msg: "chromium exited before it listened, twice; first: " + early.msg + "; then: " + again.msg}
	}
	return b, err
}

// earlyExit is a Chromium that exited before it wrote its DevTools port.
type earlyExit struct{ msg string }

func (e *earlyExit) browserError() *ports.BrowserError {
	return &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "chromium exited before it listened: " + e.msg}
}

func (e *earlyExit) Error() string { return e.browserError().Error() }

func (l ChromiumLauncher) launchOnce(ctx context.Context, spec LaunchSpec) (OwnedBrowser, error) {
	exe := spec.ExecutablePath
	if exe == "" {
		exe = FindChromium()
	}
	if exe == "" {
		return nil, &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "no chromium executable in PATH"}
	}
	// The supervisor owns the browser's process group, every helper proven
	// ours (by lineage or by the run ID in its environment), and the root.
	run, err := supervisor.New(&supervisor.Options{GraceDelay: 3 * time.Second, TempParent: profileParent()})
	if err != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "cannot own a process here", Err: err}
	}
	b := &chromium{run: run}
	fail := func(err error) (OwnedBrowser, error) {
		if cerr := b.Close(context.WithoutCancel(ctx)); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	if b.root, err = run.TempDir("rea-browser-"); err != nil {
		return fail(&ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "cannot create the profile directory", Err: err})
	}
	profile, tmp := filepath.Join(b.root, "profile"), filepath.Join(b.root, "tmp")
	for _, d := range []string{profile, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return fail(&ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "cannot create the profile directory", Err: err})
		}
	}
	args := append(append([]string{}, chromiumFlags...), "--user-data-dir="+profile)
	args = append(args, spec.ExtraArgs...)
	start := spec.StartURL
	if start == "" {
		start = "about:blank"
	}
	args = append(args, start)
	env := []string{"TMPDIR=" + tmp, "TMP=" + tmp, "TEMP=" + tmp}
	for _, k := range launchEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fail(&ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "cannot open " + os.DevNull, Err: err})
	}
	err = run.Start(context.WithoutCancel(ctx), supervisor.Spec{Path: exe, Args: args, Dir: b.root, Env: env, Stdin: null, Stdout: null})
	null.Close()
	if err != nil {
		return fail(&ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "cannot start " + exe, Err: err})
	}
	stderr := &limitedWriter{n: 64 << 10, wrote: make(chan struct{}, 1)}
	copied := make(chan struct{})
	go func() { io.Copy(stderr, run.Stderr()); close(copied) }()
	timeout := l.StartTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	deadline := time.Now().Add(timeout)
	portFile := filepath.Join(profile, "DevToolsActivePort")
	for {
		if p := listeningPort(stderr.String(), portFile); p != 0 {
			b.endpoint = "http://127.0.0.1:" + strconv.Itoa(p)
			launchedHeadless.Store(b.endpoint, true)
			return b, nil
		}
		select {
		case <-ctx.Done():
			return fail(cancelled(ctx))
		case <-run.Exited():
			st, _ := run.Wait(context.WithoutCancel(ctx))
			select { // what it wrote before it exited, unless a helper holds the pipe
			case <-copied:
			case <-time.After(200 * time.Millisecond):
			}
			return fail(&earlyExit{msg: st.String() + ": " + strings.TrimSpace(stderr.String())})
		case <-stderr.wrote:
		case <-time.After(portFilePoll):
			if time.Now().After(deadline) {
				return fail(&ports.BrowserError{Code: ports.BrowserTimeout, Msg: "chromium did not write DevToolsActivePort"})
			}
		}
	}
}

func (b *chromium) Endpoint() string   { return b.endpoint }
func (b *chromium) ProfileDir() string { return filepath.Join(b.root, "profile") }
func (b *chromium) PID() int           { return b.run.PID() }

// Close stops the browser through its supervisor (SIGTERM to what is proven
// ours, then SIGKILL after 3 s), removes the profile root, and reports what
// remains.
func (b *chromium) Close(ctx context.Context) error {
	b.once.Do(func() { b.closeErr = b.close(ctx) })
	return b.closeErr
}

func (b *chromium) close(ctx context.Context) error {
	if b.endpoint != "" {
		launchedHeadless.Delete(b.endpoint)
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	err := b.run.Cleanup(cctx)
	if err == nil {
		return nil
	}
	resources := []string{"process"}
	var ce *ports.CleanupError
	if errors.As(err, &ce) {
		resources = cleanupKinds(ce)
	}
	return &ports.BrowserError{Code: ports.BrowserCleanupFailed, Cleanup: "incomplete", Resources: resources,
		Msg: fmt.Sprintf("owned browser cleanup left %v", resources), Err: err}
}

// portFilePoll is how often DevToolsActivePort is read while Chromium
// writes nothing to its standard error (every write wakes the wait).
const portFilePoll = 100 * time.Millisecond

// listeningPort is the DevTools port of a starting Chromium: from the
// "DevTools listening on ws://127.0.0.1:PORT/..." line of its standard
// error, else from the first line of DevToolsActivePort; 0 while neither
// names one. Only a loopback listener counts: rea asked for 127.0.0.1.
func listeningPort(stderr, portFile string) int {
	if _, rest, ok := strings.Cut(stderr, "DevTools listening on ws://127.0.0.1:"); ok {
		if port, _, ok := strings.Cut(rest, "/"); ok {
			if p, err := strconv.Atoi(port); err == nil && p > 0 && p < 65536 {
				return p
			}
		}
	}
	data, err := os.ReadFile(portFile)
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if p, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && p > 0 && p < 65536 {
		return p
	}
	return 0
}

// limitedWriter keeps the first n bytes written to it and signals wrote
// (when it is not nil) after each write.
type limitedWriter struct {
	mu    sync.Mutex
	w     bytes.Buffer
	n     int
	wrote chan struct{}
}

func (l *limitedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	if l.wrote != nil {
		select {
		case l.wrote <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// ScenarioAvailability says whether owned scenario browsers can run here:
// with the default launcher, whether a Chromium executable is in PATH.
// Passive capabilities need nothing local.
func (e *Engine) ScenarioAvailability() ports.Availability {
	if _, ok := e.opts.Launcher.(ChromiumLauncher); ok && FindChromium() == "" {
		return ports.Availability{Code: "executable_missing", Reason: "no chromium, chromium-browser or google-chrome in PATH"}
	}
	return ports.Availability{Available: true}
}

// maxSocketDir bounds the directory Chromium creates its Unix sockets under
// (the profile's singleton socket, and TMPDIR): a socket path is at most 107
// bytes, and Chromium exits at start-up when it cannot bind one.
const maxSocketDir = 48

// profileParent is where the owned profile root goes: the temporary
// directory, or /tmp when that path is too long for Chromium's sockets (a
// test's or a sandbox's TMPDIR often is).
func profileParent() string {
	dir := os.TempDir()
	if len(dir) <= maxSocketDir {
		return dir
	}
	if st, err := os.Stat("/tmp"); err == nil && st.IsDir() {
		return "/tmp"
	}
	return dir
}
