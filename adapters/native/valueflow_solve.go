package native

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"

	"rea/ports"
)

// The value-flow solver: reaching definitions over the basic blocks of one
// procedure, then one pass that turns them into def-use edges, parameter
// uses and effects. See valueflow.go for what is modelled.

// defSet is a sorted set of definition sites: instruction indexes, and
// entryDef for the value a location holds on entry.
type defSet []int32

const entryDef int32 = -1

// union is s with t's definitions added, and whether any was new. Sets
// are never changed in place, so the result may be s or t itself.
func (s defSet) union(t defSet) (defSet, bool) {
	switch {
	case len(t) == 0:
		return s, false
	case len(s) == 0:
		return t, true
	}
	i := 0
	for _, d := range t { // t within s: nothing new, nothing to allocate
		for i < len(s) && s[i] < d {
			i++
		}
		if i == len(s) || s[i] != d {
			i = -1
			break
		}
	}
	if i >= 0 {
		return s, false
	}
	out := make(defSet, 0, len(s)+len(t))
	i, j := 0, 0
	for i < len(s) || j < len(t) {
		switch {
		case j >= len(t) || (i < len(s) && s[i] < t[j]):
			out = append(out, s[i])
			i++
		case i >= len(s) || t[j] < s[i]:
			out = append(out, t[j])
			j++
		default:
			out = append(out, s[i])
			i, j = i+1, j+1
		}
	}
	return out, len(out) != len(s)
}

// locInfo describes one interned location.
type locInfo struct {
	name    string
	tracked bool   // carries reaching definitions
	base    string // the register a frame slot is relative to
	abs     bool   // an absolute address (dies at calls)
}

type flowSolver struct {
	cc     convention
	flows  []flowInsn
	sems   []vfSem
	names  []string
	blocks []ports.BasicBlock
	entry  int // the block the procedure starts with (not the first of a procedure with parts below it), -1 when none
	known  vfTargets
	// heights is the stack height before each instruction
	// (valueflow_stack.go).
	heights []height

	locs     []locInfo
	locID    map[string]int
	byBase   map[string][]int // frame-slot locations by base register
	absIDs   []int
	frame    bool // the procedure sets its frame pointer from the stack pointer
	nt       int  // tracked locations: ids [0, nt) carry reaching definitions
	unsolved bool // too large to solve

	defIDs, useIDs [][]int // per instruction
	intArgIDs      []int   // argument registers in the convention's order
	vecArgIDs      []int
	retIDs         []int
	clobberIDs     []int
	work           int
	// arity: the arities of direct callees, by address
	// (valueflow_callee.go).
	arity map[uint64]calleeArity
	// sites: the arities of the calls and jumps to imports the C library's
	// prototypes name, by the instruction's address.
	sites map[uint64]calleeArity
	// consts: the address an instruction sets its one register to, by
	// its index (valueflow_format.go).
	consts map[int]uint64
	// uses and defs: each instruction's locations as the solver names
	// them (stack words by their places, valueflow_cdecl.go);
	// placed: the place of each such name, placeIDs: its location.
	uses, defs [][]string
	placed     map[string]stackPlace
	nameOf     map[stackPlace]string // each place's name
	placeIDs   map[stackPlace]int
}

// classify describes a location: registers and the memory the value flow
// tracks (frame slots, absolute addresses) carry reaching definitions.
func (f *flowSolver) classify(name string) locInfo {
	li := locInfo{name: name}
	_, placed := f.placed[name]
	switch {
	case placed:
		li.tracked = true
	case !strings.Contains(name, "["):
		li.tracked = true
	case strings.HasPrefix(name, "[0x") && !strings.ContainsAny(name[1:], "+*"):
		li.tracked, li.abs = true, true
	case strings.HasPrefix(name, "["):
		inner := strings.TrimSuffix(name[1:], "]")
		reg, rest := inner, ""
		if k := strings.IndexAny(inner, "+-"); k >= 0 {
			reg, rest = inner[:k], inner[k+1:]
		}
		if (reg == f.cc.sp || (reg == f.cc.fp && f.frame)) && !strings.ContainsAny(rest, "*+-") &&
			(rest == "" || strings.HasPrefix(rest, "0x")) {
			li.tracked, li.base = true, reg
		}
	}
	return li
}

// intern numbers every location: registers first, then tracked memory,
// then the rest, so that the states of the solver (f.nt wide) cover the
// tracked ones. When blocks times tracked locations exceed maxVFCells,
// memory stops being tracked; when registers alone exceed it, nothing is.
func (f *flowSolver) intern(names []string, out *ports.ValueFlow) {
	f.locID, f.byBase = map[string]int{}, map[string][]int{}
	var infos []locInfo
	for _, n := range names {
		if _, ok := f.locID[n]; n == "" || ok {
			continue
		}
		f.locID[n] = -1
		infos = append(infos, f.classify(n))
	}
	rank := func(li locInfo) int {
		switch {
		case !strings.Contains(li.name, "["):
			return 0
		case li.tracked:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(infos, func(x, y locInfo) int { return rank(x) - rank(y) })
	regs := 0
	for id, li := range infos {
		f.locID[li.name] = id
		switch rank(li) {
		case 0:
			regs++
			f.nt++
		case 1:
			f.nt++
		}
	}
	blocks := max(len(f.blocks), 1)
	if blocks*f.nt > maxVFCells {
		f.nt = regs
		for id := range infos {
			if rank(infos[id]) == 1 {
				infos[id].tracked, infos[id].abs, infos[id].base = false, false, ""
			}
		}
		out.Truncated = true
		out.Limitations = append(out.Limitations, "The procedure is too large to track memory; only registers carry def-use edges.")
	}
	if blocks*f.nt > maxVFCells {
		f.nt, f.unsolved = 0, true
		out.Limitations = append(out.Limitations, "The procedure is too large for reaching definitions; only operations and effects are reported.")
	}
	f.locs = infos
	for id, li := range infos {
		if li.base != "" {
			f.byBase[li.base] = append(f.byBase[li.base], id)
		}
		if li.abs {
			f.absIDs = append(f.absIDs, id)
		}
	}
}

func (f *flowSolver) ids(names []string) []int {
	out := make([]int, 0, len(names))
	for _, n := range names {
		id, ok := f.locID[n]
		if !ok || id < 0 {
			continue
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// transfer applies instruction k to state s.
func (f *flowSolver) transfer(k int, s []defSet) {
	if f.sems[k].call {
		for _, id := range f.clobberIDs {
			if id < f.nt {
				s[id] = defSet{int32(k)}
			}
		}
		for _, id := range f.absIDs {
			s[id] = nil
		}
		f.work += len(f.clobberIDs) + len(f.absIDs)
	}
	for _, id := range f.defIDs[k] {
		if id >= f.nt {
			continue
		}
		s[id] = defSet{int32(k)}
		for _, m := range f.byBase[f.locs[id].name] {
			s[m] = nil
		}
		f.work += 1 + len(f.byBase[f.locs[id].name])
	}
}

func (f *flowSolver) solve(ctx context.Context, out *ports.ValueFlow) {
	n := len(f.flows)
	for k := range n {
		if f.sems[k].setsFrame {
			f.frame = true
		}
	}
	var names []string
	f.uses, f.defs, f.placed = make([][]string, n), make([][]string, n), map[string]stackPlace{}
	for k := range n {
		f.uses[k], f.defs[k] = f.placedNames(k, f.placed)
		names = append(append(names, f.uses[k]...), f.defs[k]...)
		if w := f.sems[k].write; w != nil {
			names = append(names, w.from...)
		}
	}
	names = append(append(append(append(names, f.cc.intArgs...), f.cc.vecArgs...), f.cc.ret...), f.cc.clobber...)
	f.intern(names, out)
	f.placeIDs = make(map[stackPlace]int, len(f.placed))
	for name, p := range f.placed {
		f.placeIDs[p] = f.locID[name]
	}
	unplaced := f.unplacedUses()
	f.defIDs, f.useIDs = make([][]int, n), make([][]int, n)
	for k := range n {
		f.useIDs[k] = f.ids(f.uses[k])
		f.defIDs[k] = f.ids(f.defs[k])
		for _, d := range f.sems[k].defs {
			if id, ok := f.locID[d]; ok && id >= 0 && unplaced[d] && !slices.Contains(f.defs[k], d) && !slices.Contains(f.defIDs[k], id) {
				f.defIDs[k] = append(f.defIDs[k], id) // also under its operand's name (valueflow_cdecl.go)
			}
		}
		if f.sems[k].opaque && !strings.HasPrefix(f.names[k], "endbr") && f.names[k] != "nop" {
			out.OmittedInputs++
		}
	}
	f.intArgIDs, f.vecArgIDs = f.ids(f.cc.intArgs), f.ids(f.cc.vecArgs)
	f.retIDs = f.ids(f.cc.ret)
	f.clobberIDs = f.ids(f.cc.clobber)
	nl := f.nt

	// Instructions of each block, and block indexes by start.
	first := make([]int, len(f.blocks))
	byStart := make(map[uint64]int, len(f.blocks))
	for bi, b := range f.blocks {
		first[bi] = sort.Search(n, func(k int) bool { return f.flows[k].addr >= b.Start })
		byStart[b.Start] = bi
		for _, e := range b.Successors {
			if e.Kind == ports.EdgeUnresolved {
				out.OmittedEdges++
			}
		}
	}
	insnsOf := func(bi int) (int, int) {
		lo, hi := first[bi], first[bi]
		for hi < n && f.flows[hi].addr < f.blocks[bi].End {
			hi++
		}
		return lo, hi
	}

	in := make([][]defSet, len(f.blocks))
	if f.entry >= 0 && f.entry < len(f.blocks) && !f.unsolved {
		in[f.entry] = make([]defSet, nl)
		for id := range nl {
			in[f.entry][id] = defSet{entryDef}
		}
	}
	converged := false
	state := make([]defSet, nl)
	for round := 0; round < maxVFRounds && f.work < maxVFWork && !converged; round++ {
		if ctx.Err() != nil {
			return
		}
		converged = true
		for bi, b := range f.blocks {
			if in[bi] == nil {
				continue
			}
			copy(state, in[bi])
			lo, hi := insnsOf(bi)
			for k := lo; k < hi; k++ {
				f.transfer(k, state)
			}
			for _, e := range b.Successors {
				si, ok := byStart[e.Target]
				if !ok || e.Kind == ports.EdgeTailCall || e.Kind == ports.EdgeUnresolved {
					continue
				}
				if in[si] == nil {
					in[si] = make([]defSet, nl)
					converged = false
				}
				for id := range nl {
					u, changed := in[si][id].union(state[id])
					if changed {
						in[si][id], converged = u, false
					}
				}
				f.work += nl
			}
		}
	}
	if !converged {
		out.Truncated = true
		out.Limitations = append(out.Limitations, "Reaching definitions did not reach a fixed point within the engine's work bound; def-use edges and parameters may be incomplete.")
	}

	// Final pass: edges, parameter uses, effects and operations.
	summary := f.known.summary
	var ops []ports.ValueFlowOperation
	if !summary {
		ops = make([]ports.ValueFlowOperation, n)
	}
	for k := range len(ops) {
		ops[k] = ports.ValueFlowOperation{Address: f.flows[k].addr, Mnemonic: f.names[k],
			Defs: nonNil(f.defs[k]), Uses: nonNil(f.uses[k])}
		if f.sems[k].call {
			ops[k].Defs = append(slices.Clone(ops[k].Defs), f.cc.clobber...)
		}
	}
	paramUses := map[int][]uint64{}
	var edges []ports.DefUse
	var effects []ports.ValueFlowEffect
	addEdges := func(k, id int, s defSet) {
		if summary {
			return
		}
		for _, d := range s {
			if d < 0 {
				continue
			}
			if len(edges) >= maxVFEdges {
				out.Truncated = true
				continue
			}
			edges = append(edges, ports.DefUse{Def: f.flows[d].addr, Use: f.flows[k].addr, Location: f.locs[id].name})
		}
	}
	// A register a jump-table dispatch writes and reads again before its
	// jump (the table's address: "lea rcx, [rip+T]; movsxd rax, [rcx+rax*4];
	// add rax, rcx; jmp rax") is scratch, not an argument written for the
	// calls of the cases; so is the index it addresses the table with,
	// computed before it ("and edx, 0xf; cmp edx, 9; ja ...; movsxd rax,
	// [rcx+rdx*4]", gcc -Os), which the cases still hold.
	scratch := make([]bool, n)
	for bi, b := range f.blocks {
		if !slices.ContainsFunc(b.Successors, func(e ports.Edge) bool { return e.Kind == ports.EdgeJumpTable }) {
			continue
		}
		lo, hi := insnsOf(bi)
		for d := lo; d < hi; d++ {
			for u := d + 1; u < hi && !scratch[d]; u++ {
				scratch[d] = slices.ContainsFunc(f.defIDs[d], func(id int) bool { return slices.Contains(f.useIDs[u], id) })
			}
		}
		if in[bi] == nil {
			continue
		}
		local := map[string]bool{}
		for u := lo; u < hi; u++ {
			for _, l := range f.sems[u].uses {
				for _, r := range memRegs(l) {
					if id, ok := f.locID[r]; ok && id >= 0 && id < f.nt && !local[r] {
						for _, d := range in[bi][id] {
							if d >= 0 {
								scratch[d] = true
							}
						}
					}
				}
			}
			for _, d := range f.sems[u].defs {
				local[d] = true
			}
		}
	}
	// A push that only pads the stack is no use of its register, and the
	// pop that releases its slot loads no argument (valueflow_push.go).
	pad, release := f.padding(in, insnsOf)
	for k := range release {
		scratch[k] = scratch[k] || release[k]
	}
	seen := make([]bool, n)
	stackCalls := map[int]callWords{} // the calls' stack arguments (valueflow_cdecl.go)
	stored := map[int]defSet{}        // cdecl: the definitions of the register a push or store to the stack writes
	for bi, b := range f.blocks {
		lo, hi := insnsOf(bi)
		if in[bi] == nil {
			for k := lo; k < hi; k++ {
				seen[k] = true
				effects = append(effects, f.effects(k, nil)...)
			}
			continue
		}
		copy(state, in[bi])
		for k := lo; k < hi; k++ {
			seen[k] = true
			if c := f.sems[k].copyOf; c > 0 && f.known.format != nil {
				f.copiedConst(k, c, state) // a constant format moved to its register (valueflow_format.go)
			}
			for _, id := range f.useIDs[k] {
				if !f.locs[id].tracked {
					continue
				}
				addEdges(k, id, state[id])
				if slices.Contains(state[id], entryDef) && f.isArg(id) && !(pad[k] && f.locs[id].name == f.sems[k].pushed) {
					paramUses[id] = append(paramUses[id], f.flows[k].addr)
				}
			}
			// extra adds the uses of a call or return: registers written in
			// the procedure, and for calls every argument register below
			// the lowest one written, whose entry values are then
			// parameter uses.
			// A register a call merely clobbered is not written: only an
			// explicit definition makes it an argument.
			// A callee whose arity is known takes the registers below it
			// and no others: all of them when DWARF gives it (exact), else
			// the ones the rule above finds below it (valueflow_callee.go),
			// but its holes (Microsoft x64's positions of the other class).
			extra := func(ids []int, call bool, take int, exact, variadic, fill bool, holes uint32) {
				// For a return, a call's clobber counts for the integer
				// return register (the callee's result), not for the
				// vector one (which a call leaves defined only in name).
				written := func(pos, id int) bool {
					if call && addressedBy(f.sems[k].indirect, f.locs[id].name) {
						return false // the call's own target: "lea rdx, [rip+table]; call [rdx+rax*8]"
					}
					clobberCounts := !call && pos == 0
					for _, d := range state[id] {
						if d >= 0 && !(call && scratch[d]) && (clobberCounts || !f.sems[d].call || slices.Contains(f.defIDs[d], id)) {
							return true
						}
					}
					return false
				}
				lim := len(ids)
				if take >= 0 {
					lim = min(take, lim)
				}
				// The registers below the lowest one written are passed
				// through only when the written ones are a contiguous run
				// (a gap says the higher ones are scratch).
				lowest, highest, count := -1, -1, 0
				hole := func(pos int) bool { return pos < 32 && holes&(1<<pos) != 0 }
				for pos, id := range ids[:lim] {
					if !hole(pos) && written(pos, id) {
						if lowest < 0 {
							lowest = pos
						}
						highest, count = pos, count+1
					}
				}
				switch {
				case exact, fill && take >= 0 && count == 0:
					lowest = lim // the callee takes them all, and none is written
				case count != highest-lowest+1:
					lowest = -1
				}
				for pos, id := range ids {
					s := state[id]
					if slices.Contains(f.useIDs[k], id) {
						continue
					}
					switch {
					case pos < lim && hole(pos):
						continue
					case pos < lim && (pos < lowest && call || written(pos, id)):
					case pos >= lim && variadic && written(pos, id):
					default:
						continue
					}
					if !summary {
						ops[k].Uses = append(slices.Clone(ops[k].Uses), f.locs[id].name)
					}
					addEdges(k, id, s)
					// Only a register passed through untouched (below the
					// lowest one written) makes a parameter: an entry value
					// that reaches a call or return beside a definition on
					// another path is evidence only of a path that leaves
					// the register alone. Below an exact arity every
					// register is passed.
					if call && pos < lowest && slices.Contains(s, entryDef) {
						paramUses[id] = append(paramUses[id], f.flows[k].addr)
					}
				}
			}
			tail := f.tailJump(k, b)
			source := "" // where a call's arguments come from
			switch {
			case f.sems[k].call && f.flows[k].hasTarget && f.known.stackGrowth[f.flows[k].target]:
				// the stack-growth call's own argument (if any) is explicit
			case f.sems[k].call || tail:
				ar := calleeArity{}
				if f.flows[k].hasTarget {
					ar = f.arity[f.flows[k].target]
				}
				if s, ok := f.sites[f.flows[k].addr]; ok {
					ar = s
				} else if s, ok := f.loadedArity(state, f.sems[k].indirect); ok {
					ar = s
				}
				if ar.format > 0 {
					if s, ok := f.formatArity(k, state, ar); ok {
						ar = s // printf's format says what it takes
					}
				}
				ints, vecs := -1, -1
				if ar.known {
					ints, vecs = ar.ints, ar.vecs
				}
				// A variadic callee on x86-64 reads al: how many vector
				// registers carry its arguments. Where al is a constant
				// there, those registers are the call's vector arguments,
				// written or passed through ("movl $1, %eax; jmp printf"
				// passes the caller's own xmm0), and no others; a call of
				// unknown or inferred arity setting al above 0 is taken for
				// a variadic one (nothing else sets al before a call). An
				// inferred vector arity otherwise only bounds: a partial
				// write (movlpd xmm4, [rdi]) reads its register, so a callee
				// may seem to read one it never takes.
				vexact, vvariadic := ar.exact, ar.exact && ar.variadic
				readsAL := ar.exact && (ar.variadic || ar.source == sourceFormat) && f.cc.name == sysvAMD64.name
				switch {
				case ar.exact && ar.variadic:
					if al := f.alAt(k, state, false); al >= 0 {
						vecs, vvariadic = max(vecs, al), false
					}
				case !ar.exact:
					if al := f.alAt(k, state, true); al > 0 {
						vecs, vexact, readsAL = al, true, true
						source = cmp.Or(ar.source, sourceAL)
					}
				}
				source = cmp.Or(source, ar.source)
				at, placed := f.callPlace(f.heights[k])
				switch n := f.stackArgWords(ar); {
				case n > 0 && placed && f.sems[k].call:
					if !summary {
						stackCalls[k] = f.argWords(k, at, n, ar, state) // named below (valueflow_cdecl.go)
					}
				case len(f.cc.intArgs) == 0:
					source = "" // cdecl's stack words value flow cannot place
				}
				extra(f.intArgIDs, true, ints, ar.exact, ar.exact && ar.variadic, true, ar.intHoles)
				extra(f.vecArgIDs, true, vecs, vexact, vvariadic, vexact, ar.vecHoles)
				if readsAL {
					if id, ok := f.locID["rax"]; ok && !slices.Contains(f.useIDs[k], id) {
						if !summary {
							ops[k].Uses = append(slices.Clone(ops[k].Uses), "rax")
						}
						addEdges(k, id, state[id])
					}
				}
			case f.sems[k].ret:
				extra(f.retIDs, false, -1, false, false, false, 0)
			}
			if summary {
				f.transfer(k, state)
				continue
			}
			if r := f.storedReg(k); r != "" {
				if id, ok := f.locID[r]; ok && id >= 0 && id < f.nt {
					stored[k] = slices.Clone(state[id])
				}
			}
			from := len(effects)
			effects = append(effects, f.effects(k, state)...)
			if tail && !f.sems[k].call {
				effects = append(effects, ports.ValueFlowEffect{Kind: ports.EffectCall, Address: f.flows[k].addr,
					Target: f.flows[k].target, HasTarget: true, Definitions: []uint64{}})
			}
			for e := from; e < len(effects); e++ {
				if effects[e].Kind == ports.EffectCall {
					effects[e].ArgumentsSource = source
				}
			}
			f.transfer(k, state)
		}
	}
	if !summary {
		var formatted map[uint64]bool
		edges, formatted = f.nameStackArgs(stackCalls, stored, ops, edges, out)
		for e := range effects {
			if effects[e].Kind == ports.EffectCall && formatted[effects[e].Address] {
				effects[e].ArgumentsSource = sourceFormat
			}
		}
	}
	for k := range n {
		if !seen[k] { // outside every block (the block cap): operations only
			out.OmittedInputs += len(f.useIDs[k])
		}
	}
	out.Operations = ops
	slices.SortFunc(edges, func(x, y ports.DefUse) int {
		switch {
		case x.Use != y.Use:
			return cmpU(x.Use, y.Use)
		case x.Def != y.Def:
			return cmpU(x.Def, y.Def)
		}
		return strings.Compare(x.Location, y.Location)
	})
	out.DefUses = slices.Compact(edges)
	slices.SortStableFunc(effects, func(x, y ports.ValueFlowEffect) int { return cmpU(x.Address, y.Address) })
	out.Effects = effects
	for _, regs := range [][]string{f.cc.intArgs, f.cc.vecArgs} {
		for pos, r := range regs {
			us := paramUses[f.locID[r]]
			if len(us) == 0 {
				continue
			}
			slices.Sort(us)
			us = slices.Compact(us)
			out.Parameters = append(out.Parameters, ports.InferredParameter{Location: r, Position: pos, Uses: len(us)})
			for _, u := range us {
				out.ParameterUses = append(out.ParameterUses, ports.ParameterUse{Location: r, Address: u})
			}
		}
	}
	slices.SortStableFunc(out.ParameterUses, func(x, y ports.ParameterUse) int { return cmpU(x.Address, y.Address) })
}

// loadedArity is the arity of the import a call through register reg
// calls, when every definition of reg reaching it (state) loads the
// import's slot: gcc's "mov rdi, [rip+__imp_strlen]; call rdi; ...; call
// rdi" for repeated calls.
func (f *flowSolver) loadedArity(state []defSet, reg string) (calleeArity, bool) {
	id, ok := f.locID[reg]
	if f.known.slot == nil || reg == "" || !ok || id < 0 || id >= f.nt || len(state[id]) == 0 {
		return calleeArity{}, false
	}
	var ar calleeArity
	for n, d := range state[id] {
		if d < 0 || f.sems[d].loads == 0 {
			return calleeArity{}, false
		}
		a, ok := f.known.slot(f.sems[d].loads)
		if !ok || n > 0 && a != ar {
			return calleeArity{}, false
		}
		ar = a
	}
	return ar, true
}

// alAt is the constant al holds before instruction k (whose state is
// state) on x86-64 SysV when every definition of rax reaching it sets al
// to a constant at most the number of vector argument registers (the
// largest); -1 otherwise. When only, each must also be for k alone: in its
// block, with no use of rax between (a compiler sets al just before the
// call; "mov eax, 1; mov [rsp], eax; call f" sets a flag, not a count).
func (f *flowSolver) alAt(k int, state []defSet, only bool) int {
	id, ok := f.locID["rax"]
	if f.cc.name != sysvAMD64.name || !ok || id < 0 || id >= f.nt || len(state[id]) == 0 {
		return -1
	}
	al := 0
	for _, d := range state[id] {
		if d < 0 || !f.sems[d].setsAL || int(f.sems[d].alVal) > len(f.cc.vecArgs) {
			return -1
		}
		if only && int(d) >= k {
			return -1
		}
		for j := int(d) + 1; only && j < k; j++ {
			if f.flows[j].flow != ports.FlowNext || slices.Contains(f.useIDs[j], id) {
				return -1
			}
		}
		al = max(al, int(f.sems[d].alVal))
	}
	return al
}

func (f *flowSolver) isArg(id int) bool {
	name := f.locs[id].name
	return slices.Contains(f.cc.intArgs, name) || slices.Contains(f.cc.vecArgs, name)
}

// effects lists the effects of instruction k; state is nil in a block
// that is not reached from the entry.
func (f *flowSolver) effects(k int, state []defSet) []ports.ValueFlowEffect {
	s := f.sems[k]
	fl := f.flows[k]
	defsOf := func(names ...string) []uint64 {
		out := []uint64{}
		if state == nil {
			return out
		}
		for _, nm := range names {
			if id, ok := f.locID[nm]; ok && id >= 0 && id < f.nt {
				for _, d := range state[id] {
					if d >= 0 {
						out = append(out, f.flows[d].addr)
					}
				}
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	var out []ports.ValueFlowEffect
	if w := s.write; w != nil && !f.isFrameSlot(k, w.loc) {
		out = append(out, ports.ValueFlowEffect{Kind: ports.EffectMemoryWrite, Address: fl.addr, Location: w.loc,
			Target: w.target, HasTarget: w.has, Value: w.value, Definitions: defsOf(w.from...)})
	}
	switch {
	case s.call:
		e := ports.ValueFlowEffect{Kind: ports.EffectCall, Address: fl.addr, Target: fl.target, HasTarget: fl.hasTarget,
			Definitions: []uint64{}}
		if !fl.hasTarget {
			e.Indirect, e.Location = true, s.indirect
			e.Definitions = defsOf(s.uses...)
		}
		out = append(out, e)
	case s.ret && len(f.cc.ret) == 0: // results on the stack (Go's ABI0)
		out = append(out, ports.ValueFlowEffect{Kind: ports.EffectReturn, Address: fl.addr, Definitions: []uint64{}})
	case s.ret:
		// The integer return register, or the vector one when only it is
		// written in the procedure (a floating-point result).
		loc := f.cc.ret[0]
		ds := defsOf(loc)
		if len(ds) == 0 && len(f.cc.ret) > 1 {
			if vs := defsOf(f.cc.ret[1]); len(vs) > 0 {
				loc, ds = f.cc.ret[1], vs
			}
		}
		out = append(out, ports.ValueFlowEffect{Kind: ports.EffectReturn, Address: fl.addr, Location: loc, Definitions: ds})
	}
	return out
}

// isFrameSlot reports whether a memory operand of instruction k addresses
// the procedure's own stack frame; such stores are def-use facts, not
// effects.
func (f *flowSolver) isFrameSlot(k int, loc string) bool {
	if id, ok := f.locID[loc]; ok && f.locs[id].base != "" {
		return true
	}
	if len(f.heights) != len(f.flows) {
		return false
	}
	_, placed := f.heights[k].operands(f.cc, f.sems[k]).place(f.cc, loc)
	return placed
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func nonNil(s []string) []string {
	out := []string{}
	for _, x := range s {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// addressedBy reports whether the memory operand of an indirect call
// ("[rdx+rax*8]") names register reg in its address. A register written
// only to address the call's target is no argument.
func addressedBy(operand, reg string) bool {
	return reg != "" && slices.Contains(memRegs(operand), reg)
}

// memRegs lists the registers that form a memory operand's address
// ("[rcx+rdx*0x4]": rcx, rdx); nil for anything else.
func memRegs(operand string) []string {
	inner, ok := strings.CutPrefix(operand, "[")
	if !ok {
		return nil
	}
	var out []string
	for _, part := range strings.FieldsFunc(inner, func(r rune) bool { return r == '+' || r == '-' || r == '*' || r == ']' }) {
		if part != "" && (part[0] < '0' || part[0] > '9') {
			out = append(out, part)
		}
	}
	return out
}
