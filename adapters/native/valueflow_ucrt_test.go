package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// ucrtSource calls UCRT's printf and scanf entry points through the
// va_list functions mingw-w64's headers inline (vfprintf is
// __stdio_common_vfprintf(options, stream, format, NULL, ap)).
const ucrtSource = `#include <stdio.h>
#include <stdarg.h>
#include <wchar.h>
__attribute__((noinline)) int out(const char *f, ...) { va_list ap; va_start(ap, f); int n = vfprintf(stderr, f, ap); va_end(ap); return n; }
__attribute__((noinline)) int fmt(char *b, size_t n, const char *f, ...) { va_list ap; va_start(ap, f); int k = vsnprintf(b, n, f, ap); va_end(ap); return k; }
__attribute__((noinline)) int scan(const char *s, const char *f, ...) { va_list ap; va_start(ap, f); int k = vsscanf(s, f, ap); va_end(ap); return k; }
__attribute__((noinline)) int wout(const wchar_t *f, ...) { va_list ap; va_start(ap, f); int n = vfwprintf(stdout, f, ap); va_end(ap); return n; }
int main(int argc, char **argv) {
	char b[32];
	int x;
	out("%d %s\n", argc, argv[0]);
	fmt(b, sizeof b, "%d", argc);
	scan(b, "%d", &x);
	wout(L"%d\n", x);
	return 0;
}
`

// ucrtSpecs writes gcc's specs for cc with UCRT in msvcrt's place (what
// a mingw-w64 toolchain configured for UCRT, or gcc 13's -mcrtdll=ucrt,
// links), or skips when cc has no libucrt.a.
func ucrtSpecs(t *testing.T, cc, dir string) string {
	t.Helper()
	lib, err := exec.Command(cc, "-print-file-name=libucrt.a").Output()
	if err != nil || !filepath.IsAbs(strings.TrimSpace(string(lib))) {
		t.Skipf("%s has no libucrt.a", cc)
	}
	b, err := exec.Command(cc, "-dumpspecs").Output()
	specs := string(b)
	if err != nil || !strings.Contains(specs, "-lmsvcrt") {
		t.Skipf("%s's specs do not link msvcrt", cc)
	}
	path := filepath.Join(dir, cc+".specs")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(specs, "-lmsvcrt", "-lucrt")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestValueFlowUCRTFormats: a call of UCRT's __stdio_common_vfprintf,
// __stdio_common_vsprintf, __stdio_common_vsscanf or
// __stdio_common_vfwprintf (which mingw-w64's UCRT build of vfprintf,
// vsnprintf, sscanf and an inlined vfwprintf call) passes what its C
// prototype says: the 64-bit options, the stream or the buffer and its
// size, the format, the locale and the va_list. Under Microsoft x64 that
// is four registers and one or two stack words; on i686 all on the
// stack, the options in two words. Before, these calls had no prototype
// (an inferred arity of none on x86-64, and on i686 none at all).
func TestValueFlowUCRTFormats(t *testing.T) {
	type want struct{ regs, words int }
	for _, tc := range []struct {
		cc, pkg, prefix string
		want            map[string]want
	}{
		{"x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64", "", map[string]want{
			"vfprintf": {4, 1}, "vsnprintf": {4, 2}, "sscanf": {4, 2}, "wout": {4, 1},
		}},
		{"i686-w64-mingw32-gcc", "gcc-mingw-w64-i686", "_", map[string]want{
			"vfprintf": {0, 6}, "vsnprintf": {0, 7}, "sscanf": {0, 7}, "wout": {0, 6},
		}},
	} {
		t.Run(tc.cc, func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			dir := t.TempDir()
			specs := ucrtSpecs(t, tc.cc, dir)
			bin := buildProgram(t, tc.cc, tc.pkg, "u.c", ucrtSource, "-O2", "-specs="+specs, "-D_UCRT")
			a := openNative(t, bin)
			names, err := a.Names(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for name, w := range tc.want {
				p := procedureNamed(t, a, tc.prefix+name)
				vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: p.Address})
				if err != nil {
					t.Fatal(err)
				}
				var calls []string
				for _, e := range vf.Effects {
					if e.Kind != ports.EffectCall || e.ArgumentsSource != "libc-prototype" {
						continue
					}
					callee := ""
					for _, n := range names {
						if e.HasTarget && n.Address == e.Target && strings.Contains(n.Name, "__stdio_common_") {
							callee = n.Name
						}
					}
					i := slices.IndexFunc(vf.Operations, func(o ports.ValueFlowOperation) bool { return o.Address == e.Address })
					var got want
					for _, u := range vf.Operations[i].Uses {
						switch {
						case isArgReg(u):
							got.regs++
						case strings.HasPrefix(u, "[rsp") || strings.HasPrefix(u, "[esp"):
							got.words++
						}
					}
					if callee == "" || got != w {
						t.Errorf("%s: the call at %#x of %q passes %+v (%v), want %+v", name, e.Address, callee, got, vf.Operations[i].Uses, w)
					}
					calls = append(calls, callee)
				}
				if len(calls) != 1 {
					t.Errorf("%s: %d calls of a prototype, want one of __stdio_common_*: %v", name, len(calls), calls)
				}
			}
		})
	}
}
