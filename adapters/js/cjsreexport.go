package js

import (
	"strings"

	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// CommonJS re-exports: a module that passes on another's exports by
// assignment rather than by export ... from. Read as their ES forms, so
// that a reader following re-exports (an imported IPC handler's
// definition) follows these too:
//
//	module.exports = require("./h")      export * from "./h" (its default kept)
//	module.exports = h                   the same, h = require("./h")
//	exports.open = require("./x").open   export {open} from "./x"
//	exports.open = h.open                the same, h = require("./x")
//	module.exports = {open}              the same, const {open} = require("./x")

// cjsReexport is the module and the name there that value, assigned to
// an export, passes on: ("./x", "open") for require("./x").open or a
// binding required so; ("./x", "*") for the whole module; ok false for
// anything else (a deeper path, a name of the file).
func (w *walker) cjsReexport(value tjs.IExpr) (spec, local string, ok bool) {
	if value == nil {
		return "", "", false
	}
	al, ok := w.calleeAlias(value)
	if !ok || al.module == "" || strings.Contains(al.member, ".") {
		return "", "", false
	}
	if al.member == "" {
		if !al.whole {
			return "", "", false
		}
		return al.module, "*", true
	}
	return al.module, al.member, true
}

// cjsExport records the export e, assigned value: a re-export of the
// name value passes on (Source and Local), else e as it is. A whole
// module assigned to module.exports (e named default) adds its export *.
func (w *walker) cjsExport(e ports.JSExport, value tjs.IExpr) {
	spec, local, ok := w.cjsReexport(value)
	switch {
	case !ok:
	case local == "*" && e.Name == "default":
		w.addExport(e, value)
		w.addExport(ports.JSExport{Name: "*", Kind: "export-all", Source: spec, Offset: e.Offset, Value: unknownShape()}, nil)
		return
	case local != "*":
		e.Source, e.Local = spec, local
	}
	w.addExport(e, value)
}
