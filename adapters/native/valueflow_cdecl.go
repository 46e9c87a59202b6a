package native

import (
	"fmt"
	"slices"

	"rea/ports"
	"rea/ports/libc"
)

// A 32-bit x86 call's stack arguments. Under cdecl a call passes every
// argument in the stack words from [esp] at the call up, written by pushes
// ("push eax; call puts") or by stores ("mov [esp+0x4], eax", "fstp qword
// [esp+0x8]"). Where the callee's arity is exact (its C prototype, its
// DWARF, a constant printf format: valueflow_callee.go,
// valueflow_format.go) and the stack height at the call is known
// (valueflow_stack.go), the call uses that many words, named as the
// procedure's own stack words are, by their place from the stack pointer
// at the entry ("[esp-28]" for the word at [esp] of a call made 28 bytes
// below it), with def-use edges from the instructions that wrote them. A
// small reaching-definitions pass over those words alone finds the
// writers: a push writes the word below the height before it, a store at
// a known height the words it covers (a double's two), a call writes none
// (a callee may reuse its argument words, but gcc -O2 counts on them still
// holding what it stored for an earlier call), and a word nothing wrote on
// some path reaches the call from whatever wrote it before, or from the
// entry (no edge). A variadic callee without a constant format takes its
// fixed words only.

// stackArgs is what the calls of a procedure take on the stack: by call
// index, the entry offsets of their argument words.
type stackArgs struct {
	offs map[int][]int64
	// defs: the writers of each argument word reaching each call, by call
	// index then word (entryDef for the entry value).
	defs map[int][]defSet
}

// stackArgWords is how many stack words call k takes under cdecl given its
// arity ar, 0 when not exactly known.
func (f *flowSolver) stackArgWords(ar calleeArity) int {
	if f.cc.name != cdecl.name || !ar.known || !ar.exact {
		return 0
	}
	return ar.words
}

// stackWordName names the stack word at entry offset at ("[esp+4]",
// "[esp-28]"), as stackParameters names a procedure's own.
func (cc convention) stackWordName(at int64) string {
	if at < 0 {
		return fmt.Sprintf("[%s%d]", cc.sp, at)
	}
	return fmt.Sprintf("[%s+%d]", cc.sp, at)
}

// stackWritten lists the entry offsets of the stack words instruction k
// writes at a known height.
func (f *flowSolver) stackWritten(k int) []int64 {
	s, h := f.sems[k], f.heights[k]
	word := f.cc.stackWord
	var out []int64
	cover := func(at, size int64) {
		for w := at - ((at%word)+word)%word; w < at+size; w += word {
			out = append(out, w)
		}
	}
	for _, d := range s.defs {
		switch {
		case d == "["+f.cc.sp+"]" && s.stack.sp == spAdd && s.stack.n < 0 && h.spOK: // push
			cover(h.sp+s.stack.n, -s.stack.n)
		default:
			base, _, ok := frameOperand(d)
			if !ok || base != f.cc.sp && base != f.cc.fp {
				continue
			}
			at, ok := h.operands(f.cc, s).entryOffset(f.cc, d)
			if !ok {
				continue
			}
			cover(at, int64(max(s.memBytes, 1)))
		}
	}
	return out
}

// cdeclArgs finds the argument words of the calls whose arity words gives
// (by call index) and their writers. insnsOf bounds a block's
// instructions.
func (f *flowSolver) cdeclArgs(words map[int]int, insnsOf func(int) (int, int)) stackArgs {
	out := stackArgs{offs: map[int][]int64{}, defs: map[int][]defSet{}}
	if len(words) == 0 || len(f.heights) != len(f.flows) || f.entry < 0 || f.entry >= len(f.blocks) {
		return out
	}
	idx := map[int64]int{} // the words wanted, numbered
	for k, n := range words {
		h := f.heights[k]
		if !h.spOK {
			continue
		}
		for i := range int64(n) {
			at := h.sp + i*f.cc.stackWord
			if _, ok := idx[at]; !ok {
				idx[at] = len(idx)
			}
			out.offs[k] = append(out.offs[k], at)
		}
	}
	if len(idx) == 0 {
		return out
	}
	nw := len(idx)
	byStart := make(map[uint64]int, len(f.blocks))
	for bi, b := range f.blocks {
		byStart[b.Start] = bi
	}
	writes := make([][]int, len(f.flows)) // the wanted words each instruction writes
	for k := range f.flows {
		for _, at := range f.stackWritten(k) {
			if w, ok := idx[at]; ok {
				writes[k] = append(writes[k], w)
			}
		}
	}
	in := make([][]defSet, len(f.blocks))
	in[f.entry] = make([]defSet, nw)
	for w := range nw {
		in[f.entry][w] = defSet{entryDef}
	}
	state := make([]defSet, nw)
	converged := false
	for round := 0; round < maxVFRounds && !converged; round++ {
		converged = true
		for bi, b := range f.blocks {
			if in[bi] == nil {
				continue
			}
			copy(state, in[bi])
			lo, hi := insnsOf(bi)
			for k := lo; k < hi; k++ {
				for _, w := range writes[k] {
					state[w] = defSet{int32(k)}
				}
			}
			for _, e := range b.Successors {
				si, ok := byStart[e.Target]
				if !ok || e.Kind == ports.EdgeTailCall || e.Kind == ports.EdgeUnresolved {
					continue
				}
				if in[si] == nil {
					in[si], converged = make([]defSet, nw), false
				}
				for w := range nw {
					if u, changed := in[si][w].union(state[w]); changed {
						in[si][w], converged = u, false
					}
				}
			}
		}
	}
	if !converged {
		return stackArgs{offs: out.offs} // the words, without their writers
	}
	for bi := range f.blocks {
		if in[bi] == nil {
			continue
		}
		copy(state, in[bi])
		lo, hi := insnsOf(bi)
		for k := lo; k < hi; k++ {
			if offs, ok := out.offs[k]; ok {
				ds := make([]defSet, len(offs))
				for i, at := range offs {
					ds[i] = slices.Clone(state[idx[at]])
				}
				out.defs[k] = ds
			}
			for _, w := range writes[k] {
				state[w] = defSet{int32(k)}
			}
		}
	}
	return out
}

// nameStackArgs adds the argument words of the calls words gives (by call
// index, how many each takes) to their operations' uses, and their def-use
// edges to edges, which it returns. A call of a printf-family function in
// formats (its prototype's arity, by call index) whose format word every
// writer reaching it sets to the same constant format's address (push
// 0x804a008; mov [esp], 0x...; lea eax, [ebx-0x1ff8] then push eax or mov
// [esp], eax: stored gives the definitions of the register a push or store
// writes) takes exactly what the format places (a double or a long long in
// two words): formatted lists those calls' addresses.
func (f *flowSolver) nameStackArgs(words map[int]int, formats map[int]calleeArity, stored map[int]defSet, insnsOf func(int) (int, int), ops []ports.ValueFlowOperation, edges []ports.DefUse, out *ports.ValueFlow) ([]ports.DefUse, map[uint64]bool) {
	args := f.cdeclArgs(words, insnsOf)
	formatted := map[uint64]bool{}
	for k, ar := range formats {
		if a, ok := f.cdeclFormat(k, ar, args, stored); ok {
			words[k], formatted[f.flows[k].addr] = a.words, true
		}
	}
	if len(formatted) > 0 {
		args = f.cdeclArgs(words, insnsOf)
	}
	for k, offs := range args.offs {
		for i, at := range offs {
			name := f.cc.stackWordName(at)
			ops[k].Uses = append(slices.Clone(ops[k].Uses), name)
			if i >= len(args.defs[k]) {
				continue
			}
			for _, d := range args.defs[k][i] {
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
	return edges, formatted
}

// cdeclFormat is the exact arity of call k of a printf-family function
// (prototype arity ar) from the constant format its format word holds.
func (f *flowSolver) cdeclFormat(k int, ar calleeArity, args stackArgs, stored map[int]defSet) (calleeArity, bool) {
	at := ar.format - 1
	if f.known.format == nil || at >= len(args.defs[k]) || len(args.defs[k][at]) == 0 {
		return calleeArity{}, false
	}
	lc := libc.Convention{Word: int(f.cc.stackWord)}
	var out calleeArity
	n := 0
	for _, d := range args.defs[k][at] {
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
			text, ok := f.known.format(addr)
			if !ok {
				return calleeArity{}, false
			}
			fa, ok := libc.ParseFormat(text)
			if !ok {
				return calleeArity{}, false
			}
			places, ok := lc.Place(ar.format, fa)
			if !ok {
				return calleeArity{}, false
			}
			a := placedArity(lc, ar, ar.format, places)
			if n > 0 && a != out {
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
