package js

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tdewolff/parse/v2"
	tjs "github.com/tdewolff/parse/v2/js"
)

// Module code inside eval strings. webpack's eval devtools (the default in
// development mode) write each table module as
//
//	"./src/a.js"(module, exports, require) { eval("...code...//# sourceURL=...") }
//
// so the module's imports, calls and exports are in a string. The engine
// decodes the literal, parses it as the body of a function with the
// module's own parameters (so require, exports and module bind as they do
// at run time), and walks it as that module. Offsets inside it are mapped
// back to the bytes of the literal in the source. Nothing is executed.

// evalSource is the synthetic source being walked: its buffer, where the
// decoded code starts in it and how decoded offsets map to the file.
type evalSource struct {
	buf        []byte
	head, size int   // the code is buf[head : head+size]
	base       int64 // file offset of the literal's first content byte
	breaks     []evalBreak
}

// evalBreak starts a stretch of decoded code: from dec on, a run of plain
// characters maps one to one onto the literal from src; an escape's decoded
// bytes all map to the escape's backslash at src.
type evalBreak struct {
	dec, src int32
	esc      bool
}

// evalModule walks the code of eval("...") inside module m.
func (w *walker) evalModule(m *modCtx, lit *tjs.LiteralExpr) {
	if w.ev != nil || m.params == nil || len(lit.Data) < 2 || int64(len(lit.Data)) > w.lim.MaxSourceBytes {
		return // no nesting; the size bound is the file's
	}
	start := w.offsetOf(lit.Data)
	if start < 0 {
		return
	}
	var names []string
	for _, p := range m.params.List {
		v, ok := p.Binding.(*tjs.Var)
		if !ok {
			return
		}
		names = append(names, string(v.Data))
	}
	code, breaks := unescapeMapped(lit.Data[1 : len(lit.Data)-1])
	mod := &w.f.Modules[m.idx]
	ev := &evalSource{base: start + 1, breaks: breaks, size: len(code)}
	if ref := sourceMapRef(code); ref != nil && mod.SourceMap == nil {
		ref.Offset = ev.fileOffset(int(ref.Offset))
		mod.SourceMap = ref
	}
	if ref := commentRef(code, "sourceURL="); ref != nil && mod.SourceURL == "" {
		mod.SourceURL = ref.URL
	}
	head := "(function(" + strings.Join(names, ",") + "){\n"
	src := make([]byte, 0, len(head)+len(code)+4) // room for the NUL the parser appends
	src = append(src, head...)
	src = append(src, code...)
	src = append(src, "\n})"...)
	ev.buf, ev.head = src, len(head)
	ast, err := parseGuarded(src)
	if err != nil || len(ast.BlockStmt.List) != 1 {
		w.f.Limitations = appendOnce(w.f.Limitations, "Some bundled modules keep their code in eval strings that did not parse; their facts are missing.")
		return
	}
	es, ok := ast.BlockStmt.List[0].(*tjs.ExprStmt)
	if !ok {
		return
	}
	fn, ok := unwrapFunc(es.Value).(*tjs.FuncDecl)
	if !ok {
		return
	}
	w.setModFunc(fn, m.idx)
	w.ev = ev
	w.walk(fn)
	w.ev = nil
	delete(w.modFuncs, fn)
}

// evalOffset maps a slice of the eval source to its offset in the file.
func (w *walker) evalOffset(b []byte) int64 {
	if w.ev == nil || len(b) == 0 {
		return -1
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(w.ev.buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p-base+uintptr(len(b)) > uintptr(len(w.ev.buf)) {
		return -1
	}
	off := int(p - base)
	if &w.ev.buf[off] != &b[0] || off < w.ev.head || off >= w.ev.head+w.ev.size {
		return -1
	}
	return w.ev.fileOffset(off - w.ev.head)
}

// fileOffset maps an offset in the decoded code to the file.
func (ev *evalSource) fileOffset(dec int) int64 {
	i, found := slices.BinarySearchFunc(ev.breaks, int32(dec), func(b evalBreak, t int32) int { return cmp.Compare(b.dec, t) })
	if !found {
		i--
	}
	for i+1 < len(ev.breaks) && ev.breaks[i+1].dec <= int32(dec) {
		i++ // past escapes that decode to nothing (a line continuation)
	}
	if i < 0 {
		return -1
	}
	b := ev.breaks[i]
	if b.esc {
		return ev.base + int64(b.src)
	}
	return ev.base + int64(b.src) + int64(int32(dec)-b.dec)
}

// unescapeMapped decodes the body of a string literal and gives the
// breaks that map decoded offsets back to offsets in raw (one per run of
// plain characters and one per escape, not one per byte: eval strings of
// tens of MB stay cheap).
func unescapeMapped(raw []byte) ([]byte, []evalBreak) {
	out := make([]byte, 0, len(raw))
	var breaks []evalBreak
	for i := 0; i < len(raw); {
		j := i
		for j < len(raw) && raw[j] != '\\' {
			j++
		}
		if j > i {
			breaks = append(breaks, evalBreak{dec: int32(len(out)), src: int32(i)})
			out = append(out, raw[i:j]...) // invalid UTF-8 stays as is: the parser reports it
			i = j
			continue
		}
		j = escapeEnd(raw, i)
		breaks = append(breaks, evalBreak{dec: int32(len(out)), src: int32(i), esc: true})
		out = append(out, unescape(raw[i:j])...)
		i = j
	}
	return out, breaks
}

// escapeEnd is the end of the escape sequence starting at raw[i] == '\\';
// a surrogate pair written as two \u escapes is one sequence.
func escapeEnd(raw []byte, i int) int {
	if i+1 >= len(raw) {
		return len(raw)
	}
	switch raw[i+1] {
	case 'x':
		return min(len(raw), i+4)
	case 'u':
		if i+2 < len(raw) && raw[i+2] == '{' {
			if end := strings.IndexByte(string(raw[i+2:min(len(raw), i+16)]), '}'); end > 0 {
				return i + 3 + end
			}
			return i + 2
		}
		j := min(len(raw), i+6)
		if j-i == 6 && (raw[i+2] == 'd' || raw[i+2] == 'D') && j+6 <= len(raw) && raw[j] == '\\' && raw[j+1] == 'u' {
			if c := raw[i+3] | 0x20; c >= '8' && c <= 'b' {
				return j + 6 // a high surrogate and, presumably, its low half
			}
		}
		return j
	case '\r':
		if i+2 < len(raw) && raw[i+2] == '\n' {
			return i + 3
		}
	}
	_, n := utf8.DecodeRune(raw[i+1:])
	return i + 1 + n
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// parseGuarded parses src, turning a panic of the parser into an error.
func parseGuarded(src []byte) (ast *tjs.AST, err error) {
	defer func() {
		if r := recover(); r != nil {
			ast, err = nil, fmt.Errorf("parser failure: %v", r)
		}
	}()
	return tjs.Parse(parse.NewInputBytes(src), tjs.Options{})
}
