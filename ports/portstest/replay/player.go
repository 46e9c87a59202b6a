package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// MismatchError is a request that differs from the transcript. Index is
// the entry's position among the transcript's entries (-1 past its end).
type MismatchError struct {
	Index    int
	Expected []byte
	Got      []byte
}

func (e *MismatchError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("replay: unexpected request after the end of the transcript: got %q", e.Got)
	}
	if len(e.Got) == 0 {
		return fmt.Sprintf("replay: the connection ended before request (entry %d):\nexpected %q\ngot      nothing", e.Index, e.Expected)
	}
	return fmt.Sprintf("replay: request (entry %d) differs from the transcript:\nexpected %q\ngot      %q", e.Index, e.Expected, e.Got)
}

// Options configure a Player.
type Options struct {
	// OnProcess, when set, receives the transcript's process events in
	// order, as the conversation reaches them (a test can drive a fake
	// supervisor with them).
	OnProcess func(Entry)
}

// Player serves a transcript as the engine's end of one connection: it
// reads each request and compares it with the transcript, writes the
// responses that follow, closes at the engine's end of stream or exit, and
// fails t on the first difference. Close (run by t.Cleanup) also fails t
// when requests the transcript expects were never sent.
type Player struct {
	t    testing.TB
	tr   *Transcript
	opts Options

	mu      sync.Mutex
	err     error
	done    chan struct{}
	once    sync.Once
	stop    func() // closes the endpoint
	served  atomic.Bool
	conn    net.Conn // the connection being served, under mu
	closing bool     // Close has begun, under mu
}

// NewPlayer returns a Player of tr reporting to t. opts may be nil.
func NewPlayer(t testing.TB, tr *Transcript, opts *Options) *Player {
	p := &Player{t: t, tr: tr, done: make(chan struct{})}
	if opts != nil {
		p.opts = *opts
	}
	return p
}

// Load reads the transcript at path and returns its Player.
func Load(t testing.TB, path string, opts *Options) *Player {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("replay: %v (record it with -record or REA_RECORD=1 against a live engine)", err)
	}
	defer f.Close()
	tr, err := ReadTranscript(f)
	if err != nil {
		t.Fatalf("replay %s: %v", path, err)
	}
	return NewPlayer(t, tr, opts)
}

// Err returns the first mismatch (a *MismatchError) or I/O failure, or nil.
func (p *Player) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *Player) fail(err error) {
	p.mu.Lock()
	first := p.err == nil
	if first {
		p.err = err
	}
	p.mu.Unlock()
	if first {
		p.t.Errorf("%v", err)
	}
}

// Listen serves the transcript to the first connection accepted on a Unix
// socket in a fresh temporary directory, and returns the socket's path.
func (p *Player) Listen(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "replay")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "engine.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	p.stop = func() { ln.Close(); os.RemoveAll(dir) }
	go func() {
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			close(p.done)
			return
		}
		p.serve(ctx, c)
	}()
	p.t.Cleanup(func() { p.Close() })
	return path, nil
}

// Dial connects to the Unix socket at path and serves the transcript on
// that connection: the engine's side for engines that connect to rea
// rather than rea to them (an application's preload hook dialling rea's
// control socket). Requests are still what rea sent, responses what the
// engine sent.
func (p *Player) Dial(ctx context.Context, path string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("replay: dial %s: %w", path, err)
	}
	p.stop = func() { c.Close() }
	go p.serve(ctx, c)
	p.t.Cleanup(func() { p.Close() })
	return nil
}

// serve plays the transcript on c.
func (p *Player) serve(ctx context.Context, c net.Conn) {
	p.served.Store(true)
	p.mu.Lock()
	p.conn = c
	if p.closing {
		c.Close()
	}
	p.mu.Unlock()
	defer close(p.done)
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var got []byte // request bytes read but not yet matched
	buf := make([]byte, 32<<10)
	for i, e := range p.tr.Entries {
		switch e.Type {
		case KindRequest:
			want := e.Data()
			for len(got) < len(want) {
				if !bytes.HasPrefix(want, got) {
					break
				}
				n, err := c.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					if len(got) < len(want) {
						p.fail(&MismatchError{Index: i, Expected: want, Got: got})
						return
					}
					break
				}
			}
			if !bytes.HasPrefix(got, want) {
				p.fail(&MismatchError{Index: i, Expected: want, Got: got[:min(len(got), len(want)+64)]})
				return
			}
			got = got[len(want):]
		case KindResponse:
			if _, err := c.Write(e.Data()); err != nil {
				p.fail(fmt.Errorf("replay: writing response (entry %d): %w", i, err))
				return
			}
		case KindEOF:
			closeWrite(c)
		case KindProcess:
			if p.opts.OnProcess != nil {
				p.opts.OnProcess(e)
			}
			if e.Event == EventExit {
				if len(got) > 0 {
					p.fail(&MismatchError{Index: -1, Got: got})
				}
				return
			}
		}
	}
	// The transcript is over: anything more the client sends is unexpected.
	for {
		if len(got) > 0 {
			p.fail(&MismatchError{Index: -1, Got: got})
			return
		}
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if len(got) > 0 {
				p.fail(&MismatchError{Index: -1, Got: got})
			}
			return
		}
	}
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// Close stops serving and waits for the player. It is safe to call more
// than once, and returns the first failure.
func (p *Player) Close() error {
	p.once.Do(func() {
		if p.stop != nil {
			p.stop()
			p.mu.Lock()
			p.closing = true
			if p.conn != nil {
				p.conn.Close() // a client that never hangs up ends here
			}
			p.mu.Unlock()
			<-p.done
		}
		if !p.served.Load() && p.Err() == nil && slices.ContainsFunc(p.tr.Entries, func(e Entry) bool { return e.Type == KindRequest }) {
			p.fail(errors.New("replay: the transcript expects requests but no connection was made"))
		}
	})
	return p.Err()
}
