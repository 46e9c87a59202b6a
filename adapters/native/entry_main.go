package native

import (
	"context"
	"debug/elf"
	"encoding/binary"

	"golang.org/x/arch/x86/x86asm"

	"rea/ports"
)

// A stripped C program's main is the first argument its entry point passes
// to the C library's __libc_start_main (glibc's crt1.o and Scrt1.o, on
// x86-64, i386 and AArch64, PIE or not). The entry's first instructions
// are followed with the registers (and, on i386, the pushed words) that
// hold a known address: lea/adrp+add of an address, a load from a GOT slot
// whose RELATIVE relocation or stored word gives it, i386's PC thunk and
// its add. At the call of __libc_start_main's PLT stub or GOT slot, the
// first argument's address, if known and in code, is main: named so, with
// source "libc-start-main". AArch64's non-PIE and static crt1 pass
// __wrap_main, which only branches to main and lies just past _start: the
// branch of a first argument there is followed once. One call into
// a local function is followed (musl's _start calls _start_c; on AArch64
// it branches there), and on x86-64 a jmp to __libc_start_main ends the
// walk as its call does (_start_c's tail call), as AArch64's b does. An
// i386 call of the next instruction pushes its address and is not
// followed (musl's _start: call 1f; clang's call 1f; pop ebx). CET's endbr64/endbr32, which x86asm does not
// decode, is stepped over (Ubuntu's Scrt1.o starts with one). Anything
// else (a second call, a return, another jump, an address not known)
// names nothing. A static program's _start is recognised by its shape
// first (entry_shape.go).

// maxEntryInsns bounds the instructions followed from the entry point;
// glibc's _start has at most 20.
const maxEntryInsns = 40

// nameMain names main when the entry point hands it to __libc_start_main
// and no symbol names main already.
func (e *elfImage) nameMain(ctx context.Context, set *symbolSet) {
	for _, c := range set.procs {
		if c.name == "main" {
			return
		}
	}
	starts := map[uint64]bool{} // __libc_start_main's stubs and GOT slots
	for _, c := range set.procs {
		if c.name == "__libc_start_main@plt" {
			starts[c.addr] = true
		}
	}
	for _, l := range set.labels {
		if l.Kind == "import" && l.Name == "__libc_start_main" {
			starts[l.Address] = true
		}
	}
	mm := newMemMap(e)
	w := entryWalk{ctx: ctx, e: e, mm: mm, starts: starts}
	var libcStart uint64 // __libc_start_main, when found by _start's shape
	from := e.f.Entry    // where the walk begins: musl's __dls2 in rcrt1.o
	if len(starts) == 0 {
		stop, fn, at, ok := w.startShape(e.f.Entry)
		if !ok {
			return
		}
		starts[stop], libcStart, from = true, fn, at
	}
	var main uint64
	var ok bool
	switch e.f.Machine {
	case elf.EM_X86_64:
		main, ok = w.x86(from, 64)
	case elf.EM_386:
		main, ok = w.x86(from, 32)
	case elf.EM_AARCH64:
		var musl bool
		main, musl, ok = w.arm64(from)
		musl = musl || from != e.f.Entry
		// glibc's crt1.o (non-PIE and static) passes __wrap_main, which
		// start.S places right after _start (entry+0x34); a main that is
		// itself one branch (a tail call) is main.
		if ok && !musl && main > e.f.Entry && main-e.f.Entry <= wrapMainReach {
			main = w.arm64Branch(main)
		}
	}
	if !ok || !mm.isCode(main) || main == e.f.Entry || main == libcStart {
		return
	}
	set.procs = append(set.procs, candidate{addr: main, name: "main", source: "libc-start-main", rank: rankSynthetic})
	set.labels = append(set.labels, ports.Name{Address: main, Name: "main", Kind: "function"})
	if libcStart != 0 && mm.isCode(libcStart) && libcStart != e.f.Entry {
		set.procs = append(set.procs, candidate{addr: libcStart, name: "__libc_start_main", source: "crt-start", rank: rankSynthetic})
		set.labels = append(set.labels, ports.Name{Address: libcStart, Name: "__libc_start_main", Kind: "function"})
	}
}

// entryWalk follows an entry point's first instructions.
type entryWalk struct {
	ctx    context.Context
	e      *elfImage
	mm     *memMap
	starts map[uint64]bool
}

// code is up to n bytes of code at addr.
func (w entryWalk) code(addr uint64, n uint64) []byte { return codeAt(w.mm, w.e.src, addr, n) }

// codeAt is up to n bytes of code at addr, as far as its region's file
// bytes go, or nil where there are none.
func codeAt(mm *memMap, src source, addr, n uint64) []byte {
	if !mm.isCode(addr) {
		return nil
	}
	b, err := mm.read(src, addr, n)
	if err != nil {
		return nil
	}
	return b
}

// word is the address a GOT slot holds once loaded: its RELATIVE
// relocation's addend when the loader writes it, else the word the file
// stores there (a non-PIE's GOT, and i386's REL, which keeps the addend in
// place).
func (w entryWalk) word(slot uint64, size int) (uint64, bool) {
	var v uint64
	found := false
	if size == 8 {
		_ = relativeAddendsOf(w.ctx, w.e.src, w.e, w.mm, []uint64{slot}, func(_, addend uint64) { v, found = addend, true })
	}
	if found {
		return v, true
	}
	r := w.mm.find(slot)
	if r == nil || slot-r.addr+uint64(size) > r.fileSize {
		return 0, false
	}
	b, err := w.mm.read(w.e.src, slot, uint64(size))
	if err != nil {
		return 0, false
	}
	if size == 4 {
		return uint64(w.e.f.ByteOrder.Uint32(b)), true
	}
	return w.e.f.ByteOrder.Uint64(b), true
}

// x86 follows x86-64's or i386's _start to its call of __libc_start_main
// and returns the first argument's address: rdi, or the last word pushed.
func (w entryWalk) x86(pc uint64, mode int) (uint64, bool) {
	known := map[int]uint64{} // by gpr: a register whatever its width
	var stack []*uint64       // i386's pushed words, nil where unknown
	followed := false         // a call into a local function was followed
	word := uint64(mode / 8)
	mask := ^uint64(0)
	if mode == 32 {
		mask = 0xffffffff
	}
	set := func(r x86asm.Reg, v uint64, ok bool) {
		if ok && gpr(r) >= 0 {
			known[gpr(r)] = v & mask
		} else {
			delete(known, gpr(r))
		}
	}
	// addrOf is a memory operand's address, when its base is known.
	addrOf := func(m x86asm.Mem, next uint64) (uint64, bool) {
		if m.Index != 0 || m.Segment != 0 {
			return 0, false
		}
		switch m.Base {
		case x86asm.RIP:
			return next + uint64(m.Disp), true
		case 0:
			return uint64(m.Disp) & mask, true
		}
		v, ok := known[gpr(m.Base)]
		return (v + uint64(m.Disp)) & mask, ok
	}
	// value is an operand's value, when known.
	value := func(a x86asm.Arg, next uint64) (uint64, bool) {
		switch a := a.(type) {
		case x86asm.Imm:
			return uint64(a) & mask, true
		case x86asm.Reg:
			v, ok := known[gpr(a)]
			return v, ok
		case x86asm.Mem:
			if at, ok := addrOf(a, next); ok {
				return w.word(at, int(word))
			}
		}
		return 0, false
	}
	for range maxEntryInsns {
		b := w.code(pc, 16)
		if len(b) == 0 {
			return 0, false
		}
		// x86asm does not decode CET's endbr64/endbr32 (a CET build's
		// _start begins with one): stepped over.
		if len(b) >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && (b[3] == 0xfa || b[3] == 0xfb) {
			pc += 4
			continue
		}
		in, err := x86asm.Decode(b, mode)
		if err != nil {
			return 0, false
		}
		next := pc + uint64(in.Len)
		switch in.Op {
		case x86asm.CALL:
			var target uint64
			switch a := in.Args[0].(type) {
			case x86asm.Rel:
				target = next + uint64(int64(a))
				if w.starts[target&mask] {
					return w.firstArg(known, stack, mode)
				}
				// A call of the next instruction pushes its address
				// (musl's i386 _start: call 1f; 1: addl $_DYNAMIC-1b,
				// (%esp); clang's PC idiom: call 1f; 1: pop ebx).
				if mode == 32 && target&mask == next {
					v := next
					stack = append(stack, &v)
					pc = next
					continue
				}
				// i386's PC thunk (mov reg, [esp]; ret): reg holds the
				// return address (pic32.go's thunkReg).
				if mode == 32 {
					if reg := (&x86Decoder{mode: 32, mm: w.mm, src: w.e.src}).thunkReg(target & mask); reg >= 0 {
						known[int(reg)] = next & mask
						pc = next
						continue
					}
				}
				// One call into a local function is followed (musl's
				// _start calls _start_c, which calls __libc_start_main):
				// the registers are the callee's arguments; on i386 the
				// return address is pushed.
				if !followed && w.mm.isCode(target&mask) {
					followed = true
					if mode == 32 {
						stack = append(stack, nil)
					}
					pc = target & mask
					continue
				}
				return 0, false
			case x86asm.Mem:
				at, ok := addrOf(a, next)
				if ok && w.starts[at] {
					return w.firstArg(known, stack, mode)
				}
				return 0, false
			}
			return 0, false
		case x86asm.JMP:
			// A tail call of __libc_start_main (musl's _start_c) passes
			// the same registers; on i386 the arguments would sit under
			// a return address, which this walk does not model.
			if mode == 64 {
				switch a := in.Args[0].(type) {
				case x86asm.Rel:
					if w.starts[next+uint64(int64(a))] {
						return w.firstArg(known, stack, mode)
					}
				case x86asm.Mem:
					if at, ok := addrOf(a, next); ok && w.starts[at] {
						return w.firstArg(known, stack, mode)
					}
				}
			}
			return 0, false
		case x86asm.LEA:
			r, _ := in.Args[0].(x86asm.Reg)
			m, isMem := in.Args[1].(x86asm.Mem)
			v, ok := addrOf(m, next)
			set(r, v, isMem && ok)
		case x86asm.MOV:
			if r, isReg := in.Args[0].(x86asm.Reg); isReg {
				v, ok := value(in.Args[1], next)
				set(r, v, ok)
			}
		case x86asm.ADD:
			imm, isImm := in.Args[1].(x86asm.Imm)
			switch a := in.Args[0].(type) {
			case x86asm.Reg:
				v, ok := known[gpr(a)]
				set(a, v+uint64(imm), ok && isImm)
			case x86asm.Mem:
				if top := len(stack) - 1; a.Base == x86asm.ESP && a.Disp == 0 && a.Index == 0 && top >= 0 {
					if stack[top] != nil && isImm {
						v := (*stack[top] + uint64(imm)) & mask
						stack[top] = &v
					} else {
						stack[top] = nil
					}
				}
			}
		case x86asm.PUSH:
			if v, ok := value(in.Args[0], next); ok {
				stack = append(stack, &v)
			} else {
				stack = append(stack, nil)
			}
		case x86asm.POP:
			var top *uint64
			if len(stack) > 0 {
				top, stack = stack[len(stack)-1], stack[:len(stack)-1]
			}
			if r, isReg := in.Args[0].(x86asm.Reg); isReg {
				set(r, deref(top), top != nil)
			}
		case x86asm.RET, x86asm.HLT:
			return 0, false
		default:
			// Any other instruction that writes a register forgets it,
			// and one that writes the top word of the stack forgets it.
			switch a := in.Args[0].(type) {
			case x86asm.Reg:
				set(a, 0, false)
			case x86asm.Mem:
				if a.Base == x86asm.ESP && a.Disp == 0 && a.Index == 0 && len(stack) > 0 {
					stack[len(stack)-1] = nil
				}
			}
		}
		pc = next
	}
	return 0, false
}

// deref is *v, or 0 when v is nil.
func deref(v *uint64) uint64 {
	if v == nil {
		return 0
	}
	return *v
}

// firstArg is main's address at the call: rdi on x86-64, the last word
// pushed on i386.
func (w entryWalk) firstArg(known map[int]uint64, stack []*uint64, mode int) (uint64, bool) {
	if mode == 64 {
		v, ok := known[gpr(x86asm.RDI)]
		return v, ok
	}
	if len(stack) == 0 || stack[len(stack)-1] == nil {
		return 0, false
	}
	return *stack[len(stack)-1], true
}

// arm64 follows AArch64's _start to its bl of __libc_start_main (or b:
// musl's _start branches to _start_c, followed once, which branches on to
// __libc_start_main) and returns x0's address there, and whether it
// followed such a branch: an adrp+add's, or the word of the GOT slot
// an adrp+ldr read (the disassembler's own register tracking), or the
// address a movz and movks built (glibc before 2.34 loads main so in a
// non-PIE crt1.o: movz x0, #:abs_g3:main, then movk of g2, g1 and g0).
func (w entryWalk) arm64(pc uint64) (main uint64, followed bool, ok bool) {
	d := &arm64Decoder{mm: w.mm, src: w.e.src}
	var in insn
	var built [31]uint64 // movz/movk values, by register
	var have uint32      // bit i: built[i] is known
	for range maxEntryInsns {
		b := w.code(pc, 4)
		if len(b) < 4 {
			return 0, followed, false
		}
		x := binary.LittleEndian.Uint32(b)
		if x&0x7c000000 == 0x14000000 { // BL, B
			target := pc + uint64(sext(uint64(x&0x3ffffff)<<2, 28))
			if x&0x80000000 == 0 && !w.starts[target] && !followed && w.mm.isCode(target) {
				// musl's _start branches to _start_c, which calls
				// or branches to __libc_start_main.
				followed, pc = true, target
				continue
			}
			if !w.starts[target] {
				return 0, followed, false
			}
			if v, ok := d.get(0); ok {
				return v, followed, true
			}
			if slot := d.slotOf(0); slot != 0 {
				v, ok := w.word(slot, 8)
				return v, followed, ok
			}
			if have&1 != 0 {
				return built[0], followed, true
			}
			return 0, followed, false
		}
		d.step(b, pc, &in)
		if in.flow != ports.FlowNext || in.invalid {
			return 0, followed, false
		}
		// Any instruction but a movz or movk of a register forgets what
		// was built in its first operand's field (a store's too, which
		// only costs a value _start does not build).
		rd, shift, imm := x&31, 16*(x>>21&3), uint64(x>>5&0xffff)
		switch {
		case rd == 31:
		case x&0xff800000 == 0xd2800000: // MOVZ, 64-bit
			built[rd], have = imm<<shift, have|1<<rd
		case x&0xff800000 == 0xf2800000 && have&(1<<rd) != 0: // MOVK, 64-bit
			built[rd] = built[rd]&^(0xffff<<shift) | imm<<shift
		default:
			have &^= 1 << rd
		}
		pc += 4
	}
	return 0, followed, false
}

// wrapMainReach bounds how far past AArch64's _start glibc's __wrap_main
// may lie: both are in start.S, _start's 13 instructions and a literal
// word apart.
const wrapMainReach = 128

// arm64Branch is the target of the unconditional branch at addr, when that
// is all the code there does first, past hints (glibc's __wrap_main: nop;
// b main), else addr.
func (w entryWalk) arm64Branch(addr uint64) uint64 {
	b := w.code(addr, 16)
	for at := 0; at+4 <= len(b); at += 4 {
		x := binary.LittleEndian.Uint32(b[at:])
		switch {
		case x&0xfffff01f == 0xd503201f: // a hint: nop, bti
			continue
		case x&0xfc000000 == 0x14000000: // B
			return addr + uint64(at) + uint64(sext(uint64(x&0x3ffffff)<<2, 28))
		}
		break
	}
	return addr
}
