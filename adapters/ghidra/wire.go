package ghidra

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"rea/adapters/internal/ndjson"
)

// Wire limits (PROVIDERS.md §1.1, §1.6, §1.8).
const (
	maxResponseLine = 1 << 20 // a longer line from the bridge ends the session
	maxQueue        = 32      // requests admitted at once
)

var (
	errProtocol = errors.New("ghidra bridge: protocol violation")
)

// response is one strict bridge reply.
type response struct {
	ID     int64
	OK     bool
	Result json.RawMessage
	Err    *RemoteError
}

// parseResponse decodes a reply strictly: an object with exactly id, ok and
// either result (ok) or error (not ok); error with exactly code (1..128
// characters) and message (1..4096); id from 1 to below nextID.
func parseResponse(line []byte, nextID int64) (response, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil || raw == nil {
		return response{}, fmt.Errorf("%w: reply is not a JSON object", errProtocol)
	}
	var r response
	if err := json.Unmarshal(raw["id"], &r.ID); err != nil || r.ID < 1 || r.ID >= nextID {
		return response{}, fmt.Errorf("%w: reply id %s", errProtocol, raw["id"])
	}
	if err := json.Unmarshal(raw["ok"], &r.OK); err != nil {
		return response{}, fmt.Errorf("%w: reply ok %s", errProtocol, raw["ok"])
	}
	if len(raw) != 3 {
		return response{}, fmt.Errorf("%w: reply has %d keys, want 3", errProtocol, len(raw))
	}
	if r.OK {
		res, ok := raw["result"]
		if !ok {
			return response{}, fmt.Errorf("%w: ok reply without result", errProtocol)
		}
		r.Result = res
		return r, nil
	}
	var e map[string]json.RawMessage
	if err := json.Unmarshal(raw["error"], &e); err != nil || len(e) != 2 {
		return response{}, fmt.Errorf("%w: error reply without {code, message}", errProtocol)
	}
	var code, msg string
	if json.Unmarshal(e["code"], &code) != nil || json.Unmarshal(e["message"], &msg) != nil ||
		len(code) < 1 || len(code) > 128 || len(msg) < 1 || len([]rune(msg)) > 4096 {
		return response{}, fmt.Errorf("%w: error reply code or message out of shape", errProtocol)
	}
	r.Err = &RemoteError{Code: code, Message: msg}
	return r, nil
}

// wire is the client end of one bridge connection: one request on the wire
// at a time (the bridge is single-threaded), FIFO admission bounded at
// maxQueue, replies matched by id, late replies to abandoned requests
// dropped. Any protocol violation, read error or end of stream fails every
// request and closes the connection.
type wire struct {
	conn  net.Conn
	token string

	turn    chan struct{} // holds one token: the right to put a request on the wire
	admit   chan struct{} // maxQueue slots
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan response
	failed  error         // set once; every later call fails with it
	dead    chan struct{} // closed when failed is set
}

func newWire(conn net.Conn, token string) *wire {
	w := &wire{
		conn:    conn,
		token:   token,
		turn:    make(chan struct{}, 1),
		admit:   make(chan struct{}, maxQueue),
		nextID:  1,
		pending: map[int64]chan response{},
		dead:    make(chan struct{}),
	}
	w.turn <- struct{}{}
	go w.read()
	return w
}

func (w *wire) read() {
	r := bufio.NewReaderSize(w.conn, 64<<10)
	for {
		line, err := ndjson.ReadLine(r, maxResponseLine)
		if err != nil {
			if errors.Is(err, ndjson.ErrLineTooLong) {
				err = errors.New("ghidra bridge: response line over 1 MiB")
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("ghidra bridge closed the connection")
			}
			w.fail(err)
			return
		}
		w.mu.Lock()
		next := w.nextID
		w.mu.Unlock()
		resp, err := parseResponse(line, next)
		if err != nil {
			w.fail(err)
			return
		}
		w.mu.Lock()
		ch := w.pending[resp.ID]
		delete(w.pending, resp.ID)
		w.mu.Unlock()
		if ch != nil {
			ch <- resp // buffered
		} // else a late reply to an abandoned request: dropped
	}
}

// fail records the first failure, closes the connection and wakes every
// waiter.
func (w *wire) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed != nil {
		return
	}
	w.failed = err
	close(w.dead)
	w.conn.Close()
}

func (w *wire) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// call sends method with params (every key the method takes, defaults
// included) and decodes the result into out. ctx bounds the queue wait and
// the reply; a request abandoned on the wire leaves its late reply to be
// dropped.
func (w *wire) call(ctx context.Context, method string, params map[string]any, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case w.admit <- struct{}{}:
	default:
		return fmt.Errorf("ghidra: serial request queue reached its %d-request limit", maxQueue)
	}
	defer func() { <-w.admit }()
	select {
	case <-w.turn:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.dead:
		return w.err()
	}
	ch, err := w.send(method, params)
	w.turn <- struct{}{}
	if err != nil {
		return err
	}
	var resp response
	select {
	case resp = <-ch:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.dead:
		select {
		case resp = <-ch:
		default:
			return w.err()
		}
	}
	if resp.Err != nil {
		return resp.Err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("%w: %s result: %v", errProtocol, method, err)
	}
	return nil
}

func (w *wire) send(method string, params map[string]any) (chan response, error) {
	if params == nil {
		params = map[string]any{}
	}
	w.mu.Lock()
	if w.failed != nil {
		w.mu.Unlock()
		return nil, w.failed
	}
	id := w.nextID
	w.nextID++
	ch := make(chan response, 1)
	w.pending[id] = ch
	w.mu.Unlock()
	line, err := json.Marshal(map[string]any{"id": id, "token": w.token, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := w.conn.Write(append(line, '\n')); err != nil {
		w.fail(fmt.Errorf("ghidra bridge: write: %w", err))
		return nil, w.err()
	}
	return ch, nil
}

func (w *wire) close() {
	w.fail(errors.New("ghidra bridge connection closed"))
}
