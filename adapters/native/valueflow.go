package native

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"rea/ports"
	"rea/ports/libc"
)

// Value flow (ports.ValueFlowAnalyzer): reaching definitions over one
// procedure's basic blocks, from the same linear sweep and block split as
// Function. Each instruction is reduced to the locations it defines and uses
// (valueflow_x86.go, valueflow_arm64.go); definitions then flow along the
// successor edges to a fixed point, bounded in rounds and work.
//
// Locations are registers by their full name and memory operands in
// brackets. Only stack-frame slots (the stack pointer, or the frame pointer
// once the procedure sets it from the stack pointer, plus a constant) and
// absolute addresses are tracked as variables: a slot dies when its base
// register is written, an absolute address when a call is made. Accesses
// through other pointers are uses and effects but carry no reaching
// definitions, and are assumed not to alias tracked slots. Flags are not
// modelled. A call defines the convention's caller-saved registers; it uses
// the argument registers the procedure wrote before it (on some path), and
// those below the lowest one written when the written ones are contiguous
// (a call that sets only its second and third arguments passes the first
// through; a gap says the higher ones may be scratch, so nothing is
// filled). A direct call of a procedure whose arity is known (DWARF, or
// its own inferred parameters: valueflow_callee.go) uses no register at or
// above it. A register a call merely clobbered does not count as written
// for a later call. A return uses the integer return register when the
// procedure or a call wrote it, and the vector one when the procedure wrote
// it. A jump out of the procedure, or a conditional branch to a
// procedure's entry, is a tail call. Of all these uses, only a register
// passed through untouched makes a parameter, so a procedure that merely
// calls another infers none.

// Value-flow bounds.
const (
	defaultVFInsns = 20000   // instructions analysed by default
	maxVFInsns     = 100000  // the most a request may ask for
	maxVFRounds    = 64      // passes over the blocks before giving up on a fixed point
	maxVFWork      = 4 << 20 // location-set updates over all rounds
	maxVFEdges     = 200000  // def-use edges reported
	maxVFCells     = 1 << 21 // blocks times tracked locations (the solver's states)
)

// convention is a calling convention as the value flow needs it.
type convention struct {
	name    string
	intArgs []string
	vecArgs []string
	clobber []string
	ret     []string
	sp, fp  string
	// stackWord is the size of the stack words that carry arguments (cdecl's
	// every one, SysV's, Microsoft x64's and AAPCS64's past the registers),
	// whose reads make parameters (valueflow_stack.go), the first stackFrom
	// bytes above the entry stack pointer; 0 when the value flow infers none
	// (Apple's AArch64, which packs them, and Go, whose callers reserve
	// spill slots there for register arguments).
	stackWord, stackFrom int64
}

var (
	sysvAMD64 = convention{name: "sysv-amd64", intArgs: []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"},
		vecArgs: xmms(0, 8), clobber: append([]string{"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"}, xmms(0, 16)...),
		ret: []string{"rax", "xmm0"}, sp: "rsp", fp: "rbp", stackWord: 8, stackFrom: 8}
	// Microsoft x64's stack arguments start past the return address and the
	// 32-byte home area, where a callee may spill its register arguments.
	msX64 = convention{name: "ms-x64", intArgs: []string{"rcx", "rdx", "r8", "r9"},
		vecArgs: xmms(0, 4), clobber: append([]string{"rax", "rcx", "rdx", "r8", "r9", "r10", "r11"}, xmms(0, 6)...),
		ret: []string{"rax", "xmm0"}, sp: "rsp", fp: "rbp", stackWord: 8, stackFrom: 40}
	// AAPCS64's stack arguments start at the entry stack pointer (a call
	// pushes nothing), each in an 8-byte word but on Apple's platforms,
	// which pack them by size (aapcs64Apple: none inferred).
	aapcs64 = convention{name: "aapcs64", intArgs: regNames("x", 0, 8), vecArgs: regNames("v", 0, 8),
		clobber: append(append(append(regNames("x", 0, 19), "x30"), regNames("v", 0, 8)...), regNames("v", 16, 32)...),
		ret:     []string{"x0", "v0"}, sp: "sp", fp: "x29", stackWord: 8, stackFrom: 0}
	aapcs64Apple = func() convention { cc := aapcs64; cc.stackWord = 0; return cc }()

	// Go's register ABI (ABIInternal): no register is callee-saved but the
	// stack and frame pointers and the goroutine register (r14, x28); X15
	// is the zero register on amd64.
	goAMD64 = convention{name: "go-abiinternal", intArgs: []string{"rax", "rbx", "rcx", "rdi", "rsi", "r8", "r9", "r10", "r11"},
		vecArgs: xmms(0, 15), clobber: append([]string{"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r15"}, xmms(0, 15)...),
		ret: []string{"rax", "xmm0"}, sp: "rsp", fp: "rbp"}
	goARM64 = convention{name: "go-abiinternal", intArgs: regNames("x", 0, 16), vecArgs: regNames("v", 0, 16),
		clobber: append(append(regNames("x", 0, 28), "x30"), regNames("v", 0, 32)...), ret: []string{"x0", "v0"}, sp: "sp", fp: "x29"}

	// The i386 System V ABI: every argument on the stack, the result in
	// eax (edx:eax for 64 bits; floating point in st0, not modelled).
	cdecl = convention{name: "cdecl", clobber: append([]string{"eax", "ecx", "edx"}, xmms(0, 8)...),
		ret: []string{"eax"}, sp: "esp", fp: "ebp", stackWord: 4, stackFrom: 4}
	// Go on 32-bit x86 has no register ABI: ABI0 passes arguments and
	// results on the stack from [esp+4] and saves no register for the
	// caller.
	goABI0x86 = convention{name: "go-abi0", clobber: append([]string{"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp"}, xmms(0, 8)...),
		sp: "esp", fp: "ebp", stackWord: 4, stackFrom: 4}
)

// vfTargets is what the value flow knows of call targets.
type vfTargets struct {
	noret map[uint64]bool // calls that do not return end their block
	// stackGrowth: Go's runtime.morestack*, called from a function's
	// prologue with the function's own arguments still in their
	// registers; such a call passes nothing through.
	stackGrowth map[uint64]bool
	// calleePops: a call may pop its own arguments (32-bit Windows, whose
	// API is stdcall), so the stack height after it is unknown.
	calleePops bool
	// pops gives what the procedure at an address pops on return, when
	// its returns say (32-bit x86's "ret 8"); nil knows none.
	pops func(uint64) (int64, bool)
	// flow summarises an instruction as Function does (import slots
	// included); nil takes its own targets only.
	flow func(*insn) flowInsn
	// arities gives the arities of the procedure's direct callees, from
	// its instructions (valueflow_callee.go); nil knows none.
	arities func([]flowInsn) map[uint64]calleeArity
	// imported gives the arity of a call or jump to an import whose C
	// library prototype is known (valueflow_callee.go); nil knows none.
	imported func(*insn, flowInsn) (calleeArity, bool)
	// format gives the NUL-terminated text at an address in read-only
	// memory (wchar_t text when wide), a printf or scanf format a call
	// passes, and the dialect the image's formats follow
	// (valueflow_format.go); nil reads none.
	format func(addr uint64, wide bool) ([]byte, libc.Dialect, bool)
	// slot gives the arity of the import whose slot (GOT, IAT) is at an
	// address, for a call through a register loaded from it; nil knows
	// none.
	slot func(uint64) (calleeArity, bool)
	// entry reports whether an address starts a procedure (an import's
	// stub included): a conditional branch there is a tail call on its
	// taken path. Nil: no conditional branch is one.
	entry func(uint64) bool
	// summary: only the parameters are wanted (no operations, edges or
	// effects are built).
	summary bool
	// parts gives the ranges of the procedure whose range is r, its parts
	// included (parts.go), sorted by start, and partCode a part's bytes
	// and where its decoding ends; nil parts: r alone.
	parts    func(r ports.FunctionRange) []ports.FunctionRange
	partCode func(ctx context.Context, r ports.FunctionRange) ([]byte, uint64, error)
}

// goRuntime reports whether the procedures are a Go program's, whose
// functions follow Go's register ABI rather than the platform's, and where
// its stack-growth functions are.
func goRuntime(p *program) (bool, map[uint64]bool) {
	isGo := false
	growth := map[uint64]bool{}
	for _, pr := range p.procs {
		switch {
		case strings.HasPrefix(pr.Name, "runtime.goexit"):
			isGo = true
		case strings.HasPrefix(pr.Name, "runtime.morestack"):
			growth[pr.Address] = true
		}
	}
	return isGo, growth
}

func xmms(from, to int) []string { return regNames("xmm", from, to) }

func regNames(prefix string, from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// vfSem is what one instruction does to locations.
type vfSem struct {
	defs, uses []string
	call, ret  bool
	// setsFrame marks the instruction that makes the frame pointer a copy
	// of the stack pointer (mov rbp, rsp; mov x29, sp; add x29, sp, #n).
	setsFrame bool
	indirect  string // the operand of an indirect call
	write     *vfWrite
	opaque    bool // not modelled: defines and uses nothing known
	stack     stackOp
	// addrOf is the memory operand whose address lea takes ("[esp+0x8]"):
	// the address of a stack argument is a use of it (clang -O2 selects
	// between two arguments' addresses and loads through the one chosen).
	addrOf string
	// constReg is a register the instruction sets to the constant
	// constVal ("mov x12, #0x1390"), for a stack adjustment by it.
	constReg string
	constVal int64
	// syscall: a system call (svc, syscall), which uses every register
	// that may carry one of its arguments.
	syscall bool
	// memAfter: the memory operands address the base after the
	// instruction's write-back (AArch64's pre-indexing, "[sp,#-32]!").
	memAfter bool
	// setsAL: the instruction sets al to the constant alVal (mov al, 1;
	// mov eax, 2; xor eax, eax; the whole immediate of a wider mov, at
	// most 255), which before an x86-64 SysV call of a variadic procedure
	// is how many vector registers carry arguments.
	setsAL bool
	alVal  uint8
	// copyOf is 1 + the number (x86Regs) of the register a move between
	// whole x86 registers copies (mov rdi, rax), which holds a constant
	// format's address when that one does (valueflow_format.go); 0 for
	// none. A byte, where the struct has room.
	copyOf uint8
	// swapOf is 1 + the number (x86Regs) of the second of two whole x86
	// registers an exchange swaps (xchg rbx, r12: r12), the first its
	// other def; 0 for none. regcall.go follows it, not the format
	// constants, which copyOf alone carries.
	swapOf uint8
	// pushed is the register a push stores, popped the location a pop
	// loads (a register, or a memory operand): valueflow_push.go tells the
	// pushes that only pad the stack.
	pushed, popped string
	// loads is the absolute address a load of a whole register reads (mov
	// rdi, [rip+__imp_strlen]), for a call through the register ("call
	// rdi") of the import whose slot it is.
	loads uint64
	// memBytes is how many bytes a store to memory writes, 0 when unknown
	// (fstp qword [esp+0x4] writes a double's two stack words).
	memBytes int
	// readBytes is how many bytes a read of a memory operand reads, 0
	// when unknown (movdqu xmm0, [rsp+0x10] reads two stack words, fld
	// qword [esp+0x4] a double's two).
	readBytes int
}

// vfWrite is a store to memory.
type vfWrite struct {
	loc    string
	target uint64
	has    bool
	value  string   // the stored register or immediate
	from   []string // locations whose definitions reach the stored value
}

// semantics reduces one decoded instruction to a vfSem.
type semantics interface {
	sem(b []byte, pc uint64, in *insn) vfSem
}

// ValueFlow computes the value flow of the procedure starting at req.Address.
func (a *Analysis) ValueFlow(ctx context.Context, req ports.FunctionRequest) (ports.ValueFlow, error) {
	return codeOp(a, ctx, "value flow", func(p *program) (ports.ValueFlow, error) {
		i, ok := p.rangeIndex(req.Address)
		if !ok {
			return ports.ValueFlow{}, fmt.Errorf("no procedure starts at 0x%x: %w", req.Address, ports.ErrNotFound)
		}
		var cc convention
		var sm semantics
		goProg, growth := goRuntime(p)
		switch p.arch {
		case archX8664:
			cc = sysvAMD64
			switch {
			case goProg:
				cc = goAMD64
			case a.img.format() == "pe":
				cc = msX64
			}
			sm = &x86Sem{d: newX86(64, p.mm, a.src)}
		case archARM64:
			cc, sm = aapcs64, arm64Sem{}
			switch {
			case goProg:
				cc = goARM64
			case a.img.format() == "macho":
				cc = aapcs64Apple
			}
		case archX86:
			cc, sm = cdecl, &x86Sem{d: newX86(32, p.mm, a.src)}
			if goProg {
				cc = goABI0x86
			}
		default:
			return ports.ValueFlow{}, fmt.Errorf("value flow models x86-64, 32-bit x86 and AArch64 only: %w", ports.ErrUnsupported)
		}
		d, err := p.decoder(a.src)
		if err != nil {
			return ports.ValueFlow{}, err
		}
		out := ports.ValueFlow{CallingConvention: cc.name}
		if r := p.ranges[i]; p.mm.code(r.Start) == nil || r.End <= r.Start {
			out.Limitations = []string{"The procedure has no code bytes (an import or a symbol outside code)."}
			return finishVF(out, cc), nil
		}
		limit := defaultVFInsns
		if req.MaxInstructions > 0 {
			limit = min(req.MaxInstructions, maxVFInsns)
		}
		env := &vfEnv{a: a, p: p, d: d, sm: sm, cc: cc,
			known: vfTargets{noret: p.noret, stackGrowth: growth, calleePops: a.img.format() == "pe" && p.arch == archX86, flow: p.flowOf,
				entry: func(t uint64) bool { _, ok := p.rangeIndex(t); return ok }}}
		if len(p.parts) > 0 {
			env.known.parts, env.known.partCode = p.sortedSpans, func(ctx context.Context, r ports.FunctionRange) ([]byte, uint64, error) {
				return p.partCode(ctx, a.src, r)
			}
		}
		var arities func([]uint64) map[uint64]calleeArity
		if len(cc.intArgs) > 0 {
			if idx, err := a.signatures(ctx); err == nil && idx.d != nil {
				env.sigIdx = idx
			}
			arities = func(ts []uint64) map[uint64]calleeArity { return env.arities(ctx, ts) }
		}
		if cc.name == cdecl.name {
			env.known.pops = func(t uint64) (int64, bool) { return env.calleePops(ctx, t) }
			// cdecl's callees: only DWARF's exact arity names their stack
			// words (valueflow_cdecl.go); an inferred one does not.
			if idx, err := a.signatures(ctx); err == nil && idx.d != nil {
				env.sigIdx = idx
				arities = func(ts []uint64) map[uint64]calleeArity {
					out := map[uint64]calleeArity{}
					for _, t := range ts {
						if ar, ok := env.dwarfArity(ctx, t); ok {
							out[t] = ar
						}
					}
					return out
				}
			}
		}
		env.known.imported = env.importArity
		env.known.format = func(addr uint64, wide bool) ([]byte, libc.Dialect, bool) { return a.readOnlyText(p, addr, wide) }
		env.known.slot = func(a uint64) (calleeArity, bool) {
			if name, lib := p.importNamed(a); name != "" {
				return env.importCallArity(lib, name)
			}
			return calleeArity{}, false
		}
		vf, _, err := env.analyse(ctx, i, limit, false, arities)
		if err != nil {
			return ports.ValueFlow{}, err
		}
		return vf, ctx.Err()
	})
}

// valueFlowOf analyses the procedure r whose bytes from r.Start are b,
// decoded up to end.
func valueFlowOf(ctx context.Context, d decoder, sm semantics, cc convention, b []byte, r ports.FunctionRange, end uint64,
	limit int, known vfTargets) ports.ValueFlow {
	vf, _ := valueFlowSems(ctx, d, sm, cc, b, r, end, limit, known)
	return vf
}

// valueFlowSems is valueFlowOf, with the instructions' semantics.
func valueFlowSems(ctx context.Context, d decoder, sm semantics, cc convention, b []byte, r ports.FunctionRange, end uint64,
	limit int, known vfTargets) (ports.ValueFlow, []vfSem) {
	out := ports.ValueFlow{CallingConvention: cc.name}
	var flows []flowInsn
	var sems []vfSem
	var names []string
	var sites map[uint64]calleeArity // the arities of the calls and jumps to imports, by their address
	var consts map[int]uint64        // the address an instruction sets its one register to (lea rdi, [rip+fmt]), by its index
	step := func(b []byte, base uint64) func(in *insn) bool {
		return func(in *insn) bool {
			var f flowInsn
			if known.flow != nil {
				f = known.flow(in)
			} else {
				f = plainFlow(in, known.noret)
			}
			if known.imported != nil && (f.flow == ports.FlowCall || f.flow == ports.FlowJump || f.flow == ports.FlowBranch) {
				if ar, ok := known.imported(in, f); ok {
					if sites == nil {
						sites = map[uint64]calleeArity{}
					}
					sites[in.addr] = ar
				}
			}
			flows = append(flows, f)
			code := b[in.addr-base:]
			s := vfSem{opaque: true}
			if !in.invalid {
				s = sm.sem(code, in.addr, in)
			}
			if known.format != nil && (len(s.defs) == 1 && !strings.Contains(s.defs[0], "[") || cc.name == cdecl.name && writesStack(cc, s)) {
				if addr, ok := addressSet(in); ok {
					if consts == nil {
						consts = map[int]uint64{}
					}
					consts[len(sems)] = addr
				}
			}
			sems = append(sems, s)
			name := "" // a summary needs only the opaque ones' (endbr64, nop)
			if !known.summary || s.opaque {
				name = d.format(code, in.addr, in, func(uint64) string { return "" }).Mnemonic
			}
			names = append(names, name)
			return len(flows)%4096 != 0 || ctx.Err() == nil
		}
	}
	// A procedure with parts (parts.go) is swept range by range, in
	// address order, its own range with b.
	spans := []ports.FunctionRange{r}
	if known.parts != nil {
		spans = known.parts(r)
	}
	capped := false
	for _, sp := range spans {
		if sp == r {
			_, capped = sweep(d, b, r.Start, end, limit-len(flows), step(b, r.Start))
			continue
		}
		if len(flows) >= limit {
			capped = true
			continue
		}
		pb, pend, err := known.partCode(ctx, sp)
		if err != nil {
			out.Limitations = append(out.Limitations, fmt.Sprintf("The part at %#x could not be read (%v); value flow leaves it out.", sp.Start, err))
		}
		if pb == nil {
			continue
		}
		_, c := sweep(d, pb, sp.Start, pend, limit-len(flows), step(pb, sp.Start))
		capped = capped || c
	}
	if capped {
		// The bytes left hold at least one instruction per longest encoding.
		next := r.Start
		if k := len(flows); k > 0 {
			next = flows[k-1].next()
		}
		longest := uint64(15)
		if _, ok := d.(*arm64Decoder); ok {
			longest = 4
		}
		out.Truncated = true
		out.OmittedOperations = max(1, int((end-min(next, end)+longest-1)/longest))
		out.Limitations = append(out.Limitations, fmt.Sprintf("Value flow covers the first %d instructions of the procedure.", len(flows)))
	}
	blocks, cut := spanBlocks(flows, spans, nil)
	if cut {
		out.Truncated = true
		out.Limitations = append(out.Limitations, "The procedure has more basic blocks than the engine's cap; value flow covers a prefix.")
	}
	entry := -1
	if len(flows) > 0 {
		entry = slices.IndexFunc(blocks, func(b ports.BasicBlock) bool { return b.Start == r.Start })
	}
	var arity map[uint64]calleeArity
	if known.arities != nil && ctx.Err() == nil {
		arity = known.arities(flows)
	}
	var popped map[int]int64 // what calls of the program's procedures pop on return (valueflow_stack.go)
	if known.pops != nil && ctx.Err() == nil {
		popped = map[int]int64{}
		for k, fl := range flows {
			if sems[k].call && fl.hasTarget {
				if n, ok := known.pops(fl.target); ok {
					popped[k] = n
				}
			}
		}
	}
	var cdeclCalls map[int]bool // calls of the C library or of cdecl procedures (DWARF), which pop nothing (valueflow_cdecl.go)
	if known.calleePops && cc.name == cdecl.name {
		cdeclCalls = map[int]bool{}
		imports := importCalls(cc, flows, sems, blocks, entry, sites, known.slot) // valueflow_winapi.go
		for k, fl := range flows {
			n, lib := imports[k].popsOf()
			switch {
			case lib && n > 0:
				if popped == nil {
					popped = map[int]int64{}
				}
				popped[k] = n
			case sems[k].call && (lib || fl.hasTarget && arity[fl.target].source == sourceDWARF):
				cdeclCalls[k] = true
			}
		}
	}
	heights := stackHeights(cc, flows, sems, blocks, entry, known.calleePops, cdeclCalls, popped)
	if known.calleePops && !known.summary {
		out.Limitations = append(out.Limitations, heightsLost(cc, flows, sems, heights, cdeclCalls, popped)...)
	}
	fl := &flowSolver{cc: cc, flows: flows, sems: sems, names: names, blocks: blocks, entry: entry, known: known, heights: heights, sites: sites, consts: consts, arity: arity}
	fl.solve(ctx, &out)
	if cc.stackWord > 0 && ctx.Err() == nil {
		// A tail call of an import passes its prototype's stack words
		// through from the procedure's own.
		var tails map[int]int
		for k, fl := range flows {
			if ar, ok := sites[fl.addr]; ok && ar.words > 0 && !sems[k].call {
				if tails == nil {
					tails = map[int]int{}
				}
				tails[k] = ar.words
			}
		}
		ps, us := stackParameters(cc, flows, sems, heights, tails)
		out.Parameters, out.ParameterUses = append(out.Parameters, ps...), append(out.ParameterUses, us...)
		slices.SortStableFunc(out.ParameterUses, func(x, y ports.ParameterUse) int { return cmpU(x.Address, y.Address) })
	}
	return finishVF(out, cc), sems
}

func finishVF(out ports.ValueFlow, cc convention) ports.ValueFlow {
	if out.Operations == nil {
		out.Operations = []ports.ValueFlowOperation{}
	}
	if out.DefUses == nil {
		out.DefUses = []ports.DefUse{}
	}
	if out.Effects == nil {
		out.Effects = []ports.ValueFlowEffect{}
	}
	if out.Parameters == nil {
		out.Parameters = []ports.InferredParameter{}
	}
	if out.ParameterUses == nil {
		out.ParameterUses = []ports.ParameterUse{}
	}
	const stackRule = "the stack words holding arguments that the procedure reads where its stack height is known (pushes, pops, constant adjustments, a frame pointer set from the stack pointer), named by their place at the entry; a word written before it is read counts, as does one whose address is taken or a tail call of an import passes (as many as its C prototype takes); one only written does not, and a value of two words is two."
	params := "Parameters are argument registers read before any write on some path; stack-passed parameters are not inferred."
	switch {
	case cc.stackWord > 0 && len(cc.intArgs) == 0:
		params = "Parameters are " + stackRule
	case cc.stackWord > 0:
		params = "Parameters are argument registers read before any write on some path, and " + stackRule
	}
	out.Limitations = append(out.Limitations,
		"Flags are not modelled: compares and tests define nothing, conditional instructions use nothing for their condition.",
		"Memory is tracked only for stack-frame slots and absolute addresses, by exact operand; accesses through other pointers are assumed not to alias them.",
		params)
	return out
}
