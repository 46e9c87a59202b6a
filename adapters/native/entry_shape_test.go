package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Programs of their own (-nostdlib -static) whose _start copies a C
// library's exactly (with or without CET's endbr64/endbr32 or BTI's bti c
// first) are named as the C library's would be: work, the
// first argument, is main, and fake, the callee, __libc_start_main; the
// shapes cannot tell a faithful copy from the original. Each near miss
// (one instruction added, dropped, reordered or changed) names nothing:
// the shapes are strict.
func TestStartShapeIsStrict(t *testing.T) {
	const tail = `
work:	ret
fake:	ret
fini:	ret
init:	ret
`
	glibc64 := `.text
.globl _start
_start:	xor %ebp, %ebp
	mov %rdx, %r9
	pop %rsi
	mov %rsp, %rdx
	and $-16, %rsp
	push %rax
	push %rsp
	xor %r8d, %r8d
	xor %ecx, %ecx
	mov $work, %rdi
	call fake
	hlt
` + tail
	glibc32 := `.text
.globl _start
_start:	xor %ebp, %ebp
	pop %esi
	mov %esp, %ecx
	and $-16, %esp
	push %eax
	push %esp
	push %edx
	call 1f
	add $0x1000, %ebx
	push $0
	push $0
	push %ecx
	push %esi
	mov $work, %eax
	push %eax
	call fake
	hlt
1:	mov (%esp), %ebx
	ret
` + tail
	glibcA64 := `.text
.globl _start
_start:	mov x29, #0
	mov x30, #0
	mov x5, x0
	ldr x1, [sp]
	add x2, sp, #8
	mov x6, sp
	adrp x0, work
	add x0, x0, :lo12:work
	mov x3, #0
	mov x4, #0
	bl fake
	bl fake
work:	ret
fake:	ret
`
	musl64 := `.text
.globl _start
_start:	xor %rbp, %rbp
	mov %rsp, %rdi
	lea _start(%rip), %rsi
	and $-16, %rsp
	call start_c
start_c:
	mov (%rdi), %esi
	lea 8(%rdi), %rdx
	mov $fini, %r8
	xor %r9d, %r9d
	mov $init, %rcx
	mov $work, %rdi
	jmp fake
` + tail
	for _, c := range []struct {
		name, cc, strip, src string
		named                bool
	}{
		{"glibc-x86-64", "gcc", "strip", glibc64, true},
		{"glibc-x86-64-endbr64", "gcc", "strip", strings.Replace(glibc64, "_start:\t", "_start:\tendbr64\n\t", 1), true},
		{"glibc-x86-64-extra", "gcc", "strip", strings.Replace(glibc64, "call fake", "mov $1, %eax\n\tcall fake", 1), false},
		{"glibc-x86-64-rax", "gcc", "strip", strings.Replace(glibc64, "xor %r8d, %r8d", "xor %eax, %eax", 1), false},
		{"glibc-x86-64-rcx-unset", "gcc", "strip", strings.Replace(glibc64, "xor %ecx, %ecx", "", 1), false},
		{"glibc-x86-64-rdi-twice", "gcc", "strip", strings.Replace(glibc64, "xor %ecx, %ecx", "mov $fake, %rdi", 1), false},
		{"glibc-x86-64-no-hlt", "gcc", "strip", strings.Replace(glibc64, "hlt", "ret", 1), false},
		{"glibc-x86-64-head", "gcc", "strip", strings.Replace(glibc64, "pop %rsi", "pop %rdi", 1), false},
		{"glibc-i386", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", glibc32, true},
		{"glibc-i386-endbr32", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", strings.Replace(glibc32, "_start:\t", "_start:\tendbr32\n\t", 1), true},
		{"glibc-i386-swapped", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", strings.Replace(glibc32, "push %ecx\n\tpush %esi", "push %esi\n\tpush %ecx", 1), false},
		{"glibc-i386-four-words", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", strings.Replace(glibc32, "push $0\n\tpush $0", "push $0", 1), false},
		{"glibc-i386-six-words", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", strings.Replace(glibc32, "call fake", "push $work\n\tcall fake", 1), false},
		{"glibc-i386-thunk-edi", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", strings.Replace(glibc32, "1:\tmov (%esp), %ebx", "1:\tmov (%esp), %edi", 1), false},
		{"glibc-i386-not-ebx", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", strings.ReplaceAll(glibc32, "%ebx", "%edi"), false},
		{"glibc-arm64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", glibcA64, true},
		{"glibc-arm64-bti", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", strings.Replace(glibcA64, "_start:\t", "_start:\tbti c\n\t", 1), true},
		{"glibc-arm64-x4-unset", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", strings.Replace(glibcA64, "mov x4, #0", "", 1), false},
		{"glibc-arm64-x7", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", strings.Replace(glibcA64, "mov x4, #0", "mov x4, #0\n\tmov x7, #0", 1), false},
		{"glibc-arm64-no-abort", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", strings.Replace(glibcA64, "bl fake\n\tbl fake", "bl fake\n\tret", 1), false},
		{"musl-x86-64", "gcc", "strip", musl64, true},
		{"musl-x86-64-argv", "gcc", "strip", strings.Replace(musl64, "lea 8(%rdi), %rdx", "lea 16(%rdi), %rdx", 1), false},
		{"musl-x86-64-r9-unset", "gcc", "strip", strings.Replace(musl64, "xor %r9d, %r9d", "", 1), false},
		{"musl-x86-64-extra", "gcc", "strip", strings.Replace(musl64, "jmp fake", "mov %rdi, %rax\n\tjmp fake", 1), false},
		{"musl-x86-64-head", "gcc", "strip", strings.Replace(musl64, "and $-16, %rsp", "and $-32, %rsp", 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			needTool(t, c.cc)
			dir := t.TempDir()
			src, exe := filepath.Join(dir, "start.s"), filepath.Join(dir, "start")
			if err := os.WriteFile(src, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if b, err := exec.Command(c.cc, "-nostdlib", "-static", "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.cc, err, b)
			}
			work, fake := elfSymbolValue(t, exe, "work"), elfSymbolValue(t, exe, "fake")
			if b, err := exec.Command(c.strip, exe).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.strip, err, b)
			}
			gotMain, mainSource := mainOf(t, exe)
			gotStart, startSource := procNamed(t, exe, "__libc_start_main")
			switch {
			case c.named && (gotMain != work || mainSource != "libc-start-main" || gotStart != fake || startSource != "crt-start"):
				t.Fatalf("main at %#x (%s), __libc_start_main at %#x (%s); want %#x and %#x", gotMain, mainSource, gotStart, startSource, work, fake)
			case !c.named && (mainSource != "" || startSource != ""):
				t.Fatalf("a near miss named main at %#x (%s), __libc_start_main at %#x (%s)", gotMain, mainSource, gotStart, startSource)
			}
		})
	}
}
