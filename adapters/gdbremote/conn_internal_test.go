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

// A stop reply for a signal the server was asked to pass (QEMU 7.2 sends
// Go's SIGURG so under a threaded program) where a command's reply is
// owed is dropped: the command gets its own reply, not the stop. Any other
// stop reply there is still the reply (and an error for requestOK).
func TestStrayPassedStopIsNoReply(t *testing.T) {
	cl, theirs := pipeClient(t)
	go func() {
		b := make([]byte, 256)
		for _, reply := range []string{"T10thread:p01.2f5a;", "OK", "T05thread:p01.2f5a;"} {
			if _, err := theirs.Read(b); err != nil {
				return
			}
			theirs.Write(appendPacket(nil, []byte(reply)))
			if reply[0] == 'T' && reply[1] == '1' {
				theirs.Write(appendPacket(nil, []byte("OK")))
			}
		}
	}()
	ctx := context.Background()
	if err := cl.requestOK(ctx, "Z0,1000,1"); err != nil {
		t.Fatalf("a command answered after a stray SIGURG stop: %v", err)
	}
	if cl.strayStops != 1 {
		t.Fatalf("stray stops dropped: %d", cl.strayStops)
	}
	if err := cl.requestOK(ctx, "z0,1000,1"); err != nil {
		t.Fatalf("the next command: %v", err)
	}
	if err := cl.requestOK(ctx, "Z0,2000,1"); err == nil {
		t.Fatal("a SIGTRAP stop taken as OK")
	}
	for p, want := range map[string]bool{"T10thread:p01.2;": true, "S1f": true, "T05thread:p01.2;": false, "OK": false, "T1": false, "W00": false} {
		if passedStop([]byte(p)) != want {
			t.Errorf("passedStop(%q) = %v", p, !want)
		}
	}
}

// QEMU 7.2's stub now and then sends a passed signal's stop reply with its
// T overwritten by a NUL (the checksum covers the NUL). Awaited as a stop,
// it is that signal's stop; where a command's reply is owed, it is dropped
// like any stray passed stop. A NUL before anything else stays an error.
func TestNULStopOfAPassedSignal(t *testing.T) {
	cl, theirs := pipeClient(t)
	go func() {
		theirs.Write(appendPacket(nil, []byte("\x0010thread:p01.2f5a;")))
		b := make([]byte, 256)
		for _, replies := range [][]string{{"\x0010thread:p01.2f5a;", "OK"}, {"\x0005thread:p01.2f5a;"}, {"\x00000003f0000000000"}} {
			if _, err := theirs.Read(b); err != nil {
				return
			}
			for _, r := range replies {
				theirs.Write(appendPacket(nil, []byte(r)))
			}
		}
	}()
	ctx := context.Background()
	cl.running, cl.owed = true, 1
	st, err := cl.wait(ctx)
	if err != nil || st.kind != stopSignal || st.signal != 0x10 || st.thread.TID != 0x2f5a {
		t.Fatalf("the awaited stop: %+v, %v", st, err)
	}
	if err := cl.requestOK(ctx, "Z0,1000,1"); err != nil {
		t.Fatalf("a command answered after a NUL SIGURG stop: %v", err)
	}
	if cl.mended != 2 || cl.strayStops != 1 {
		t.Fatalf("mended %d, dropped %d", cl.mended, cl.strayStops)
	}
	for _, req := range []string{"z0,1000,1", "p20"} {
		if err := cl.requestOK(ctx, req); err == nil {
			t.Fatalf("%s: a NUL packet of no passed signal taken as OK", req)
		}
	}
	if cl.mended != 2 {
		t.Fatalf("mended %d", cl.mended)
	}
}

// pipeClient is a client in no-ack mode over one end of a pipe; the test
// plays the server on the other.
func pipeClient(t *testing.T) (*client, net.Conn) {
	ours, theirs := net.Pipe()
	cl := &client{c: newConn(ours, nil)}
	cl.c.noAck.Store(true)
	t.Cleanup(func() {
		cl.c.close()
		theirs.Close()
		ours.Close()
	})
	return cl, theirs
}
