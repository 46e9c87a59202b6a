package native

import "golang.org/x/arch/x86/x86asm"

// A switch in 32-bit position-independent code jumps through a table of
// GOT-relative offsets, itself addressed off the GOT register (gcc):
//
//	cmp  eax, 6 ; ja default
//	mov  edx, [ebx+eax*4-0x1fd8]   ; the table at GOT-0x1fd8
//	add  edx, ebx                  ; the target: GOT + entry
//	jmp  edx
//
// or "mov R, G; add R, [G+I*4+T]; jmp R" (-O1), or at -O0 "shl I, 2;
// mov R, [I+G+T]; add R, G; jmp R" (G base or index). The tracking
// follows the entry from its load into the jump's register (picEntry, one
// instruction at a time: each form's instructions must be adjacent); the
// table's address and the added value are the registers' known values
// there. The scan recovers the tables it can (picTable, with the values
// it knows: straight-line values, and for a callee-saved register the
// value its settings left, as the range-wide rule will give it), so that
// their cases are among the joins, and the sweep takes those. The sweep
// knows more (a GOT register reloaded from its spill slot, or known
// through a join): a table only it recovers has its cases ahead made
// joins whose state is unknown (extra), since the scan counted no edge
// into them. table (disasm_x86.go) bounds the count by the cmp and
// requires every case to lie in the jump's code section.

// picEntry is what register reg holds on the way to the jump, good for
// the instruction at next only: the word of the table at tab (indexed by
// the switch value, entryLoaded), base (entryBase: "mov R, G" before
// "add R, [G+I*4+T]") or both added (entryAdded).
type picEntry struct {
	next      uint64
	reg       uint8
	stage     uint8
	tab, base uint32
}

const (
	entryNone = iota
	entryLoaded
	entryBase
	entryAdded
)

// picTable is a jump at pc through the table at tab whose entries are
// added to base, as the scan recovered it.
type picTable struct {
	pc        uint64
	tab, base uint32
}

// entry follows a jump-table entry through the instruction x at pc,
// which ends at next.
func (d *x86Decoder) entry(x *p32, pc, next uint64) {
	p := &d.pic
	prev := p.ent
	p.ent.next = 0
	if x.m != map1 || x.opsize || x.seg || x.addr16 || x.vex {
		return
	}
	switch {
	case (x.op == 0x8b || x.op == 0x03) && x.mod != 3 && x.base >= 0 && x.index && x.reg != 4 && (x.scale == 4 || x.scale == 1 && x.op == 0x8b):
		// mov R, [B+I*4+T] or add R, [B+I*4+T]; gcc -O0 shifts the
		// index itself: mov R, [B+I+T], one of B and I the GOT register.
		t, ok := d.picValue(x.base)
		if x.scale == 1 {
			u, known := d.picValue(x.idx)
			if ok == known {
				return
			}
			if known {
				t, ok = u, true
			}
		}
		if !ok {
			return
		}
		e := picEntry{next: next, reg: x.reg, stage: entryLoaded, tab: t + uint32(x.disp)}
		if x.op == 0x03 {
			switch {
			case prev.next == pc && prev.stage == entryBase && prev.reg == x.reg:
				e.base = prev.base
			default:
				if e.base, ok = d.picValue(int8(x.reg)); !ok {
					return
				}
			}
			e.stage = entryAdded
		}
		p.ent = e
	case (x.op == 0x89 || x.op == 0x8b) && x.mod == 3:
		// mov R, G before add R, [G+I*4+T]
		dst, src := x.rm, x.reg
		if x.op == 0x8b {
			dst, src = x.reg, x.rm
		}
		if v, ok := d.picValue(int8(src)); ok && dst != src && dst != 4 {
			p.ent = picEntry{next: next, reg: dst, stage: entryBase, base: v}
		}
	case (x.op == 0x01 || x.op == 0x03) && x.mod == 3:
		// add R, G after the load of R
		dst, src := x.rm, x.reg
		if x.op == 0x03 {
			dst, src = x.reg, x.rm
		}
		if prev.next != pc || prev.stage != entryLoaded || prev.reg != dst || src == dst {
			return
		}
		v, ok := d.picValue(int8(src))
		if !ok {
			return
		}
		prev.next, prev.stage, prev.base = next, entryAdded, v
		p.ent = prev
	}
}

// picValue is the value register r holds for a table's address or its
// entries' base: its known value (range-wide ones included); in the scan also, for a callee-saved
// register written only by settings so far, the value the last one left
// (the range-wide rule's value, which the scan has yet to confirm).
func (d *x86Decoder) picValue(r int8) (uint32, bool) {
	p := &d.pic
	if r < 0 || r > 7 {
		return 0, false
	}
	if v, ok := p.value(r); ok {
		return v, true
	}
	if bit := uint8(1) << r; p.scanning && p.sets&^p.bad&^p.restoring&calleeSaved32&bit != 0 {
		return p.val[r], true
	}
	return 0, false
}

// picJump returns the table and base of "jmp r" at pc: what the scan
// recovered at pc, else the entry just computed into r (in the sweep,
// which knows more than the scan: a GOT register reloaded from its spill
// slot, or known through a join).
func (d *x86Decoder) picJump(r x86asm.Reg, pc uint64) (tab, base uint32, ok bool) {
	p := &d.pic
	if !p.scanning {
		for p.tabi < len(p.tables) && p.tables[p.tabi].pc < pc {
			p.tabi++
		}
		if p.tabi < len(p.tables) && p.tables[p.tabi].pc == pc {
			t := p.tables[p.tabi]
			return t.tab, t.base, true
		}
		if len(p.extra) >= maxJumpTable {
			return 0, 0, false // bounds the heap of cases ahead
		}
	}
	e := p.ent
	if e.next != pc || e.stage != entryAdded || gpr(r) != int(e.reg) {
		return 0, 0, false
	}
	return e.tab, e.base, true
}

// picRecovered notes the table of the jump at pc that table recovered
// into d.tab: the scan keeps it for the sweep; the sweep, when the scan
// did not recover it, makes its cases ahead joins whose state is unknown.
func (d *x86Decoder) picRecovered(pc uint64, tab, base uint32) {
	p := &d.pic
	if p.scanning {
		p.tables = append(p.tables, picTable{pc: pc, tab: tab, base: base})
		return
	}
	if p.tabi < len(p.tables) && p.tables[p.tabi].pc == pc {
		return
	}
	for _, t := range d.tab {
		if t > pc && t < p.end {
			p.pushExtra(t)
		}
	}
}

// pushExtra and extraJoin keep extra a min-heap: extraJoin drops the
// cases behind pc and reports whether pc is one.
func (p *pic32) pushExtra(t uint64) { p.extra = heapPush(p.extra, t, caseAddr) }

func (p *pic32) extraJoin(pc uint64) bool {
	hit := false
	for len(p.extra) > 0 && p.extra[0] <= pc {
		hit = hit || p.extra[0] == pc
		_, p.extra = heapPop(p.extra, caseAddr)
	}
	return hit
}

func caseAddr(t uint64) uint64 { return t }
