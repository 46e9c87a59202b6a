package native

import (
	"encoding/binary"

	"rea/ports"
)

// fastX86 decodes the common x86 encodings without x86asm, which is
// several times slower and allocates: whole-binary sweeps spend most of
// their time here. It measures the instruction, finds its control flow and
// what the references need (a RIP-relative or absolute memory operand with
// the role x86asm gives it, from rolesFor; an indirect call or jump; the
// immediate of mov and push), and declines (ok false) an indirect jump that
// may go through a jump table (the full decoder recovers tables) and every
// encoding outside its tables (lock, fs/gs, 16-bit addressing, VEX and
// EVEX, rare opcodes), so that on what it accepts step finds what x86asm
// would; TestFastPathMatchesFullDecoder, TestFastStepMatchesFullStep and
// FuzzDisassemble hold it to that.
type fastInsn struct {
	size   int
	flow   ports.Flow
	rel    int64
	hasRel bool

	indirect   bool  // a call or jump through a register or memory
	modrmClass uint8 // the ModRM operand's class (mcReg...), when there is one
	// A memory operand that is a reference (mcRIP or mcAbs), its
	// displacement and its role (roleRead...).
	mem  uint8
	disp int64
	role uint8
	// The immediate of a mov or push, which may be an address.
	imm    int64
	hasImm bool
}

// x86 operand encodings of the fast tables.
const (
	fxNone    = iota // no ModRM, no immediate
	fxM              // ModRM
	fxMI8            // ModRM + imm8
	fxMIz            // ModRM + imm16/32
	fxI8             // imm8
	fxIz             // imm16/32
	fxBad            // not handled
	fxSpecial        // handled in code
)

// oneByte describes the one-byte opcode map.
var oneByte = func() (t [256]uint8) {
	for i := range t {
		t[i] = fxBad
	}
	for _, base := range []int{0x00, 0x08, 0x10, 0x18, 0x20, 0x28, 0x30, 0x38} {
		t[base], t[base+1], t[base+2], t[base+3] = fxM, fxM, fxM, fxM
		t[base+4], t[base+5] = fxI8, fxIz
	}
	for i := 0x50; i <= 0x5f; i++ {
		t[i] = fxNone
	}
	t[0x63] = fxM
	t[0x68] = fxSpecial // push imm32
	t[0x69], t[0x6a], t[0x6b] = fxMIz, fxI8, fxMI8
	for i := 0x70; i <= 0x7f; i++ {
		t[i] = fxSpecial // jcc rel8
	}
	t[0x80], t[0x81], t[0x83] = fxMI8, fxMIz, fxMI8
	for i := 0x84; i <= 0x8b; i++ {
		t[i] = fxM
	}
	t[0x8d] = fxM
	for i := 0x90; i <= 0x99; i++ {
		t[i] = fxNone
	}
	t[0xa8], t[0xa9] = fxI8, fxIz
	for i := 0xb0; i <= 0xb7; i++ {
		t[i] = fxI8
	}
	for i := 0xb8; i <= 0xbf; i++ {
		t[i] = fxSpecial // mov r, imm32/64
	}
	t[0xc0], t[0xc1] = fxMI8, fxMI8
	t[0xc2], t[0xc3] = fxSpecial, fxSpecial // ret
	t[0xc6], t[0xc7] = fxSpecial, fxSpecial // mov r/m, imm
	t[0xc9] = fxNone
	t[0xcc] = fxSpecial // int3
	t[0xd0], t[0xd1], t[0xd2], t[0xd3] = fxM, fxM, fxM, fxM
	t[0xe8], t[0xe9], t[0xeb] = fxSpecial, fxSpecial, fxSpecial
	t[0xf4] = fxSpecial // hlt
	t[0xf6], t[0xf7] = fxSpecial, fxSpecial
	t[0xfe], t[0xff] = fxSpecial, fxSpecial
	return t
}()

// twoByte describes the 0F opcode map.
var twoByte = func() (t [256]uint8) {
	for i := range t {
		t[i] = fxBad
	}
	set := func(lo, hi int, v uint8) {
		for i := lo; i <= hi; i++ {
			t[i] = v
		}
	}
	t[0x05], t[0x0b], t[0x31], t[0xa2] = fxNone, fxSpecial, fxNone, fxNone
	set(0x10, 0x17, fxM)
	t[0x18], t[0x1f] = fxM, fxM
	set(0x28, 0x2f, fxM)
	set(0x40, 0x4f, fxM)
	set(0x50, 0x6f, fxM)
	t[0x70] = fxMI8
	t[0x71], t[0x72], t[0x73] = fxSpecial, fxSpecial, fxSpecial // shifts by imm8, register forms only
	set(0x74, 0x76, fxM)
	t[0x7e], t[0x7f] = fxM, fxM
	set(0x80, 0x8f, fxSpecial) // jcc rel32
	set(0x90, 0x9f, fxM)
	t[0xa3], t[0xa5], t[0xab], t[0xad], t[0xaf] = fxM, fxM, fxM, fxM, fxM
	t[0xa4], t[0xac] = fxMI8, fxMI8
	t[0xb0], t[0xb1], t[0xb3], t[0xb6], t[0xb7], t[0xbb], t[0xbc], t[0xbd], t[0xbe], t[0xbf] = fxM, fxM, fxM, fxM, fxM, fxM, fxM, fxM, fxM, fxM
	t[0xba] = fxSpecial
	t[0xc0], t[0xc1], t[0xc3] = fxM, fxM, fxM
	t[0xc2], t[0xc4], t[0xc5], t[0xc6] = fxMI8, fxMI8, fxMI8, fxMI8
	set(0xc8, 0xcf, fxNone)
	set(0xd1, 0xfe, fxM)
	return t
}()

// Classes of a ModRM operand.
const (
	mcReg     = iota // a register
	mcBased          // memory through a base register: no reference
	mcIndexed        // memory through an index register (and maybe a base): no reference
	mcRIP            // RIP-relative memory: a reference to next+disp
	mcAbs            // absolute memory (no base, no index): a reference to disp
)

// Roles of a memory operand that is a reference, by opcode; roleNone sends
// such an instruction to the full decoder.
const (
	roleNone uint8 = iota
	roleRead
	roleWrite
	roleAddr
)

// modrm measures a ModRM operand at b[i:]: its length (ModRM, SIB,
// displacement), its class and, for RIP-relative and absolute memory, the
// displacement. rex is the REX prefix (0 for none).
func modrm(b []byte, i, mode int, rex byte) (n int, class uint8, disp int64, ok bool) {
	if i >= len(b) {
		return 0, 0, 0, false
	}
	m := b[i]
	mod, rm := m>>6, m&7
	if mod == 3 {
		return 1, mcReg, 0, true
	}
	n, class = 1, mcBased
	at := 0 // where a disp32 of a base-less operand starts
	if rm == 4 {
		if i+1 >= len(b) {
			return 0, 0, 0, false
		}
		n = 2
		if sib := b[i+1]; sib&7 == 5 && mod == 0 {
			n += 4
			if sib>>3&7 == 4 && rex&2 == 0 {
				class, at = mcAbs, i+2
			}
		}
		if sib := b[i+1]; class == mcBased && (sib>>3&7 != 4 || rex&2 != 0) {
			class = mcIndexed
		}
	} else if rm == 5 && mod == 0 {
		n += 4
		class, at = mcRIP, i+1
		if mode == 32 {
			class = mcAbs
		}
	}
	switch mod {
	case 1:
		n++
	case 2:
		n += 4
	}
	if i+n > len(b) {
		return 0, 0, 0, false
	}
	if at != 0 {
		disp = int64(int32(binary.LittleEndian.Uint32(b[at:])))
	}
	return n, class, disp, true
}

// operand measures the ModRM operand at b[*i] of opcode op of map m,
// advances *i past it and records a memory operand that is a reference,
// with its role; it declines (false) a reference whose role the role table
// does not know (unless lenOnly: then only the length matters).
func (f *fastInsn) operand(b []byte, i *int, mode int, rex byte, pfx int, lenOnly bool, m int, op byte) bool {
	n, class, disp, ok := modrm(b, *i, mode, rex)
	if !ok {
		return false
	}
	if refMem(class) && !lenOnly {
		role := roleNone
		if pfx != pfxMixed {
			role = rolesFor(mode, m, pfx)[rex>>3&1][op][b[*i]>>3&7]
		}
		if role == roleNone {
			return false
		}
		f.mem, f.disp, f.role = class, disp, role
	}
	f.modrmClass = class
	*i += n
	return true
}

// refMem reports whether a memory operand of class c is a reference.
func refMem(c uint8) bool { return c == mcRIP || c == mcAbs }

// mandatory adds a mandatory-prefix candidate p to the class seen so far.
func mandatory(seen, p int) int {
	if seen == pfxNone {
		return p
	}
	return pfxMixed
}

func fastX86(b []byte, mode int, mm *memMap) (f fastInsn, ok bool) {
	return fastDecode(b, mode, false)
}

// fastLength measures what x86asm cannot decode (adcx, adox and other
// recent forms it lacks) so a sweep stays in step; it ignores what only
// matters for references.
func fastLength(b []byte, mode int) (fastInsn, bool) {
	return fastDecode(b, mode, true)
}

func fastDecode(b []byte, mode int, lenOnly bool) (f fastInsn, ok bool) {
	i := 0
	opsize16, rep, rex := false, byte(0), byte(0)
	legacy, pfx := 0, pfxNone
prefixes:
	for ; i < len(b); i++ {
		switch b[i] {
		case 0x66:
			opsize16 = true
			pfx = mandatory(pfx, pfx66)
		case 0xf2:
			rep, pfx = b[i], mandatory(pfx, pfxF2)
		case 0xf3:
			rep, pfx = b[i], mandatory(pfx, pfxF3)
		case 0x2e, 0x3e, 0x26, 0x36:
		case 0x67:
			if mode == 32 {
				return f, false
			}
		case 0x64, 0x65, 0xf0:
			return f, false
		default:
			break prefixes
		}
		if legacy++; legacy > 3 {
			return f, false
		}
	}
	if mode == 64 && i < len(b) && b[i]&0xf0 == 0x40 {
		rex = b[i]
		i++
	}
	rexW := rex&8 != 0
	opsize16 = opsize16 && !rexW // REX.W overrides 66
	if i >= len(b) {
		return f, false
	}
	op := b[i]
	i++
	imm := 0
	switch op {
	case 0x0f:
		return fast0F(b, i, mode, opsize16, rep, rex, pfx, lenOnly)
	}
	kind := oneByte[op]
	switch kind {
	case fxBad:
		return f, false
	case fxNone:
	case fxI8:
		imm = 1
	case fxIz:
		imm = 4
		if opsize16 {
			imm = 2
		}
	case fxM, fxMI8, fxMIz:
		if i >= len(b) {
			return f, false
		}
		if (op >= 0xd0 && op <= 0xd3 || op == 0xc0 || op == 0xc1) && b[i]>>3&7 == 6 {
			return f, false // the undocumented sal alias
		}
		if !f.operand(b, &i, mode, rex, pfx, lenOnly, map1, op) || (op == 0x8d && f.modrmClass == mcReg) {
			return f, false
		}
		switch kind {
		case fxMI8:
			imm = 1
		case fxMIz:
			imm = 4
			if opsize16 {
				imm = 2
			}
		}
	case fxSpecial:
		switch {
		case op >= 0x70 && op <= 0x7f, op == 0xeb:
			if i+1 > len(b) || rep != 0 || opsize16 {
				return f, false
			}
			f.flow, f.rel, f.hasRel = ports.FlowBranch, int64(int8(b[i])), true
			if op == 0xeb {
				f.flow = ports.FlowJump
			}
			f.size = i + 1
			return f, true
		case op == 0xe8 || op == 0xe9:
			if i+4 > len(b) || rep != 0 || opsize16 {
				return f, false
			}
			f.flow, f.rel, f.hasRel = ports.FlowCall, int64(int32(binary.LittleEndian.Uint32(b[i:]))), true
			if op == 0xe9 {
				f.flow = ports.FlowJump
			}
			f.size = i + 4
			return f, true
		case op == 0xc3:
			f.flow, f.size = ports.FlowReturn, i
			return f, !opsize16
		case op == 0xc2:
			if i+2 > len(b) || opsize16 {
				return f, false
			}
			f.flow, f.size = ports.FlowReturn, i+2
			return f, true
		case op == 0xcc:
			f.flow, f.size = ports.FlowStop, i
			return f, true
		case op == 0xf4:
			f.flow, f.size = ports.FlowStop, i
			return f, rep == 0
		case op == 0x68:
			if opsize16 || i+4 > len(b) {
				return f, false
			}
			f.imm, f.hasImm = int64(int32(binary.LittleEndian.Uint32(b[i:]))), true
			imm = 4
		case op >= 0xb8 && op <= 0xbf:
			w := 4
			switch {
			case rexW:
				w = 8
			case opsize16:
				w = 2
			}
			if i+w > len(b) {
				return f, false
			}
			switch w {
			case 8:
				f.imm = int64(binary.LittleEndian.Uint64(b[i:]))
			case 4:
				f.imm = int64(int32(binary.LittleEndian.Uint32(b[i:])))
			default:
				f.imm = int64(int16(binary.LittleEndian.Uint16(b[i:])))
			}
			f.hasImm = true
			imm = w
		case op == 0xc6 || op == 0xc7:
			if i >= len(b) || b[i]>>3&7 != 0 {
				return f, false
			}
			if !f.operand(b, &i, mode, rex, pfx, lenOnly, map1, op) {
				return f, false
			}
			imm = 1
			if op == 0xc7 {
				imm = 4
				if opsize16 {
					imm = 2
				}
				if i+imm > len(b) {
					return f, false
				}
				if imm == 2 {
					f.imm = int64(int16(binary.LittleEndian.Uint16(b[i:])))
				} else {
					f.imm = int64(int32(binary.LittleEndian.Uint32(b[i:])))
				}
				f.hasImm = true
			}
		case op == 0xf6 || op == 0xf7:
			if i >= len(b) {
				return f, false
			}
			reg := b[i] >> 3 & 7
			if reg == 1 {
				return f, false
			}
			if !f.operand(b, &i, mode, rex, pfx, lenOnly, map1, op) {
				return f, false
			}
			if reg == 0 {
				imm = 1
				if op == 0xf7 {
					imm = 4
					if opsize16 {
						imm = 2
					}
				}
			}
		case op == 0xfe || op == 0xff:
			if i >= len(b) {
				return f, false
			}
			reg := b[i] >> 3 & 7
			switch {
			case op == 0xff && (reg == 2 || reg == 4):
				// call and jmp through a register or memory: the
				// memory is the slot, read
				if opsize16 || rep != 0 {
					return f, false
				}
				f.flow, f.indirect = ports.FlowCall, true
				if reg == 4 {
					f.flow = ports.FlowJump
				}
				n, class, disp, ok := modrm(b, i, mode, rex)
				if !ok {
					return f, false
				}
				if refMem(class) {
					f.mem, f.disp, f.role = class, disp, roleRead
				}
				f.modrmClass = class
				i += n
			case op == 0xff && reg == 6, reg <= 1: // push, inc, dec
				if !f.operand(b, &i, mode, rex, pfx, lenOnly, map1, op) {
					return f, false
				}
			default:
				return f, false // far forms
			}
			if f.flow == ports.FlowJump && (f.modrmClass == mcReg || f.modrmClass == mcIndexed) {
				return f, false // maybe a jump table: the full decoder recovers it
			}
			if f.flow == ports.FlowCall && f.modrmClass == mcReg {
				return f, false // the full decoder looks for the load of its slot
			}
		default:
			return f, false
		}
	}
	if i+imm > len(b) || i+imm > 15 {
		return f, false
	}
	f.size = i + imm
	return f, true
}

func fast0F(b []byte, i, mode int, opsize16 bool, rep, rex byte, pfx int, lenOnly bool) (f fastInsn, ok bool) {
	if i >= len(b) {
		return f, false
	}
	op := b[i]
	i++
	imm := 0
	switch op {
	case 0x38, 0x3a:
		if i >= len(b) {
			return f, false
		}
		m, o := map0F38, b[i]
		if op == 0x3a {
			m = map0F3A
		}
		i++ // the third opcode byte
		if !f.operand(b, &i, mode, rex, pfx, lenOnly, m, o) {
			return f, false
		}
		if op == 0x3a {
			imm = 1
		}
	default:
		switch twoByte[op] {
		case fxBad:
			return f, false
		case fxNone:
		case fxM, fxMI8:
			if op == 0x1e && rep != 0 { // endbr and CET forms
				return f, false
			}
			if op == 0xb8 && rep != 0xf3 {
				return f, false
			}
			if i >= len(b) {
				return f, false
			}
			if !f.operand(b, &i, mode, rex, pfx, lenOnly, map0F, op) {
				return f, false
			}
			if twoByte[op] == fxMI8 {
				imm = 1
			}
		case fxSpecial:
			switch {
			case op >= 0x80 && op <= 0x8f:
				if i+4 > len(b) || rep != 0 || opsize16 {
					return f, false
				}
				f.flow, f.rel, f.hasRel, f.size = ports.FlowBranch, int64(int32(binary.LittleEndian.Uint32(b[i:]))), true, i+4
				return f, true
			case op == 0x0b:
				f.flow, f.size = ports.FlowStop, i
				return f, true
			case op >= 0x71 && op <= 0x73, op == 0xba:
				if i >= len(b) || b[i]>>6 != 3 && op != 0xba || op == 0xba && b[i]>>3&7 < 4 {
					return f, false
				}
				if !f.operand(b, &i, mode, rex, pfx, lenOnly, map0F, op) {
					return f, false
				}
				imm = 1
			default:
				return f, false
			}
		}
	}
	if i+imm > len(b) || i+imm > 15 {
		return f, false
	}
	f.size = i + imm
	return f, true
}
