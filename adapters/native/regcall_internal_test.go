package native

import (
	"maps"
	"math/rand/v2"
	"testing"

	"golang.org/x/arch/x86/x86asm"

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
	got := regCallSlots(flows, blocks, 0, ops, clobber, nil)
	if want := map[int]uint64{4: s1}; !maps.Equal(got, want) {
		t.Errorf("calls: got %v, want %v", got, want)
	}
	// Without the loop's rewrite, esi holds s2 at 0x24 and 0x2c.
	ops[10] = none
	got = regCallSlots(flows, blocks, 0, ops, clobber, nil)
	if want := map[int]uint64{4: s1, 9: s2, 11: s2}; !maps.Equal(got, want) {
		t.Errorf("calls without the rewrite: got %v, want %v", got, want)
	}
	// Under a convention that clobbers ebx (Go's ABI0), the call at 0x0c
	// takes it.
	got = regCallSlots(flows, blocks, 0, ops, clobberMask(goABI0x86), nil)
	if _, ok := got[4]; ok {
		t.Errorf("ebx survived a call that clobbers it: %v", got)
	}
}

// TestRegCallSlotsMoves: an exchange moves each register's slot into the
// other; a pop right after a push copies the pushed register, but not
// when the pop starts a block (another path may reach it with another
// word on the stack).
func TestRegCallSlotsMoves(t *testing.T) {
	const eax, ebx, esi = 0, 3, 6
	const s1, s2 = 0x9000, 0x9004
	none := regOp{callReg: -1, load: -1}
	load := func(r int8, slot uint64) regOp { op := none; op.defs, op.slot, op.load = 1<<r, slot, r; return op }
	callReg := func(r int8) regOp { op := none; op.call, op.callReg = true, r; return op }
	swap := none
	swap.defs, swap.load, swap.copyOf, swap.swap = 1<<ebx|1<<esi, ebx, esi+1, true
	push, pop := none, none
	push.defs, push.pushed = 1<<4, esi+1
	pop.defs, pop.popped = 1<<4|1<<eax, eax+1
	type in struct {
		flow   ports.Flow
		target uint64
		op     regOp
	}
	prog := []in{
		{ports.FlowNext, 0, load(ebx, s1)}, // 0x00
		{ports.FlowNext, 0, load(esi, s2)}, // 0x04
		{ports.FlowNext, 0, swap},          // 0x08: xchg ebx, esi
		{ports.FlowCall, 0, callReg(ebx)},  // 0x0c: s2
		{ports.FlowCall, 0, callReg(esi)},  // 0x10: s1
		{ports.FlowNext, 0, push},          // 0x14: push esi
		{ports.FlowNext, 0, pop},           // 0x18: pop eax
		{ports.FlowCall, 0, callReg(eax)},  // 0x1c: s1
		{ports.FlowBranch, 0x28, none},     // 0x20
		{ports.FlowNext, 0, push},          // 0x24: push esi
		{ports.FlowNext, 0, pop},           // 0x28: pop eax, a jump's target
		{ports.FlowCall, 0, callReg(eax)},  // 0x2c: none
		{ports.FlowReturn, 0, none},        // 0x30
	}
	var flows []flowInsn
	var ops []regOp
	for k, p := range prog {
		flows = append(flows, flowInsn{addr: uint64(4 * k), size: 4, flow: p.flow, target: p.target, hasTarget: p.target != 0})
		ops = append(ops, p.op)
	}
	blocks, _ := basicBlocks(flows, 0, uint64(4*len(prog)))
	got := regCallSlots(flows, blocks, 0, ops, clobberMask(cdecl), nil)
	if want := map[int]uint64{3: s2, 4: s1, 7: s1}; !maps.Equal(got, want) {
		t.Errorf("calls: got %v, want %v", got, want)
	}
}

// TestRegisterBytes tells "call reg" from the other indirect calls, and
// a whole register's load from memory from other moves, with the
// register's number.
func TestRegisterBytes(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		mode int
		reg  int
		want bool
	}{
		{[]byte{0xff, 0xd3}, 32, 3, true},              // call ebx
		{[]byte{0x41, 0xff, 0xd4}, 64, 12, true},       // call r12
		{[]byte{0x3e, 0xff, 0xd0}, 64, 0, true},        // notrack call rax
		{[]byte{0xff, 0x15, 0, 0, 0, 0}, 64, 0, false}, // call [rip+X]
		{[]byte{0xff, 0x50, 0x08}, 64, 0, false},       // call [rax+8]
		{[]byte{0x41, 0xff, 0xd4}, 32, 0, false},       // inc ecx; ... in 32-bit mode
		{[]byte{0xff, 0xe0}, 64, 0, true},              // jmp rax
		{[]byte{0x41, 0xff, 0xe5}, 64, 13, true},       // jmp r13
		{[]byte{0xff, 0x25, 0, 0, 0, 0}, 64, 0, false}, // jmp [rip+X]
		{[]byte{0xff}, 64, 0, false},                   // cut short
	} {
		if reg, ok := transferRegister(c.b, c.mode); ok != c.want || ok && reg != c.reg {
			t.Errorf("call % x (%d-bit): %d %v, want %d %v", c.b, c.mode, reg, ok, c.reg, c.want)
		}
	}
	for _, c := range []struct {
		b    []byte
		mode int
		reg  int
		want bool
	}{
		{[]byte{0x8b, 0x1d, 0xe4, 0x70, 0x40, 0x00}, 32, 3, true},  // mov ebx, [0x4070e4]
		{[]byte{0xa1, 0xe4, 0x70, 0x40, 0x00}, 32, 0, true},        // mov eax, [0x4070e4]
		{[]byte{0x48, 0x8b, 0x2d, 0x39, 0x6c, 0, 0}, 64, 5, true},  // mov rbp, [rip+X]
		{[]byte{0x4c, 0x8b, 0x25, 0x7d, 0x2e, 0, 0}, 64, 12, true}, // mov r12, [rip+X]
		{[]byte{0x8b, 0x05, 0x7d, 0x2e, 0, 0}, 64, 0, false},       // mov eax, [rip+X]: not the whole of rax
		{[]byte{0x48, 0x89, 0x05, 0x7d, 0x2e, 0, 0}, 64, 0, false}, // mov [rip+X], rax
		{[]byte{0x48, 0x8b, 0xc3}, 64, 0, false},                   // mov rax, rbx
	} {
		if reg, ok := loadedRegister(c.b, c.mode); ok != c.want || ok && reg != c.reg {
			t.Errorf("load % x (%d-bit): %d %v, want %d %v", c.b, c.mode, reg, ok, c.reg, c.want)
		}
	}
}

// TestRegOpMatchesValueFlow holds the reference sweep's lean summary of an
// instruction (regOp) to the value flow's semantics (regOpOf of x86Sem)
// on random encodings, built as TestFastStepMatchesFullStep builds them:
// the same call, called register and slot load, and every register
// x86Sem writes written.
func TestRegOpMatchesValueFlow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	mm := wideMap()
	isSlot := func(a uint64) bool { return a%3 != 0 }
	prefixes := []byte{0x66, 0xf2, 0xf3, 0x2e, 0x3e, 0x67, 0xf0}
	modrms := []byte{0x05, 0x0d, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x04, 0xc0, 0xd3, 0xd6, 0xe8, 0xfb, 0x44, 0x84}
	b := make([]byte, 16)
	for _, mode := range []int{32, 64} {
		d := newX86(mode, mm, source{})
		sem := &x86Sem{d: d}
		loads, calls, copies, more, swaps, pushes, pops := 0, 0, 0, 0, 0, 0, 0
		for n := range 400_000 {
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			if n%2 == 0 {
				i := 0
				for range r.IntN(2) {
					b[i] = prefixes[r.IntN(len(prefixes))]
					i++
				}
				if mode == 64 && r.IntN(2) == 0 {
					b[i] = 0x40 | byte(r.IntN(16))
					i++
				}
				if r.IntN(4) == 0 {
					b[i] = 0x0f
					i++
				}
				if r.IntN(3) == 0 {
					b[i] = []byte{0x8b, 0xff, 0x89, 0x87, 0x0f, 0xa5, 0xad, 0xf7}[r.IntN(8)]
				}
				i++
				b[i] = modrms[r.IntN(len(modrms))]
			}
			const pc = 0x401000
			var in insn
			d.reset(b, pc)
			d.step(b, pc, &in)
			want := regOp{defs: 0xffff, callReg: -1, load: -1}
			if !in.invalid {
				s := sem.sem(b, pc, &in)
				want = regOpOf(&s, isSlot)
			}
			got := d.regOp(b, &in, isSlot)
			if got.jump {
				got.jump, got.callReg = false, -1 // the value flow does not follow jumps
			}
			if inst, err := x86asm.Decode(b, mode); err == nil && inst.Op == x86asm.LEA && isPadLea(&inst, mode) {
				want.defs = 0 // the padding lea writes nothing (isPadLea)
			}
			if got.call != want.call || got.callReg != want.callReg || got.slot != want.slot || got.load != want.load || got.copyOf != want.copyOf || got.defs&want.defs != want.defs ||
				got.swap != want.swap || got.pushed != want.pushed || got.popped != want.popped {
				t.Fatalf("mode %d, % x: regOp %+v, value flow's %+v", mode, b[:max(in.size, 1)], got, want)
			}
			if got.slot != 0 {
				loads++
			}
			if got.copyOf > 0 {
				copies++
			}
			if got.swap {
				swaps++
			}
			if got.pushed > 0 {
				pushes++
			}
			if got.popped > 0 {
				pops++
			}
			if got.callReg >= 0 {
				calls++
			}
			if got.defs != want.defs {
				more++
			}
		}
		if loads == 0 || calls == 0 || copies == 0 || swaps == 0 || pushes == 0 || pops == 0 {
			t.Fatalf("mode %d: %d slot loads, %d register calls, %d copies, %d swaps, %d pushes, %d pops: the encodings miss the cases", mode, loads, calls, copies, swaps, pushes, pops)
		}
		t.Logf("mode %d: %d slot loads, %d register calls, %d copies (%d swaps), %d pushes, %d pops, %d with more writes than the value flow's", mode, loads, calls, copies, swaps, pushes, pops, more)
	}
}
