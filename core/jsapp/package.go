package jsapp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"rea/ports"
)

// package.json, read leniently: a field of the wrong type is reported and
// ignored (npm and Node ignore "main": false too); only text that is not a
// JSON object makes the whole package invalid.

// packageEntry is one file a package.json names as an entry point.
type packageEntry struct {
	field      string   // main, module or exports
	subpath    string   // exports: ".", "./feature"; "" for main and module
	conditions []string // exports: the condition keys on the way (node, import, require, default, ...)
	target     string   // as written
}

// jsappMaxPackageEntries bounds the exports targets read from one package.
const jsappMaxPackageEntries = 1000

// jsappMaxExportsDepth bounds the nesting of an exports map.
const jsappMaxExportsDepth = 32

// parsePackageJSON fills pkg from the bytes of its package.json.
func parsePackageJSON(pkg *jsPackage, b []byte) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		pkg.err = "package.json is not valid JSON: " + err.Error()
		return
	}
	if m == nil {
		pkg.err = "package.json is null, not an object"
		return
	}
	str := func(key string) string {
		raw, ok := m[key]
		if !ok || isJSONNull(raw) {
			return ""
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			pkg.fieldErrs = append(pkg.fieldErrs, fmt.Sprintf("%q is %s, not a string; it was ignored", key, jsonKind(raw)))
			return ""
		}
		return s
	}
	pkg.name, pkg.ver, pkg.main, pkg.typ = str("name"), str("version"), str("main"), str("type")
	for _, key := range []string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"} {
		raw, ok := m[key]
		if !ok || isJSONNull(raw) {
			continue
		}
		var deps map[string]json.RawMessage
		if json.Unmarshal(raw, &deps) != nil {
			pkg.fieldErrs = append(pkg.fieldErrs, fmt.Sprintf("%q is %s, not an object; it was ignored", key, jsonKind(raw)))
			continue
		}
		for k := range deps {
			pkg.deps[k] = true
		}
	}
	if pkg.main != "" {
		pkg.entries = append(pkg.entries, packageEntry{field: "main", target: pkg.main})
	}
	if mod := str("module"); mod != "" {
		pkg.entries = append(pkg.entries, packageEntry{field: "module", target: mod})
	}
	if raw, ok := m["exports"]; ok && !isJSONNull(raw) {
		entries, err := packageExports(raw)
		pkg.entries = append(pkg.entries, entries...)
		if err != "" {
			pkg.fieldErrs = append(pkg.fieldErrs, `"exports": `+err)
		}
	}
}

func isJSONNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// jsonKind names the JSON type of a value for messages.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "empty"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean (" + string(t) + ")"
	case 'n':
		return "null"
	}
	return "a number"
}

// orderedJSON is a JSON value with object keys in document order: the order
// of conditions in an exports map is significant.
type orderedJSON struct {
	str   *string
	keys  []string
	vals  []*orderedJSON
	items []*orderedJSON
	obj   bool
}

func decodeOrdered(dec *json.Decoder, depth int) (*orderedJSON, error) {
	if depth > jsappMaxExportsDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", jsappMaxExportsDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	v := &orderedJSON{}
	switch t := tok.(type) {
	case string:
		v.str = &t
	case json.Delim:
		switch t {
		case '{':
			v.obj = true
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				val, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.keys, v.vals = append(v.keys, k), append(v.vals, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
		case '[':
			for dec.More() {
				it, err := decodeOrdered(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, it)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// packageExports lists the string targets of an exports field: a string,
// an array of fallbacks, an object of subpaths ("." keys) or of conditions,
// nested conditions and arrays within. null targets (excluded subpaths)
// name nothing. It returns what it read and, when something was wrong or
// cut, why.
func packageExports(raw json.RawMessage) ([]packageEntry, string) {
	root, err := decodeOrdered(json.NewDecoder(bytes.NewReader(raw)), 0)
	if err != nil {
		return nil, err.Error()
	}
	var out []packageEntry
	problem := ""
	var walk func(v *orderedJSON, subpath string, conds []string)
	walk = func(v *orderedJSON, subpath string, conds []string) {
		switch {
		case len(out) >= jsappMaxPackageEntries:
			problem = fmt.Sprintf("more than %d targets; the rest were not read", jsappMaxPackageEntries)
		case v.str != nil:
			out = append(out, packageEntry{field: "exports", subpath: subpath, conditions: append([]string{}, conds...), target: *v.str})
		case v.obj:
			for i, k := range v.keys {
				walk(v.vals[i], subpath, append(conds, k))
			}
		default:
			for _, it := range v.items {
				walk(it, subpath, conds)
			}
		}
	}
	if root.obj && len(root.keys) > 0 && strings.HasPrefix(root.keys[0], ".") {
		for i, k := range root.keys {
			if !strings.HasPrefix(k, ".") {
				return out, "mixes subpath keys and condition keys (Node refuses such a package)"
			}
			walk(root.vals[i], k, nil)
		}
		return out, problem
	}
	if root.obj {
		for _, k := range root.keys {
			if strings.HasPrefix(k, ".") {
				return nil, "mixes subpath keys and condition keys (Node refuses such a package)"
			}
		}
	}
	walk(root, ".", nil)
	return out, problem
}

// resolveEntry finds the files an entry names: one file, or for an exports
// pattern (one "*") every inventoried file it matches (at most
// jsappMaxPackageEntries). Edges go only to the JavaScript assets among them.
func (st *jsappState) resolveEntry(pkg *jsPackage, e packageEntry) []string {
	if e.field == "exports" && !strings.HasPrefix(e.target, "./") {
		return nil // Node requires exports targets relative to the package
	}
	if i := strings.IndexByte(e.target, '*'); i >= 0 && e.field == "exports" {
		if strings.Count(e.target, "*") != 1 {
			return nil
		}
		prefix := path.Join(pkg.dir, e.target[:i])
		if strings.HasSuffix(e.target[:i], "/") {
			prefix += "/"
		}
		suffix := e.target[i+1:]
		var out []string
		for _, p := range st.order {
			if len(out) >= jsappMaxPackageEntries {
				break
			}
			if strings.HasPrefix(p, prefix) && strings.HasSuffix(p, suffix) && len(p) >= len(prefix)+len(suffix) {
				out = append(out, p) // any file: a pattern of .d.ts or .ts targets resolves without a JavaScript edge
			}
		}
		return out
	}
	if p, ok := st.resolveExportTarget(path.Join(pkg.dir, e.target)); ok {
		return []string{p}
	}
	return nil
}

// exportConditions are the conditions Node matches for an import kind.
func exportConditions(kind string) map[string]bool {
	switch kind {
	case ports.JSRequire, ports.JSRequireResolved:
		return map[string]bool{"node": true, "require": true, "default": true, "module-sync": true}
	}
	return map[string]bool{"node": true, "import": true, "default": true, "module-sync": true}
}

// resolveExports resolves sub ("" for the package itself) through pkg's
// exports map: the first target, in document order, whose subpath matches
// and whose conditions are all active.
func (st *jsappState) resolveExports(pkg *jsPackage, sub, kind string) (string, bool) {
	want := "."
	if sub != "" {
		want = "./" + sub
	}
	active := exportConditions(kind)
	for _, e := range pkg.entries {
		if e.field != "exports" || !strings.HasPrefix(e.target, "./") {
			continue
		}
		target := e.target
		if i := strings.IndexByte(e.subpath, '*'); i >= 0 {
			pre, suf := e.subpath[:i], e.subpath[i+1:]
			if !strings.HasPrefix(want, pre) || !strings.HasSuffix(want, suf) || len(want) < len(pre)+len(suf) {
				continue
			}
			target = strings.ReplaceAll(target, "*", want[len(pre):len(want)-len(suf)])
		} else if e.subpath != want {
			continue
		}
		ok := true
		for _, c := range e.conditions {
			ok = ok && active[c]
		}
		if !ok {
			continue
		}
		p := path.Join(pkg.dir, target)
		if p == pkg.dir || !strings.HasPrefix(p, pkg.dir+"/") && pkg.dir != "." {
			return "", false // a target outside its package
		}
		if _, ok := st.files[p]; ok {
			return p, true
		}
		return "", false // Node does not try extensions on exports targets
	}
	return "", false
}
