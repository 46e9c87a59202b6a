package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
	srv := &http.Server{Handler: s.guard(h, o), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shut)
		case <-done:
		}
	}()
	err := srv.Serve(ln)
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// guard checks Origin and the session cap before the SDK sees a request,
// and adds the SSE retry field to event streams.
func (s *Server) guard(next http.Handler, o HTTPOptions) http.Handler {
	retry := fmt.Sprintf("retry: %d\n\n", o.SSERetry.Milliseconds())
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
		next.ServeHTTP(&sseRetryWriter{ResponseWriter: w, retry: retry}, r)
	})
}

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
