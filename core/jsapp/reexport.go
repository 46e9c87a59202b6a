package jsapp

import (
	"cmp"

	"rea/ports"
)

// Where a re-exported name is defined. An exports relation with a specifier
// (export {a as b} from "./x", and import {a} from "./x"; export {a as b},
// which the engine reports alike) records where the file re-exports the
// name, and its local member the name in the source module; the definition
// lies in the module the file's import or export-from of that specifier
// resolves to, under that name, possibly through further re-exports and
// export * from there.

// maxDefinitionHops bounds the modules followed from a re-export to its
// definition, as maxReexportDepth bounds the export views.
const maxDefinitionHops = 8

// reexportIndex finds, over one application's semantic relations, the
// module a specifier of a module resolves to and a module's exports.
type reexportIndex struct {
	target  map[[2]string]string           // [source, specifier] -> target node
	exports map[[2]string][]map[string]any // [source, name] -> exports relations
	all     map[string][]map[string]any    // source -> its export * from relations
}

func newReexportIndex(rels []map[string]any) *reexportIndex {
	x := &reexportIndex{target: map[[2]string]string{}, exports: map[[2]string][]map[string]any{}, all: map[string][]map[string]any{}}
	for _, r := range rels {
		src, _ := r["source_node_id"].(string)
		spec, _ := r["specifier"].(string)
		if r["relation"] == "exports" {
			name, _ := r["name"].(string)
			if name == "*" && r["kind"] == "export-all" {
				x.all[src] = append(x.all[src], r)
				continue
			}
			k := [2]string{src, name}
			x.exports[k] = append(x.exports[k], r)
			continue
		}
		if tgt, ok := r["target_node_id"].(string); ok && tgt != "" && spec != "" {
			if _, seen := x.target[[2]string{src, spec}]; !seen {
				x.target[[2]string{src, spec}] = tgt
			}
		}
	}
	return x
}

// definition follows re-export r to the exports relation that defines its
// name, or returns nil and why not.
func (x *reexportIndex) definition(r map[string]any) (map[string]any, string) {
	seen := map[[2]string]bool{}
	var follow func(r map[string]any, hops int) (map[string]any, string)
	follow = func(r map[string]any, hops int) (map[string]any, string) {
		spec, _ := r["specifier"].(string)
		if spec == "" {
			return r, ""
		}
		local, _ := r["local"].(string)
		if local == "" {
			local, _ = r["name"].(string)
		}
		if local == "*" {
			return nil, "a namespace re-export (export * as): the whole module " + spec + " is its value, no one name defines it"
		}
		if hops >= maxDefinitionHops {
			return nil, "the re-exports were followed through the most modules allowed"
		}
		src, _ := r["source_node_id"].(string)
		tgt, ok := x.target[[2]string{src, spec}]
		if !ok {
			return nil, "the specifier " + spec + " resolves to no module of the application (a package or built-in outside it, or unresolved)"
		}
		k := [2]string{tgt, local}
		if seen[k] {
			return nil, "the re-exports form a cycle"
		}
		seen[k] = true
		if defs := x.exports[k]; len(defs) > 0 {
			return follow(defs[0], hops+1)
		}
		// export * from a module passes on its names (default excluded).
		why := "the module " + spec + " resolves to exports no " + local
		if local != "default" {
			for _, all := range x.all[tgt] {
				o := map[string]any{"source_node_id": tgt, "specifier": all["specifier"], "local": local, "name": local}
				if d, w := follow(o, hops+1); d != nil {
					return d, ""
				} else if w != "" {
					why = w
				}
			}
		}
		return nil, why
	}
	return follow(r, 0)
}

// module is the node of the module re-export r's specifier resolves to, or
// "" when it resolves to none of the application.
func (x *reexportIndex) module(r map[string]any) string {
	src, _ := r["source_node_id"].(string)
	spec, _ := r["specifier"].(string)
	return x.target[[2]string{src, spec}]
}

// exportDef is the export that defines a name: the asset, its export and
// the name it has there.
type exportDef struct {
	a    *jsAsset
	e    *ports.JSExport
	name string
}

// exportKey is a name of an asset, as definedExport visits it.
type exportKey struct {
	a    *jsAsset
	name string
}

// definedExport is the export that defines name in asset a (an imported
// IPC handler's, importedHandler): a's own, or the one a re-export
// passes on (export {a as b} from "./x", export * from "./x"), through
// at most maxDefinitionHops modules. state is 1 when one export defines
// it, 0 when a defines no such name, -1 when which one does is not known:
// exported twice, passed on by two export * or by one from a module the
// app does not hold, a namespace, a cycle, the hops spent.
func (b *jsappBuilder) definedExport(a *jsAsset, name string, hops int, seen map[exportKey]bool) (d exportDef, state int) {
	if a == nil || a.facts == nil || hops > maxDefinitionHops || seen[exportKey{a, name}] {
		return d, -1
	}
	seen[exportKey{a, name}] = true
	var found *ports.JSExport
	for k, e := range a.facts.Exports {
		if e.Name != name || e.Kind == "export-all" && e.Name == "*" {
			continue
		}
		if found != nil {
			return d, -1 // exported twice: which one runs is not known here
		}
		found = &a.facts.Exports[k]
	}
	if found != nil && found.Source == "" {
		return exportDef{a, found, name}, 1
	}
	from := func(spec, local string) (exportDef, int) {
		p, ok := b.st.resolveModule(a.path, spec, ports.JSExportFrom)
		if !ok || local == "*" {
			return exportDef{}, -1
		}
		return b.definedExport(b.st.assets[p], local, hops+1, seen)
	}
	if found != nil {
		return from(found.Source, cmp.Or(found.Local, name))
	}
	if name == "default" {
		return d, 0 // export * passes on no default
	}
	for _, e := range a.facts.Exports {
		if e.Kind != "export-all" || e.Name != "*" {
			continue
		}
		switch dd, s := from(e.Source, name); {
		case s < 0 || s > 0 && state > 0:
			return exportDef{}, -1
		case s > 0:
			d, state = dd, 1
		}
	}
	return d, state
}
