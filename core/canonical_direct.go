package core

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"rea/core/internal/jcs"
)

// CanonicalJSON used to marshal with encoding/json and canonicalize the
// text: two passes over every byte, reflection for every map and a second
// parse. For the values rea seals (results of tens of MB: maps, slices and
// plain structs) this file writes the RFC 8785 form in one pass: map keys
// sorted by UTF-16 code units, struct fields in a per-type plan sorted once,
// numbers and strings as rea/core/internal/jcs writes them. It follows encoding/json's rules for what it supports (json
// tags, omitempty, omitzero, value-receiver json.Marshaler and encoding.TextMarshaler,
// []byte as base64) and reports errDirectUnsupported for anything else
// (embedded fields, other tag options, float32, pointer-receiver
// marshalers, non-string map keys), so CanonicalJSON then takes the
// two-pass path for the whole value. The output is byte-identical to the
// two-pass path: canonical_direct_internal_test.go checks it on generated
// values and a fuzz target, and REA_CHECK_CANONICAL=1 (set by the test
// mains) makes every CanonicalJSON call in the test suites compare both.

var errDirectUnsupported = errors.New("canonical json: type not supported by the direct encoder")

// CheckCanonicalEnv names the environment variable that, set to "1", makes
// every CanonicalJSON call compare the direct encoder with the two-pass
// path and panic on a difference (a test and diagnostic switch; it doubles
// the cost of sealing).
const CheckCanonicalEnv = "REA_CHECK_CANONICAL"

var checkCanonicalDirect = os.Getenv(CheckCanonicalEnv) == "1"

// SetCanonicalCheck turns the comparison of CheckCanonicalEnv on or off for
// this process (test mains call it; the variable is read at start-up).
func SetCanonicalCheck(on bool) { checkCanonicalDirect = on }

// CanonicalAppender is implemented by values that append their own RFC 8785
// form (the artifact graph's records and result), so a result of tens of MB
// is written once rather than marshalled and parsed again. Their output is
// trusted; with CheckCanonicalEnv set it is compared with encoding/json's
// form like every other value, and the implementers' tests hold them to it.
type CanonicalAppender interface {
	AppendCanonicalJSON(dst []byte) []byte
}

var (
	jcsAppenderType   = reflect.TypeFor[CanonicalAppender]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
	canonicalType     = reflect.TypeFor[Canonical]()
)

// appendDirect appends the canonical form of v.
func appendDirect(dst []byte, v any, depth int) ([]byte, error) {
	if depth > jcs.MaxDepth {
		return nil, errors.New("canonical json: nesting too deep")
	}
	// The shapes rea builds most, without reflection.
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendCanonicalString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return jcs.AppendInt(dst, int64(x))
	case int64:
		return jcs.AppendInt(dst, x)
	case float64:
		return jcs.AppendFloat(dst, x)
	case map[string]any:
		return appendDirectMap(dst, x, depth)
	case []any:
		return appendArray(dst, len(x), func(dst []byte, i int) ([]byte, error) { return appendDirect(dst, x[i], depth+1) })
	case []map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendArray(dst, len(x), func(dst []byte, i int) ([]byte, error) { return appendDirectMap(dst, x[i], depth+1) })
	case []string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendArray(dst, len(x), func(dst []byte, i int) ([]byte, error) { return AppendCanonicalString(dst, x[i]), nil })
	case json.RawMessage:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return jcs.AppendRaw(dst, x)
	case Canonical:
		return x.AppendTo(dst), nil
	}
	return appendReflect(dst, reflect.ValueOf(v), depth)
}

func appendDirectMap(dst []byte, m map[string]any, depth int) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return appendSortedObject(dst, keys, func(dst []byte, k string) ([]byte, error) { return appendDirect(dst, m[k], depth+1) })
}

// appendArray writes an array of n elements, element i by elem.
func appendArray(dst []byte, n int, elem func(dst []byte, i int) ([]byte, error)) ([]byte, error) {
	dst = append(dst, '[')
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = elem(dst, i); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// appendSortedObject writes an object of the given keys in UTF-16 order,
// each value by value.
func appendSortedObject(dst []byte, keys []string, value func(dst []byte, key string) ([]byte, error)) ([]byte, error) {
	slices.SortFunc(keys, CompareKeys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendCanonicalString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = value(dst, k); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// CompareKeys orders keys by UTF-16 code units, as RFC 8785 sorts object
// members.
func CompareKeys(a, b string) int { return jcs.CompareKeys(a, b) }

func appendReflect(dst []byte, v reflect.Value, depth int) ([]byte, error) {
	if depth > jcs.MaxDepth {
		return nil, errors.New("canonical json: nesting too deep")
	}
	if !v.IsValid() {
		return append(dst, "null"...), nil
	}
	t := v.Type()
	switch t {
	case rawMessageType:
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		return jcs.AppendRaw(dst, v.Bytes())
	case numberType:
		s := v.String()
		if s == "" {
			s = "0" // encoding/json writes an empty Number as 0
		}
		return jcs.AppendRaw(dst, []byte(s))
	}
	if t == canonicalType {
		return v.Interface().(Canonical).AppendTo(dst), nil
	}
	// Values that write their own canonical form (the artifact graph).
	if t.Kind() == reflect.Pointer && t.Implements(jcsAppenderType) {
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		return v.Interface().(CanonicalAppender).AppendCanonicalJSON(dst), nil
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(jcsAppenderType) {
		if v.CanAddr() {
			return v.Addr().Interface().(CanonicalAppender).AppendCanonicalJSON(dst), nil
		}
		p := reflect.New(t)
		p.Elem().Set(v)
		return p.Interface().(CanonicalAppender).AppendCanonicalJSON(dst), nil
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(marshalerType) && !t.Implements(marshalerType) {
		return nil, errDirectUnsupported // a pointer-receiver MarshalJSON
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(textMarshalerType) && !t.Implements(textMarshalerType) {
		return nil, errDirectUnsupported
	}
	if t.Implements(marshalerType) {
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return append(dst, "null"...), nil
		}
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil, err
		}
		return jcs.AppendRaw(dst, b)
	}
	if t.Implements(textMarshalerType) {
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return append(dst, "null"...), nil
		}
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return nil, err
		}
		return AppendCanonicalString(dst, string(b)), nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(dst, v.Bool()), nil
	case reflect.String:
		return AppendCanonicalString(dst, v.String()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return jcs.AppendInt(dst, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return jcs.AppendUint(dst, v.Uint())
	case reflect.Float64:
		return jcs.AppendFloat(dst, v.Float())
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		if t.Kind() == reflect.Interface {
			return appendDirect(dst, v.Elem().Interface(), depth+1)
		}
		return appendReflect(dst, v.Elem(), depth+1)
	case reflect.Slice:
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(marshalerType) && !t.Elem().Implements(textMarshalerType) &&
			!reflect.PointerTo(t.Elem()).Implements(marshalerType) && !reflect.PointerTo(t.Elem()).Implements(textMarshalerType) {
			dst = append(dst, '"')
			dst = base64.StdEncoding.AppendEncode(dst, v.Bytes())
			return append(dst, '"'), nil
		}
		fallthrough
	case reflect.Array:
		return appendArray(dst, v.Len(), func(dst []byte, i int) ([]byte, error) { return appendReflect(dst, v.Index(i), depth+1) })
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, errDirectUnsupported
		}
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		keys := make([]string, 0, v.Len())
		vals := make(map[string]reflect.Value, v.Len())
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			keys = append(keys, k)
			vals[k] = it.Value()
		}
		return appendSortedObject(dst, keys, func(dst []byte, k string) ([]byte, error) { return appendReflect(dst, vals[k], depth+1) })
	case reflect.Struct:
		plan, err := structPlanFor(t)
		if err != nil {
			return nil, err
		}
		dst = append(dst, '{')
		first := true
		for _, f := range plan {
			fv := v.Field(f.index)
			if f.omitEmpty && isEmptyJSONValue(fv) || f.omitZero && fv.IsZero() {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, f.quoted...)
			dst = append(dst, ':')
			if dst, err = appendReflect(dst, fv, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, errDirectUnsupported // float32, complex, chan, func, unsafe pointer
}

// structField is one encoded field of a struct type.
type structField struct {
	index     int
	name      string
	quoted    []byte // the canonical key
	omitEmpty bool
	omitZero  bool // encoding/json's omitzero, for types without an IsZero method
}

var structPlans sync.Map // reflect.Type -> []structField or error

// structPlanFor lists the fields encoding/json would write, sorted by
// UTF-16 key order; embedded fields and tag options other than omitempty
// and omitzero are unsupported.
func structPlanFor(t reflect.Type) ([]structField, error) {
	if p, ok := structPlans.Load(t); ok {
		if err, bad := p.(error); bad {
			return nil, err
		}
		return p.([]structField), nil
	}
	var plan []structField
	var err error
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			err = errDirectUnsupported
			break
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !plainTagName(name) {
			err = errDirectUnsupported
		}
		if name == "" {
			name = f.Name
		}
		omit, omitZero := false, false
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				omit = true
			case "omitzero":
				omitZero = true
				if _, ok := reflect.PointerTo(f.Type).MethodByName("IsZero"); ok {
					err = errDirectUnsupported // encoding/json asks the method
				}
			default:
				err = errDirectUnsupported
			}
		}
		if seen[name] {
			err = errDirectUnsupported // encoding/json drops conflicting names
		}
		seen[name] = true
		plan = append(plan, structField{index: i, name: name, quoted: AppendCanonicalString(nil, name), omitEmpty: omit, omitZero: omitZero})
	}
	if err != nil {
		structPlans.Store(t, err)
		return nil, err
	}
	slices.SortFunc(plan, func(a, b structField) int { return CompareKeys(a.name, b.name) })
	structPlans.Store(t, plan)
	return plan, nil
}

// plainTagName reports a tag name of letters, digits, '_' and '-', which
// encoding/json takes as is; other names are left to encoding/json.
func plainTagName(s string) bool {
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isEmptyJSONValue is encoding/json's omitempty test.
func isEmptyJSONValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
