package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// scanfSource calls sscanf, swscanf and wprintf with constant formats:
// scan's "%d %s %*d %n" takes three pointers (&a, s, &n; %*d none),
// scan1's "%d" one, computed with a shift by n (which on x86-64 moves n
// to ecx and on AArch64 writes w3: a register past the call's arguments
// written before it), wscan's L"%d %ls %*d" two, wput's L"%d %ls\n" an
// int and a wchar_t pointer, and on Windows wput64's L"%I64d %d\n"
// (msvcrt's I64: a long long, two cdecl words) and an int.
const scanfSource = `#include <stdio.h>
#include <wchar.h>
__attribute__((noinline)) int scan(const char *buf, char *s) { int a = 0, n = 0; int k = sscanf(buf, "%d %s %*d %n", &a, s, &n); return k + a + n; }
__attribute__((noinline)) int scan1(const char *buf, int *p, int n, int a) { return sscanf(buf, "%d", p + (a << n)) + n; }
__attribute__((noinline)) int wscan(const wchar_t *in, wchar_t *ws) { int a = 0; return swscanf(in, L"%d %ls %*d", &a, ws) + a; }
__attribute__((noinline)) int wput(int i, const wchar_t *ws) { return wprintf(L"%d %ls\n", i, ws); }
#ifdef _WIN32
__attribute__((noinline)) int wput64(long long x, int i) { return wprintf(L"%I64d %d\n", x, i); }
#else
__attribute__((noinline)) int wput64(long long x, int i) { return 0; }
#endif
int main(int argc, char **argv) { char s[64]; int x; return scan(argv[0], s) + scan1(argv[0], &x, 2, argc) + wput(argc, L"x") + wscan(L"1 x 2", (wchar_t *)s) + wput64(argc, argc); }
`

// scanfCalls is each procedure's call: its fixed parameters and its
// format, whose conversions (every '%' but a suppressed "%*", none of
// these formats holding "%%") are the further arguments it passes.
var scanfCalls = []struct {
	proc, format string
	fixed        int
}{{"scan", "%d %s %*d %n", 2}, {"scan1", "%d", 2}, {"wput", "%d %ls\n", 1}, {"wscan", "%d %ls %*d", 2}}

// TestValueFlowScanfArity: a call of sscanf (glibc's __isoc99_sscanf,
// msvcrt's sscanf) or swscanf with a constant format passes exactly its
// fixed parameters and a pointer per assigned conversion, and a call of
// wprintf with a constant wide format (UTF-32 in an ELF image, UTF-16 in
// a PE one) what its conversions take, "format" their source: gcc -O2
// for x86-64 System V, AArch64, Microsoft x64 (the fifth argument a
// stack word), i386 cdecl (ELF and PE: every argument a stack word), and
// on PE msvcrt's I64 length as a long long.
// objdump confirms that each register past the fixed parameters is
// written before the call. Before, the scanf calls kept the prototype's
// arity (scan1's written rcx or x3 one of them; cdecl's two words) and
// wprintf had none.
func TestValueFlowScanfArity(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "scanf.c")
	if err := os.WriteFile(src, []byte(scanfSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cc, objdump string
		flags             []string
		regs              []string // the convention's integer argument registers; none under cdecl
	}{
		{"x86-64", "gcc", "objdump", []string{"-O2"}, []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}},
		{"aarch64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump", []string{"-O2"}, []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}},
		{"ms-x64", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-objdump", []string{"-O2", "-D__USE_MINGW_ANSI_STDIO=0"}, []string{"rcx", "rdx", "r8", "r9"}},
		{"i386", "i686-linux-gnu-gcc", "", []string{"-O2"}, nil},
		{"i386-pe", "i686-w64-mingw32-gcc", "", []string{"-O2", "-D__USE_MINGW_ANSI_STDIO=0"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needTool(t, tc.cc)
			exe := filepath.Join(dir, tc.name+".exe")
			if b, err := exec.Command(tc.cc, append(tc.flags, "-o", exe, src)...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			a := openNative(t, exe)
			calls := scanfCalls
			if strings.Contains(tc.cc, "mingw") {
				calls = append(calls, struct {
					proc, format string
					fixed        int
				}{"wput64", "%I64d %d\n", 1})
			}
			for _, c := range calls {
				n := c.fixed + strings.Count(c.format, "%") - strings.Count(c.format, "%*")
				if tc.regs == nil && strings.Contains(c.format, "%I64") {
					n++ // a long long's second word
				}
				if tc.regs == nil {
					got := cdeclCalls(t, a, c.proc)
					if want := ":" + strconv.Itoa(n) + ":format"; len(got) != 1 || !strings.HasSuffix(got[0], want) {
						t.Errorf("%s: the call is %v, want its %d words from the format", c.proc, got, n)
					}
					continue
				}
				p := procedureNamed(t, a, c.proc)
				args, source := formatCall(t, a, p.Address)
				want := tc.regs[:min(n, len(tc.regs))]
				if args != strings.Join(want, " ") || source != "format" {
					t.Errorf("%s: the call passes %q (%s), want %q (format)", c.proc, args, source, want)
				}
				if words := stackUses(t, a, p.Address); words != max(0, n-len(tc.regs)) {
					t.Errorf("%s: the call uses %d stack words, want %d", c.proc, words, n-len(tc.regs))
				}
				if tc.objdump == "" {
					continue
				}
				if _, err := exec.LookPath(tc.objdump); err != nil {
					t.Logf("no %s: the registers written before the call are not confirmed", tc.objdump)
					continue
				}
				written := writtenBeforeCall(t, tc.objdump, exe, c.proc)
				for _, r := range want[c.fixed:] {
					if !slices.Contains(written, r) {
						t.Errorf("%s: objdump shows no write of %s before the call (%v)", c.proc, r, written)
					}
				}
			}
		})
	}
}

// stackUses is how many stack words the one call of the procedure at
// addr whose arguments a prototype or format bounds uses.
func stackUses(t *testing.T, a *native.Analysis, addr uint64) int {
	t.Helper()
	vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range vf.Effects {
		if e.Kind != ports.EffectCall || e.ArgumentsSource == "" {
			continue
		}
		for _, o := range vf.Operations {
			if o.Address == e.Address {
				for _, u := range o.Uses {
					if strings.HasPrefix(u, "[rsp") || strings.HasPrefix(u, "[sp") {
						n++
					}
				}
			}
		}
	}
	return n
}

// writtenBeforeCall is the registers (by their 64-bit names) that the
// instructions of procedure proc before its first call or jump out write,
// as objdump's Intel or AArch64 syntax shows them: each one's first
// operand.
func writtenBeforeCall(t *testing.T, objdump, exe, proc string) []string {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", "-M", "intel", exe).Output()
	if strings.Contains(objdump, "aarch64") {
		out, err = exec.Command(objdump, "-d", "--no-show-raw-insn", exe).Output()
	}
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	insn := regexp.MustCompile(`^\s*[0-9a-f]+:\s+(\S+)\s+([^,\s]+)`)
	wide := strings.NewReplacer("edi", "rdi", "esi", "rsi", "edx", "rdx", "ecx", "rcx", "r8d", "r8", "r9d", "r9")
	var written []string
	in := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasSuffix(line, "<"+proc+">:"):
			in = true
			continue
		case !in:
			continue
		case line == "":
			return written
		}
		m := insn.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch m[1] {
		case "call", "jmp", "bl", "b":
			return written
		}
		r := wide.Replace(m[2])
		if len(r) >= 2 && r[0] == 'w' && r[1] >= '0' && r[1] <= '9' {
			r = "x" + r[1:]
		}
		written = append(written, r)
	}
	return written
}
