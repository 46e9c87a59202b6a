package native

import (
	"encoding/binary"

	"rea/ports"
)

// fastX86 decodes the length and control flow of the common x86 encodings
// without x86asm, which is several times slower: whole-binary sweeps spend
// most of their time here. It declines (ok false) everything whose
// references need the full decoder (RIP-relative and absolute memory
// operands, indirect transfers, immediates that may be addresses) and every
// encoding outside its tables (lock, fs/gs, 16-bit addressing, VEX and EVEX,
// rare opcodes),
// so that on what it accepts it agrees with x86asm; the tests and
// FuzzDisassemble hold it to that.
type fastInsn struct {
	size   int
	flow   ports.Flow
	rel    int64
	hasRel bool
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

// modrm measures a ModRM operand at b[i:]: its length (ModRM, SIB,
// displacement) and whether it is memory addressed without a base register
// (RIP-relative or absolute), which needs the full decoder.
func modrm(b []byte, i int) (n int, mem, special, ok bool) {
	if i >= len(b) {
		return 0, false, false, false
	}
	m := b[i]
	mod, rm := m>>6, m&7
	if mod == 3 {
		return 1, false, false, true
	}
	n = 1
	if rm == 4 {
		if i+1 >= len(b) {
			return 0, false, false, false
		}
		n = 2
		if b[i+1]&7 == 5 && mod == 0 {
			n += 4
			special = true
		}
	} else if rm == 5 && mod == 0 {
		n += 4
		special = true
	}
	switch mod {
	case 1:
		n++
	case 2:
		n += 4
	}
	return n, true, special, i+n <= len(b)
}

func fastX86(b []byte, mode int, mm *memMap) (f fastInsn, ok bool) {
	return fastDecode(b, mode, mm, false)
}

// fastLength measures what x86asm cannot decode (adcx, adox and other
// recent forms it lacks) so a sweep stays in step; it ignores what only
// matters for references.
func fastLength(b []byte, mode int) (fastInsn, bool) {
	return fastDecode(b, mode, nil, true)
}

func fastDecode(b []byte, mode int, mm *memMap, lenOnly bool) (f fastInsn, ok bool) {
	i := 0
	opsize16, rep, rexW := false, byte(0), false
	legacy := 0
prefixes:
	for ; i < len(b); i++ {
		switch b[i] {
		case 0x66:
			opsize16 = true
		case 0xf2, 0xf3:
			rep = b[i]
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
		rexW = b[i]&8 != 0
		opsize16 = opsize16 && !rexW // REX.W overrides 66
		i++
	}
	if i >= len(b) {
		return f, false
	}
	op := b[i]
	i++
	imm := 0
	switch op {
	case 0x0f:
		return fast0F(b, i, mode, opsize16, rep, lenOnly)
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
		n, mem, special, ok := modrm(b, i)
		if !ok || special && !lenOnly || (op == 0x8d && !mem) {
			return f, false
		}
		if (op >= 0xd0 && op <= 0xd3 || op == 0xc0 || op == 0xc1) && b[i]>>3&7 == 6 {
			return f, false // the undocumented sal alias
		}
		i += n
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
			if opsize16 || i+4 > len(b) || mightBeAddress(b[i:], mm) {
				return f, false
			}
			imm = 4
		case op >= 0xb8 && op <= 0xbf:
			w := 4
			switch {
			case rexW:
				w = 8
			case opsize16:
				w = 2
			}
			if i+w > len(b) || (w >= 4 && mightBeAddress(b[i:], mm)) {
				return f, false
			}
			imm = w
		case op == 0xc6 || op == 0xc7:
			if i >= len(b) || b[i]>>3&7 != 0 {
				return f, false
			}
			n, _, special, ok := modrm(b, i)
			if !ok || special && !lenOnly {
				return f, false
			}
			i += n
			imm = 1
			if op == 0xc7 {
				imm = 4
				if opsize16 {
					imm = 2
				} else if i+4 > len(b) || mightBeAddress(b[i:], mm) {
					return f, false
				}
			}
		case op == 0xf6 || op == 0xf7:
			if i >= len(b) {
				return f, false
			}
			reg := b[i] >> 3 & 7
			if reg == 1 {
				return f, false
			}
			n, _, special, ok := modrm(b, i)
			if !ok || special && !lenOnly {
				return f, false
			}
			i += n
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
			if reg > 1 && (op == 0xfe || reg != 6) {
				return f, false // indirect call and jump, far forms
			}
			n, _, special, ok := modrm(b, i)
			if !ok || special && !lenOnly {
				return f, false
			}
			i += n
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

// mightBeAddress reports whether a 32-bit immediate could be read as an
// address (the full decoder decides).
func mightBeAddress(b []byte, mm *memMap) bool {
	if mm == nil {
		return false
	}
	if len(b) < 4 {
		return true
	}
	v := uint64(binary.LittleEndian.Uint32(b))
	return v >= 0x1000 && mm.mapped(v)
}

func fast0F(b []byte, i, mode int, opsize16 bool, rep byte, lenOnly bool) (f fastInsn, ok bool) {
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
		i++ // the third opcode byte
		n, _, special, ok := modrm(b, i)
		if !ok || special && !lenOnly {
			return f, false
		}
		i += n
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
			n, _, special, ok := modrm(b, i)
			if !ok || special && !lenOnly {
				return f, false
			}
			i += n
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
				n, _, special, ok := modrm(b, i)
				if !ok || special && !lenOnly {
					return f, false
				}
				i += n
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
