package jsapp

import (
	"fmt"
	"slices"
	"strconv"

	"rea/core"
	"rea/ports"
)

// Export shapes: per exported name, what the source shows of its value
// (kind, declared parameters, rest parameter) without running it.

// shapeJSON is the JSON form of one shape: {"kind", "params", "rest"};
// params is null when the value is not a function or class or the count is
// not known.
func shapeJSON(v ports.JSValueShape) map[string]any {
	var params any
	if v.Params >= 0 {
		params = v.Params
	}
	return map[string]any{"kind": shapeKind(v), "params": params, "rest": v.Rest}
}

// shapeKind is a shape's kind, unknown when the engine left it empty.
func shapeKind(v ports.JSValueShape) string {
	if v.Kind == "" {
		return ports.JSValueUnknown
	}
	return v.Kind
}

// exportShapes merges the observations of each exported name into one
// shape, in name order. A placeholder assignment of undefined (TypeScript's
// `exports.a = void 0` before the real one) yields to any other
// observation; observations that still disagree leave the shape unknown.
func exportShapes(exports []ports.JSExport) exportShapeList {
	byName := map[string][]ports.JSValueShape{}
	var names []string
	for _, e := range exports {
		if _, ok := byName[e.Name]; !ok {
			names = append(names, e.Name)
		}
		v := e.Value
		if v.Kind == "" {
			v = ports.JSValueShape{Kind: ports.JSValueUnknown, Params: -1}
		}
		byName[e.Name] = append(byName[e.Name], v)
	}
	out := make(exportShapeList, 0, len(names))
	for _, name := range uniqueUTF16(names) {
		obs := byName[name]
		var kept []ports.JSValueShape
		for _, v := range obs {
			if v.Kind != ports.JSValueUndefined {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			kept = obs[:1]
		}
		v := kept[0]
		for _, o := range kept[1:] {
			if o != v {
				v = ports.JSValueShape{Kind: ports.JSValueUnknown, Params: -1}
				break
			}
		}
		out = append(out, namedShape{name, v})
	}
	return out
}

// exportShapeList is a node's export_shapes property: a list of
// {"kind", "name", "params", "rest"} objects, held as a list of structs
// (as maps they were a large part of the graph's memory) that writes the
// same canonical JSON. Bounding a property holding one works on its
// generic form (boundProps).
type exportShapeList []namedShape

type namedShape struct {
	name  string
	shape ports.JSValueShape
}

// generic is the list as the maps it stands for.
func (l exportShapeList) generic() []any {
	out := make([]any, len(l))
	for i, s := range l {
		m := shapeJSON(s.shape)
		m["name"] = s.name
		out[i] = m
	}
	return out
}

// AppendCanonicalJSON implements core.CanonicalAppender: the members in
// RFC 8785 order (kind, name, params, rest).
func (l exportShapeList) AppendCanonicalJSON(dst []byte) []byte {
	dst = append(dst, '[')
	for i, s := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = core.AppendCanonicalString(append(dst, `{"kind":`...), shapeKind(s.shape))
		dst = core.AppendCanonicalString(append(dst, `,"name":`...), s.name)
		dst = append(dst, `,"params":`...)
		if s.shape.Params >= 0 {
			dst = strconv.AppendInt(dst, int64(s.shape.Params), 10)
		} else {
			dst = append(dst, "null"...)
		}
		dst = strconv.AppendBool(append(dst, `,"rest":`...), s.shape.Rest)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// MarshalJSON writes the same text, for encoders other than rea's.
func (l exportShapeList) MarshalJSON() ([]byte, error) { return l.AppendCanonicalJSON(nil), nil }

// maxReexportDepth bounds how many files a chain of re-exports is followed
// through.
const maxReexportDepth = 8

// maxExportWork bounds the module visits of all export views of one
// analysis.
const maxExportWork = 50000

// exportView is an asset's exports as an importer sees them: a re-export
// takes the shape its source module gives the name, export * from a module
// expands to that module's names (default excluded, names the file exports
// itself win), and export * as ns is an object. What cannot be resolved (a
// module outside the app, a cycle, a chain deeper than maxReexportDepth)
// stays as written, with an unknown shape.
func (b *jsappBuilder) exportView(a *jsAsset) []ports.JSExport {
	v, _ := b.exportViewAt(a, nil, 0)
	return v
}

// exportViewAt also reports whether the view is final: no cycle or depth
// bound cut it short, so it is kept for every later importer.
func (b *jsappBuilder) exportViewAt(a *jsAsset, visiting map[*jsAsset]bool, depth int) ([]ports.JSExport, bool) {
	if v, ok := b.exportViews[a]; ok {
		return v, true
	}
	if a.facts == nil {
		return nil, true
	}
	raw := a.facts.Exports
	if depth > maxReexportDepth || visiting[a] {
		return raw, false
	}
	// A budget for the whole analysis: cycles are not cached, so an
	// adversarial web of barrels re-exporting each other must not make the
	// walk exponential.
	if b.exportWork++; b.exportWork > maxExportWork {
		if b.exportWork == maxExportWork+1 {
			b.st.limitations = append(b.st.limitations, fmt.Sprintf("Re-exports were followed through %d module visits; the remaining re-exported shapes are unknown.", maxExportWork))
		}
		return raw, false
	}
	if !slices.ContainsFunc(raw, func(e ports.JSExport) bool { return e.Kind == "export-all" || e.Kind == "re-export" }) {
		// Nothing to resolve: the view is the file's exports as they are
		// (most files), not a copy of them; empty, not nil, for a file
		// with none (nil is a module the view could not see).
		if raw == nil {
			raw = []ports.JSExport{}
		}
		b.exportViews[a] = raw
		return raw, true
	}
	if visiting == nil { // the first module of this view to import another
		visiting = map[*jsAsset]bool{}
	}
	visiting[a] = true
	defer delete(visiting, a)
	final := true
	source := func(e ports.JSExport) []ports.JSExport {
		p, ok := b.st.resolveModule(a.path, e.Source, ports.JSExportFrom)
		if !ok || b.st.assets[p] == nil {
			return nil
		}
		v, fin := b.exportViewAt(b.st.assets[p], visiting, depth+1)
		final = final && fin
		return v
	}
	own := map[string]bool{}
	for _, e := range raw {
		if e.Kind != "export-all" || e.Name != "*" {
			own[e.Name] = true
		}
	}
	out := make([]ports.JSExport, 0, len(raw))
	for _, e := range raw {
		switch {
		case e.Kind == "export-all" && e.Name == "*":
			from := source(e)
			if from == nil {
				out = append(out, e)
				continue
			}
			for _, x := range from {
				if x.Name == "default" || x.Name == "*" || own[x.Name] {
					continue
				}
				own[x.Name] = true
				out = append(out, ports.JSExport{Name: x.Name, Kind: "re-export", Source: e.Source, Local: x.Name, Offset: e.Offset, Value: x.Value})
			}
		case e.Kind == "export-all":
			e.Value = ports.JSValueShape{Kind: ports.JSValueObject, Params: -1} // export * as ns: a namespace object
			out = append(out, e)
		case e.Kind == "re-export":
			for _, x := range source(e) {
				if x.Name == e.Local {
					e.Value = x.Value
					break
				}
			}
			out = append(out, e)
		default:
			out = append(out, e)
		}
	}
	if final {
		b.exportViews[a] = out
	}
	return out, final
}

// shapeNodes is what one name's shape costs the property budget (an
// object of four members); with its entry in exports, a name costs
// 1+shapeNodes.
const shapeNodes = 5

// exportsRoom is how many of n export names (and their shapes) a node's
// exports and export_shapes keep within the property budget
// (jagMaxPropNodes), leaving room for the properties already in props. The
// bound cuts in key order, and export_shapes sorts before path, sha256,
// size and status: on a module with many exports it took the whole budget
// and left those null. When the lists do not fit, both keep their first
// names and exports_total says how many there are (the semantic graph's
// relations name the rest).
func exportsRoom(props map[string]any, nNames, nShapes int) int {
	// The object, each other property as a small value, the two lists and
	// exports_total.
	room := jagMaxPropNodes - 1 - 2*len(props) - 3
	if nNames+shapeNodes*nShapes+2 <= room {
		return max(nNames, nShapes)
	}
	props["exports_total"] = nNames
	return max(0, (room-2)/(1+shapeNodes))
}
