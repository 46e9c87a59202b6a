package cdp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	cdpt "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"rea/adapters/cdp/internal/wsock"
	"rea/ports"
)

// maxMessageBytes bounds one CDP message (BROWSER.md §1 [N]: 64 MiB); a
// variable only so that a test can lower it.
var maxMessageBytes int64 = 64 << 20

// maxSafeInt is the largest id a JSON-RPC reply may carry (2^53-1).
const maxSafeInt = 1<<53 - 1

// event is one CDP notification. Params is always a JSON object.
type event struct {
	Method    string
	SessionID string
	Params    json.RawMessage
}

// rpcError is the error member of a reply.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("cdp error %d: %s", e.Code, e.Message) }

// unknownMethod reports whether err is the browser's "method not found"
// rejection (JSON-RPC -32601), the only rejection that makes an optional
// section unavailable rather than failing the call.
func unknownMethod(err error) bool {
	var re *rpcError
	return errors.As(err, &re) && re.Code == -32601
}

type reply struct {
	result json.RawMessage
	err    error
}

type pendingCall struct {
	sessionID string
	ch        chan reply
}

// conn is one CDP WebSocket: it numbers commands 1, 2, ..., matches replies
// and hands events to one listener, synchronously, on the reader goroutine.
// A malformed message poisons it: every pending and later command fails
// with protocol_error; a closed socket fails them with disconnected.
type conn struct {
	ws *wsock.Conn

	mu       sync.Mutex
	next     int64
	pending  map[int64]*pendingCall
	failure  *ports.BrowserError
	listener func(event)
	tap      func(event) // a second listener, for one step of a capture
	onClose  []func(*ports.BrowserError)
	done     chan struct{}
	// sessions holds a channel per watched session, closed when the
	// browser detaches it or the connection fails.
	sessions map[string]chan struct{}
}

// errDetached is the failure of a call on a session the browser detached
// (its target closed or crashed).
func errDetached() *ports.BrowserError {
	return &ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "target_terminated: the target closed or detached during the call"}
}

// sessionDone returns a channel closed when session sid is detached or the
// connection fails.
func (c *conn) sessionDone(sid string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.sessions[sid]
	if !ok {
		ch = make(chan struct{})
		c.sessions[sid] = ch
		if c.failure != nil {
			close(ch)
		}
	}
	return ch
}

// detach marks sid gone and fails its pending calls.
func (c *conn) detach(sid string) {
	c.mu.Lock()
	ch, ok := c.sessions[sid]
	if !ok {
		ch = make(chan struct{})
		c.sessions[sid] = ch
	}
	select {
	case <-ch:
	default:
		close(ch)
	}
	var fail []*pendingCall
	for id, p := range c.pending {
		if p.sessionID == sid {
			fail = append(fail, p)
			delete(c.pending, id)
		}
	}
	c.mu.Unlock()
	for _, p := range fail {
		p.ch <- reply{err: errDetached()}
	}
}

func dialConn(ctx context.Context, wsURL string) (*conn, error) {
	ws, err := wsock.Dial(ctx, wsURL, maxMessageBytes)
	if err != nil {
		if ctx.Err() != nil {
			return nil, cancelled(ctx)
		}
		return nil, &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "cannot open the CDP WebSocket", Err: err}
	}
	c := &conn{ws: ws, pending: map[int64]*pendingCall{}, done: make(chan struct{}), sessions: map[string]chan struct{}{}}
	go c.readLoop()
	return c, nil
}

func cancelled(ctx context.Context) *ports.BrowserError {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &ports.BrowserError{Code: ports.BrowserTimeout, Err: ctx.Err()}
	}
	return &ports.BrowserError{Code: ports.BrowserCancelled, Err: ctx.Err()}
}

// failureNow is the connection's failure, nil while it works.
func (c *conn) failureNow() *ports.BrowserError {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failure
}

// setListener installs the event listener (nil removes it).
func (c *conn) setListener(f func(event)) {
	c.mu.Lock()
	c.listener = f
	c.mu.Unlock()
}

// setTap installs a second listener beside the capture's (nil removes it),
// for a step that needs events the capture's listener does not keep.
func (c *conn) setTap(f func(event)) {
	c.mu.Lock()
	c.tap = f
	c.mu.Unlock()
}

// whenClosed registers f to run once when the connection fails or closes.
func (c *conn) whenClosed(f func(*ports.BrowserError)) {
	c.mu.Lock()
	if c.failure != nil {
		fail := c.failure
		c.mu.Unlock()
		f(fail)
		return
	}
	c.onClose = append(c.onClose, f)
	c.mu.Unlock()
}

func (c *conn) fail(be *ports.BrowserError) {
	c.mu.Lock()
	if c.failure != nil {
		c.mu.Unlock()
		return
	}
	c.failure = be
	pend := c.pending
	c.pending = map[int64]*pendingCall{}
	hooks := c.onClose
	c.onClose = nil
	for _, ch := range c.sessions {
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
	c.mu.Unlock()
	for _, p := range pend {
		p.ch <- reply{err: be}
	}
	for _, h := range hooks {
		h(be)
	}
	close(c.done)
	c.ws.Close()
}

func (c *conn) close() {
	c.fail(&ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "connection closed"})
}

func (c *conn) readLoop() {
	for {
		op, data, err := c.ws.ReadMessage()
		var skipped *wsock.SkippedError
		if errors.As(err, &skipped) && c.failReply(skipped.Head) {
			continue
		}
		if err != nil {
			switch {
			case errors.Is(err, wsock.ErrTooLarge):
				c.fail(&ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: fmt.Sprintf("a CDP message exceeded %d MiB", maxMessageBytes>>20)})
			case errors.Is(err, wsock.ErrProtocol):
				c.fail(&ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "invalid WebSocket frame", Err: err})
			case errors.Is(err, io.EOF):
				c.fail(&ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "the browser closed the connection"})
			default:
				c.fail(&ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "the CDP connection was lost", Err: err})
			}
			return
		}
		if op != wsock.OpText {
			c.fail(&ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "binary WebSocket message"})
			return
		}
		if be := c.dispatch(data); be != nil {
			c.fail(be)
			return
		}
	}
}

// replyID matches the start of a reply as Chromium writes it, its id first.
var replyID = lazyRegexp{expr: `^\s*\{\s*"id"\s*:\s*([0-9]{1,16})\s*[,}]`}

// failReply fails, with payload_limit, the one pending command whose reply
// was the over-limit message starting with head, and reports whether there
// was one. The message was read past, so the connection goes on; an
// over-limit event or a message naming no pending command is not
// answered here and fails the connection as before.
func (c *conn) failReply(head []byte) bool {
	m := replyID.get().FindSubmatch(head)
	if m == nil {
		return false
	}
	id, ok := parseID(m[1])
	if !ok {
		return false
	}
	c.mu.Lock()
	p := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if p == nil {
		return false
	}
	p.ch <- reply{err: &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: fmt.Sprintf("a CDP reply exceeded %d MiB", maxMessageBytes>>20)}}
	return true
}

// message is one decoded frame, members kept raw so absence is visible.
type message struct {
	ID        json.RawMessage `json:"id"`
	Method    json.RawMessage `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`
	SessionID json.RawMessage `json:"sessionId"`
}

// decodeMessage checks a frame's JSON-RPC shape. It is what the fuzz target
// drives: any input gives a message or a protocol error, never a panic.
func decodeMessage(data []byte) (*message, *ports.BrowserError) {
	bad := func(msg string) (*message, *ports.BrowserError) {
		return nil, &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: msg}
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return bad("a CDP message is not a JSON object")
	}
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return bad("a CDP message is not valid JSON")
	}
	if m.SessionID != nil && !isJSONString(m.SessionID) {
		return bad("a CDP message has a non-string sessionId")
	}
	if m.ID != nil {
		if _, ok := parseID(m.ID); !ok {
			return bad("a CDP reply id is not a safe integer ≥ 1")
		}
		if m.Error != nil && (len(m.Error) == 0 || m.Error[0] != '{') {
			return bad("a CDP reply error is not an object")
		}
		if m.Result != nil && !isJSONObject(m.Result) && m.Error == nil {
			return bad("a CDP reply result is not an object")
		}
		return &m, nil
	}
	var method string
	if json.Unmarshal(m.Method, &method) != nil || method == "" {
		return bad("a CDP event has no method")
	}
	if m.Params != nil && !isJSONObject(m.Params) {
		return bad("a CDP event's params are not an object")
	}
	return &m, nil
}

func isJSONString(r json.RawMessage) bool {
	var s string
	return json.Unmarshal(r, &s) == nil
}

func isJSONObject(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	return len(r) > 0 && r[0] == '{'
}

func parseID(r json.RawMessage) (int64, bool) {
	s := string(bytes.TrimSpace(r))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > maxSafeInt {
		return 0, false
	}
	return n, true
}

func (c *conn) dispatch(data []byte) *ports.BrowserError {
	m, be := decodeMessage(data)
	if be != nil {
		return be
	}
	var sid string
	if m.SessionID != nil {
		json.Unmarshal(m.SessionID, &sid)
	}
	if m.ID != nil {
		id, _ := parseID(m.ID)
		c.mu.Lock()
		p := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if p == nil {
			return nil // a reply to nothing we wait for (a cancelled call)
		}
		if m.SessionID != nil && sid != p.sessionID {
			p.ch <- reply{err: &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "reply for another session"}}
			return &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "a CDP reply carried another session's id"}
		}
		if m.Error != nil {
			var re rpcError
			if json.Unmarshal(m.Error, &re) != nil {
				re = rpcError{Message: "malformed error"}
			}
			p.ch <- reply{err: &ports.BrowserError{Code: ports.BrowserProtocolError, Err: &re}}
			return nil
		}
		res := m.Result
		if res == nil {
			res = json.RawMessage(`{}`)
		}
		p.ch <- reply{result: res}
		return nil
	}
	var method string
	json.Unmarshal(m.Method, &method)
	params := m.Params
	if params == nil {
		params = json.RawMessage(`{}`)
	}
	if method == "Target.detachedFromTarget" && sid == "" {
		var d struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(params, &d) == nil && d.SessionID != "" {
			c.detach(d.SessionID)
		}
	}
	c.mu.Lock()
	l, tap := c.listener, c.tap
	c.mu.Unlock()
	ev := event{Method: method, SessionID: sid, Params: params}
	if l != nil {
		l(ev)
	}
	if tap != nil {
		tap(ev)
	}
	return nil
}

// call sends one command and waits for its reply or ctx.
func (c *conn) call(ctx context.Context, sessionID, method string, params any, result any) error {
	var raw []byte
	switch p := params.(type) {
	case nil, cdpt.Empty:
		raw = []byte(`{}`)
	case json.RawMessage:
		raw = p
	default:
		b, err := jsonv2.Marshal(params)
		if err != nil {
			return &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "encoding " + method, Err: err}
		}
		raw = b
	}
	c.mu.Lock()
	if c.failure != nil {
		be := c.failure
		c.mu.Unlock()
		return be
	}
	if ch, ok := c.sessions[sessionID]; ok && sessionID != "" {
		select {
		case <-ch:
			c.mu.Unlock()
			return errDetached()
		default:
		}
	}
	c.next++
	id := c.next
	p := &pendingCall{sessionID: sessionID, ch: make(chan reply, 1)}
	c.pending[id] = p
	c.mu.Unlock()

	type out struct {
		ID        int64           `json:"id"`
		Method    string          `json:"method"`
		Params    json.RawMessage `json:"params"`
		SessionID string          `json:"sessionId,omitempty"`
	}
	msg, _ := json.Marshal(out{ID: id, Method: method, Params: raw, SessionID: sessionID})
	if err := c.ws.WriteMessage(wsock.OpText, msg); err != nil {
		c.fail(&ports.BrowserError{Code: ports.BrowserDisconnected, Msg: "writing to the CDP connection", Err: err})
	}
	select {
	case r := <-p.ch:
		if r.err != nil {
			return r.err
		}
		if result != nil {
			if err := jsonv2.Unmarshal(r.result, result); err != nil {
				return &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "decoding the result of " + method, Err: err}
			}
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return cancelled(ctx)
	}
}

// session is a flat CDP session on a connection ("" for the connection's
// own target).
type session struct {
	c  *conn
	id string
}

// call runs a typed cdproto command on a session.
func call[P, R any](ctx context.Context, s session, cmd cdpt.Command[P, R], params P) (R, error) {
	var res R
	err := s.c.call(ctx, s.id, cmd.Method, params, &res)
	return res, err
}

// cleanupContext is the context cleanup runs under: never the caller's
// cancellation, and bounded so a silent browser cannot hold the call.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), time.Second)
}
