package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A stripped Windows program's main is the procedure whose return value
// its C runtime passes to exit: named so (source crt-exit) at the address
// the unstripped build's symbol gives, for mingw-w64's x86-64 and i686
// runtimes (console, -municode's wmain, and -mwindows, whose runtime main
// calls WinMain: both are named; a console main linked -mwindows calls no
// WinMain) and for an MSVC-shaped runtime (__scrt_common_main_seh's
// value flow: main's result kept in a callee-saved register across
// __scrt_is_managed_app, then exit(result)) built with clang and lld-link.
// The names follow the imports (wmain) and the first argument (WinMain:
// the image base), with 32-bit x86's decoration.
func TestMainFromCRTExit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	console := write("m.c", mainC)
	wide := write("u.c", `#include <stdio.h>
#include <wchar.h>
__attribute__((noinline)) void shout(const wchar_t *s) { _putws(s); }
int wmain(int argc, wchar_t **argv) { shout(argc > 1 ? argv[1] : L"hi"); return 0; }
`)
	// A GUI program with a main of its own whose second call passes 0
	// second, as WinMain's caller does: not the runtime's main.
	ownGUI := write("g.c", `__attribute__((noinline)) int work(int a, void *b) { return a + (b != 0); }
int main(int argc, char **argv) { return work(argc, 0); }
`)
	gui := write("w.c", `#include <windows.h>
int WINAPI WinMain(HINSTANCE h, HINSTANCE p, LPSTR cmd, int show) { MessageBoxA(0, cmd, "w", 0); return show; }
`)
	for _, c := range []struct {
		name, cc, strip, src, want string
		flags                      []string
		winMain                    string // the WinMain the runtime's main calls, in a GUI program
	}{
		{"x86-64", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", console, "main", []string{"-O2"}, ""},
		{"x86-64-O0", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", console, "main", []string{"-O0"}, ""},
		{"x86-64-wmain", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", wide, "wmain", []string{"-O2", "-municode"}, ""},
		{"x86-64-gui", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", gui, "main", []string{"-O2", "-mwindows"}, "WinMain"},
		{"x86-64-gui-O0", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", gui, "main", []string{"-O0", "-mwindows"}, "WinMain"},
		{"x86-64-console-gui", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", console, "main", []string{"-O2", "-mwindows"}, ""},
		{"x86-64-own-gui-main", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", ownGUI, "main", []string{"-O1", "-mwindows"}, ""},
		{"i686-own-gui-main", "i686-w64-mingw32-gcc", "i686-w64-mingw32-strip", ownGUI, "_main", []string{"-O1", "-mwindows"}, ""},
		{"i686", "i686-w64-mingw32-gcc", "i686-w64-mingw32-strip", console, "_main", []string{"-O2"}, ""},
		{"i686-wmain", "i686-w64-mingw32-gcc", "i686-w64-mingw32-strip", wide, "_wmain", []string{"-O2", "-municode"}, ""},
		{"i686-gui", "i686-w64-mingw32-gcc", "i686-w64-mingw32-strip", gui, "_main", []string{"-O1", "-mwindows"}, "_WinMain@16"},
	} {
		t.Run("mingw-"+c.name, func(t *testing.T) {
			needTool(t, c.cc)
			exe := filepath.Join(dir, c.name+".exe")
			args := append([]string{"-o", exe, c.src}, c.flags...)
			if b, err := exec.Command(c.cc, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.cc, err, b)
			}
			want, source := procNamed(t, exe, c.want)
			if want == 0 || source != "symbol" {
				t.Fatalf("unstripped: %s at %#x (%s), want a symbol", c.want, want, source)
			}
			var wantWin uint64
			if c.winMain != "" {
				if wantWin, source = procNamed(t, exe, c.winMain); wantWin == 0 || source != "symbol" {
					t.Fatalf("unstripped: %s at %#x (%s), want a symbol", c.winMain, wantWin, source)
				}
			}
			if b, err := exec.Command(c.strip, exe).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.strip, err, b)
			}
			if got, source := procNamed(t, exe, c.want); got != want || source != "crt-exit" {
				t.Fatalf("stripped: %s at %#x (%s), want %#x from exit's argument", c.want, got, source, want)
			}
			for _, name := range []string{"WinMain", "_WinMain@16", "wWinMain", "_wWinMain@16"} {
				got, source := procNamed(t, exe, name)
				switch {
				case name == c.winMain && (got != wantWin || source != "crt-exit"):
					t.Fatalf("stripped: %s at %#x (%s), want %#x, which the runtime's main calls", name, got, source, wantWin)
				case name != c.winMain && got != 0:
					t.Fatalf("stripped: %s named at %#x (%s), want none", name, got, source)
				}
			}
		})
	}
	for _, c := range msvcShapes {
		t.Run("msvc-"+c.name, func(t *testing.T) {
			ref := linkMSVCShape(t, dir, c, true)
			want := uint64(0)
			if c.want != "" {
				var source string
				if want, source = procNamed(t, ref, c.want); want == 0 || source != "symbol" {
					t.Fatalf("with symbols: %s at %#x (%s), want a symbol", c.want, want, source)
				}
			}
			exe := linkMSVCShape(t, dir, c, false)
			for _, name := range []string{"main", "wmain", "WinMain", "wWinMain", "_main", "_wmain", "_WinMain@16", "_wWinMain@16"} {
				got, source := procNamed(t, exe, name)
				switch {
				case name == c.want && (got != want || source != "crt-exit"):
					t.Fatalf("stripped: %s at %#x (%s), want %#x from exit's argument", name, got, source, want)
				case name != c.want && got != 0:
					t.Fatalf("stripped: %s named at %#x (%s), want none", name, got, source)
				}
			}
		})
	}
}

// An MSVC-shaped C runtime: the calls and value flow of MSVC's
// mainCRTStartup and __scrt_common_main_seh (invoke_main inlined), with
// the UCRT imports it makes, linked against an import library of
// ucrtbase.dll made by llvm-dlltool. The program's main is in another
// object, as it is in a real program. Negative shapes change one thing:
// exit takes a constant, exit takes main's result plus one, two
// procedures' results reach exit, the image is a DLL, exit is not
// imported, a static runtime's exit stub passes 1 or has no sibling.
type msvcShape struct {
	name, machine, want string
	crt, prog           string
	stubs               string // a static runtime's exit stubs, in an object of their own
	dll                 bool
}

const msvcProg = `__declspec(dllimport) int __cdecl puts(const char *);
int main(int argc, char **argv, char **envp) { puts(argv[0]); return argc; }
`

// msvcCRT is the runtime's text with its main call and exit call spelt by
// the shape.
func msvcCRT(args, call, after string) string {
	return `typedef unsigned short wchar_t;
__declspec(dllimport) void __cdecl exit(int);
__declspec(dllimport) void __cdecl _cexit(void);
__declspec(dllimport) int *__cdecl __p___argc(void);
__declspec(dllimport) char ***__cdecl __p___argv(void);
__declspec(dllimport) wchar_t ***__cdecl __p___wargv(void);
__declspec(dllimport) char **__cdecl _get_initial_narrow_environment(void);
__declspec(dllimport) wchar_t **__cdecl _get_initial_wide_environment(void);
__declspec(dllimport) char *__cdecl _get_narrow_winmain_command_line(void);
extern char __ImageBase;
static volatile int managed, cookie, show = 1;
int main(int, char **, char **);
int wmain(int, wchar_t **, wchar_t **);
int __stdcall WinMain(void *, void *, char *, int);
int other(void);
__declspec(noinline) void __security_init_cookie(void) { cookie = 0x2b992ddf; }
__declspec(noinline) int __scrt_is_managed_app(void) { return managed; }
__declspec(noinline) static int __scrt_common_main_seh(void) {
	` + args + `
	int r = ` + call + `;
	if (!__scrt_is_managed_app())
		exit(` + after + `);
	_cexit();
	return r;
}
int mainCRTStartup(void) {
	__security_init_cookie();
	return __scrt_common_main_seh();
}
`
}

const narrowArgs = `char **envp = _get_initial_narrow_environment();
	char **argv = *__p___argv();
	int argc = *__p___argc();`

var msvcShapes = []msvcShape{
	{name: "x86-64", machine: "x86_64", want: "main", crt: msvcCRT(narrowArgs, "main(argc, argv, envp)", "r"), prog: msvcProg},
	{name: "i386", machine: "i386", want: "_main", crt: msvcCRT(narrowArgs, "main(argc, argv, envp)", "r"), prog: msvcProg},
	{name: "x86-64-wmain", machine: "x86_64", want: "wmain", crt: msvcCRT(`wchar_t **envp = _get_initial_wide_environment();
	wchar_t **argv = *__p___wargv();
	int argc = *__p___argc();`, "wmain(argc, argv, envp)", "r"),
		prog: "typedef unsigned short wchar_t;\nint wmain(int argc, wchar_t **argv, wchar_t **envp) { return argc + argv[0][0]; }\n"},
	{name: "x86-64-winmain", machine: "x86_64", want: "WinMain", crt: msvcCRT("char *cmd = _get_narrow_winmain_command_line();",
		"WinMain(&__ImageBase, 0, cmd, show)", "r"), prog: "int __stdcall WinMain(void *h, void *p, char *cmd, int show) { return cmd[0] + show; }\n"},
	{name: "i386-winmain", machine: "i386", want: "_WinMain@16", crt: msvcCRT("char *cmd = _get_narrow_winmain_command_line();",
		"WinMain(&__ImageBase, 0, cmd, show)", "r"), prog: "int __stdcall WinMain(void *h, void *p, char *cmd, int show) { return cmd[0] + show; }\n"},
	// AArch64: main's result kept in x19 (or, as mingw-w64 keeps its
	// mainret, in a global word) and passed in x0 to exit, called through
	// its import slot (blr) or the linker's thunk (bl).
	{name: "arm64", machine: "arm64", want: "main", crt: msvcCRT(narrowArgs, "main(argc, argv, envp)", "r"), prog: msvcProg},
	{name: "arm64-wmain", machine: "arm64", want: "wmain", crt: msvcCRT(`wchar_t **envp = _get_initial_wide_environment();
	wchar_t **argv = *__p___wargv();
	int argc = *__p___argc();`, "wmain(argc, argv, envp)", "r"),
		prog: "typedef unsigned short wchar_t;\nint wmain(int argc, wchar_t **argv, wchar_t **envp) { return argc + argv[0][0]; }\n"},
	{name: "arm64-winmain", machine: "arm64", want: "WinMain", crt: msvcCRT("char *cmd = _get_narrow_winmain_command_line();",
		"WinMain(&__ImageBase, 0, cmd, show)", "r"), prog: "int __stdcall WinMain(void *h, void *p, char *cmd, int show) { return cmd[0] + show; }\n"},
	{name: "arm64-global", machine: "arm64", want: "main", crt: msvcCRT("static volatile int mainret;\n\t"+narrowArgs, "(mainret = main(argc, argv, envp))", "mainret"), prog: msvcProg},
	{name: "arm64-thunk", machine: "arm64", want: "main", crt: strings.Replace(msvcCRT(narrowArgs, "main(argc, argv, envp)", "r"),
		"__declspec(dllimport) void __cdecl exit(int);", "void __cdecl exit(int);", 1), prog: msvcProg},
	{name: "arm64-exit-constant", machine: "arm64", crt: msvcCRT(narrowArgs, "main(argc, argv, envp)", "0"), prog: msvcProg},
	{name: "arm64-exit-plus-one", machine: "arm64", crt: msvcCRT(narrowArgs, "main(argc, argv, envp)", "r + 1"), prog: msvcProg},
	{name: "arm64-two-sources", machine: "arm64", crt: msvcCRT(narrowArgs, "argc > 1 ? main(argc, argv, envp) : other()", "r"),
		prog: msvcProg + "int other(void) { return 7; }\n"},
	{name: "arm64-global-clobbered", machine: "arm64", crt: msvcCRT("static volatile int mainret;\n\t"+narrowArgs,
		"(mainret = main(argc, argv, envp)); mainret = argc", "mainret"), prog: msvcProg},
	// MSVC's static runtime (/MT): exit is the runtime's own stub beside
	// _exit and _cexit, each passing constants on to one routine.
	{name: "x86-64-static-crt", machine: "x86_64", want: "main", crt: staticCRT(msvcCRT(narrowArgs, "main(argc, argv, envp)", "r")),
		stubs: exitStubs(false), prog: msvcProg},
	{name: "i386-static-crt", machine: "i386", want: "_main", crt: staticCRT(msvcCRT(narrowArgs, "main(argc, argv, envp)", "r")),
		stubs: exitStubs(true), prog: msvcProg},
	{name: "i386-static-crt-winmain", machine: "i386", want: "_WinMain@16", crt: staticCRT(msvcCRT("char *cmd = _get_narrow_winmain_command_line();",
		"WinMain(&__ImageBase, 0, cmd, show)", "r")), stubs: exitStubs(true),
		prog: "int __stdcall WinMain(void *h, void *p, char *cmd, int show) { return cmd[0] + show; }\n"},
	// MSVC's static runtime before the UCRT reads the command line in the
	// start routine, the wide one for wmain and wWinMain (crt0.c's
	// _wcmdln = GetCommandLineW()); the program's own code may call the
	// other. Reading both names the narrow main.
	{name: "x86-64-crt0-wmain", machine: "x86_64", want: "wmain", crt: crt0(true, "wmain(argc, argv, envp)"), stubs: exitStubs(false),
		prog: crt0Prog + "int wmain(int argc, wchar_t **argv, wchar_t **envp) { return argc + GetCommandLineA()[0]; }\n"},
	{name: "i386-crt0-wmain", machine: "i386", want: "_wmain", crt: crt0(true, "wmain(argc, argv, envp)"), stubs: exitStubs(true),
		prog: crt0Prog + "int wmain(int argc, wchar_t **argv, wchar_t **envp) { return argc + GetCommandLineA()[0]; }\n"},
	{name: "i386-crt0-wwinmain", machine: "i386", want: "_wWinMain@16", crt: crt0(true, "wWinMain(&__ImageBase, 0, wcmdln, show)"), stubs: exitStubs(true),
		prog: crt0Prog + "int __stdcall wWinMain(void *h, void *p, wchar_t *cmd, int show) { return cmd[0] + show; }\n"},
	{name: "x86-64-crt0-main", machine: "x86_64", want: "main", crt: crt0(false, "main(argc, argv, envp)"), stubs: exitStubs(false),
		prog: crt0Prog + "int main(int argc, char **argv, char **envp) { return argc + GetCommandLineW()[0]; }\n"},
	{name: "x86-64-crt0-both", machine: "x86_64", want: "main", crt: strings.Replace(crt0(false, "main(argc, argv, envp)"),
		"acmdln = GetCommandLineA();", "acmdln = GetCommandLineA();\n\twcmdln = GetCommandLineW();", 1), stubs: exitStubs(false),
		prog: crt0Prog + "int main(int argc, char **argv, char **envp) { return argc; }\n"},
	// Negative shapes: nothing is named.
	// A static runtime whose exit passes a constant other than 0 on (it is
	// _exit's shape): not exit.
	{name: "static-crt-quick", machine: "x86_64", crt: staticCRT(msvcCRT(narrowArgs, "main(argc, argv, envp)", "r")),
		stubs: strings.Replace(exitStubs(false), "void __cdecl exit(int c) { doexit(c, 0, 0); }", "void __cdecl exit(int c) { doexit(c, 1, 0); }", 1), prog: msvcProg},
	{name: "exit-constant", machine: "x86_64", crt: msvcCRT(narrowArgs, "main(argc, argv, envp)", "0"), prog: msvcProg},
	{name: "exit-plus-one", machine: "x86_64", crt: msvcCRT(narrowArgs, "main(argc, argv, envp)", "r + 1"), prog: msvcProg},
	{name: "two-sources", machine: "x86_64", crt: msvcCRT(narrowArgs, "argc > 1 ? main(argc, argv, envp) : other()", "r"),
		prog: msvcProg + "int other(void) { return 7; }\n"},
	// exit's shape with no sibling stub after it: not the runtime's exit.
	{name: "static-crt-lone-stub", machine: "x86_64", crt: staticCRT(msvcCRT(narrowArgs, "main(argc, argv, envp)", "r")), prog: msvcProg,
		stubs: `static volatile int code;
void __cdecl _cexit(void) { code = 1; }
__declspec(noinline) void doexit(int c, int quick, int retcaller) { code = c + quick + retcaller; }
void __cdecl exit(int c) { doexit(c, 0, 0); }
`},
	{name: "dll", machine: "x86_64", crt: msvcCRT(narrowArgs, "main(argc, argv, envp)", "r"), prog: msvcProg, dll: true},
	{name: "no-exit", machine: "x86_64", crt: strings.Replace(msvcCRT(narrowArgs, "main(argc, argv, envp)", "r"),
		"__declspec(dllimport) void __cdecl exit(int);", "__declspec(noinline) void __cdecl exit(int c) { static volatile int code; code = c; }", 1), prog: msvcProg},
}

// crt0 is msvcCRT as MSVC's static runtime before the UCRT has it
// (crt0.c's __tmainCRTStartup): the start routine reads the command line,
// the wide one when wide (_wcmdln = GetCommandLineW(); _wsetargv()), and
// calls call with the arguments it parsed; exit is the runtime's own.
func crt0(wide bool, call string) string {
	args := `acmdln = GetCommandLineA();
	if (setargv() < 0) amsg_exit(8);
	char **envp = environ_, **argv = argv_;
	int argc = argc_;`
	if wide {
		args = `wcmdln = GetCommandLineW();
	if (wsetargv() < 0) amsg_exit(8);
	wchar_t **envp = wenviron_, **argv = wargv_;
	int argc = argc_;`
	}
	return strings.Replace(staticCRT(msvcCRT(args, call, "r")), "int other(void);\n", `int other(void);
int __stdcall wWinMain(void *, void *, wchar_t *, int);
__declspec(dllimport) char *__stdcall GetCommandLineA(void);
__declspec(dllimport) wchar_t *__stdcall GetCommandLineW(void);
static char *acmdln, **argv_, **environ_;
static wchar_t *wcmdln, **wargv_, **wenviron_;
static int argc_;
__declspec(noinline) static int setargv(void) { argv_ = &acmdln; argc_ = acmdln[0]; return argc_ - 1; }
__declspec(noinline) static int wsetargv(void) { wargv_ = &wcmdln; argc_ = wcmdln[0]; return argc_ - 1; }
__declspec(noinline) static void amsg_exit(int c) { cookie = c; }
`, 1)
}

const crt0Prog = `typedef unsigned short wchar_t;
__declspec(dllimport) char *__stdcall GetCommandLineA(void);
__declspec(dllimport) wchar_t *__stdcall GetCommandLineW(void);
`

// staticCRT removes the runtime's exit and _cexit imports: a static
// runtime (exitStubs) defines them.
func staticCRT(crt string) string {
	crt = strings.Replace(crt, "__declspec(dllimport) void __cdecl exit(int);\n", "void __cdecl exit(int);\n", 1)
	return strings.Replace(crt, "__declspec(dllimport) void __cdecl _cexit(void);\n", "void __cdecl _cexit(void);\n", 1)
}

// exitStubs is a static runtime's exit, _exit and _cexit after the routine
// they share: compiled C on x86-64 (clang's tail calls are MSVC's xor edx,
// edx; xor r8d, r8d; jmp), and MSVC's own 32-bit instructions (push 0;
// push 0; push [ebp+8]; call; add esp, 12; pop ebp; ret) as naked
// functions on i386.
func exitStubs(i386 bool) string {
	if !i386 {
		return `static volatile int code;
__declspec(noinline) void doexit(int c, int quick, int retcaller) { code = c + quick + retcaller; }
void __cdecl exit(int c) { doexit(c, 0, 0); }
void __cdecl _exit(int c) { doexit(c, 1, 0); }
void __cdecl _cexit(void) { doexit(0, 0, 1); }
`
	}
	return `static volatile int code;
__declspec(noinline) void __cdecl doexit(int c, int quick, int retcaller) { code = c + quick + retcaller; }
__declspec(naked) void __cdecl exit(int c) { __asm { mov edi, edi
	push ebp
	mov ebp, esp
	push 0
	push 0
	push dword ptr [ebp+8]
	call doexit
	add esp, 12
	pop ebp
	ret } }
__declspec(naked) void __cdecl _exit(int c) { __asm { mov edi, edi
	push ebp
	mov ebp, esp
	push 0
	push 1
	push dword ptr [ebp+8]
	call doexit
	add esp, 12
	pop ebp
	ret } }
__declspec(naked) void __cdecl _cexit(void) { __asm { push 1
	push 0
	push 0
	call doexit
	add esp, 12
	ret } }
`
}

// linkMSVCShape builds the shape with clang and lld-link, with a COFF
// symbol table (-debug:symtab) when symbols is set.
func linkMSVCShape(t *testing.T, dir string, c msvcShape, symbols bool) string {
	t.Helper()
	needToolPkg(t, "clang", "clang")
	needToolPkg(t, "lld-link", "lld")
	needToolPkg(t, "llvm-dlltool", "llvm")
	base := filepath.Join(dir, c.name)
	target, dlltool := "x86_64-pc-windows-msvc", "i386:x86-64"
	switch c.machine {
	case "i386":
		target, dlltool = "i386-pc-windows-msvc", "i386"
	case "arm64":
		target, dlltool = "aarch64-pc-windows-msvc", "arm64"
	}
	def := "LIBRARY ucrtbase.dll\nEXPORTS\n"
	for _, f := range []string{"exit", "_cexit", "__p___argc", "__p___argv", "__p___wargv", "_get_initial_narrow_environment",
		"_get_initial_wide_environment", "_get_narrow_winmain_command_line", "puts"} {
		def += f + "\n"
	}
	steps := [][]string{
		{"llvm-dlltool", "-m", dlltool, "-d", base + ".def", "-l", base + "-ucrt.lib"},
		{"llvm-dlltool", "-m", dlltool, "-k", "-d", base + "-kernel32.def", "-l", base + "-kernel32.lib"},
		// -fno-builtin: exit is the runtime's own function, not C's noreturn builtin
		{"clang", "--target=" + target, "-O2", "-fno-stack-protector", "-fno-builtin", "-c", base + "-crt.c", "-o", base + "-crt.obj"},
		{"clang", "--target=" + target, "-O2", "-fno-stack-protector", "-c", base + "-prog.c", "-o", base + "-prog.obj"},
	}
	objs := []string{base + "-crt.obj", base + "-prog.obj"}
	if c.stubs != "" {
		steps = append(steps, []string{"clang", "--target=" + target, "-O2", "-fno-stack-protector", "-fno-builtin", "-c", base + "-exit.c", "-o", base + "-exit.obj"})
		objs = append(objs, base+"-exit.obj")
	}
	kernel32 := "LIBRARY kernel32.dll\nEXPORTS\nGetCommandLineA@0\nGetCommandLineW@0\n"
	if c.machine != "i386" {
		kernel32 = strings.ReplaceAll(kernel32, "@0", "")
	}
	for name, text := range map[string]string{base + ".def": def, base + "-kernel32.def": kernel32, base + "-crt.c": c.crt, base + "-prog.c": c.prog, base + "-exit.c": c.stubs} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := base + ".exe"
	if symbols {
		out = base + "-symbols.exe"
	}
	link := append(append([]string{"lld-link", "-entry:mainCRTStartup", "-subsystem:console", "-nodefaultlib"}, objs...), base+"-ucrt.lib", base+"-kernel32.lib", "-out:"+out)
	if c.machine == "i386" {
		link = append(link, "-safeseh:no")
	}
	if c.dll {
		link = append(link, "-dll")
	}
	if symbols {
		link = append(link, "-debug:symtab")
	}
	for _, s := range append(steps, link) {
		if b, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(s, " "), err, b)
		}
	}
	return out
}
