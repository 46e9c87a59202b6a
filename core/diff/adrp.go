package diff

import "strings"

// AArch64 code forms a global's address in two parts: adrp puts its 4 KiB
// page in a register and a later instruction adds the low 12 bits, often
// as a load's displacement ([x19,#232]). The engine resolves the pair only
// in straight-line code, so a load or store that a branch or a call
// separates from its adrp (crt's __do_global_dtors_aux keeps the page of
// its completed.0 flag in the callee-saved x19 across two calls) keeps a
// displacement that moves with the data. pageBases finds, per instruction,
// the registers that hold an adrp's page on every path to it through the
// function, so normalize can read such a displacement as part of an
// address.

// a64CallerSaved are the registers a call may change: x0-x18 and x30.
const a64CallerSaved = 1<<19 - 1 | 1<<30

// pageBases reports for each instruction whether its memory operand's base
// register holds an adrp page on every path from the function's start:
// a forward must-analysis over the instructions' own flow (fall-through,
// and branch and jump targets inside the function). nil when no instruction
// is an adrp, or when the flow is not fully known (a jump through a
// register or a table, a target that is no instruction start).
func pageBases(ins []insn, start, end uint64) []bool {
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
	at := make(map[uint64]int, len(ins))
	for k, in := range ins {
		at[in.Addr] = k
	}
	type node struct {
		writes, page uint32 // registers written; the one adrp sets
		call         bool
		next         bool // falls through to the next instruction
		target       int  // index of a branch or jump target inside, or -1
	}
	nodes := make([]node, len(ins))
	for k, in := range ins {
		n := node{target: -1, next: true}
		switch in.Flow {
		case "return", "stop":
			n.next = false
		case "jump", "branch":
			n.next = in.Flow == "branch"
			if !in.HasTarget {
				return nil
			}
			if in.Target >= start && in.Target < end {
				j, ok := at[in.Target]
				if !ok {
					return nil
				}
				n.target = j
			}
		case "call":
			n.call = true
		}
		n.writes = a64Writes(in.Mnemonic, cutComment(in.Operands))
		if in.Mnemonic == "adrp" {
			n.page = n.writes
		}
		nodes[k] = n
	}
	// in[k]: registers holding a page before instruction k; seen says
	// some path reached k (an unreached one holds nothing known).
	state := make([]uint32, len(ins))
	seen := make([]bool, len(ins))
	seen[0] = true
	work := []int{0}
	for len(work) > 0 {
		k := work[len(work)-1]
		work = work[:len(work)-1]
		n := nodes[k]
		out := state[k]&^n.writes | n.page
		if n.call {
			out &^= a64CallerSaved
		}
		flow := func(j int) {
			if j < 0 || j >= len(ins) {
				return
			}
			if !seen[j] {
				seen[j], state[j] = true, out
				work = append(work, j)
			} else if v := state[j] & out; v != state[j] {
				state[j] = v
				work = append(work, j)
			}
		}
		if n.next {
			flow(k + 1)
		}
		flow(n.target)
	}
	out := make([]bool, len(ins))
	for k, in := range ins {
		if r, ok := a64Base(in.Operands); ok && seen[k] && state[k]&(1<<r) != 0 {
			out[k] = true
		}
	}
	return out
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
	var parts []string
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
