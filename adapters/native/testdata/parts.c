/* Parts of procedures (parts_test.go). Built with gcc -O2
 * -freorder-blocks-and-partition (the default on x86-64, not on AArch64).
 * work: gcc moves the call of the cold report into work.cold, reached by a
 * branch from work's loop; work is local, and listed under its global
 * alias wk. two: hand-written, with two cold parts, each
 * with an FDE that starts mid-frame; the parent sets the second argument
 * register before branching, so a part analysed alone would read it as a
 * parameter. shared.cold: a mid-frame piece both sa and sb branch to,
 * which belongs to neither. lone.cold: a cold name only sb branches to,
 * with an entry-state FDE: a tail-called function, not a part of sb
 * (its name is not sb's). report: cold too (in .text.unlikely), but
 * called, with an entry-state FDE: a procedure. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((cold, noinline)) void report(const char *m, int i) { fprintf(stderr, "%s %d\n", m, i); }

__attribute__((noinline)) static int work(int *p, int n) {
	int s = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] < 0) { report("neg", i); s -= 7; continue; }
		s += p[i] * i;
	}
	return s;
}

extern int wk(int *p, int n) __attribute__((alias("work")));

int two(int v);
int sa(int v);
int sb(int v);
#if defined(__x86_64__)
__asm__(
	".text\n"
	".globl two\n.type two,@function\n"
	"two:\n.cfi_startproc\n"
	"\tpushq %rbx\n.cfi_def_cfa_offset 16\n.cfi_offset %rbx, -16\n"
	"\tmovl %edi, %ebx\n\tmovl $1, %esi\n"
	"\ttestl %edi, %edi\n\tjs two.cold\n"
	"\tcmpl $100, %edi\n\tjg two.cold.1\n"
	".Ltwo_back:\n\tleal 1(%rbx), %eax\n\tpopq %rbx\n.cfi_def_cfa_offset 8\n\tret\n"
	".cfi_endproc\n.size two, .-two\n"
	".section .text.unlikely\n"
	".type two.cold,@function\n"
	"two.cold:\n.cfi_startproc\n.cfi_def_cfa_offset 16\n.cfi_offset %rbx, -16\n"
	"\tleaq .Lneg(%rip), %rdi\n\tcall report\n\tjmp .Ltwo_back\n"
	".cfi_endproc\n.size two.cold, .-two.cold\n"
	".type two.cold.1,@function\n"
	"two.cold.1:\n.cfi_startproc\n.cfi_def_cfa_offset 16\n.cfi_offset %rbx, -16\n"
	"\tleaq .Lbig(%rip), %rdi\n\tcall report\n\tjmp .Ltwo_back\n"
	".cfi_endproc\n.size two.cold.1, .-two.cold.1\n"
	".type shared.cold,@function\n"
	"shared.cold:\n.cfi_startproc\n.cfi_def_cfa_offset 16\n"
	"\tmovl %esi, %eax\n\tpopq %rdx\n.cfi_def_cfa_offset 8\n\tret\n"
	".cfi_endproc\n.size shared.cold, .-shared.cold\n"
	".type lone.cold,@function\n"
	"lone.cold:\n.cfi_startproc\n\tmovl $5, %eax\n\tret\n.cfi_endproc\n.size lone.cold, .-lone.cold\n"
	".text\n"
	".globl sa\n.type sa,@function\n"
	"sa:\n.cfi_startproc\n\tpushq %rdx\n.cfi_def_cfa_offset 16\n\tmovl %edi, %esi\n\ttestl %edi, %edi\n\tjs shared.cold\n"
	"\tpopq %rdx\n.cfi_def_cfa_offset 8\n\tmovl %edi, %eax\n\tret\n.cfi_endproc\n.size sa, .-sa\n"
	".globl sb\n.type sb,@function\n"
	"sb:\n.cfi_startproc\n\tcmpl $9, %edi\n\tje lone.cold\n\tpushq %rdx\n.cfi_def_cfa_offset 16\n\tleal 2(%rdi), %esi\n\tcmpl $7, %edi\n\tje shared.cold\n"
	"\tpopq %rdx\n.cfi_def_cfa_offset 8\n\tleal 3(%rdi), %eax\n\tret\n.cfi_endproc\n.size sb, .-sb\n"
	".section .rodata\n.Lneg: .string \"neg\"\n.Lbig: .string \"big\"\n.text\n");
#elif defined(__aarch64__)
__asm__(
	".text\n"
	".globl two\n.type two,%function\n"
	"two:\n.cfi_startproc\n"
	"\tstp x29, x30, [sp, #-32]!\n.cfi_def_cfa_offset 32\n.cfi_offset 29, -32\n.cfi_offset 30, -24\n"
	"\tmov x29, sp\n\tstr x19, [sp, #16]\n.cfi_offset 19, -16\n"
	"\tmov w19, w0\n\tmov w1, #1\n"
	"\ttbnz w0, #31, two.cold\n"
	"\tcmp w0, #100\n\tb.gt two.cold.1\n"
	".Ltwo_back:\n\tadd w0, w19, #1\n\tldr x19, [sp, #16]\n\tldp x29, x30, [sp], #32\n.cfi_restore 30\n.cfi_restore 29\n.cfi_restore 19\n.cfi_def_cfa_offset 0\n\tret\n"
	".cfi_endproc\n.size two, .-two\n"
	".section .text.unlikely\n"
	".type two.cold,%function\n"
	"two.cold:\n.cfi_startproc\n.cfi_def_cfa_offset 32\n.cfi_offset 29, -32\n.cfi_offset 30, -24\n.cfi_offset 19, -16\n"
	"\tadrp x0, .Lneg\n\tadd x0, x0, :lo12:.Lneg\n\tbl report\n\tb .Ltwo_back\n"
	".cfi_endproc\n.size two.cold, .-two.cold\n"
	".type two.cold.1,%function\n"
	"two.cold.1:\n.cfi_startproc\n.cfi_def_cfa_offset 32\n.cfi_offset 29, -32\n.cfi_offset 30, -24\n.cfi_offset 19, -16\n"
	"\tadrp x0, .Lbig\n\tadd x0, x0, :lo12:.Lbig\n\tbl report\n\tb .Ltwo_back\n"
	".cfi_endproc\n.size two.cold.1, .-two.cold.1\n"
	".type shared.cold,%function\n"
	"shared.cold:\n.cfi_startproc\n.cfi_def_cfa_offset 16\n"
	"\tmov w0, w1\n\tadd sp, sp, #16\n.cfi_def_cfa_offset 0\n\tret\n"
	".cfi_endproc\n.size shared.cold, .-shared.cold\n"
	".type lone.cold,%function\n"
	"lone.cold:\n.cfi_startproc\n\tmov w0, #5\n\tret\n.cfi_endproc\n.size lone.cold, .-lone.cold\n"
	".text\n"
	".globl sa\n.type sa,%function\n"
	"sa:\n.cfi_startproc\n\tsub sp, sp, #16\n.cfi_def_cfa_offset 16\n\tmov w1, w0\n\ttbnz w0, #31, shared.cold\n"
	"\tadd sp, sp, #16\n.cfi_def_cfa_offset 0\n\tret\n.cfi_endproc\n.size sa, .-sa\n"
	".globl sb\n.type sb,%function\n"
	"sb:\n.cfi_startproc\n\tcmp w0, #9\n\tb.eq lone.cold\n\tsub sp, sp, #16\n.cfi_def_cfa_offset 16\n\tadd w1, w0, #2\n\tcmp w0, #7\n\tb.eq shared.cold\n"
	"\tadd w0, w0, #3\n\tadd sp, sp, #16\n.cfi_def_cfa_offset 0\n\tret\n.cfi_endproc\n.size sb, .-sb\n"
	".section .rodata\n.Lneg: .string \"neg\"\n.Lbig: .string \"big\"\n.text\n");
#endif

int main(int argc, char **argv) {
	int v[4] = {1, -2, 3, argc};
	return wk(v, 4) + two(argc) + sa(argc) + sb(argc);
}
