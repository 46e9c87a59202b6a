package js

import (
	tjs "github.com/tdewolff/parse/v2/js"
)

// A const binding to a string literal (const BASE = "https://api.x") is
// that string wherever the binding is read: a call's argument that names
// it, and each template substitution or concatenated operand that does,
// become the string, located at the literal in the declaration. Only const
// bindings are followed: nothing can assign them another value. A read
// before the declaration (in a function declared above it) is not
// followed, since the walk meets the declaration later.

// maxConsts bounds the bindings remembered per file; reads of the others
// stay names, as they were.
const maxConsts = 4096

type constString struct {
	value  string
	offset int64
}

// noteConst remembers v when init is a string literal (or a template
// without substitutions) within the string bound.
func (w *walker) noteConst(v *tjs.Var, init tjs.IExpr) {
	s, ok := literalString(init)
	if !ok || len(s) > w.lim.MaxStringBytes || len(w.consts) >= maxConsts {
		return
	}
	if w.consts == nil {
		w.consts = map[*tjs.Var]constString{}
	}
	w.consts[root(v)] = constString{s, w.literalOffset(init)}
}

// constOf reports the string a read of a const binding denotes.
func (w *walker) constOf(x tjs.IExpr) (constString, bool) {
	if len(w.consts) == 0 {
		return constString{}, false
	}
	v, ok := x.(*tjs.Var)
	if !ok {
		return constString{}, false
	}
	c, ok := w.consts[root(v)]
	return c, ok
}
