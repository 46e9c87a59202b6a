package gdbremote

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// Limits on a request.
const (
	MaxBreakpoints = 1024
	maxStops       = 50_000_000 // a backstop; MaxDuration is the real bound
)

// Options configures a Tracer. A nil *Options means the defaults; New copies
// it.
type Options struct {
	// Server is the gdbserver program: a path, or a name looked up in PATH.
	// "" means "gdbserver".
	Server string
	// ExitGrace is how long the server may take to exit by itself at the end
	// of a trace before it is stopped. 0 means 2 seconds.
	ExitGrace time.Duration
	// Emulators names, per architecture ("arm64", "x86-64", "x86"), the user-mode
	// emulator with a GDB stub that runs a launched program built for an
	// architecture other than the host's; a missing entry means QEMU's
	// (qemu-aarch64, qemu-x86_64).
	Emulators map[string]string
}

// Tracer traces native calls under gdbserver. It holds no state between
// calls and is safe for concurrent use.
type Tracer struct {
	opts Options
	// dial replaces launching gdbserver (tests replay recorded sessions
	// through it); tap sees every packet (tests record sessions with it).
	dial func(ctx context.Context, req ports.TraceRequest) (endpoint, error)
	tap  func(dir byte, payload []byte)
	// x87Stack is, by emulator path, whether its stub gives the x87
	// registers as the stack (emulatorVersion): asked once per Tracer.
	x87Stack sync.Map
}

// emulatorX87Stack reports whether the emulator at qemu gives the x87
// registers as the stack, as QEMU does from 8.0; its --version is run the
// first time only (a version it cannot read counts as older).
func (t *Tracer) emulatorX87Stack(ctx context.Context, qemu string) bool {
	if v, ok := t.x87Stack.Load(qemu); ok {
		return v.(bool)
	}
	major, _, ok := emulatorVersion(ctx, qemu)
	stack := ok && major >= 8
	if ok {
		t.x87Stack.Store(qemu, stack)
	}
	return stack
}

var _ ports.CallTracer = (*Tracer)(nil)

// New returns a Tracer.
func New(opts *Options) *Tracer {
	t := &Tracer{}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.Server == "" {
		t.opts.Server = "gdbserver"
	}
	if t.opts.ExitGrace <= 0 {
		t.opts.ExitGrace = 2 * time.Second
	}
	return t
}

// Available reports whether some program can be traced: nil when
// gdbserver, or an emulator for a program of another architecture, can be
// started; else an error matching ports.ErrDebuggerMissing. TraceCalls says
// which one a given program lacks.
func (t *Tracer) Available() error {
	if t.dial != nil {
		return nil
	}
	_, err := t.serverPath()
	if err == nil {
		return nil
	}
	for _, arch := range emulatedArchs {
		if _, e := t.emulatorFor(arch); e == nil && arch != hostArch() {
			return nil
		}
	}
	return err
}

func (t *Tracer) serverPath() (string, error) {
	p, err := exec.LookPath(t.opts.Server)
	if err != nil {
		return "", fmt.Errorf("%s: %w (install Debian's gdbserver package)", t.opts.Server, ports.ErrDebuggerMissing)
	}
	return p, nil
}

// TraceCalls implements ports.CallTracer.
func (t *Tracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	res := &ports.TraceResult{Coverage: ports.TraceCoverage{StopReason: ports.TraceStopFailed}}
	fail := func(op string, err error) (*ports.TraceResult, error) {
		return nil, &ports.TraceError{Op: op, Err: err, Partial: res}
	}
	op := "launch"
	if req.Attach != nil {
		op = "attach"
	}
	target, err := checkRequest(&req)
	if err != nil {
		return fail(op, err)
	}
	if err := ctx.Err(); err != nil {
		res.Coverage.StopReason = ports.TraceStopCancelled
		return fail(op, err)
	}
	dial := t.dial
	var sysroot string // where an emulator takes the program's libraries from
	asyncOff := false  // a Go program runs with asyncpreemptoff=1 (noAsyncPreemption)
	var procMaps func(int) ([]byte, error)
	emulated := false
	switch {
	case dial != nil:
	case target != nil && target.arch != hostArch():
		qemu, err := t.emulatorFor(target.arch)
		if err != nil {
			return fail(op, err)
		}
		if sysroot, err = loaderPrefix(target, req.Launch.Env); err != nil {
			return fail(op, err)
		}
		if asyncOff = target.goBuild; asyncOff {
			l := *req.Launch
			l.Env = noAsyncPreemption(l.Env)
			req.Launch = &l
		}
		procMaps, emulated = readProcMaps, true // the emulator's, which rea starts
		x87Stack := target.arch == "x86" && t.emulatorX87Stack(ctx, qemu)
		dial = func(ctx context.Context, req ports.TraceRequest) (endpoint, error) {
			return startEmulated(ctx, qemu, sysroot, req, t.opts.ExitGrace, x87Stack)
		}
	default:
		path, err := t.serverPath()
		if err != nil {
			return fail(op, err)
		}
		dial = func(ctx context.Context, req ports.TraceRequest) (endpoint, error) {
			return startServer(ctx, path, req, t.opts.ExitGrace)
		}
		procMaps = readProcMaps
	}
	ep, err := dial(ctx, req)
	if err != nil {
		return fail(op, fmt.Errorf("%w: start: %w", ports.ErrDebuggerDied, err))
	}
	c := newConn(ep, t.tap)
	s := &session{
		req:      req,
		target:   target,
		cl:       &client{c: c},
		ep:       ep,
		res:      res,
		bps:      map[uint64]*breakpoint{},
		stopOp:   op,
		sysroot:  sysroot,
		asyncOff: asyncOff,
		procMaps: procMaps,
		emulated: emulated,
	}
	traceErr := s.trace(ctx)

	// Whatever happened, release the program and stop the server.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	ports.Observe(ctx, "cleanup", "stopping the debugger server")
	s.release(cctx)
	signals, cleanupErr := ep.close(cctx)
	c.close()
	res.Signals = signals
	var ce *ports.CleanupError
	if errors.As(cleanupErr, &ce) {
		res.Remaining = ce.Resources
	}
	s.finishCoverage()
	switch {
	case traceErr != nil:
		return nil, &ports.TraceError{Op: s.stopOp, Err: s.classify(traceErr), Partial: res}
	case cleanupErr != nil:
		return nil, &ports.TraceError{Op: "cleanup", Err: cleanupErr, Partial: res}
	}
	return res, nil
}

// checkRequest validates the request and reads the link-time facts of the
// launched executable.
func checkRequest(req *ports.TraceRequest) (*elfInfo, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ports.ErrTraceRequest}, a...)...)
	}
	if (req.Launch == nil) == (req.Attach == nil) {
		return nil, bad("exactly one of launch and attach must be given")
	}
	if len(req.Breakpoints) == 0 {
		return nil, bad("no breakpoints")
	}
	if len(req.Breakpoints) > MaxBreakpoints {
		return nil, bad("%d breakpoints: at most %d", len(req.Breakpoints), MaxBreakpoints)
	}
	for i, b := range req.Breakpoints {
		if b.Symbol != "" && (b.Address != 0 || b.Module != "" || strings.IndexByte(b.Symbol, 0) >= 0 || len(b.Symbol) > 1024) {
			return nil, bad("breakpoint %d: a symbol breakpoint has no address or module and a name of at most 1024 bytes without NUL", i)
		}
	}
	if req.MaxHits < 0 || req.MaxHits > ports.MaxTraceHits || req.MaxDuration < 0 {
		return nil, bad("limits out of range (max hits 0 to %d, duration not negative)", ports.MaxTraceHits)
	}
	if req.MaxHits == 0 {
		req.MaxHits = ports.DefaultTraceMaxHits
	}
	if req.MaxDuration == 0 {
		req.MaxDuration = ports.DefaultTraceMaxDuration
	}
	if req.Attach != nil {
		if req.Attach.PID <= 0 {
			return nil, fmt.Errorf("pid %d: %w", req.Attach.PID, ports.ErrTargetNotFound)
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(req.Attach.PID)); err != nil {
			return nil, fmt.Errorf("pid %d: %w", req.Attach.PID, ports.ErrTargetNotFound)
		}
		return nil, nil
	}
	l := req.Launch
	if l.Path == "" || strings.IndexByte(l.Path, 0) >= 0 {
		return nil, fmt.Errorf("program path %q: %w", l.Path, ports.ErrTargetNotFound)
	}
	for _, a := range l.Args {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, bad("argument with a NUL byte")
		}
	}
	for _, e := range l.Env {
		name, _, ok := strings.Cut(e, "=")
		switch {
		case !ok || name == "" || strings.IndexByte(e, 0) >= 0:
			return nil, bad("environment entry %q is not NAME=value", e)
		case name == supervisor.RunIDEnv:
			return nil, bad("the environment may not set %s: the supervisor sets it", name)
		}
	}
	if l.Dir != "" {
		if fi, err := os.Stat(l.Dir); err != nil || !fi.IsDir() {
			return nil, bad("working directory %s is not a directory", l.Dir)
		}
	}
	path := l.Path
	if !strings.HasPrefix(path, "/") && l.Dir != "" {
		path = l.Dir + "/" + path
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", l.Path, ports.ErrTargetNotFound)
	case err != nil:
		return nil, fmt.Errorf("%s: %w: %v", l.Path, ports.ErrTargetNotExecutable, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory: %w", l.Path, ports.ErrTargetNotExecutable)
	case fi.Mode()&0o111 == 0:
		return nil, fmt.Errorf("%s has no execute permission: %w", l.Path, ports.ErrTargetNotExecutable)
	}
	info, err := readELF(path)
	if err != nil {
		return nil, err
	}
	return info, nil
}

// elfInfo is what relocation needs of an executable.
type elfInfo struct {
	path     string
	entry    uint64
	dynamic  uint64 // link-time address of PT_DYNAMIC; 0 for a static executable
	interp   string // the loader PT_INTERP names; "" for a static executable
	arch     string
	goBuild  bool        // a Go program (its .go.buildinfo section)
	segments [][2]uint64 // loadable segments: [start, end) at link time
	// importsJump says the executable imports a longjmp function, jumps
	// are those it defines (link time; jumps.go).
	importsJump bool
	jumps       []uint64
}

func readELF(path string) (*elfInfo, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s is not an ELF executable: %w", path, ports.ErrTargetNotExecutable)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return nil, fmt.Errorf("%s is an ELF %v, not an executable: %w", path, f.Type, ports.ErrTargetNotExecutable)
	}
	info := &elfInfo{path: path, entry: f.Entry, goBuild: f.Section(".go.buildinfo") != nil}
	for _, p := range f.Progs {
		if p.Type == elf.PT_DYNAMIC {
			info.dynamic = p.Vaddr
		}
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(io.LimitReader(p.Open(), 4096))
			if err != nil {
				return nil, fmt.Errorf("%s: program interpreter: %w", path, ports.ErrTargetNotExecutable)
			}
			info.interp = strings.TrimRight(string(b), "\x00")
		}
		if p.Type == elf.PT_LOAD && len(info.segments) < 64 {
			info.segments = append(info.segments, [2]uint64{p.Vaddr, p.Vaddr + p.Memsz})
		}
	}
	info.importsJump, info.jumps = jumpSymbols(f)
	switch f.Machine {
	case elf.EM_X86_64:
		info.arch = "x86-64"
	case elf.EM_386:
		info.arch = "x86"
	case elf.EM_AARCH64:
		info.arch = "arm64"
	default:
		return nil, fmt.Errorf("%s: machine %v: %w", path, f.Machine, ports.ErrTargetNotExecutable)
	}
	return info, nil
}

// noAsyncPreemption is a Go program's environment under an emulator: env
// (rea's when nil) with asyncpreemptoff=1 first in GODEBUG, so that a
// setting of the program's own still wins (the last one does). Go's
// asynchronous preemption signals threads with SIGURG, and at those
// signals QEMU 7.2's user-mode stub now and then sends a stop it was asked
// to pass, or a packet whose first byte it overwrote (about one traced run
// in 100 to 200; none in 297 runs without). Goroutines are then preempted
// at function calls only; the trace says so (finishCoverage).
func noAsyncPreemption(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	setting := "GODEBUG=asyncpreemptoff=1"
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GODEBUG="); ok {
			if v != "" {
				setting += "," + v
			}
			continue
		}
		out = append(out, e)
	}
	return append(out, setting)
}

// hostLibraryHint explains a trace under an emulator that ran out of time
// with a library from the host rather than the sysroot: with Debian's
// libc6-i386 installed, the host's loader cache sends an i386 program to
// /lib32's libc, under which QEMU 7.2 hangs a threaded program. It is ""
// when no library the trace listed came from outside the sysroot.
func (s *session) hostLibraryHint() string {
	if s.sysroot == "" || len(s.res.Modules) < 2 {
		return ""
	}
	root := filepath.Clean(s.sysroot) + string(filepath.Separator)
	for _, m := range s.res.Modules[1:] {
		if filepath.IsAbs(m.Path) && !strings.HasPrefix(m.Path, root) {
			return fmt.Sprintf("the program ran under the emulator with the host's %s rather than %s's, where QEMU can hang a program; "+
				"environment LD_LIBRARY_PATH=%s makes the loader take the sysroot's libraries", m.Path, filepath.Clean(s.sysroot), filepath.Join(s.sysroot, "lib"))
		}
	}
	return ""
}

// classify maps a failure onto the ports sentinels, adding the server's last
// words when it died.
func (s *session) classify(err error) error {
	var er *errorReply
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		if hint := s.hostLibraryHint(); hint != "" {
			return fmt.Errorf("%w (%s)", err, hint)
		}
		return err
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, errNotSupported), errors.Is(err, errUnsupportedArch):
		return fmt.Errorf("debugger server: %w: %v", ports.ErrUnsupported, err)
	case errors.Is(err, ErrServerGone), errors.Is(err, ErrProtocol), errors.Is(err, io.ErrClosedPipe):
		msg := strings.TrimSpace(s.ep.log())
		if i := strings.LastIndexByte(msg, '\n'); len(msg) > 512 && i >= 0 {
			msg = msg[max(0, len(msg)-512):]
		}
		if strings.Contains(msg, "Cannot attach to process") {
			return fmt.Errorf("%w: %v (server said: %s)", ports.ErrTargetNotFound, err, msg)
		}
		if strings.Contains(msg, "Cannot exec") || strings.Contains(msg, "Exec format error") {
			return fmt.Errorf("%w: %v (server said: %s)", ports.ErrTargetNotExecutable, err, msg)
		}
		if msg != "" {
			return fmt.Errorf("%w: %w (server said: %s)", ports.ErrDebuggerDied, err, msg)
		}
		return fmt.Errorf("%w: %w", ports.ErrDebuggerDied, err)
	case errors.As(err, &er):
		return err
	}
	return err
}

// readProcMaps reads the memory map of a process on this host, bounded.
func readProcMaps(pid int) ([]byte, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4<<20))
}
