package supervisor

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"rea/ports"
)

// RunIDEnv is the environment variable that carries the run ID into every
// process a Run starts, and through them into their descendants.
const RunIDEnv = "REA_PROCESS_RUN_ID"

// Defaults for Options.
const (
	DefaultGraceDelay = 2 * time.Second
	DefaultWaitDelay  = 5 * time.Second
)

// Options configures a Run. A nil *Options means the defaults; New copies it.
type Options struct {
	// RunID is the value of REA_PROCESS_RUN_ID (core passes
	// analysis_run.run_id). "" means a new random UUID. At most 128 bytes of
	// letters, digits, '-', '_' and '.'.
	RunID string
	// ExitDelay is how long a stop sequence waits, after closing stdin, for
	// the processes to exit by themselves before SIGTERM. 0 means no wait.
	ExitDelay time.Duration
	// GraceDelay is how long processes have to exit after SIGTERM before they
	// get SIGKILL. 0 means DefaultGraceDelay.
	GraceDelay time.Duration
	// WaitDelay is how long to wait for processes to vanish after SIGKILL.
	// 0 means DefaultWaitDelay.
	WaitDelay time.Duration
	// TempParent is the directory TempDir creates roots in; "" means
	// os.TempDir().
	TempParent string
}

// Spec describes the command a Run launches.
type Spec struct {
	// Path is the program. A name without a path separator is looked up in
	// this process's PATH; a relative path is taken relative to Dir.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory; "" means this process's.
	Dir string
	// Env is the environment; nil means this process's. Any REA_PROCESS_RUN_ID
	// in it is replaced by the run's ID.
	Env []string
	// Stdin, Stdout and Stderr are given to the process as they are (a file, a
	// PTY) and stay the caller's. A nil one is a pipe the Run creates: write
	// to Run.Stdin, read Run.Stdout and Run.Stderr.
	Stdin, Stdout, Stderr *os.File
	// Session starts the process in a new session (setsid) instead of only a
	// new process group; either way the process group ID is its PID.
	Session bool
	// ControllingTerminal makes Stdin, which must be a terminal, the
	// controlling terminal of the new session. It implies Session.
	ControllingTerminal bool
}

// Run owns one launched process, its proven descendants, and the temporary
// roots and sockets registered with it. All methods are safe for concurrent
// use. Call Cleanup exactly when the run is over, whatever happened: it is
// what releases everything, including the goroutine that watches Start's
// context.
type Run struct {
	id   string
	opts Options

	mu        sync.Mutex
	started   bool
	cleaned   bool
	cmd       *exec.Cmd
	pid       int    // launcher
	startTick uint64 // launcher start time in clock ticks after boot; 0 when unknown
	pgid      int
	known     map[int]uint64                                         // every process proven ours so far: pid -> start ticks
	groups    []int                                                  // owned process groups (the launcher's from launch on), still live at the last look
	session   int                                                    // the session the launcher leads (Spec.Session), 0 once it emptied or when none
	tokenMu   sync.Mutex                                             // guards tokens (held while environments are read, not mu)
	tokens    map[procKey]tokenSeen                                  // what each live process's environment showed when first read (readable ones only)
	tokenOf   func(pid int, name, value string) (tokenResult, error) // nil: tokenState (tests count the reads)
	launchSID int                                                    // the launcher's session at launch
	lookMu    sync.Mutex                                             // serialises Look, and guards seen and sessions
	seen      map[int]seenStat                                       // what the last look read of each process's stat
	looks     int                                                    // lookTable's readings so far
	sessions  map[int]bool                                           // the sessions of processes Look proved ours
	statHook  func(pid int) (procInfo, error)                        // nil: readStat (tests count Look's reads)
	exitFDs   map[procKey]int                                        // a pidfd per watched stranger (see watchStrangers); guarded by lookMu
	signals   []ports.SignalAttempt
	roots     []ownedRoot
	sockets   []string
	stdin     *os.File // our ends of the pipes we created
	stdout    *os.File
	stderr    *os.File

	exited   chan struct{} // closed when the launcher has been waited for
	state    *os.ProcessState
	waitErr  error
	stopMu   sync.Mutex    // one stop sequence at a time
	done     chan struct{} // closed by Cleanup: ends the context watcher
	doneOnce sync.Once
}

type ownedRoot struct {
	path string
	info os.FileInfo
}

// New returns a Run with nothing started yet, so temporary roots can be
// created (TempDir) before the process that uses them is launched.
func New(opts *Options) (*Run, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.GraceDelay <= 0 {
		o.GraceDelay = DefaultGraceDelay
	}
	if o.WaitDelay <= 0 {
		o.WaitDelay = DefaultWaitDelay
	}
	if o.RunID == "" {
		id, err := newUUID()
		if err != nil {
			return nil, fmt.Errorf("supervisor: run id: %w", err)
		}
		o.RunID = id
	} else if err := checkRunID(o.RunID); err != nil {
		return nil, err
	}
	return &Run{
		id:     o.RunID,
		opts:   o,
		known:  map[int]uint64{},
		exited: make(chan struct{}),
		done:   make(chan struct{}),
	}, nil
}

// Start is New followed by Run.Start. On a launch failure the Run is cleaned
// up before the error is returned.
func Start(ctx context.Context, spec Spec, opts *Options) (*Run, error) {
	r, err := New(opts)
	if err != nil {
		return nil, err
	}
	if err := r.Start(ctx, spec); err != nil {
		r.Cleanup(context.WithoutCancel(ctx))
		return nil, err
	}
	return r, nil
}

func checkRunID(id string) error {
	if len(id) > 128 {
		return errors.New("supervisor: run id longer than 128 bytes")
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("supervisor: run id %q: byte %d is not a letter, digit, '-', '_' or '.'", id, i)
		}
	}
	return nil
}

func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// ID returns the run ID every launched process carries in REA_PROCESS_RUN_ID.
func (r *Run) ID() string { return r.id }

// TempDir creates a new directory (mode 0700) under Options.TempParent, owned
// by the run and removed by Cleanup. pattern is as for os.MkdirTemp.
func (r *Run) TempDir(pattern string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cleaned {
		return "", errors.New("supervisor: temp dir: run already cleaned up")
	}
	dir, err := os.MkdirTemp(r.opts.TempParent, pattern)
	if err != nil {
		return "", fmt.Errorf("supervisor: temp dir: %w", err)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	info, err := os.Lstat(dir)
	if err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("supervisor: temp dir: %w", err)
	}
	r.roots = append(r.roots, ownedRoot{path: dir, info: info})
	return dir, nil
}

// RegisterSocket makes the Unix socket at path owned by the run: Cleanup
// removes it if it is still a socket there.
func (r *Run) RegisterSocket(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sockets = append(r.sockets, path)
}

// Start launches spec in a process group of its own with REA_PROCESS_RUN_ID
// set. A Run launches one process. When ctx is cancelled the stop sequence
// runs (as for Stop); ctx bounds the life of the processes, not of Start.
func (r *Run) Start(ctx context.Context, spec Spec) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("supervisor: start: %w", err)
	}
	if err := checkSpec(spec); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.cleaned:
		return errors.New("supervisor: start: run already cleaned up")
	case r.started:
		return errors.New("supervisor: start: run already launched a process")
	}
	attr, err := sysProcAttr(spec)
	if err != nil {
		return err
	}
	path := spec.Path
	if !strings.ContainsRune(path, os.PathSeparator) && !strings.ContainsRune(path, '/') {
		if path, err = exec.LookPath(path); err != nil {
			return fmt.Errorf("supervisor: start %s: %w", spec.Path, err)
		}
	}
	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string{spec.Path}, spec.Args...),
		Dir:         spec.Dir,
		Env:         r.environ(spec.Env),
		SysProcAttr: attr,
	}

	var childEnds, ourEnds []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	pipe := func(given *os.File, childReads bool) (child, ours *os.File, err error) {
		if given != nil {
			return given, nil, nil
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, nil, err
		}
		if childReads {
			child, ours = pr, pw
		} else {
			child, ours = pw, pr
		}
		childEnds = append(childEnds, child)
		ourEnds = append(ourEnds, ours)
		return child, ours, nil
	}
	var stdin, stdout, stderr, child *os.File
	if child, stdin, err = pipe(spec.Stdin, true); err == nil {
		cmd.Stdin = child
		if child, stdout, err = pipe(spec.Stdout, false); err == nil {
			cmd.Stdout = child
			if child, stderr, err = pipe(spec.Stderr, false); err == nil {
				cmd.Stderr = child
			}
		}
	}
	if err != nil {
		closeAll(childEnds)
		closeAll(ourEnds)
		return fmt.Errorf("supervisor: start %s: pipe: %w", spec.Path, err)
	}
	err = cmd.Start()
	closeAll(childEnds)
	if err != nil {
		closeAll(ourEnds)
		return fmt.Errorf("supervisor: start %s: %w%s", spec.Path, err, missingRunner(path, err))
	}

	// The launcher cannot be reaped before cmd.Wait, so its PID is stable
	// here even if it already exited: read its start time now.
	r.started = true
	r.cmd = cmd
	r.pid = cmd.Process.Pid
	r.pgid = r.pid
	// The launcher's group (and session) are known from this instant, not
	// only from the first look at the process table: a launcher that exits
	// before that look must not hide an unproven process it left in them.
	r.groups = []int{r.pgid}
	if spec.Session || spec.ControllingTerminal {
		r.session = r.pid
	}
	r.stdin, r.stdout, r.stderr = stdin, stdout, stderr
	if st, err := readStat(r.pid); err == nil && st.pid == r.pid {
		r.startTick = st.start
		r.known[r.pid] = st.start
		r.launchSID = st.sid
	}
	go func() {
		err := cmd.Wait()
		r.mu.Lock()
		r.state, r.waitErr = cmd.ProcessState, err
		r.mu.Unlock()
		close(r.exited)
	}()
	go func() {
		select {
		case <-ctx.Done():
			// The call that started the run is over: no progress goes to it.
			r.Stop(context.Background())
		case <-r.done:
		}
	}()
	return nil
}

func checkSpec(spec Spec) error {
	if spec.Path == "" {
		return errors.New("supervisor: start: empty program path")
	}
	bad := func(s string) bool { return strings.IndexByte(s, 0) >= 0 }
	if bad(spec.Path) || bad(spec.Dir) {
		return errors.New("supervisor: start: NUL byte in path")
	}
	for _, a := range spec.Args {
		if bad(a) {
			return errors.New("supervisor: start: NUL byte in an argument")
		}
	}
	for _, e := range spec.Env {
		if bad(e) || !strings.Contains(e, "=") {
			return fmt.Errorf("supervisor: start: environment entry %q is not NAME=value without NUL", e)
		}
	}
	if spec.ControllingTerminal && spec.Stdin == nil {
		return errors.New("supervisor: start: a controlling terminal needs Stdin")
	}
	return nil
}

// environ returns env (or this process's) without any REA_PROCESS_RUN_ID,
// followed by ours.
func (r *Run) environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if !strings.HasPrefix(e, RunIDEnv+"=") {
			out = append(out, e)
		}
	}
	return append(out, RunIDEnv+"="+r.id)
}

// PID returns the launcher's PID, 0 before Start.
func (r *Run) PID() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pid
}

// Stdin is the write end of the process's stdin pipe, nil when Spec.Stdin was
// given or nothing was started. Stop closes it.
func (r *Run) Stdin() *os.File {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stdin
}

// Stdout is the read end of the process's stdout pipe, nil when Spec.Stdout
// was given. Descendants that inherited it keep it open. Cleanup closes it.
func (r *Run) Stdout() *os.File {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stdout
}

// Stderr is as Stdout, for stderr.
func (r *Run) Stderr() *os.File {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr
}

// Exited is closed once the launcher has exited and been waited for. It never
// closes when nothing was started.
func (r *Run) Exited() <-chan struct{} { return r.exited }

// Wait waits for the launcher to exit and returns its state. Descendants may
// outlive it. The error is ctx's, or the launcher's wait error (an
// *exec.ExitError for a non-zero exit).
func (r *Run) Wait(ctx context.Context) (*os.ProcessState, error) {
	r.mu.Lock()
	started := r.started
	r.mu.Unlock()
	if !started {
		return nil, errors.New("supervisor: wait: nothing started")
	}
	select {
	case <-r.exited:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.state, r.waitErr
}

// Signals returns every signal attempt so far, in order.
func (r *Run) Signals() []ports.SignalAttempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ports.SignalAttempt(nil), r.signals...)
}

// CleanupContext returns the context to clean up with after ctx ended or was
// cancelled: it keeps ctx's values (progress) but not its cancellation, and
// expires after d. d <= 0 means the time a stop sequence may take with the
// default delays, plus a margin.
func CleanupContext(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		d = DefaultGraceDelay + DefaultWaitDelay + 5*time.Second
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// missingRunner explains an exec that failed with "no such file or
// directory" although the file is there: the kernel could not find what
// runs it, the interpreter of its #! line or an ELF program's loader. It
// returns "" for any other failure.
func missingRunner(path string, err error) string {
	if !errors.Is(err, os.ErrNotExist) {
		return ""
	}
	f, oerr := os.Open(path)
	if oerr != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	head = head[:n]
	if line, ok := bytes.CutPrefix(head, []byte("#!")); ok {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		if fields := strings.Fields(string(line)); len(fields) > 0 {
			return fmt.Sprintf(" (the file exists: the interpreter its #! line names, %s, does not)", fields[0])
		}
		return " (the file exists: its #! line names no interpreter)"
	}
	if bytes.HasPrefix(head, []byte("\x7fELF")) {
		return " (the file exists: the loader it asks for, its ELF interpreter, is not on this machine)"
	}
	return ""
}
