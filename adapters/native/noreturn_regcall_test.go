package native_test

import (
	"debug/pe"
	"path/filepath"
	"slices"
	"testing"

	"rea/ports"
)

// noReturnRegS: die calls exit through a register loaded from its GOT
// slot on both of its paths, not right after the load; dieneg calls
// through a register holding exit's slot on one path and close's on the
// other, and dieclose close's on both, each then falling into the next
// function; dieadj and joinexit load exit's slot right before the call,
// where the path that loaded close's joins.
const noReturnRegS = `	.text
	.globl	die
	.type	die, @function
die:
	pushq	%rbx
	movq	exit@GOTPCREL(%rip), %rbx
	testl	%edi, %edi
	je	1f
	movl	$1, %edi
	call	*%rbx
1:	movl	$2, %edi
	call	*%rbx
	.size	die, .-die

	.globl	dieneg
	.type	dieneg, @function
dieneg:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	exit@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	close@GOTPCREL(%rip), %rbx
2:	movl	$2, %edi
	call	*%rbx
	.size	dieneg, .-dieneg

	.globl	dieclose
	.type	dieclose, @function
dieclose:
	pushq	%rbx
	movq	close@GOTPCREL(%rip), %rbx
	testl	%edi, %edi
	je	1f
	movl	$1, %edi
	call	*%rbx
1:	movl	$2, %edi
	call	*%rbx
	.size	dieclose, .-dieclose

	.globl	dieadj
	.type	dieadj, @function
dieadj:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	close@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	exit@GOTPCREL(%rip), %rbx
2:	call	*%rbx
	.size	dieadj, .-dieadj

	.globl	joinexit
	.type	joinexit, @function
joinexit:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	close@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	exit@GOTPCREL(%rip), %rbx
2:	call	*%rbx
	popq	%rbx
	ret
	.size	joinexit, .-joinexit

	.globl	main
	.type	main, @function
main:
	subq	$8, %rsp
	xorl	%edi, %edi
	call	dieneg
	xorl	%edi, %edi
	call	die
	xorl	%eax, %eax
	addq	$8, %rsp
	ret
	.size	main, .-main
	.section .note.GNU-stack,"",@progbits
`

// noReturnRegPE is die on 32-bit Windows: ExitProcess's IAT slot in esi
// (gcc -O2's hoisted load), called on both paths.
const noReturnRegPE = `	.text
	.globl	_die
_die:
	pushl	%esi
	movl	__imp__ExitProcess@4, %esi
	cmpl	$0, 8(%esp)
	je	1f
	pushl	$1
	call	*%esi
1:	pushl	$2
	call	*%esi
	.globl	_main
_main:
	pushl	$0
	call	_die
`

// TestNoReturnThroughRegister: a procedure whose every path ends in a
// call through a register holding a no-return import's slot (exit's GOT
// slot in rbx, ExitProcess's IAT slot in esi), loaded earlier than the
// instruction before the call, does not return, as one calling through
// the slot does; one whose register holds exit's slot on one path only,
// or close's, is not inferred, nor one where exit's load right before
// the call is one path of a join (that call does not end its block in
// Function either).
func TestNoReturnThroughRegister(t *testing.T) {
	t.Run("elf", func(t *testing.T) {
		exe, addr := buildAsm(t, "noretreg", noReturnRegS)
		got := noReturnSet(t, exe)
		if !got[addr["die"]] {
			t.Errorf("die (%#x) is not taken not to return; the set is %x", addr["die"], keysOf(got))
		}
		for _, n := range []string{"dieneg", "dieclose", "dieadj", "main"} {
			if got[addr[n]] {
				t.Errorf("%s (%#x) is taken not to return; the set is %x", n, addr[n], keysOf(got))
			}
		}
		// The call at joinexit's join may be close's: its block goes on.
		a := openNative(t, exe)
		call := addr["joinexit"] + 0x15 // push, test, je, mov, jmp, mov: objdump's layout
		if b := blockHolding(t, a, addr["joinexit"], call); b.End == call+2 && !slices.ContainsFunc(b.Successors, func(e ports.Edge) bool { return e.Kind == ports.EdgeFallthrough }) {
			t.Errorf("joinexit's call at %#x ends its block: %+v", call, b)
		}
	})
	t.Run("pe-i686", func(t *testing.T) {
		bin := buildProgram(t, "i686-w64-mingw32-gcc", "gcc-mingw-w64-i686", "p.s", noReturnRegPE)
		f, err := pe.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var die uint64
		base := uint64(f.OptionalHeader.(*pe.OptionalHeader32).ImageBase)
		for _, s := range f.Symbols {
			if s.Name == "_die" && s.SectionNumber > 0 {
				die = base + uint64(f.Sections[s.SectionNumber-1].VirtualAddress) + uint64(s.Value)
			}
		}
		if die == 0 {
			t.Fatal("no _die symbol")
		}
		if got := noReturnSet(t, bin); !got[die] {
			t.Errorf("%s: _die (%#x) is not taken not to return; the set is %x", filepath.Base(bin), die, keysOf(got))
		}
	})
}
