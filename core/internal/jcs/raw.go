package jcs

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"
)

// AppendRaw appends the JCS form of the JSON text raw to dst without
// building a decoded tree: one pass over the bytes writes each value's JCS
// form once, members in input order; objects not already sorted are noted
// and, at the end, one more pass copies the written bytes with their
// members in order (see reorder). Records read from bundles are canonical
// already, so that is mostly a validating copy. Its results and its
// refusals are those of decoding with encoding/json and re-encoding the
// tree (last duplicate key wins, invalid UTF-8 and lone surrogates become
// U+FFFD); FuzzAppendRaw holds the two to each other.
func AppendRaw(dst, raw []byte) ([]byte, error) {
	p := rawCanon{src: raw}
	p.skipSpace()
	out, err := p.canon(slices.Grow(dst, len(raw)), 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.src) {
		return nil, errors.New("canonical json: trailing data after value")
	}
	return out, nil
}

type rawCanon struct {
	src     []byte
	i       int
	members []rawMember // a stack shared by the nested objects

	// Objects written out of order, for reorder: unsorted holds them,
	// spans their members sorted, kids the unsorted objects each one
	// holds nearest, and pending those not yet inside a noted one, in
	// input order.
	unsorted []rawObject
	spans    []span
	kids     []int
	pending  []int
}

// A span is [start, end) of the bytes written.
type span struct{ start, end int }

// A rawObject is an object written with its members out of order (or with
// a key twice): at, the object's bytes; spans[m0:m1], its members to
// write, sorted, each key once; kids[k0:k1], the unsorted objects it
// holds nearest, in input order.
type rawObject struct {
	at             span
	m0, m1, k0, k1 int
}

var errRawSyntax = errors.New("canonical json: invalid JSON")

func (p *rawCanon) skipSpace() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// canon appends the JCS form of the value at p.i: the value as written,
// then re-ordered if some object in it was out of order.
func (p *rawCanon) canon(dst []byte, depth int) ([]byte, error) {
	from := len(dst)
	dst, err := p.value(dst, depth)
	if err != nil || len(p.pending) == 0 {
		return dst, err
	}
	dst = p.reorder(dst, from)
	p.unsorted, p.spans, p.kids, p.pending = p.unsorted[:0], p.spans[:0], p.kids[:0], p.pending[:0]
	return dst, nil
}

func (p *rawCanon) value(dst []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, errors.New("canonical json: nesting too deep")
	}
	if p.i >= len(p.src) {
		return nil, errRawSyntax
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(dst, depth)
	case c == '[':
		return p.array(dst, depth)
	case c == '"':
		return p.str(dst)
	case c == 't':
		return p.literal(dst, "true")
	case c == 'f':
		return p.literal(dst, "false")
	case c == 'n':
		return p.literal(dst, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(dst)
	}
	return nil, errRawSyntax
}

func (p *rawCanon) literal(dst []byte, lit string) ([]byte, error) {
	if len(p.src)-p.i < len(lit) || string(p.src[p.i:p.i+len(lit)]) != lit {
		return nil, errRawSyntax
	}
	p.i += len(lit)
	return append(dst, lit...), nil
}

// number scans a JSON number (RFC 8259 grammar) and writes its JCS form.
func (p *rawCanon) number(dst []byte) ([]byte, error) {
	start := p.i
	s := p.src
	if s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(s) && s[p.i] == '0':
		p.i++
	case p.i < len(s) && s[p.i] >= '1' && s[p.i] <= '9':
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	default:
		return nil, errRawSyntax
	}
	if p.i < len(s) && s[p.i] == '.' {
		p.i++
		if p.i >= len(s) || s[p.i] < '0' || s[p.i] > '9' {
			return nil, errRawSyntax
		}
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	}
	if p.i < len(s) && (s[p.i] == 'e' || s[p.i] == 'E') {
		p.i++
		if p.i < len(s) && (s[p.i] == '+' || s[p.i] == '-') {
			p.i++
		}
		if p.i >= len(s) || s[p.i] < '0' || s[p.i] > '9' {
			return nil, errRawSyntax
		}
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	}
	tok := s[start:p.i]
	if len(tok) <= 16 && isInteger(tok) { // within ±2^53: the digits are the JCS form
		if len(tok) == 2 && tok[0] == '-' && tok[1] == '0' {
			return append(dst, '0'), nil
		}
		return append(dst, tok...), nil
	}
	return AppendNumber(dst, string(tok))
}

// isInteger reports whether a number token is an integer: no fraction, no
// exponent. At most 15 digits, it lies within ±2^53.
func isInteger(tok []byte) bool {
	digits := tok
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 15 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// scanStr scans a string token starting at its quote: the content is
// src[start:end]; plain means it holds no escape and is valid UTF-8, so the
// content is the value and, quoted, already its JCS form (a plain token has
// no '"', no '\\' and no control character).
func (p *rawCanon) scanStr() (start, end int, plain bool, err error) {
	s := p.src
	p.i++
	start, plain = p.i, true
	for {
		for p.i < len(s) && plainByte[s[p.i]] {
			p.i++
		}
		if p.i >= len(s) {
			return 0, 0, false, errRawSyntax
		}
		c := s[p.i]
		switch {
		case c == '"':
			p.i++
			return start, p.i - 1, plain, nil
		case c == '\\':
			plain = false
			p.i += 2
		case c < 0x20:
			return 0, 0, false, errRawSyntax
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, n := utf8.DecodeRune(s[p.i:])
			if r == utf8.RuneError && n == 1 {
				plain = false
			}
			p.i += n
		}
	}
}

// decodeStr is the value of a non-plain string token, decoded by
// encoding/json so the replacement rules are exactly its own.
func (p *rawCanon) decodeStr(start, end int) (string, error) {
	var v string
	if err := json.Unmarshal(p.src[start-1:end+1], &v); err != nil {
		return "", fmt.Errorf("canonical json: %w", err)
	}
	return v, nil
}

// str appends the JCS form of the string token at p.i.
func (p *rawCanon) str(dst []byte) ([]byte, error) {
	start, end, plain, err := p.scanStr()
	if err != nil {
		return nil, err
	}
	if plain {
		return append(dst, p.src[start-1:end+1]...), nil
	}
	v, err := p.decodeStr(start, end)
	if err != nil {
		return nil, err
	}
	return AppendString(dst, v), nil
}

func (p *rawCanon) array(dst []byte, depth int) ([]byte, error) {
	p.i++ // [
	dst = append(dst, '[')
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		return append(dst, ']'), nil
	}
	for n := 0; ; n++ {
		if n > 0 {
			dst = append(dst, ',')
		}
		p.skipSpace()
		var err error
		if dst, err = p.value(dst, depth+1); err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil, errRawSyntax
		}
		switch p.src[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return append(dst, ']'), nil
		default:
			return nil, errRawSyntax
		}
	}
}

type rawMember struct {
	key  []byte // the key's value: its content in src when it is plain
	span        // `"key":value` as written, without the separating comma
}

func (p *rawCanon) object(dst []byte, depth int) ([]byte, error) {
	p.i++ // {
	open := len(dst)
	dst = append(dst, '{')
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		return append(dst, '}'), nil
	}
	base := len(p.members) // this object's members sit above base on the shared stack
	defer func() { p.members = p.members[:base] }()
	ordered := true
	for {
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, errRawSyntax
		}
		ks, ke, plain, err := p.scanStr()
		if err != nil {
			return nil, err
		}
		m := rawMember{key: p.src[ks:ke]}
		if !plain {
			v, err := p.decodeStr(ks, ke)
			if err != nil {
				return nil, err
			}
			m.key = []byte(v)
		}
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, errRawSyntax
		}
		p.i++
		p.skipSpace()
		if len(p.members) > base {
			dst = append(dst, ',')
			if ordered && compareKeys(p.members[len(p.members)-1].key, m.key) >= 0 {
				ordered = false // out of order or a duplicate
			}
		}
		m.start = len(dst)
		if plain {
			dst = append(dst, p.src[ks-1:ke+1]...)
		} else {
			dst = AppendString(dst, string(m.key))
		}
		dst = append(dst, ':')
		if dst, err = p.value(dst, depth+1); err != nil {
			return nil, err
		}
		m.end = len(dst)
		p.members = append(p.members, m)
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil, errRawSyntax
		}
		if p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.src[p.i] != '}' {
			return nil, errRawSyntax
		}
		p.i++
		break
	}
	dst = append(dst, '}')
	if !ordered {
		p.noteUnsorted(span{open, len(dst)}, p.members[base:])
	}
	return dst, nil
}

// noteUnsorted records an object written out of order for reorder: its
// members sorted by key (stable, so among duplicates the last stays last)
// with only each key's last kept, as decoding into a map does, and the
// unsorted objects written since it opened as its kids.
func (p *rawCanon) noteUnsorted(at span, members []rawMember) {
	slices.SortStableFunc(members, func(a, b rawMember) int { return compareKeys(a.key, b.key) })
	o := rawObject{at: at, m0: len(p.spans), k0: len(p.kids)}
	for i := range members {
		if i+1 < len(members) && compareKeys(members[i+1].key, members[i].key) == 0 {
			continue
		}
		p.spans = append(p.spans, members[i].span)
	}
	o.m1 = len(p.spans)
	j := len(p.pending)
	for j > 0 && p.unsorted[p.pending[j-1]].at.start > at.start {
		j--
	}
	p.kids = append(p.kids, p.pending[j:]...)
	o.k1 = len(p.kids)
	p.pending = append(p.pending[:j], len(p.unsorted))
	p.unsorted = append(p.unsorted, o)
}

// reorder rewrites dst[from:], written in input order, with each unsorted
// object's members in order. The bytes from the first unsorted object on
// are copied aside once and written back once: each member's bytes are
// moved once however deep it sits.
func (p *rawCanon) reorder(dst []byte, from int) []byte {
	first := p.unsorted[p.pending[0]].at.start
	w := rawWritten{p: p, off: first, b: slices.Clone(dst[first:])}
	return w.emit(dst[:first], span{first, len(dst)}, p.pending)
}

// rawWritten is the bytes written from offset off on, as reorder reads them.
type rawWritten struct {
	p   *rawCanon
	off int
	b   []byte
}

// emit appends the bytes of s, the unsorted objects among them (kids, in
// input order) re-ordered.
func (w *rawWritten) emit(dst []byte, s span, kids []int) []byte {
	pos := s.start
	for _, k := range kids {
		o := &w.p.unsorted[k]
		dst = append(dst, w.b[pos-w.off:o.at.start-w.off]...)
		dst = append(dst, '{')
		kk := w.p.kids[o.k0:o.k1]
		for i, m := range w.p.spans[o.m0:o.m1] {
			if i > 0 {
				dst = append(dst, ',')
			}
			lo := sort.Search(len(kk), func(j int) bool { return w.p.unsorted[kk[j]].at.start >= m.start })
			hi := lo + sort.Search(len(kk)-lo, func(j int) bool { return w.p.unsorted[kk[lo+j]].at.start >= m.end })
			dst = w.emit(dst, m, kk[lo:hi])
		}
		dst = append(dst, '}')
		pos = o.at.end
	}
	return append(dst, w.b[pos-w.off:s.end-w.off]...)
}

// Members reads the JSON object raw and calls visit with each member's key
// and the JCS form of its value, in input order, duplicates included. The
// values share one buffer; visit may keep them.
func Members(raw []byte, visit func(key string, value []byte) error) error {
	p := rawCanon{src: raw}
	p.skipSpace()
	if p.i >= len(raw) || raw[p.i] != '{' {
		return errors.New("canonical json: not an object")
	}
	p.i++
	buf := make([]byte, 0, len(raw))
	p.skipSpace()
	if p.i < len(raw) && raw[p.i] == '}' {
		p.i++
	} else {
		for {
			p.skipSpace()
			if p.i >= len(raw) || raw[p.i] != '"' {
				return errRawSyntax
			}
			ks, ke, plain, err := p.scanStr()
			if err != nil {
				return err
			}
			key := string(raw[ks:ke])
			if !plain {
				if key, err = p.decodeStr(ks, ke); err != nil {
					return err
				}
			}
			p.skipSpace()
			if p.i >= len(raw) || raw[p.i] != ':' {
				return errRawSyntax
			}
			p.i++
			p.skipSpace()
			start := len(buf)
			if buf, err = p.canon(buf, 1); err != nil {
				return err
			}
			if err := visit(key, buf[start:len(buf):len(buf)]); err != nil {
				return err
			}
			p.skipSpace()
			if p.i >= len(raw) {
				return errRawSyntax
			}
			if raw[p.i] == ',' {
				p.i++
				continue
			}
			if raw[p.i] != '}' {
				return errRawSyntax
			}
			p.i++
			break
		}
	}
	p.skipSpace()
	if p.i != len(raw) {
		return errors.New("canonical json: trailing data after value")
	}
	return nil
}
