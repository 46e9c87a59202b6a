package wsock

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// pipeConn is the net.Conn a fuzzed Conn writes its pongs and close frame
// to; reads come from Conn.br.
type pipeConn struct {
	net.Conn
	out bytes.Buffer
}

func (p *pipeConn) Write(b []byte) (int, error)      { return p.out.Write(b) }
func (p *pipeConn) Close() error                     { return nil }
func (p *pipeConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzReadMessage: frames come from the peer, so ReadMessage reads
// untrusted bytes. It never panics, every message it returns is within the
// limit, every error is io.EOF, a protocol or size error or the stream
// ending early, and the head of a skipped message is at most HeadBytes.
func FuzzReadMessage(f *testing.F) {
	for _, s := range []string{
		"\x81\x05hello", "\x01\x02he\x89\x00\x80\x03llo", "\xc1\x02hi", "\x80\x02hi", "\x09\x00", "\x83\x00",
		"\x81\x7f\xff\xff\xff\xff\xff\xff\xff\xff", "\x88\x02\x03\xe8", "\x81\x85abcd\x09\x07\x0f\x08\x0e",
		"\x81\x7e\x01\x00" + string(make([]byte, 256)) + "\x82\x01x", "\x01\x7e\x00\xc8" + string(make([]byte, 200)) + "\x8a\x00\x80\x01y\x81\x00",
	} {
		f.Add([]byte(s), uint16(100))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		c := &Conn{c: &pipeConn{}, br: bufio.NewReader(bytes.NewReader(data)), maxBytes: int64(limit)}
		for range len(data) + 1 { // each message takes at least two bytes
			op, msg, err := c.ReadMessage()
			var skipped *SkippedError
			switch {
			case err == nil:
				if op != OpText && op != OpBinary || int64(len(msg)) > int64(limit) {
					t.Fatalf("op %d, %d bytes over a limit of %d", op, len(msg), limit)
				}
				continue
			case errors.As(err, &skipped):
				if len(skipped.Head) > HeadBytes {
					t.Fatalf("a skipped message's head is %d bytes", len(skipped.Head))
				}
				continue
			case err == io.EOF, errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, ErrProtocol), errors.Is(err, ErrTooLarge):
				return
			default:
				t.Fatalf("error %T %v", err, err)
			}
		}
		t.Fatal("ReadMessage did not reach the end of the input")
	})
}

// TestClaimedLengthIsNotAllocated: a frame header's length is the peer's
// claim; what ReadMessage allocates follows the bytes that arrive.
func TestClaimedLengthIsNotAllocated(t *testing.T) {
	hdr := []byte{0x82, 127, 0, 0, 0, 0, 0x04, 0, 0, 0} // a binary frame of 64 MiB, then 1,000 bytes
	data := append(hdr, make([]byte, 1000)...)
	c := &Conn{c: &pipeConn{}, br: bufio.NewReader(bytes.NewReader(data)), maxBytes: 128 << 20}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := c.ReadMessage()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v, want the frame to end early", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Fatalf("allocated %d bytes for 1,010 bytes of input", got)
	}
}

// TestReadNGrows: readN returns exactly n bytes across its steps, and a
// stream that ends inside them is an unexpected EOF.
func TestReadNGrows(t *testing.T) {
	src := make([]byte, 3*readStep+17)
	for i := range src {
		src[i] = byte(i * 7)
	}
	got, err := readN(bytes.NewReader(src), int64(len(src)))
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("readN: %d bytes, %v", len(got), err)
	}
	if _, err := readN(bytes.NewReader(src[:readStep+5]), int64(len(src))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short stream: %v", err)
	}
	if _, err := readN(bytes.NewReader(nil), 10); err != io.EOF {
		t.Fatalf("empty stream: %v", err)
	}
}
