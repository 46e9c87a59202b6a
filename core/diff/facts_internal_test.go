package diff

import (
	"fmt"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

func TestNormalize(t *testing.T) {
	is := is.New(t)
	names := map[uint64]string{0x1030: "printf@plt", 0x1139: "limit", 0x1200: ""}
	ins := []insn{
		{Addr: 0x1000, Mnemonic: "cmp", Operands: "dword ptr [rbp-0x4], 0x2a", Flow: "next"},
		{Addr: 0x1004, Mnemonic: "jle", Operands: "0x100a", Flow: "branch", Target: 0x100a, HasTarget: true},
		{Addr: 0x1006, Mnemonic: "lea", Operands: "rax, [rip+0xe90]  # 0x2004", Flow: "next"},
		{Addr: 0x100a, Mnemonic: "call", Operands: "0x1139 <limit>", Flow: "call", Target: 0x1139, HasTarget: true},
		{Addr: 0x100f, Mnemonic: "call", Operands: "0x1200", Flow: "call", Target: 0x1200, HasTarget: true},
		{Addr: 0x1014, Mnemonic: "mov", Operands: "edi, 0x402010", Flow: "next"},
		{Addr: 0x1019, Mnemonic: "mov", Operands: "w0, #0x2a", Flow: "next"},
		{Addr: 0x101a, Mnemonic: "sub", Operands: "rsp, 0x18", Flow: "next"},
		{Addr: 0x101b, Mnemonic: "lea", Operands: "eax, [rdi+rdi*8-0x5678]", Flow: "next"},
		{Addr: 0x101c, Mnemonic: "mov", Operands: "eax, dword ptr [rdi+0x10]", Flow: "next"},
		{Addr: 0x101d, Mnemonic: "jmp", Operands: "0x1000", Flow: "jump", Target: 0x1000, HasTarget: true},
	}
	text, consts, targets := normalize(ins, 0x1000, 0x1020, func(a uint64) string { return names[a] }, map[uint64][]uint64{0x1014: {0x402010}}, nil)
	is.Equal(text, []string{
		"cmp dword ptr [rbp-0x4], 0x2a", // a frame offset is no constant
		"jle L",                         // where a jump inside goes is the cfg's
		"lea rax, [rip+DISP]",
		"call limit",
		"call sub",
		"mov edi, ADDR",
		"mov w0, #0x2a",
		"sub rsp, 0x18", // nor is a frame's size
		"lea eax, [rdi+rdi*8-0x5678]",
		"mov eax, dword ptr [rdi+0x10]",
		"jmp L",
	})
	is.Equal(consts, []string{"-0x5678", "0x10", "0x2a", "0x2a"}) // displacements are; scales are not
	// The lines naming a target outside: call limit, call sub.
	is.Equal(targets, []insnTarget{{Index: 3, Addr: 0x1139, Token: "limit"}, {Index: 4, Addr: 0x1200, Token: "sub"}})
}

func TestDimensionsNameTheirDifferences(t *testing.T) {
	is := is.New(t)
	d := setDim([]string{"hello", "x"}, []string{"goodbye", "x"})
	is.Equal(d.Status, "changed")
	is.Equal(d.Added, []string{"goodbye"})
	is.Equal(d.Removed, []string{"hello"})
	is.Equal(*d.Similarity, 0.5)

	s := sequenceDim([]string{"a", "b", "c"}, []string{"a", "c", "d"})
	is.Equal(s.Removed, []string{"-1: b"})
	is.Equal(s.Added, []string{"+2: d"})

	one := shapeOf([]block{{Start: 0}})
	three := shapeOf([]block{{Start: 0, Succ: []edge{{Kind: "branch", Target: 8, Known: true}, {Kind: "fallthrough", Target: 4, Known: true}}}, {Start: 4}, {Start: 8}})
	c := cfgDim(one, three)
	is.Equal(c.Status, "changed")
	is.True(slices.Contains(c.Changes, "block_count: 1 -> 3"))
	is.True(slices.Contains(c.Changes, "edges.branch: 0 -> 1"))
	is.Equal(cfgDim(three, three).Status, "unchanged")

	// Unknown on one side stays unknown, with the side and reason.
	l := &fnFacts{InsnsReason: "assembly is not included", CallsReason: "x", RefsReason: "x", StrReason: "x", CFGReason: "x"}
	r := &fnFacts{Insns: []string{"ret"}, Consts: []string{}, Calls: []callee{}, Refs: []string{}, Strings: []string{}, CFG: one}
	fd := compareFacts(l, r, compareOptions{})
	is.Equal(fd.Status, "unknown")
	is.Equal(*fd.Dimensions["instructions"].Reason, "left: assembly is not included")
	is.True(fd.Similarity == nil)
}

// TestImportIdentities: a stub and a slot of one import are one import,
// named without the stub or version suffix, at its lowest address; a
// thunk to the binary's own code and a symbol-less IRELATIVE stub are
// none, and a label where a procedure starts is the procedure's to name.
func TestImportIdentities(t *testing.T) {
	is := is.New(t)
	procs := []ports.Procedure{
		{Address: 0x1030, Name: "puts@plt", External: true, Thunk: true, ThunkTarget: "puts"},
		{Address: 0x1040, Name: "*ABS*+0x1150@plt", Thunk: true, ThunkTarget: "strnlen"},
		{Address: 0x1050, Name: "memcpy@GLIBC_2.14", External: true},
		{Address: 0x1060, Name: "frame_dummy", Thunk: true, ThunkTarget: "register_tm_clones"},
		{Address: 0x1070, Name: "sub_1070", Thunk: true, ThunkTarget: "sub_1150"},
		{Address: 0x1150, Name: "strnlen"},
		{Address: 0x1160, Name: "register_tm_clones"},
	}
	labels := map[uint64]string{0x1030: "puts@plt", 0x1040: "*ABS*+0x1150@plt", 0x3fd0: "puts", 0x3fd8: "printf", 0x3fe0: "memcpy"}
	local := map[string]bool{"strnlen": true, "register_tm_clones": true, "frame_dummy": true}
	imports, home := importIdentities(procs, labels, local)
	is.Equal(imports, map[uint64]string{0x1030: "puts", 0x1050: "memcpy", 0x3fd0: "puts", 0x3fd8: "printf", 0x3fe0: "memcpy"})
	is.Equal(home, map[string]uint64{"puts": 0x1030, "memcpy": 0x1050, "printf": 0x3fd8})
}

// TestNormalizeAddressParts: two builds of one function whose data moved
// normalize alike. Before, an agent comparing the i386 builds of a program
// in which one handler changed saw 13 of 18 functions changed, each by its
// GOT offset (add ebx, 0x2286 after the PC thunk; lea eax, [ebx-0x1f81]),
// and the AArch64 builds 11 of 17, by the low bits of an address (add x2,
// x2, #0xba8 after adrp; ldr w8, [x8,#232]) and a tbnz whose target was
// left as a number. Constants that are no part of an address still count.
func TestNormalizeAddressParts(t *testing.T) {
	is := is.New(t)
	build := func(shift uint64, got uint64, str, data uint64) ([]string, []string) {
		ins := []insn{
			// i386 PIC: ebx = the next instruction's address + the GOT's offset.
			{Addr: 0x1d69 + shift, Mnemonic: "call", Operands: fmt.Sprintf("0x%x", 0x16d0+shift), Flow: "call", Target: 0x16d0 + shift, HasTarget: true},
			{Addr: 0x1d6e + shift, Mnemonic: "add", Operands: fmt.Sprintf("ebx, 0x%x", got-(0x1d6e+shift)), Flow: "next"},
			{Addr: 0x1dc4 + shift, Mnemonic: "lea", Operands: fmt.Sprintf("eax, [ebx-0x%x]", got-str), Flow: "next"},
			// A call's result plus a constant stays a constant.
			{Addr: 0x1dca + shift, Mnemonic: "call", Operands: fmt.Sprintf("0x%x", 0x1700+shift), Flow: "call", Target: 0x1700 + shift, HasTarget: true},
			{Addr: 0x1dcf + shift, Mnemonic: "add", Operands: "eax, 0x2d", Flow: "next"},
			// AArch64: adrp, then the low 12 bits of the address.
			{Addr: 0x1e00 + shift, Mnemonic: "adrp", Operands: "x2, 0x1000", Flow: "next"},
			{Addr: 0x1e04 + shift, Mnemonic: "add", Operands: fmt.Sprintf("x2, x2, #0x%x", str&0xfff), Flow: "next"},
			{Addr: 0x1e08 + shift, Mnemonic: "ldr", Operands: fmt.Sprintf("w8, [x8,#%d]", data&0xfff), Flow: "next"},
			{Addr: 0x1e0c + shift, Mnemonic: "add", Operands: "x0, x0, #0x10", Flow: "next"},
			{Addr: 0x1e10 + shift, Mnemonic: "tbnz", Operands: fmt.Sprintf("w1, #31, 0x%x", 0x1e00+shift), Flow: "branch", Target: 0x1e00 + shift, HasTarget: true},
		}
		refs := map[uint64][]uint64{0x1dc4 + shift: {str}, 0x1e04 + shift: {str}, 0x1e08 + shift: {data}}
		text, consts, _ := normalize(ins, 0x1d60+shift, 0x1e20+shift, func(uint64) string { return "" }, refs, nil)
		return text, consts
	}
	lt, lc := build(0, 0x3ff4, 0x2073, 0x200e8)
	rt, rc := build(0x10, 0x3ff4, 0x207f, 0x200e0)
	is.Equal(lt, rt)
	is.Equal(lc, rc)
	is.Equal(lc, []string{"0x10", "0x2d"})
	is.Equal(lt[9], "tbnz w1, #31, L") // the bit stays, the target is L

	// A RIP-relative operand is DISP whichever side of the instruction
	// its target lies (before: [rip+DISP] against [ripDISP], so _start's
	// lea rdi, [rip+main] changed when main moved before it).
	fwd, _, _ := normalize([]insn{{Addr: 0x1000, Mnemonic: "lea", Operands: "rdi, [rip+0x120]", Flow: "next"}}, 0x1000, 0x1008, func(uint64) string { return "" }, nil, nil)
	back, _, _ := normalize([]insn{{Addr: 0x1000, Mnemonic: "lea", Operands: "rdi, [rip-0x120]", Flow: "next"}}, 0x1000, 0x1008, func(uint64) string { return "" }, nil, nil)
	is.Equal(fwd, []string{"lea rdi, [rip+DISP]"})
	is.Equal(back, fwd)
	// And a resolved base's displacement is ADDR whatever its sign.
	refs := map[uint64][]uint64{0x1000: {0x2000}}
	neg, _, _ := normalize([]insn{{Addr: 0x1000, Mnemonic: "lea", Operands: "eax, [ebx-0x1f81]", Flow: "next"}}, 0x1000, 0x1008, func(uint64) string { return "" }, refs, nil)
	pos, _, _ := normalize([]insn{{Addr: 0x1000, Mnemonic: "lea", Operands: "eax, [ebx+0x1f81]", Flow: "next"}}, 0x1000, 0x1008, func(uint64) string { return "" }, refs, nil)
	is.Equal(neg, []string{"lea eax, [ebx+ADDR]"})
	is.Equal(pos, neg)
	arm, _, _ := normalize([]insn{{Addr: 0x1000, Mnemonic: "ldr", Operands: "w8, [x8,#232]", Flow: "next"}}, 0x1000, 0x1008, func(uint64) string { return "" }, refs, nil)
	is.Equal(arm, []string{"ldr w8, [x8,#ADDR]"})
}

// TestNormalizeMappedAbsolutes: 32-bit PE code names its data by absolute
// address; a dispatch through a handler table that moved 0x10 is the same
// instruction. Before, an agent comparing two mingw builds saw the
// unchanged handler lookup changed, "call dword ptr [4*ebx+0x409860]"
// against "...0x409850", its table address counted as a constant. A
// number outside the image, or below 1 MiB (a PIE's sizes and masks),
// stays a constant; so does any number when nothing says what is mapped.
func TestNormalizeMappedAbsolutes(t *testing.T) {
	is := is.New(t)
	mapped := func(v uint64) bool { return v >= 0x400000 && v < 0x40c000 }
	one := func(ops string, m func(uint64) bool) ([]string, []string) {
		text, consts, _ := normalize([]insn{{Addr: 0x401cf9, Mnemonic: "call", Operands: ops, Flow: "call"}}, 0x401cf0, 0x401d40, func(uint64) string { return "" }, nil, m)
		return text, consts
	}
	lt, lc := one("dword ptr [4*ebx+0x409860]", mapped)
	rt, rc := one("dword ptr [4*ebx+0x409850]", mapped)
	is.Equal(lt, []string{"call dword ptr [4*ebx+ADDR]"})
	is.Equal(rt, lt)
	is.Equal(lc, rc)
	is.Equal(len(lc), 0)
	_, c := one("dword ptr [4*ebx+0x50409850]", mapped)
	is.Equal(c, []string{"0x50409850"}) // not in the image
	_, c = one("dword ptr [4*ebx+0x409850]", nil)
	is.Equal(c, []string{"0x409850"}) // nothing says it is mapped
	_, c = one("dword ptr [4*ebx+0x002900]", func(uint64) bool { return true })
	is.Equal(c, []string{"0x2900"}) // below 1 MiB
}
