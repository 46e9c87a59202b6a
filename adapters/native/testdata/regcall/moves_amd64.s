# Copies of a register holding close's slot that regcall.go follows
# (xchg, lea of the register alone, an adjacent push/pop pair), each
# with a call through a register that does not hold it
# (TestRegisterCallsThroughMoves). Each function's register calls are
# listed in order in its comment: "slot" or "open".
	.text
	# xchg rbx, r12: slot (r12), open (rbx took r12's old value)
	.globl	viaxchg
	.type	viaxchg, @function
viaxchg:
	pushq	%rbx
	pushq	%r12
	movq	close@GOTPCREL(%rip), %rbx
	movl	%edi, %r12d
	xchgq	%rbx, %r12
	movl	%esi, %edi
	call	*%r12
	call	*%rbx
	popq	%r12
	popq	%rbx
	ret
	.size	viaxchg, .-viaxchg

	# xchg rax, rbx (the one-byte form): slot (rax), open (rbx)
	.globl	viaxchgax
	.type	viaxchgax, @function
viaxchgax:
	pushq	%rbx
	movq	close@GOTPCREL(%rip), %rbx
	movl	%esi, %eax
	xchgq	%rax, %rbx
	movl	%esi, %edi
	call	*%rax
	call	*%rbx
	popq	%rbx
	ret
	.size	viaxchgax, .-viaxchgax

	# lea rax, [rbx]; lea rcx, [rbx+0x0]; lea rdx, [rbx+0x8]: slot,
	# slot, open
	.globl	vialea
	.type	vialea, @function
vialea:
	pushq	%rbx
	movq	close@GOTPCREL(%rip), %rbx
	leaq	(%rbx), %rax
	movl	%esi, %edi
	call	*%rax
	{disp8} leaq 0(%rbx), %rcx
	call	*%rcx
	leaq	8(%rbx), %rdx
	call	*%rdx
	popq	%rbx
	ret
	.size	vialea, .-vialea

	# push rbx; pop rax: slot
	.globl	viapush
	.type	viapush, @function
viapush:
	pushq	%rbx
	movq	close@GOTPCREL(%rip), %rbx
	pushq	%rbx
	popq	%rax
	movl	%esi, %edi
	call	*%rax
	popq	%rbx
	ret
	.size	viapush, .-viapush

	# The pop is also where a path that pushed an argument jumps to: open
	.globl	pushjoin
	.type	pushjoin, @function
pushjoin:
	pushq	%rbx
	movq	close@GOTPCREL(%rip), %rbx
	pushq	%rdi
	testl	%esi, %esi
	je	1f
	addq	$8, %rsp
	pushq	%rbx
1:	popq	%rax
	call	*%rax
	popq	%rbx
	ret
	.size	pushjoin, .-pushjoin

	# lea and xchg of 32-bit registers, which cut the address to its low
	# half: open, open
	.globl	narrow
	.type	narrow, @function
narrow:
	pushq	%rbx
	pushq	%r12
	movq	close@GOTPCREL(%rip), %rbx
	leal	(%rbx), %eax
	call	*%rax
	xchgl	%ebx, %r12d
	call	*%r12
	popq	%r12
	popq	%rbx
	ret
	.size	narrow, .-narrow

	.globl	main
	.type	main, @function
main:
	xorl	%eax, %eax
	ret
	.size	main, .-main
	.section	.note.GNU-stack,"",@progbits
