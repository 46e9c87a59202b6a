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

// importSource calls puts, strlen, printf, strtod and pow through the PLT
// (or the GOT, -fno-plt). The count_ helpers first compute g1 in eax and
// edx on x86-64, so a call that sets only rdi, or no integer register at
// all, has rdx written and, by the rule for a callee of unknown arity,
// passes rdi and rsi through; the tail calls (say, power) write nothing
// below their callee's arity and pass it all.
const importSource = `#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g1, g2, g3, g4, g5;

__attribute__((noinline)) void say(const char *s) { puts(s); }
__attribute__((noinline)) void count_say(const char *s) { g1 = g2 * g3 + g4 * g5; puts(s); }
__attribute__((noinline)) size_t both(const char *a, const char *b) { return strlen(a) + strlen(b); }
__attribute__((noinline)) size_t count_len(const char *s) { g1 = g2 * g3 + g4 * g5; return strlen(s); }
__attribute__((noinline)) double power(double x, double y) { return pow(x, y); }
__attribute__((noinline)) double count_pow(double x) { g1 = g2 * g3 + g4 * g5; return pow(x, 2.5); }
__attribute__((noinline)) double parse(const char *s) { return strtod(s, NULL); }
__attribute__((noinline)) double count_parse(const char *s) { g1 = g2 * g3 + g4 * g5; return strtod(s, NULL); }
__attribute__((noinline)) void show(int n, double d) { printf("%d %f\n", n, d); }
__attribute__((noinline)) void show_double(double d) { printf("%f\n", d); }
__attribute__((noinline)) void count_show(const char *s) { g1 = g2 * g3 + g4 * g5; printf("[%s]\n", s); }
__attribute__((noinline)) void greet(void) { g1 = g2 * g3 + g4 * g5; puts("hello"); }

int main(int argc, char **argv) {
	g2 = argc;
	say(argv[0]);
	count_say(argv[0]);
	show_double(argc);
	show(argc, power(argc, 0.5) + count_pow(argc) + parse(argv[0]) + count_parse(argv[0]));
	count_show(argv[0]);
	greet();
	return (int)both(argv[0], argv[0]) + (int)count_len(argv[0]);
}
`

// TestValueFlowImportArity: a call or tail call to an import whose name
// has a C library prototype (ports/libc) passes exactly the registers the
// prototype places, with gcc and clang -O2 for x86-64 and AArch64 (through
// the PLT and, gcc -fno-plt, the GOT), with DWARF and stripped: every helper's
// inferred parameters are DWARF's (the stripped build's at the same
// address too), so the count_ helpers lose the false rdi/rsi their
// scratch rdx made and the wrappers gain what they pass through. show and
// show_double pass their double through to printf unwritten: on x86-64
// their printf reads al (mov eax, 1, or mov al, 1), which says one vector
// register carries an argument, so xmm0 is passed; on AArch64 nothing
// but the format says how many a variadic call passes: printf's constant
// "%d %f\n" takes v0 (valueflow_format.go).
func TestValueFlowImportArity(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "imports.c")
	if err := os.WriteFile(src, []byte(importSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cc, pkg string
		flags         []string
	}{
		{"gcc", "gcc", "gcc", nil},
		{"gcc-fno-plt", "gcc", "gcc", []string{"-fno-plt"}},
		{"clang", "clang", "clang", nil},
		{"a64-gcc", "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", nil},
		{"a64-gcc-fno-plt", "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", []string{"-fno-plt"}},
		{"a64-clang", "clang", "clang", []string{"--target=aarch64-linux-gnu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			a64 := strings.HasPrefix(tc.name, "a64")
			if a64 {
				needToolPkg(t, "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu") // clang links with its libraries
			}
			build := func(extra ...string) *native.Analysis {
				out := filepath.Join(dir, tc.name+strings.Join(extra, ""))
				args := append(append(append(slices.Clone(tc.flags), "-O2"), extra...), "-o", out, src, "-lm")
				if b, err := exec.Command(tc.cc, args...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tc.cc, err, b)
				}
				return openAnalysis(t, out)
			}
			g, stripped := build("-g"), build("-s")
			for _, name := range []string{"say", "count_say", "both", "count_len", "power", "count_pow", "parse", "count_parse", "show", "show_double", "count_show", "greet"} {
				p := procedureNamed(t, g, name)
				sig, err := g.Signature(t.Context(), p.Address)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, prm := range sig.Parameters {
					want = append(want, prm.Location)
				}
				for build, a := range map[string]*native.Analysis{"-g": g, "stripped": stripped} {
					vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: p.Address})
					if err != nil {
						t.Fatal(err)
					}
					if got := paramNames(vf); !slices.Equal(got, want) {
						t.Errorf("%s (%s): inferred %v, DWARF %v", name, build, got, want)
					}
					if (name == "show" || name == "show_double") && !a64 && !variadicReadsAL(vf) {
						t.Errorf("%s (%s): the call of printf does not read rax set to 1", name, build)
					}
				}
			}
		})
	}
}

// variadicReadsAL reports whether a call or jump (show's of printf) reads
// rax, set by a mov (mov eax, 1: one vector register).
func variadicReadsAL(vf ports.ValueFlow) bool {
	for _, op := range vf.Operations {
		if op.Mnemonic != "jmp" && op.Mnemonic != "call" || !slices.Contains(op.Uses, "rax") {
			continue
		}
		for _, e := range vf.DefUses {
			if e.Use == op.Address && e.Location == "rax" && mnemonicAt(vf, e.Def) == "mov" {
				return true
			}
		}
	}
	return false
}
