package js

import (
	"bytes"
	"strings"

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
	imp       alias  // a binding imported from another file: no body
	prop      string // the key of the object argument's member it is (noteMemberFuncs)
	lit       bool   // of a const object literal the argument names: kept while rendered as it
	why       string // why the function it names is not known (reassign.go)
	// a const object's member passed by its path (reassign.go): which,
	// the assignments to it seen then, and whether the call is in a function
	member   memberKey
	seen     int
	deferred bool
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
		if c.Args[i].Kind == ports.JSValName {
			if why := w.memberUnknown(a.Value); why != "" {
				w.fnPending = append(w.fnPending, fnArg{call: n, arg: i, why: why})
				continue
			}
			w.noteImportedArg(n, i, a.Value)
			continue
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
		case *tjs.DotExpr:
			fn, _, _ := w.memberFunc(t)
			if fn == nil {
				continue
			}
			// Walked before the call, as a const is declared before its
			// use; still open when the call is in the member itself.
			fa.node, fa.span = fn, w.fnMembers[fn]
			if ms, k := w.memberState(t); len(w.nests) > 0 {
				fa.member, fa.deferred = k, true
				if ms != nil {
					fa.seen = ms.n
				}
			}
			if w.fnArgs == nil {
				w.fnArgs = map[tjs.INode][]int{}
			}
			w.fnArgs[fn] = append(w.fnArgs[fn], len(w.fnPending))
		default:
			continue
		}
		w.fnPending = append(w.fnPending, fa)
	}
}

// noteImportedArg notes argument i of call n when it names a binding
// imported from a relative module (ports.JSFunction.Module).
func (w *walker) noteImportedArg(n, i int, x tjs.IExpr) {
	al, ok := w.calleeAlias(x)
	if !ok || al.member == "" || !(strings.HasPrefix(al.module, "./") || strings.HasPrefix(al.module, "../")) {
		return
	}
	w.fnPending = append(w.fnPending, fnArg{call: n, arg: i, imp: al})
}

// enterFunc opens function n when its body is wanted: a function argument,
// or a declaration a call may name (before or after it), whose name is
// then placed at its declaration.
func (w *walker) enterFunc(n tjs.INode) {
	if d, ok := n.(*tjs.FuncDecl); ok && d.Name != nil && root(d.Name).Decl == tjs.FunctionDecl {
		w.fnOpen = append(w.fnOpen, fnOpen{n, len(w.f.Calls)})
		if at := w.declName(root(d.Name)); at >= 0 {
			if w.fnDeclAt == nil {
				w.fnDeclAt = map[*tjs.Var]int64{}
			}
			w.fnDeclAt[root(d.Name)] = at
		}
		return
	}
	if _, ok := w.fnArgs[n]; ok {
		w.fnOpen = append(w.fnOpen, fnOpen{n, len(w.f.Calls)})
	} else if _, ok := w.fnNamed[n]; ok {
		w.fnOpen = append(w.fnOpen, fnOpen{n, len(w.f.Calls)})
	} else if _, ok := w.fnExports[n]; ok {
		w.fnOpen = append(w.fnOpen, fnOpen{n, len(w.f.Calls)})
	} else if _, ok := w.fnMembers[n]; ok {
		w.fnOpen = append(w.fnOpen, fnOpen{n, len(w.f.Calls)})
	}
}

// noteExportedFunc notes a function expression the file exports
// (exports.open = async (e, u) => ..., module.exports = {a() {}},
// export default function () {}): its body is wanted, as an imported
// handler's (ports.JSExport First and End). The export is recorded before
// the walk enters its value.
func (w *walker) noteExportedFunc(value tjs.INode) {
	var fn tjs.INode
	switch t := value.(type) {
	case *tjs.FuncDecl, *tjs.ArrowFunc:
		fn = t
	case *tjs.MethodDecl:
		if t.Get || t.Set {
			return
		}
		fn = t
	case *tjs.GroupExpr:
		if fn = unwrapFunc(t.X); fn == nil {
			return
		}
	default:
		return
	}
	if w.fnExports == nil {
		w.fnExports = map[tjs.INode][2]int{}
	}
	w.fnExports[fn] = [2]int{}
}

// exportedBody is the body of the function an export's value node gives:
// a function expression the file exports (noteExportedFunc), or a name
// bound to a declared function or a const function expression, through
// aliases (const a = b). Zeros when there is none.
func (w *walker) exportedBody(n tjs.INode) (first, end int) {
	for hop := 0; hop < maxShapeHops && n != nil; hop++ {
		if span, ok := w.fnExports[n]; ok {
			return span[0], span[1]
		}
		switch t := n.(type) {
		case *tjs.GroupExpr:
			n = t.X
			continue
		case *tjs.FuncDecl:
			if t.Name != nil && root(t.Name).Decl == tjs.FunctionDecl {
				span := w.fnDecls[root(t.Name)]
				return span[0], span[1]
			}
		case *tjs.Var:
			if span, ok := w.fnDecls[root(t)]; ok {
				return span[0], span[1]
			}
			if d, ok := w.decls[root(t)]; ok {
				n = d
				continue
			}
		}
		return 0, 0
	}
	return 0, 0
}

// noteConstFunc notes const v = a function expression (an arrow, a
// function): passed by name, v is that function (value). A const is
// never assigned again; a var or let may be, and stays a name.
func (w *walker) noteConstFunc(v *tjs.Var, init tjs.IExpr) {
	fn := unwrapFunc(init)
	if fn == nil {
		return
	}
	if w.constFns == nil {
		w.constFns, w.fnNamed = map[*tjs.Var]tjs.INode{}, map[tjs.INode]*tjs.Var{}
	}
	w.constFns[root(v)], w.fnNamed[fn] = fn, root(v)
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
	if _, ok := w.fnExports[n]; ok {
		w.fnExports[n] = span
	}
	if _, ok := w.fnMembers[n]; ok {
		w.fnMembers[n] = span
	}
	var v *tjs.Var
	if d, ok := n.(*tjs.FuncDecl); ok && d.Name != nil && root(d.Name).Decl == tjs.FunctionDecl {
		v = root(d.Name)
	} else if cv, ok := w.fnNamed[n]; ok {
		v = cv
	}
	if v != nil {
		if w.fnDecls == nil {
			w.fnDecls = map[*tjs.Var][2]int{}
		}
		w.fnDecls[v] = span // the last declaration is the binding's
	}
}

// resolveFunctions gives the bodies of the function arguments
// (ports.JSFacts.Functions), a declaration's once the walk has seen it.
func (w *walker) resolveFunctions() {
	for _, fa := range w.fnPending {
		if fa.lit && w.f.Calls[fa.call].Args[fa.arg].Kind != ports.JSValObject {
			continue // given back as a name (settleObjects): not that literal
		}
		if why := w.reassignedLater(fa); why != "" {
			a := &w.f.Calls[fa.call].Args[fa.arg]
			a.Kind, a.Offset = ports.JSValName, -1 // Value keeps the member's path
			fa = fnArg{call: fa.call, arg: fa.arg, why: why}
		}
		if fa.why != "" {
			w.f.Functions = append(w.f.Functions, ports.JSFunction{Call: fa.call, Arg: fa.arg, Unknown: fa.why})
			continue
		}
		if fa.imp.module != "" {
			w.f.Functions = append(w.f.Functions, ports.JSFunction{Call: fa.call, Arg: fa.arg, Module: fa.imp.module, Member: fa.imp.member, Prop: fa.prop})
			continue
		}
		span := fa.span
		if fa.v != nil {
			span = w.fnDecls[fa.v]
			if at, ok := w.fnDeclAt[fa.v]; ok && fa.prop == "" && fa.arg < len(w.f.Calls[fa.call].Args) {
				w.f.Calls[fa.call].Args[fa.arg].Offset = at
			}
		}
		if span[1] > span[0] {
			w.f.Functions = append(w.f.Functions, ports.JSFunction{Call: fa.call, Arg: fa.arg, First: span[0], End: span[1], Prop: fa.prop})
		}
	}
	// fnDecls and fnExports stay for the exports' bodies (exportedBody).
	w.fnPending, w.fnArgs, w.fnOpen, w.fnDeclAt, w.constFns, w.fnNamed = nil, nil, nil, nil, nil, nil
	w.constObjs, w.fnMembers, w.memberSets = nil, nil, nil
}

// noteConstObject notes const v = an object literal with function members
// (open(e, p) {...}, save: async (e, p) => {...}): the walk enters the
// literal next and notes the calls each member holds (fnMembers), so that
// a member passed by its path later (handlers.open, memberFunc) is that
// function, as a const function passed by name is (noteConstFunc).
func (w *walker) noteConstObject(v *tjs.Var, init tjs.IExpr) {
	obj, ok := init.(*tjs.ObjectExpr)
	if !ok || len(obj.List) > maxMemberScan {
		return
	}
	if len(obj.List) == 0 {
		// const handlers = {}; handlers.open = function () {...}
		// (reassign.go): its members are all assigned
		if w.fnMembers == nil {
			w.fnMembers, w.constObjs = map[tjs.INode][2]int{}, map[*tjs.Var]*tjs.ObjectExpr{}
		}
		w.constObjs[root(v)] = obj
		return
	}
	for i := range obj.List {
		fn, _ := memberOf(&obj.List[i])
		if fn == nil {
			continue
		}
		if w.fnMembers == nil {
			w.fnMembers, w.constObjs = map[tjs.INode][2]int{}, map[*tjs.Var]*tjs.ObjectExpr{}
		}
		w.fnMembers[fn], w.constObjs[root(v)] = [2]int{}, obj
	}
}

// maxMemberScan bounds the object literals noteConstObject notes, and so
// memberFunc's scan of one for each member path a call's argument names:
// a table of handlers is small, a library's object of methods may not be.
const maxMemberScan = 256

// memberOf is property p's function (a method but a getter or setter, or
// a key bound to a function expression) or nil, and its key as written
// (a string key within its quotes; nil when computed or a spread, which
// may be any key).
func memberOf(p *tjs.Property) (tjs.INode, []byte) {
	if p.Spread {
		return nil, nil
	}
	if p.Name == nil {
		m, ok := p.Value.(*tjs.MethodDecl)
		if !ok || m.Name.IsComputed() || m.Name.Private != nil {
			return nil, nil
		}
		key := propKeyBytes(&m.Name.PropertyName)
		if m.Get || m.Set {
			return nil, key
		}
		return m, key
	}
	if p.Name.IsComputed() {
		return nil, nil
	}
	return unwrapFunc(p.Value), propKeyBytes(p.Name)
}

// propKeyBytes is a literal key as written, a string's within its quotes.
func propKeyBytes(n *tjs.PropertyName) []byte {
	k := n.Literal.Data
	if n.Literal.TokenType == tjs.StringToken && len(k) >= 2 {
		k = k[1 : len(k)-1]
	}
	return k
}

// memberFunc is the function member d names (handlers.open) of a const
// object literal (noteConstObject), its key, and d's path; nil when the
// object's last property that may have that key (a later one wins, and a
// spread or computed key may be any) is not a noted function.
func (w *walker) memberFunc(d *tjs.DotExpr) (tjs.INode, []byte, string) {
	x, ok := d.X.(*tjs.Var)
	if !ok {
		return nil, nil, ""
	}
	obj := w.constObjs[root(x)]
	if obj == nil {
		return nil, nil, ""
	}
	var name []byte
	switch y := d.Y.(type) {
	case tjs.LiteralExpr:
		name = y.Data
	case *tjs.LiteralExpr:
		name = y.Data
	default:
		return nil, nil, ""
	}
	var fn tjs.INode
	var key []byte
	if s, _ := w.memberState(d); s != nil {
		// assigned since the literal (reassign.go): the last function
		// assigned, or not known
		fn, key = s.fn, s.key
	} else {
		for i := range obj.List {
			p := &obj.List[i]
			f, k := memberOf(p)
			if k == nil || bytes.Equal(k, name) {
				fn, key = f, k
			}
		}
	}
	if _, ok := w.fnMembers[fn]; !ok || fn == nil || key == nil {
		return nil, nil, ""
	}
	return fn, key, string(root(x).Data) + "." + string(name)
}

// maxDeclScan bounds declName's scan: the code between two literals
// rarely runs longer, and a declaration it misses keeps its first use.
const maxDeclScan = 64 << 10

// seen moves the cursor declName scans from past a token of the file.
func (w *walker) seen(b []byte) {
	if i := within(w.buf, b); i >= 0 && i+len(b) > w.cursor {
		w.cursor = i + len(b)
	}
}

// declName is where the declaration of function v names it: the first
// "function NAME" (a generator's "function* NAME") of the file's code
// from the cursor, which the walk moves past each token it meets and
// each declaration found, so the one found is the declaration the walk
// is entering. A Var holds the name's first use in its scope, which is
// before the declaration where a call names a function declared later.
// -1 inside eval code or when the source does not read so within
// maxDeclScan bytes of the cursor (a failed scan costs no more).
func (w *walker) declName(v *tjs.Var) int64 {
	name := v.Data
	if w.ev != nil || within(w.buf, name) < 0 || len(name) == 0 {
		return -1
	}
	buf := w.buf[:min(len(w.buf), w.cursor+maxDeclScan)]
	for i := w.cursor; i < len(buf); {
		switch c := buf[i]; {
		case c == '/' && i+1 < len(buf) && buf[i+1] == '/':
			j := bytes.IndexByte(buf[i:], '\n')
			if j < 0 {
				return -1
			}
			i += j + 1
		case c == '/' && i+1 < len(buf) && buf[i+1] == '*':
			j := bytes.Index(buf[i+2:], []byte("*/"))
			if j < 0 {
				return -1
			}
			i += j + 4
		case c == '"' || c == '\'' || c == '`':
			i++
			for i < len(buf) && buf[i] != c {
				if buf[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == 'f' && bytes.HasPrefix(buf[i:], []byte("function")) && (i == 0 || !identByte(buf[i-1])):
			s := posSrc{w: w, buf: buf}
			j := s.skip(i + len("function"))
			if j < len(buf) && buf[j] == '*' {
				j = s.skip(j + 1)
			}
			if bytes.HasPrefix(buf[j:], name) && (j+len(name) == len(buf) || !identByte(buf[j+len(name)])) {
				w.cursor = j + len(name)
				return int64(j)
			}
			i += len("function")
		default:
			i++
		}
	}
	return -1
}
