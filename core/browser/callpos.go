package browser

import (
	"bytes"

	"rea/ports"
)

// callPosition is where V8 places call, the position a stack frame of the
// call reports (inspect_web_page's request initiators, discover_webmcp_tools'
// registrations): the callee's last name at this call (fetch in fetch(…),
// get in api.get(…), r in r(…)), `new` for a construction, and for a keyed
// or parenthesized callee (o["f"](…), (0, x.f)(…), the form bundlers emit
// for an imported function's call) the parenthesis that opens the
// arguments, as V8 places every call whose callee does not end in a name.
// The parse places only a member's property name or a key per call
// (ports.JSCall.CalleeOffset); a plain or aliased name's CalleeOffset is its
// first use in the scope, so the call is found from inside its arguments:
// back to the parenthesis that opens them, then what stands before it, a
// closing bracket or parenthesis or a name, which must be the callee's
// spelling there or its last name. -1 when the source does not read so (a
// call with nothing positioned inside its arguments and no member name or
// key).
func callPosition(src []byte, call ports.JSCall) int64 {
	member := int64(-1)
	if off := int(call.CalleeOffset); off > 0 && off < len(src) && (precededByDot(src, off) || keyed(src, off)) {
		member = int64(off)
		if p := calleeParen(src, off); p >= 0 && !call.New {
			return int64(p)
		}
		if keyed(src, off) {
			member = -1 // a key is never V8's position
		}
	}
	anchor := argsOffset(call)
	if anchor < 0 || anchor > int64(len(src)) {
		return member
	}
	open := openParen(src, int(anchor))
	if open < 0 {
		return member
	}
	end := skipSpaceBack(src, open)
	if end > 0 && (src[end-1] == ')' || src[end-1] == ']') && !call.New {
		// (0, fetch)("/x"): the literal is this call's, so the parenthesis
		// opens its arguments and what it follows is its callee.
		return int64(open)
	}
	start := end
	for start > 0 && identByte(src[start-1]) {
		start--
	}
	name := string(src[start:end])
	if name == "" || name != identAt(src, int(call.CalleeOffset)) && name != lastSegment(call.Callee) {
		return member
	}
	if call.New {
		p := start
		for { // back over a dotted path: new a.b.C(…)
			q := skipSpaceBack(src, p)
			if q == 0 || src[q-1] != '.' {
				p = q
				break
			}
			p = skipSpaceBack(src, q-1)
			for p > 0 && identByte(src[p-1]) {
				p--
			}
		}
		if p >= 3 && string(src[p-3:p]) == "new" && (p == 3 || !identByte(src[p-4])) {
			return int64(p - 3)
		}
	}
	return int64(start)
}

// argsOffset is the smallest known offset inside call's arguments (a
// literal's, or a literal's inside an object, array or template), or -1.
// 0 is never one (the callee comes first), and is taken for unknown.
func argsOffset(call ports.JSCall) int64 {
	best := int64(-1)
	var walk func(v ports.JSValue, depth int)
	walk = func(v ports.JSValue, depth int) {
		if v.Offset > 0 && (best < 0 || v.Offset < best) {
			best = v.Offset
		}
		if depth > 4 {
			return
		}
		for _, p := range v.Props {
			walk(p.Value, depth+1)
		}
		for _, x := range v.Items {
			walk(x, depth+1)
		}
		for _, x := range v.Parts {
			walk(x, depth+1)
		}
	}
	if call.Offset > 0 {
		best = call.Offset
	}
	for _, a := range call.Args {
		walk(a, 0)
	}
	return best
}

// openParen finds, going back from off, the parenthesis that opens the
// argument list off lies in: brackets closed on the way are skipped, as are
// string and template literals; -1 past 64 KiB or the start.
func openParen(src []byte, off int) int {
	depth := 0
	for i := off - 1; i >= 0 && off-i <= 64<<10; i-- {
		switch c := src[i]; c {
		case ')', ']', '}':
			depth++
		case '[', '{': // at depth 0, an object or array the argument opens
			if depth > 0 {
				depth--
			}
		case '(':
			if depth == 0 {
				return i
			}
			depth--
		case '"', '\'', '`':
			j := i - 1
			for j >= 0 && (src[j] != c || escaped(src, j)) {
				j--
			}
			if j < 0 {
				return -1
			}
			i = j
		}
	}
	return -1
}

// escaped reports whether src[i] follows an odd run of backslashes.
func escaped(src []byte, i int) bool {
	n := 0
	for i-n-1 >= 0 && src[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
}

// skipSpaceBack is the offset just after the last non-space byte before i.
func skipSpaceBack(src []byte, i int) int {
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n' || src[i-1] == '\r') {
		i--
	}
	return i
}

// precededByDot reports whether the name at off is a member's (a.b, a?.b).
func precededByDot(src []byte, off int) bool {
	p := skipSpaceBack(src, off)
	return p > 0 && src[p-1] == '.'
}

// keyed reports whether off starts a string key (o["f"]).
func keyed(src []byte, off int) bool {
	p := skipSpaceBack(src, off)
	return p > 0 && src[p-1] == '[' && (src[off] == '"' || src[off] == '\'')
}

// calleeParen is the parenthesis that opens the arguments of a call whose
// callee's property name or key is at off, when the callee is keyed or
// parenthesized (a ']' or ')' comes between them: o["f"](…), (0, x.f)(…));
// -1 otherwise.
func calleeParen(src []byte, off int) int {
	i := off
	if c := src[i]; c == '"' || c == '\'' {
		for i++; i < len(src) && (src[i] != c || escaped(src, i)); i++ {
		}
		i++
	} else {
		for i < len(src) && identByte(src[i]) {
			i++
		}
	}
	closed := false
	for range 8 {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i >= len(src) {
			return -1
		}
		switch src[i] {
		case ')', ']':
			closed = true
			i++
			continue
		case '(':
			if closed {
				return i
			}
		}
		return -1
	}
	return -1
}

// identByte is a byte of a JavaScript name (any non-ASCII byte counts).
func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// identAt is the name spelled at off, or "".
func identAt(src []byte, off int) string {
	if off < 0 || off >= len(src) {
		return ""
	}
	end := off
	for end < len(src) && identByte(src[end]) {
		end++
	}
	return string(bytes.Clone(src[off:end]))
}
