package native

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"rea/ports"
)

// Stack parameters: under a convention that passes arguments on the stack
// (cdecl every one, SysV and Microsoft x64 those past the registers), a
// parameter is a stack word holding arguments that the procedure reads. Its operands name the stack or frame pointer at that
// instruction ("[esp+0x8]", "[ebp+0xc]"), so the stack height (each
// pointer's offset from the entry stack pointer) is followed over the
// blocks: pushes and pops, constant adjustments, the frame pointer set from
// the stack pointer and the stack pointer from it. A write of another kind
// makes that pointer's height unknown from there, as does a join of two
// heights, and, where a call may pop its own arguments (32-bit Windows'
// stdcall API), a call. Only reads at a known height count.
//
// A realignment ("and esp, -16", gcc's i686 main) loses the height from
// the entry but starts another: the pointers' offsets from the aligned
// stack pointer, named by the height it was aligned at and the mask
// ("esp&-16", "(esp-8)&-32"). Pushes and stores after it are placed
// relative to it, so a call's argument words still meet their writers
// (valueflow_cdecl.go); stack parameters, which are the entry's words,
// are not read through it.
//
// A dynamic allocation ("sub esp, eax", "sub rsp, rax": gcc's code for a
// variable-length array or alloca) loses the stack pointer's height from
// the entry too, and starts a base the same way: the stack pointer as the
// allocation at that address left it ("esp@0x120f"), so the pushes and
// stores after it and the argument words of the calls it makes meet
// ("[esp@0x120f-16]"), while the frame pointer keeps its height from the
// entry and reads through it still name the procedure's parameters and
// locals. clang's "mov r11, rsp; sub r11, rax; mov rsp, r11" (AArch64:
// "mov x8, sp; sub x8, x8, x9; mov sp, x8") starts one at the move: any
// move of a register other than the frame pointer into the stack pointer
// does, its value being unknown. gcc's AArch64 "sub sp, sp, x2" starts
// one too when x2 holds no constant the height knows (spAddReg's at).

// stackOp is what one instruction does to the stack and frame pointers by
// a known amount.
type stackOp struct {
	sp stackEffect
	fp stackEffect
	n  int64
	// reg is spAddReg's register; spAlloc's source and spCopy's
	// destination, a register or a frame slot ("[rbp-0x48]").
	reg string
	// from is spCopy's source: the stack pointer, or a register or frame
	// slot that may hold a copy of it.
	from string
	// at is a subtracting spAddReg's address: when reg holds no known
	// constant, the subtraction is a dynamic allocation (gcc's AArch64
	// "sub sp, sp, x2" for a VLA or alloca) and starts a base named by it,
	// as spAlloc does.
	at int64
}

// allocates reports whether op, at height h, is a dynamic allocation: an
// spAlloc, or an spAddReg subtraction of a register holding no constant h
// knows.
func (op stackOp) allocates(h height) bool {
	return op.sp == spAlloc || op.sp == spAddReg && op.n < 0 && op.at != 0 && (h.creg == "" || op.reg != h.creg)
}

type stackEffect uint8

const (
	spKeep   stackEffect = iota
	spAdd                // sp += n
	spFromFP             // sp = fp + n
	fpFromSP             // fp = sp + n (in stackOp.fp)
	spAddReg             // sp += n * reg, reg holding a known constant (AArch64's "mov x12, #0x1390; sub sp, sp, x12")
	spAlign              // sp &= n ("and esp, -16")
	spAlloc              // sp -= reg or sp = reg, reg's value unknown (a VLA's "sub esp, eax", "mov rsp, r11", "mov rsp, [rbp-0x48]"); n is the instruction's address
	spCopy               // reg = from + n, sp unchanged (AArch64's "mov x20, sp", x86-64's "mov rbx, rsp" and "mov [rbp-0x48], rsp"; "mov x19, x0" when x0 holds a copy)
)

// spSaved is a copy of the stack pointer (plus off) in a register or a
// frame slot: the pointer's heights when the copy was taken, so that
// moving it back into the pointer (gcc's AArch64 "mov x20, sp" before a
// VLA's allocation, "mov sp, x20" at its scope's end; x86-64's "mov rbx,
// rsp", "mov rsp, rbx"; gcc -Os's spill "mov [rbp-0x48], rsp" ... "mov
// rsp, [rbp-0x48]"; AArch64's "mov x1, sp; str x1, [x29,#120]" ... "ldr
// x0, [x29,#120]; mov sp, x0") restores them rather than starting a base
// of unknown height.
type spSaved struct {
	// in is the register holding the copy, or the frame slot: "[-72]",
	// its offset from the entry stack pointer, or "[esp@0x120f-16]" from
	// a base's (slotKey).
	in      string
	sp, asp int64
	spOK    bool
	aspOK   bool
	abase   string
}

// maxSaved bounds the copies followed at once: nested VLA scopes hold one
// each ("mov r13, rsp" for the outer, "mov r12, rsp" for the inner).
const maxSaved = 8

// height is the stack and frame pointers' offsets from the stack pointer
// at the entry, where known, and the constant a register was last set to
// (creg, for spAddReg).
type height struct {
	sp, fp     int64
	spOK, fpOK bool
	creg       string
	cval       int64
	// abase names the aligned stack pointer of the last realignment
	// ("esp&-16"), "" for none; asp and afp are the pointers' offsets
	// from it, where known.
	abase        string
	asp, afp     int64
	aspOK, afpOK bool
	// saved lists the copies of the stack pointer held; it is never
	// changed in place (step and meet make a new one), so heights may
	// share it.
	saved []spSaved
	// taken lists the frame slots (slotKey) whose address an instruction
	// took ("lea rax, [rbp-0x48]", "add x10, x29, #80") on some path to
	// here, at most maxTaken, and takenAll says more were: a write
	// through a pointer at no known place, or a call, may write them, so
	// a copy of the stack pointer held in one is dropped (dropSaved).
	// Never changed in place.
	taken    []string
	takenAll bool
	// ptrs are the registers holding a frame slot's address (by its
	// offset from the entry stack pointer) on every path to here, at most
	// maxPtrs: a pointer moved from one by a constant ("add rax, 8", "lea
	// rdx, [rax+8]", "add x10, x10, #8"; a struct's next field) takes the
	// address of the slot it then points to, so a write through it drops
	// the copy that neighbour held. Never changed in place.
	ptrs []framePtr
}

// framePtr is a register holding the address of the frame slot at off
// from the entry stack pointer.
type framePtr struct {
	reg string
	off int64
}

// maxPtrs bounds the registers followed as holding frame addresses; past
// it the newest is not followed (its moves then take no slot).
const maxPtrs = 8

// maxTaken bounds the frame slots whose address taken is remembered.
// Past it every slot counts as taken, so that any call drops every
// spilled copy of the stack pointer: 16 was reached by a function passing
// 17 locals by address (scanf's, out-parameters), whose VLA's scope then
// ended at an unknown height. A height's set is copied when a slot is
// added, so the bound also bounds that copy.
const maxTaken = 64

// equal reports whether h and o are the same height.
func (h height) equal(o height) bool {
	return h.sp == o.sp && h.fp == o.fp && h.spOK == o.spOK && h.fpOK == o.fpOK && h.creg == o.creg && h.cval == o.cval &&
		h.abase == o.abase && h.asp == o.asp && h.afp == o.afp && h.aspOK == o.aspOK && h.afpOK == o.afpOK && slices.Equal(h.saved, o.saved) &&
		h.takenAll == o.takenAll && slices.Equal(h.taken, o.taken) && slices.Equal(h.ptrs, o.ptrs)
}

// both is what a and b both hold, in a's order: a itself when they are
// equal (the sets are small and never changed in place).
func both[T comparable](a, b []T) []T {
	if slices.Equal(a, b) {
		return a
	}
	var out []T
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func (h height) meet(o height) height {
	m := height{sp: h.sp, fp: h.fp, spOK: h.spOK && o.spOK && h.sp == o.sp, fpOK: h.fpOK && o.fpOK && h.fp == o.fp}
	if h.creg == o.creg && h.cval == o.cval {
		m.creg, m.cval = h.creg, h.cval
	}
	m.saved = both(h.saved, o.saved) // the copies both paths hold
	m.ptrs = both(h.ptrs, o.ptrs)    // the frame addresses both paths hold
	// the slots taken on either path
	m.taken, m.takenAll = h.taken, h.takenAll || o.takenAll
	for _, k := range o.taken {
		m = m.take(k)
	}
	if h.abase == o.abase && h.abase != "" {
		m.abase, m.asp, m.afp = h.abase, h.asp, h.afp
		m.aspOK = h.aspOK && o.aspOK && h.asp == o.asp
		m.afpOK = h.afpOK && o.afpOK && h.afp == o.afp
	}
	return m
}

// slotKey names where a copy of the stack pointer may be held at height h:
// a register by itself, a frame slot ("[rbp-0x48]", "[x29+0x78]") by its
// offset from the entry stack pointer ("[-72]") or from the base the stack
// pointer's height is known from; "" for a memory operand at no known
// place.
func (h height) slotKey(cc convention, loc string) string {
	if !strings.HasPrefix(loc, "[") {
		return loc
	}
	if off, ok := h.entryOffset(cc, loc); ok {
		return fmt.Sprintf("[%d]", off)
	}
	if base, disp, ok := frameOperand(loc); ok && base == cc.sp && h.aspOK {
		return fmt.Sprintf("[%s%+d]", h.abase, h.asp+disp)
	}
	return ""
}

// savedIn is the copy of the stack pointer held in key, if any.
func (h height) savedIn(key string) (spSaved, bool) {
	if key == "" {
		return spSaved{}, false
	}
	for _, c := range h.saved {
		if c.in == key {
			return c, true
		}
	}
	return spSaved{}, false
}

// take is h with the frame slot k among those whose address was taken.
func (h height) take(k string) height {
	switch {
	case h.takenAll || slices.Contains(h.taken, k):
	case len(h.taken) >= maxTaken:
		h.taken, h.takenAll = nil, true
	default:
		h.taken = append(slices.Clip(h.taken), k)
		slices.Sort(h.taken) // so that equal sets compare equal
	}
	return h
}

// movePtrs is h with the frame addresses (height.ptrs) after s, which
// before held: a register s defines holds none unless s takes a slot's
// address into it (lea, AArch64's add from x29 or sp) or moves one by a
// constant (an spCopy from a register holding one), and then the slot it
// points to is taken.
func (h height) movePtrs(cc convention, s vfSem, before height) height {
	if len(before.ptrs) == 0 && s.addrOf == "" {
		return h
	}
	dst, off, ok, moved := "", int64(0), false, false
	if s.addrOf != "" && len(s.defs) == 1 && !strings.HasPrefix(s.defs[0], "[") {
		dst = s.defs[0]
		off, ok = before.entryOffset(cc, s.addrOf) // taken by step already
	}
	if op := s.stack; op.sp == spCopy && !strings.HasPrefix(op.reg, "[") {
		if i := slices.IndexFunc(before.ptrs, func(p framePtr) bool { return p.reg == op.from }); i >= 0 {
			dst, off, ok, moved = op.reg, before.ptrs[i].off+op.n, true, op.n != 0
		}
	}
	gone := func(p framePtr) bool { return slices.Contains(s.defs, p.reg) || p.reg == dst }
	if !ok && !slices.ContainsFunc(before.ptrs, gone) {
		return h // most instructions: no copy
	}
	h.ptrs = nil // most often the one address taken for a call, which the call ends
	if slices.ContainsFunc(before.ptrs, func(p framePtr) bool { return !gone(p) }) {
		h.ptrs = slices.DeleteFunc(slices.Clone(before.ptrs), gone)
	}
	if ok && dst != "" && len(h.ptrs) < maxPtrs {
		h.ptrs = append(h.ptrs, framePtr{dst, off})
		if moved {
			h = h.take(fmt.Sprintf("[%d]", off))
		}
	}
	return h
}

// overlaps reports whether the frame slots a and b (slotKey) share a
// byte, taking each for a word.
func overlaps(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := strconv.ParseInt(strings.Trim(a, "[]"), 10, 64)
	y, errB := strconv.ParseInt(strings.Trim(b, "[]"), 10, 64)
	return errA == nil && errB == nil && x < y+8 && y < x+8
}

// dropSaved is h's copies without those held in the locations s defines
// (a register, or a frame slot a write overlaps), nor, when s is a call or
// writes through a pointer at no known place, those held in a frame slot
// whose address was taken (height.taken).
func (h height) dropSaved(cc convention, s vfSem) []spSaved {
	if len(h.saved) == 0 || len(s.defs) == 0 && !s.call {
		return h.saved
	}
	aliased := func(c spSaved) bool {
		return h.takenAll || slices.ContainsFunc(h.taken, func(k string) bool { return overlaps(k, c.in) })
	}
	hit := func(c spSaved) bool {
		if s.call && strings.HasPrefix(c.in, "[") && aliased(c) {
			return true // the callee may write through the address
		}
		for _, d := range s.defs {
			if !strings.HasPrefix(d, "[") {
				if d == c.in {
					return true
				}
				continue
			}
			if !strings.HasPrefix(c.in, "[") {
				continue
			}
			k := h.slotKey(cc, d)
			if k == "" {
				if aliased(c) {
					return true // a write through a pointer that may hold the slot's address
				}
				continue // a write through another pointer: a spill slot is the procedure's own
			}
			if overlaps(k, c.in) {
				return true
			}
		}
		return false
	}
	if !slices.ContainsFunc(h.saved, hit) {
		return h.saved
	}
	return slices.DeleteFunc(slices.Clone(h.saved), hit)
}

// step applies instruction s (which defines defs) to h; a call pops pops
// bytes of its arguments on return (ret 8), or an unknown amount when
// calleePops.
func (h height) step(cc convention, s vfSem, calleePops bool, pops int64) height {
	before := h
	h.saved = h.dropSaved(cc, s) // overwritten (an spCopy into one sets it again below)
	if s.addrOf != "" {
		if k := before.slotKey(cc, s.addrOf); strings.HasPrefix(k, "[") {
			h = h.take(k)
		}
	}
	h = h.movePtrs(cc, s, before)
	var restore spSaved
	restores := false
	if s.stack.sp == spAlloc && len(before.saved) > 0 {
		restore, restores = before.savedIn(before.slotKey(cc, s.stack.reg))
	}
	switch op := s.stack; {
	case s.opaque:
		return height{}
	case op.sp == spCopy && (op.from == cc.sp || len(before.saved) > 0): // most are spills and loads of other values
		c, ok := spSaved{sp: h.sp, spOK: h.spOK, asp: h.asp, aspOK: h.aspOK, abase: h.abase}, h.spOK || h.aspOK
		if op.from != cc.sp {
			c, ok = before.savedIn(before.slotKey(cc, op.from))
		}
		if in := before.slotKey(cc, op.reg); ok && in != "" && len(h.saved) < maxSaved {
			c.in, c.sp, c.asp = in, c.sp+op.n, c.asp+op.n
			if !c.spOK {
				c.sp = 0 // what is not known does not tell copies apart at a join
			}
			if !c.aspOK {
				c.asp, c.abase = 0, ""
			}
			h.saved = append(slices.Clip(h.saved), c)
		}
	case restores:
		if restore.abase != h.abase {
			h.afpOK = false // the frame pointer's offset was from the other base
		}
		h.sp, h.spOK, h.asp, h.aspOK, h.abase = restore.sp, restore.spOK, restore.asp, restore.aspOK, restore.abase
	case op.sp == spAdd:
		h.sp += op.n
		h.asp += op.n
	case op.sp == spAddReg && op.reg == h.creg && h.creg != "":
		h.sp += op.n * h.cval
		h.asp += op.n * h.cval
	case op.sp == spFromFP:
		h.sp, h.spOK = h.fp+op.n, h.fpOK
		h.asp, h.aspOK = h.afp+op.n, h.afpOK
	case op.sp == spAlign && h.spOK:
		h.abase = fmt.Sprintf("%s&%d", cc.sp, op.n)
		if h.sp != 0 {
			h.abase = fmt.Sprintf("(%s%+d)&%d", cc.sp, h.sp, op.n)
		}
		h.spOK, h.asp, h.aspOK, h.afpOK = false, 0, true, false
	case op.allocates(h):
		at := op.n
		if op.sp == spAddReg {
			at = op.at
		}
		h.abase = fmt.Sprintf("%s@%#x", cc.sp, at)
		h.spOK, h.asp, h.aspOK, h.afpOK = false, 0, true, false
	case s.call && pops != 0:
		h.sp += pops
		h.asp += pops
	case s.call && calleePops:
		h.spOK, h.aspOK = false, false
	case slices.Contains(s.defs, cc.sp):
		h.spOK, h.aspOK = false, false
	}
	switch {
	case s.stack.fp == fpFromSP:
		h.fp, h.fpOK = h.sp+s.stack.n, h.spOK
		h.afp, h.afpOK = h.asp+s.stack.n, h.aspOK
	case slices.Contains(s.defs, cc.fp):
		h.fpOK, h.afpOK = false, false // leave and pop restore the caller's
	}
	switch {
	case s.constReg != "":
		h.creg, h.cval = s.constReg, s.constVal
	case s.call || slices.Contains(s.defs, h.creg):
		h.creg, h.cval = "", 0
	}
	return h
}

// maxStackRounds bounds the passes over the blocks; heights only go from
// known to unknown, so few are needed.
const maxStackRounds = 16

// stackHeights follows the stack height over the blocks: the height
// before each instruction, unknown (the zero height) where it is lost or
// the instruction is not reached from the entry.
//
// Where calleePops, the calls in cdeclCalls still pop nothing (the C
// library's, which are cdecl on 32-bit Windows too). popped gives what the
// calls of the program's own procedures pop on return, from their returns
// (calleePop), on any platform.
func stackHeights(cc convention, flows []flowInsn, sems []vfSem, blocks []ports.BasicBlock, entry int, calleePops bool, cdeclCalls map[int]bool, popped map[int]int64) []height {
	n := len(flows)
	at := make([]height, n)
	if entry < 0 || entry >= len(blocks) || n == 0 {
		return at
	}
	forwardBlocks(flows, blocks, entry, height{spOK: true},
		func(h height, k int) height {
			n, known := popped[k]
			return h.step(cc, sems[k], calleePops && !cdeclCalls[k] && !known, n)
		},
		func(old, in height) (height, bool) {
			m := old.meet(in)
			return m, !m.equal(old)
		},
		func(k int, h height) { at[k] = h })
	return at
}

// forwardBlocks runs a forward pass over the blocks reached from entry
// (at most maxStackRounds rounds to a fixed point), along their
// successors but not tail calls nor unresolved edges: start is the state
// at the entry, step the state after instruction k, and meet joins the
// state flowing into a block with the one it has (reporting whether that
// changed). Then each sees every reached instruction with the state
// before it.
func forwardBlocks[S any](flows []flowInsn, blocks []ports.BasicBlock, entry int, start S, step func(s S, k int) S, meet func(old, in S) (S, bool), each func(k int, s S)) {
	n := len(flows)
	byStart := make(map[uint64]int, len(blocks))
	for bi, b := range blocks {
		byStart[b.Start] = bi
	}
	in := make([]S, len(blocks))
	reached := make([]bool, len(blocks))
	in[entry], reached[entry] = start, true
	visit := func(bi int, each func(k int, s S)) S {
		lo, _ := slices.BinarySearchFunc(flows, blocks[bi].Start, func(f flowInsn, a uint64) int { return cmpU(f.addr, a) })
		s := in[bi]
		for k := lo; k < n && flows[k].addr < blocks[bi].End; k++ {
			if each != nil {
				each(k, s)
			}
			s = step(s, k)
		}
		return s
	}
	for round, changed := 0, true; changed && round < maxStackRounds; round++ {
		changed = false
		for bi, b := range blocks {
			if !reached[bi] {
				continue
			}
			out := visit(bi, nil)
			for _, e := range b.Successors {
				si, ok := byStart[e.Target]
				if !ok || e.Kind == ports.EdgeTailCall || e.Kind == ports.EdgeUnresolved {
					continue
				}
				if !reached[si] {
					in[si], reached[si], changed = out, true, true
					continue
				}
				if m, diff := meet(in[si], out); diff {
					in[si], changed = m, true
				}
			}
		}
	}
	for bi := range blocks {
		if reached[bi] {
			visit(bi, each)
		}
	}
}

// operands is the height instruction s's memory operands are relative
// to: h before it, or after it for AArch64's pre-indexed addressing.
func (h height) operands(cc convention, s vfSem) height {
	if s.memAfter {
		return h.step(cc, s, false, 0)
	}
	return h
}

// entryOffset places a frame operand ("[esp+0x8]") at its offset from the
// entry stack pointer, when its base's height is known at the
// instruction.
func (h height) entryOffset(cc convention, loc string) (int64, bool) {
	base, disp, ok := frameOperand(loc)
	switch {
	case !ok:
	case base == cc.sp && h.spOK:
		return h.sp + disp, true
	case base == cc.fp && h.fpOK:
		return h.fp + disp, true
	}
	return 0, false
}

// stackParameters finds the stack words above the return address that the
// procedure reads, or takes the address of, at known heights (heights from
// stackHeights), and those a tail call passes through: tails gives the
// instructions that jump to an import, and how many stack words its
// prototype takes ("jmp puts@plt" passes [esp+4]).
func stackParameters(cc convention, flows []flowInsn, sems []vfSem, heights []height, tails map[int]int) ([]ports.InferredParameter, []ports.ParameterUse) {
	params, uses := []ports.InferredParameter{}, []ports.ParameterUse{}
	word := cc.stackWord
	seen := map[int64][]uint64{}
	for k, h := range heights {
		h = h.operands(cc, sems[k])
		for i := range len(sems[k].uses) + 1 {
			u := sems[k].addrOf
			if i < len(sems[k].uses) {
				u = sems[k].uses[i]
			}
			at, ok := h.entryOffset(cc, u)
			if ok && at >= cc.stackFrom && (at-cc.stackFrom)%word == 0 && at < cc.stackFrom+word*(1<<16) {
				seen[at] = append(seen[at], flows[k].addr)
			}
		}
		for i := range int64(tails[k]) {
			if at := h.sp + cc.stackFrom + i*word; h.spOK && at >= cc.stackFrom && (at-cc.stackFrom)%word == 0 {
				seen[at] = append(seen[at], flows[k].addr)
			}
		}
	}
	offs := make([]int64, 0, len(seen))
	for at := range seen {
		offs = append(offs, at)
	}
	slices.Sort(offs)
	for _, at := range offs {
		addrs := slices.Compact(slices.Sorted(slices.Values(seen[at])))
		loc := fmt.Sprintf("[%s+%d]", cc.sp, at)
		params = append(params, ports.InferredParameter{Location: loc, Position: int((at - cc.stackFrom) / word), Uses: len(addrs)})
		for _, a := range addrs {
			uses = append(uses, ports.ParameterUse{Location: loc, Address: a})
		}
	}
	slices.SortStableFunc(uses, func(x, y ports.ParameterUse) int { return cmpU(x.Address, y.Address) })
	return params, uses
}

// frameOperand parses a memory operand relative to one register and a
// constant ("[esp]", "[ebp+0x8]", "[ebp-0x4]") into the register and the
// displacement.
func frameOperand(loc string) (string, int64, bool) {
	inner, ok := strings.CutPrefix(loc, "[")
	if !ok {
		return "", 0, false
	}
	if inner, ok = strings.CutSuffix(inner, "]"); !ok || strings.ContainsAny(inner, "*:") {
		return "", 0, false
	}
	k := strings.IndexAny(inner, "+-")
	if k < 0 {
		return inner, 0, inner != ""
	}
	hex, ok := strings.CutPrefix(inner[k+1:], "0x")
	if !ok {
		return "", 0, false
	}
	v, err := strconv.ParseInt(hex, 16, 64)
	if err != nil {
		return "", 0, false
	}
	if inner[k] == '-' {
		v = -v
	}
	return inner[:k], v, true
}

// calleePop is what a procedure pops on return: n bytes of its stack
// arguments (a stdcall procedure's "ret 8", i386 SysV's "ret 4" of one
// returning a struct through a hidden pointer), known when it has returns
// and they agree.
type calleePop struct {
	n     int64
	known bool
}

// calleePops is what the 32-bit x86 procedure at t pops on return, read
// from its own returns ("ret" pops nothing, "ret 8" eight bytes) and kept
// per program.
func (e *vfEnv) calleePops(ctx context.Context, t uint64) (int64, bool) {
	s := &e.p.vfArity
	s.popsMu.Lock()
	defer s.popsMu.Unlock()
	if c, ok := s.pops[t]; ok {
		return c.n, c.known
	}
	var c calleePop
	if i, ok := e.p.rangeIndex(t); ok && e.isCallee(t) {
		c = e.returnsPop(ctx, i)
	}
	if ctx.Err() != nil {
		return 0, false
	}
	if s.pops == nil {
		s.pops = map[uint64]calleePop{}
	}
	s.pops[t] = c
	return c.n, c.known
}

// returnsPop reads what procedure i's returns pop.
func (e *vfEnv) returnsPop(ctx context.Context, i int) calleePop {
	r, b, end, err := e.code(ctx, i)
	if err != nil || b == nil {
		return calleePop{}
	}
	d, err := e.p.decoder(e.a.src)
	if err != nil {
		return calleePop{}
	}
	var c calleePop
	agree := true
	sweep(d, b, r.Start, end, defaultVFInsns, func(in *insn) bool {
		if in.flow != ports.FlowReturn || in.invalid {
			return true
		}
		at := in.addr - r.Start
		if in.size <= 0 || at+uint64(in.size) > uint64(len(b)) {
			return true
		}
		code := b[at : at+uint64(in.size)]
		var n int64
		switch last := len(code) - 1; {
		case code[last] == 0xc3: // ret
		case len(code) >= 3 && code[last-2] == 0xc2: // ret imm16
			n = int64(code[last-1]) | int64(code[last])<<8
		default: // a far return
			agree = false
			return false
		}
		if c.known && c.n != n {
			agree = false
			return false
		}
		c = calleePop{n: n, known: true}
		return true
	})
	if !agree {
		return calleePop{}
	}
	return c
}
