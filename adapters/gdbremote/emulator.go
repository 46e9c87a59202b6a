package gdbremote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"rea/ports"
	"rea/supervisor"
)

// A program built for another architecture than the host's runs under QEMU's
// user-mode emulator, whose built-in GDB stub speaks the same protocol as
// gdbserver: `qemu-aarch64 -g SOCKET program args` starts the program stopped
// at its first instruction and waits on a Unix socket for one debugger. The
// emulated program is the emulator process itself (getpid in the program is
// QEMU's PID), so the supervisor owns it exactly as it owns gdbserver.

// emulatedArchs are the architectures the tracer reads under QEMU;
// defaultEmulator names QEMU's user-mode emulator for each (switches and
// arrays of constants: a package-level map is built by init code every rea
// process runs).
var emulatedArchs = [...]string{"arm64", "x86-64", "x86"}

func defaultEmulator(arch string) string {
	switch arch {
	case "arm64":
		return "qemu-aarch64"
	case "x86-64":
		return "qemu-x86_64"
	case "x86":
		return "qemu-i386"
	}
	return ""
}

// crossTriplet is Debian's directory (/usr/<triplet>) and package
// architecture (libc6-<arch>-cross) of an architecture's cross libraries.
func crossTriplet(arch string) [2]string {
	switch arch {
	case "arm64":
		return [2]string{"aarch64-linux-gnu", "arm64"}
	case "x86-64":
		return [2]string{"x86_64-linux-gnu", "amd64"}
	case "x86":
		return [2]string{"i686-linux-gnu", "i386"}
	}
	return [2]string{}
}

// hostArch is the tracer's name for the architecture this process runs on
// ("" for one it cannot trace natively).
func hostArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86-64"
	case "arm64":
		return "arm64"
	}
	return ""
}

// emulatorFor returns the emulator program for a target of arch, or an error
// matching ports.ErrDebuggerMissing that names the package to install.
func (t *Tracer) emulatorFor(arch string) (string, error) {
	name := t.opts.Emulators[arch]
	if name == "" {
		name = defaultEmulator(arch)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w (a %s program on a %s host runs under QEMU's user-mode emulator: install Debian's qemu-user package)",
			name, ports.ErrEmulatorMissing, arch, hostArch())
	}
	return p, nil
}

// loaderPrefix returns the directory QEMU must take the program's dynamic
// loader from (its -L option), "" when the host has the loader at the path
// PT_INTERP names or the program is static. QEMU_LD_PREFIX, in the
// program's environment or rea's, is the caller's choice; else Debian's
// cross libraries (libc6-arm64-cross) live under /usr/<triplet>.
func loaderPrefix(target *elfInfo, env []string) (string, error) {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "QEMU_LD_PREFIX="); ok {
			return v, nil
		}
	}
	if target.interp == "" {
		return "", nil
	}
	if v := os.Getenv("QEMU_LD_PREFIX"); v != "" {
		return v, nil
	}
	triplet := crossTriplet(target.arch)[0]
	for _, dir := range []string{"/usr/" + triplet, "/usr/" + triplet + "/libc"} {
		if fileExists(filepath.Join(dir, target.interp)) {
			return dir, nil
		}
	}
	if fileExists(target.interp) {
		return "", nil // a multiarch host has the loader in place
	}
	return "", fmt.Errorf("%s needs the %s loader %s, which neither the host nor /usr/%s has (install Debian's libc6-%s-cross, or set QEMU_LD_PREFIX to a sysroot): %w",
		target.path, target.arch, target.interp, triplet, crossTriplet(target.arch)[1], ports.ErrTargetNotExecutable)
}

// emulated is a program run by QEMU's user-mode emulator under
// rea/supervisor, its GDB stub reached through a Unix socket in a directory
// the run owns.
type emulated struct {
	run  *supervisor.Run
	conn net.Conn
	tail *tailBuffer
	done chan struct{} // stderr drained
	// x87Stack is whether the stub gives the x87 registers as the stack
	// (ST(0)-ST(7)), as gdbserver does and QEMU does from 8.0; QEMU 7.2's
	// gives them by physical number (x87Physical).
	x87Stack bool
}

// emulatorVersion is the major and minor version a QEMU user-mode
// emulator prints for --version ("qemu-i386 version 7.2.22 (Debian ...)"),
// run as an owned process under a 5 s deadline; ok is false when it prints
// none.
func emulatorVersion(ctx context.Context, path string) (major, minor int, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	run, err := supervisor.New(&supervisor.Options{GraceDelay: time.Second})
	if err != nil {
		return 0, 0, false
	}
	defer func() {
		cctx, cancel := supervisor.CleanupContext(ctx, 0)
		defer cancel()
		run.Cleanup(cctx)
	}()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return 0, 0, false
	}
	defer null.Close()
	if err := run.Start(ctx, supervisor.Spec{Path: path, Args: []string{"--version"}, Stdin: null, Stderr: null}); err != nil {
		return 0, 0, false
	}
	out, _ := io.ReadAll(io.LimitReader(run.Stdout(), 4096))
	if _, err := run.Wait(ctx); err != nil {
		return 0, 0, false
	}
	return parseEmulatorVersion(string(out))
}

// parseEmulatorVersion reads "version X.Y" from QEMU's --version text.
func parseEmulatorVersion(text string) (major, minor int, ok bool) {
	_, rest, found := strings.Cut(text, "version ")
	if !found {
		return 0, 0, false
	}
	if _, err := fmt.Sscanf(rest, "%d.%d", &major, &minor); err != nil {
		return 0, 0, false
	}
	return major, minor, true
}

// emulatorDialWait bounds how long the emulator may take to open its socket.
const emulatorDialWait = 10 * time.Second

func startEmulated(ctx context.Context, qemu, sysroot string, req ports.TraceRequest, exitGrace time.Duration, x87Stack bool) (*emulated, error) {
	l := req.Launch
	run, err := supervisor.New(&supervisor.Options{RunID: req.RunID, ExitDelay: exitGrace, GraceDelay: time.Second})
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*emulated, error) {
		cctx, cancel := supervisor.CleanupContext(ctx, 0)
		defer cancel()
		run.Cleanup(cctx)
		return nil, err
	}
	dir, err := run.TempDir("rea-qemu-")
	if err != nil {
		return fail(err)
	}
	sock := filepath.Join(dir, "gdb")
	run.RegisterSocket(sock)
	args := []string{"-g", sock}
	if sysroot != "" {
		args = append(args, "-L", sysroot)
	}
	// QEMU stops reading its own options at the program path, so the
	// program's arguments pass through whatever they look like.
	args = append(append(args, l.Path), l.Args...)
	null, err := os.Open(os.DevNull)
	if err != nil {
		return fail(err)
	}
	defer null.Close()
	spec := supervisor.Spec{Path: qemu, Args: args, Dir: l.Dir, Env: l.Env, Stdin: null}
	if err := run.Start(context.WithoutCancel(ctx), spec); err != nil {
		return fail(err)
	}
	e := &emulated{run: run, tail: &tailBuffer{max: 16 << 10}, done: make(chan struct{}), x87Stack: x87Stack}
	go func() {
		defer close(e.done)
		io.Copy(e.tail, run.Stderr())
	}()
	go io.Copy(io.Discard, run.Stdout()) // the program's own output
	if e.conn, err = dialEmulator(ctx, run, sock); err != nil {
		msg := strings.TrimSpace(e.tail.String())
		if msg != "" {
			err = fmt.Errorf("%w (emulator said: %s)", err, msg)
		}
		return fail(err)
	}
	return e, nil
}

// dialEmulator connects to the stub's socket once the emulator has opened
// it, giving up when the emulator exits, ctx ends or emulatorDialWait
// passes.
func dialEmulator(ctx context.Context, run *supervisor.Run, sock string) (net.Conn, error) {
	deadline := time.NewTimer(emulatorDialWait)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var d net.Dialer
	for {
		if c, err := d.DialContext(ctx, "unix", sock); err == nil {
			return c, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-run.Exited():
			return nil, errors.New("the emulator exited before its debugger socket opened")
		case <-deadline.C:
			return nil, fmt.Errorf("the emulator opened no debugger socket within %v", emulatorDialWait)
		case <-tick.C:
		}
	}
}

func (e *emulated) Read(p []byte) (int, error)  { return e.conn.Read(p) }
func (e *emulated) Write(p []byte) (int, error) { return e.conn.Write(p) }

// SetWriteDeadline bounds a write to the stub's socket (conn.write).
func (e *emulated) SetWriteDeadline(t time.Time) error { return e.conn.SetWriteDeadline(t) }

func (e *emulated) lineage(ctx context.Context) ports.ProcessLineage { return e.run.Lineage(ctx) }

func (e *emulated) log() string { return e.tail.String() }

// close ends the connection: QEMU's stub then lets a program that is still
// there run on, so the stop sequence (stdin closed, exit grace, SIGTERM,
// SIGKILL) ends it unless the tracer already killed it.
func (e *emulated) close(ctx context.Context) ([]ports.SignalAttempt, error) {
	e.conn.Close()
	return cleanupRun(ctx, e.run, e.done)
}

var _ endpoint = (*emulated)(nil)
