# asm_add has line records (gcc -g assembles with --gdwarf) but no DWARF
# subprogram, which gas writes only for a function symbol given a .size:
# its source function comes from the symbol table.
	.text
	.globl	asm_add
	.type	asm_add, @function
asm_add:
	lea	(%rdi,%rsi), %rax
	add	$1, %rax
	ret
	.section	.note.GNU-stack,"",@progbits
