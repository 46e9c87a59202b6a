package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"rea/ports"
)

// manyTakenSource takes the addresses of 18 locals (more than the 16
// frame slots value flow once remembered as taken) before two nested
// variable-length arrays' scopes, which gcc -Os leaves by restoring a
// spilled copy of the stack pointer ("mov rsp, [rbp-0x..]").
const manyTakenSource = `
#include <string.h>
__attribute__((noipa)) int use(char *p, int n) { return p[0] + n; }
__attribute__((noipa)) void sink(int *p) { *p += 1; }
__attribute__((noipa)) int ten(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j) {
	return a + b + c + d + e + f + g + h + i * 3 + j * 5;
}
__attribute__((noipa)) int many(int n, int k) {
	int v0 = n, v1 = k, v2 = 2, v3 = 3, v4 = 4, v5 = 5, v6 = 6, v7 = 7, v8 = 8, v9 = 9, v10 = 10, v11 = 11, v12 = 12, v13 = 13, v14 = 14, v15 = 15, v16 = 16, v17 = 17;
	sink(&v0); sink(&v1); sink(&v2); sink(&v3); sink(&v4); sink(&v5); sink(&v6); sink(&v7); sink(&v8);
	sink(&v9); sink(&v10); sink(&v11); sink(&v12); sink(&v13); sink(&v14); sink(&v15); sink(&v16); sink(&v17);
	int r = v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v10 + v11 + v12 + v13 + v14 + v15 + v16 + v17;
	for (int i = 0; i < k; i++) {
		char outer[n + i];
		memset(outer, 1, n);
		for (int j = 0; j < n; j++) {
			char inner[k + j];
			memset(inner, 2, k);
			r += use(inner, j) + use(outer, i);
		}
		r += ten(n, k, 1, 2, 3, 4, 5, 6, r, v3);
	}
	return r;
}
int main(int argc, char **argv) { return many(argc, 3); }
`

// TestValueFlowSpillKeptPastManyTakenSlots: with 18 frame slots' addresses
// taken, the spilled copy of the stack pointer still restores the height
// at the end of a VLA's scope, so the call of ten after it uses its four
// stack words at a known place. Before, past 16 taken slots every slot
// counted as taken, a call (memset, use) could write any, the spilled
// copy was dropped, and gcc -Os's call of ten used no placed stack word.
func TestValueFlowSpillKeptPastManyTakenSlots(t *testing.T) {
	needTool(t, "gcc")
	dir := t.TempDir()
	c := filepath.Join(dir, "many.c")
	if err := os.WriteFile(c, []byte(manyTakenSource), 0o644); err != nil {
		t.Fatal(err)
	}
	placed := regexp.MustCompile(`^\[rsp(@0x[0-9a-f]+)?[-+]\d+\]$`)
	for _, opt := range []string{"-O1", "-O2", "-Os"} {
		t.Run(opt, func(t *testing.T) {
			exe := filepath.Join(dir, "many"+opt)
			if b, err := exec.Command("gcc", "-g", opt, "-o", exe, c).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, b)
			}
			a := openNative(t, exe)
			vf := valueFlow(t, a, "many")
			ten := procedureNamed(t, a, "ten").Address
			calls := 0
			for _, e := range vf.Effects {
				if e.Kind != ports.EffectCall || !e.HasTarget || e.Target != ten {
					continue
				}
				calls++
				op := vf.Operations[slices.IndexFunc(vf.Operations, func(op ports.ValueFlowOperation) bool { return op.Address == e.Address })]
				n := 0
				for _, u := range op.Uses {
					if placed.MatchString(u) {
						n++
					}
				}
				if n != 4 {
					t.Errorf("the call of ten at %#x uses %d stack words at a known place (uses %v), want 4", op.Address, n, op.Uses)
				}
			}
			if calls == 0 {
				t.Fatal("many calls ten nowhere")
			}
		})
	}
}
