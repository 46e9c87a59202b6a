package ghidra

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
)

// bridgeEnd is the bridge's side of a net.Pipe: it hands each request line
// to the test, which answers by writing to conn.
type bridgeEnd struct {
	conn net.Conn
	reqs chan map[string]any
}

func newPipe(t *testing.T) (*wire, *bridgeEnd) {
	client, server := net.Pipe()
	b := &bridgeEnd{conn: server, reqs: make(chan map[string]any, 64)}
	go func() {
		r := bufio.NewReader(server)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(b.reqs)
				return
			}
			var m map[string]any
			json.Unmarshal(line, &m)
			b.reqs <- m
		}
	}()
	w := newWire(client, "tok")
	t.Cleanup(func() { w.close(); server.Close() })
	return w, b
}

func (b *bridgeEnd) answer(id any, result string) {
	fmt.Fprintf(b.conn, `{"id":%v,"ok":true,"result":%s}`+"\n", id, result)
}

func TestWireSendsTheTokenAndExactRequest(t *testing.T) {
	is := is.New(t)
	w, b := newPipe(t)
	done := make(chan error, 1)
	var out []string
	go func() { done <- w.call(t.Context(), "list_documents", map[string]any{}, &out) }()
	req := <-b.reqs
	is.Equal(len(req), 4)
	is.Equal(req["token"], "tok")
	is.Equal(req["method"], "list_documents")
	is.Equal(req["id"], float64(1))
	b.answer(req["id"], `["t.bin"]`)
	is.NoErr(<-done)
	is.Equal(out, []string{"t.bin"})
}

func TestWireDropsLateRepliesAndKeepsOrder(t *testing.T) {
	is := is.New(t)
	w, b := newPipe(t)
	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan error, 1)
	go func() { first <- w.call(ctx, "ping", nil, nil) }()
	r1 := <-b.reqs
	cancel()
	is.True(errors.Is(<-first, context.Canceled)) // the caller gave up
	second := make(chan error, 1)
	var got int
	go func() { second <- w.call(t.Context(), "ping", nil, &got) }()
	r2 := <-b.reqs
	b.answer(r1["id"], `1`) // late: dropped
	b.answer(r2["id"], `2`)
	is.NoErr(<-second)
	is.Equal(got, 2)  // the late reply did not reach the next caller
	is.NoErr(w.err()) // and did not break the connection
}

func TestWireQueueLimit(t *testing.T) {
	is := is.New(t)
	w, b := newPipe(t)
	var wg sync.WaitGroup
	errs := make(chan error, maxQueue+1)
	for range maxQueue {
		wg.Go(func() { errs <- w.call(t.Context(), "ping", nil, nil) })
	}
	<-b.reqs // the first is on the wire; the rest queue behind it
	deadline := time.Now().Add(5 * time.Second)
	for len(w.admit) < maxQueue && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	err := w.call(t.Context(), "ping", nil, nil)
	is.True(err != nil && strings.Contains(err.Error(), "32-request limit")) // the 33rd is refused
	w.close()
	wg.Wait()
	close(errs)
	for err := range errs {
		is.True(err != nil) // closing fails every admitted request
	}
}

func TestWireFailsOnAReplyToAnUnsentID(t *testing.T) {
	is := is.New(t)
	w, b := newPipe(t)
	done := make(chan error, 1)
	go func() { done <- w.call(t.Context(), "ping", nil, nil) }()
	<-b.reqs
	b.answer(7, `1`)
	err := <-done
	is.True(errors.Is(err, errProtocol)) // an id never sent ends the session
	is.True(errors.Is(w.call(t.Context(), "ping", nil, nil), errProtocol))
}
