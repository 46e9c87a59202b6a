package native

import (
	"fmt"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// x86-64 instruction semantics for the value flow. The destination is
// Args[0] for most instructions; it is also read unless the instruction
// only moves into it (mov family, lea, set, pop, conversions, movhlps, the
// non-destructive VEX forms but fused multiply-adds) or zeroes it (xor r, r and its kin). Writes to
// 8- and 16-bit registers merge into the full register, so they read it too;
// 32-bit writes zero-extend and do not. Implicit operands are modelled for
// push, pop, call, ret, leave, the string instructions, mul and div,
// sign-extensions (cdq, cqo, cdqe), syscall, cpuid and rdtsc.

type x86Sem struct{ d *x86Decoder }

// x86Regs names the full register of a general-purpose register by number.
var x86Regs = [16]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

// x86Reg names the full register of r and its width in bits (0 when
// the register is not tracked: the instruction pointer, segments).
func x86Reg(r x86asm.Reg) (string, int) {
	switch {
	case r >= x86asm.AL && r <= x86asm.BL:
		return x86Regs[r-x86asm.AL], 8
	case r >= x86asm.AH && r <= x86asm.BH:
		return x86Regs[r-x86asm.AH], 8
	case r >= x86asm.SPB && r <= x86asm.DIB:
		return x86Regs[4+r-x86asm.SPB], 8
	case r >= x86asm.R8B && r <= x86asm.R15B:
		return x86Regs[8+r-x86asm.R8B], 8
	case r >= x86asm.AX && r <= x86asm.R15W:
		return x86Regs[r-x86asm.AX], 16
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return x86Regs[r-x86asm.EAX], 32
	case r >= x86asm.RAX && r <= x86asm.R15:
		return x86Regs[r-x86asm.RAX], 64
	case r >= x86asm.X0 && r <= x86asm.X31:
		return fmt.Sprintf("xmm%d", r-x86asm.X0), 128
	case r >= x86asm.Y0 && r <= x86asm.Y31:
		return fmt.Sprintf("xmm%d", r-x86asm.Y0), 256
	case r >= x86asm.Z0 && r <= x86asm.Z31:
		return fmt.Sprintf("xmm%d", r-x86asm.Z0), 512
	case r == x86asm.RIP || r == x86asm.EIP || r == x86asm.IP || r == 0:
		return "", 0
	case r >= x86asm.ES && r <= x86asm.GS:
		return "", 0
	}
	return strings.ToLower(r.String()), 64
}

// memLoc renders a memory operand as a location with full register names,
// and lists the registers that form its address. RIP-relative and absolute
// operands become "[0x...]" with their address.
func (s *x86Sem) memLoc(m x86asm.Mem, next uint64) (loc string, addrRegs []string, target uint64, has bool) {
	if a, ok := s.d.memAddr(m, next); ok {
		return fmt.Sprintf("[0x%x]", a), nil, a, true
	}
	var b strings.Builder
	if m.Segment == x86asm.FS || m.Segment == x86asm.GS {
		b.WriteString(strings.ToLower(m.Segment.String()) + ":")
	}
	b.WriteByte('[')
	sep := ""
	if r, _ := x86Reg(m.Base); r != "" {
		b.WriteString(r)
		addrRegs = append(addrRegs, r)
		sep = "+"
	}
	if r, _ := x86Reg(m.Index); r != "" {
		fmt.Fprintf(&b, "%s%s*%d", sep, r, max(m.Scale, 1))
		addrRegs = append(addrRegs, r)
		sep = "+"
	}
	switch {
	case m.Disp < 0:
		fmt.Fprintf(&b, "-0x%x", uint64(-m.Disp))
	case m.Disp > 0 || sep == "":
		fmt.Fprintf(&b, "%s0x%x", sep, uint64(m.Disp))
	}
	b.WriteByte(']')
	return b.String(), addrRegs, 0, false
}

// x86 instruction classes by what they do to Args[0].
var (
	// x86NoDef: every operand is read, nothing written (flags aside).
	x86NoDef = map[x86asm.Op]bool{x86asm.CMP: true, x86asm.TEST: true, x86asm.BT: true, x86asm.UCOMISS: true,
		x86asm.UCOMISD: true, x86asm.COMISS: true, x86asm.COMISD: true, x86asm.PTEST: true, x86asm.NOP: true,
		x86asm.PREFETCHT0: true, x86asm.PREFETCHT1: true, x86asm.PREFETCHT2: true, x86asm.PREFETCHNTA: true,
		x86asm.PREFETCHW: true, x86asm.CLFLUSH: true, x86asm.JMP: true, x86asm.LJMP: true}
	// x86Move: Args[0] is written, not read.
	x86Move = map[x86asm.Op]bool{x86asm.MOV: true, x86asm.MOVZX: true, x86asm.MOVSX: true, x86asm.MOVSXD: true,
		x86asm.LEA: true, x86asm.MOVD: true, x86asm.MOVQ: true, x86asm.MOVAPS: true, x86asm.MOVAPD: true,
		x86asm.MOVUPS: true, x86asm.MOVUPD: true, x86asm.MOVDQA: true, x86asm.MOVDQU: true, x86asm.MOVSS: true,
		x86asm.MOVSD_XMM: true, x86asm.MOVNTI: true, x86asm.MOVNTDQ: true, x86asm.MOVNTPS: true,
		x86asm.CVTSI2SD: true, x86asm.CVTSI2SS: true, x86asm.CVTTSD2SI: true, x86asm.CVTTSS2SI: true,
		x86asm.CVTSD2SI: true, x86asm.CVTSS2SI: true, x86asm.CVTSS2SD: true, x86asm.CVTSD2SS: true,
		x86asm.POPCNT: true, x86asm.LZCNT: true, x86asm.TZCNT: true, x86asm.PMOVMSKB: true,
		x86asm.MOVMSKPS: true, x86asm.MOVMSKPD: true, x86asm.PSHUFD: true, x86asm.MOVBE: true,
		// movhlps keeps its destination's upper half, which compilers
		// leave unused: they move a high half down to read it ("movhlps
		// xmm4, xmm2; movq r13, xmm4"), as movsd moves a low one.
		x86asm.MOVHLPS: true}
	// x87Load: with one operand (a memory one; fadd st0, st1 has two), an
	// x87 instruction that reads it: fld qword [esp+0x4] reads a double,
	// it does not write it.
	x87Load = map[x86asm.Op]bool{x86asm.FLD: true, x86asm.FILD: true, x86asm.FBLD: true, x86asm.FADD: true,
		x86asm.FSUB: true, x86asm.FSUBR: true, x86asm.FMUL: true, x86asm.FDIV: true, x86asm.FDIVR: true,
		x86asm.FCOM: true, x86asm.FCOMP: true, x86asm.FIADD: true, x86asm.FISUB: true, x86asm.FISUBR: true,
		x86asm.FIMUL: true, x86asm.FIDIV: true, x86asm.FIDIVR: true, x86asm.FICOM: true, x86asm.FICOMP: true,
		x86asm.FLDCW: true}
	// x87Store: with one operand, an x87 instruction that writes it and
	// does not read it (fstp qword [esp+0x4]).
	x87Store = map[x86asm.Op]bool{x86asm.FST: true, x86asm.FSTP: true, x86asm.FIST: true, x86asm.FISTP: true,
		x86asm.FISTTP: true, x86asm.FBSTP: true, x86asm.FNSTCW: true, x86asm.FNSTSW: true}
	// x86Zeroing: op r, r sets r to a constant.
	x86Zeroing = map[x86asm.Op]bool{x86asm.XOR: true, x86asm.SUB: true, x86asm.PXOR: true, x86asm.XORPS: true,
		x86asm.XORPD: true}
)

func (s *x86Sem) sem(b []byte, pc uint64, in *insn) vfSem {
	inst, special, err := s.d.decode(b)
	if special != "" {
		return vfSem{} // endbr64, endbr32, vzeroupper: nothing the value flow tracks
	}
	if err != nil || inst.Len != in.size || inst.Op == 0 {
		return vfSem{opaque: true}
	}
	next := pc + uint64(inst.Len)
	var out vfSem
	use := func(names ...string) { out.uses = append(out.uses, names...) }
	def := func(names ...string) { out.defs = append(out.defs, names...) }
	// read adds what reading arg uses; it returns the location read.
	read := func(arg x86asm.Arg) string {
		switch a := arg.(type) {
		case x86asm.Reg:
			r, _ := x86Reg(a)
			use(r)
			return r
		case x86asm.Mem:
			loc, regs, _, _ := s.memLoc(a, next)
			use(regs...)
			use(loc)
			out.readBytes = inst.MemBytes
			return loc
		case x86asm.Imm:
			return fmt.Sprintf("0x%x", uint64(a))
		}
		return ""
	}
	// write adds what writing arg defines (and, for a partial register
	// write or a read-modify-write, uses).
	write := func(arg x86asm.Arg, alsoRead bool, value x86asm.Arg) {
		switch a := arg.(type) {
		case x86asm.Reg:
			r, bits := x86Reg(a)
			if alsoRead || bits == 8 || bits == 16 {
				use(r)
			}
			def(r)
		case x86asm.Mem:
			loc, regs, t, has := s.memLoc(a, next)
			use(regs...)
			if alsoRead {
				use(loc)
				out.readBytes = inst.MemBytes
			}
			def(loc)
			out.memBytes = inst.MemBytes
			w := &vfWrite{loc: loc, target: t, has: has}
			if value != nil {
				switch v := value.(type) {
				case x86asm.Reg:
					w.value, _ = x86Reg(v)
					w.from = []string{w.value}
				case x86asm.Imm:
					w.value = fmt.Sprintf("0x%x", uint64(v))
				}
			} else if alsoRead {
				w.from = []string{loc}
			}
			out.write = w
		}
	}
	args := inst.Args[:]
	for k, a := range args {
		if a == nil {
			args = args[:k]
			break
		}
	}
	op := inst.Op
	rep := false
	for _, p := range inst.Prefix {
		if p&0xff == x86asm.PrefixREP || p&0xff == x86asm.PrefixREPN {
			rep = true
		}
	}
	name := op.String()
	switch {
	case op == x86asm.CALL && len(args) == 1 && args[0] == x86asm.Rel(0) && s.d.mode == 32:
		// "call next; pop ebx": 32-bit position-independent code reads
		// its own address; the call only pushes it.
		use("rsp")
		def("rsp", "[rsp]")
	case op == x86asm.CALL || op == x86asm.LCALL:
		out.call = true
		if len(args) > 0 {
			if _, rel := args[0].(x86asm.Rel); !rel {
				out.indirect = read(args[0])
			}
		}
	case op == x86asm.NOP:
		// multi-byte nops name memory they never touch
	case op == x86asm.RET || op == x86asm.LRET:
		out.ret = true
		use("rsp")
		def("rsp")
	case op == x86asm.PUSH:
		v := args[0]
		if r, ok := v.(x86asm.Reg); ok && inst.DataSize != 16 {
			out.pushed, _ = x86Reg(r)
		}
		read(v)
		use("rsp")
		def("rsp", "[rsp]")
	case op == x86asm.POP:
		use("rsp", "[rsp]")
		def("rsp")
		n := len(out.defs)
		write(args[0], false, nil)
		out.write = nil
		if inst.DataSize != 16 && len(out.defs) > n {
			out.popped = out.defs[len(out.defs)-1]
		}
	case op == x86asm.LEAVE:
		use("rbp")
		def("rsp", "rbp")
	case op == x86asm.CDQ || op == x86asm.CQO || op == x86asm.CWD:
		use("rax")
		def("rdx")
	case op == x86asm.CDQE || op == x86asm.CWDE || op == x86asm.CBW:
		use("rax")
		def("rax")
	case (op == x86asm.MUL || op == x86asm.DIV || op == x86asm.IDIV || op == x86asm.IMUL) && len(args) == 1:
		read(args[0])
		use("rax")
		if op != x86asm.MUL && op != x86asm.IMUL {
			use("rdx")
		}
		def("rax", "rdx")
	case op == x86asm.IMUL && len(args) == 3:
		read(args[1])
		write(args[0], false, nil)
	case strings.HasPrefix(name, "MOVS") && op != x86asm.MOVSX && op != x86asm.MOVSXD && op != x86asm.MOVSS && op != x86asm.MOVSD_XMM,
		strings.HasPrefix(name, "STOS"), strings.HasPrefix(name, "LODS"), strings.HasPrefix(name, "SCAS"), strings.HasPrefix(name, "CMPS") && op != x86asm.CMPSD_XMM:
		out = x86String(name, rep)
	case op == x86asm.SYSCALL:
		use("rax", "rdi", "rsi", "rdx", "r10", "r8", "r9")
		def("rax", "rcx", "r11")
		out.syscall = true
	case op == x86asm.INT && s.d.mode == 32 && len(args) == 1 && args[0] == x86asm.Imm(0x80):
		// Linux's i386 system call: the number in eax, arguments in ebx,
		// ecx, edx, esi, edi and ebp, the result in eax.
		use("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp")
		def("rax")
	case op == x86asm.CPUID:
		use("rax", "rcx")
		def("rax", "rbx", "rcx", "rdx")
	case op == x86asm.RDTSC:
		def("rax", "rdx")
	case op == x86asm.XCHG || op == x86asm.XADD:
		for _, a := range args {
			read(a)
			write(a, false, nil)
		}
		out.write = nil
		r0, ok0 := wholeGPR(args[0], s.d.mode)
		r1, ok1 := wholeGPR(args[1], s.d.mode)
		if op == x86asm.XCHG && ok0 && ok1 && r0 != r1 {
			out.swapOf = uint8(r1) + 1
		}
	case op == x86asm.CMPXCHG:
		use("rax")
		read(args[1])
		write(args[0], true, args[1])
		def("rax")
	case x86NoDef[op] || x86Branches[op] || name == "VPTEST" || name == "VTESTPS" || name == "VTESTPD" ||
		name == "VUCOMISS" || name == "VUCOMISD" || name == "VCOMISS" || name == "VCOMISD":
		for _, a := range args {
			if _, rel := a.(x86asm.Rel); !rel {
				read(a)
			}
		}
	case len(args) == 0:
		// hlt, ud2, int3, cld, pause, mfence, ...: no register operands
	case len(args) >= 2 && x86Zeroing[op] && sameArg(args[0], args[1]):
		write(args[0], false, nil)
	case op == x86asm.LEA:
		if m, ok := args[1].(x86asm.Mem); ok {
			loc, regs, _, has := s.memLoc(m, next)
			use(regs...)
			if !has {
				out.addrOf = loc
			}
		}
		write(args[0], false, nil)
		if _, src, ok := leaCopy(&inst, s.d.mode); ok {
			out.copyOf = uint8(src) + 1 // lea rax, [rbx]: a move
		}
	case x86Move[op] || strings.HasPrefix(name, "SET") ||
		(strings.HasPrefix(name, "V") && !isFMA(name) && name != "VERR" && name != "VERW" && len(args) >= 2):
		for _, a := range args[1:] {
			read(a)
		}
		var value x86asm.Arg
		if len(args) == 2 {
			value = args[1]
		}
		write(args[0], false, value)
		if r, ok := args[0].(x86asm.Reg); ok && op == x86asm.MOV && len(args) == 2 {
			if m, ok := args[1].(x86asm.Mem); ok {
				if _, bits := x86Reg(r); bits == int(s.d.mode) {
					if a, ok := s.d.memAddr(m, next); ok {
						out.loads = a
					}
				}
			}
		}
		if r, ok := args[0].(x86asm.Reg); ok && op == x86asm.MOV && len(args) == 2 {
			if r1, ok := args[1].(x86asm.Reg); ok && r >= x86asm.RAX && r <= x86asm.R15 && r1 >= x86asm.RAX && r1 <= x86asm.R15 {
				out.copyOf = uint8(r1-x86asm.RAX) + 1
			} else if ok && s.d.mode == 32 && r >= x86asm.EAX && r <= x86asm.EDI && r1 >= x86asm.EAX && r1 <= x86asm.EDI {
				out.copyOf = uint8(r1-x86asm.EAX) + 1
			}
		}
		if r, ok := args[0].(x86asm.Reg); ok && (op == x86asm.MOV || op == x86asm.MOVZX || op == x86asm.MOVSX || op == x86asm.MOVSXD) {
			if r1, ok := args[1].(x86asm.Reg); ok && (r == x86asm.RBP && r1 == x86asm.RSP || r == x86asm.EBP && r1 == x86asm.ESP) {
				out.setsFrame = true
			}
		}
	case strings.HasPrefix(name, "CMOV"):
		for _, a := range args[1:] {
			read(a)
		}
		write(args[0], true, nil)
	case len(args) == 1 && isX86Mem(args[0]) && x87Load[op]:
		read(args[0]) // the register stack is not tracked
	case len(args) == 1 && isX86Mem(args[0]) && x87Store[op]:
		write(args[0], false, nil)
	default:
		// Read-modify-write of Args[0], the rest read: add, sub, and, or,
		// shifts, inc, dec, neg, not, two-operand imul, SSE arithmetic.
		for _, a := range args[1:] {
			read(a)
		}
		var value x86asm.Arg
		if len(args) == 2 {
			value = args[1]
		}
		write(args[0], true, value)
		if out.write != nil && value != nil {
			out.write.from = append(out.write.from, out.write.loc)
		}
	}
	out.stack = x86StackOp(inst, args, s.d.mode)
	if out.stack.sp == spAlloc {
		out.stack.n = int64(pc) // names the stack pointer it sets (valueflow_stack.go)
	}
	if op == x86asm.CALL && !out.call {
		out.stack = stackOp{sp: spAdd, n: -int64(s.d.mode / 8)}
	}
	out.setsAL, out.alVal = x86SetsAL(inst, args)
	if s.d.mode == 32 {
		rename32(&out)
	}
	return out
}

func isX86Mem(a x86asm.Arg) bool {
	_, ok := a.(x86asm.Mem)
	return ok
}

// x86Names32 renames the full registers the semantics name into 32-bit
// x86's: its registers are eax to edi (r8 to r15 do not exist there).
var x86Names32 = strings.NewReplacer("rax", "eax", "rcx", "ecx", "rdx", "edx", "rbx", "ebx",
	"rsp", "esp", "rbp", "ebp", "rsi", "esi", "rdi", "edi")

func rename32(s *vfSem) {
	for _, l := range []*[]string{&s.defs, &s.uses} {
		for k, n := range *l {
			(*l)[k] = x86Names32.Replace(n)
		}
	}
	s.indirect = x86Names32.Replace(s.indirect)
	s.addrOf = x86Names32.Replace(s.addrOf)
	s.pushed, s.popped = x86Names32.Replace(s.pushed), x86Names32.Replace(s.popped)
	if w := s.write; w != nil {
		w.loc, w.value = x86Names32.Replace(w.loc), x86Names32.Replace(w.value)
		for k, n := range w.from {
			w.from[k] = x86Names32.Replace(n)
		}
	}
}

// x86StackOp is what an instruction does to the stack and frame pointers
// by a known amount (valueflow_stack.go); other writes to them are found
// from its definitions.
func x86StackOp(inst x86asm.Inst, args []x86asm.Arg, mode int) stackOp {
	word := int64(mode / 8)
	isSP := func(a x86asm.Arg) bool { return a == x86asm.ESP || a == x86asm.RSP }
	isFP := func(a x86asm.Arg) bool { return a == x86asm.EBP || a == x86asm.RBP }
	imm := func(a x86asm.Arg) (int64, bool) {
		v, ok := a.(x86asm.Imm)
		return int64(v), ok
	}
	switch op := inst.Op; {
	case (op == x86asm.PUSH || op == x86asm.PUSHF || op == x86asm.PUSHFD || op == x86asm.PUSHFQ) && !(len(args) == 1 && isSP(args[0])):
		n := word
		if inst.DataSize == 16 {
			n = 2
		}
		return stackOp{sp: spAdd, n: -n}
	case op == x86asm.POP && len(args) == 1 && !isSP(args[0]), op == x86asm.POPF || op == x86asm.POPFD || op == x86asm.POPFQ:
		n := word
		if inst.DataSize == 16 {
			n = 2
		}
		return stackOp{sp: spAdd, n: n}
	case op == x86asm.PUSHAD:
		return stackOp{sp: spAdd, n: -32}
	case op == x86asm.POPAD:
		return stackOp{sp: spAdd, n: 32} // ebp is restored too: a definition
	case (op == x86asm.ADD || op == x86asm.SUB) && len(args) == 2 && isSP(args[0]):
		if v, ok := imm(args[1]); ok {
			if op == x86asm.SUB {
				v = -v
			}
			return stackOp{sp: spAdd, n: v}
		}
		if r, ok := args[1].(x86asm.Reg); ok && op == x86asm.SUB && !isSP(r) {
			return stackOp{sp: spAlloc, reg: strings.ToLower(r.String())} // sub esp, eax: a VLA or alloca
		}
	case op == x86asm.AND && len(args) == 2 && isSP(args[0]):
		if v, ok := imm(args[1]); ok && v < 0 && -v&(-v-1) == 0 {
			return stackOp{sp: spAlign, n: v} // and esp, -16
		}
	case op == x86asm.LEAVE:
		return stackOp{sp: spFromFP, n: word} // mov esp, ebp; pop ebp (a definition of ebp)
	case op == x86asm.MOV && len(args) == 2 && isSP(args[0]) && isFP(args[1]):
		return stackOp{sp: spFromFP}
	case op == x86asm.MOV && len(args) == 2 && isFP(args[0]) && isSP(args[1]):
		return stackOp{fp: fpFromSP}
	case op == x86asm.MOV && len(args) == 2 && isSP(args[0]):
		if r, ok := args[1].(x86asm.Reg); ok && !isSP(r) {
			return stackOp{sp: spAlloc, reg: strings.ToLower(r.String())} // mov rsp, r11: clang's VLA or alloca; gcc's restore at a VLA's scope end
		}
		if slot := x86FrameSlot(args[1], mode); slot != "" {
			return stackOp{sp: spAlloc, reg: slot} // mov rsp, [rbp-0x48]: gcc -Os's restore from a spill
		}
	case op == x86asm.MOV && len(args) == 2 && isWordReg(args[1], mode) && !isFP(args[1]) && x86FrameSlot(args[0], mode) != "":
		// mov [rbp-0x48], rsp: a copy of the stack pointer spilled (gcc
		// -Os's before a VLA's allocation), or of a register holding one
		return stackOp{sp: spCopy, reg: x86FrameSlot(args[0], mode), from: strings.ToLower(args[1].String())}
	case op == x86asm.MOV && len(args) == 2 && isWordReg(args[0], mode) && !isSP(args[0]) && !isFP(args[0]) && x86FrameSlot(args[1], mode) != "":
		// mov rbx, [rbp-0x48]: a spilled copy reloaded
		return stackOp{sp: spCopy, reg: strings.ToLower(args[0].String()), from: x86FrameSlot(args[1], mode)}
	case op == x86asm.MOV && len(args) == 2 && isWordReg(args[0], mode) && isWordReg(args[1], mode) && !isSP(args[0]) && !isFP(args[0]) && !isFP(args[1]):
		// mov rbx, rsp: a copy of the stack pointer (gcc's before a VLA's
		// allocation, moved back at its scope's end); mov r12, rbx: the
		// copy moves on when rbx holds one (valueflow_stack.go).
		return stackOp{sp: spCopy, reg: strings.ToLower(args[0].String()), from: strings.ToLower(args[1].String())}
	case (op == x86asm.ADD || op == x86asm.SUB) && len(args) == 2 && isWordReg(args[0], mode) && !isFP(args[0]):
		// add rax, 8: a register moved by a constant, which may hold a
		// frame slot's address (valueflow_stack.go's height.ptrs)
		if v, ok := imm(args[1]); ok {
			if op == x86asm.SUB {
				v = -v
			}
			r := strings.ToLower(args[0].String())
			return stackOp{sp: spCopy, reg: r, from: r, n: v}
		}
	case op == x86asm.LEA && len(args) == 2:
		m, ok := args[1].(x86asm.Mem)
		if !ok || m.Index != 0 || m.Segment != 0 {
			break
		}
		switch {
		case isSP(args[0]) && isSP(m.Base):
			return stackOp{sp: spAdd, n: m.Disp}
		case isSP(args[0]) && isFP(m.Base):
			return stackOp{sp: spFromFP, n: m.Disp}
		case isFP(args[0]) && isSP(m.Base):
			return stackOp{fp: fpFromSP, n: m.Disp}
		case isWordReg(args[0], mode) && !isSP(args[0]) && !isFP(args[0]) && isWordReg(m.Base, mode) && !isSP(m.Base) && !isFP(m.Base):
			// lea rdx, [rax+8]: a register moved by a constant, as add's
			return stackOp{sp: spCopy, reg: strings.ToLower(args[0].String()), from: strings.ToLower(m.Base.String()), n: m.Disp}
		}
	}
	return stackOp{}
}

// x86FrameSlot names a memory operand that is the stack or frame pointer
// plus a constant ("[rbp-0x48]", as the value flow names it), "" for any
// other.
func x86FrameSlot(a x86asm.Arg, mode int) string {
	m, ok := a.(x86asm.Mem)
	if !ok || m.Index != 0 || m.Segment != 0 {
		return ""
	}
	if mode == 32 && (m.Base == x86asm.ESP || m.Base == x86asm.EBP) || mode == 64 && (m.Base == x86asm.RSP || m.Base == x86asm.RBP) {
		return frameLoc(strings.ToLower(m.Base.String()), m.Disp)
	}
	return ""
}

// isWordReg reports whether a is a general register of the mode's full
// width (rax to r15, or eax to edi in 32-bit code).
func isWordReg(a x86asm.Arg, mode int) bool {
	r, ok := a.(x86asm.Reg)
	if mode == 32 {
		return ok && r >= x86asm.EAX && r <= x86asm.EDI
	}
	return ok && r >= x86asm.RAX && r <= x86asm.R15
}

// isFMA reports whether a VEX operation is a fused multiply-add, whose
// destination is also an input (the accumulator).
func isFMA(name string) bool {
	return strings.HasPrefix(name, "VFMADD") || strings.HasPrefix(name, "VFMSUB") || strings.HasPrefix(name, "VFNMADD") ||
		strings.HasPrefix(name, "VFNMSUB")
}

// x86String models the string instructions: rdi (and rsi) are read and
// advanced, rcx counts a repetition, rax is stored, loaded or compared.
func x86String(name string, rep bool) vfSem {
	var s vfSem
	s.uses = []string{"rdi"}
	s.defs = []string{"rdi"}
	switch {
	case strings.HasPrefix(name, "MOVS"):
		s.uses, s.defs = []string{"rsi", "rdi", "[rsi]"}, []string{"rsi", "rdi", "[rdi]"}
		s.write = &vfWrite{loc: "[rdi]", value: "[rsi]", from: []string{"[rsi]"}}
	case strings.HasPrefix(name, "STOS"):
		s.uses = append(s.uses, "rax")
		s.defs = append(s.defs, "[rdi]")
		s.write = &vfWrite{loc: "[rdi]", value: "rax", from: []string{"rax"}}
	case strings.HasPrefix(name, "LODS"):
		s.uses, s.defs = []string{"rsi", "[rsi]"}, []string{"rsi", "rax"}
	case strings.HasPrefix(name, "SCAS"):
		s.uses = append(s.uses, "rax", "[rdi]")
	case strings.HasPrefix(name, "CMPS"):
		s.uses, s.defs = []string{"rsi", "rdi", "[rsi]", "[rdi]"}, []string{"rsi", "rdi"}
	}
	if rep {
		s.uses = append(s.uses, "rcx")
		s.defs = append(s.defs, "rcx")
	}
	return s
}

// sameArg reports whether two operands are the same register at the same
// width (xor eax, eax).
func sameArg(a, b x86asm.Arg) bool {
	ra, ok1 := a.(x86asm.Reg)
	rb, ok2 := b.(x86asm.Reg)
	return ok1 && ok2 && ra == rb
}

// x86SetsAL reports whether an instruction sets al to a constant, and the
// constant: a mov of an immediate into al, eax or rax (the whole
// immediate: mov eax, 0x8001 is no count of vector registers), or the
// zeroing of one of them.
func x86SetsAL(inst x86asm.Inst, args []x86asm.Arg) (bool, uint8) {
	if len(args) != 2 {
		return false, 0
	}
	switch args[0] {
	case x86asm.AL, x86asm.EAX, x86asm.RAX:
	default:
		return false, 0
	}
	switch {
	case inst.Op == x86asm.MOV:
		if v, ok := args[1].(x86asm.Imm); ok {
			if args[0] == x86asm.AL {
				return true, uint8(v)
			}
			return true, uint8(min(uint64(v), 255))
		}
	case x86Zeroing[inst.Op] && sameArg(args[0], args[1]):
		return true, 0
	}
	return false, 0
}
