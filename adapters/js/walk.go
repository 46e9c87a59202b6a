package js

import tjs "github.com/tdewolff/parse/v2/js"

// walk visits n and the nodes below it in the order tjs.Walk does (an if
// statement's body before its condition, a call's arguments before its
// callee: the facts depend on that order), noting what each node tells
// before its children and closing what it opened (a function, a block, a
// bundled module) after them. It is tjs.Walk with its visitor's Enter and
// Exit written into its one type switch: the walk meets every node of
// every file, and an interface call, a deferred call and two more type
// switches per node were half of the walk's own time
// (BenchmarkExtractCorpus). A cancelled context stops it.
func (w *walker) walk(n tjs.INode) {
	if n == nil || w.cancelled {
		return
	}
	if w.steps++; w.steps&0xffff == 0 && w.ctx.Err() != nil {
		w.cancelled = true
		return
	}
	if len(w.modFuncs) > 0 && isFuncNode(n) {
		if idx, ok := w.modFuncs[n]; ok {
			w.enterModule(n, idx)
		}
	}
	if m := w.top(); m != nil {
		w.shape(m, n)
	}
	switch t := n.(type) {
	case *tjs.AST:
		w.walk(&t.BlockStmt)
	case *tjs.BlockStmt:
		w.nest++
		for _, s := range t.List {
			w.walk(s)
		}
		w.nest--
	case *tjs.ExprStmt:
		w.walk(t.Value)
	case *tjs.IfStmt:
		w.nest++
		w.walk(t.Body)
		w.walk(t.Else)
		w.walk(t.Cond)
		w.nest--
	case *tjs.DoWhileStmt:
		w.nest++
		w.walk(t.Body)
		w.walk(t.Cond)
		w.nest--
	case *tjs.WhileStmt:
		w.nest++
		w.walk(t.Body)
		w.walk(t.Cond)
		w.nest--
	case *tjs.ForStmt:
		w.nest++
		if t.Body != nil {
			w.walk(t.Body)
		}
		w.walk(t.Init)
		w.walk(t.Cond)
		w.walk(t.Post)
		w.nest--
	case *tjs.ForInStmt:
		w.forEach(t.Init, t.Value, t.Body)
	case *tjs.ForOfStmt:
		w.forEach(t.Init, t.Value, t.Body)
	case *tjs.CaseClause:
		for _, s := range t.List {
			w.walk(s)
		}
		w.walk(t.Cond)
	case *tjs.SwitchStmt:
		w.nest++
		for i := range t.List {
			w.walk(&t.List[i])
		}
		w.walk(t.Init)
		w.nest--
	case *tjs.ReturnStmt:
		w.walk(t.Value)
	case *tjs.WithStmt:
		w.nest++
		w.dynamicScope = true
		w.walk(t.Body)
		w.walk(t.Cond)
		w.nest--
	case *tjs.LabelledStmt:
		w.nest++
		w.walk(t.Value)
		w.nest--
	case *tjs.ThrowStmt:
		w.walk(t.Value)
	case *tjs.TryStmt:
		w.nest++
		if t.Body != nil {
			w.walk(t.Body)
		}
		if t.Catch != nil {
			w.walk(t.Catch)
		}
		if t.Finally != nil {
			w.walk(t.Finally)
		}
		w.walk(t.Binding)
		w.nest--
	case *tjs.ImportStmt:
		w.hasESM = true
		w.importStmt(t)
		for i := range t.List {
			w.walk(&t.List[i])
		}
	case *tjs.ExportStmt:
		w.hasESM = true
		w.exportStmt(t)
		for i := range t.List {
			w.walk(&t.List[i])
		}
		w.walk(t.Decl)
	case *tjs.ImportMetaExpr:
		w.hasESM = true // only an ES module can read import.meta
	case *tjs.PropertyName:
		w.walk(&t.Literal)
		w.walk(t.Computed)
	case *tjs.BindingArray:
		for i := range t.List {
			w.walk(&t.List[i])
		}
		w.walk(t.Rest)
	case *tjs.BindingObjectItem:
		if t.Key != nil {
			w.walk(t.Key)
		}
		w.walk(&t.Value)
	case *tjs.BindingObject:
		for i := range t.List {
			w.walk(&t.List[i])
		}
		if t.Rest != nil {
			w.walk(t.Rest)
		}
	case *tjs.BindingElement:
		w.walk(t.Binding)
		w.walk(t.Default)
	case *tjs.VarDecl:
		w.noteVarDecl(t)
		w.varDecl(t)
		w.routeDecl(t)
		w.noteGlobals(t)
		for i := range t.List {
			w.walk(&t.List[i])
		}
	case *tjs.Params:
		for i := range t.List {
			w.walk(&t.List[i])
		}
		w.walk(t.Rest)
	case *tjs.FuncDecl:
		if t.Name != nil {
			w.noteDecl(t.Name, t)
			w.noteWrite(t.Name, 0) // function f() {} after var f = "x"
		}
		w.openFunc(n)
		w.walk(&t.Body)
		w.walk(&t.Params)
		if t.Name != nil {
			w.walk(t.Name)
		}
		w.closeFunc(n)
	case *tjs.MethodDecl:
		w.openFunc(n)
		w.walk(&t.Body)
		w.walk(&t.Params)
		w.walk(&t.Name)
		w.closeFunc(n)
	case *tjs.ArrowFunc:
		w.openFunc(n)
		w.walk(&t.Body)
		w.walk(&t.Params)
		w.closeFunc(n)
	case *tjs.Field:
		w.walk(&t.Name)
		w.walk(t.Init)
	case *tjs.ClassDecl:
		if t.Name != nil {
			w.noteDecl(t.Name, t)
			w.walk(t.Name)
		}
		w.walk(t.Extends)
		for i := range t.List {
			// tjs.Walk visits a copy of each element's field: nothing
			// keeps a field node, so the element's own is as good.
			switch item := &t.List[i]; {
			case item.StaticBlock != nil:
				w.walk(item.StaticBlock)
			case item.Method != nil:
				w.walk(item.Method)
			default:
				w.walk(&item.Field)
			}
		}
	case *tjs.LiteralExpr:
		w.seen(t.Data)
		w.literal(t)
	case tjs.LiteralExpr:
		w.seen(t.Data)
		w.literal(&t)
	case *tjs.Element:
		w.walk(t.Value)
	case *tjs.ArrayExpr:
		for i := range t.List {
			w.walk(&t.List[i])
		}
	case *tjs.Property:
		if t.Name != nil {
			w.walk(t.Name)
		}
		w.walk(t.Value)
		w.walk(t.Init)
	case *tjs.ObjectExpr:
		w.objectTable(t)
		w.routeObject(t)
		for i := range t.List {
			w.walk(&t.List[i])
		}
	case *tjs.TemplatePart:
		w.walk(t.Expr)
	case *tjs.TemplateExpr:
		w.seen(t.Tail)
		if t.Tag == nil && len(t.List) == 0 {
			w.template(t)
		}
		for i := range t.List {
			w.walk(&t.List[i])
		}
		w.walk(t.Tag)
	case *tjs.GroupExpr:
		w.walk(t.X)
	case *tjs.IndexExpr:
		if lit, ok := t.Y.(*tjs.LiteralExpr); ok && lit.TokenType == tjs.StringToken {
			// the module first: the name is made a string only for a
			// member read of one
			if spec := w.usedModule(t.X); spec != "" {
				if s, ok := decodeString(lit.Data); ok && s != "" {
					w.useName(spec, s)
				}
			}
		}
		w.walk(t.X)
		w.walk(t.Y)
	case *tjs.DotExpr:
		if spec := w.usedModule(t.X); spec != "" {
			if name := dotBytes(t.Y); len(name) > 0 {
				useName(w, spec, name)
			}
		}
		w.walk(t.X)
		w.walk(t.Y)
	case *tjs.Arg:
		w.walk(t.Value)
	case *tjs.Args:
		for i := range t.List {
			w.walk(&t.List[i])
		}
	case *tjs.NewExpr:
		w.newExpr(t)
		if t.Args != nil {
			w.walk(t.Args)
		}
		w.walk(t.X)
	case *tjs.CallExpr:
		w.call(t)
		w.walk(&t.Args)
		w.walk(t.X)
	case *tjs.UnaryExpr:
		switch t.Op {
		case tjs.PreIncrToken, tjs.PreDecrToken, tjs.PostIncrToken, tjs.PostDecrToken:
			w.noteWrite(t.X, 0)
			if len(w.constLits) > 0 {
				w.noteObjectWrite(t.X)
			}
		case tjs.DeleteToken:
			if len(w.constLits) > 0 {
				w.noteObjectWrite(t.X)
			}
		}
		w.walk(t.X)
	case *tjs.BinaryExpr:
		if t.Op == tjs.EqToken {
			w.assign(t)
		}
		if isAssignOp(t.Op) {
			w.noteWrite(t.X, 0)
			if len(w.constLits) > 0 {
				w.noteObjectWrite(t.X)
			}
		}
		w.walk(t.X)
		w.walk(t.Y)
	case *tjs.CondExpr:
		w.walk(t.Cond)
		w.walk(t.X)
		w.walk(t.Y)
	case *tjs.YieldExpr:
		w.walk(t.X)
	case *tjs.CommaExpr:
		for _, x := range t.List {
			w.walk(x)
		}
	}
}

// openFunc enters function n's body: its statements' nesting starts
// afresh, and its calls are counted when its body is wanted (enterFunc).
func (w *walker) openFunc(n tjs.INode) {
	w.nests, w.nest = append(w.nests, w.nest), -1
	w.enterFunc(n)
}

// closeFunc leaves function n's body, and first the bundled module n is
// the function of, if it opened one.
func (w *walker) closeFunc(n tjs.INode) {
	if len(w.modFuncs) > 0 {
		if idx, ok := w.modFuncs[n]; ok {
			if m := w.top(); m != nil && m.idx == idx {
				w.exitModule(m)
			}
		}
	}
	if k := len(w.nests) - 1; k >= 0 {
		w.nest, w.nests = w.nests[k], w.nests[:k]
	}
	w.exitFunc(n)
}

// forEach walks a for-in or for-of loop: its binding is written each turn.
func (w *walker) forEach(init, value tjs.IExpr, body *tjs.BlockStmt) {
	w.nest++
	w.noteWrite(init, 0)
	if body != nil {
		w.walk(body)
	}
	w.walk(init)
	w.walk(value)
	w.nest--
}
