package native_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// winapiSource calls the Windows API from several DLLs (kernel32,
// user32, advapi32, ws2_32) with distinctive constants, then msvcrt's
// printf (an import: __USE_MINGW_ANSI_STDIO=0), and in lost a stdcall
// import of a DLL of its own (mine.dll), which the table does not hold;
// after reads its parameters only after its calls (gcc -O2).
const winapiSource = `#include <winsock2.h>
#include <windows.h>
#include <stdio.h>

__declspec(dllimport) int __stdcall Mine(int a, int b);

__attribute__((noinline)) int work(const char *path, int n) {
	HANDLE h = CreateFileA(path, 0x40000000, 0x3, 0, 0x2, 0x80, 0);
	DWORD wrote = 0;
	WriteFile(h, path, 0x1234, &wrote, 0);
	CloseHandle(h);
	MessageBoxA(0, path, "rea", 0x30);
	HKEY key;
	RegOpenKeyExA((HKEY)0x80000002, path, 0, 0x20019, &key);
	struct sockaddr sa = {0};
	connect((SOCKET)n, &sa, 0x10);
	CloseHandle(h);
	printf("%d %s\n", n, path);
	return n + (int)wrote;
}

__attribute__((noinline)) int lost(int n) {
	MessageBoxA(0, "a", "b", 0x30);
	Mine(0x2222, n);
	CloseHandle((HANDLE)0x4444);
	return n;
}

__attribute__((noinline)) int after(int a, int b) {
	Sleep(0x64);
	CloseHandle(CreateEventA(0, 1, 0, 0));
	return a * b;
}

int main(int argc, char **argv) { return work(argv[0], argc) + lost(argc) + after(argc, 3); }
`

// The calls of work, in order, as "stack words:arguments source": the
// Windows API's stdcall imports take their @N/4 words (CreateFileA@28
// seven, WriteFile@20 five, CloseHandle@4 one, MessageBoxA@16 four,
// RegOpenKeyExA@20 five, connect@12 three: the table's stdcall over the C
// library's cdecl prototype of the name) and pop them, so each later
// call's words are placed too, printf its constant format's three. And
// the constants their pushes or stores wrote, by call and word.
var (
	winapiWorkCalls = []string{"7:winapi", "5:winapi", "1:winapi", "4:winapi", "5:winapi", "3:winapi", "1:winapi", "3:format"}
	winapiConstants = map[int]map[int]string{
		0: {1: "0x40000000", 2: "0x3", 4: "0x2", 5: "0x80"},
		1: {2: "0x1234"},
		3: {3: "0x30"},
		4: {0: "0x80000002", 3: "0x20019"},
		5: {2: "0x10"},
	}
	// lost: MessageBoxA names its words; Mine, which the table lacks,
	// leaves the height unknown, so the CloseHandle after it names none.
	winapiLostCalls = []string{"4:winapi", "0:", "0:"}
)

// TestValueFlowWinAPICalls: on a 32-bit PE, a call of a Windows API import
// keeps the stack height known and names its stack words, each reached by
// the push or store that wrote it (mingw-w64's gcc -O0 calls through eax
// loaded from the slot, -O2 through the slot and through ebp loaded once
// for CloseHandle's two calls, then "sub esp, N" restores its frame), with
// and without symbols; after's parameters, read past three calls, are
// found.
func TestValueFlowWinAPICalls(t *testing.T) {
	needToolPkg(t, "i686-w64-mingw32-gcc", "gcc-mingw-w64-i686")
	needToolPkg(t, "i686-w64-mingw32-dlltool", "binutils-mingw-w64-i686")
	dir := t.TempDir()
	src := filepath.Join(dir, "api.c")
	def := filepath.Join(dir, "mine.def")
	for name, text := range map[string]string{src: winapiSource, def: "LIBRARY mine.dll\nEXPORTS\nMine@8\n"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runTool(t, "i686-w64-mingw32-dlltool", "-k", "-d", def, "-l", filepath.Join(dir, "libmine.a"))
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			obj := filepath.Join(dir, "api"+opt+".o")
			runTool(t, "i686-w64-mingw32-gcc", opt, "-fno-inline", "-D__USE_MINGW_ANSI_STDIO=0", "-c", src, "-o", obj)
			link := func(out string, extra ...string) *native.Analysis {
				runTool(t, "i686-w64-mingw32-gcc", append([]string{"-o", out, obj, "-L" + dir, "-lmine", "-lws2_32", "-ladvapi32", "-luser32"}, extra...)...)
				return openNative(t, out)
			}
			a := link(filepath.Join(dir, "api"+opt+".exe"))
			stripped := link(filepath.Join(dir, "api"+opt+"-s.exe"), "-s")
			work, lost, after := procedureNamed(t, a, "_work").Address, procedureNamed(t, a, "_lost").Address, procedureNamed(t, a, "_after").Address
			for build, a := range map[string]*native.Analysis{"symbols": a, "stripped": stripped} {
				vf := valueFlowAt(t, a, work)
				if got := winapiCalls(t, a, vf, winapiConstants); !slices.Equal(got, winapiWorkCalls) {
					t.Errorf("%s: calls of work:\n got %v\nwant %v", build, got, winapiWorkCalls)
				}
				if ps := paramNames(vf); !slices.Equal(ps, []string{"[esp+4]", "[esp+8]"}) {
					t.Errorf("%s: parameters of work: %v", build, ps)
				}
				if l := heightLimitation(vf); l != "" {
					t.Errorf("%s: work: %s", build, l)
				}
				vf = valueFlowAt(t, a, lost)
				if got := winapiCalls(t, a, vf, nil); !slices.Equal(got, winapiLostCalls) {
					t.Errorf("%s: calls of lost:\n got %v\nwant %v", build, got, winapiLostCalls)
				}
				if l := heightLimitation(vf); !strings.Contains(l, fmt.Sprintf("%#x", callAddrs(vf)[1])) {
					t.Errorf("%s: lost: the limitations do not name Mine's call: %q", build, l)
				}
				if ps := paramNames(valueFlowAt(t, a, after)); !slices.Equal(ps, []string{"[esp+4]", "[esp+8]"}) {
					t.Errorf("%s: parameters of after: %v", build, ps)
				}
			}
		})
	}
}

// winapiMSVCSource is winapiSource for clang's MSVC target, with its own
// declarations (no Windows headers there): clang pushes each call's
// arguments and, the callee popping them, restores nothing after a
// stdcall call.
const winapiMSVCSource = `#define IMP __declspec(dllimport)
typedef void *HANDLE;
IMP HANDLE __stdcall CreateFileA(const char *, unsigned, unsigned, void *, unsigned, unsigned, HANDLE);
IMP int __stdcall WriteFile(HANDLE, const void *, unsigned, unsigned *, void *);
IMP int __stdcall CloseHandle(HANDLE);
IMP int __stdcall MessageBoxA(HANDLE, const char *, const char *, unsigned);
IMP int __stdcall Mine(int, int);
IMP int __cdecl printf(const char *, ...);

__declspec(noinline) int work(const char *path, int n) {
	HANDLE h = CreateFileA(path, 0x40000000, 0x3, 0, 0x2, 0x80, 0);
	unsigned wrote = 0;
	WriteFile(h, path, 0x1234, &wrote, 0);
	CloseHandle(h);
	MessageBoxA(0, path, "rea", 0x30);
	printf("%d %s\n", n, path);
	return n + (int)wrote;
}

__declspec(noinline) int lost(int n) {
	MessageBoxA(0, "a", "b", 0x30);
	Mine(0x2222, n);
	CloseHandle((HANDLE)0x4444);
	return n;
}

int start(void) { return work("x", 1) + lost(2); }
`

// TestValueFlowWinAPIMSVC: the same with clang and lld-link for
// i386-pc-windows-msvc, whose import table names its DLLs as the .def
// files spell them: "KERNEL32" with no extension, "user32.DLL".
func TestValueFlowWinAPIMSVC(t *testing.T) {
	needToolPkg(t, "clang", "clang")
	needToolPkg(t, "lld-link", "lld")
	needToolPkg(t, "llvm-dlltool", "llvm")
	dir := t.TempDir()
	defs := map[string]string{
		"kernel32": "LIBRARY KERNEL32\nEXPORTS\nCreateFileA@28\nWriteFile@20\nCloseHandle@4\n",
		"user32":   "LIBRARY user32.DLL\nEXPORTS\nMessageBoxA@16\n",
		"mine":     "LIBRARY mine.dll\nEXPORTS\nMine@8\n",
		"msvcrt":   "LIBRARY msvcrt.dll\nEXPORTS\nprintf\n",
	}
	var libs []string
	for name, text := range defs {
		def := filepath.Join(dir, name+".def")
		if err := os.WriteFile(def, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		lib := filepath.Join(dir, name+".lib")
		runTool(t, "llvm-dlltool", "-m", "i386", "-k", "-d", def, "-l", lib)
		libs = append(libs, lib)
	}
	src := filepath.Join(dir, "api.c")
	if err := os.WriteFile(src, []byte(winapiMSVCSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"-O1", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			obj, exe := filepath.Join(dir, "api"+opt+".obj"), filepath.Join(dir, "api"+opt+".exe")
			runTool(t, "clang", "--target=i386-pc-windows-msvc", opt, "-fno-stack-protector", "-fno-builtin", "-c", src, "-o", obj)
			runTool(t, "lld-link", append([]string{"-entry:start", "-subsystem:console", "-nodefaultlib", "-safeseh:no", "-debug:symtab", obj, "-out:" + exe}, libs...)...)
			a := openNative(t, exe)
			vf := valueFlowAt(t, a, procedureNamed(t, a, "_work").Address)
			consts := map[int]map[int]string{0: winapiConstants[0], 1: winapiConstants[1], 3: winapiConstants[3]}
			if got, want := winapiCalls(t, a, vf, consts), []string{"7:winapi", "5:winapi", "1:winapi", "4:winapi", "3:format"}; !slices.Equal(got, want) {
				t.Errorf("calls of work:\n got %v\nwant %v", got, want)
			}
			if l := heightLimitation(vf); l != "" {
				t.Errorf("work: %s", l)
			}
			vf = valueFlowAt(t, a, procedureNamed(t, a, "_lost").Address)
			if got := winapiCalls(t, a, vf, nil); !slices.Equal(got, winapiLostCalls) {
				t.Errorf("calls of lost:\n got %v\nwant %v", got, winapiLostCalls)
			}
		})
	}
}

func runTool(t *testing.T, name string, args ...string) {
	t.Helper()
	if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
	}
}

func valueFlowAt(t *testing.T, a *native.Analysis, addr uint64) ports.ValueFlow {
	t.Helper()
	vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	return vf
}

// callAddrs lists the addresses of vf's calls, in order.
func callAddrs(vf ports.ValueFlow) []uint64 {
	var out []uint64
	for _, e := range vf.Effects {
		if e.Kind == ports.EffectCall {
			out = append(out, e.Address)
		}
	}
	return out
}

// heightLimitation is vf's limitation about the calls after which the
// stack height is unknown, "" for none.
func heightLimitation(vf ports.ValueFlow) string {
	for _, l := range vf.Limitations {
		if strings.HasPrefix(l, "The stack height is unknown after the calls at ") {
			return l
		}
	}
	return ""
}

// winapiCalls describes each call of vf in order as "words:source", where
// words is how many placed stack words ("[esp-92]") the call uses, checked
// to be consecutive and each reached by an instruction that writes the
// stack; consts gives, by call and word, the constant the instructions
// writing that word store (an operand ending in it).
func winapiCalls(t *testing.T, a *native.Analysis, vf ports.ValueFlow, consts map[int]map[int]string) []string {
	t.Helper()
	ops := map[uint64]ports.ValueFlowOperation{}
	for _, op := range vf.Operations {
		ops[op.Address] = op
	}
	var out []string
	for n, at := range callAddrs(vf) {
		var words []int
		for _, u := range ops[at].Uses {
			var off int
			if rest, ok := strings.CutPrefix(u, "[esp"); ok && !strings.HasPrefix(rest, "+0x") && !strings.HasPrefix(rest, "-0x") {
				if _, err := fmt.Sscanf(rest, "%d]", &off); err == nil {
					words = append(words, off)
				}
			}
		}
		for i, w := range words {
			if i > 0 && w != words[i-1]+4 {
				t.Errorf("call %#x: words %v are not consecutive", at, words)
			}
			loc := fmt.Sprintf("[esp%+d]", w)
			var defs []uint64
			for _, du := range vf.DefUses {
				if du.Use != at || du.Location != loc {
					continue
				}
				if !slices.ContainsFunc(ops[du.Def].Defs, func(d string) bool { return strings.HasPrefix(d, "[esp") }) {
					t.Errorf("call %#x: %s from %#x, which writes no stack word", at, loc, du.Def)
				}
				defs = append(defs, du.Def)
			}
			if len(defs) == 0 {
				t.Errorf("call %#x: nothing writes %s", at, loc)
			}
			if c, ok := consts[n][i]; ok {
				for _, d := range defs {
					dis, err := a.Disassemble(t.Context(), ports.DisassembleRequest{Address: d, MaxInstructions: 1})
					if err != nil || len(dis.Instructions) != 1 || !strings.HasSuffix(dis.Instructions[0].Operands, c) {
						t.Errorf("call %#x: word %d (%s) written at %#x by %v, not %s", at, i, loc, d, dis.Instructions, c)
					}
				}
			}
		}
		src := ""
		for _, e := range vf.Effects {
			if e.Kind == ports.EffectCall && e.Address == at {
				src = e.ArgumentsSource
			}
		}
		out = append(out, fmt.Sprintf("%d:%s", len(words), src))
	}
	return out
}

const fastcallSource = `#include <stdio.h>
__attribute__((fastcall, noinline)) int ffn(int a, int b, int c) { return a + b * c; }
__attribute__((stdcall, noinline)) int sfn(int a, int b) { return a - b; }
__attribute__((noinline)) int work(int n, const char *s) {
	int r = ffn(n, 0x11, 0x22) + sfn(n, 0x33);
	printf("%d %s\n", r, s);
	return r;
}
int main(int argc, char **argv) { return work(argc, argv[0]); }
`

// TestValueFlowFastcallCallee: a fastcall callee takes its first two
// words in ecx and edx, so DWARF's arity, which Signature places on the
// stack, names no call's words: clang says fastcall in
// DW_AT_calling_convention, mingw's gcc in the symbol (@ffn@12). Before,
// the call of ffn took three stack words, two of them not its own. The
// stdcall callee keeps its two (clang's DW_CC_BORLAND_stdcall, _sfn@8),
// and printf's words are still placed after both calls pop theirs.
func TestValueFlowFastcallCallee(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "fc.c")
	if err := os.WriteFile(src, []byte(fastcallSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cc   []string
		pkg  string
		want []string
	}{
		{"clang", []string{"clang", "--target=i686-linux-gnu"}, "clang", []string{"ffn:0:", "sfn:2:dwarf", "printf:3:format"}},
		{"mingw", []string{"i686-w64-mingw32-gcc"}, "gcc-mingw-w64-i686", []string{"@ffn@12:0:", "sfn@8:2:dwarf", "printf:3:format"}},
		// gcc on ELF writes no convention; ffn's "ret 4" is not the three
		// words its DWARF places.
		{"gcc", []string{"i686-linux-gnu-gcc"}, "gcc-i686-linux-gnu", []string{"ffn:0:", "sfn:2:dwarf", "printf:3:format"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needToolPkg(t, tc.cc[0], tc.pkg)
			if tc.name == "clang" {
				needToolPkg(t, "i686-linux-gnu-gcc", "gcc-i686-linux-gnu") // clang links with its libraries
			}
			exe := filepath.Join(dir, tc.name+".exe")
			runTool(t, tc.cc[0], append(tc.cc[1:], "-g", "-O2", "-fno-inline", "-D__USE_MINGW_ANSI_STDIO=0", "-o", exe, src)...)
			a := openNative(t, exe)
			if got := cdeclCalls(t, a, "work"); !slices.Equal(got, tc.want) {
				t.Errorf("calls of work (callee:stack words:arguments source):\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}
