package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// TOML (Codex's config.toml). go-toml decides validity and decodes; its
// expression parser locates the table headers and key/value lines of the
// entry, and edits splice text at those spans, so comments, key order and
// formatting elsewhere are kept byte for byte.

// texpr is one top-level TOML expression with its location.
type texpr struct {
	kind     unstable.Kind // Table, ArrayTable or KeyValue
	path     []string      // full path: the header's keys, or the section's path plus the key
	keyLen   int           // KeyValue: how many parts its own key has
	start    int           // header: start of its line; KeyValue: first byte of the key
	end      int           // header: end of its line (after the newline); KeyValue: end of the value
	valStart int           // KeyValue
	section  []string      // KeyValue: the path of the table it belongs to
}

func tomlDecode(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if err := toml.Unmarshal(data, &m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, &SyntaxError{Line: line, Column: col, Offset: offsetOf(data, line, col), Msg: strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: err.Error()}
	}
	return m, nil
}

func offsetOf(data []byte, line, col int) int {
	off := 0
	for l := 1; l < line && off < len(data); l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return min(off+col-1, len(data))
}

func lineEnd(data []byte, off int) int {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return len(data)
	}
	return off + i + 1
}

// tomlScan lists the top-level expressions of a document that tomlDecode
// accepted.
func tomlScan(data []byte) ([]texpr, error) {
	var p unstable.Parser
	p.Reset(data)
	var out []texpr
	var section []string
	for p.NextExpression() {
		e := p.Expression()
		var keys []string
		first, last := -1, -1
		it := e.Key()
		for it.Next() {
			k := it.Node()
			keys = append(keys, string(k.Data))
			if first < 0 {
				first = int(k.Raw.Offset)
			}
			last = int(k.Raw.Offset + k.Raw.Length)
		}
		if first < 0 {
			return nil, &SyntaxError{Line: 1, Column: 1, Msg: "expression without a key"}
		}
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			section = keys
			out = append(out, texpr{kind: e.Kind, path: keys, start: lineStart(data, first), end: lineEnd(data, last)})
		case unstable.KeyValue:
			eq := bytes.IndexByte(data[last:], '=')
			if eq < 0 {
				return nil, &SyntaxError{Line: 1, Column: 1, Msg: "key/value without '='"}
			}
			vs := last + eq + 1
			for vs < len(data) && (data[vs] == ' ' || data[vs] == '\t') {
				vs++
			}
			full := append(append([]string{}, section...), keys...)
			out = append(out, texpr{kind: e.Kind, path: full, keyLen: len(keys), start: first,
				end: int(e.Raw.Offset + e.Raw.Length), valStart: vs, section: section})
		}
	}
	if err := p.Error(); err != nil {
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: err.Error()}
	}
	return out, nil
}

func hasPrefix(path, prefix []string) bool {
	if len(path) < len(prefix) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

func equalPath(a, b []string) bool { return len(a) == len(b) && hasPrefix(a, b) }

func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlKey(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		bare := k != ""
		for _, c := range k {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				bare = false
				break
			}
		}
		if bare {
			parts[i] = k
		} else {
			parts[i] = tomlQuote(k)
		}
	}
	return strings.Join(parts, ".")
}

func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return tomlQuote(v)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = tomlQuote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case int64:
		return strconv.FormatInt(v, 10)
	}
	panic(fmt.Sprintf("hosts: cannot render %T as TOML", v)) // programmer error
}

// tomlLayout classifies how the table at path is written.
type tomlLayout struct {
	header *texpr  // [path]
	dotted []texpr // key/values under path written in a section at or above it
	subs   []texpr // headers below path
	inline []texpr // a key/value whose value holds path (path = {...} or a parent inline table)
	parent bool    // an ancestor of path is an inline table or an array of tables
}

func tomlLocate(exprs []texpr, path []string) tomlLayout {
	var l tomlLayout
	for i := range exprs {
		e := &exprs[i]
		switch e.kind {
		case unstable.Table, unstable.ArrayTable:
			switch {
			case equalPath(e.path, path) && e.kind == unstable.Table:
				l.header = e
			case hasPrefix(e.path, path):
				l.subs = append(l.subs, *e)
			case hasPrefix(path, e.path) && e.kind == unstable.ArrayTable:
				l.parent = true
			}
		case unstable.KeyValue:
			switch {
			case len(e.section) <= len(path) && hasPrefix(e.path, path) && len(e.path) > len(path):
				l.dotted = append(l.dotted, *e)
			case equalPath(e.path, path):
				l.inline = append(l.inline, *e)
			case hasPrefix(path, e.path):
				l.parent = true
			}
		}
	}
	return l
}

// tomlSet sets each field of the table at path, editing the lines that hold
// them or appending the table at the end.
func tomlSet(data []byte, path []string, fs fields) ([]byte, error) {
	before, err := tomlDecode(data)
	if err != nil {
		return nil, err
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	out := data
	for _, f := range fs {
		exprs, err := tomlScan(out)
		if err != nil {
			return nil, err
		}
		l := tomlLocate(exprs, path)
		if l.parent || len(l.inline) > 0 {
			return nil, ErrLayout
		}
		if l.header == nil && len(l.dotted) == 0 {
			block := "[" + tomlKey(path) + "]" + nl
			for _, f := range fs {
				block += tomlKey([]string{f.key}) + " = " + tomlValue(f.val) + nl
			}
			prefix := ""
			if len(out) > 0 {
				if out[len(out)-1] != '\n' {
					prefix = nl
				}
				prefix += nl
			}
			out = append(append(append([]byte{}, out...), prefix...), block...)
			break
		}
		want := append(append([]string{}, path...), f.key)
		var found *texpr
		for i := range l.dotted {
			if equalPath(l.dotted[i].path, want) {
				found = &l.dotted[i]
			}
		}
		if found != nil {
			out = splice(out, found.valStart, found.end, tomlValue(f.val))
			continue
		}
		// Insert a line after the last key/value that belongs to the entry.
		var after *texpr
		for i := range l.dotted {
			if after == nil || l.dotted[i].end > after.end {
				after = &l.dotted[i]
			}
		}
		var at int
		var key []string
		switch {
		case l.header != nil && (after == nil || !equalPath(after.section, path)):
			at, key = l.header.end, []string{f.key}
			for i := range l.dotted {
				if equalPath(l.dotted[i].section, path) && lineEnd(out, l.dotted[i].end) > at {
					at = lineEnd(out, l.dotted[i].end)
				}
			}
		default:
			at = lineEnd(out, after.end)
			key = append(append([]string{}, path[len(after.section):]...), f.key)
		}
		line := tomlKey(key) + " = " + tomlValue(f.val) + nl
		if at == len(out) && len(out) > 0 && out[len(out)-1] != '\n' {
			line = nl + line
		}
		out = splice(out, at, at, line)
	}
	after, err := tomlDecode(out)
	if err != nil {
		return nil, fmt.Errorf("%w: it does not parse: %v", ErrUnverified, err)
	}
	want := jsonExpectSetEach(before, path, fs)
	if !reflect.DeepEqual(normalizeTOML(after), normalizeTOML(want)) {
		return nil, ErrUnverified
	}
	return out, nil
}

func jsonExpectSetEach(doc map[string]any, path []string, fs fields) map[string]any {
	for _, f := range fs {
		p := append(append([]string{}, path...), f.key)
		jsonExpectSet(doc, p, f.val)
	}
	return doc
}

// normalizeTOML drops empty tables, so a parent emptied by a removal
// compares equal to an absent one, and turns rea's own value types into
// what the decoder returns.
func normalizeTOML(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			n := normalizeTOML(x)
			if m, ok := n.(map[string]any); ok && len(m) == 0 {
				continue
			}
			out[k] = n
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalizeTOML(x)
		}
		return out
	}
	return v
}

// tomlRemove deletes the table at path wherever it is written.
func tomlRemove(data []byte, path []string) ([]byte, error) {
	before, err := tomlDecode(data)
	if err != nil {
		return nil, err
	}
	exprs, err := tomlScan(data)
	if err != nil {
		return nil, err
	}
	l := tomlLocate(exprs, path)
	if l.header == nil && len(l.dotted) == 0 && len(l.subs) == 0 && len(l.inline) == 0 {
		if _, ok := lookupPath(before, path); ok {
			return nil, ErrLayout
		}
		return data, nil
	}
	if l.parent {
		return nil, ErrLayout
	}
	type span struct{ from, to int }
	var spans []span
	sectionEnd := func(h *texpr) int {
		end := len(data)
		for _, e := range exprs {
			if (e.kind == unstable.Table || e.kind == unstable.ArrayTable) && e.start > h.start && e.start < end {
				end = e.start
			}
		}
		return end
	}
	if l.header != nil {
		spans = append(spans, span{l.header.start, sectionEnd(l.header)})
	}
	for i := range l.subs {
		spans = append(spans, span{l.subs[i].start, sectionEnd(&l.subs[i])})
	}
	for _, e := range append(append([]texpr{}, l.dotted...), l.inline...) {
		spans = append(spans, span{lineStart(data, e.start), lineEnd(data, e.end)})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.from <= merged[n-1].to {
			merged[n-1].to = max(merged[n-1].to, s.to)
			continue
		}
		merged = append(merged, s)
	}
	out := append([]byte{}, data...)
	for i := len(merged) - 1; i >= 0; i-- {
		out = splice(out, merged[i].from, merged[i].to, "")
	}
	if merged[len(merged)-1].to == len(data) {
		// The entry was the last thing in the file: drop the blank line
		// that set put before it.
		for _, blank := range []string{"\r\n\r\n", "\n\n"} {
			if bytes.HasSuffix(out, []byte(blank)) {
				out = out[:len(out)-len(blank)/2]
				break
			}
		}
	}
	after, err := tomlDecode(out)
	if err != nil {
		return nil, fmt.Errorf("%w: it does not parse: %v", ErrUnverified, err)
	}
	deletePath(before, path)
	if !reflect.DeepEqual(normalizeTOML(after), normalizeTOML(before)) {
		return nil, ErrUnverified
	}
	return out, nil
}

func lookupPath(doc map[string]any, path []string) (any, bool) {
	var cur any = doc
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func deletePath(doc map[string]any, path []string) {
	cur := doc
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			return
		}
		cur = next
	}
	delete(cur, path[len(path)-1])
}
