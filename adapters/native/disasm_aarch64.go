package native

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/arch/arm64/arm64asm"

	"rea/ports"
)

// arm64Decoder classifies AArch64 instructions from their encoding bits
// (fast enough for whole-binary sweeps) and renders them with arm64asm.
// It tracks the page addresses loaded by ADRP (and ADR) into registers
// within straight-line code, so that ADRP+ADD yields an address reference
// and ADRP+LDR/STR a data read or write.
type arm64Decoder struct {
	mm    *memMap
	src   source // reads jump tables (disasm_aarch64_switch.go)
	sw    armTable
	regs  [32]uint64
	known uint32 // bit i: regs[i] holds an address
	// loaded bit i: register i holds the word an LDR read from slots[i]
	// (a GOT slot, for a -fno-plt call: adrp; ldr x8, [x8, #off]; blr x8).
	loaded uint32
	slots  [32]uint64
	refs   [2]xref
}

func (d *arm64Decoder) reset(code []byte, base uint64) {
	d.known, d.loaded = 0, 0
	d.sw.reset(code, base)
}

func sext(v uint64, bits uint) int64 { return int64(v<<(64-bits)) >> (64 - bits) }

func (d *arm64Decoder) set(r uint32, v uint64) {
	if r < 31 {
		d.regs[r], d.known, d.loaded = v, d.known|1<<r, d.loaded&^(1<<r)
	}
}

func (d *arm64Decoder) get(r uint32) (uint64, bool) {
	if r < 31 && d.known&(1<<r) != 0 {
		return d.regs[r], true
	}
	return 0, false
}

func (d *arm64Decoder) clear(r uint32) {
	if r < 31 {
		d.known &^= 1 << r
		d.loaded &^= 1 << r
	}
}

// slotOf is the slot a register's word was loaded from (0: none known).
func (d *arm64Decoder) slotOf(r uint32) uint64 {
	if r < 31 && d.loaded&(1<<r) != 0 {
		return d.slots[r]
	}
	return 0
}

// step classifies the instruction by its encoding:
//
//	B, BL, B.cond, BC.cond, CBZ/CBNZ, TBZ/TBNZ: direct transfers
//	BR, BLR, RET and their pointer-authenticated forms: indirect transfers
//	BRK, HLT, UDF: stops
//	ADRP, ADR, ADD (immediate), LDR/STR (unsigned offset), LDP/STP, LDR (literal): references
func (d *arm64Decoder) step(b []byte, pc uint64, out *insn) {
	out.addr, out.size = pc, 4
	if len(b) < 4 {
		out.size, out.flow, out.invalid = len(b), ports.FlowStop, true
		return
	}
	x := binary.LittleEndian.Uint32(b)
	refs := d.refs[:0]
	rd := x & 31
	switch {
	case x&0x7c000000 == 0x14000000: // B, BL
		out.target, out.hasTarget = pc+uint64(sext(uint64(x&0x3ffffff)<<2, 28)), true
		if x&0x80000000 != 0 {
			out.flow = ports.FlowCall
			refs = append(refs, xref{from: pc, to: out.target, kind: kindCall})
		} else {
			out.flow = ports.FlowJump
			refs = append(refs, xref{from: pc, to: out.target, kind: kindJump})
		}
		d.known, d.loaded = 0, 0
	case x&0xff000000 == 0x54000000, x&0x7e000000 == 0x34000000: // B.cond, BC.cond, CBZ, CBNZ
		out.flow = ports.FlowBranch
		out.target, out.hasTarget = pc+uint64(sext(uint64(x>>5&0x7ffff)<<2, 21)), true
		refs = append(refs, xref{from: pc, to: out.target, kind: kindJump})
		d.known, d.loaded = 0, 0
	case x&0x7e000000 == 0x36000000: // TBZ, TBNZ
		out.flow = ports.FlowBranch
		out.target, out.hasTarget = pc+uint64(sext(uint64(x>>5&0x3fff)<<2, 16)), true
		refs = append(refs, xref{from: pc, to: out.target, kind: kindJump})
		d.known, d.loaded = 0, 0
	case x&0xfe1f0000 == 0xd61f0000: // unconditional branch (register)
		// An unresolved transfer's to is the slot its register was loaded
		// from, when that is known, as for x86's call [rip+slot].
		switch x >> 21 & 0xf {
		case 0, 8: // BR, BRAA, BRAB
			out.flow = ports.FlowJump
			if x&0xfffffc1f == 0xd61f0000 { // BR: a switch's dispatch?
				if tab := d.jumpTable(pc, x>>5&31); len(tab) > 0 {
					out.table = tab
					refs = d.sw.refs[:0]
					for _, t := range tab {
						refs = append(refs, xref{from: pc, to: t, kind: kindJump})
					}
					d.sw.refs = refs
					break
				}
			}
			refs = append(refs, xref{from: pc, to: d.slotOf(x >> 5 & 31), kind: kindJump, flags: flagUnresolved})
		case 1, 9: // BLR, BLRAA, BLRAB
			out.flow = ports.FlowCall
			refs = append(refs, xref{from: pc, to: d.slotOf(x >> 5 & 31), kind: kindCall, flags: flagUnresolved})
		case 2, 4: // RET, RETAA, ERET
			out.flow = ports.FlowReturn
		default:
			out.flow, out.invalid = ports.FlowStop, true
		}
		d.known, d.loaded = 0, 0
	case x&0xffe0001f == 0xd4200000, x&0xffe0001f == 0xd4400000, x&0xffff0000 == 0: // BRK, HLT, UDF
		out.flow = ports.FlowStop
		d.known, d.loaded = 0, 0
	case x&0x9f000000 == 0x90000000: // ADRP
		imm := sext(uint64(x>>5&0x7ffff)<<2|uint64(x>>29&3), 21) << 12
		d.set(rd, (pc&^0xfff)+uint64(imm))
	case x&0x9f000000 == 0x10000000: // ADR
		v := pc + uint64(sext(uint64(x>>5&0x7ffff)<<2|uint64(x>>29&3), 21))
		refs = append(refs, xref{from: pc, to: v, kind: kindAddress})
		d.set(rd, v)
	case x&0xff800000 == 0x91000000: // ADD (immediate), 64-bit
		imm := uint64(x >> 10 & 0xfff)
		if x&(1<<22) != 0 {
			imm <<= 12
		}
		if base, ok := d.get(x >> 5 & 31); ok {
			v := base + imm
			refs = append(refs, xref{from: pc, to: v, kind: kindAddress})
			d.set(rd, v)
		} else {
			d.clear(rd)
		}
	case x&0x3b000000 == 0x39000000: // LDR/STR (unsigned offset)
		size, v, opc := x>>30, x>>26&1, x>>22&3
		scale := size
		if v == 1 && opc&2 != 0 {
			scale = 4
		}
		if base, ok := d.get(x >> 5 & 31); ok {
			k := kindRead
			if opc == 0 || (v == 1 && opc == 2) {
				k = kindWrite
			}
			refs = append(refs, xref{from: pc, to: base + uint64(x>>10&0xfff)<<scale, kind: k})
		}
		if !(opc == 0 || (v == 1 && opc == 2)) {
			base, ok := d.get(x >> 5 & 31)
			d.clear(rd)
			if ok && size == 3 && v == 0 && opc == 1 && rd < 31 { // LDR Xt: a pointer-sized word
				d.slots[rd], d.loaded = base+uint64(x>>10&0xfff)<<3, d.loaded|1<<rd
			}
		}
	case x>>27&7 == 5 && x>>23&7 >= 1 && x>>23&7 <= 3: // LDP/STP (post-index, signed offset, pre-index)
		v, opc, load := x>>26&1, x>>30, x&(1<<22) != 0
		scale := uint(2 + opc>>1) // 4 or 8 bytes (LDPSW: 4)
		if v == 1 {
			scale = uint(2 + opc)
		}
		if base, ok := d.get(x >> 5 & 31); ok {
			at := base
			if x>>23&7 != 1 {
				at = base + uint64(sext(uint64(x>>15&0x7f), 7)<<scale)
			}
			k := kindWrite
			if load {
				k = kindRead
			}
			// A pair reads or writes two words, each maybe a global of
			// its own (gcc loads two adjacent ones with one ldp).
			refs = append(refs, xref{from: pc, to: at, kind: k}, xref{from: pc, to: at + 1<<scale, kind: k})
		}
		if load {
			d.clear(rd)
			d.clear(x >> 10 & 31)
		}
	case x&0x3b000000 == 0x18000000: // LDR (literal)
		refs = append(refs, xref{from: pc, to: pc + uint64(sext(uint64(x>>5&0x7ffff)<<2, 21)), kind: kindRead})
		d.clear(rd)
	default:
		d.clear(rd)
	}
	out.refs = refs
}

var arm64PCRel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.[+-]0x[0-9a-f]+`) })

func (d *arm64Decoder) format(b []byte, pc uint64, in *insn, name func(uint64) string) ports.Instruction {
	out := ports.Instruction{Address: pc, Bytes: append([]byte(nil), b[:min(in.size, len(b))]...), Flow: in.flow,
		Target: in.target, HasTarget: in.hasTarget, Invalid: in.invalid}
	inst, err := arm64asm.Decode(b)
	if err != nil || in.invalid {
		// An encoding the decoder rejects has no successor and no target,
		// whatever our own step read from its bits.
		out.Mnemonic, out.Invalid, out.Flow = "(bad)", true, ports.FlowStop
		out.Target, out.HasTarget = 0, false
		out.Text = "(bad)"
		if len(b) >= 4 {
			out.Text = fmt.Sprintf(".inst 0x%08x", binary.LittleEndian.Uint32(b))
		}
		return out
	}
	// GNUSyntax leaves a space after a mnemonic with no operands ("nop ").
	text, suffix := strings.TrimRight(arm64asm.GNUSyntax(inst), " "), ""
	for _, arg := range inst.Args {
		rel, ok := arg.(arm64asm.PCRel)
		if !ok {
			continue
		}
		abs := pc + uint64(rel)
		if inst.Op == arm64asm.ADRP {
			abs = pc&^0xfff + uint64(rel)
		}
		text = arm64PCRel().ReplaceAllLiteralString(text, "0x"+strconv.FormatUint(abs, 16))
		if n := name(abs); n != "" {
			suffix += " <" + n + ">"
		}
	}
	mn, ops, _ := strings.Cut(text, " ")
	out.Mnemonic, out.Operands, out.Text = mn, strings.TrimSpace(ops), text+suffix
	return out
}

func (d *arm64Decoder) appendText(dst, b []byte, pc uint64, in *insn, name func(uint64) string) []byte {
	return append(dst, d.format(b, pc, in, name).Text...)
}
