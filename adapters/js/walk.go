package js

import tjs "github.com/tdewolff/parse/v2/js"

// walk visits n and the nodes below it in the order tjs.Walk does (an if
// statement's body before its condition, a call's arguments before its
// callee: the facts depend on that order), entering each node before its
// children and exiting it after them; a node enter declines (a cancelled
// walk) is neither descended into nor exited. It is tjs.Walk with the
// visitor's methods called directly: the walk meets every node of every
// file, and an interface call and a deferred one per node were a tenth of
// it.
func (w *walker) walk(n tjs.INode) {
	if n == nil || !w.enter(n) {
		return
	}
	switch n := n.(type) {
	case *tjs.AST:
		w.walk(&n.BlockStmt)
	case *tjs.BlockStmt:
		for _, s := range n.List {
			w.walk(s)
		}
	case *tjs.ExprStmt:
		w.walk(n.Value)
	case *tjs.IfStmt:
		w.walk(n.Body)
		w.walk(n.Else)
		w.walk(n.Cond)
	case *tjs.DoWhileStmt:
		w.walk(n.Body)
		w.walk(n.Cond)
	case *tjs.WhileStmt:
		w.walk(n.Body)
		w.walk(n.Cond)
	case *tjs.ForStmt:
		if n.Body != nil {
			w.walk(n.Body)
		}
		w.walk(n.Init)
		w.walk(n.Cond)
		w.walk(n.Post)
	case *tjs.ForInStmt:
		if n.Body != nil {
			w.walk(n.Body)
		}
		w.walk(n.Init)
		w.walk(n.Value)
	case *tjs.ForOfStmt:
		if n.Body != nil {
			w.walk(n.Body)
		}
		w.walk(n.Init)
		w.walk(n.Value)
	case *tjs.CaseClause:
		for _, s := range n.List {
			w.walk(s)
		}
		w.walk(n.Cond)
	case *tjs.SwitchStmt:
		for i := range n.List {
			w.walk(&n.List[i])
		}
		w.walk(n.Init)
	case *tjs.ReturnStmt:
		w.walk(n.Value)
	case *tjs.WithStmt:
		w.walk(n.Body)
		w.walk(n.Cond)
	case *tjs.LabelledStmt:
		w.walk(n.Value)
	case *tjs.ThrowStmt:
		w.walk(n.Value)
	case *tjs.TryStmt:
		if n.Body != nil {
			w.walk(n.Body)
		}
		if n.Catch != nil {
			w.walk(n.Catch)
		}
		if n.Finally != nil {
			w.walk(n.Finally)
		}
		w.walk(n.Binding)
	case *tjs.ImportStmt:
		for i := range n.List {
			w.walk(&n.List[i])
		}
	case *tjs.ExportStmt:
		for i := range n.List {
			w.walk(&n.List[i])
		}
		w.walk(n.Decl)
	case *tjs.PropertyName:
		w.walk(&n.Literal)
		w.walk(n.Computed)
	case *tjs.BindingArray:
		for i := range n.List {
			w.walk(&n.List[i])
		}
		w.walk(n.Rest)
	case *tjs.BindingObjectItem:
		if n.Key != nil {
			w.walk(n.Key)
		}
		w.walk(&n.Value)
	case *tjs.BindingObject:
		for i := range n.List {
			w.walk(&n.List[i])
		}
		if n.Rest != nil {
			w.walk(n.Rest)
		}
	case *tjs.BindingElement:
		w.walk(n.Binding)
		w.walk(n.Default)
	case *tjs.VarDecl:
		for i := range n.List {
			w.walk(&n.List[i])
		}
	case *tjs.Params:
		for i := range n.List {
			w.walk(&n.List[i])
		}
		w.walk(n.Rest)
	case *tjs.FuncDecl:
		w.walk(&n.Body)
		w.walk(&n.Params)
		if n.Name != nil {
			w.walk(n.Name)
		}
	case *tjs.MethodDecl:
		w.walk(&n.Body)
		w.walk(&n.Params)
		w.walk(&n.Name)
	case *tjs.Field:
		w.walk(&n.Name)
		w.walk(n.Init)
	case *tjs.ClassDecl:
		if n.Name != nil {
			w.walk(n.Name)
		}
		w.walk(n.Extends)
		for i := range n.List {
			// tjs.Walk visits a copy of each element's field: nothing
			// keeps a field node, so the element's own is as good.
			switch item := &n.List[i]; {
			case item.StaticBlock != nil:
				w.walk(item.StaticBlock)
			case item.Method != nil:
				w.walk(item.Method)
			default:
				w.walk(&item.Field)
			}
		}
	case *tjs.Element:
		w.walk(n.Value)
	case *tjs.ArrayExpr:
		for i := range n.List {
			w.walk(&n.List[i])
		}
	case *tjs.Property:
		if n.Name != nil {
			w.walk(n.Name)
		}
		w.walk(n.Value)
		w.walk(n.Init)
	case *tjs.ObjectExpr:
		for i := range n.List {
			w.walk(&n.List[i])
		}
	case *tjs.TemplatePart:
		w.walk(n.Expr)
	case *tjs.TemplateExpr:
		for i := range n.List {
			w.walk(&n.List[i])
		}
		w.walk(n.Tag)
	case *tjs.GroupExpr:
		w.walk(n.X)
	case *tjs.IndexExpr:
		w.walk(n.X)
		w.walk(n.Y)
	case *tjs.DotExpr:
		w.walk(n.X)
		w.walk(n.Y)
	case *tjs.Arg:
		w.walk(n.Value)
	case *tjs.Args:
		for i := range n.List {
			w.walk(&n.List[i])
		}
	case *tjs.NewExpr:
		if n.Args != nil {
			w.walk(n.Args)
		}
		w.walk(n.X)
	case *tjs.CallExpr:
		w.walk(&n.Args)
		w.walk(n.X)
	case *tjs.UnaryExpr:
		w.walk(n.X)
	case *tjs.BinaryExpr:
		w.walk(n.X)
		w.walk(n.Y)
	case *tjs.CondExpr:
		w.walk(n.Cond)
		w.walk(n.X)
		w.walk(n.Y)
	case *tjs.YieldExpr:
		w.walk(n.X)
	case *tjs.ArrowFunc:
		w.walk(&n.Body)
		w.walk(&n.Params)
	case *tjs.CommaExpr:
		for _, x := range n.List {
			w.walk(x)
		}
	}
	w.exit(n)
}
