package native

import (
	"maps"
	"testing"

	"rea/ports"
)

// TestRegCallSlotsRules holds regCallSlots to its rules on a hand-made
// function: a callee-saved register keeps its slot across a call, a
// clobbered one loses it, a write kills it, a join keeps only agreement
// and a loop back edge that rewrites the register undoes what its entry
// had.
func TestRegCallSlotsRules(t *testing.T) {
	const ebx, eax, esi = 3, 0, 6
	const s1, s2 = 0x9000, 0x9004
	none := regOp{callReg: -1, load: -1}
	load := func(r int8, slot uint64) regOp { op := none; op.defs, op.slot, op.load = 1<<r, slot, r; return op }
	callReg := func(r int8) regOp { op := none; op.call, op.callReg = true, r; return op }
	write := func(r int8) regOp { op := none; op.defs = 1 << r; return op }
	direct := none
	direct.call = true
	type in struct {
		flow   ports.Flow
		target uint64
		op     regOp
	}
	prog := []in{
		{ports.FlowNext, 0, load(ebx, s1)}, // 0x00
		{ports.FlowNext, 0, load(eax, s2)}, // 0x04
		{ports.FlowNext, 0, load(esi, s2)}, // 0x08
		{ports.FlowCall, 0x5000, direct},   // 0x0c: clobbers eax
		{ports.FlowCall, 0, callReg(ebx)},  // 0x10: ebx survives: s1
		{ports.FlowCall, 0, callReg(eax)},  // 0x14: eax was clobbered
		{ports.FlowBranch, 0x20, none},     // 0x18
		{ports.FlowNext, 0, write(ebx)},    // 0x1c: one side rewrites ebx
		{ports.FlowCall, 0, callReg(ebx)},  // 0x20: join of s1 and a write: none
		{ports.FlowCall, 0, callReg(esi)},  // 0x24: both sides agree: s2
		{ports.FlowNext, 0, write(esi)},    // 0x28: loop body: rewrites esi...
		{ports.FlowCall, 0, callReg(esi)},  // 0x2c: ...so none here
		{ports.FlowBranch, 0x24, none},     // 0x30: ...and none at 0x24 either
		{ports.FlowReturn, 0, none},        // 0x34
	}
	var flows []flowInsn
	var ops []regOp
	for k, p := range prog {
		flows = append(flows, flowInsn{addr: uint64(4 * k), size: 4, flow: p.flow, target: p.target, hasTarget: p.target != 0})
		ops = append(ops, p.op)
	}
	blocks, _ := basicBlocks(flows, 0, uint64(4*len(prog)))
	clobber := clobberMask(cdecl)
	got := regCallSlots(flows, blocks, 0, ops, clobber)
	if want := map[int]uint64{4: s1}; !maps.Equal(got, want) {
		t.Errorf("calls: got %v, want %v", got, want)
	}
	// Without the loop's rewrite, esi holds s2 at 0x24 and 0x2c.
	ops[10] = none
	got = regCallSlots(flows, blocks, 0, ops, clobber)
	if want := map[int]uint64{4: s1, 9: s2, 11: s2}; !maps.Equal(got, want) {
		t.Errorf("calls without the rewrite: got %v, want %v", got, want)
	}
	// Under a convention that clobbers ebx (Go's ABI0), the call at 0x0c
	// takes it.
	got = regCallSlots(flows, blocks, 0, ops, clobberMask(goABI0x86))
	if _, ok := got[4]; ok {
		t.Errorf("ebx survived a call that clobbers it: %v", got)
	}
}

// TestCallsRegister tells "call reg" from the other indirect calls.
func TestCallsRegister(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		mode int
		want bool
	}{
		{[]byte{0xff, 0xd3}, 32, true},              // call ebx
		{[]byte{0x41, 0xff, 0xd4}, 64, true},        // call r12
		{[]byte{0x3e, 0xff, 0xd0}, 64, true},        // notrack call rax
		{[]byte{0xff, 0x15, 0, 0, 0, 0}, 64, false}, // call [rip+X]
		{[]byte{0xff, 0x50, 0x08}, 64, false},       // call [rax+8]
		{[]byte{0x41, 0xff, 0xd4}, 32, false},       // inc ecx; ... in 32-bit mode
		{[]byte{0xff, 0xe0}, 64, false},             // jmp rax
		{[]byte{0xff}, 64, false},                   // cut short
	} {
		if got := callsRegister(c.b, c.mode); got != c.want {
			t.Errorf("% x (%d-bit): %v, want %v", c.b, c.mode, got, c.want)
		}
	}
}
