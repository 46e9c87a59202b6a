package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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

// ServeHTTP serves MCP over Streamable HTTP on ln (from ListenLoopback)
// until ctx ends. Each HTTP session is its own connection with its own
// ledger, so several agents can share one server.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{Logger: s.opts.Logger})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
