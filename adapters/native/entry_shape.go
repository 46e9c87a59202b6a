package native

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"slices"

	"golang.org/x/arch/x86/x86asm"
)

// A static program has no import of __libc_start_main for the entry walk
// to stop at, and once stripped no name for it. Its entry point is still
// the C library's own _start, hand-written assembly whose instructions are
// fixed, and that is recognised by its shape: the exact head that takes
// argc, argv and the stack apart, then only the instructions that set the
// remaining arguments, then the call and what follows it. The function it
// calls is __libc_start_main; the entry walk then finds main as it does
// for a dynamic program. Each shape is strict: another instruction
// anywhere, or an argument register set twice or not at all, is not the C
// library's start and names nothing.
//
//   - glibc x86-64 (sysdeps/x86_64/start.S), after an optional endbr64:
//     xor ebp, ebp; mov r9, rdx; pop rsi; mov rdx, rsp; and rsp, -16;
//     push rax; push rsp; then rdi, rcx and r8 each set once (xor with
//     itself, mov of an immediate or a rip-relative word, lea of a
//     rip-relative address: 2.34 and later pass 0 for init and fini,
//     earlier versions __libc_csu_init and __libc_csu_fini); then call (a
//     rel32, addr32 or not, or through a rip-relative slot); then hlt.
//   - glibc i386 (sysdeps/i386/start.S), after an optional endbr32: xor
//     ebp, ebp; pop esi; mov ecx, esp; and esp, -16; push eax; push esp;
//     push edx; optionally call the PC thunk and add an immediate to ebx;
//     then five words pushed: fini and init (an immediate, or eax just set
//     from an immediate or ebx-relative), ecx, esi, main (the same forms,
//     or an ebx-relative word); then call rel32; then hlt.
//   - glibc AArch64 (sysdeps/aarch64/start.S), after an optional hint (bti
//     c, nop): mov x29, #0; mov x30, #0; mov x5, x0; ldr x1, [sp];
//     add x2, sp, #8; mov x6, sp; then x0, x3 and x4 set by adrp, add,
//     ldr of its own register, movz or movk (at most 12 of them: before
//     2.34 a non-PIE crt1.o builds each address with movz and three movks),
//     and nothing else; then bl; then bl (abort).
//   - musl x86-64 (arch/x86_64/crt_arch.h): xor rbp, rbp; mov rdi, rsp;
//     lea rsi, [rip+_DYNAMIC]; and rsp, -16; call _start_c; and _start_c
//     (crt1.c, compiled C: any order) sets each of __libc_start_main's six
//     arguments once and only them: esi from [rdi], rdx as rdi+8, r9 to 0,
//     rdi, rcx and r8 as above; then jmp or call.
//   - musl i386 (arch/i386/crt_arch.h): xor ebp, ebp; mov eax, esp;
//     and esp, -16; push eax; push eax; call 1f; 1: addl $_DYNAMIC-1b,
//     (esp); push eax; call _start_c; and _start_c (compiled C) sets up a
//     frame (pushes of callee-saved registers, mov ebp, esp, the PC thunk
//     or call 1f; pop, and add of an immediate, sub esp), loads what it
//     pushes (mov of a word or immediate, lea), then pushes exactly the
//     six arguments after its sub esp, the first a 0; then call rel32;
//     then add esp, imm, pops or leave, and ret.
//   - musl AArch64 (arch/aarch64/crt_arch.h): mov x29, #0; mov x30, #0;
//     mov x0, sp; adrp x1; add x1, x1, #lo12; and sp, x0, #-16;
//     b _start_c; and _start_c (compiled C) writes only x0 to x5, and
//     each of them, x5 with 0 (movz, mov from xzr), the others by mov
//     from x0, movz, adrp, add, ldr
//     (unsigned offset, or post-indexed: ldr x1, [x2], #8); then b (a
//     tail call: a bl would need a frame, which this shape does not take).

var (
	// glibcHead64: xor ebp, ebp; mov r9, rdx; pop rsi; mov rdx, rsp;
	// and rsp, -16; push rax; push rsp.
	glibcHead64 = []byte{0x31, 0xed, 0x49, 0x89, 0xd1, 0x5e, 0x48, 0x89, 0xe2, 0x48, 0x83, 0xe4, 0xf0, 0x50, 0x54}
	// glibcHead32: xor ebp, ebp; pop esi; mov ecx, esp; and esp, -16;
	// push eax; push esp; push edx.
	glibcHead32 = []byte{0x31, 0xed, 0x5e, 0x89, 0xe1, 0x83, 0xe4, 0xf0, 0x50, 0x54, 0x52}
	// glibcHeadA64: mov x29, #0; mov x30, #0; mov x5, x0; ldr x1, [sp];
	// add x2, sp, #8; mov x6, sp.
	glibcHeadA64 = []uint32{0xd280001d, 0xd280001e, 0xaa0003e5, 0xf94003e1, 0x910023e2, 0x910003e6}
	// muslHead64: xor rbp, rbp; mov rdi, rsp; lea rsi, [rip+...] (the
	// displacement's 4 bytes follow); then and rsp, -16; call rel32.
	muslHead64 = []byte{0x48, 0x31, 0xed, 0x48, 0x89, 0xe7, 0x48, 0x8d, 0x35}
	muslTail64 = []byte{0x48, 0x83, 0xe4, 0xf0, 0xe8}
	// muslHead32: xor ebp, ebp; mov eax, esp; and esp, -16; push eax;
	// push eax; call 1f; addl $imm32, (esp) (the 4 bytes follow); then
	// push eax; call rel32.
	muslHead32 = []byte{0x31, 0xed, 0x89, 0xe0, 0x83, 0xe4, 0xf0, 0x50, 0x50, 0xe8, 0, 0, 0, 0, 0x81, 0x04, 0x24}
	muslTail32 = []byte{0x50, 0xe8}
)

// startShape recognises the C library's _start at entry by its shape
// and returns what the entry walk stops at (the called address, or the
// slot called through), __libc_start_main's address, and where the walk
// begins: the entry, or musl's __dls2 in a static PIE (rcrt1.o).
func (w entryWalk) startShape(entry uint64) (stop, fn, from uint64, ok bool) {
	switch w.e.f.Machine {
	case elf.EM_X86_64:
		if stop, fn, ok = w.glibcX86(entry, 64); ok {
			return stop, fn, entry, ok
		}
		startC, ok := w.muslX86(entry)
		if !ok {
			return 0, 0, 0, false
		}
		if stop, fn, ok = w.muslStartC64(startC, x86asm.RDI); ok {
			return stop, fn, entry, ok
		}
		dls2, ok := w.dls2X86(startC, 64)
		if !ok {
			return 0, 0, 0, false
		}
		stop, fn, ok = w.muslStartC64(dls2, x86asm.RSI)
		return stop, fn, dls2, ok
	case elf.EM_386:
		if stop, fn, ok = w.glibcX86(entry, 32); ok {
			return stop, fn, entry, ok
		}
		startC, ok := w.musl386(entry)
		if !ok {
			return 0, 0, 0, false
		}
		if stop, fn, ok = w.muslStartC386(startC); ok {
			return stop, fn, entry, ok
		}
		dls2, ok := w.dls2X86(startC, 32)
		if !ok {
			return 0, 0, 0, false
		}
		stop, fn, ok = w.muslStartC386(dls2)
		return stop, fn, dls2, ok
	case elf.EM_AARCH64:
		if stop, fn, ok = w.glibcARM64(entry); ok {
			return stop, fn, entry, ok
		}
		startC, ok := w.muslARM64(entry)
		if !ok {
			return 0, 0, 0, false
		}
		if stop, fn, ok = w.muslStartCARM64(startC, 0); ok {
			return stop, fn, entry, ok
		}
		dls2, ok := w.dls2ARM64(startC)
		if !ok {
			return 0, 0, 0, false
		}
		stop, fn, ok = w.muslStartCARM64(dls2, 1)
		return stop, fn, dls2, ok
	}
	return 0, 0, 0, false
}

// skipEndbr skips an endbr64 (last byte 0xfa) or endbr32 (0xfb).
func skipEndbr(b []byte, pc uint64, last byte) ([]byte, uint64) {
	if len(b) >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == last {
		return b[4:], pc + 4
	}
	return b, pc
}

// x86Arg is the register a shape's argument instruction sets (gpr), or -1
// when the instruction is not one of the forms an argument is set by: xor
// of a register with itself, mov of an immediate, lea of a memory operand
// based on base, mov of a word there (base 0: an absolute address).
func x86Arg(in x86asm.Inst, base x86asm.Reg) int {
	r, ok := in.Args[0].(x86asm.Reg)
	if !ok || gpr(r) < 0 {
		return -1
	}
	switch a := in.Args[1].(type) {
	case x86asm.Reg:
		if in.Op == x86asm.XOR && a == r {
			return gpr(r)
		}
	case x86asm.Imm:
		if in.Op == x86asm.MOV {
			return gpr(r)
		}
	case x86asm.Mem:
		if (in.Op == x86asm.MOV || in.Op == x86asm.LEA) && a.Base == base && a.Index == 0 && a.Segment == 0 {
			return gpr(r)
		}
	}
	return -1
}

// x86Call is the stop and function of a call or jmp: a rel32's target, or
// a rip-relative slot and the word it holds.
func (w entryWalk) x86Call(in x86asm.Inst, next uint64, mask uint64) (stop, fn uint64, ok bool) {
	switch a := in.Args[0].(type) {
	case x86asm.Rel:
		t := (next + uint64(int64(a))) & mask
		return t, t, true
	case x86asm.Mem:
		if a.Base == x86asm.RIP && a.Index == 0 && a.Segment == 0 {
			slot := next + uint64(a.Disp)
			v, ok := w.word(slot, 8)
			return slot, v, ok
		}
	}
	return 0, 0, false
}

// glibcX86 recognises glibc's x86-64 or i386 _start.
func (w entryWalk) glibcX86(pc uint64, mode int) (stop, fn uint64, ok bool) {
	head, last, mask := glibcHead64, byte(0xfa), ^uint64(0)
	if mode == 32 {
		head, last, mask = glibcHead32, 0xfb, 0xffffffff
	}
	b := w.code(pc, 96)
	b, pc = skipEndbr(b, pc, last)
	if !bytes.HasPrefix(b, head) {
		return 0, 0, false
	}
	b, pc = b[len(head):], pc+uint64(len(head))
	var set []int      // x86-64: the argument registers set
	words, eax := 0, 0 // i386: the words pushed; 1 while eax holds one
	thunk := false
	for range 12 {
		in, err := x86asm.Decode(b, mode)
		if err != nil {
			return 0, 0, false
		}
		next := pc + uint64(in.Len)
		if in.Op == x86asm.CALL {
			if mode == 32 && !thunk && words == 0 {
				// The PC thunk, then add ebx, imm32.
				t, _, _ := w.x86Call(in, next, mask)
				if (&x86Decoder{mode: 32, mm: w.mm, src: w.e.src}).thunkReg(t) != int8(gpr(x86asm.EBX)) {
					return 0, 0, false
				}
				add, err := x86asm.Decode(b[in.Len:], 32)
				if _, isImm := add.Args[1].(x86asm.Imm); err != nil || add.Op != x86asm.ADD || add.Args[0] != x86asm.EBX || !isImm {
					return 0, 0, false
				}
				thunk = true
				b, pc = b[in.Len+add.Len:], next+uint64(add.Len)
				continue
			}
			if in.Len >= len(b) || b[in.Len] != 0xf4 { // hlt
				return 0, 0, false
			}
			if mode == 64 && len(set) != 3 || mode == 32 && words != 5 {
				return 0, 0, false
			}
			if mode == 32 {
				if _, isRel := in.Args[0].(x86asm.Rel); !isRel {
					return 0, 0, false
				}
			}
			return w.x86Call(in, next, mask)
		}
		if mode == 64 {
			r := x86Arg(in, x86asm.RIP)
			if r != gpr(x86asm.RDI) && r != gpr(x86asm.RCX) && r != gpr(x86asm.R8) || slices.Contains(set, r) {
				return 0, 0, false
			}
			set = append(set, r)
		} else {
			base := x86asm.Reg(0)
			if thunk {
				base = x86asm.EBX
			}
			switch {
			case in.Op == x86asm.PUSH:
				var okWord bool
				switch a := in.Args[0].(type) {
				case x86asm.Reg:
					okWord = words == 2 && a == x86asm.ECX || words == 3 && a == x86asm.ESI || words != 2 && words != 3 && a == x86asm.EAX && eax == 1
				case x86asm.Imm:
					okWord = words != 2 && words != 3
				case x86asm.Mem:
					okWord = words == 4 && a.Base == base && a.Base != 0 && a.Index == 0 && a.Segment == 0
				}
				if !okWord {
					return 0, 0, false
				}
				words, eax = words+1, 0
			case eax == 0 && x86Arg(in, base) == gpr(x86asm.EAX) && in.Op != x86asm.XOR:
				eax = 1
			default:
				return 0, 0, false
			}
		}
		b, pc = b[in.Len:], next
	}
	return 0, 0, false
}

// muslX86 recognises musl's x86-64 _start and returns the _start_c it
// calls.
func (w entryWalk) muslX86(pc uint64) (uint64, bool) {
	b := w.code(pc, 22)
	if len(b) < 22 || !bytes.HasPrefix(b, muslHead64) || !bytes.Equal(b[13:18], muslTail64) {
		return 0, false
	}
	return pc + 22 + uint64(int32(binary.LittleEndian.Uint32(b[18:]))), true
}

// muslStartC64 recognises crt1.c's x86-64 _start_c, or rcrt1.c's __dls2,
// whose stack pointer arrives in sp (rdi, rsi): six arguments set, argc
// and argv from sp.
func (w entryWalk) muslStartC64(pc uint64, sp x86asm.Reg) (stop, fn uint64, ok bool) {
	b := w.code(pc, 64)
	b, pc = skipEndbr(b, pc, 0xfa)
	var set []int
	argc := -1 // eax once it holds argc
	for range 9 {
		in, err := x86asm.Decode(b, 64)
		if err != nil {
			return 0, 0, false
		}
		next := pc + uint64(in.Len)
		r := -1
		switch in.Op {
		case x86asm.CALL, x86asm.JMP:
			if len(set) != 6 {
				return 0, 0, false
			}
			return w.x86Call(in, next, ^uint64(0))
		case x86asm.MOV, x86asm.LEA:
			// argc from [sp], argv as sp+8.
			dst, _ := in.Args[0].(x86asm.Reg)
			m, isMem := in.Args[1].(x86asm.Mem)
			fromSP := isMem && m.Base == sp && m.Index == 0 && m.Segment == 0
			switch {
			case fromSP && in.Op == x86asm.MOV && m.Disp == 0 && (dst == x86asm.ESI || dst == x86asm.RSI):
				r = gpr(x86asm.RSI)
			case fromSP && in.Op == x86asm.MOV && m.Disp == 0 && dst == x86asm.EAX && argc < 0:
				// clang's argc: mov eax, [sp]; then mov esi, eax.
				argc = gpr(dst)
				b, pc = b[in.Len:], next
				continue
			case in.Op == x86asm.MOV && dst == x86asm.ESI && argc >= 0 && in.Args[1] == x86asm.EAX:
				r = gpr(x86asm.RSI)
			case fromSP && in.Op == x86asm.LEA && m.Disp == 8 && dst == x86asm.RDX:
				r = gpr(x86asm.RDX)
			case fromSP:
			default:
				if r = x86Arg(in, x86asm.RIP); r != gpr(x86asm.RDI) && r != gpr(x86asm.RCX) && r != gpr(x86asm.R8) {
					r = -1
				}
			}
		case x86asm.XOR:
			if r = x86Arg(in, x86asm.RIP); r != gpr(x86asm.R9) {
				r = -1
			}
		}
		if r < 0 || slices.Contains(set, r) {
			return 0, 0, false
		}
		set = append(set, r)
		b, pc = b[in.Len:], next
	}
	return 0, 0, false
}

// glibcARM64 recognises glibc's AArch64 _start.
func (w entryWalk) glibcARM64(pc uint64) (stop, fn uint64, ok bool) {
	b := w.code(pc, 4*22)
	word := func() uint32 {
		if len(b) < 4 {
			return 0 // udf: matches nothing below
		}
		x := binary.LittleEndian.Uint32(b)
		b, pc = b[4:], pc+4
		return x
	}
	x := word()
	if x&0xfffff01f == 0xd503201f { // a hint: bti c, nop
		x = word()
	}
	for i, want := range glibcHeadA64 {
		if i > 0 {
			x = word()
		}
		if x != want {
			return 0, 0, false
		}
	}
	var set uint32 // bit i: xi set
	// At most 12 setting instructions: glibc before 2.34 builds each of
	// the three addresses in a non-PIE crt1.o with movz and three movks.
	for range 13 {
		at := pc
		x := word()
		rd, rn := x&31, x>>5&31 // any rd but x0, x3 and x4 fails the set's test
		switch {
		case x&0xfc000000 == 0x94000000: // BL
			if set != 1<<0|1<<3|1<<4 || word()&0xfc000000 != 0x94000000 { // then bl abort
				return 0, 0, false
			}
			t := at + uint64(sext(uint64(x&0x3ffffff)<<2, 28))
			return t, t, true
		case x&0x9f000000 == 0x90000000: // ADRP
		case x&0xff800000 == 0x91000000 && rn == rd: // ADD (immediate), 64-bit
		case x&0xffc00000 == 0xf9400000 && rn == rd: // LDR Xt, [Xt, #imm]
		case x&0xff800000 == 0xd2800000, x&0xff800000 == 0xf2800000: // MOVZ, MOVK, 64-bit
		default:
			return 0, 0, false
		}
		set |= 1 << rd
	}
	return 0, 0, false
}

// musl386 recognises musl's i386 _start and returns the _start_c it
// calls.
func (w entryWalk) musl386(pc uint64) (uint64, bool) {
	const n = 27 // the head, its imm32, the tail and its rel32
	b := w.code(pc, n)
	if len(b) < n || !bytes.HasPrefix(b, muslHead32) || !bytes.Equal(b[21:23], muslTail32) {
		return 0, false
	}
	return (pc + n + uint64(int32(binary.LittleEndian.Uint32(b[23:])))) & 0xffffffff, true
}

// muslStartC386 recognises crt1.c's i386 _start_c, or rcrt1.c's __dls2.
func (w entryWalk) muslStartC386(pc uint64) (stop, fn uint64, ok bool) {
	b := w.code(pc, 96)
	d := &x86Decoder{mode: 32, mm: w.mm, src: w.e.src}
	framed := false // sub esp, imm seen: the pushes after it are arguments
	// (clang subtracts twice)
	args := 0
	for range 24 {
		in, err := x86asm.Decode(b, 32)
		if err != nil {
			return 0, 0, false
		}
		next := pc + uint64(in.Len)
		dst, _ := in.Args[0].(x86asm.Reg)
		switch in.Op {
		case x86asm.CALL:
			a, isRel := in.Args[0].(x86asm.Rel)
			if !isRel {
				return 0, 0, false
			}
			t := (next + uint64(int64(a))) & 0xffffffff
			switch {
			case args == 6 && muslEnd386(b[in.Len:]):
				return t, t, true
			case args > 0 || t != next && d.thunkReg(t) < 0:
				return 0, 0, false
			}
		case x86asm.PUSH:
			if framed {
				imm, isImm := in.Args[0].(x86asm.Imm)
				if args == 0 && (!isImm || imm != 0) {
					return 0, 0, false
				}
				args++
			}
		case x86asm.POP:
			if dst == 0 || framed {
				return 0, 0, false
			}
		case x86asm.SUB:
			if _, isImm := in.Args[1].(x86asm.Imm); args > 0 || dst != x86asm.ESP || !isImm {
				return 0, 0, false
			}
			framed = true
		case x86asm.ADD:
			if _, isImm := in.Args[1].(x86asm.Imm); dst == 0 || dst == x86asm.ESP || !isImm {
				return 0, 0, false
			}
		case x86asm.MOV, x86asm.LEA:
			_, isMem := in.Args[1].(x86asm.Mem)
			_, isImm := in.Args[1].(x86asm.Imm)
			frame := in.Op == x86asm.MOV && dst == x86asm.EBP && in.Args[1] == x86asm.ESP
			if dst == 0 || dst == x86asm.ESP || !frame && !isMem && !isImm {
				return 0, 0, false
			}
		default:
			return 0, 0, false
		}
		b, pc = b[in.Len:], next
	}
	return 0, 0, false
}

// muslEnd386 reports whether b, what follows _start_c's call, ends the
// function: optionally a callee-saved register restored from the frame
// (gcc -Os: mov ebx, [ebp-4]), add esp, imm; then pops of registers or
// leave; then ret.
func muslEnd386(b []byte) bool {
	added := false
	for i := range 7 {
		in, err := x86asm.Decode(b, 32)
		if err != nil {
			return false
		}
		r, _ := in.Args[0].(x86asm.Reg)
		_, isImm := in.Args[1].(x86asm.Imm)
		m, isMem := in.Args[1].(x86asm.Mem)
		switch {
		case in.Op == x86asm.RET:
			return added
		case i == 0 && in.Op == x86asm.MOV && r != 0 && r != x86asm.ESP && isMem && m.Base == x86asm.EBP && m.Index == 0:
		case !added && in.Op == x86asm.ADD && r == x86asm.ESP && isImm:
			added = true
		case added && (in.Op == x86asm.POP && r != 0 || in.Op == x86asm.LEAVE):
		default:
			return false
		}
		b = b[in.Len:]
	}
	return false
}

// muslARM64 recognises musl's AArch64 _start and returns the _start_c it
// branches to.
func (w entryWalk) muslARM64(pc uint64) (uint64, bool) {
	b := w.code(pc, 28)
	if len(b) < 28 {
		return 0, false
	}
	for i, want := range []struct{ mask, bits uint32 }{
		{0xffffffff, 0xd280001d}, // mov x29, #0
		{0xffffffff, 0xd280001e}, // mov x30, #0
		{0xffffffff, 0x910003e0}, // mov x0, sp
		{0x9f00001f, 0x90000001}, // adrp x1, _DYNAMIC
		{0xffc003ff, 0x91000021}, // add x1, x1, #:lo12:_DYNAMIC
		{0xffffffff, 0x927cec1f}, // and sp, x0, #-16
		{0xfc000000, 0x14000000}, // b _start_c
	} {
		if binary.LittleEndian.Uint32(b[4*i:])&want.mask != want.bits {
			return 0, false
		}
	}
	return pc + 24 + uint64(sext(uint64(binary.LittleEndian.Uint32(b[24:])&0x3ffffff)<<2, 28)), true
}

// muslStartCARM64 recognises crt1.c's AArch64 _start_c, whose stack
// pointer arrives in x0 (sp 0), or rcrt1.c's __dls2 (x1).
func (w entryWalk) muslStartCARM64(pc uint64, sp uint32) (stop, fn uint64, ok bool) {
	b := w.code(pc, 4*17)
	var set uint32     // bit i: xi written
	var scratch uint32 // bit i: xi (i > 5) loaded from [sp] (clang's argc)
	for at := 0; at+4 <= len(b); at += 4 {
		x := binary.LittleEndian.Uint32(b[at:])
		rd, rn := x&31, x>>5&31
		switch {
		case x&0xfc000000 == 0x14000000: // B
			if set != 0x3f {
				return 0, 0, false
			}
			t := pc + uint64(at) + uint64(sext(uint64(x&0x3ffffff)<<2, 28))
			return t, t, true
		case x == 0xd2800005, x == 0xaa1f03e5: // mov x5, #0; mov x5, xzr
		case rd == 5: // x5, the sixth argument, is 0
			return 0, 0, false
		case x&0xffffffe0 == 0xaa0003e0|sp<<16: // mov xd, sp
		case x&0x7fe0ffe0 == 0x2a0003e0 && scratch&(1<<(x>>16&31)) != 0: // mov wd/xd, a scratch register
		case x&0xff800000 == 0xd2800000: // MOVZ, 64-bit
		case x&0x9f000000 == 0x90000000: // ADRP
		case x&0xff800000 == 0x91000000: // ADD (immediate), 64-bit
		case x&0xbfc00000 == 0xb9400000, x&0xffc00000 == 0xb9800000: // LDR Wt/Xt, LDRSW, unsigned offset
			if rd > 5 && rn == sp {
				scratch |= 1 << rd
				continue
			}
		case x&0xbfe00c00 == 0xb8400400: // LDR Wt/Xt, post-indexed
			if rn > 5 {
				return 0, 0, false
			}
			if rd > 5 && rn == sp {
				scratch |= 1 << rd
				continue
			}
			set |= 1 << rn
		default:
			return 0, 0, false
		}
		if rd > 5 {
			return 0, 0, false
		}
		set |= 1 << rd
	}
	return 0, 0, false
}
