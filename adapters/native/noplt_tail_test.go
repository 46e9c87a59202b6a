package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"rea/ports"
)

const noPLTTailSource = `#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int say(const char *s) { return printf("%s!\n", s); }
__attribute__((noinline)) void die(int c) { fprintf(stderr, "bye %d\n", c); exit(c); }
int main(int argc, char **argv) { if (argc > 5) die(2); return say(argv[0]); }
`

// gcc -O2 -fno-plt ends say with jmp [rip+GOT(printf)] and die with call
// [rip+GOT(exit)]: the jump is a tail call to printf (a resolved reference
// to its slot and a tail-call edge there, not an unresolved transfer), and
// the call of exit ends its block with no fallthrough, as calls of their
// PLT stubs do. clang -O2 -fno-plt does the same.
func TestNoPLTTailCallAndNoReturn(t *testing.T) {
	for _, cc := range []string{"gcc", "clang"} {
		t.Run(cc, func(t *testing.T) {
			needTool(t, cc)
			dir := t.TempDir()
			src, exe := filepath.Join(dir, "tail.c"), filepath.Join(dir, "tail")
			if err := os.WriteFile(src, []byte(noPLTTailSource), 0o644); err != nil {
				t.Fatal(err)
			}
			if b, err := exec.Command(cc, "-O2", "-fno-plt", "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", cc, err, b)
			}
			a := openNative(t, exe)
			slot := map[string]uint64{}
			names, err := a.Names(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if n.Kind == "import" {
					slot[n.Name] = n.Address
				}
			}
			if slot["printf"] == 0 || slot["exit"] == 0 {
				t.Fatalf("no GOT slots named printf and exit: %v", slot)
			}

			say := procedureNamed(t, a, "say")
			refs, err := a.ReferencesFrom(t.Context(), say.Address, say.Address+64)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(refs, func(r ports.Reference) bool {
				return r.Kind == ports.RefJump && !r.Unresolved && r.To == slot["printf"] && r.Slot == slot["printf"]
			}) {
				t.Errorf("say: no resolved jump to printf's slot %#x in %+v", slot["printf"], refs)
			}
			fn, err := a.Function(t.Context(), ports.FunctionRequest{Address: say.Address})
			if err != nil {
				t.Fatal(err)
			}
			last := fn.Blocks[len(fn.Blocks)-1]
			if !slices.Equal(last.Successors, []ports.Edge{{Kind: ports.EdgeTailCall, Target: slot["printf"]}}) {
				t.Errorf("say's last block: %+v", last.Successors)
			}

			die := procedureNamed(t, a, "die")
			fn, err = a.Function(t.Context(), ports.FunctionRequest{Address: die.Address})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(fn.Blocks); n == 0 || len(fn.Blocks[n-1].Successors) != 0 {
				t.Errorf("die's last block (the call of exit) has successors: %+v", fn.Blocks)
			}
		})
	}
}
