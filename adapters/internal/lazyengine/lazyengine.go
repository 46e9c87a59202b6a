// Package lazyengine holds one lazily started engine that rea owns (the
// Ghidra and Hopper adapters): the first caller starts it under a startup
// deadline, concurrent callers share that start, a caller observing progress
// gets a waiting notice every interval, the start is abandoned and cleaned
// up when its last waiter leaves, and an engine that dies after it was ready
// is reported to every later caller, never silently replaced.
//
// It imports rea/ports (for the progress notices and the sentinels) and
// rea/snapshot (Snapshots, the analysis snapshot both engines keep).
package lazyengine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"rea/ports"
)

// Config describes one engine. Start, Fail and Watch are required.
type Config[E comparable] struct {
	Name     string        // prefixes errors: "ghidra"
	Phase    string        // the progress phase of waiting notices: "ghidra_startup"
	Waiting  string        // a waiting notice's text, before " (<n> s elapsed)"
	Timeout  time.Duration // the startup deadline
	Interval time.Duration // between waiting notices; 10 s when zero

	// Start starts the engine under ctx (the startup deadline). It must
	// clean up everything it made before it returns an error. life is the
	// Holder's lifetime: a process started with it lives until Close.
	Start func(ctx, life context.Context) (E, error)
	// Fail builds the error a start reports when its deadline passed
	// (kind "timeout", deadline set) or every waiter left or Close ran
	// (kind "cancelled", err context.Canceled or the caller's cause).
	Fail func(kind string, deadline time.Duration, err error) error
	// Watch returns channels that close when a ready engine dies on its
	// own (the launcher exited, the connection ended).
	Watch func(E) []<-chan struct{}
	// Crashed is reported, wrapped with Name, by every call after the
	// ready engine died.
	Crashed error
	// Reap runs once after a crash, outside the lock: close the
	// connection, stop what remains.
	Reap func(E)
	// Shutdown stops a ready engine at Close.
	Shutdown func(ctx context.Context, e E) error
}

// Holder is one lazily started engine.
type Holder[E comparable] struct {
	cfg  Config[E]
	life context.Context // ends at Close
	end  context.CancelFunc

	mu       sync.Mutex
	closed   bool
	eng      E
	ready    bool
	starting *attempt[E]
	crashed  error
}

// attempt is one engine start shared by the callers waiting for it.
type attempt[E any] struct {
	done    chan struct{}
	eng     E
	err     error
	waiters int
	cancel  context.CancelFunc
}

// New returns a Holder that starts nothing until Get.
func New[E comparable](cfg Config[E]) *Holder[E] {
	if cfg.Interval <= 0 {
		cfg.Interval = 10 * time.Second
	}
	life, end := context.WithCancel(context.Background())
	return &Holder[E]{cfg: cfg, life: life, end: end}
}

// Life is the Holder's lifetime: it ends when Close has shut the engine
// down.
func (h *Holder[E]) Life() context.Context { return h.life }

// errClosed is the error of a call on a closed Holder.
func (h *Holder[E]) errClosed() error {
	return fmt.Errorf("%s: analysis is closed: %w", h.cfg.Name, ports.ErrUnavailable)
}

// Usable fails when ctx is done or the Holder is closed.
func (h *Holder[E]) Usable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return h.errClosed()
	}
	return nil
}

// Ready returns the ready engine without starting it.
func (h *Holder[E]) Ready() (E, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.eng, h.ready
}

// Crashed is the crash error once the ready engine died, else nil.
func (h *Holder[E]) Crashed() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.crashed
}

// Waiters is how many callers wait for the pending start (0 when none is
// pending).
func (h *Holder[E]) Waiters() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.starting == nil {
		return 0
	}
	return h.starting.waiters
}

// Get returns the ready engine, starting it (or joining the pending start)
// when needed. While it waits and ctx observes progress, it reports a
// waiting notice every interval with the elapsed time. When ctx ends and
// no other caller waits, the start is abandoned and cleaned up before Get
// returns, so nothing it owned outlives the call.
func (h *Holder[E]) Get(ctx context.Context) (E, error) {
	var zero E
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	h.mu.Lock()
	switch {
	case h.closed:
		h.mu.Unlock()
		return zero, h.errClosed()
	case h.crashed != nil:
		err := h.crashed
		h.mu.Unlock()
		return zero, err
	case h.ready:
		eng := h.eng
		h.mu.Unlock()
		return eng, nil
	}
	att := h.starting
	if att == nil {
		att = h.begin()
	}
	att.waiters++
	h.mu.Unlock()

	began := time.Now()
	tick := time.NewTicker(h.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-att.done:
			if att.err != nil {
				return zero, att.err
			}
			return att.eng, nil
		case <-tick.C:
			ports.Observe(ctx, h.cfg.Phase, fmt.Sprintf("%s (%d s elapsed)", h.cfg.Waiting,
				int(time.Since(began).Round(time.Second)/time.Second)))
		case <-ctx.Done():
			h.mu.Lock()
			att.waiters--
			last := att.waiters == 0
			h.mu.Unlock()
			if last {
				att.cancel()
				<-att.done
			}
			return zero, h.cfg.Fail("cancelled", 0, ctx.Err())
		}
	}
}

// begin starts an attempt; h.mu is held.
func (h *Holder[E]) begin() *attempt[E] {
	sctx, cancel := context.WithTimeout(h.life, h.cfg.Timeout)
	att := &attempt[E]{done: make(chan struct{}), cancel: cancel}
	h.starting = att
	go func() {
		defer cancel()
		eng, err := h.cfg.Start(sctx, h.life)
		if err != nil {
			switch {
			case errors.Is(sctx.Err(), context.DeadlineExceeded):
				err = h.cfg.Fail("timeout", h.cfg.Timeout, err)
			case sctx.Err() != nil:
				err = h.cfg.Fail("cancelled", 0, context.Canceled)
			}
		}
		h.mu.Lock()
		att.eng, att.err = eng, err
		if h.starting == att {
			h.starting = nil
			if err == nil {
				h.eng, h.ready = eng, true
			}
		}
		h.mu.Unlock()
		close(att.done)
		if err == nil {
			go h.watch(eng)
		}
	}()
	return att
}

// watch marks the Holder crashed when a ready engine dies on its own.
func (h *Holder[E]) watch(eng E) {
	chans := h.cfg.Watch(eng)
	died := make(chan struct{})
	for _, c := range chans {
		go func() {
			select {
			case <-c:
				select {
				case died <- struct{}{}:
				case <-h.life.Done():
				}
			case <-h.life.Done():
			}
		}()
	}
	select {
	case <-died:
	case <-h.life.Done():
		return
	}
	h.mu.Lock()
	if h.closed || !h.ready || h.eng != eng {
		h.mu.Unlock()
		return
	}
	h.crashed = fmt.Errorf("%s: %w", h.cfg.Name, h.cfg.Crashed)
	h.mu.Unlock()
	if h.cfg.Reap != nil {
		h.cfg.Reap(eng)
	}
}

// Close abandons a pending start and waits for its cleanup, then shuts a
// ready engine down; the lifetime ends after the shutdown, so a process
// bound to it is not stopped before its graceful exit. A second Close does
// nothing.
func (h *Holder[E]) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	att, eng, ready := h.starting, h.eng, h.ready
	h.mu.Unlock()
	if att != nil {
		att.cancel()
		<-att.done
	}
	defer h.end()
	if !ready || h.cfg.Shutdown == nil {
		return nil
	}
	return h.cfg.Shutdown(ctx, eng)
}

// ErrExited is Dial's error when the launcher exits before its bridge
// accepts a connection.
var ErrExited = errors.New("launcher exited")

// Dial polls for a bridge's Unix socket every 50 ms until it accepts a
// connection, exited closes (ErrExited) or ctx ends.
func Dial(ctx context.Context, exited <-chan struct{}, sock string) (net.Conn, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Lstat(sock); err == nil {
			var d net.Dialer
			if c, err := d.DialContext(ctx, "unix", sock); err == nil {
				return c, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-exited:
			return nil, ErrExited
		case <-tick.C:
		}
	}
}

// Tail returns ": " and the last 2 KiB of a log file, or "" when it is
// missing or empty.
func Tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 2048 {
		b = b[len(b)-2048:]
	}
	return ": " + strings.TrimSpace(string(b))
}

// targetExt is what a target copy's name keeps of the target's extension.
// It is compiled on first use (a package-level sync.OnceValue is init code
// every rea process runs).
var targetExtOnce struct {
	sync.Once
	re *regexp.Regexp
}

func targetExt() *regexp.Regexp {
	targetExtOnce.Do(func() { targetExtOnce.re = regexp.MustCompile(`^\.[A-Za-z0-9]{1,12}$`) })
	return targetExtOnce.re
}

// CopyTarget copies the target into root as target-<sha12><ext>
// (exclusive, mode 0600) and checks the copy against the target's
// SHA-256, so that an engine works on the bytes rea identified and never on
// the analyst's file. An ext that is not a dot and 1 to 12 letters or
// digits becomes ".bin". On any failure the copy is removed.
func CopyTarget(t ports.Target, root, ext string) (string, error) {
	if !targetExt().MatchString(ext) {
		ext = ".bin"
	}
	if len(t.SHA256) < 12 {
		return "", fmt.Errorf("copy of the target: no SHA-256 to check it against")
	}
	dst := filepath.Join(root, "target-"+t.SHA256[:12]+ext)
	src, err := os.Open(t.Path)
	if err != nil {
		return "", err
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), src)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if got := hex.EncodeToString(h.Sum(nil)); err == nil && got != t.SHA256 {
		err = fmt.Errorf("copy of the target: digest mismatch: expected %s, observed %s", t.SHA256, got)
	}
	if err != nil {
		os.Remove(dst)
		return "", err
	}
	return dst, nil
}
