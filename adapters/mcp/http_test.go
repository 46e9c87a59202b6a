package mcp_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func startHTTP(t *testing.T, o mcp.HTTPOptions) string {
	t.Helper()
	url, _ := startHTTPStoppable(t, o)
	return url
}

// startHTTPStoppable serves as startHTTP does and returns what stops the
// server (at cleanup too), returning ServeHTTP's error.
func startHTTPStoppable(t *testing.T, o mcp.HTTPOptions) (string, func() error) {
	t.Helper()
	srv := newTestServer(t, &mcp.Options{HTTP: o})
	ln, err := mcp.ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, ln) }()
	stop := sync.OnceValue(func() error {
		cancel()
		return <-done
	})
	t.Cleanup(func() { stop() })
	return "http://" + ln.Addr().String() + "/", stop
}

func post(t *testing.T, url, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestHTTPRefusesForeignOrigin(t *testing.T) {
	is := is.New(t)
	url := startHTTP(t, mcp.HTTPOptions{})
	resp, _ := post(t, url, initBody, map[string]string{"Origin": "http://evil.example"})
	is.Equal(resp.StatusCode, http.StatusForbidden)
	resp, _ = post(t, url, initBody, map[string]string{"Origin": "http://127.0.0.1:9"})
	is.Equal(resp.StatusCode, http.StatusOK)
}

func TestHTTPStreamsStartWithRetryAndPriming(t *testing.T) {
	is := is.New(t)
	url := startHTTP(t, mcp.HTTPOptions{SSERetry: 1500 * time.Millisecond})
	resp, body := post(t, url, initBody, nil)
	is.Equal(resp.StatusCode, http.StatusOK)
	is.True(strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"))
	is.True(strings.HasPrefix(body, "retry: 1500\n\n")) // retry first
	is.True(strings.Contains(body, "event: prime"))     // then the priming event
	is.True(strings.Contains(body, `"protocolVersion"`))
}

func TestHTTPSessionCapAndIdleTimeout(t *testing.T) {
	is := is.New(t)
	url := startHTTP(t, mcp.HTTPOptions{MaxSessions: 2, IdleTimeout: 300 * time.Millisecond})
	var ids []string
	for i := 0; i < 2; i++ {
		resp, _ := post(t, url, initBody, nil)
		is.Equal(resp.StatusCode, http.StatusOK)
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	resp, body := post(t, url, initBody, nil)
	is.Equal(resp.StatusCode, http.StatusServiceUnavailable)
	is.True(strings.Contains(body, "sessions are open"))
	// Idle sessions are closed; then a new one is accepted.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, _ = post(t, url, initBody, nil)
		if resp.StatusCode == http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	is.Equal(resp.StatusCode, http.StatusOK)
	resp, _ = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": ids[0], "Mcp-Protocol-Version": "2025-11-25"})
	is.Equal(resp.StatusCode, http.StatusNotFound) // the idle session is gone
}

// Over Streamable HTTP, as over stdio, a request the client cancels with
// notifications/cancelled gets no response: its POST stream ends without
// an event answering it, and the session keeps serving.
func TestHTTPCancelledRequestGetsNoResponse(t *testing.T) {
	is := is.New(t)
	url := startHTTP(t, mcp.HTTPOptions{})
	resp, _ := post(t, url, initBody, nil)
	is.Equal(resp.StatusCode, http.StatusOK)
	hdr := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	resp, _ = post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	is.Equal(resp.StatusCode, http.StatusAccepted)
	type answer struct {
		status int
		body   string
	}
	slow := make(chan answer, 1)
	go func() {
		resp, body := post(t, url, `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":1000}}}`, hdr)
		slow <- answer{resp.StatusCode, body}
	}()
	time.Sleep(300 * time.Millisecond)
	resp, _ = post(t, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":20,"reason":"test"}}`, hdr)
	is.Equal(resp.StatusCode, http.StatusAccepted)
	var got answer
	select {
	case got = <-slow:
	case <-time.After(60 * time.Second):
		t.Fatal("the cancelled request's stream did not end")
	}
	is.Equal(got.status, http.StatusOK)
	if strings.Contains(got.body, `"id":20`) {
		t.Fatalf("the cancelled request was answered: %s", got.body)
	}
	resp, body := post(t, url, `{"jsonrpc":"2.0","id":21,"method":"ping"}`, hdr)
	is.Equal(resp.StatusCode, http.StatusOK)
	is.True(strings.Contains(body, `"id":21`)) // the session still serves
}

// A call still running when the server stops is cancelled and answered
// (code cancelled, reason server_stopping) before the connection closes:
// the client learns what happened to it.
func TestHTTPStopAnswersCallsInFlight(t *testing.T) {
	is := is.New(t)
	url, stop := startHTTPStoppable(t, mcp.HTTPOptions{})
	resp, _ := post(t, url, initBody, nil)
	is.Equal(resp.StatusCode, http.StatusOK)
	hdr := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	resp, _ = post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	is.Equal(resp.StatusCode, http.StatusAccepted)
	slow := make(chan string, 1)
	go func() {
		_, body := post(t, url, `{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":1000}}}`, hdr)
		slow <- body
	}()
	time.Sleep(300 * time.Millisecond)
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	var body string
	select {
	case body = <-slow:
	case <-time.After(60 * time.Second):
		t.Fatal("the call in flight was not answered")
	}
	is.NoErr(<-stopped)
	is.True(strings.Contains(body, `"id":30`))
	is.True(strings.Contains(body, `\"code\":\"cancelled\"`))
	is.True(strings.Contains(body, `server_stopping`))
}
