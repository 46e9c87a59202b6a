package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/mcp"
)

// stdioPeer drives a server over the StdioTransport with raw lines.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
	got  map[string]json.RawMessage // responses by id
	logs []string                   // notifications/message lines, in order
}

func startStdio(t *testing.T, maxFrame int) *stdioPeer {
	t.Helper()
	srv := newTestServer(t, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, done: make(chan error, 1), got: map[string]json.RawMessage{}}
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	p.out = sc
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		p.done <- srv.Run(ctx, &mcp.StdioTransport{Reader: inR, Writer: outW, MaxFrameBytes: maxFrame})
		_ = outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	p.await(`"init"`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// await reads responses until the one with id arrives and returns it.
func (p *stdioPeer) await(id string) json.RawMessage {
	p.t.Helper()
	deadline := time.AfterFunc(60*time.Second, func() { _ = p.in.CloseWithError(fmt.Errorf("timeout")) })
	defer deadline.Stop()
	for {
		if r, ok := p.got[id]; ok {
			return r
		}
		if !p.out.Scan() {
			p.t.Fatalf("stream ended before response %s: %v", id, p.out.Err())
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		line := append([]byte(nil), p.out.Bytes()...)
		if err := json.Unmarshal(line, &m); err != nil {
			p.t.Fatalf("server wrote a line that is not JSON: %q", line)
		}
		if m.Method == "notifications/message" {
			p.logs = append(p.logs, string(line))
		}
		if m.Method != "" {
			continue // a notification
		}
		if _, dup := p.got[string(m.ID)]; dup {
			p.t.Fatalf("second response for id %s", m.ID)
		}
		p.got[string(m.ID)] = line
	}
}

func errorCode(t *testing.T, resp json.RawMessage) int {
	t.Helper()
	var r struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || r.Error == nil {
		t.Fatalf("want a JSON-RPC error, got %s", resp)
	}
	return r.Error.Code
}

func TestStdioOutlivesBadFrames(t *testing.T) {
	is := is.New(t)
	p := startStdio(t, 4096)
	// Evidence before the bad frames.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":1}}}`)
	first := p.await("1")
	var call struct {
		Result struct {
			StructuredContent struct {
				EvidenceID string `json:"evidence_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	is.NoErr(json.Unmarshal(first, &call))
	id := call.Result.StructuredContent.EvidenceID
	is.True(strings.HasPrefix(id, "ev_"))

	deep := `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}}`
	huge := `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"` + strings.Repeat("x", 10000) + `"}}`
	answered := map[string]int{ // id -> JSON-RPC code
		"3": -32700, // cut short
		"4": -32600, // JSON, not JSON-RPC
		"6": -32600, // too deep
		"7": -32600, // too large
		"8": -32600, // wrong version
		"9": -32601, // unknown method: the SDK's own answer
	}
	frames := []string{
		`not json at all`,
		`{"jsonrpc":"2.0","id":3,"method":`,
		`{"id":4}`,
		`[]`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
		deep,
		huge,
		`{"jsonrpc":"1.0","id":8,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9,"method":"no/such/method"}`,
		`"a string"`,
		`42`,
		`null`,
		`{"jsonrpc":"2.0","id":{"obj":1},"method":"ping"}`,
		"\x00\x01\x02",
		`}`,
		strings.Repeat("{", 5000),
	}
	// Written from another goroutine: the server answers bad frames while
	// the test is still writing, and pipes do not buffer.
	go func() {
		for _, f := range frames {
			if _, err := io.WriteString(p.in, f+"\n"); err != nil {
				return
			}
		}
	}()
	for id, code := range answered {
		is.Equal(errorCode(t, p.await(id)), code) // answered with the spec's code
	}
	// The connection still serves, and the ledger kept the earlier Evidence.
	p.send(`{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	p.await("10")
	p.send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"get_evidence_bundle","arguments":{"detail":"summary"}}}`)
	bundle := p.await("11")
	is.True(strings.Contains(string(bundle), id))
	_, answeredBatch := p.got["5"]
	is.True(!answeredBatch) // an id inside a batch is not recovered
}

func TestStdioCancelledRequestGetsNoResponse(t *testing.T) {
	p := startStdio(t, 0)
	p.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":1000}}}`)
	time.Sleep(100 * time.Millisecond)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":20,"reason":"test"}}`)
	// The handler stops at once; its response must never be written. A later
	// request is answered, and no response with id 20 arrives before it.
	time.Sleep(300 * time.Millisecond)
	p.send(`{"jsonrpc":"2.0","id":21,"method":"ping"}`)
	p.await("21")
	r20, got := p.got["20"]
	if got {
		t.Fatalf("the cancelled request was answered: %s", r20)
	}
}

func TestLoggingHonoursSetLevel(t *testing.T) {
	is := is.New(t)
	p := startStdio(t, 0)
	// Before logging/setLevel: no log notifications.
	p.send(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":1}}}`)
	p.await("30")
	p.send(`{"jsonrpc":"2.0","id":31,"method":"logging/setLevel","params":{"level":"info"}}`)
	p.await("31")
	p.send(`{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":1}}}`)
	p.await("32")
	p.send(`{"jsonrpc":"2.0","id":33,"method":"logging/setLevel","params":{"level":"error"}}`)
	p.await("33")
	p.send(`{"jsonrpc":"2.0","id":34,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":1}}}`)
	p.await("34")
	p.send(`{"jsonrpc":"2.0","id":35,"method":"ping"}`)
	p.await("35")
	// Exactly one: the info line of call 32's Evidence (the debug line is
	// below info; call 34's lines are below error; call 30 came before any
	// level was chosen).
	is.Equal(len(p.logs), 1)
	is.True(strings.Contains(p.logs[0], `"level":"info"`))
	is.True(strings.Contains(p.logs[0], `evidence_id`))
}

// lockedBuffer is a bytes.Buffer safe for one writer and a later reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStdioAnswersEveryRequestBeforeEOF: when stdin ends right after the
// requests (printf ... | rea serve), the server answers every request it
// read before it stops, except one the client cancelled. The SDK treats a
// read EOF as a peer that is gone and drops the answers still in flight,
// so the transport reports EOF only once they are written.
func TestStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	srv := newTestServer(t, nil)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":4}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":200}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`,
	}, "\n") + "\n"
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(context.Background(), &mcp.StdioTransport{Reader: strings.NewReader(in), Writer: out})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop after its input ended")
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if line == "" || json.Unmarshal([]byte(line), &m) != nil || m.Method != "" || m.ID == nil {
			continue
		}
		ids[string(m.ID)] = true
	}
	for _, id := range []string{"1", "2", "3"} {
		if !ids[id] {
			t.Errorf("no answer to request %s before EOF (%d bytes written)", id, len(out.String()))
		}
	}
	if ids["4"] {
		t.Error("the cancelled request 4 was answered")
	}
}

// When ServeStdio's context ends (SIGTERM in rea serve), a call in flight
// is cancelled and answered (cancelled, reason server_stopping) before the
// server returns, and the input need not end.
func TestStdioStopAnswersCallsInFlight(t *testing.T) {
	srv := newTestServer(t, nil)
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- srv.ServeStdio(ctx, inR, outW)
		_ = outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	p := &stdioPeer{t: t, in: inW, out: sc, got: map[string]json.RawMessage{}}
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	p.await(`"init"`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"test_slow","arguments":{"steps":1000}}}`)
	time.Sleep(200 * time.Millisecond)
	cancel()
	r := string(p.await("40"))
	if !strings.Contains(r, `\"code\":\"cancelled\"`) || !strings.Contains(r, "server_stopping") {
		t.Fatalf("want a cancelled answer naming server_stopping, got %s", r)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return after its context ended")
	}
}
