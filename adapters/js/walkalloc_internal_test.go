package js

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tdewolff/parse/v2"
	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// walkerOn parses src and returns a walker that walked it (as Facts does)
// and the expression of each expression statement.
func walkerOn(t *testing.T, src string) (*walker, []tjs.IExpr) {
	t.Helper()
	buf := make([]byte, len(src), len(src)+1)
	copy(buf, src)
	ast, err := tjs.Parse(parse.NewInputBytes(buf), tjs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker(context.Background(), buf, ports.JSRequest{}, limitsOf(ports.JSLimits{}), &ports.JSFacts{})
	w.scope = &ast.BlockStmt.Scope
	w.bindImports(ast)
	w.walk(ast)
	var xs []tjs.IExpr
	for _, st := range ast.BlockStmt.List {
		if e, ok := st.(*tjs.ExprStmt); ok {
			xs = append(xs, e.Value)
		}
	}
	return w, xs
}

// The walk renders a callee path for every call and assignment and looks
// at every member read: a path is one string whatever its length (it was
// one per name and per dot), an assignment to anything but an export makes
// none, and a member read of anything but a module makes none (its name
// was made a string each time). The paths are the same as before.
func TestWalkPathsAllocateOnce(t *testing.T) {
	w, xs := walkerOn(t, `const m = require("m");
a.b.c.d.e;
x.y.z = 1;
m.sub["k"].f;
new (0, m.C)().g;
require("q").h.i;
this.j;
o.aMemberNameLongerThanThirtyTwoBytes;
`)
	if len(xs) != 7 {
		t.Fatalf("%d expression statements", len(xs))
	}
	for _, c := range []struct {
		x            tjs.IExpr
		path, module string
		member       string
	}{
		{xs[0], "a.b.c.d.e", "", ""},
		{xs[2], "m.sub.k.f", "m", "sub.k.f"},
		{xs[3], "new m.C.g", "m", "C.g"},
		{xs[4], `require("q").h.i`, "q", "h.i"},
		{xs[5], "this.j", "", ""},
	} {
		p, al, ok := w.calleePath(c.x, 0)
		if !ok || p != c.path || al.module != c.module || al.member != c.member {
			t.Errorf("calleePath: %q %+v %v, want %q %s %s", p, al, ok, c.path, c.module, c.member)
		}
	}
	long := xs[0]
	if n := testing.AllocsPerRun(20, func() { w.calleePath(long, 0) }); n > 1 {
		t.Errorf("calleePath of a.b.c.d.e: %v allocations, want 1", n)
	}
	assign := xs[1].(*tjs.BinaryExpr)
	if n := testing.AllocsPerRun(20, func() { w.assign(assign) }); n > 0 {
		t.Errorf("assign x.y.z = 1: %v allocations, want 0", n)
	}
	read := xs[6].(*tjs.DotExpr)
	if n := testing.AllocsPerRun(20, func() { w.walk(read) }); n > 0 {
		t.Errorf("walk o.aMemberNameLongerThanThirtyTwoBytes: %v allocations, want 0", n)
	}
}

// A call or new expression the selector does not select is looked at and
// left: its callee path is compared, never kept, so it is never made a
// string. A selected one keeps a copy of its own.
func TestUnselectedCallsAllocateNothing(t *testing.T) {
	src := "aa.bb.cc.dd.ee.ff(1);\nnew f.g.H(2);\nx.y.open(3);\nzz.ww.open(4);\n"
	buf := make([]byte, len(src), len(src)+1)
	copy(buf, src)
	ast, err := tjs.Parse(parse.NewInputBytes(buf), tjs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &ports.JSFacts{}
	w := newWalker(context.Background(), buf, ports.JSRequest{Calls: &ports.JSCallSelector{LastNames: []string{"open"}}}, limitsOf(ports.JSLimits{}), f)
	w.scope = &ast.BlockStmt.Scope
	var xs []tjs.IExpr
	for _, st := range ast.BlockStmt.List {
		xs = append(xs, st.(*tjs.ExprStmt).Value)
	}
	call, nw := xs[0].(*tjs.CallExpr), xs[1].(*tjs.NewExpr)
	if n := testing.AllocsPerRun(20, func() { w.call(call) }); n > 0 {
		t.Errorf("call aa.bb.cc.dd.ee.ff(1): %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(20, func() { w.newExpr(nw) }); n > 0 {
		t.Errorf("new f.g.H(2): %v allocations, want 0", n)
	}
	if len(f.Calls) != 0 {
		t.Fatalf("recorded %+v", f.Calls)
	}
	w.walk(ast)
	// Each callee is the call's own string: the scratch the first was
	// rendered in holds the second's by then.
	if len(f.Calls) != 2 || f.Calls[0].Callee != "x.y.open" || f.Calls[1].Callee != "zz.ww.open" {
		t.Fatalf("recorded %+v, want x.y.open and zz.ww.open", f.Calls)
	}
}

// A module member read again, a string-keyed member read of anything but
// a module and the keys of an object literal that routes.go looks for are
// compared where the source holds them, never made strings.
func TestMemberReadsAndKeysAllocateNothing(t *testing.T) {
	w, xs := walkerOn(t, `const m = require("m");
m.aMemberNameLongerThanSixteen;
m.aMemberNameLongerThanSixteen;
o["aKeyNameLongerThanSixteenBytes"];
({aPropertyNameLongerThanSixteen: 1, "aQuotedNameLongerThanSixteen": 2, routes: []});
`)
	if len(xs) != 4 {
		t.Fatalf("%d expression statements", len(xs))
	}
	again := xs[1].(*tjs.DotExpr)
	if n := testing.AllocsPerRun(20, func() { w.walk(again) }); n > 0 {
		t.Errorf("walk m.aMemberNameLongerThanSixteen read again: %v allocations, want 0", n)
	}
	index := xs[2].(*tjs.IndexExpr)
	w.lim.MaxStrings = len(w.strs) // the key is a string literal fact of its own
	if n := testing.AllocsPerRun(20, func() { w.walk(index) }); n > 0 {
		t.Errorf(`walk o["aKeyNameLongerThanSixteenBytes"]: %v allocations, want 0`, n)
	}
	obj := xs[3].(*tjs.GroupExpr).X.(*tjs.ObjectExpr)
	w.routeCands = nil
	if n := testing.AllocsPerRun(20, func() { w.routeCands = w.routeCands[:0]; w.routeObject(obj) }); n > 0 {
		t.Errorf("routeObject: %v allocations, want 0", n)
	}
	if len(w.routeCands) != 1 || w.routeCands[0].via != "property:routes" {
		t.Errorf("route candidates %+v, want the routes property's", w.routeCands)
	}
	if u := w.uses[useKey{"m", -1}]; u == nil || !slices.Equal(u.names, []string{"aMemberNameLongerThanSixteen"}) {
		t.Errorf("uses of m: %+v", u)
	}
}

// A walker is one allocation: the maps most files never fill are made on
// first use.
func TestNewWalkerAllocatesOnce(t *testing.T) {
	req := ports.JSRequest{Calls: &ports.JSCallSelector{LastNames: []string{"open"}, Roots: []string{"window"}}}
	lim := limitsOf(ports.JSLimits{})
	f := &ports.JSFacts{}
	newWalker(context.Background(), nil, req, lim, f) // the selector's sets, made once
	if n := testing.AllocsPerRun(20, func() { newWalker(context.Background(), nil, req, lim, f) }); n > 1 {
		t.Errorf("newWalker: %v allocations, want 1", n)
	}
	w, _ := walkerOn(t, `const m = require("m"), {a: b} = require("n"); m.x(); b();`)
	if w.aliases[w.scope.Declared[0]].module != "m" || len(w.aliases) != 2 {
		t.Errorf("aliases %v", w.aliases)
	}
}

// extract takes its walker and the scratch for a file's string literals
// from pools, with the room of the lists every walk appends to: a file
// without facts to record costs it no allocation.
func TestExtractReusesItsWalker(t *testing.T) {
	src := "g(() => { var a = 1, b = 2; a = 3; b++; return a + b });\n"
	buf := make([]byte, len(src), len(src)+1)
	copy(buf, src)
	ast, err := tjs.Parse(parse.NewInputBytes(buf), tjs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req := ports.JSRequest{Source: buf, Calls: &ports.JSCallSelector{LastNames: []string{"open"}}}
	lim, f := limitsOf(ports.JSLimits{}), &ports.JSFacts{}
	if n := testing.AllocsPerRun(20, func() { extract(context.Background(), buf, req, lim, f, ast) }); n > 0 {
		t.Errorf("extract of %q: %v allocations, want 0", src, n)
	}
}

// release clears only what the walk used of declNotes and written: the
// rest of their room must still be zero then, whatever an earlier, larger
// file left in it, so a pooled walker keeps no node of any file alive.
func TestReleasedWalkerHoldsNoNode(t *testing.T) {
	var big strings.Builder
	for i := range 200 {
		fmt.Fprintf(&big, "var v%d = 1; v%d = 2; function f%d() {}\n", i, i, i)
	}
	w, _ := walkerOn(t, big.String())
	if len(w.written) < 200 || len(w.declNotes) < 200 {
		t.Fatalf("the large file noted %d writes and %d declarations", len(w.written), len(w.declNotes))
	}
	w.release()
	for _, src := range []string{"var a = 1; a = 2; function g() {}\n", ""} {
		buf := make([]byte, len(src), len(src)+1)
		copy(buf, src)
		ast, err := tjs.Parse(parse.NewInputBytes(buf), tjs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.reset(context.Background(), buf, ports.JSRequest{}, limitsOf(ports.JSLimits{}), &ports.JSFacts{})
		w.scope = &ast.BlockStmt.Scope
		w.walk(ast)
		w.release()
		if i := slices.IndexFunc(w.written[:cap(w.written)], func(v *tjs.Var) bool { return v != nil }); i >= 0 {
			t.Errorf("after %q: written[%d] of %d is still set", src, i, cap(w.written))
		}
		if i := slices.IndexFunc(w.declNotes[:cap(w.declNotes)], func(d declNote) bool { return d != declNote{} }); i >= 0 {
			t.Errorf("after %q: declNotes[%d] of %d is still set", src, i, cap(w.declNotes))
		}
	}
}
