package native

import (
	"slices"
	"sync"

	"golang.org/x/arch/x86/x86asm"
)

// Opcode maps of the role table.
const (
	map1    = iota // one-byte opcodes
	map0F          // 0F xx
	map0F38        // 0F 38 xx
	map0F3A        // 0F 3A xx
)

// Mandatory-prefix classes of the role table: none, 66, F3, F2. An
// instruction with more than one of them has no class (pfxMixed).
const (
	pfxNone = iota
	pfx66
	pfxF3
	pfxF2
	pfxMixed
)

// roleBlock is, for one mode, opcode map and mandatory prefix, the role of
// a memory operand that is a reference by REX.W, opcode and ModRM reg field
// (roleNone where the full decoder must decide).
type roleBlock [2][256][8]uint8

var x86Roles [2][4][4]struct {
	once sync.Once
	t    *roleBlock
}

// rolesFor returns the role block of a mode (32 or 64), opcode map and
// mandatory prefix class (not pfxMixed), built on first use: a block costs
// up to 4,096 x86asm decodes, and small files need few of the 32.
//
// The table is what x86asm itself says of each opcode with a memory
// operand, built once from one canonical encoding per entry (the prefix,
// REX.W, the opcode, a ModRM for [disp32] with the reg field, zeros after), so
// that the fast path, which only measures instructions, gives each
// reference the kind the full decoder gives it: the address of lea, a
// write where the operand is the destination of an operation that writes
// it, a read otherwise. Entries x86asm does not decode or decodes as a
// control transfer are roleNone. The fast tables still decide the length;
// the tests hold the two to the same answer.
func rolesFor(mode, m, p int) *roleBlock {
	e := &x86Roles[0][m][p]
	if mode == 64 {
		e = &x86Roles[1][m][p]
	}
	e.once.Do(func() { e.t = buildRoles(mode, m, p) })
	return e.t
}

// Opcodes whose ModRM reg field selects the operation (groups); the role
// of any other opcode is the same for every reg field.
var (
	groups1  = []byte{0x80, 0x81, 0x82, 0x83, 0x8f, 0xc0, 0xc1, 0xc6, 0xc7, 0xd0, 0xd1, 0xd2, 0xd3, 0xf6, 0xf7, 0xfe, 0xff}
	groups0F = []byte{0x00, 0x01, 0x0d, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x71, 0x72, 0x73, 0xae, 0xba, 0xc7}
)

func buildRoles(mode, m, p int) *roleBlock {
	t := new(roleBlock)
	var b [24]byte
	for op := range 256 {
		// Only what the fast tables measure is ever looked up.
		switch {
		case m == map1 && (oneByte[op] == fxBad || oneByte[op] == fxNone || oneByte[op] == fxI8 || oneByte[op] == fxIz),
			m == map0F && (twoByte[op] == fxBad || twoByte[op] == fxNone):
			continue
		}
		regs := 1
		if m == map1 && slices.Contains(groups1, byte(op)) || m == map0F && slices.Contains(groups0F, byte(op)) {
			regs = 8
		}
		for w := range 2 {
			if w == 1 && mode != 64 {
				continue
			}
			for reg := range regs {
				b = [24]byte{}
				n := 0
				switch p {
				case pfx66:
					b[n] = 0x66
					n++
				case pfxF3:
					b[n] = 0xf3
					n++
				case pfxF2:
					b[n] = 0xf2
					n++
				}
				if w == 1 {
					b[n] = 0x48
					n++
				}
				switch m {
				case map0F:
					b[n] = 0x0f
					n++
				case map0F38:
					b[n], b[n+1] = 0x0f, 0x38
					n += 2
				case map0F3A:
					b[n], b[n+1] = 0x0f, 0x3a
					n += 2
				}
				b[n] = byte(op)
				b[n+1] = byte(reg)<<3 | 5
				t[w][op][reg] = roleOf(b[:], mode)
			}
			for reg := regs; reg < 8; reg++ {
				t[w][op][reg] = t[w][op][0]
			}
		}
	}
	return t
}

// roleOf is the role x86asm gives the [disp32] operand of the instruction
// at b, or roleNone.
func roleOf(b []byte, mode int) uint8 {
	inst, err := x86asm.Decode(b, mode)
	if err != nil || inst.Op == 0 {
		return roleNone
	}
	switch inst.Op {
	case x86asm.CALL, x86asm.LCALL, x86asm.JMP, x86asm.LJMP:
		return roleNone
	}
	if x86Branches[inst.Op] {
		return roleNone
	}
	for i, arg := range inst.Args {
		if arg == nil {
			break
		}
		m, ok := arg.(x86asm.Mem)
		if !ok {
			continue
		}
		if m.Index != 0 || m.Segment != 0 || (m.Base != 0 && m.Base != x86asm.RIP) {
			return roleNone
		}
		switch {
		case inst.Op == x86asm.LEA:
			return roleAddr
		case i == 0 && !x86NoWrite[inst.Op]:
			return roleWrite
		}
		return roleRead
	}
	return roleNone
}
