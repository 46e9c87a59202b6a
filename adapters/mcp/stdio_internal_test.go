package mcp

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"testing"
)

// FuzzStdioFrame feeds arbitrary frames through the stdio reader's decoding
// and rejection paths: nothing may panic, and every line the connection
// writes for a bad frame is a JSON-RPC error with a recovered id.
func FuzzStdioFrame(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"id":`, `[`, `{"jsonrpc":"2.0","id":"x"`, "\"\\",
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, `{"a":[[[[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		var out bytes.Buffer
		c := &lineConn{w: &out, log: slog.New(slog.DiscardHandler), max: 1 << 10, incoming: make(chan jsonrpcMessage, 64),
			closed: make(chan struct{}), inflight: map[any]bool{}, cancelled: map[any]bool{}}
		c.readLoop(bufio.NewReader(io.MultiReader(bytes.NewReader(frame), bytes.NewReader([]byte("\n")))))
		for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			if !bytes.Contains(line, []byte(`"error"`)) || !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":`)) {
				t.Fatalf("unexpected output line %q", line)
			}
		}
	})
}
