package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// muslStart is musl's start for i386 and AArch64 as crt1.o builds it: the
// _start of arch/ARCH/crt_arch.h, word for word, and crt/crt1.c's
// _start_c, compiled here (no cross musl is packaged for Debian: its
// crt1.o, Scrt1.o and libc.a are these two pieces compiled by gcc). BODY
// is _start_c's body; musl's is muslStartC.
var muslStart = map[string]string{
	"i386": `__asm__(
".text\n"
".weak _DYNAMIC \n"
".hidden _DYNAMIC \n"
".global _start\n"
".type _start,%function \n"
"_start:\n"
"	xor %ebp,%ebp \n"
"	mov %esp,%eax \n"
"	and $-16,%esp \n"
"	push %eax \n"
"	push %eax \n"
"	call 1f \n"
"1:	addl $_DYNAMIC-1b,(%esp) \n"
"	push %eax \n"
"	call _start_c \n"
);
`,
	"arm64": `__asm__(
".text \n"
".global _start\n"
".type _start,%function\n"
"_start:\n"
"	mov x29, #0\n"
"	mov x30, #0\n"
"	mov x0, sp\n"
".weak _DYNAMIC\n"
".hidden _DYNAMIC\n"
"	adrp x1, _DYNAMIC\n"
"	add x1, x1, #:lo12:_DYNAMIC\n"
"	and sp, x0, #-16\n"
"	b _start_c\n"
);
`,
}

const muslStartC = `int main();
__attribute__((weak)) void _init();
__attribute__((weak)) void _fini();
int __libc_start_main(int (*)(), int, char **, void (*)(), void(*)(), void(*)());
int other(int (*)(), int, char **, void (*)(), void(*)(), void(*)());
__attribute__((visibility("hidden"))) void _start_c(long *p)
{
	int argc = p[0];
	char **argv = (void *)(p+1);
	BODY
}
`

// muslLibcStart stands for musl's __libc_start_main in a static link
// (-nostdlib: no C library is linked).
const muslLibcStart = `__attribute__((noinline)) int __libc_start_main(int (*m)(), int argc, char **argv, void (*i)(), void (*f)(), void (*r)())
{
	return m(argc, argv, argv + argc + 1);
}
`

// muslMainC's main is not the first function of its text and calls no
// C library function (a static link here has none); its tail call of
// shout is a branch on AArch64, which must not be taken for glibc's
// __wrap_main. other is a function of the program's own that looks like
// __libc_start_main.
const muslMainC = `__attribute__((noinline)) int shout(int x) { return x * 3; }
int main(int argc, char **argv) { return shout(argc); }
__attribute__((noinline)) int other(int (*m)(), int argc, char **argv, void (*i)(), void (*f)(), void (*r)()) { return argc; }
`

// A stripped program started by musl's i386 or AArch64 crt1.o names main:
// dynamic (PIE and not), the entry walk follows _start's call (i386: past
// its call 1f, a push of the return address) or branch (AArch64) into
// _start_c, whose call or branch to __libc_start_main@plt passes main;
// static, _start and _start_c are recognised by their shape and
// __libc_start_main is named too. gcc at -O2 and -Os and clang (i386: its
// call 1f; pop ebx PC idiom) compile _start_c; main's tail call (a branch
// on AArch64) is not taken for glibc's __wrap_main. The same _start whose
// _start_c calls a function of its own first, or (static) passes five
// arguments, a sixth that is not 0, or main second, names nothing.
func TestMainFromMuslStart(t *testing.T) {
	dir := t.TempDir()
	mainSrc, lsmSrc := filepath.Join(dir, "m.c"), filepath.Join(dir, "lsm.c")
	for path, text := range map[string]string{mainSrc: muslMainC, lsmSrc: muslLibcStart} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const musl = "__libc_start_main(main, argc, argv, _init, _fini, 0);"
	type build struct {
		arch, cc, opt, link string // link: dynamic, pie or static
	}
	var cases []build
	for _, arch := range []string{"i386", "arm64"} {
		cc := map[string]string{"i386": "i686-linux-gnu-gcc", "arm64": "aarch64-linux-gnu-gcc"}[arch]
		for _, link := range []string{"dynamic", "pie", "static"} {
			for _, opt := range []string{"-O2", "-Os"} {
				cases = append(cases, build{arch, cc, opt, link})
			}
			cases = append(cases, build{arch, "clang", "-O2", link})
		}
	}
	for _, c := range cases {
		name := strings.Join([]string{c.arch, c.link, filepath.Base(c.cc), c.opt}, "-")
		t.Run(name, func(t *testing.T) {
			exe, wantStart := buildMusl(t, dir, name, c.arch, c.cc, c.opt, c.link, musl)
			want := elfSymbolValue(t, exe, "main")
			strip := map[string]string{"i386": "i686-linux-gnu-strip", "arm64": "aarch64-linux-gnu-strip"}[c.arch]
			if b, err := exec.Command(strip, exe).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strip, err, b)
			}
			if got, source := mainOf(t, exe); got != want || source != "libc-start-main" {
				t.Fatalf("stripped: main at %#x (%s), want %#x from __libc_start_main's argument", got, source, want)
			}
			got, source := procNamed(t, exe, "__libc_start_main")
			if c.link == "static" && (got != wantStart || source != "crt-start") || c.link != "static" && source != "" {
				t.Fatalf("stripped: __libc_start_main at %#x (%s), want %#x (%s)", got, source, wantStart, c.link)
			}
		})
	}
	// Negative cases: _start_c calls a function of its own first (the
	// walk follows one call only; the shape stops at the first call and
	// must see _start_c end there); statically, where only the shape
	// decides, passes five arguments, a sixth that is not 0, or main
	// second.
	for _, n := range []struct{ name, body string }{
		{"call-first", "other(main, argc, argv, _init, _fini, 0); " + musl},
		{"five-arguments", "((int (*)(int (*)(), int, char **, void (*)(), void(*)()))__libc_start_main)(main, argc, argv, _init, _fini);"},
		{"last-not-null", "((int (*)(int (*)(), int, char **, void (*)(), void(*)(), void(*)()))__libc_start_main)(main, argc, argv, _init, _fini, (void (*)())other);"},
		{"main-second", "((int (*)(int, int (*)(), char **, void (*)(), void(*)(), void(*)()))__libc_start_main)(argc, main, argv, _init, _fini, 0);"},
	} {
		for _, arch := range []string{"i386", "arm64"} {
			cc := map[string]string{"i386": "i686-linux-gnu-gcc", "arm64": "aarch64-linux-gnu-gcc"}[arch]
			for _, link := range []string{"dynamic", "static"} {
				if n.name != "call-first" && link == "dynamic" {
					continue // dynamic: the import decides, whatever the arguments
				}
				name := strings.Join([]string{n.name, arch, link}, "-")
				t.Run(name, func(t *testing.T) {
					exe, _ := buildMusl(t, dir, name, arch, cc, "-O2", link, n.body)
					strip := map[string]string{"i386": "i686-linux-gnu-strip", "arm64": "aarch64-linux-gnu-strip"}[arch]
					if b, err := exec.Command(strip, exe).CombinedOutput(); err != nil {
						t.Fatalf("%s: %v\n%s", strip, err, b)
					}
					if got, source := mainOf(t, exe); source != "" {
						t.Fatalf("stripped: main at %#x (%s), want none", got, source)
					}
				})
			}
		}
	}
}

// buildMusl builds the program: musl's start for arch with _start_c's
// body, compiled by cc at opt (PIC but for a non-PIE crt1.o), and main,
// linked as link says: dynamic and pie against the cross glibc's libc.so
// (its __libc_start_main stands for musl's), static with muslLibcStart
// and no C library. It returns the program and its __libc_start_main
// (static) or 0.
func buildMusl(t *testing.T, dir, name, arch, cc, opt, link, body string) (string, uint64) {
	t.Helper()
	needTool(t, cc)
	gcc := map[string]string{"i386": "i686-linux-gnu-gcc", "arm64": "aarch64-linux-gnu-gcc"}[arch]
	needTool(t, gcc)
	crt := filepath.Join(dir, name+"-crt1.c")
	if err := os.WriteFile(crt, []byte(muslStart[arch]+strings.Replace(muslStartC, "BODY", body, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	pic, pie := "-fno-pic", []string{"-fno-pie", "-no-pie"}
	switch link {
	case "pie":
		pic, pie = "-fPIC", []string{"-fpie", "-pie"}
	case "static":
		pie = []string{"-fno-pie", "-static", "-nostdlib"}
	}
	obj := filepath.Join(dir, name+"-crt1.o")
	args := []string{opt, pic, "-fno-stack-protector", "-c", "-o", obj, crt}
	if cc == "clang" {
		args = append(args, "--target="+map[string]string{"i386": "i686-linux-gnu", "arm64": "aarch64-linux-gnu"}[arch])
	}
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	exe := filepath.Join(dir, name)
	args = append([]string{"-O2", "-nostartfiles", "-o", exe, obj, filepath.Join(dir, "m.c")}, pie...)
	if link == "static" {
		args = append(args, filepath.Join(dir, "lsm.c"))
	}
	if b, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gcc, err, b)
	}
	if link != "static" {
		return exe, 0
	}
	return exe, elfSymbolValue(t, exe, "__libc_start_main")
}
