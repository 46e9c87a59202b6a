package native_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mainC's main is not the first function of its text, and a helper
// before it takes a pointer, so that no other rule finds main by chance.
const mainC = `#include <stdio.h>
__attribute__((noinline)) void shout(const char *s) { puts(s); }
int main(int argc, char **argv) { shout(argc > 1 ? argv[1] : "hi"); return 0; }
`

// A stripped C program's main is the first argument its entry point
// passes to __libc_start_main: it is named main (source libc-start-main)
// at the address the unstripped file's symbol gives, for gcc's and clang's
// x86-64, i386 and AArch64 programs, PIE (main's address from a lea, an
// i386 GOT slot read off the PC thunk's register, an AArch64 GOT slot's
// RELATIVE relocation) or not (an immediate, adrp+add to AArch64's
// __wrap_main, whose branch is followed). An entry point that is not
// glibc's start names nothing, and a symbol named main keeps its source.
//
// A static program (glibc's -static and -static-pie on the three, musl's
// -static) has no import of __libc_start_main: its _start is recognised by
// shape, and __libc_start_main is named too (source crt-start), at its
// symbol's address. musl's dynamic _start calls _start_c, which
// tail-calls __libc_start_main@plt: the walk follows the call.
func TestMainFromLibcStartMain(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "m.c")
	if err := os.WriteFile(src, []byte(mainC), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, cc, strip string
		flags           []string
	}{
		{"x86-64-pie", "gcc", "strip", nil},
		{"x86-64", "gcc", "strip", []string{"-no-pie"}},
		{"x86-64-noplt", "gcc", "strip", []string{"-fno-plt"}},
		{"clang", "clang", "strip", nil},
		{"i386-pie", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", []string{"-fpie", "-pie"}},
		{"i386", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", []string{"-no-pie"}},
		{"arm64-pie", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", nil},
		{"arm64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", []string{"-no-pie"}},
		{"musl", "musl-gcc", "strip", nil},
		{"musl-static", "musl-gcc", "strip", []string{"-static"}},
		{"x86-64-static", "gcc", "strip", []string{"-static"}},
		{"x86-64-static-pie", "gcc", "strip", []string{"-static-pie"}},
		{"i386-static", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", []string{"-static"}},
		{"i386-static-pie", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", []string{"-static-pie"}},
		{"arm64-static", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", []string{"-static"}},
		{"arm64-static-pie", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", []string{"-static-pie"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			needTool(t, c.cc)
			static := slices.ContainsFunc(c.flags, func(f string) bool { return strings.HasPrefix(f, "-static") })
			if static {
				needStaticLibc(t, c.cc)
			}
			exe := filepath.Join(dir, c.name)
			args := append([]string{"-O2", "-o", exe, src}, c.flags...)
			if b, err := exec.Command(c.cc, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.cc, err, b)
			}
			want := elfSymbolValue(t, exe, "main")
			if got, source := mainOf(t, exe); got != want || source != "symbol" {
				t.Fatalf("unstripped: main at %#x (%s), want %#x from the symbol", got, source, want)
			}
			var wantStart uint64
			if static {
				wantStart = elfSymbolValue(t, exe, "__libc_start_main")
			}
			if b, err := exec.Command(c.strip, exe).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.strip, err, b)
			}
			if got, source := mainOf(t, exe); got != want || source != "libc-start-main" {
				t.Fatalf("stripped: main at %#x (%s), want %#x from __libc_start_main's argument", got, source, want)
			}
			got, source := procNamed(t, exe, "__libc_start_main")
			if static && (got != wantStart || source != "crt-start") || !static && source != "" {
				t.Fatalf("stripped: __libc_start_main at %#x (%s), want %#x (static: %v)", got, source, wantStart, static)
			}
		})
	}
	// A CET build's Scrt1.o (Ubuntu's) begins _start with endbr64.
	t.Run("endbr64", func(t *testing.T) {
		needTool(t, "gcc")
		start := filepath.Join(dir, "cet.s")
		if err := os.WriteFile(start, []byte(`.text
.globl _start
_start:	endbr64
	xor %ebp, %ebp
	mov %rdx, %r9
	pop %rsi
	mov %rsp, %rdx
	and $-16, %rsp
	push %rax
	push %rsp
	xor %r8d, %r8d
	xor %ecx, %ecx
	mov main@GOTPCREL(%rip), %rdi
	call *__libc_start_main@GOTPCREL(%rip)
	hlt
.globl main
.type main, @function
main:	xor %eax, %eax
	ret
`), 0o644); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "cet")
		if b, err := exec.Command("gcc", "-nostartfiles", "-o", exe, start).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		want := elfSymbolValue(t, exe, "main")
		if b, err := exec.Command("strip", exe).CombinedOutput(); err != nil {
			t.Fatalf("strip: %v\n%s", err, b)
		}
		if got, source := mainOf(t, exe); got != want || source != "libc-start-main" {
			t.Fatalf("stripped: main at %#x (%s), want %#x", got, source, want)
		}
	})
	// glibc before 2.34 builds main's address in a non-PIE AArch64 crt1.o
	// with movz and three movks (start.S's MOVL), dynamic or static: the
	// static start's shape admits them, and the walk must follow them.
	for _, static := range []bool{false, true} {
		name := "arm64-movl"
		flags := []string{"-no-pie", "-nostartfiles"}
		if static {
			name += "-static"
			flags = []string{"-static", "-nostartfiles"}
		}
		t.Run(name, func(t *testing.T) {
			needTool(t, "aarch64-linux-gnu-gcc")
			if static {
				needStaticLibc(t, "aarch64-linux-gnu-gcc")
			}
			start := filepath.Join(dir, name+".s")
			if err := os.WriteFile(start, []byte(`.text
.globl _start
.type _start, %function
_start:	mov x29, #0
	mov x30, #0
	mov x5, x0
	ldr x1, [sp, #0]
	add x2, sp, #8
	mov x6, sp
	movz x0, #:abs_g3:main
	movk x0, #:abs_g2_nc:main
	movk x0, #:abs_g1_nc:main
	movk x0, #:abs_g0_nc:main
	movz x3, #:abs_g3:init_fn
	movk x3, #:abs_g2_nc:init_fn
	movk x3, #:abs_g1_nc:init_fn
	movk x3, #:abs_g0_nc:init_fn
	movz x4, #:abs_g3:init_fn
	movk x4, #:abs_g2_nc:init_fn
	movk x4, #:abs_g1_nc:init_fn
	movk x4, #:abs_g0_nc:init_fn
	bl __libc_start_main
	bl abort
.type init_fn, %function
init_fn: ret
// what crti.o, crtn.o and crt1.o's static-reloc.o give a static link
.globl _init, _fini, _dl_relocate_static_pie
_init:	ret
_fini:	ret
_dl_relocate_static_pie: ret
.globl main
.type main, %function
main:	mov w0, #0
	ret
`), 0o644); err != nil {
				t.Fatal(err)
			}
			exe := filepath.Join(dir, name)
			if b, err := exec.Command("aarch64-linux-gnu-gcc", append(flags, "-o", exe, start)...).CombinedOutput(); err != nil {
				t.Fatalf("aarch64-linux-gnu-gcc: %v\n%s", err, b)
			}
			want := elfSymbolValue(t, exe, "main")
			if b, err := exec.Command("aarch64-linux-gnu-strip", exe).CombinedOutput(); err != nil {
				t.Fatalf("strip: %v\n%s", err, b)
			}
			if got, source := mainOf(t, exe); got != want || source != "libc-start-main" {
				t.Fatalf("stripped: main at %#x (%s), want %#x from the movz/movk sequence", got, source, want)
			}
		})
	}
	t.Run("own-start", func(t *testing.T) {
		needTool(t, "gcc")
		own := filepath.Join(dir, "own.c")
		if err := os.WriteFile(own, []byte(`#include <stdlib.h>
int work(int x) { return x * 3; }
void _start(void) { exit(work(2)); }
`), 0o644); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "own")
		if b, err := exec.Command("gcc", "-O1", "-nostartfiles", "-o", exe, own).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		if b, err := exec.Command("strip", exe).CombinedOutput(); err != nil {
			t.Fatalf("strip: %v\n%s", err, b)
		}
		if got, source := mainOf(t, exe); source != "" {
			t.Fatalf("a program without glibc's start has main at %#x (%s)", got, source)
		}
	})
}

// elfSymbolValue is a symbol's value in an ELF file's .symtab: a
// function's, or an assembly label's (which has no type).
func elfSymbolValue(t *testing.T, path, name string) uint64 {
	t.Helper()
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
		if s.Name == name && (elf.ST_TYPE(s.Info) == elf.STT_FUNC || elf.ST_TYPE(s.Info) == elf.STT_NOTYPE) {
			return s.Value
		}
	}
	t.Fatalf("%s has no symbol %s", path, name)
	return 0
}

// mainOf is the address and source of the procedure named main, or "".
func mainOf(t *testing.T, path string) (uint64, string) {
	t.Helper()
	return procNamed(t, path, "main")
}

// procNamed is the address and source of the procedure named name, or "".
func procNamed(t *testing.T, path, name string) (uint64, string) {
	t.Helper()
	for _, p := range proceduresIn(t, path) {
		if p.Name == name {
			return p.Address, p.Source
		}
	}
	return 0, ""
}

// needStaticLibc skips the test when cc has no static C library.
func needStaticLibc(t *testing.T, cc string) {
	t.Helper()
	out, err := exec.Command(cc, "-print-file-name=libc.a").Output()
	if err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
		t.Skipf("%s has no static libc.a: apt install %s", cc, staticLibcPackage[cc])
	}
}

// staticLibcPackage names the Debian package of a compiler's libc.a.
var staticLibcPackage = map[string]string{
	"gcc": "libc6-dev", "musl-gcc": "musl-dev", "i686-linux-gnu-gcc": "libc6-dev-i386-cross",
	"aarch64-linux-gnu-gcc": "libc6-dev-arm64-cross",
}

// A main that is itself one branch (int main(...) { return work(argc); }
// at -O2 is `b work` on AArch64) is main, not glibc's __wrap_main: only a
// first argument inside the start code's own object, just past _start, is
// the wrapper whose branch is followed. gcc's non-PIE, static and
// static-pie builds pass __wrap_main; the PIE one passes main.
func TestMainThatOnlyBranches(t *testing.T) {
	needTool(t, "aarch64-linux-gnu-gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "tail.c")
	if err := os.WriteFile(src, []byte(`#include <stdio.h>
__attribute__((noinline)) int work(int argc) { puts("x"); return argc; }
int main(int argc, char **argv) { return work(argc); }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"-no-pie"}, {"-static"}, {"-static-pie"}, nil} {
		name := "pie"
		if flags != nil {
			name = flags[0][1:]
		}
		t.Run(name, func(t *testing.T) {
			if flags != nil && strings.HasPrefix(flags[0], "-static") {
				needStaticLibc(t, "aarch64-linux-gnu-gcc")
			}
			exe := filepath.Join(dir, name)
			if b, err := exec.Command("aarch64-linux-gnu-gcc", append([]string{"-O2", "-o", exe, src}, flags...)...).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, b)
			}
			want := elfSymbolValue(t, exe, "main")
			if b, err := exec.Command("aarch64-linux-gnu-strip", exe).CombinedOutput(); err != nil {
				t.Fatalf("strip: %v\n%s", err, b)
			}
			if got, source := mainOf(t, exe); got != want || source != "libc-start-main" {
				t.Fatalf("stripped: main at %#x (%s), want %#x, not the function its branch goes to", got, source, want)
			}
		})
	}
}
