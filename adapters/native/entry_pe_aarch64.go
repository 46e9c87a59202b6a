package native

import (
	"encoding/binary"
	"maps"

	"rea/ports"
)

// The crt-exit walk (entry_pe.go) on AArch64 PE (IMAGE_FILE_MACHINE_ARM64):
// the same blocks, join and question, over AArch64 instructions. MSVC's
// and mingw-w64's start code keep main's result in a callee-saved register
// (x19 to x28) or store it to a global (adrp, then str with the page as
// its base) and pass it in x0 to exit, which is called through its import
// slot (adrp x8, page; ldr x8, [x8, #off]; blr x8) or through a linker
// thunk (bl to adrp x16, page; ldr x16, [x16, #off]; br x16). The state
// keeps, per register, the return value of a direct bl or a constant (an
// adrp page, plus add's immediate), and which import slot a register was
// loaded from; absolute memory words as on x86. A bl or blr that is not
// exit forgets x0 to x18 and x30 (the volatile registers) and sets x0 to
// the bl's target's return value; a store through a base that is not a
// constant, sp or x29 forgets every memory word. The static runtime's own
// exit stubs (localExit) and mingw-w64's WinMain wrapper are x86 only.
// Along the edge where a cbz or cbnz found its register zero, the register
// holds 0 (zeroEdgeA64).

// pmSlot is the key base of "register r was loaded from the word at the
// value's address": pmSlot+r.
const pmSlot = 1 << 61

// decodeA64 is decode for AArch64.
func (w *peMainWalk) decodeA64(pc uint64, callee func(uint64)) (ins pmInsn, targets []uint64, end, ok bool) {
	b := codeAt(w.mm, w.p.src, pc, 4)
	if len(b) < 4 {
		return pmInsn{}, nil, false, false
	}
	x := binary.LittleEndian.Uint32(b)
	next := pc + 4
	ins = pmInsn{x: x, pc: pc, next: next}
	if w.a64 == nil {
		w.a64 = &arm64Decoder{mm: w.mm, src: w.p.src}
	}
	var in insn
	w.a64.step(b, pc, &in) // the disassembler's own reading of the transfer
	switch in.flow {
	case ports.FlowJump: // B: a tail call, followed and examined; BR ends
		if in.hasTarget {
			targets = append(targets, in.target)
			callee(in.target)
		}
		end = true
	case ports.FlowCall: // BL, BLR
		if _, exit, t, direct := w.callA64(ins); exit {
			end = true // exit does not return
		} else if direct {
			callee(t)
		}
	case ports.FlowBranch: // B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ
		targets = append(targets, in.target, next)
		end = true
	case ports.FlowReturn, ports.FlowStop:
		end = true
	}
	return ins, targets, end, true
}

// callA64 is call for AArch64: a bl (direct) or blr.
func (w *peMainWalk) callA64(ins pmInsn) (call, exit bool, target uint64, direct bool) {
	x := ins.x
	switch {
	case x&0xfc000000 == 0x94000000: // BL
		t := ins.pc + uint64(sext(uint64(x&0x3ffffff)<<2, 28))
		return true, w.exits[w.thunkSlotA64(t)], t, true
	case x&0xfffffc1f == 0xd63f0000: // BLR
		// Whether it calls exit is in the state (the slot its register
		// was loaded from), which the pass asks exitThroughA64; the
		// decode, which has none, lets the block go on past it.
		return true, false, 0, false
	}
	return false, false, 0, false
}

// thunkSlotA64 is the import slot a linker thunk at t jumps through (adrp
// x16, page; ldr x16, [x16, #off]; br x16), or 0.
func (w *peMainWalk) thunkSlotA64(t uint64) uint64 {
	b := codeAt(w.mm, w.p.src, t, 12)
	if len(b) < 12 {
		return 0
	}
	adrp, ldr, br := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])
	if adrp&0x9f00001f != 0x90000010 || ldr&0xffc003ff != 0xf9400210 || br != 0xd61f0200 {
		return 0
	}
	page := (t &^ 0xfff) + uint64(sext(uint64(adrp>>5&0x7ffff)<<2|uint64(adrp>>29&3), 21)<<12)
	return page + uint64(ldr>>10&0xfff)<<3
}

// stepA64 applies one AArch64 instruction to the state.
func (w *peMainWalk) stepA64(st pmState, ins pmInsn) {
	x, pc := ins.x, ins.pc
	rd, rn := uint64(x&31), uint64(x>>5&31)
	forget := func(r uint64) {
		if r < 31 {
			delete(st, r)
			delete(st, pmSlot+r)
		}
	}
	constant := func(r uint64) (uint64, bool) { // a register holding an address, not a result
		v, ok := st[r]
		return v.value, ok && !v.ret && r < 31
	}
	forgetMemory := func() {
		for k := range st {
			if k >= pmArg0 {
				delete(st, k)
			}
		}
	}
	switch {
	case x&0x9f000000 == 0x90000000: // ADRP
		forget(rd)
		if rd < 31 {
			st[rd] = pmVal{value: (pc &^ 0xfff) + uint64(sext(uint64(x>>5&0x7ffff)<<2|uint64(x>>29&3), 21)<<12)}
		}
	case x&0xff800000 == 0x91000000: // ADD (immediate), 64-bit
		imm := uint64(x >> 10 & 0xfff)
		if x&(1<<22) != 0 {
			imm <<= 12
		}
		v, ok := constant(rn)
		forget(rd)
		if ok && rd < 31 {
			st[rd] = pmVal{value: v + imm}
		}
	case x&0x7fe0ffe0 == 0x2a0003e0: // MOV (ORR from the zero register), 32- or 64-bit
		rm := uint64(x >> 16 & 31)
		v, ok := st[rm]
		slot, loaded := st[pmSlot+rm]
		forget(rd)
		if ok && rm < 31 && rd < 31 {
			st[rd] = v
		}
		if loaded && rm < 31 && rd < 31 {
			st[pmSlot+rd] = slot
		}
	case x&0x7f800000 == 0x52800000: // MOVZ
		forget(rd)
		if rd < 31 {
			st[rd] = pmVal{value: uint64(x>>5&0xffff) << (16 * (x >> 21 & 3))}
		}
	case x&0x3b000000 == 0x39000000 && x&(1<<26) == 0: // LDR/STR (unsigned offset), general registers
		size, opc := x>>30, x>>22&3
		base, abs := constant(rn)
		at := base + uint64(x>>10&0xfff)<<size
		if opc == 0 { // a store
			switch {
			case abs && size >= 2:
				if v, ok := st[rd]; ok && rd < 31 {
					st[pmMem(at)] = v
				} else {
					delete(st, pmMem(at))
				}
			case abs:
				delete(st, pmMem(at))
			case rn != 31 && rn != 29:
				forgetMemory()
			}
			break
		}
		forget(rd)
		if abs && rd < 31 {
			if v, ok := st[pmMem(at)]; ok && size >= 2 {
				st[rd] = v
			}
			if size == 3 && opc == 1 {
				st[pmSlot+rd] = pmVal{value: at}
			}
		}
	case x&0x0a000000 == 0x08000000: // other loads and stores
		pair := x&0x3a000000 == 0x28000000
		load := x&(1<<22) != 0 || !pair && x&(1<<23) != 0
		if x&0x3f000000 == 0x08000000 { // exclusives and atomics: anything
			load = true
			forgetMemory()
		}
		if x&(1<<26) == 0 && load { // a general register's load
			forget(rd)
			if pair {
				forget(uint64(x >> 10 & 31))
			}
		}
		if !load && rn != 31 && rn != 29 {
			forgetMemory()
		}
		if pair && x>>23&3 != 2 || !pair && x&0x3b200400 == 0x38000400 { // writeback
			forget(rn)
		}
	case x&0xfc000000 == 0x94000000, x&0xfffffc1f == 0xd63f0000: // BL, BLR
		for r := uint64(0); r <= 18; r++ {
			forget(r)
		}
		forget(30)
		if _, exit, t, direct := w.callA64(ins); direct && !exit && w.mm.isCode(t) {
			st[0] = pmVal{ret: true, value: t}
		}
	case x&0xfc000000 == 0x14000000, x&0xff000010 == 0x54000000, x&0x7c000000 == 0x34000000, x&0xfe000000 == 0xd6000000:
		// branches write no register (TBZ, CBZ, B.cond, B, BR, RET)
	case x&0xfffff01f == 0xd503201f: // hints
	default:
		forget(rd) // a data-processing instruction writes rd
	}
}

// exitThroughA64 reports whether a blr calls exit through the register
// the state says was loaded from exit's import slot.
func (w *peMainWalk) exitThroughA64(st pmState, ins pmInsn) bool {
	if ins.x&0xfffffc1f != 0xd63f0000 {
		return false
	}
	slot, ok := st[pmSlot+uint64(ins.x>>5&31)]
	return ok && w.exits[slot.value]
}

// zeroEdgeA64 is the state along the edge from b to s: on the edge where a
// cbz or cbnz that ends b found its register zero, the register holds the
// constant 0, not a call's result (clang passes __scrt_is_managed_app's
// result on to exit(0) where it is known to be 0).
func zeroEdgeA64(st pmState, b *pmBlock, s uint64) pmState {
	if len(b.insns) == 0 {
		return st
	}
	last := b.insns[len(b.insns)-1]
	x := last.x
	if x&0x7e000000 != 0x34000000 {
		return st
	}
	taken := last.pc + uint64(sext(uint64(x>>5&0x7ffff)<<2, 21))
	zero := taken // CBZ
	if x&(1<<24) != 0 {
		zero = last.next // CBNZ
	}
	if taken == last.next || s != zero || x&31 == 31 {
		return st
	}
	st = maps.Clone(st)
	st[uint64(x&31)] = pmVal{}
	delete(st, pmSlot+uint64(x&31))
	return st
}
