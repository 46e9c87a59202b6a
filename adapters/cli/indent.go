package cli

import (
	"encoding/json"
	"io"
	"strings"

	"rea/core"
)

// writeIndented writes v as encoding/json's Encoder does with
// SetEscapeHTML(false) and SetIndent("", "  "), indenting as the encoder
// writes: neither a compact nor an indented copy of the whole value is
// kept beside the encoder's own (a JavaScript application's Evidence is
// megabytes). Valid raw JSON is indented straight from its bytes, which is
// what the encoder would write after dropping its whitespace.
func writeIndented(w io.Writer, v any) error {
	in := &indenter{w: w}
	if raw, ok := v.(json.RawMessage); ok && json.Valid(raw) {
		in.write(raw)
		return in.end()
	}
	enc := json.NewEncoder(in)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err // encoding/json writes nothing of a value it cannot encode
	}
	return in.end()
}

// writeResult writes a call's structured content (the Evidence record, or
// {"result": value}) as writeIndented writes the bytes of
// Result.StructuredJSON, without building them: the record's canonical
// JSON streams into the indenter. res comes from this process's session,
// which sealed the record: its raw members are valid canonical JSON.
func writeResult(w io.Writer, res *core.Result) error {
	if res.Evidence == nil {
		return writeIndented(w, map[string]any{"result": res.Value})
	}
	in := &indenter{w: w}
	if err := res.Evidence.WriteCanonical(in); err != nil {
		return err
	}
	return in.end()
}

// indenter indents a stream of valid JSON text written in pieces, as
// encoding/json's Indent with prefix "" and indent "  " does after
// Compact: whitespace between tokens is dropped, an empty object or array
// stays on its line. It appends to its own buffer and hands the writer
// 64 KiB at a time: a byte at a time through bufio cost about a third of
// the time of writing a JavaScript application's result.
type indenter struct {
	w        io.Writer
	buf      []byte
	err      error // the writer's first error; later writes are dropped
	depth    int
	inString bool
	escaped  bool
	open     byte // '{' or '[' just written, its line break not yet decided
}

const indentFlush = 64 << 10

// indentSpaces holds the line breaks of the shallower depths at once.
var indentSpaces = "\n" + strings.Repeat("  ", 64)

func (in *indenter) newline() {
	in.depth = max(in.depth, 0) // text that closes more than it opened is not JSON, and is not refused either
	if n := 1 + 2*in.depth; n <= len(indentSpaces) {
		in.buf = append(in.buf, indentSpaces[:n]...)
		return
	}
	in.buf = append(in.buf, '\n')
	for range in.depth {
		in.buf = append(in.buf, "  "...)
	}
}

// flush hands the buffer to the writer once it holds enough (or always).
func (in *indenter) flush(always bool) error {
	if len(in.buf) >= indentFlush || always && len(in.buf) > 0 {
		if in.err == nil {
			_, in.err = in.w.Write(in.buf)
		}
		in.buf = in.buf[:0]
	}
	return in.err
}

// Write indents p, the next piece of the text: a token may be split
// anywhere across writes. It reports the writer's first error.
func (in *indenter) Write(p []byte) (int, error) {
	in.write(p)
	return len(p), in.err
}

// end writes the final line break and what is buffered.
func (in *indenter) end() error {
	in.buf = append(in.buf, '\n')
	return in.flush(true)
}

func (in *indenter) write(p []byte) {
	if in.buf == nil {
		in.buf = make([]byte, 0, indentFlush+4096)
	}
	for i := 0; i < len(p); i++ {
		if len(in.buf) >= indentFlush {
			in.flush(false)
		}
		if in.inString {
			// Copy the string's bytes through its closing quote at once,
			// a buffer's worth at a time (a string may be megabytes).
			end := min(len(p), i+indentFlush)
			j := i
			for ; j < end; j++ {
				if in.escaped {
					in.escaped = false
				} else if p[j] == '\\' {
					in.escaped = true
				} else if p[j] == '"' {
					break
				}
			}
			if j == end {
				in.buf = append(in.buf, p[i:end]...)
				i = end - 1
				continue
			}
			in.buf = append(in.buf, p[i:j+1]...)
			in.inString = false
			i = j
			continue
		}
		c := p[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if in.open != 0 {
			o := in.open
			in.open = 0
			if (o == '{' && c == '}') || (o == '[' && c == ']') {
				in.buf = append(in.buf, c) // an empty object or array stays on its line
				continue
			}
			in.depth++
			in.newline()
		}
		switch c {
		case '"':
			in.buf = append(in.buf, c)
			in.inString = true
		case '{', '[':
			in.buf = append(in.buf, c)
			in.open = c
		case '}', ']':
			in.depth--
			in.newline()
			in.buf = append(in.buf, c)
		case ',':
			in.buf = append(in.buf, c)
			in.newline()
		case ':':
			in.buf = append(in.buf, ": "...)
		default:
			// A number or literal: copy its run at once.
			j := i + 1
			for j < len(p) && !isJSONDelim(p[j]) {
				j++
			}
			in.buf = append(in.buf, p[i:j]...)
			i = j - 1
		}
	}
}

func isJSONDelim(c byte) bool {
	switch c {
	case '"', '{', '}', '[', ']', ',', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
