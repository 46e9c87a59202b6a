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
	return in.end()
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
