package replay

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
)

// FormatVersion is the transcript format this package writes and reads.
const FormatVersion = 1

// Framing says how a Recorder cut the byte streams into entries.
type Framing string

// Framings.
const (
	// FrameLines cuts each direction after every newline, so a line
	// protocol's transcript has one entry per message.
	FrameLines Framing = "lines"
	// FrameChunks cuts only where the direction changes (or a process
	// event intervenes): one entry per turn of the conversation.
	FrameChunks Framing = "chunks"
)

// Header is the first line of a transcript.
type Header struct {
	Type          string    `json:"type"` // "header"
	Version       int       `json:"version"`
	Engine        string    `json:"engine"`
	EngineVersion string    `json:"engine_version"`
	RecordedAt    time.Time `json:"recorded_at"`
	Framing       Framing   `json:"framing"`
}

// Kind is what an entry records.
type Kind string

// Entry kinds.
const (
	KindRequest  Kind = "request"  // bytes rea sent to the engine
	KindResponse Kind = "response" // bytes the engine sent to rea
	KindEOF      Kind = "eof"      // the engine closed its side of the stream
	KindProcess  Kind = "process"  // a process event (Event)
)

// Process events (Entry.Event).
const (
	EventStart  = "start"  // PID and Argv
	EventExit   = "exit"   // Code
	EventSignal = "signal" // Signal, sent by rea to the engine
)

// Entry is one line after the header. Data is carried as Text when it is
// valid UTF-8, else as Base64.
type Entry struct {
	Type Kind `json:"type"`
	// At is the time since the recording started, in microseconds.
	At     int64    `json:"at_us"`
	Text   *string  `json:"text,omitempty"`
	Base64 *string  `json:"base64,omitempty"`
	Event  string   `json:"event,omitempty"`
	PID    int      `json:"pid,omitempty"`
	Argv   []string `json:"argv,omitempty"`
	Code   *int     `json:"code,omitempty"`
	Signal string   `json:"signal,omitempty"`
}

// Data returns the entry's bytes (nil for entries without data).
func (e Entry) Data() []byte {
	switch {
	case e.Text != nil:
		return []byte(*e.Text)
	case e.Base64 != nil:
		b, _ := base64.StdEncoding.DecodeString(*e.Base64) // checked by ReadTranscript
		return b
	}
	return nil
}

// dataEntry returns an entry of kind k carrying b.
func dataEntry(k Kind, at time.Duration, b []byte) Entry {
	e := Entry{Type: k, At: at.Microseconds()}
	if utf8.Valid(b) {
		s := string(b)
		e.Text = &s
	} else {
		s := base64.StdEncoding.EncodeToString(b)
		e.Base64 = &s
	}
	return e
}

// Transcript is a parsed transcript.
type Transcript struct {
	Header  Header
	Entries []Entry
}

// TranscriptError reports why a transcript cannot be read, at a line
// (1-based; 0 when the input ended too early to name one).
type TranscriptError struct {
	Line int
	Msg  string
}

func (e *TranscriptError) Error() string {
	return fmt.Sprintf("replay transcript: line %d: %s", e.Line, e.Msg)
}

// MaxLineBytes bounds one line of a transcript.
const MaxLineBytes = 16 << 20

// ReadTranscript parses a transcript strictly: a header of this format
// version first, then entries of known kinds whose fields fit their kind,
// with non-decreasing times. Every failure is a *TranscriptError.
func ReadTranscript(r io.Reader) (*Transcript, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	var tr Transcript
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			if err := strictUnmarshal(b, &tr.Header); err != nil {
				return nil, &TranscriptError{line, "header: " + err.Error()}
			}
			if err := checkHeader(tr.Header); err != nil {
				return nil, &TranscriptError{line, err.Error()}
			}
			continue
		}
		var e Entry
		if err := strictUnmarshal(b, &e); err != nil {
			return nil, &TranscriptError{line, err.Error()}
		}
		if err := checkEntry(e); err != nil {
			return nil, &TranscriptError{line, err.Error()}
		}
		if n := len(tr.Entries); n > 0 && e.At < tr.Entries[n-1].At {
			return nil, &TranscriptError{line, fmt.Sprintf("time %dus before the previous entry's %dus", e.At, tr.Entries[n-1].At)}
		}
		tr.Entries = append(tr.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &TranscriptError{line + 1, err.Error()}
	}
	if line == 0 {
		return nil, &TranscriptError{0, "empty transcript: no header"}
	}
	return &tr, nil
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func checkHeader(h Header) error {
	switch {
	case h.Type != "header":
		return fmt.Errorf("first line has type %q, want header", h.Type)
	case h.Version != FormatVersion:
		return fmt.Errorf("format version %d, want %d", h.Version, FormatVersion)
	case h.Engine == "":
		return errors.New("header names no engine")
	case h.Framing != FrameLines && h.Framing != FrameChunks:
		return fmt.Errorf("framing %q", h.Framing)
	}
	return nil
}

func checkEntry(e Entry) error {
	if e.At < 0 {
		return fmt.Errorf("negative time %d", e.At)
	}
	hasData := e.Text != nil || e.Base64 != nil
	switch e.Type {
	case KindRequest, KindResponse:
		if e.Text != nil && e.Base64 != nil {
			return errors.New("both text and base64")
		}
		if !hasData {
			return fmt.Errorf("%s without data", e.Type)
		}
		if e.Base64 != nil {
			if _, err := base64.StdEncoding.DecodeString(*e.Base64); err != nil {
				return fmt.Errorf("base64: %v", err)
			}
		}
		if len(e.Data()) == 0 {
			return fmt.Errorf("empty %s", e.Type)
		}
		if e.Event != "" || e.PID != 0 || e.Argv != nil || e.Code != nil || e.Signal != "" {
			return fmt.Errorf("%s with process fields", e.Type)
		}
	case KindEOF:
		if hasData || e.Event != "" {
			return errors.New("eof with data or an event")
		}
	case KindProcess:
		if hasData {
			return errors.New("process event with data")
		}
		switch e.Event {
		case EventStart:
			if e.PID <= 0 {
				return fmt.Errorf("start with pid %d", e.PID)
			}
		case EventExit:
			if e.Code == nil {
				return errors.New("exit without code")
			}
		case EventSignal:
			if e.Signal == "" {
				return errors.New("signal without a name")
			}
		default:
			return fmt.Errorf("process event %q", e.Event)
		}
	default:
		return fmt.Errorf("entry type %q", e.Type)
	}
	return nil
}

// WriteTranscript writes tr as JSON lines.
func WriteTranscript(w io.Writer, tr *Transcript) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	h := tr.Header
	h.Type, h.Version = "header", FormatVersion
	if err := enc.Encode(h); err != nil {
		return err
	}
	for _, e := range tr.Entries {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}
