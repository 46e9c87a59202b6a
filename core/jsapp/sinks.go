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
// to it. A literal argument is one node wherever it is written; a
// computed one is known by its expression in its file.
func (b *jsappBuilder) systemNode(a *jsAsset, c ports.JSCall, api string) {
	arg, literal := "", false
	off := c.Offset
	if len(c.Args) > 0 {
		arg = argumentText(c.Args[0])
		literal = c.Args[0].Kind == ports.JSValString
		if c.Args[0].Offset >= 0 {
			off = c.Args[0].Offset
		}
	}
	if arg == "" {
		arg = "…"
	}
	label := api + "(" + arg + ")"
	ident := label
	if !literal {
		ident += " in " + a.path
	}
	props := map[string]any{"api": api, "argument": arg, "literal": literal}
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
