package gdbremote

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"rea/ports"
	"rea/supervisor"
)

// endpoint is the byte stream to a debugger server and the process behind it.
type endpoint interface {
	io.ReadWriter
	// lineage is the owned process tree now.
	lineage(ctx context.Context) ports.ProcessLineage
	// log is the tail of the server's diagnostic output.
	log() string
	// close ends the connection, gives the server its exit grace to exit by
	// itself, then stops and cleans up everything owned. It returns every
	// signal attempt.
	close(ctx context.Context) ([]ports.SignalAttempt, error)
}

// serverArgs is gdbserver's command line: the protocol on stdin and stdout,
// exit once the connection ends, and no shell between it and the program
// unless an argument needs one: without a shell gdbserver splits arguments
// at whitespace (and refuses them), so an empty argument or one with
// whitespace goes through the shell ($SHELL or /bin/sh) with gdbserver's
// quoting.
func serverArgs(req ports.TraceRequest) []string {
	if req.Attach != nil {
		return []string{"--once", "--attach", "-", strconv.Itoa(req.Attach.PID)}
	}
	args := []string{"--once"}
	if !needsShell(req.Launch.Args) {
		args = append(args, "--no-startup-with-shell")
	}
	args = append(args, "-", req.Launch.Path)
	return append(args, req.Launch.Args...)
}

func needsShell(args []string) bool {
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\v\f\r") {
			return true
		}
	}
	return false
}

// supervised is gdbserver run by rea/supervisor.
type supervised struct {
	run  *supervisor.Run
	in   *os.File
	out  *os.File
	tail *tailBuffer
	done chan struct{} // stderr drained
}

func startServer(ctx context.Context, path string, req ports.TraceRequest, exitGrace time.Duration) (*supervised, error) {
	// With --once, gdbserver exits when its stdin closes, which is the first
	// step of the supervisor's stop sequence.
	run, err := supervisor.New(&supervisor.Options{RunID: req.RunID, ExitDelay: exitGrace, GraceDelay: time.Second})
	if err != nil {
		return nil, err
	}
	spec := supervisor.Spec{Path: path, Args: serverArgs(req)}
	if req.Launch != nil {
		spec.Dir, spec.Env = req.Launch.Dir, req.Launch.Env
	}
	// The server's life is bounded by the trace, which stops it itself so
	// that it can first collect what was observed: not by ctx.
	if err := run.Start(context.WithoutCancel(ctx), spec); err != nil {
		cctx, cancel := supervisor.CleanupContext(ctx, 0)
		defer cancel()
		run.Cleanup(cctx)
		return nil, err
	}
	s := &supervised{run: run, in: run.Stdin(), out: run.Stdout(), tail: &tailBuffer{max: 16 << 10}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		io.Copy(s.tail, run.Stderr())
	}()
	return s, nil
}

func (s *supervised) Read(p []byte) (int, error)  { return s.out.Read(p) }
func (s *supervised) Write(p []byte) (int, error) { return s.in.Write(p) }

// SetWriteDeadline bounds a write to the server's stdin (conn.write).
func (s *supervised) SetWriteDeadline(t time.Time) error { return s.in.SetWriteDeadline(t) }

func (s *supervised) lineage(ctx context.Context) ports.ProcessLineage { return s.run.Lineage(ctx) }

func (s *supervised) log() string { return s.tail.String() }

func (s *supervised) close(ctx context.Context) ([]ports.SignalAttempt, error) {
	return cleanupRun(ctx, s.run, s.done)
}

// cleanupRun stops and cleans up a server's run, waits briefly for its
// stderr copy (done) to end with the pipes Cleanup closed, and returns every
// signal attempt, with a failure as a *ports.CleanupError.
func cleanupRun(ctx context.Context, run *supervisor.Run, done <-chan struct{}) ([]ports.SignalAttempt, error) {
	err := run.Cleanup(ctx)
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	var ce *ports.CleanupError
	if err != nil && !errors.As(err, &ce) {
		err = &ports.CleanupError{Resources: []ports.OwnedResource{{Kind: ports.ResourceProcess, ID: strconv.Itoa(run.PID()), Reason: err.Error()}}}
	}
	return run.Signals(), err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
