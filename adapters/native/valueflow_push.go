package native

import (
	"slices"
	"strings"

	"rea/ports"
)

// Pushes that only pad the stack. gcc -Os aligns the stack with a push of a
// caller-saved register ("push rcx") instead of "sub rsp, 8" and releases
// it with a pop into whatever register is dead there ("pop rdx") or with
// the epilogue's adjustment: the value pushed is never looked at, so the
// push is no evidence that the register holds an argument. A push is
// taken for padding only when, at known stack heights (valueflow_stack.go),
// nothing reads its slot but pops at the same height whose loaded value
// no instruction uses; anything else keeps it a use of the register:
//   - a frame access at an unknown height, or the stack or frame pointer
//     copied as a value (a pointer that could reach the slot);
//   - a read overlapping the slot (an access may be as wide as a vector),
//     or its address, or that of anything below it, taken;
//   - a call that may take stack arguments (every integer or every vector
//     argument register written for it, or a convention with none) made
//     with the slot in its argument area ("push rcx" as a seventh
//     argument);
//   - a pop of the slot whose value an instruction uses, that is returned,
//     or that goes back into the pushed register and reaches a call (a
//     fourth argument saved across one call for the next);
//   - a pop into memory, or a return at the slot's height.
//
// A pop of a slot that only padding pushes and no other write fill loads
// nothing: the register it defines is scratch for the calls it reaches,
// as the index of a jump table is (a tail call after "pop rsi" passes no
// second argument).

// maxAccess is the widest access the padding analysis assumes (a zmm
// register).
const maxAccess = 64

// padding reports the pushes whose value only pads the stack and the pops
// that release their slots. in is the solver's state at each block's
// entry; insnsOf bounds a block's instructions.
func (f *flowSolver) padding(in [][]defSet, insnsOf func(int) (int, int)) (pad, release []bool) {
	n := len(f.flows)
	pad, release = make([]bool, n), make([]bool, n)
	if len(f.heights) != n || f.nt == 0 {
		return pad, release
	}
	frame := f.frame
	sp, fp := f.cc.sp, f.cc.fp
	isBase := func(r string) bool { return r == sp || (r == fp && frame) }
	var (
		unknown       bool    // a frame access at an unknown height
		reads, writes []int64 // entry offsets accessed, besides the pops
		exposed       []int64 // addresses taken
		areas         []int64 // argument areas of calls that may take stack arguments
		pops          = map[int64][]int{}
		popUsed       = make([]bool, n) // the loaded value reaches an explicit use
		popPassed     = make([]bool, n) // ... or a call or return
	)
	at := func(k int, loc string) (int64, bool, bool) {
		base, _, ok := frameOperand(loc)
		if !ok || !isBase(base) {
			return 0, false, false
		}
		off, known := f.heights[k].operands(f.cc, f.sems[k]).entryOffset(f.cc, loc)
		return off, known, true
	}
	written := func(state []defSet, reg string) bool {
		id, ok := f.locID[reg]
		if !ok || id < 0 || id >= f.nt {
			return false
		}
		return slices.ContainsFunc(state[id], func(d int32) bool { return d >= 0 && (!f.sems[d].call || slices.Contains(f.defIDs[d], id)) })
	}
	// passes marks the pops whose loaded value reaches the registers ids
	// (sameOnly: only a pop back into the register pushed there).
	passes := func(state []defSet, ids []int, sameOnly bool) {
		for _, id := range ids {
			for _, d := range state[id] {
				if d < 0 || f.sems[d].popped != f.locs[id].name {
					continue
				}
				if !sameOnly || f.pushedBack(int(d)) {
					popPassed[d] = true
				}
			}
		}
	}
	state := make([]defSet, f.nt)
	for bi, b := range f.blocks {
		if in[bi] == nil {
			continue
		}
		copy(state, in[bi])
		lo, hi := insnsOf(bi)
		for k := lo; k < hi; k++ {
			s, h := f.sems[k], f.heights[k]
			for _, id := range f.useIDs[k] {
				if id < f.nt {
					for _, d := range state[id] {
						if d >= 0 && f.sems[d].popped == f.locs[id].name {
							popUsed[d] = true
						}
					}
				}
			}
			// Frame operands read, written or whose address is taken.
			for _, u := range s.uses {
				off, known, ok := at(k, u)
				switch {
				case !ok:
				case !known:
					unknown = true
				case s.popped != "" && u == "["+sp+"]":
					pops[off] = append(pops[off], k)
				default:
					reads = append(reads, off)
				}
			}
			for _, d := range s.defs {
				off, known, ok := at(k, d)
				switch {
				case !ok:
				case !known:
					unknown = true
				case s.stack.sp != spAdd || s.stack.n >= 0 || d != "["+sp+"]": // a push's slot is below the height
					writes = append(writes, off)
				}
			}
			if off, known, ok := at(k, s.addrOf); ok {
				exposed, unknown = append(exposed, off), unknown || !known
			}
			// The stack or frame pointer read as a value.
			for _, r := range []string{sp, fp} {
				if !isBase(r) || !slices.Contains(s.uses, r) || s.ret || s.stack != (stackOp{}) && s.stack.sp != spAlign && s.stack.sp != spAlloc && s.stack.sp != spCopy || s.setsFrame {
					continue // not read, or moved by a known amount
				}
				asBase := false
				for _, l := range append(append(slices.Clone(s.uses), s.defs...), s.addrOf) {
					base, _, ok := frameOperand(l)
					asBase = asBase || ok && base == r
				}
				switch {
				case asBase: // only to address memory
				case r == sp && h.spOK:
					exposed = append(exposed, h.sp)
				case r == fp && h.fpOK:
					exposed = append(exposed, h.fp)
				default:
					unknown = true
				}
			}
			switch {
			case s.ret:
				if h.spOK {
					reads = append(reads, h.sp)
				}
				passes(state, f.retIDs, false)
			case s.call || f.tailJump(k, b):
				if len(f.cc.intArgs) == 0 || written(state, f.cc.intArgs[len(f.cc.intArgs)-1]) ||
					len(f.cc.vecArgs) > 0 && written(state, f.cc.vecArgs[len(f.cc.vecArgs)-1]) {
					switch {
					case h.spOK:
						areas = append(areas, h.sp+f.cc.callArea())
					default:
						unknown = true
					}
				}
				passes(state, f.intArgIDs, true)
				passes(state, f.vecArgIDs, true)
			case s.stack.sp == spFromFP && slices.Contains(s.defs, fp):
				// leave: the saved frame pointer is popped
				if h.fpOK {
					reads = append(reads, h.fp)
				}
			}
			f.transfer(k, state)
		}
	}
	if unknown {
		return pad, release
	}
	word := map[int64]int64{} // the width of each slot pushed
	for k, s := range f.sems {
		if h := f.heights[k]; s.stack.sp == spAdd && s.stack.n < 0 && h.spOK {
			if s.pushed == "" {
				writes = append(writes, h.sp+s.stack.n) // an immediate or memory pushed
			}
			word[h.sp+s.stack.n] = max(word[h.sp+s.stack.n], -s.stack.n)
		}
	}
	padded := func(o, w int64) bool {
		for _, r := range reads {
			if r < o+w && r+maxAccess > o {
				return false
			}
		}
		for _, e := range append(exposed, areas...) {
			if e < o+w {
				return false
			}
		}
		for _, p := range pops[o] {
			if popUsed[p] || popPassed[p] || f.sems[p].popped == "" || strings.HasPrefix(f.sems[p].popped, "[") {
				return false
			}
		}
		for _, p := range pops { // a pop at another height that overlaps the slot
			for _, k := range p {
				if off := f.heights[k].sp; off != o && off < o+w && off+f.sems[k].stack.n > o {
					return false
				}
			}
		}
		return true
	}
	all := map[int64]bool{} // every push of the slot pads it
	for k, s := range f.sems {
		h := f.heights[k]
		if s.stack.sp != spAdd || s.stack.n >= 0 || !h.spOK {
			continue
		}
		o := h.sp + s.stack.n
		pad[k] = s.pushed != "" && padded(o, -s.stack.n)
		if v, seen := all[o]; !seen || v {
			all[o] = pad[k]
		}
	}
	for o, p := range pops {
		if !all[o] || slices.ContainsFunc(writes, func(w int64) bool { return w < o+word[o] && w+maxAccess > o }) {
			continue
		}
		for _, k := range p {
			release[k] = true
		}
	}
	return pad, release
}

// pushedBack reports whether pop k loads the register that was pushed to
// its slot: a push of the same register at the same height.
func (f *flowSolver) pushedBack(k int) bool {
	h := f.heights[k]
	for j, s := range f.sems {
		if hj := f.heights[j]; s.pushed != "" && s.pushed == f.sems[k].popped && hj.spOK && h.spOK && hj.sp+s.stack.n == h.sp {
			return true
		}
	}
	return false
}

// callArea is the offset from a call's stack pointer where the callee's
// stack arguments begin: past the return address a call pushes on x86.
func (cc convention) callArea() int64 {
	switch cc.sp {
	case "rsp":
		return cc.stackFrom - 8
	case "esp":
		return cc.stackFrom - 4
	}
	return cc.stackFrom
}

// tailJump reports whether instruction k, in block b, is a jump that
// leaves the procedure as a tail call, or a conditional branch that does
// on its taken path: one to a procedure's entry or an import's stub (clang
// -Os's "je puts@plt", "jne gs").
func (f *flowSolver) tailJump(k int, b ports.BasicBlock) bool {
	fl := f.flows[k]
	if !fl.hasTarget || !slices.ContainsFunc(b.Successors, func(e ports.Edge) bool { return e.Kind == ports.EdgeTailCall }) {
		return false
	}
	switch fl.flow {
	case ports.FlowJump:
		return true
	case ports.FlowBranch:
		_, imported := f.sites[fl.addr]
		return imported || f.known.entry != nil && f.known.entry(fl.target)
	}
	return false
}
