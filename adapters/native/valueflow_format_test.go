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

// formatSource makes one printf-family call per function. shifted and
// shift1 compute a << n first, which on x86-64 puts n in rcx (and w2 or
// w1 on AArch64): a register written before the call that is no argument
// of it. wfmt is a format in writable memory, dynamic's is not constant
// and positional's is positional: those keep the prototype's arity.
const formatSource = `#include <stdio.h>
#ifndef NO_SYSLOG
#include <syslog.h>
#endif
char wfmt[] = "%d %d %d\n";
__attribute__((noinline)) int mixed(int i, const char *s, double d) { return printf("%d %s %f\n", i, s, d); }
__attribute__((noinline)) int star(int w, double d) { return printf("%5.*f", w, d); }
__attribute__((noinline)) int wide(long long x) { return fprintf(stderr, "%lld\n", x); }
__attribute__((noinline)) int bounded(char *buf, unsigned long n, const char *s) { return snprintf(buf, n, "%s", s); }
__attribute__((noinline)) int shifted(int a, int n, const char *s) { int k = a << n; return printf("%d %s\n", k, s) + n; }
__attribute__((noinline)) int shift1(int a, int n) { int k = a << n; return printf("%d\n", k) + n; }
__attribute__((noinline)) int dynamic(const char *f, int i) { return printf(f, i); }
__attribute__((noinline)) int writable(int a) { return printf(wfmt, a, a, a); }
__attribute__((noinline)) int many(int a, double b, const char *c, long d, double e, int f, int g, int h) {
	return printf("%d %g %s %ld %e %x %o %c|\n", a, b, c, d, e, f, g, h);
}
__attribute__((noinline)) int positional(int a, int b) { return printf("%2$d %1$d\n", a, b); }
#ifndef NO_SYSLOG
__attribute__((noinline)) void logged(int pri, const char *s) { syslog(pri, "open %s: %m", s); }
#else
__attribute__((noinline)) void logged(int pri, const char *s) { }
#endif
int main(int argc, char **argv) {
	char b[32];
	logged(argc, argv[0]);
	return mixed(argc, argv[0], 1.5) + star(argc, 2.5) + wide(argc) + bounded(b, sizeof b, argv[0]) + shifted(argc, 3, argv[0]) +
		shift1(argc, 2) + dynamic(argv[0], argc) + writable(argc) + many(argc, 1.0, argv[0], 4, 5.0, 6, 7, 8) + positional(argc, 2);
}
`

// TestValueFlowFormatArity: a call of a printf-family import whose format
// is a constant string in read-only memory passes exactly the argument
// registers its conversions take, as the C source passes them, and says
// so (ArgumentsSource "format"): gcc -O2 for x86-64 (also stripped, and
// with _FORTIFY_SOURCE, whose __printf_chk, __fprintf_chk and
// __syslog_chk take a flag first), AArch64 (whose variadic doubles no al
// counts: before, printf("%f", d) passed no v0) and Microsoft x64 (by
// position, a double in both its registers; msvcrt's printf). A register
// written before the call for another reason (shift's rcx) is no longer
// one; a non-constant, writable or positional format keeps the
// prototype's arity ("libc-prototype").
func TestValueFlowFormatArity(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "format.c")
	if err := os.WriteFile(src, []byte(formatSource), 0o644); err != nil {
		t.Fatal(err)
	}
	const proto = "libc-prototype"
	type want = struct{ args, source string }
	for _, tc := range []struct {
		name, cc string
		flags    []string
		strip    bool
		want     map[string]want
	}{
		{"x86-64", "gcc", []string{"-O2"}, false, sysvFormatWant},
		{"x86-64-stripped", "gcc", []string{"-O2"}, true, sysvFormatWant},
		{"x86-64-fortify", "gcc", []string{"-O2", "-D_FORTIFY_SOURCE=2"}, false, map[string]want{
			"mixed": {"rdi rsi rdx rcx xmm0", "format"}, "star": {"rdi rsi rdx xmm0", "format"}, "wide": {"rdi rsi rdx rcx", "format"},
			"bounded": {"rdi rsi rdx rcx", "format"}, "shifted": {"rdi rsi rdx rcx", "format"}, "shift1": {"rdi rsi rdx", "format"},
			"many": {"rdi rsi rdx rcx r8 r9 xmm0 xmm1", "format"}, "logged": {"rdi rsi rdx rcx", "format"},
			"dynamic": {"rdi rsi rdx", proto}, "writable": {"rdi rsi rdx rcx r8", proto}, "positional": {"rdi rsi rdx rcx", proto},
		}},
		{"aarch64", "aarch64-linux-gnu-gcc", []string{"-O2"}, false, map[string]want{
			"mixed": {"x0 x1 x2 v0", "format"}, "star": {"x0 x1 v0", "format"}, "wide": {"x0 x1 x2", "format"},
			"bounded": {"x0 x1 x2 x3", "format"}, "shifted": {"x0 x1 x2", "format"}, "shift1": {"x0 x1", "format"},
			"many": {"x0 x1 x2 x3 x4 x5 x6 v0 v1", "format"}, "logged": {"x0 x1 x2", "format"},
			"dynamic": {"x0", proto}, "writable": {"x0 x1 x2 x3", proto}, "positional": {"x0 x1 x2", proto},
		}},
		// mingw's own printf is a function of the program; msvcrt's is
		// an import.
		{"ms-x64", "x86_64-w64-mingw32-gcc", []string{"-O2", "-D__USE_MINGW_ANSI_STDIO=0", "-DNO_SYSLOG"}, false, map[string]want{
			"mixed": {"rcx rdx r8 r9 xmm3", "format"}, "star": {"rcx rdx r8 xmm2", "format"}, "wide": {"rcx rdx r8", "format"},
			"shifted": {"rcx rdx r8", "format"}, "shift1": {"rcx rdx", "format"}, "many": {"rcx rdx r8 r9 xmm2", "format"},
			"dynamic": {"rcx", proto}, "positional": {"rcx rdx r8", proto},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needTool(t, tc.cc)
			exe := filepath.Join(dir, tc.name+".exe")
			if b, err := exec.Command(tc.cc, append(tc.flags, "-o", exe, src)...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			named := openNative(t, exe)
			a := named
			if tc.strip {
				needTool(t, "strip")
				stripped := exe + ".stripped"
				if b, err := exec.Command("strip", "-o", stripped, exe).CombinedOutput(); err != nil {
					t.Fatalf("strip: %v\n%s", err, b)
				}
				a = openNative(t, stripped)
			}
			for name, w := range tc.want {
				p := procedureNamed(t, named, name) // the stripped build's is at the same address
				args, source := formatCall(t, a, p.Address)
				if args != w.args || source != w.source {
					t.Errorf("%s: the call passes %q (%s), want %q (%s)", name, args, source, w.args, w.source)
				}
			}
		})
	}
}

// sysvFormatWant is what each call passes under x86-64 System V, with or
// without symbols.
var sysvFormatWant = map[string]struct{ args, source string }{
	"mixed": {"rdi rsi rdx xmm0", "format"}, "star": {"rdi rsi xmm0", "format"}, "wide": {"rdi rsi rdx", "format"},
	"bounded": {"rdi rsi rdx rcx", "format"}, "shifted": {"rdi rsi rdx", "format"}, "shift1": {"rdi rsi", "format"},
	"many": {"rdi rsi rdx rcx r8 r9 xmm0 xmm1", "format"}, "logged": {"rdi rsi rdx", "format"},
	"dynamic": {"rdi", "libc-prototype"}, "writable": {"rdi rsi rdx rcx", "libc-prototype"}, "positional": {"rdi rsi rdx", "libc-prototype"},
}

// formatCall is the argument registers of the one call or tail call of
// the procedure at addr that a C prototype or format bounds, and where
// they come from.
func formatCall(t *testing.T, a *native.Analysis, addr uint64) (string, string) {
	t.Helper()
	vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	var calls []ports.ValueFlowEffect
	for _, e := range vf.Effects {
		if e.Kind == ports.EffectCall && (e.ArgumentsSource == "format" || e.ArgumentsSource == "libc-prototype") {
			calls = append(calls, e)
		}
	}
	if len(calls) != 1 {
		t.Fatalf("%#x: %d calls of a prototype: %+v", addr, len(calls), calls)
	}
	i := slices.IndexFunc(vf.Operations, func(o ports.ValueFlowOperation) bool { return o.Address == calls[0].Address })
	var args []string
	for _, u := range vf.Operations[i].Uses {
		if isArgReg(u) {
			args = append(args, u)
		}
	}
	return strings.Join(args, " "), calls[0].ArgumentsSource
}

// isArgReg reports whether a location is an argument register of SysV,
// Microsoft x64 or AAPCS64 (not rax, al's count, nor memory).
func isArgReg(loc string) bool {
	switch {
	case slices.Contains([]string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}, loc), strings.HasPrefix(loc, "xmm"):
		return true
	case len(loc) == 2 && (loc[0] == 'x' || loc[0] == 'v') && loc[1] >= '0' && loc[1] <= '7':
		return true
	}
	return false
}
