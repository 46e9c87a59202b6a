# Calls through a register loaded from the program's own function
# pointers (TestRegisterCallsProgramPointers): the load right before the
# call names the pointer's slot only where no other path joins at the
# call.
	.text
	.p2align 4
fa:
	ret
	.p2align 4
fb:
	ret

	# straight line: the call is through fp1
	.globl	fpline
	.type	fpline, @function
fpline:
	movq	fp1(%rip), %rax
	call	*%rax
	ret
	.size	fpline, .-fpline

	# fp1 on one path, fp2 (loaded right before the call) on the other
	.globl	fpjoin
	.type	fpjoin, @function
fpjoin:
	testl	%edi, %edi
	je	1f
	movq	fp1(%rip), %rax
	jmp	2f
1:	movq	fp2(%rip), %rax
2:	call	*%rax
	ret
	.size	fpjoin, .-fpjoin

	# close's GOT slot on one path, fp2 on the other
	.globl	fpimport
	.type	fpimport, @function
fpimport:
	testl	%edi, %edi
	je	1f
	movq	close@GOTPCREL(%rip), %rax
	jmp	2f
1:	movq	fp2(%rip), %rax
2:	call	*%rax
	ret
	.size	fpimport, .-fpimport

	.globl	main
	.type	main, @function
main:
	xorl	%eax, %eax
	ret
	.size	main, .-main

	.data
	.p2align 3
fp1:	.quad	fa
fp2:	.quad	fb
	.section	.note.GNU-stack,"",@progbits
