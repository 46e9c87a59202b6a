package native_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/ports"
)

// nestedSource nests one variable-length array's scope in another's, so
// that two copies of the stack pointer are live at once: gcc -O0 for
// x86-64 keeps them in r13 and r12 ("mov rax, rsp; mov r13, rax"), -O1
// and -O2 spill the outer one ("mov [rbp-0x68], rsp" ... "mov rsp,
// [rbp-0x68]") and keep the inner in a register, -Os spills both; for
// AArch64 -O2 and -Os spill a register copy ("mov x1, sp; str x1,
// [x29,#120]" ... "ldr x0, [x29,#120]; mov sp, x0"). Both calls of ten
// follow a restore and store its stack arguments after it.
const nestedSource = `
#include <string.h>
__attribute__((noipa)) int use(char *p, int n) { return p[0] + n; }
__attribute__((noipa)) int ten(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j) {
	return a + b + c + d + e + f + g + h + i * 3 + j * 5;
}
__attribute__((noipa)) int nested(int n, int k) {
	int local[4];
	local[0] = k; local[1] = k * 3; local[2] = n; local[3] = k + n;
	int r = 0;
	for (int i = 0; i < k; i++) {
		char outer[n + i];
		memset(outer, 1, n);
		for (int j = 0; j < n; j++) {
			char inner[k + j];
			memset(inner, 2, k);
			r += use(inner, j) + use(outer, i);
		}
		r += ten(n, k, 1, 2, 3, 4, 5, 6, local[3], local[0]);
	}
	return r + ten(n, k, 1, 2, 3, 4, 5, 6, local[3], local[0]) + use((char *)local, 2);
}
int main(int argc, char **argv) { return nested(argc, 3); }
`

// A copy of the stack pointer spilled to a frame slot, or reloaded from
// one, and several copies live at once, are followed as a register copy
// is: after each restore the stack height is the one the copy was taken
// at, so every call of ten (after the loops, and in nested's outer loop
// after the inner one) uses its stack argument words at a known place,
// each with an edge from exactly the instruction objdump shows writing it
// (x86-64's four pushes, AArch64's "str wN, [sp]" and "str wN, [sp,
// #8]"). Before, gcc -Os's "mov rsp, [rbp-0x48]" lost the height, as did
// restores of a second copy ("mov rsp, r12" while r13 held the first) and
// AArch64's "ldr x0, [x29,#120]; mov sp, x0".
func TestValueFlowSpilledStackPointer(t *testing.T) {
	dir := t.TempDir()
	for _, arch := range []struct {
		cc, pkg, objdump string
		words            int
		placed           *regexp.Regexp // a stack word named by its place
		writer           *regexp.Regexp // objdump's text of an argument word's writer
	}{
		{"gcc", "gcc", "objdump", 4, regexp.MustCompile(`^\[rsp(@0x[0-9a-f]+)?[-+]\d+\]$`), regexp.MustCompile(`^push\s`)},
		{"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "aarch64-linux-gnu-objdump", 2,
			regexp.MustCompile(`^\[sp(@0x[0-9a-f]+)?[-+]\d+\]$`), regexp.MustCompile(`^str\s+w\d+, \[sp(, #8)?\]$`)},
	} {
		for _, src := range []struct{ name, text, fn string }{{"loop", loopRestoreSource, "looped"}, {"nested", nestedSource, "nested"}} {
			for _, opt := range []string{"-O0", "-O1", "-O2", "-Os"} {
				t.Run(arch.cc+"/"+src.name+opt, func(t *testing.T) {
					needToolPkg(t, arch.cc, arch.pkg)
					needToolPkg(t, arch.objdump, "binutils")
					c := filepath.Join(dir, src.name+".c")
					if err := os.WriteFile(c, []byte(src.text), 0o644); err != nil {
						t.Fatal(err)
					}
					exe := filepath.Join(dir, arch.cc+src.name+opt)
					if b, err := exec.Command(arch.cc, "-g", opt, "-o", exe, c).CombinedOutput(); err != nil {
						t.Fatalf("%s: %v\n%s", arch.cc, err, b)
					}
					a := openNative(t, exe)
					vf := valueFlow(t, a, src.fn)
					ten := procedureNamed(t, a, "ten").Address
					listing := objdumpFunction(t, arch.objdump, exe, src.fn)
					calls := 0
					for _, e := range vf.Effects {
						if e.Kind != ports.EffectCall || !e.HasTarget || e.Target != ten {
							continue
						}
						calls++
						op := vf.Operations[slices.IndexFunc(vf.Operations, func(op ports.ValueFlowOperation) bool { return op.Address == e.Address })]
						var used []string
						for _, u := range op.Uses {
							if arch.placed.MatchString(u) {
								used = append(used, u)
							}
						}
						if len(used) != arch.words {
							t.Errorf("the call of ten at %#x uses stack words %v (all uses %v), want %d at a known place", op.Address, used, op.Uses, arch.words)
							continue
						}
						var defs []uint64
						for _, du := range vf.DefUses {
							if du.Use == op.Address && slices.Contains(used, du.Location) {
								defs = append(defs, du.Def)
							}
						}
						slices.Sort(defs)
						if want := lastWriters(listing, op.Address, arch.writer, arch.words); !slices.Equal(defs, want) {
							t.Errorf("the call of ten at %#x: its words %v are written at %#x, objdump's writers are %#x", op.Address, used, defs, want)
						}
					}
					if calls == 0 {
						t.Fatalf("%s calls ten nowhere", src.fn)
					}
				})
			}
		}
	}
}

// objdumpFunction is objdump's listing of function fn in exe: each
// instruction's address and text, in address order.
func objdumpFunction(t *testing.T, objdump, exe, fn string) []objdumpLine {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "-M", "intel", "--no-show-raw-insn", "--disassemble="+fn, exe).Output()
	if err != nil {
		// AArch64's objdump takes no -M intel
		out, err = exec.Command(objdump, "-d", "--no-show-raw-insn", "--disassemble="+fn, exe).Output()
	}
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	var lines []objdumpLine
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		addr, text, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":\t")
		a, err := strconv.ParseUint(addr, 16, 64)
		if !ok || err != nil {
			continue
		}
		text, _, _ = strings.Cut(text, "//")
		lines = append(lines, objdumpLine{a, strings.Join(strings.Fields(text), " ")})
	}
	return lines
}

type objdumpLine struct {
	addr uint64
	text string
}

// lastWriters is the addresses of the last n instructions before the call
// at call whose text matches writer, sorted.
func lastWriters(lines []objdumpLine, call uint64, writer *regexp.Regexp, n int) []uint64 {
	var got []uint64
	i := slices.IndexFunc(lines, func(l objdumpLine) bool { return l.addr == call })
	for i--; i >= 0 && len(got) < n; i-- {
		if writer.MatchString(lines[i].text) {
			got = append(got, lines[i].addr)
		}
	}
	slices.Sort(got)
	return got
}
