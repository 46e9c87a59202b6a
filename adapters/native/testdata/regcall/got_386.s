# gotneg loads close@GOT through an argument, not the GOT register: no
# slot; gotpos through the GOT register (TestRegisterCallsNotFollowed).
	.text
	.globl	gotneg
	.type	gotneg, @function
gotneg:
	pushl	%ebx
	pushl	%esi
	call	__x86.get_pc_thunk.bx
	addl	$_GLOBAL_OFFSET_TABLE_, %ebx
	movl	12(%esp), %ecx
	movl	close@GOT(%ecx), %esi
	pushl	$0
	call	*%esi
	pushl	$1
	call	*%esi
	addl	$8, %esp
	popl	%esi
	popl	%ebx
	ret
	.size	gotneg, .-gotneg

	.globl	gotpos
	.type	gotpos, @function
gotpos:
	pushl	%ebx
	pushl	%esi
	call	__x86.get_pc_thunk.bx
	addl	$_GLOBAL_OFFSET_TABLE_, %ebx
	movl	12(%esp), %ecx
	movl	close@GOT(%ebx), %esi
	pushl	$0
	call	*%esi
	pushl	$1
	call	*%esi
	addl	$8, %esp
	popl	%esi
	popl	%ebx
	ret
	.size	gotpos, .-gotpos

	.globl	main
	.type	main, @function
main:
	xorl	%eax, %eax
	ret
	.size	main, .-main

	.section	.text.__x86.get_pc_thunk.bx,"axG",@progbits,__x86.get_pc_thunk.bx,comdat
	.globl	__x86.get_pc_thunk.bx
	.hidden	__x86.get_pc_thunk.bx
	.type	__x86.get_pc_thunk.bx, @function
__x86.get_pc_thunk.bx:
	movl	(%esp), %ebx
	ret
	.section	.note.GNU-stack,"",@progbits
