package cli

import (
	"bufio"
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
// cannot mirror field by field goes through writeIndented.
func writeEvidenceIndented(w io.Writer, ev *core.Evidence) error {
	if ev == nil || !evidenceFieldsPlain {
		return writeIndented(w, ev)
	}
	v := reflect.ValueOf(ev).Elem()
	t := v.Type()
	// Check the raw members first: encoding/json refuses a record whose
	// raw JSON is invalid, and so does this, before writing anything.
	for i := range t.NumField() {
		if raw, ok := v.Field(i).Interface().(json.RawMessage); ok && raw != nil && !json.Valid(raw) {
			return writeIndented(w, ev)
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	in := &indenter{w: bw}
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
	bw.WriteByte('\n')
	return bw.Flush()
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
// stays on its line.
type indenter struct {
	w        *bufio.Writer
	depth    int
	inString bool
	escaped  bool
	open     byte // '{' or '[' just written, its line break not yet decided
}

func (in *indenter) newline() {
	in.w.WriteByte('\n')
	for range in.depth {
		in.w.WriteString("  ")
	}
}

func (in *indenter) write(p []byte) {
	for i := 0; i < len(p); i++ {
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
				in.w.Write(p[i:])
				return
			}
			in.w.Write(p[i : j+1])
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
				in.w.WriteByte(c) // an empty object or array stays on its line
				continue
			}
			in.depth++
			in.newline()
		}
		switch c {
		case '"':
			in.w.WriteByte(c)
			in.inString = true
		case '{', '[':
			in.w.WriteByte(c)
			in.open = c
		case '}', ']':
			in.depth--
			in.newline()
			in.w.WriteByte(c)
		case ',':
			in.w.WriteByte(c)
			in.newline()
		case ':':
			in.w.WriteString(": ")
		default:
			// A number or literal: copy its run at once.
			j := i + 1
			for j < len(p) && !isJSONDelim(p[j]) {
				j++
			}
			in.w.Write(p[i:j])
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
