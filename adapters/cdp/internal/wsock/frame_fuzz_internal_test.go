package wsock

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
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
