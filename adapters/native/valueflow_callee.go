package native

import (
	"context"
	"slices"
	"strings"
	"sync"

	"rea/ports"
)

// What a direct callee takes. A call passes the argument registers its
// callee takes when the value flow knows the callee's arity: from DWARF
// (the callee's formal parameters, placed as Signature places them), or
// from the callee's own inferred parameters (its summary). Where neither is
// known (indirect calls, imports and their PLT stubs, a callee that jumps
// somewhere unresolved, is truncated, makes a system call or has
// instructions the value flow does not model) the call keeps the rule of
// valueflow.go.
//
// DWARF's arity is exact: every register below it is an argument, written
// or passed through (a variadic callee may also take written ones above
// it). An inferred arity n is the highest register the callee reads, plus
// one: a register at or above it is no argument of the call (gcc's AArch64
// compare tree keeps a switch's index, x & 15, in w2 through the cases'
// calls), below it the rule of valueflow.go applies to the written ones,
// and when the call writes none of them all n are passed through (a
// wrapper that only tail-calls). Vector registers only get the bound: a
// partial write (movhlps xmm4, xmm2) reads its register, so a callee may
// seem to read one it does not take.
//
// Summaries are computed callees first, over the strongly connected
// components of the direct-call graph reached from the callee asked about
// (Tarjan's algorithm): a component's procedures are analysed with the
// arities of the components they call; inside a cycle (recursion, mutual
// recursion) the first round knows no member's arity and up to two more
// take them from the round before. Every summary is thus a function of the
// program alone, whatever the order of the requests or the number of
// goroutines. Each procedure is summarised at most once per analysis (the
// members of a cycle at most maxArityRounds times), and only the arities
// are kept.

// calleeArity is what the value flow knows of a direct callee's arguments.
type calleeArity struct {
	known      bool
	ints, vecs int  // argument registers of each class the callee takes
	exact      bool // from DWARF: every register below is an argument
	variadic   bool // exact, and written registers above may be arguments too
}

// vfSummaries holds the procedures' arities, by address.
type vfSummaries struct {
	mu   sync.Mutex
	done map[uint64]calleeArity
}

// vfEnv is what analysing any procedure of one program needs.
type vfEnv struct {
	a      *Analysis
	p      *program
	d      decoder
	sm     semantics
	cc     convention
	known  vfTargets
	sigIdx *sigIndex // nil without DWARF
}

// isCallee reports whether t starts a procedure whose arity may be known:
// one with code, not a PLT stub.
func (e *vfEnv) isCallee(t uint64) bool {
	i, ok := e.p.rangeIndex(t)
	if !ok || strings.HasSuffix(e.p.procs[i].Name, "@plt") || e.known.stackGrowth[t] {
		return false
	}
	r := e.p.ranges[i]
	reg := e.p.mm.code(r.Start)
	return reg != nil && r.End > r.Start
}

// directCallees lists the targets of the direct calls and of the jumps out
// of r (tail calls) that isCallee accepts, sorted.
func directCallees(flows []flowInsn, r ports.FunctionRange, isCallee func(uint64) bool) []uint64 {
	var out []uint64
	for _, f := range flows {
		if !f.hasTarget {
			continue
		}
		switch {
		case f.flow == ports.FlowCall:
		case f.flow == ports.FlowJump && (f.target < r.Start || f.target >= r.End):
		default:
			continue
		}
		if isCallee(f.target) {
			out = append(out, f.target)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// code returns procedure i's range, its bytes and where its decoding
// ends; no bytes and no error for a procedure without code.
func (e *vfEnv) code(ctx context.Context, i int) (ports.FunctionRange, []byte, uint64, error) {
	r := e.p.ranges[i]
	reg := e.p.mm.code(r.Start)
	if reg == nil || r.End <= r.Start {
		return r, nil, 0, nil
	}
	end := min(r.End, reg.addr+reg.fileSize)
	b, err := codeBytes(ctx, e.a.src, e.p.mm, e.p.arch, r.Start, end)
	return r, b, end, err
}

// analyse computes the value flow of procedure i, with the arities of its
// direct callees from arities (nil: none known); false when it has no
// code or makes a system call.
func (e *vfEnv) analyse(ctx context.Context, i, limit int, summary bool,
	arities func([]uint64) map[uint64]calleeArity) (ports.ValueFlow, bool) {
	r, b, end, err := e.code(ctx, i)
	if err != nil || b == nil {
		return ports.ValueFlow{}, false
	}
	known := e.known
	known.summary = summary
	if arities != nil {
		known.arities = func(flows []flowInsn) map[uint64]calleeArity {
			return arities(directCallees(flows, r, e.isCallee))
		}
	}
	vf, sems := valueFlowSems(ctx, e.d, e.sm, e.cc, b, r, end, limit, known)
	// A system call uses every register that may carry one of its
	// arguments, whatever its number takes: no arity.
	return vf, !slices.ContainsFunc(sems, func(s vfSem) bool { return s.syscall })
}

// callees sweeps procedure i for its direct callees, as analyse finds them.
func (e *vfEnv) callees(ctx context.Context, i int) []uint64 {
	r, b, end, err := e.code(ctx, i)
	if err != nil || b == nil {
		return nil
	}
	var flows []flowInsn
	sweep(e.d, b, r.Start, end, defaultVFInsns, func(in *insn) bool {
		if in.flow == ports.FlowCall || in.flow == ports.FlowJump {
			flows = append(flows, e.known.flow(in))
		}
		return len(flows)%4096 != 0 || ctx.Err() == nil
	})
	return directCallees(flows, r, e.isCallee)
}

// dwarfArity is the arity DWARF gives the procedure at addr.
func (e *vfEnv) dwarfArity(ctx context.Context, addr uint64) (calleeArity, bool) {
	if e.sigIdx == nil {
		return calleeArity{}, false
	}
	if _, ok := e.sigIdx.byAddr[addr]; !ok {
		return calleeArity{}, false
	}
	sig, err := e.a.Signature(ctx, addr)
	if err != nil || sig.CallingConvention != e.cc.name || strings.HasPrefix(sig.ReturnUnderlying, "struct") ||
		strings.HasPrefix(sig.ReturnUnderlying, "union") {
		return calleeArity{}, false
	}
	ar := calleeArity{known: true, exact: true, variadic: sig.Variadic}
	for _, prm := range sig.Parameters {
		if prm.Location == "" {
			return calleeArity{}, false // an aggregate the signature does not place
		}
		for loc := range strings.SplitSeq(prm.Location, ",") {
			switch {
			case loc == "none":
			case slices.Contains(e.cc.intArgs, loc):
				ar.ints = max(ar.ints, slices.Index(e.cc.intArgs, loc)+1)
			case slices.Contains(e.cc.vecArgs, loc):
				ar.vecs = max(ar.vecs, slices.Index(e.cc.vecArgs, loc)+1)
			default:
				return calleeArity{}, false // on the stack
			}
		}
	}
	return ar, true
}

// inferredArity is the arity a summary's parameters give: the highest
// register read, bounded from above only.
func (e *vfEnv) inferredArity(vf ports.ValueFlow) calleeArity {
	if vf.Truncated || vf.OmittedEdges > 0 || vf.OmittedInputs > 0 {
		return calleeArity{}
	}
	ar := calleeArity{known: true}
	for _, prm := range vf.Parameters {
		switch {
		case slices.Contains(e.cc.intArgs, prm.Location):
			ar.ints = max(ar.ints, prm.Position+1)
		case slices.Contains(e.cc.vecArgs, prm.Location):
			ar.vecs = max(ar.vecs, prm.Position+1)
		default:
			return calleeArity{} // a stack word: every register may be taken
		}
	}
	return ar
}

// keep stores the summary of the procedure at addr from its value flow
// (vf, sems) just computed with its callees' arities, when none is stored.
// Its callees' arities having been looked up, it has no summary only when
// no callee reaches it: then summarise would compute the same one.
func (e *vfEnv) keep(ctx context.Context, addr uint64, vf ports.ValueFlow, sems []vfSem) {
	if !e.isCallee(addr) {
		return
	}
	s := &e.p.vfArity
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.done[addr]; ok || s.done == nil {
		return
	}
	ar, ok := e.dwarfArity(ctx, addr)
	if !ok && !slices.ContainsFunc(sems, func(s vfSem) bool { return s.syscall }) {
		ar = e.inferredArity(vf)
	}
	s.done[addr] = ar
}

// arities returns the arities of the procedures at targets, summarising
// the ones not yet summarised.
func (e *vfEnv) arities(ctx context.Context, targets []uint64) map[uint64]calleeArity {
	s := &e.p.vfArity
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		s.done = map[uint64]calleeArity{}
	}
	out := make(map[uint64]calleeArity, len(targets))
	for _, t := range targets {
		if _, ok := s.done[t]; !ok {
			e.summarise(ctx, s.done, t)
		}
		out[t] = s.done[t] // the zero calleeArity (unknown) when cancelled
	}
	return out
}

// Bounds on the summaries of a cycle of calls: the rounds, and the size of
// a component past which one round (every call inside it unknown) is all.
const (
	maxArityRounds    = 3
	maxArityComponent = 64
)

// component summarises the members (sorted) of one strongly connected
// component, whose callees outside it are in done. The first round knows
// no member's arity; each further one, while something changes, takes the
// members' arities from the round before (Jacobi's order, so the result
// depends on the component alone).
func (e *vfEnv) component(ctx context.Context, done map[uint64]calleeArity, members []uint64) []calleeArity {
	results := make([]calleeArity, len(members))
	var prev []calleeArity // nil: no member's arity known
	for round := 0; round < maxArityRounds && ctx.Err() == nil; round++ {
		mates := false // a member calls a member
		for j, m := range members {
			if ar, ok := done[m]; ok {
				results[j] = ar
				continue
			}
			i, _ := e.p.rangeIndex(m)
			vf, ok := e.analyse(ctx, i, defaultVFInsns, true, func(ts []uint64) map[uint64]calleeArity {
				out := make(map[uint64]calleeArity, len(ts))
				for _, t := range ts {
					switch at, mate := slices.BinarySearch(members, t); {
					case !mate:
						out[t] = done[t]
					case prev != nil:
						out[t], mates = prev[at], true
					default:
						mates = true
					}
				}
				return out
			})
			results[j] = calleeArity{}
			if ok {
				results[j] = e.inferredArity(vf)
			}
		}
		if !mates || len(members) > maxArityComponent || slices.Equal(prev, results) {
			break
		}
		prev = slices.Clone(results)
	}
	return results
}

// summarise computes the summaries of root and of every procedure it
// reaches by direct calls that has none, callees first (Tarjan's strongly
// connected components, iteratively). A cancelled run keeps the
// components it completed.
func (e *vfEnv) summarise(ctx context.Context, done map[uint64]calleeArity, root uint64) {
	type node struct {
		index, low int
		onStack    bool
		succ       []uint64
		next       int
	}
	nodes := map[uint64]*node{}
	var stack, path []uint64
	visit := func(v uint64) {
		n := &node{index: len(nodes), low: len(nodes), onStack: true}
		nodes[v] = n
		stack, path = append(stack, v), append(path, v)
		if ar, ok := e.dwarfArity(ctx, v); ok {
			done[v] = ar // a leaf: DWARF needs no callee
			return
		}
		i, _ := e.p.rangeIndex(v)
		for _, t := range e.callees(ctx, i) {
			if _, ok := done[t]; !ok {
				n.succ = append(n.succ, t)
			}
		}
	}
	visit(root)
	for len(path) > 0 {
		if ctx.Err() != nil {
			return
		}
		v := path[len(path)-1]
		n := nodes[v]
		if n.next < len(n.succ) {
			w := n.succ[n.next]
			n.next++
			switch m, seen := nodes[w]; {
			case !seen:
				visit(w)
			case m.onStack:
				n.low = min(n.low, m.index)
			}
			continue
		}
		path = path[:len(path)-1]
		if len(path) > 0 {
			u := nodes[path[len(path)-1]]
			u.low = min(u.low, n.low)
		}
		if n.low != n.index {
			continue
		}
		// v roots a component: its members are on the stack above it.
		k := len(stack) - 1
		for stack[k] != v {
			k--
		}
		members := slices.Clone(stack[k:])
		stack = stack[:k]
		for _, m := range members {
			nodes[m].onStack = false
		}
		slices.Sort(members)
		results := e.component(ctx, done, members)
		if ctx.Err() != nil {
			return
		}
		for j, m := range members {
			done[m] = results[j]
		}
	}
}
