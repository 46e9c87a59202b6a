package js

import (
	tjs "github.com/tdewolff/parse/v2/js"
)

// Members of a const object literal assigned again (handlers.open =
// function () {...} after const handlers = {open() {...}}): the object is
// const, its members are not. A member passed by its path (memberFunc) is
// the function last assigned to it in straight-line top-level code before
// the call that passes it, the literal's when there is none. Where which
// function it holds is not known, the argument stays a name and its
// ports.JSFunction says why (Unknown): assigned in a function or a block,
// assigned something other than a function expression, or assigned again
// later in the file while the call that passes it is in a function, which
// may run after that.

// memberKey is a member of a const object literal: its binding and key.
type memberKey struct {
	v   *tjs.Var
	key string
}

// memberSet is what the assignments to a member seen so far make of it.
type memberSet struct {
	fn     tjs.INode // the function it holds, when known
	key    []byte    // the member's name in the last assignment
	why    string    // why the function it holds is not known, when not
	sticky bool      // why holds for the rest of the file (a function's or a block's assignment)
	n      int       // assignments seen
}

// memberAssign notes t when it assigns a member of a const object literal
// noteConstObject noted.
func (w *walker) memberAssign(t *tjs.BinaryExpr) {
	d, ok := t.X.(*tjs.DotExpr)
	if !ok {
		return
	}
	x, ok := d.X.(*tjs.Var)
	if !ok || w.constObjs[root(x)] == nil {
		return
	}
	name := dotBytes(d.Y)
	if len(name) == 0 {
		return
	}
	k := memberKey{root(x), string(name)}
	if w.memberSets == nil {
		w.memberSets = map[memberKey]*memberSet{}
	}
	s := w.memberSets[k]
	if s == nil {
		s = &memberSet{}
		w.memberSets[k] = s
	}
	s.n++
	fn := unwrapFunc(t.Y)
	switch {
	case s.sticky:
	case len(w.nests) > 0:
		s.fn, s.why, s.sticky = nil, "it is assigned inside a function, which may run before or after the call that passes it", true
	case w.nest != 0:
		s.fn, s.why, s.sticky = nil, "it is assigned in a block (a condition, a loop), which may not run", true
	case fn == nil:
		s.fn, s.why = nil, "it is assigned a value other than a function expression"
	default:
		s.fn, s.key, s.why = fn, name, ""
		w.fnMembers[fn] = [2]int{} // its body's calls, as a literal member's
	}
}

// memberState is what the assignments seen so far make of member d
// (handlers.open): nil when none assigned it.
func (w *walker) memberState(d *tjs.DotExpr) (*memberSet, memberKey) {
	x, ok := d.X.(*tjs.Var)
	if !ok {
		return nil, memberKey{}
	}
	k := memberKey{root(x), string(dotBytes(d.Y))}
	return w.memberSets[k], k
}

// memberUnknown is why the function member x names is not known, or "".
func (w *walker) memberUnknown(x tjs.IExpr) string {
	d, ok := x.(*tjs.DotExpr)
	if !ok || w.memberSets == nil {
		return ""
	}
	if s, _ := w.memberState(d); s != nil && s.fn == nil {
		return s.why
	}
	return ""
}

// reassignedLater is why a function argument passed as a member in a
// function is not known after all: the member was assigned again later in
// the file. "" otherwise.
func (w *walker) reassignedLater(fa fnArg) string {
	if fa.member.v == nil || !fa.deferred {
		return ""
	}
	if s := w.memberSets[fa.member]; s != nil && s.n > fa.seen {
		return "it is assigned again later in the file, and the call that passes it is in a function, which may run after that"
	}
	return ""
}
