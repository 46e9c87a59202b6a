package gdbremote_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

var record = flag.Bool("record", false, "record the replay transcripts from a live gdbserver session")

// entry is one packet of a transcript: "c" sent by the client, "s" sent by
// the server, "i" the client's interrupt byte. Payloads that are not UTF-8
// (auxv) are kept as bytes.
type entry struct {
	D string `json:"d"`
	P string `json:"p,omitempty"`
	B []byte `json:"b,omitempty"`
}

func (e entry) payload() []byte {
	if e.B != nil {
		return e.B
	}
	return []byte(e.P)
}

const (
	replayDir    = "testdata/replay"
	replayBinary = "testdata/replay/calls"
	replayLog    = "testdata/replay/calls.jsonl"
)

// replayRequest is the traced session: the committed PIE build of calls.c,
// target and fact, exit status 3.
func replayRequest(t *testing.T) ports.TraceRequest {
	return ports.TraceRequest{
		Launch: &ports.TraceLaunch{Path: replayBinary, Args: []string{"3"}},
		Breakpoints: []ports.TraceBreakpoint{
			{Address: symbol(t, replayBinary, "target"), Name: "target"},
			{Address: symbol(t, replayBinary, "fact"), Name: "fact"},
		},
	}
}

func recordTranscript(t *testing.T) {
	needServer(t)
	os.MkdirAll(replayDir, 0o755)
	b, err := exec.Command("gcc", "-O1", "-pie", "-fPIE", "-o", replayBinary, "testdata/src/calls.c").CombinedOutput()
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	var mu sync.Mutex
	var log []entry
	tr := gdbremote.New(nil)
	gdbremote.SetTap(tr, func(dir byte, p []byte) {
		mu.Lock()
		defer mu.Unlock()
		e := entry{D: string(dir)}
		if utf8.Valid(p) {
			e.P = string(p)
		} else {
			e.B = append([]byte(nil), p...)
		}
		log = append(log, e)
	})
	req := replayRequest(t)
	req.RunID = runID(t)
	defer noneLeft(t, req.RunID)
	if _, err := tr.TraceCalls(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	for _, e := range log {
		enc.Encode(e)
	}
	if err := os.WriteFile(replayLog, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func loadTranscript(t *testing.T) []entry {
	f, err := os.Open(replayLog)
	if err != nil {
		t.Fatalf("%v (record it with go test -run TestReplay -record)", err)
	}
	defer f.Close()
	var out []entry
	dec := json.NewDecoder(f)
	for {
		var e entry
		if err := dec.Decode(&e); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

// replayServer plays the server's side of a transcript: it checks each
// client packet against the next one recorded and answers with the recorded
// replies. It acks until no-ack mode was agreed, as gdbserver does.
type replayServer struct {
	mu      sync.Mutex
	cond    *sync.Cond
	entries []entry
	pos     int
	in      []byte
	out     bytes.Buffer
	closed  bool
	ack     bool
	err     error
	// cutAfter ends the connection after that many client packets (the
	// server dies); 0 means never.
	cutAfter int
	seen     int
	// corrupt replaces the reply to the client packet numbered corruptAt.
	corruptAt int
	corrupt   []byte
}

func newReplayServer(entries []entry) *replayServer {
	s := &replayServer{entries: entries, ack: true}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *replayServer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, io.ErrClosedPipe
	}
	s.in = append(s.in, p...)
	for len(s.in) > 0 && !s.closed {
		switch s.in[0] {
		case '+', '-':
			s.in = s.in[1:]
			continue
		case 0x03:
			s.in = s.in[1:]
			s.expect(entry{D: "i"})
			continue
		}
		end := bytes.IndexByte(s.in, '#')
		if end < 0 || len(s.in) < end+3 {
			break
		}
		_, payload, _, err := gdbremote.ReadPacket(bufio.NewReader(bytes.NewReader(s.in[:end+3])))
		s.in = s.in[end+3:]
		if err != nil {
			s.fail(err)
			break
		}
		if s.ack {
			s.out.WriteByte('+')
		}
		s.expect(entry{D: "c", P: string(payload)})
	}
	s.cond.Broadcast()
	return len(p), nil
}

// expect checks the client's packet and queues the recorded replies.
func (s *replayServer) expect(got entry) {
	if s.pos >= len(s.entries) {
		s.fail(fmt.Errorf("client sent %q after the end of the transcript", got.P))
		return
	}
	want := s.entries[s.pos]
	if want.D != got.D || string(want.payload()) != got.P {
		s.fail(fmt.Errorf("packet %d: client sent %s %q, transcript has %s %q", s.pos, got.D, got.P, want.D, want.payload()))
		return
	}
	s.pos++
	s.seen++
	if s.cutAfter > 0 && s.seen >= s.cutAfter {
		s.closed = true
		return
	}
	noAck := got.P == "QStartNoAckMode"
	for s.pos < len(s.entries) && s.entries[s.pos].D == "s" {
		reply := s.entries[s.pos].payload()
		if s.corruptAt > 0 && s.seen == s.corruptAt {
			reply = s.corrupt
		}
		s.out.Write(gdbremote.AppendPacket(nil, reply))
		s.pos++
	}
	if noAck {
		s.ack = false
	}
}

func (s *replayServer) fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.closed = true
}

func (s *replayServer) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.out.Len() == 0 && !s.closed {
		s.cond.Wait()
	}
	if s.out.Len() > 0 {
		return s.out.Read(p)
	}
	return 0, io.EOF
}

func (s *replayServer) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.cond.Broadcast()
	return nil
}

func replayTracer(srv *replayServer) *gdbremote.Tracer {
	tr := gdbremote.New(nil)
	gdbremote.SetDial(tr, func(context.Context, ports.TraceRequest) (io.ReadWriter, error) { return srv, nil })
	return tr
}

// TestReplay runs the tracer against a recorded gdbserver session, so the
// protocol layer and the tracer's logic are checked where gdbserver is
// missing. -record records the session again from a live gdbserver.
func TestReplay(t *testing.T) {
	if *record {
		recordTranscript(t)
	}
	is := is.New(t)
	srv := newReplayServer(loadTranscript(t))
	res, err := replayTracer(srv).TraceCalls(context.Background(), replayRequest(t))
	is.NoErr(srv.err)
	is.NoErr(err)
	is.Equal(srv.pos, len(srv.entries)) // the whole session was replayed
	is.Equal(*res.Exit.Code, 3)
	is.Equal(firstArgs(res.Hits, "target"), []uint64{1, 2, 3, 4, 5})
	is.Equal(firstArgs(res.Hits, "fact"), []uint64{5, 4, 3, 2, 1})
	is.True(res.Modules[0].LoadBias != 0) // PIE
	for _, h := range res.Hits {
		is.True(h.Returned)
		if h.Name == "target" {
			a := h.Arguments
			is.Equal(h.ReturnValue, a[0].Value*100+a[1].Value*10+a[2].Value)
		}
	}
}

// The server dies at every point of the session in turn: the error is always
// typed, carries the partial observation, and never panics.
func TestReplayServerDies(t *testing.T) {
	entries := loadTranscript(t)
	clientPackets := 0
	for _, e := range entries {
		if e.D != "s" {
			clientPackets++
		}
	}
	for cut := 1; cut < clientPackets; cut++ {
		srv := newReplayServer(entries)
		srv.cutAfter = cut
		_, err := replayTracer(srv).TraceCalls(context.Background(), replayRequest(t))
		if srv.err != nil {
			t.Fatalf("cut %d: %v", cut, srv.err)
		}
		var te *ports.TraceError
		if !errors.As(err, &te) || te.Partial == nil {
			t.Fatalf("cut %d: %v is not a TraceError with a partial observation", cut, err)
		}
		if !errors.Is(err, ports.ErrDebuggerDied) {
			t.Fatalf("cut %d: %v is not ErrDebuggerDied", cut, err)
		}
	}
}

// Garbage in place of each reply in turn: a typed error or an honest result,
// never a panic or a hang.
func TestReplayCorruptReplies(t *testing.T) {
	entries := loadTranscript(t)
	clientPackets := 0
	for _, e := range entries {
		if e.D == "c" {
			clientPackets++
		}
	}
	for _, junk := range []string{"", "E01", "T", "Wzz", "T05thread:zz;", "m", "xx", "Z"} {
		for at := 1; at <= clientPackets; at++ {
			srv := newReplayServer(entries)
			srv.corruptAt, srv.corrupt = at, []byte(junk)
			_, err := replayTracer(srv).TraceCalls(context.Background(), replayRequest(t))
			if err == nil {
				continue // a reply the tracer can do without
			}
			var te *ports.TraceError
			if !errors.As(err, &te) || te.Partial == nil {
				t.Fatalf("junk %q at %d: %v is not a TraceError with a partial observation", junk, at, err)
			}
		}
	}
}
