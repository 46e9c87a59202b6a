package js

import (
	"slices"

	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// A binding to a string literal (const BASE = "https://api.x") is that
// string wherever the binding is read: a call's argument that names it,
// and each template substitution or concatenated operand that does,
// become the string, located at the literal in the declaration. A read
// before the declaration (in a function declared above it) is not
// followed, since the walk meets the declaration later.
//
// Nothing can assign a const another value. Minifiers emit var and let
// (var e="https://api.x"), which are followed too when they are provably
// one value: the only declaration of the binding, at the top of its
// function (a var in a block or a loop may never run, and then reads
// undefined), and no other write anywhere in the file. A write may come
// after the read in the walk, so a call that read such a binding keeps
// the rendering without it, and settleBindings picks one at the end of
// the walk. Direct eval and with can write a binding by a name the walk
// does not see, and a top-level var or let of a script is a global other
// scripts can assign: those are not followed. A hoisted function called
// before the var's declaration runs would read undefined; like a read of
// a const in its temporal dead zone, that is not told apart.

// maxConsts bounds the bindings remembered per file; reads of the others
// stay names, as they were.
const maxConsts = 4096

type constString struct {
	value   string
	offset  int64
	mutable bool // a var or let binding: settled at the end of the walk
}

// provisionalCall is a recorded call whose arguments read var or let
// bindings, with the arguments as rendered without them.
type provisionalCall struct {
	call  int
	reads []*tjs.Var
	args  []ports.JSValue
}

// noteConst remembers v when init is a string literal (or a template
// without substitutions) within the string bound; a var or let binding
// only when it is the first declaration of a variable, so that a second
// one counts as a write.
func (w *walker) noteConst(v *tjs.Var, init tjs.IExpr, mutable bool) bool {
	s, ok := literalString(init)
	if !ok || len(s) > w.lim.MaxStringBytes || len(w.consts) >= maxConsts {
		return false
	}
	r := root(v)
	if mutable {
		if r.Decl != tjs.VariableDecl && r.Decl != tjs.LexicalDecl {
			return false // a var naming a parameter or a function binds that
		}
		if _, seen := w.consts[r]; seen {
			return false
		}
	}
	if w.consts == nil {
		w.consts = map[*tjs.Var]constString{}
	}
	w.consts[r] = constString{s, w.literalOffset(init), mutable}
	return true
}

// noteBindings remembers t's var or let bindings to strings, and records
// every other var it declares as a write.
func (w *walker) noteBindings(t *tjs.VarDecl) {
	for _, b := range t.List {
		if v, ok := b.Binding.(*tjs.Var); ok && b.Default != nil && (t.TokenType == tjs.LetToken || w.nest == 0) && w.noteConst(v, b.Default, true) {
			continue
		}
		if t.TokenType == tjs.VarToken {
			w.noteBindingWrite(b.Binding, 0)
		}
	}
}

// noteBindingWrite records the variables a binding pattern declares.
func (w *walker) noteBindingWrite(b tjs.IBinding, depth int) {
	if depth > 16 {
		return
	}
	switch t := b.(type) {
	case *tjs.Var:
		w.noteWrite(t, 0)
	case *tjs.BindingArray:
		for _, e := range t.List {
			w.noteBindingWrite(e.Binding, depth+1)
		}
		w.noteBindingWrite(t.Rest, depth+1)
	case *tjs.BindingObject:
		for _, e := range t.List {
			w.noteBindingWrite(e.Value.Binding, depth+1)
		}
		if t.Rest != nil {
			w.noteWrite(t.Rest, 0)
		}
	}
}

// noteWrite records the variables an assignment's target writes: a name,
// or the names of a destructuring pattern ([a, {b: c}] = x).
func (w *walker) noteWrite(x tjs.IExpr, depth int) {
	if depth > 16 {
		return
	}
	switch t := x.(type) {
	case *tjs.Var:
		// Only declared var and let bindings can be followed; the others
		// need no record.
		if r := root(t); r.Decl == tjs.VariableDecl || r.Decl == tjs.LexicalDecl {
			w.written = append(w.written, r)
		}
	case *tjs.ArrayExpr:
		for _, e := range t.List {
			w.noteWrite(e.Value, depth+1)
		}
	case *tjs.ObjectExpr:
		for _, p := range t.List {
			w.noteWrite(p.Value, depth+1)
		}
	case *tjs.BinaryExpr:
		if t.Op == tjs.EqToken { // a default in a pattern: [a = 1] = x
			w.noteWrite(t.X, depth+1)
		}
	case *tjs.GroupExpr:
		w.noteWrite(t.X, depth+1)
	}
}

// isAssignOp reports the operators that write their left operand.
func isAssignOp(op tjs.TokenType) bool {
	switch op {
	case tjs.EqToken, tjs.AddEqToken, tjs.SubEqToken, tjs.MulEqToken, tjs.ExpEqToken, tjs.DivEqToken, tjs.ModEqToken,
		tjs.LtLtEqToken, tjs.GtGtEqToken, tjs.GtGtGtEqToken, tjs.BitAndEqToken, tjs.BitOrEqToken, tjs.BitXorEqToken,
		tjs.AndEqToken, tjs.OrEqToken, tjs.NullishEqToken:
		return true
	}
	return false
}

// constOf reports the string a read of a binding denotes, noting the var
// and let bindings read.
func (w *walker) constOf(x tjs.IExpr) (constString, bool) {
	if len(w.consts) == 0 {
		return constString{}, false
	}
	v, ok := x.(*tjs.Var)
	if !ok {
		return constString{}, false
	}
	r := root(v)
	c, ok := w.consts[r]
	if ok && c.mutable {
		if w.noMutable {
			return constString{}, false
		}
		w.readMutable = append(w.readMutable, r)
	}
	return c, ok
}

// settleBindings gives back the rendering without var and let bindings
// to every call that read one the file writes elsewhere.
func (w *walker) settleBindings() {
	if len(w.provisional) == 0 {
		return
	}
	written := map[*tjs.Var]bool{}
	for _, p := range w.provisional {
		for _, v := range p.reads {
			written[v] = w.dynamicScope
		}
	}
	for _, v := range w.written {
		if _, read := written[v]; read {
			written[v] = true
		}
	}
	if !w.hasESM && !w.hasCJS && w.scope != nil {
		for _, v := range w.scope.Declared {
			if _, read := written[v]; read {
				written[v] = true
			}
		}
	}
	for _, p := range w.provisional {
		if slices.ContainsFunc(p.reads, func(v *tjs.Var) bool { return written[v] }) {
			w.f.Calls[p.call].Args = p.args
		}
	}
}
