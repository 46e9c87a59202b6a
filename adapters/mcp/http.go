package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListenLoopback checks that addr (host:port) names a loopback interface
// and listens on it. rea never serves MCP beyond the local machine.
func ListenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("serve --http %q: want host:port, e.g. 127.0.0.1:8765: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if host == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
		addr = net.JoinHostPort(ip.String(), portOf(addr))
	}
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("serve --http %q: refusing a non-loopback address; use 127.0.0.1 or [::1]", addr)
	}
	return net.Listen("tcp", addr)
}

func portOf(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// HTTP transport limits; Options.HTTP overrides them.
const (
	DefaultMaxHTTPSessions = 32
	DefaultHTTPIdleTimeout = 30 * time.Minute
	DefaultSSERetry        = 2 * time.Second
)

// HTTPOptions bound the Streamable HTTP transport. Zero fields take the
// defaults above.
type HTTPOptions struct {
	MaxSessions int           // sessions open at once; a new one past it gets 503
	IdleTimeout time.Duration // a session with no request for this long is closed
	SSERetry    time.Duration // the SSE retry field sent at the start of every stream
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxHTTPSessions
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultHTTPIdleTimeout
	}
	if o.SSERetry <= 0 {
		o.SSERetry = DefaultSSERetry
	}
	return o
}

// ServeHTTP serves MCP over Streamable HTTP on ln (from ListenLoopback)
// until ctx ends. Each HTTP session is its own connection with its own
// ledger, so several agents can share one server. Requests whose Origin is
// not a loopback origin are refused (403), as the MCP transport
// specification requires; sessions are capped and closed when idle; every
// SSE stream starts with a retry field and, for protocol versions that
// resume streams, a priming event.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	o := s.opts.HTTP.withDefaults()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{Logger: s.opts.Logger, SessionTimeout: o.IdleTimeout,
			EventStore: sdk.NewMemoryEventStore(nil)})
	posts := &inflight{}
	srv := &http.Server{Handler: s.guard(h, o, posts), ReadHeaderTimeout: 10 * time.Second}
	done, shut := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(shut)
		select {
		case <-ctx.Done():
			// Calls in flight are cancelled first, so each cleans up and
			// is answered on its POST's stream; then the sessions close,
			// which ends the clients' standing GET streams, and Shutdown
			// finds the connections idle. A call that ignores
			// cancellation is cut off after the grace.
			s.stop()
			grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopGrace)
			defer cancel()
			posts.wait(grace)
			for ss := range s.sdk.Sessions() {
				_ = ss.Close()
			}
			_ = srv.Shutdown(grace)
		case <-done:
		}
	}()
	err := srv.Serve(ln)
	close(done)
	// Serve returns as soon as Shutdown starts: wait for it to finish, or
	// the process may exit before the answers are written.
	<-shut
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// guard checks Origin and the session cap before the SDK sees a request,
// and adds the SSE retry field to event streams.
func (s *Server) guard(next http.Handler, o HTTPOptions, posts *inflight) http.Handler {
	retry := fmt.Sprintf("retry: %d\n\n", o.SSERetry.Milliseconds())
	cancels := &httpCancels{sessions: map[string]*cancelSet{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
			httpError(w, http.StatusForbidden, "origin "+strconv.Quote(origin)+" is not a loopback origin")
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			n := 0
			for range s.sdk.Sessions() {
				n++
			}
			if n >= o.MaxSessions {
				httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("%d sessions are open, the most this server keeps; close one (DELETE with its Mcp-Session-Id) or wait for one to idle out", n))
				return
			}
		}
		if r.Method == http.MethodPost {
			posts.add()
			defer posts.done()
		}
		var out http.ResponseWriter = &sseRetryWriter{ResponseWriter: w, retry: retry}
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			set := cancels.session(id, s)
			if r.Method == http.MethodPost {
				set.note(r)
			}
			out = &cancelFilter{ResponseWriter: out, set: set}
		}
		next.ServeHTTP(out, r)
	})
}

// inflight counts the POST requests being served: each ends once its
// answers are written, which is what a stopping server waits for.
type inflight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops back to 0
}

func (f *inflight) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
}

func (f *inflight) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 {
		close(f.idle)
	}
}

// wait returns once no POST is being served, or when ctx ends.
func (f *inflight) wait(ctx context.Context) {
	f.mu.Lock()
	idle, n := f.idle, f.n
	f.mu.Unlock()
	if n == 0 {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

// The SDK's Streamable HTTP transport answers a request cancelled with
// notifications/cancelled (its handler sees the cancellation and returns an
// error, which is written). MCP says a cancelled request gets no response,
// as rea's stdio transport does: the guard notes the ids a session
// cancels, before the SDK sees the notification, and drops the SSE event
// that would answer one of them.

// maxCancelled bounds the cancelled ids remembered per session.
const maxCancelled = 1024

type cancelSet struct {
	mu  sync.Mutex
	ids map[string]bool // canonical JSON of the request ids
}

type httpCancels struct {
	mu       sync.Mutex
	sessions map[string]*cancelSet
}

// session returns the set of session id, forgetting closed sessions once
// the map grows.
func (c *httpCancels) session(id string, s *Server) *cancelSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	if set, ok := c.sessions[id]; ok {
		return set
	}
	if len(c.sessions) >= 2*DefaultMaxHTTPSessions {
		live := map[string]bool{}
		for ss := range s.sdk.Sessions() {
			live[ss.ID()] = true
		}
		for k := range c.sessions {
			if !live[k] {
				delete(c.sessions, k)
			}
		}
	}
	set := &cancelSet{ids: map[string]bool{}}
	c.sessions[id] = set
	return set
}

// note records the request id of a notifications/cancelled body, leaving
// the body readable for the SDK.
func (set *cancelSet) note(r *http.Request) {
	if r.Body == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20+1))
	rest := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	if err != nil || len(body) > 1<<20 || !bytes.Contains(body, []byte("notifications/cancelled")) {
		return
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "notifications/cancelled" {
		return
	}
	if key, ok := idKey(msg.Params.RequestID); ok {
		set.mu.Lock()
		if len(set.ids) >= maxCancelled {
			clear(set.ids)
		}
		set.ids[key] = true
		set.mu.Unlock()
	}
}

// idKey is the canonical text of a JSON-RPC id (a string or an integer).
func idKey(raw json.RawMessage) (string, bool) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return "", false
	}
	switch v.(type) {
	case string, json.Number:
		b, _ := json.Marshal(v)
		return string(b), true
	}
	return "", false
}

// take reports whether the SSE event b answers a cancelled id, forgetting
// the id when it does.
func (set *cancelSet) take(b []byte) bool {
	const field = "\ndata: "
	i := bytes.Index(b, []byte(field))
	if i < 0 {
		if !bytes.HasPrefix(b, []byte("data: ")) {
			return false
		}
		i = -1
	}
	data := bytes.TrimSpace(b[i+len(field):])
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &msg) != nil || msg.Method != "" || (msg.Result == nil && msg.Error == nil) {
		return false
	}
	key, ok := idKey(msg.ID)
	if !ok {
		return false
	}
	set.mu.Lock()
	defer set.mu.Unlock()
	if !set.ids[key] {
		return false
	}
	delete(set.ids, key)
	return true
}

// cancelFilter drops the SSE events that answer cancelled requests (the
// SDK writes each event in one Write).
type cancelFilter struct {
	http.ResponseWriter
	set *cancelSet
}

func (w *cancelFilter) Write(b []byte) (int, error) {
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") && w.set.take(b) {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *cancelFilter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *cancelFilter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// loopbackOrigin reports whether origin is http(s)://127.0.0.1, [::1] or
// localhost, with any port.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || (u.Path != "" && u.Path != "/") {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": msg}})
	_, _ = w.Write(b)
}

// sseRetryWriter writes the SSE retry field first on an event stream.
type sseRetryWriter struct {
	http.ResponseWriter
	retry   string
	started bool
}

func (w *sseRetryWriter) WriteHeader(code int) {
	if !w.started {
		w.started = true
		w.ResponseWriter.WriteHeader(code)
		if code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			_, _ = w.ResponseWriter.Write([]byte(w.retry))
		}
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sseRetryWriter) Write(b []byte) (int, error) {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *sseRetryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *sseRetryWriter) Flush() {
	if !w.started {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}
