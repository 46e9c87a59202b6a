package native

import (
	"strconv"
	"strings"
	"sync"

	"golang.org/x/arch/x86/x86asm"
)

// Intel syntax without allocation. appendIntel appends the text of
// x86asm.IntelSyntax(inst, pc, nil) (with lea's "ptr" dropped, as format
// drops it). The common instructions (integer operations with register,
// immediate, memory and relative operands, and no prefix but REX) are
// rendered here, into dst; everything else (other prefixes, x87, string
// operations, AVX-512 masks and the other operations IntelSyntax treats
// specially) goes through IntelSyntax itself. The mnemonic and register
// names come from IntelSyntax too (intelNames), so the two agree by
// construction; TestAppendIntelMatchesIntelSyntax checks every instruction
// of real binaries.

// intelOps bounds the operation numbers of intelFast.
const intelOps = 1 << 11

// intelFast are the operations rendered here: IntelSyntax gives them no
// special treatment beyond what appendIntelFast reproduces.
var intelFast = func() (ok [intelOps]bool) {
	for _, op := range []x86asm.Op{
		x86asm.ADC, x86asm.ADD, x86asm.AND, x86asm.BSF, x86asm.BSR, x86asm.BSWAP, x86asm.BT, x86asm.BTC,
		x86asm.BTR, x86asm.BTS, x86asm.CALL, x86asm.CDQ, x86asm.CDQE, x86asm.CMP, x86asm.CQO,
		x86asm.CMOVA, x86asm.CMOVAE, x86asm.CMOVB, x86asm.CMOVBE, x86asm.CMOVE, x86asm.CMOVG, x86asm.CMOVGE,
		x86asm.CMOVL, x86asm.CMOVLE, x86asm.CMOVNE, x86asm.CMOVNO, x86asm.CMOVNP, x86asm.CMOVNS, x86asm.CMOVO,
		x86asm.CMOVP, x86asm.CMOVS, x86asm.CMPXCHG, x86asm.DEC, x86asm.DIV, x86asm.IDIV, x86asm.IMUL, x86asm.INC,
		x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE, x86asm.JL, x86asm.JLE,
		x86asm.JMP, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS,
		x86asm.LEA, x86asm.LEAVE, x86asm.MOV, x86asm.MOVSX, x86asm.MOVSXD, x86asm.MOVZX, x86asm.MUL,
		x86asm.NEG, x86asm.NOT, x86asm.OR, x86asm.POP, x86asm.PUSH, x86asm.RET, x86asm.ROL, x86asm.ROR,
		x86asm.SAR, x86asm.SBB, x86asm.SETA, x86asm.SETAE, x86asm.SETB, x86asm.SETBE, x86asm.SETE, x86asm.SETG,
		x86asm.SETGE, x86asm.SETL, x86asm.SETLE, x86asm.SETNE, x86asm.SETNO, x86asm.SETNP, x86asm.SETNS,
		x86asm.SETO, x86asm.SETP, x86asm.SETS, x86asm.SHL, x86asm.SHLD, x86asm.SHR, x86asm.SHRD, x86asm.SUB,
		x86asm.TEST, x86asm.XADD, x86asm.XCHG, x86asm.XOR,
		x86asm.MOVAPS, x86asm.MOVUPS, x86asm.XORPS, x86asm.ANDPS, x86asm.ORPS, x86asm.MOVHLPS, x86asm.MOVLHPS,
		x86asm.UNPCKLPS, x86asm.SHUFPS, x86asm.ADDPS, x86asm.MULPS, x86asm.SUBPS, x86asm.DIVPS,
		x86asm.NOP, x86asm.MOVD, x86asm.MOVQ, x86asm.MOVDQA, x86asm.MOVDQU, x86asm.MOVSD_XMM, x86asm.MOVSS,
		x86asm.MOVAPD, x86asm.MOVUPD, x86asm.PXOR, x86asm.POR, x86asm.PAND, x86asm.PANDN, x86asm.PCMPEQB,
		x86asm.PCMPEQD, x86asm.PMOVMSKB, x86asm.PSHUFD, x86asm.PUNPCKLQDQ, x86asm.PUNPCKLBW, x86asm.PADDD,
		x86asm.PADDQ, x86asm.PSUBD, x86asm.CVTSI2SD, x86asm.CVTSI2SS, x86asm.CVTTSD2SI, x86asm.CVTTSS2SI,
		x86asm.CVTSS2SD, x86asm.CVTSD2SS, x86asm.UCOMISD, x86asm.UCOMISS, x86asm.COMISD, x86asm.COMISS,
		x86asm.ADDSD, x86asm.SUBSD, x86asm.MULSD, x86asm.DIVSD, x86asm.ADDSS, x86asm.SUBSS, x86asm.MULSS,
		x86asm.DIVSS, x86asm.SQRTSD, x86asm.ANDPD, x86asm.XORPD, x86asm.ANDNPS, x86asm.MAXSD, x86asm.MINSD,
		x86asm.VMOVDQU, x86asm.VMOVDQA, x86asm.VMOVUPS, x86asm.VMOVAPS, x86asm.VPXOR, x86asm.VPCMPEQB,
		x86asm.VPMOVMSKB, x86asm.VPOR, x86asm.VPAND, x86asm.VMOVQ, x86asm.VMOVD, x86asm.VXORPS,
		x86asm.TZCNT, x86asm.LZCNT, x86asm.POPCNT,
	} {
		ok[op] = true
	}
	return ok
}()

// intelNames are the mnemonics and register names IntelSyntax prints,
// read from IntelSyntax once.
var intelNames = sync.OnceValue(func() *intelNameTable {
	n := new(intelNameTable)
	for op := range n.ops {
		if intelFast[op] {
			text := x86asm.IntelSyntax(x86asm.Inst{Op: x86asm.Op(op), Len: 1, Mode: 64, Args: x86asm.Args{x86asm.RAX}}, 0x1000, nil)
			n.ops[op], _, _ = strings.Cut(text, " ")
		}
	}
	for r := x86asm.AL; r <= x86asm.TR7; r++ {
		text := x86asm.IntelSyntax(x86asm.Inst{Op: x86asm.NOT, Len: 1, Mode: 64, Args: x86asm.Args{r}}, 0x1000, nil)
		n.regs[r] = strings.TrimPrefix(text, "not ")
	}
	return n
})

type intelNameTable struct {
	ops  [intelOps]string
	regs [x86asm.TR7 + 1]string
}

// appendIntel appends x86asm.IntelSyntax(inst, pc, nil), with lea's
// "ptr" dropped as format drops it.
func appendIntel(dst []byte, inst x86asm.Inst, pc uint64) []byte {
	if out, ok := appendIntelFast(dst, &inst, pc); ok {
		return out
	}
	text := x86asm.IntelSyntax(inst, pc, nil)
	if inst.Op == x86asm.LEA {
		if i := strings.Index(text, ", ptr ["); i >= 0 {
			return append(append(append(dst, text[:i]...), ", ["...), text[i+len(", ptr ["):]...)
		}
	}
	return append(dst, text...)
}

// appendIntelFast renders the instructions of intelFast, or reports false
// (leaving dst as it was) for anything else.
func appendIntelFast(dst []byte, inst *x86asm.Inst, pc uint64) ([]byte, bool) {
	op := inst.Op
	if int(op) >= len(intelFast) || !intelFast[op] || pc == 0 || inst.Broadcast || inst.SAE || inst.Zeroing {
		return dst, false
	}
	// IntelSyntax prints a data-size prefix of these (NOP only as 0x90).
	zeroArg := op == x86asm.LEAVE || op == x86asm.RET || op == x86asm.CDQE || op == x86asm.CQO ||
		(op == x86asm.NOP && inst.Opcode>>24 == 0x90)
	for i := 0; i < len(inst.Prefix); i++ {
		p := inst.Prefix[i]
		switch {
		case p == 0:
			i = len(inst.Prefix)
		case p.IsREX():
		case zeroArg:
			return dst, false
		case p == x86asm.PrefixVEX3Bytes:
			i += 2 // IntelSyntax hides a VEX prefix and its payload
		case p&0xFF == x86asm.PrefixVEX2Bytes:
			i++
		case p&0xFF == x86asm.PrefixVEX3Bytes:
			return dst, false
		case p == x86asm.PrefixES, p == x86asm.PrefixCS, p == x86asm.PrefixSS, p == x86asm.PrefixDS,
			p == x86asm.PrefixFS, p == x86asm.PrefixGS:
			// not printed before an instruction; the memory operand shows it
		case p&(x86asm.PrefixImplicit|x86asm.PrefixIgnored) != 0:
		case p == x86asm.PrefixData16, p == x86asm.PrefixData32:
			// IntelSyntax marks these implicit
		default:
			return dst, false
		}
	}
	if op == x86asm.NOP && inst.Opcode>>24 != 0x90 && inst.Opcode>>24 != 0x0F {
		return dst, false
	}
	switch op {
	case x86asm.MOV:
		// Segment and control registers, and the moffs forms, are special.
		if inst.Opcode>>24&^3 == 0xA0 || (inst.Opcode>>16)&0xFFFC == 0x0F20 {
			return dst, false
		}
	case x86asm.PUSH:
		if _, ok := inst.Args[0].(x86asm.Imm); ok {
			return dst, false
		}
	}
	names := intelNames()
	for _, a := range inst.Args {
		if r, ok := a.(x86asm.Reg); ok && (int(r) >= len(names.regs) || names.regs[r] == "" || (r >= x86asm.ES && r <= x86asm.GS)) {
			return dst, false
		}
		if m, ok := a.(x86asm.Mem); ok {
			for _, r := range []x86asm.Reg{m.Base, m.Index} {
				if r != 0 && (int(r) >= len(names.regs) || names.regs[r] == "") {
					return dst, false
				}
			}
			if m.Scale == 1 && m.Index != 0 && (inst.AddrSize == 16 || m.Base == 0) {
				return dst, false
			}
		}
	}
	start := len(dst)
	dst = append(dst, names.ops[op]...)
	for i, a := range inst.Args {
		if a == nil {
			break
		}
		if i == 0 {
			dst = append(dst, ' ')
		} else {
			dst = append(dst, ", "...)
		}
		switch a := a.(type) {
		case x86asm.Reg:
			dst = append(dst, names.regs[a]...)
		case x86asm.Imm:
			switch {
			case inst.Mode == 32:
				dst = appendHex(dst, uint64(uint32(a)))
			case x86asm.Imm(int32(a)) == a && a < 0:
				dst = appendHex(append(dst, '-'), uint64(-int64(a)))
			default:
				dst = appendHex(dst, uint64(a))
			}
		case x86asm.Rel:
			dst = appendHex(dst, pc+uint64(inst.Len)+uint64(a))
		case x86asm.Mem:
			dst = appendIntelMem(dst, inst, a, i, names.regs[:])
		default:
			return dst[:start], false
		}
	}
	if op == x86asm.NOP && inst.Opcode>>24 == 0x0F {
		// IntelSyntax adds the register operand of the 0F 1F form.
		if inst.DataSize == 16 {
			dst = append(dst, ", ax"...)
		} else {
			dst = append(dst, ", eax"...)
		}
	}
	return dst, true
}

// intelSize is the operand-size word of a memory operand of n bytes.
func intelSize(n int) string {
	switch n {
	case 1:
		return "byte "
	case 2:
		return "word "
	case 4:
		return "dword "
	case 8:
		return "qword "
	case 16:
		return "xmmword "
	case 32:
		return "ymmword "
	case 64:
		return "zmmword "
	}
	return ""
}

func appendIntelMem(dst []byte, inst *x86asm.Inst, a x86asm.Mem, i int, regs []string) []byte {
	if a.Base == x86asm.EIP {
		a.Base = x86asm.RIP
	}
	size := intelSize(inst.MemBytes)
	switch {
	case inst.Op == x86asm.LEA:
		a.Segment = 0
	case a.Base == x86asm.SP || a.Base == x86asm.ESP || a.Base == x86asm.RSP ||
		a.Base == x86asm.BP || a.Base == x86asm.EBP || a.Base == x86asm.RBP:
		if a.Segment == x86asm.SS {
			a.Segment = 0
		}
	case a.Segment == x86asm.DS:
		a.Segment = 0
	}
	if inst.Mode == 64 && a.Segment != x86asm.FS && a.Segment != x86asm.GS {
		a.Segment = 0
	}
	dst = append(dst, size...)
	// format turns lea's ", ptr [" into ", [".
	if !(inst.Op == x86asm.LEA && i > 0 && size == "" && a.Segment == 0) {
		dst = append(dst, "ptr "...)
	}
	if a.Segment != 0 {
		dst = append(append(dst, regs[a.Segment]...), ':')
	}
	dst = append(dst, '[')
	open := len(dst)
	if a.Base != 0 {
		dst = append(dst, regs[a.Base]...)
	}
	if a.Scale != 0 && a.Index != 0 {
		if a.Base != 0 {
			dst = append(dst, '+')
		}
		if a.Scale != 1 {
			dst = append(strconv.AppendInt(dst, int64(a.Scale), 10), '*')
		}
		dst = append(dst, regs[a.Index]...)
	}
	if a.Disp != 0 {
		switch {
		case len(dst) == open && (a.Disp >= 0 || int64(int32(a.Disp)) != a.Disp):
			dst = appendHex(dst, uint64(a.Disp))
		case a.Disp < 0:
			dst = appendHex(append(dst, '-'), uint64(-a.Disp))
		default:
			dst = appendHex(append(dst, '+'), uint64(a.Disp))
		}
	}
	return append(dst, ']')
}
