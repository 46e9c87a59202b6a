package jsapp

import (
	"strings"

	"rea/ports"
)

// exposedImports notes the bodies of the members that call i of asset a
// (contextBridge.exposeInMainWorld) exposes by a name imported from
// another file of the app ({open} after const {open} = require("./api");
// ports.JSFunction with Prop and Module): the function that file exports
// under that name, or passes on from another (definedExport), when one
// export defines it. Its calls there go from the API id, with the member,
// as an inline member's do (memberOf). One that resolves to no single
// function with recorded calls stays the file's.
func (b *jsappBuilder) exposedImports(a *jsAsset, i int, id string) {
	if id == "" {
		return
	}
	for _, f := range a.facts.Functions {
		if f.Call != i || f.Arg != 1 || f.Prop == "" || f.Module == "" || f.Member == "" || strings.Contains(f.Member, ".") {
			continue
		}
		p, ok := b.st.resolveModule(a.path, f.Module, ports.JSRequire)
		if !ok {
			continue
		}
		d, state := b.definedExport(b.st.assets[p], f.Member, 0, map[exportKey]bool{})
		if state != 1 || d.e.First < 0 || d.e.First >= d.e.End || d.e.End > len(d.a.facts.Calls) {
			continue
		}
		if b.memberBodies == nil {
			b.memberBodies = map[*jsAsset][]memberBody{}
		}
		b.memberBodies[d.a] = append(b.memberBodies[d.a], memberBody{d.e.First, d.e.End, id, f.Prop})
	}
}
