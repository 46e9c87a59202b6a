// Package typecheck is the generation check of rea's typed operations: it
// compares an operation's hand-written JSON Schema (input or result) with
// the Go type an embedder exchanges for it, and lists every difference.
// Tests use it (core/standard walks every operation); production code does
// not need it.
package typecheck

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
)

// Check compares a JSON Schema (an operation's input or result schema)
// with the Go type whose JSON encoding it describes, and lists every
// difference: a property of one missing from the other, a JSON type the Go
// type cannot take (or a nullable Go type for a property that cannot be
// null), and a required property the Go type may omit (omitempty) or a
// non-required one it always writes. Nested objects and array items are
// compared where both sides describe them; "$ref" is resolved against the
// schema's $defs; json.RawMessage, interface types and structs that write
// their own JSON (core.Canonical) match anything.
//
// For a result (result true) a property is required exactly when its field
// is always written (no omitempty); for an input, a required property's
// field must not be omitted, and optional ones may be written or not. A
// pointer field with omitempty is never written as null. An object schema
// that only lists required names needs those fields, always written; one
// without "additionalProperties": false admits fields it does not list. A
// union (anyOf/oneOf of objects) is compared, for an input's root, in the
// flattened form front ends advertise (required where every alternative
// requires it), and otherwise must match one alternative.
func Check(schema json.RawMessage, t reflect.Type, result bool) []string {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return []string{"schema: " + err.Error()}
	}
	defs, _ := root["$defs"].(map[string]any)
	c := &typeCheck{defs: defs, result: result}
	c.node(root, t, "", 0, false)
	return c.out
}

type typeCheck struct {
	defs   map[string]any
	result bool
	out    []string
}

func resolveRef(n map[string]any, defs map[string]any) map[string]any {
	for range 8 {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n
		}
		d, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if d == nil {
			return n
		}
		n = d
	}
	return n
}

// schemaTypes lists the JSON types a schema node allows, or nil when it
// does not say (anyOf alternatives are merged).
func schemaTypes(n map[string]any, defs map[string]any) []string {
	n = resolveRef(n, defs)
	var out []string
	switch v := n["type"].(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	if e, ok := n["enum"].([]any); ok && out == nil {
		for _, x := range e {
			out = append(out, schemaTypeOf(x))
		}
	}
	if c, ok := n["const"]; ok && out == nil {
		out = append(out, schemaTypeOf(c))
	}
	if alts, ok := n["anyOf"].([]any); ok && out == nil {
		for _, a := range alts {
			m, _ := a.(map[string]any)
			ts := schemaTypes(m, defs)
			if ts == nil {
				return nil
			}
			out = append(out, ts...)
		}
	}
	return out
}

func schemaTypeOf(x any) string {
	switch v := x.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// goTypes lists the JSON types a Go type encodes as, and whether it can
// be null; nil means any.
func goTypes(t reflect.Type) (types []string, nullable bool) {
	if t == rawMessageType || t.Kind() == reflect.Interface || t.Kind() == reflect.Struct && t.Implements(marshalerType) {
		return nil, true // a value that writes its own JSON (core.Canonical): any
	}
	if t.Kind() == reflect.Pointer {
		ts, _ := goTypes(t.Elem())
		return ts, true
	}
	switch t.Kind() {
	case reflect.String:
		return []string{"string"}, false
	case reflect.Bool:
		return []string{"boolean"}, false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return []string{"integer"}, false
	case reflect.Float32, reflect.Float64:
		return []string{"number", "integer"}, false
	case reflect.Slice, reflect.Array:
		return []string{"array"}, true
	case reflect.Map:
		return []string{"object"}, true
	case reflect.Struct:
		return []string{"object"}, false
	}
	return nil, true
}

// node compares the schema n with t; omits says the field is written with
// omitempty (a nil pointer is then left out, never written as null).
func (c *typeCheck) node(n map[string]any, t reflect.Type, at string, depth int, omits bool) {
	defs, out := c.defs, &c.out
	if depth > 12 {
		return
	}
	n = resolveRef(n, defs)
	name := at
	if name == "" {
		name = "(root)"
	}
	gts, nullable := goTypes(t)
	if gts == nil {
		return
	}
	sts := schemaTypes(n, defs)
	if sts != nil {
		for _, s := range sts {
			switch {
			case s == "null":
				if !nullable {
					*out = append(*out, fmt.Sprintf("%s: the schema allows null, %s cannot be null", name, t))
				}
			case s == "number" && slices.Contains(gts, "integer") && !slices.Contains(gts, "number"):
				*out = append(*out, fmt.Sprintf("%s: the schema allows a number, %s holds only integers", name, t))
			case s != "number" && !slices.Contains(gts, s) && !(s == "integer" && slices.Contains(gts, "number")):
				*out = append(*out, fmt.Sprintf("%s: the schema says %s, %s encodes as %s", name, s, t, strings.Join(gts, " or ")))
			}
		}
		if t.Kind() == reflect.Pointer && !omits && !slices.Contains(sts, "null") {
			*out = append(*out, fmt.Sprintf("%s: %s may be null, the schema does not allow it", name, t))
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		c.object(n, t, at, depth)
	case reflect.Slice, reflect.Array:
		if items, ok := n["items"].(map[string]any); ok && t != rawMessageType {
			// A list of pointers shares its elements; rea never stores nil
			// in one, so an element is checked as present.
			c.node(items, t.Elem(), at+"[]", depth+1, t.Elem().Kind() == reflect.Pointer)
		}
	}
}

func (c *typeCheck) object(n map[string]any, t reflect.Type, at string, depth int) {
	out := &c.out
	props, ok := n["properties"].(map[string]any)
	if !ok {
		c.requiredOnly(n, t, at)
		c.union(n, t, at, depth)
		return
	}
	required := map[string]bool{}
	if r, ok := n["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				required[s] = true
			}
		}
	}
	fields := map[string]bool{}
	for _, f := range jsonFields(t) {
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fields[name] = true
		path := at + "." + name
		p, ok := props[name].(map[string]any)
		if !ok {
			if n["additionalProperties"] == false { // an open object admits what it does not list
				*out = append(*out, fmt.Sprintf("%s: field %s.%s has no property in the schema", path, t.Name(), f.Name))
			}
			continue
		}
		omits := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		switch {
		case required[name] && omits:
			*out = append(*out, fmt.Sprintf("%s: required by the schema, but %s.%s may be omitted", path, t.Name(), f.Name))
		case c.result && !required[name] && !omits:
			*out = append(*out, fmt.Sprintf("%s: not required by the schema, but %s.%s is always written", path, t.Name(), f.Name))
		}
		c.node(p, f.Type, path, depth+1, omits)
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !fields[k] {
			*out = append(*out, fmt.Sprintf("%s.%s: property of the schema has no field in %s", at, k, t.Name()))
		}
	}
}

// jsonFields lists the fields encoding/json writes for t, with embedded
// untagged structs flattened.
func jsonFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if f.IsExported() {
			out = append(out, f)
		}
	}
	return out
}

// alternatives lists the object alternatives of a union node (anyOf or
// oneOf), resolved; nil when it has none.
func (c *typeCheck) alternatives(n map[string]any) []map[string]any {
	var out []map[string]any
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, _ := n[k].([]any)
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				if m = resolveRef(m, c.defs); m["properties"] != nil {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// union compares t with a schema whose properties are in anyOf or oneOf
// alternatives. An input at the root is compared with the flattened form
// front ends advertise (every alternative's properties, required only
// when every alternative requires it); otherwise t must match one
// alternative, and the differences from the closest are reported.
func (c *typeCheck) union(n map[string]any, t reflect.Type, at string, depth int) {
	alts := c.alternatives(n)
	if len(alts) == 0 {
		return // the schema does not describe this object's properties
	}
	if !c.result && at == "" {
		props, count := map[string]any{}, map[string]int{}
		for _, a := range alts {
			for k, v := range a["properties"].(map[string]any) {
				if _, seen := props[k]; !seen {
					props[k] = v
				}
			}
			r, _ := a["required"].([]any)
			for _, x := range r {
				if s, ok := x.(string); ok {
					count[s]++
				}
			}
		}
		var required []any
		for k, n := range count {
			if n == len(alts) {
				required = append(required, k)
			}
		}
		c.object(map[string]any{"properties": props, "required": required}, t, at, depth)
		return
	}
	var best []string
	for i, a := range alts {
		sub := &typeCheck{defs: c.defs, result: c.result}
		sub.object(a, t, at, depth)
		if len(sub.out) == 0 {
			return
		}
		if i == 0 || len(sub.out) < len(best) {
			best = sub.out
		}
	}
	for _, p := range best {
		c.out = append(c.out, "no alternative of the union matches; closest: "+p)
	}
}

// requiredOnly compares t with a schema that lists required properties
// without describing them: each must be a field that is always written.
func (c *typeCheck) requiredOnly(n map[string]any, t reflect.Type, at string) {
	r, _ := n["required"].([]any)
	if len(r) == 0 {
		return
	}
	fields := map[string]bool{} // name -> omitted when empty
	for _, f := range jsonFields(t) {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		fields[name] = strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
	}
	for _, x := range r {
		name, _ := x.(string)
		omits, ok := fields[name]
		switch {
		case !ok:
			c.out = append(c.out, fmt.Sprintf("%s.%s: required by the schema, no field in %s", at, name, t.Name()))
		case omits:
			c.out = append(c.out, fmt.Sprintf("%s.%s: required by the schema, but %s may omit it", at, name, t.Name()))
		}
	}
}
