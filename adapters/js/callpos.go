package js

import (
	"bytes"
	"math"
	"unsafe"

	tjs "github.com/tdewolff/parse/v2/js"
)

// Where V8 places a call (JSCall.Position): the position a stack frame of
// the call, a request initiator or a WebMCP registration reports. V8 takes
// the callee's last token when it is a name (fetch in fetch(…), get in
// api.get(…) and api?.get(…)), `new` for a construction, and the
// parenthesis that opens the arguments for any other callee (o["f"](…),
// (0, x.f)(…), f(…)(…), f?.(…), this.#p(…)); a Node stack frame of each
// form shows it.
//
// The parser's AST keeps no positions of its own: only the tokens it holds
// as slices of the source (literals, a member's property name, a
// template's parts) tell where they lie, and a plain name's Var is shared
// by its uses in a scope. So a call is placed from such a token of the
// call itself, and the tokens between it and the position are matched
// against what the AST says stands there (its names, operators and
// punctuation), allowing only white space and block comments between
// them. A call whose tokens cannot be matched so is not placed (-1): a
// plain-name callee with no positioned token in its arguments (r(e)), or a
// line comment between the callee and what places it.

// maxPosDepth bounds the expressions matched for one call.
const maxPosDepth = 24

// posSrc is the buffer a call's tokens alias (the file, or a decoded eval
// module) and a way back to file offsets.
type posSrc struct {
	w   *walker
	buf []byte
	ev  bool
}

// position is where V8 places node, a recorded call or construction, or -1.
func (w *walker) position(node tjs.IExpr) int64 {
	switch t := node.(type) {
	case *tjs.CallExpr:
		return w.callPos(t)
	case *tjs.NewExpr:
		return w.newPos(t)
	}
	return -1
}

// callPos is where V8 places call t, or -1.
func (w *walker) callPos(t *tjs.CallExpr) int64 {
	if !t.Optional {
		switch x := t.X.(type) {
		case *tjs.DotExpr:
			if y, ok := dotLiteral(x.Y); ok {
				return w.offsetOf(y.Data)
			}
		case *tjs.Var:
			s, open := w.argsOpen(t.Args.List)
			if open < 0 {
				return -1
			}
			return s.file(s.back(x, s.skipBack(open), 0))
		}
	}
	s, open := w.argsOpen(t.Args.List)
	if open >= 0 {
		if t.Optional && !s.precededBy(open, "?.") {
			return -1
		}
		return s.file(open)
	}
	// No argument is placed: forward from the callee's end.
	s, end := w.end(t.X, 0)
	if end < 0 {
		return -1
	}
	i := s.skip(end)
	if t.Optional {
		if !bytes.HasPrefix(s.buf[i:], []byte("?.")) {
			return -1
		}
		i = s.skip(i + 2)
	}
	if i < len(s.buf) && s.buf[i] == '(' {
		return s.file(i)
	}
	return -1
}

// newPos is where V8 places construction t, its `new`, or -1.
func (w *walker) newPos(t *tjs.NewExpr) int64 {
	var s posSrc
	start := -1
	if d, ok := t.X.(*tjs.DotExpr); ok {
		if y, ok := dotLiteral(d.Y); ok {
			if s, start = w.local(y.Data); start >= 0 {
				start = s.back(d, start+len(y.Data), 0)
			}
		}
	}
	if start < 0 && t.Args != nil {
		var open int
		if s, open = w.argsOpen(t.Args.List); open >= 0 {
			start = s.back(t.X, s.skipBack(open), 0)
		}
	}
	if start < 0 {
		return -1
	}
	return s.file(s.keyword(start, "new"))
}

// argsOpen is the parenthesis that opens a call's arguments args, found back from the first argument placed by a token of its
// own, over the arguments before it; -1 when none is placed or the source
// between does not read as the AST says.
func (w *walker) argsOpen(args []tjs.Arg) (posSrc, int) {
	for i := range min(len(args), 8) {
		s, start := w.start(args[i].Value, 0)
		if start < 0 {
			continue
		}
		if args[i].Rest {
			start = s.punct(start, "...")
		}
		for j := i - 1; j >= 0 && start >= 0; j-- {
			if start = s.punct(start, ","); start >= 0 {
				start = s.back(args[j].Value, start, 0)
				if start >= 0 && args[j].Rest {
					start = s.punct(start, "...")
				}
			}
		}
		if start < 0 {
			return s, -1
		}
		if open := s.punct(start, "("); open >= 0 {
			return s, open
		}
		return s, -1
	}
	return posSrc{}, -1
}

// start is where x begins when a token of x's own places it, or -1.
func (w *walker) start(x tjs.IExpr, depth int) (posSrc, int) {
	if depth > maxPosDepth {
		return posSrc{}, -1
	}
	switch t := x.(type) {
	case *tjs.LiteralExpr:
		return w.local(t.Data)
	case *tjs.TemplateExpr:
		if t.Tag != nil {
			if s, i := w.start(t.Tag, depth+1); i >= 0 {
				return s, i
			}
		}
		s, i := w.templateStart(t)
		if i >= 0 && t.Tag != nil {
			return s, s.back(t.Tag, i, depth+1)
		}
		return s, i
	case *tjs.DotExpr:
		if s, i := w.start(t.X, depth+1); i >= 0 {
			return s, i
		}
		if y, ok := dotLiteral(t.Y); ok {
			if s, i := w.local(y.Data); i >= 0 {
				return s, s.back(t, i+len(y.Data), depth+1)
			}
		}
	case *tjs.IndexExpr:
		if s, i := w.start(t.X, depth+1); i >= 0 {
			return s, i
		}
		if s, i := w.start(t.Y, depth+1); i >= 0 {
			if t.Optional {
				i = s.punct(i, "?.[")
			} else {
				i = s.punct(i, "[")
			}
			if i >= 0 {
				return s, s.back(t.X, i, depth+1)
			}
		}
	case *tjs.CallExpr:
		if s, i := w.start(t.X, depth+1); i >= 0 {
			return s, i
		}
		if s, open := w.argsOpen(t.Args.List); open >= 0 {
			if t.Optional {
				open = s.punct(open, "?.")
			}
			if open >= 0 {
				return s, s.back(t.X, open, depth+1)
			}
		}
	case *tjs.BinaryExpr:
		if s, i := w.start(t.X, depth+1); i >= 0 {
			return s, i
		}
		if s, i := w.start(t.Y, depth+1); i >= 0 {
			if i = s.op(i, t.Op); i >= 0 {
				return s, s.back(t.X, i, depth+1)
			}
		}
	case *tjs.CondExpr:
		return w.start(t.Cond, depth+1)
	case *tjs.CommaExpr:
		if len(t.List) > 0 {
			return w.start(t.List[0], depth+1)
		}
	case *tjs.GroupExpr:
		if s, i := w.start(t.X, depth+1); i >= 0 {
			return s, s.punct(i, "(")
		}
	case *tjs.UnaryExpr:
		if s, i := w.start(t.X, depth+1); i >= 0 {
			if t.Op == tjs.PostIncrToken || t.Op == tjs.PostDecrToken {
				return s, i
			}
			return s, s.op(i, t.Op)
		}
	case *tjs.ObjectExpr:
		if len(t.List) > 0 && t.List[0].Name != nil && !t.List[0].Spread && !t.List[0].Name.IsComputed() {
			if s, i := w.local(t.List[0].Name.Literal.Data); i >= 0 {
				return s, s.punct(i, "{")
			}
		}
	case *tjs.ArrayExpr:
		if len(t.List) > 0 && t.List[0].Value != nil {
			if s, i := w.start(t.List[0].Value, depth+1); i >= 0 {
				if t.List[0].Spread {
					i = s.punct(i, "...")
				}
				return s, s.punct(i, "[")
			}
		}
	case *tjs.NewExpr:
		if p := w.newPos(t); p >= 0 {
			// newPos answers in file offsets; only the file's own code
			// is placed this way.
			if s, ok := w.fileSrc(); ok {
				return s, int(p)
			}
		}
	}
	return posSrc{}, -1
}

// end is where x ends (exclusive) when a token of x's own places it, or -1.
func (w *walker) end(x tjs.IExpr, depth int) (posSrc, int) {
	if depth > maxPosDepth {
		return posSrc{}, -1
	}
	switch t := x.(type) {
	case *tjs.LiteralExpr:
		if s, i := w.local(t.Data); i >= 0 {
			return s, i + len(t.Data)
		}
	case *tjs.DotExpr:
		if y, ok := dotLiteral(t.Y); ok {
			if s, i := w.local(y.Data); i >= 0 {
				return s, i + len(y.Data)
			}
		}
	case *tjs.IndexExpr:
		if s, i := w.end(t.Y, depth+1); i >= 0 {
			return s, s.expect(i, "]")
		}
	case *tjs.GroupExpr:
		if s, i := w.end(t.X, depth+1); i >= 0 {
			return s, s.expect(i, ")")
		}
	case *tjs.CommaExpr:
		if len(t.List) > 0 {
			return w.end(t.List[len(t.List)-1], depth+1)
		}
	}
	return posSrc{}, -1
}

// templateStart is the backtick that opens template t.
func (w *walker) templateStart(t *tjs.TemplateExpr) (posSrc, int) {
	if len(t.List) > 0 {
		return w.local(t.List[0].Value)
	}
	return w.local(t.Tail)
}

// back is where x begins when x ends at end (white space before end
// allowed), matching x's tokens against the source, or -1.
func (s posSrc) back(x tjs.IExpr, end, depth int) int {
	if end < 0 || depth > maxPosDepth || s.buf == nil {
		return -1
	}
	raw := end
	end = s.skipBack(end)
	switch t := x.(type) {
	case *tjs.Var:
		return s.word(end, t.Data)
	case *tjs.LiteralExpr:
		if i := s.at(t.Data); i >= 0 {
			// Forward from the token, which is sure, not back over a
			// regular expression that ends in "*/".
			if s.skip(i+len(t.Data)) == raw {
				return i
			}
			return -1
		}
		if t.TokenType == tjs.ThisToken || t.TokenType == tjs.SuperToken || t.TokenType == tjs.NullToken ||
			t.TokenType == tjs.TrueToken || t.TokenType == tjs.FalseToken {
			return s.word(end, t.Data)
		}
	case *tjs.DotExpr:
		y, ok := dotLiteral(t.Y)
		if !ok {
			return -1
		}
		i := s.word(end, y.Data)
		if t.Optional {
			i = s.punct(i, "?.")
		} else {
			i = s.punct(i, ".")
		}
		return s.back(t.X, i, depth+1)
	case *tjs.IndexExpr:
		i := s.punct(end, "]")
		i = s.back(t.Y, i, depth+1)
		if t.Optional {
			i = s.punct(i, "?.[")
		} else {
			i = s.punct(i, "[")
		}
		return s.back(t.X, i, depth+1)
	case *tjs.GroupExpr:
		return s.punct(s.back(t.X, s.punct(end, ")"), depth+1), "(")
	case *tjs.CommaExpr:
		i := end
		for k := len(t.List) - 1; k >= 0 && i >= 0; k-- {
			if k < len(t.List)-1 {
				i = s.punct(i, ",")
			}
			i = s.back(t.List[k], i, depth+1)
		}
		return i
	case *tjs.CallExpr:
		i := s.punct(end, ")")
		for k := len(t.Args.List) - 1; k >= 0 && i >= 0; k-- {
			if k < len(t.Args.List)-1 {
				i = s.punct(i, ",")
			} else if j := s.punct(i, ","); j >= 0 {
				i = j // a trailing comma
			}
			if i = s.back(t.Args.List[k].Value, i, depth+1); t.Args.List[k].Rest {
				i = s.punct(i, "...")
			}
		}
		i = s.punct(i, "(")
		if t.Optional {
			i = s.punct(i, "?.")
		}
		return s.back(t.X, i, depth+1)
	case *tjs.BinaryExpr:
		return s.back(t.X, s.op(s.back(t.Y, end, depth+1), t.Op), depth+1)
	case *tjs.UnaryExpr:
		if t.Op == tjs.PostIncrToken || t.Op == tjs.PostDecrToken {
			return s.back(t.X, s.op(end, t.Op), depth+1)
		}
		return s.op(s.back(t.X, end, depth+1), t.Op)
	case *tjs.TemplateExpr:
		if i := s.at(t.Tail); i >= 0 && i+len(t.Tail) == end {
			_, st := s.w.templateStart(t)
			if st >= 0 && t.Tag != nil {
				return s.back(t.Tag, st, depth+1)
			}
			return st
		}
	}
	return -1
}

// local is where b, a token the parser holds, lies in the buffer it
// aliases (the file or a decoded eval module), or -1.
func (w *walker) local(b []byte) (posSrc, int) {
	if len(b) == 0 {
		return posSrc{}, -1
	}
	if i := within(w.buf, b); i >= 0 {
		return posSrc{w: w, buf: w.buf}, i
	}
	if w.ev != nil {
		if i := within(w.ev.buf, b); i >= w.ev.head && i < w.ev.head+w.ev.size {
			return posSrc{w: w, buf: w.ev.buf, ev: true}, i
		}
	}
	return posSrc{}, -1
}

// fileSrc is the file's own buffer, unless an eval module is being walked.
func (w *walker) fileSrc() (posSrc, bool) {
	return posSrc{w: w, buf: w.buf}, w.ev == nil
}

// within is b's offset in buf when b is a slice of it, else -1.
func within(buf, b []byte) int {
	if len(buf) == 0 || len(b) == 0 {
		return -1
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p-base+uintptr(len(b)) > uintptr(len(buf)) {
		return -1
	}
	off := int(p - base)
	if &buf[off] != &b[0] {
		return -1
	}
	return off
}

// at is b's offset in s's buffer, or -1.
func (s posSrc) at(b []byte) int {
	return within(s.buf, b)
}

// file is a local offset as a file offset, or -1.
func (s posSrc) file(i int) int64 {
	if i < 0 || s.buf == nil {
		return -1
	}
	if s.ev {
		return s.w.ev.fileOffset(i - s.w.ev.head)
	}
	if i > math.MaxInt32 {
		return -1
	}
	return int64(i)
}

// skipBack is the offset just after the last byte before i that is not
// white space or in a block comment.
func (s posSrc) skipBack(i int) int {
	for i > 0 {
		switch c := s.buf[i-1]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			i--
		case c == '/' && i >= 2 && s.buf[i-2] == '*':
			j := bytes.LastIndex(s.buf[:i-2], []byte("/*"))
			if j < 0 {
				return i
			}
			i = j
		default:
			return i
		}
	}
	return i
}

// skip is the offset of the first byte from i that is not white space or
// in a comment.
func (s posSrc) skip(i int) int {
	for i < len(s.buf) {
		switch c := s.buf[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			i++
		case c == '/' && i+1 < len(s.buf) && s.buf[i+1] == '*':
			j := bytes.Index(s.buf[i+2:], []byte("*/"))
			if j < 0 {
				return len(s.buf)
			}
			i += j + 4
		case c == '/' && i+1 < len(s.buf) && s.buf[i+1] == '/':
			j := bytes.IndexByte(s.buf[i:], '\n')
			if j < 0 {
				return len(s.buf)
			}
			i += j
		default:
			return i
		}
	}
	return i
}

// punct is where p starts when it ends, white space aside, at end; -1
// otherwise.
func (s posSrc) punct(end int, p string) int {
	if end < 0 {
		return -1
	}
	end = s.skipBack(end)
	if end < len(p) || string(s.buf[end-len(p):end]) != p {
		return -1
	}
	return end - len(p)
}

// op is where operator tt's spelling starts when it ends at end, or -1.
func (s posSrc) op(end int, tt tjs.TokenType) int {
	b := tt.Bytes()
	if len(b) == 0 {
		return -1
	}
	if isWord(b) {
		return s.keyword(end, string(b))
	}
	return s.punct(end, string(b))
}

// keyword is where word kw starts when it ends, white space aside, at end.
func (s posSrc) keyword(end int, kw string) int {
	if end < 0 {
		return -1
	}
	return s.word(s.skipBack(end), []byte(kw))
}

// word is where name starts when it ends exactly at end and is not part
// of a longer name, or -1.
func (s posSrc) word(end int, name []byte) int {
	if end < len(name) || end > len(s.buf) || len(name) == 0 || !bytes.Equal(s.buf[end-len(name):end], name) {
		return -1
	}
	i := end - len(name)
	if i > 0 && identByte(s.buf[i-1]) {
		return -1
	}
	return i
}

// expect is the offset after p when p follows i, white space aside, or -1.
func (s posSrc) expect(i int, p string) int {
	i = s.skip(i)
	if !bytes.HasPrefix(s.buf[i:], []byte(p)) {
		return -1
	}
	return i + len(p)
}

// precededBy reports whether p ends, white space aside, at i.
func (s posSrc) precededBy(i int, p string) bool {
	return s.punct(i, p) >= 0
}

// dotLiteral is a member's property name when it is a plain name (not a
// private #name, which the parser keeps as a Var).
func dotLiteral(y tjs.IExpr) (tjs.LiteralExpr, bool) {
	switch t := y.(type) {
	case tjs.LiteralExpr:
		return t, true
	case *tjs.LiteralExpr:
		return *t, true
	}
	return tjs.LiteralExpr{}, false
}

// isWord reports whether b is spelled as a name (typeof, in, instanceof).
func isWord(b []byte) bool {
	for _, c := range b {
		if !identByte(c) {
			return false
		}
	}
	return true
}

// identByte is a byte of a JavaScript name (any non-ASCII byte counts).
func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
