package native

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"

	"rea/ports"
	"rea/ports/libc"
)

// What a direct callee takes. A call passes the argument registers its
// callee takes when the value flow knows the callee's arity: from DWARF
// (the callee's formal parameters, placed as Signature places them), or
// from the callee's own inferred parameters (its summary). Where neither is
// known (indirect calls, imports the C library's prototypes do not name, a
// callee that jumps somewhere unresolved, is truncated, makes a system
// call or has instructions the value flow does not model) the call keeps
// the rule of valueflow.go.
//
// A call or jump to an import (its PLT stub, "call puts@plt", "bl
// puts@plt", or its GOT slot, "call [rip+puts@GOT]", "jmp [rip+x]") whose
// name has a C library prototype (ports/libc) takes what the prototype
// places under SysV or AAPCS64, as exactly as DWARF's: its integer and
// pointer parameters in the integer registers, its float and double ones
// in the vector registers, and for a variadic one (printf) also the
// written registers above (unless a constant printf format says exactly
// what it takes: valueflow_format.go); on x86-64 a variadic call also reads al, the
// number of vector registers it passes, and where al is a constant there
// it passes exactly that many, written or not ("movl $1, %eax; jmp
// printf@plt" passes the caller's own double through). Before, "call
// strlen@plt" after a "mov esi, 1" left over for a later call took rdi as
// passed through. A call of unknown or inferred arity setting al to a
// constant above 0 just before it (in its block, no other use between) is
// taken for a variadic call that passes that many vector registers: a
// stripped program's own variadic procedure reads them all.
//
// A conditional branch to a procedure's entry or an import's stub (clang
// -Os's "je puts@plt", "jne gs") is a tail call on its taken path, and
// passes what a jump there would.
//
// DWARF's arity is exact: every register below it is an argument, written
// or passed through (a variadic callee may also take written ones above
// it). An inferred arity n is the highest register the callee reads, plus
// one: a register at or above it is no argument of the call (gcc's AArch64
// compare tree keeps a switch's index, x & 15, in w2 through the cases'
// calls), below it the rule of valueflow.go applies to the written ones,
// and when the call writes none of them all n are passed through (a
// wrapper that only tail-calls). Vector registers only get the bound: a
// partial write (movlpd xmm4, [rdi]) reads its register, so a callee may
// seem to read one it does not take.
//
// A callee's summary looks arityDepth levels deep (summary): its own value
// flow computed with its callees' summaries one level less deep, and at
// the bottom with today's rule at its calls. So a request costs at most
// one value flow per procedure and depth within arityDepth calls of the
// procedure asked about, each kept per analysis (only its arity), and
// every summary is a function of the program alone. Summaries built
// callees first over the whole call graph (strongly connected components)
// were a little more precise, but made the first request of a procedure
// that reaches most of a program pay for all of it (main.main of the Go
// toolchain's go: 3.1 s, from 0.03 s).

// calleeArity is what the value flow knows of a direct callee's arguments.
type calleeArity struct {
	known      bool
	ints, vecs int  // argument registers of each class the callee takes
	exact      bool // from DWARF: every register below is an argument
	variadic   bool // exact, and written registers above may be arguments too
	// intHoles, vecHoles: the registers below ints and vecs that carry no
	// argument (bit i for the i-th), where a convention places by position
	// (Microsoft x64's f(int, double) takes rcx and xmm1: rdx and xmm0 are
	// holes).
	intHoles, vecHoles uint32
	// words is how many stack words past the registers the callee's
	// prototype takes (every one of cdecl's), which a tail call passes
	// through from the caller's own (valueflow_stack.go).
	words int
	// format is 1 + the position among the fixed parameters of a printf
	// or scanf format that describes the variadic arguments (ports/libc),
	// 0 for none (valueflow_format.go); scan says it is scanf's (each
	// conversion a pointer), wide that it is wchar_t text (wprintf's).
	format     int
	scan, wide bool
	// source is where the arity comes from (sourceDWARF...), "" when
	// unknown.
	source string
	// pops is how many bytes of its arguments the callee pops on return
	// (a stdcall import's, valueflow_winapi.go); popsKnown says it is
	// known when the arity is not (a cdecl import the C library's
	// prototypes do not name pops none).
	pops      int64
	popsKnown bool
}

// Where a call's arity comes from: the callee's debug information, the C
// library's prototype of the import it calls, that prototype and the
// constant printf format the call passes (valueflow_format.go), the
// callee's own inferred parameters, or al's count of vector registers at
// a call of unknown arity.
const (
	sourceDWARF     = "dwarf"
	sourcePrototype = "libc-prototype"
	sourceFormat    = "format"
	sourceInferred  = "inferred"
	sourceAL        = "al"
)

// vfSummaries holds the procedures' arities, by address and depth.
type vfSummaries struct {
	mu   sync.Mutex
	done map[arityKey]arityEntry
	// pops: what each procedure pops on return (valueflow_stack.go).
	popsMu sync.Mutex
	pops   map[uint64]calleePop
	// importLibs: the DLL each import name comes from, "" when several
	// (valueflow_winapi.go).
	importLibsOnce sync.Once
	importLibs     map[string]string
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

// importArity is the arity of the import a call or jump in reaches (the
// PLT stub it targets, the GOT slot it calls through, a PE image's stub
// that jumps through the import's IAT slot, "call puts" to "jmp
// [rip+__imp_puts]"), or the procedure a static program's call reaches
// that the signature libraries named (Source "library": libc.a's printf),
// from the C library's prototype of its name.
func (e *vfEnv) importArity(in *insn, f flowInsn) (calleeArity, bool) {
	name, lib := "", ""
	switch {
	case f.hasTarget:
		name, lib = e.p.importNamed(f.target)
		if i, ok := e.p.rangeIndex(f.target); name == "" && ok && e.p.procs[i].Thunk && e.p.procs[i].External {
			name = e.p.procs[i].ThunkTarget
			if e.known.calleePops {
				lib = e.p.importLibrary(name)
			}
		} else if name == "" && ok && e.p.procs[i].Source == "library" && e.p.procs[i].Address == f.target {
			// A static program's C library function, named from the
			// archive it was linked from: that function, prototype and all.
			name = e.p.procs[i].Name
		}
	case f.flow == ports.FlowCall:
		for _, x := range in.refs {
			if x.kind == kindCall && x.flags == flagUnresolved && x.to != 0 {
				name, lib = e.p.importNamed(x.to)
				break
			}
		}
	}
	if name == "" {
		return calleeArity{}, false
	}
	return e.importCallArity(lib, name)
}

// prototypeArity is the arity the C library's prototype of name gives
// under cc: SysV and AAPCS64, which place each class in turn, Microsoft
// x64, which places by position (the i-th parameter in the i-th integer or
// vector register, the other one a hole; a variadic callee's slots past
// the fixed ones are taken where written, as SysV's), and cdecl, which
// places every parameter on the stack (a double in two words); not Go's
// conventions, which are not C's. The stack words past the registers are
// counted (words).
func (cc convention) prototypeArity(name string) (calleeArity, bool) {
	positional := cc.name == msX64.name
	if cc.name != sysvAMD64.name && cc.name != aapcs64.name && !positional && cc.name != cdecl.name {
		return calleeArity{}, false
	}
	fn, ok := libc.Lookup(name)
	if !ok {
		return calleeArity{}, false
	}
	ar := calleeArity{known: true, exact: true, variadic: fn.Variadic, source: sourcePrototype}
	ar.format, ar.scan, ar.wide = formatOf(name)
	for i, p := range fn.Params {
		vec := false
		switch p.Type {
		case "float", "double":
			vec = true
		case "long double": // x87's, in memory on x86-64 (and by reference in mingw's)
			return calleeArity{}, false
		}
		switch {
		case len(cc.intArgs) == 0: // cdecl
			ar.words++
			if p.Type == "double" || strings.Contains(p.Type, "long long") { // two words (UCRT's options)
				ar.words++
			}
		case positional && i >= len(cc.intArgs):
			ar.words++
		case positional:
			ar.ints, ar.vecs = i+1, i+1
			if vec {
				ar.intHoles |= 1 << i
			} else {
				ar.vecHoles |= 1 << i
			}
		case vec:
			ar.vecs++
		default:
			ar.ints++
		}
	}
	if !positional { // SysV's and AAPCS64's past the registers, each in a word
		ar.words += max(0, ar.ints-len(cc.intArgs)) + max(0, ar.vecs-len(cc.vecArgs))
	}
	ar.ints, ar.vecs = min(ar.ints, len(cc.intArgs)), min(ar.vecs, len(cc.vecArgs))
	return ar.trimmed(), true
}

// trimmed drops the holes at the top of each class: an arity ends at its
// highest argument register.
func (ar calleeArity) trimmed() calleeArity {
	for ar.ints > 0 && ar.intHoles&(1<<(ar.ints-1)) != 0 {
		ar.ints--
	}
	for ar.vecs > 0 && ar.vecHoles&(1<<(ar.vecs-1)) != 0 {
		ar.vecs--
	}
	ar.intHoles, ar.vecHoles = ar.intHoles&(1<<ar.ints-1), ar.vecHoles&(1<<ar.vecs-1)
	return ar
}

// directCallees lists the targets of the direct calls and of the jumps and
// conditional branches out of r (tail calls) that isCallee accepts, sorted.
func directCallees(flows []flowInsn, r ports.FunctionRange, isCallee func(uint64) bool) []uint64 {
	var out []uint64
	for _, f := range flows {
		if !f.hasTarget {
			continue
		}
		switch {
		case f.flow == ports.FlowCall:
		case (f.flow == ports.FlowJump || f.flow == ports.FlowBranch) && (f.target < r.Start || f.target >= r.End):
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

// analyse computes the value flow of procedure i (a summary's when
// summary), with the arities of its direct callees from arities (nil: none
// known); ok is false when it has no code or makes a system call, whose
// arity is then unknown.
func (e *vfEnv) analyse(ctx context.Context, i, limit int, summary bool,
	arities func([]uint64) map[uint64]calleeArity) (vf ports.ValueFlow, ok bool, err error) {
	r, b, end, err := e.code(ctx, i)
	if err != nil || b == nil {
		return ports.ValueFlow{}, false, err
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
	return vf, !slices.ContainsFunc(sems, func(s vfSem) bool { return s.syscall }), nil
}

// dwarfArity is the arity DWARF gives the procedure at addr.
func (e *vfEnv) dwarfArity(ctx context.Context, addr uint64) (calleeArity, bool) {
	if e.sigIdx == nil {
		return calleeArity{}, false
	}
	if _, ok := e.sigIdx.byAddr[addr]; !ok {
		return calleeArity{}, false
	}
	if i, ok := e.p.rangeIndex(addr); e.cc.name == cdecl.name && ok && e.sigIdx.registerArguments(addr, e.p.procs[i].Name) {
		return calleeArity{}, false // fastcall (valueflow_winapi.go)
	}
	sig, err := e.a.Signature(ctx, addr)
	if err != nil || sig.CallingConvention != e.cc.name || strings.HasPrefix(sig.ReturnUnderlying, "struct") ||
		strings.HasPrefix(sig.ReturnUnderlying, "union") {
		return calleeArity{}, false
	}
	ar := calleeArity{known: true, exact: true, variadic: sig.Variadic, source: sourceDWARF}
	var ints, vecs uint32 // the registers placed
	for _, prm := range sig.Parameters {
		if prm.Location == "" {
			return calleeArity{}, false // an aggregate the signature does not place
		}
		for loc := range strings.SplitSeq(prm.Location, ",") {
			switch i, j := slices.Index(e.cc.intArgs, loc), slices.Index(e.cc.vecArgs, loc); {
			case loc == "none":
			case i >= 0:
				ar.ints, ints = max(ar.ints, i+1), ints|1<<i
			case j >= 0:
				ar.vecs, vecs = max(ar.vecs, j+1), vecs|1<<j
			case e.cc.stackWord > 0:
				// stack words: cdecl's ("[esp+4]", "[esp+8],[esp+12]"), and
				// past the registers SysV's ("[rsp+8]"), Microsoft x64's
				// ("[rsp+40]") and AAPCS64's ("[sp+0]")
				digits, ok := strings.CutPrefix(loc, "["+e.cc.sp+"+")
				digits, ok2 := strings.CutSuffix(digits, "]")
				at, err := strconv.ParseInt(digits, 10, 64)
				if !ok || !ok2 || err != nil || at < e.cc.stackFrom || (at-e.cc.stackFrom)%e.cc.stackWord != 0 {
					return calleeArity{}, false
				}
				ar.words = max(ar.words, int((at-e.cc.stackFrom)/e.cc.stackWord)+1)
			default:
				return calleeArity{}, false // on the stack
			}
		}
	}
	// Microsoft x64 places by position: f(int, double) takes rcx and
	// xmm1, not rdx nor xmm0.
	ar.intHoles, ar.vecHoles = (1<<ar.ints-1)&^ints, (1<<ar.vecs-1)&^vecs
	// gcc writes no calling convention to DWARF (registerArguments): a
	// 32-bit callee whose returns pop other than the words DWARF places
	// takes some in registers (an ELF fastcall's "ret 4" of three ints, the
	// first two in ecx and edx). One of two words or fewer pops none and
	// is not told from cdecl.
	if e.cc.name == cdecl.name {
		if n, ok := e.calleePops(ctx, addr); ok && n != 0 && n != int64(ar.words)*e.cc.stackWord {
			return calleeArity{}, false
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
	ar := calleeArity{known: true, source: sourceInferred}
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

// arityDepth is how deep a callee's summary looks: the callee's own
// value flow is computed with its callees' summaries one level less deep,
// and at the bottom with today's rule at its calls.
const arityDepth = 2

// arities returns the arities of the procedures at targets, summarising
// the ones not yet summarised (summary).
func (e *vfEnv) arities(ctx context.Context, targets []uint64) map[uint64]calleeArity {
	s := &e.p.vfArity
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		s.done = map[arityKey]arityEntry{}
	}
	out := make(map[uint64]calleeArity, len(targets))
	for _, t := range targets {
		out[t] = e.summary(ctx, s.done, t, arityDepth).ar
	}
	return out
}

// arityKey is a summary: a procedure and how deep it looked.
type arityKey struct {
	addr  uint64
	depth int
}

// arityEntry is a summary and the direct callees its value flow asked
// about (the same at every depth).
type arityEntry struct {
	ar      calleeArity
	callees []uint64
}

// summary is the arity of the procedure at addr looking depth levels
// deep: DWARF's, else its value flow's parameters, computed with its
// direct callees' summaries one level less deep (with none at depth 1);
// none known when it makes a system call. Each is a function of the
// program alone, kept per analysis in done (whose lock is held), so the
// order of the requests and the number of goroutines change nothing, and a
// request costs at most one value flow per procedure and depth within
// arityDepth calls of it. A summary whose callees' summaries one level
// less deep are what the level below saw (a leaf, or callees of unknown
// arity) is the level below's, without a second value flow. A cancelled
// summary is not kept.
func (e *vfEnv) summary(ctx context.Context, done map[arityKey]arityEntry, addr uint64, depth int) arityEntry {
	k := arityKey{addr, depth}
	if en, ok := done[k]; ok {
		return en
	}
	var en arityEntry
	if ar, ok := e.dwarfArity(ctx, addr); ok {
		en.ar = ar
	} else {
		var sub map[uint64]calleeArity
		if depth > 1 {
			base := e.summary(ctx, done, addr, depth-1)
			same := true
			sub = make(map[uint64]calleeArity, len(base.callees))
			for _, t := range base.callees {
				sub[t] = e.summary(ctx, done, t, depth-1).ar
				var seen calleeArity // what the level below saw: unknown at the bottom
				if depth > 2 {
					seen = e.summary(ctx, done, t, depth-2).ar
				}
				same = same && sub[t] == seen
			}
			if same {
				en = base
				sub = nil
			}
		}
		if depth == 1 || sub != nil {
			i, _ := e.p.rangeIndex(addr)
			vf, ok, _ := e.analyse(ctx, i, defaultVFInsns, true, func(ts []uint64) map[uint64]calleeArity {
				en.callees = ts
				if sub == nil {
					return map[uint64]calleeArity{} // the bottom: every callee's arity unknown
				}
				return sub
			})
			en.ar = calleeArity{}
			if ok {
				en.ar = e.inferredArity(vf)
			}
		}
	}
	if ctx.Err() == nil {
		done[k] = en
	}
	return en
}
