package hopper

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

	"rea/ports"
)

// Wire limits (PROVIDERS.md §2.3).
const (
	maxLine  = 10 << 20 // a longer line from the bridge ends the session
	maxQueue = 64       // requests admitted at once
)

var (
	errProtocol = errors.New("hopper bridge: protocol violation")
)

// frame is one line from the bridge: an event, a result or an error.
type frame struct {
	ID     int64
	Event  *event
	Result json.RawMessage // set for a result (JSON null included)
	Err    *RemoteError
}

type event struct {
	Type      string       `json:"type"`
	Completed *int         `json:"completed"`
	Terminal  bool         `json:"terminal"`
	Error     *RemoteError `json:"-"`
}

func remoteType(t string) bool {
	switch t {
	case "capability_unavailable", "authorization", "invalid_request", "bridge_exception", "remote":
		return true
	}
	return false
}

// parseRemoteError reads E = {code: -32000, message (1..512 code points),
// type} exactly.
func parseRemoteError(b json.RawMessage) (*RemoteError, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || len(m) != 3 {
		return nil, fmt.Errorf("%w: error is not {code, message, type}", errProtocol)
	}
	var e RemoteError
	if json.Unmarshal(m["code"], &e.Code) != nil || json.Unmarshal(m["message"], &e.Message) != nil ||
		json.Unmarshal(m["type"], &e.Type) != nil {
		return nil, fmt.Errorf("%w: error fields out of shape", errProtocol)
	}
	if e.Code != -32000 || e.Message == "" || len([]rune(e.Message)) > 512 || !remoteType(e.Type) {
		return nil, fmt.Errorf("%w: error code, message or type out of range", errProtocol)
	}
	return &e, nil
}

// parseFrame decodes a bridge line strictly: an object with exactly id (an
// integer >= 0) and one of event, result or error.
func parseFrame(line []byte) (frame, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil || raw == nil {
		return frame{}, fmt.Errorf("%w: line is not a JSON object", errProtocol)
	}
	var f frame
	if len(raw) != 2 {
		return frame{}, fmt.Errorf("%w: line has %d keys, want 2", errProtocol, len(raw))
	}
	if err := json.Unmarshal(raw["id"], &f.ID); err != nil || f.ID < 0 {
		return frame{}, fmt.Errorf("%w: id %s", errProtocol, raw["id"])
	}
	switch {
	case raw["event"] != nil:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw["event"], &m); err != nil || m == nil {
			return frame{}, fmt.Errorf("%w: event is not an object", errProtocol)
		}
		var ev event
		if err := json.Unmarshal(raw["event"], &ev); err != nil {
			return frame{}, fmt.Errorf("%w: event out of shape", errProtocol)
		}
		switch ev.Type {
		case "progress":
		case "diagnostic":
			e, err := parseRemoteError(m["error"])
			if err != nil {
				return frame{}, err
			}
			ev.Error = e
		default:
			return frame{}, fmt.Errorf("%w: event type %q", errProtocol, ev.Type)
		}
		f.Event = &ev
	case raw["result"] != nil:
		f.Result = raw["result"]
	case raw["error"] != nil:
		e, err := parseRemoteError(raw["error"])
		if err != nil {
			return frame{}, err
		}
		f.Err = e
	default:
		return frame{}, fmt.Errorf("%w: line has neither event, result nor error", errProtocol)
	}
	return f, nil
}

// inflight is the one request on the wire.
type inflight struct {
	id     int64
	method string
	ctx    context.Context
	done   chan frame // buffered: the final frame
}

// wire is the client end of one bridge connection. The bridge runs on
// Hopper's single Python thread: one request is on the wire at a time and
// holds it until Hopper answers, even when its caller gave up (a timeout or
// cancel settles only the caller). Admission is FIFO-bounded at maxQueue. A
// line for any id but the request on the wire, a malformed line, a read
// error or the end of the stream fails every request and closes the
// connection.
type wire struct {
	conn  net.Conn
	token string

	admit  chan struct{}
	turn   chan struct{}
	mu     sync.Mutex
	nextID int64
	cur    *inflight
	failed error
	dead   chan struct{}
}

func newWire(conn net.Conn, token string) *wire {
	w := &wire{conn: conn, token: token, admit: make(chan struct{}, maxQueue), turn: make(chan struct{}, 1),
		nextID: 1, dead: make(chan struct{})}
	w.turn <- struct{}{}
	go w.read()
	return w
}

func (w *wire) read() {
	r := bufio.NewReaderSize(w.conn, 64<<10)
	for {
		line, err := ndjson.ReadLine(r, maxLine)
		if err != nil {
			if errors.Is(err, ndjson.ErrLineTooLong) {
				err = errors.New("hopper bridge: line over 10 MiB")
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("hopper bridge closed the connection")
			}
			w.fail(err)
			return
		}
		f, err := parseFrame(line)
		if err != nil {
			w.fail(err)
			return
		}
		w.mu.Lock()
		cur := w.cur
		if cur == nil || f.ID != cur.id {
			w.mu.Unlock()
			if f.Err != nil {
				w.fail(fmt.Errorf("%w: reply to id %d, which is not on the wire: %v", errProtocol, f.ID, f.Err))
			} else {
				w.fail(fmt.Errorf("%w: reply to id %d, which is not on the wire", errProtocol, f.ID))
			}
			return
		}
		if f.Event != nil {
			w.mu.Unlock()
			if f.Event.Type == "progress" && f.Event.Completed != nil && *f.Event.Completed == 0 {
				ports.Observe(cur.ctx, "hopper_request", cur.method+" started on Hopper's serial bridge")
			}
			continue
		}
		w.cur = nil
		w.mu.Unlock()
		cur.done <- f
		w.turn <- struct{}{} // the wire is free for the next request
	}
}

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

// call sends method with params and decodes the result into out (nil:
// discarded). ctx bounds the caller's wait only.
func (w *wire) call(ctx context.Context, method string, params map[string]any, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case w.admit <- struct{}{}:
	default:
		return fmt.Errorf("hopper: serial request queue reached its %d-request limit", maxQueue)
	}
	defer func() { <-w.admit }()
	select {
	case <-w.turn:
	default:
		ports.Observe(ctx, "hopper_request", fmt.Sprintf("%s queued behind %d Hopper request(s)", method, len(w.admit)-1))
		select {
		case <-w.turn:
		case <-ctx.Done():
			return ctx.Err()
		case <-w.dead:
			return w.err()
		}
	}
	if params == nil {
		params = map[string]any{}
	}
	w.mu.Lock()
	if w.failed != nil {
		err := w.failed
		w.mu.Unlock()
		w.turn <- struct{}{}
		return err
	}
	req := &inflight{id: w.nextID, method: method, ctx: context.WithoutCancel(ctx), done: make(chan frame, 1)}
	w.nextID++
	w.cur = req
	w.mu.Unlock()
	line, err := json.Marshal(map[string]any{"id": req.id, "token": w.token, "method": method, "params": params})
	if err != nil {
		w.fail(err)
		return err
	}
	if _, err := w.conn.Write(append(line, '\n')); err != nil {
		w.fail(fmt.Errorf("hopper bridge: write: %w", err))
		return w.err()
	}
	var f frame
	select {
	case f = <-req.done:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.dead:
		select {
		case f = <-req.done:
		default:
			return w.err()
		}
	}
	if f.Err != nil {
		return f.Err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(f.Result, out); err != nil {
		return fmt.Errorf("%w: %s result: %v", errProtocol, method, err)
	}
	return nil
}

func (w *wire) close() { w.fail(errors.New("hopper bridge connection closed")) }

// busy reports whether a request holds the wire.
func (w *wire) busy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur != nil
}
