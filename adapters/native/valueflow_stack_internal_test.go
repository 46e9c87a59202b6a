package native

import (
	"context"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// flow32 runs the 32-bit x86 value flow over code at 0x1000 as one
// procedure.
func flow32(code []byte, cc convention, known vfTargets) ports.ValueFlow {
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	r := ports.FunctionRange{Start: 0x1000, End: 0x1000 + uint64(len(code))}
	return valueFlowOf(context.Background(), newDecoder(archX86, mm, source{}), &x86Sem{d: newX86(32, mm, source{})}, cc, code, r, r.End, 1000, known)
}

// Under cdecl a parameter is a stack word above the return address that
// the procedure reads, named by its place at the entry: the stack height
// is followed through pushes, constant adjustments and the frame pointer,
// and lost at a join of two heights, at a write of another kind, and at a
// call that may pop its own arguments. Registers are 32-bit x86's.
func TestValueFlowCdeclStackParameters(t *testing.T) {
	for _, tc := range []struct {
		name   string
		code   []byte
		pops   bool
		params []string
		uses   []ports.ParameterUse
	}{
		{"no frame pointer (gcc -O2)", []byte{
			0x56,             // push esi
			0x53,             // push ebx
			0x83, 0xec, 0x14, //       sub esp, 0x14
			0x8b, 0x44, 0x24, 0x20, // mov eax, [esp+0x20]: the first argument
			0x8b, 0x54, 0x24, 0x24, // mov edx, [esp+0x24]: the second
			0x52,                         // push edx
			0x50,                         // push eax
			0xe8, 0xec, 0xff, 0xff, 0xff, // call 0x1000
			0x83, 0xc4, 0x1c, //       add esp, 0x1c
			0x5b, 0x5e, 0xc3, //       pop ebx; pop esi; ret
		}, false, []string{"[esp+4]", "[esp+8]"}, []ports.ParameterUse{{Location: "[esp+4]", Address: 0x1005}, {Location: "[esp+8]", Address: 0x1009}}},
		{"frame pointer, then the stack aligned", []byte{
			0x55,       // push ebp
			0x89, 0xe5, //       mov ebp, esp
			0x83, 0xec, 0x08, // sub esp, 8
			0x8b, 0x45, 0x0c, // mov eax, [ebp+0xc]: the second argument
			0x89, 0x45, 0xfc, // mov [ebp-4], eax: a local, written
			0x83, 0xe4, 0xf0, // and esp, -16: the stack height is lost, the frame pointer's is not
			0x8b, 0x4d, 0x08, // mov ecx, [ebp+8]: the first
			0x01, 0xc8, //       add eax, ecx
			0xc9, 0xc3, //       leave; ret
		}, false, []string{"[esp+4]", "[esp+8]"}, []ports.ParameterUse{{Location: "[esp+8]", Address: 0x1006}, {Location: "[esp+4]", Address: 0x100f}}},
		{"two heights join", []byte{
			0x8b, 0x44, 0x24, 0x04, // mov eax, [esp+4]
			0x85, 0xc0, //             test eax, eax
			0x74, 0x01, //             je over the push
			0x50,                   // push eax
			0x8b, 0x4c, 0x24, 0x08, // mov ecx, [esp+8]: [esp+8] or [esp+4] at the entry
			0xc3,
		}, false, []string{"[esp+4]"}, []ports.ParameterUse{{Location: "[esp+4]", Address: 0x1000}}},
		{"a call that may pop its arguments", []byte{
			0xe8, 0xfb, 0xff, 0xff, 0xff, // call 0x1000 (not the next instruction: that only pushes its address)
			0x8b, 0x44, 0x24, 0x04, //       mov eax, [esp+4]
			0xc3,
		}, true, nil, nil},
		{"a call that leaves the stack to its caller", []byte{
			0xe8, 0xfb, 0xff, 0xff, 0xff,
			0x8b, 0x44, 0x24, 0x04,
			0xc3,
		}, false, []string{"[esp+4]"}, []ports.ParameterUse{{Location: "[esp+4]", Address: 0x1005}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			vf := flow32(tc.code, cdecl, vfTargets{calleePops: tc.pops})
			is.Equal(vf.CallingConvention, "cdecl")
			is.Equal(params(vf), tc.params)
			for k, p := range vf.Parameters {
				is.Equal(p.Position, k) // the words are consecutive here
			}
			is.Equal(len(vf.ParameterUses), len(tc.uses))
			for _, u := range tc.uses {
				is.True(slices.Contains(vf.ParameterUses, u))
			}
			for _, op := range vf.Operations {
				for _, l := range append(op.Defs, op.Uses...) {
					is.True(!slices.Contains([]string{"rax", "rsp", "rbp", "rcx", "rdx", "rbx", "rsi", "rdi"}, l)) // 32-bit names only
				}
			}
		})
	}
}

// Linux's i386 system call reads its number and arguments from registers
// and defines eax; the 32-bit names reach every location, memory
// operands included.
func TestValueFlowX86SystemCall(t *testing.T) {
	is := is.New(t)
	vf := flow32([]byte{
		0xb8, 0x04, 0x00, 0x00, 0x00, // mov eax, 4
		0x8b, 0x5c, 0x24, 0x04, //       mov ebx, [esp+4]
		0xcd, 0x80, //                   int 0x80
		0xc3,
	}, cdecl, vfTargets{})
	is.Equal(params(vf), []string{"[esp+4]"})
	is.Equal(vf.Operations[1].Uses, []string{"esp", "[esp+4]"}) // the word by its place at the entry, as the parameter
	is.Equal(vf.Operations[2].Defs, []string{"eax"})
	is.True(slices.Contains(vf.Operations[2].Uses, "ebx"))
	is.True(hasEdge(vf, 0x1000, 0x1009, "eax")) // the number reaches the call
	is.True(hasEdge(vf, 0x1005, 0x1009, "ebx"))
	is.True(hasEdge(vf, 0x1009, 0x100b, "eax")) // and its result the return
}

// Go's ABI0 on 32-bit x86 passes results on the stack: a return has no
// result register.
func TestValueFlowGoABI0Return(t *testing.T) {
	is := is.New(t)
	vf := flow32([]byte{0x8b, 0x44, 0x24, 0x04, 0x89, 0x44, 0x24, 0x08, 0xc3}, goABI0x86, vfTargets{}) // mov eax,[esp+4]; mov [esp+8],eax; ret
	is.Equal(params(vf), []string{"[esp+4]"})                                                          // the result's word is written, not read
	ret := vf.Effects[len(vf.Effects)-1]
	is.Equal(ret.Kind, ports.EffectReturn)
	is.Equal(ret.Location, "")
}

// AAPCS64's arguments past the registers are 8-byte words from the entry
// stack pointer, followed through the write-back of pre- and post-indexed
// accesses, constant adjustments (of an immediate, or of a register set to
// a constant), the frame pointer set from the stack pointer, and both
// words of a pair load; on Apple's platforms, which pack them, none is
// inferred.
func TestValueFlowAArch64StackWords(t *testing.T) {
	le := func(words ...uint32) []byte {
		var out []byte
		for _, w := range words {
			out = append(out, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
		return out
	}
	const ret = 0xd65f03c0
	for _, tc := range []struct {
		name string
		code []byte
		cc   convention
		want []string
	}{
		{"a pre-indexed load addresses the updated base", le(0xf8408fe0, ret), aapcs64, []string{"[sp+8]"}}, // ldr x0, [sp, #8]!
		{"through the frame pointer", le(
			0xa9be7bfd, // stp x29, x30, [sp, #-32]!
			0x910003fd, // mov x29, sp
			0xf94017a0, // ldr x0, [x29, #40]
			0xa8c27bfd, // ldp x29, x30, [sp], #32
			ret), aapcs64, []string{"[sp+8]"}},
		{"a pair load reads two words", le(
			0xd10043ff, // sub sp, sp, #0x10
			0xa94107e0, // ldp x0, x1, [sp, #16]
			0x910043ff, // add sp, sp, #0x10
			ret), aapcs64, []string{"[sp+0]", "[sp+8]"}},
		{"an address taken", le(0x910023e0, ret), aapcs64, []string{"[sp+8]"}}, // add x0, sp, #0x8
		{"an adjustment by a register holding a constant", le(
			0xd280040c, // mov x12, #0x20
			0xcb2c63ff, // sub sp, sp, x12
			0xf94017e0, // ldr x0, [sp, #40]
			0x8b2c63ff, // add sp, sp, x12
			ret), aapcs64, []string{"[sp+8]"}},
		{"Apple's packed words", le(0xd10043ff, 0xa94107e0, 0x910043ff, ret), aapcs64Apple, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			vf := flowOf(archARM64, arm64Sem{}, tc.cc, tc.code)
			var stack []string
			for _, p := range params(vf) {
				if p[0] == '[' {
					stack = append(stack, p)
				}
			}
			is.Equal(stack, tc.want)
		})
	}
}

// Under cdecl the solver names a stack word by its place at the entry,
// whatever operand reaches it: a word stored before a call's pushes and
// adjustments is read back after them through another stack pointer
// ([esp+0x8] at two heights 16 bytes apart are one word, [esp-8]), and a
// push's slot is the word below the height ([esp-32]).
func TestValueFlowCdeclPlacedWords(t *testing.T) {
	is := is.New(t)
	vf := flow32([]byte{
		0x83, 0xec, 0x10, //             sub esp, 0x10
		0x89, 0x44, 0x24, 0x08, //       mov [esp+0x8], eax: [esp-8]
		0x83, 0xec, 0x0c, //             sub esp, 0xc
		0x51,                         // push ecx: [esp-32]
		0xe8, 0xf0, 0xff, 0xff, 0xff, // call 0x1000
		0x83, 0xc4, 0x10, //             add esp, 0x10
		0x8b, 0x54, 0x24, 0x08, //       mov edx, [esp+0x8]: [esp-8] again
		0x83, 0xc4, 0x10, //             add esp, 0x10
		0xc3,
	}, cdecl, vfTargets{})
	is.Equal(vf.Operations[1].Defs, []string{"[esp-8]"})
	is.True(slices.Contains(vf.Operations[3].Defs, "[esp-32]"))
	is.Equal(vf.Operations[6].Uses, []string{"esp", "[esp-8]"})
	is.True(hasEdge(vf, 0x1003, 0x1013, "[esp-8]"))
	is.Equal(len(vf.Effects), 2) // the call and the return: a stack word written is no memory effect
}

// "call next; pop ebx" (32-bit position-independent code reading its own
// address) is a push of the address, not a call: it defines no clobbered
// register, the pop loads the word it pushed, and the height stays known
// ([esp+4] is the first argument after it).
func TestValueFlowCallNext(t *testing.T) {
	is := is.New(t)
	vf := flow32([]byte{
		0xb8, 0x01, 0x00, 0x00, 0x00, // mov eax, 1
		0xe8, 0x00, 0x00, 0x00, 0x00, // call 0x100a
		0x5b,                   //       pop ebx
		0x8b, 0x4c, 0x24, 0x04, //       mov ecx, [esp+4]
		0xc3,
	}, cdecl, vfTargets{})
	is.Equal(vf.Operations[1].Defs, []string{"esp", "[esp-4]"})
	is.True(hasEdge(vf, 0x1005, 0x100a, "[esp-4]"))
	is.True(hasEdge(vf, 0x1000, 0x100f, "eax")) // eax survives it to the return
	is.Equal(params(vf), []string{"[esp+4]"})
	for _, e := range vf.Effects {
		is.True(e.Kind != ports.EffectCall)
	}
}

// On x86-64 too a stack word is named by its place: the frame pointer's
// words from the entry ([rbp-0x8] is the word "push rbx" wrote, [rsp-16]),
// the stack pointer's after a realignment from the aligned stack pointer
// ("[(rsp-16)&-32-56]"), a 32-byte store naming the four words it covers;
// a call between writes none of them.
func TestValueFlowX64PlacedWords(t *testing.T) {
	is := is.New(t)
	code := []byte{
		0x55,             //             push rbp
		0x48, 0x89, 0xe5, //                   mov rbp, rsp
		0x53,                   //             push rbx: [rsp-16]
		0x48, 0x83, 0xe4, 0xe0, //             and rsp, -32
		0x48, 0x83, 0xec, 0x40, //             sub rsp, 0x40
		0x48, 0x89, 0x7c, 0x24, 0x08, //       mov [rsp+0x8], rdi: [(rsp-16)&-32-56]
		0xc5, 0xfd, 0x7f, 0x44, 0x24, 0x20, // vmovdqa [rsp+0x20], ymm0: [(rsp-16)&-32-32] to -8
		0x48, 0x89, 0x75, 0xf0, //             mov [rbp-0x10], rsi: [rsp-24]
		0xe8, 0xdf, 0xff, 0xff, 0xff, //       call 0x1000
		0x48, 0x8b, 0x44, 0x24, 0x08, //       mov rax, [rsp+0x8]
		0x48, 0x8b, 0x4c, 0x24, 0x28, //       mov rcx, [rsp+0x28]
		0x48, 0x03, 0x45, 0xf0, //             add rax, [rbp-0x10]
		0x48, 0x8b, 0x5d, 0xf8, //             mov rbx, [rbp-0x8]
		0xc9, //                               leave
		0xc3, //                               ret
	}
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
	vf := flowOf(archX8664, &x86Sem{d: newX86(64, mm, source{})}, sysvAMD64, code)
	is.Equal(vf.Operations[2].Defs, []string{"rsp", "[rsp-16]"})
	is.Equal(vf.Operations[6].Defs, []string{"[(rsp-16)&-32-32]", "[(rsp-16)&-32-24]", "[(rsp-16)&-32-16]", "[(rsp-16)&-32-8]"})
	is.True(hasEdge(vf, 0x100d, 0x1021, "[(rsp-16)&-32-56]"))
	is.True(hasEdge(vf, 0x1012, 0x1026, "[(rsp-16)&-32-24]"))
	is.True(hasEdge(vf, 0x1018, 0x102b, "[rsp-24]"))
	is.True(hasEdge(vf, 0x1004, 0x102f, "[rsp-16]")) // pushed through the stack pointer, read through the frame pointer
	is.Equal(len(vf.Effects), 2)                     // the call and the return: stack words written are no memory effects
}

// An AArch64 store of a q register writes the two stack words it covers
// (str q0, [sp]; stp q1, q2, [sp, #16]): the words stored before it are
// no longer what a later load reads.
func TestValueFlowAArch64WideStores(t *testing.T) {
	is := is.New(t)
	vf := flowOf(archARM64, arm64Sem{}, aapcs64, []byte{
		0xff, 0xc3, 0x00, 0xd1, // sub sp, sp, #0x30
		0xe0, 0x07, 0x00, 0xf9, // str x0, [sp, #8]: [sp-40]
		0xe0, 0x03, 0x80, 0x3d, // str q0, [sp]: [sp-48] and [sp-40]
		0xe1, 0x07, 0x40, 0xf9, // ldr x1, [sp, #8]
		0xe2, 0x17, 0x00, 0xf9, // str x2, [sp, #40]: [sp-8]
		0xe1, 0x8b, 0x00, 0xad, // stp q1, q2, [sp, #16]: [sp-32] to [sp-8]
		0xe3, 0x17, 0x40, 0xf9, // ldr x3, [sp, #40]
		0xff, 0xc3, 0x00, 0x91, // add sp, sp, #0x30
		0xc0, 0x03, 0x5f, 0xd6, // ret
	})
	is.Equal(vf.Operations[2].Defs, []string{"[sp-48]", "[sp-40]"})
	is.True(hasEdge(vf, 0x1008, 0x100c, "[sp-40]"))
	is.True(!hasEdge(vf, 0x1004, 0x100c, "[sp-40]"))
	is.Equal(vf.Operations[5].Defs, []string{"[sp-32]", "[sp-16]", "[sp-24]", "[sp-8]"})
	is.True(hasEdge(vf, 0x1014, 0x1018, "[sp-8]"))
	is.True(!hasEdge(vf, 0x1010, 0x1018, "[sp-8]"))
}
