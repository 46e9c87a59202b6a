package native

import (
	"cmp"
	"encoding/binary"
	"slices"

	"golang.org/x/arch/x86/x86asm"

	"rea/ports"
)

// 32-bit x86 position-independent code addresses its data from a register
// holding the address of the global offset table, computed at run time:
//
//	call __x86.get_pc_thunk.bx   ; ebx = the return address (mov ebx, [esp]; ret)
//	add  ebx, 0x2e4a             ; ebx = the GOT (.got.plt)
//	lea  eax, [ebx-0x1ff8]       ; a string in .rodata
//	call [ebx-0xc]               ; -fno-plt: a call through an import's GOT slot
//
// or, without a thunk, "call next; next: pop reg" (older gcc, clang). The
// sweep tracks, per 32-bit register, a constant it holds (the thunk's
// return address, then add/sub reg, imm; lea reg, [reg+disp]; mov reg2,
// reg), so that a memory operand [reg+disp] with such a register as its
// base (indexed or not: [reg+i*4+disp] is a table at value+disp) is a
// reference to value+disp, as [rip+disp] is on x86-64. The
// rules, which ARCHITECTURE.md states:
//
//   - Within straight-line code: a value is dropped by any other write to
//     its register (conservatively: every instruction whose encoding may
//     write it, pic32Writes), by a call for eax, ecx and edx (cdecl; a thunk
//     call writes only its register), by a return or jump, and at every
//     address a branch or jump table of the range targets (a join).
//   - Across the range (a function): a callee-saved register (ebx, esi,
//     edi, ebp) that the range writes only by setting it this way (a thunk
//     call or call/pop, then add/sub/lea on the value just set) and by pop
//     (an epilogue's restore) holds, after the first such setting has run
//     to its end, the value that setting left, everywhere after it in the
//     range, except between a pop of it and the next transfer. Compiled
//     code uses such a register as a base only when it holds that value.
//     A second setting that ends with another value stops this.
//   - A stack slot (by its offset from esp at the range's start, off esp
//     or off ebp as the frame pointer: spAfter) that the range writes only
//     by storing one known value, or the word a register was loaded from
//     it, holds that value after the first such store: loading it sets
//     the register (the spilled GOT register of gcc -O0 and of large -O2
//     functions). Writes through pointers are assumed never to reach a
//     spill slot, and where a loop head's fall-through and backward edge
//     disagree on esp, the fall-through is believed.
//
// The range-wide rule needs to know the writes and joins of the whole
// range, so the first setting seen in a sweep makes the decoder scan the
// range once (scan): each byte is decoded at most twice, and only ranges
// that compute a PC are scanned. A sweep whose end is not known (limit not
// called) tracks nothing.
type pic32 struct {
	on       bool   // tracking in this sweep (32-bit, end known)
	scanning bool   // the scan is running: step must not recurse
	scanned  bool   // the scan ran for this sweep
	end      uint64 // the end of the range being swept
	known    uint8  // bit r: val[r] is known in straight-line code
	val      [8]uint32
	added    uint8 // bit r: val[r] came from an add/sub/lea on a set value
	loaded   uint8 // bit r: register r holds the word read from slot[r]
	slot     [8]uint32
	pending  uint64 // the address after "call next": a pop there reads it
	// Range-wide registers: allowed by the scan (wideOK), their value
	// (wideVal) once a setting ran to its end (wideSet), and popped
	// since the last transfer.
	wideOK, wideSet, popped uint8
	wideVal                 [8]uint32
	// The joins: the targets of the range's branches, jumps and jump
	// tables (sorted), with what reaches each (js, in the same order),
	// and the position of the next one; falls: the instruction before
	// falls through to this one.
	joins []uint64
	js    []joinState
	ji    int
	falls bool
	// The scan's branch targets, forward and backward, before they are
	// counted into joins.
	fwd, back []uint64
	startPC   uint64 // the first address of the range
	scanAt    uint64 // the first setting
	needScan  bool   // the scan is still to run (step runs it)
	at        uint64 // the instruction being stepped
	restoring uint8  // the scan: registers restored (pop, load from the frame) since the last transfer
	// The scan's per-register state: set (a setting is running, the
	// register's last write was part of it) and bad (written otherwise).
	fresh, bad uint8
	sets       uint8
	// Frame slots ([ebp+disp]) the scan saw written; with frameBad (ebp
	// is no frame pointer, or too many slots) none holds a value.
	slots    []frameSlot // sorted by frame offset
	frameBad bool
	// The stack, in the scan: esp before each instruction as an anchor
	// plus a delta (spAt, read back by the sweep through spi; an anchor
	// is an offset in a space, the range's start's or a realigned
	// frame's, once known: a block only backward edges reach learns its
	// anchor's from them), what forward edges carry to their targets
	// (deps, a heap by target), and ebp once it is the frame pointer
	// (ebpState 1: it holds ebpAnc+ebpDelta from ebpFrom on; 2: it is not
	// one). The stack writes are replayed into slots once the anchors are
	// known (events).
	anchors   []spAnchor
	anc       int32
	delta     int32
	spaces    int32
	scanFalls bool
	spAt      []spMark
	spi       int
	deps      []spDep
	events    []slotEvent
	ebpState  uint8
	ebpAnc    int32
	ebpDelta  int32
	ebpFrom   uint64
	frameHeld uint8 // the scan: bit r, register r holds the word of the stack slot heldAnc[r]+heldOff[r]
	heldAnc   [8]int32
	heldOff   [8]int32
	// A switch's jump-table entry on its way to the jump (the scan's),
	// and the tables the scan recovered, by address (the sweep's cursor
	// into them: tabi); pic32_switch.go.
	ent    picEntry
	tables []picTable
	tabi   int
	extra  []uint64 // the sweep: cases ahead of tables only it recovered (a min-heap)
	// The last resolved memory operand, for the text.
	resPC   uint64
	resAddr uint64
	resOK   bool
	thunks  [16]thunkEntry
}

// joinState is what reaches a join along the edges the sweep has passed:
// the registers known on all of them (with equal values), how many edges
// came (seen) of the forward edges the scan counted (fwd), and whether a
// backward edge (a loop) or one from before the first setting also
// reaches it, which the sweep cannot know the state of.
type joinState struct {
	fwd, seen    int32
	back         bool
	known, added uint8
	val          [8]uint32
}

// spMark is esp before the instruction at base+off: anchors[anc]+delta.
type spMark struct {
	off        uint32
	anc, delta int32
}

// spAnchor is a point esp is measured from: val in space, once ok.
type spAnchor struct {
	space, val int32
	ok         bool
}

// spDep is the esp a forward edge carries to its target.
type spDep struct {
	target     uint64
	anc, delta int32
}

// slotEvent is a write to the stack the scan saw: width bytes at
// anchors[anc]+off, storing val (store) or something unknown; esp: the
// address was esp-relative.
type slotEvent struct {
	pc              uint64
	anc, off, width int32
	val             uint32
	store, esp      bool
}

// frameSlot is a frame slot [off, off+width) the range writes (its offset
// from esp's value at the range's start, whether addressed off esp or off
// the frame pointer): by a
// store of the same known value every time (seen, val, first: the first
// such store), or otherwise (bad).
type frameSlot struct {
	disp      int64 // slotKey
	width     int32
	val       uint32
	first     uint64
	seen, bad bool
}

type thunkEntry struct {
	at  uint64
	reg int8 // -1: not a thunk
	ok  bool
}

// Callee-saved registers under cdecl: ebx, ebp, esi, edi.
const calleeSaved32 = 1<<3 | 1<<5 | 1<<6 | 1<<7

// Caller-saved registers a call clobbers: eax, ecx, edx.
const callClobbers32 = 1<<0 | 1<<1 | 1<<2

// limit tells the decoder where the range being swept ends; without it a
// 32-bit sweep tracks no registers (see pic32).
func (d *x86Decoder) limit(end uint64) {
	d.pic.end = end
	d.pic.on = d.mode == 32 && end > d.base
}

// resetPIC clears what the tracking learnt of the previous sweep.
func (d *x86Decoder) resetPIC() {
	p := &d.pic
	p.on, p.scanning, p.scanned, p.end, p.needScan = false, false, false, 0, false
	p.known, p.added, p.loaded, p.pending = 0, 0, 0, 0
	p.wideOK, p.wideSet, p.popped = 0, 0, 0
	p.joins, p.js, p.ji, p.falls = p.joins[:0], p.js[:0], 0, false
	p.fwd, p.back, p.restoring = p.fwd[:0], p.back[:0], 0
	p.fresh, p.bad, p.sets = 0, 0, 0
	p.resOK = false
	p.slots, p.frameBad, p.frameHeld = p.slots[:0], false, 0
	p.anchors = append(p.anchors[:0], spAnchor{ok: true})
	p.anc, p.delta, p.spaces, p.scanFalls = 0, 0, 1, true
	p.spAt, p.spi, p.deps, p.events = p.spAt[:0], 0, p.deps[:0], p.events[:0]
	p.ebpState, p.ebpAnc, p.ebpDelta, p.ebpFrom = 0, 0, 0, 0
	p.ent, p.tables, p.tabi, p.extra = picEntry{}, p.tables[:0], 0, p.extra[:0]
}

// p32 is what the tracking needs of one 32-bit instruction's encoding.
type p32 struct {
	m      uint8 // opcode map (map1...)
	op     byte
	pfx    int // mandatory-prefix class for the role table
	opsize bool
	rep    bool
	seg    bool // an fs or gs override: no address
	addr16 bool
	vex    bool
	vvvv   uint8
	hasM   bool
	mod    uint8
	reg    uint8
	rm     uint8
	base   int8 // the base register of a memory operand, or -1
	index  bool // the memory operand has an index register
	idx    int8 // which, when index
	scale  uint8
	disp   int32
	immAt  int   // offset of what follows the ModRM operand
	writes uint8 // pic32Writes, once per instruction (parsed)
}

// modrm1 marks the one-byte opcodes with a ModRM byte.
var modrm1 = func() (t [256]bool) {
	for op := 0; op < 0x40; op++ {
		if op&7 < 4 {
			t[op] = true
		}
	}
	t[0x0f] = false
	for _, op := range []int{0x62, 0x63, 0x69, 0x6b, 0xc0, 0xc1, 0xc4, 0xc5, 0xc6, 0xc7, 0xd0, 0xd1, 0xd2, 0xd3, 0xf6, 0xf7, 0xfe, 0xff} {
		t[op] = true
	}
	for op := 0x80; op <= 0x8f; op++ {
		t[op] = true
	}
	for op := 0xd8; op <= 0xdf; op++ {
		t[op] = true
	}
	return t
}()

// modrm0F marks the 0F opcodes with a ModRM byte.
var modrm0F = func() (t [256]bool) {
	for op := range t {
		t[op] = true
	}
	for _, r := range [][2]int{{0x04, 0x0c}, {0x0e, 0x0e}, {0x30, 0x37}, {0x77, 0x77}, {0x80, 0x8f}, {0xa0, 0xa2}, {0xa8, 0xaa}, {0xc8, 0xcf}} {
		for op := r[0]; op <= r[1]; op++ {
			t[op] = false
		}
	}
	return t
}()

// parse32 reads the prefixes, opcode and ModRM operand of the 32-bit
// instruction at b; false when b is too short or holds no opcode.
func parse32(b []byte) (p p32, ok bool) {
	p.base = -1
	i := 0
	p.pfx = pfxNone
prefixes:
	for ; i < len(b) && i < 15; i++ {
		switch b[i] {
		case 0x66:
			p.opsize = true
			p.pfx = mandatory(p.pfx, pfx66)
		case 0xf2:
			p.rep, p.pfx = true, mandatory(p.pfx, pfxF2)
		case 0xf3:
			p.rep, p.pfx = true, mandatory(p.pfx, pfxF3)
		case 0x64, 0x65:
			p.seg = true
		case 0x67:
			p.addr16 = true
		case 0x2e, 0x3e, 0x26, 0x36, 0xf0:
		default:
			break prefixes
		}
	}
	if i >= len(b) {
		return p, false
	}
	op := b[i]
	i++
	p.m = map1
	switch {
	case (op == 0xc4 || op == 0xc5 || op == 0x62) && i < len(b) && b[i]>>6 == 3:
		// VEX (c4, c5) or EVEX (62): in 32-bit mode their second byte has
		// both top bits set, which les, lds and bound cannot have.
		p.vex, p.hasM = true, true
		switch op {
		case 0xc5:
			if i+2 >= len(b) {
				return p, false
			}
			p.m, p.vvvv, p.op = map0F, ^(b[i]>>3)&7, b[i+1]
			i += 2
		case 0xc4:
			if i+3 >= len(b) {
				return p, false
			}
			p.m, p.vvvv, p.op = b[i]&3, ^(b[i+1]>>3)&7, b[i+2]
			i += 3
		default:
			if i+4 >= len(b) {
				return p, false
			}
			p.m, p.vvvv, p.op = b[i]&3, ^(b[i+1]>>3)&7, b[i+3]
			i += 4
		}
		if p.m == 0 {
			p.m = map0F
		}
	case op == 0x0f:
		if i >= len(b) {
			return p, false
		}
		p.m, p.op = map0F, b[i]
		i++
		switch p.op {
		case 0x38, 0x3a:
			if i >= len(b) {
				return p, false
			}
			p.m, p.op = map0F38, b[i]
			if b[i-1] == 0x3a {
				p.m = map0F3A
			}
			i++
			p.hasM = true
		default:
			p.hasM = modrm0F[p.op]
		}
	default:
		p.op, p.hasM = op, modrm1[op]
	}
	if !p.hasM {
		p.immAt = i
		return p, true
	}
	if i >= len(b) {
		return p, false
	}
	m := b[i]
	i++
	p.mod, p.reg, p.rm = m>>6, m>>3&7, m&7
	if p.mod == 3 {
		p.immAt = i
		return p, true
	}
	if p.addr16 {
		// 16-bit addressing: measured, never an address.
		switch {
		case p.mod == 0 && p.rm == 6, p.mod == 2:
			i += 2
		case p.mod == 1:
			i++
		}
		p.immAt = i
		return p, i <= len(b)
	}
	base, index := int(p.rm), 4
	if p.rm == 4 {
		if i >= len(b) {
			return p, false
		}
		sib := b[i]
		i++
		base, index = int(sib&7), int(sib>>3&7)
		p.scale = 1 << (sib >> 6)
	}
	switch {
	case p.mod == 0 && base == 5:
		if i+4 > len(b) {
			return p, false
		}
		p.disp = int32(binary.LittleEndian.Uint32(b[i:]))
		i += 4
		base = -1 // absolute
	case p.mod == 1:
		if i >= len(b) {
			return p, false
		}
		p.disp = int32(int8(b[i]))
		i++
	case p.mod == 2:
		if i+4 > len(b) {
			return p, false
		}
		p.disp = int32(binary.LittleEndian.Uint32(b[i:]))
		i += 4
	}
	p.index, p.idx = index != 4, int8(index)
	if base >= 0 && !p.seg {
		// [base+disp], or [base+index*scale+disp], a table at base+disp
		// (gcc's names[i] off the GOT register).
		p.base = int8(base)
	}
	p.immAt = i
	return p, true
}

// byteOps are the one-byte opcodes whose ModRM operands are 8-bit
// registers (al..bh: 4 to 7 are the high bytes of eax..ebx).
var byteOps = func() (t [256]bool) {
	for op := 0; op < 0x40; op += 8 {
		t[op], t[op+2] = true, true
	}
	for _, op := range []int{0x80, 0x82, 0x84, 0x86, 0x88, 0x8a, 0xc0, 0xc6, 0xd0, 0xd2, 0xf6, 0xfe} {
		t[op] = true
	}
	return t
}()

const allRegs32 = 0xff

// pic32Writes is the set of general registers (bit r: eax 0 ... edi 7,
// esp excluded from nothing) the instruction may write, by its encoding;
// every register where it cannot tell. Calls are the caller's business
// (flow), so a call's own encoding writes nothing here.
func pic32Writes(p *p32, b []byte) uint8 {
	reg8 := func(r uint8) uint8 { return 1 << (r & 3) }
	regD := uint8(1) << p.reg
	rmD := uint8(0)
	if p.mod == 3 {
		rmD = 1 << p.rm
	}
	if p.m == map1 && byteOps[p.op] {
		regD = reg8(p.reg)
		if p.mod == 3 {
			rmD = reg8(p.rm)
		} else {
			rmD = 0
		}
	}
	if p.vex {
		switch {
		case p.m == map0F && (p.op == 0x50 || p.op == 0xc5 || p.op == 0xd7 || p.op == 0x2c || p.op == 0x2d):
			return regD
		case p.m == map0F && p.op == 0x7e, p.m == map0F3A && p.op >= 0x14 && p.op <= 0x17:
			return rmD
		case p.m == map0F38 && p.op >= 0xf0, p.m == map0F3A && p.op == 0xf0:
			return regD | 1<<p.vvvv | rmD
		case p.m == map0F || p.m == map0F38 || p.m == map0F3A:
			return 0
		}
		return allRegs32
	}
	const eax, ecx, edx, esi, edi, ebp = 1 << 0, 1 << 1, 1 << 2, 1 << 6, 1 << 7, 1 << 5
	op := p.op
	switch p.m {
	case map1:
		switch {
		case op < 0x40 && op&7 < 4:
			if op&0x38 == 0x38 { // cmp
				return 0
			}
			if op&2 == 0 {
				return rmD
			}
			return regD
		case op < 0x40 && op&7 < 6:
			if op&0x38 == 0x38 {
				return 0
			}
			return eax
		case op < 0x40:
			switch op {
			case 0x27, 0x2f, 0x37, 0x3f:
				return eax
			}
			return 0 // push and pop of segment registers
		case op >= 0x40 && op <= 0x5f:
			if op >= 0x50 && op <= 0x57 {
				return 0
			}
			return 1 << (op & 7)
		case op >= 0x70 && op <= 0x7f, op >= 0xf8 && op <= 0xfd:
			return 0
		case op >= 0x91 && op <= 0x97:
			return eax | 1<<(op&7)
		case op >= 0xb0 && op <= 0xb7:
			return 1 << (op & 3)
		case op >= 0xb8 && op <= 0xbf:
			return 1 << (op & 7)
		case op >= 0xd8 && op <= 0xdf:
			if op == 0xdf && p.mod == 3 && p.reg == 4 { // fnstsw ax
				return eax
			}
			return 0
		}
		switch op {
		case 0x60, 0x62, 0x68, 0x6a, 0x84, 0x85, 0x8e, 0x90, 0x9b, 0x9c, 0x9d, 0x9e, 0xa2, 0xa3, 0xa8, 0xa9,
			0xc2, 0xc3, 0xca, 0xcb, 0xcc, 0xcf, 0xe3, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xee, 0xef, 0xf4, 0xf5, 0x9a:
			return 0
		case 0x61, 0xce:
			return allRegs32
		case 0x63, 0x88, 0x89, 0x8c, 0x8f, 0xc0, 0xc1, 0xc6, 0xc7, 0xd0, 0xd1, 0xd2, 0xd3:
			return rmD
		case 0x69, 0x6b, 0x8a, 0x8b, 0x8d, 0xc4, 0xc5:
			return regD
		case 0x6c, 0x6d, 0x6e, 0x6f:
			return esi | edi | ecx
		case 0x80, 0x81, 0x82, 0x83:
			if p.reg == 7 {
				return 0
			}
			return rmD
		case 0x86, 0x87:
			return regD | rmD
		case 0x98, 0x9f, 0xa0, 0xa1, 0xd4, 0xd5, 0xd6, 0xd7, 0xe4, 0xe5, 0xec, 0xed:
			return eax
		case 0x99:
			return edx
		case 0xa4, 0xa5, 0xa6, 0xa7:
			return esi | edi | ecx
		case 0xaa, 0xab, 0xae, 0xaf:
			return edi | ecx
		case 0xac, 0xad:
			return eax | esi | ecx
		case 0xc8, 0xc9:
			return ebp
		case 0xcd:
			if p.immAt < len(b) && b[p.immAt] == 0x80 { // a Linux system call
				return eax
			}
			return allRegs32
		case 0xe0, 0xe1, 0xe2:
			return ecx
		case 0xf6, 0xf7:
			switch p.reg {
			case 0, 1:
				return 0
			case 2, 3:
				return rmD
			}
			if op == 0xf6 {
				return eax
			}
			return eax | edx
		case 0xfe, 0xff:
			switch p.reg {
			case 0, 1:
				return rmD
			case 2, 3, 4, 5, 6:
				return 0
			}
		}
		return allRegs32
	case map0F:
		switch {
		case op >= 0x10 && op <= 0x1f, op >= 0x28 && op <= 0x2b, op == 0x2e, op == 0x2f,
			op >= 0x51 && op <= 0x7d && op != 0x78 && op != 0x79, op == 0x7f, op >= 0x80 && op <= 0x8f,
			op >= 0xd0 && op <= 0xff && op != 0xd7:
			return 0
		case op >= 0x40 && op <= 0x4f, op == 0x50, op == 0xd7, op == 0x02, op == 0x03:
			return regD
		case op >= 0x90 && op <= 0x9f: // setcc: a byte register
			if p.mod == 3 {
				return 1 << (p.rm & 3)
			}
			return 0
		case op >= 0xc8 && op <= 0xcf:
			return 1 << (op & 7)
		}
		switch op {
		case 0x00:
			if p.reg <= 1 {
				return rmD
			}
			return 0
		case 0x06, 0x08, 0x09, 0x0b, 0x0d, 0x0e, 0x22, 0x23, 0x30, 0xa0, 0xa1, 0xa3, 0xa8, 0xa9, 0xc2, 0xc3, 0xc4, 0xc6:
			return 0
		case 0x20, 0x21, 0xa4, 0xa5, 0xab, 0xac, 0xad, 0xb3, 0xbb:
			return rmD
		case 0x2c, 0x2d:
			if p.pfx == pfxF2 || p.pfx == pfxF3 {
				return regD
			}
			return 0
		case 0x31, 0x32, 0x33:
			return eax | edx
		case 0x7e:
			if p.pfx == pfxF3 {
				return 0
			}
			return rmD
		case 0xa2:
			return eax | ecx | edx | 1<<3
		case 0xae:
			if p.mod == 3 && p.pfx == pfxF3 {
				return rmD
			}
			return 0
		case 0xaf, 0xb2, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xbc, 0xbd, 0xbe, 0xbf, 0xc5:
			return regD
		case 0xb0, 0xb1:
			return rmD | eax
		case 0xba:
			if p.reg == 4 {
				return 0
			}
			return rmD
		case 0xb9:
			return 0
		case 0xc0, 0xc1:
			return regD | rmD
		case 0xc7:
			return eax | edx | rmD
		}
		return allRegs32
	case map0F38:
		if op >= 0xf0 {
			return regD | rmD
		}
		return 0
	case map0F3A:
		switch {
		case op >= 0x14 && op <= 0x17:
			return rmD
		case op == 0x61 || op == 0x63:
			return ecx
		case op >= 0x60:
			return allRegs32
		}
		return 0
	}
	return allRegs32
}

// thunkReg reports the register a PC thunk at addr loads ("mov reg, [esp];
// ret", after an optional endbr32), or -1.
func (d *x86Decoder) thunkReg(addr uint64) int8 {
	e := &d.pic.thunks[(addr^addr>>4)&15]
	if e.ok && e.at == addr {
		return e.reg
	}
	e.at, e.ok, e.reg = addr, true, -1
	b, err := d.mm.view(d.src, addr, 8)
	if err != nil {
		return -1
	}
	if len(b) >= 8 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfb {
		b = b[4:]
	}
	if len(b) >= 4 && b[0] == 0x8b && b[1]&0xc7 == 0x04 && b[2] == 0x24 && b[3] == 0xc3 && b[1]>>3&7 != 4 {
		e.reg = int8(b[1] >> 3 & 7)
	}
	return e.reg
}

// value is the constant register r holds at this point of the sweep.
func (p *pic32) value(r int8) (uint32, bool) {
	if r < 0 || r > 7 {
		return 0, false
	}
	bit := uint8(1) << r
	if p.known&bit != 0 {
		return p.val[r], true
	}
	if p.wideOK&p.wideSet&bit != 0 && p.popped&bit == 0 {
		return p.wideVal[r], true
	}
	return 0, false
}

// forget drops the straight-line values of the registers in mask; a
// range-wide register whose setting ends here takes its value.
func (p *pic32) forget(mask uint8) {
	ending := p.known & p.added & mask & p.wideOK
	for r := range 8 {
		bit := uint8(1) << r
		if ending&bit == 0 {
			continue
		}
		switch {
		case p.wideSet&bit == 0:
			p.wideVal[r], p.wideSet = p.val[r], p.wideSet|bit
		case p.wideVal[r] != p.val[r]:
			p.wideOK &^= bit // another value: no longer range-wide
		}
	}
	p.known &^= mask
	p.added &^= mask
	p.loaded &^= mask
}

func (p *pic32) set(r int, v uint32, added bool) {
	if r == 4 {
		return // esp: push and pop move it, which pic32Writes does not count
	}
	bit := uint8(1) << r
	p.known |= bit
	p.val[r] = v
	p.loaded &^= bit
	if added {
		p.added |= bit
	} else {
		p.added &^= bit
	}
}

// picStep is the tracking's part of step: it resolves the memory operand
// of the instruction just decoded into out when its base register holds a
// known value, and updates the registers.
func (d *x86Decoder) picStep(b []byte, pc uint64, out *insn, full bool) {
	p := &d.pic
	if p.scanning {
		d.scanStep(b, pc, out)
		return
	}
	for p.ji < len(p.joins) && p.joins[p.ji] < pc {
		p.ji++
	}
	if p.ji < len(p.joins) && p.joins[p.ji] == pc {
		p.join(&p.js[p.ji])
	}
	if len(p.extra) > 0 && p.extraJoin(pc) {
		p.forget(allRegs32) // a case of a table the scan did not see: its edge's state is not known here
		p.popped, p.loaded = 0, 0
	}
	p.at = pc
	if !p.scanned && p.pending == 0 {
		// Nothing is known before the first setting: only a call (to a
		// thunk) or a call next can change that.
		if out.flow == ports.FlowCall && out.hasTarget || out.flow == ports.FlowNext && len(b) > 0 && b[0] == 0xe8 {
			d.picInsn(b, pc, out, full)
		}
		return
	}
	d.picInsn(b, pc, out, full)
	p.falls = out.flow == ports.FlowNext || out.flow == ports.FlowCall || out.flow == ports.FlowBranch
}

// picInsn is picStep's work on one instruction, between the joins.
func (d *x86Decoder) picInsn(b []byte, pc uint64, out *insn, full bool) {
	p := &d.pic
	pending := p.pending
	p.pending = 0
	if out.invalid {
		p.forget(allRegs32)
		return
	}
	x, ok := parsed(b[:min(len(b), out.size)])
	if !ok {
		p.forget(allRegs32)
		return
	}
	if p.known|p.wideOK&p.wideSet != 0 && x.base >= 0 {
		if v, ok := p.value(x.base); ok {
			d.resolve(&x, b, pc, out, v+uint32(x.disp), full)
		}
	}
	if out.flow == ports.FlowBranch || out.flow == ports.FlowJump {
		keep := uint8(allRegs32)
		if x.m == map1 && x.op >= 0xe0 && x.op <= 0xe2 {
			keep &^= 1 << 1 // loop writes ecx
		}
		if out.hasTarget {
			p.edge(pc, out.target, keep)
		}
		for _, t := range out.table {
			p.edge(pc, t, keep)
		}
	}
	d.picFlow(&x, pc, out, pending, false)
}

// edge carries the registers known at the branch at pc (those in keep)
// to the join at its target.
func (p *pic32) edge(pc, target uint64, keep uint8) {
	if target <= pc || target >= p.end {
		return
	}
	k, ok := slices.BinarySearch(p.joins, target)
	if !ok {
		return
	}
	j := &p.js[k]
	known := p.known & keep
	if j.seen == 0 {
		j.known, j.added, j.val = known, p.added&known, p.val
	} else {
		j.known &= known
		for r := range 8 {
			if j.known&(1<<r) != 0 && j.val[r] != p.val[r] {
				j.known &^= 1 << r
			}
		}
		j.added &= j.known & p.added
	}
	j.seen++
}

// join sets the registers at a join to what every edge into it, and the
// instruction before when it falls through, agree on.
func (p *pic32) join(j *joinState) {
	p.popped = 0
	p.loaded = 0
	if j.back || j.seen < j.fwd {
		p.forget(allRegs32)
		return
	}
	if !p.falls {
		p.forget(allRegs32)
		p.known, p.added, p.val = j.known, j.added, j.val
		return
	}
	drop := p.known &^ j.known
	for r := range 8 {
		if p.known&j.known&(1<<r) != 0 && p.val[r] != j.val[r] {
			drop |= 1 << r
		}
	}
	p.forget(drop)
	p.added &= j.added | ^j.known
}

// resolve adds the references of a memory operand at addr (its base
// register's value plus its displacement) to out, as a RIP-relative
// operand's are added: by its role, or as the slot of an indirect call or
// jump.
func (d *x86Decoder) resolve(x *p32, b []byte, pc uint64, out *insn, addr32 uint32, full bool) {
	addr := uint64(addr32) // mapped or not, as a RIP-relative operand's (__TMC_END__ is the end of .data)
	if out.refs == nil {
		out.refs = d.refs[:0] // the decoder's buffer, as step's own references: no allocation
	}
	if x.index {
		// [reg+idx*s+disp] is the table at reg+disp (gcc's names[i] off
		// the GOT register) only when disp names one: not with no
		// displacement, nor in the GOT itself, nor off the GOT with an
		// unscaled index, which is then an offset from the GOT and disp
		// a field's ([esi+edi+0x34], esi the GOT).
		r, base := d.mm.find(addr), d.mm.find(uint64(addr32-uint32(x.disp)))
		switch {
		case x.disp == 0, gotRegion(r), x.scale == 1 && gotRegion(base):
			return
		}
	}
	if x.m == map1 && x.op == 0xff && (x.reg == 2 || x.reg == 4) {
		// call or jmp [reg+disp]: its unresolved reference names the slot.
		for i := range out.refs {
			if !out.refs[i].resolved() && out.refs[i].to == 0 {
				out.refs[i].to = addr
			}
		}
		out.refs = append(out.refs, xref{from: pc, to: addr, kind: kindRead})
		d.pic.resPC, d.pic.resAddr, d.pic.resOK = pc, addr, true
		return
	}
	if x.vex || nop32(x) {
		return
	}
	kind, ok := uint8(0), false
	if full && d.last.ok && d.last.pc == pc {
		kind, ok = fullRole(&d.last.inst, x.base)
	} else if x.pfx != pfxMixed {
		switch rolesFor(32, int(x.m), x.pfx)[0][x.op][x.reg] {
		case roleRead:
			kind, ok = kindRead, true
		case roleWrite:
			kind, ok = kindWrite, true
		case roleAddr:
			kind, ok = kindAddress, true
		}
		if !ok {
			// The role table does not know this form: ask x86asm, as the
			// full decoder would.
			if inst, _, err := d.decode(b); err == nil {
				kind, ok = fullRole(&inst, x.base)
			}
		}
	}
	if !ok {
		return
	}
	out.refs = append(out.refs, xref{from: pc, to: addr, kind: kind})
	d.pic.resPC, d.pic.resAddr, d.pic.resOK = pc, addr, true
	if kind == kindRead && x.m == map1 && x.op == 0x8b && !x.opsize && x.mod != 3 && !x.index {
		// A load of a GOT slot's word: the slot holds the address it
		// names (i386 relocations keep their addend in the slot), a
		// reference as an immediate address is.
		if r := d.mm.find(addr); r != nil && (r.name == ".got" || r.name == ".got.plt") && !r.exec {
			if w, err := d.mm.view(d.src, addr, 4); err == nil && len(w) == 4 {
				if v := uint64(binary.LittleEndian.Uint32(w)); v >= 0x1000 && d.mm.mapped(v) {
					out.refs = append(out.refs, xref{from: pc, to: v, kind: kindAddress})
				}
			}
		}
	}
}

// fullRole is the kind of reference x86asm's decoding gives the memory
// operand based on register base, as stepFull gives a RIP-relative one.
func fullRole(inst *x86asm.Inst, base int8) (uint8, bool) {
	for i, arg := range inst.Args {
		if arg == nil {
			break
		}
		m, ok := arg.(x86asm.Mem)
		if !ok || gpr(m.Base) != int(base) || m.Segment == x86asm.FS || m.Segment == x86asm.GS {
			continue
		}
		switch {
		case inst.Op == x86asm.LEA:
			return kindAddress, true
		case i == 0 && !x86NoWrite[inst.Op]:
			return kindWrite, true
		}
		return kindRead, true
	}
	return 0, false
}

// picFlow updates the registers after the instruction x at pc. In the
// scan (scan true) it records which registers are written otherwise than
// by a setting.
func (d *x86Decoder) picFlow(x *p32, pc uint64, out *insn, pending uint64, scan bool) {
	p := &d.pic
	next := pc + uint64(out.size)
	d.entry(x, pc, next)
	if out.flow == ports.FlowNext && x.m == map1 && x.op == 0xe8 {
		p.pending = next // call next; pop reg (pcRead)
		return
	}
	switch out.flow {
	case ports.FlowCall:
		if out.hasTarget {
			if r := d.thunkReg(out.target); r >= 0 {
				d.setting(int(r), uint32(next), false, scan)
				return
			}
		}
		if x.m == map1 && x.op == 0xff && x.reg == 2 && x.mod == 3 && !scan {
			// call reg, the register loaded from a slot: the call goes
			// through that slot, as call [slot] does.
			if bit := uint8(1) << x.rm; p.loaded&bit != 0 {
				for i := range out.refs {
					if !out.refs[i].resolved() && out.refs[i].to == 0 {
						out.refs[i].to = uint64(p.slot[x.rm])
					}
				}
			}
		}
		d.written(callClobbers32, scan)
		return
	case ports.FlowReturn, ports.FlowJump, ports.FlowStop:
		d.written(x.writes, scan)
		p.forget(allRegs32)
		p.popped = 0
		p.fresh = 0
		return
	}
	if nop32(x) {
		return
	}
	if !scan && x.m == map1 && x.op == 0x8b && x.mod != 3 && (x.base == 4 || x.base == 5) && !x.index && !x.opsize {
		// A reload of the GOT register's spill slot (gcc -O0, and -O2
		// in a large function).
		key, ok := int64(0), false
		switch {
		case x.base == 4:
			if m, known := d.spOf(pc); known {
				key, ok = p.slotKey(m.anc, m.delta+x.disp)
			}
		case p.ebpState == 1 && pc > p.ebpFrom:
			key, ok = p.slotKey(p.ebpAnc, p.ebpDelta+x.disp)
		}
		if v, known := p.frameValue(key, pc); ok && known {
			d.written(1<<x.reg, false)
			p.set(int(x.reg), v, false)
			return
		}
	}
	if r, ok := restore(x, pc, pending); ok && !scan {
		p.forget(1 << r)
		p.popped |= 1 << r
		return
	}
	w := x.writes
	if w == 0 {
		return
	}
	switch {
	case x.m == map1 && x.op >= 0x58 && x.op <= 0x5f:
		r := int(x.op & 7)
		if pending == pc {
			d.setting(r, uint32(pc), false, scan)
			return
		}
		p.forget(1 << r)
		p.popped |= 1 << r
		p.fresh &^= 1 << r
		return
	case x.m == map1 && (x.op == 0x81 || x.op == 0x83) && x.mod == 3 && (x.reg == 0 || x.reg == 5) && !x.opsize:
		r := int(x.rm)
		if v, ok := p.value(int8(r)); ok && p.known&(1<<r) != 0 {
			var imm int32
			if x.op == 0x83 {
				imm = int32(int8(d.immByte(x, pc, out)))
			} else {
				imm = d.imm32(x, pc, out)
			}
			if x.reg == 5 {
				imm = -imm
			}
			d.setting(r, v+uint32(imm), true, scan)
			return
		}
	case x.m == map1 && (x.op == 0x05 || x.op == 0x2d) && !x.opsize:
		if v, ok := p.value(0); ok && p.known&1 != 0 {
			imm := d.imm32(x, pc, out)
			if x.op == 0x2d {
				imm = -imm
			}
			d.setting(0, v+uint32(imm), true, scan)
			return
		}
	case x.m == map1 && x.op == 0x8d && x.base >= 0 && !x.index && !x.opsize:
		if v, ok := p.value(x.base); ok {
			r := int(x.reg)
			if int(x.base) == r && p.known&(1<<r) != 0 {
				d.setting(r, v+uint32(x.disp), true, scan)
				return
			}
			d.written(1<<r, scan)
			p.set(r, v+uint32(x.disp), false)
			return
		}
	case x.m == map1 && (x.op == 0x89 || x.op == 0x8b) && x.mod == 3 && !x.opsize:
		src, dst := x.reg, x.rm
		if x.op == 0x8b {
			src, dst = x.rm, x.reg
		}
		if v, ok := p.value(int8(src)); ok {
			d.written(1<<dst, scan)
			p.set(int(dst), v, false)
			return
		}
	case x.m == map1 && x.op == 0x8b && x.mod != 3 && x.base >= 0 && !x.index && !x.opsize && !scan:
		if v, ok := p.value(x.base); ok {
			r := x.reg
			d.written(1<<r, scan)
			p.loaded |= 1 << r
			p.slot[r] = v + uint32(x.disp)
			return
		}
	}
	d.written(w, scan)
}

// immByte and imm32 read the immediate after x's ModRM operand.
func (d *x86Decoder) immByte(x *p32, pc uint64, out *insn) byte {
	if b := d.insnBytes(pc, out); x.immAt < len(b) {
		return b[x.immAt]
	}
	return 0
}

func (d *x86Decoder) imm32(x *p32, pc uint64, out *insn) int32 {
	if b := d.insnBytes(pc, out); x.immAt+4 <= len(b) {
		return int32(binary.LittleEndian.Uint32(b[x.immAt:]))
	}
	return 0
}

// insnBytes are the bytes of the instruction at pc of the sweep's code.
func (d *x86Decoder) insnBytes(pc uint64, out *insn) []byte {
	if pc < d.base || pc-d.base >= uint64(len(d.code)) {
		return nil
	}
	o := pc - d.base
	return d.code[o:min(uint64(len(d.code)), o+uint64(out.size))]
}

// setting records that register r was set to v by a thunk call or
// call/pop (added false) or by an add, sub or lea on the value such a
// setting left (added true). The first setting in a sweep scans the range.
func (d *x86Decoder) setting(r int, v uint32, added, scan bool) {
	p := &d.pic
	bit := uint8(1) << r
	if scan {
		if added && p.fresh&bit == 0 {
			p.bad |= bit
		}
		p.fresh |= bit
		p.sets |= bit
	} else if !p.scanned {
		// The scan runs before the next instruction is decoded (step),
		// so that it clobbers no buffer this one's result points into,
		// and not at all when the sweep stops here (discovery's look at
		// a function's first instructions).
		p.scanned, p.needScan, p.scanAt = true, true, p.at
	}
	p.set(r, v, added)
}

// written records writes to the registers in mask by anything but a
// setting.
func (d *x86Decoder) written(mask uint8, scan bool) {
	p := &d.pic
	if scan {
		p.bad |= mask
		p.fresh &^= mask
	}
	p.forget(mask)
}

// scanStep is picStep during the scan: it records the joins and the
// writes of each register.
func (d *x86Decoder) scanStep(b []byte, pc uint64, out *insn) {
	p := &d.pic
	d.spBefore(pc)
	if out.flow == ports.FlowBranch || out.flow == ports.FlowJump {
		if out.hasTarget {
			p.target(pc, out.target)
		}
		for _, t := range out.table {
			p.target(pc, t)
		}
	}
	if out.flow != ports.FlowNext {
		// A restore is allowed only on the way out: the next transfer
		// returns or jumps (a tail call).
		if out.flow != ports.FlowReturn && out.flow != ports.FlowJump {
			p.bad |= p.restoring
		}
		p.restoring = 0
	}
	pending := p.pending
	p.pending = 0
	if out.invalid {
		d.written(allRegs32, true)
		p.unknownSP()
		p.scanFalls = false
		return
	}
	x, ok := parsed(b[:min(len(b), out.size)])
	if !ok {
		d.written(allRegs32, true)
		p.unknownSP()
		p.scanFalls = false
		return
	}
	d.scanFrame(&x, b, pc, out)
	d.spAfter(&x, b, pc, out)
	if r, ok := restore(&x, pc, pending); ok {
		// An epilogue's restore, allowed if a return follows.
		p.forget(1 << r)
		p.fresh &^= 1 << r
		p.restoring |= 1 << r
		return
	}
	d.picFlow(&x, pc, out, pending, true)
}

// restore reports the register an epilogue restores by x: pop reg (not
// the pop of "call next; pop reg") or mov reg, [esp/ebp+disp] (gcc -O0's
// "mov ebx, [ebp-4]; leave; ret").
func restore(x *p32, pc, pending uint64) (uint8, bool) {
	switch {
	case x.m == map1 && x.op >= 0x58 && x.op <= 0x5f && pending != pc:
		return x.op & 7, true
	case x.m == map1 && x.op == 0x8b && x.mod != 3 && !x.opsize && !x.index && (x.base == 4 || x.base == 5):
		return x.reg, true
	}
	return 0, false
}

// target records a branch from pc to t for the joins.
func (p *pic32) target(pc, t uint64) {
	switch {
	case t < p.startPC || t >= p.end:
	case t <= pc:
		p.back = append(p.back, t)
	default:
		p.fwd = append(p.fwd, t)
	}
}

// scan decodes the whole range once, before the sweep goes on, for its
// joins and for the registers it writes only by settings and pops.
func (d *x86Decoder) scan(at uint64) {
	p := &d.pic
	p.needScan = false
	p.startPC = d.base
	saved := struct {
		pcs     [recentInsns]uint64
		n, head int
		known   uint8
		added   uint8
		loaded  uint8
		val     [8]uint32
		slot    [8]uint32
		pending uint64
	}{d.pcs, d.n, d.head, p.known, p.added, p.loaded, p.val, p.slot, p.pending}
	p.scanning = true
	p.ent, p.tables = picEntry{}, p.tables[:0]
	p.known, p.added, p.loaded, p.pending = 0, 0, 0, 0
	p.fresh, p.bad, p.sets = 0, 0, 0
	d.n, d.head = 0, 0
	var in insn
	count := 0
	for pc := d.base; pc < p.end && pc-d.base < uint64(len(d.code)) && count < maxFunctionInsns; count++ {
		// The scan needs each instruction's size, flow, direct target
		// and registers, not its references: the fast path measures
		// those, and what it declines (indirect jumps, whose tables
		// are joins, among them) goes through step.
		b := d.code[pc-d.base:]
		in = insn{addr: pc}
		if f, ok := fastLength(b, 32); ok && d.fast && !(f.indirect && f.flow == ports.FlowJump) {
			in.size, in.flow = f.size, f.flow
			if f.hasRel {
				in.target, in.hasTarget = d.wrap(pc+uint64(f.size)+uint64(f.rel)), true
			}
			pcRead(pc, &in)
			d.push(pc)
			d.scanStep(b, pc, &in)
		} else {
			d.step(b, pc, &in)
		}
		pc += uint64(in.size)
	}
	p.scanning = false
	p.replaySlots()
	p.wideOK = p.sets &^ p.bad & calleeSaved32
	// The joins, each with its count of forward edges; a join that a
	// backward edge reaches, or an edge from before here (whose state
	// the sweep did not record), is unknown there.
	slices.Sort(p.fwd)
	slices.Sort(p.back)
	p.joins, p.js = p.joins[:0], p.js[:0]
	for i, j := 0, 0; i < len(p.fwd) || j < len(p.back); {
		t := uint64(0)
		switch {
		case j == len(p.back) || i < len(p.fwd) && p.fwd[i] <= p.back[j]:
			t = p.fwd[i]
		default:
			t = p.back[j]
		}
		js := joinState{back: t <= at} // at or before the setting: its edges were not recorded
		for ; i < len(p.fwd) && p.fwd[i] == t; i++ {
			js.fwd++
		}
		for ; j < len(p.back) && p.back[j] == t; j++ {
			js.back = true
		}
		p.joins = append(p.joins, t)
		p.js = append(p.js, js)
	}
	p.ji, p.tabi = 0, 0
	d.pcs, d.n, d.head = saved.pcs, saved.n, saved.head
	d.back = d.back[:0]
	d.last.ok = false
	p.known, p.added, p.loaded, p.val, p.slot, p.pending = saved.known, saved.added, saved.loaded, saved.val, saved.slot, saved.pending
	p.wideSet, p.popped = 0, 0
}

// pcRead makes a 32-bit "call next" (e8 00000000) what it is, a push of
// its own end's address (read by the pop that follows, in position-
// independent code): no call, no function at its target, no edge.
func pcRead(pc uint64, out *insn) {
	if out.flow != ports.FlowCall || !out.hasTarget || out.target != pc+uint64(out.size) {
		return
	}
	out.flow, out.hasTarget, out.target = ports.FlowNext, false, 0
	refs := out.refs[:0]
	for _, x := range out.refs {
		if x.kind != kindCall {
			refs = append(refs, x)
		}
	}
	out.refs = refs
}

// scanFrame is the scan's account of the frame slots: a store of a known
// value into [ebp+disp], a store back of the word a register was loaded
// from the same slot, and every other write to a slot (by the role the
// encoding gives its memory operand; an unknown role writes).
func (d *x86Decoder) scanFrame(x *p32, b []byte, pc uint64, out *insn) {
	p := &d.pic
	w := x.writes
	if out.flow == ports.FlowCall {
		w |= callClobbers32
	}
	held := p.frameHeld
	p.frameHeld &^= w
	// What the instruction pushes lies just below esp.
	switch {
	case x.m == map1 && x.op >= 0x50 && x.op <= 0x57 && !x.opsize:
		if r := x.op & 7; p.known&(1<<r) != 0 {
			p.event(slotEvent{pc: pc, anc: p.anc, off: p.delta - 4, width: 4, val: p.val[r], store: true, esp: true})
		} else {
			p.event(slotEvent{pc: pc, anc: p.anc, off: p.delta - 4, width: 4, esp: true})
		}
	case pushes(x) < 0:
		p.event(slotEvent{pc: pc, anc: p.anc, off: p.delta + pushes(x), width: -pushes(x), esp: true})
	case out.flow == ports.FlowCall:
		p.event(slotEvent{pc: pc, anc: p.anc, off: p.delta - 4, width: 4, esp: true}) // the return address
	}
	if !x.hasM || x.mod == 3 || x.index || x.addr16 || x.vex {
		return
	}
	anc, off, ok := p.frameOff(x)
	if !ok {
		return // ebp is no frame pointer: a pointer, whose writes are taken to miss the spill slots
	}
	role := roleNone
	if x.pfx != pfxMixed {
		role = rolesFor(32, int(x.m), x.pfx)[0][x.op][x.reg]
	}
	esp := x.base == 4
	switch {
	case x.m == map1 && x.op == 0x89 && !x.opsize:
		r := x.reg
		switch {
		case p.known&(1<<r) != 0:
			p.event(slotEvent{pc: pc, anc: anc, off: off, width: 4, val: p.val[r], store: true, esp: esp})
		case held&(1<<r) != 0 && p.heldAnc[r] == anc && p.heldOff[r] == off:
			// the slot's own word, stored back
		default:
			p.event(slotEvent{pc: pc, anc: anc, off: off, width: 4, esp: esp})
		}
	case x.m == map1 && x.op == 0x8b && !x.opsize:
		p.frameHeld |= 1 << x.reg
		p.heldAnc[x.reg], p.heldOff[x.reg] = anc, off
	default:
		if role != roleRead && role != roleAddr {
			width := int32(4)
			switch {
			case x.m != map1:
				width = 16
			case byteOps[x.op]:
				width = 1
			case x.op >= 0xd8 && x.op <= 0xdf:
				width = 10 // x87
			}
			p.event(slotEvent{pc: pc, anc: anc, off: off, width: width, esp: esp})
		}
	}
}

// frameOff is where on the stack x's memory operand lies, as an anchor
// and an offset: esp-relative, or ebp-relative once ebp is the frame
// pointer.
func (p *pic32) frameOff(x *p32) (int32, int32, bool) {
	switch {
	case x.base == 4:
		return p.anc, p.delta + x.disp, true
	case x.base == 5 && p.ebpState == 1:
		return p.ebpAnc, p.ebpDelta + x.disp, true
	}
	return 0, 0, false
}

// event records a stack write for the replay (replaySlots).
func (p *pic32) event(e slotEvent) {
	if len(p.events) >= maxFunctionInsns {
		p.frameBad = true
		return
	}
	p.events = append(p.events, e)
}

// slotKey is the slot table's key of anchors[anc]+off, when the anchor is
// known: its space above, its offset below.
func (p *pic32) slotKey(anc, off int32) (int64, bool) {
	if anc < 0 || int(anc) >= len(p.anchors) || !p.anchors[anc].ok {
		return 0, false
	}
	a := p.anchors[anc]
	return int64(a.space)<<33 + int64(a.val) + int64(off), true
}

// replaySlots builds the slot table from the stack writes, now that the
// anchors are known. A write off esp whose anchor stays unknown may reach
// any slot, unless the range has a frame pointer, whose locals are
// addressed off ebp: then it is taken to be an outgoing argument's.
func (p *pic32) replaySlots() {
	for _, e := range p.events {
		key, ok := p.slotKey(e.anc, e.off)
		switch {
		case !ok:
			if e.esp && p.ebpState != 1 {
				p.frameBad = true
			}
		case e.store && e.width == 4:
			p.slotStore(key, e.val, e.pc)
		default:
			p.slotWrite(key, e.width)
		}
	}
}

// pushes is how far x moves esp down by pushing (negative), or up by
// popping (positive), or 0: push and pop of registers, immediates, memory,
// segment registers and flags, pusha and popa.
func pushes(x *p32) int32 {
	w := int32(4)
	if x.opsize {
		w = 2
	}
	switch {
	case x.m == map1 && (x.op >= 0x50 && x.op <= 0x57 || x.op == 0x68 || x.op == 0x6a || x.op == 0x9c ||
		x.op == 0x06 || x.op == 0x0e || x.op == 0x16 || x.op == 0x1e || x.op == 0xff && x.reg == 6):
		return -w
	case x.m == map1 && (x.op >= 0x58 && x.op <= 0x5f || x.op == 0x9d || x.op == 0x07 || x.op == 0x17 || x.op == 0x1f ||
		x.op == 0x8f && x.reg == 0):
		return w
	case x.m == map0F && (x.op == 0xa0 || x.op == 0xa8):
		return -w
	case x.m == map0F && (x.op == 0xa1 || x.op == 0xa9):
		return w
	case x.m == map1 && x.op == 0x60:
		return -8 * w
	case x.m == map1 && x.op == 0x61:
		return 8 * w
	}
	return 0
}

// spBefore settles esp at pc in the scan: what the instruction before
// leaves when it falls through and the forward edges to pc agree on (when
// they do not, a new anchor), else what those edges bring (a block no
// forward edge reaches gets an anchor of its own, which a backward edge
// may settle: spAfter), and records it.
func (d *x86Decoder) spBefore(pc uint64) {
	p := &d.pic
	have, agree := p.scanFalls, true
	anc, delta := p.anc, p.delta
	for len(p.deps) > 0 && p.deps[0].target <= pc {
		dep := p.popDep()
		if dep.target < pc {
			continue
		}
		if !have {
			have, anc, delta = true, dep.anc, dep.delta
		} else if !p.equate(anc, delta, dep.anc, dep.delta) {
			agree = false
		}
	}
	if have && agree {
		p.anc, p.delta = anc, delta
	} else {
		p.unknownSP()
	}
	p.spAt = append(p.spAt, spMark{off: uint32(pc - d.base), anc: p.anc, delta: p.delta})
}

// unknownSP starts a new anchor for esp, not yet known.
func (p *pic32) unknownSP() {
	p.anchors = append(p.anchors, spAnchor{})
	p.anc, p.delta = int32(len(p.anchors)-1), 0
}

// equate records that anchors[a]+da and anchors[b]+db are the same esp:
// it settles an unknown anchor from a known one, and reports whether the
// two agree.
func (p *pic32) equate(a, da, b, db int32) bool {
	x, y := &p.anchors[a], &p.anchors[b]
	switch {
	case a == b:
		return da == db
	case x.ok && y.ok:
		return x.space == y.space && x.val+da == y.val+db
	case x.ok:
		*y = spAnchor{space: x.space, val: x.val + da - db, ok: true}
	case y.ok:
		*x = spAnchor{space: y.space, val: y.val + db - da, ok: true}
	default:
		return false
	}
	return true
}

// spAfter moves esp by what x does to it, notes the frame pointer, and
// carries esp along x's edges: to a forward target for spBefore, and to a
// backward target's mark, which it may settle.
func (d *x86Decoder) spAfter(x *p32, b []byte, pc uint64, out *insn) {
	p := &d.pic
	w := x.writes
	switch {
	case frameSetup(x) && (x.op == 0x89 || x.op == 0x8b): // mov ebp, esp
		switch {
		case p.ebpState == 0:
			if !p.anchors[p.anc].ok {
				// esp was realigned (main's and esp, -16): its own space,
				// measured from here.
				p.anchors[p.anc] = spAnchor{space: p.spaces, val: -p.delta, ok: true}
				p.spaces++
			}
			p.ebpState, p.ebpAnc, p.ebpDelta, p.ebpFrom = 1, p.anc, p.delta, pc
		case p.ebpState == 1 && p.equate(p.ebpAnc, p.ebpDelta, p.anc, p.delta):
		default:
			p.ebpState = 2
		}
	case w&(1<<5) != 0 && !frameSetup(x):
		p.ebpState = 2 // ebp is not (only) the frame pointer
	}
	switch {
	case pushes(x) != 0:
		p.delta += pushes(x)
	case x.m == map1 && (x.op == 0x81 || x.op == 0x83) && x.mod == 3 && x.rm == 4 && (x.reg == 0 || x.reg == 5) && !x.opsize:
		var imm int32
		if x.op == 0x83 {
			if x.immAt < len(b) {
				imm = int32(int8(b[x.immAt]))
			}
		} else if x.immAt+4 <= len(b) {
			imm = int32(binary.LittleEndian.Uint32(b[x.immAt:]))
		}
		if x.reg == 5 {
			imm = -imm
		}
		p.delta += imm
	case x.m == map1 && x.op == 0x8d && x.reg == 4 && x.base == 4 && !x.index:
		p.delta += x.disp
	case x.m == map1 && x.op == 0xc9: // leave: esp = ebp, pop ebp
		if p.ebpState == 1 {
			p.anc, p.delta = p.ebpAnc, p.ebpDelta+4
		} else {
			p.unknownSP()
		}
	case x.m == map1 && (x.op == 0x89 && x.mod == 3 && x.reg == 5 && x.rm == 4 || x.op == 0x8b && x.mod == 3 && x.reg == 4 && x.rm == 5):
		if p.ebpState == 1 { // mov esp, ebp
			p.anc, p.delta = p.ebpAnc, p.ebpDelta
		} else {
			p.unknownSP()
		}
	case w&(1<<4) != 0:
		p.unknownSP()
	}
	p.scanFalls = out.flow != ports.FlowReturn && out.flow != ports.FlowJump && out.flow != ports.FlowStop
	if out.flow == ports.FlowBranch || out.flow == ports.FlowJump {
		if out.hasTarget {
			d.spEdge(pc, out.target)
		}
		for _, t := range out.table {
			d.spEdge(pc, t)
		}
	}
}

// spEdge carries esp from the branch at pc to target t.
func (d *x86Decoder) spEdge(pc, t uint64) {
	p := &d.pic
	switch {
	case t < d.base || t >= p.end:
	case t > pc:
		p.pushDep(spDep{t, p.anc, p.delta})
	default:
		off := uint32(t - d.base)
		k, ok := slices.BinarySearchFunc(p.spAt, off, func(m spMark, o uint32) int { return cmp.Compare(m.off, o) })
		if ok {
			p.equate(p.spAt[k].anc, p.spAt[k].delta, p.anc, p.delta)
		}
	}
}

// pushDep and popDep keep deps a min-heap by target.
func (p *pic32) pushDep(dep spDep) { p.deps = heapPush(p.deps, dep, depTarget) }

func (p *pic32) popDep() spDep {
	var top spDep
	top, p.deps = heapPop(p.deps, depTarget)
	return top
}

func depTarget(d spDep) uint64 { return d.target }

// heapPush and heapPop keep h a binary min-heap by key (container/heap
// would box every element in an interface).
func heapPush[T any](h []T, v T, key func(T) uint64) []T {
	h = append(h, v)
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if key(h[parent]) <= key(h[i]) {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
	return h
}

// heapPop removes h's least element; h is not empty.
func heapPop[T any](h []T, key func(T) uint64) (T, []T) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && key(h[l]) < key(h[m]) {
			m = l
		}
		if l+1 < n && key(h[l+1]) < key(h[m]) {
			m = l + 1
		}
		if m == i {
			break
		}
		h[m], h[i] = h[i], h[m]
		i = m
	}
	return top, h
}

// spOf is esp before the instruction at pc, as the scan found it; the
// sweep asks in address order.
func (d *x86Decoder) spOf(pc uint64) (spMark, bool) {
	p := &d.pic
	if pc < d.base {
		return spMark{}, false
	}
	off := uint32(pc - d.base)
	for p.spi < len(p.spAt) && p.spAt[p.spi].off < off {
		p.spi++
	}
	if p.spi < len(p.spAt) && p.spAt[p.spi].off == off {
		return p.spAt[p.spi], true
	}
	return spMark{}, false
}

// frameSetup reports the writes of ebp a frame pointer's life has: mov
// ebp, esp; leave; pop ebp.
func frameSetup(x *p32) bool {
	switch {
	case x.m != map1:
		return false
	case x.op == 0x89 && x.mod == 3 && x.reg == 4 && x.rm == 5, x.op == 0x8b && x.mod == 3 && x.reg == 5 && x.rm == 4:
		return true
	}
	return x.op == 0xc9 || x.op == 0x5d
}

// maxSlotWidth is the widest write slotWrite records.
const maxSlotWidth = 32 // pusha

// maxFrameSlots bounds the frame slots a range's scan follows; a range
// that writes more distinct ones (a hostile one: compiled frames have
// far fewer) follows none.
const maxFrameSlots = 1024

// slotStore records a store of v into the slot at disp.
func (p *pic32) slotStore(disp int64, v uint32, pc uint64) {
	if p.frameBad {
		return
	}
	if k, ok := p.slotAt(disp); ok && p.slots[k].width == 4 && !p.slots[k].bad {
		s := &p.slots[k]
		if s.val != v {
			s.bad = true
		}
		return
	}
	p.addSlot(frameSlot{disp: disp, width: 4, val: v, first: pc, seen: true})
}

// slotWrite records a write of width bytes at disp that stores no known
// value.
func (p *pic32) slotWrite(disp int64, width int32) {
	p.addSlot(frameSlot{disp: disp, width: width, bad: true})
}

// slotAt finds the slot recorded at disp.
func (p *pic32) slotAt(disp int64) (int, bool) {
	return slices.BinarySearchFunc(p.slots, disp, func(s frameSlot, d int64) int { return cmp.Compare(s.disp, d) })
}

// addSlot records s, or marks bad the slot at its disp, and every slot
// it overlaps and every slot that overlaps it.
func (p *pic32) addSlot(s frameSlot) {
	if p.frameBad {
		return
	}
	if len(p.slots) >= maxFrameSlots {
		p.frameBad = true // too many to follow: each insertion moves the table
		return
	}
	k, found := p.slotAt(s.disp)
	overlap := false
	for j := k - 1; j >= 0 && p.slots[j].disp > s.disp-maxSlotWidth; j-- {
		if o := &p.slots[j]; o.disp+int64(o.width) > s.disp {
			o.bad, overlap = true, true
		}
	}
	for j := k; j < len(p.slots) && p.slots[j].disp < s.disp+int64(s.width); j++ {
		if o := &p.slots[j]; o.disp != s.disp || o.width != s.width || !s.seen {
			o.bad, overlap = true, true
		}
	}
	if found {
		return
	}
	s.bad = s.bad || overlap
	p.slots = slices.Insert(p.slots, k, s)
}

// frameValue is the value the frame slot at disp holds at pc: a slot the
// range writes only with that value, read after its first store.
func (p *pic32) frameValue(disp int64, pc uint64) (uint32, bool) {
	if p.frameBad || !p.scanned || p.needScan {
		return 0, false
	}
	if k, ok := p.slotAt(disp); ok {
		if s := &p.slots[k]; s.width == 4 && s.seen && !s.bad && pc > s.first {
			return s.val, true
		}
	}
	return 0, false
}

// nop32 reports the register-preserving forms that padding uses: lea
// reg, [reg+0] (with or without a SIB byte: lea esi, [esi+eiz*1+0x0])
// and mov reg, reg.
func nop32(x *p32) bool {
	switch {
	case x.m != map1 || x.opsize:
		return false
	case x.op == 0x8d:
		return x.mod != 3 && !x.index && int(x.base) == int(x.reg) && x.disp == 0
	case x.op == 0x89 || x.op == 0x8b:
		return x.mod == 3 && x.reg == x.rm
	}
	return false
}

// gotRegion reports .got and .got.plt.
func gotRegion(r *memRegion) bool { return r != nil && (r.name == ".got" || r.name == ".got.plt") }

// parsed is parse32 with the registers the instruction writes.
func parsed(b []byte) (p32, bool) {
	x, ok := parse32(b)
	if ok {
		x.writes = pic32Writes(&x, b)
	}
	return x, ok
}
