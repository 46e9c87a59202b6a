package native

import (
	"encoding/binary"

	"golang.org/x/arch/x86/x86asm"
)

// musl's static PIE starts from rcrt1.o: the same _start as crt1.o's
// (arch/ARCH/crt_arch.h), whose _start_c is then ldso/dlstart.c's
// _dlstart_c, compiled C that walks the auxiliary vector and the dynamic
// section and applies the program's RELATIVE relocations before it can
// take any address from memory. Its last act reaches __dls2 through a
// register that reloc.h's GETFUNCSYM sets by a PC-relative computation the
// compiler cannot see into, then calls or jumps through it:
//
//   - x86-64: lea r, [rip+__dls2]; ...; jmp r (or call r)
//   - i386: call 1f; 1: addl $__dls2-1b, (esp); pop r; ...; call r (or jmp)
//   - AArch64: adrp xN, __dls2; add xN, xN, :lo12:__dls2; ...; br xN (or blr)
//
// __dls2 (rcrt1.c) is crt1.c's _start_c again but for where the stack
// pointer arrives (its second argument): __libc_start_main(main, *sp, sp+1,
// _init, _fini, 0). _dlstart_c is read straight through from its start (it
// has loops but no table or data in its code) to its first indirect jump
// or call, which must go through such a register; the address there must
// then have __dls2's shape, checked as strictly as _start_c's, before the
// entry walk starts from it.

// dlstartReach bounds the bytes of _dlstart_c read: gcc's and clang's are
// 400 to 700 bytes on the three.
const dlstartReach = 2048

// dls2X86 is the __dls2 that musl's x86-64 (mode 64) or i386 (32)
// _dlstart_c at pc reaches last.
func (w entryWalk) dls2X86(pc uint64, mode int) (uint64, bool) {
	mask := ^uint64(0)
	if mode == 32 {
		mask = 0xffffffff
	}
	b := w.code(pc, dlstartReach)
	known := map[int]uint64{} // by gpr: GETFUNCSYM's result
	for len(b) > 0 {
		in, err := x86asm.Decode(b, mode)
		if err != nil {
			return 0, false
		}
		next := (pc + uint64(in.Len)) & mask
		switch in.Op {
		case x86asm.RET, x86asm.HLT:
			return 0, false
		case x86asm.JMP, x86asm.CALL:
			switch a := in.Args[0].(type) {
			case x86asm.Reg:
				v, ok := known[gpr(a)]
				return v, ok && w.mm.isCode(v)
			case x86asm.Rel:
				if in.Op == x86asm.CALL {
					// i386's GETFUNCSYM: call 1f; 1: addl $imm, (esp); pop r
					// (clang's own PC idiom, call 1f; 1: pop r, is another
					// call).
					if r, v, n, ok := getFuncSym386(b, in, next, mask); mode == 32 && ok {
						known[r] = v
						b, pc = b[n:], (pc+uint64(n))&mask
						continue
					}
					// Another call (i386's PC thunk) may write any
					// caller-saved register.
					clear(known)
				}
			default:
				return 0, false
			}
		case x86asm.LEA:
			// x86-64's GETFUNCSYM: lea r, [rip+__dls2].
			r, _ := in.Args[0].(x86asm.Reg)
			if m, isMem := in.Args[1].(x86asm.Mem); mode == 64 && isMem && m.Base == x86asm.RIP && m.Index == 0 && gpr(r) >= 0 {
				known[gpr(r)] = next + uint64(m.Disp)
				b, pc = b[in.Len:], next
				continue
			}
			delete(known, gpr(r))
		default:
			if r, isReg := in.Args[0].(x86asm.Reg); isReg {
				delete(known, gpr(r))
			}
			if in.Op == x86asm.XCHG {
				if r, isReg := in.Args[1].(x86asm.Reg); isReg {
					delete(known, gpr(r))
				}
			}
		}
		b, pc = b[in.Len:], next
	}
	return 0, false
}

// dls2ARM64 is the __dls2 that musl's AArch64 _dlstart_c at pc reaches
// last.
func (w entryWalk) dls2ARM64(pc uint64) (uint64, bool) {
	b := w.code(pc, dlstartReach)
	var page [32]uint64 // adrp's page, by register
	var pages uint32    // bit i: page[i] is an adrp's, not yet added to
	var built [32]uint64
	var have uint32 // bit i: built[i] is GETFUNCSYM's adrp and add
	for at := 0; at+4 <= len(b); at += 4 {
		x := binary.LittleEndian.Uint32(b[at:])
		rd, rn := x&31, x>>5&31
		switch {
		case x&0xfffffc1f == 0xd61f0000, x&0xfffffc1f == 0xd63f0000: // BR, BLR
			return built[rn], have&(1<<rn) != 0 && w.mm.isCode(built[rn])
		case x&0xfffffc1f == 0xd65f0000: // RET
			return 0, false
		case x&0x9f000000 == 0x90000000: // ADRP
			lo, hi := uint64(x>>29&3), uint64(sext(uint64(x>>5&0x7ffff), 19))
			page[rd] = (pc+uint64(at))&^0xfff + (hi<<2|lo)<<12
			pages, have = pages|1<<rd, have&^(1<<rd)
		case x&0xffc00000 == 0x91000000 && rn == rd && pages&(1<<rd) != 0: // ADD (immediate, unshifted), 64-bit
			built[rd] = page[rd] + uint64(x>>10&0xfff)
			pages, have = pages&^(1<<rd), have|1<<rd
		case x&0xffe0ffe0 == 0xaa0003e0 && have&(1<<(x>>16&31)) != 0: // mov xd, xm (gcc: mov x16, x2; br x16)
			built[rd], have, pages = built[x>>16&31], have|1<<rd, pages&^(1<<rd)
		default:
			// Any other instruction forgets its first operand's field
			// (a store's too, which only costs a value GETFUNCSYM
			// does not store).
			pages, have = pages&^(1<<rd), have&^(1<<rd)
		}
	}
	return 0, false
}

// getFuncSym386 reads i386's GETFUNCSYM at b, whose call is in: call 1f;
// 1: addl $imm, (esp); pop r. It returns r (gpr), the address it holds and
// the sequence's length.
func getFuncSym386(b []byte, in x86asm.Inst, next, mask uint64) (r int, v uint64, n int, ok bool) {
	if rel, _ := in.Args[0].(x86asm.Rel); rel != 0 {
		return 0, 0, 0, false
	}
	add, err := x86asm.Decode(b[in.Len:], 32)
	if err != nil || add.Op != x86asm.ADD {
		return 0, 0, 0, false
	}
	m, isMem := add.Args[0].(x86asm.Mem)
	imm, isImm := add.Args[1].(x86asm.Imm)
	if !isMem || m.Base != x86asm.ESP || m.Index != 0 || m.Disp != 0 || !isImm {
		return 0, 0, 0, false
	}
	pop, err := x86asm.Decode(b[in.Len+add.Len:], 32)
	reg, isReg := pop.Args[0].(x86asm.Reg)
	if err != nil || pop.Op != x86asm.POP || !isReg || gpr(reg) < 0 {
		return 0, 0, 0, false
	}
	return gpr(reg), (next + uint64(imm)) & mask, in.Len + add.Len + pop.Len, true
}
