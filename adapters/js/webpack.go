package js

import (
	"bytes"
	"strings"

	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// webpack and rspack runtimes: besides the module table, the bundle's own
// code (the runtime and the entry modules inlined into it) requires table
// modules through the runtime's require function: __webpack_require__(id)
// in development builds, r(416) once minified, and r.bind(r, id) after a
// chunk load. The require function is recognised by what it does, not by
// its name: it is the third argument of the call that runs a module,
// table[id](module, module.exports, require). Calls to it with a literal
// id outside table modules are the file's EntryRequires; inside a module,
// require.bind(require, id) is one of the module's Requires too.

// pendingRequire is a call outside table modules that requires a literal
// module id if callee turns out to be the runtime's require function.
type pendingRequire struct {
	callee *tjs.Var
	id     string
	offset int64
}

// webpackCall inspects one call in a webpack or rspack bundle.
func (w *walker) webpackCall(t *tjs.CallExpr) {
	args := t.Args.List
	// table[id](module, module.exports, require) names the require function.
	if _, ok := t.X.(*tjs.IndexExpr); ok && len(args) == 3 {
		if d, ok := args[1].Value.(*tjs.DotExpr); ok && dotName(d.Y) == "exports" {
			if v, ok := args[2].Value.(*tjs.Var); ok {
				if w.requireFuncs == nil {
					w.requireFuncs = map[*tjs.Var]bool{}
				}
				w.requireFuncs[root(v)] = true
			}
		}
		return
	}
	callee, idArg := requireCallee(t)
	if callee == nil || idArg == nil {
		return
	}
	id, ok := moduleKey(idArg)
	if !ok {
		return
	}
	if m := w.top(); m != nil {
		// Direct calls of the module's require parameter are counted in
		// call(); the bound form is counted here.
		if _, bound := t.X.(*tjs.DotExpr); bound && m.reqVar != nil && callee == m.reqVar {
			w.f.Modules[m.idx].Requires = append(w.f.Modules[m.idx].Requires, id)
		}
		return
	}
	lit, _ := idArg.(*tjs.LiteralExpr)
	off := int64(-1)
	if lit != nil {
		off = w.offsetOf(lit.Data)
	}
	w.pendingRequires = append(w.pendingRequires, pendingRequire{callee: callee, id: id, offset: off})
}

// requireCallee reads f(id) and f.bind(f, id): the callee's binding and the
// id argument.
func requireCallee(t *tjs.CallExpr) (*tjs.Var, tjs.IExpr) {
	args := t.Args.List
	switch x := t.X.(type) {
	case *tjs.Var:
		if len(args) == 1 {
			return root(x), args[0].Value
		}
	case *tjs.DotExpr:
		if v, ok := x.X.(*tjs.Var); ok && dotName(x.Y) == "bind" && len(args) == 2 {
			if self, ok := args[0].Value.(*tjs.Var); ok && root(self) == root(v) {
				return root(v), args[1].Value
			}
		}
	}
	return nil, nil
}

// resolveEntryRequires keeps the pending calls whose callee is a require
// function (or is named like webpack's and rspack's).
func (w *walker) resolveEntryRequires() {
	for _, p := range w.pendingRequires {
		if n := string(p.callee.Data); w.requireFuncs[p.callee] || n == "__webpack_require__" || n == "__rspack_require__" {
			w.f.EntryRequires = append(w.f.EntryRequires, ports.JSBundleRequire{ID: p.id, Offset: p.offset})
		}
	}
}

// moduleAssign records a CommonJS export of a bundled module, written
// through its own parameters: exports.x = v, module.exports.x = v,
// module.exports = {...} or = v (default). It reports whether t was one.
func (w *walker) moduleAssign(m *modCtx, t *tjs.BinaryExpr) bool {
	d, ok := t.X.(*tjs.DotExpr)
	if !ok {
		return false
	}
	param := func(x tjs.IExpr, want *tjs.Var) bool {
		v, ok := x.(*tjs.Var)
		return ok && want != nil && root(v) == want
	}
	name := dotName(d.Y)
	switch {
	case param(d.X, m.expVar):
	case param(d.X, m.modVar) && name == "exports":
		if obj, ok := t.Y.(*tjs.ObjectExpr); ok {
			for _, pr := range obj.List {
				if md, ok := pr.Value.(*tjs.MethodDecl); ok && pr.Name == nil && md.Name.Private == nil {
					pr.Name = &md.Name.PropertyName
				}
				if k, ok := propKey(pr.Name); ok {
					w.addModuleExport(m.idx, ports.JSExport{Name: k, Kind: "commonjs", Offset: w.offsetOf(pr.Name.Literal.Data), Value: unknownShape()}, pr.Value)
				}
			}
			return true
		}
		name = "default"
	default:
		inner, ok := d.X.(*tjs.DotExpr)
		if !ok || !param(inner.X, m.modVar) || dotName(inner.Y) != "exports" {
			return false
		}
	}
	if name == "" {
		return false
	}
	w.addModuleExport(m.idx, ports.JSExport{Name: name, Kind: "commonjs", Offset: w.dotOffset(d.Y), Value: unknownShape()}, t.Y)
	return true
}

// findWebpackRuntime looks, at module scope and in an IIFE wrapper, for the
// runtime's require function: a one-parameter function declaration whose
// body runs a module as table[id](module, module.exports, itself). It
// reports whether one was found; production bundles without chunk loading
// carry no other webpack marker.
func (w *walker) findWebpackRuntime(ast *tjs.AST) bool {
	if !runCallSite(w.buf) {
		return false
	}
	found := false
	scan := func(list []tjs.IStmt) {
		for _, st := range list {
			fd, ok := st.(*tjs.FuncDecl)
			if !ok || fd.Name == nil || len(fd.Params.List) != 1 || fd.Params.Rest != nil {
				continue
			}
			param, ok := fd.Params.List[0].Binding.(*tjs.Var)
			if !ok {
				continue
			}
			v := &runtimeFinder{self: root(fd.Name), param: root(param), budget: 400}
			tjs.Walk(v, &fd.Body)
			if v.found {
				if w.requireFuncs == nil {
					w.requireFuncs = map[*tjs.Var]bool{}
				}
				w.requireFuncs[root(fd.Name)] = true
				found = true
			}
		}
	}
	scan(ast.BlockStmt.List)
	for _, st := range ast.BlockStmt.List {
		if body := iifeBody(st); body != nil {
			scan(body.List)
		}
	}
	return found
}

// runtimeFinder walks a small function body for table[param](m, m.exports,
// self), visiting at most budget nodes.
type runtimeFinder struct {
	self, param *tjs.Var
	budget      int
	found       bool
}

func (r *runtimeFinder) Enter(n tjs.INode) tjs.IVisitor {
	if r.found || r.budget <= 0 {
		return nil
	}
	r.budget--
	c, ok := n.(*tjs.CallExpr)
	if !ok || len(c.Args.List) != 3 {
		return r
	}
	ix, ok := c.X.(*tjs.IndexExpr)
	if !ok || !isVar(ix.Y, r.param) {
		return r
	}
	if d, ok := c.Args.List[1].Value.(*tjs.DotExpr); ok && dotName(d.Y) == "exports" && isVar(c.Args.List[2].Value, r.self) {
		r.found = true
		return nil
	}
	return r
}

func (r *runtimeFinder) Exit(tjs.INode) {}

// externalOf reports the request of a webpack external: a table module
// whose body, after an optional "use strict", is only
// module.exports = require("request"). It returns "" for any other value.
func (w *walker) externalOf(x tjs.IExpr) string {
	params, body := funcParts(x)
	if m, ok := x.(*tjs.MethodDecl); ok {
		params, body = &m.Params, m.Body.List
	}
	if params == nil || len(params.List) < 1 {
		return ""
	}
	mod, ok := params.List[0].Binding.(*tjs.Var)
	if !ok {
		return ""
	}
	var stmts []tjs.IStmt
	for _, st := range body {
		if d, ok := st.(*tjs.DirectivePrologueStmt); ok && d != nil {
			continue
		}
		if e, ok := st.(*tjs.ExprStmt); ok {
			if lit, ok := e.Value.(*tjs.LiteralExpr); ok && lit.TokenType == tjs.StringToken {
				continue // "use strict" as an expression statement
			}
		}
		stmts = append(stmts, st)
	}
	if len(stmts) != 1 {
		return ""
	}
	e, ok := stmts[0].(*tjs.ExprStmt)
	if !ok {
		return ""
	}
	as, ok := e.Value.(*tjs.BinaryExpr)
	if !ok || as.Op != tjs.EqToken || !isDot(as.X, mod, "exports") {
		return ""
	}
	c, ok := as.Y.(*tjs.CallExpr)
	if !ok || len(c.Args.List) != 1 {
		return ""
	}
	if v, ok := c.X.(*tjs.Var); !ok || string(v.Name()) != "require" || v.Decl != tjs.NoDecl {
		return ""
	}
	spec, _ := literalString(c.Args.List[0].Value)
	return spec
}

// externalRequire reads callee(id), a call of the bundle's require
// function (a module's require parameter or the runtime's), as a require of
// the request that external module id re-exports.
func (w *walker) externalRequire(callee *tjs.Var, arg tjs.IExpr) (string, bool) {
	if len(w.externals) == 0 {
		return "", false
	}
	r := root(callee)
	isReq := w.requireFuncs[r]
	if m := w.top(); m != nil && m.reqVar == r {
		isReq = true
	}
	if !isReq {
		return "", false
	}
	id, ok := moduleKey(arg)
	if !ok {
		return "", false
	}
	spec, ok := w.externals[id]
	return spec, ok
}

// runCallSite reports whether src has a table[id](m, m.exports, r) site
// in its text: ".exports," with "](" shortly before it. Files without one
// (almost all) skip the walk of their functions.
func runCallSite(src []byte) bool {
	for i := 0; ; {
		j := indexRare(src[i:], []byte(".exports"), 2)
		if j < 0 {
			return false
		}
		at := i + j
		i = at + len(".exports")
		k := i
		for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		if k < len(src) && src[k] == ',' && bytes.Contains(src[max(0, at-64):at], []byte("](")) {
			return true
		}
	}
}

// Workers in webpack builds: new Worker(new URL(require.p + require.u(id),
// require.b)) starts the chunk whose file name the runtime's require.u
// function computes from id. That function is a string concatenation of
// the id, literals and, for hashed names, an object of per-chunk parts
// indexed by the id; rea reads those forms as a template (JSChunkNames,
// nothing is executed), names the chunk of a literal id and records the
// worker with the chunk's file as a relative specifier. A chunk file holds
// no runtime: its worker stays dynamic with the chunk id (JSImport.Chunk),
// for core to name with the ChunkNames of the runtime file. Other forms
// leave the worker dynamic.

type chunkWorker struct {
	kind   string
	rt     *tjs.Var // the runtime object whose u computes the name
	id     string
	offset int64
	module int
	// inModule: rt is a table module's require parameter, which the
	// runtime's require function is passed as.
	inModule bool
}

// chunkURLAssign remembers X.u = function (the runtime's chunk file name
// function; X is the require function, or a plain runtime object in a
// build without modules).
func (w *walker) chunkURLAssign(t *tjs.BinaryExpr) {
	d, ok := t.X.(*tjs.DotExpr)
	if !ok || string(dotBytes(d.Y)) != "u" || unwrapFunc(t.Y) == nil {
		return
	}
	if v, ok := d.X.(*tjs.Var); ok {
		w.noteChunkURL(v, t.Y)
	}
}

// chunkURLObject remembers const X = {u: function, ...}.
func (w *walker) chunkURLObject(v *tjs.Var, obj *tjs.ObjectExpr) {
	for _, p := range obj.List {
		if p.Name == nil || len(p.Name.Literal.Data) > 3 { // "u" or 'u' at most; most keys are longer
			continue
		}
		if propKeyIs(p.Name, "u") && unwrapFunc(p.Value) != nil {
			w.noteChunkURL(v, p.Value)
		}
	}
}

func (w *walker) noteChunkURL(v *tjs.Var, fn tjs.IExpr) {
	if w.chunkURLs == nil {
		w.chunkURLs = map[*tjs.Var]tjs.IExpr{}
	}
	w.chunkURLs[root(v)] = fn
}

// chunkWorker records a worker whose URL is X.p + X.u(id).
func (w *walker) chunkWorker(kind string, spec tjs.IExpr) bool {
	b, ok := spec.(*tjs.BinaryExpr)
	if !ok || b.Op != tjs.AddToken || !isDotOf(b.X, "p") {
		return false
	}
	c, ok := b.Y.(*tjs.CallExpr)
	if !ok || len(c.Args.List) != 1 {
		return false
	}
	d, ok := c.X.(*tjs.DotExpr)
	if !ok || dotName(d.Y) != "u" {
		return false
	}
	v, ok := d.X.(*tjs.Var)
	if !ok {
		return false
	}
	id, ok := moduleKey(c.Args.List[0].Value)
	if !ok {
		return false
	}
	off := int64(-1)
	if lit, ok := c.Args.List[0].Value.(*tjs.LiteralExpr); ok {
		off = w.offsetOf(lit.Data)
	}
	cw := chunkWorker{kind: kind, rt: root(v), id: id, offset: off, module: w.inModule()}
	if m := w.top(); m != nil && m.reqVar != nil && m.reqVar == cw.rt {
		cw.inModule = true
	}
	w.chunkWorkers = append(w.chunkWorkers, cw)
	return true
}

// isDotOf reports x.name for a variable x.
func isDotOf(x tjs.IExpr, name string) bool {
	d, ok := x.(*tjs.DotExpr)
	if !ok || dotName(d.Y) != name {
		return false
	}
	_, ok = d.X.(*tjs.Var)
	return ok
}

// resolveChunkWorkers turns the recorded workers into imports of their
// chunk files, with the chunk id, or dynamic imports when the name cannot
// be computed: when the file holds no chunk file name function at all (a
// chunk file, whose runtime is another file), with the chunk id, which the
// runtime's ChunkNames names. The runtime's function is reported as ChunkNames when
// the file is the one runtime of a build whose chunks share a global.
func (w *walker) resolveChunkWorkers() {
	var names map[*tjs.Var]*ports.JSChunkNames // read once per function
	template := func(v *tjs.Var) *ports.JSChunkNames {
		n, ok := names[v]
		if !ok {
			if names == nil {
				names = map[*tjs.Var]*ports.JSChunkNames{}
			}
			n = chunkNames(w.chunkURLs[v])
			names[v] = n
		}
		return n
	}
	if len(w.chunkURLs) == 1 && w.f.ChunkGlobal != "" && (w.f.Bundler == "webpack" || w.f.Bundler == "rspack") {
		for v := range w.chunkURLs {
			w.f.ChunkNames = template(v)
		}
	}
	for _, cw := range w.chunkWorkers {
		im := ports.JSImport{Kind: cw.kind, Offset: cw.offset, InModule: cw.module}
		var fn *tjs.Var
		if w.chunkURLs[cw.rt] != nil {
			fn = cw.rt
		} else if cw.inModule && len(w.chunkURLs) == 1 {
			// A table module calls u on its require parameter, a binding
			// of its own: the u is then the runtime's, when the file holds
			// one runtime's.
			for v := range w.chunkURLs {
				fn = v
			}
		}
		name, ok := "", false
		if fn != nil {
			name, ok = template(fn).Name(cw.id)
		}
		switch {
		case ok && name != "" && !strings.Contains(name, "://") && !strings.HasPrefix(name, "/"):
			im.Specifier, im.Chunk = "./"+name, cw.id
		case len(w.chunkURLs) == 0:
			im.Dynamic, im.Chunk = true, cw.id
		default:
			im.Dynamic = true
		}
		w.f.Imports = append(w.f.Imports, im)
	}
}

// chunkNames reads a chunk file name function, id => name, as a template:
// nil when it is not one parameter and a returned concatenation of the id,
// string and number literals and {id: part}[id] lookups.
func chunkNames(fn tjs.IExpr) *ports.JSChunkNames {
	if fn == nil {
		return nil
	}
	params, body := funcParts(fn)
	if params == nil || len(params.List) != 1 {
		return nil
	}
	p, ok := params.List[0].Binding.(*tjs.Var)
	if !ok {
		return nil
	}
	x := returned(body)
	if x == nil {
		return nil
	}
	parts, ok := chunkNameParts(nil, x, p, 0)
	if !ok {
		return nil
	}
	return &ports.JSChunkNames{Parts: parts}
}

// chunkNameParts appends the parts of x, a concatenation, to parts. A
// lookup's values are evaluated for their own key (evalChunkName), so a
// key whose value is not a name is not in the table.
func chunkNameParts(parts []ports.JSChunkNamePart, x tjs.IExpr, p *tjs.Var, depth int) ([]ports.JSChunkNamePart, bool) {
	if depth > 32 {
		return nil, false
	}
	switch t := x.(type) {
	case *tjs.GroupExpr:
		return chunkNameParts(parts, t.X, p, depth+1)
	case *tjs.BinaryExpr:
		if t.Op == tjs.OrToken {
			if part, ok := namedChunks(t, p, depth+1); ok {
				return append(parts, part), true
			}
		}
		if t.Op != tjs.AddToken {
			return nil, false
		}
		parts, ok := chunkNameParts(parts, t.X, p, depth+1)
		if !ok {
			return nil, false
		}
		return chunkNameParts(parts, t.Y, p, depth+1)
	case *tjs.Var:
		if isVar(t, p) {
			return append(parts, ports.JSChunkNamePart{ID: true}), true
		}
	case *tjs.IndexExpr:
		obj, ok := t.X.(*tjs.ObjectExpr)
		if !ok || !isVar(t.Y, p) {
			return nil, false
		}
		table := make(map[string]string, len(obj.List))
		for _, pr := range obj.List {
			k, ok := propKey(pr.Name)
			if !ok {
				continue
			}
			if v, ok := evalChunkName(pr.Value, p, k, depth+1); ok {
				table[k] = v
			} else {
				delete(table, k) // the last of a repeated key is the value
			}
		}
		return append(parts, ports.JSChunkNamePart{Table: table}), true
	case *tjs.CondExpr:
		if part, ok := namedChunk(t, p, depth+1); ok {
			return append(parts, part), true
		}
	default:
		lit, ok := evalChunkName(x, p, "", depth+1)
		if !ok {
			return nil, false
		}
		if n := len(parts); n > 0 && !parts[n-1].ID && parts[n-1].Table == nil {
			parts[n-1].Literal += lit
			return parts, true
		}
		return append(parts, ports.JSChunkNamePart{Literal: lit}), true
	}
	return nil, false
}

// Once a chunk is named (webpackChunkName), a production build names the
// chunks by their ids except the named ones: webpack writes the name part
// as (812===e?"lazyname":e) for one named chunk and ({812:"lazyname",
// 714:"other"}[e]||e) for several. Both read as a table that falls back
// to the id (OrID). A table value must be a name: one that is not, or a
// number (falsy when 0), rejects the form, since falling back to the id
// would name a file webpack does not write.

// namedChunk reads k===id ? name : id (either side of the comparison; !==
// with the branches swapped; == and != too, as a minifier may write them).
func namedChunk(t *tjs.CondExpr, p *tjs.Var, depth int) (ports.JSChunkNamePart, bool) {
	c, ok := ungroup(t.Cond).(*tjs.BinaryExpr)
	if !ok {
		return ports.JSChunkNamePart{}, false
	}
	named, other := t.X, t.Y
	switch c.Op {
	case tjs.EqEqEqToken, tjs.EqEqToken:
	case tjs.NotEqEqToken, tjs.NotEqToken:
		named, other = other, named
	default:
		return ports.JSChunkNamePart{}, false
	}
	var key tjs.IExpr
	switch x, y := isVar(ungroup(c.X), p), isVar(ungroup(c.Y), p); {
	case x && !y:
		key = c.Y
	case y && !x:
		key = c.X
	default:
		return ports.JSChunkNamePart{}, false
	}
	k, ok := moduleKey(ungroup(key))
	if !ok || !isVar(ungroup(other), p) {
		return ports.JSChunkNamePart{}, false
	}
	v, ok := chunkNameValue(named, p, k, depth)
	if !ok {
		return ports.JSChunkNamePart{}, false
	}
	return ports.JSChunkNamePart{Table: map[string]string{k: v}, OrID: true}, true
}

// namedChunks reads {k: name, ...}[id] || id. An empty name is falsy, so
// that key falls back to the id.
func namedChunks(t *tjs.BinaryExpr, p *tjs.Var, depth int) (ports.JSChunkNamePart, bool) {
	ix, ok := ungroup(t.X).(*tjs.IndexExpr)
	if !ok || !isVar(ungroup(t.Y), p) || !isVar(ix.Y, p) {
		return ports.JSChunkNamePart{}, false
	}
	obj, ok := ix.X.(*tjs.ObjectExpr)
	if !ok {
		return ports.JSChunkNamePart{}, false
	}
	table := make(map[string]string, len(obj.List))
	for _, pr := range obj.List {
		k, ok := propKey(pr.Name)
		if !ok {
			return ports.JSChunkNamePart{}, false // a computed key or a spread
		}
		v, ok := chunkNameValue(pr.Value, p, k, depth)
		switch {
		case !ok:
			return ports.JSChunkNamePart{}, false
		case v == "":
			delete(table, k)
		default:
			table[k] = v
		}
	}
	return ports.JSChunkNamePart{Table: table, OrID: true}, true
}

// chunkNameValue evaluates a named chunk's name; a number is not one.
func chunkNameValue(x tjs.IExpr, p *tjs.Var, id string, depth int) (string, bool) {
	if lit, ok := ungroup(x).(*tjs.LiteralExpr); ok && lit.TokenType != tjs.StringToken {
		return "", false
	}
	return evalChunkName(x, p, id, depth)
}

// evalChunkName evaluates x, a concatenation of the id parameter, string
// and number literals and {id: part}[id] lookups.
func evalChunkName(x tjs.IExpr, p *tjs.Var, id string, depth int) (string, bool) {
	if depth > 32 {
		return "", false
	}
	switch t := x.(type) {
	case *tjs.GroupExpr:
		return evalChunkName(t.X, p, id, depth+1)
	case *tjs.BinaryExpr:
		if t.Op != tjs.AddToken {
			return "", false
		}
		l, ok := evalChunkName(t.X, p, id, depth+1)
		if !ok {
			return "", false
		}
		r, ok := evalChunkName(t.Y, p, id, depth+1)
		return l + r, ok
	case *tjs.Var:
		if isVar(t, p) {
			return id, true
		}
	case *tjs.LiteralExpr:
		switch t.TokenType {
		case tjs.StringToken:
			return decodeString(t.Data)
		case tjs.DecimalToken, tjs.IntegerToken:
			return string(t.Data), true
		}
	case *tjs.TemplateExpr:
		if t.Tag == nil && len(t.List) == 0 {
			return decodeString(t.Tail)
		}
	case *tjs.IndexExpr:
		obj, ok := t.X.(*tjs.ObjectExpr)
		if !ok || !isVar(t.Y, p) {
			return "", false
		}
		for _, pr := range obj.List {
			if k, ok := propKey(pr.Name); ok && k == id {
				return evalChunkName(pr.Value, p, id, depth+1)
			}
		}
	}
	return "", false
}
