package lazyengine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/internal/lazyengine"
	"rea/ports"
)

// fakeEngine stands for a started engine; closing exited is its death.
type fakeEngine struct {
	exited chan struct{}
	reaped atomic.Int32
}

// startupError is what Fail builds, so the tests can read kind and deadline.
type startupError struct {
	kind     string
	deadline time.Duration
	err      error
}

func (e *startupError) Error() string { return "fake startup: " + e.kind }
func (e *startupError) Unwrap() error { return e.err }

var errCrashed = errors.New("fake engine exited after startup")

// harness counts starts and lets a test hold a start until it releases it.
type harness struct {
	starts   atomic.Int32
	cleaned  atomic.Int32 // starts that returned an error (their cleanup ran)
	shutdown atomic.Int32
	release  chan struct{} // closed: a pending start succeeds
	began    chan struct{} // receives once per start
	eng      *fakeEngine
}

func newHarness() *harness {
	return &harness{release: make(chan struct{}), began: make(chan struct{}, 16),
		eng: &fakeEngine{exited: make(chan struct{})}}
}

func (h *harness) config(timeout, interval time.Duration) lazyengine.Config[*fakeEngine] {
	return lazyengine.Config[*fakeEngine]{
		Name: "fake", Phase: "fake_startup", Waiting: "waiting for the fake", Timeout: timeout, Interval: interval,
		Start: func(ctx, life context.Context) (*fakeEngine, error) {
			h.starts.Add(1)
			h.began <- struct{}{}
			select {
			case <-h.release:
				return h.eng, nil
			case <-ctx.Done():
				// What a real start does before it returns: clean up.
				time.Sleep(20 * time.Millisecond)
				h.cleaned.Add(1)
				return nil, ctx.Err()
			}
		},
		Fail: func(kind string, d time.Duration, err error) error {
			return &startupError{kind: kind, deadline: d, err: err}
		},
		Watch:   func(e *fakeEngine) []<-chan struct{} { return []<-chan struct{}{e.exited} },
		Crashed: errCrashed,
		Reap:    func(e *fakeEngine) { e.reaped.Add(1) },
		Shutdown: func(ctx context.Context, e *fakeEngine) error {
			h.shutdown.Add(1)
			return nil
		},
	}
}

// eventually waits (at most a minute, so a broken Holder fails rather than
// hangs) until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting: %s", what)
		}
	}
}

func kindOf(err error) string {
	var se *startupError
	if errors.As(err, &se) {
		return se.kind
	}
	return ""
}

func TestStartupDeadline(t *testing.T) {
	is := is.New(t)
	h := newHarness()
	l := lazyengine.New(h.config(50*time.Millisecond, time.Hour))
	defer l.Close(context.Background())

	_, err := l.Get(t.Context())
	is.Equal(kindOf(err), "timeout")
	var se *startupError
	is.True(errors.As(err, &se))
	is.Equal(se.deadline, 50*time.Millisecond) // the configured deadline is reported
	is.Equal(h.cleaned.Load(), int32(1))       // the start saw its deadline and cleaned up

	// A failed start resets: the next call starts afresh.
	close(h.release)
	eng, err := l.Get(t.Context())
	is.NoErr(err)
	is.Equal(eng, h.eng)
	is.Equal(h.starts.Load(), int32(2))
}

func TestLastWaiterLeavingCancelsTheStart(t *testing.T) {
	is := is.New(t)
	h := newHarness()
	l := lazyengine.New(h.config(time.Hour, time.Hour))
	defer l.Close(context.Background())

	ctx1, cancel1 := context.WithCancel(t.Context())
	ctx2, cancel2 := context.WithCancel(t.Context())
	errs := make(chan error, 2)
	go func() { _, err := l.Get(ctx1); errs <- err }()
	<-h.began
	go func() { _, err := l.Get(ctx2); errs <- err }()
	// Wait until the second caller joined the pending start: a third
	// caller must not start a second engine either.
	eventually(t, "the second caller joins the start", func() bool { return l.Waiters() == 2 })

	cancel1()
	err := <-errs
	is.Equal(kindOf(err), "cancelled")
	is.True(errors.Is(err, context.Canceled))
	is.Equal(h.cleaned.Load(), int32(0)) // another caller still waits: the start goes on

	cancel2()
	err = <-errs
	is.Equal(kindOf(err), "cancelled")
	// The last waiter left: the start was cancelled and its cleanup had
	// finished before Get returned.
	is.Equal(h.cleaned.Load(), int32(1))
	is.Equal(h.starts.Load(), int32(1))
}

type notices struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notices) Observe(phase, msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.msgs = append(n.msgs, phase+": "+msg)
}

func (n *notices) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.msgs)
}

func TestWaitingNotices(t *testing.T) {
	is := is.New(t)
	h := newHarness()
	l := lazyengine.New(h.config(time.Hour, 10*time.Millisecond))
	defer l.Close(context.Background())

	var n notices
	ctx := ports.WithProgress(t.Context(), &n)
	done := make(chan error, 1)
	go func() { _, err := l.Get(ctx); done <- err }()
	<-h.began
	eventually(t, "two waiting notices", func() bool { return n.count() >= 2 })
	close(h.release)
	is.NoErr(<-done)
	settled := n.count()
	for _, m := range n.msgs {
		is.True(strings.HasPrefix(m, "fake_startup: waiting for the fake ("))
		is.True(strings.HasSuffix(m, " s elapsed)"))
	}

	// A ready engine is returned without a notice, and none follows the
	// settled start.
	_, err := l.Get(ctx)
	is.NoErr(err)
	time.Sleep(50 * time.Millisecond)
	is.Equal(n.count(), settled)
	is.Equal(h.starts.Load(), int32(1))
}

func TestCrashIsReportedNeverReplaced(t *testing.T) {
	is := is.New(t)
	h := newHarness()
	close(h.release)
	l := lazyengine.New(h.config(time.Hour, time.Hour))
	defer l.Close(context.Background())

	eng, err := l.Get(t.Context())
	is.NoErr(err)
	is.Equal(l.Crashed(), nil)
	close(eng.exited)
	eventually(t, "the crash is noticed", func() bool { return l.Crashed() != nil })
	_, err = l.Get(t.Context())
	is.True(errors.Is(err, errCrashed))
	is.True(strings.HasPrefix(err.Error(), "fake: "))
	is.Equal(h.starts.Load(), int32(1)) // never restarted
	eventually(t, "the crashed engine is reaped", func() bool { return eng.reaped.Load() > 0 })
	is.Equal(eng.reaped.Load(), int32(1))
	is.NoErr(l.Close(t.Context()))
	is.Equal(h.shutdown.Load(), int32(1))
}

func TestCloseAbandonsAPendingStart(t *testing.T) {
	is := is.New(t)
	h := newHarness()
	l := lazyengine.New(h.config(time.Hour, time.Hour))

	done := make(chan error, 1)
	go func() { _, err := l.Get(t.Context()); done <- err }()
	<-h.began
	is.NoErr(l.Close(t.Context()))
	is.Equal(h.cleaned.Load(), int32(1)) // Close waited for the start's cleanup
	is.Equal(kindOf(<-done), "cancelled")
	is.Equal(h.shutdown.Load(), int32(0)) // nothing was ready to shut down
	is.True(l.Life().Err() != nil)

	_, err := l.Get(t.Context())
	is.True(errors.Is(err, ports.ErrUnavailable))
	is.True(errors.Is(l.Usable(t.Context()), ports.ErrUnavailable))
	is.NoErr(l.Close(t.Context())) // a second Close does nothing
}

func TestConcurrentCallersShareOneStart(t *testing.T) {
	is := is.New(t)
	h := newHarness()
	l := lazyengine.New(h.config(time.Hour, time.Hour))
	var wg sync.WaitGroup
	got := make([]*fakeEngine, 8)
	for i := range got {
		wg.Go(func() {
			e, err := l.Get(t.Context())
			if err == nil {
				got[i] = e
			}
		})
	}
	<-h.began
	eventually(t, "every caller joins the start", func() bool { return l.Waiters() == len(got) })
	close(h.release)
	wg.Wait()
	for _, e := range got {
		is.Equal(e, h.eng)
	}
	is.Equal(h.starts.Load(), int32(1))
	e, ok := l.Ready()
	is.True(ok)
	is.Equal(e, h.eng)
	is.NoErr(l.Close(t.Context()))
	is.Equal(h.shutdown.Load(), int32(1))
}

func TestDial(t *testing.T) {
	is := is.New(t)
	dir, err := os.MkdirTemp("", "rea-le-") // short: a Unix socket path is bounded
	is.NoErr(err)
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "b.sock")

	// The launcher exits before any socket appears.
	exited := make(chan struct{})
	close(exited)
	_, err = lazyengine.Dial(t.Context(), exited, sock)
	is.True(errors.Is(err, lazyengine.ErrExited))

	// The deadline passes first.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	_, err = lazyengine.Dial(ctx, make(chan struct{}), sock)
	is.True(errors.Is(err, context.DeadlineExceeded))

	// The socket appears later and accepts.
	go func() {
		time.Sleep(60 * time.Millisecond)
		ln, err := net.Listen("unix", sock)
		if err != nil {
			return
		}
		defer ln.Close()
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte("hi\n"))
			c.Close()
		}
	}()
	c, err := lazyengine.Dial(t.Context(), make(chan struct{}), sock)
	is.NoErr(err)
	defer c.Close()
	b, _ := io.ReadAll(c)
	is.Equal(string(b), "hi\n")
}

func TestTail(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	is.Equal(lazyengine.Tail(filepath.Join(dir, "missing.log")), "")
	p := filepath.Join(dir, "stderr.log")
	is.NoErr(os.WriteFile(p, []byte(strings.Repeat("a", 3000)+"END\n"), 0o600))
	got := lazyengine.Tail(p)
	is.True(strings.HasPrefix(got, ": a"))
	is.True(strings.HasSuffix(got, "END"))
	is.Equal(len(got), 2+2048-1) // the last 2 KiB, trimmed of its newline
}

func TestCopyTargetChecksTheCopy(t *testing.T) {
	is := is.New(t)
	dir, root := t.TempDir(), t.TempDir()
	src := filepath.Join(dir, "app.HOP")
	is.NoErr(os.WriteFile(src, []byte("bytes"), 0o644))
	sum := sha256.Sum256([]byte("bytes"))
	tg := ports.Target{Path: src, SHA256: hex.EncodeToString(sum[:])}

	dst, err := lazyengine.CopyTarget(tg, root, ".hop")
	is.NoErr(err)
	is.Equal(filepath.Base(dst), "target-"+tg.SHA256[:12]+".hop")
	st, err := os.Stat(dst)
	is.NoErr(err)
	is.Equal(st.Mode().Perm(), os.FileMode(0o600))
	_, err = lazyengine.CopyTarget(tg, root, ".hop") // exclusive: never over an existing file
	is.True(err != nil)

	odd, err := lazyengine.CopyTarget(tg, t.TempDir(), ".a b/c")
	is.NoErr(err)
	is.Equal(filepath.Ext(odd), ".bin")

	// The file changed since it was identified: no copy is left.
	bad := tg
	bad.SHA256 = strings.Repeat("0", 64)
	other := t.TempDir()
	_, err = lazyengine.CopyTarget(bad, other, ".bin")
	is.True(err != nil && strings.Contains(err.Error(), "digest mismatch"))
	left, _ := os.ReadDir(other)
	is.Equal(len(left), 0)
}
