package binary

import (
	"strings"

	"rea/core/codeloc"
)

// A name an agent gives may be the import's own (puts for puts@plt), the C
// name of a decorated symbol (main for _main), in other case, part of a
// longer name, or mistyped. resolveValue takes the
// first when one procedure answers to it; the others become suggestions
// in the error, so the next call can be right.

// importStub returns the one procedure whose name is s with a version or
// stub suffix (puts@plt, memcpy@GLIBC_2.14), or -1.
func (v *codeView) importStub(s string) int {
	if strings.Contains(s, "@") {
		return -1
	}
	found := -1
	for i, p := range v.procs {
		if base, _, ok := strings.Cut(p.Name, "@"); ok && base == s {
			if found >= 0 {
				return -1 // more than one: the caller must say which
			}
			found = i
		}
	}
	return found
}

// decorated returns the one procedure whose name is s as C compilers
// decorate it for 32-bit Windows and Mach-O: with a leading underscore
// (_main), and for stdcall with @ and its argument bytes (_Sleep@4); or -1.
func (v *codeView) decorated(s string) int {
	found := -1
	for i, p := range v.procs {
		n, ok := strings.CutPrefix(p.Name, "_")
		if base, bytes, at := strings.Cut(n, "@"); at && bytes != "" && strings.Trim(bytes, "0123456789") == "" {
			n = base
		}
		if ok && n == s {
			if found >= 0 {
				return -1 // more than one: the caller must say which
			}
			found = i
		}
	}
	return found
}

// suggest returns up to three names of the target close to s
// (codeloc.Suggest over the procedures', labels' and analysts' names).
func (v *codeView) suggest(s string) []string {
	names := make([]string, 0, len(v.procs)+len(v.names)+len(v.analyst.names))
	for _, p := range v.procs {
		names = append(names, p.Name)
	}
	for _, n := range v.names {
		names = append(names, n.Name)
	}
	for _, n := range v.analyst.names {
		names = append(names, n)
	}
	return codeloc.Suggest(names, s)
}
