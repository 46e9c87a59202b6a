package native

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"rea/ports"
)

// FuzzDisassemble sweeps arbitrary bytes as x86, x86-64 and AArch64 code:
// no panic, every step advances, rendering and basic blocks succeed, and
// the x86 fast path agrees with x86asm wherever x86asm decodes.
func FuzzDisassemble(f *testing.F) {
	for _, seed := range [][]byte{
		{0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0xc3},
		{0xeb, 0xfe},
		{0xff, 0x24, 0xc5, 0x10, 0x20, 0x40, 0},
		{0x48, 0x8d, 0x15, 0x10, 0, 0, 0, 0x48, 0x63, 0x04, 0x82, 0x48, 0x01, 0xd0, 0xff, 0xe0},
		{0xc5, 0xf8, 0x77, 0x66, 0x4c, 0x0f, 0x38, 0xf6, 0xc9, 0x62, 0xf1, 0x7d, 0x48, 0x6f, 0x01},
		{0x1f, 0x20, 0x03, 0xd5, 0x00, 0x00, 0x00, 0x94, 0xc0, 0x03, 0x5f, 0xd6},
		{0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x91, 0x00, 0x00, 0x40, 0xf9},
		// add3 at -O0: spills, reloads, a leave-less epilogue.
		{0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0x89, 0x75, 0xf8, 0x89, 0x55, 0xf4, 0x8b, 0x55, 0xfc, 0x8b, 0x45, 0xf8,
			0x01, 0xc2, 0x8b, 0x45, 0xf4, 0x01, 0xd0, 0x5d, 0xc3},
		// a loop with rep stosq, a store through rdi and an indirect call.
		{0x31, 0xc0, 0xf3, 0x48, 0xab, 0x89, 0x37, 0xff, 0xd0, 0x48, 0xff, 0xc9, 0x75, 0xf4, 0xc3},
		// RIP-relative load, store of an immediate, call through the GOT.
		{0x48, 0x8b, 0x05, 0x10, 0, 0, 0, 0x48, 0xc7, 0x05, 0x20, 0, 0, 0, 0x00, 0x20, 0, 0, 0xff, 0x15, 0x30, 0, 0, 0},
		// an AArch64 switch's dispatch, its table after it (FuzzArmSwitch
		// reads the table; here the map has no file bytes).
		armSwitchImage(append(gccDispatch(4, 0, 0x40), aRet), 0x40, []byte{0, 1, 2, 3}),
	} {
		f.Add(seed)
	}
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x10000, fileSize: 0x10000, exec: true}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			data = data[:4096]
		}
		const base = 0x1000
		for _, a := range []arch{archX86, archX8664, archARM64} {
			d := newDecoder(a, mm, source{})
			var flows []flowInsn
			covered := 0
			sweep(d, data, base, base+uint64(len(data)), len(data)+1, func(in *insn) bool {
				if in.size <= 0 || in.size > a.maxInsn() {
					t.Fatalf("%v: step of %d bytes at 0x%x", a, in.size, in.addr)
				}
				if in.addr != base+uint64(covered) {
					t.Fatalf("%v: step at 0x%x, want 0x%x", a, in.addr, base+covered)
				}
				covered += in.size
				text := d.format(data[in.addr-base:], in.addr, in, func(uint64) string { return "" })
				if text.Text == "" || len(text.Bytes) == 0 {
					t.Fatalf("%v: empty rendering at 0x%x", a, in.addr)
				}
				flows = append(flows, flowInsn{addr: in.addr, size: in.size, flow: in.flow, target: in.target, hasTarget: in.hasTarget, table: in.table})
				return true
			})
			if covered < len(data) && a != archARM64 {
				t.Fatalf("%v: swept %d of %d bytes", a, covered, len(data))
			}
			blocks, _ := basicBlocks(flows, base, base+uint64(len(data)))
			n := 0
			for _, b := range blocks {
				n += b.Instructions
				for _, e := range b.Successors {
					if e.Kind == ports.EdgeUnresolved && e.Target != 0 {
						t.Fatal("unresolved edge with a target")
					}
				}
			}
			if n != len(flows) {
				t.Fatalf("%v: blocks hold %d of %d instructions", a, n, len(flows))
			}
		}
		// The value flow over the same bytes as one procedure (x86-64 under
		// SysV, AArch64, 32-bit x86 under cdecl with its stack parameters):
		// no panic, operations in order, edges well formed.
		for _, cc := range []convention{sysvAMD64, msX64, cdecl} {
			r := ports.FunctionRange{Start: base, End: base + uint64(len(data))}
			var vf ports.ValueFlow
			switch cc.name {
			case sysvAMD64.name:
				vf = valueFlowOf(context.Background(), newDecoder(archX8664, mm, source{}), &x86Sem{d: newX86(64, mm, source{})}, cc,
					data, r, r.End, len(data)+1, vfTargets{})
			case msX64.name:
				vf = valueFlowOf(context.Background(), newDecoder(archARM64, mm, source{}), arm64Sem{}, aapcs64, data, r, r.End, len(data)+1, vfTargets{})
			default:
				vf = valueFlowOf(context.Background(), newDecoder(archX86, mm, source{}), &x86Sem{d: newX86(32, mm, source{})}, cc,
					data, r, r.End, len(data)+1, vfTargets{calleePops: len(data)%2 == 1})
				for _, p := range vf.Parameters {
					if !strings.HasPrefix(p.Location, "[esp+") || p.Position < 0 || p.Uses < 1 {
						t.Fatalf("bad stack parameter %+v", p)
					}
				}
			}
			for k := 1; k < len(vf.Operations); k++ {
				if vf.Operations[k].Address <= vf.Operations[k-1].Address {
					t.Fatal("value-flow operations out of order")
				}
			}
			for _, e := range vf.DefUses {
				if e.Def < base || e.Use < base || e.Location == "" {
					t.Fatalf("bad def-use edge %+v", e)
				}
			}
		}
		for _, mode := range []int{32, 64} {
			x := newX86(mode, mm, source{})
			if fi, ok := fastX86(data, mode, mm); ok {
				slow := *x
				slow.fast = false
				var in insn
				slow.reset(data, base)
				slow.step(data, base, &in)
				if inst, err := x86asm.Decode(data, mode); err == nil && inst.Op != 0 {
					if mode == 32 && fi.flow == ports.FlowCall && fi.hasRel && fi.rel == 0 {
						fi.flow = ports.FlowNext // a 32-bit "call next" reads the PC (pcRead)
					}
					if fi.size != in.size || fi.flow != in.flow {
						t.Fatalf("mode %d: fast path %+v, x86asm %+v on % x", mode, fi, in, data[:min(len(data), 15)])
					}
				}
				// Whatever the fast path takes, step learns from it what
				// it learns from x86asm, references included.
				var fin insn
				x.reset(data, base)
				x.step(data, base, &fin)
				if err := sameInsn(&fin, &in); err != nil {
					t.Fatalf("mode %d on % x: %v", mode, data[:min(len(data), 15)], err)
				}
			}
		}
	})
}
