package native

import (
	"context"
	"encoding/binary"

	"golang.org/x/arch/x86/x86asm"

	"rea/ports"
)

// The code half of literal discovery (strings_lit.go): instructions that
// load the address of string data, and the length that goes with it.

// litWindow is how many instructions after an address load are searched
// for the literal's length.
const litWindow = 4

// Successor registers (x86asm general-purpose numbering: AX 0, CX 1, DX 2,
// BX 3, SP 4, BP 5, SI 6, DI 7, R8..R15 8..15): the register that carries a
// string's length when its pointer is in the key. Go's register ABI passes
// arguments in AX, BX, CX, DI, SI, R8, R9, R10, R11; the System V ABI (Rust)
// in DI, SI, DX, CX, R8, R9 and returns pairs in AX, DX.
var (
	goLenReg   = map[int]int{0: 3, 3: 1, 1: 7, 7: 6, 6: 8, 8: 9, 9: 10, 10: 11}
	sysvLenReg = map[int]int{7: 6, 6: 2, 2: 1, 1: 8, 8: 9, 0: 2}
)

// scanX8664 appends the string references of x86-64 code at base: each
// RIP-relative LEA into a string region, with the length moved into the
// next argument register, or stored beside the pointer, within a few
// instructions.
func scanX8664(ctx context.Context, code []byte, base uint64, tc toolchain, idx regionIndex, refs []litRef) []litRef {
	lenReg := sysvLenReg
	if tc == tcGo {
		lenReg = goLenReg
	}
	for i := 0; i+7 <= len(code); i++ {
		if i&0xfffff == 0 && ctx.Err() != nil {
			return refs
		}
		// REX.W (+R) 8D /r with mod 00, rm 101: lea r64, [rip+disp32].
		if code[i]&0xfb != 0x48 || code[i+1] != 0x8d || code[i+2]&0xc7 != 0x05 {
			continue
		}
		next := base + uint64(i) + 7
		target := next + uint64(int64(int32(binary.LittleEndian.Uint32(code[i+3:]))))
		if idx.find(target) == nil {
			continue
		}
		reg := int(code[i+2]>>3&7) | int(code[i]&4)<<1
		n := x86Length(code[i+7:], reg, lenReg)
		refs = append(refs, litRef{addr: target, n: n, tagged: tc == tcRust && n&1 == 1 && n > 1})
	}
	return refs
}

// x86Length looks for the length of a string whose address was just loaded
// into reg: an immediate moved into its length register, or an immediate
// stored in the word after the one reg was stored to. 0 when none is seen
// before a control transfer or the window ends.
func x86Length(code []byte, reg int, lenReg map[int]int) uint64 {
	want, hasWant := lenReg[reg]
	var stored x86asm.Mem
	hasStore := false
	for k, j := 0, 0; k < litWindow && j < len(code); k++ {
		b := code[j:min(len(code), j+15)]
		// Only moves matter: measure anything else with the fast length
		// decoder, and decode fully what it declines.
		if op := b[0]; op&0xf0 == 0x40 && len(b) > 1 {
			op = b[1]
			if op != 0x89 && op != 0xc7 && op&0xf8 != 0xb8 {
				if f, ok := fastLength(b, 64); ok {
					if f.flow != ports.FlowNext {
						return 0
					}
					j += f.size
					continue
				}
			}
		} else if op != 0x89 && op != 0xc7 && op&0xf8 != 0xb8 {
			if f, ok := fastLength(b, 64); ok {
				if f.flow != ports.FlowNext {
					return 0
				}
				j += f.size
				continue
			}
		}
		inst, err := x86asm.Decode(b, 64)
		if err != nil {
			return 0
		}
		j += inst.Len
		switch inst.Op {
		case x86asm.CALL, x86asm.JMP, x86asm.RET, x86asm.LRET:
			return 0
		case x86asm.MOV:
		default:
			if inst.Op >= x86asm.JA && inst.Op <= x86asm.JS {
				return 0
			}
			continue
		}
		imm, isImm := inst.Args[1].(x86asm.Imm)
		switch dst := inst.Args[0].(type) {
		case x86asm.Reg:
			if isImm && hasWant && gpr(dst) == want && imm > 0 {
				return uint64(imm)
			}
			if gpr(dst) == reg {
				return 0 // the pointer is overwritten
			}
		case x86asm.Mem:
			if src, ok := inst.Args[1].(x86asm.Reg); ok && src >= x86asm.RAX && src <= x86asm.R15 && gpr(src) == reg && dst.Segment == 0 {
				stored, hasStore = dst, true
				continue
			}
			if isImm && hasStore && imm > 0 && dst.Base == stored.Base && dst.Index == stored.Index &&
				dst.Scale == stored.Scale && dst.Segment == stored.Segment && dst.Disp == stored.Disp+8 {
				return uint64(imm)
			}
		}
	}
	return 0
}

// scanARM64 appends the string references of AArch64 code at base: ADRP
// then an ADD of the low bits into a string region, with the length moved
// into the next register (Go's ABI and AAPCS64 both pass a string as two
// consecutive registers) within a few instructions.
func scanARM64(ctx context.Context, code []byte, base uint64, tc toolchain, idx regionIndex, refs []litRef) []litRef {
	n := len(code) &^ 3
	for i := 0; i+8 <= n; i += 4 {
		if i&0xfffff == 0 && ctx.Err() != nil {
			return refs
		}
		w := binary.LittleEndian.Uint32(code[i:])
		if w&0x9f000000 != 0x90000000 { // ADRP
			continue
		}
		rd := w & 31
		pc := base + uint64(i)
		imm := (uint64(w>>29&3) | uint64(w>>5&0x7ffff)<<2) << 12
		page := pc&^0xfff + uint64(sext(imm, 33))
		// The ADD may follow at once or after one unrelated instruction.
		for k := 1; k <= 2 && i+4*k+4 <= n; k++ {
			a := binary.LittleEndian.Uint32(code[i+4*k:])
			if a&0xff800000 != 0x91000000 || a>>5&31 != rd { // ADD Xd, Xn, #imm12{, lsl 12}
				continue
			}
			off := uint64(a >> 10 & 0xfff)
			if a&(1<<22) != 0 {
				off <<= 12
			}
			target := page + off
			if idx.find(target) == nil {
				break
			}
			ln := arm64Length(code[i+4*k+4:n], a&31)
			refs = append(refs, litRef{addr: target, n: ln, tagged: tc == tcRust && ln&1 == 1 && ln > 1})
			break
		}
	}
	return refs
}

// arm64Length looks for an immediate moved into the register after reg
// (MOVZ or ORR with the zero register) before a branch or the window's end.
func arm64Length(code []byte, reg uint32) uint64 {
	if reg >= 30 {
		return 0
	}
	for k := 0; k < litWindow && 4*k+4 <= len(code); k++ {
		w := binary.LittleEndian.Uint32(code[4*k:])
		rd := w & 31
		switch {
		case w&0x7c000000 == 0x14000000, w&0xff000000 == 0x54000000, w&0x7e000000 == 0x34000000,
			w&0x7e000000 == 0x36000000, w&0xfe1f0000 == 0xd61f0000: // branches
			return 0
		case w&0x7f800000 == 0x52800000: // MOVZ
			if rd == reg+1 {
				v := uint64(w>>5&0xffff) << (16 * (w >> 21 & 3))
				if v == 0 {
					return 0
				}
				return v
			}
		case w&0x7f800000 == 0x32000000 && w>>5&31 == 31: // ORR Rd, ZR, #bitmask (MOV alias)
			if rd == reg+1 {
				v, ok := bitmaskImm(w>>22&1, w>>16&63, w>>10&63, w>>31 == 1)
				if !ok || v == 0 {
					return 0
				}
				return v
			}
		}
	}
	return 0
}

// bitmaskImm decodes an AArch64 logical immediate (N, immr, imms).
func bitmaskImm(n, immr, imms uint32, is64 bool) (uint64, bool) {
	combined := n<<6 | (^imms & 63)
	length := -1
	for b := 6; b >= 0; b-- {
		if combined&(1<<b) != 0 {
			length = b
			break
		}
	}
	if length < 1 || (!is64 && n == 1) {
		return 0, false
	}
	size := uint32(1) << length
	levels := size - 1
	s, r := imms&levels, immr&levels
	if s == levels {
		return 0, false
	}
	elem := uint64(1)<<(s+1) - 1
	if r != 0 {
		elem = (elem>>r | elem<<(size-r)) & (uint64(1)<<size - 1) // 1<<64 is 0: the mask is all ones
	}
	width := uint32(64)
	if !is64 {
		width = 32
	}
	var v uint64
	for i := uint32(0); i < width; i += size {
		v |= elem << i
	}
	return v, true
}
