package replay

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Recorder builds a transcript from a live conversation. Wrap the
// connection with Conn or Stream, report process events with Process, and
// call Transcript (or Close) when the conversation is over. It is safe for
// concurrent use: a reader and a writer goroutine may share one connection.
type Recorder struct {
	mu      sync.Mutex
	start   time.Time
	now     func() time.Time
	tr      Transcript
	pending Kind // the direction buffered in buf
	buf     []byte
}

// NewRecorder starts a transcript with h (Type, Version and, when zero,
// RecordedAt and Framing are filled in: now, FrameLines).
func NewRecorder(h Header) *Recorder {
	r := &Recorder{now: time.Now}
	r.start = r.now()
	h.Type, h.Version = "header", FormatVersion
	if h.RecordedAt.IsZero() {
		h.RecordedAt = r.start.UTC().Truncate(time.Second)
	}
	if h.Framing == "" {
		h.Framing = FrameLines
	}
	r.tr.Header = h
	return r
}

// record adds data seen in direction k.
func (r *Recorder) record(k Kind, b []byte) {
	if len(b) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending != k {
		r.flushLocked()
		r.pending = k
	}
	r.buf = append(r.buf, b...)
	if r.tr.Header.Framing == FrameLines {
		for {
			i := bytes.IndexByte(r.buf, '\n')
			if i < 0 {
				break
			}
			r.emitLocked(k, r.buf[:i+1])
			r.buf = r.buf[i+1:]
		}
	}
}

func (r *Recorder) emitLocked(k Kind, b []byte) {
	r.tr.Entries = append(r.tr.Entries, dataEntry(k, r.now().Sub(r.start), bytes.Clone(b)))
}

func (r *Recorder) flushLocked() {
	if len(r.buf) > 0 {
		r.emitLocked(r.pending, r.buf)
	}
	r.buf = r.buf[:0]
	r.pending = ""
}

func (r *Recorder) add(e Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	e.At = r.now().Sub(r.start).Microseconds()
	r.tr.Entries = append(r.tr.Entries, e)
}

// ProcessStarted records that the engine process pid started with argv.
func (r *Recorder) ProcessStarted(pid int, argv []string) {
	r.add(Entry{Type: KindProcess, Event: EventStart, PID: pid, Argv: append([]string(nil), argv...)})
}

// ProcessExited records the engine process's exit status.
func (r *Recorder) ProcessExited(code int) {
	r.add(Entry{Type: KindProcess, Event: EventExit, Code: &code})
}

// Signalled records that rea sent the engine process a signal.
func (r *Recorder) Signalled(signal string) {
	r.add(Entry{Type: KindProcess, Event: EventSignal, Signal: signal})
}

// Transcript returns the transcript so far, pending bytes included.
func (r *Recorder) Transcript() *Transcript {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
	tr := Transcript{Header: r.tr.Header, Entries: append([]Entry(nil), r.tr.Entries...)}
	return &tr
}

// Save writes the transcript so far to w.
func (r *Recorder) Save(w io.Writer) error { return WriteTranscript(w, r.Transcript()) }

// Stream wraps rw: what is written to it is recorded as requests, what is
// read from it as responses, and io.EOF from it as the engine's end of
// stream. It closes rw on Close when rw is an io.Closer.
func (r *Recorder) Stream(rw io.ReadWriter) io.ReadWriteCloser {
	return &stream{r: r, rw: rw}
}

type stream struct {
	r   *Recorder
	rw  io.ReadWriter
	eof atomic.Bool
}

func (s *stream) Read(p []byte) (int, error) {
	n, err := s.rw.Read(p)
	s.r.record(KindResponse, p[:n])
	if err == io.EOF && !s.eof.Swap(true) {
		s.r.add(Entry{Type: KindEOF})
	}
	return n, err
}

func (s *stream) Write(p []byte) (int, error) {
	// Recorded before it is sent: the engine may answer, and the reading
	// goroutine record the answer, before Write returns, and a transcript
	// must list a request before its response (a replaying fake matches
	// responses to the request ids it has seen). A write that fails leaves
	// bytes in the transcript the engine did not get; the connection is
	// broken then anyway.
	s.r.record(KindRequest, p)
	return s.rw.Write(p)
}

func (s *stream) Close() error {
	if c, ok := s.rw.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Conn wraps a live connection like Stream, keeping the rest of net.Conn.
func (r *Recorder) Conn(c net.Conn) net.Conn { return &conn{Conn: c, s: &stream{r: r, rw: c}} }

type conn struct {
	net.Conn
	s *stream
}

func (c *conn) Read(p []byte) (int, error)  { return c.s.Read(p) }
func (c *conn) Write(p []byte) (int, error) { return c.s.Write(p) }

// Merge joins the transcripts of several recorders (one per connection, in
// the order they connected) under header h. Each recorder's clock starts at
// 0, so each later one is shifted to start where the previous one ended and
// the merged times never go back (ReadTranscript refuses that). redact, when
// not nil, rewrites each entry's text (a session token, say).
func Merge(h Header, recs []*Recorder, redact func(string) string) *Transcript {
	merged := &Transcript{Header: h}
	var base int64
	for _, r := range recs {
		last := base
		for _, e := range r.Transcript().Entries {
			if e.Text != nil && redact != nil {
				red := redact(*e.Text)
				e.Text = &red
			}
			e.At += base
			last = max(last, e.At)
			merged.Entries = append(merged.Entries, e)
		}
		base = last
	}
	return merged
}
