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
	in.buf = appendNewline(in.buf, in.depth)
}

// appendNewline appends a line break and the indentation of depth.
func appendNewline(buf []byte, depth int) []byte {
	if n := 1 + 2*depth; n <= len(indentSpaces) {
		return append(buf, indentSpaces[:n]...)
	}
	buf = append(buf, '\n')
	for range depth {
		buf = append(buf, "  "...)
	}
	return buf
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

// write indents p. The indenter's state is kept in local variables while
// it runs, and a short string is copied as soon as its opening quote is
// read: written through the indenter's fields, byte by byte, a JavaScript
// application's 4.5 MB result (1.2 million tokens) took about 9 ms of CPU
// time to indent, on the thread that ends a run.
func (in *indenter) write(p []byte) {
	if in.buf == nil {
		in.buf = make([]byte, 0, indentFlush+4096)
	}
	buf, depth, open, inString, escaped := in.buf, in.depth, in.open, in.inString, in.escaped
	for i := 0; i < len(p); i++ {
		if len(buf) >= indentFlush {
			in.buf = buf
			in.flush(false)
			buf = in.buf
		}
		if inString {
			// Copy the string's bytes through its closing quote at once,
			// a buffer's worth at a time (a string may be megabytes).
			end := min(len(p), i+indentFlush)
			j := i
			for ; j < end; j++ {
				if escaped {
					escaped = false
				} else if p[j] == '\\' {
					escaped = true
				} else if p[j] == '"' {
					break
				}
			}
			if j == end {
				buf = append(buf, p[i:end]...)
				i = end - 1
				continue
			}
			buf = append(buf, p[i:j+1]...)
			inString = false
			i = j
			continue
		}
		c := p[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if open != 0 {
			o := open
			open = 0
			if (o == '{' && c == '}') || (o == '[' && c == ']') {
				buf = append(buf, c) // an empty object or array stays on its line
				continue
			}
			depth++
			buf = appendNewline(buf, depth)
		}
		switch c {
		case '"':
			// A string without escapes that ends within shortString
			// bytes is copied here; any other goes through inString.
			j, end := i+1, min(len(p), i+1+shortString)
			for j < end && p[j] != '"' && p[j] != '\\' {
				j++
			}
			if j < end && p[j] == '"' {
				buf = append(buf, p[i:j+1]...)
				i = j
				continue
			}
			buf = append(buf, c)
			inString = true
		case '{', '[':
			buf = append(buf, c)
			open = c
		case '}', ']':
			depth = max(depth-1, 0) // text that closes more than it opened is not JSON, and is not refused either
			buf = append(appendNewline(buf, depth), c)
		case ',':
			buf = appendNewline(append(buf, c), max(depth, 0))
		case ':':
			buf = append(buf, ": "...)
		default:
			// A number or literal: copy its run at once.
			j := i + 1
			for j < len(p) && !isJSONDelim(p[j]) {
				j++
			}
			buf = append(buf, p[i:j]...)
			i = j - 1
		}
	}
	in.buf, in.depth, in.open, in.inString, in.escaped = buf, depth, open, inString, escaped
}

// shortString bounds the strings write copies as it meets them.
const shortString = 256

func isJSONDelim(c byte) bool { return jsonDelims[c] }

// jsonDelims holds the bytes that end a number or a literal.
var jsonDelims = func() (t [256]bool) {
	for _, c := range []byte("\"{}[],: \t\n\r") {
		t[c] = true
	}
	return t
}()
