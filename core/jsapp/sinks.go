package jsapp

import (
	"strings"

	"rea/ports"
)

// System APIs: the calls that leave the application's code for the
// operating system on a value the code gives, which an analyst of an
// Electron app follows from an IPC channel (a renderer that can open any
// URL, run any command): Electron's shell.openExternal, openPath and
// showItemInFolder, child_process's exec, execFile, spawn and fork (and
// their Sync forms), and a loadURL whose URL is computed at run time. Each
// is a system-api node per API and argument (a computed argument's
// expression per file, as a storage key's), which the calling code (its
// handler, else its file or module) calls.

// childProcessAPIs are child_process's functions that run a program.
var childProcessAPIs = map[string]bool{"exec": true, "execSync": true, "execFile": true, "execFileSync": true,
	"spawn": true, "spawnSync": true, "fork": true}

// systemAPI is the system API call c makes ("shell.openExternal",
// "child_process.spawn"), or "".
func systemAPI(c ports.JSCall) string {
	if c.New {
		return ""
	}
	if n, ok := isMember(c, "shell", "openExternal", "openPath", "showItemInFolder"); ok {
		return "shell." + n
	}
	if c.Module == "child_process" || c.Module == "node:child_process" {
		// By the name it was imported as: const {execSync: run} = ...
		name := c.Member
		if name == "" {
			name = calleeLast(c)
		}
		if childProcessAPIs[name] {
			return "child_process." + name
		}
		return ""
	}
	if last := calleeLast(c); childProcessAPIs[last] && strings.HasPrefix(c.Callee, "child_process.") {
		return "child_process." + last
	}
	return ""
}

// systemCall records a system API call of asset a (systemAPI).
func (b *jsappBuilder) systemCall(a *jsAsset, c ports.JSCall) {
	if api := systemAPI(c); api != "" {
		b.systemNode(a, c, api)
	}
}

// systemNode adds the system-api node of call c to api and the calls edge
// to it. The node is labelled with the arguments as the source writes
// them (systemArguments): spawn("git", ["push", remote]). One whose
// arguments are all literal is one node wherever it is written; a
// computed one is known by its expression in its file.
func (b *jsappBuilder) systemNode(a *jsAsset, c ports.JSCall, api string) {
	arg, args, literal := systemArguments(c)
	off := c.Offset
	if len(c.Args) > 0 && c.Args[0].Offset >= 0 {
		off = c.Args[0].Offset
	}
	label := api + "(" + args + ")"
	ident := label
	if !literal {
		ident += " in " + a.path
	}
	props := map[string]any{"api": api, "argument": arg, "literal": literal}
	if args != arg {
		props["arguments"] = args
	}
	id := b.g.node("system-api", b.localKey("system-api", ident), label, props, b.at(a, off))
	if id == "" {
		return
	}
	if b.systems == nil {
		b.systems = map[string]bool{}
	}
	b.systems[ident] = true
	b.callEdge(a, c, id, "calls", map[string]any{"callee": c.Callee, "api": api}, b.atCall(a, c, off))
}

// systemArguments is what call c hands the system: its first argument
// (the URL, path, command or program) and all its arguments as the source
// writes them (exprText; "…" for one the parse kept nothing of, and none
// of those at the end: a callback, an options object), at most
// maxExpressionBytes; literal when every argument is a constant.
func systemArguments(c ports.JSCall) (first, all string, literal bool) {
	texts := make([]string, 0, len(c.Args))
	literal = len(c.Args) > 0
	for _, v := range c.Args {
		texts = append(texts, exprText(v, 0))
	}
	for len(texts) > 0 && texts[len(texts)-1] == "…" && !isCutMarker(c.Args[len(texts)-1]) {
		texts = texts[:len(texts)-1]
	}
	for _, v := range c.Args[:len(texts)] {
		literal = literal && constantValue(v, 0)
	}
	if len(c.Args) > 0 {
		first = argumentText(c.Args[0])
	}
	if first == "" {
		first = "…"
	}
	if len(texts) == 0 {
		return first, "…", false
	}
	return first, boundText(strings.Join(texts, ", ")), literal
}

// isCutMarker reports the item that ends a list the engine cut at its
// bound (ports.JSValue Items, Args): it stays, so the text ends with "…"
// and the call is not literal.
func isCutMarker(v ports.JSValue) bool {
	return v.Kind == ports.JSValOther && v.Value == "…"
}

// constantValue reports a value the source writes out in full: a string,
// number, boolean or null, or an array of them.
func constantValue(v ports.JSValue, depth int) bool {
	switch v.Kind {
	case ports.JSValString, ports.JSValNumber, ports.JSValBool, ports.JSValNull:
		return true
	case ports.JSValArray:
		if depth >= 3 {
			return false
		}
		for _, it := range v.Items {
			if !constantValue(it, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
