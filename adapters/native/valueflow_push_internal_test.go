package native

import (
	"slices"
	"testing"

	"github.com/matryer/is"
)

// A push of an argument register is a use of it unless the push only pads
// the stack: gcc -Os aligns the stack with "push rcx" and releases the
// slot with a pop into a dead register or an adjustment. A slot that is
// read (by a load, a callee taking stack arguments or a pop whose value is
// used) keeps the push a use, on hand-assembled x86-64 (SysV).
func TestValueFlowPushPadding(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	var (
		pushRCX, pushRAX, pushR8 = []byte{0x51}, []byte{0x50}, []byte{0x41, 0x50}
		popRDX, popRCX           = []byte{0x5a}, []byte{0x59}
		call                     = []byte{0xe8, 0, 0, 0, 0}
		ret                      = []byte{0xc3}
		movESI2                  = []byte{0xbe, 2, 0, 0, 0}
		addRSP8                  = []byte{0x48, 0x83, 0xc4, 0x08}
		// mov edi, 1; mov esi, 2; mov edx, 3; mov ecx, 4; mov r8d, 5; mov r9d, 6
		sixArgs = []byte{0xbf, 1, 0, 0, 0, 0xbe, 2, 0, 0, 0, 0xba, 3, 0, 0, 0, 0xb9, 4, 0, 0, 0,
			0x41, 0xb8, 5, 0, 0, 0, 0x41, 0xb9, 6, 0, 0, 0}
	)
	tailJump := func(code []byte) []byte { // jmp past the procedure's end
		return cat(code, []byte{0xe9, 0x00, 0x01, 0, 0})
	}
	for _, tc := range []struct {
		name string
		code []byte
		want []string
	}{
		// g(x, 2) with the stack aligned by push rcx, released by pop rdx.
		{"padding released by a pop", cat(pushRCX, movESI2, call, popRDX, ret), []string{"rdi"}},
		{"padding released by an adjustment", cat(pushRCX, movESI2, call, addRSP8, ret), []string{"rdi"}},
		// A fourth argument kept across a call and used after it.
		{"saved and restored, then used", cat(pushRCX, movESI2, call, popRCX, []byte{0x89, 0xc8}, ret), []string{"rdi", "rcx"}}, // mov eax, ecx
		{"popped into another register, then used", cat(pushRCX, call, popRDX, []byte{0x01, 0xd0}, ret), []string{"rcx"}},       // add eax, edx
		// g(1, 2, 3, 4, 5, 6, d): the push is g's seventh argument (gcc -Os).
		{"a stack argument of a call", cat(pushRCX, sixArgs, call, addRSP8, ret), []string{"rcx"}},
		{"the slot loaded", cat(pushRCX, []byte{0x48, 0x8b, 0x04, 0x24}, popRDX, ret), []string{"rcx"}},                        // mov rax, [rsp]
		{"the slot's address passed", cat(pushRCX, []byte{0x48, 0x89, 0xe7}, call, popRDX, ret), []string{"rcx"}},              // mov rdi, rsp
		{"an address below the slot passed", cat(pushRCX, []byte{0x48, 0x8d, 0x7c, 0x24, 0xf8}, popRDX, ret), []string{"rcx"}}, // lea rdi, [rsp-8]
		// A callee that preserves a caller-saved register returns it as it was.
		{"restored for the caller", cat(pushRCX, []byte{0xb9, 1, 0, 0, 0}, popRCX, ret), nil}, // mov ecx, 1
		// The pop that releases padding loads no argument: the tail call
		// sets nothing, so it passes nothing through (without the release,
		// rdx would be its third argument and rdi, rsi passed through).
		{"released before a tail call", tailJump(cat(pushRAX, popRDX)), nil},
		{"padding with r8 before a tail call", tailJump(cat(pushR8, []byte{0x83, 0xc7, 0x06}, []byte{0x5e})), []string{"rdi"}}, // add edi, 6; pop rsi
		{"padding at two heights", cat(pushRCX, pushRAX, movESI2, call, popRDX, popRDX, ret), []string{"rdi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}}
			vf := flowOf(archX8664, &x86Sem{d: newX86(64, mm, source{})}, sysvAMD64, tc.code)
			is.Equal(params(vf), tc.want)
		})
	}
}
