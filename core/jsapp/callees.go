package jsapp

import (
	"strings"

	"rea/ports"
)

// importedFunction is the function node of member of the file that
// module, a specifier of asset a, resolves to, when that is unambiguous:
// its exports name the member once, as a function, or pass on one other
// file's (definedExport: re-exports and export *). The node is known by
// its name in the file t that defines it and placed at its export; body
// is the calls its body holds there (ports.JSExport First and End), empty
// when not known. A zero handlerFn otherwise.
func (b *jsappBuilder) importedFunction(a *jsAsset, module, member string) (h handlerFn, body handlerBody, t *jsAsset) {
	p, ok := b.st.resolveModule(a.path, module, ports.JSRequire)
	if !ok {
		return handlerFn{}, handlerBody{}, nil
	}
	d, state := b.definedExport(b.st.assets[p], member, 0, map[exportKey]bool{})
	if state != 1 {
		return handlerFn{}, handlerBody{}, nil
	}
	t, found, name := d.a, d.e, d.name
	switch found.Value.Kind {
	case ports.JSValueFunction, ports.JSValueAsyncFunction, ports.JSValueGenerator, ports.JSValueAsyncGenerator:
	default:
		return handlerFn{}, handlerBody{}, nil
	}
	ev := b.at(t, found.Offset)
	fn := b.g.node("javascript-function", b.localKey("javascript-function", t.path+"#"+name), name, map[string]any{"path": t.path, "name": name}, ev)
	if 0 <= found.First && found.First < found.End && found.End <= len(t.facts.Calls) {
		body = handlerBody{found.First, found.End, fn}
	}
	return handlerFn{fn: fn, in: t.nodeID, ev: ev}, body, t
}

// addHandlerBody notes that the calls of body, in asset a, go from its
// function (handlerOf).
func (b *jsappBuilder) addHandlerBody(a *jsAsset, body handlerBody) {
	if b.handlerBodies == nil {
		b.handlerBodies = map[*jsAsset][]handlerBody{}
	}
	b.handlerBodies[a] = append(b.handlerBodies[a], body)
}

// calleePhase follows the calls a handler's body makes to a function
// another file of the app exports (store.save(n) after const store =
// require("./lib/store"), or store.db.save(n) where lib/store.js passes
// on ./db as db: importedMember): the handler calls that function's node, which
// is defined_in its file and whose body's calls go from it, so a trace
// from the channel reaches what the function does (its writes, its
// requests) rather than ending at the handler's file. Those functions'
// own such calls are followed too, each function once. A handler written
// in its registration, or declared (or bound to a const) and passed by
// name, before or after: the engine records such calls in both
// (ports.JSCallSelector.RelativeInArguments). Only relative
// specifiers: a package's functions are not the app's code. After
// handlerPhase, before the calls are linked (electronPhase).
func (b *jsappBuilder) calleePhase() {
	type work struct {
		a    *jsAsset
		body handlerBody
	}
	var queue []work
	done := map[string]bool{} // function nodes whose bodies are known
	for _, a := range b.st.sortedAssets() {
		for _, h := range b.handlerBodies[a] {
			queue = append(queue, work{a, h})
			done[h.fn] = true
		}
	}
	for k := 0; k < len(queue); k++ {
		w := queue[k]
		calls := w.a.facts.Calls
		for i := w.body.first; i < w.body.end && i < len(calls); i++ {
			c := calls[i]
			if c.Member == "" || strings.Count(c.Member, ".") > 1 || !strings.HasPrefix(c.Module, ".") || b.handlerOf(w.a, i) != w.body.fn {
				continue
			}
			h, body, t := b.importedMember(w.a, c.Module, c.Member)
			if h.fn == "" || h.fn == w.body.fn {
				continue
			}
			b.g.edge(w.body.fn, h.fn, "calls", map[string]any{"callee": c.Callee}, b.atCall(w.a, c, c.Offset))
			if done[h.fn] {
				continue
			}
			done[h.fn] = true
			b.g.edge(h.fn, h.in, "defined_in", map[string]any{}, h.ev)
			if body.end > body.first {
				b.addHandlerBody(t, body)
				queue = append(queue, work{t, body})
			}
		}
	}
}

// importedMember is importedFunction's for member, or for a path one
// level deeper (db.save in store.db.save(n)) when the module's one export
// of its head passes on a whole relative module (exports.db =
// require("./db"), export * as db from "./db"): that module's function.
func (b *jsappBuilder) importedMember(a *jsAsset, module, member string) (h handlerFn, body handlerBody, t *jsAsset) {
	head, rest, deep := strings.Cut(member, ".")
	if !deep {
		return b.importedFunction(a, module, member)
	}
	p, ok := b.st.resolveModule(a.path, module, ports.JSRequire)
	if !ok || b.st.assets[p] == nil || b.st.assets[p].facts == nil {
		return handlerFn{}, handlerBody{}, nil
	}
	m := b.st.assets[p]
	var ns *ports.JSExport
	for k, e := range m.facts.Exports {
		if e.Name != head {
			continue
		}
		if ns != nil {
			return handlerFn{}, handlerBody{}, nil // exported twice: which one runs is not known here
		}
		ns = &m.facts.Exports[k]
	}
	if ns == nil || ns.Local != "*" || !strings.HasPrefix(ns.Source, ".") {
		return handlerFn{}, handlerBody{}, nil
	}
	return b.importedFunction(m, ns.Source, rest)
}
