package native_test

import (
	"debug/elf"
	"debug/pe"
	"path/filepath"
	"strings"
	"testing"
)

// slotExitC's check ends each of its paths in a call of exit (or
// ExitProcess) through the import's slot: gcc -O2 -fno-plt calls
// "call [rip+exit@GOT]", mingw-w64's gcc -O2 "call [__imp_ExitProcess]".
// hidden, after it, is reached only through a pointer in data.
const slotExitC = `#include <stdlib.h>
#ifdef _WIN32
#include <windows.h>
#define EXIT(c) ExitProcess(c)
#else
#include <unistd.h>
#define CloseHandle(h) close((int)(long)(h))
#define EXIT(c) exit(c)
#endif
__attribute__((noinline)) int check(int x, int y) {
  if (x < 0) { CloseHandle((void *)(long)y); EXIT(2); }
  if (y < 0) { CloseHandle((void *)(long)x); EXIT(3); }
  if (x > y) EXIT(4);
  return x * 3 + y;
}
__attribute__((noinline)) static int hidden(int x) { return x * 5 + 1; }
int (*volatile fp)(int) = hidden;
int main(int argc, char **argv) { return check(argc, argc - 1) + fp(argc); }
`

// regExitS is die calling exit through rbx, loaded from exit's GOT slot
// before a branch (not right before either call); hidden, after it, is
// reached only through a pointer in data.
const regExitS = `	.text
	.globl	main
main:
	subq	$8, %rsp
	call	*fp(%rip)
	movl	%eax, %edi
	call	die
	.p2align 4
die:
	pushq	%rbx
	movq	exit@GOTPCREL(%rip), %rbx
	testl	%edi, %edi
	je	1f
	movl	$1, %edi
	call	*%rbx
1:	movl	$2, %edi
	call	*%rbx
	.p2align 4
hidden:
	leal	1(%rdi), %eax
	ret
	.data
fp:	.quad	hidden
	.section .note.GNU-stack,"",@progbits
`

// regExitPE is die on 32-bit Windows: ExitProcess's IAT slot in esi,
// called on both paths; _hidden is reached only through _fp.
const regExitPE = `	.text
	.globl	_main
_main:
	pushl	$0
	call	*_fp
	pushl	%eax
	call	_die
	.p2align 4
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
	.p2align 4
	.globl	_hidden
_hidden:
	movl	4(%esp), %eax
	ret
	.data
	.globl	_fp
_fp:	.long	_hidden
`

// TestDiscoveryEndsAtNoReturnSlotCalls: in a stripped build without
// unwind tables, discovery's own sweep ends a path at a call of exit or
// ExitProcess through the import's slot, or through a register holding
// that slot on every path (as Function's blocks do), so the code after it
// is a boundary: hidden, reached only through a pointer in data, is found
// and the caller's range ends there rather than taking hidden in.
func TestDiscoveryEndsAtNoReturnSlotCalls(t *testing.T) {
	for _, tc := range []struct {
		name, cc, pkg, strip, file, src, fn, hidden string
		flags                                       []string
	}{
		{"gcc-fno-plt", "gcc", "gcc", "strip", "p.c", slotExitC, "check", "hidden", []string{"-O2", "-fno-plt", "-fno-toplevel-reorder", "-fno-asynchronous-unwind-tables"}},
		{"mingw-i686", "i686-w64-mingw32-gcc", "gcc-mingw-w64-i686", "i686-w64-mingw32-strip", "p.c", slotExitC, "_check", "_hidden", []string{"-O2", "-fno-toplevel-reorder", "-fno-asynchronous-unwind-tables"}},
		{"mingw-x86_64", "x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64", "x86_64-w64-mingw32-strip", "p.c", slotExitC, "check", "hidden", []string{"-O2", "-fno-toplevel-reorder", "-fno-asynchronous-unwind-tables"}},
		{"reg-elf", "gcc", "gcc", "strip", "p.s", regExitS, "die", "hidden", nil},
		{"reg-pe-i686", "i686-w64-mingw32-gcc", "gcc-mingw-w64-i686", "i686-w64-mingw32-strip", "p.s", regExitPE, "_die", "_hidden", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needTool(t, tc.strip)
			bin := buildProgram(t, tc.cc, tc.pkg, tc.file, tc.src, tc.flags...)
			fn, hidden := symbolAddr(t, bin, tc.fn), symbolAddr(t, bin, tc.hidden)
			stripped := bin + ".s"
			runTool(t, tc.strip, "-o", stripped, bin)
			ranges, err := openNative(t, stripped).FunctionRanges(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range ranges {
				if r.Start == fn && r.End != hidden {
					t.Errorf("%s's range %#x-%#x (%s), want it to end at %s, %#x", tc.fn, r.Start, r.End, r.EndSource, tc.hidden, hidden)
				}
				found = found || r.Start == hidden
			}
			if !found {
				t.Errorf("%s (%#x) is not found", tc.hidden, hidden)
			}
		})
	}
}

// symbolAddr returns the address of the symbol name of an ELF or PE file.
func symbolAddr(t *testing.T, path, name string) uint64 {
	t.Helper()
	if strings.HasSuffix(path, ".exe") {
		f, err := pe.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var base uint64
		switch h := f.OptionalHeader.(type) {
		case *pe.OptionalHeader32:
			base = uint64(h.ImageBase)
		case *pe.OptionalHeader64:
			base = h.ImageBase
		}
		for _, s := range f.Symbols {
			if s.Name == name && s.SectionNumber > 0 {
				return base + uint64(f.Sections[s.SectionNumber-1].VirtualAddress) + uint64(s.Value)
			}
		}
		t.Fatalf("%s: no symbol %s", filepath.Base(path), name)
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name && s.Value != 0 {
			return s.Value
		}
	}
	t.Fatalf("%s: no symbol %s", filepath.Base(path), name)
	return 0
}
