package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// wideSource reads stack words wider than one: copy's struct copy
// through the stack (gcc -O2 x86-64: two 8-byte stores, then "movdqa
// xmm0, [rsp]"), vcopy's vector (AArch64: "stp x2, x1, [sp, #16]", then
// "ldr q0, [sp, #16]"), twice's volatile double (i686: "fstp qword
// [esp+0x8]", then "fld qword [esp+0x8]").
const wideSource = `
struct pair { long a, b; };
typedef long v2 __attribute__((vector_size(16)));
__attribute__((noinline)) void opaque(void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }
__attribute__((noinline)) long copy(long x, long y) {
	struct pair p = {x, y};
	opaque(&p);
	struct pair q = p;
	opaque(&q);
	return q.a + q.b;
}
__attribute__((noinline)) long vcopy(long x, long y) {
	v2 p = {x, y};
	opaque(&p);
	v2 q = p + p;
	opaque(&q);
	return q[0] + q[1];
}
__attribute__((noinline)) double twice(double d) {
	volatile double v = d * 3.0;
	return v + 1.0;
}
int main(int argc, char **argv) { return (int)(copy(argc, 7) + vcopy(argc, 3) + twice(argc)); }
`

// A read wider than a stack word uses every word it covers: each of the
// two words the wide read takes has a def-use edge from the instruction
// that wrote it, and an x87 load (fld) reads its operand without
// writing it.
func TestValueFlowWideStackRead(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "wide.c")
	if err := os.WriteFile(src, []byte(wideSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cc, pkg, fn string
		read        *regexp.Regexp // the wide read
	}{
		{"gcc", "gcc", "copy", regexp.MustCompile(`(?i)^movdq[au]\s+xmm\d+,.*\[rsp`)},
		{"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "vcopy", regexp.MustCompile(`(?i)^ldr\s+q0,\s*\[sp`)},
		{"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "twice", regexp.MustCompile(`(?i)^fld\s+(st0,\s*)?qword.*\[esp`)},
	} {
		t.Run(tc.cc, func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			exe := filepath.Join(dir, tc.cc)
			if b, err := exec.Command(tc.cc, "-O2", "-fno-inline", "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			a := openNative(t, exe)
			texts := instructionTexts(t, a, tc.fn)
			var read uint64
			for addr, text := range texts {
				if tc.read.MatchString(text) {
					read = addr
				}
			}
			if read == 0 {
				t.Fatalf("no wide read in %s: %v", tc.fn, texts)
			}
			vf := valueFlow(t, a, tc.fn)
			writers := map[string][]string{} // the read's stack words: their writers
			for _, e := range vf.DefUses {
				if e.Use == read && e.Location[0] == '[' {
					writers[e.Location] = append(writers[e.Location], texts[e.Def])
				}
			}
			if len(writers) != 2 {
				t.Errorf("%s (%s) reads the stack words %v, want two, each from its writer", texts[read], tc.fn, writers)
			}
			for loc, ws := range writers {
				if slices.Contains(ws, "") {
					t.Errorf("%s's word %s: writers %q, want instructions of %s", texts[read], loc, ws, tc.fn)
				}
			}
			for _, op := range vf.Operations {
				if op.Address == read && slices.ContainsFunc(op.Defs, func(d string) bool { return d[0] == '[' }) {
					t.Errorf("%s writes %v", texts[read], op.Defs)
				}
			}
		})
	}
}
