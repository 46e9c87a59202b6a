package native

import "testing"

// TestUsesCanary386: the i386 canary load is gs:0x14 into eax (the moffs
// form) or another register (modrm disp32); the check that subtracts it,
// another segment or offset, and a truncated load are not the load; a
// direct call to __stack_chk_fail is. The bytes are gcc's (objdump of an
// i686 -static build) or hand-made variants of them.
func TestUsesCanary386(t *testing.T) {
	const at, fail = 0x8049000, 0x8052000
	call := func(to uint64) []byte { // e8 rel32 at at
		d := uint32(to - at - 5)
		return []byte{0xe8, byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24)}
	}
	for _, tc := range []struct {
		name string
		code []byte
		want bool
	}{
		{"mov eax, gs:0x14", []byte{0x8b, 0x51, 0x04, 0x65, 0xa1, 0x14, 0, 0, 0, 0x89, 0x45, 0xe4}, true},
		{"mov edx, gs:0x14", []byte{0x65, 0x8b, 0x15, 0x14, 0, 0, 0}, true},
		{"sub eax, gs:0x14", []byte{0x65, 0x2b, 0x05, 0x14, 0, 0, 0}, false},
		{"mov eax, fs:0x14", []byte{0x64, 0xa1, 0x14, 0, 0, 0}, false},
		{"mov eax, gs:0x18", []byte{0x65, 0xa1, 0x18, 0, 0, 0}, false},
		{"cut", []byte{0x90, 0x65, 0x8b, 0x15, 0x14, 0, 0}, false},
		{"call fail", call(fail), true},
		{"call other", call(fail + 16), false},
	} {
		if got := usesCanary386(tc.code, at, []uint64{fail}); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
