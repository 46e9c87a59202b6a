package js

import (
	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// Export value shapes: what the source shows of each exported value
// without running it. An export's value is a node (an expression or a
// declaration); a name refers through its binding to the declaration that
// initialises it, which may come later in the file (hoisting), so values
// are resolved once the walk has seen every declaration.

// exportValue ties an export to the node that gives its value: index idx
// in JSFacts.Exports, or in JSFacts.Modules[module].Exports when module is
// not -1.
type exportValue struct {
	module, idx int
	node        tjs.INode
}

// maxShapeHops bounds how many name-to-declaration steps one shape follows
// (const a = b; const b = c; ...), so alias cycles end.
const maxShapeHops = 8

// addExport records an export and, when its value node is known, queues
// the value for resolution in resolveExportShapes.
func (w *walker) addExport(e ports.JSExport, value tjs.INode) {
	if value != nil {
		w.exportValues = append(w.exportValues, exportValue{module: -1, idx: len(w.f.Exports), node: value})
		w.noteExportedFunc(value)
	}
	w.f.Exports = append(w.f.Exports, e)
}

// addModuleExport records an export of bundled module m.
func (w *walker) addModuleExport(m int, e ports.JSExport, value tjs.INode) {
	mod := &w.f.Modules[m]
	if value != nil {
		w.exportValues = append(w.exportValues, exportValue{module: m, idx: len(mod.Exports), node: value})
	}
	mod.Exports = append(mod.Exports, e)
}

// getterValue is what a getter returns when its body is one return
// statement (webpack's {name: () => local} export getters), else nil.
func getterValue(n tjs.IExpr) tjs.INode {
	var body *tjs.BlockStmt
	switch t := n.(type) {
	case *tjs.ArrowFunc:
		body = &t.Body
	case *tjs.FuncDecl:
		body = &t.Body
	case *tjs.MethodDecl:
		body = &t.Body
	}
	if body == nil || len(body.List) != 1 {
		return nil
	}
	if r, ok := body.List[0].(*tjs.ReturnStmt); ok && r.Value != nil {
		return r.Value
	}
	return nil
}

// declNote is a binding and the node that initialises it.
type declNote struct {
	v *tjs.Var
	n tjs.INode
}

// noteDecl remembers the node that initialises a binding: a named function
// or class declaration, or a variable with an initializer. The walk only
// appends (every declaration of a large bundle passes here); the lookup map
// is built at the end for the bindings that exports name.
func (w *walker) noteDecl(v *tjs.Var, n tjs.INode) {
	if v == nil || n == nil {
		return
	}
	w.declNotes = append(w.declNotes, declNote{root(v), n})
}

// indexDecls fills w.decls with the declarations of the bindings that the
// queued export values name, following alias chains (const a = b) up to
// maxShapeHops steps.
func (w *walker) indexDecls() {
	if len(w.declNotes) == 0 {
		return
	}
	want := map[*tjs.Var]bool{}
	for _, ev := range w.exportValues {
		if v := nameIn(ev.node); v != nil {
			want[v] = true
		}
	}
	w.decls = map[*tjs.Var]tjs.INode{}
	for hop := 0; hop < maxShapeHops && len(want) > 0; hop++ {
		next := map[*tjs.Var]bool{}
		for _, d := range w.declNotes {
			if want[d.v] {
				w.decls[d.v] = d.n
				if v := nameIn(d.n); v != nil {
					if _, seen := w.decls[v]; !seen {
						next[v] = true
					}
				}
			}
		}
		want = next
	}
}

// nameIn is the binding a value node denotes through parentheses and
// assignments (a, (a), x = a), or nil.
func nameIn(n tjs.INode) *tjs.Var {
	for i := 0; i < maxShapeHops; i++ {
		switch t := n.(type) {
		case *tjs.Var:
			return root(t)
		case *tjs.GroupExpr:
			n = t.X
		case *tjs.BinaryExpr:
			if t.Op != tjs.EqToken {
				return nil
			}
			n = t.Y
		default:
			return nil
		}
	}
	return nil
}

// noteVarDecl remembers the initializers of a declaration's plain bindings.
func (w *walker) noteVarDecl(t *tjs.VarDecl) {
	for _, b := range t.List {
		if v, ok := b.Binding.(*tjs.Var); ok && b.Default != nil {
			w.noteDecl(v, b.Default)
			if obj, ok := b.Default.(*tjs.ObjectExpr); ok {
				w.chunkURLObject(v, obj) // a webpack runtime object {u: id => ...}
			}
		}
	}
}

// declaredAt finds a module-scope binding by name (import bindings,
// export {a as b}); the index is built only for files that need it.
// Callers look up names the file binds (an import or export list), so an
// undeclared global is found only where an import binds its name.
func (w *walker) declaredAt(name []byte) *tjs.Var {
	if w.scope == nil || len(name) == 0 {
		return nil
	}
	if w.scopeNames == nil {
		w.scopeNames = make(map[string]*tjs.Var, len(w.scope.Declared)+len(w.scope.Undeclared))
		for _, v := range w.scope.Declared {
			if _, dup := w.scopeNames[string(v.Data)]; !dup {
				w.scopeNames[string(v.Data)] = v
			}
		}
		// The parser does not declare import bindings: they stay among
		// the module scope's undeclared names, which is where their uses
		// link to.
		for _, v := range w.scope.Undeclared {
			if _, dup := w.scopeNames[string(v.Data)]; !dup {
				w.scopeNames[string(v.Data)] = v
			}
		}
	}
	return w.scopeNames[string(name)]
}

// resolveExportShapes fills JSExport.Value for every queued export.
func (w *walker) resolveExportShapes() {
	if len(w.exportValues) == 0 {
		return
	}
	w.indexDecls()
	for _, ev := range w.exportValues {
		if ev.module >= 0 {
			w.f.Modules[ev.module].Exports[ev.idx].Value = w.shapeOf(ev.node, 0)
			continue
		}
		w.f.Exports[ev.idx].Value = w.shapeOf(ev.node, 0)
		w.f.Exports[ev.idx].First, w.f.Exports[ev.idx].End = w.exportedBody(ev.node)
	}
}

func unknownShape() ports.JSValueShape {
	return ports.JSValueShape{Kind: ports.JSValueUnknown, Params: -1}
}

func valueShape(kind string) ports.JSValueShape {
	return ports.JSValueShape{Kind: kind, Params: -1}
}

func funcShape(async, generator bool, p *tjs.Params) ports.JSValueShape {
	kind := ports.JSValueFunction
	switch {
	case async && generator:
		kind = ports.JSValueAsyncGenerator
	case async:
		kind = ports.JSValueAsyncFunction
	case generator:
		kind = ports.JSValueGenerator
	}
	return ports.JSValueShape{Kind: kind, Params: len(p.List), Rest: p.Rest != nil}
}

// classShape counts the constructor's parameters; a derived class without
// a constructor takes its parent's, which is not known here.
func classShape(c *tjs.ClassDecl) ports.JSValueShape {
	for _, el := range c.List {
		if m := el.Method; m != nil && !m.Static && m.Name.Private == nil {
			if propKeyIs(&m.Name.PropertyName, "constructor") {
				return ports.JSValueShape{Kind: ports.JSValueClass, Params: len(m.Params.List), Rest: m.Params.Rest != nil}
			}
		}
	}
	if c.Extends != nil {
		return ports.JSValueShape{Kind: ports.JSValueClass, Params: -1}
	}
	return ports.JSValueShape{Kind: ports.JSValueClass, Params: 0}
}

// maxShapeDepth bounds the recursion of shapeOf through parentheses,
// unary operators, assignments and names together.
const maxShapeDepth = 64

// shapeOf is the shape of an expression or declaration node.
func (w *walker) shapeOf(n tjs.INode, depth int) ports.JSValueShape {
	if depth > maxShapeDepth {
		return unknownShape()
	}
	switch t := n.(type) {
	case *tjs.FuncDecl:
		return funcShape(t.Async, t.Generator, &t.Params)
	case *tjs.ArrowFunc:
		return funcShape(t.Async, false, &t.Params)
	case *tjs.MethodDecl:
		if t.Get || t.Set {
			return unknownShape()
		}
		return funcShape(t.Async, t.Generator, &t.Params)
	case *tjs.ClassDecl:
		return classShape(t)
	case *tjs.ObjectExpr:
		return valueShape(ports.JSValueObject)
	case *tjs.ArrayExpr:
		return valueShape(ports.JSValueArray)
	case *tjs.LiteralExpr:
		return literalShape(t)
	case tjs.LiteralExpr:
		return literalShape(&t)
	case *tjs.TemplateExpr:
		if t.Tag == nil {
			return valueShape(ports.JSValueString)
		}
	case *tjs.GroupExpr:
		return w.shapeOf(t.X, depth+1)
	case *tjs.UnaryExpr:
		switch t.Op {
		case tjs.NotToken:
			return valueShape(ports.JSValueBoolean)
		case tjs.VoidToken:
			return valueShape(ports.JSValueUndefined)
		case tjs.TypeofToken:
			return valueShape(ports.JSValueString)
		case tjs.NegToken, tjs.PosToken, tjs.BitNotToken:
			if s := w.shapeOf(t.X, depth+1); s.Kind == ports.JSValueNumber || (s.Kind == ports.JSValueBigInt && t.Op != tjs.PosToken) {
				return s
			}
		}
	case *tjs.BinaryExpr:
		// a = b = value: the value of an assignment is its right side.
		if t.Op == tjs.EqToken {
			return w.shapeOf(t.Y, depth+1)
		}
	case *tjs.Var:
		if d, ok := w.decls[root(t)]; ok {
			return w.shapeOf(d, depth+1)
		}
		if t.Decl == tjs.NoDecl && string(t.Data) == "undefined" {
			return valueShape(ports.JSValueUndefined)
		}
	}
	return unknownShape()
}

func literalShape(t *tjs.LiteralExpr) ports.JSValueShape {
	switch t.TokenType {
	case tjs.StringToken:
		return valueShape(ports.JSValueString)
	case tjs.DecimalToken, tjs.IntegerToken, tjs.BinaryToken, tjs.OctalToken, tjs.HexadecimalToken:
		if len(t.Data) > 0 && t.Data[len(t.Data)-1] == 'n' {
			return valueShape(ports.JSValueBigInt)
		}
		return valueShape(ports.JSValueNumber)
	case tjs.TrueToken, tjs.FalseToken:
		return valueShape(ports.JSValueBoolean)
	case tjs.NullToken:
		return valueShape(ports.JSValueNull)
	case tjs.RegExpToken:
		return valueShape(ports.JSValueRegExp)
	}
	return unknownShape()
}
