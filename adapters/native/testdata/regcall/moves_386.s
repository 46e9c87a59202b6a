# moves_amd64.s on 32-bit PIC: close's GOT slot loaded through the GOT
# register, then copied (TestRegisterCallsThroughMoves).
	.text
	# xchg esi, edi: slot (edi), open (esi)
	.globl	viaxchg
	.type	viaxchg, @function
viaxchg:
	pushl	%ebx
	pushl	%esi
	pushl	%edi
	call	__x86.get_pc_thunk.bx
	addl	$_GLOBAL_OFFSET_TABLE_, %ebx
	movl	close@GOT(%ebx), %esi
	movl	16(%esp), %edi
	xchgl	%esi, %edi
	pushl	$0
	call	*%edi
	call	*%esi
	addl	$4, %esp
	popl	%edi
	popl	%esi
	popl	%ebx
	ret
	.size	viaxchg, .-viaxchg

	# xchg eax, esi (the one-byte form): slot (eax), open (esi)
	.globl	viaxchgax
	.type	viaxchgax, @function
viaxchgax:
	pushl	%ebx
	pushl	%esi
	call	__x86.get_pc_thunk.bx
	addl	$_GLOBAL_OFFSET_TABLE_, %ebx
	movl	close@GOT(%ebx), %esi
	movl	12(%esp), %eax
	xchgl	%eax, %esi
	pushl	$0
	call	*%eax
	call	*%esi
	addl	$4, %esp
	popl	%esi
	popl	%ebx
	ret
	.size	viaxchgax, .-viaxchgax

	# lea eax, [esi]; lea ecx, [esi+0x0]; lea edx, [esi+0x4]: slot,
	# slot, open
	.globl	vialea
	.type	vialea, @function
vialea:
	pushl	%ebx
	pushl	%esi
	call	__x86.get_pc_thunk.bx
	addl	$_GLOBAL_OFFSET_TABLE_, %ebx
	movl	close@GOT(%ebx), %esi
	leal	(%esi), %eax
	pushl	$0
	call	*%eax
	{disp8} leal 0(%esi), %ecx
	call	*%ecx
	leal	4(%esi), %edx
	call	*%edx
	addl	$4, %esp
	popl	%esi
	popl	%ebx
	ret
	.size	vialea, .-vialea

	# push esi; pop eax: slot
	.globl	viapush
	.type	viapush, @function
viapush:
	pushl	%ebx
	pushl	%esi
	call	__x86.get_pc_thunk.bx
	addl	$_GLOBAL_OFFSET_TABLE_, %ebx
	movl	close@GOT(%ebx), %esi
	pushl	%esi
	popl	%eax
	pushl	$0
	call	*%eax
	addl	$4, %esp
	popl	%esi
	popl	%ebx
	ret
	.size	viapush, .-viapush

	# The pop is also where a path that pushed an argument jumps to: open
	.globl	pushjoin
	.type	pushjoin, @function
pushjoin:
	pushl	%ebx
	pushl	%esi
	call	__x86.get_pc_thunk.bx
	addl	$_GLOBAL_OFFSET_TABLE_, %ebx
	movl	close@GOT(%ebx), %esi
	pushl	12(%esp)
	cmpl	$0, 20(%esp)
	je	1f
	addl	$4, %esp
	pushl	%esi
1:	popl	%eax
	pushl	$0
	call	*%eax
	addl	$4, %esp
	popl	%esi
	popl	%ebx
	ret
	.size	pushjoin, .-pushjoin

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
