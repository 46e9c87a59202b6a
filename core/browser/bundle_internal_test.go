package browser

import (
	"strings"
	"testing"

	"rea/ports"
)

// TestLineColIsOneBasedLineUTF16Column: bundle findings are located as
// rea locates code: line 1-based, column 0-based in UTF-16 code units, so
// they agree with CDP's initiator and console columns on non-ASCII lines.
func TestLineColIsOneBasedLineUTF16Column(t *testing.T) {
	src := []byte("a\nconst s = \"é😀\"; fetch(\"/x\")\n\xff\xfeb")
	for _, c := range []struct {
		off       int64
		line, col int
		what      string
	}{
		{0, 1, 0, "the first byte"},
		{2, 2, 0, "a line's first byte"},
		{int64(len("a\nconst s = \"é😀\"; ")), 2, 17, "after é (1 unit) and 😀 (2 units)"},
		{int64(len(src) - 1), 3, 2, "after two bytes that are not UTF-8"},
		{int64(len(src)), 3, 3, "the end"},
		{-1, 0, 0, "out of range"},
		{int64(len(src) + 1), 0, 0, "out of range"},
	} {
		if l, col := lineCol(src, c.off); l != c.line || col != c.col {
			t.Errorf("%s: lineCol(%d) = %d:%d, want %d:%d", c.what, c.off, l, col, c.line, c.col)
		}
	}
}

// TestLineColCountsTheParsersLineTerminators: lines end at \n, \r, \r\n,
// U+2028 and U+2029, as the JavaScript parser and V8 end them; before, only
// \n was counted, so a finding after a \r\n line was a line short when
// the file used \r alone or U+2028.
func TestLineColCountsTheParsersLineTerminators(t *testing.T) {
	src := []byte("a\r\nb\rc\u2028d\u2029é f")
	for _, c := range []struct {
		off       int64
		line, col int
	}{
		{int64(len("a\r\n")), 2, 0},
		{int64(len("a\r\nb\r")), 3, 0},
		{int64(len("a\r\nb\rc\u2028")), 4, 0},
		{int64(len("a\r\nb\rc\u2028d\u2029é ")), 5, 2},
	} {
		if l, col := lineCol(src, c.off); l != c.line || col != c.col {
			t.Errorf("lineCol(%d) = %d:%d, want %d:%d", c.off, l, col, c.line, c.col)
		}
	}
}

// callPosition reads page source, which is untrusted: any source and any
// offsets give a position inside the source or -1, never a panic.
func FuzzCallPosition(f *testing.F) {
	f.Add([]byte(`function f(){ r({ name: "a" }); new a.B("x") }`), int64(18), int32(14), "navigator.modelContext.registerTool", false)
	f.Add([]byte(`new  WebSocket ( "ws://x" )`), int64(17), int32(5), "WebSocket", true)
	f.Add([]byte(`x("\"(", '(' , `+"`(`"+`, "y")`), int64(20), int32(-1), "x", false)
	f.Fuzz(func(t *testing.T, src []byte, anchor int64, callee int32, name string, isNew bool) {
		call := ports.JSCall{Callee: name, New: isNew, Offset: anchor, CalleeOffset: callee}
		if p := callPosition(src, call); p < -1 || p >= int64(len(src)) && p != -1 {
			t.Fatalf("position %d outside a %d-byte source", p, len(src))
		}
	})
}

// A keyed or parenthesized callee (o["get"](…), and (0, api.get)(…), which
// bundlers emit for an imported function's call) is placed by V8 at the
// parenthesis that opens the arguments, not at a name: a Node stack frame
// of each call below names that column. Before, the bundle fell back to
// the URL literal (keyed, parenthesized plain name) or put the call at the
// property name (parenthesized member). The calls carry what adapters/js
// reports: a keyed callee's CalleeOffset is its key's quote, a member's its
// property name, a top-level plain name's -1.
func TestCallPositionKeyedAndParenthesizedCalleesSitAtTheParenthesis(t *testing.T) {
	for _, c := range []struct {
		src, callee     string
		callAt, literal string // what the callee offset and the first literal point at ("" none)
		want            string // the text V8's position starts
	}{
		{`o["get"]("/k");`, "o.get", `"get"`, `"/k"`, `("/k");`},
		{`o [ 'get' ] ( "/k" );`, "o.get", `'get'`, `"/k"`, `( "/k" );`},
		{`(0, api.get)("/p");`, "api.get", `get`, `"/p"`, `("/p");`},
		{`(0, fetch)("/f");`, "fetch", "", `"/f"`, `("/f");`},
		{`(api.get)("/t");`, "api.get", `get`, `"/t"`, `("/t");`},
		{`(0, api.get)(u);`, "api.get", `get`, "", `(u);`},
		{`o["get"](u);`, "o.get", `"get"`, "", `(u);`},
		// unchanged: a name before the parenthesis is the call's position
		{`api.get("/m");`, "api.get", `get`, `"/m"`, `get("/m");`},
		{`api.get(u);`, "api.get", `get`, "", `get(u);`},
		{`fetch("/f");`, "fetch", "", `"/f"`, `fetch("/f");`},
	} {
		call := ports.JSCall{Callee: c.callee, Offset: -1, CalleeOffset: -1}
		if c.callAt != "" {
			call.CalleeOffset = int32(strings.Index(c.src, c.callAt))
		}
		if c.literal != "" {
			call.Offset = int64(strings.Index(c.src, c.literal))
			call.Args = []ports.JSValue{{Kind: ports.JSValString, Offset: call.Offset}}
		}
		p := callPosition([]byte(c.src), call)
		if p < 0 || c.src[p:] != c.want {
			got := "-1"
			if p >= 0 {
				got = c.src[p:]
			}
			t.Errorf("%s: at %q, want %q", c.src, got, c.want)
		}
	}
}
