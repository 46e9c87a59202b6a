package native

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/arch/arm64/arm64asm"
)

// AArch64 instruction semantics for the value flow. Args[0] is the
// destination except for stores (STR*, STUR*, STP, STLR*: every register
// before the memory operand is stored), compares and tests, branches and
// calls. W registers are their X register (a W write zeroes the upper half,
// so it is a full definition); B, H, S, D, Q and V registers are vN; the
// zero register is neither defined nor used. Pre- and post-indexed
// addressing also writes the base register. arm64asm keeps some operand
// fields unexported, so registers and offsets are read from the operands'
// text.

type arm64Sem struct{}

var (
	arm64RegToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:([WX])(\d+)|([BHSDQV])(\d+)|(WZR|XZR|WSP|SP))\b`)
	})
	arm64MemText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[([A-Z0-9]+)(?:,#(-?(?:0x)?[0-9a-fA-F]+))?\](!?)(?:,#(-?(?:0x)?[0-9a-fA-F]+))?$`)
	})
	arm64ImmText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^#((?:0x)?[0-9a-fA-F]+)(?:, LSL #([0-9]+))?$`)
	})
)

// arm64Regs lists the full registers named in an operand's text.
func arm64Regs(text string) []string {
	var out []string
	for _, m := range arm64RegToken().FindAllStringSubmatch(text, -1) {
		switch {
		case m[1] != "":
			out = append(out, "x"+m[2])
		case m[3] != "":
			out = append(out, "v"+m[4])
		case m[5] == "SP" || m[5] == "WSP":
			out = append(out, "sp")
		}
	}
	return out
}

// arm64MemOp is a memory operand as the value flow sees it.
type arm64MemOp struct {
	loc  string   // the location accessed
	regs []string // the registers that form its address
	// base and off: the location is base plus a constant (a frame slot
	// when base is sp or x29); base is "" for any other form.
	base string
	off  int64
	// writeback is the base register written back (pre- and post-index),
	// or "", and step what it adds; pre: the location is relative to the
	// updated base ("[sp,#-32]!").
	writeback string
	step      int64
	pre       bool
}

// arm64Mem reads a memory operand.
func arm64Mem(a arm64asm.Arg) arm64MemOp {
	text := a.String()
	regs := arm64Regs(text)
	if m, ok := a.(arm64asm.MemImmediate); ok {
		if p := arm64MemText().FindStringSubmatch(text); p != nil && len(regs) == 1 {
			op := arm64MemOp{regs: regs, base: regs[0]}
			if p[2] != "" && p[3] == "" { // [Rn,#imm] (an offset); [Rn,#imm]! addresses the updated base
				op.off, _ = strconv.ParseInt(p[2], 0, 64)
			}
			if m.Mode == arm64asm.AddrPreIndex || m.Mode == arm64asm.AddrPostIndex || p[3] == "!" || p[4] != "" {
				op.writeback = op.base
				switch {
				case p[3] == "!":
					op.step, _ = strconv.ParseInt(p[2], 0, 64)
					op.pre = true
				case p[4] != "":
					op.step, _ = strconv.ParseInt(p[4], 0, 64)
				}
			}
			op.loc = frameLoc(op.base, op.off)
			return op
		}
	}
	// Register offsets and anything else: the registers, untracked.
	return arm64MemOp{loc: "[" + strings.Join(regs, "+") + "]", regs: regs}
}

// pairLoc is the location of the second register of a pair access (ldp,
// stp and their kin) of size-byte registers, or "" when the operand is not
// a base plus a constant.
func (m arm64MemOp) pairLoc(size int64) string {
	if m.base == "" {
		return ""
	}
	return frameLoc(m.base, m.off+size)
}

// arm64Size is the size in bytes of the register an operand names (4 for
// ldpsw's words).
func arm64Size(a arm64asm.Arg, name string) int64 {
	text := a.String()
	switch {
	case name == "LDPSW" || strings.HasPrefix(text, "W") || strings.HasPrefix(text, "S"):
		return 4
	case strings.HasPrefix(text, "Q"):
		return 16
	}
	return 8
}

// arm64Imm reads an immediate operand ("#0x20", "#0x1, LSL #12").
func arm64Imm(a arm64asm.Arg) (int64, bool) {
	p := arm64ImmText().FindStringSubmatch(a.String())
	if p == nil {
		return 0, false
	}
	v, err := strconv.ParseInt(p[1], 0, 64)
	if err != nil {
		return 0, false
	}
	if p[2] != "" {
		shift, _ := strconv.Atoi(p[2])
		v <<= shift
	}
	return v, true
}

func frameLoc(base string, off int64) string {
	switch {
	case off < 0:
		return fmt.Sprintf("[%s-0x%x]", base, uint64(-off))
	case off > 0:
		return fmt.Sprintf("[%s+0x%x]", base, uint64(off))
	}
	return "[" + base + "]"
}

func isArm64Mem(a arm64asm.Arg) bool {
	switch a.(type) {
	case arm64asm.MemImmediate, arm64asm.MemExtend:
		return true
	}
	return false
}

func (arm64Sem) sem(b []byte, pc uint64, in *insn) vfSem {
	inst, err := arm64asm.Decode(b)
	if err != nil {
		return vfSem{opaque: true}
	}
	var out vfSem
	use := func(names ...string) { out.uses = append(out.uses, names...) }
	def := func(names ...string) { out.defs = append(out.defs, names...) }
	var args []arm64asm.Arg
	for _, a := range inst.Args {
		if a == nil {
			break
		}
		args = append(args, a)
	}
	regsOf := func(a arm64asm.Arg) []string {
		switch a.(type) {
		case arm64asm.PCRel, arm64asm.Imm, arm64asm.Imm64, arm64asm.ImmShift, arm64asm.Cond, arm64asm.Imm_fp:
			return nil
		}
		return arm64Regs(a.String())
	}
	mem := -1
	for k, a := range args {
		if isArm64Mem(a) {
			mem = k
			break
		}
	}
	name := inst.Op.String()
	switch {
	case name == "BL":
		out.call = true
	case name == "BLR" || strings.HasPrefix(name, "BLRA"):
		out.call = true
		if len(args) > 0 {
			r := regsOf(args[0])
			use(r...)
			if len(r) > 0 {
				out.indirect = r[0]
			}
		}
	case name == "RET" || strings.HasPrefix(name, "RETA"):
		out.ret = true
		use("x30")
	case name == "B" || name == "BR" || strings.HasPrefix(name, "BRA") || name == "CBZ" || name == "CBNZ" || name == "TBZ" || name == "TBNZ" ||
		name == "CMP" || name == "CMN" || name == "TST" || name == "CCMP" || name == "CCMN" || name == "FCMP" || name == "FCMPE" ||
		name == "FCCMP" || name == "FCCMPE":
		for _, a := range args {
			use(regsOf(a)...)
		}
	case name == "NOP" || name == "HINT" || name == "BTI" || strings.HasPrefix(name, "PACI") || strings.HasPrefix(name, "AUTI") ||
		name == "DMB" || name == "DSB" || name == "ISB" || name == "PRFM" || name == "PRFUM" || name == "YIELD":
		// no data flow the value flow tracks
	case name == "SVC":
		use("x8", "x0", "x1", "x2", "x3", "x4", "x5")
		def("x0")
		out.syscall = true
	case mem >= 0 && strings.HasPrefix(name, "ST") && !strings.HasPrefix(name, "STADD") && !strings.HasPrefix(name, "STSET") &&
		!strings.HasPrefix(name, "STCLR") && !strings.HasPrefix(name, "STEOR"):
		m := arm64Mem(args[mem])
		use(m.regs...)
		vals := args[:mem]
		if strings.HasPrefix(name, "STX") || strings.HasPrefix(name, "STLX") { // exclusive: Args[0] is the status
			def(regsOf(vals[0])...)
			vals = vals[1:]
		}
		var from []string
		for _, a := range vals {
			from = append(from, regsOf(a)...)
		}
		use(from...)
		if m.writeback != "" {
			def(m.writeback)
		}
		def(m.loc)
		size := int64(8)
		if len(vals) > 0 {
			size = arm64Size(vals[0], name)
		}
		if len(vals) == 2 {
			def(m.pairLoc(size))
		}
		if size > 8 && m.base != "" { // a q register's store writes two words
			for i := range int64(len(vals)) {
				def(frameLoc(m.base, m.off+i*size+8))
			}
		}
		out.stack, out.memAfter = arm64StackOp(m), m.pre
		if spillable(name, m, vals) {
			// str x1, [x29,#120]: a copy of the stack pointer spilled
			// (gcc's "mov x1, sp" before a VLA's allocation), when x1 holds one
			out.stack = stackOp{sp: spCopy, reg: m.loc, from: strings.ToLower(vals[0].String())}
		}
		w := &vfWrite{loc: m.loc, from: from}
		if len(vals) > 0 {
			w.value = strings.ToLower(vals[0].String())
			if len(from) == 0 {
				w.value = "xzr"
			}
		}
		out.write = w
	case mem >= 0 && (strings.HasPrefix(name, "LD") && !strings.HasPrefix(name, "LDADD") && !strings.HasPrefix(name, "LDSET") &&
		!strings.HasPrefix(name, "LDCLR") && !strings.HasPrefix(name, "LDEOR") && !strings.HasPrefix(name, "LDSM") && !strings.HasPrefix(name, "LDUM")):
		m := arm64Mem(args[mem])
		use(m.regs...)
		use(m.loc)
		size := arm64Size(args[0], name)
		if mem == 2 {
			use(m.pairLoc(size))
		}
		if size > 8 && m.base != "" { // a q register's load reads two words, as its store writes them
			for i := range int64(mem) {
				use(frameLoc(m.base, m.off+i*size+8))
			}
		}
		if m.writeback != "" {
			def(m.writeback)
		}
		for _, a := range args[:mem] {
			def(regsOf(a)...)
		}
		out.stack, out.memAfter = arm64StackOp(m), m.pre
		if spillable(name, m, args[:mem]) {
			// ldr x0, [x29,#120]: a spilled copy reloaded (then "mov sp, x0")
			out.stack = stackOp{sp: spCopy, reg: strings.ToLower(args[0].String()), from: m.loc}
		}
	case mem >= 0:
		// Atomics (ldadd, swp, cas, stadd, ...): every register is read,
		// registers before the memory operand written, memory read and written.
		m := arm64Mem(args[mem])
		loc := m.loc
		use(m.regs...)
		use(loc)
		var from []string
		for _, a := range args[:mem] {
			from = append(from, regsOf(a)...)
		}
		use(from...)
		if mem > 0 && !strings.HasPrefix(name, "ST") {
			def(regsOf(args[mem-1])...)
		}
		def(loc)
		out.write = &vfWrite{loc: loc, from: from}
	case len(args) == 0:
	default:
		// Args[0] is written; the rest are read. MOVK, BFI, BFM, BFXIL and
		// writes to one lane of a vector keep the other bits, so they read
		// Args[0] too.
		for _, a := range args[1:] {
			use(regsOf(a)...)
		}
		dst := regsOf(args[0])
		_, lane := args[0].(arm64asm.RegisterWithArrangementAndIndex)
		if name == "MOVK" || name == "BFI" || name == "BFM" || name == "BFXIL" || name == "INS" || lane {
			use(dst...)
		}
		def(dst...)
		if len(dst) == 1 && len(args) >= 2 && (name == "MOV" || name == "ADD" || name == "SUB") {
			arm64FrameArith(&out, name, dst[0], regsOf(args[1]), args[2:], strings.HasPrefix(args[0].String(), "X"))
			switch {
			case out.stack.sp == spAlloc:
				out.stack.n = int64(pc) // names the stack pointer it sets (valueflow_stack.go)
			case out.stack.sp == spAddReg && out.stack.n < 0:
				out.stack.at = int64(pc) // sub sp, sp, x2: the same when x2 is unknown
			}
			if v, ok := arm64Imm(args[1]); ok && name == "MOV" && strings.HasPrefix(dst[0], "x") {
				out.constReg, out.constVal = dst[0], v
			}
		}
	}
	return out
}

// spillable reports whether a load or store (name) moves one X register
// (regs) to or from a frame slot m without a write-back: "str x1,
// [x29,#120]", "ldr x0, [sp,#8]".
func spillable(name string, m arm64MemOp, regs []arm64asm.Arg) bool {
	if name != "STR" && name != "LDR" && name != "STUR" && name != "LDUR" || len(regs) != 1 || m.writeback != "" || m.base != "sp" && m.base != "x29" {
		return false
	}
	r, ok := regs[0].(arm64asm.Reg)
	return ok && r >= arm64asm.X0 && r <= arm64asm.X30
}

// arm64StackOp is what a memory access's write-back does to the stack
// pointer (valueflow_stack.go): "stp x29, x30, [sp,#-32]!" pushes 32
// bytes, "ldp x29, x30, [sp],#32" pops them.
func arm64StackOp(m arm64MemOp) stackOp {
	if m.writeback != "sp" {
		return stackOp{}
	}
	return stackOp{sp: spAdd, n: m.step}
}

// arm64FrameArith models mov, add and sub of a constant between the stack
// and frame pointers (the stack height, valueflow_stack.go), and a frame
// address taken into another register ("add x0, sp, #16": the address of
// a stack argument is a use of it, as lea's is on x86). A copy of the
// stack pointer into an X register ("mov x20, sp", and on from it: "mov
// x19, x0") is an spCopy, so that moving it back ("mov sp, x20", gcc's
// restore at a VLA's scope end) restores the height the copy was taken at.
func arm64FrameArith(out *vfSem, name, dst string, src []string, rest []arm64asm.Arg, wide bool) {
	if name == "MOV" && dst == "sp" && len(src) == 1 && src[0] != "sp" && src[0] != "x29" && len(rest) == 0 {
		out.stack = stackOp{sp: spAlloc, reg: src[0]} // mov sp, x8: clang's VLA or alloca; gcc's restore at a VLA's scope end
		return
	}
	if name == "MOV" && wide && len(src) == 1 && src[0] != "sp" && src[0] != "x29" && len(rest) == 0 && dst != "x29" {
		out.stack = stackOp{sp: spCopy, reg: dst, from: src[0]} // mov x19, x0: the copy moves on when x0 holds one
		return
	}
	if (name == "ADD" || name == "SUB") && wide && len(src) == 1 && src[0] != "sp" && src[0] != "x29" && dst != "sp" && dst != "x29" && len(rest) == 1 {
		if v, ok := arm64Imm(rest[0]); ok {
			if name == "SUB" {
				v = -v
			}
			// add x10, x10, #8: a register moved by a constant, which may
			// hold a frame slot's address (valueflow_stack.go's height.ptrs)
			out.stack = stackOp{sp: spCopy, reg: dst, from: src[0], n: v}
		}
		return
	}
	if len(src) != 1 || (src[0] != "sp" && src[0] != "x29") {
		return
	}
	sign := int64(1)
	if name == "SUB" {
		sign = -1
	}
	var n int64
	switch {
	case name == "MOV" && len(rest) == 0:
	case len(rest) != 1:
		return
	default:
		v, ok := arm64Imm(rest[0])
		if !ok {
			// sp plus or minus a register, whose constant the stack
			// height may know
			if r := arm64Regs(rest[0].String()); dst == "sp" && src[0] == "sp" && len(r) == 1 && !strings.Contains(rest[0].String(), ",") {
				out.stack = stackOp{sp: spAddReg, n: sign, reg: r[0]}
			}
			return
		}
		n = sign * v
	}
	switch {
	case dst == "sp" && src[0] == "sp":
		out.stack = stackOp{sp: spAdd, n: n}
	case dst == "sp":
		out.stack = stackOp{sp: spFromFP, n: n}
	case dst == "x29" && src[0] == "sp":
		out.stack, out.setsFrame = stackOp{fp: fpFromSP, n: n}, true
	case dst != "x29":
		out.addrOf = frameLoc(src[0], n)
		if src[0] == "sp" && wide {
			out.stack = stackOp{sp: spCopy, reg: dst, from: "sp", n: n}
		}
	}
}
