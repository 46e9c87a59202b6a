package core

import (
	"rea/ports"
)

// Export shapes: per exported name, what the source shows of its value
// (kind, declared parameters, rest parameter) without running it.

// shapeJSON is the JSON form of one shape: {"kind", "params", "rest"};
// params is null when the value is not a function or class or the count is
// not known.
func shapeJSON(v ports.JSValueShape) map[string]any {
	kind := v.Kind
	if kind == "" {
		kind = ports.JSValueUnknown
	}
	var params any
	if v.Params >= 0 {
		params = v.Params
	}
	return map[string]any{"kind": kind, "params": params, "rest": v.Rest}
}

// exportShapes merges the observations of each exported name into one
// shape, in name order. A placeholder assignment of undefined (TypeScript's
// `exports.a = void 0` before the real one) yields to any other
// observation; observations that still disagree leave the shape unknown.
func exportShapes(exports []ports.JSExport) []any {
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
	out := make([]any, 0, len(names))
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
		m := shapeJSON(v)
		m["name"] = name
		out = append(out, m)
	}
	return out
}
