package binary

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// C++ and Rust names are mangled in the binary (_ZNK2Sq4areaEv); an agent
// asks for Sq::area. Listings carry the demangled form beside the name,
// a search whose pattern is shaped like a qualified name matches it, and a
// procedure argument that names no procedure may name one demangled.

// demangled returns the demangled form of a mangled name, keeping a stub
// or version suffix (_Znwm@plt is operator new(unsigned long)@plt).
func demangled(name string) (string, bool) {
	base, suffix, _ := strings.Cut(name, "@")
	if !strings.HasPrefix(base, "_Z") && !strings.HasPrefix(base, "_R") {
		return "", false
	}
	s, err := demangle.ToString(base)
	if err != nil || s == base {
		return "", false
	}
	if suffix != "" {
		s += "@" + suffix
	}
	return s, true
}

// demangledMatches reports a mangled name whose demangled form matches.
func demangledMatches(name string, match func(string) bool) bool {
	d, ok := demangled(name)
	return ok && match(d)
}

// qualifiedShape reports a search pattern that only a demangled name can
// match (Sq::area, vector<int>, ~Widget, area() const). Other patterns
// match the names as they are, so a search over a large binary does not
// demangle every name.
func qualifiedShape(pattern string) bool {
	return strings.ContainsAny(pattern, ":<>()~ ")
}

// demangledMatch returns the one procedure whose demangled name, with or
// without its parameters, is s; -1 when none or several are.
func (v *codeView) demangledMatch(s string) int {
	// A mangled name spells each identifier as it is: only names holding
	// the last one (area in Sq::area) are demangled.
	last, _, _ := strings.Cut(s, "(")
	if i := strings.LastIndex(last, "::"); i >= 0 {
		last = last[i+2:]
	}
	last = strings.TrimSpace(last)
	if last == "" {
		return -1
	}
	found := -1
	for i, p := range v.procs {
		if !strings.Contains(p.Name, last) {
			continue
		}
		d, ok := demangled(p.Name)
		if !ok {
			continue
		}
		if d == s || demangle.Filter(p.Name, demangle.NoParams) == s {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}
