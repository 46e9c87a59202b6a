package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxFrameBytes bounds one inbound stdio frame (one line of JSON).
const DefaultMaxFrameBytes = 64 << 20

// maxFrameDepth bounds the nesting of one inbound frame.
const maxFrameDepth = 128

// StdioTransport serves MCP over newline-delimited JSON-RPC on a reader and a
// writer (stdin and stdout in `rea serve`). Unlike the SDK's IOTransport it
// outlives bad input: a frame that is not JSON, not JSON-RPC, too large or
// too deep is answered with the JSON-RPC error the specification names
// (-32700 parse error, -32600 invalid request) when its id can be recovered,
// and is logged and skipped when it cannot; every other request is still
// served and the connection's ledger survives. Batches (JSON arrays) are
// answered as invalid requests: MCP removed batching in 2025-06-18.
//
// It also keeps the MCP rule that a cancelled request gets no response: a
// response to a request the client cancelled with notifications/cancelled is
// dropped.
//
// When the input ends (printf ... | rea serve), every request read before
// the end is still answered: the SDK takes a read EOF for a peer that is
// gone and drops the answers in flight, so Read reports EOF only once every
// request read has been answered (or cancelled by the client), or the
// connection is closed.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxFrameBytes bounds one frame; zero means DefaultMaxFrameBytes.
	MaxFrameBytes int
	Logger        *slog.Logger

	// stop, when it closes (the server is stopping), ends the connection
	// as the end of input does, once the requests read are answered or
	// stopGrace has passed.
	stop <-chan struct{}
}

// stopGrace bounds how long a stopping server waits for the answers to the
// calls it cancelled, over stdio and HTTP.
const stopGrace = 5 * time.Second

// Connect implements sdk.Transport.
func (t *StdioTransport) Connect(context.Context) (sdk.Connection, error) {
	max := t.MaxFrameBytes
	if max <= 0 {
		max = DefaultMaxFrameBytes
	}
	log := t.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &lineConn{w: t.Writer, log: log, max: max, incoming: make(chan jsonrpcMessage), stop: t.stop,
		closed: make(chan struct{}), inflight: map[any]bool{}, cancelled: map[any]bool{}, answered: make(chan struct{}, 1)}
	if rc, ok := t.Reader.(io.Closer); ok {
		c.rclose = rc
	}
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10))
	return c, nil
}

type lineConn struct {
	w      io.Writer
	rclose io.Closer
	log    *slog.Logger
	max    int

	incoming chan jsonrpcMessage
	readErr  error           // set before incoming is closed
	stop     <-chan struct{} // StdioTransport.stop

	wmu sync.Mutex

	cmu       sync.Mutex
	inflight  map[any]bool  // request ids read and not yet answered
	cancelled map[any]bool  // in-flight request ids the client cancelled
	answered  chan struct{} // signalled when an in-flight request is answered

	closeOnce sync.Once
	closed    chan struct{}
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.stop:
		grace, cancel := context.WithTimeout(ctx, stopGrace)
		defer cancel()
		if err := c.awaitAnswers(grace); err != nil && ctx.Err() != nil {
			return nil, err
		}
		return nil, io.EOF
	case m, ok := <-c.incoming:
		if !ok {
			if err := c.awaitAnswers(ctx); err != nil {
				return nil, err
			}
			if c.readErr != nil {
				return nil, c.readErr
			}
			return nil, io.EOF
		}
		return m, nil
	}
}

// awaitAnswers returns once no request read is left unanswered, or when
// ctx ends or the connection closes.
func (c *lineConn) awaitAnswers(ctx context.Context) error {
	for {
		c.cmu.Lock()
		n := len(c.inflight)
		c.cmu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-c.closed:
			return io.EOF
		case <-c.answered:
		}
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.ID.IsValid() {
		// The request stays in flight until its answer is written (or
		// dropped), so that EOF is not reported before it.
		defer c.answer(r.ID.Raw())
		c.cmu.Lock()
		drop := c.cancelled[r.ID.Raw()]
		delete(c.cancelled, r.ID.Raw())
		c.cmu.Unlock()
		if drop {
			return nil
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	return c.writeLine(data)
}

// answer marks request id answered.
func (c *lineConn) answer(id any) {
	c.cmu.Lock()
	delete(c.inflight, id)
	c.cmu.Unlock()
	c.signalAnswered()
}

func (c *lineConn) signalAnswered() {
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

func (c *lineConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	if _, err := c.w.Write(append(data, '\n')); err != nil {
		return err
	}
	return nil
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.rclose != nil {
			_ = c.rclose.Close()
		}
	})
	return nil
}

// readLoop reads frames until EOF or a read error, handing each valid
// message to Read and answering or skipping each bad one.
func (c *lineConn) readLoop(r *bufio.Reader) {
	defer close(c.incoming)
	for {
		line, tooLarge, err := readFrame(r, c.max)
		if tooLarge {
			c.reject(line, jsonrpc.CodeInvalidRequest, fmt.Sprintf("frame exceeds %d bytes", c.max))
		} else if len(bytes.TrimSpace(line)) > 0 {
			if msg := c.decode(line); msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			return
		}
	}
}

// readFrame returns the next line without its newline. A line longer than
// max is consumed to its end; its first max bytes are returned with
// tooLarge set, so an id near the start can still be recovered.
func readFrame(r *bufio.Reader, max int) (line []byte, tooLarge bool, err error) {
	for {
		chunk, e := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			if !tooLarge {
				line = append(line, chunk[:max-len(line)]...)
				tooLarge = true
			}
		} else {
			line = append(line, chunk...)
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e == nil && !tooLarge {
			line = line[:len(line)-1]
		}
		return line, tooLarge, e
	}
}

// decode returns the message in line, or nil after answering or logging a
// bad frame.
func (c *lineConn) decode(line []byte) jsonrpc.Message {
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] == '[' {
		c.reject(trimmed, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported")
		return nil
	}
	if d := depth(trimmed); d > maxFrameDepth {
		c.reject(trimmed, jsonrpc.CodeInvalidRequest, fmt.Sprintf("frame nests deeper than %d levels", maxFrameDepth))
		return nil
	}
	if !json.Valid(trimmed) {
		c.reject(trimmed, jsonrpc.CodeParseError, "frame is not valid JSON")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		c.reject(trimmed, jsonrpc.CodeInvalidRequest, "frame is not a JSON-RPC 2.0 message: "+err.Error())
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if ok && req.ID.IsValid() {
		c.cmu.Lock()
		c.inflight[req.ID.Raw()] = true
		c.cmu.Unlock()
	}
	if ok && req.Method == "notifications/cancelled" && !req.ID.IsValid() {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil && p.RequestID != nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.cmu.Lock()
				if c.inflight[id.Raw()] {
					c.cancelled[id.Raw()] = true
				}
				c.cmu.Unlock()
			}
		}
	}
	return msg
}

// reject answers a bad frame when its id can be recovered and logs it
// either way.
func (c *lineConn) reject(frame []byte, code int64, message string) {
	id, ok := recoverID(frame)
	c.log.Warn("bad JSON-RPC frame", "code", code, "reason", message, "bytes", len(frame), "answered", ok)
	if !ok {
		return
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	resp.Error.Code, resp.Error.Message = code, message
	data, err := json.Marshal(resp)
	if err == nil {
		_ = c.writeLine(data)
	}
}

// recoverID finds a top-level "id" member holding a string or an integer in
// a frame that may be cut short or malformed after it.
func recoverID(frame []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := k.(string)
		if key != "id" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, false
			}
			continue
		}
		v, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch x := v.(type) {
		case string:
			b, _ := json.Marshal(x)
			return b, true
		case json.Number:
			if _, err := x.Int64(); err == nil {
				return json.RawMessage(x.String()), true
			}
		}
		return nil, false
	}
	return nil, false
}

// depth is the deepest nesting of arrays and objects in b, ignoring
// brackets inside strings; it stops counting past maxFrameDepth.
func depth(b []byte) int {
	d, max, inStr, esc := 0, 0, false, false
	for _, ch := range b {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if ch == '\\' {
				esc = true
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
		case ch == '{' || ch == '[':
			d++
			if d > max {
				max = d
				if max > maxFrameDepth {
					return max
				}
			}
		case ch == '}' || ch == ']':
			d--
		}
	}
	return max
}

type jsonrpcMessage = jsonrpc.Message
