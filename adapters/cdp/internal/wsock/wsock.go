// Package wsock is a small RFC 6455 WebSocket client and server: text and
// binary messages, fragmentation, ping/pong and close, with a hard bound on
// the size of a message. It is what adapters/cdp speaks CDP over and what
// its fake server answers with; nothing else needs it, and chromedp keeps
// its own client internal.
package wsock

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Opcodes.
const (
	OpContinuation = 0
	OpText         = 1
	OpBinary       = 2
	OpClose        = 8
	OpPing         = 9
	OpPong         = 10
)

// ErrTooLarge is returned by ReadMessage for a message over the limit.
// When it comes as a *SkippedError the message was read past and the
// connection is still usable; otherwise (a frame length no peer could
// send) it is not.
var ErrTooLarge = errors.New("websocket message over the size limit")

// SkippedError is ReadMessage's error for a message over the limit whose
// frames it read to the end and discarded: the next ReadMessage returns
// the message after it. Head is the message's first bytes (at most
// HeadBytes), so a caller can tell which reply it was.
type SkippedError struct{ Head []byte }

// HeadBytes bounds SkippedError.Head.
const HeadBytes = 256

func (e *SkippedError) Error() string { return ErrTooLarge.Error() }
func (e *SkippedError) Unwrap() error { return ErrTooLarge }

// ErrProtocol is a frame that breaks RFC 6455.
var ErrProtocol = errors.New("websocket protocol violation")

// Conn is one WebSocket connection. ReadMessage must be called from one
// goroutine; WriteMessage is safe for concurrent use.
type Conn struct {
	c        net.Conn
	br       *bufio.Reader
	client   bool // a client masks what it sends
	maxBytes int64

	wmu       sync.Mutex
	closeOnce sync.Once
}

const guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + guid))
	return base64.StdEncoding.EncodeToString(h[:])
}

// Dial opens a client connection to a ws:// URL. maxBytes bounds each
// message read.
func Dial(ctx context.Context, rawURL string, maxBytes int64) (*Conn, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "ws" || u.Host == "" {
		return nil, fmt.Errorf("websocket dial: bad url %q", rawURL)
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	// The handshake obeys ctx; afterwards the connection has no deadline.
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	var nonce [16]byte
	rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	path := u.RequestURI()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
		"\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(nc, req); err != nil {
		nc.Close()
		return nil, ctxErr(ctx, err)
	}
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
	if err != nil {
		nc.Close()
		return nil, ctxErr(ctx, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols ||
		!strings.EqualFold(resp.Header.Get("Upgrade"), "websocket") ||
		resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(key) {
		nc.Close()
		return nil, fmt.Errorf("websocket dial: handshake refused (%s)", resp.Status)
	}
	if !stop() {
		nc.Close()
		return nil, ctx.Err()
	}
	nc.SetDeadline(time.Time{})
	return &Conn{c: nc, br: br, client: true, maxBytes: maxBytes}, nil
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Upgrade answers a client's handshake on an HTTP server and returns the
// server side of the connection.
func Upgrade(w http.ResponseWriter, r *http.Request, maxBytes int64) (*Conn, error) {
	key := r.Header.Get("Sec-WebSocket-Key")
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || key == "" {
		http.Error(w, "not a websocket handshake", http.StatusBadRequest)
		return nil, ErrProtocol
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cannot hijack", http.StatusInternalServerError)
		return nil, errors.New("websocket upgrade: response writer cannot hijack")
	}
	nc, brw, err := hj.Hijack()
	if err != nil {
		return nil, err
	}
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		acceptKey(key) + "\r\n\r\n"
	if _, err := io.WriteString(nc, resp); err != nil {
		nc.Close()
		return nil, err
	}
	return &Conn{c: nc, br: brw.Reader, maxBytes: maxBytes}, nil
}

// Close closes the underlying connection (after a best-effort close frame).
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.wmu.Lock()
		c.c.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
		c.writeFrameLocked(OpClose, []byte{3, 232}) // 1000, normal closure
		c.wmu.Unlock()
		err = c.c.Close()
	})
	return err
}

// ReadMessage returns the next text or binary message, answering pings on
// the way. A close frame ends with io.EOF. A message over the size limit is
// read to its end and reported as a *SkippedError holding its first bytes;
// the connection stays usable.
func (c *Conn) ReadMessage() (op int, data []byte, err error) {
	var msgOp = -1
	var buf []byte
	skipping := false // over the limit: buf holds the head only
	for {
		limit := c.maxBytes - int64(len(buf))
		if skipping {
			limit = -1
		}
		fin, fop, payload, over, err := c.readFrame(limit, HeadBytes-int64(len(buf)))
		if err != nil {
			return 0, nil, err
		}
		if over && fop < 8 {
			skipping = true
		}
		switch fop {
		case OpPing:
			c.WriteMessage(OpPong, payload)
			continue
		case OpPong:
			continue
		case OpClose:
			return 0, nil, io.EOF
		case OpContinuation:
			if msgOp < 0 {
				return 0, nil, ErrProtocol
			}
		case OpText, OpBinary:
			if msgOp >= 0 {
				return 0, nil, ErrProtocol
			}
			msgOp = fop
		default:
			return 0, nil, ErrProtocol
		}
		buf = append(buf, payload...)
		if skipping && len(buf) > HeadBytes {
			buf = buf[:HeadBytes]
		}
		if fin {
			if skipping {
				return 0, nil, &SkippedError{Head: buf}
			}
			return msgOp, buf, nil
		}
	}
}

// readFrame reads one frame. A data frame longer than limit is read to its
// end but only its first head bytes (none when head < 1) are returned, with
// over set.
func (c *Conn) readFrame(limit, head int64) (fin bool, op int, payload []byte, over bool, err error) {
	var h [2]byte
	if _, err = io.ReadFull(c.br, h[:]); err != nil {
		return
	}
	fin = h[0]&0x80 != 0
	if h[0]&0x70 != 0 {
		return false, 0, nil, false, ErrProtocol // no extensions were negotiated
	}
	op = int(h[0] & 0x0f)
	masked := h[1]&0x80 != 0
	n := int64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err = io.ReadFull(c.br, b[:]); err != nil {
			return
		}
		n = int64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err = io.ReadFull(c.br, b[:]); err != nil {
			return
		}
		u := binary.BigEndian.Uint64(b[:])
		if u > 1<<62 {
			return false, 0, nil, false, ErrTooLarge
		}
		n = int64(u)
	}
	if op >= 8 && (n > 125 || !fin) {
		return false, 0, nil, false, ErrProtocol
	}
	var key [4]byte
	if masked {
		if _, err = io.ReadFull(c.br, key[:]); err != nil {
			return
		}
	}
	keep := n
	if op < 8 && n > limit {
		over, keep = true, min(max(head, 0), n)
	}
	if payload, err = readN(c.br, keep); err != nil {
		return
	}
	if over {
		if _, err = io.CopyN(io.Discard, c.br, n-keep); err != nil {
			return
		}
	}
	if masked {
		for i := range payload {
			payload[i] ^= key[i&3]
		}
	}
	return fin, op, payload, over, nil
}

// readStep is the most readN allocates ahead of the bytes it has read.
const readStep = 1 << 20

// readN reads exactly n bytes. A frame's length comes from the peer, so the
// buffer grows with the bytes that arrive (at most doubling, never more than
// readStep past them) rather than being allocated whole from the header: a
// ten-byte header claiming 64 MiB costs what the peer actually sends.
func readN(r io.Reader, n int64) ([]byte, error) {
	b := make([]byte, 0, min(n, readStep))
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, int(min(n-int64(len(b)), int64(len(b)), readStep)))
		}
		m, err := io.ReadFull(r, b[len(b):min(int64(cap(b)), n)])
		if err == io.EOF && len(b) > 0 {
			err = io.ErrUnexpectedEOF // the frame, not the stream, ended early
		}
		if b = b[:len(b)+m]; err != nil {
			return b, err
		}
	}
	return b, nil
}

// WriteMessage writes one unfragmented message.
func (c *Conn) WriteMessage(op int, data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeFrameLocked(op, data)
}

// WriteRaw writes bytes as they are, for tests that send broken frames.
func (c *Conn) WriteRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.c.Write(b)
	return err
}

func (c *Conn) writeFrameLocked(op int, data []byte) error {
	hdr := make([]byte, 0, 14)
	hdr = append(hdr, 0x80|byte(op))
	mask := byte(0)
	if c.client {
		mask = 0x80
	}
	switch n := len(data); {
	case n < 126:
		hdr = append(hdr, mask|byte(n))
	case n <= 0xffff:
		hdr = append(hdr, mask|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, mask|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	out := data
	if c.client {
		var key [4]byte
		rand.Read(key[:])
		hdr = append(hdr, key[:]...)
		out = make([]byte, len(data))
		for i := range data {
			out[i] = data[i] ^ key[i&3]
		}
	}
	if _, err := c.c.Write(append(hdr, out...)); err != nil {
		return err
	}
	return nil
}
