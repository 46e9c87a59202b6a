package js

import (
	"fmt"
	"slices"

	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// Which exports of a module a file uses. An import statement names them
// (import {a} from "m"); a require or a namespace import does not, so the
// walker collects the members read from the module object
// (const m = require("m"); m.a(); import * as m from "m"; m.b) and the keys
// destructured from it (const {c} = require("m")), and finish adds them to
// the names of that module's first import in the same scope. A member read
// on a default import is a property of the default export, not an export,
// so it is not counted.

// maxUseNames bounds the names added to one import; the rest are counted
// in a limitation.
const maxUseNames = 64

type useKey struct {
	spec     string
	inModule int
}

type moduleUses struct {
	names []string
	over  map[string]bool // names beyond maxUseNames
}

// usedModule is the module whose member a read of x.name reads: x an alias
// of a whole module, or require("m"); "" otherwise. (Asked first, so that
// the name of the member of anything else is never made a string.)
func (w *walker) usedModule(x tjs.IExpr) string {
	switch t := x.(type) {
	case *tjs.Var:
		if len(w.aliases) == 0 {
			return ""
		}
		if a, ok := w.aliases[root(t)]; ok && a.whole {
			return a.module
		}
	case *tjs.CallExpr:
		if spec, ok := w.requireSpec(t); ok {
			return spec // require("m").name
		}
	}
	return ""
}

func (w *walker) useName(spec, name string) { useName(w, spec, name) }

// useName notes that the file reads member name of module spec; name is
// made a string only the first time.
func useName[S string | []byte](w *walker, spec string, name S) {
	if spec == "" {
		return
	}
	k := useKey{spec, w.inModule()}
	if w.uses == nil {
		w.uses = map[useKey]*moduleUses{}
	}
	u := w.uses[k]
	if u == nil {
		u = &moduleUses{}
		w.uses[k] = u
		w.useOrder = append(w.useOrder, k)
	}
	switch {
	case slices.ContainsFunc(u.names, func(n string) bool { return n == string(name) }):
	case len(u.names) >= maxUseNames:
		if u.over == nil {
			u.over = map[string]bool{}
		}
		u.over[string(name)] = true
	default:
		u.names = append(u.names, string(name))
	}
}

// attachUses adds the collected names to each module's first import, in
// the order they were first used, after the names the statement gave.
func (w *walker) attachUses() {
	if len(w.useOrder) == 0 {
		return
	}
	// Each module's first import, found once: a bundle can hold thousands
	// of imports and of used modules.
	first := make(map[useKey]int, len(w.uses))
	for i, im := range w.f.Imports {
		k := useKey{im.Specifier, im.InModule}
		if _, seen := first[k]; !seen && !im.Dynamic && usesNames(im.Kind) && w.uses[k] != nil {
			first[k] = i
		}
	}
	omitted := 0
	for _, k := range w.useOrder {
		i, ok := first[k]
		if !ok {
			continue
		}
		u, im := w.uses[k], &w.f.Imports[i]
		for _, n := range u.names {
			if !slices.Contains(im.Names, n) {
				im.Names = append(im.Names, n)
			}
		}
		omitted += len(u.over)
	}
	if omitted > 0 {
		w.f.Limitations = append(w.f.Limitations, fmt.Sprintf("%d names read from imported modules beyond the first %d per module were not added to their imports' names.", omitted, maxUseNames))
	}
}

// usesNames reports the import kinds whose binding is the module object.
func usesNames(kind string) bool {
	return kind == ports.JSRequire || kind == ports.JSImportStatic
}
