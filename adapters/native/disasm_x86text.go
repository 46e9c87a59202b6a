package native

import (
	"encoding/binary"
	"strings"
	"sync"

	"golang.org/x/arch/x86/x86asm"
)

// Text of the common x86-64 instructions without x86asm.Decode. xtDecode
// decodes the encodings that make up the bulk of compiled code (integer
// moves and arithmetic, branches, calls, pushes and pops, lea, movzx/movsx,
// cmov/set, shifts, imul, multi-byte nops, endbr64 and the common SSE
// moves and arithmetic) into an xtInst, a value with no interface fields,
// and appendXText renders it as appendIntel renders x86asm's decoding of
// the same bytes, straight into the output buffer. Everything else (other
// prefixes and opcodes, 32-bit code, VEX and EVEX) is declined, and the
// caller falls back to x86asm. TestXTextMatchesX86asm holds the two to the
// same text on every instruction of real binaries, and FuzzXText on random
// bytes.

// xtArg kinds.
const (
	xtNone = iota
	xtReg
	xtMem
	xtImm
	xtRel
)

type xtArg struct {
	kind uint8
	reg  x86asm.Reg
	imm  int64 // the immediate, or the relative displacement
}

// xtInst is one decoded instruction.
type xtInst struct {
	op       x86asm.Op
	special  string // the whole text, for instructions IntelSyntax does not build from parts
	length   int
	memBytes int
	nopReg   string // the register IntelSyntax appends to the 0F 1F nop
	lock     bool   // a lock prefix, printed before the mnemonic
	mem      x86asm.Mem
	args     [3]xtArg
	nargs    int
}

func (x *xtInst) add(a xtArg) {
	x.args[x.nargs] = a
	x.nargs++
}

// xtState is the decoder's view of the prefixes and the ModRM byte.
type xtState struct {
	b     []byte
	i     int
	rex   byte
	n66   int
	rep   bool // F3
	lock  bool // F0
	repn  bool // F2
	cs    bool
	seg   x86asm.Reg
	osz   int // operand size in bytes: 2, 4 or 8
	mod   byte
	reg   int // ModRM reg with REX.R
	rm    int // ModRM rm with REX.B (mod 3)
	isMem bool
}

// The operations of the opcode groups, in encoding order (the condition
// codes for jcc, cmovcc and setcc; the ModRM reg field for the others).
var (
	xtJcc   = [16]x86asm.Op{x86asm.JO, x86asm.JNO, x86asm.JB, x86asm.JAE, x86asm.JE, x86asm.JNE, x86asm.JBE, x86asm.JA, x86asm.JS, x86asm.JNS, x86asm.JP, x86asm.JNP, x86asm.JL, x86asm.JGE, x86asm.JLE, x86asm.JG}
	xtCmov  = [16]x86asm.Op{x86asm.CMOVO, x86asm.CMOVNO, x86asm.CMOVB, x86asm.CMOVAE, x86asm.CMOVE, x86asm.CMOVNE, x86asm.CMOVBE, x86asm.CMOVA, x86asm.CMOVS, x86asm.CMOVNS, x86asm.CMOVP, x86asm.CMOVNP, x86asm.CMOVL, x86asm.CMOVGE, x86asm.CMOVLE, x86asm.CMOVG}
	xtSet   = [16]x86asm.Op{x86asm.SETO, x86asm.SETNO, x86asm.SETB, x86asm.SETAE, x86asm.SETE, x86asm.SETNE, x86asm.SETBE, x86asm.SETA, x86asm.SETS, x86asm.SETNS, x86asm.SETP, x86asm.SETNP, x86asm.SETL, x86asm.SETGE, x86asm.SETLE, x86asm.SETG}
	xtALU   = [8]x86asm.Op{x86asm.ADD, x86asm.OR, x86asm.ADC, x86asm.SBB, x86asm.AND, x86asm.SUB, x86asm.XOR, x86asm.CMP}
	xtShift = [8]x86asm.Op{x86asm.ROL, x86asm.ROR, x86asm.RCL, x86asm.RCR, x86asm.SHL, x86asm.SHR, 0, x86asm.SAR}
	xtGrp3  = [8]x86asm.Op{x86asm.TEST, 0, x86asm.NOT, x86asm.NEG, x86asm.MUL, x86asm.IMUL, x86asm.DIV, x86asm.IDIV}
)

// xtSSE describes a two-byte (0F xx) SSE opcode: the operation and memory
// operand size for each mandatory prefix (none, 66, F3, F2), and the form.
type xtSSE struct {
	op   [4]x86asm.Op
	mem  [4]uint8
	form uint8
}

// SSE forms.
const (
	xsRM       = iota + 1 // xmm, xmm/m
	xsMR                  // xmm/m, xmm
	xsRMi8                // xmm, xmm/m, imm8
	xsRMmem               // xmm, m (memory only)
	xsMRmem               // m, xmm (memory only)
	xsCvtI2S              // xmm, r/m32/64
	xsCvtS2I              // r32/64, xmm/m
	xsMovdTo              // xmm, r/m32/64 (movd/movq)
	xsMovdFrom            // r/m32/64, xmm (movd/movq)
	xsMskR                // r32, xmm (register only)
)

var xtSSETable = func() (t [256]xtSSE) {
	set := func(opc byte, form uint8, ops [4]x86asm.Op, mem [4]uint8) {
		t[opc] = xtSSE{op: ops, mem: mem, form: form}
	}
	set(0x10, xsRM, [4]x86asm.Op{x86asm.MOVUPS, x86asm.MOVUPD, x86asm.MOVSS, x86asm.MOVSD_XMM}, [4]uint8{16, 16, 4, 8})
	set(0x11, xsMR, [4]x86asm.Op{x86asm.MOVUPS, x86asm.MOVUPD, x86asm.MOVSS, x86asm.MOVSD_XMM}, [4]uint8{16, 16, 4, 8})
	set(0x16, xsRMmem, [4]x86asm.Op{x86asm.MOVHPS, x86asm.MOVHPD}, [4]uint8{8, 8})
	set(0x17, xsMRmem, [4]x86asm.Op{x86asm.MOVHPS, x86asm.MOVHPD}, [4]uint8{8, 8})
	set(0x28, xsRM, [4]x86asm.Op{x86asm.MOVAPS, x86asm.MOVAPD}, [4]uint8{16, 16})
	set(0x29, xsMR, [4]x86asm.Op{x86asm.MOVAPS, x86asm.MOVAPD}, [4]uint8{16, 16})
	set(0x2a, xsCvtI2S, [4]x86asm.Op{0, 0, x86asm.CVTSI2SS, x86asm.CVTSI2SD}, [4]uint8{})
	set(0x2c, xsCvtS2I, [4]x86asm.Op{0, 0, x86asm.CVTTSS2SI, x86asm.CVTTSD2SI}, [4]uint8{0, 0, 4, 8})
	set(0x2d, xsCvtS2I, [4]x86asm.Op{0, 0, x86asm.CVTSS2SI, x86asm.CVTSD2SI}, [4]uint8{0, 0, 4, 8})
	set(0x2e, xsRM, [4]x86asm.Op{x86asm.UCOMISS, x86asm.UCOMISD}, [4]uint8{4, 8})
	set(0x2f, xsRM, [4]x86asm.Op{x86asm.COMISS, x86asm.COMISD}, [4]uint8{4, 8})
	set(0x51, xsRM, [4]x86asm.Op{x86asm.SQRTPS, x86asm.SQRTPD, x86asm.SQRTSS, x86asm.SQRTSD}, [4]uint8{16, 16, 4, 8})
	set(0x54, xsRM, [4]x86asm.Op{x86asm.ANDPS, x86asm.ANDPD}, [4]uint8{16, 16})
	set(0x55, xsRM, [4]x86asm.Op{x86asm.ANDNPS, x86asm.ANDNPD}, [4]uint8{16, 16})
	set(0x56, xsRM, [4]x86asm.Op{x86asm.ORPS, x86asm.ORPD}, [4]uint8{16, 16})
	set(0x57, xsRM, [4]x86asm.Op{x86asm.XORPS, x86asm.XORPD}, [4]uint8{16, 16})
	set(0x58, xsRM, [4]x86asm.Op{x86asm.ADDPS, x86asm.ADDPD, x86asm.ADDSS, x86asm.ADDSD}, [4]uint8{16, 16, 4, 8})
	set(0x59, xsRM, [4]x86asm.Op{x86asm.MULPS, x86asm.MULPD, x86asm.MULSS, x86asm.MULSD}, [4]uint8{16, 16, 4, 8})
	set(0x5a, xsRM, [4]x86asm.Op{x86asm.CVTPS2PD, x86asm.CVTPD2PS, x86asm.CVTSS2SD, x86asm.CVTSD2SS}, [4]uint8{8, 16, 4, 8})
	set(0x5c, xsRM, [4]x86asm.Op{x86asm.SUBPS, x86asm.SUBPD, x86asm.SUBSS, x86asm.SUBSD}, [4]uint8{16, 16, 4, 8})
	set(0x5d, xsRM, [4]x86asm.Op{x86asm.MINPS, x86asm.MINPD, x86asm.MINSS, x86asm.MINSD}, [4]uint8{16, 16, 4, 8})
	set(0x5e, xsRM, [4]x86asm.Op{x86asm.DIVPS, x86asm.DIVPD, x86asm.DIVSS, x86asm.DIVSD}, [4]uint8{16, 16, 4, 8})
	set(0x5f, xsRM, [4]x86asm.Op{x86asm.MAXPS, x86asm.MAXPD, x86asm.MAXSS, x86asm.MAXSD}, [4]uint8{16, 16, 4, 8})
	set(0x60, xsRM, [4]x86asm.Op{0, x86asm.PUNPCKLBW}, [4]uint8{0, 16})
	set(0x61, xsRM, [4]x86asm.Op{0, x86asm.PUNPCKLWD}, [4]uint8{0, 16})
	set(0x62, xsRM, [4]x86asm.Op{0, x86asm.PUNPCKLDQ}, [4]uint8{0, 16})
	set(0x6c, xsRM, [4]x86asm.Op{0, x86asm.PUNPCKLQDQ}, [4]uint8{0, 16})
	set(0x6d, xsRM, [4]x86asm.Op{0, x86asm.PUNPCKHQDQ}, [4]uint8{0, 16})
	set(0x6e, xsMovdTo, [4]x86asm.Op{0, x86asm.MOVD}, [4]uint8{})
	set(0x6f, xsRM, [4]x86asm.Op{0, x86asm.MOVDQA, x86asm.MOVDQU}, [4]uint8{0, 16, 16})
	set(0x70, xsRMi8, [4]x86asm.Op{0, x86asm.PSHUFD}, [4]uint8{0, 16})
	set(0x74, xsRM, [4]x86asm.Op{0, x86asm.PCMPEQB}, [4]uint8{0, 16})
	set(0x75, xsRM, [4]x86asm.Op{0, x86asm.PCMPEQW}, [4]uint8{0, 16})
	set(0x76, xsRM, [4]x86asm.Op{0, x86asm.PCMPEQD}, [4]uint8{0, 16})
	set(0x7e, xsMovdFrom, [4]x86asm.Op{0, x86asm.MOVD, x86asm.MOVQ}, [4]uint8{0, 0, 8})
	set(0x7f, xsMR, [4]x86asm.Op{0, x86asm.MOVDQA, x86asm.MOVDQU}, [4]uint8{0, 16, 16})
	set(0xd4, xsRM, [4]x86asm.Op{0, x86asm.PADDQ}, [4]uint8{0, 16})
	set(0xd6, xsMR, [4]x86asm.Op{0, x86asm.MOVQ}, [4]uint8{0, 8})
	set(0xd7, xsMskR, [4]x86asm.Op{0, x86asm.PMOVMSKB}, [4]uint8{})
	set(0xdb, xsRM, [4]x86asm.Op{0, x86asm.PAND}, [4]uint8{0, 16})
	set(0xdf, xsRM, [4]x86asm.Op{0, x86asm.PANDN}, [4]uint8{0, 16})
	set(0xeb, xsRM, [4]x86asm.Op{0, x86asm.POR}, [4]uint8{0, 16})
	set(0xef, xsRM, [4]x86asm.Op{0, x86asm.PXOR}, [4]uint8{0, 16})
	set(0xfa, xsRM, [4]x86asm.Op{0, x86asm.PSUBD}, [4]uint8{0, 16})
	set(0xfb, xsRM, [4]x86asm.Op{0, x86asm.PSUBQ}, [4]uint8{0, 16})
	set(0xfe, xsRM, [4]x86asm.Op{0, x86asm.PADDD}, [4]uint8{0, 16})
	return t
}()

// xtNames are the mnemonics IntelSyntax prints for the operations xtDecode
// produces, read from IntelSyntax once.
var xtNames = sync.OnceValue(func() *[intelOps]string {
	var n [intelOps]string
	var ops []x86asm.Op
	ops = append(ops, xtJcc[:]...)
	ops = append(ops, xtCmov[:]...)
	ops = append(ops, xtSet[:]...)
	ops = append(ops, xtALU[:]...)
	ops = append(ops, xtShift[:]...)
	ops = append(ops, xtGrp3[:]...)
	ops = append(ops, x86asm.PUSH, x86asm.POP, x86asm.MOVSXD, x86asm.IMUL, x86asm.TEST, x86asm.XCHG, x86asm.MOV,
		x86asm.LEA, x86asm.NOP, x86asm.CWDE, x86asm.CDQE, x86asm.CDQ, x86asm.CQO, x86asm.RET, x86asm.LEAVE,
		x86asm.CALL, x86asm.JMP, x86asm.INC, x86asm.DEC, x86asm.UD2, x86asm.BT, x86asm.BTS, x86asm.BTR, x86asm.BTC,
		x86asm.SHLD, x86asm.SHRD, x86asm.MOVZX, x86asm.MOVSX, x86asm.BSF, x86asm.BSR, x86asm.TZCNT, x86asm.LZCNT,
		x86asm.POPCNT, x86asm.XADD, x86asm.CMPXCHG, x86asm.BSWAP, x86asm.MOVQ, x86asm.MOVD)
	for i := range xtSSETable {
		ops = append(ops, xtSSETable[i].op[:]...)
	}
	for _, op := range ops {
		if op != 0 && n[op] == "" {
			text := x86asm.IntelSyntax(x86asm.Inst{Op: op, Len: 1, Mode: 64, Args: x86asm.Args{x86asm.RAX}}, 0x1000, nil)
			n[op], _, _ = strings.Cut(text, " ")
		}
	}
	return &n
})

// xtRegOf returns the register of number n (0-15) of size bytes (1, 2, 4, 8;
// 16 for xmm).
func xtRegOf(size, n int, rex byte) x86asm.Reg {
	switch size {
	case 1:
		if rex != 0 && n >= 4 {
			return x86asm.SPB + x86asm.Reg(n-4)
		}
		return x86asm.AL + x86asm.Reg(n)
	case 2:
		return x86asm.AX + x86asm.Reg(n)
	case 4:
		return x86asm.EAX + x86asm.Reg(n)
	case 8:
		return x86asm.RAX + x86asm.Reg(n)
	}
	return x86asm.X0 + x86asm.Reg(n)
}

// modrm reads a ModRM byte (and SIB and displacement) at s.i. A memory
// operand goes to x.mem.
func (s *xtState) modrm(x *xtInst) bool {
	b := s.b
	if s.i >= len(b) {
		return false
	}
	m := b[s.i]
	s.i++
	s.mod = m >> 6
	s.reg = int(m>>3&7) | int(s.rex&4)<<1
	rm := int(m & 7)
	if s.mod == 3 {
		s.rm = rm | int(s.rex&1)<<3
		s.isMem = false
		return true
	}
	s.isMem = true
	mem := x86asm.Mem{Segment: s.seg}
	disp := 0
	switch {
	case rm == 4:
		if s.i >= len(b) {
			return false
		}
		sib := b[s.i]
		s.i++
		mem.Scale = 1 << (sib >> 6)
		if idx := int(sib>>3&7) | int(s.rex&2)<<2; idx != 4 {
			mem.Index = x86asm.RAX + x86asm.Reg(idx)
		}
		if base := int(sib & 7); base == 5 && s.mod == 0 {
			disp = 4
		} else {
			mem.Base = x86asm.RAX + x86asm.Reg(base|int(s.rex&1)<<3)
		}
		if mem.Scale == 1 && mem.Index != 0 && mem.Base == 0 {
			return false // IntelSyntax's own form
		}
	case rm == 5 && s.mod == 0:
		mem.Base = x86asm.RIP
		disp = 4
	default:
		mem.Base = x86asm.RAX + x86asm.Reg(rm|int(s.rex&1)<<3)
	}
	switch s.mod {
	case 1:
		disp = 1
	case 2:
		disp = 4
	}
	switch disp {
	case 1:
		if s.i >= len(b) {
			return false
		}
		mem.Disp = int64(int8(b[s.i]))
	case 4:
		if s.i+4 > len(b) {
			return false
		}
		mem.Disp = int64(int32(binary.LittleEndian.Uint32(b[s.i:])))
	}
	s.i += disp
	x.mem = mem
	return true
}

// rmArg is the r/m operand of size bytes (the memory operand, or the
// register).
func (s *xtState) rmArg(x *xtInst, size int) xtArg {
	if s.isMem {
		x.memBytes = size
		return xtArg{kind: xtMem}
	}
	return xtArg{kind: xtReg, reg: xtRegOf(size, s.rm, s.rex)}
}

func (s *xtState) regArg(size int) xtArg {
	return xtArg{kind: xtReg, reg: xtRegOf(size, s.reg, s.rex)}
}

// imm reads an immediate of n bytes, sign-extended unless unsigned.
func (s *xtState) imm(n int, unsigned bool) (xtArg, bool) {
	b := s.b
	if s.i+n > len(b) {
		return xtArg{}, false
	}
	var v int64
	switch n {
	case 1:
		v = int64(int8(b[s.i]))
		if unsigned {
			v = int64(b[s.i])
		}
	case 2:
		v = int64(int16(binary.LittleEndian.Uint16(b[s.i:])))
	case 4:
		v = int64(int32(binary.LittleEndian.Uint32(b[s.i:])))
	case 8:
		v = int64(binary.LittleEndian.Uint64(b[s.i:]))
	}
	s.i += n
	return xtArg{kind: xtImm, imm: v}, true
}

// immz reads the immediate of an operand of s.osz bytes: 16 bits for
// 16-bit operands, else 32 bits sign-extended.
func (s *xtState) immz() (xtArg, bool) {
	if s.osz == 2 {
		return s.imm(2, false)
	}
	return s.imm(4, false)
}

// xtDecode decodes the 64-bit instruction at the start of b into x, or
// reports false for an encoding it does not handle.
func xtDecode(b []byte, x *xtInst) bool {
	*x = xtInst{}
	if len(b) >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && (b[3] == 0xfa || b[3] == 0xfb) {
		x.length, x.special = 4, "endbr64"
		if b[3] == 0xfb {
			x.special = "endbr32"
		}
		return true
	}
	s := xtState{b: b}
prefixes:
	for ; s.i < len(b) && s.i < 14; s.i++ {
		switch b[s.i] {
		case 0x66:
			s.n66++
		case 0xf3:
			if s.rep || s.repn {
				return false
			}
			s.rep = true
		case 0xf2:
			if s.rep || s.repn {
				return false
			}
			s.repn = true
		case 0x2e:
			if s.cs {
				return false
			}
			s.cs = true
		case 0xf0:
			if s.lock {
				return false
			}
			s.lock = true
		case 0x64, 0x65:
			if s.seg != 0 {
				return false
			}
			s.seg = x86asm.FS
			if b[s.i] == 0x65 {
				s.seg = x86asm.GS
			}
		default:
			break prefixes
		}
	}
	if s.i < len(b) && b[s.i]&0xf0 == 0x40 {
		s.rex = b[s.i]
		s.i++
	}
	if s.i >= len(b) {
		return false
	}
	s.osz = 4
	switch {
	case s.rex&8 != 0:
		s.osz = 8
	case s.n66 > 0:
		s.osz = 2
	}
	opc := b[s.i]
	s.i++
	var ok bool
	sse := false
	if opc == 0x0f {
		if s.i >= len(b) {
			return false
		}
		opc = b[s.i]
		s.i++
		ok, sse = xtDecode0F(&s, x, opc)
	} else {
		ok = xtDecode1(&s, x, opc)
	}
	if !ok || s.i > 15 {
		return false
	}
	// Prefixes beyond what the instruction's rendering accounts for.
	if !sse && x.op != x86asm.NOP && (s.rep || s.repn || s.n66 > 1 || s.cs) {
		return false
	}
	if s.seg != 0 && (!s.isMem || x.op == x86asm.LEA) {
		return false
	}
	// lock only alone (with REX), on a memory destination of an operation
	// that takes it.
	if s.lock {
		if sse || s.rep || s.repn || s.cs || s.n66 > 0 || s.seg != 0 || !s.isMem || x.nargs == 0 || x.args[0].kind != xtMem || !xtLockable(x.op) {
			return false
		}
		x.lock = true
	}
	x.length = s.i
	return true
}

// xtLockable reports whether op takes a lock prefix (with a memory
// destination).
func xtLockable(op x86asm.Op) bool {
	switch op {
	case x86asm.ADD, x86asm.OR, x86asm.ADC, x86asm.SBB, x86asm.AND, x86asm.SUB, x86asm.XOR,
		x86asm.INC, x86asm.DEC, x86asm.NOT, x86asm.NEG, x86asm.XADD, x86asm.CMPXCHG, x86asm.XCHG,
		x86asm.BTS, x86asm.BTR, x86asm.BTC:
		return true
	}
	return false
}

// xtDecode1 decodes a one-byte opcode.
func xtDecode1(s *xtState, x *xtInst, opc byte) bool {
	var ok bool
	var a xtArg
	switch {
	case opc < 0x40 && opc&7 < 6:
		x.op = xtALU[opc>>3]
		switch opc & 7 {
		case 0, 1, 2, 3:
			size := s.osz
			if opc&1 == 0 {
				size = 1
			}
			if !s.modrm(x) {
				return false
			}
			if opc&2 == 0 {
				x.add(s.rmArg(x, size))
				x.add(s.regArg(size))
			} else {
				x.add(s.regArg(size))
				x.add(s.rmArg(x, size))
			}
		case 4:
			x.add(xtArg{kind: xtReg, reg: x86asm.AL})
			if a, ok = s.imm(1, true); !ok {
				return false
			}
			x.add(a)
		case 5:
			x.add(xtArg{kind: xtReg, reg: xtRegOf(s.osz, 0, s.rex)})
			if a, ok = s.immz(); !ok {
				return false
			}
			x.add(a)
		}
		return true
	case opc >= 0x50 && opc <= 0x5f:
		if s.n66 > 0 || s.rex&8 != 0 {
			return false
		}
		x.op = x86asm.PUSH
		if opc >= 0x58 {
			x.op = x86asm.POP
		}
		x.add(xtArg{kind: xtReg, reg: xtRegOf(8, int(opc&7)|int(s.rex&1)<<3, s.rex)})
		return true
	case opc >= 0x70 && opc <= 0x7f:
		if s.rex != 0 || s.n66 > 0 || s.seg != 0 {
			return false
		}
		x.op = xtJcc[opc&15]
		if a, ok = s.imm(1, false); !ok {
			return false
		}
		a.kind = xtRel
		x.add(a)
		return true
	case opc == 0x68 || opc == 0x6a:
		// push imm: IntelSyntax prints the immediate as a uint32.
		if s.rex != 0 || s.n66 > 0 || s.seg != 0 {
			return false
		}
		x.op = x86asm.PUSH
		n := 4
		if opc == 0x6a {
			n = 1
		}
		if a, ok = s.imm(n, false); !ok {
			return false
		}
		a.imm = int64(uint32(a.imm))
		x.add(a)
		return true
	case opc >= 0xb0 && opc <= 0xb7:
		x.op = x86asm.MOV
		x.add(xtArg{kind: xtReg, reg: xtRegOf(1, int(opc&7)|int(s.rex&1)<<3, s.rex)})
		if a, ok = s.imm(1, true); !ok {
			return false
		}
		x.add(a)
		return true
	case opc >= 0xb8 && opc <= 0xbf:
		x.op = x86asm.MOV
		x.add(xtArg{kind: xtReg, reg: xtRegOf(s.osz, int(opc&7)|int(s.rex&1)<<3, s.rex)})
		n := s.osz
		if a, ok = s.imm(n, false); !ok {
			return false
		}
		x.add(a)
		return true
	}
	switch opc {
	case 0x63:
		if s.n66 > 0 || !s.modrm(x) {
			return false
		}
		x.op = x86asm.MOVSXD
		x.add(s.regArg(s.osz))
		x.add(s.rmArg(x, 4))
	case 0x69, 0x6b:
		if !s.modrm(x) {
			return false
		}
		x.op = x86asm.IMUL
		x.add(s.regArg(s.osz))
		x.add(s.rmArg(x, s.osz))
		if opc == 0x6b {
			a, ok = s.imm(1, false)
		} else {
			a, ok = s.immz()
		}
		if !ok {
			return false
		}
		x.add(a)
	case 0x80, 0x81, 0x83:
		if !s.modrm(x) {
			return false
		}
		x.op = xtALU[s.reg&7]
		size := s.osz
		if opc == 0x80 {
			size = 1
		}
		x.add(s.rmArg(x, size))
		switch opc {
		case 0x80:
			a, ok = s.imm(1, true)
		case 0x81:
			a, ok = s.immz()
		default:
			a, ok = s.imm(1, false)
		}
		if !ok {
			return false
		}
		x.add(a)
	case 0x84, 0x85, 0x86, 0x87, 0x88, 0x89:
		if !s.modrm(x) {
			return false
		}
		x.op = [...]x86asm.Op{x86asm.TEST, x86asm.TEST, x86asm.XCHG, x86asm.XCHG, x86asm.MOV, x86asm.MOV}[opc-0x84]
		size := s.osz
		if opc&1 == 0 {
			size = 1
		}
		x.add(s.rmArg(x, size))
		x.add(s.regArg(size))
	case 0x8a, 0x8b:
		if !s.modrm(x) {
			return false
		}
		x.op = x86asm.MOV
		size := s.osz
		if opc == 0x8a {
			size = 1
		}
		x.add(s.regArg(size))
		x.add(s.rmArg(x, size))
	case 0x8d:
		if !s.modrm(x) || !s.isMem {
			return false
		}
		x.op = x86asm.LEA
		x.add(s.regArg(s.osz))
		x.add(xtArg{kind: xtMem})
	case 0x90:
		switch {
		case s.i == 1:
			x.op = x86asm.NOP
		case s.i == 2 && s.n66 == 1:
			// IntelSyntax prints the data-size prefix of this nop.
			x.op, x.special = x86asm.NOP, "data16 nop"
		default:
			return false
		}
	case 0xcc:
		if s.i != 1 {
			return false
		}
		x.special = "int3"
	case 0x98, 0x99:
		if s.n66 > 0 {
			return false
		}
		x.op = [2][2]x86asm.Op{{x86asm.CWDE, x86asm.CDQE}, {x86asm.CDQ, x86asm.CQO}}[opc-0x98][s.rex>>3&1]
	case 0xa8:
		x.op = x86asm.TEST
		x.add(xtArg{kind: xtReg, reg: x86asm.AL})
		if a, ok = s.imm(1, true); !ok {
			return false
		}
		x.add(a)
	case 0xa9:
		x.op = x86asm.TEST
		x.add(xtArg{kind: xtReg, reg: xtRegOf(s.osz, 0, s.rex)})
		if a, ok = s.immz(); !ok {
			return false
		}
		x.add(a)
	case 0xc0, 0xc1, 0xd0, 0xd1, 0xd2, 0xd3:
		if !s.modrm(x) {
			return false
		}
		if x.op = xtShift[s.reg&7]; x.op == 0 {
			return false
		}
		size := s.osz
		if opc&1 == 0 {
			size = 1
		}
		x.add(s.rmArg(x, size))
		switch opc {
		case 0xc0, 0xc1:
			if a, ok = s.imm(1, true); !ok {
				return false
			}
			x.add(a)
		case 0xd0, 0xd1:
			x.add(xtArg{kind: xtImm, imm: 1})
		default:
			x.add(xtArg{kind: xtReg, reg: x86asm.CL})
		}
	case 0xc3, 0xc9:
		if s.rex != 0 || s.n66 > 0 {
			return false
		}
		x.op = x86asm.RET
		if opc == 0xc9 {
			x.op = x86asm.LEAVE
		}
	case 0xc6, 0xc7:
		if !s.modrm(x) || s.reg&7 != 0 {
			return false
		}
		x.op = x86asm.MOV
		if opc == 0xc6 {
			x.add(s.rmArg(x, 1))
			a, ok = s.imm(1, true)
		} else {
			x.add(s.rmArg(x, s.osz))
			a, ok = s.immz()
		}
		if !ok {
			return false
		}
		x.add(a)
	case 0xe8, 0xe9, 0xeb:
		if s.rex != 0 || s.n66 > 0 || s.seg != 0 {
			return false
		}
		x.op = x86asm.CALL
		n := 4
		switch opc {
		case 0xe9:
			x.op = x86asm.JMP
		case 0xeb:
			x.op, n = x86asm.JMP, 1
		}
		if a, ok = s.imm(n, false); !ok {
			return false
		}
		a.kind = xtRel
		x.add(a)
	case 0xf6, 0xf7:
		if !s.modrm(x) {
			return false
		}
		if x.op = xtGrp3[s.reg&7]; x.op == 0 {
			return false
		}
		size := s.osz
		if opc == 0xf6 {
			size = 1
		}
		x.add(s.rmArg(x, size))
		if x.op == x86asm.TEST {
			if opc == 0xf6 {
				a, ok = s.imm(1, true)
			} else {
				a, ok = s.immz()
			}
			if !ok {
				return false
			}
			x.add(a)
		}
	case 0xfe:
		if !s.modrm(x) || s.reg&7 > 1 {
			return false
		}
		x.op = [2]x86asm.Op{x86asm.INC, x86asm.DEC}[s.reg&7]
		x.add(s.rmArg(x, 1))
	case 0xff:
		if !s.modrm(x) {
			return false
		}
		switch s.reg & 7 {
		case 0, 1:
			x.op = [2]x86asm.Op{x86asm.INC, x86asm.DEC}[s.reg&7]
			x.add(s.rmArg(x, s.osz))
		case 2, 4, 6:
			if s.n66 > 0 || s.rex&8 != 0 {
				return false
			}
			x.op = [8]x86asm.Op{2: x86asm.CALL, 4: x86asm.JMP, 6: x86asm.PUSH}[s.reg&7]
			x.add(s.rmArg(x, 8))
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// xtDecode0F decodes a two-byte opcode; sse reports an operation whose
// F2, F3 or 66 prefix is part of the opcode.
func xtDecode0F(s *xtState, x *xtInst, opc byte) (ok, sse bool) {
	var a xtArg
	switch {
	case opc >= 0x40 && opc <= 0x4f:
		if !s.modrm(x) {
			return false, false
		}
		x.op = xtCmov[opc&15]
		x.add(s.regArg(s.osz))
		x.add(s.rmArg(x, s.osz))
		return true, false
	case opc >= 0x80 && opc <= 0x8f:
		if s.rex != 0 || s.n66 > 0 || s.seg != 0 {
			return false, false
		}
		x.op = xtJcc[opc&15]
		if a, ok = s.imm(4, false); !ok {
			return false, false
		}
		a.kind = xtRel
		x.add(a)
		return true, false
	case opc >= 0x90 && opc <= 0x9f:
		if !s.modrm(x) || s.reg&7 != 0 {
			return false, false
		}
		x.op = xtSet[opc&15]
		x.add(s.rmArg(x, 1))
		return true, false
	case opc >= 0xc8 && opc <= 0xcf:
		if s.n66 > 0 {
			return false, false
		}
		x.op = x86asm.BSWAP
		x.add(xtArg{kind: xtReg, reg: xtRegOf(s.osz, int(opc&7)|int(s.rex&1)<<3, s.rex)})
		return true, false
	}
	switch opc {
	case 0x0b:
		x.op = x86asm.UD2
		return s.rex == 0 && s.n66 == 0, false
	case 0x1e:
		return false, false
	case 0x1f:
		// The multi-byte nop: any number of 66 prefixes and a CS prefix.
		if s.rep || s.repn || s.rex&8 != 0 || s.seg != 0 || !s.modrm(x) || !s.isMem || s.reg&7 != 0 {
			return false, false
		}
		x.op = x86asm.NOP
		size := 4
		x.nopReg = "eax"
		if s.n66 > 0 {
			size, x.nopReg = 2, "ax"
		}
		x.add(s.rmArg(x, size))
		return true, true
	case 0xa3, 0xab, 0xb3, 0xbb:
		if !s.modrm(x) {
			return false, false
		}
		x.op = [4]x86asm.Op{x86asm.BT, x86asm.BTS, x86asm.BTR, x86asm.BTC}[(opc>>3)&3]
		x.add(s.rmArg(x, s.osz))
		x.add(s.regArg(s.osz))
		return true, false
	case 0xba:
		if !s.modrm(x) || s.reg&7 < 4 {
			return false, false
		}
		x.op = [4]x86asm.Op{x86asm.BT, x86asm.BTS, x86asm.BTR, x86asm.BTC}[s.reg&3]
		x.add(s.rmArg(x, s.osz))
		if a, ok = s.imm(1, true); !ok {
			return false, false
		}
		x.add(a)
		return true, false
	case 0xa4, 0xa5, 0xac, 0xad:
		if !s.modrm(x) {
			return false, false
		}
		x.op = x86asm.SHLD
		if opc >= 0xac {
			x.op = x86asm.SHRD
		}
		x.add(s.rmArg(x, s.osz))
		x.add(s.regArg(s.osz))
		if opc&1 == 0 {
			if a, ok = s.imm(1, true); !ok {
				return false, false
			}
			x.add(a)
		} else {
			x.add(xtArg{kind: xtReg, reg: x86asm.CL})
		}
		return true, false
	case 0xaf:
		if !s.modrm(x) {
			return false, false
		}
		x.op = x86asm.IMUL
		x.add(s.regArg(s.osz))
		x.add(s.rmArg(x, s.osz))
		return true, false
	case 0xb6, 0xb7, 0xbe, 0xbf:
		if !s.modrm(x) {
			return false, false
		}
		x.op = x86asm.MOVZX
		if opc >= 0xbe {
			x.op = x86asm.MOVSX
		}
		size := 1
		if opc&1 == 1 {
			size = 2
		}
		x.add(s.regArg(s.osz))
		x.add(s.rmArg(x, size))
		return true, false
	case 0xb8, 0xbc, 0xbd:
		if s.repn || s.n66 > 0 || !s.modrm(x) {
			return false, false
		}
		switch {
		case opc == 0xb8 && s.rep:
			x.op = x86asm.POPCNT
		case opc == 0xbc:
			x.op = x86asm.BSF
			if s.rep {
				x.op = x86asm.TZCNT
			}
		case opc == 0xbd:
			x.op = x86asm.BSR
			if s.rep {
				x.op = x86asm.LZCNT
			}
		default:
			return false, false
		}
		x.add(s.regArg(s.osz))
		x.add(s.rmArg(x, s.osz))
		return true, true
	case 0xb0, 0xb1, 0xc0, 0xc1:
		if !s.modrm(x) {
			return false, false
		}
		x.op = x86asm.XADD
		if opc < 0xc0 {
			x.op = x86asm.CMPXCHG
		}
		size := s.osz
		if opc == 0xc0 || opc == 0xb0 {
			size = 1
		}
		x.add(s.rmArg(x, size))
		x.add(s.regArg(size))
		return true, false
	}
	e := &xtSSETable[opc]
	if e.form == 0 {
		return false, false
	}
	k := 0
	switch {
	case s.n66 > 1, s.n66 == 1 && (s.rep || s.repn), s.rep && s.repn:
		return false, false
	case s.n66 == 1:
		k = 1
	case s.rep:
		k = 2
	case s.repn:
		k = 3
	}
	op := e.op[k]
	if op == 0 || !s.modrm(x) {
		return false, false
	}
	x.op = op
	mem := int(e.mem[k])
	xmm := func(n int) xtArg { return xtArg{kind: xtReg, reg: x86asm.X0 + x86asm.Reg(n)} }
	w := s.rex&8 != 0
	if w && e.form != xsCvtI2S && e.form != xsCvtS2I && e.form != xsMovdTo && e.form != xsMovdFrom {
		return false, false
	}
	switch e.form {
	case xsRM, xsRMi8, xsRMmem:
		if e.form == xsRMmem && !s.isMem {
			return false, false
		}
		x.add(xmm(s.reg))
		x.add(s.rmArg(x, 16))
	case xsMR, xsMRmem:
		if e.form == xsMRmem && !s.isMem {
			return false, false
		}
		x.add(s.rmArg(x, 16))
		x.add(xmm(s.reg))
	case xsCvtI2S:
		size := 4
		if w {
			size = 8
		}
		mem = size
		x.add(xmm(s.reg))
		x.add(s.rmArg(x, size))
	case xsCvtS2I:
		size := 4
		if w {
			size = 8
		}
		x.add(s.regArg(size))
		x.add(s.rmArg(x, 16))
	case xsMovdTo, xsMovdFrom:
		size := 4
		if k == 2 {
			// F3 0F 7E: movq xmm, xmm/m64
			if e.form != xsMovdFrom || w {
				return false, false
			}
			x.add(xmm(s.reg))
			x.add(s.rmArg(x, 16))
			break
		}
		if w {
			size, x.op = 8, x86asm.MOVQ
		}
		mem = size
		if e.form == xsMovdTo {
			x.add(xmm(s.reg))
			x.add(s.rmArg(x, size))
		} else {
			x.add(s.rmArg(x, size))
			x.add(xmm(s.reg))
		}
	case xsMskR:
		if s.isMem {
			return false, false
		}
		x.add(xtArg{kind: xtReg, reg: xtRegOf(4, s.reg, s.rex)})
		x.add(xmm(s.rm))
	}
	if s.isMem {
		x.memBytes = mem
	}
	if e.form == xsRMi8 {
		if a, ok = s.imm(1, true); !ok {
			return false, false
		}
		x.add(a)
	}
	return true, true
}

// xtTables are the mnemonics and register names appendXText prints,
// fetched once per chunk instead of once per instruction.
type xtTables struct {
	ops  *[intelOps]string
	regs *[x86asm.TR7 + 1]string
}

func xtTabs() xtTables { return xtTables{xtNames(), &intelNames().regs} }

// appendXText appends the text appendIntel gives x86asm's decoding of the
// same instruction at pc.
func appendXText(dst []byte, x *xtInst, pc uint64) []byte {
	return appendXTextT(dst, x, pc, xtTabs())
}

func appendXTextT(dst []byte, x *xtInst, pc uint64, tb xtTables) []byte {
	if x.special != "" {
		return append(dst, x.special...)
	}
	if x.lock {
		dst = append(dst, "lock "...)
	}
	dst = append(dst, tb.ops[x.op]...)
	inst := x86asm.Inst{Op: x.op, MemBytes: x.memBytes, Mode: 64}
	for i := 0; i < x.nargs; i++ {
		a := &x.args[i]
		if i == 0 {
			dst = append(dst, ' ')
		} else {
			dst = append(dst, ", "...)
		}
		switch a.kind {
		case xtReg:
			dst = append(dst, tb.regs[a.reg]...)
		case xtImm:
			if int64(int32(a.imm)) == a.imm && a.imm < 0 {
				dst = appendHex(append(dst, '-'), uint64(-a.imm))
			} else {
				dst = appendHex(dst, uint64(a.imm))
			}
		case xtRel:
			dst = appendHex(dst, pc+uint64(x.length)+uint64(a.imm))
		case xtMem:
			dst = appendIntelMem(dst, &inst, x.mem, i, tb.regs[:])
		}
	}
	if x.nopReg != "" {
		dst = append(append(dst, ", "...), x.nopReg...)
	}
	return dst
}

// appendXTextNamed appends what appendText gives for x at pc: its text,
// the address of a RIP-relative operand with its name, and the name of the
// transfer's target.
func appendXTextNamed(dst []byte, x *xtInst, pc uint64, in *insn, name func(uint64) string) []byte {
	return appendXTextNamedT(dst, x, pc, in, name, xtTabs())
}

func appendXTextNamedT(dst []byte, x *xtInst, pc uint64, in *insn, name func(uint64) string, tb xtTables) []byte {
	dst = appendXTextT(dst, x, pc, tb)
	if x.mem.Base == x86asm.RIP {
		addr := pc + uint64(x.length) + uint64(x.mem.Disp)
		dst = appendNameOf(appendHex(append(dst, "  # "...), addr), name, addr)
	}
	if in.hasTarget {
		dst = appendNameOf(dst, name, in.target)
	}
	return dst
}

// xtStep fills in what step gives the text for x at pc: its size and the
// target of a relative transfer.
func xtStep(x *xtInst, pc uint64, in *insn) {
	*in = insn{addr: pc, size: x.length}
	for i := 0; i < x.nargs; i++ {
		if x.args[i].kind == xtRel {
			in.target, in.hasTarget = pc+uint64(x.length)+uint64(x.args[i].imm), true
		}
	}
}

// appendXTextLine appends the line appendTextLine gives x at pc.
func appendXTextLine(dst, b []byte, pc uint64, x *xtInst, name func(uint64) string) []byte {
	return appendXTextLineT(dst, b, pc, x, name, xtTabs())
}

func appendXTextLineT(dst, b []byte, pc uint64, x *xtInst, name func(uint64) string, tb xtTables) []byte {
	var in insn
	xtStep(x, pc, &in)
	dst = appendHexPad(dst, pc, 8)
	dst = append(dst, ':', '\t')
	dst = appendHexColumn(dst, b[:x.length], hexColumn)
	dst = append(dst, '\t')
	dst = appendXTextNamedT(dst, x, pc, &in, name, tb)
	for len(dst) > 0 && dst[len(dst)-1] == ' ' {
		dst = dst[:len(dst)-1]
	}
	return append(dst, '\n')
}
