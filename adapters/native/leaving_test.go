package native_test

import (
	"context"
	"testing"
)

// leavingS is a program where ff's jump to tt is looked at before tt is a
// function boundary: tt is then in the code after gg's range (which the
// unwind table sizes), where a linear sweep from ee takes jj's movabs
// over hh and tt. Later rounds find ee (main's tail jump), hh (ee's call)
// and decode hh's range, where tt follows a return: only looking at ff's
// jump again then finds tt, which nothing else reaches from outside hh.
const leavingS = `	.text
	.globl main
	.type main, @function
main:
	.cfi_startproc
	push %rbx
	call ff
	pop %rbx
	jmp ee
	.cfi_endproc
	.size main, .-main
	.p2align 4
	.type ff, @function
ff:
	.cfi_startproc
	test %edi, %edi
	jz 1f
	jmp tt
1:	ret
	.cfi_endproc
	.size ff, .-ff
	.p2align 4
	.type gg, @function
gg:
	.cfi_startproc
	ret
	.cfi_endproc
	.size gg, .-gg
ee:
	call hh
	ret
jj:
	.byte 0x48, 0xb8
hh:
	test %edi, %edi
	jz tt
	ret
tt:
	mov $1, %eax
	ret
	.section .note.GNU-stack,"",@progbits
`

// TestLeavingLooksAgainWhenATargetBecomesABoundary: a jump out of a range
// to code that is not a boundary yet is looked at again in later rounds
// (builder.pending keeps its result), so the stripped program lists tt.
func TestLeavingLooksAgainWhenATargetBecomesABoundary(t *testing.T) {
	exe, addr := buildAsm(t, "leaving", leavingS)
	procs, err := openAnalysis(t, exe+".s").Procedures(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64]bool{}
	for _, p := range procs {
		got[p.Address] = true
	}
	for _, n := range []string{"main", "ff", "ee", "hh", "tt"} {
		if a, ok := addr[n]; !ok || !got[a] {
			t.Errorf("%s (%#x) is not listed; the procedures are %x", n, a, keysOf(got))
		}
	}
}
