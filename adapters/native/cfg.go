package native

import (
	"slices"
	"strings"

	"rea/ports"
)

// maxBlocks bounds the basic blocks of one function.
const maxBlocks = 1 << 17

// flowInsn is the control-flow summary of one decoded instruction.
type flowInsn struct {
	addr      uint64
	size      int
	flow      ports.Flow
	target    uint64
	hasTarget bool
	table     []uint64
	noreturn  bool // a call to a function that does not return (abort, exit, ...)
}

func (f *flowInsn) next() uint64 { return f.addr + uint64(f.size) }

// ends reports whether the instruction ends its basic block.
func (f *flowInsn) ends() bool {
	return f.flow == ports.FlowJump || f.flow == ports.FlowBranch || f.flow == ports.FlowReturn || f.flow == ports.FlowStop || f.noreturn
}

// noReturn names the library functions that never return; a call to one
// ends its basic block with no successor.
var noReturn = map[string]bool{
	"abort": true, "exit": true, "_exit": true, "_Exit": true, "quick_exit": true, "__stack_chk_fail": true,
	"__assert_fail": true, "__assert_perror_fail": true, "__fortify_fail": true, "__chk_fail": true,
	"longjmp": true, "siglongjmp": true, "_longjmp": true, "__longjmp_chk": true, "err": true, "errx": true,
	"verr": true, "verrx": true, "error_exit": true, "pthread_exit": true, "__cxa_throw": true, "__cxa_rethrow": true,
	"__cxa_bad_cast": true, "__cxa_bad_typeid": true, "__cxa_throw_bad_array_new_length": true,
	"_Unwind_Resume": true, "__cxa_call_unexpected": true, "__cxa_pure_virtual": true, "std::terminate()": true,
	"_ZSt9terminatev": true, "ExitProcess": true, "ExitThread": true, "FatalExit": true, "RaiseException": true,
	"runtime.throw": true, "runtime.fatal": true, "runtime.gopanic": true, "runtime.panicIndex": true,
	"runtime.panicdivide": true, "runtime.panicmem": true,
}

// isNoReturn reports whether a procedure name is a function that does not
// return, through its import stub name ("abort@plt", "_abort").
func isNoReturn(name string) bool {
	name, _, _ = strings.Cut(name, "@")
	return noReturn[name] || (strings.HasPrefix(name, "_") && noReturn[name[1:]])
}

// ehHandler is an exception handler (CIL's): the blocks in [tryStart,
// tryEnd) have an exception edge to start, which begins a block that
// shows the handler's kind and the type it catches.
type ehHandler struct {
	tryStart, tryEnd, start uint64
	kind, catches           string
}

// basicBlocks splits a function's instructions (in address order, from a
// linear sweep of [start, end)) into basic blocks. Leaders are the start,
// the targets of jumps, branches and jump tables that are instruction
// starts inside the range, and every instruction after one that ends a
// block. A self-referential jump is an edge to its own block; a target that
// is not an instruction start keeps its edge but starts no block.
func basicBlocks(insns []flowInsn, start, end uint64) ([]ports.BasicBlock, bool) {
	return handledBlocks(insns, start, end, nil)
}

// handledBlocks is basicBlocks with exception handlers: a handler's first
// instruction and the bounds of its protected range are leaders too, so
// that a block is wholly inside a range or outside it.
func handledBlocks(insns []flowInsn, start, end uint64, eh []ehHandler) ([]ports.BasicBlock, bool) {
	return spanBlocks(insns, []ports.FunctionRange{{Start: start, End: end}}, eh)
}

// spanBlocks is handledBlocks for a procedure whose body lies in several
// ranges (its own and its parts, parts.go): insns are the sweeps of the
// ranges in address order, a jump into any of them is an edge inside the
// procedure, and the first instruction of each range leads a block.
func spanBlocks(insns []flowInsn, spans []ports.FunctionRange, eh []ehHandler) ([]ports.BasicBlock, bool) {
	if len(insns) == 0 {
		return nil, false
	}
	isStart := make(map[uint64]bool, len(insns))
	for _, in := range insns {
		isStart[in.addr] = true
	}
	leader := map[uint64]bool{insns[0].addr: true}
	inside := func(t uint64) bool { return t >= spans[0].Start && t < spans[0].End }
	if len(spans) > 1 {
		inside = func(t uint64) bool {
			return slices.ContainsFunc(spans, func(r ports.FunctionRange) bool { return t >= r.Start && t < r.End })
		}
	}
	for i, in := range insns {
		if i > 0 && in.addr != insns[i-1].next() {
			leader[in.addr] = true // the first of another range
		}
		if in.hasTarget && (in.flow == ports.FlowJump || in.flow == ports.FlowBranch) && inside(in.target) && isStart[in.target] {
			leader[in.target] = true
		}
		for _, t := range in.table {
			if isStart[t] {
				leader[t] = true
			}
		}
		if in.ends() && i+1 < len(insns) {
			leader[insns[i+1].addr] = true
		}
	}
	for _, h := range eh {
		for _, a := range [3]uint64{h.start, h.tryStart, h.tryEnd} {
			if isStart[a] {
				leader[a] = true
			}
		}
	}
	var blocks []ports.BasicBlock
	truncated := false
	budget := maxBlocks // exception edges: a hostile table could ask for blocks × clauses
	open := -1
	for i := range insns {
		in := &insns[i]
		if leader[in.addr] || open < 0 {
			if len(blocks) >= maxBlocks {
				truncated = true
				break
			}
			blocks = append(blocks, ports.BasicBlock{Start: in.addr})
			open = len(blocks) - 1
		}
		b := &blocks[open]
		b.End = in.next()
		b.Instructions++
		last := i+1 == len(insns) || leader[insns[i+1].addr]
		if !last {
			continue
		}
		b.Successors = successors(in, inside)
		if len(eh) > 0 && !handle(b, eh, &budget) {
			truncated = true
		}
		open = -1
	}
	return blocks, truncated
}

// handle adds a block's exception edges, innermost handler first as the
// clauses are ordered, while budget lasts (false when it ran out), and
// names the handler the block begins.
func handle(b *ports.BasicBlock, eh []ehHandler, budget *int) bool {
	ok := true
	for _, h := range eh {
		if b.Start >= h.tryStart && b.Start < h.tryEnd {
			if *budget <= 0 {
				ok = false
				continue
			}
			*budget--
			b.Successors = append(b.Successors, ports.Edge{Kind: ports.EdgeException, Target: h.start})
		}
		if b.Start == h.start && b.Handler == "" {
			b.Handler, b.Catches = h.kind, h.catches
		}
	}
	b.Successors = slices.Clip(b.Successors)
	return ok
}

func successors(in *flowInsn, inside func(uint64) bool) []ports.Edge {
	var out []ports.Edge
	direct := func(kind string) {
		if inside(in.target) {
			out = append(out, ports.Edge{Kind: kind, Target: in.target})
		} else {
			out = append(out, ports.Edge{Kind: ports.EdgeTailCall, Target: in.target})
		}
	}
	table := func() {
		for _, t := range in.table {
			out = append(out, ports.Edge{Kind: ports.EdgeJumpTable, Target: t})
		}
	}
	switch in.flow {
	case ports.FlowNext, ports.FlowCall:
		if !in.noreturn {
			out = append(out, ports.Edge{Kind: ports.EdgeFallthrough, Target: in.next()})
		}
	case ports.FlowJump:
		switch {
		case in.hasTarget:
			direct(ports.EdgeJump)
		case len(in.table) > 0:
			table()
		default:
			out = append(out, ports.Edge{Kind: ports.EdgeUnresolved})
		}
	case ports.FlowBranch:
		switch {
		case in.hasTarget:
			direct(ports.EdgeBranch)
		case len(in.table) > 0: // CIL's switch: a table, else the next instruction
			table()
		default:
			out = append(out, ports.Edge{Kind: ports.EdgeUnresolved})
		}
		out = append(out, ports.Edge{Kind: ports.EdgeFallthrough, Target: in.next()})
	}
	return slices.Clip(out)
}
