package diff

import (
	"cmp"
	"slices"
	"strings"
)

// AArch64 code forms a global's address in two parts: adrp puts its 4 KiB
// page in a register and a later instruction adds the low 12 bits, as an
// add's immediate (add x22, x22, #0xf0) or a load's displacement
// ([x19,#232]); gcc's section anchors then reach several globals from one
// such address ([x22,#16]). The engine resolves these only in
// straight-line code, so an add, load or store that a branch or a call
// separates from its adrp (crt's __do_global_dtors_aux keeps the page of
// its completed.0 flag in the callee-saved x19 across two calls; main
// keeps its anchor in x22 across its loop) keeps numbers that move with
// the data. pageBases finds, per instruction, which registers hold a page,
// or an address formed from one, on every path to it through the
// function, so normalize can read those numbers as parts of an address.

// a64CallerSaved are the registers a call may change: x0-x18 and x30.
const a64CallerSaved = 1<<19 - 1 | 1<<30

// pageUse says how an instruction uses a register that holds an address
// built from an adrp page on every path to it.
type pageUse struct {
	Base bool // its memory operand's base holds one: the displacement is part of an address
	Low  bool // it is add xD, xN, #imm with a page in xN: imm is the address's low 12 bits
}

// pageBases reports each instruction's pageUse, from a forward
// must-analysis over the instructions' own flow (fall-through, and branch
// and jump targets inside the function): adrp puts a page in a register,
// add of an immediate to a register holding a page or an address an
// address, and any other write, or a call for x0-x18 and x30, clears it.
// nil when no instruction is an adrp, or when the flow is not fully known
// (a jump through a register or a table, a target that is no instruction
// start).
func pageBases(ins []insn, start, end uint64) []pageUse {
	has := false
	for _, in := range ins {
		if in.Mnemonic == "adrp" {
			has = true
			break
		}
	}
	if !has {
		return nil
	}
	// The instruction at an address: a binary search when the
	// instructions are in address order (a decoder's sweep gives them so),
	// else a map.
	sorted := slices.IsSortedFunc(ins, func(a, b insn) int { return cmp.Compare(a.Addr, b.Addr) })
	var at map[uint64]int
	if !sorted {
		at = make(map[uint64]int, len(ins))
		for k, in := range ins {
			at[in.Addr] = k
		}
	}
	index := func(addr uint64) (int, bool) {
		if !sorted {
			j, ok := at[addr]
			return j, ok
		}
		j, ok := slices.BinarySearchFunc(ins, addr, func(in insn, a uint64) int { return cmp.Compare(in.Addr, a) })
		// Of equal addresses the map kept the last.
		for ok && j+1 < len(ins) && ins[j+1].Addr == addr {
			j++
		}
		return j, ok
	}
	type node struct {
		writes, page uint32 // registers written; the one adrp sets
		add          int    // add xD, xN, #imm: N, else -1
		call         bool
		next         bool // falls through to the next instruction
		target       int  // index of a branch or jump target inside, or -1
	}
	nodes := make([]node, len(ins))
	for k, in := range ins {
		n := node{target: -1, next: true, add: -1}
		switch in.Flow {
		case "return", "stop":
			n.next = false
		case "jump", "branch":
			n.next = in.Flow == "branch"
			if !in.HasTarget {
				return nil
			}
			if in.Target >= start && in.Target < end {
				j, ok := index(in.Target)
				if !ok {
					return nil
				}
				n.target = j
			}
		case "call":
			n.call = true
		}
		ops := cutComment(in.Operands)
		n.writes = a64Writes(in.Mnemonic, ops)
		if in.Mnemonic == "adrp" {
			n.page = n.writes
		}
		if src, ok := a64AddImmediate(in.Mnemonic, ops); ok {
			n.add = int(src)
		}
		nodes[k] = n
	}
	// state[k]: registers holding a page, and those holding an address
	// (a page, or one plus an immediate), before instruction k; seen says
	// some path reached k (an unreached one holds nothing known).
	type regs struct{ page, addr uint32 }
	state := make([]regs, len(ins))
	seen := make([]bool, len(ins))
	seen[0] = true
	work := []int{0}
	for len(work) > 0 {
		k := work[len(work)-1]
		work = work[:len(work)-1]
		n, in := nodes[k], state[k]
		out := regs{in.page&^n.writes | n.page, in.addr&^n.writes | n.page}
		if n.add >= 0 && in.addr&(1<<n.add) != 0 {
			out.addr |= n.writes
		}
		if n.call {
			out.page &^= a64CallerSaved
			out.addr &^= a64CallerSaved
		}
		flow := func(j int) {
			if j < 0 || j >= len(ins) {
				return
			}
			if !seen[j] {
				seen[j], state[j] = true, out
				work = append(work, j)
			} else if v := (regs{state[j].page & out.page, state[j].addr & out.addr}); v != state[j] {
				state[j] = v
				work = append(work, j)
			}
		}
		if n.next {
			flow(k + 1)
		}
		flow(n.target)
	}
	out := make([]pageUse, len(ins))
	for k, in := range ins {
		if !seen[k] {
			continue
		}
		if r, ok := a64Base(in.Operands); ok && state[k].addr&(1<<r) != 0 {
			out[k].Base = true
		}
		if a := nodes[k].add; a >= 0 && state[k].page&(1<<a) != 0 {
			out[k].Low = true
		}
	}
	return out
}

// a64AddImmediate reads add xD, xN, #imm (64-bit, an immediate, no
// shifted register) and returns N.
func a64AddImmediate(mn, ops string) (uint, bool) {
	if mn != "add" {
		return 0, false
	}
	d, rest, ok1 := strings.Cut(ops, ",")
	n, imm, ok2 := strings.Cut(rest, ",")
	if !ok1 || !ok2 || strings.Contains(imm, ",") || !strings.HasPrefix(strings.TrimSpace(d), "x") || !strings.HasPrefix(strings.TrimSpace(imm), "#") {
		return 0, false
	}
	return a64Reg(n)
}

// a64Reg reads a general register's number from xN or wN (N 0-30).
func a64Reg(s string) (uint, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || len(s) > 3 || s[0] != 'x' && s[0] != 'w' {
		return 0, false
	}
	n := uint(0)
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint(c-'0')
	}
	return n, n <= 30
}

// a64Base is the base register of an instruction's memory operand, [xN...].
func a64Base(ops string) (uint, bool) {
	i := strings.IndexByte(ops, '[')
	if i < 0 {
		return 0, false
	}
	b := ops[i+1:]
	if j := strings.IndexAny(b, ",]"); j >= 0 {
		b = b[:j]
	}
	return a64Reg(b)
}

// a64Writes are the general registers an AArch64 instruction writes, read
// from its text, erring toward more: the first operand of most
// instructions, the first two of a load pair, none of a store, compare or
// branch (but a store-exclusive's status register), and a memory operand's
// base when it is written back ([x0,#8]! or [x0],#8).
func a64Writes(mn, ops string) uint32 {
	var buf [8]string // the operands; on the stack for the usual few
	parts := buf[:0]
	depth, from := 0, 0
	for i := 0; i < len(ops); i++ {
		switch ops[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts, from = append(parts, ops[from:i]), i+1
			}
		}
	}
	parts = append(parts, ops[from:])
	var w uint32
	reg := func(k int) {
		if k < len(parts) {
			if r, ok := a64Reg(parts[k]); ok {
				w |= 1 << r
			}
		}
	}
	for k, p := range parts {
		if strings.Contains(p, "[") && (strings.Contains(p, "]!") || k+1 < len(parts)) {
			if r, ok := a64Base(p); ok {
				w |= 1 << r
			}
		}
	}
	switch {
	case mn == "cmp", mn == "cmn", mn == "tst", mn == "ccmp", mn == "ccmn", strings.HasPrefix(mn, "fcmp"),
		mn == "b", strings.HasPrefix(mn, "b."), mn == "br", mn == "blr", mn == "ret", mn == "cbz", mn == "cbnz", mn == "tbz", mn == "tbnz",
		mn == "nop", strings.HasPrefix(mn, "prfm"), strings.HasPrefix(mn, "prfum"), mn == "dmb", mn == "dsb", mn == "isb",
		mn == "hint", mn == "bti", mn == "msr", mn == "svc", mn == "brk", mn == "hlt", mn == "udf":
	case mn == "bl":
		w |= 1 << 30
	case strings.HasPrefix(mn, "st") && strings.Contains(mn, "xr") || strings.HasPrefix(mn, "st") && strings.Contains(mn, "xp"):
		reg(0) // stxr w1, x2, [x0]: w1 is the status
	case strings.HasPrefix(mn, "st"):
	case strings.HasPrefix(mn, "ldp"), strings.HasPrefix(mn, "ldnp"), strings.HasPrefix(mn, "ldxp"), strings.HasPrefix(mn, "ldaxp"),
		strings.HasPrefix(mn, "casp"):
		reg(0)
		reg(1)
	default:
		reg(0)
	}
	return w
}
