package native_test

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"rea/ports"
)

// noReturnWrapC calls exit through a declaration without the noreturn
// attribute, so gcc -O2 keeps what follows the call: die (its own
// translation unit, built without sibling calls) is "call puts; mov edi,
// 2; call exit; add rsp, 8; ret", fail (noinline, in this one) "call
// exit; mov eax, 1; pop rbx; ret", as objdump -d shows them. check and
// check2 call them on one path and fall through after the call, into code
// that only a return of the wrapper would reach.
const noReturnWrapC = `#include <stdio.h>
extern void my_exit(int) __asm__("exit");
extern void die(const char *m);
__attribute__((noinline)) int fail(int c) { puts("fail"); my_exit(c); return 1; }
__attribute__((noinline)) int check(int x) { if (x > 5) die("too big"); return x * 3; }
__attribute__((noinline)) int check2(int x) { if (x > 6) return fail(x) + x; return x * 5; }
int main(int argc, char **argv) { printf("%d %d\n", check(argc), check2(argc)); return 0; }
`

const noReturnDieC = `#include <stdio.h>
extern void my_exit(int) __asm__("exit");
void die(const char *m) { puts(m); my_exit(2); }
`

// A wrapper whose body calls a no-return import and then returns, the
// return unreachable (the wrapper was compiled without the attribute), is
// inferred not to return, and its callers' blocks end at their calls of
// it. Before, the return in its range kept it from being a candidate.
func TestNoReturnWrapperDeadReturn(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"w.c": noReturnWrapC, "d.c": noReturnDieC} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ name, cc, strip string }{
		{"x86-64", "gcc", "strip"},
		{"arm64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip"},
		{"i386", "i686-linux-gnu-gcc", "i686-linux-gnu-strip"},
	} {
		t.Run(c.name, func(t *testing.T) {
			needTool(t, c.cc)
			needTool(t, c.strip)
			obj, exe := filepath.Join(dir, c.name+"-d.o"), filepath.Join(dir, c.name)
			for _, args := range [][]string{
				{"-O2", "-fno-optimize-sibling-calls", "-c", "-o", obj, filepath.Join(dir, "d.c")},
				{"-O2", "-o", exe, filepath.Join(dir, "w.c"), obj},
				{"-o", exe + ".s", exe},
			} {
				tool := c.cc
				if args[0] == "-o" && args[1] == exe+".s" {
					tool = c.strip
				}
				if b, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
					t.Fatalf("%s %v: %v\n%s", tool, args, err, b)
				}
			}
			syms := symbolAddrs(t, exe)
			for _, path := range []string{exe, exe + ".s"} {
				nr := noReturnSet(t, path)
				for _, w := range []string{"die", "fail"} {
					if !nr[syms[w]] {
						t.Errorf("%s: %s (%#x) is not inferred not to return", filepath.Base(path), w, syms[w])
					}
				}
				for _, n := range []string{"check", "check2", "main"} {
					if nr[syms[n]] {
						t.Errorf("%s: %s (%#x) is inferred not to return", filepath.Base(path), n, syms[n])
					}
				}
				a := openAnalysis(t, path)
				for caller, callee := range map[string]string{"check": "die", "check2": "fail"} {
					fn, err := a.Function(context.Background(), ports.FunctionRequest{Address: syms[caller]})
					if err != nil {
						t.Fatal(err)
					}
					i := slices.IndexFunc(fn.Instructions, func(in ports.Instruction) bool {
						return in.Flow == ports.FlowCall && in.HasTarget && in.Target == syms[callee]
					})
					if i < 0 {
						t.Fatalf("%s: %s has no call of %s (%#x)", filepath.Base(path), caller, callee, syms[callee])
					}
					call := fn.Instructions[i]
					after := call.Address + uint64(len(call.Bytes))
					for _, b := range fn.Blocks {
						if b.Start <= call.Address && call.Address < b.End && (b.End != after || len(b.Successors) > 0) {
							t.Errorf("%s: %s's block [%#x, %#x) goes on past its call of %s at %#x: %+v",
								filepath.Base(path), caller, b.Start, b.End, callee, call.Address, b.Successors)
						}
					}
				}
			}
		})
	}
}

// symbolAddrs reads the function symbols of an ELF file.
func symbolAddrs(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			out[s.Name] = s.Value
		}
	}
	return out
}
