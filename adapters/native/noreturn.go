package native

import (
	"cmp"
	"context"
	"slices"

	"rea/ports"
)

// No-return inference: which of a program's own procedures never return,
// so that a call of one ends its block (cfg.go) like a call of exit does.
//
// The named set (noReturnStarts: procedures named after exit, abort, ...)
// is the start. A procedure is added when, from its entry, every path ends
// in a call of (or a jump to) a procedure of the set, a call or jump
// through the slot of an import named so (or through a register that
// holds that slot on every path: nrDecode), or a valid trap or halt (ud2,
// hlt, int3, brk, udf), at least one path does, and none reaches an exit:
// a return, a jump the decoder could not resolve (through a register, or
// through a slot that is not such an import), a jump out of the procedure
// to anything not in the set, a fallthrough out of its ranges, or bytes
// that do not decode. Calls of other procedures, and indirect calls, are
// taken to return.
//
// The set is the greatest fixed point among the candidates: every
// candidate is first taken not to return, and those with a path to an
// exit under that assumption are dropped, and the callers of a dropped one
// judged again, until none is dropped. A cycle of procedures that only
// call or jump to one another and to no-return ones (mutual recursion with
// exit on its other paths) is so found not to return, which a least fixed
// point from the named set never finds; the result does not depend on the
// order procedures are judged in, nor on the number of cores. A loop that
// calls nothing that ends it (for (;;) sink++) has no path ending in such
// a call and is not inferred: nothing tells a server's main loop from a
// hang, and a caller's fallthrough after it stays.
//
// Cost: the candidates are the procedures whose ranges (and parts) hold
// no return and no register jump, as discovery's own sweep recorded them
// (builder.exits, a bit per code byte); only they are decoded again, runs
// of plain instructions as one record (a jump into a run enters it: what
// is reachable from inside a run is what is reachable from its start).
// A range is decoded once for all passes while it stands: a pass keeps
// for the next (builder.nrCache) the body of each candidate it judged but
// did not infer, and of one out at once (a path to an exit while every
// candidate is taken not to return) only the targets outside it that were
// not taken to be in the set; such a candidate stays out at once, without
// being decoded again, while none of those targets is in the set or a
// candidate. On gcc 12's cc1 (33 MB, 45,699 ranges) 11,051 are
// candidates and 6,625 are inferred, most of them cold parts that call
// fancy_abort. On chromium (297 MB, 702,009 ranges) the first pass
// decodes 155,685 candidates and infers 5,985; the second, after the
// rounds that follow, decodes 273 and infers 26 more.
// A procedure with a return anywhere in its range is never a candidate,
// but for a return that only plain instructions separate from a call that
// did not return when the range was swept (of a procedure of the set, or
// through a no-return import's slot): "call exit; add rsp, 8; ret" of a
// wrapper built without the noreturn attribute is judged, and inferred. A
// return that only a call inferred later makes unreachable still counts
// until its range is swept again, and an exception landing pad after a
// throwing call, reached only by unwinding, is never taken for dead code:
// a pad that returns calls __cxa_begin_catch first.
//
// Discovery (discover.go) infers once its rounds find nothing more, over
// the ranges as they stand (a procedure's parts are not folded yet, so a
// cold part is judged as a procedure of its own), and decodes again the
// ranges with inferred ends (next-start, section-end) where a call of a
// procedure just added may be followed by a function (notePadCalls): their
// boundaries and gaps now end at the call, which finds the function after
// it. Rounds and passes repeat until a pass adds nothing that changes a
// range, at most maxInferPasses times; a last pass judges the procedures
// that have parts (parts.go) with them. The set only grows. Other
// boundaries (boundaryAt's sweeps of spans outside every range) keep the
// set they were swept with.

// nrKind is what no-return inference needs of one instruction.
type nrKind uint8

const (
	nrNext   nrKind = iota // control continues to the next instruction
	nrCall                 // a direct call: ends the path when target is in the set, else continues
	nrJump                 // a direct jump: inside the procedure, else ends the path when target is in the set
	nrBranch               // nrJump and nrNext
	nrTable                // a jump through a recovered table: each target as nrJump
	nrEnd                  // a trap, or a call or jump through a no-return import's slot
	nrExit                 // a return, an unresolved jump, invalid bytes
)

// nrInsn is one instruction, or (nrNext) a run of instructions control
// goes through in order, that no jump in the body enters but at its first.
type nrInsn struct {
	addr   uint64
	target uint64 // nrTable: the first target's index in nrBody.tabs
	size   uint32
	ntab   uint16
	kind   nrKind
}

// nrBody is the decoded body of one candidate, in address order.
type nrBody struct {
	insns []nrInsn
	tabs  []uint64
}

// index returns the record that control landing at addr enters: the one
// starting there, or the run of plain instructions holding it (what is
// reachable from inside a run is what is reachable from its start); -1
// when none does.
func (b *nrBody) index(addr uint64) int {
	i, ok := slices.BinarySearchFunc(b.insns, addr, func(x nrInsn, t uint64) int { return cmp.Compare(x.addr, t) })
	if ok {
		return i
	}
	if i > 0 {
		if x := &b.insns[i-1]; x.kind == nrNext && addr < x.addr+uint64(x.size) {
			return i - 1
		}
	}
	return -1
}

// add appends the record of one instruction of a sweep in address order,
// a plain one to the run before it when that ends where it starts. Every
// direct call is kept: whether its target returns is judged in noReturn.
func (b *nrBody) add(p *program, in *insn) {
	x := nrInsn{addr: in.addr, size: uint32(in.size), target: in.target}
	switch {
	case in.invalid || in.flow == ports.FlowReturn:
		x.kind = nrExit
	case in.flow == ports.FlowStop:
		x.kind = nrEnd
	case in.flow == ports.FlowCall && in.hasTarget:
		x.kind = nrCall
	case in.flow == ports.FlowCall:
		if p.slotNoReturn(in) {
			x.kind = nrEnd
		}
	case in.flow == ports.FlowJump && in.hasTarget:
		x.kind = nrJump
	case in.flow == ports.FlowJump && len(in.table) > 0:
		x.kind, x.target, x.ntab = nrTable, uint64(len(b.tabs)), uint16(min(len(in.table), 1<<16-1))
		b.tabs = append(b.tabs, in.table[:x.ntab]...)
	case in.flow == ports.FlowJump:
		x.kind = nrExit
		if p.slotNoReturn(in) {
			x.kind = nrEnd
		}
	case in.flow == ports.FlowBranch && in.hasTarget:
		x.kind = nrBranch
	case in.flow == ports.FlowBranch:
		x.kind = nrExit
	}
	b.push(x)
}

// push appends record x, a plain one to the run before it when that ends
// where it starts.
func (b *nrBody) push(x nrInsn) {
	if n := len(b.insns); n > 0 && x.kind == nrNext {
		if last := &b.insns[n-1]; last.kind == nrNext && last.addr+uint64(last.size) == x.addr {
			last.size += x.size
			return
		}
	}
	b.insns = append(b.insns, x)
}

// clone copies a body built in a worker's buffers at its size.
func (b *nrBody) clone() *nrBody {
	out := &nrBody{insns: slices.Clone(b.insns)}
	if len(b.tabs) > 0 {
		out.tabs = slices.Clone(b.tabs)
	}
	return out
}

// outside returns the targets the body calls or jumps to, out of it, that
// in does not report (sorted, once each).
func (b *nrBody) outside(in func(uint64) bool) []uint64 {
	var out []uint64
	b.eachTarget(func(t uint64) {
		if !in(t) && b.index(t) < 0 {
			out = append(out, t)
		}
	})
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Clip(slices.Compact(out))
}

// eachTarget calls f with the target of each direct call, jump and branch
// of the body and each target of its tables.
func (b *nrBody) eachTarget(f func(uint64)) {
	for _, x := range b.insns {
		switch x.kind {
		case nrCall, nrJump, nrBranch:
			f(x.target)
		case nrTable:
			for _, t := range b.tabs[x.target : x.target+uint64(x.ntab)] {
				f(t)
			}
		}
	}
}

// nrCached is what a pass learnt of a range's candidate it did not infer:
// its body when it was not out at once, else its targets then outside the
// set (nrBody.outside).
type nrCached struct {
	end  uint64
	body *nrBody
	outs []uint64
}

// join is the body of several spans (a procedure's range and its parts):
// their records in address order, table indexes moved with them.
func join(parts []*nrBody) *nrBody {
	if len(parts) == 1 {
		return parts[0]
	}
	out := &nrBody{}
	for _, pt := range parts {
		base := uint64(len(out.tabs))
		for _, x := range pt.insns {
			if x.kind == nrTable {
				x.target += base
			}
			out.insns = append(out.insns, x)
		}
		out.tabs = append(out.tabs, pt.tabs...)
	}
	slices.SortStableFunc(out.insns, func(a, b nrInsn) int { return cmp.Compare(a.addr, b.addr) })
	return out
}

// exit reports whether the sweep of an instruction marks its range as
// holding an exit (builder.exits): a return or a jump through a register.
// A jump through memory may be through a no-return import's slot, and is
// judged when the procedure is decoded again.
func exitInsn(in *insn) bool {
	if in.flow == ports.FlowReturn {
		return true
	}
	return in.flow == ports.FlowJump && !in.hasTarget && len(in.table) == 0 && len(in.refs) == 0
}

// inferNoReturn adds to b.noret the procedures of ranges found not to
// return, and returns those it added. spans(i) are the ranges of procedure
// i's body (its range, then its parts once they are folded), none for a
// procedure not to judge.
func (b *builder) inferNoReturn(ctx context.Context, p *program, ranges []ports.FunctionRange, spans func(i int) []ports.FunctionRange) map[uint64]bool {
	if b.exits == nil || b.arch == archCIL {
		return nil
	}
	var cands []int // procedure indexes
	for i, r := range ranges {
		if b.noret[r.Start] || r.End <= r.Start {
			continue
		}
		sp := spans(i)
		ok := len(sp) > 0
		for _, s := range sp {
			reg := b.mm.code(s.Start)
			if reg == nil || reg.plt || s.End <= s.Start || b.exits.countRange(s.Start, s.End) > 0 {
				ok = false
				break
			}
		}
		if ok {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		b.nrCache = nil
		return nil
	}
	// at maps a candidate's start to its index.
	at := make(map[uint64]int, len(cands))
	for k, i := range cands {
		at[ranges[i].Start] = k
	}
	may := func(t uint64) bool {
		_, ok := at[t]
		return ok || b.noret[t]
	}
	// A candidate with a path to an exit while every candidate is taken
	// not to return is out at once. What a pass learnt of a candidate it
	// did not infer is kept for the next (b.nrCache), while its range
	// stands: the body, or for one out at once only the targets it calls
	// or jumps to that were not taken to be in the set then. It stays out
	// at once while none of those is now, and is decoded again otherwise.
	bodies := make([]*nrBody, len(cands))
	decoded := make([]bool, len(cands))
	outs := make([][]uint64, len(cands)) // of a candidate out at once: its targets then outside the set
	in := make([]bool, len(cands))       // in[k]: candidate k is still taken not to return
	b.parallel(ctx, len(cands), "judged for no-return", func(w *scratch, k int) {
		sp := spans(cands[k])
		var body *nrBody
		if c, ok := b.nrCache[sp[0].Start]; ok && len(sp) == 1 && c.end == sp[0].End {
			if c.body == nil && !slices.ContainsFunc(c.outs, may) {
				outs[k] = c.outs
				return
			}
			body = c.body
		}
		if body == nil {
			parts := make([]*nrBody, len(sp))
			for n, s := range sp {
				parts[n] = b.nrDecode(w, p, s)
			}
			body, decoded[k] = join(parts), true
		}
		in[k], w.nrSeen, w.nrWork = body.noReturn(ranges[cands[k]].Start, may, w.nrSeen, w.nrWork)
		if in[k] {
			bodies[k] = body
		} else {
			outs[k] = body.outside(may)
		}
	}, func(lo, hi int) (uint64, uint64) {
		// The candidates are spread over the code: the pages read are let
		// go as a batch is done, from its first decoded range to its last
		// (a range shorter than a page would let go of none), and a part
		// read out of order (in spans) is read again on access.
		for lo < hi && !decoded[lo] {
			lo++
		}
		for hi > lo && !decoded[hi-1] {
			hi--
		}
		if lo < hi {
			return ranges[cands[lo]].Start, ranges[cands[hi-1]].End
		}
		return 0, 0
	})
	if ctx.Err() != nil {
		return nil
	}
	member := func(t uint64) bool {
		if b.noret[t] {
			return true
		}
		k, ok := at[t]
		return ok && in[k]
	}
	// callers[k]: the candidates whose bodies call or jump to candidate k.
	callers := make([][]int32, len(cands))
	var callees []int
	for k, body := range bodies {
		if body == nil {
			continue
		}
		callees = callees[:0]
		body.eachTarget(func(t uint64) {
			if j, ok := at[t]; ok {
				callees = append(callees, j)
			}
		})
		slices.Sort(callees)
		for _, j := range slices.Compact(callees) {
			callers[j] = append(callers[j], int32(k))
		}
	}
	var seen []bool
	var work []int32
	queue := make([]int32, 0, len(cands))
	for k := range cands {
		if in[k] {
			queue = append(queue, int32(k))
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if !in[k] {
			continue
		}
		var ok bool
		ok, seen, work = bodies[k].noReturn(ranges[cands[k]].Start, member, seen, work)
		if ok {
			continue
		}
		in[k] = false
		for _, j := range callers[k] {
			if in[j] {
				queue = append(queue, j)
			}
		}
	}
	added := map[uint64]bool{}
	cache := make(map[uint64]nrCached, len(cands))
	for k, i := range cands {
		r := ranges[i]
		switch {
		case in[k]:
			b.noret[r.Start] = true
			added[r.Start] = true
		case len(spans(i)) > 1:
			// judged with its parts: the passes over ranges alone
			// do not look it up
		case bodies[k] != nil:
			cache[r.Start] = nrCached{end: r.End, body: bodies[k]}
		default:
			cache[r.Start] = nrCached{end: r.End, outs: outs[k]}
		}
	}
	b.nrCache = cache
	return added
}

// maxInferPasses bounds the times discovery infers no-return procedures
// and decodes again the ranges whose boundaries they change.
const maxInferPasses = 8

// reinfer runs the inference over the current ranges once discovery has
// converged, and drops the decoding of every range with an inferred end
// that calls a procedure it added where the code after the call may be a
// function boundary (b.padCalls): the next round decodes them again, and
// their boundaries and gaps then end at those calls. It reports whether it
// dropped any.
func (b *builder) reinfer(ctx context.Context, p *program, st *state) bool {
	added := b.inferNoReturn(ctx, p, st.ranges, func(i int) []ports.FunctionRange { return st.ranges[i : i+1] })
	redo := false
	b.padMu.Lock()
	defer b.padMu.Unlock()
	for at, t := range b.padCalls {
		if !added[t] {
			continue
		}
		delete(b.padCalls, at)
		i, ok := slices.BinarySearchFunc(st.ranges, at, func(r ports.FunctionRange, t uint64) int {
			if r.Start <= t {
				return -1
			}
			return 1
		})
		if ok || i == 0 || st.ranges[i-1].End <= at {
			continue
		}
		if res := st.results[i-1]; res != nil && res.walk {
			st.results[i-1], redo = nil, true
		}
	}
	return redo
}

// notePadCalls records the direct calls of a range with an inferred end
// after which a function may begin (the next instruction is padding, or
// starts a 16-byte line), to a procedure not known not to return: where
// an inferred one makes the next code a boundary (reinfer).
func (b *builder) notePadCalls(calls [][2]uint64) {
	if len(calls) == 0 {
		return
	}
	b.padMu.Lock()
	if b.padCalls == nil {
		b.padCalls = map[uint64]uint64{}
	}
	for _, c := range calls {
		b.padCalls[c[0]] = c[1]
	}
	b.padMu.Unlock()
}

// noReturn reports whether no exit is reachable from entry, and a path
// ends in a no-return call, jump or trap, when member tells the procedures
// taken not to return. seen and work are buffers, returned for reuse.
func (body *nrBody) noReturn(entry uint64, member func(uint64) bool, seen []bool, work []int32) (bool, []bool, []int32) {
	seen = slices.Grow(seen[:0], len(body.insns))[:len(body.insns)]
	clear(seen)
	work = work[:0]
	i := body.index(entry)
	if i < 0 {
		return false, seen, work
	}
	work = append(work, int32(i))
	ended := false
	// jump follows a jump to t: inside the body, else it ends the path
	// when t does not return and is an exit otherwise.
	jump := func(t uint64) bool {
		if j := body.index(t); j >= 0 {
			if !seen[j] {
				work = append(work, int32(j))
			}
			return true
		}
		if member(t) {
			ended = true
			return true
		}
		return false
	}
	// fall follows control from record j to the next: a fallthrough out
	// of the body is an exit (the next start is not taken as a target
	// that does not return).
	fall := func(j int32) bool {
		x := &body.insns[j]
		if int(j)+1 >= len(body.insns) || body.insns[j+1].addr != x.addr+uint64(x.size) {
			return false
		}
		if !seen[j+1] {
			work = append(work, j+1)
		}
		return true
	}
	for len(work) > 0 {
		j := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[j] {
			continue
		}
		seen[j] = true
		x := &body.insns[j]
		ok := true
		switch x.kind {
		case nrNext:
			ok = fall(j)
		case nrCall:
			if member(x.target) {
				ended = true
			} else {
				ok = fall(j)
			}
		case nrJump:
			ok = jump(x.target)
		case nrBranch:
			ok = jump(x.target) && fall(j)
		case nrTable:
			for _, t := range body.tabs[x.target : x.target+uint64(x.ntab)] {
				ok = ok && jump(t)
			}
		case nrEnd:
			ended = true
		case nrExit:
			ok = false
		}
		if !ok {
			return false, seen, work
		}
	}
	return ended, seen, work
}

// nrDecode decodes a span of a candidate (its range or a part) for
// noReturn, every direct call kept: the body serves every pass, whatever
// the candidates are then.
//
// A call or jump through a register that holds a no-return import's slot
// on every path ("mov esi, [ExitProcess]" ... "call esi", regcall.go) ends
// its path too, and only such a one: when the sweep meets a call through a
// register, the register pass runs over the span, and when it finds such
// calls, or the sweep took the load right before a call (loadedSlot) for
// one where another path may join, the span is swept again with the
// pass's calls as the ends (their runs must not merge).
// The pass runs only when the span also loads the slot of an import that
// does not return into a whole register somewhere (only such a call can
// end a path, and a load right before a call that made it an end is one:
// noReturnSlotLoad, discovery's walkRegCallEnds's gate too): a C++ program
// loads data imports' slots (typeinfo, vtables) in most functions.
func (b *builder) nrDecode(w *scratch, p *program, s ports.FunctionRange) *nrBody {
	body := nrBody{insns: w.nr[:0], tabs: w.nrTabs[:0]}
	code, stop := b.codeFor(s.Start, s.End)
	open, adjacent := false, false // a call through a register; one the load before it made an end
	x, isX86 := w.dec.(*x86Decoder)
	loads := w.nrLoads[:0] // the references of the span's instructions (noReturnSlotLoad judges them if needed)
	if code != nil {
		sweep(w.dec, code, s.Start, stop, maxFunctionInsns, func(in *insn) bool {
			body.add(p, in)
			switch {
			case !isX86 || b.regs == nil:
			case in.flow == ports.FlowCall && !in.hasTarget:
				if b.regCall(w.dec, code[in.addr-s.Start:]) {
					open = true
					adjacent = adjacent || body.insns[len(body.insns)-1].kind == nrEnd
				}
			case in.flow == ports.FlowNext:
				loads = append(loads, in.refs...)
			}
			return true
		})
	}
	w.nrLoads = loads[:0]
	if open && slices.ContainsFunc(loads, func(r xref) bool { return b.noReturnSlotLoad(x, code, s.Start, r) }) {
		if ends := b.regCallEnds(w.dec, p, s); len(ends) > 0 || adjacent {
			body.insns, body.tabs = body.insns[:0], body.tabs[:0]
			sweep(w.dec, code, s.Start, stop, maxFunctionInsns, func(in *insn) bool {
				switch r := (nrInsn{addr: in.addr, size: uint32(in.size)}); {
				case ends[in.addr]:
					r.kind = nrEnd
					body.push(r)
				case in.flow == ports.FlowCall && !in.hasTarget && b.regCall(w.dec, code[in.addr-s.Start:]):
					body.push(r) // a call that returns, whatever the load before it
				default:
					body.add(p, in)
				}
				return true
			})
		}
	}
	w.nr, w.nrTabs = body.insns[:0], body.tabs[:0]
	return body.clone()
}

// regCall reports whether the call that code starts with goes through a
// register ("call esi").
func (b *builder) regCall(d decoder, code []byte) bool {
	x, ok := d.(*x86Decoder)
	if !ok || b.regs == nil {
		return false
	}
	_, ok = transferRegister(code, x.mode)
	return ok
}

// regCallEnds returns the calls and jumps of span s through a register
// that holds the slot of an import that does not return on every path
// from its start (regCalls.bodySlots), by address.
func (b *builder) regCallEnds(d decoder, p *program, s ports.FunctionRange) map[uint64]bool {
	x, ok := d.(*x86Decoder)
	if !ok {
		return nil
	}
	var ends map[uint64]bool
	for at, slot := range b.regs.bodySlots(x, []ports.FunctionRange{s}, s.Start, b.codeFor, nil) {
		if isNoReturn(p.labelAt(slot, "import")) {
			if ends == nil {
				ends = map[uint64]bool{}
			}
			ends[at] = true
		}
	}
	return ends
}

// slotCallEnds reports a call through the slot of an import that does
// not return ("call [rip+exit@GOT]", "call [__imp__ExitProcess@4]"), which
// ends a path of discovery's sweep as it ends its block in Function
// (flowOf). A call through a register on x86 is not one here, whatever
// the load right before it: walkRegCallEnds judges those over paths.
func (b *builder) slotCallEnds(d decoder, code []byte, in *insn) bool {
	return in.flow == ports.FlowCall && !in.hasTarget && b.regs != nil && b.regs.p.slotNoReturn(in) && !b.regCall(d, code)
}

// walkRegCallEnds makes the calls of a walked range [start, stop) (its
// sweep's w.flows, refs and code) that go through a register holding the
// slot of an import that does not return on every path from start
// (regCallEnds) end their paths, as they end their blocks in Function
// (registerFlows), and reports whether it changed any. The sweep left
// every call through a register open, whatever the load right before it:
// a path that loaded another slot, or none, may join there. The pass runs
// only when the range also loads the slot of an import that does not
// return into a whole register: any import's made it run on most of a
// large C++ program's ranges (chromium's discovery took twice as long).
func (b *builder) walkRegCallEnds(w *scratch, code []byte, start, stop uint64, refs []xref) bool {
	x, ok := w.dec.(*x86Decoder)
	if !ok || b.regs == nil || !slices.ContainsFunc(refs, func(r xref) bool { return r.from < stop && b.noReturnSlotLoad(x, code, start, r) }) {
		return false
	}
	changed := false
	for at := range b.regCallEnds(w.dec, b.regs.p, ports.FunctionRange{Start: start, End: stop}) {
		k, ok := slices.BinarySearchFunc(w.flows, at-start, func(g gapInsn, t uint64) int { return cmp.Compare(uint64(g.off), t) })
		if g := &w.flows[k]; ok && g.fall {
			g.fall, g.ends, changed = false, true, true
		}
	}
	return changed
}

// noReturnSlotLoad reports whether reference r, made by an instruction of
// the span whose code (from start) is code, is a whole-register load of
// the slot of an import that does not return ("mov esi, [ExitProcess]",
// loadedRegister): only after one can a call through a register end a path
// (regCallEnds), so the register pass runs only over a span that has one,
// in discovery's sweep (walkRegCallEnds) as in the no-return pass's
// (nrDecode).
func (b *builder) noReturnSlotLoad(x *x86Decoder, code []byte, start uint64, r xref) bool {
	if r.kind != kindRead || r.from < start || r.from-start >= uint64(len(code)) || !isNoReturn(b.regs.p.labelAt(r.to, "import")) {
		return false
	}
	_, ok := loadedRegister(code[r.from-start:], x.mode)
	return ok
}

// rebound appends to bounds the offsets of the instructions of a walked
// range (flows) that control cannot fall into from the one before: the
// first, and each after a return, jump, trap or call that does not return,
// or after padding that follows one (decodeOne's rule).
func rebound(flows []gapInsn, bounds []uint32) []uint32 {
	open := false
	for i := range flows {
		g := &flows[i]
		if !open {
			bounds = append(bounds, g.off)
		}
		switch {
		case g.ends:
			open = false
		case g.skip: // padding (a trap ends above)
		default:
			open = true
		}
	}
	return bounds
}

// slotNoReturn reports an indirect call or jump through the slot of an
// import named after a function that does not return (flowOf's rule).
func (p *program) slotNoReturn(in *insn) bool {
	for _, x := range in.refs {
		if x.flags == flagUnresolved && x.to != 0 && (x.kind == kindCall || x.kind == kindJump) && isNoReturn(p.labelAt(x.to, "import")) {
			return true
		}
	}
	return false
}
