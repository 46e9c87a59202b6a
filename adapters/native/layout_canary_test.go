package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// canarySource has the canary's usual shape under -fstack-protector-strong:
// main holds no array (no canary), worker and helper do.
const canarySource = `#include <stdio.h>
#include <string.h>
static int helper(const char *s) { char buf[32]; strncpy(buf, s, sizeof buf - 1); buf[31] = 0; return (int)strlen(buf); }
int worker(int n) { char b[64]; snprintf(b, sizeof b, "%d", n); return helper(b); }
int main(int c, char **v) { printf("%d\n", worker(c)); return 0; }
`

// TestLayoutStackCanaryOfStaticBinaries: libc.a defines __stack_chk_fail
// and uses the canary whatever the program was built with, so a static
// binary's indicator follows the program's own code: main (and, with
// DWARF, the functions of the program's compile units); stripped, it is
// unknown and says why. Dynamic binaries keep the import rule.
func TestLayoutStackCanaryOfStaticBinaries(t *testing.T) {
	needTool(t, "gcc")
	if out, err := exec.Command("gcc", "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
		t.Skip("static linking needs libc.a (the libc6-dev package), which gcc does not find")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "canary.c")
	if err := os.WriteFile(src, []byte(canarySource), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, flags ...string) string {
		out := filepath.Join(dir, name)
		if b, err := exec.Command("gcc", append(flags, "-o", out, src)...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", flags, err, b)
		}
		return out
	}
	for _, tc := range []struct {
		name            string
		flags           []string
		strip           bool
		canary, unknown bool
		limited         bool // a limitation says what was not looked at
	}{
		{"static-all", []string{"-static", "-fstack-protector-all"}, false, true, false, false},
		{"static-none", []string{"-static", "-fno-stack-protector"}, false, false, false, true},
		{"static-pie-none", []string{"-static-pie", "-fPIE", "-fno-stack-protector"}, false, false, false, true},
		{"static-none-stripped", []string{"-static", "-fno-stack-protector"}, true, false, true, true},
		{"static-all-stripped", []string{"-static", "-fstack-protector-all"}, true, false, true, true},
		// With DWARF the program's other functions are looked at too.
		{"static-strong-g", []string{"-static", "-g", "-fstack-protector-strong"}, false, true, false, false},
		{"static-none-g", []string{"-static", "-g", "-fno-stack-protector"}, false, false, false, false},
		{"dynamic-all", []string{"-fstack-protector-all"}, false, true, false, false},
		{"dynamic-none", []string{"-fno-stack-protector"}, false, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			path := build(tc.name, tc.flags...)
			if tc.strip {
				needTool(t, "strip")
				if b, err := exec.Command("strip", path).CombinedOutput(); err != nil {
					t.Fatalf("strip: %v\n%s", err, b)
				}
			}
			data, err := os.ReadFile(path)
			is.NoErr(err)
			l, err := readLayout(t, data)
			is.NoErr(err)
			is.Equal(l.Dynamic.StackCanary, tc.canary)
			is.Equal(l.Dynamic.StackCanaryUnknown, tc.unknown)
			is.Equal(l.Dynamic.StackCanaryLimit != "", tc.limited)
		})
	}
}
