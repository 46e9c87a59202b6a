package js

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// esbuild's module table is a list of module-scope declarations
//
//	var require_a = __commonJS({"src/a.js"(exports, module) {...}});
//	var init_b = __esm({"src/b.js"() {...}});
//
// Minified, the helpers are renamed and lose the object wrapper:
//
//	var f = (o, t) => () => (t || o((t = {exports: {}}).exports, t), t.exports);
//	var c = f((x, s) => {...});
//
// so the helpers are recognised by the shape of their bodies, not by name.

// esKind is which esbuild runtime helper a binding holds.
type esKind uint8

const (
	esNone esKind = iota
	esCJS         // __commonJS: a lazily run CommonJS module
	esESM         // __esm: a lazily run ES module initializer
)

func (k esKind) String() string {
	if k == esESM {
		return "esm"
	}
	return "cjs"
}

// minModule is a module declared through a minified helper; its ID is set
// in finish, once its fingerprint is known.
type minModule struct {
	idx  int
	kind esKind
}

// esRequire is a call to a module-scope binding inside module from; it is
// resolved in finish, so a module may call one declared after it.
type esRequire struct {
	from int
	v    *tjs.Var
}

// findEsbuildHelpers records the module-scope bindings whose initializer
// has the shape of esbuild's __commonJS or __esm helper, and the module
// scopes where their calls declare modules. Module scope is the program and
// the body of an IIFE written as a program statement (esbuild's iife
// format, with or without a global name). Only those statements are read,
// so the cost is one type switch per program statement plus one shape test
// per two- or three-parameter function initializer. It reports whether a
// helper is called with a function or a one-property object there, which
// is when the source is taken to be an esbuild bundle.
func (w *walker) findEsbuildHelpers(ast *tjs.AST) bool {
	used := false
	w.importedHelpers(ast)
	var candidates map[ports.JSHelperBinding]bool
	var last *tjs.Scope
	scan := func(list []tjs.IStmt) {
		for _, st := range list {
			d, ok := st.(*tjs.VarDecl)
			if !ok {
				continue
			}
			if d.Scope != last {
				// The parser hands out the module scope by copy, so
				// the scopes are learned from the declarations.
				last = d.Scope
				if w.modScopes == nil {
					w.modScopes = map[*tjs.Scope]bool{}
				}
				w.modScopes[last] = true
			}
			for _, b := range d.List {
				v, ok := b.Binding.(*tjs.Var)
				if !ok || b.Default == nil {
					continue
				}
				if k := esbuildHelper(b.Default); k != esNone {
					if w.esHelpers == nil {
						w.esHelpers = map[*tjs.Var]esKind{}
					}
					w.esHelpers[root(v)] = k
					continue
				}
				if len(w.esHelpers) > 0 && !used {
					if _, k := w.esbuildCall(b.Default); k != esNone {
						used = true
					}
				}
				if c, ok := b.Default.(*tjs.CallExpr); ok && len(c.Args.List) == 1 && unwrapFunc(c.Args.List[0].Value) != nil {
					if cv, ok := c.X.(*tjs.Var); ok && w.esHelpers[root(cv)] == esNone {
						if a, ok := w.aliases[root(cv)]; ok && a.module != "" && a.member != "" && !strings.Contains(a.member, ".") {
							if candidates == nil {
								candidates = map[ports.JSHelperBinding]bool{}
							}
							candidates[ports.JSHelperBinding{Specifier: a.module, Export: a.member}] = true
						}
					}
				}
			}
		}
	}
	scan(ast.BlockStmt.List)
	for _, st := range ast.BlockStmt.List {
		if body := iifeBody(st); body != nil {
			scan(body.List)
		}
	}
	if !used {
		for c := range candidates {
			w.f.HelperImports = append(w.f.HelperImports, c)
		}
		slices.SortFunc(w.f.HelperImports, func(a, b ports.JSHelperBinding) int {
			return strings.Compare(a.Specifier+"\x00"+a.Export, b.Specifier+"\x00"+b.Export)
		})
	}
	w.exportedHelpers(ast)
	return used
}

// importedHelpers marks the import bindings the request names as helpers
// of another chunk.
func (w *walker) importedHelpers(ast *tjs.AST) {
	if len(w.req.Helpers) == 0 {
		return
	}
	for _, st := range ast.BlockStmt.List {
		im, ok := st.(*tjs.ImportStmt)
		if !ok {
			continue
		}
		spec, _ := decodeString(im.Module)
		for _, a := range im.List {
			exported := string(a.Name)
			if exported == "" {
				exported = string(a.Binding)
			}
			for _, h := range w.req.Helpers {
				if h.Specifier != spec || h.Export != exported {
					continue
				}
				if v := w.declaredAt(a.Binding); v != nil {
					if w.esHelpers == nil {
						w.esHelpers = map[*tjs.Var]esKind{}
					}
					w.esHelpers[root(v)] = esKindOf(h.Kind)
				}
			}
		}
	}
}

// exportedHelpers lists the helpers the file exports (export {d as a}).
func (w *walker) exportedHelpers(ast *tjs.AST) {
	if len(w.esHelpers) == 0 {
		return
	}
	for _, st := range ast.BlockStmt.List {
		ex, ok := st.(*tjs.ExportStmt)
		if !ok || ex.Module != nil || ex.Decl != nil {
			continue
		}
		for _, a := range ex.List {
			local := a.Name
			if local == nil {
				local = a.Binding
			}
			if v := w.declaredAt(local); v != nil {
				if k := w.esHelpers[root(v)]; k != esNone {
					w.f.HelperExports = append(w.f.HelperExports, ports.JSHelperBinding{Export: string(a.Binding), Kind: k.String()})
				}
			}
		}
	}
}

// esKindOf reads a helper kind written by esKind.String.
func esKindOf(s string) esKind {
	switch s {
	case "cjs":
		return esCJS
	case "esm":
		return esESM
	}
	return esNone
}

// iifeBody returns the body of `(() => {...})()`, `(function () {...})()`
// or `var x = (() => {...})()`.
func iifeBody(st tjs.IStmt) *tjs.BlockStmt {
	var x tjs.IExpr
	switch t := st.(type) {
	case *tjs.ExprStmt:
		x = t.Value
	case *tjs.VarDecl:
		if len(t.List) == 1 {
			x = t.List[0].Default
		}
	}
	c, ok := x.(*tjs.CallExpr)
	if !ok || len(c.Args.List) != 0 {
		return nil
	}
	switch f := unwrapFunc(c.X).(type) {
	case *tjs.ArrowFunc:
		return &f.Body
	case *tjs.FuncDecl:
		return &f.Body
	}
	return nil
}

// esbuildCall reports a call to a shape-found helper with one argument
// that is a module: a function (minified) or an object with one property
// (the key form, as in the unminified bundle).
func (w *walker) esbuildCall(x tjs.IExpr) (*tjs.CallExpr, esKind) {
	c, ok := x.(*tjs.CallExpr)
	if !ok || len(c.Args.List) != 1 || c.Args.List[0].Rest {
		return nil, esNone
	}
	cv, ok := c.X.(*tjs.Var)
	if !ok {
		return nil, esNone
	}
	k := w.esHelpers[root(cv)]
	if k == esNone {
		return nil, esNone
	}
	switch a := c.Args.List[0].Value.(type) {
	case *tjs.ObjectExpr:
		if len(a.List) != 1 {
			return nil, esNone
		}
	default:
		if unwrapFunc(a) == nil {
			return nil, esNone
		}
	}
	return c, k
}

// esbuildModule records `var v = helper(...)` at module scope as a module
// and reports whether it did.
func (w *walker) esbuildModule(d *tjs.VarDecl, v *tjs.Var, x tjs.IExpr) bool {
	if !w.modScopes[d.Scope] {
		return false
	}
	c, k := w.esbuildCall(x)
	if k == esNone {
		return false
	}
	var idx int
	if obj, ok := c.Args.List[0].Value.(*tjs.ObjectExpr); ok {
		idx = w.addTableModule(obj.List[0], "esbuild", nil)
	} else {
		idx = w.addMinModule(v, unwrapFunc(c.Args.List[0].Value), k)
	}
	if idx >= 0 {
		w.setESVar(root(v), idx)
	}
	return true
}

// addMinModule records a module without a key. Its Start is the offset of
// the binding's name (the `c` of `var c = f(...)`); its ID is set in
// finish (see esbuildIDs).
func (w *walker) addMinModule(v *tjs.Var, fn tjs.INode, k esKind) int {
	if len(w.f.Modules) >= w.lim.MaxModules {
		w.f.ModulesOmitted++
		return -1
	}
	idx := len(w.f.Modules)
	start := w.offsetOf(v.Data)
	w.f.Modules = append(w.f.Modules, ports.JSBundledModule{Bundler: "esbuild", Start: start, End: start})
	w.setModFunc(fn, idx)
	w.minMods = append(w.minMods, minModule{idx: idx, kind: k})
	return idx
}

// esbuildIDs names the modules of minified esbuild bundles, which carry no
// key: "esbuild:cjs:" or "esbuild:esm:" (the helper) followed by the first
// 12 hex digits of the module's Fingerprint. The fingerprint covers the
// body's syntax shape and literals but no local names, so the ID survives
// re-minification, renaming and moves within the bundle, and changes when
// the module's code does. Modules of identical shape (index files that only
// re-export another module, say) are told apart by what they require: "."
// and 8 hex digits of a digest of the required modules' fingerprints.
// Only modules identical in both get "-2", "-3", ... in file order.
func (w *walker) esbuildIDs() {
	base := make(map[int]string, len(w.minMods))
	count := map[string]int{}
	for _, mm := range w.minMods {
		mod := &w.f.Modules[mm.idx]
		id := "esbuild:" + mm.kind.String() + ":" + mod.Fingerprint[:min(12, len(mod.Fingerprint))]
		base[mm.idx] = id
		count[id]++
	}
	// The fingerprints each module requires, for the shared shapes.
	reqFP := map[int][]string{}
	for _, r := range w.esReqs {
		if idx, ok := w.esVars[r.v]; ok && idx != r.from && count[base[r.from]] > 1 {
			reqFP[r.from] = append(reqFP[r.from], w.f.Modules[idx].Fingerprint)
		}
	}
	for idx, fps := range reqFP {
		slices.Sort(fps)
		sum := sha256.Sum256([]byte(strings.Join(slices.Compact(fps), ",")))
		base[idx] += "." + hex.EncodeToString(sum[:4])
	}
	seen := map[string]int{}
	for _, mm := range w.minMods {
		id := base[mm.idx]
		n := seen[id] + 1
		seen[id] = n
		if n > 1 {
			id += "-" + strconv.Itoa(n)
		}
		w.f.Modules[mm.idx].ID = id
	}
	for _, r := range w.esReqs {
		if idx, ok := w.esVars[r.v]; ok && idx != r.from {
			w.f.Modules[r.from].Requires = append(w.f.Modules[r.from].Requires, w.f.Modules[idx].ID)
		}
	}
}

// esbuildHelper reports which esbuild runtime helper x is, judged by shape
// alone: a function of two or three parameters (o, t[, e]) that returns a
// function of none, which returns
//
//	t || o((t = {exports: {}}).exports, t), t.exports   (__commonJS)
//	o && (t = o(o = 0)), t                              (__esm)
//
// directly or from a try block, after an optional `if (e) throw e[0]`.
// The unminified helpers call `(0, o[__getOwnPropNames(o)[0]])` where the
// minified ones call o; both are accepted.
func esbuildHelper(x tjs.IExpr) esKind {
	params, body := funcParts(x)
	if params == nil || len(params.List) < 2 || len(params.List) > 3 || params.Rest != nil || len(body) != 1 {
		return esNone
	}
	o, t := paramVar(params.List[0]), paramVar(params.List[1])
	if o == nil || t == nil {
		return esNone
	}
	ret, ok := body[0].(*tjs.ReturnStmt)
	if !ok || ret.Value == nil {
		return esNone
	}
	ip, ib := funcParts(ret.Value)
	if ip == nil || len(ip.List) != 0 || ip.Rest != nil {
		return esNone
	}
	comma, ok := ungroup(returned(ib)).(*tjs.CommaExpr)
	if !ok || len(comma.List) != 2 {
		return esNone
	}
	first, last := ungroup(comma.List[0]), ungroup(comma.List[1])
	switch {
	case isDot(last, t, "exports") && isCJSRun(first, o, t):
		return esCJS
	case isVar(last, t) && isESMRun(first, o, t):
		return esESM
	}
	return esNone
}

// isCJSRun matches `t || o((t = {exports: {}}).exports, t)`.
func isCJSRun(x tjs.IExpr, o, t *tjs.Var) bool {
	b, ok := x.(*tjs.BinaryExpr)
	if !ok || b.Op != tjs.OrToken || !isVar(ungroup(b.X), t) {
		return false
	}
	c, ok := ungroup(b.Y).(*tjs.CallExpr)
	if !ok || !isModuleCallee(c.X, o) || len(c.Args.List) != 2 || !isVar(c.Args.List[1].Value, t) {
		return false
	}
	d, ok := c.Args.List[0].Value.(*tjs.DotExpr)
	if !ok || dotName(d.Y) != "exports" {
		return false
	}
	a, ok := ungroup(d.X).(*tjs.BinaryExpr)
	if !ok || a.Op != tjs.EqToken || !isVar(a.X, t) {
		return false
	}
	obj, ok := a.Y.(*tjs.ObjectExpr)
	if !ok || len(obj.List) != 1 || obj.List[0].Spread || obj.List[0].Name == nil {
		return false
	}
	k, _ := propKey(obj.List[0].Name)
	inner, ok := obj.List[0].Value.(*tjs.ObjectExpr)
	return k == "exports" && ok && len(inner.List) == 0
}

// isESMRun matches `o && (t = o(o = 0))`.
func isESMRun(x tjs.IExpr, o, t *tjs.Var) bool {
	b, ok := x.(*tjs.BinaryExpr)
	if !ok || b.Op != tjs.AndToken || !isVar(ungroup(b.X), o) {
		return false
	}
	a, ok := ungroup(b.Y).(*tjs.BinaryExpr)
	if !ok || a.Op != tjs.EqToken || !isVar(a.X, t) {
		return false
	}
	c, ok := ungroup(a.Y).(*tjs.CallExpr)
	if !ok || !isModuleCallee(c.X, o) || len(c.Args.List) != 1 {
		return false
	}
	z, ok := ungroup(c.Args.List[0].Value).(*tjs.BinaryExpr)
	return ok && z.Op == tjs.EqToken && isVar(z.X, o) && isLiteral(z.Y, "0")
}

// isModuleCallee matches o or `(0, o[...])`.
func isModuleCallee(x tjs.IExpr, o *tjs.Var) bool {
	x = ungroup(x)
	if isVar(x, o) {
		return true
	}
	c, ok := x.(*tjs.CommaExpr)
	if !ok || len(c.List) != 2 || !isLiteral(c.List[0], "0") {
		return false
	}
	ix, ok := c.List[1].(*tjs.IndexExpr)
	return ok && isVar(ix.X, o)
}

// returned is the value the statements return: `return x`, or `try {
// return x } ...`, after at most one `if (...) throw ...`.
func returned(list []tjs.IStmt) tjs.IExpr {
	if len(list) == 2 {
		s, ok := list[0].(*tjs.IfStmt)
		if !ok || s.Else != nil {
			return nil
		}
		body := s.Body
		if blk, ok := body.(*tjs.BlockStmt); ok && len(blk.List) == 1 {
			body = blk.List[0]
		}
		if _, ok := body.(*tjs.ThrowStmt); !ok {
			return nil
		}
		list = list[1:]
	}
	if len(list) != 1 {
		return nil
	}
	switch s := list[0].(type) {
	case *tjs.ReturnStmt:
		return s.Value
	case *tjs.TryStmt:
		if s.Body != nil && len(s.Body.List) == 1 {
			if r, ok := s.Body.List[0].(*tjs.ReturnStmt); ok {
				return r.Value
			}
		}
	}
	return nil
}

// funcParts returns the parameters and statements of a plain (not async,
// not generator) function or arrow expression, or nil.
func funcParts(x tjs.IExpr) (*tjs.Params, []tjs.IStmt) {
	switch f := unwrapFunc(x).(type) {
	case *tjs.ArrowFunc:
		if !f.Async {
			return &f.Params, f.Body.List
		}
	case *tjs.FuncDecl:
		if !f.Async && !f.Generator {
			return &f.Params, f.Body.List
		}
	}
	return nil, nil
}

func paramVar(b tjs.BindingElement) *tjs.Var {
	if v, ok := b.Binding.(*tjs.Var); ok && b.Default == nil {
		return v
	}
	return nil
}

func ungroup(x tjs.IExpr) tjs.IExpr {
	for {
		g, ok := x.(*tjs.GroupExpr)
		if !ok {
			return x
		}
		x = g.X
	}
}

// isVar reports whether x names the same variable as v. Names are compared,
// not bindings: the helper is a few lines that bind each name once.
func isVar(x tjs.IExpr, v *tjs.Var) bool {
	u, ok := x.(*tjs.Var)
	return ok && bytes.Equal(u.Name(), v.Name())
}

func isDot(x tjs.IExpr, v *tjs.Var, name string) bool {
	d, ok := x.(*tjs.DotExpr)
	return ok && isVar(d.X, v) && dotName(d.Y) == name
}

func isLiteral(x tjs.IExpr, data string) bool {
	switch l := x.(type) {
	case *tjs.LiteralExpr:
		return string(l.Data) == data
	case tjs.LiteralExpr:
		return string(l.Data) == data
	}
	return false
}
