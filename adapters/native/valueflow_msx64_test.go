package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// winImportSource calls the C runtime's puts, strlen, memcpy, ldexp,
// printf and abort: through mingw's import stubs ("jmp puts" to "jmp
// [rip+__imp_puts]") with the C headers, and through the IAT itself ("jmp
// [rip+__imp_puts]", said's "call [rip+__imp_puts]", and for both's two
// calls "mov rdi,
// [rip+__imp_strlen]; call rdi") with the -DIMP declarations. The count_
// helpers and die compute g1 in eax and edx first, so a call of unknown
// arity that writes no register below rdx passes rcx through.
const winImportSource = `#ifdef IMP
typedef unsigned long long size_t;
__declspec(dllimport) int puts(const char *);
__declspec(dllimport) int printf(const char *, ...);
__declspec(dllimport) size_t strlen(const char *);
__declspec(dllimport) void *memcpy(void *, const void *, size_t);
__declspec(dllimport) double ldexp(double, int);
__declspec(dllimport) void abort(void);
#else
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#endif

int g1, g2, g3, g4, g5;

__attribute__((noinline)) void say(const char *s) { puts(s); }
__attribute__((noinline)) int said(const char *s) { return puts(s) + 1; }
__attribute__((noinline)) void count_say(const char *s) { g1 = g2 * g3 + g4 * g5; puts(s); }
__attribute__((noinline)) size_t both(const char *a, const char *b) { return strlen(a) + strlen(b); }
__attribute__((noinline)) size_t count_len(const char *s) { g1 = g2 * g3 + g4 * g5; return strlen(s); }
__attribute__((noinline)) void *cp(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
__attribute__((noinline)) double scale(double x, int n) { return ldexp(x, n); }
__attribute__((noinline)) void show(int n, const char *s) { printf("%d %s\n", n, s); }
__attribute__((noinline)) void die(void) { g1 = g2 * g3 + g4 * g5; abort(); }

int main(int argc, char **argv) {
	char b[16];
	say(argv[0]);
	said(argv[0]);
	count_say(argv[0]);
	cp(b, argv[0], 4);
	show(argc, argv[0]);
	if (argc > 5)
		die();
	return (int)both(argv[0], argv[0]) + (int)count_len(argv[0]) + (int)scale(argc, 3);
}
`

// TestValueFlowMicrosoftImports: under Microsoft x64 a call of a C
// runtime import (msvcrt's, through mingw's stub or the IAT) passes the
// registers its prototype places by position, so every helper of
// winImportSource infers DWARF's parameters, built with and without debug
// information: the wrappers gain what they pass through (scale's xmm0 and
// rdx, not rcx nor xmm1; both's rcx, through a register loaded from the
// IAT), and die loses the rcx its scratch edx made look passed to abort.
// show's tail call of printf, through the IAT or mingw's stub, takes the
// variadic slots it writes (rdx, r8) beside the format.
func TestValueFlowMicrosoftImports(t *testing.T) {
	const cc = "x86_64-w64-mingw32-gcc"
	needToolPkg(t, cc, "gcc-mingw-w64-x86-64")
	dir := t.TempDir()
	src := filepath.Join(dir, "imports.c")
	if err := os.WriteFile(src, []byte(winImportSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		flags, libs []string
	}{
		{"stubs", []string{"-D__USE_MINGW_ANSI_STDIO=0"}, nil}, // printf is msvcrt's, not mingw's own
		{"iat", []string{"-DIMP", "-fno-builtin"}, nil},
		{"ucrt", []string{"-DIMP", "-fno-builtin"}, []string{"-lucrt"}}, // puts from api-ms-win-crt-stdio-l1-1-0.dll
	} {
		t.Run(tc.name, func(t *testing.T) {
			build := func(extra string) *native.Analysis {
				out := filepath.Join(dir, tc.name+extra+".exe")
				args := append(append(slices.Clone(tc.flags), "-O2", extra, "-o", out, src), tc.libs...)
				if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc, err, b)
				}
				return openAnalysis(t, out)
			}
			g, stripped := build("-g"), build("-s")
			for _, name := range []string{"say", "said", "count_say", "both", "count_len", "cp", "scale", "show", "die"} {
				if name == "scale" && tc.name == "stubs" {
					continue // mingw's own ldexp (libmingwex), not an import: its arity is inferred
				}
				p := procedureNamed(t, g, name)
				sig, err := g.Signature(t.Context(), p.Address)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, prm := range sig.Parameters {
					want = append(want, prm.Location)
				}
				slices.Sort(want)
				for build, a := range map[string]*native.Analysis{"-g": g, "stripped": stripped} {
					vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: p.Address})
					if err != nil {
						t.Fatal(err)
					}
					if vf.CallingConvention != "ms-x64" {
						t.Fatalf("%s (%s): convention %s", name, build, vf.CallingConvention)
					}
					got := paramNames(vf)
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Errorf("%s (%s): inferred %v, DWARF %v", name, build, got, want)
					}
					// ucrt's import library defines printf itself (over
					// __stdio_common_vfprintf), reached through a pointer
					// that is no import slot.
					if name == "show" && tc.name != "ucrt" && !tailUses(vf, "rcx", "rdx", "r8") {
						t.Errorf("%s (%s): the tail call of printf does not take rcx, rdx and r8 (its variadic slots)", name, build)
					}
				}
			}
		})
	}
}

// tailUses reports whether the value flow's jump out (a tail call) uses
// every register of regs.
func tailUses(vf ports.ValueFlow, regs ...string) bool {
	for _, op := range vf.Operations {
		if op.Mnemonic == "jmp" && !slices.ContainsFunc(regs, func(r string) bool { return !slices.Contains(op.Uses, r) }) {
			return true
		}
	}
	return false
}
