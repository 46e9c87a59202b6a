package diff

import (
	"fmt"
	"testing"

	"github.com/matryer/is"
)

// dtorsAux is crt's __do_global_dtors_aux as aarch64-linux-gnu-gcc -O2
// links it at base, with the completed.0 flag at page+flag: x19 holds the
// flag's page from the adrp at +0xc to the store at +0x38, across two
// branches and two calls. The engine resolves the load right after the
// adrp (refs) and not the store, which follows the calls.
func dtorsAux(base, flag, dso uint64) ([]insn, map[uint64][]uint64) {
	ins := []insn{
		{Mnemonic: "stp", Operands: "x29, x30, [sp,#-32]!"},
		{Mnemonic: "mov", Operands: "x29, sp"},
		{Mnemonic: "str", Operands: "x19, [sp,#16]"},
		{Mnemonic: "adrp", Operands: "x19, 0x20000"},
		{Mnemonic: "ldrb", Operands: fmt.Sprintf("w0, [x19,#%d]", flag)},
		{Mnemonic: "cbnz", Operands: fmt.Sprintf("w0, 0x%x", base+0x3c), Flow: "branch", Target: base + 0x3c, HasTarget: true},
		{Mnemonic: "adrp", Operands: "x0, 0x1f000"},
		{Mnemonic: "ldr", Operands: "x0, [x0,#4016]"},
		{Mnemonic: "cbz", Operands: fmt.Sprintf("x0, 0x%x", base+0x30), Flow: "branch", Target: base + 0x30, HasTarget: true},
		{Mnemonic: "adrp", Operands: "x0, 0x20000"},
		{Mnemonic: "ldr", Operands: fmt.Sprintf("x0, [x0,#%d]", dso)},
		{Mnemonic: "bl", Operands: "0xcf0", Flow: "call", Target: 0xcf0, HasTarget: true},
		{Mnemonic: "bl", Operands: "0x1350", Flow: "call", Target: 0x1350, HasTarget: true},
		{Mnemonic: "mov", Operands: "w0, #0x1"},
		{Mnemonic: "strb", Operands: fmt.Sprintf("w0, [x19,#%d]", flag)},
		{Mnemonic: "ldr", Operands: "x19, [sp,#16]"},
		{Mnemonic: "ldp", Operands: "x29, x30, [sp],#32"},
		{Mnemonic: "ret", Flow: "return"},
	}
	for k := range ins {
		ins[k].Addr = base + uint64(4*k)
		if ins[k].Flow == "" {
			ins[k].Flow = "next"
		}
	}
	refs := map[uint64][]uint64{base + 0x10: {0x20000 + flag}, base + 0x1c: {0x1f000 + 4016}, base + 0x28: {0x20000 + dso}}
	return ins, refs
}

// TestNormalizeAdrpBaseAcrossBlocks: a displacement from a register that
// holds an adrp page on every path to it is the low bits of an address,
// though the engine, which follows register values only in straight-line
// code, resolved no address there. Before, an agent comparing two AArch64
// builds saw __do_global_dtors_aux changed, "strb w0, [x19,#232]" against
// "#224", and 0xe8 against 0xe0 among its constants.
func TestNormalizeAdrpBaseAcrossBlocks(t *testing.T) {
	is := is.New(t)
	name := func(uint64) string { return "" }
	li, lr := dtorsAux(0x13c0, 232, 224)
	ri, rr := dtorsAux(0x1380, 224, 216)
	lt, lc, _ := normalize(li, 0x13c0, 0x1408, name, lr, nil)
	rt, rc, _ := normalize(ri, 0x1380, 0x13c8, name, rr, nil)
	is.Equal(lt, rt)
	is.Equal(lc, rc)
	is.Equal(lt[14], "strb w0, [x19,#ADDR]")
	is.Equal(lc, []string{"0x1", "0x20"}) // the flag's offset is no constant

	// A page in a caller-saved register does not survive a call, and one
	// set on only one path to a join is not known there: both stay
	// constants (a field offset of whatever the register then holds).
	ins := []insn{
		{Addr: 0x100, Mnemonic: "adrp", Operands: "x1, 0x20000", Flow: "next"},
		{Addr: 0x104, Mnemonic: "bl", Operands: "0x400", Flow: "call", Target: 0x400, HasTarget: true},
		{Addr: 0x108, Mnemonic: "ldr", Operands: "x2, [x1,#8]", Flow: "next"},
		{Addr: 0x10c, Mnemonic: "cbz", Operands: "x2, 0x118", Flow: "branch", Target: 0x118, HasTarget: true},
		{Addr: 0x110, Mnemonic: "adrp", Operands: "x20, 0x20000", Flow: "next"},
		{Addr: 0x114, Mnemonic: "ldr", Operands: "x3, [x20,#16]", Flow: "next"},
		{Addr: 0x118, Mnemonic: "ldr", Operands: "x4, [x20,#24]", Flow: "next"},
		{Addr: 0x11c, Mnemonic: "ret", Flow: "return"},
	}
	text, consts, _ := normalize(ins, 0x100, 0x120, name, nil, nil)
	is.Equal(text[2], "ldr x2, [x1,#8]")
	is.Equal(text[5], "ldr x3, [x20,#ADDR]") // x20 holds the page on the only path here
	is.Equal(text[6], "ldr x4, [x20,#24]")
	is.Equal(consts, []string{"0x18", "0x8"})
}

// anchorLoop is main's use of gcc's section anchor: x22 gets the page
// before a loop that calls out, and after it the anchor (page + low); a
// load reaches a global at an offset from the anchor. In v2 the linker put
// the anchor 8 bytes lower and the global at the anchor's start.
func anchorLoop(low, off uint64) []insn {
	ins := []insn{
		{Mnemonic: "adrp", Operands: "x22, 0x20000"},
		{Mnemonic: "cbz", Operands: "x0, 0x114", Flow: "branch", Target: 0x114, HasTarget: true},
		{Mnemonic: "bl", Operands: "0x400", Flow: "call", Target: 0x400, HasTarget: true},
		{Mnemonic: "add", Operands: "x0, x0, #0x1"},
		{Mnemonic: "b", Operands: "0x104", Flow: "jump", Target: 0x104, HasTarget: true},
		{Mnemonic: "add", Operands: fmt.Sprintf("x22, x22, #0x%x", low)},
		{Mnemonic: "ldr", Operands: fmt.Sprintf("x1, [x22,#%d]", off)},
		{Mnemonic: "add", Operands: "x1, x1, #0x8"},
		{Mnemonic: "ret", Flow: "return"},
	}
	for k := range ins {
		ins[k].Addr = 0x100 + uint64(4*k)
		if ins[k].Flow == "" {
			ins[k].Flow = "next"
		}
	}
	return ins
}

// TestNormalizeAdrpAnchor: the low bits an add puts to a page and the
// offset of a load from the address it makes are parts of an address, not
// constants, where the engine resolved neither. Before, an agent comparing
// the AArch64 builds saw main changed by 10 such lines ("add x22, x22,
// #0xf0" against "#0xe8", "ldr x1, [x22,#16]" against "#8"). An add to a
// register that holds no address keeps its constant.
func TestNormalizeAdrpAnchor(t *testing.T) {
	is := is.New(t)
	name := func(uint64) string { return "" }
	lt, lc, _ := normalize(anchorLoop(0xf0, 16), 0x100, 0x124, name, nil, nil)
	rt, rc, _ := normalize(anchorLoop(0xe8, 8), 0x100, 0x124, name, nil, nil)
	is.Equal(lt, rt)
	is.Equal(lc, rc)
	is.Equal(lt[5], "add x22, x22, ADDR")
	is.Equal(lt[6], "ldr x1, [x22,#ADDR]")
	is.Equal(lc, []string{"0x1", "0x8"}) // adds to registers that hold values

	// A page in a caller-saved register is gone after a call, and an add
	// to a register that holds no address makes none.
	ins := []insn{
		{Addr: 0x100, Mnemonic: "adrp", Operands: "x1, 0x20000", Flow: "next"},
		{Addr: 0x104, Mnemonic: "bl", Operands: "0x400", Flow: "call", Target: 0x400, HasTarget: true},
		{Addr: 0x108, Mnemonic: "add", Operands: "x5, x1, #0x10", Flow: "next"},
		{Addr: 0x10c, Mnemonic: "add", Operands: "x6, x6, #0x20", Flow: "next"},
		{Addr: 0x110, Mnemonic: "ldr", Operands: "x7, [x6,#4]", Flow: "next"},
		{Addr: 0x114, Mnemonic: "ret", Flow: "return"},
	}
	text, consts, _ := normalize(ins, 0x100, 0x118, name, nil, nil)
	is.Equal(text[2], "add x5, x1, #0x10")
	is.Equal(text[4], "ldr x7, [x6,#4]")
	is.Equal(consts, []string{"0x10", "0x20", "0x4"})
}
