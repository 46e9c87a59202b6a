package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

const cdeclSource = `
__attribute__((noinline)) int one(int a) { return a * 3; }
__attribute__((noinline)) int two(int a, int b) { return a - b; }
__attribute__((noinline)) long long wide(long long x, int y) { return x * y; }
__attribute__((noinline)) int five(int a, int b, int c, int d, int e) { return a + b * c - d / (e | 1); }
__attribute__((noinline)) const char *pick(const char *s, const char *t, int k) { return k ? s : t; }
__attribute__((noinline)) double mix(double x, int n) { return x * n; }
__attribute__((noinline)) int later(int a, int b) { int s = 0; for (int i = 0; i < a; i++) s += i; return s + b; }
int main(int argc, char **argv) {
	return one(argc) + two(argc, 2) + (int)wide(argc, 3) + five(argc, 1, 2, 3, 4) + *pick(argv[0], "x", argc) + (int)mix(1.5, argc) + later(argc, 5);
}
`

// The stack parameters value flow infers for 32-bit x86 functions against
// their debug information, at -O0 (frame pointer), -O1 and -O2 (none): each
// parameter's first word is inferred (all are read), and every inferred
// word is one of a parameter's. A double read with one 8-byte load is its
// first word only.
func TestValueFlowCdeclMatchesDWARF(t *testing.T) {
	needTool(t, "i686-linux-gnu-gcc") // clang links through its sysroot
	dir := t.TempDir()
	src := filepath.Join(dir, "params.c")
	if err := os.WriteFile(src, []byte(cdeclSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cc := range [][]string{{"i686-linux-gnu-gcc"}, {"clang", "--target=i686-linux-gnu"}} {
		for _, opt := range []string{"-O0", "-O1", "-O2", "-Os"} {
			t.Run(cc[0]+opt, func(t *testing.T) {
				needTool(t, cc[0])
				exe := filepath.Join(dir, cc[0]+"params"+opt)
				if b, err := exec.Command(cc[0], append(cc[1:], opt, "-g", "-o", exe, src)...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc[0], err, b)
				}
				a := openNative(t, exe)
				for _, name := range []string{"one", "two", "wide", "five", "pick", "mix", "later"} {
					p := procedureNamed(t, a, name)
					sig, err := a.Signature(t.Context(), p.Address)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: p.Address})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					var inferred, words, firsts []string
					for _, ip := range vf.Parameters {
						inferred = append(inferred, ip.Location)
					}
					for _, sp := range sig.Parameters {
						ws := strings.Split(sp.Location, ",")
						words = append(words, ws...)
						firsts = append(firsts, ws[0])
					}
					for _, f := range firsts {
						if !slices.Contains(inferred, f) {
							t.Errorf("%s %s: %s (debug information: %v) not inferred: %v", opt, name, f, words, inferred)
						}
					}
					for _, w := range inferred {
						if !slices.Contains(words, w) {
							t.Errorf("%s %s: inferred %s is no parameter's word (debug information: %v)", opt, name, w, words)
						}
					}
					if vf.CallingConvention != "cdecl" {
						t.Errorf("%s %s: convention %q", opt, name, vf.CallingConvention)
					}
				}
			})
		}
	}
}

const eightSource = `
__attribute__((noinline)) long eight(long a, long b, long c, long d, long e, long f, long g, long h) { return a + b * c - d + e * f - g * h; }
__attribute__((noinline)) long six(long a, long b, long c, long d, long e, long f) { return a + b * c - d + e * f; }
int main(int argc, char **argv) { return (int)eight(argc, 1, 2, 3, 4, 5, 6, 7) + (int)six(argc, 1, 2, 3, 4, 5); }
`

// Past the argument registers, x86-64's arguments are stack words: SysV's
// from [rsp+8] at the entry, Microsoft x64's from [rsp+40] (past the home
// area, where a callee may spill its register arguments). Both are
// inferred, after the registers, at -O0 (frame pointer) and -O2; a
// function whose arguments all fit in registers infers no stack word.
func TestValueFlowX64StackParameters(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "eight.c")
	if err := os.WriteFile(src, []byte(eightSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cc, conv string
		regs     []string
		stack    []string
	}{
		{"gcc", "sysv-amd64", []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}, []string{"[rsp+8]", "[rsp+16]"}},
		{"clang", "sysv-amd64", []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}, []string{"[rsp+8]", "[rsp+16]"}},
		{"x86_64-w64-mingw32-gcc", "ms-x64", []string{"rcx", "rdx", "r8", "r9"}, []string{"[rsp+40]", "[rsp+48]", "[rsp+56]", "[rsp+64]"}},
	} {
		for _, opt := range []string{"-O0", "-O2"} {
			t.Run(tc.cc+"/"+tc.conv+opt, func(t *testing.T) {
				needTool(t, tc.cc)
				exe := filepath.Join(dir, tc.cc+tc.conv+opt+".exe") // mingw's gcc would add the suffix
				if b, err := exec.Command(tc.cc, opt, "-o", exe, src).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tc.cc, err, b)
				}
				a := openNative(t, exe)
				for name, stack := range map[string][]string{"eight": tc.stack, "six": tc.stack[:max(0, len(tc.stack)-2)]} {
					if tc.conv == "sysv-amd64" && name == "six" {
						stack = nil
					}
					vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: procedureNamed(t, a, name).Address})
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, p := range vf.Parameters {
						got = append(got, p.Location)
					}
					want := append(slices.Clone(tc.regs), stack...)
					if vf.CallingConvention != tc.conv || !slices.Equal(got, want) {
						t.Errorf("%s: %s %v, want %v", name, vf.CallingConvention, got, want)
					}
				}
			})
		}
	}
}

// A 64-bit Windows callee pops nothing (one convention, the caller's
// cleanup), so a stack argument read after a call is still a parameter:
// mingw -O2 reads after's fifth argument as [rsp+0x50] after calling
// helper, [rsp+40] at the entry.
func TestValueFlowX64StackParameterAfterCall(t *testing.T) {
	const cc = "x86_64-w64-mingw32-gcc"
	needTool(t, cc)
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "after.c"), filepath.Join(dir, "after.exe")
	if err := os.WriteFile(src, []byte(`long helper(long);
__attribute__((noinline)) long after(long a, long b, long c, long d, long e) { long r = helper(a); return r + e; }
long helper(long x) { return x * 3; }
int main(void) { return (int)after(1, 2, 3, 4, 5); }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(cc, "-O2", "-fno-inline", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	a := openNative(t, exe)
	vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: procedureNamed(t, a, "after").Address})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range vf.Parameters {
		got = append(got, p.Location)
	}
	// a is passed on untouched in rcx to helper, which reads it: a
	// parameter now that the call passes what its callee takes
	// (valueflow_callee.go).
	if !slices.Equal(got, []string{"rcx", "[rsp+40]"}) {
		t.Errorf("after: %v", got)
	}
}

const manySource = `
__attribute__((noinline)) long ext(long x) { return x + 1; }
__attribute__((noinline)) void use(char *p) { p[0] = 1; }
__attribute__((noinline)) int nine(int a, int b, int c, int d, int e, int f, int g, int h, int i) { return a + b + c + d + e + f + g + h + i; }
__attribute__((noinline)) long ten(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j) { return a + b * c - d + e * f - g * h + i * 3 - j; }
__attribute__((noinline)) long eleven(long a, long b, long c, long d, long e, long f, long g, long h, short i, long j, char k) { return a + b + c + d + e + f + g + h + i - j * k; }
__attribute__((noinline)) long twelve(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j, long k, long l) { return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i ^ (j << 1) ^ (k << 2) ^ l; }
__attribute__((noinline)) double mixed(double x, long a, long b, long c, long d, long e, long f, long g, long h, int i, double y, char k) { return x * y + a + b + c + d + e + f + g + h + i + k; }
__attribute__((noinline)) long after(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j) { long r = ext(a); return r + j + i; }
__attribute__((noinline)) long bigframe(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j) { char buf[5000]; use(buf); return buf[a & 1023] + i * j; }
int main(int argc, char **argv) {
	return nine(argc, 1, 2, 3, 4, 5, 6, 7, 8) + (int)ten(argc, 1, 2, 3, 4, 5, 6, 7, 8, 9) + (int)eleven(argc, 1, 2, 3, 4, 5, 6, 7, 8, 9, 'x') +
		(int)twelve(argc, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) + (int)mixed(1.5, argc, 1, 2, 3, 4, 5, 6, 7, 8, 2.5, 'c') +
		(int)after(argc, 1, 2, 3, 4, 5, 6, 7, 8, 9) + (int)bigframe(argc, 1, 2, 3, 4, 5, 6, 7, 8, 9);
}
`

// Past x0-x7 (and v0-v7), AAPCS64 passes arguments in 8-byte words from
// the entry stack pointer: value flow infers them as [sp+0], [sp+8], ... as
// Signature places them, whether the procedure reads them through sp
// (after "sub sp, sp, #n", or a constant in a register for a frame over
// 4 KiB: "mov x12, #0x1390; sub sp, sp, x12") or through x29 after "stp
// x29, x30, [sp, #-n]!; mov x29, sp", before or after a call. Against the
// debug information of gcc and clang builds at -O0 and -O2, every function
// with nine to twelve parameters infers exactly its stack words, and
// argument registers among DWARF's (all of them at -O0).
func TestValueFlowAArch64StackParametersMatchDWARF(t *testing.T) {
	needTool(t, "aarch64-linux-gnu-gcc") // clang links through its sysroot
	dir := t.TempDir()
	src := filepath.Join(dir, "many.c")
	if err := os.WriteFile(src, []byte(manySource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cc := range [][]string{{"aarch64-linux-gnu-gcc"}, {"clang", "--target=aarch64-linux-gnu"}} {
		for _, opt := range []string{"-O0", "-O2"} {
			t.Run(cc[0]+opt, func(t *testing.T) {
				needTool(t, cc[0])
				exe := filepath.Join(dir, cc[0]+"many"+opt)
				if b, err := exec.Command(cc[0], append(cc[1:], opt, "-g", "-o", exe, src)...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc[0], err, b)
				}
				a := openNative(t, exe)
				for _, name := range []string{"nine", "ten", "eleven", "twelve", "mixed", "after", "bigframe"} {
					p := procedureNamed(t, a, name)
					sig, err := a.Signature(t.Context(), p.Address)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: p.Address})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					var regs, stack, dwarfRegs, dwarfStack []string
					for _, ip := range vf.Parameters {
						if strings.HasPrefix(ip.Location, "[") {
							stack = append(stack, ip.Location)
						} else {
							regs = append(regs, ip.Location)
						}
					}
					for _, sp := range sig.Parameters {
						if strings.HasPrefix(sp.Location, "[") {
							dwarfStack = append(dwarfStack, sp.Location)
						} else {
							dwarfRegs = append(dwarfRegs, sp.Location)
						}
					}
					slices.Sort(regs)
					slices.Sort(dwarfRegs)
					if vf.CallingConvention != "aapcs64" || !slices.Equal(stack, dwarfStack) || len(dwarfStack) == 0 {
						t.Errorf("%s %s: %s stack %v, debug information %v", opt, name, vf.CallingConvention, stack, dwarfStack)
					}
					for _, r := range regs {
						if !slices.Contains(dwarfRegs, r) {
							t.Errorf("%s %s: inferred %s, debug information %v", opt, name, r, dwarfRegs)
						}
					}
					if opt == "-O0" && !slices.Equal(regs, dwarfRegs) {
						t.Errorf("%s %s: inferred %v, debug information %v", opt, name, regs, dwarfRegs)
					}
				}
			})
		}
	}
}

const cdeclImportSource = `#include <math.h>
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) void say(const char *s) { puts(s); }
__attribute__((noinline)) size_t len(const char *s) { return strlen(s); }
__attribute__((noinline)) void *cp(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
__attribute__((noinline)) double pw(double x, double y) { return pow(x, y); }
int main(int argc, char **argv) { char b[8]; say(argv[0]); cp(b, argv[0], 4); return (int)len(argv[0]) + (int)pw(argc, 2); }
`

// A 32-bit x86 tail call of an import ("jmp puts@plt" without PIC, "jmp
// [__imp__puts]" in a PE image) passes the caller's own stack words
// through: the ones its C library prototype takes (a double's two) are
// the caller's parameters, as its debug information says, with and
// without it.
func TestValueFlowCdeclImportTailCalls(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "imports.c")
	if err := os.WriteFile(src, []byte(cdeclImportSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cc, pkg string
		flags         []string
	}{
		{"elf", "i686-linux-gnu-gcc", "gcc-i686-linux-gnu", []string{"-fno-pie", "-no-pie"}},
		{"pe", "i686-w64-mingw32-gcc", "gcc-mingw-w64-i686", []string{"-D__USE_MINGW_ANSI_STDIO=0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			build := func(extra string) *native.Analysis {
				exe := filepath.Join(dir, tc.name+extra+".exe")
				args := append(slices.Clone(tc.flags), "-O2", extra, "-o", exe, src, "-lm")
				if b, err := exec.Command(tc.cc, args...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tc.cc, err, b)
				}
				return openNative(t, exe)
			}
			g, stripped := build("-g"), build("-s")
			for _, name := range []string{"say", "len", "cp", "pw"} {
				if name == "pw" && tc.name == "pe" {
					continue // mingw's own pow (libmingwex), not an import
				}
				sym := name
				if tc.name == "pe" {
					sym = "_" + name // 32-bit Windows' C names
				}
				p := procedureNamed(t, g, sym)
				sig, err := g.Signature(t.Context(), p.Address)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, sp := range sig.Parameters {
					want = append(want, strings.Split(sp.Location, ",")...)
				}
				for build, a := range map[string]*native.Analysis{"-g": g, "stripped": stripped} {
					vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: p.Address})
					if err != nil {
						t.Fatal(err)
					}
					if got := paramNames(vf); vf.CallingConvention != "cdecl" || !slices.Equal(got, want) {
						t.Errorf("%s (%s): %s %v, debug information %v", name, build, vf.CallingConvention, got, want)
					}
				}
			}
		})
	}
}
