package native

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"rea/ports"
)

// The CIL decoder (ECMA-335 III): one-byte opcodes and the 0xFE-prefixed
// two-byte ones, each with its operand. Branch targets are absolute
// addresses, as rea shows every architecture's; a token operand is named
// from the metadata (a method as [assembly]Namespace.Type::Method, a user
// string quoted) and refers to the address clrTokens.address gives it.

// CIL operand kinds.
const (
	opNone   = iota
	opU8     // ShortInlineVar, unaligned., no.
	opI8     // ShortInlineI
	opBr8    // ShortInlineBrTarget
	opU16    // InlineVar
	opI32    // InlineI
	opBr32   // InlineBrTarget
	opI64    // InlineI8
	opR4     // ShortInlineR
	opR8     // InlineR
	opTok    // InlineMethod, InlineField, InlineType, InlineString, InlineSig, InlineTok
	opSwitch // InlineSwitch
)

// cilOp is one opcode: its mnemonic, operand, flow, and for a token what
// the instruction does with its referent.
type cilOp struct {
	name string
	arg  uint8
	flow ports.Flow
	ref  uint8 // kindCall, kindJump, kindRead, kindWrite, kindAddress, or cilNoRef
}

const cilNoRef = 0xff

var cilOps1, cilOps2 [256]cilOp

func init() {
	set := func(t *[256]cilOp, code int, name string, arg uint8) *cilOp {
		t[code] = cilOp{name: name, arg: arg, ref: cilNoRef}
		return &t[code]
	}
	one := func(code int, name string, arg uint8) *cilOp { return set(&cilOps1, code, name, arg) }
	two := func(code int, name string, arg uint8) *cilOp { return set(&cilOps2, code, name, arg) }
	for i, n := range []string{"nop", "break", "ldarg.0", "ldarg.1", "ldarg.2", "ldarg.3", "ldloc.0", "ldloc.1", "ldloc.2", "ldloc.3",
		"stloc.0", "stloc.1", "stloc.2", "stloc.3"} {
		one(i, n, opNone)
	}
	for i, n := range []string{"ldarg.s", "ldarga.s", "starg.s", "ldloc.s", "ldloca.s", "stloc.s"} {
		one(0x0e+i, n, opU8)
	}
	one(0x14, "ldnull", opNone)
	for i, n := range []string{"ldc.i4.m1", "ldc.i4.0", "ldc.i4.1", "ldc.i4.2", "ldc.i4.3", "ldc.i4.4", "ldc.i4.5", "ldc.i4.6", "ldc.i4.7", "ldc.i4.8"} {
		one(0x15+i, n, opNone)
	}
	one(0x1f, "ldc.i4.s", opI8)
	one(0x20, "ldc.i4", opI32)
	one(0x21, "ldc.i8", opI64)
	one(0x22, "ldc.r4", opR4)
	one(0x23, "ldc.r8", opR8)
	one(0x25, "dup", opNone)
	one(0x26, "pop", opNone)
	j := one(0x27, "jmp", opTok)
	j.flow, j.ref = ports.FlowJump, kindJump
	c := one(0x28, "call", opTok)
	c.flow, c.ref = ports.FlowCall, kindCall
	one(0x29, "calli", opTok).flow = ports.FlowCall
	one(0x2a, "ret", opNone).flow = ports.FlowReturn
	branches := []string{"br", "brfalse", "brtrue", "beq", "bge", "bgt", "ble", "blt", "bne.un", "bge.un", "bgt.un", "ble.un", "blt.un"}
	for i, n := range branches {
		flow := ports.FlowBranch
		if i == 0 {
			flow = ports.FlowJump
		}
		one(0x2b+i, n+".s", opBr8).flow = flow
		one(0x38+i, n, opBr32).flow = flow
	}
	one(0x45, "switch", opSwitch).flow = ports.FlowBranch
	for i, n := range []string{"ldind.i1", "ldind.u1", "ldind.i2", "ldind.u2", "ldind.i4", "ldind.u4", "ldind.i8", "ldind.i", "ldind.r4", "ldind.r8", "ldind.ref",
		"stind.ref", "stind.i1", "stind.i2", "stind.i4", "stind.i8", "stind.r4", "stind.r8",
		"add", "sub", "mul", "div", "div.un", "rem", "rem.un", "and", "or", "xor", "shl", "shr", "shr.un", "neg", "not",
		"conv.i1", "conv.i2", "conv.i4", "conv.i8", "conv.r4", "conv.r8", "conv.u4", "conv.u8"} {
		one(0x46+i, n, opNone)
	}
	cv := one(0x6f, "callvirt", opTok)
	cv.flow, cv.ref = ports.FlowCall, kindCall
	for i, n := range []string{"cpobj", "ldobj", "ldstr", "newobj", "castclass", "isinst"} {
		op := one(0x70+i, n, opTok)
		switch n {
		case "ldstr":
			op.ref = kindAddress
		case "newobj":
			op.flow, op.ref = ports.FlowCall, kindCall
		}
	}
	one(0x76, "conv.r.un", opNone)
	one(0x79, "unbox", opTok)
	one(0x7a, "throw", opNone).flow = ports.FlowStop
	for i, n := range []string{"ldfld", "ldflda", "stfld", "ldsfld", "ldsflda", "stsfld"} {
		op := one(0x7b+i, n, opTok)
		op.ref = kindRead
		if n == "stfld" || n == "stsfld" {
			op.ref = kindWrite
		} else if n == "ldflda" || n == "ldsflda" {
			op.ref = kindAddress
		}
	}
	one(0x81, "stobj", opTok)
	for i, n := range []string{"conv.ovf.i1.un", "conv.ovf.i2.un", "conv.ovf.i4.un", "conv.ovf.i8.un", "conv.ovf.u1.un", "conv.ovf.u2.un",
		"conv.ovf.u4.un", "conv.ovf.u8.un", "conv.ovf.i.un", "conv.ovf.u.un"} {
		one(0x82+i, n, opNone)
	}
	one(0x8c, "box", opTok)
	one(0x8d, "newarr", opTok)
	one(0x8e, "ldlen", opNone)
	one(0x8f, "ldelema", opTok)
	for i, n := range []string{"ldelem.i1", "ldelem.u1", "ldelem.i2", "ldelem.u2", "ldelem.i4", "ldelem.u4", "ldelem.i8", "ldelem.i", "ldelem.r4",
		"ldelem.r8", "ldelem.ref", "stelem.i", "stelem.i1", "stelem.i2", "stelem.i4", "stelem.i8", "stelem.r4", "stelem.r8", "stelem.ref"} {
		one(0x90+i, n, opNone)
	}
	one(0xa3, "ldelem", opTok)
	one(0xa4, "stelem", opTok)
	one(0xa5, "unbox.any", opTok)
	for i, n := range []string{"conv.ovf.i1", "conv.ovf.u1", "conv.ovf.i2", "conv.ovf.u2", "conv.ovf.i4", "conv.ovf.u4", "conv.ovf.i8", "conv.ovf.u8"} {
		one(0xb3+i, n, opNone)
	}
	one(0xc2, "refanyval", opTok)
	one(0xc3, "ckfinite", opNone)
	one(0xc6, "mkrefany", opTok)
	one(0xd0, "ldtoken", opTok)
	for i, n := range []string{"conv.u2", "conv.u1", "conv.i", "conv.ovf.i", "conv.ovf.u", "add.ovf", "add.ovf.un", "mul.ovf", "mul.ovf.un", "sub.ovf", "sub.ovf.un"} {
		one(0xd1+i, n, opNone)
	}
	one(0xdc, "endfinally", opNone).flow = ports.FlowReturn
	one(0xdd, "leave", opBr32).flow = ports.FlowJump
	one(0xde, "leave.s", opBr8).flow = ports.FlowJump
	one(0xdf, "stind.i", opNone)
	one(0xe0, "conv.u", opNone)

	for i, n := range []string{"arglist", "ceq", "cgt", "cgt.un", "clt", "clt.un"} {
		two(i, n, opNone)
	}
	two(0x06, "ldftn", opTok).ref = kindAddress
	two(0x07, "ldvirtftn", opTok).ref = kindAddress
	for i, n := range []string{"ldarg", "ldarga", "starg", "ldloc", "ldloca", "stloc"} {
		two(0x09+i, n, opU16)
	}
	two(0x0f, "localloc", opNone)
	two(0x11, "endfilter", opNone).flow = ports.FlowReturn
	two(0x12, "unaligned.", opU8)
	two(0x13, "volatile.", opNone)
	two(0x14, "tail.", opNone)
	two(0x15, "initobj", opTok)
	two(0x16, "constrained.", opTok)
	two(0x17, "cpblk", opNone)
	two(0x18, "initblk", opNone)
	two(0x19, "no.", opU8)
	two(0x1a, "rethrow", opNone).flow = ports.FlowStop
	two(0x1c, "sizeof", opTok)
	two(0x1d, "refanytype", opNone)
	two(0x1e, "readonly.", opNone)
}

// maxCILSwitch bounds a switch's targets (cilMaxInsn is its length).
const (
	maxCILSwitch = 1 << 14
	cilMaxInsn   = 5 + 4*maxCILSwitch
)

// cilDecoder decodes CIL with the assembly's tokens.
type cilDecoder struct {
	tok   *clrTokens
	refs  [1]xref
	table []uint64
}

// decodeCIL decodes the instruction at b: its opcode, length and operand
// bytes, or ok false when b holds no whole instruction.
func decodeCIL(b []byte) (op *cilOp, n int, arg []byte, ok bool) {
	if len(b) == 0 {
		return nil, 0, nil, false
	}
	op, n = &cilOps1[b[0]], 1
	if b[0] == 0xfe {
		if len(b) < 2 {
			return nil, 0, nil, false
		}
		op, n = &cilOps2[b[1]], 2
	}
	if op.name == "" {
		return nil, 0, nil, false
	}
	size := 0
	switch op.arg {
	case opU8, opI8, opBr8:
		size = 1
	case opU16:
		size = 2
	case opI32, opBr32, opR4, opTok:
		size = 4
	case opI64, opR8:
		size = 8
	case opSwitch:
		if len(b) < n+4 {
			return nil, 0, nil, false
		}
		k := binary.LittleEndian.Uint32(b[n:])
		if k > maxCILSwitch {
			return nil, 0, nil, false
		}
		size = 4 + 4*int(k)
	}
	if len(b) < n+size {
		return nil, 0, nil, false
	}
	return op, n + size, b[n : n+size], true
}

func (d *cilDecoder) reset([]byte, uint64) {}

func (d *cilDecoder) step(b []byte, pc uint64, out *insn) {
	op, n, arg, ok := decodeCIL(b)
	out.addr = pc
	if !ok {
		out.size, out.invalid, out.flow = 1, true, ports.FlowStop
		return
	}
	out.size, out.flow = n, op.flow
	next := pc + uint64(n)
	switch op.arg {
	case opBr8:
		out.target, out.hasTarget = next+uint64(int64(int8(arg[0]))), true
	case opBr32:
		out.target, out.hasTarget = next+uint64(int64(int32(binary.LittleEndian.Uint32(arg)))), true
	case opSwitch:
		d.table = d.table[:0]
		for i := 4; i+4 <= len(arg); i += 4 {
			d.table = append(d.table, next+uint64(int64(int32(binary.LittleEndian.Uint32(arg[i:])))))
		}
		out.table = d.table
	case opTok:
		if op.ref == cilNoRef || d.tok == nil {
			break
		}
		to, body := d.tok.address(binary.LittleEndian.Uint32(arg))
		if to == 0 {
			break
		}
		x := xref{from: pc, to: to, kind: op.ref}
		if (op.ref == kindCall || op.ref == kindJump) && !body {
			// A member of another assembly, a P/Invoke or a method
			// without a body: a call through its metadata row, as a call
			// through an import's slot.
			x.flags = flagUnresolved
		} else if op.ref == kindCall || op.ref == kindJump {
			out.target, out.hasTarget = to, true
		}
		d.refs[0] = x
		out.refs = d.refs[:1]
	}
}

func (d *cilDecoder) format(b []byte, pc uint64, in *insn, name func(uint64) string) ports.Instruction {
	out := ports.Instruction{Address: pc, Bytes: append([]byte(nil), b[:min(in.size, len(b))]...), Flow: in.flow,
		Target: in.target, HasTarget: in.hasTarget, Invalid: in.invalid}
	op, n, arg, ok := decodeCIL(b)
	if in.invalid || !ok {
		out.Mnemonic, out.Text = "(bad)", "(bad)"
		return out
	}
	text := d.appendDecoded(nil, op, n, arg, pc, in)
	out.Mnemonic, out.Text = op.name, string(text)
	if len(text) > len(op.name) {
		out.Operands = string(text[len(op.name)+1:])
	}
	return out
}

func (d *cilDecoder) appendText(dst, b []byte, pc uint64, in *insn, name func(uint64) string) []byte {
	op, n, arg, ok := decodeCIL(b)
	if !ok {
		return append(dst, "(bad)"...)
	}
	return d.appendDecoded(dst, op, n, arg, pc, in)
}

// appendDecoded appends the text of the instruction decodeCIL gave as op,
// its length n and its operand bytes arg.
func (d *cilDecoder) appendDecoded(dst []byte, op *cilOp, n int, arg []byte, pc uint64, in *insn) []byte {
	dst = append(dst, op.name...)
	if op.arg == opNone {
		return dst
	}
	dst = append(dst, ' ')
	next := pc + uint64(n)
	le := binary.LittleEndian
	switch op.arg {
	case opU8:
		dst = strconv.AppendUint(dst, uint64(arg[0]), 10)
	case opI8:
		dst = strconv.AppendInt(dst, int64(int8(arg[0])), 10)
	case opU16:
		dst = strconv.AppendUint(dst, uint64(le.Uint16(arg)), 10)
	case opI32:
		dst = strconv.AppendInt(dst, int64(int32(le.Uint32(arg))), 10)
	case opI64:
		dst = strconv.AppendInt(dst, int64(le.Uint64(arg)), 10)
	case opR4:
		dst = strconv.AppendFloat(dst, float64(math.Float32frombits(le.Uint32(arg))), 'g', -1, 32)
	case opR8:
		dst = strconv.AppendFloat(dst, math.Float64frombits(le.Uint64(arg)), 'g', -1, 64)
	case opBr8, opBr32:
		dst = fmt.Appendf(dst, "0x%x", in.target)
	case opSwitch:
		dst = append(dst, '(')
		for i := 4; i+4 <= len(arg); i += 4 {
			if i > 4 {
				dst = append(dst, ", "...)
			}
			dst = fmt.Appendf(dst, "0x%x", next+uint64(int64(int32(le.Uint32(arg[i:])))))
		}
		dst = append(dst, ')')
	case opTok:
		tok := le.Uint32(arg)
		if d.tok == nil {
			return fmt.Appendf(dst, "0x%08x", tok)
		}
		dst = append(dst, d.tok.text(tok)...)
	}
	return dst
}
