package hosts

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"rea/ports"
)

// A small JSON / JSONC parser that keeps byte spans. It decides validity and
// locates the members rea edits; the editors splice text at those spans, so
// every byte outside the edited member is kept as it was. JSONC (VS Code and
// Zed settings) adds // and /* */ comments, trailing commas in objects and
// arrays, and a leading byte order mark.

const maxJSONDepth = 512

type jkind byte

const (
	jObject jkind = 'o'
	jArray  jkind = 'a'
	jString jkind = 's'
	jNumber jkind = 'n'
	jBool   jkind = 'b'
	jNull   jkind = 'z'
)

type jnode struct {
	kind       jkind
	start, end int // [start, end) of the value, brackets included
	members    []jmember
	elems      []*jnode
}

type jmember struct {
	key        string
	keyStart   int
	val        *jnode
	commaAfter int // offset of the comma that follows the value, or -1
}

// member returns the last member named key and how many there are.
func (n *jnode) member(key string) (*jmember, int) {
	var found *jmember
	count := 0
	for i := range n.members {
		if n.members[i].key == key {
			found = &n.members[i]
			count++
		}
	}
	return found, count
}

// SyntaxError is an unparseable JSON, JSONC or TOML document, with the
// position of the first problem (1-based line and column, byte offset).
type SyntaxError struct {
	Offset int
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// position converts a byte offset into a 1-based line and column (columns
// count bytes).
func position(data []byte, off int) (line, col int) {
	line, col = 1, 1
	if off > len(data) {
		off = len(data)
	}
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

type jparser struct {
	data  []byte
	pos   int
	jsonc bool
	depth int
}

func (p *jparser) fail(off int, format string, args ...any) error {
	line, col := position(p.data, off)
	return &SyntaxError{Offset: off, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// parseJSON parses a whole document. A document holding only whitespace
// (and comments, for JSONC) returns a nil node and no error: callers treat it
// as empty.
func parseJSON(data []byte, jsonc bool) (*jnode, error) {
	p := &jparser{data: data, jsonc: jsonc}
	if jsonc && len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.pos = 3
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos == len(data) {
		return nil, nil
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(data) {
		return nil, p.fail(p.pos, "unexpected %s after the top-level value", p.describe())
	}
	return n, nil
}

func (p *jparser) describe() string {
	if p.pos >= len(p.data) {
		return "end of file"
	}
	c := p.data[p.pos]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", string(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// skip passes whitespace and, in JSONC, comments.
func (p *jparser) skip() error {
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; c {
		case ' ', '\t', '\n', '\r':
			p.pos++
		case '/':
			if !p.jsonc || p.pos+1 >= len(p.data) {
				return nil
			}
			switch p.data[p.pos+1] {
			case '/':
				for p.pos < len(p.data) && p.data[p.pos] != '\n' {
					p.pos++
				}
			case '*':
				start := p.pos
				p.pos += 2
				for {
					if p.pos+1 >= len(p.data) {
						return p.fail(start, "unterminated block comment")
					}
					if p.data[p.pos] == '*' && p.data[p.pos+1] == '/' {
						p.pos += 2
						break
					}
					p.pos++
				}
			default:
				return nil
			}
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) value() (*jnode, error) {
	if p.pos >= len(p.data) {
		return nil, p.fail(p.pos, "unexpected end of file, expected a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		start := p.pos
		if err := p.str(); err != nil {
			return nil, err
		}
		return &jnode{kind: jString, start: start, end: p.pos}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range []struct {
			text string
			kind jkind
		}{{"true", jBool}, {"false", jBool}, {"null", jNull}} {
			if len(p.data)-p.pos >= len(lit.text) && string(p.data[p.pos:p.pos+len(lit.text)]) == lit.text {
				start := p.pos
				p.pos += len(lit.text)
				return &jnode{kind: lit.kind, start: start, end: p.pos}, nil
			}
		}
		return nil, p.fail(p.pos, "unexpected %s, expected a value", p.describe())
	}
}

func (p *jparser) enter() error {
	p.depth++
	if p.depth > maxJSONDepth {
		return p.fail(p.pos, "nesting deeper than %d levels", maxJSONDepth)
	}
	return nil
}

func (p *jparser) object() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &jnode{kind: jObject, start: p.pos}
	p.pos++ // {
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.data) {
			return nil, p.fail(p.pos, "unexpected end of file in an object")
		}
		if p.data[p.pos] == '}' {
			if len(n.members) > 0 && n.members[len(n.members)-1].commaAfter >= 0 && !p.jsonc {
				return nil, p.fail(n.members[len(n.members)-1].commaAfter, "trailing comma")
			}
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if len(n.members) > 0 && n.members[len(n.members)-1].commaAfter < 0 {
			return nil, p.fail(p.pos, "unexpected %s, expected ',' or '}'", p.describe())
		}
		if p.data[p.pos] != '"' {
			return nil, p.fail(p.pos, "unexpected %s, expected a string key", p.describe())
		}
		keyStart := p.pos
		if err := p.str(); err != nil {
			return nil, err
		}
		var key string
		if err := json.Unmarshal(p.data[keyStart:p.pos], &key); err != nil {
			return nil, p.fail(keyStart, "invalid key: %v", err)
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail(p.pos, "unexpected %s, expected ':'", p.describe())
		}
		p.pos++
		if err := p.skip(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		m := jmember{key: key, keyStart: keyStart, val: v, commaAfter: -1}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			m.commaAfter = p.pos
			p.pos++
		}
		n.members = append(n.members, m)
	}
}

func (p *jparser) array() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &jnode{kind: jArray, start: p.pos}
	p.pos++ // [
	comma := true
	lastComma := -1
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.data) {
			return nil, p.fail(p.pos, "unexpected end of file in an array")
		}
		if p.data[p.pos] == ']' {
			if len(n.elems) > 0 && comma && !p.jsonc {
				return nil, p.fail(lastComma, "trailing comma")
			}
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if !comma {
			return nil, p.fail(p.pos, "unexpected %s, expected ',' or ']'", p.describe())
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if err := p.skip(); err != nil {
			return nil, err
		}
		comma = false
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			comma = true
			lastComma = p.pos
			p.pos++
		}
	}
}

func (p *jparser) str() error {
	start := p.pos
	p.pos++ // "
	for {
		if p.pos >= len(p.data) {
			return p.fail(start, "unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return nil
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return p.fail(start, "unterminated string")
			}
			switch p.data[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				if p.pos+6 > len(p.data) {
					return p.fail(p.pos, "invalid \\u escape")
				}
				for _, h := range p.data[p.pos+2 : p.pos+6] {
					if !isHex(h) {
						return p.fail(p.pos, "invalid \\u escape")
					}
				}
				p.pos += 6
			default:
				return p.fail(p.pos, "invalid escape")
			}
		case c < 0x20:
			return p.fail(p.pos, "control character in string")
		case c < utf8.RuneSelf:
			p.pos++
		default:
			_, size := utf8.DecodeRune(p.data[p.pos:])
			p.pos += size
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *jparser) number() (*jnode, error) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && isDigit(d[p.pos]):
		for p.pos < len(d) && isDigit(d[p.pos]) {
			p.pos++
		}
	default:
		return nil, p.fail(start, "invalid number")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if p.pos >= len(d) || !isDigit(d[p.pos]) {
			return nil, p.fail(start, "invalid number")
		}
		for p.pos < len(d) && isDigit(d[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(d) || !isDigit(d[p.pos]) {
			return nil, p.fail(start, "invalid number")
		}
		for p.pos < len(d) && isDigit(d[p.pos]) {
			p.pos++
		}
	}
	return &jnode{kind: jNumber, start: start, end: p.pos}, nil
}

// decode converts a node into Go values: map[string]any (the last of
// duplicate keys wins, as JavaScript's JSON.parse does), []any, string,
// json.Number, bool, nil.
func decode(data []byte, n *jnode) any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case jObject:
		m := make(map[string]any, len(n.members))
		for _, mem := range n.members {
			m[mem.key] = decode(data, mem.val)
		}
		return m
	case jArray:
		a := make([]any, 0, len(n.elems))
		for _, e := range n.elems {
			a = append(a, decode(data, e))
		}
		return a
	case jString:
		var s string
		_ = json.Unmarshal(data[n.start:n.end], &s) // validated by the parser
		return s
	case jNumber:
		return json.Number(data[n.start:n.end])
	case jBool:
		return data[n.start] == 't'
	default:
		return nil
	}
}

// Is makes a SyntaxError match ports.ErrMalformed.
func (e *SyntaxError) Is(target error) bool { return target == ports.ErrMalformed }
