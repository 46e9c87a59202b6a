# Register calls and jumps regcall.go must not resolve, and twins it
# must (TestRegisterCallsNotFollowed).
	.text
	.globl	mixcopy
	.type	mixcopy, @function
mixcopy:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	close@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	dup@GOTPCREL(%rip), %rbx
2:	movq	%rbx, %rax
	call	*%rax
	movq	%rbx, %rax
	popq	%rbx
	jmp	*%rax
	.size	mixcopy, .-mixcopy

	.globl	onecopy
	.type	onecopy, @function
onecopy:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	close@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	close@GOTPCREL(%rip), %rbx
2:	movq	%rbx, %rax
	call	*%rax
	movq	%rbx, %rax
	popq	%rbx
	jmp	*%rax
	.size	onecopy, .-onecopy

	.globl	tailonly
	.type	tailonly, @function
tailonly:
	movq	close@GOTPCREL(%rip), %rax
	movl	%esi, %edi
	jmp	*%rax
	.size	tailonly, .-tailonly

	.globl	exitmixed
	.type	exitmixed, @function
exitmixed:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	exit@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	close@GOTPCREL(%rip), %rbx
2:	movl	%esi, %edi
	call	*%rbx
	popq	%rbx
	ret
	.size	exitmixed, .-exitmixed

	# exitmixed without the spacer: the call right after close's load is
	# also where exit's path jumps to, so the load before it does not
	# speak for every path.
	.globl	joinadjacent
	.type	joinadjacent, @function
joinadjacent:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	exit@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	close@GOTPCREL(%rip), %rbx
2:	call	*%rbx
	popq	%rbx
	ret
	.size	joinadjacent, .-joinadjacent

	# Both paths load close: the call at the join is close's.
	.globl	joinsame
	.type	joinsame, @function
joinsame:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	close@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	close@GOTPCREL(%rip), %rbx
2:	call	*%rbx
	popq	%rbx
	ret
	.size	joinsame, .-joinsame

	.globl	coldneg
	.type	coldneg, @function
coldneg:
	pushq	%rbx
	testl	%edi, %edi
	je	1f
	movq	close@GOTPCREL(%rip), %rbx
	jmp	2f
1:	movq	dup@GOTPCREL(%rip), %rbx
2:	testl	%esi, %esi
	jne	coldneg.cold
3:	popq	%rbx
	ret
	.size	coldneg, .-coldneg

	.section	.text.unlikely,"ax",@progbits
	.type	coldneg.cold, @function
coldneg.cold:
	call	*%rbx
	jmp	3b
	.size	coldneg.cold, .-coldneg.cold

	.text
	.globl	main
	.type	main, @function
main:
	xorl	%eax, %eax
	ret
	.size	main, .-main
	.section	.note.GNU-stack,"",@progbits
