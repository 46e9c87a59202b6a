package js

import (
	"strings"

	tjs "github.com/tdewolff/parse/v2/js"
)

// Bindings to the navigator object's members. A binding initialized with
// a member path of the navigator global (const mc = navigator.modelContext,
// const {registerTool} = navigator.modelContext, const n = window.navigator)
// stands for that path in the callee of the calls that use it, so
// mc.registerTool(...) is reported as navigator.modelContext.registerTool
// and sw.register("x") after const sw = navigator.serviceWorker as a
// service worker. Uses link to the declaration through the parser's
// scopes, so a same-named binding in another scope is not followed.
//
// The roots are the navigator global alone (window., self. and
// globalThis. prefixes dropped): its members are browser APIs, and other
// globals would rename calls that other analyses already match by their
// local names. A const is always followed. A let or var is followed on
// the terms of consts.go: no other write anywhere in the file (a var only
// when declared at the top of its function), no direct eval or with, and
// not a top-level binding of a script, which other scripts can assign;
// the walk meets writes after the calls it renamed, so those calls keep
// the local name back when a write turns up (settleGlobals); such a call
// is only reported, not read as a service worker registration.

const maxGlobals = 1024

type globalAlias struct {
	path    string
	mutable bool // a let or var: settled at the end of the walk
	isVar   bool
}

// pendingGlobal is a recorded call renamed through a let or var binding.
type pendingGlobal struct {
	call int
	orig string
	v    *tjs.Var
}

// rootVar is the name at the root of a member path.
func rootVar(x tjs.IExpr, depth int) *tjs.Var {
	if depth > 12 {
		return nil
	}
	switch t := x.(type) {
	case *tjs.Var:
		return t
	case *tjs.DotExpr:
		return rootVar(t.X, depth+1)
	case *tjs.IndexExpr:
		return rootVar(t.X, depth+1)
	case *tjs.GroupExpr:
		return rootVar(t.X, depth+1)
	}
	return nil
}

// globalPath renders x's member path with a navigator binding at its
// root replaced by what it stands for; ok only when x is rooted at the
// navigator global. v is the binding replaced, nil when x names the
// global itself.
func (w *walker) globalPath(x tjs.IExpr) (path string, v *tjs.Var, ok bool) {
	r := rootVar(x, 0)
	if r == nil {
		return "", nil, false
	}
	p, al, ok := w.calleePath(x, 0)
	if !ok || al.module != "" {
		return "", nil, false
	}
	rr := root(r)
	if g, found := w.globals[rr]; found {
		name := string(r.Name())
		if !strings.HasPrefix(p, name) {
			return "", nil, false
		}
		return g.path + p[len(name):], rr, true
	}
	if rr.Decl != tjs.NoDecl {
		return "", nil, false
	}
	for _, pre := range []string{"window.", "self.", "globalThis."} {
		p = strings.TrimPrefix(p, pre)
	}
	if p != "navigator" && !strings.HasPrefix(p, "navigator.") {
		return "", nil, false
	}
	return p, nil, true
}

// noteGlobals remembers t's bindings to navigator member paths.
func (w *walker) noteGlobals(t *tjs.VarDecl) {
	for _, b := range t.List {
		if b.Default == nil || len(w.globals) >= maxGlobals {
			continue
		}
		p, _, ok := w.globalPath(b.Default)
		if !ok {
			continue
		}
		if t.TokenType == tjs.VarToken && w.nest != 0 {
			continue // a var in a block or loop may never be assigned
		}
		g := globalAlias{path: p, mutable: t.TokenType != tjs.ConstToken, isVar: t.TokenType == tjs.VarToken}
		switch bt := b.Binding.(type) {
		case *tjs.Var:
			w.addGlobal(bt, g)
		case *tjs.BindingObject:
			for _, it := range bt.List {
				k, ok := propKey(it.Key)
				if !ok || it.Value.Default != nil {
					continue
				}
				if v, ok := it.Value.Binding.(*tjs.Var); ok {
					h := g
					h.path = p + "." + k
					w.addGlobal(v, h)
				}
			}
		}
	}
}

func (w *walker) addGlobal(v *tjs.Var, g globalAlias) {
	r := root(v)
	if w.globals == nil {
		w.globals = map[*tjs.Var]globalAlias{}
	}
	if _, seen := w.globals[r]; seen {
		return // a second declaration is a write
	}
	w.globals[r] = g
}

// globalCallee is the callee path a call through a navigator binding
// stands for; the renamed call is settled later when the binding is a
// let or var (call is its index in JSFacts.Calls once recorded).
func (w *walker) globalCallee(x tjs.IExpr, path string) (string, *tjs.Var, bool) {
	if len(w.globals) == 0 {
		return path, nil, false
	}
	p, v, ok := w.globalPath(x)
	if !ok || v == nil {
		return path, nil, false
	}
	return p, v, true
}

// settleGlobals gives back the local callee name to each call renamed
// through a let or var binding that the file writes again.
func (w *walker) settleGlobals() {
	if len(w.pendingGlobals) == 0 {
		return
	}
	writes := map[*tjs.Var]int{}
	for _, v := range w.written {
		writes[v]++
	}
	script := map[*tjs.Var]bool{}
	if !w.hasESM && !w.hasCJS && w.scope != nil {
		for _, v := range w.scope.Declared {
			script[v] = true
		}
	}
	for _, p := range w.pendingGlobals {
		g := w.globals[p.v]
		allowed := 0
		if g.isVar {
			allowed = 1 // the declaration itself
		}
		if w.dynamicScope || script[p.v] || writes[p.v] > allowed {
			w.f.Calls[p.call].Callee = p.orig
		}
	}
}
