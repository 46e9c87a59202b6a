package replay_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/ports/portstest/replay"
)

// TestMain turns the test binary into the echo engine when asked, so the
// process tests have a real child to talk to.
func TestMain(m *testing.M) {
	if os.Getenv("REA_REPLAY_ECHO") == "1" {
		serveEcho(struct {
			io.Reader
			io.Writer
		}{os.Stdin, os.Stdout})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveEcho speaks a tiny line protocol: PING answers PONG, ECHO x answers
// x, QUIT answers BYE and ends the conversation.
func serveEcho(rw io.ReadWriter) {
	sc := bufio.NewScanner(rw)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "PING":
			fmt.Fprintln(rw, "PONG")
		case strings.HasPrefix(line, "ECHO "):
			fmt.Fprintln(rw, strings.TrimPrefix(line, "ECHO "))
		case line == "QUIT":
			fmt.Fprintln(rw, "BYE")
			return
		default:
			fmt.Fprintln(rw, "ERR unknown command")
		}
	}
}

// echoServer listens on a Unix socket and serves each connection.
func echoServer(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "echo.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { defer c.Close(); serveEcho(c) })
		}
	})
	return path
}

// converse sends each line and reads one answer per line, then reads to
// the end of the stream.
func converse(rw io.ReadWriter, lines ...string) ([]string, error) {
	r := bufio.NewReader(rw)
	var out []string
	for _, l := range lines {
		if _, err := fmt.Fprintf(rw, "%s\n", l); err != nil {
			return out, err
		}
		a, err := r.ReadString('\n')
		if err != nil {
			return out, err
		}
		out = append(out, strings.TrimSuffix(a, "\n"))
	}
	rest, err := io.ReadAll(r)
	if len(rest) > 0 {
		return out, fmt.Errorf("unexpected %q after the last answer", rest)
	}
	return out, err
}

var script = []string{"PING", "ECHO hello, world", "QUIT"}
var answers = []string{"PONG", "hello, world", "BYE"}

func kinds(tr *replay.Transcript) string {
	var b strings.Builder
	for _, e := range tr.Entries {
		b.WriteString(string(e.Type))
		if e.Event != "" {
			b.WriteString(":" + e.Event)
		}
		if d := e.Data(); d != nil {
			fmt.Fprintf(&b, "%q", d)
		}
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

func TestRecordAndReplaySocket(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	c, err := net.Dial("unix", echoServer(t))
	is.NoErr(err)
	rec := replay.NewRecorder(replay.Header{Engine: "echo", EngineVersion: "1"})
	live := rec.Conn(c)
	got, err := converse(live, script...)
	is.NoErr(err)
	is.Equal(got, answers)
	live.Close()

	tr := rec.Transcript()
	is.Equal(tr.Header.Engine, "echo")
	is.Equal(tr.Header.Framing, replay.FrameLines)
	is.Equal(kinds(tr), `request"PING\n" response"PONG\n" request"ECHO hello, world\n" response"hello, world\n" request"QUIT\n" response"BYE\n" eof`)

	// The transcript survives writing and reading.
	var buf bytes.Buffer
	is.NoErr(replay.WriteTranscript(&buf, tr))
	again, err := replay.ReadTranscript(&buf)
	is.NoErr(err)
	is.Equal(kinds(again), kinds(tr))
	is.True(again.Header.RecordedAt.Equal(tr.Header.RecordedAt))

	// Replayed on a socket, the client sees what the live engine said.
	p := replay.NewPlayer(t, again, nil)
	path, err := p.Listen(ctx)
	is.NoErr(err)
	c2, err := net.Dial("unix", path)
	is.NoErr(err)
	defer c2.Close()
	got, err = converse(c2, script...)
	is.NoErr(err)
	is.Equal(got, answers)
	is.NoErr(p.Close())
}

// TestPlayerDial: a player that dials rea's socket (the engine connects to
// rea) plays the same transcript as one rea dials.
func TestPlayerDial(t *testing.T) {
	is := is.New(t)
	f, err := os.Open("testdata/echo.jsonl")
	is.NoErr(err)
	tr, err := replay.ReadTranscript(f)
	f.Close()
	is.NoErr(err)
	dir := t.TempDir()
	ln, err := net.Listen("unix", dir+"/rea.sock")
	is.NoErr(err)
	defer ln.Close()
	p := replay.NewPlayer(t, tr, nil)
	is.NoErr(p.Dial(t.Context(), dir+"/rea.sock"))
	c, err := ln.Accept()
	is.NoErr(err)
	defer c.Close()
	got, err := converse(c, script...)
	is.NoErr(err)
	is.Equal(got, answers)
	is.NoErr(p.Close())
	// Nothing listens: the dial fails, naming the socket.
	err = replay.NewPlayer(t, tr, nil).Dial(t.Context(), dir+"/none.sock")
	is.True(err != nil && strings.Contains(err.Error(), "none.sock"))
}

// startEcho starts the test binary as the echo engine and records its
// process events.
func startEcho(ctx context.Context, t testing.TB, rec *replay.Recorder) (io.ReadWriteCloser, error) {
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), "REA_REPLAY_ECHO=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	rec.ProcessStarted(cmd.Process.Pid, []string{"echo-engine"})
	t.Cleanup(func() {
		stdin.Close()
		err := cmd.Wait()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		rec.ProcessExited(code)
	})
	return struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin}, nil
}

func TestRecordAndReplayProcess(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	rec := replay.NewRecorder(replay.Header{Engine: "echo-process", EngineVersion: "1", Framing: replay.FrameChunks})
	t.Run("live", func(t *testing.T) {
		is := is.New(t)
		raw, err := startEcho(ctx, t, rec)
		is.NoErr(err)
		got, err := converse(rec.Stream(raw), script...)
		is.NoErr(err)
		is.Equal(got, answers)
	})
	tr := rec.Transcript()
	is.Equal(kinds(tr), `process:start request"PING\n" response"PONG\n" request"ECHO hello, world\n" response"hello, world\n" request"QUIT\n" response"BYE\n" eof process:exit`)
	is.Equal(*tr.Entries[len(tr.Entries)-1].Code, 0)

	var events []string
	p := replay.NewPlayer(t, tr, &replay.Options{OnProcess: func(e replay.Entry) { events = append(events, e.Event) }})
	c, err := p.Pipe(ctx)
	is.NoErr(err)
	defer c.Close()
	got, err := converse(c, script...)
	is.NoErr(err)
	is.Equal(got, answers)
	is.NoErr(p.Close())
	is.Equal(events, []string{"start", "exit"})
}

// TestCommittedTranscript is the convention engine tests follow: replay the
// committed transcript, or re-record it with -record (REA_RECORD=1)
// against the live engine.
func TestCommittedTranscript(t *testing.T) {
	is := is.New(t)
	c := replay.Dial(t, "testdata/echo.jsonl", replay.Header{Engine: "echo-process", EngineVersion: "1"}, startEcho, nil)
	got, err := converse(c, script...)
	is.NoErr(err)
	is.Equal(got, answers)
}

// recorder is a testing.TB that keeps failures instead of failing.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

const echoTranscript = `{"type":"header","version":1,"engine":"echo","engine_version":"1","recorded_at":"2026-01-02T03:04:05Z","framing":"lines"}
{"type":"request","at_us":10,"text":"ECHO hi\n"}
{"type":"response","at_us":20,"text":"hi\n"}
{"type":"request","at_us":30,"text":"QUIT\n"}
{"type":"response","at_us":40,"text":"BYE\n"}
{"type":"eof","at_us":41}
`

func TestReplayFailures(t *testing.T) {
	tests := []struct {
		name     string
		send     string // what the client sends before closing
		index    int    // the failing entry (-1 past the end)
		expected string
		got      string
		says     string
	}{
		{"mismatch", "PING\n", 0, "ECHO hi\n", "PING\n", "expected \"ECHO hi\\n\"\ngot      \"PING\\n\""},
		{"mismatch later", "ECHO hi\nQUIZ\n", 2, "QUIT\n", "QUIZ\n", "expected \"QUIT\\n\""},
		{"stops early", "ECHO hi\n", 2, "QUIT\n", "", "ended before request (entry 2)"},
		{"more than recorded", "ECHO hi\nQUIT\nPING\n", -1, "", "PING\n", "unexpected request after the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			tr, err := replay.ReadTranscript(strings.NewReader(echoTranscript))
			is.NoErr(err)
			rec := &recorder{TB: t}
			p := replay.NewPlayer(rec, tr, nil)
			c, err := p.Pipe(t.Context())
			is.NoErr(err)
			_, err = io.WriteString(c, tt.send)
			is.NoErr(err)
			c.(interface{ CloseWrite() error }).CloseWrite()
			io.Copy(io.Discard, c) // until the player closes
			c.Close()
			err = p.Close()
			var me *replay.MismatchError
			is.True(errors.As(err, &me)) // the player reports a mismatch
			is.Equal(me.Index, tt.index)
			is.Equal(string(me.Expected), tt.expected)
			is.Equal(string(me.Got), tt.got)
			fails := rec.failures()
			is.Equal(len(fails), 1) // the test is failed once
			is.True(strings.Contains(fails[0], tt.says))
		})
	}
	t.Run("no connection", func(t *testing.T) {
		is := is.New(t)
		tr, err := replay.ReadTranscript(strings.NewReader(echoTranscript))
		is.NoErr(err)
		rec := &recorder{TB: t}
		p := replay.NewPlayer(rec, tr, nil)
		_, err = p.Listen(t.Context())
		is.NoErr(err)
		is.True(p.Close() != nil)
		is.Equal(len(rec.failures()), 1)
	})
	t.Run("exact", func(t *testing.T) {
		is := is.New(t)
		tr, err := replay.ReadTranscript(strings.NewReader(echoTranscript))
		is.NoErr(err)
		rec := &recorder{TB: t}
		p := replay.NewPlayer(rec, tr, nil)
		c, err := p.Pipe(t.Context())
		is.NoErr(err)
		got, err := converse(c, "ECHO hi", "QUIT")
		is.NoErr(err)
		is.Equal(got, []string{"hi", "BYE"})
		is.NoErr(p.Close())
		is.Equal(len(rec.failures()), 0)
	})
}

func TestReadTranscriptErrors(t *testing.T) {
	header := `{"type":"header","version":1,"engine":"e","engine_version":"1","recorded_at":"2026-01-02T03:04:05Z","framing":"lines"}` + "\n"
	tests := []struct {
		name string
		in   string
		line int
	}{
		{"empty", "", 0},
		{"garbage", "\x00\xff not json\n", 1},
		{"entry first", `{"type":"request","at_us":0,"text":"x"}` + "\n", 1},
		{"future version", strings.Replace(header, `"version":1`, `"version":2`, 1), 1},
		{"no engine", strings.Replace(header, `"engine":"e"`, `"engine":""`, 1), 1},
		{"framing", strings.Replace(header, `"lines"`, `"words"`, 1), 1},
		{"unknown field", strings.Replace(header, `"framing"`, `"extra":1,"framing"`, 1), 1},
		{"truncated line", header + `{"type":"request","at_us":0,"te`, 2},
		{"two values", header + `{"type":"eof","at_us":0}{"type":"eof","at_us":0}` + "\n", 2},
		{"unknown type", header + `{"type":"gossip","at_us":0}` + "\n", 2},
		{"request without data", header + `{"type":"request","at_us":0}` + "\n", 2},
		{"empty request", header + `{"type":"request","at_us":0,"text":""}` + "\n", 2},
		{"text and base64", header + `{"type":"request","at_us":0,"text":"a","base64":"YQ=="}` + "\n", 2},
		{"bad base64", header + `{"type":"response","at_us":0,"base64":"!!"}` + "\n", 2},
		{"time goes back", header + `{"type":"eof","at_us":5}` + "\n" + `{"type":"eof","at_us":4}` + "\n", 3},
		{"negative time", header + `{"type":"eof","at_us":-1}` + "\n", 2},
		{"start without pid", header + `{"type":"process","at_us":0,"event":"start"}` + "\n", 2},
		{"exit without code", header + `{"type":"process","at_us":0,"event":"exit"}` + "\n", 2},
		{"unknown event", header + `{"type":"process","at_us":0,"event":"nap"}` + "\n", 2},
		{"request with pid", header + `{"type":"request","at_us":0,"text":"a","pid":3}` + "\n", 2},
		{"huge line", header + `{"type":"request","at_us":0,"text":"` + strings.Repeat("a", replay.MaxLineBytes) + `"}` + "\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, err := replay.ReadTranscript(strings.NewReader(tt.in))
			var te *replay.TranscriptError
			is.True(errors.As(err, &te)) // a bad transcript is a *TranscriptError
			is.Equal(te.Line, tt.line)
		})
	}
	is := is.New(t)
	tr, err := replay.ReadTranscript(strings.NewReader(header + `{"type":"response","at_us":1,"base64":"/wA="}` + "\n"))
	is.NoErr(err)
	is.Equal(tr.Entries[0].Data(), []byte{0xff, 0})
}

func TestRecordingConvention(t *testing.T) {
	is := is.New(t)
	t.Setenv("REA_RECORD", "")
	is.True(!replay.Recording()) // replay by default
	t.Setenv("REA_RECORD", "1")
	is.True(replay.Recording())
}

func TestRecorderBinary(t *testing.T) {
	is := is.New(t)
	rec := replay.NewRecorder(replay.Header{Engine: "bin", Framing: replay.FrameChunks})
	var sink bytes.Buffer
	s := rec.Stream(struct {
		io.Reader
		io.Writer
	}{bytes.NewReader([]byte{0xff, 0xfe, 0}), &sink})
	_, err := s.Write([]byte{1, 2})
	is.NoErr(err)
	_, err = s.Write([]byte{3})
	is.NoErr(err)
	b, err := io.ReadAll(s)
	is.NoErr(err)
	is.Equal(b, []byte{0xff, 0xfe, 0})
	tr := rec.Transcript()
	is.Equal(len(tr.Entries), 3) // writes merged into one request, then the response and eof
	is.Equal(tr.Entries[0].Data(), []byte{1, 2, 3})
	is.True(tr.Entries[1].Base64 != nil) // not UTF-8: carried as base64
	var buf bytes.Buffer
	is.NoErr(rec.Save(&buf))
	again, err := replay.ReadTranscript(&buf)
	is.NoErr(err)
	is.Equal(again.Entries[1].Data(), []byte{0xff, 0xfe, 0})
}

func FuzzReadTranscript(f *testing.F) {
	f.Add([]byte(echoTranscript))
	f.Add([]byte(echoTranscript[:100]))
	f.Add([]byte(`{"type":"header","version":1,"engine":"e","framing":"chunks","recorded_at":"2026-01-02T03:04:05Z"}` + "\n" +
		`{"type":"process","at_us":0,"event":"start","pid":1,"argv":["x"]}` + "\n" + `{"type":"process","at_us":9,"event":"exit","code":1}`))
	if b, err := os.ReadFile("testdata/echo.jsonl"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := replay.ReadTranscript(bytes.NewReader(data))
		if err != nil {
			var te *replay.TranscriptError
			if !errors.As(err, &te) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		// What reads, writes and reads back the same.
		var buf bytes.Buffer
		if err := replay.WriteTranscript(&buf, tr); err != nil {
			t.Fatal(err)
		}
		again, err := replay.ReadTranscript(&buf)
		if err != nil {
			t.Fatalf("re-reading a written transcript: %v", err)
		}
		if kinds(again) != kinds(tr) || len(again.Entries) != len(tr.Entries) {
			t.Fatalf("round trip changed the entries: %s vs %s", kinds(again), kinds(tr))
		}
	})
}
