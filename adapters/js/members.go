package js

import (
	"strings"

	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// noteMemberFuncs notes the functions written as members of the object
// a preload exposes (contextBridge.exposeInMainWorld("notes", {open: (p)
// => ipcRenderer.invoke("notes:open", p)})), by their keys
// (ports.JSFunction.Prop): a caller can tell which member makes the
// calls the object holds. Only that call's: other object arguments'
// members are not wanted, and a bundle holds many.
//
// A const bound to an object literal before the call (const api = {...};
// exposeInMainWorld("api", api)) is that literal, as where its argument
// is rendered (constobjs.go): its function members were walked with the
// declaration (noteConstObject), so their bodies are known now. The
// members are dropped at the end if the call's argument is given back
// as a name (the file changes the object in place: settleObjects).
func (w *walker) noteMemberFuncs(args []tjs.Arg) {
	n := len(w.f.Calls) - 1
	c := &w.f.Calls[n]
	last := c.Callee[strings.LastIndexByte(c.Callee, '.')+1:]
	if last != "exposeInMainWorld" || len(args) < 2 {
		return
	}
	obj, ok := args[1].Value.(*tjs.ObjectExpr)
	lit := false
	if !ok {
		if obj = w.exposedLiteral(args[1].Value, c); obj == nil {
			return
		}
		lit = true
	}
	for _, p := range obj.List {
		if p.Spread {
			continue
		}
		name := p.Name
		if m, ok := p.Value.(*tjs.MethodDecl); ok && name == nil && m.Name.Private == nil {
			name = &m.Name.PropertyName
		}
		key, ok := propKey(name)
		if !ok {
			continue
		}
		if v, ok := p.Value.(*tjs.Var); ok && p.Init == nil {
			w.noteMemberByName(n, key, v)
			w.fnPending[len(w.fnPending)-1].lit = lit
			continue
		}
		var fn tjs.INode
		if m, ok := p.Value.(*tjs.MethodDecl); ok {
			if m.Get || m.Set {
				continue
			}
			fn = m
		} else if fn = unwrapFunc(p.Value); fn == nil {
			continue
		}
		fa := fnArg{call: n, arg: 1, node: fn, prop: key, lit: lit}
		if lit {
			// walked with the declaration; still open when the call is
			// in the member itself, and exitFunc gives the span then
			fa.span = w.fnMembers[fn]
		}
		if w.fnArgs == nil {
			w.fnArgs = map[tjs.INode][]int{}
		}
		w.fnArgs[fn] = append(w.fnArgs[fn], len(w.fnPending))
		w.fnPending = append(w.fnPending, fa)
	}
}

// exposedLiteral is the const object literal x names when call c's
// object argument was rendered as it (constLiteral: a const, not a let or
// var, declared before the call in its scope chain, within the bound of
// reads), else nil.
func (w *walker) exposedLiteral(x tjs.IExpr, c *ports.JSCall) *tjs.ObjectExpr {
	v, ok := x.(*tjs.Var)
	if !ok || len(c.Args) < 2 || c.Args[1].Kind != ports.JSValObject {
		return nil
	}
	return w.constLits[root(v)]
}

// noteMemberByName notes a member the exposed object passes by name
// ({open}, {open: open}): a function the file declares (function open,
// const open = an arrow), whose body the walk knows by the end
// (ports.JSFunction First and End), or a binding imported from a relative
// module (Module and Member, no body: the other file's export says).
func (w *walker) noteMemberByName(n int, key string, v *tjs.Var) {
	if al, ok := w.calleeAlias(v); ok && al.member != "" && (strings.HasPrefix(al.module, "./") || strings.HasPrefix(al.module, "../")) {
		w.fnPending = append(w.fnPending, fnArg{call: n, arg: 1, imp: al, prop: key})
		return
	}
	w.fnPending = append(w.fnPending, fnArg{call: n, arg: 1, v: root(v), prop: key})
}
