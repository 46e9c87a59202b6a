package native

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"golang.org/x/arch/x86/x86asm"

	"rea/ports"
)

// Calls through a register that holds an import's address. An optimising
// compiler loads an import's slot into a register once and calls the
// register wherever the import is called, in loops and after branches
// (gcc -O2 and MSVC on 32-bit Windows: "mov esi, [__imp__CloseHandle@4]"
// ... "call esi"; mingw and clang on x86-64: "mov rbx, [rip+__imp_X]" ...
// "call rbx"; clang -fno-plt on ELF from the GOT). Such a call is a call
// of the import, as "call [S]" is: its reference goes to the slot, marked
// as an import's (xref.go), so the call graph, the callees, the references
// to the import and every tool that reads them see it.
//
// regCallSlots decides it per procedure over its basic blocks, its parts
// included (gcc's f.cold, parts.go: a part is entered by the parent's
// jumps, with the parent's registers): a register holds a slot at a call
// when every path from the entry to the call loads it from that slot
// ("mov reg, [S]" of the whole register), or copies it whole from a
// register that holds the slot there ("mov rax, rbp"; "lea rax, [rbp]"
// and "lea rax, [rbp+0x0]"; "xchg rax, rbp", which also gives rbp rax's;
// "push rbp; pop rax", the pop right after the push in one block, as
// clang -Oz moves), with no other write
// of it since and no call that clobbers it under the calling convention in
// between (callee-saved registers survive calls: ebx, esi, edi and ebp on
// i386; rbx, rbp and r12 to r15 under x86-64 System V, and rsi and rdi too
// under Microsoft x64); where paths join only the registers loaded from
// the same slot on every side are kept. A jump through such a register
// ("mov rax, rbp; ...; pop rbp; jmp rax", mingw's and gcc's tail call of
// the import) is a tail call of the import, as "jmp [S]" is: its reference
// is a jump to the slot, marked as the import's, and Function gives it the
// tail-call edge to the slot; a call of an import that does not return
// (exit, ExitProcess) ends its block in Function's blocks, as "call [S]"
// does (registerFlows). On 32-bit position-independent code the slot's
// load goes through the GOT register ("mov esi, [eax-0x4]", close@GOT
// off the thunk's eax): the sweep's tracking of that register (pic32.go)
// makes the operand a read of the slot, and the pass takes that read as
// the load. Only import slots count: the loader writes them once, so a
// register loaded from one still holds what the slot holds at the call,
// whereas a program's own function pointer may change in between. The
// instructions' effects are the value flow's (x86Sem, or a leaner summary
// that writes as much or more, but for gcc's padding "lea esi,
// [esi+eiz*1+0x0]", which writes nothing: regOp), and value flow's
// Windows API stack heights run this same pass (valueflow_winapi.go's
// slotCalls) over calls and copies, not jumps nor GOT-register loads.
//
// Limits: control is taken to reach a block only along the edges the
// blocks record (value flow takes it so too): a call in a block nothing
// reaches from the entry (through a jump table not recovered, say) stays
// unresolved, and a block that an unrecovered indirect jump also enters
// is judged by its other predecessors. The blocks the pass runs over do
// not end at the calls it finds go to no-return imports (it runs once),
// which only adds paths. Value flow's blocks keep the fallthrough.
// Discovery's sweep of a range with an inferred end runs the pass itself
// over the range when it calls through a register and loads an import's
// slot into one (noreturn.go, walkRegCallEnds), so such a call of exit
// ends a path there as in Function; no-return inference runs the pass
// itself over a candidate with a call through a register that names no
// slot (noreturn.go, nrDecode), so a procedure whose every path ends in
// "call esi" of ExitProcess is found not to return.
// Copies are of whole registers only (a 32-bit lea or xchg on x86-64
// cuts the address), and a push and pop copy only as an adjacent pair
// in one block: with anything between them (another push, a store to
// the stack) the pop only writes.
// The pass runs only for a procedure that calls or jumps through a
// register and loads an import's slot into a register somewhere (resolve
// checks that from the bytes first; a part, whose loads are its parent's,
// only the first), so a file without such calls pays one look at each
// indirect call and jump.

// regOp is what the pass needs of one instruction.
type regOp struct {
	defs uint16 // the general-purpose registers it writes (every one when it is not modelled)
	slot uint64 // the import slot it loads the whole of register load from, or 0
	load int8   // the register it loads slot into, or copies copyOf into, or -1
	// copyOf is 1 + the register whose whole value it copies into load
	// ("mov rax, rbp"; "mov eax, edi" on 32-bit x86), 0 for none.
	copyOf  int8
	call    bool
	jump    bool // an indirect jump through callReg (a tail call when that holds a slot)
	callReg int8 // the register an indirect call or jump goes through, or -1
	// swap: an exchange of whole registers ("xchg rbx, r12"): load takes
	// copyOf's value and copyOf's register load's.
	swap bool
	// pushed is 1 + the register a push of one word stores whole ("push
	// rbx"), popped 1 + the register a pop of one word loads whole ("pop
	// rax"), 0 for none: a pop right after a push in the same block copies
	// the pushed register (regCallSlots).
	pushed, popped int8
}

// slotRegs holds, for each general-purpose register (gpr's numbering),
// the import slot it was loaded from, or 0.
type slotRegs [16]uint64

func (s *slotRegs) apply(op *regOp, clobber uint16) {
	kill := op.defs
	if op.call {
		kill |= clobber
	}
	var copied, swapped uint64
	if op.copyOf > 0 {
		copied = s[op.copyOf-1]
	}
	if op.swap && op.load >= 0 {
		swapped = s[op.load]
	}
	for kill != 0 {
		s[bits.TrailingZeros16(kill)] = 0
		kill &= kill - 1
	}
	switch {
	case op.slot != 0:
		s[op.load] = op.slot
	case op.copyOf > 0 && op.load >= 0:
		s[op.load] = copied
		if op.swap {
			s[op.copyOf-1] = swapped
		}
	}
}

// applyAt applies instruction k, which block starts at first or after,
// to s: a pop right after a push in the same block ("push rbx; pop rax")
// copies the pushed register into the popped one; one that starts its
// block may be reached with another word on the stack, and only writes.
func (s *slotRegs) applyAt(ops []regOp, k, first int, clobber uint16) {
	op := &ops[k]
	if op.popped > 0 && k > first && ops[k-1].pushed > 0 {
		pair := *op
		pair.copyOf, pair.load = ops[k-1].pushed, op.popped-1
		op = &pair
	}
	s.apply(op, clobber)
}

// regCallSlots returns, by instruction index, the import slot each call
// or jump through a register goes to (see above): flows and ops describe the
// function's instructions in address order, blocks its basic blocks in
// address order, entry the index of the entry block, clobber the registers
// a call clobbers. It runs a worklist to the fixed point: a block's state
// only loses registers, at most sixteen times, so it ends.
//
// When open is not nil, it receives the index of each call or jump through a
// register that the pass reaches with the register holding no one slot
// (loaded from none on some path, or from different ones).
func regCallSlots(flows []flowInsn, blocks []ports.BasicBlock, entry int, ops []regOp, clobber uint16, open map[int]bool) map[int]uint64 {
	if entry < 0 || entry >= len(blocks) || len(flows) == 0 || len(ops) != len(flows) {
		return nil
	}
	first := make([]int, len(blocks)) // the index of each block's first instruction
	for bi, b := range blocks {
		first[bi], _ = slices.BinarySearchFunc(flows, b.Start, func(f flowInsn, a uint64) int { return cmpU(f.addr, a) })
	}
	blockAt := func(a uint64) (int, bool) {
		return slices.BinarySearchFunc(blocks, a, func(b ports.BasicBlock, t uint64) int { return cmpU(b.Start, t) })
	}
	in := make([]slotRegs, len(blocks))
	reached := make([]bool, len(blocks))
	queued := make([]bool, len(blocks))
	work := []int{entry}
	reached[entry], queued[entry] = true, true
	for len(work) > 0 {
		bi := work[0]
		work = work[1:]
		queued[bi] = false
		s := in[bi]
		for k := first[bi]; k < len(flows) && flows[k].addr < blocks[bi].End; k++ {
			s.applyAt(ops, k, first[bi], clobber)
		}
		for _, e := range blocks[bi].Successors {
			if e.Kind == ports.EdgeTailCall || e.Kind == ports.EdgeUnresolved {
				continue
			}
			si, ok := blockAt(e.Target)
			if !ok {
				continue
			}
			changed := false
			if !reached[si] {
				in[si], reached[si], changed = s, true, true
			} else {
				for r := range in[si] {
					if in[si][r] != 0 && in[si][r] != s[r] {
						in[si][r], changed = 0, true
					}
				}
			}
			if changed && !queued[si] {
				work = append(work, si)
				queued[si] = true
			}
		}
	}
	var out map[int]uint64
	for bi := range blocks {
		if !reached[bi] {
			continue
		}
		s := in[bi]
		for k := first[bi]; k < len(flows) && flows[k].addr < blocks[bi].End; k++ {
			if op := &ops[k]; (op.call || op.jump) && op.callReg >= 0 {
				switch {
				case s[op.callReg] != 0:
					if out == nil {
						out = map[int]uint64{}
					}
					out[k] = s[op.callReg]
				case open != nil:
					open[k] = true
				}
			}
			s.applyAt(ops, k, first[bi], clobber)
		}
	}
	return out
}

// x86GPR numbers the general-purpose registers as the value flow names
// them (the 64-bit names, and 32-bit x86's), gpr's way.
var x86GPR = func() map[string]int8 {
	m := map[string]int8{}
	for i, n := range x86Regs {
		m[n] = int8(i)
	}
	for i, n := range [...]string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"} {
		m[n] = int8(i)
	}
	return m
}()

// regOpOf summarises an instruction's value-flow semantics for the pass
// (value flow's slotCalls); isSlot tells the import slots.
func regOpOf(s *vfSem, isSlot func(uint64) bool) regOp {
	op := regOp{call: s.call, callReg: -1, load: -1}
	if s.opaque {
		op.defs = 0xffff
		return op
	}
	for _, d := range s.defs {
		if r, ok := x86GPR[d]; ok {
			op.defs |= 1 << r
		}
	}
	if s.call && s.indirect != "" {
		if r, ok := x86GPR[s.indirect]; ok {
			op.callReg = r
		}
	}
	if s.loads != 0 && len(s.defs) == 1 {
		if r, ok := x86GPR[s.defs[0]]; ok && isSlot(s.loads) {
			op.slot, op.load = s.loads, r
		}
	}
	if s.copyOf > 0 && len(s.defs) == 1 {
		if r, ok := x86GPR[s.defs[0]]; ok {
			op.copyOf, op.load = int8(s.copyOf), r
		}
	}
	if s.swapOf > 0 && len(s.defs) == 2 {
		for _, d := range s.defs {
			if r, ok := x86GPR[d]; ok && r != int8(s.swapOf)-1 {
				op.copyOf, op.load, op.swap = int8(s.swapOf), r, true
			}
		}
	}
	if r, ok := x86GPR[s.pushed]; ok {
		op.pushed = r + 1
	}
	if r, ok := x86GPR[s.popped]; ok {
		op.popped = r + 1
	}
	return op
}

// wholeGPR returns the number (gpr's) of a when it is a general-purpose
// register of the mode's width (rbx on x86-64, ebx on 32-bit x86).
func wholeGPR(a x86asm.Arg, mode int) (int8, bool) {
	r, ok := a.(x86asm.Reg)
	if !ok {
		return -1, false
	}
	n, w := x86Reg(r)
	g, ok := x86GPR[n]
	return g, ok && w == mode
}

// leaCopy reports whether inst is "lea dst, [src]" or "lea dst,
// [src+0x0]" of two different whole registers, which copies src into dst
// (the same register is isPadLea's padding).
func leaCopy(inst *x86asm.Inst, mode int) (dst, src int8, ok bool) {
	m, isMem := inst.Args[1].(x86asm.Mem)
	if inst.Op != x86asm.LEA || !isMem || m.Index != 0 || m.Disp != 0 || m.Segment != 0 || inst.AddrSize != mode {
		return -1, -1, false
	}
	dst, ok1 := wholeGPR(inst.Args[0], mode)
	src, ok2 := wholeGPR(m.Base, mode)
	return dst, src, ok1 && ok2 && dst != src
}

// regOp summarises the instruction b starts with for the pass, as
// regOpOf does the value flow's semantics of it (x86Sem) but without
// building them: the reference sweep runs it on every instruction of the
// functions it analyses. Its writes are those of x86Sem or more (an
// instruction it does not know writes its first operand when that is a
// register; every implicit write x86Sem models, and cpuid's, rdtscp's and
// the like), never fewer but for the padding lea (isPadLea), and its
// loads, copies and calls are x86Sem's
// (TestRegOpMatchesValueFlow); more writes only resolve fewer calls.
func (d *x86Decoder) regOp(b []byte, in *insn, isSlot func(uint64) bool) regOp {
	op := regOp{callReg: -1, load: -1}
	if in.invalid {
		op.defs = 0xffff
		return op
	}
	var inst x86asm.Inst
	var special string
	var err error
	if d.last.ok && d.last.pc == in.addr { // step decoded it in full: reuse that
		inst, special, err = d.last.inst, d.last.special, d.last.err
	} else {
		inst, special, err = d.decode(b)
	}
	if special != "" {
		return op
	}
	if err != nil || inst.Len != in.size || inst.Op == 0 {
		op.defs = 0xffff
		return op
	}
	reg := func(a x86asm.Arg) int8 {
		if r, ok := a.(x86asm.Reg); ok {
			if n, bits := x86Reg(r); bits > 0 && bits <= 64 {
				if g, ok := x86GPR[n]; ok {
					return g
				}
			}
		}
		return -1
	}
	def := func(gs ...int8) {
		for _, g := range gs {
			if g >= 0 {
				op.defs |= 1 << g
			}
		}
	}
	const rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r11 = 0, 1, 2, 3, 4, 5, 6, 7, 11
	o := inst.Op
	name := o.String()
	switch {
	case o == x86asm.CALL || o == x86asm.LCALL:
		if inst.Args[0] == x86asm.Rel(0) && d.mode == 32 {
			def(rsp) // "call next; pop ebx": no call
			return op
		}
		op.call = true
		op.callReg = reg(inst.Args[0])
		return op
	case o == x86asm.JMP:
		if r := reg(inst.Args[0]); r >= 0 {
			op.jump, op.callReg = true, r
		}
		return op
	case o == x86asm.LEA && isPadLea(&inst, d.mode):
		return op // gcc's padding, "lea esi, [esi+eiz*1+0x0]": no change
	case o == x86asm.LEA:
		if dst, src, ok := leaCopy(&inst, d.mode); ok {
			def(dst)
			op.copyOf, op.load = src+1, dst
			return op
		}
	case o == x86asm.PUSH || o == x86asm.PUSHF || o == x86asm.PUSHFD || o == x86asm.PUSHFQ || o == x86asm.RET || o == x86asm.LRET:
		def(rsp)
		if g := reg(inst.Args[0]); o == x86asm.PUSH && g >= 0 && inst.DataSize != 16 {
			op.pushed = g + 1
		}
		return op
	case o == x86asm.POP:
		def(rsp, reg(inst.Args[0]))
		if g := reg(inst.Args[0]); g >= 0 && inst.DataSize != 16 {
			op.popped = g + 1
		}
		return op
	case o == x86asm.LEAVE || o == x86asm.ENTER:
		def(rsp, rbp)
		return op
	case x86NoDef[o] || x86Branches[o] || name == "VPTEST" || name == "VTESTPS" || name == "VTESTPD" ||
		name == "VUCOMISS" || name == "VUCOMISD" || name == "VCOMISS" || name == "VCOMISD":
		return op
	case strings.HasPrefix(name, "MOVS") && o != x86asm.MOVSX && o != x86asm.MOVSXD && o != x86asm.MOVSS && o != x86asm.MOVSD_XMM,
		strings.HasPrefix(name, "CMPS") && o != x86asm.CMPSD_XMM:
		def(rsi, rdi, rcx)
	case strings.HasPrefix(name, "STOS"), strings.HasPrefix(name, "SCAS"), strings.HasPrefix(name, "INS"):
		def(rdi, rcx)
	case strings.HasPrefix(name, "LODS"):
		def(rsi, rax, rcx)
	case strings.HasPrefix(name, "OUTS"):
		def(rsi, rcx)
	case o == x86asm.CDQ || o == x86asm.CQO || o == x86asm.CWD:
		def(rdx)
	case o == x86asm.CDQE || o == x86asm.CWDE || o == x86asm.CBW || o == x86asm.LAHF || o == x86asm.INT:
		def(rax)
	case o == x86asm.MUL || o == x86asm.DIV || o == x86asm.IDIV || o == x86asm.IMUL && inst.Args[1] == nil,
		o == x86asm.RDTSC || o == x86asm.RDMSR || o == x86asm.RDPMC || o == x86asm.XGETBV,
		o == x86asm.CMPXCHG8B || o == x86asm.CMPXCHG16B:
		def(rax, rdx)
	case o == x86asm.RDTSCP:
		def(rax, rcx, rdx)
	case o == x86asm.CPUID:
		def(rax, rbx, rcx, rdx)
	case o == x86asm.SYSCALL || o == x86asm.SYSENTER:
		def(rax, rcx, rdx, r11)
	case o == x86asm.XCHG || o == x86asm.XADD:
		def(reg(inst.Args[1]))
		r0, ok0 := wholeGPR(inst.Args[0], d.mode)
		r1, ok1 := wholeGPR(inst.Args[1], d.mode)
		if o == x86asm.XCHG && ok0 && ok1 && r0 != r1 {
			def(r0)
			op.copyOf, op.load, op.swap = r1+1, r0, true
			return op
		}
	case o == x86asm.CMPXCHG:
		def(rax)
	}
	def(reg(inst.Args[0]))
	if r, ok := inst.Args[0].(x86asm.Reg); ok && o == x86asm.MOV && inst.Args[2] == nil {
		if _, w := x86Reg(r); w != d.mode || reg(r) < 0 {
			return op
		}
		switch a := inst.Args[1].(type) {
		case x86asm.Mem:
			if addr, ok := d.memAddr(a, in.addr+uint64(inst.Len)); ok && isSlot(addr) {
				op.slot, op.load = addr, reg(r)
			} else if !ok && d.mode == 32 {
				// 32-bit PIC, "mov eax, [ebx+X@GOT]": the sweep's
				// tracking of the GOT register (pic32.go) made the
				// operand a read of the slot.
				for _, x := range in.refs {
					if x.kind == kindRead && x.from == in.addr && isSlot(x.to) {
						op.slot, op.load = x.to, reg(r)
					}
				}
			}
		case x86asm.Reg:
			if _, w := x86Reg(a); w == d.mode && reg(a) >= 0 {
				op.copyOf, op.load = reg(a)+1, reg(r)
			}
		}
	}
	return op
}

// isPadLea reports whether inst is "lea r, [r+0]" of a whole register
// (gcc and gas pad with "lea esi, [esi+eiz*1+0x0]" between a function's
// blocks), which leaves r as it was. The value flow counts it as a write
// of r; regOp, which may write more than the value flow but not fewer
// otherwise, counts no write, so a slot held in esi across the padding
// before a loop survives it.
func isPadLea(inst *x86asm.Inst, mode int) bool {
	r, ok := inst.Args[0].(x86asm.Reg)
	m, ok2 := inst.Args[1].(x86asm.Mem)
	if !ok || !ok2 || m.Base != r || m.Index != 0 || m.Disp != 0 || m.Segment != 0 || inst.AddrSize != mode {
		return false
	}
	_, w := x86Reg(r)
	return w == mode
}

// clobberMask is the set of registers of cc's clobber list (gpr's
// numbering); other registers are left out.
func clobberMask(cc convention) uint16 {
	var m uint16
	for _, n := range cc.clobber {
		if r, ok := x86GPR[n]; ok {
			m |= 1 << r
		}
	}
	return m
}

// transferRegister returns the register (gpr's numbering) of the call or
// jump through a register ("call rbx", "jmp rax": FF /2 or FF /4 with a
// register operand, after a REX or a segment prefix) that b starts with,
// if it is one.
func transferRegister(b []byte, mode int) (int, bool) {
	i, rex := 0, byte(0)
	for i < len(b) && i < 2 && (b[i] == 0x3e || b[i] == 0x2e || mode == 64 && b[i]&0xf0 == 0x40) {
		if b[i]&0xf0 == 0x40 {
			rex = b[i]
		}
		i++
	}
	if i+1 >= len(b) || b[i] != 0xff || b[i+1]&0xf8 != 0xd0 && b[i+1]&0xf8 != 0xe0 {
		return 0, false
	}
	return int(b[i+1]&7) | int(rex&1)<<3, true
}

// loadedRegister returns the register (gpr's numbering) a "mov reg,
// [mem]" that b starts with loads the whole of (8B /r, with REX.W on
// x86-64; A1, "mov eax, [moffs]", on 32-bit x86), if it is one: the
// loads of slots regCallSlots follows.
func loadedRegister(b []byte, mode int) (int, bool) {
	i, rex := 0, byte(0)
	for i < len(b) && i < 2 && (b[i] == 0x3e || b[i] == 0x2e || mode == 64 && b[i]&0xf0 == 0x40) {
		if b[i]&0xf0 == 0x40 {
			rex = b[i]
		}
		i++
	}
	switch {
	case i >= len(b) || mode == 64 && rex&8 == 0:
	case b[i] == 0x8b && i+1 < len(b) && b[i+1]>>6 != 3:
		return int(b[i+1]>>3&7) | int(rex&4)<<1, true
	case b[i] == 0xa1 && mode == 32:
		return 0, true
	}
	return 0, false
}

// regCalls is what the reference sweep needs to resolve calls through
// registers (xref.go): the program's calling convention, found on first
// use (only a function with such a call and a load of an import slot asks
// for it).
// regScratch holds a procedure's instructions while bodySlots looks at
// them; the reference sweep's workers reuse them (regScratchPool) rather
// than make two slices per procedure the pass runs over.
type regScratch struct {
	flows []flowInsn
	ops   []regOp
}

var regScratchPool = sync.Pool{New: func() any { return new(regScratch) }}

type regCalls struct {
	p       *program
	format  string
	clobber func() uint16
}

func newRegCalls(p *program, format string) *regCalls {
	rc := &regCalls{p: p, format: format}
	rc.clobber = sync.OnceValue(func() uint16 { return clobberMask(rc.convention()) })
	return rc
}

// convention is the calling convention the value flow gives the program
// (ValueFlow): Go's ABIs in a Go program, Microsoft x64 in a 64-bit PE,
// System V elsewhere and cdecl on 32-bit x86.
func (rc *regCalls) convention() convention {
	goProg, _ := goRuntime(rc.p)
	switch {
	case rc.p.arch == archX86 && goProg:
		return goABI0x86
	case rc.p.arch == archX86:
		return cdecl
	case goProg:
		return goAMD64
	case rc.format == "pe":
		return msX64
	}
	return sysvAMD64
}

// resolve gives the calls and jumps through registers of the range r
// (whose sweep made refs, sorted) the import slot regCallSlots finds for
// them, when it finds one: the reference becomes a call to the slot, as
// "call [S]"'s is, or a jump to it (a tail call), as "jmp [S]"'s is. The
// pass runs over the whole body of the procedure r belongs to, its parts
// included (parts.go): a part is entered by the parent's jumps, with the
// parent's registers. It sweeps again (codeFor gives a range's bytes from
// its start and where its sweep ends; code holds r's) only when r has such
// a call or jump and, unless it is a part, loads an import's slot into a
// register.
func (rc *regCalls) resolve(dec decoder, code []byte, r ports.FunctionRange, refs []xref, codeFor func(start, end uint64) ([]byte, uint64)) {
	x, ok := dec.(*x86Decoder)
	if !ok {
		return
	}
	// Cheap checks first, from the bytes: r calls or jumps through a
	// register, and loads an import's slot into one somewhere.
	//
	// The decoder resolves "mov reg, [S]; call reg" from the instruction
	// just before the call (loadedSlot), which is right only when nothing
	// jumps to the call: where a path that loads another slot, or none,
	// joins there, the pass decides (see joined).
	//
	// A program's own pointer (no import's slot) loaded just before the
	// call is not followed over paths (it may change between a load and
	// the call): where another path joins at the call, the call names no
	// slot rather than the one this path loaded.
	var called uint16
	joins := joined(refs, r)
	for i := range refs {
		if ref := &refs[i]; joins[ref.from] && ref.kind == kindCall && ref.flags == flagUnresolved && ref.to != 0 {
			if _, ok := transferRegister(code[ref.from-r.Start:], x.mode); ok {
				ref.to = 0
			}
		}
	}
	for _, ref := range refs {
		if (ref.kind == kindCall || ref.kind == kindJump) && (ref.flags == flagUnresolved && ref.to == 0 || joins[ref.from]) {
			if g, ok := transferRegister(code[ref.from-r.Start:], x.mode); ok {
				called |= 1 << g
			}
		}
	}
	if called == 0 {
		return
	}
	spans, entry := rc.p.body(r)
	if entry == r.Start && !slices.ContainsFunc(refs, func(ref xref) bool { // a part's loads are its parent's: no check
		if ref.kind != kindRead {
			return false
		}
		_, ok := loadedRegister(code[ref.from-r.Start:], x.mode)
		return ok && rc.p.labelAt(ref.to, "import") != ""
	}) {
		return
	}
	var open map[uint64]bool
	if len(joins) > 0 {
		open = map[uint64]bool{}
	}
	at := rc.bodySlots(x, spans, entry, codeFor, open)
	for i := range refs {
		ref := &refs[i]
		if ref.kind != kindCall && ref.kind != kindJump {
			continue
		}
		slot, ok := at[ref.from]
		switch {
		case ref.flags == flagUnresolved && ref.to == 0 && ok:
			ref.to, ref.flags = slot, flagImportSlot
		case !joins[ref.from]:
		case ok && slot != ref.to:
			ref.to, ref.flags = slot, flagImportSlot
		case open[ref.from] && ref.flags == flagImportSlot:
			// Another path joins with another slot, or none.
			ref.to, ref.flags = 0, flagUnresolved
		}
	}
}

// joined is the set of the indirect calls and jumps in refs (a range's
// references, from r) that have a slot and that a jump of the range
// targets: of those through a register (loadedSlot resolved them), the
// instruction before them may not speak for every path.
func joined(refs []xref, r ports.FunctionRange) map[uint64]bool {
	var adjacent map[uint64]bool
	for _, ref := range refs {
		if (ref.kind == kindCall || ref.kind == kindJump) && ref.flags&(flagUnresolved|flagImportSlot) != 0 && ref.to != 0 {
			if adjacent == nil {
				adjacent = map[uint64]bool{}
			}
			adjacent[ref.from] = false
		}
	}
	if adjacent == nil {
		return nil
	}
	var out map[uint64]bool
	for _, ref := range refs {
		if ref.kind != kindJump || !ref.resolved() || ref.to < r.Start || ref.to >= r.End {
			continue
		}
		if _, ok := adjacent[ref.to]; ok {
			if out == nil {
				out = map[uint64]bool{}
			}
			out[ref.to] = true
		}
	}
	return out
}

// bodySlots runs regCallSlots over the body of a procedure, spans (its
// ranges, sorted by start; codeFor gives each one's bytes and where its
// sweep ends) entered at entry, and returns the slot each call or jump
// through a register goes to, by the instruction's address. The blocks are
// the procedure's, as Function builds them (spanBlocks over flowOf).
//
// When open is not nil, it receives the addresses of the calls and jumps
// through a register the pass reaches with no one slot in the register.
func (rc *regCalls) bodySlots(x *x86Decoder, spans []ports.FunctionRange, entry uint64, codeFor func(start, end uint64) ([]byte, uint64), open map[uint64]bool) map[uint64]uint64 {
	isSlot := func(a uint64) bool { return rc.p.labelAt(a, "import") != "" }
	sc := regScratchPool.Get().(*regScratch)
	flows, ops := sc.flows[:0], sc.ops[:0]
	defer func() {
		sc.flows, sc.ops = flows[:0], ops[:0]
		regScratchPool.Put(sc)
	}()
	for _, r := range spans {
		code, stop := codeFor(r.Start, r.End)
		if code == nil || len(flows) >= maxFunctionInsns {
			continue
		}
		sweep(x, code, r.Start, stop, maxFunctionInsns-len(flows), func(in *insn) bool {
			flows = append(flows, rc.p.flowOf(in))
			ops = append(ops, x.regOp(code[in.addr-r.Start:], in, isSlot))
			return true
		})
	}
	if !slices.ContainsFunc(ops, func(op regOp) bool { return op.slot != 0 }) {
		return nil
	}
	blocks, _ := spanBlocks(flows, spans, nil)
	var openAt map[int]bool
	if open != nil {
		openAt = map[int]bool{}
	}
	found := regCallSlots(flows, blocks, slices.IndexFunc(blocks, func(b ports.BasicBlock) bool { return b.Start == entry }), ops, rc.clobber(), openAt)
	for k := range openAt {
		open[flows[k].addr] = true
	}
	if len(found) == 0 {
		return nil
	}
	at := make(map[uint64]uint64, len(found))
	for k, slot := range found {
		at[flows[k].addr] = slot
	}
	return at
}

// body returns the ranges of the body of the procedure that range r
// belongs to, sorted by start, and its entry: r alone for a procedure
// without parts; the parent's range and parts for a part or a parent.
func (p *program) body(r ports.FunctionRange) ([]ports.FunctionRange, uint64) {
	if len(p.parts) == 0 {
		return []ports.FunctionRange{r}, r.Start
	}
	entry := r.Start
	if k, ok := slices.BinarySearchFunc(p.parts, r.Start, func(pt procPart, t uint64) int { return cmp.Compare(pt.Start, t) }); ok {
		entry = p.parts[k].parent
	}
	i, ok := p.rangeIndex(entry)
	if !ok {
		return []ports.FunctionRange{r}, r.Start
	}
	return p.sortedSpans(p.ranges[i]), entry
}

// registerFlows gives the calls and jumps through registers of a
// procedure's body (spans, the procedure's range first; flows its sweep,
// in address order) the control flow that calls and jumps through the
// slot the reference sweep resolves them to (bodySlots) have (flowOf): a
// jump is a tail call to the slot, a call of an import that does not
// return ends its block, and one the pass reaches with no one slot does
// not, whatever the load right before it. Function's blocks are built
// after it; discovery's sweep runs the pass itself (walkRegCallEnds), and
// the reference sweep's own blocks do not take these in.
func (p *program) registerFlows(ctx context.Context, src source, format string, d decoder, spans []ports.FunctionRange, flows []flowInsn) error {
	x, ok := d.(*x86Decoder)
	if !ok || !slices.ContainsFunc(flows, func(f flowInsn) bool {
		return (f.flow == ports.FlowCall || f.flow == ports.FlowJump) && !f.hasTarget && len(f.table) == 0
	}) {
		return nil
	}
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b ports.FunctionRange) int { return cmp.Compare(a.Start, b.Start) })
	var err error
	open := map[uint64]bool{}
	at := newRegCalls(p, format).bodySlots(x, sorted, spans[0].Start, func(start, end uint64) ([]byte, uint64) {
		b, stop, e := p.partCode(ctx, src, ports.FunctionRange{Start: start, End: end})
		if e != nil {
			err = e
			return nil, 0
		}
		return b, stop
	}, open)
	if err != nil {
		return err
	}
	for k := range flows {
		f := &flows[k]
		slot, ok := at[f.addr]
		if open[f.addr] && f.flow == ports.FlowCall {
			// flowOf took the load right before the call (loadedSlot)
			// for every path; another joins with another slot, or none.
			f.noreturn = false
		}
		if !ok {
			continue
		}
		switch {
		case f.flow == ports.FlowJump:
			f.target, f.hasTarget = slot, true
		case isNoReturn(p.labelAt(slot, "import")):
			f.noreturn = true
		}
	}
	return nil
}
