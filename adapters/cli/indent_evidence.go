package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"

	"rea/core"
)

// writeEvidenceIndented writes ev exactly as writeIndented does, without
// the compact copy of the whole record: each field is encoded on its own
// and the result's JSON (tens of MB for a JavaScript application) is
// indented straight from the Evidence's bytes. A record whose type this
// cannot mirror field by field goes through writeIndented. sealed says ev
// is a record this process's session just sealed, whose raw members are
// the canonical JSON it wrote: they are not checked again (on a 4 MB
// application graph, 25 ms of a run).
func writeEvidenceIndented(w io.Writer, ev *core.Evidence, sealed bool) error {
	if ev == nil || !evidenceFieldsPlain {
		return writeIndented(w, ev)
	}
	v := reflect.ValueOf(ev).Elem()
	t := v.Type()
	// Check the raw members first: encoding/json refuses a record whose
	// raw JSON is invalid, and so does this, before writing anything.
	for i := range t.NumField() {
		if raw, ok := v.Field(i).Interface().(json.RawMessage); ok && raw != nil && !sealed && !json.Valid(raw) {
			return writeIndented(w, ev)
		}
	}
	in := &indenter{w: w}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(x any) error {
		buf.Reset()
		if err := enc.Encode(x); err != nil {
			return err
		}
		in.write(buf.Bytes()) // the trailing newline is whitespace to the indenter
		return nil
	}
	in.write([]byte{'{'})
	for i := range t.NumField() {
		if i > 0 {
			in.write([]byte{','})
		}
		if err := encode(jsonName(t.Field(i))); err != nil {
			return err
		}
		in.write([]byte{':'})
		f := v.Field(i).Interface()
		if raw, ok := f.(json.RawMessage); ok {
			if raw == nil {
				in.write([]byte("null"))
			} else {
				in.write(raw)
			}
			continue
		}
		if err := encode(f); err != nil {
			return err
		}
	}
	in.write([]byte{'}'})
	in.buf = append(in.buf, '\n')
	return in.flush(true)
}

// evidenceFieldsPlain reports whether encoding/json writes core.Evidence
// as every exported field in order, each under its tag's name: no
// omitempty, no embedded or unexported field, no "-".
var evidenceFieldsPlain = func() bool {
	t := reflect.TypeFor[core.Evidence]()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || f.Anonymous || tag == "" || tag == "-" || strings.Contains(tag, ",") {
			return false
		}
	}
	return true
}()

func jsonName(f reflect.StructField) string { return f.Tag.Get("json") }

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

func (in *indenter) write(p []byte) {
	if in.buf == nil {
		in.buf = make([]byte, 0, indentFlush+4096)
	}
	for i := 0; i < len(p); i++ {
		if len(in.buf) >= indentFlush {
			in.flush(false)
		}
		if in.inString {
			// Copy the string's bytes through its closing quote at once.
			j := i
			for ; j < len(p); j++ {
				if in.escaped {
					in.escaped = false
				} else if p[j] == '\\' {
					in.escaped = true
				} else if p[j] == '"' {
					break
				}
			}
			if j == len(p) {
				in.buf = append(in.buf, p[i:]...)
				return
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
