package browser

import (
	"fmt"
	"strings"
	"testing"

	"rea/ports"
)

// xhrCalls lists the open() and send() member calls of src in source
// order, as adapters/js reports them: the callee's property name at the
// call. A receiver is the name path before ".open(" or ".send(".
func xhrCalls(src string) []ports.JSCall {
	var calls []ports.JSCall
	for i := 0; i < len(src); i++ {
		for _, m := range []string{".open(", ".send("} {
			if !strings.HasPrefix(src[i:], m) {
				continue
			}
			j := i
			for j > 0 && (src[j-1] == '.' || src[j-1] == '_' || src[j-1] >= 'a' && src[j-1] <= 'z') {
				j--
			}
			calls = append(calls, ports.JSCall{Callee: src[j:i] + m[:5], Offset: -1, CalleeOffset: int32(i + 1)})
		}
	}
	return calls
}

// An XHR's send() is named only when it is the open()'s own: same name, in
// the block that holds the open() (a nested handler is inside it), and
// the name neither assigned nor declared again between them. Before,
// pairing went by name alone, so a send() of another function's x, or of
// a new XMLHttpRequest assigned to x, became the open()'s send_location.
func TestXHRSendFollowsTheBinding(t *testing.T) {
	for _, c := range []struct {
		name, src string
		paired    bool
		why       string
	}{
		{"same function, handler between", `function a() { const x = new XMLHttpRequest(); x.open("GET", "/a"); x.onload = function () { if (x.status) done("}"); }; x.send(); }`, true, ""},
		{"regex and template between", "function a() { x.open('GET', u); const r = /}/g, s = `${ {k: 1}.k }}`; x.send(); }", true, ""},
		{"nested callback", `function a() { x.open("GET", "/a"); setTimeout(() => { x.send(); }); }`, true, ""},
		{"this path", `class C { go() { this.req.open("GET", "/a"); this.req.send(); } }`, true, ""},
		{"another function's x", `function a() { const x = new XMLHttpRequest(); x.open("GET", "/a"); keep(x); }
function b() { const x = new XMLHttpRequest(); x.send(); }`, false, "outside the block"},
		{"reassigned", `let x = new XMLHttpRequest(); x.open("GET", "/c"); x = new XMLHttpRequest(); x.send();`, false, "assigned"},
		{"declared again", `x.open("GET", "/c"); { let x = other(); x.send(); }`, false, "declared"},
		{"arrow parameter", `x.open("GET", "/d"); list.forEach(x => x.send());`, false, "parameter"},
		{"function parameter", `x.open("GET", "/d"); list.forEach(function (a, x) { x.send(); });`, false, "parameter"},
		{"path assigned", `this.req.open("GET", "/e"); this.req = new XMLHttpRequest(); this.req.send();`, false, "assigned"},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := xhrCalls(c.src)
			got := xhrSends([]byte(c.src), calls)
			p, ok := got[0]
			if !ok {
				t.Fatalf("the open() has no pairing: %v", got)
			}
			if c.paired != (p.send >= 0) || c.paired && calls[p.send].Callee != strings.Replace(calls[0].Callee, ".open", ".send", 1) {
				t.Fatalf("send = %d (%q), want paired %v", p.send, p.why, c.paired)
			}
			if !strings.Contains(p.why, c.why) {
				t.Errorf("why = %q, want it to say %q", p.why, c.why)
			}
		})
	}
}

// The source read to pair sends is bounded per script: receivers of
// different names that each span the script are read until maxXHRRead is
// spent, in the order of their first call, and the rest say so.
func TestXHRSendReadingIsBounded(t *testing.T) {
	var b strings.Builder
	n := maxXHRRead/(maxXHRGap-4096) + 2
	for i := range n {
		fmt.Fprintf(&b, "r%c.open('GET', u);\n", 'a'+i)
	}
	b.WriteString("/*" + strings.Repeat(" ", maxXHRGap-4096) + "*/\n")
	for i := range n {
		fmt.Fprintf(&b, "r%c.send();\n", 'a'+i)
	}
	src := b.String()
	calls := xhrCalls(src)
	got := xhrSends([]byte(src), calls)
	var paired, unread int
	for i, c := range calls {
		p, ok := got[i]
		if !strings.HasSuffix(c.Callee, ".open") || !ok {
			continue
		}
		switch {
		case p.send >= 0:
			paired++
		case strings.Contains(p.why, "budget was spent"):
			unread++
		default:
			t.Errorf("%s: %q", c.Callee, p.why)
		}
		if unread == 1 && p.send >= 0 {
			t.Errorf("%s was read after the budget was spent", c.Callee)
		}
	}
	if paired == 0 || unread == 0 || paired+unread != n {
		t.Errorf("paired %d, unread %d of %d", paired, unread, n)
	}
}
