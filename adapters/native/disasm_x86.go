package native

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"

	"golang.org/x/arch/x86/x86asm"

	"rea/ports"
)

// Jump-table recovery bounds.
const (
	maxJumpTable = 4096 // cases of one jump table
	recentInsns  = 24   // instructions looked back at for a table's bound and base
)

// recent is the summary of one earlier instruction that jump-table
// recovery looks back at.
type recent struct {
	pc   uint64
	size int
	op   x86asm.Op
	a0   x86asm.Arg
	a1   x86asm.Arg
}

type x86Decoder struct {
	mode int
	mm   *memMap
	src  source
	fast bool // use the fast path for common encodings (fastX86)

	code  []byte // the bytes being swept, from base
	base  uint64
	pcs   [recentInsns]uint64 // addresses of the latest instructions, a ring
	n     int                 // instructions in the ring (saturating at recentInsns)
	head  int                 // next write position
	back  []recent            // the ring decoded in full, newest first, while recovering a table (see rec)
	backN int                 // instructions of the ring rec may decode

	refs [6]xref
	tab  []uint64

	pic pic32 // 32-bit registers holding known addresses (pic32.go)

	// The last full decode step made, which appendText reuses for the
	// same address rather than decoding again.
	last struct {
		ok      bool
		pc      uint64
		inst    x86asm.Inst
		special string
		err     error
	}
}

// x86FullOnly makes new x86 decoders use x86asm alone (for tests that
// compare the fast path with it).
var x86FullOnly atomic.Bool

func newX86(mode int, mm *memMap, src source) *x86Decoder {
	return &x86Decoder{mode: mode, mm: mm, src: src, fast: !x86FullOnly.Load(), back: make([]recent, 0, recentInsns)}
}

func (d *x86Decoder) reset(code []byte, base uint64) {
	d.code, d.base, d.n, d.head = code, base, 0, 0
	d.resetPIC()
}

func (d *x86Decoder) push(pc uint64) {
	d.pcs[d.head] = pc
	d.head = (d.head + 1) % recentInsns
	d.n = min(d.n+1, recentInsns)
}

// lookBack starts a look at the ring, newest first: it counts the
// instructions that are in the code being swept (backN) and decodes none;
// rec decodes them in full as they are asked for.
func (d *x86Decoder) lookBack() {
	d.back = d.back[:0]
	d.backN = 0
	for k := 1; k <= d.n; k++ {
		pc := d.pcs[(d.head-k+recentInsns*2)%recentInsns]
		if pc < d.base || pc-d.base >= uint64(len(d.code)) {
			break
		}
		d.backN++
	}
}

// rec returns the k-th previous instruction of the ring (1 the newest, at
// most backN), decoding the ring up to it.
func (d *x86Decoder) rec(k int) *recent {
	for len(d.back) < k {
		pc := d.pcs[(d.head-len(d.back)-1+recentInsns*2)%recentInsns]
		inst, _, err := d.decode(d.code[pc-d.base:])
		if err != nil {
			d.back = append(d.back, recent{pc: pc, size: 1})
			continue
		}
		d.back = append(d.back, recent{pc: pc, size: inst.Len, op: inst.Op, a0: inst.Args[0], a1: inst.Args[1]})
	}
	return &d.back[k-1]
}

// decode decodes one instruction, special-casing what x86asm does not know.
// It returns the name of a special case ("endbr64") or "".
func (d *x86Decoder) decode(b []byte) (x86asm.Inst, string, error) {
	if len(b) >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e {
		switch b[3] {
		case 0xfa:
			return x86asm.Inst{Op: x86asm.NOP, Len: 4, Mode: d.mode}, "endbr64", nil
		case 0xfb:
			return x86asm.Inst{Op: x86asm.NOP, Len: 4, Mode: d.mode}, "endbr32", nil
		}
	}
	// x86asm reads a ModRM byte after vzeroupper and vzeroall, which have
	// none.
	if d.mode == 64 && len(b) >= 3 && b[0] == 0xc5 && b[2] == 0x77 {
		return vzero(b[1], 3, d.mode)
	}
	if d.mode == 64 && len(b) >= 4 && b[0] == 0xc4 && b[1]&0x1f == 1 && b[3] == 0x77 {
		return vzero(b[2], 4, d.mode)
	}
	inst, err := x86asm.Decode(b, d.mode)
	if err == nil && inst.Op == 0 && inst.Len >= 1 && inst.Len < len(b) {
		// A prefix x86asm could not attach (rdssp, incssp and other
		// F3 0F 1E forms): decode what follows and keep the prefix, so the
		// sweep stays in step with the instruction stream.
		rest, err2 := x86asm.Decode(b[inst.Len:], d.mode)
		if err2 == nil && rest.Op != 0 && inst.Len+rest.Len <= 15 {
			rest.Len += inst.Len
			return rest, "", nil
		}
		return inst, "", fmt.Errorf("x86: lone prefix")
	}
	return inst, "", err
}

func vzero(lpp byte, n, mode int) (x86asm.Inst, string, error) {
	if lpp&4 != 0 {
		return x86asm.Inst{Op: x86asm.VZEROALL, Len: n, Mode: mode}, "vzeroall", nil
	}
	return x86asm.Inst{Op: x86asm.VZEROUPPER, Len: n, Mode: mode}, "vzeroupper", nil
}

var x86Branches = map[x86asm.Op]bool{
	x86asm.JA: true, x86asm.JAE: true, x86asm.JB: true, x86asm.JBE: true, x86asm.JCXZ: true,
	x86asm.JE: true, x86asm.JECXZ: true, x86asm.JG: true, x86asm.JGE: true, x86asm.JL: true,
	x86asm.JLE: true, x86asm.JNE: true, x86asm.JNO: true, x86asm.JNP: true, x86asm.JNS: true,
	x86asm.JO: true, x86asm.JP: true, x86asm.JRCXZ: true, x86asm.JS: true,
	x86asm.LOOP: true, x86asm.LOOPE: true, x86asm.LOOPNE: true, x86asm.XBEGIN: true,
}

// x86NoWrite are operations whose first operand is read, not written.
var x86NoWrite = map[x86asm.Op]bool{
	x86asm.CMP: true, x86asm.TEST: true, x86asm.PUSH: true, x86asm.BT: true, x86asm.CALL: true,
	x86asm.JMP: true, x86asm.UCOMISS: true, x86asm.UCOMISD: true, x86asm.COMISS: true, x86asm.COMISD: true,
	x86asm.PTEST: true, x86asm.NOP: true, x86asm.PREFETCHT0: true, x86asm.PREFETCHT1: true,
	x86asm.PREFETCHT2: true, x86asm.PREFETCHNTA: true, x86asm.PREFETCHW: true, x86asm.CLFLUSH: true,
	x86asm.FLD: true, x86asm.FILD: true, x86asm.FCOM: true, x86asm.FCOMP: true, x86asm.FICOM: true,
	x86asm.FICOMP: true, x86asm.FADD: true, x86asm.FSUB: true, x86asm.FSUBR: true, x86asm.FMUL: true,
	x86asm.FDIV: true, x86asm.FDIVR: true, x86asm.FIADD: true, x86asm.FIMUL: true, x86asm.FLDCW: true,
}

func (d *x86Decoder) step(b []byte, pc uint64, out *insn) {
	out.addr = pc
	if d.pic.needScan {
		d.scan(d.pic.scanAt)
	}
	d.last.ok = false
	if d.fast {
		if f, ok := fastX86(b, d.mode, d.mm); ok {
			d.fastRefs(&f, pc, out)
			d.push(pc)
			if d.mode == 32 {
				pcRead(pc, out)
			}
			if d.pic.on {
				d.picStep(b, pc, out, false)
			}
			return
		}
	}
	d.stepFull(b, pc, out)
	d.push(pc) // after: a jump table looks back at the instructions before this one
	if d.mode == 32 {
		pcRead(pc, out)
	}
	if d.pic.on {
		d.picStep(b, pc, out, true)
	}
}

// stepFull is step through x86asm.
func (d *x86Decoder) stepFull(b []byte, pc uint64, out *insn) {
	inst, special, err := d.decode(b)
	d.last.ok, d.last.pc, d.last.inst, d.last.special, d.last.err = true, pc, inst, special, err
	if err != nil || inst.Len <= 0 {
		if f, ok := fastLength(b, d.mode); ok && !f.hasRel {
			out.size, out.flow = f.size, f.flow // valid, but unknown to x86asm
			return
		}
		out.size, out.flow, out.invalid = 1, ports.FlowStop, true
		return
	}
	out.size = inst.Len
	next := pc + uint64(inst.Len)
	refs := d.refs[:0]
	op := inst.Op
	switch {
	case op == x86asm.CALL || op == x86asm.LCALL:
		out.flow = ports.FlowCall
	case op == x86asm.JMP || op == x86asm.LJMP:
		out.flow = ports.FlowJump
	case x86Branches[op]:
		out.flow = ports.FlowBranch
	case op == x86asm.RET || op == x86asm.LRET || op == x86asm.IRET || op == x86asm.IRETD || op == x86asm.IRETQ ||
		op == x86asm.SYSRET || op == x86asm.SYSEXIT:
		out.flow = ports.FlowReturn
	case op == x86asm.HLT || op == x86asm.UD0 || op == x86asm.UD1 || op == x86asm.UD2 ||
		(op == x86asm.INT && inst.Args[0] == x86asm.Imm(3)):
		out.flow = ports.FlowStop
	}
	flowKind := kindJump
	if out.flow == ports.FlowCall {
		flowKind = kindCall
	}
	for i, arg := range inst.Args {
		if arg == nil {
			break
		}
		switch a := arg.(type) {
		case x86asm.Rel:
			if out.flow != ports.FlowNext {
				out.target, out.hasTarget = d.wrap(next+uint64(int64(a))), true
				refs = append(refs, xref{from: pc, to: out.target, kind: flowKind})
			}
		case x86asm.Mem:
			addr, ok := d.memAddr(a, next)
			if out.flow == ports.FlowCall || out.flow == ports.FlowJump {
				if i == 0 {
					slot := uint64(0)
					if ok {
						slot = addr
					}
					if out.flow == ports.FlowJump && d.table(inst, out) {
						for _, t := range d.tab {
							refs = append(refs, xref{from: pc, to: t, kind: kindJump})
						}
						if ok {
							refs = append(refs, xref{from: pc, to: addr, kind: kindRead})
						}
						continue
					}
					refs = append(refs, xref{from: pc, to: slot, kind: flowKind, flags: flagUnresolved})
				}
				if ok {
					refs = append(refs, xref{from: pc, to: addr, kind: kindRead})
				}
				continue
			}
			if !ok {
				continue
			}
			k := kindRead
			switch {
			case op == x86asm.LEA:
				k = kindAddress
			case i == 0 && !x86NoWrite[op]:
				k = kindWrite
			}
			refs = append(refs, xref{from: pc, to: addr, kind: k})
		case x86asm.Reg:
			if i == 0 && (out.flow == ports.FlowCall || out.flow == ports.FlowJump) {
				if out.flow == ports.FlowJump && d.table(inst, out) {
					for _, t := range d.tab {
						refs = append(refs, xref{from: pc, to: t, kind: kindJump})
					}
					continue
				}
				slot := uint64(0)
				if out.flow == ports.FlowCall {
					slot = d.loadedSlot(a)
				}
				refs = append(refs, xref{from: pc, to: slot, kind: flowKind, flags: flagUnresolved})
			}
		case x86asm.Imm:
			if (op == x86asm.MOV || op == x86asm.PUSH) && out.flow == ports.FlowNext {
				v := uint64(a)
				if d.mode == 32 {
					v = uint64(uint32(a))
				}
				if v >= 0x1000 && int64(a) > 0 && d.mm.mapped(v) {
					refs = append(refs, xref{from: pc, to: v, kind: kindAddress})
				}
			}
		}
	}
	out.refs = refs
}

// roleKinds are the reference kinds of the fast path's operand roles.
var roleKinds = [...]uint8{roleRead: kindRead, roleWrite: kindWrite, roleAddr: kindAddress}

// fastRefs fills out from what the fast path decoded, with the references
// the full decoder would find (in its operand order).
func (d *x86Decoder) fastRefs(f *fastInsn, pc uint64, out *insn) {
	out.size, out.flow = f.size, f.flow
	next := pc + uint64(f.size)
	flowKind := kindJump
	if f.flow == ports.FlowCall {
		flowKind = kindCall
	}
	refs := d.refs[:0]
	if f.hasRel {
		out.target, out.hasTarget = d.wrap(next+uint64(f.rel)), true
		refs = append(refs, xref{from: pc, to: out.target, kind: flowKind})
	}
	var addr uint64
	switch f.mem {
	case mcRIP:
		addr = d.wrap(next + uint64(f.disp))
	case mcAbs:
		addr = d.wrap(uint64(f.disp))
	}
	switch {
	case f.indirect:
		refs = append(refs, xref{from: pc, to: addr, kind: flowKind, flags: flagUnresolved})
		if f.mem != mcReg {
			refs = append(refs, xref{from: pc, to: addr, kind: kindRead})
		}
	case f.mem != mcReg:
		refs = append(refs, xref{from: pc, to: addr, kind: roleKinds[f.role]})
	}
	if f.hasImm {
		v := uint64(f.imm)
		if d.mode == 32 {
			v = uint64(uint32(f.imm))
		}
		if v >= 0x1000 && f.imm > 0 && d.mm.mapped(v) {
			refs = append(refs, xref{from: pc, to: v, kind: kindAddress})
		}
	}
	if len(refs) > 0 {
		out.refs = refs
	}
}

func (d *x86Decoder) wrap(v uint64) uint64 {
	if d.mode == 32 {
		return uint64(uint32(v))
	}
	return v
}

// memAddr computes the address of a RIP-relative or absolute memory operand.
func (d *x86Decoder) memAddr(m x86asm.Mem, next uint64) (uint64, bool) {
	if m.Segment == x86asm.FS || m.Segment == x86asm.GS {
		return 0, false
	}
	switch {
	case m.Base == x86asm.RIP || m.Base == x86asm.EIP:
		return d.wrap(next + uint64(m.Disp)), true
	case m.Base == 0 && m.Index == 0:
		return d.wrap(uint64(m.Disp)), true
	}
	return 0, false
}

// loadedSlot returns the slot a register called through was loaded from by
// the instruction just before the call ("mov rax, [rip+S]; call rax", how
// gcc -O0 calls an import through a PE image's IAT), or 0: the call goes
// through S as "call [rip+S]" does. It cannot see whether another path
// jumps to the call: regCalls.resolve decides those (an import's slot by
// every path, a program's pointer not at all).
func (d *x86Decoder) loadedSlot(reg x86asm.Reg) uint64 {
	d.lookBack()
	if d.backN == 0 {
		return 0
	}
	r := d.rec(1)
	m, ok := r.a1.(x86asm.Mem)
	if r.op != x86asm.MOV || !ok || !sameReg(r.a0, reg) {
		return 0
	}
	if addr, ok := d.memAddr(m, r.pc+uint64(r.size)); ok {
		return addr
	}
	return 0
}

// table recovers the targets of an indirect jump through a jump table into
// d.tab. Three shapes are recognised, each bounded by a preceding
// "cmp idx, N" and "ja/jae/jbe/jb":
//
//	jmp [T + idx*8]                    absolute entries (non-PIC, 32-bit with *4)
//	lea B, [rip+T]; jmp [B + idx*8]    absolute entries (Go)
//	lea B, [rip+T]; movsxd R, dword [B + idx*4]; add R, B; jmp R
//	                                   32-bit entries relative to T (PIC)
//	shl I, 2; add I, T; mov R, [I]; jmp R
//	                                   absolute entries (32-bit gcc -O0)
//	mov R, [G + idx*4 + T]; add R, G; jmp R
//	                                   32-bit entries relative to the GOT
//	                                   (32-bit PIC, G the GOT register:
//	                                   pic32_switch.go), every target in
//	                                   the jump's code section
func (d *x86Decoder) table(inst x86asm.Inst, out *insn) bool {
	d.tab = d.tab[:0]
	d.lookBack()
	ptr := uint64(8)
	if d.mode == 32 {
		ptr = 4
	}
	var base uint64
	relative := false
	var add uint64        // what a relative entry is added to: the table, or the GOT (pic)
	var within *memRegion // pic: the code section the targets must lie in
	switch a := inst.Args[0].(type) {
	case x86asm.Mem:
		if a.Index == 0 || uint64(a.Scale) != ptr || a.Segment == x86asm.FS || a.Segment == x86asm.GS {
			return false
		}
		switch {
		case a.Base == 0:
			base = d.wrap(uint64(a.Disp))
		case a.Disp == 0:
			t, ok := d.leaOf(a.Base, 0)
			if !ok {
				return false
			}
			base = t
		default:
			return false
		}
	case x86asm.Reg:
		if d.mode == 32 && d.pic.on {
			if t, g, ok := d.picJump(a, out.addr); ok {
				if within = d.mm.code(out.addr); within == nil {
					return false
				}
				base, add, relative = uint64(t), uint64(g), true
				break
			}
		}
		if t, ok := d.loadedEntry(a, ptr); ok {
			base = t
			break
		}
		// add R, X (R the jump register), where X or R holds the table
		// address (lea X, [rip+T]) or X was loaded by movsxd from
		// [B + idx*4] with B holding it.
		addAt := 0
		var other x86asm.Reg
		for k := 1; k <= d.backN && k <= 4; k++ {
			r := d.rec(k)
			if r.op == x86asm.ADD && sameReg(r.a0, a) {
				if x, ok := r.a1.(x86asm.Reg); ok {
					addAt, other = k, x
				}
				break
			}
		}
		if addAt == 0 {
			return false
		}
		found := false
		for _, reg := range []x86asm.Reg{other, a} {
			if t, ok := d.leaOf(reg, addAt); ok {
				base, relative, found = t, true, true
				break
			}
		}
		for k := addAt + 1; !found && k <= d.backN && k <= addAt+4; k++ {
			r := d.rec(k)
			if r.op != x86asm.MOVSXD {
				continue
			}
			mm, ok := r.a1.(x86asm.Mem)
			if !ok || mm.Scale != 4 || mm.Index == 0 || mm.Disp != 0 {
				return false
			}
			if !sameReg(r.a0, a) && !sameReg(r.a0, other) {
				return false
			}
			t, ok := d.leaOf(mm.Base, k)
			if !ok {
				return false
			}
			base, relative, found = t, true, true
		}
		if !found {
			return false
		}
	default:
		return false
	}
	n, ok := d.bound()
	if !ok {
		return false
	}
	size := ptr
	if relative {
		size = 4
		if within == nil {
			add = base
		}
	}
	data, err := d.mm.view(d.src, base, n*size)
	if err != nil || uint64(len(data)) < n*size {
		return false
	}
	seen := map[uint64]bool{}
	for i := uint64(0); i < n; i++ {
		e := data[i*size:]
		var t uint64
		switch {
		case relative:
			t = d.wrap(add + uint64(int64(int32(binary.LittleEndian.Uint32(e)))))
		case size == 8:
			t = binary.LittleEndian.Uint64(e)
		default:
			t = uint64(binary.LittleEndian.Uint32(e))
		}
		if !d.mm.isCode(t) || within != nil && d.mm.code(t) != within {
			d.tab = d.tab[:0]
			return false
		}
		if !seen[t] {
			seen[t] = true
			d.tab = append(d.tab, t)
		}
	}
	if within != nil {
		d.picRecovered(out.addr, uint32(base), uint32(add))
	}
	out.table = d.tab
	return len(d.tab) > 0
}

// loadedEntry finds gcc -O0's 32-bit table load before "jmp R": "shl I,
// 2; add I, T; mov R, [I]", the entry's address computed rather than
// addressed as [T + I*4], and returns T.
func (d *x86Decoder) loadedEntry(r x86asm.Reg, ptr uint64) (uint64, bool) {
	if d.backN < 3 {
		return 0, false
	}
	ld, add, shl := d.rec(1), d.rec(2), d.rec(3)
	m, ok := ld.a1.(x86asm.Mem)
	if ld.op != x86asm.MOV || !sameReg(ld.a0, r) || !ok || m.Index != 0 || m.Disp != 0 || m.Segment != 0 {
		return 0, false
	}
	t, ok := add.a1.(x86asm.Imm)
	if add.op != x86asm.ADD || !sameReg(add.a0, m.Base) || !ok {
		return 0, false
	}
	if n, ok := shl.a1.(x86asm.Imm); shl.op != x86asm.SHL || !sameReg(shl.a0, m.Base) || !ok || n > 3 || 1<<n != ptr {
		return 0, false
	}
	return d.wrap(uint64(t)), true
}

// leaOf finds "lea reg, [rip+T]" (or "mov reg, T") among the instructions
// before the k-th previous one and returns T.
func (d *x86Decoder) leaOf(reg x86asm.Reg, k int) (uint64, bool) {
	for j := k + 1; j <= d.backN; j++ {
		r := d.rec(j)
		if !sameReg(r.a0, reg) {
			continue
		}
		switch a := r.a1.(type) {
		case x86asm.Mem:
			if r.op == x86asm.LEA {
				return d.memAddr(a, r.pc+uint64(r.size))
			}
		case x86asm.Imm:
			if r.op == x86asm.MOV {
				return d.wrap(uint64(a)), true
			}
		}
		return 0, false // reg was written by something else
	}
	return 0, false
}

// bound finds the case count from "cmp X, N" directly followed by a
// conditional jump on unsigned above (ja/jbe: N+1 cases; jae/jb: N cases).
// clang -O0 compares with "sub X, N" (its flags are cmp's) and reloads the
// index from its spill slot before the table load.
func (d *x86Decoder) bound() (uint64, bool) {
	for k := 1; k < d.backN; k++ {
		c := d.rec(k + 1)
		j := d.rec(k)
		if c.op != x86asm.CMP && c.op != x86asm.SUB {
			continue
		}
		imm, ok := c.a1.(x86asm.Imm)
		if !ok || int64(imm) < 0 {
			continue
		}
		n := uint64(imm)
		switch j.op {
		case x86asm.JA, x86asm.JBE:
			n++
		case x86asm.JAE, x86asm.JB:
		default:
			continue
		}
		if n == 0 || n > maxJumpTable {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// sameReg reports whether arg is reg or another width of the same
// general-purpose register (eax and rax).
func sameReg(arg any, reg x86asm.Reg) bool {
	r, ok := arg.(x86asm.Reg)
	return ok && reg != 0 && gpr(r) == gpr(reg) && gpr(r) >= 0
}

// gpr numbers a general-purpose register 0..15 whatever its width, or -1.
func gpr(r x86asm.Reg) int {
	switch {
	case r >= x86asm.AX && r <= x86asm.R15W:
		return int(r - x86asm.AX)
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX)
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX)
	}
	return -1
}

func (d *x86Decoder) format(b []byte, pc uint64, in *insn, name func(uint64) string) ports.Instruction {
	out := ports.Instruction{Address: pc, Bytes: append([]byte(nil), b[:min(in.size, len(b))]...), Flow: in.flow,
		Target: in.target, HasTarget: in.hasTarget, Invalid: in.invalid}
	if in.invalid {
		out.Mnemonic, out.Text = "(bad)", "(bad)"
		return out
	}
	inst, special, err := d.decode(b)
	if err != nil {
		out.Mnemonic = "(unknown)"
		out.Text = fmt.Sprintf("(unknown) % x", out.Bytes)
		return out
	}
	if special != "" {
		out.Mnemonic, out.Text = special, special
		return out
	}
	text := x86asm.IntelSyntax(inst, pc, nil)
	if inst.Op == x86asm.LEA {
		text = strings.Replace(text, ", ptr [", ", [", 1)
	}
	out.Mnemonic, out.Operands = splitIntel(text)
	next := pc + uint64(inst.Len)
	for _, arg := range inst.Args {
		if m, ok := arg.(x86asm.Mem); ok && (m.Base == x86asm.RIP || m.Base == x86asm.EIP) {
			addr := d.wrap(next + uint64(m.Disp))
			text += fmt.Sprintf("  # 0x%x", addr)
			if n := name(addr); n != "" {
				text += " <" + n + ">"
			}
		}
	}
	if d.pic.resOK && d.pic.resPC == pc {
		text += fmt.Sprintf("  # 0x%x", d.pic.resAddr)
		if n := name(d.pic.resAddr); n != "" {
			text += " <" + n + ">"
		}
	}
	if in.hasTarget {
		if n := name(in.target); n != "" {
			text += " <" + n + ">"
		}
	}
	out.Text = text
	return out
}

// x86Prefixes are the words IntelSyntax prints before a mnemonic.
var x86Prefixes = map[string]bool{
	"lock": true, "rep": true, "repe": true, "repz": true, "repne": true, "repnz": true, "bnd": true,
	"notrack": true, "data16": true, "data32": true, "addr16": true, "addr32": true, "xacquire": true,
	"xrelease": true, "cs": true, "ds": true, "es": true, "ss": true, "fs": true, "gs": true,
	"rex": true, "rex.w": true, "hint-taken": true, "hint-not-taken": true,
}

// splitIntel splits IntelSyntax text into the mnemonic (the first word that
// is not a prefix) and the operands that follow it.
func splitIntel(text string) (mnemonic, operands string) {
	rest := text
	for {
		word, after, _ := strings.Cut(rest, " ")
		if !x86Prefixes[word] || after == "" {
			return word, strings.TrimSpace(after)
		}
		rest = after
	}
}

// appendText appends the Text format renders. The common 64-bit
// instructions are decoded and rendered by xtDecode and appendXText, the
// rest through x86asm (appendTextX86asm).
func (d *x86Decoder) appendText(dst, b []byte, pc uint64, in *insn, name func(uint64) string) []byte {
	if in.invalid {
		return append(dst, "(bad)"...)
	}
	if d.mode == 64 && !(d.last.ok && d.last.pc == pc) {
		var x xtInst
		if xtDecode(b, &x) && x.length == in.size {
			return appendXTextNamed(dst, &x, pc, in, name)
		}
	}
	return d.appendTextX86asm(dst, b, pc, in, name)
}

// appendTextX86asm appends the Text format renders, through x86asm.
func (d *x86Decoder) appendTextX86asm(dst, b []byte, pc uint64, in *insn, name func(uint64) string) []byte {
	if in.invalid {
		return append(dst, "(bad)"...)
	}
	var inst x86asm.Inst
	var special string
	var err error
	if d.last.ok && d.last.pc == pc {
		inst, special, err = d.last.inst, d.last.special, d.last.err
	} else {
		inst, special, err = d.decode(b)
	}
	if err != nil {
		return appendHexBytes(append(dst, "(unknown) "...), b[:min(in.size, len(b))])
	}
	if special != "" {
		return append(dst, special...)
	}
	dst = appendIntel(dst, inst, pc)
	next := pc + uint64(inst.Len)
	for _, arg := range inst.Args {
		if m, ok := arg.(x86asm.Mem); ok && (m.Base == x86asm.RIP || m.Base == x86asm.EIP) {
			addr := d.wrap(next + uint64(m.Disp))
			dst = appendNameOf(appendHex(append(dst, "  # "...), addr), name, addr)
		}
	}
	if d.pic.resOK && d.pic.resPC == pc {
		dst = appendNameOf(appendHex(append(dst, "  # "...), d.pic.resAddr), name, d.pic.resAddr)
	}
	if in.hasTarget {
		dst = appendNameOf(dst, name, in.target)
	}
	return dst
}

// appendNameOf appends " <NAME>" when addr has a name.
func appendNameOf(dst []byte, name func(uint64) string, addr uint64) []byte {
	if n := name(addr); n != "" {
		dst = append(append(append(dst, " <"...), n...), '>')
	}
	return dst
}
