package js

import (
	"slices"
	"strings"

	tjs "github.com/tdewolff/parse/v2/js"
)

// A const binding to an object literal (const opts = {webPreferences:
// {...}}) is that literal where a recorded call's argument names it:
// new BrowserWindow(opts) reads as new BrowserWindow({webPreferences:
// {...}}), and so does a property that names one ({webPreferences:
// prefs}). The literal is rendered as if written there, within the same
// bounds (ports.JSLimits.MaxValueDepth, maxObjectProps and its cut mark),
// located at its own tokens in the declaration.
//
// Only a const whose declaration the walk met before the call, in the
// call's scope chain (the parse resolves the name), and only in this
// file. A let or var is not followed: it may be assigned another object.
// A const's object may still be changed in place: an assignment, an
// update or a delete of a member path from the binding (opts.webPreferences
// .nodeIntegration = true), or the binding passed first to
// Object.assign, Object.defineProperty and their kin, anywhere in the file
// (after the call too, since a function may run later), gives every call
// that read it back its rendering without const objects (settleObjects),
// and so does direct eval or with. A function that receives the object and
// changes it is not seen.

// maxObjectReads bounds the const objects one recorded call's arguments
// expand, counting each read: a literal whose properties name other const
// objects, which name others, must not copy without end.
const maxObjectReads = 4

// noteConstLiteral remembers v when init is an object literal of at most
// maxMemberScan properties.
func (w *walker) noteConstLiteral(v *tjs.Var, init tjs.IExpr) {
	obj, ok := init.(*tjs.ObjectExpr)
	if !ok || len(obj.List) > maxMemberScan || len(w.constLits) >= maxConsts {
		return
	}
	if w.constLits == nil {
		w.constLits = map[*tjs.Var]*tjs.ObjectExpr{}
	}
	w.constLits[root(v)] = obj
}

// constLiteral is the object literal x names, when a recorded call's
// arguments are being rendered with const objects and the bound allows
// one more; the read is noted for settleObjects.
func (w *walker) constLiteral(x *tjs.Var) *tjs.ObjectExpr {
	if !w.litsOn || w.noLits || len(w.litReads) >= maxObjectReads {
		return nil
	}
	r := root(x)
	obj := w.constLits[r]
	if obj != nil {
		w.litReads = append(w.litReads, r)
	}
	return obj
}

// pathRoot is the binding a member path starts from (opts in
// opts.webPreferences["x"]), or nil.
func pathRoot(x tjs.IExpr) *tjs.Var {
	for depth := 0; depth < 32; depth++ {
		switch t := x.(type) {
		case *tjs.Var:
			return root(t)
		case *tjs.DotExpr:
			x = t.X
		case *tjs.IndexExpr:
			x = t.X
		case *tjs.GroupExpr:
			x = t.X
		default:
			return nil
		}
	}
	return nil
}

// noteObjectWrite notes a write to a member of a const object literal
// (x is an assignment's, an update's or a delete's operand).
func (w *walker) noteObjectWrite(x tjs.IExpr) {
	if _, ok := x.(*tjs.Var); ok {
		return // the binding itself: a const cannot be assigned
	}
	w.markWritten(x)
}

// markWritten notes that the const object literal a member path x starts
// from (if any) is changed in place.
func (w *walker) markWritten(x tjs.IExpr) {
	if r := pathRoot(x); r != nil && w.constLits[r] != nil {
		if w.litWritten == nil {
			w.litWritten = map[*tjs.Var]bool{}
		}
		w.litWritten[r] = true
	}
}

// mutators are the last names of calls that change their first
// argument's members in place.
var mutators = map[string]bool{
	"assign": true, "defineProperty": true, "defineProperties": true, "setPrototypeOf": true,
	"set": true, "deleteProperty": true, "merge": true, "mergeWith": true, "extend": true,
	"defaults": true, "defaultsDeep": true, "assignIn": true,
}

// noteObjectCall notes a call whose callee's last name is a mutator and
// whose first argument is a member path from a const object literal.
func (w *walker) noteObjectCall(path string, args []tjs.Arg) {
	if len(args) == 0 {
		return
	}
	if mutators[path[strings.LastIndexByte(path, '.')+1:]] {
		w.markWritten(args[0].Value)
	}
}

// settleObjects gives back the rendering without const objects to every
// call that read one the file changes in place.
func (w *walker) settleObjects() {
	for _, p := range w.litProvisional {
		if w.dynamicScope || slices.ContainsFunc(p.reads, func(v *tjs.Var) bool { return w.litWritten[v] }) {
			w.f.Calls[p.call].Args = p.args
		}
	}
}
