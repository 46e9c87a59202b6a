package jcs

// raw_prev_test.go is AppendRaw as it was before reordering became one pass
// over the written bytes (each unsorted object cloned and rewritten at its
// own level), kept as the reference the differential tests hold AppendRaw
// to: the same output bytes and the same refusals.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

func prevAppendRaw(dst, raw []byte) ([]byte, error) {
	p := prevCanon{src: raw}
	p.skipSpace()
	out, err := p.value(dst, 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.src) {
		return nil, errors.New("canonical json: trailing data after value")
	}
	return out, nil
}

type prevCanon struct {
	src     []byte
	i       int
	members []prevMember // a stack shared by the nested objects
}

var errPrevSyntax = errors.New("canonical json: invalid JSON")

func (p *prevCanon) skipSpace() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *prevCanon) value(dst []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, errors.New("canonical json: nesting too deep")
	}
	if p.i >= len(p.src) {
		return nil, errPrevSyntax
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
	return nil, errPrevSyntax
}

func (p *prevCanon) literal(dst []byte, lit string) ([]byte, error) {
	if len(p.src)-p.i < len(lit) || string(p.src[p.i:p.i+len(lit)]) != lit {
		return nil, errPrevSyntax
	}
	p.i += len(lit)
	return append(dst, lit...), nil
}

// number scans a JSON number (RFC 8259 grammar) and writes its JCS form.
func (p *prevCanon) number(dst []byte) ([]byte, error) {
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
		return nil, errPrevSyntax
	}
	if p.i < len(s) && s[p.i] == '.' {
		p.i++
		if p.i >= len(s) || s[p.i] < '0' || s[p.i] > '9' {
			return nil, errPrevSyntax
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
			return nil, errPrevSyntax
		}
		for p.i < len(s) && s[p.i] >= '0' && s[p.i] <= '9' {
			p.i++
		}
	}
	return AppendNumber(dst, string(s[start:p.i]))
}

// scanStr scans a string token starting at its quote: the content is
// src[start:end]; plain means it holds no escape and is valid UTF-8, so the
// content is the value and, quoted, already its JCS form (a plain token has
// no '"', no '\\' and no control character).
func (p *prevCanon) scanStr() (start, end int, plain bool, err error) {
	s := p.src
	p.i++
	start, plain = p.i, true
	for {
		if p.i >= len(s) {
			return 0, 0, false, errPrevSyntax
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
			return 0, 0, false, errPrevSyntax
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
func (p *prevCanon) decodeStr(start, end int) (string, error) {
	var v string
	if err := json.Unmarshal(p.src[start-1:end+1], &v); err != nil {
		return "", fmt.Errorf("canonical json: %w", err)
	}
	return v, nil
}

// str appends the JCS form of the string token at p.i.
func (p *prevCanon) str(dst []byte) ([]byte, error) {
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

func (p *prevCanon) array(dst []byte, depth int) ([]byte, error) {
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
			return nil, errPrevSyntax
		}
		switch p.src[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return append(dst, ']'), nil
		default:
			return nil, errPrevSyntax
		}
	}
}

type prevMember struct {
	ks, ke     int    // a plain key's content in src
	key        string // a non-plain key's value
	plain      bool
	start, end int // `"key":value` in the output, without the separating comma
}

func (p *prevCanon) keyBytes(m *prevMember) []byte {
	if m.plain {
		return p.src[m.ks:m.ke]
	}
	return []byte(m.key)
}

// cmpKeys orders keys by UTF-16 code units (RFC 8785); ASCII keys, the
// common case, compare as bytes.
func (p *prevCanon) cmpKeys(a, b *prevMember) int {
	ka, kb := p.keyBytes(a), p.keyBytes(b)
	if prevIsASCII(ka) && prevIsASCII(kb) {
		return bytes.Compare(ka, kb)
	}
	sa, sb := string(ka), string(kb)
	switch {
	case lessUTF16(sa, sb):
		return -1
	case lessUTF16(sb, sa):
		return 1
	}
	return 0
}

func prevIsASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (p *prevCanon) object(dst []byte, depth int) ([]byte, error) {
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
			return nil, errPrevSyntax
		}
		ks, ke, plain, err := p.scanStr()
		if err != nil {
			return nil, err
		}
		m := prevMember{ks: ks, ke: ke, plain: plain}
		if !plain {
			if m.key, err = p.decodeStr(ks, ke); err != nil {
				return nil, err
			}
		}
		p.skipSpace()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, errPrevSyntax
		}
		p.i++
		p.skipSpace()
		if len(p.members) > base {
			dst = append(dst, ',')
			if ordered && p.cmpKeys(&p.members[len(p.members)-1], &m) >= 0 {
				ordered = false // out of order or a duplicate
			}
		}
		m.start = len(dst)
		if plain {
			dst = append(dst, p.src[ks-1:ke+1]...)
		} else {
			dst = AppendString(dst, m.key)
		}
		dst = append(dst, ':')
		if dst, err = p.value(dst, depth+1); err != nil {
			return nil, err
		}
		m.end = len(dst)
		p.members = append(p.members, m)
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil, errPrevSyntax
		}
		if p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.src[p.i] != '}' {
			return nil, errPrevSyntax
		}
		p.i++
		break
	}
	if ordered {
		return append(dst, '}'), nil
	}
	// Re-order: sort by key (stable, so among duplicates the last stays
	// last) and keep each key's last member, as decoding into a map does.
	members := p.members[base:]
	written := slices.Clone(dst[open:])
	slices.SortStableFunc(members, func(a, b prevMember) int { return p.cmpKeys(&a, &b) })
	dst = append(dst[:open], '{')
	first := true
	for i := range members {
		if i+1 < len(members) && p.cmpKeys(&members[i+1], &members[i]) == 0 {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, written[members[i].start-open:members[i].end-open]...)
	}
	return append(dst, '}'), nil
}
