package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"rea/ports"
)

// Values rea writes into configuration files: a string, a list of strings,
// or an ordered object.
type fields []field

type field struct {
	key string
	val any // string, []string, int64 (TOML only) or fields
}

// ShapeError is a document that parses but does not have the shape rea
// needs (the servers member is not an object, a key is duplicated, ...).
type ShapeError struct {
	Offset int
	Line   int
	Column int
	Msg    string
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

func shapeError(data []byte, off int, format string, args ...any) *ShapeError {
	line, col := position(data, off)
	return &ShapeError{Offset: off, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// ErrLayout: the entry is written in a layout rea does not edit (a TOML
// inline table, for instance); the user edits it by hand.
var ErrLayout = errors.New("hosts: the entry is written in a layout rea does not edit")

// ErrUnverified: an edit did not give exactly the intended document when
// parsed again, so it is not written.
var ErrUnverified = errors.New("hosts: the edited document does not hold exactly what was intended")

// jsonWalk follows path from the root object. It returns the deepest object
// reached and how many keys of path it consumed.
func jsonWalk(data []byte, root *jnode, path []string) (*jnode, int, error) {
	if root.kind != jObject {
		return nil, 0, shapeError(data, root.start, "the document is not a JSON object")
	}
	cur := root
	for i, key := range path {
		m, count := cur.member(key)
		if count > 1 {
			return nil, 0, shapeError(data, m.keyStart, "duplicate key %q", key)
		}
		if m == nil {
			return cur, i, nil
		}
		if m.val.kind != jObject {
			return nil, 0, shapeError(data, m.val.start, "%q is not an object", strings.Join(path[:i+1], "."))
		}
		cur = m.val
	}
	return cur, len(path), nil
}

// jsonStyle guesses the newline and the indentation unit of a document.
func jsonStyle(data []byte) (nl, unit string) {
	nl = "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	unit = ""
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		if i > 2000 {
			break
		}
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || trimmed[0] != '"' || len(trimmed) == len(line) {
			continue
		}
		ind := string(line[:len(line)-len(trimmed)])
		if strings.HasPrefix(ind, "\t") {
			return nl, "\t"
		}
		if unit == "" || len(ind) < len(unit) {
			unit = ind
		}
	}
	if unit == "" || strings.Trim(unit, " ") != "" {
		unit = "  "
	}
	return nl, unit
}

func lineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

// lineIndent is the whitespace that opens the line holding off.
func lineIndent(data []byte, off int) string {
	ls := lineStart(data, off)
	i := ls
	for i < off && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return string(data[ls:i])
}

// firstOnLine reports whether only spaces and tabs precede off on its line.
func firstOnLine(data []byte, off int) bool {
	return strings.Trim(string(data[lineStart(data, off):off]), " \t") == ""
}

func splice(data []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(text))
	out = append(out, data[:from]...)
	out = append(out, text...)
	return append(out, data[to:]...)
}

func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// minified: a document written without spaces after colons and commas.
func minified(data []byte) bool {
	return !bytes.Contains(data, []byte(": ")) && !bytes.Contains(data, []byte(", ")) &&
		!bytes.Contains(bytes.TrimRight(data, "\r\n"), []byte("\n"))
}

func compactJSON(v any) string {
	switch v := v.(type) {
	case fields:
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = jsonQuote(f.key) + ":" + compactJSON(f.val)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = jsonQuote(s)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return renderJSON(v, "", "", "", false)
}

// renderJSON writes v; objects span lines when multi, starting at indent ind.
func renderJSON(v any, ind, unit, nl string, multi bool) string {
	switch v := v.(type) {
	case string:
		return jsonQuote(v)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = jsonQuote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case fields:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = jsonQuote(f.key) + ": " + renderJSON(f.val, ind+unit, unit, nl, multi)
		}
		if !multi {
			return "{" + strings.Join(parts, ", ") + "}"
		}
		return "{" + nl + ind + unit + strings.Join(parts, ","+nl+ind+unit) + nl + ind + "}"
	}
	panic(fmt.Sprintf("hosts: cannot render %T", v)) // programmer error: only the three types above are built
}

// plain converts a value built by rea into what decode returns for it.
func plain(v any) any {
	switch v := v.(type) {
	case []string:
		a := make([]any, len(v))
		for i, s := range v {
			a[i] = s
		}
		return a
	case fields:
		m := make(map[string]any, len(v))
		for _, f := range v {
			m[f.key] = plain(f.val)
		}
		return m
	}
	return v
}

func nest(keys []string, v any) any {
	if len(keys) == 0 {
		return v
	}
	return fields{{keys[0], nest(keys[1:], v)}}
}

// jsonSet sets the value at path (creating the objects on the way) by
// splicing text into data; every other byte is kept.
func jsonSet(data []byte, jsonc bool, path []string, v any) ([]byte, error) {
	root, err := parseJSON(data, jsonc)
	if err != nil {
		return nil, err
	}
	nl, unit := jsonStyle(data)
	if root == nil {
		return []byte(renderJSON(nest(path, v), "", unit, nl, true) + nl), nil
	}
	obj, n, err := jsonWalk(data, root, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	if n < len(path)-1 {
		return jsonInsert(data, obj, path[n], nest(path[n+1:], v), nl, unit), nil
	}
	key := path[len(path)-1]
	m, count := obj.member(key)
	if count > 1 {
		return nil, shapeError(data, m.keyStart, "duplicate key %q", key)
	}
	if m == nil {
		return jsonInsert(data, obj, key, v, nl, unit), nil
	}
	multi := bytes.Contains(data, []byte("\n"))
	return splice(data, m.val.start, m.val.end, renderJSON(v, lineIndent(data, m.keyStart), unit, nl, multi)), nil
}

func jsonInsert(data []byte, obj *jnode, key string, v any, nl, unit string) []byte {
	if len(obj.members) > 0 {
		first, last := obj.members[0], obj.members[len(obj.members)-1]
		if !bytes.Contains(data[obj.start:first.keyStart], []byte("\n")) {
			if minified(data) {
				m := compactJSON(nest([]string{key}, v))
				return splice(data, last.val.end, last.val.end, ","+m[1:len(m)-1])
			}
			return splice(data, last.val.end, last.val.end, ", "+jsonQuote(key)+": "+renderJSON(v, "", unit, nl, false))
		}
		ind := lineIndent(data, obj.start) + unit
		if firstOnLine(data, last.keyStart) {
			ind = lineIndent(data, last.keyStart)
		}
		member := nl + ind + jsonQuote(key) + ": " + renderJSON(v, ind, unit, nl, true)
		// A line comment after the last value stays on its line: the new
		// member goes after it.
		i := last.val.end
		for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
			i++
		}
		comma := i < len(data) && data[i] == ','
		if comma {
			i++
			for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
				i++
			}
		}
		if i+1 < len(data) && data[i] == '/' && data[i+1] == '/' {
			eol := i + bytes.IndexByte(data[i:], '\n')
			if eol >= i {
				if eol > i && data[eol-1] == '\r' {
					eol--
				}
				out := splice(data, eol, eol, member)
				if !comma {
					out = splice(out, last.val.end, last.val.end, ",")
				}
				return out
			}
		}
		return splice(data, last.val.end, last.val.end, ","+member)
	}
	multi := bytes.Contains(data, []byte("\n"))
	objInd := lineIndent(data, obj.start)
	ind := objInd + unit
	member := jsonQuote(key) + ": " + renderJSON(v, ind, unit, nl, multi)
	inner := data[obj.start+1 : obj.end-1]
	if len(bytes.Trim(inner, " \t\r\n")) == 0 {
		if !multi {
			return splice(data, obj.start+1, obj.end-1, member)
		}
		return splice(data, obj.start+1, obj.end-1, nl+ind+member+nl+objInd)
	}
	return splice(data, obj.start+1, obj.start+1, nl+ind+member)
}

// jsonRemove deletes the member at path; it is a no-op when absent.
func jsonRemove(data []byte, jsonc bool, path []string) ([]byte, error) {
	root, err := parseJSON(data, jsonc)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return data, nil
	}
	obj, n, err := jsonWalk(data, root, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	if n < len(path)-1 {
		return data, nil
	}
	key := path[len(path)-1]
	idx := -1
	count := 0
	for i := range obj.members {
		if obj.members[i].key == key {
			idx = i
			count++
		}
	}
	if idx < 0 {
		return data, nil
	}
	if count > 1 {
		return nil, shapeError(data, obj.members[idx].keyStart, "duplicate key %q", key)
	}
	return jsonRemoveAt(data, obj, idx), nil
}

// onlyWSComma reports whether data[from:to] holds whitespace and at most one comma.
func onlyWSComma(data []byte, from, to int) bool {
	commas := 0
	for _, c := range data[from:to] {
		switch c {
		case ' ', '\t', '\r', '\n':
		case ',':
			commas++
		default:
			return false
		}
	}
	return commas <= 1
}

func jsonRemoveAt(data []byte, obj *jnode, i int) []byte {
	m := obj.members[i]
	end := m.val.end
	if m.commaAfter >= 0 {
		end = m.commaAfter + 1
	}
	switch {
	case i > 0 && onlyWSComma(data, obj.members[i-1].val.end, m.keyStart):
		// The common case, and the exact inverse of jsonInsert.
		return splice(data, obj.members[i-1].val.end, m.val.end, "")
	case i == 0 && len(obj.members) > 1 && onlyWSComma(data, m.val.end, obj.members[1].keyStart):
		return splice(data, m.keyStart, obj.members[1].keyStart, "")
	case len(obj.members) == 1 && onlyWSComma(data, obj.start+1, m.keyStart) && onlyWSComma(data, m.val.end, obj.end-1):
		return splice(data, obj.start+1, obj.end-1, "")
	}
	// Comments around the member (JSONC only, where a trailing comma is
	// allowed): delete the member and its own comma, and the line when
	// nothing else is on it.
	from := m.keyStart
	if firstOnLine(data, from) {
		rest := end
		for rest < len(data) && (data[rest] == ' ' || data[rest] == '\t' || data[rest] == '\r') {
			rest++
		}
		if rest < len(data) && data[rest] == '\n' {
			from = lineStart(data, from)
			end = rest + 1
		}
	}
	return splice(data, from, end, "")
}

// jsonExpectSet is what decoding the document should give after jsonSet.
func jsonExpectSet(doc any, path []string, v any) any {
	root, ok := doc.(map[string]any)
	if !ok {
		root = map[string]any{}
	}
	cur := root
	for _, key := range path[:len(path)-1] {
		next, ok := cur[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[key] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = plain(v)
	return root
}

func jsonExpectRemove(doc any, path []string) any {
	cur, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	for _, key := range path[:len(path)-1] {
		next, ok := cur[key].(map[string]any)
		if !ok {
			return doc
		}
		cur = next
	}
	delete(cur, path[len(path)-1])
	return doc
}

// jsonDecodeDoc parses and decodes a whole document (nil for an empty one).
func jsonDecodeDoc(data []byte, jsonc bool) (any, error) {
	root, err := parseJSON(data, jsonc)
	if err != nil {
		return nil, err
	}
	return decode(data, root), nil
}

// jsonVerify checks that the edited document parses and decodes to want.
func jsonVerify(data []byte, jsonc bool, want any) error {
	got, err := jsonDecodeDoc(data, jsonc)
	if err != nil {
		return fmt.Errorf("%w: it does not parse: %v", ErrUnverified, err)
	}
	if !reflect.DeepEqual(got, want) {
		return ErrUnverified
	}
	return nil
}

// Is makes a ShapeError match ports.ErrMalformed.
func (e *ShapeError) Is(target error) bool { return target == ports.ErrMalformed }
