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

// After a variable-length array's dynamic allocation ("sub esp, eax",
// "sub rsp, rax": the stack pointer's height from the entry is lost),
// frameSource's vla still reads its parameters through the frame pointer,
// and its call of nine takes its stack words from the pushes that wrote
// them: on i386 all nine arguments, on x86-64 the last three. Before, the
// pushes wrote words named "[esp]" at no place and the call used none.
// clang moves the stack pointer from another register instead ("mov rsp,
// r11", "mov sp, x8"), which is followed the same way.
func TestValueFlowDynamicAllocation(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "frame.c")
	if err := os.WriteFile(src, []byte(frameSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cc, pkg, opt string
		target       string // clang's --target, "" for the host
		words        int
		params       []string
	}{
		{"gcc", "gcc", "-O2", "", 3, []string{"rdi", "rsi"}},
		{"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "-O2", "", 9, []string{"[esp+4]", "[esp+8]"}},
		{"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "-O0", "", 9, []string{"[esp+4]", "[esp+8]"}},
		// clang: "mov r11, rsp; sub r11, rax; mov rsp, r11" and
		// "mov x8, sp; sub x8, x8, x9; mov sp, x8"
		{"clang", "clang", "-O2", "", 3, []string{"rdi", "rsi"}},
		{"clang", "clang", "-O2", "aarch64-linux-gnu", 1, []string{"x0", "x1"}},
		// gcc AArch64: "sub sp, sp, x2" of an unknown x2
		{"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "-O2", "", 1, []string{"x0", "x1"}},
	} {
		t.Run(tc.cc+tc.target+tc.opt, func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			exe := filepath.Join(dir, tc.cc+tc.target+tc.opt)
			args := []string{"-g", "-fno-inline", tc.opt, "-o", exe, src}
			if tc.target != "" {
				needToolPkg(t, tc.target+"-gcc", "gcc-"+tc.target) // its sysroot and libraries
				args = append([]string{"--target=" + tc.target}, args...)
			}
			if b, err := exec.Command(tc.cc, args...).CombinedOutput(); err != nil {
				if tc.target != "" {
					t.Skipf("%s --target=%s does not link here: %v\n%s", tc.cc, tc.target, err, b)
				}
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			a := openNative(t, exe)
			vf := valueFlow(t, a, "vla")
			if got := paramNames(vf); !slices.Equal(got, tc.params) {
				t.Errorf("vla's parameters %v, want %v", got, tc.params)
			}
			texts := instructionTexts(t, a, "vla")
			var dyn uint64 // the allocation
			for _, op := range vf.Operations {
				if text := texts[op.Address]; dyn == 0 && (strings.HasPrefix(text, "sub esp, e") || strings.HasPrefix(text, "sub rsp, r") ||
					strings.HasPrefix(text, "mov rsp, r") && text != "mov rsp, rbp" || strings.HasPrefix(text, "mov sp, x") && text != "mov sp, x29" ||
					strings.HasPrefix(text, "sub sp, sp, x")) {
					dyn = op.Address
				}
			}
			if dyn == 0 {
				t.Fatalf("vla has no sub of a register from the stack pointer nor a move of one to it: %v", texts)
			}
			nine := procedureNamed(t, a, "nine").Address
			var call *ports.ValueFlowOperation
			for _, e := range vf.Effects {
				if e.Kind == ports.EffectCall && e.HasTarget && e.Target == nine && e.Address > dyn {
					i := slices.IndexFunc(vf.Operations, func(op ports.ValueFlowOperation) bool { return op.Address == e.Address })
					call = &vf.Operations[i]
				}
			}
			if call == nil {
				t.Fatalf("vla calls nine after %#x nowhere", dyn)
			}
			var words []string
			for _, u := range call.Uses {
				if strings.HasPrefix(u, "[") {
					words = append(words, u)
				}
			}
			if len(words) != tc.words {
				t.Errorf("the call of nine at %#x uses %d stack words %v, want %d", call.Address, len(words), words, tc.words)
			}
			for _, w := range words {
				if !slices.ContainsFunc(vf.DefUses, func(du ports.DefUse) bool {
					return du.Use == call.Address && du.Location == w && du.Def > dyn && du.Def < call.Address
				}) {
					t.Errorf("nothing between %#x and the call at %#x writes %s", dyn, call.Address, w)
				}
			}
		})
	}
}

// restoreSource ends a variable-length array's scope before a call with a
// stack argument: gcc for AArch64 saves the stack pointer before the
// allocation ("mov x9, sp") and restores it after ("mov sp, x9"), then
// stores nine's ninth argument at [sp].
const restoreSource = `
__attribute__((noinline)) long nine(long a, long b, long c, long d, long e, long f, long g, long h, long i) {
	return a + b + c + d + e + f + g * 3 + h * 5 + i * 7;
}
__attribute__((noinline)) long sum(long *p, int n) { long s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }
__attribute__((noinline)) long scoped(int n, long x) {
	long s;
	{
		long buf[n];
		for (int i = 0; i < n; i++)
			buf[i] = x + i;
		s = sum(buf, n);
	}
	return nine(s, n, x, 1, 2, 3, s, x, n) + 1;
}
int main(int argc, char **argv) { return (int)scoped(argc + 2, 5); }
`

// A move of another register into AArch64's stack pointer ("mov sp, x9",
// the restore at the end of a variable-length array's scope, spAlloc)
// starts a stack base named by it, as x86's "sub rsp, rax" does: the
// store of nine's ninth argument after it ("str x8, [sp]") writes a word
// the call then uses, with an edge from the store. Without the base the
// store wrote a word at no place and the call used none.
func TestValueFlowAArch64StackRestore(t *testing.T) {
	needToolPkg(t, "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu")
	dir := t.TempDir()
	src := filepath.Join(dir, "restore.c")
	if err := os.WriteFile(src, []byte(restoreSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"-O2", "-O0"} {
		t.Run(opt, func(t *testing.T) {
			exe := filepath.Join(dir, "restore"+opt)
			if b, err := exec.Command("aarch64-linux-gnu-gcc", "-g", "-fno-inline", opt, "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("aarch64-linux-gnu-gcc: %v\n%s", err, b)
			}
			a := openNative(t, exe)
			vf := valueFlow(t, a, "scoped")
			if got := paramNames(vf); !slices.Equal(got, []string{"x0", "x1"}) {
				t.Errorf("scoped's parameters %v, want [x0 x1]", got)
			}
			texts := instructionTexts(t, a, "scoped")
			var restore uint64
			for _, op := range vf.Operations {
				if text := texts[op.Address]; strings.HasPrefix(text, "mov sp, x") && text != "mov sp, x29" {
					restore = op.Address
				}
			}
			if restore == 0 {
				t.Fatalf("scoped moves no register but x29 into sp: %v", texts)
			}
			nine := procedureNamed(t, a, "nine").Address
			var call *ports.ValueFlowOperation
			for _, e := range vf.Effects {
				if e.Kind == ports.EffectCall && e.HasTarget && e.Target == nine && e.Address > restore {
					i := slices.IndexFunc(vf.Operations, func(op ports.ValueFlowOperation) bool { return op.Address == e.Address })
					call = &vf.Operations[i]
				}
			}
			if call == nil {
				t.Fatalf("scoped calls nine after %#x nowhere", restore)
			}
			var words []string
			for _, u := range call.Uses {
				if strings.HasPrefix(u, "[") {
					words = append(words, u)
				}
			}
			if len(words) != 1 {
				t.Fatalf("the call of nine at %#x uses stack words %v, want one", call.Address, words)
			}
			if !slices.ContainsFunc(vf.DefUses, func(du ports.DefUse) bool {
				return du.Use == call.Address && du.Location == words[0] && du.Def > restore && du.Def < call.Address
			}) {
				t.Errorf("nothing between %#x and the call at %#x writes %s", restore, call.Address, words[0])
			}
		})
	}
}

// loopRestoreSource allocates a variable-length array in a loop: gcc for
// AArch64 copies the stack pointer in the loop ("mov x20, sp"), allocates
// ("sub sp, sp, x3"), takes the array's address ("add x3, sp, #16") and
// restores the pointer at the iteration's end ("mov sp, x20"); after the
// loop, which may run no iteration, it stores ten's stack arguments at
// [sp] and [sp+8].
const loopRestoreSource = `
#include <string.h>
__attribute__((noipa)) int use(char *p, int n) { return p[0] + n; }
__attribute__((noipa)) int ten(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j) {
	return a + b + c + d + e + f + g + h + i * 3 + j * 5;
}
__attribute__((noipa)) int looped(int n, int k) {
	int local[4];
	local[0] = k; local[1] = k * 3; local[2] = n; local[3] = k + n;
	use((char *)local, 4);
	for (int i = 0; i < k; i++) {
		char buf[n + i];
		memset(buf, 1, n);
		use(buf, n);
	}
	return local[1] + ten(n, k, 1, 2, 3, 4, 5, 6, local[3], local[0]) + use((char *)local, 2);
}
int main(int argc, char **argv) { return looped(argc, 3); }
`

// A restore of a copy of the stack pointer gives back the height the copy
// was taken at, so that after a loop of variable-length arrays the height
// is the one the path around the loop has: the writes of ten's stack
// arguments after it are words at a known height, which the call uses.
// Before, the restore started a base of its own (spAlloc), the join of it
// with the path around the loop lost the height, and the call used no
// stack word.
//
// AArch64: "mov x20, sp" ... "mov sp, x20"; the stores of two stack words.
func TestValueFlowAArch64RestoreFromCopy(t *testing.T) {
	restoreFromCopy(t, "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "mov sp, x", "mov sp, x29", "[sp-", 2)
}

// x86-64: gcc copies the stack pointer in the same loop ("mov rbx, rsp" at
// -O2, "mov r12, rsp" at -O1), allocates ("sub rsp, rax") and moves the
// copy back at the iteration's end; after the loop it pushes ten's four
// stack arguments.
func TestValueFlowX86RestoreFromCopy(t *testing.T) {
	restoreFromCopy(t, "gcc", "gcc", "mov rsp, r", "mov rsp, rbp", "[rsp", 4)
}

// restoreFromCopy builds loopRestoreSource with cc at -O2 and -O1 and
// checks that the call of ten after the loop uses words (stack uses with
// prefix word) each written between the restore (an instruction starting
// with restore, not frame) and the call.
func restoreFromCopy(t *testing.T, cc, pkg, restore, frame, word string, words int) {
	t.Helper()
	needToolPkg(t, cc, pkg)
	dir := t.TempDir()
	src := filepath.Join(dir, "loop.c")
	if err := os.WriteFile(src, []byte(loopRestoreSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"-O2", "-O1"} {
		t.Run(opt, func(t *testing.T) {
			exe := filepath.Join(dir, "loop"+opt)
			if b, err := exec.Command(cc, "-g", opt, "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", cc, err, b)
			}
			a := openNative(t, exe)
			vf := valueFlow(t, a, "looped")
			texts := instructionTexts(t, a, "looped")
			var at uint64
			for _, op := range vf.Operations {
				if text := texts[op.Address]; strings.HasPrefix(text, restore) && text != frame {
					at = op.Address
				}
			}
			if at == 0 {
				t.Fatalf("looped has no %q but %q: %v", restore, frame, texts)
			}
			ten := procedureNamed(t, a, "ten").Address
			var call *ports.ValueFlowOperation
			for _, e := range vf.Effects {
				if e.Kind == ports.EffectCall && e.HasTarget && e.Target == ten {
					i := slices.IndexFunc(vf.Operations, func(op ports.ValueFlowOperation) bool { return op.Address == e.Address })
					call = &vf.Operations[i]
				}
			}
			if call == nil {
				t.Fatal("looped calls ten nowhere")
			}
			var used []string
			for _, u := range call.Uses {
				if strings.HasPrefix(u, word) {
					used = append(used, u)
				}
			}
			if len(used) != words {
				t.Fatalf("the call of ten at %#x uses stack words %v (all uses %v), want %d at a known height", call.Address, used, call.Uses, words)
			}
			for _, w := range used {
				if !slices.ContainsFunc(vf.DefUses, func(du ports.DefUse) bool {
					return du.Use == call.Address && du.Location == w && du.Def > at && du.Def < call.Address
				}) {
					t.Errorf("nothing between %#x and the call at %#x writes %s", at, call.Address, w)
				}
			}
		})
	}
}
