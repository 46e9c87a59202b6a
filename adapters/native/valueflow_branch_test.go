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

// branchSource passes arguments through to calls the value flow used to
// miss: a local variadic procedure called with al set and a double passed
// through (lg, lg2), and conditional tail calls, which clang -Os makes
// of an import (je puts@plt) and of a local procedure (jne gs, jge gs).
const branchSource = `#include <stdarg.h>
#include <stdio.h>

__attribute__((noinline)) void logf_(const char *fmt, ...) { va_list ap; va_start(ap, fmt); vprintf(fmt, ap); va_end(ap); }
__attribute__((noinline)) void lg(double d) { logf_("%f\n", d); }
__attribute__((noinline)) void lg2(int n, double d, double e) { logf_("%d %f %f\n", n, d, e); }
__attribute__((noinline)) int gs(const char *s, int n) { return puts(s) + n; }
__attribute__((noinline)) int maybe_puts(const char *s, int k) { if (k == 0) return puts(s); return k; }
__attribute__((noinline)) int maybe_gs(const char *s, int k) { if (k) return gs(s, k); return 0; }
__attribute__((noinline)) int above_gs(const char *s, int k) { if (k > 2) return gs(s, k); return -1; }

int main(int argc, char **argv) {
	lg(argc);
	lg2(argc, argc, 0.5);
	return maybe_puts(argv[0], argc) + maybe_gs(argv[0], argc) + above_gs(argv[0], argc);
}
`

// TestValueFlowPassedThrough: every helper of branchSource infers the
// parameters DWARF gives it, built with and without debug information, by
// gcc and clang at -O2 and -Os for x86-64 and AArch64. lg and lg2 set al
// before calling logf_ (a variadic procedure, whose arity DWARF gives as
// variadic and a stripped build infers as every argument register); the
// doubles they pass through unwritten are arguments because al counts
// them (on AArch64 nothing counts them: lg's v0 and lg2's v0, v1 are not
// taken). The conditional tail calls pass the callee's arguments through
// on their path.
func TestValueFlowPassedThrough(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "branch.c")
	if err := os.WriteFile(src, []byte(branchSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cc, pkg string
		flags         []string
	}{
		{"gcc-O2", "gcc", "gcc", []string{"-O2"}},
		{"gcc-Os", "gcc", "gcc", []string{"-Os"}},
		{"clang-O2", "clang", "clang", []string{"-O2"}},
		{"clang-Os", "clang", "clang", []string{"-Os"}},
		{"a64-gcc-Os", "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", []string{"-Os"}},
		{"a64-clang-Os", "clang", "clang", []string{"--target=aarch64-linux-gnu", "-Os"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			a64 := strings.HasPrefix(tc.name, "a64")
			if a64 {
				needToolPkg(t, "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu") // clang links with its libraries
			}
			build := func(extra string) *native.Analysis {
				out := filepath.Join(dir, tc.name+extra)
				args := append(slices.Clone(tc.flags), extra, "-o", out, src)
				if b, err := exec.Command(tc.cc, args...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", tc.cc, err, b)
				}
				return openAnalysis(t, out)
			}
			g, stripped := build("-g"), build("-s")
			for _, name := range []string{"lg", "lg2", "maybe_puts", "maybe_gs", "above_gs"} {
				p := procedureNamed(t, g, name)
				sig, err := g.Signature(t.Context(), p.Address)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, prm := range sig.Parameters {
					if !a64 || !strings.HasPrefix(name, "lg") || !strings.HasPrefix(prm.Location, "v") {
						want = append(want, prm.Location)
					}
				}
				for build, a := range map[string]*native.Analysis{"-g": g, "stripped": stripped} {
					vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: p.Address})
					if err != nil {
						t.Fatal(err)
					}
					if got := paramNames(vf); !slices.Equal(got, want) {
						t.Errorf("%s (%s): inferred %v, DWARF %v", name, build, got, want)
					}
				}
			}
		})
	}
}
