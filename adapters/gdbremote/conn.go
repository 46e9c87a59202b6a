package gdbremote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// ErrServerGone: the connection to the server ended (EOF or a read error).
var ErrServerGone = errors.New("gdb remote server closed the connection")

// conn speaks the packet layer over one byte stream. One goroutine reads
// frames into a channel so that waits honour their context; writes are
// serialised. A conn is used by one tracer goroutine at a time.
type conn struct {
	w     io.Writer
	wmu   sync.Mutex
	noAck atomic.Bool
	// dmu and gen order the write deadline's changes: a write's context
	// ending sets it in the past only while that write is the latest.
	dmu  sync.Mutex
	gen  uint64
	late bool // the deadline is set in the past

	frames  chan frame
	done    chan struct{} // closed when the reader stops; err is then set
	quit    chan struct{} // closed by close: the reader stops delivering
	err     error
	buf     []byte
	pending []frame // frames read before they were wanted (tracer goroutine only)
	// tap, when set, sees every packet: 'c' sent, 's' received, 'i' the
	// interrupt byte. Tests record sessions with it.
	tap func(dir byte, payload []byte)
}

func newConn(rw io.ReadWriter, tap func(dir byte, payload []byte)) *conn {
	c := &conn{w: rw, frames: make(chan frame, 16), done: make(chan struct{}), quit: make(chan struct{}), tap: tap}
	go c.read(bufio.NewReaderSize(rw, 64<<10))
	return c
}

func (c *conn) read(r *bufio.Reader) {
	defer close(c.done)
	for {
		f, err := readFrame(r, MaxPacket)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = ErrServerGone
			} else if !errors.Is(err, ErrProtocol) {
				err = fmt.Errorf("%w: %w", ErrServerGone, err)
			}
			c.err = err
			return
		}
		if f.kind == '$' && !c.noAck.Load() {
			ack := []byte{'+'}
			if f.badSum {
				ack[0] = '-'
			}
			c.wmu.Lock()
			_, err = c.w.Write(ack)
			c.wmu.Unlock()
			if err != nil {
				c.err = fmt.Errorf("%w: %w", ErrServerGone, err)
				return
			}
			if f.badSum {
				continue // the server retransmits
			}
		} else if f.badSum {
			c.err = protoErr("bad checksum in no-ack mode")
			return
		}
		if f.kind == '$' && c.tap != nil {
			c.tap('s', f.payload)
		}
		select {
		case c.frames <- f:
		case <-c.quit:
			c.err = ErrServerGone
			return
		}
	}
}

// close stops the reader from delivering frames; it ends for good once the
// stream itself is closed.
func (c *conn) close() {
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
}

func (c *conn) next(ctx context.Context) (frame, error) {
	if len(c.pending) > 0 {
		f := c.pending[0]
		c.pending = c.pending[1:]
		return f, nil
	}
	select {
	case f := <-c.frames:
		return f, nil
	default:
	}
	select {
	case f := <-c.frames:
		return f, nil
	case <-c.done:
		select {
		case f := <-c.frames:
			return f, nil
		default:
		}
		return frame{}, c.err
	case <-ctx.Done():
		return frame{}, ctx.Err()
	}
}

// send writes one packet and, in ack mode, waits for its ack, retransmitting
// on a nack a few times.
func (c *conn) send(ctx context.Context, payload string) error {
	c.buf = appendPacket(c.buf[:0], []byte(payload))
	if c.tap != nil {
		c.tap('c', []byte(payload))
	}
	for try := 0; ; try++ {
		if err := c.write(ctx, c.buf); err != nil {
			return err
		}
		if c.noAck.Load() {
			return nil
		}
		for {
			f, err := c.next(ctx)
			if err != nil {
				return err
			}
			switch f.kind {
			case '+':
				return nil
			case '-':
				if try >= 3 {
					return protoErr("packet refused %d times", try+1)
				}
			default:
				// A packet before the ack: the server does not wait for
				// our ack before replying, so take it as acked.
				c.pushBack(f)
				return nil
			}
			break
		}
	}
}

// deadliner is a stream whose writes can be given a deadline: a socket
// (QEMU's stub) or a pipe (gdbserver's stdin).
type deadliner interface{ SetWriteDeadline(time.Time) error }

// write writes b, ending with ctx's error when ctx ends first, where the
// stream takes a write deadline. A server that stops reading (blocked
// writing to us while we write to it) then cannot hang a trace past its
// time limit or its cleanup's.
func (c *conn) write(ctx context.Context, b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	d, ok := c.w.(deadliner)
	stop := func() bool { return false }
	if ok {
		c.dmu.Lock()
		c.gen++
		gen := c.gen
		if c.late {
			d.SetWriteDeadline(time.Time{}) // the one an earlier write's context set
			c.late = false
		}
		c.dmu.Unlock()
		stop = context.AfterFunc(ctx, func() {
			c.dmu.Lock()
			defer c.dmu.Unlock()
			if c.gen == gen {
				d.SetWriteDeadline(time.Unix(1, 0))
				c.late = true
			}
		})
	}
	_, err := c.w.Write(b)
	if ok {
		stop()
		c.dmu.Lock()
		c.gen++ // a late call of the func above is stale now
		c.dmu.Unlock()
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("%w: %w", ErrServerGone, err)
	}
	return nil
}

// pushBack returns a frame read too early; next gives it again.
func (c *conn) pushBack(f frame) { c.pending = append(c.pending, f) }

// recv waits for the next packet, skipping acks and notifications.
func (c *conn) recv(ctx context.Context) ([]byte, error) {
	for {
		f, err := c.next(ctx)
		if err != nil {
			return nil, err
		}
		if f.kind == '$' {
			return f.payload, nil
		}
	}
}

// interrupt sends the out-of-band break byte that stops a running target.
func (c *conn) interrupt(ctx context.Context) error {
	if c.tap != nil {
		c.tap('i', nil)
	}
	return c.write(ctx, []byte{0x03})
}
