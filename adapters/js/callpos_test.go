package js_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCallPosition: each recorded call carries where V8 places it, the
// position a stack frame of the call reports. In each source '@' marks it
// (removed before the parse), as node 20's stack frames name it for every
// form below: the callee's last name, `new`, or the parenthesis that opens
// the arguments when the callee does not end in a name. A source without
// '@' is a call its own tokens cannot place: its first call is at -1.
func TestCallPosition(t *testing.T) {
	for _, src := range []string{
		// a plain name, placed from its arguments
		`@fetch("/a");`,
		`@fetch ( "/a" );`,
		`@fetch(base + "/b");`,
		"@fetch(`/v1/${id}`);",
		`@fetch(url, {method: "POST"});`,
		`@fetch(a, b, "/c");`,
		`@fetch(...a, "/c");`,
		`@fetch(x.y, "/c");`,
		`@r({ name: "three" });`,
		`@fetch(/* why */ "/a");`,
		`@fetch(!a, "/c");`,
		`@fetch(typeof a, "/c");`,
		`@fetch(g(a)(b), "/c");`,
		`fetch(e);`,
		`fetch();`,
		`fetch( // a line comment
			"/a");`,
		// a member, at its last name
		`a.b.@c(d);`,
		`a.b.@c();`,
		`api?.@get(u);`,
		`this.@send(x);`,
		`o . @f (1);`,
		// construction, at new
		`@new WebSocket("ws://x/s");`,
		`@new  WebSocket ( "ws://x/s" );`,
		`@new a.b.C(x);`,
		`@new a.b.C;`,
		`@new this.C(x);`,
		`@new Worker(new URL("./w.js", import.meta.url));`,
		`x = @new XMLHttpRequest(1);`,
		`new WebSocket(e);`,
		// keyed and parenthesized callees, optional calls: the parenthesis
		`o["get"]@("/k");`,
		`o [ 'get' ] @( "/k" );`,
		`o["get"]@(u);`,
		`o.g.h["f"]@(u);`,
		`(0, api.get)@("/p");`,
		`(0, api.get)@(u);`,
		`(0, fetch)@("/f");`,
		`(api.get)@("/t");`,
		`(api.get) /* c */ @(u);`,
		`f?.@("/x");`,
		`o.f?.@(1);`,
		`o?.["f"]@(1);`,
		`(0, fetch)(u);`,
		// a regular expression that ends as a comment would is placed by
		// its own token
		`@fetch(/a*/, "/c");`,
		// inside functions, each call at its own name, not the name's first use
		`function f(x){ @fetch("/a"); if (x) { @fetch(x, "/b"); } }`,
		`const {registerTool: r} = navigator.modelContext; function g(){ @r({ name: "one" }); @r({ name: "two" }); }`,
	} {
		var want []int
		for i, n := 0, 0; i < len(src); i++ {
			if src[i] == '@' {
				want = append(want, i-n)
				n++
			}
		}
		clean := strings.ReplaceAll(src, "@", "")
		f := facts(t, clean)
		if !f.Parsed || len(f.Calls) == 0 {
			t.Errorf("%s: no call recorded (%v)", src, f.Errors)
			continue
		}
		if len(want) == 0 {
			if p := f.Calls[0].Position; p != -1 {
				t.Errorf("%s: placed at %s", src, clean[:p]+"@"+clean[p:])
			}
			continue
		}
		// each mark is a call's position
		var got []int
		for _, c := range f.Calls {
			if c.Position >= 0 {
				got = append(got, int(c.Position))
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no call at the mark; calls at %v", src, got)
			}
		}
	}
}

// TestCallPositionMinified: in a one-line bundle the calls sit far to the
// right, each at its own position, though the names repeat.
func TestCallPositionMinified(t *testing.T) {
	var b strings.Builder
	b.WriteString(`(()=>{"use strict";`)
	var want []int
	for i := range 2000 {
		b.WriteString(`var a` + strconv.Itoa(i) + `=function(e){return `)
		want = append(want, b.Len())
		b.WriteString(`fetch("/api/` + strconv.Itoa(i) + `",{method:"POST"}).then(t=>t.json())};`)
	}
	b.WriteString(`})();`)
	src := b.String()
	f := facts(t, src)
	var got []int
	for _, c := range f.Calls {
		if c.Callee == "fetch" {
			got = append(got, int(c.Position))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d fetch calls, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("call %d at %d, want %d (of a %d-byte line)", i, got[i], want[i], len(src))
		}
	}
}
