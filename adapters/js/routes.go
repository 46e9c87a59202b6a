package js

import (
	"sort"
	"strings"

	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// Routes written as data (ports.JSRoute). An array literal is a candidate
// route table when it reaches a router: it is an argument of a call or new
// expression whose callee's last name is in routerCalls, the value of a
// property named routes ({routes: [...]}, {routes} after const routes =
// [...]), or the initializer of a binding whose name ends in "routes". An
// argument or property that names a binding is followed to the binding's
// array initializer through the parser's scope links, so a same-named
// binding elsewhere is not confused with it.
//
// A candidate is a route table when each of its elements is an object
// literal (spreads and holes are skipped) and at least one has a path that
// is a string literal starting with "/" or ":" or empty. Every string
// literal path of its objects is then a route, and so is every one in the
// nested children arrays (bounded in depth), whose paths are often
// relative. File-system data ([{path: "/etc/hosts"}] passed to fs
// functions) reaches no router and is not reported. Minifiers rename
// bindings and bundled router functions, so in minified code the routes
// property is what usually survives.

// routerCalls are the last callee names that take a route table: React
// Router's creators and hook, Vue Router's createRouter and constructor,
// Angular's RouterModule.forRoot/forChild and provideRouter.
var routerCalls = map[string]bool{
	"createBrowserRouter": true, "createHashRouter": true, "createMemoryRouter": true, "createStaticRouter": true,
	"createStaticHandler": true, "useRoutes": true, "createRouter": true, "VueRouter": true,
	"forRoot": true, "forChild": true, "provideRouter": true,
}

const (
	maxRoutes     = 4096 // routes reported per file
	maxRouteDepth = 16   // nested children arrays followed
	maxRouteCands = 4096 // candidate arrays remembered per file
)

type routeCand struct {
	arr *tjs.ArrayExpr
	v   *tjs.Var // a binding to follow to its array, when arr is nil
	via string
}

// routeArg notes x as a candidate route table reached by via.
func (w *walker) routeArg(x tjs.IExpr, via string) {
	if len(w.routeCands) >= maxRouteCands {
		return
	}
	switch t := x.(type) {
	case *tjs.ArrayExpr:
		w.routeCands = append(w.routeCands, routeCand{arr: t, via: via})
	case *tjs.Var:
		w.routeCands = append(w.routeCands, routeCand{v: root(t), via: via})
	case *tjs.GroupExpr:
		w.routeArg(t.X, via)
	}
}

// routeCall notes the array arguments of a router call.
func (w *walker) routeCall(path string, args []tjs.Arg) {
	last := path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		last = path[i+1:]
	}
	if !routerCalls[last] {
		return
	}
	for i, a := range args {
		if i >= 2 {
			break
		}
		w.routeArg(a.Value, "call:"+last)
	}
}

// routeObject notes the value of a routes property.
func (w *walker) routeObject(t *tjs.ObjectExpr) {
	for _, p := range t.List {
		if p.Spread || p.Name == nil {
			continue
		}
		if propKeyIs(p.Name, "routes") {
			w.routeArg(p.Value, "property:routes")
		}
	}
}

// routeDecl remembers bindings to array literals, and notes those whose
// name ends in "routes".
func (w *walker) routeDecl(t *tjs.VarDecl) {
	for _, b := range t.List {
		v, ok := b.Binding.(*tjs.Var)
		if !ok || b.Default == nil {
			continue
		}
		arr, ok := b.Default.(*tjs.ArrayExpr)
		if !ok {
			continue
		}
		r := root(v)
		if w.arrayBinds == nil {
			w.arrayBinds = map[*tjs.Var]*tjs.ArrayExpr{}
		}
		if _, seen := w.arrayBinds[r]; !seen && len(w.arrayBinds) < maxRouteCands {
			w.arrayBinds[r] = arr
		}
		if name := string(v.Name()); strings.HasSuffix(strings.ToLower(name), "routes") {
			w.routeArg(arr, "name:"+name)
		}
	}
}

// resolveRoutes turns the candidates into JSFacts.Routes, table by table
// in source order, each depth first.
func (w *walker) resolveRoutes() {
	if len(w.routeCands) == 0 {
		return
	}
	type table struct {
		arr *tjs.ArrayExpr
		via string
		at  int64
	}
	var tables []table
	seen := map[*tjs.ArrayExpr]bool{}
	for _, c := range w.routeCands {
		arr := c.arr
		if arr == nil {
			arr = w.arrayBinds[c.v]
		}
		if arr == nil || seen[arr] || !w.isRouteTable(arr) {
			continue
		}
		seen[arr] = true
		tables = append(tables, table{arr, c.via, w.firstPathOffset(arr)})
	}
	sort.SliceStable(tables, func(i, j int) bool { return tables[i].at < tables[j].at })
	for _, t := range tables {
		w.emitRoutes(t.arr, -1, t.via, 0, seen)
	}
}

// routePath is obj's path property when it is a string literal.
func routePath(obj *tjs.ObjectExpr) (val tjs.IExpr, s string, ok bool) {
	for _, p := range obj.List {
		if p.Spread || p.Name == nil {
			continue
		}
		if propKeyIs(p.Name, "path") {
			s, ok = literalString(p.Value)
			return p.Value, s, ok
		}
	}
	return nil, "", false
}

func (w *walker) isRouteTable(arr *tjs.ArrayExpr) bool {
	found := false
	for _, e := range arr.List {
		if e.Value == nil || e.Spread {
			continue
		}
		obj, ok := e.Value.(*tjs.ObjectExpr)
		if !ok {
			return false
		}
		if _, s, ok := routePath(obj); ok && (s == "" || s[0] == '/' || s[0] == ':') {
			found = true
		}
	}
	return found
}

func (w *walker) firstPathOffset(arr *tjs.ArrayExpr) int64 {
	for _, e := range arr.List {
		if obj, ok := e.Value.(*tjs.ObjectExpr); ok {
			if val, _, ok := routePath(obj); ok {
				return w.literalOffset(val)
			}
		}
	}
	return -1
}

// emitRoutes reports the string paths of arr's objects and follows their
// children arrays (literals, or bindings to them).
func (w *walker) emitRoutes(arr *tjs.ArrayExpr, parent int, via string, depth int, seen map[*tjs.ArrayExpr]bool) {
	if depth > maxRouteDepth {
		return
	}
	for _, e := range arr.List {
		obj, ok := e.Value.(*tjs.ObjectExpr)
		if !ok || e.Spread {
			continue
		}
		idx := parent
		if val, s, ok := routePath(obj); ok {
			if len(w.f.Routes) >= maxRoutes {
				return
			}
			idx = len(w.f.Routes)
			w.f.Routes = append(w.f.Routes, ports.JSRoute{Path: truncate(s, w.lim.MaxStringBytes), Offset: w.literalOffset(val), Parent: parent, Via: via})
		}
		for _, p := range obj.List {
			if p.Spread || p.Name == nil {
				continue
			}
			if !propKeyIs(p.Name, "children") {
				continue
			}
			var child *tjs.ArrayExpr
			switch c := p.Value.(type) {
			case *tjs.ArrayExpr:
				child = c
			case *tjs.Var:
				child = w.arrayBinds[root(c)]
			}
			if child != nil && !seen[child] {
				seen[child] = true
				w.emitRoutes(child, idx, via, depth+1, seen)
			}
		}
	}
}
