package native

import (
	"encoding/binary"
	"slices"
)

// AArch64 jump tables. gcc and clang compile a dense switch to a table of
// offsets from a label (or, rarely, of addresses) and dispatch with "br":
//
//	cmp   wI, #N            the bound (what is scheduled before its branch
//	b.hi  default           leaves the flags); or b.cs; or b.ls/b.cc to the dispatch
//	adrp  xT, tab
//	add   xT, xT, :lo12:tab
//	ldrb  wE, [xT, wI, uxtw]      gcc: ldrb/ldrh/ldr, [xT, wI, uxtw #s]
//	adr   xB, label               clang: ldrb/ldrh/ldrsw, [xT, xI, lsl #s]
//	add   xD, xB, wE, sxtb #2     gcc: sxtb/sxth/sxtw; clang: xE, lsl #2
//	br    xD
//
// (or "ldr xD, [xT, xI, lsl #3]; br xD", absolute entries). The index may
// pass through mov, and, uxtb and uxth after the compare (none of them
// makes it larger). The instructions are read back from the swept bytes in
// address order, only when a "br" is reached, so the sweep's common path
// pays nothing.
//
// The path from the "br" back to the bound is straight runs: the one
// ending at the "br" and, run by run, the one before: across a
// conditional branch falling through to a run no jump reaches (a b.hi/b.cs
// there is the bound), or, when a run starts after an instruction that
// never falls through (gcc -O2 puts the default first), to the one jump
// that reaches its start (a b.ls/b.cc is the bound; a b, or another
// conditional branch taken, goes on to its own run). A start that two ways
// reach is a join whose other path is not followed: no table. Jumps are
// looked for only armBoundFar instructions around a run's start (gcc puts
// vfscanf's b.ls 580 instructions before its dispatch). No instruction on
// the path may write the index but its copies, so one bound serves every
// dispatch it reaches. The table's and the label's addresses may be set
// anywhere on the path, and past the bound's branch across the conditional
// branches its path falls through, where no jump into the code is looked
// for (clang sets the table's before a loop whose body dispatches, gcc
// -O2 before a loop whose b.ls jumps out of it to the dispatch).

// Bounds of AArch64 jump-table recovery.
const (
	armDispatchBack = 24   // instructions on the path from the br back to the bound's branch (and past it, for the addresses)
	armBoundFar     = 1024 // instructions before and after a run's start searched for the jump to it
	armHops         = 4    // branches the path back from a br crosses
	armCmpBack      = 4    // instructions before the bound's branch searched for its cmp
	// armTableBudget is what one sweep may read of tables (in entries, and
	// instructions searched for the jump to a run) besides its own length
	// in bytes: a hostile file of dispatches, each with a bound of
	// maxJumpTable or far searches, costs no more than reading its code a
	// few times.
	armTableBudget = 16 * maxJumpTable
)

// armTable is the state of jump-table recovery, kept in the decoder so
// that its buffers are reused.
type armTable struct {
	code   []byte // the bytes being swept, from base
	base   uint64
	budget int      // entries left for this sweep
	tab    []uint64 // the targets recovered last
	refs   []xref   // the jumps to them
	path   []uint64 // the instructions on the path back from a br, latest first
}

func (t *armTable) reset(code []byte, base uint64) {
	t.code, t.base = code, base
	t.budget = armTableBudget + len(code)
}

// word returns the instruction k instructions before pc (after it, when
// k is negative), when it is in the swept bytes.
func (t *armTable) word(pc uint64, k int) (uint32, bool) {
	at := pc - uint64(int64(k)*4)
	if at < t.base || at-t.base >= uint64(len(t.code)) || uint64(len(t.code))-(at-t.base) < 4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(t.code[at-t.base:]), true
}

// armFlow reports whether x transfers control (or stops): a straight run
// ends at one.
func armFlow(x uint32) bool {
	return x&0x7c000000 == 0x14000000 || // B, BL
		x&0xff000000 == 0x54000000 || // B.cond, BC.cond
		x&0x7e000000 == 0x34000000 || // CBZ, CBNZ
		x&0x7e000000 == 0x36000000 || // TBZ, TBNZ
		x&0xfe000000 == 0xd6000000 || // BR, BLR, RET, ERET and their authenticated forms
		x&0xff000000 == 0xd4000000 || // SVC, HVC, SMC, BRK, HLT, DCPS
		x&0xffff0000 == 0 // UDF
}

// armNoFall reports whether control never continues after x: B, BR,
// RET and their authenticated forms, BRK, HLT, UDF.
func armNoFall(x uint32) bool {
	switch {
	case x&0xfc000000 == 0x14000000: // B
		return true
	case x&0xfe000000 == 0xd6000000: // branch (register): all but BLR, BLRAA/BLRAB
		op := x >> 21 & 0xf
		return op != 1 && op != 9
	}
	return x&0xffe0001f == 0xd4200000 || x&0xffe0001f == 0xd4400000 || x&0xffff0000 == 0
}

// armWrites reports whether x may write general register r: its Rd/Rt
// field (whatever the instruction: stores and compares count, which only
// loses tables), a pair's second register, a writeback's base, an
// exclusive store's status register.
func armWrites(x, r uint32) bool {
	if x&31 == r {
		return true
	}
	switch {
	case x&0x3f000000 == 0x08000000: // load/store exclusive, ordered, compare and swap
		return x>>10&31 == r || x>>16&31 == r
	case x&0x38000000 == 0x28000000: // load/store pair (and no-allocate pair)
		return x>>10&31 == r || x>>23&1 == 1 && x>>5&31 == r
	case x&0x3b200000 == 0x38000000: // load/store register, unscaled/post/unprivileged/pre
		return x>>10&1 == 1 && x>>5&31 == r
	}
	return false
}

// armLoad is a load (register offset) of a table entry.
type armLoad struct {
	rt, rn, rm uint32
	size       uint   // log2 of the entry's bytes
	signed     uint32 // 0 zero-extends, 1 sign-extends to 64 bits, 2 to 32 bits
}

// decodeLoad decodes LDR{B,H,SB,SH,SW,} Rt, [Xn, Rm{, extend #s}] whose
// scaling, if any, is the entry's size.
func decodeLoad(x uint32) (armLoad, bool) {
	if x&0x3f200c00 != 0x38200800 { // load/store register (register offset), general registers
		return armLoad{}, false
	}
	size, opc := uint(x>>30), x>>22&3
	l := armLoad{rt: x & 31, rn: x >> 5 & 31, rm: x >> 16 & 31, size: size}
	switch {
	case opc == 1:
	case opc == 2 && size < 3:
		l.signed = 1
	case opc == 3 && size < 2:
		l.signed = 2
	default: // a store or a prefetch
		return armLoad{}, false
	}
	if opt := x >> 13 & 7; opt&2 == 0 { // only UXTW, LSL, SXTW and SXTX address
		return armLoad{}, false
	}
	if x>>12&1 == 0 && size != 0 { // [xT, xI]: an index not scaled to the entry
		return armLoad{}, false
	}
	return l, l.rn != 31 && l.rm != 31
}

// value is the entry e (size bytes, little-endian) as the load leaves it
// in a 64-bit register.
func (l armLoad) value(e []byte) uint64 {
	var v uint64
	switch l.size {
	case 0:
		v = uint64(e[0])
	case 1:
		v = uint64(binary.LittleEndian.Uint16(e))
	case 2:
		v = uint64(binary.LittleEndian.Uint32(e))
	default:
		v = binary.LittleEndian.Uint64(e)
	}
	switch l.signed {
	case 1:
		v = uint64(sext(v, 8<<l.size))
	case 2:
		v = uint64(uint32(sext(v, 8<<l.size)))
	}
	return v
}

// armAdd is "add xD, xB, xE, lsl #s" or "add xD, xB, wE, {s,u}xt{b,h,w} #s".
type armAdd struct {
	rd, rn, rm uint32
	extend     int32 // -1: the whole register (lsl, uxtx, sxtx); else the option (0-6)
	shift      uint
}

func decodeAdd(x uint32) (armAdd, bool) {
	a := armAdd{rd: x & 31, rn: x >> 5 & 31, rm: x >> 16 & 31, extend: -1}
	switch {
	case x&0xff200000 == 0x8b000000: // ADD (shifted register), 64-bit
		if x>>22&3 != 0 || a.rd == 31 || a.rn == 31 || a.rm == 31 { // LSL only; 31 is xzr here
			return armAdd{}, false
		}
		a.shift = uint(x >> 10 & 63)
	case x&0xffe00000 == 0x8b200000: // ADD (extended register), 64-bit
		a.shift = uint(x >> 10 & 7)
		if opt := int32(x >> 13 & 7); opt != 3 && opt != 7 {
			a.extend = opt
		}
		if a.rn == 31 || a.rm == 31 { // sp is no label, xzr no entry
			return armAdd{}, false
		}
	default:
		return armAdd{}, false
	}
	return a, a.shift <= 4
}

// apply is what the add makes of the entry register's value v.
func (a armAdd) apply(v uint64) uint64 {
	switch a.extend {
	case 0:
		v &= 0xff
	case 1:
		v &= 0xffff
	case 2:
		v &= 0xffffffff
	case 4:
		v = uint64(sext(v, 8))
	case 5:
		v = uint64(sext(v, 16))
	case 6:
		v = uint64(sext(v, 32))
	}
	return v << a.shift
}

// armCond reports whether x is a conditional branch, which a path may
// fall through.
func armCond(x uint32) bool {
	return x&0xff000000 == 0x54000000 || x&0x7c000000 == 0x34000000 // B.cond, BC.cond, CB(N)Z, TB(N)Z
}

// run appends to t.path the instructions before end, latest first, up
// to the first that transfers control (crossing the conditional branches
// the path falls through, when cross) or until the path holds most. It
// returns that instruction's address and word, and false when there is
// none within reach.
func (t *armTable) run(end uint64, cross bool, most int) (uint64, uint32, bool) {
	for at := end - 4; len(t.path) < most; at -= 4 {
		x, ok := t.word(at, 0)
		if !ok {
			return 0, 0, false
		}
		if armFlow(x) {
			if cross && armCond(x) {
				continue
			}
			return at, x, true
		}
		t.path = append(t.path, at)
	}
	return 0, 0, false
}

// jumpsTo counts the direct jumps up to armBoundFar instructions before
// or after start that go to it (stopping at two) and returns the last,
// paying the search from the budget; -1 when the budget is spent.
func (t *armTable) jumpsTo(start uint64) (int, uint64, uint32) {
	if t.budget < 2*armBoundFar {
		return -1, 0, 0
	}
	t.budget -= 2 * armBoundFar // the search is paid for as entries are
	lo, hi := t.base, t.base+uint64(len(t.code))
	if start-t.base > armBoundFar*4 {
		lo = start - armBoundFar*4
	}
	if hi-start > armBoundFar*4+4 {
		hi = start + armBoundFar*4 + 4
	}
	var at uint64
	var jump uint32
	n := 0
	// A loop over the bytes, the direct jumps told by their top byte:
	// what the sweep pays most for its tables.
	code := t.code[lo-t.base : hi-t.base]
	for i := 0; i+4 <= len(code); i += 4 {
		x := binary.LittleEndian.Uint32(code[i:])
		var off uint64
		switch armJumpKind[x>>24] {
		case 0:
			continue
		case 1: // B
			off = uint64(sext(uint64(x&0x3ffffff)<<2, 28))
		case 2: // B.cond, BC.cond, CBZ, CBNZ
			off = uint64(sext(uint64(x>>5&0x7ffff)<<2, 21))
		case 3: // TBZ, TBNZ
			off = uint64(sext(uint64(x>>5&0x3fff)<<2, 16))
		}
		if pc := lo + uint64(i); pc+off == start {
			at, jump = pc, x
			if n++; n == 2 {
				break
			}
		}
	}
	return n, at, jump
}

// armJumpKind classes a word by its top byte: 1 is B, 2 B.cond, BC.cond,
// CBZ and CBNZ (19-bit offset), 3 TBZ and TBNZ (14-bit), 0 no direct jump.
var armJumpKind = func() (k [256]uint8) {
	for _, b := range []int{0x14, 0x15, 0x16, 0x17} {
		k[b] = 1
	}
	for _, b := range []int{0x54, 0x34, 0x35, 0xb4, 0xb5} {
		k[b] = 2
	}
	for _, b := range []int{0x36, 0x37, 0xb6, 0xb7} {
		k[b] = 3
	}
	return k
}()

// defOf finds the first instruction on t.path from its i-th that writes
// r: its word and its index.
func (t *armTable) defOf(i int, r uint32) (uint32, int, bool) {
	for ; i < len(t.path); i++ {
		x, _ := t.word(t.path[i], 0)
		if armWrites(x, r) {
			return x, i, true
		}
	}
	return 0, 0, false
}

// addrOf is the address register r holds before t.path[i-1] (at the br
// when i is 0), set by ADR, or ADRP with an optional ADD.
func (t *armTable) addrOf(i int, r uint32) (uint64, bool) {
	x, k, ok := t.defOf(i, r)
	if !ok {
		return 0, false
	}
	at := t.path[k]
	switch {
	case x&0x9f000000 == 0x10000000: // ADR
		return at + uint64(sext(uint64(x>>5&0x7ffff)<<2|uint64(x>>29&3), 21)), true
	case x&0x9f000000 == 0x90000000: // ADRP
		return at&^0xfff + uint64(sext(uint64(x>>5&0x7ffff)<<2|uint64(x>>29&3), 21)<<12), true
	case x&0xff800000 == 0x91000000: // ADD (immediate), 64-bit
		rn := x >> 5 & 31
		if rn == 31 {
			return 0, false
		}
		imm := uint64(x >> 10 & 0xfff)
		if x&(1<<22) != 0 {
			imm <<= 12
		}
		y, j, ok := t.defOf(k+1, rn)
		if !ok || y&0x9f000000 != 0x90000000 { // only adrp; add: one level
			return 0, false
		}
		page := t.path[j]&^0xfff + uint64(sext(uint64(y>>5&0x7ffff)<<2|uint64(y>>29&3), 21)<<12)
		return page + imm, true
	}
	return 0, false
}

// armCmp returns N of "cmp rI, #N" (SUBS with the zero register or
// another register as destination), when x is one comparing r.
func armCmp(x, r uint32) (uint64, bool) {
	if x&0x7f800000 != 0x71000000 || x>>5&31 != r || (x&31 == r && r != 31) {
		return 0, false
	}
	n := uint64(x >> 10 & 0xfff)
	if x&(1<<22) != 0 {
		n <<= 12
	}
	return n, true
}

// narrowed returns the register an instruction writing r copied it from
// without making it larger: mov (orr with the zero register), and with
// an immediate, uxtb/uxth/uxtw (ubfm with immr 0).
func narrowed(x, r uint32) (uint32, bool) {
	if x&31 != r {
		return 0, false
	}
	switch {
	case x&0x7fe0ffe0 == 0x2a0003e0: // MOV (ORR Rd, ZR, Rm)
		return x >> 16 & 31, x>>16&31 != 31
	case x&0x7f800000 == 0x12000000, x&0x7f800000 == 0x53000000 && x>>16&63 == 0: // AND (immediate), UBFM #0
		return x >> 5 & 31, x>>5&31 != 31
	}
	return 0, false
}

// bound finds the case count for index register r, read by t.path[i],
// walking back along the path to the br, through copies of the index, run
// by run. The run before the br's (and before each the walk goes on to)
// ends at x, at end: when x is a conditional branch falling through to
// the run, no jump may reach the run's start, and a "cmp; b.hi|b.cs" is
// the bound, another branch is crossed; when x never falls through, one
// jump must reach the start: a "cmp; b.ls|b.cc" is the bound, a b or
// another conditional branch (taken; a b.hi's says nothing of an upper
// bound) is crossed. The walk crosses up to
// armHops branches and armDispatchBack instructions in all, and no
// instruction on it may write the index but its copies. Once the bound is
// found, t.path goes on past its branch, across the conditional branches
// its path falls through (without looking for jumps into it), for the
// table's and the label's addresses.
func (t *armTable) bound(i int, r uint32, end uint64, x uint32, ok bool) (uint64, bool) {
	for hop := 0; ; hop++ {
		for ; i < len(t.path); i++ {
			y, _ := t.word(t.path[i], 0)
			if from, ok := narrowed(y, r); ok {
				r = from
			} else if armWrites(y, r) {
				return 0, false
			}
		}
		if !ok || hop == armHops { // no branch in reach, or too many
			return 0, false
		}
		n, at, y := t.jumpsTo(end + 4)
		switch {
		case armCond(x) && n == 0: // the path falls through x
			if x&0xff000010 == 0x54000000 && (x&15 == 8 || x&15 == 2) { // B.hi, B.cs
				return t.bounded(end, r, x&15 == 8)
			}
		case armNoFall(x) && n == 1: // the path is y's
			end, x = at, y
			if x&0xff000010 == 0x54000000 && (x&15 == 9 || x&15 == 3) { // B.ls, B.cc
				return t.bounded(end, r, x&15 == 9)
			}
		default: // a call, a join, or the budget spent
			return 0, false
		}
		end, x, ok = t.run(end, false, armDispatchBack)
	}
}

// bounded returns the cases of the bound whose branch is at at, and goes
// on with t.path past it.
func (t *armTable) bounded(at uint64, r uint32, inclusive bool) (uint64, bool) {
	n, ok := t.compared(at, r, inclusive)
	if ok {
		t.run(at, true, len(t.path)+armDispatchBack)
	}
	return n, ok
}

// compared returns the cases of a bound "cmp r, #N" at most armCmpBack
// instructions before the branch at pc: N+1 when the branch is inclusive
// (hi/ls), else N. What the compiler scheduled in between must leave the
// flags and r alone.
func (t *armTable) compared(pc uint64, r uint32, inclusive bool) (uint64, bool) {
	for j := 1; j <= armCmpBack; j++ {
		x, ok := t.word(pc, j)
		if !ok {
			return 0, false
		}
		if n, ok := armCmp(x, r); ok {
			if inclusive {
				n++
			}
			return n, n > 0 && n <= maxJumpTable
		}
		if !armKeepsFlags(x) || armWrites(x, r) {
			return 0, false
		}
	}
	return 0, false
}

// armKeepsFlags reports whether x is one of the common instructions that
// never set the flags (a compiler schedules them between a compare and
// its branch); anything else is taken to set them.
func armKeepsFlags(x uint32) bool {
	switch {
	case x&0x0a000000 == 0x08000000: // loads and stores
		return true
	case x&0x1f000000 == 0x10000000: // ADR, ADRP
		return true
	case x&0x3f000000 == 0x11000000, x&0x3f000000 == 0x0b000000: // ADD/SUB (immediate, shifted, extended) without S
		return true
	case x&0x1f000000 == 0x0a000000, x&0x1f800000 == 0x12000000: // logical (register, immediate)
		return x>>29&3 != 3 // not ANDS/BICS
	case x&0x1f800000 == 0x12800000, x&0x1f800000 == 0x13000000: // move wide, bitfield
		return true
	case x&0xfffff01f == 0xd503201f: // hints (nop, bti, pac)
		return true
	}
	return false
}

// jumpTable returns the targets of "br xD" at pc when it dispatches through a
// jump table (into t.tab), every one of them in the br's code region; nil
// otherwise.
func (d *arm64Decoder) jumpTable(pc uint64, reg uint32) []uint64 {
	t := &d.sw
	if d.mm == nil || reg == 31 {
		return nil
	}
	t.path = t.path[:0]
	end, jump, ran := t.run(pc, false, armDispatchBack)
	x, k, ok := t.defOf(0, reg)
	if !ok {
		return nil
	}
	var add armAdd
	load, absolute := decodeLoad(x)
	kLoad := k
	if absolute { // ldr xD, [xT, xI, lsl #3]; br xD
		if load.size != 3 {
			return nil
		}
	} else {
		if add, ok = decodeAdd(x); !ok || add.rd != reg {
			return nil
		}
		y, j, ok := t.defOf(k+1, add.rm)
		if !ok {
			return nil
		}
		if load, ok = decodeLoad(y); !ok || load.rt != add.rm {
			return nil
		}
		kLoad = j
	}
	n, ok := t.bound(kLoad+1, load.rm, end, jump, ran)
	if !ok || t.budget < int(n) {
		return nil
	}
	at, ok := t.addrOf(kLoad+1, load.rn)
	if !ok {
		return nil
	}
	var base uint64
	if !absolute {
		if base, ok = t.addrOf(k+1, add.rn); !ok {
			return nil
		}
	}
	t.budget -= int(n)
	within := d.mm.code(pc)
	if within == nil {
		return nil
	}
	size := uint64(1) << load.size
	data, err := d.mm.view(d.src, at, n*size)
	if err != nil || uint64(len(data)) < n*size {
		return nil
	}
	t.tab = t.tab[:0]
	for i := uint64(0); i < n; i++ {
		v := load.value(data[i*size:])
		target := v
		if !absolute {
			target = base + add.apply(v)
		}
		if target%4 != 0 || d.mm.code(target) != within {
			t.tab = t.tab[:0]
			return nil
		}
		t.tab = append(t.tab, target)
	}
	slices.Sort(t.tab)
	t.tab = slices.Compact(t.tab)
	return t.tab
}
