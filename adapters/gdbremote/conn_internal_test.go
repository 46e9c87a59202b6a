package gdbremote

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// A server that stops reading (blocked writing to us, say) cannot hang a
// write past its context: the write ends with the context's error, and the
// next write, under a live context, goes through. A pipe carries nothing
// until the other side reads, so the first write blocks until then.
func TestWriteEndsWithItsContext(t *testing.T) {
	ours, theirs := net.Pipe()
	defer ours.Close()
	defer theirs.Close()
	c := newConn(ours, nil)
	c.noAck.Store(true)
	defer c.close()

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.send(ctx, "qSupported") }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a write the server never reads: %v, want the context's deadline", err)
		}
	case <-time.After(20 * time.Second): // a liveness bound, not a timing assertion
		t.Fatal("the write outlived its context")
	}

	// The deadline the first write's context set does not hold the next.
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, 64)
		n, _ := theirs.Read(b)
		got <- b[:n]
	}()
	if err := c.send(context.Background(), "g"); err != nil {
		t.Fatalf("the next write: %v", err)
	}
	if b := <-got; string(b) != "$g#67" {
		t.Fatalf("the server read %q", b)
	}
	// Cancelling (not only a deadline) ends a blocked write too.
	cctx, ccancel := context.WithCancel(context.Background())
	go func() { done <- c.send(cctx, "vCont;c") }()
	ccancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled write: %v", err)
	}
}
