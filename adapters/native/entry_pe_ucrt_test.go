package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mingw-w64 linked against the UCRT (its specs with -lucrt for -lmsvcrt,
// and -static): libucrt.a's __getmainargs and __wgetmainargs wrappers come
// in together, so the program imports both __p___argv and __p___wargv, and
// only the start code's own command-line read (__p__wcmdln in the
// -municode build, __p__acmdln in the narrow one) tells wmain from main.
// The stripped program's wmain is named wmain (_wmain on i686) from exit's
// argument, and a narrow program's main stays main.
func TestMainFromCRTExitUCRT(t *testing.T) {
	wide := `#include <stdio.h>
#include <wchar.h>
__attribute__((noinline)) void shout(const wchar_t *s) { _putws(s); }
int wmain(int argc, wchar_t **argv) { shout(argc > 1 ? argv[1] : L"hi"); return 0; }
`
	for _, c := range []struct {
		name, cc, strip, src, want string
		flags                      []string
	}{
		{"x86-64-wmain", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", wide, "wmain", []string{"-O2", "-municode"}},
		{"x86-64-main", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", mainC, "main", []string{"-O2"}},
		{"i686-wmain", "i686-w64-mingw32-gcc", "i686-w64-mingw32-strip", wide, "_wmain", []string{"-O2", "-municode"}},
		{"i686-main", "i686-w64-mingw32-gcc", "i686-w64-mingw32-strip", mainC, "_main", []string{"-O2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			needTool(t, c.cc)
			needTool(t, c.strip)
			dir := t.TempDir()
			lib, err := exec.Command(c.cc, "-print-file-name=libucrt.a").Output()
			if err != nil || !filepath.IsAbs(strings.TrimSpace(string(lib))) {
				t.Skipf("%s has no libucrt.a", c.cc)
			}
			specs, err := exec.Command(c.cc, "-dumpspecs").Output()
			if err != nil || !strings.Contains(string(specs), "-lmsvcrt") {
				t.Skipf("%s -dumpspecs names no -lmsvcrt to replace: %v", c.cc, err)
			}
			spec, src, exe := filepath.Join(dir, "ucrt.specs"), filepath.Join(dir, "p.c"), filepath.Join(dir, "p.exe")
			if err := os.WriteFile(spec, []byte(strings.ReplaceAll(string(specs), "-lmsvcrt", "-lucrt")), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(src, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			runTool(t, c.cc, append([]string{"-specs=" + spec, "-static", "-o", exe, src}, c.flags...)...)
			want, source := procNamed(t, exe, c.want)
			if want == 0 || source != "symbol" {
				t.Fatalf("unstripped: %s at %#x (%s), want a symbol", c.want, want, source)
			}
			runTool(t, c.strip, exe)
			for _, name := range []string{"main", "wmain", "_main", "_wmain"} {
				got, source := procNamed(t, exe, name)
				switch {
				case name == c.want && (got != want || source != "crt-exit"):
					t.Errorf("stripped: %s at %#x (%s), want %#x from exit's argument", name, got, source, want)
				case name != c.want && got != 0:
					t.Errorf("stripped: %s named at %#x (%s), want none", name, got, source)
				}
			}
		})
	}
}
