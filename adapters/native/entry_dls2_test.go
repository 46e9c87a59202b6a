package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dlstartC stands for musl's rcrt1.o as its sources build it: rcrt1.c
// defines START as _start and _dlstart_c as _start_c and includes
// ldso/dlstart.c, which (after crt_arch.h's _start, muslStart's) walks the
// auxiliary vector and the dynamic section, applies the RELATIVE
// relocations, and reaches __dls2 through reloc.h's GETFUNCSYM, then
// __dls2 calls __libc_start_main. No cross musl is packaged for Debian:
// this is the same C, in its structure and in each statement the start
// code's shape depends on, written out for the test. GETFUNCSYM is
// reloc.h's for each arch; CALL is how _start_c reaches __dls2 and DLS2
// __dls2's body.
const dlstartC = `typedef unsigned long size_t;
typedef void (*stage2_func)(unsigned char *, size_t *);
#define AUX_CNT 32
#define DYN_CNT 32
#if defined(__x86_64__)
#define GETFUNCSYM(fp, sym, got) __asm__ ( ".hidden " #sym "\n	lea " #sym "(%%rip),%0\n" : "=r"(*fp) : : "memory" )
#define IS_RELATIVE(x) (((x) & 0xffffffff) == 8)
#elif defined(__i386__)
#define GETFUNCSYM(fp, sym, got) __asm__ ( ".hidden " #sym "\n	call 1f\n1:	addl $" #sym "-.,(%%esp)\n	pop %0" : "=r"(*fp) : : "memory" )
#define IS_RELATIVE(x) (((x) & 0xff) == 8)
#else
#define GETFUNCSYM(fp, sym, got) __asm__ ( ".hidden " #sym "\n	adrp %0, " #sym "\n	add %0, %0, :lo12:" #sym "\n" : "=r"(*fp) : : "memory" )
#define IS_RELATIVE(x) (((x) & 0xffffffff) == 1027)
#endif
struct phdr {
#if __SIZEOF_POINTER__ == 8
	unsigned int p_type, p_flags;
	size_t p_offset, p_vaddr;
#else
	size_t p_type, p_offset, p_vaddr;
#endif
};
int main();
__attribute__((weak)) void _init();
__attribute__((weak)) void _fini();
int __libc_start_main(int (*)(), int, char **, void (*)(), void(*)(), void(*)());
__attribute__((visibility("hidden"))) void __dls2(unsigned char *base, size_t *sp);

__attribute__((visibility("hidden"))) void _start_c(size_t *sp, size_t *dynv)
{
	size_t i, aux[AUX_CNT], dyn[DYN_CNT];
	int argc = *sp;
	char **argv = (void *)(sp+1);
	for (i = argc+1; argv[i]; i++);
	size_t *auxv = (void *)(argv+i+1);
	for (i = 0; i < AUX_CNT; i++) aux[i] = 0;
	for (i = 0; auxv[i]; i += 2) if (auxv[i] < AUX_CNT) aux[auxv[i]] = auxv[i+1];
	for (i = 0; i < DYN_CNT; i++) dyn[i] = 0;
	for (i = 0; dynv[i]; i += 2) if (dynv[i] < DYN_CNT) dyn[dynv[i]] = dynv[i+1];
	unsigned char *base = (void *)aux[7];
	if (!base) {
		size_t phnum = aux[5], phentsize = aux[4];
		struct phdr *ph = (void *)aux[3];
		for (i = phnum; i--; ph = (void *)((char *)ph + phentsize)) {
			if (ph->p_type == 2) {
				base = (void *)((size_t)dynv - ph->p_vaddr);
				break;
			}
		}
	}
	size_t *rel, rel_size;
	rel = (void *)(base+dyn[17]);
	rel_size = dyn[18];
	for (; rel_size; rel += 2, rel_size -= 2*sizeof(size_t)) {
		if (!IS_RELATIVE(rel[1])) continue;
		size_t *rel_addr = (void *)(base + rel[0]);
		*rel_addr += (size_t)base;
	}
	rel = (void *)(base+dyn[7]);
	rel_size = dyn[8];
	for (; rel_size; rel += 3, rel_size -= 3*sizeof(size_t)) {
		if (!IS_RELATIVE(rel[1])) continue;
		size_t *rel_addr = (void *)(base + rel[0]);
		*rel_addr = (size_t)base + rel[2];
	}
	CALL
}

__attribute__((visibility("hidden"))) void __dls2(unsigned char *base, size_t *sp)
{
	DLS2
}
`

const (
	dls2Call = "stage2_func dls2; GETFUNCSYM(&dls2, __dls2, 0); dls2(base, sp);"
	dls2Body = "__libc_start_main(main, *sp, (void *)(sp+1), _init, _fini, 0);"
)

// A stripped static PIE started by musl's rcrt1.o names main and
// __libc_start_main: _start is crt1.o's, its _start_c is dlstart.c's
// _dlstart_c, read to its jump or call through GETFUNCSYM's register, and
// that register's __dls2 has the shape of crt1.o's _start_c, from which the
// walk finds main. x86-64 is musl's own rcrt1.o and libc.a (musl-gcc
// compiles main, gcc links, as musl-gcc's specs do not for -static-pie);
// i386, AArch64 and x86-64 again are dlstartC compiled by gcc at -O2 and
// -Os and by clang. The negatives name nothing: _start_c calls __dls2
// directly (no GETFUNCSYM: the register is not there), reaches it through
// a register loaded from memory, or __dls2 passes main second or five
// arguments.
func TestMainFromMuslStaticPIE(t *testing.T) {
	t.Run("x86-64-musl", func(t *testing.T) {
		needTool(t, "musl-gcc")
		const lib = "/usr/lib/x86_64-linux-musl"
		if _, err := os.Stat(lib + "/rcrt1.o"); err != nil {
			t.Skip("musl's rcrt1.o not found: apt install musl-dev")
		}
		dir := t.TempDir()
		src, obj, exe := filepath.Join(dir, "m.c"), filepath.Join(dir, "m.o"), filepath.Join(dir, "m")
		if err := os.WriteFile(src, []byte(mainC), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command("musl-gcc", "-O2", "-fPIE", "-c", "-o", obj, src).CombinedOutput(); err != nil {
			t.Fatalf("musl-gcc: %v\n%s", err, b)
		}
		gccFile := func(name string) string {
			b, err := exec.Command("gcc", "-print-file-name="+name).Output()
			if err != nil {
				t.Fatalf("gcc -print-file-name=%s: %v", name, err)
			}
			return strings.TrimSpace(string(b))
		}
		args := []string{"-static-pie", "-nostdlib", "-nostartfiles", "-o", exe, lib + "/rcrt1.o", lib + "/crti.o",
			gccFile("crtbeginS.o"), obj, lib + "/libc.a", gccFile("libgcc.a"), gccFile("crtendS.o"), lib + "/crtn.o"}
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		checkStaticPIEMain(t, exe, "strip", true)
	})
	dir := t.TempDir()
	for path, text := range map[string]string{"m.c": muslMainC, "lsm.c": muslLibcStart} {
		if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type build struct{ arch, cc, opt, call, dls2 string }
	var cases []build
	for _, arch := range []string{"x86-64", "i386", "arm64"} {
		for _, opt := range []string{"-O2", "-Os"} {
			cases = append(cases, build{arch, "gcc", opt, dls2Call, dls2Body})
		}
		cases = append(cases, build{arch, "clang", "-O2", dls2Call, dls2Body})
	}
	for _, c := range cases {
		name := strings.Join([]string{c.arch, c.cc, c.opt}, "-")
		t.Run(name, func(t *testing.T) {
			exe, strip := buildDlstart(t, dir, name, c.arch, c.cc, c.opt, c.call, c.dls2)
			checkStaticPIEMain(t, exe, strip, true)
		})
	}
	for _, n := range []struct{ name, call, dls2 string }{
		{"direct-call", "__dls2(base, sp);", dls2Body},
		{"pointer-in-memory", "static stage2_func p = __dls2; stage2_func dls2; __asm__ volatile(\"\" : \"+m\"(p)); dls2 = p; dls2(base, sp);", dls2Body},
		{"main-second", dls2Call, "((int (*)(int, int (*)(), char **, void (*)(), void(*)(), void(*)()))__libc_start_main)(*sp, main, (void *)(sp+1), _init, _fini, 0);"},
		{"five-arguments", dls2Call, "((int (*)(int (*)(), int, char **, void (*)(), void(*)()))__libc_start_main)(main, *sp, (void *)(sp+1), _init, _fini);"},
	} {
		for _, arch := range []string{"x86-64", "i386", "arm64"} {
			name := n.name + "-" + arch
			t.Run(name, func(t *testing.T) {
				exe, strip := buildDlstart(t, dir, name, arch, "gcc", "-O2", n.call, n.dls2)
				checkStaticPIEMain(t, exe, strip, false)
			})
		}
	}
}

// checkStaticPIEMain strips exe and checks that main and __libc_start_main
// are named at their symbols' addresses (want), or that main is not.
func checkStaticPIEMain(t *testing.T, exe, strip string, want bool) {
	t.Helper()
	wantMain, wantStart := elfSymbolValue(t, exe, "main"), elfSymbolValue(t, exe, "__libc_start_main")
	if b, err := exec.Command(strip, exe).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strip, err, b)
	}
	got, source := mainOf(t, exe)
	if !want {
		if source != "" {
			t.Fatalf("stripped: main at %#x (%s), want none", got, source)
		}
		return
	}
	if got != wantMain || source != "libc-start-main" {
		t.Fatalf("stripped: main at %#x (%s), want %#x from __libc_start_main's argument", got, source, wantMain)
	}
	if got, source := procNamed(t, exe, "__libc_start_main"); got != wantStart || source != "crt-start" {
		t.Fatalf("stripped: __libc_start_main at %#x (%s), want %#x (crt-start)", got, source, wantStart)
	}
}

// buildDlstart builds a static PIE from musl's _start (muslStart; x86-64's
// is crt_arch.h's too), dlstartC with call and dls2 as _start_c's last
// statement and __dls2's body, muslMainC and muslLibcStart, compiled by cc
// at opt for arch; it returns the program and the strip for arch.
func buildDlstart(t *testing.T, dir, name, arch, cc, opt, call, dls2 string) (string, string) {
	t.Helper()
	gcc := map[string]string{"x86-64": "gcc", "i386": "i686-linux-gnu-gcc", "arm64": "aarch64-linux-gnu-gcc"}[arch]
	strip := map[string]string{"x86-64": "strip", "i386": "i686-linux-gnu-strip", "arm64": "aarch64-linux-gnu-strip"}[arch]
	needTool(t, gcc)
	if cc == "gcc" {
		cc = gcc
	}
	needTool(t, cc)
	start := map[string]string{"x86-64": muslStart64, "i386": muslStart["i386"], "arm64": muslStart["arm64"]}[arch]
	crt := filepath.Join(dir, name+"-rcrt1.c")
	text := start + strings.NewReplacer("CALL", call, "DLS2", dls2).Replace(dlstartC)
	if err := os.WriteFile(crt, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, name+"-rcrt1.o")
	args := []string{opt, "-fPIC", "-fno-stack-protector", "-c", "-o", obj, crt}
	if !strings.HasPrefix(cc, "clang") {
		// musl builds its C without the calls of memset gcc makes of
		// its loops.
		args = append(args, "-fno-tree-loop-distribute-patterns")
	} else {
		args = append(args, "--target="+map[string]string{"x86-64": "x86_64-linux-gnu", "i386": "i686-linux-gnu", "arm64": "aarch64-linux-gnu"}[arch])
	}
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	exe := filepath.Join(dir, name)
	args = []string{"-O2", "-fPIE", "-static-pie", "-nostdlib", "-nostartfiles", "-o", exe, obj, filepath.Join(dir, "m.c"), filepath.Join(dir, "lsm.c")}
	if b, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gcc, err, b)
	}
	return exe, strip
}

// muslStart64 is musl's x86-64 _start (arch/x86_64/crt_arch.h).
const muslStart64 = `__asm__(
".text \n"
".global _start \n"
"_start: \n"
"	xor %rbp,%rbp \n"
"	mov %rsp,%rdi \n"
".weak _DYNAMIC \n"
".hidden _DYNAMIC \n"
"	lea _DYNAMIC(%rip),%rsi \n"
"	andq $-16,%rsp \n"
"	call _start_c \n"
);
`
