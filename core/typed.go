package core

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Typed calls: families give embedders Go functions (binary.AnalyzeFunction,
// jsapp.AnalyzeApplication, ...) built on Invoke, so a Go program calls an
// operation with a struct and gets a struct back, with no tool name or JSON
// in its own code. The canonical schemas stay hand-written; CheckType is
// the generation check that fails a family's test when an input or result
// type and its schema differ (property names, JSON types, required).

// Invoke runs the operation op of s's catalog with in (a struct marshalled
// with its json tags) and decodes the result into Out: the Evidence's
// normalized_result for an Evidence operation (returned with its Evidence),
// the value under "result" for a session operation (Evidence nil). Errors
// are *Error, as from Session.Call.
func Invoke[Out, In any](ctx context.Context, s *Session, op string, in In) (Out, *Evidence, error) {
	var out Out
	args, err := json.Marshal(in)
	if err != nil {
		return out, nil, &Error{Code: CodeInvalidRequest, Message: op + ": " + err.Error(), Err: err,
			Details: map[string]any{"operation": op}}
	}
	res, err := s.Call(ctx, op, args, nil)
	if err != nil {
		return out, nil, err
	}
	raw := []byte(nil)
	if res.Evidence != nil {
		raw = res.Evidence.NormalizedResult
	} else if raw, err = json.Marshal(res.Value); err != nil {
		return out, nil, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, res.Evidence, &Error{Code: CodeExecutionFailure, Message: fmt.Sprintf("%s: result does not decode into %T: %v", op, out, err), Err: err,
			Details: map[string]any{"operation": op}}
	}
	return out, res.Evidence, nil
}

// OpenBinaryInput is open_binary's input.
type OpenBinaryInput struct {
	Path string `json:"path"`
	// ProviderID is "auto" (or empty) or a provider id such as "rea-native".
	ProviderID string `json:"provider_id,omitempty"`
}

// OpenedProvider names the provider bound to a target.
type OpenedProvider struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Version *string `json:"version"`
}

// OpenBinaryResult is open_binary's result.
type OpenBinaryResult struct {
	Path            string          `json:"path"`
	SHA256          string          `json:"sha256"`
	Format          string          `json:"format"`
	Kind            string          `json:"kind"`
	Architecture    *string         `json:"architecture"`
	LoaderArgs      []string        `json:"loaderArgs"`
	Provider        *OpenedProvider `json:"provider"`
	SelectionSource *string         `json:"selection_source"`
	RunID           string          `json:"run_id"`
}

// OpenBinary identifies the file at in.Path and binds an analysis provider
// to it (the selection policy of ARCHITECTURE.md).
func OpenBinary(ctx context.Context, s *Session, in OpenBinaryInput) (OpenBinaryResult, error) {
	out, _, err := Invoke[OpenBinaryResult](ctx, s, "open_binary", in)
	return out, err
}

// CheckType compares a JSON Schema (an operation's input or result schema)
// with the Go type whose JSON encoding it describes, and lists every
// difference: a property of one missing from the other, a JSON type the Go
// type cannot take (or a nullable Go type for a property that cannot be
// null), and a required property the Go type may omit (omitempty) or a
// non-required one it always writes. Nested objects and array items are
// compared where both sides describe them; "$ref" is resolved against the
// schema's $defs; json.RawMessage and interface types match anything.
//
// For a result (result true) a property is required exactly when its field
// is always written (no omitempty); for an input, a required property's
// field must not be omitted, and optional ones may be written or not.
func CheckType(schema json.RawMessage, t reflect.Type, result bool) []string {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return []string{"schema: " + err.Error()}
	}
	defs, _ := root["$defs"].(map[string]any)
	c := &typeCheck{defs: defs, result: result}
	c.node(root, t, "", 0)
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
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return nil, true
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

func (c *typeCheck) node(n map[string]any, t reflect.Type, at string, depth int) {
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
		if t.Kind() == reflect.Pointer && !slices.Contains(sts, "null") {
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
			c.node(items, t.Elem(), at+"[]", depth+1)
		}
	}
}

func (c *typeCheck) object(n map[string]any, t reflect.Type, at string, depth int) {
	out := &c.out
	props, ok := n["properties"].(map[string]any)
	if !ok {
		return // the schema does not describe this object's properties
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
			*out = append(*out, fmt.Sprintf("%s: field %s.%s has no property in the schema", path, t.Name(), f.Name))
			continue
		}
		omits := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		switch {
		case required[name] && omits:
			*out = append(*out, fmt.Sprintf("%s: required by the schema, but %s.%s may be omitted", path, t.Name(), f.Name))
		case c.result && !required[name] && !omits:
			*out = append(*out, fmt.Sprintf("%s: not required by the schema, but %s.%s is always written", path, t.Name(), f.Name))
		}
		c.node(p, f.Type, path, depth+1)
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
