// Package present computes what front ends advertise for an operation: the
// input schema in the full and compact profiles and the projection of the
// output schema. It is the kernel's (rea/core calls it for every operation,
// and the catalog identity digests what it returns) and works on JSON alone,
// so it imports nothing of rea: the kernel canonicalizes whatever it hashes.
//
// Canonical validation never changes: the server validates every input
// against the operation's declared schema, whatever was advertised.
package present

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Presentation kinds: which form an advertised input schema took.
const (
	Full    = "full"
	Inline  = "inline" // compact with every reference inlined
	Reduced = "reduced"
	Minimal = "minimal"
)

// CompactBudget is the largest advertised input schema in the compact
// profile, in bytes of compact JSON.
const CompactBudget = 13 * 1024

// Input builds the full advertised form of an input schema: subschemas
// named in shallow advertised shallowly (see Shallow), root anyOf/oneOf
// unions flattened into one object, repeated subschemas shared through
// $defs, missing property descriptions filled from a name table, and
// examples (already chosen by the caller) at the root.
func Input(schema json.RawMessage, examples []json.RawMessage, shallow map[string]string) (json.RawMessage, error) {
	v, err := decode(schema)
	if err != nil {
		return nil, err
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("input schema is not an object")
	}
	if err := Shallow(root, shallow); err != nil {
		return nil, err
	}
	root = flattenRootUnion(root)
	shareRepeated(root)
	fillDescriptions(root)
	if len(examples) > 0 {
		list := make([]any, len(examples))
		for i, e := range examples {
			list[i], _ = decode(e)
		}
		root["examples"] = list
	}
	if hasRecursiveRef(root) {
		return nil, errors.New("advertised schema has a reachable recursive $ref")
	}
	return encode(root)
}

// Shallow advertises subschemas of an input shallowly. shallow maps a JSON
// pointer into root ("#/$defs/web_inspection") to a sentence: the
// subschema there becomes one of the same JSON type whose description is
// its own followed by that sentence, with no shape below it, and the $defs
// nothing refers to any more are dropped. The kernel uses it for inputs
// that take another operation's result (Operation.Produced): the sentence
// names the producer and its output schema $id. Only constraints go, so
// every input the canonical schema accepts, the shallow one accepts too.
func Shallow(root map[string]any, shallow map[string]string) error {
	if len(shallow) == 0 {
		return nil
	}
	// Resolve every target first: replacing one must not move another.
	type site struct {
		parent any
		key    string
		with   map[string]any
	}
	var sites []site
	for _, at := range sortedMapKeys(anyMap(shallow)) {
		i := strings.LastIndex(at, "/")
		if i < 1 || !strings.HasPrefix(at, "#") {
			return fmt.Errorf("shallow input %q is not a JSON pointer below the root", at)
		}
		parent, ok := resolvePointer(root, at[:i])
		if !ok {
			return fmt.Errorf("shallow input %q does not resolve", at)
		}
		target, ok := resolvePointer(root, at)
		m, isMap := target.(map[string]any)
		if !ok || !isMap {
			return fmt.Errorf("shallow input %q does not resolve to a schema object", at)
		}
		with := map[string]any{}
		if t := detectType(root, m, 0); t != nil {
			with["type"] = t
		}
		desc, _ := m["description"].(string)
		with["description"] = strings.TrimSpace(desc + " " + shallow[at])
		key := strings.ReplaceAll(strings.ReplaceAll(at[i+1:], "~1", "/"), "~0", "~")
		sites = append(sites, site{parent, key, with})
	}
	for _, s := range sites {
		switch p := s.parent.(type) {
		case map[string]any:
			p[s.key] = s.with
		case []any:
			n, err := strconv.Atoi(s.key)
			if err != nil || n < 0 || n >= len(p) {
				return fmt.Errorf("shallow input index %q is out of range", s.key)
			}
			p[n] = s.with
		}
	}
	pruneDefs(root)
	return nil
}

// pruneDefs drops the root $defs entries no $ref reaches from outside
// $defs (directly or through other reached entries).
func pruneDefs(root map[string]any) {
	defs, ok := root["$defs"].(map[string]any)
	if !ok {
		return
	}
	reached := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#/$defs/") {
				name := strings.SplitN(strings.TrimPrefix(ref, "#/$defs/"), "/", 2)[0]
				if !reached[name] {
					reached[name] = true
					visit(defs[name])
				}
			}
			for k, e := range x {
				if k != "$ref" {
					visit(e)
				}
			}
		case []any:
			for _, e := range x {
				visit(e)
			}
		}
	}
	for k, v := range root {
		if k != "$defs" {
			visit(v)
		}
	}
	for name := range defs {
		if !reached[name] {
			delete(defs, name)
		}
	}
	if len(defs) == 0 {
		delete(root, "$defs")
	}
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ReplaceInlineEvidence swaps every Evidence record embedded in a decoded
// example for its retained reference.
func ReplaceInlineEvidence(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if id, ok := x["evidence_id"].(string); ok {
			if _, hasResult := x["normalized_result"]; hasResult {
				return map[string]any{"kind": "retained-evidence", "evidence_id": id}
			}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = ReplaceInlineEvidence(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ReplaceInlineEvidence(e)
		}
		return out
	}
	return v
}

// --- root union flattening (CONTRACTS.md §11.2) ---

func flattenRootUnion(root map[string]any) map[string]any {
	if _, has := root["properties"]; has {
		return root
	}
	key := "anyOf"
	branchesAny, ok := root[key].([]any)
	if !ok || len(branchesAny) == 0 {
		key = "oneOf"
		if branchesAny, ok = root[key].([]any); !ok || len(branchesAny) == 0 {
			return root
		}
	}
	type branch struct {
		props    map[string]any
		order    []string
		required []string
		closed   bool
	}
	defs, _ := root["$defs"].(map[string]any)
	var branches []branch
	for _, b := range branchesAny {
		m, ok := b.(map[string]any)
		if !ok {
			return root
		}
		if ref, ok := m["$ref"].(string); ok {
			if len(m) != 1 || !strings.HasPrefix(ref, "#/$defs/") || defs == nil {
				return root
			}
			if m, ok = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any); !ok {
				return root
			}
		}
		props, ok := m["properties"].(map[string]any)
		if !ok {
			return root
		}
		br := branch{props: props, closed: m["additionalProperties"] == false}
		br.order = sortedMapKeys(props)
		for _, r := range asStrings(m["required"]) {
			br.required = append(br.required, r)
		}
		branches = append(branches, br)
	}
	out := map[string]any{}
	for k, v := range root {
		if k != key {
			out[k] = v
		}
	}
	out["type"] = "object"
	props := map[string]any{}
	var variants = map[string][]any{}
	var names []string
	owners := map[string][]int{}
	for bi, b := range branches {
		for _, name := range b.order {
			s := b.props[name]
			if _, seen := variants[name]; !seen {
				names = append(names, name)
			}
			dup := false
			for _, prev := range variants[name] {
				if reflect.DeepEqual(prev, s) {
					dup = true
				}
			}
			if !dup {
				variants[name] = append(variants[name], s)
			}
			owners[name] = append(owners[name], bi)
		}
	}
	for _, name := range names {
		if vs := variants[name]; len(vs) == 1 {
			props[name] = vs[0]
		} else {
			props[name] = map[string]any{"anyOf": vs}
		}
	}
	out["properties"] = props
	var global []string
	for _, r := range branches[0].required {
		inAll := true
		for _, b := range branches[1:] {
			if !containsStr(b.required, r) {
				inAll = false
			}
		}
		if inAll {
			global = append(global, r)
		}
	}
	if len(global) > 0 {
		out["required"] = toAny(global)
	} else {
		delete(out, "required")
	}
	dep := map[string]any{}
	for _, name := range names {
		var common []string
		for i, bi := range owners[name] {
			req := branches[bi].required
			if i == 0 {
				common = append([]string(nil), req...)
				continue
			}
			var keep []string
			for _, r := range common {
				if containsStr(req, r) {
					keep = append(keep, r)
				}
			}
			common = keep
		}
		var need []string
		for _, r := range common {
			if r != name && !containsStr(global, r) {
				need = append(need, r)
			}
		}
		if len(need) > 0 {
			dep[name] = toAny(need)
		}
	}
	if len(dep) > 0 {
		depKey := "dependentRequired"
		if root["$schema"] == "http://json-schema.org/draft-07/schema#" {
			depKey = "dependencies"
		}
		out[depKey] = dep
	}
	minReq := -1
	allClosed := true
	for _, b := range branches {
		if minReq < 0 || len(b.required) < minReq {
			minReq = len(b.required)
		}
		allClosed = allClosed && b.closed
	}
	if minReq > 0 {
		out["minProperties"] = minReq
	}
	if allClosed {
		out["additionalProperties"] = false
	}
	var groups []string
	for _, b := range branches {
		var parts []string
		parts = append(parts, b.required...)
		for _, n := range b.order {
			if !containsStr(b.required, n) {
				parts = append(parts, "["+n+"]")
			}
		}
		g := strings.Join(parts, " + ")
		if !containsStr(groups, g) {
			groups = append(groups, g)
		}
	}
	if len(groups) > 1 {
		desc, _ := out["description"].(string)
		out["description"] = strings.TrimSpace(desc + " Provide a complete input group: " + strings.Join(groups, "; ") + ".")
	}
	return out
}

// --- sharing repeated subschemas through $defs ---

// shareMinBytes is the smallest subschema worth sharing.
const shareMinBytes = 160

// shareRepeated moves subschemas that occur at least twice into root $defs
// and refers to them, largest first.
func shareRepeated(root map[string]any) {
	for n := 0; n < 64; n++ {
		counts := map[string]int{}
		values := map[string]any{}
		walkSchemas(root, true, func(s map[string]any) {
			b, err := encode(s)
			if err != nil || len(b) < shareMinBytes {
				return
			}
			counts[string(b)]++
			values[string(b)] = s
		})
		best := ""
		for k, c := range counts {
			if c >= 2 && (len(k) > len(best) || len(k) == len(best) && k < best) {
				best = k
			}
		}
		if best == "" {
			return
		}
		defs, _ := root["$defs"].(map[string]any)
		if defs == nil {
			defs = map[string]any{}
			root["$defs"] = defs
		}
		name := "shared" + strconv.Itoa(len(defs))
		for defs[name] != nil {
			name += "_"
		}
		target := values[best]
		replaceSchemas(root, func(s map[string]any) (any, bool) {
			b, _ := encode(s)
			if string(b) == best {
				return map[string]any{"$ref": "#/$defs/" + name}, true
			}
			return nil, false
		})
		defs[name] = cloneJSON(target)
	}
}

// schemaMapKeys hold maps of subschemas; schemaListKeys lists of them;
// schemaValueKeys one subschema.
var (
	schemaMapKeys   = []string{"$defs", "definitions", "properties", "patternProperties", "dependentSchemas"}
	schemaListKeys  = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaValueKeys = []string{"items", "additionalItems", "contains", "additionalProperties", "unevaluatedProperties",
		"unevaluatedItems", "propertyNames", "not", "if", "then", "else"}
)

// walkSchemas calls f on every subschema below s (not s itself when skipRoot).
func walkSchemas(s map[string]any, skipRoot bool, f func(map[string]any)) {
	if !skipRoot {
		f(s)
	}
	for _, k := range schemaMapKeys {
		if m, ok := s[k].(map[string]any); ok {
			for _, v := range m {
				if sub, ok := v.(map[string]any); ok {
					walkSchemas(sub, false, f)
				}
			}
		}
	}
	for _, k := range schemaListKeys {
		if l, ok := s[k].([]any); ok {
			for _, v := range l {
				if sub, ok := v.(map[string]any); ok {
					walkSchemas(sub, false, f)
				}
			}
		}
	}
	for _, k := range schemaValueKeys {
		if sub, ok := s[k].(map[string]any); ok {
			walkSchemas(sub, false, f)
		}
	}
	if d, ok := s["dependencies"].(map[string]any); ok {
		for _, v := range d {
			if sub, ok := v.(map[string]any); ok {
				walkSchemas(sub, false, f)
			}
		}
	}
}

// replaceSchemas replaces subschemas (never $defs entries themselves) for
// which f returns true; replaced subtrees are not descended.
func replaceSchemas(s map[string]any, f func(map[string]any) (any, bool)) {
	visit := func(v any) any {
		sub, ok := v.(map[string]any)
		if !ok {
			return v
		}
		if r, ok := f(sub); ok {
			return r
		}
		replaceSchemas(sub, f)
		return sub
	}
	for _, k := range schemaMapKeys {
		if m, ok := s[k].(map[string]any); ok {
			for name, v := range m {
				if k == "$defs" || k == "definitions" {
					if sub, ok := v.(map[string]any); ok {
						replaceSchemas(sub, f)
					}
					continue
				}
				m[name] = visit(v)
			}
		}
	}
	for _, k := range schemaListKeys {
		if l, ok := s[k].([]any); ok {
			for i, v := range l {
				l[i] = visit(v)
			}
		}
	}
	for _, k := range schemaValueKeys {
		if v, ok := s[k]; ok {
			s[k] = visit(v)
		}
	}
}

// --- property descriptions ---

// propertyDescription is the description a property of this name gets
// when its schema has none (a switch: a package-level map is built by init
// code every rea process runs).
func propertyDescription(name string) (string, bool) {
	switch name {
	case "path":
		return "Local filesystem path.", true
	case "document":
		return "Document name from list_documents; defaults to the current document.", true
	case "offset":
		return "Index of the first item to return.", true
	case "limit":
		return "Maximum number of items to return.", true
	case "address":
		return "Address as 0x hex or decimal.", true
	case "procedure":
		return "Procedure name or address.", true
	case "pattern":
		return "Text or pattern to match.", true
	case "detail":
		return "How much detail to return.", true
	case "evidence_id":
		return "An evidence_id (ev_ followed by 64 hex characters).", true
	case "overwrite":
		return "Replace an existing destination file.", true
	case "provider_id":
		return "Analysis provider: auto or a provider id.", true
	case "kind":
		return "Discriminator of this object.", true
	case "source":
		return "The Evidence to read: a retained reference or inline Evidence.", true
	case "view":
		return "Which view to project.", true
	case "filters":
		return "Exact-match filters.", true
	case "mode":
		return "How the operation matches or runs.", true
	case "max_changes":
		return "Maximum number of changes to report.", true
	case "before":
		return "The earlier capture.", true
	case "after":
		return "The later capture.", true
	case "left":
		return "The left side of the comparison.", true
	case "right":
		return "The right side of the comparison.", true
	case "application":
		return "Application Evidence or a retained reference to it.", true
	case "normalization":
		return "Normalization rules applied before comparing.", true
	}
	return "", false
}

func fillDescriptions(s map[string]any) {
	walkSchemas(s, false, func(sub map[string]any) {
		props, ok := sub["properties"].(map[string]any)
		if !ok {
			return
		}
		for name, v := range props {
			p, ok := v.(map[string]any)
			if !ok {
				continue
			}
			if _, has := p["description"]; has {
				continue
			}
			if _, isRef := p["$ref"]; isRef {
				continue
			}
			if d := describeName(name); d != "" {
				p["description"] = d
			}
		}
	})
}

func describeName(name string) string {
	if d, ok := propertyDescription(name); ok {
		return d
	}
	switch {
	case strings.HasPrefix(name, "max_"):
		return "Upper bound on " + strings.ReplaceAll(strings.TrimPrefix(name, "max_"), "_", " ") + "."
	case strings.HasPrefix(name, "include_"):
		return "Include " + strings.ReplaceAll(strings.TrimPrefix(name, "include_"), "_", " ") + "."
	case strings.HasSuffix(name, "_sha256"):
		return "SHA-256 (64 lowercase hex characters) of the " + strings.ReplaceAll(strings.TrimSuffix(name, "_sha256"), "_", " ") + "."
	case strings.HasSuffix(name, "_path"):
		return "Local path of the " + strings.ReplaceAll(strings.TrimSuffix(name, "_path"), "_", " ") + "."
	}
	return ""
}

// --- recursion check ---

// hasRecursiveRef reports whether following local $refs from the root can
// reach a $ref that is already being expanded.
func hasRecursiveRef(root map[string]any) bool {
	var visit func(v any, stack map[string]bool) bool
	visit = func(v any, stack map[string]bool) bool {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
				if stack[ref] {
					return true
				}
				target, ok := resolvePointer(root, ref)
				if !ok {
					return false
				}
				stack[ref] = true
				r := visit(target, stack)
				delete(stack, ref)
				if r {
					return true
				}
			}
			for k, e := range x {
				if k == "$defs" || k == "definitions" || k == "const" || k == "enum" || k == "examples" || k == "default" {
					continue
				}
				if visit(e, stack) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if visit(e, stack) {
					return true
				}
			}
		}
		return false
	}
	return visit(root, map[string]bool{})
}

// resolvePointer resolves a local JSON pointer reference ("#", "#/a/b").
func resolvePointer(root any, ref string) (any, bool) {
	if ref == "#" {
		return root, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// --- compact profile (CONTRACTS.md §11.3) ---

var annotationKeys = []string{"description", "examples", "default", "title"}

// stripAnnotations removes prose and examples from every nested schema
// position; the root keeps its description.
func stripAnnotations(root map[string]any) {
	for _, k := range annotationKeys {
		if k != "description" {
			delete(root, k)
		}
	}
	walkSchemas(root, true, func(s map[string]any) {
		for _, k := range annotationKeys {
			delete(s, k)
		}
	})
}

var errBudget = errors.New("compact schema exceeds its budget")

// allTypes is what an unconstrained JSON field advertises in compact form.
var allTypes = []any{"null", "boolean", "object", "array", "number", "string"}

// Compact builds the compact form of a full advertised schema and says
// which form it took (Inline, Reduced or Minimal): annotations stripped
// below the root, references inlined by a streaming writer that stops at
// CompactBudget, {} expanded to all JSON types; else the reduced form
// (property names, types and first-level guidance), else the minimal one.
func Compact(full json.RawMessage) (json.RawMessage, string) {
	v, _ := decode(full)
	root := v.(map[string]any)
	orig := cloneJSON(root).(map[string]any)
	stripAnnotations(root)
	w := &budgetWriter{limit: CompactBudget}
	if err := writeInlined(w, root, root, map[string]bool{}, true, 0); err == nil {
		return json.RawMessage(w.buf.Bytes()), Inline
	}
	reduced := reduceSchema(orig)
	if b, _ := encode(reduced); len(b) <= CompactBudget {
		return b, Reduced
	}
	minimal := map[string]any{"type": "object", "description": reduced["description"], "properties": map[string]any{}}
	b, _ := encode(minimal)
	return b, Minimal
}

type budgetWriter struct {
	buf   bytes.Buffer
	limit int
}

func (w *budgetWriter) write(b []byte) error {
	if w.buf.Len()+len(b) > w.limit {
		return errBudget
	}
	w.buf.Write(b)
	return nil
}

func (w *budgetWriter) str(s string) error { return writeData(w, s) }

// isSchemaKey reports whether values under key k are schemas (so refs
// inside are resolved and {} expanded) rather than data.
func isSchemaKey(k string) bool {
	return containsStr(schemaValueKeys, k)
}

// writeInlined streams s with every local $ref replaced by its target,
// failing on a cycle, an unresolved reference or the budget.
func writeInlined(w *budgetWriter, root map[string]any, s any, stack map[string]bool, isSchema bool, depth int) error {
	if depth > 256 {
		return errBudget
	}
	switch x := s.(type) {
	case map[string]any:
		if !isSchema {
			return writeData(w, x)
		}
		if ref, ok := x["$ref"].(string); ok {
			if !strings.HasPrefix(ref, "#") || stack[ref] {
				return errBudget
			}
			target, ok := resolvePointer(root, ref)
			if !ok {
				return errBudget
			}
			tm, _ := target.(map[string]any)
			if tm != nil {
				tm = cloneJSON(tm).(map[string]any)
				for _, k := range annotationKeys {
					delete(tm, k)
				}
			}
			stack[ref] = true
			defer delete(stack, ref)
			if len(x) == 1 {
				return writeInlined(w, root, tm, stack, true, depth+1)
			}
			siblings := map[string]any{}
			for k, v := range x {
				if k != "$ref" {
					siblings[k] = v
				}
			}
			return writeInlined(w, root, map[string]any{"allOf": []any{tm, siblings}}, stack, true, depth+1)
		}
		if len(x) == 0 {
			return writeData(w, map[string]any{"type": allTypes})
		}
		if err := w.write([]byte("{")); err != nil {
			return err
		}
		first := true
		for _, k := range sortedMapKeys(x) {
			if k == "$defs" || k == "definitions" {
				continue
			}
			if !first {
				if err := w.write([]byte(",")); err != nil {
					return err
				}
			}
			first = false
			if err := w.str(k); err != nil {
				return err
			}
			if err := w.write([]byte(":")); err != nil {
				return err
			}
			v := x[k]
			var err error
			switch {
			case containsStr(schemaMapKeys, k) || k == "dependencies":
				err = writeSchemaMap(w, root, v, stack, depth)
			case containsStr(schemaListKeys, k):
				err = writeSchemaList(w, root, v, stack, depth)
			case isSchemaKey(k):
				if b, ok := v.(bool); ok {
					err = writeData(w, b)
				} else {
					err = writeInlined(w, root, v, stack, true, depth+1)
				}
			default:
				err = writeData(w, v)
			}
			if err != nil {
				return err
			}
		}
		return w.write([]byte("}"))
	case bool:
		return writeData(w, x)
	}
	return writeData(w, s)
}

func writeSchemaMap(w *budgetWriter, root map[string]any, v any, stack map[string]bool, depth int) error {
	m, ok := v.(map[string]any)
	if !ok {
		return writeData(w, v)
	}
	if err := w.write([]byte("{")); err != nil {
		return err
	}
	for i, k := range sortedMapKeys(m) {
		if i > 0 {
			if err := w.write([]byte(",")); err != nil {
				return err
			}
		}
		if err := w.str(k); err != nil {
			return err
		}
		if err := w.write([]byte(":")); err != nil {
			return err
		}
		var err error
		if _, isList := m[k].([]any); isList { // draft-07 dependencies arrays
			err = writeData(w, m[k])
		} else {
			err = writeInlined(w, root, m[k], stack, true, depth+1)
		}
		if err != nil {
			return err
		}
	}
	return w.write([]byte("}"))
}

func writeSchemaList(w *budgetWriter, root map[string]any, v any, stack map[string]bool, depth int) error {
	l, ok := v.([]any)
	if !ok {
		return writeData(w, v)
	}
	if err := w.write([]byte("[")); err != nil {
		return err
	}
	for i, e := range l {
		if i > 0 {
			if err := w.write([]byte(",")); err != nil {
				return err
			}
		}
		if err := writeInlined(w, root, e, stack, true, depth+1); err != nil {
			return err
		}
	}
	return w.write([]byte("]"))
}

func writeData(w *budgetWriter, v any) error {
	b, err := encode(v)
	if err != nil {
		return err
	}
	return w.write(b)
}

const reducedNote = "Reduced schema: nested validation detail is elided here; the server validates complete inputs against the canonical schema and answers invalid_request with details.issues."

// reduceSchema keeps property names, their resolved types and first-level
// guidance, and the root's required-field constraints.
func reduceSchema(root map[string]any) map[string]any {
	desc, _ := root["description"].(string)
	out := map[string]any{"type": "object", "description": strings.TrimSpace(desc + " " + reducedNote)}
	if s, ok := root["$schema"]; ok {
		out["$schema"] = s
	}
	props := map[string]any{}
	if m, ok := root["properties"].(map[string]any); ok {
		for name, v := range m {
			p := map[string]any{}
			if t := detectType(root, v, 0); t != nil {
				p["type"] = t
			}
			if pm, ok := v.(map[string]any); ok {
				if d, ok := pm["description"].(string); ok {
					p["description"] = d
				}
			}
			props[name] = p
		}
	}
	out["properties"] = props
	for _, k := range []string{"required", "minProperties", "dependentRequired"} {
		if v, ok := root[k]; ok {
			out[k] = v
		}
	}
	if root["additionalProperties"] == false {
		out["additionalProperties"] = false
	}
	return out
}

// detectType resolves a subschema's JSON type(s) through $ref and unions;
// nil when any branch is unknown.
func detectType(root map[string]any, v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > 32 {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		t, ok := resolvePointer(root, ref)
		if !ok {
			return nil
		}
		return detectType(root, t, depth+1)
	}
	if t, ok := m["type"]; ok {
		return t
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if l, ok := m[k].([]any); ok {
			var types []string
			for _, b := range l {
				t := detectType(root, b, depth+1)
				if t == nil {
					return nil
				}
				for _, s := range asStrings(t) {
					if !containsStr(types, s) {
						types = append(types, s)
					}
				}
				if s, ok := t.(string); ok && !containsStr(types, s) {
					types = append(types, s)
				}
			}
			if len(types) == 1 {
				return types[0]
			}
			return toAny(types)
		}
	}
	if c, ok := m["const"]; ok {
		return jsonTypeOf(c)
	}
	return nil
}

func jsonTypeOf(v any) any {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return nil
}

// --- small helpers ---

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func asStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneJSON(e)
		}
		return out
	}
	return v
}

// decode reads one JSON value, numbers as json.Number.
func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("present: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("present: trailing data after value")
	}
	return v, nil
}

// encode writes compact JSON with sorted keys and without HTML escaping.
// It is the form advertised, and the key subschemas are compared by; the
// kernel canonicalizes it again wherever it is hashed.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
