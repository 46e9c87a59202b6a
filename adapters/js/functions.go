package js

import (
	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// The bodies of the functions passed as arguments of recorded calls
// (ports.JSFunction): an IPC handler's, so that a caller can tell the calls
// a handler makes from the other calls of its file. The parse keeps no
// positions of its own, but the walk enters a function's body after the
// call that takes it and records the calls inside before it leaves: the
// calls recorded between the two are the body's.

// fnArg is a function argument of a recorded call, known by its node
// (written in the call) or by the binding of the declaration it names.
type fnArg struct {
	call, arg int
	node      tjs.INode
	v         *tjs.Var
	span      [2]int // the recorded calls its body holds, [first, end)
}

// fnOpen is a function the walk is inside, and the calls recorded before it.
type fnOpen struct {
	node  tjs.INode
	first int
}

// noteFuncArgs notes the function arguments of the call just recorded.
func (w *walker) noteFuncArgs(args []tjs.Arg) {
	n := len(w.f.Calls) - 1
	c := &w.f.Calls[n]
	for i, a := range args {
		if i >= len(c.Args) {
			break
		}
		if c.Args[i].Kind != ports.JSValFunction {
			continue
		}
		x := a.Value
		for d := 0; d < 8; d++ {
			g, ok := x.(*tjs.GroupExpr)
			if !ok {
				break
			}
			x = g.X
		}
		fa := fnArg{call: n, arg: i}
		switch t := x.(type) {
		case *tjs.FuncDecl, *tjs.ArrowFunc, *tjs.MethodDecl:
			fa.node = t
			if w.fnArgs == nil {
				w.fnArgs = map[tjs.INode][]int{}
			}
			w.fnArgs[t] = append(w.fnArgs[t], len(w.fnPending))
		case *tjs.Var:
			fa.v = root(t)
		default:
			continue
		}
		w.fnPending = append(w.fnPending, fa)
	}
}

// enterFunc opens function n when its body is wanted: a function argument,
// or a declaration a call may name (before or after it).
func (w *walker) enterFunc(n tjs.INode) {
	if d, ok := n.(*tjs.FuncDecl); ok && d.Name != nil && root(d.Name).Decl == tjs.FunctionDecl {
		w.fnOpen = append(w.fnOpen, fnOpen{n, len(w.f.Calls)})
		return
	}
	if _, ok := w.fnArgs[n]; ok {
		w.fnOpen = append(w.fnOpen, fnOpen{n, len(w.f.Calls)})
	}
}

// exitFunc closes function n, noting the calls recorded inside it.
func (w *walker) exitFunc(n tjs.INode) {
	k := len(w.fnOpen) - 1
	if k < 0 || w.fnOpen[k].node != n {
		return
	}
	span := [2]int{w.fnOpen[k].first, len(w.f.Calls)}
	w.fnOpen = w.fnOpen[:k]
	if span[1] <= span[0] {
		return
	}
	for _, i := range w.fnArgs[n] {
		w.fnPending[i].span = span
	}
	if d, ok := n.(*tjs.FuncDecl); ok && d.Name != nil && root(d.Name).Decl == tjs.FunctionDecl {
		if w.fnDecls == nil {
			w.fnDecls = map[*tjs.Var][2]int{}
		}
		w.fnDecls[root(d.Name)] = span // the last declaration is the binding's
	}
}

// resolveFunctions gives the bodies of the function arguments
// (ports.JSFacts.Functions), a declaration's once the walk has seen it.
func (w *walker) resolveFunctions() {
	for _, fa := range w.fnPending {
		span := fa.span
		if fa.v != nil {
			span = w.fnDecls[fa.v]
		}
		if span[1] > span[0] {
			w.f.Functions = append(w.f.Functions, ports.JSFunction{Call: fa.call, Arg: fa.arg, First: span[0], End: span[1]})
		}
	}
	w.fnPending, w.fnArgs, w.fnDecls, w.fnOpen = nil, nil, nil, nil
}
