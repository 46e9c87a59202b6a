package native

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"rea/ports"
	"rea/ports/libc"
)

// Stack words by place, and calls' stack arguments. Under every
// convention the solver (valueflow_solve.go) names a stack word at a known
// height (valueflow_stack.go) by its place, not by its operand: 32-bit x86's
// push "[esp]", store "[esp+0x4]" and frame slot "[ebp-0xc]", x86-64's
// "[rsp+0x28]" and "[rbp-0x18]", AArch64's "[sp+0x10]", "[x29-0x8]" and the
// pre-indexed "stp x29, x30, [sp,#-32]!" become the word's offset from the
// stack pointer at the entry ("[esp-28]", "[rsp-24]", "[sp-32]", as
// stackParameters names the procedure's own "[esp+4]", "[rsp+8]",
// "[sp+0]"), or after a realignment from the aligned stack pointer
// ("[esp&-16-28]", "[rsp&-32-8]"). So a callee-saved register's push and
// pop ("push rbx" ... "pop rbx"), a slot written through the stack pointer
// and read through the frame pointer, and a call's argument words meet
// their writers as any definition meets its use: a push writes the word
// below the height before it, a store at a known height the word it
// addresses and, when wider than a word, the words it covers (a double's
// two on 32-bit x86, an xmm register's two on x86-64), a call writes none
// (a callee may reuse its argument words, but gcc -O2 counts on them still
// holding what it stored for an earlier call), and a word nothing wrote on
// some path reaches a use from the entry (no edge). A word at an unknown
// height keeps its operand's name.
//
// A call passes its stack arguments in the words from its stack pointer
// up: under cdecl every argument from [esp], under SysV x86-64 those past
// the six integer registers from [rsp], under Microsoft x64 those past the
// four from [rsp+0x20] (past the 32-byte home area), under AAPCS64 those
// past the eight from [sp]. Where the callee's arity is exact (its C
// prototype, its DWARF, a constant printf format: valueflow_callee.go,
// valueflow_format.go) and the stack height at the call is known, the call
// uses that many words, with def-use edges from the instructions that
// wrote them. A variadic cdecl callee without a constant format takes its
// fixed words only, which the procedure's limitations say.

// stackPlace is where a stack word is: its offset from the stack pointer
// at the entry (base ""), or from an aligned stack pointer (base
// "esp&-16", valueflow_stack.go).
type stackPlace struct {
	base string
	off  int64
}

// stackWordName names the stack word at entry offset at ("[esp+4]",
// "[esp-28]"), as stackParameters names a procedure's own.
func (cc convention) stackWordName(at int64) string {
	if at < 0 {
		return fmt.Sprintf("[%s%d]", cc.sp, at)
	}
	return fmt.Sprintf("[%s+%d]", cc.sp, at)
}

// word is the size of a stack word: a push's, a register's.
func (cc convention) word() int64 {
	if cc.sp == cdecl.sp {
		return 4
	}
	return 8
}

// placeName names the stack word at p ("[esp-28]", "[esp&-16+8]").
func (cc convention) placeName(p stackPlace) string {
	if p.base == "" {
		return cc.stackWordName(p.off)
	}
	return fmt.Sprintf("[%s%+d]", p.base, p.off)
}

// place is where frame operand loc ("[esp+0x8]", "[ebp-0xc]") lies at
// height h, when its base's height is known from the entry or from an
// alignment.
func (h height) place(cc convention, loc string) (stackPlace, bool) {
	base, disp, ok := frameOperand(loc)
	switch {
	case !ok:
	case base == cc.sp && h.spOK:
		return stackPlace{off: h.sp + disp}, true
	case base == cc.fp && h.fpOK:
		return stackPlace{off: h.fp + disp}, true
	case base == cc.sp && h.aspOK:
		return stackPlace{base: h.abase, off: h.asp + disp}, true
	case base == cc.fp && h.afpOK:
		return stackPlace{base: h.abase, off: h.afp + disp}, true
	}
	return stackPlace{}, false
}

// placedNames gives the solver's names of instruction k's uses and defs:
// its stack words by their places, wider reads and stores also naming the
// words they cover; when k touches no placed word, its own. placed records
// each place named.
func (f *flowSolver) placedNames(k int, placed map[string]stackPlace) (uses, defs []string) {
	s := f.sems[k]
	uses, defs = s.uses, s.defs
	if len(f.heights) != len(f.flows) {
		return uses, defs
	}
	h := f.heights[k]
	if !h.spOK && !h.fpOK && !h.aspOK && !h.afpOK {
		return uses, defs
	}
	name := func(p stackPlace) string {
		if n, ok := f.nameOf[p]; ok {
			return n
		}
		n := f.cc.placeName(p)
		placed[n] = p
		if f.nameOf == nil {
			f.nameOf = map[stackPlace]string{}
		}
		f.nameOf[p] = n
		return n
	}
	cloned := false
	var wide []string // the further words a wide read covers
	for i, u := range s.uses {
		if p, ok := h.operands(f.cc, s).place(f.cc, u); ok {
			if !cloned {
				uses, cloned = slices.Clone(s.uses), true
			}
			uses[i] = name(p)
			if word := f.cc.word(); p.off%word == 0 {
				for w := p.off + word; w < p.off+int64(s.readBytes); w += word {
					wide = append(wide, name(stackPlace{base: p.base, off: w}))
				}
			}
		}
	}
	uses = append(uses, wide...)
	var out []string
	for i, d := range s.defs {
		at := h.operands(f.cc, s)
		size := int64(0)
		switch {
		case d == "["+f.cc.sp+"]" && s.stack.sp == spAdd && s.stack.n < 0 && s.write == nil: // x86's push's slot, below the height (not AArch64's write-back)
			at, size = h.step(f.cc, s, false, 0), -s.stack.n
		case d == s.popped && s.stack.sp == spAdd: // pop [esp+4] addresses past the pop
			at = h.step(f.cc, s, false, 0)
		case s.write != nil && d == s.write.loc:
			size = int64(s.memBytes)
		}
		p, ok := at.place(f.cc, d)
		if !ok {
			if out != nil {
				out = append(out, d)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(s.defs)+1), s.defs[:i]...)
		}
		out = append(out, name(p))
		if word := f.cc.word(); p.off%word == 0 {
			for w := p.off + word; w < p.off+size; w += word {
				out = append(out, name(stackPlace{base: p.base, off: w}))
			}
		}
	}
	if out != nil {
		defs = out
	}
	return uses, defs
}

// unplacedUses lists the frame operands read at an unknown height, which
// keep their operands' names. A write of one at a known height defines it
// under that name too, as it did before words were placed: where the
// height is lost at a join of two heights (a callee that pops a hidden
// struct-return pointer, "ret 4", leaves one path 4 bytes off), the read
// still meets the writes on paths that keep the stack pointer as it was.
func (f *flowSolver) unplacedUses() map[string]bool {
	out := map[string]bool{}
	for k := range f.uses {
		for _, u := range f.uses[k] {
			if _, placed := f.placed[u]; placed {
				continue
			}
			if base, _, ok := frameOperand(u); ok && (base == f.cc.sp || base == f.cc.fp) {
				out[u] = true
			}
		}
	}
	return out
}

// stackArgWords is how many stack words a call takes given its callee's
// arity ar (cdecl's every argument, the others' past the registers), 0
// when not exactly known or the convention places none in words.
func (f *flowSolver) stackArgWords(ar calleeArity) int {
	if f.cc.stackWord == 0 || !ar.known || !ar.exact {
		return 0
	}
	return ar.words
}

// callPlace is where the words a call at height h passes begin: its [esp]
// (cdecl), [rsp] (SysV), [rsp+0x20] (Microsoft x64) or [sp] (AAPCS64).
func (f *flowSolver) callPlace(h height) (stackPlace, bool) {
	p, ok := h.place(f.cc, "["+f.cc.sp+"]")
	p.off += f.cc.callArea()
	return p, ok
}

// maxFormatWords bounds the words a call of a printf-family function is
// looked at for, past its fixed ones, before its format is read.
const maxFormatWords = 256

// callWords is what a call of exact arity takes on the stack: words from
// at, and the definitions reaching each word the procedure writes there
// (by offset), under cdecl up to maxFormatWords past them when a format
// may say it takes more (the others' formats are read from the registers
// before: valueflow_format.go).
type callWords struct {
	at       stackPlace
	words    int
	arity    calleeArity // a printf-family function's prototype (format > 0), else zero
	variadic bool        // the callee takes further words than words
	defs     map[int64]defSet
}

// argWords records the definitions reaching call k's argument words in
// state (the state before it).
func (f *flowSolver) argWords(k int, at stackPlace, words int, ar calleeArity, state []defSet) callWords {
	cw := callWords{at: at, words: words, variadic: ar.variadic, defs: map[int64]defSet{}}
	span := int64(words)
	if ar.format > 0 && ar.format <= words && len(f.cc.intArgs) == 0 {
		cw.arity, span = ar, int64(words+maxFormatWords)
	}
	for i := range span {
		p := stackPlace{base: at.base, off: at.off + i*f.cc.stackWord}
		if id, ok := f.placeIDs[p]; ok && id < f.nt {
			cw.defs[p.off] = state[id]
		}
	}
	return cw
}

// nameStackArgs adds the argument words of the calls (by call index) to
// their operations' uses, and their def-use edges to edges, which it
// returns. A call of a printf-family function whose format word every
// writer reaching it sets to the same constant format's address (push
// 0x804a008; mov [esp], 0x...; lea eax, [ebx-0x1ff8] then push eax or mov
// [esp], eax: stored gives the definitions of the register a push or store
// writes) takes exactly what the format places (a double or a long long in
// two words): formatted lists those calls' addresses.
func (f *flowSolver) nameStackArgs(calls map[int]callWords, stored map[int]defSet, ops []ports.ValueFlowOperation, edges []ports.DefUse, out *ports.ValueFlow) ([]ports.DefUse, map[uint64]bool) {
	formatted := map[uint64]bool{}
	var variadic []string
	for _, k := range slices.Sorted(maps.Keys(calls)) {
		cw := calls[k]
		if cw.arity.format > 0 {
			if a, ok := f.cdeclFormat(cw, stored); ok {
				cw.words, cw.variadic, formatted[f.flows[k].addr] = a.words, false, true
			}
		}
		if cw.variadic {
			variadic = append(variadic, fmt.Sprintf("%#x", f.flows[k].addr))
		}
		for i := range int64(cw.words) {
			p := stackPlace{base: cw.at.base, off: cw.at.off + i*f.cc.stackWord}
			name := f.cc.placeName(p)
			ops[k].Uses = append(slices.Clone(ops[k].Uses), name)
			for _, d := range cw.defs[p.off] {
				if d < 0 {
					continue
				}
				if len(edges) >= maxVFEdges {
					out.Truncated = true
					continue
				}
				edges = append(edges, ports.DefUse{Def: f.flows[d].addr, Use: f.flows[k].addr, Location: name})
			}
		}
	}
	if len(variadic) > 0 {
		out.Limitations = append(out.Limitations, fmt.Sprintf("The variadic calls at %s may pass stack words past their fixed parameters (no constant format says how many); only the fixed ones are their uses.", strings.Join(variadic, ", ")))
	}
	return edges, formatted
}

// cdeclFormat is the exact arity of a call of a printf- or scanf-family
// function (cw.arity its prototype's) from the constant format its format
// word holds (formatAt).
func (f *flowSolver) cdeclFormat(cw callWords, stored map[int]defSet) (calleeArity, bool) {
	ar := cw.arity
	fdefs := cw.defs[cw.at.off+int64(ar.format-1)*f.cc.stackWord]
	if f.known.format == nil || ar.format > cw.words || len(fdefs) == 0 {
		return calleeArity{}, false
	}
	lc := libc.Convention{Word: int(f.cc.stackWord)}
	var out calleeArity
	n := 0
	for _, d := range fdefs {
		var from defSet
		switch _, ok := f.consts[int(d)]; {
		case d < 0:
			return calleeArity{}, false
		case ok:
			from = defSet{d}
		default:
			from = stored[int(d)]
		}
		if len(from) == 0 {
			return calleeArity{}, false
		}
		for _, c := range from {
			addr, ok := f.consts[int(c)]
			if c < 0 || !ok {
				return calleeArity{}, false
			}
			a, ok := f.formatAt(lc, ar, addr)
			if !ok || n > 0 && a != out {
				return calleeArity{}, false
			}
			out, n = a, n+1
		}
	}
	return out, true
}

// storedReg is the register instruction k pushes or stores to a stack
// word under cdecl, "" for none.
func (f *flowSolver) storedReg(k int) string {
	if f.cc.name != cdecl.name || f.known.format == nil {
		return ""
	}
	s := f.sems[k]
	switch {
	case s.pushed != "":
		return s.pushed
	case s.write != nil && len(s.write.from) == 1 && s.write.from[0] == s.write.value && writesStack(f.cc, s):
		return s.write.value
	}
	return ""
}

// writesStack reports whether s writes a word relative to the stack or
// frame pointer (a push, mov [esp+0x4], eax).
func writesStack(cc convention, s vfSem) bool {
	for _, d := range s.defs {
		if base, _, ok := frameOperand(d); ok && (base == cc.sp || base == cc.fp) {
			return true
		}
	}
	return false
}
