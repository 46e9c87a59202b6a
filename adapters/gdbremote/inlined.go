package gdbremote

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// inlinedLimit bounds the callers and copies a note names.
const inlinedLimit = 4

// inlinedNote says why name, which no library the program loaded exports,
// has no procedure in the program at p, when the program's symbol table or
// debug information tells: a static function the compiler inlined (gcc -O2
// inlines one called once) has no symbol, and its debug information names
// it as an abstract function (DW_AT_inline) with a DW_TAG_inlined_subroutine
// in each caller it was copied into, named with where the first copy in it
// starts (a program address, as a breakpoint takes it), or as folded when
// the copy kept no code; or the compiler kept only specialized
// copies (name.constprop.0, name.isra.0, name.part.0). It is "" when the
// program has a symbol of that name (something else is wrong) or nothing
// names it but, at most, a declaration (a typo, or a function of a library
// not loaded). Unreadable debug information tells nothing; a program is
// untrusted input.
func inlinedNote(p, name string) (note string) {
	// Only a refusal's wording rides on this: a reader that breaks on a
	// malformed file leaves the refusal as it was.
	defer func() {
		if recover() != nil {
			note = ""
		}
	}()
	f, err := elf.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	syms, _ := f.Symbols()
	var copies []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF {
			continue
		}
		if s.Name == name {
			return ""
		}
		if rest, ok := strings.CutPrefix(s.Name, name+"."); ok && rest != "" && !slices.Contains(copies, s.Name) {
			copies = append(copies, s.Name)
		}
	}
	slices.Sort(copies)
	callers, named := inlinedCallers(f, name)
	const advice = "; trace that caller instead, or rebuild with -fno-inline (or mark it __attribute__((noinline))) to give it a procedure of its own"
	const copied = "the compiler made specialized copies of it, each a procedure to trace by its name (a .part copy holds only part of the function, " +
		"and a copy need not take every parameter the original declares: one it was specialized for is a constant): "
	switch {
	case len(callers) > 0 && len(copies) > 0:
		return "the compiler inlined it: the program's debug information names it as copied into " + list(callers) + advice + "; " + copied + list(copies)
	case len(callers) > 0:
		return "the compiler inlined it: the program's debug information names it as copied into " + list(callers) + advice
	case len(copies) > 0:
		return copied + list(copies)
	case named:
		return "the program's debug information names it, but no procedure of the program is it and no caller holds a copy of it: the compiler inlined it into its caller or removed it" + advice
	}
	return ""
}

// list is names joined by commas, cut to inlinedLimit.
func list(names []string) string {
	if len(names) > inlinedLimit {
		return strings.Join(names[:inlinedLimit], ", ") + " and " + strconv.Itoa(len(names)-inlinedLimit) + " more"
	}
	return strings.Join(names, ", ")
}

// inlinedCallers reads f's debug information for the functions name was
// inlined into (the subprograms holding a DW_TAG_inlined_subroutine whose
// origin is a subprogram called name), each as "CALLER at ADDRESS" (the
// entry of its first copy of name that has code) or "CALLER (folded: no
// code)", sorted, and whether any subprogram is called name. A subprogram named only through its origin (a concrete
// copy of an abstract one) takes its origin's name. A declaration does not
// count: the function is defined elsewhere.
func inlinedCallers(f *elf.File, name string) (callers []string, named bool) {
	d, err := f.DWARF()
	if err != nil {
		return nil, false
	}
	// First pass: every subprogram's name and origin, and which are name.
	names := map[dwarf.Offset]string{}
	origin := map[dwarf.Offset]dwarf.Offset{}
	target := map[dwarf.Offset]bool{}
	var defs []dwarf.Offset // the subprograms that are not declarations
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagSubprogram {
			continue
		}
		if n, ok := e.Val(dwarf.AttrName).(string); ok {
			names[e.Offset] = n
			if n == name {
				target[e.Offset] = true
			}
		}
		for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
			if o, ok := e.Val(a).(dwarf.Offset); ok {
				origin[e.Offset] = o
				break
			}
		}
		if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); !decl {
			defs = append(defs, e.Offset)
		}
	}
	if len(target) == 0 {
		return nil, false
	}
	nameOf := func(off dwarf.Offset) string {
		for range 8 { // an origin chain is short; a cycle is malformed input
			if n, ok := names[off]; ok {
				return n
			}
			o, ok := origin[off]
			if !ok {
				return ""
			}
			off = o
		}
		return ""
	}
	isTarget := func(off dwarf.Offset) bool {
		for range 8 {
			if target[off] {
				return true
			}
			o, ok := origin[off]
			if !ok {
				return false
			}
			off = o
		}
		return false
	}
	// A declaration alone (a function the program calls but another
	// object defines, such as a weak reference no library defined) was
	// neither inlined nor removed: name must be a subprogram the program
	// defines, or the origin of one (a C++ method's definition names it
	// through its declaration in the class).
	named = slices.ContainsFunc(defs, isTarget)
	if !named {
		return nil, false
	}
	// Second pass: the subprogram enclosing each inlined copy of name.
	var stack []dwarf.Offset     // the enclosing subprograms (0 for other entries with children)
	where := map[string]string{} // caller -> how the note names it
	at := map[string]bool{}      // callers named with an address
	r = d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == 0 {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if e.Tag == dwarf.TagInlinedSubroutine {
			if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok && isTarget(o) {
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i] == 0 {
						continue
					}
					if n := nameOf(stack[i]); n != "" && n != name {
						if pc, ok := entryOf(d, e); ok {
							if !at[n] {
								at[n], where[n] = true, fmt.Sprintf("%s at %#x", n, pc)
							}
						} else if _, seen := where[n]; !seen {
							where[n] = n + " (folded: no code)"
						}
					}
					break
				}
			}
		}
		switch {
		case e.Tag == dwarf.TagCompileUnit:
			stack = stack[:0] // a unit's entries end in no null entry when it has none
			if e.Children {
				stack = append(stack, 0)
			}
		case e.Children && e.Tag == dwarf.TagSubprogram:
			stack = append(stack, e.Offset)
		case e.Children:
			stack = append(stack, 0)
		}
	}
	for _, w := range where {
		callers = append(callers, w)
	}
	slices.Sort(callers)
	return callers, true
}

// entryOf is where an inlined copy starts: its DW_AT_entry_pc, else the
// lowest address of its ranges; ok is false when it kept no code.
func entryOf(d *dwarf.Data, e *dwarf.Entry) (uint64, bool) {
	if pc, ok := e.Val(dwarf.AttrEntrypc).(uint64); ok && pc != 0 {
		return pc, true
	}
	rs, err := d.Ranges(e)
	if err != nil || len(rs) == 0 {
		return 0, false
	}
	low := rs[0][0]
	for _, r := range rs[1:] {
		low = min(low, r[0])
	}
	return low, true
}
