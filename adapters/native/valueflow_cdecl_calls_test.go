package native_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

const cdeclCallsSource = `
#include <stdio.h>
#include <math.h>
__attribute__((noinline)) int add3(int a, int b, int c) { return a + b * c; }
__attribute__((noinline)) int work(int i, const char *s, double d, double e) {
	puts(s);
	printf("%d %s %f %lld\n", i, s, d, i * 3LL);
	double p = pow(d, e);
	int r = add3(i, 2, 3);
	printf(s, i);
	return r + (int)p;
}
int main(int argc, char **argv) { return work(argc, argv[0], 1.5, argc * 0.5); }
`

// The calls of work, in the order of the source, as
// "callee:stack words:arguments source": puts(s) takes one word,
// printf("%d %s %f %lld\n", i, s, d, i * 3LL) what its constant format
// places (the format, i, s, and two words each for d and the long long:
// seven),
// pow(d, e) four, add3 (DWARF) three, printf(s, i) of an unknown format its
// fixed one. mingw-w64's stdio.h and math.h define printf and pow as
// functions of the program (kept by -fno-inline), which DWARF describes.
var (
	cdeclCallsELF = []string{"puts:1:libc-prototype", "printf:7:format", "pow:4:libc-prototype", "add3:3:dwarf", "printf:1:libc-prototype"}
	cdeclCallsPE  = []string{"puts:1:libc-prototype", "printf:1:dwarf", "pow:4:dwarf", "add3:3:dwarf", "printf:1:dwarf"}
)

// A 32-bit x86 call's stack arguments are its uses: at each call of work
// whose callee's arity is exact, the words from [esp] at the call up, as
// many as the callee takes, each reached by the push or store that wrote
// it for this call (gcc -O0 and -O2 push them, -maccumulate-outgoing-args
// stores them with mov [esp+k]; mingw-w64's gcc too).
func TestValueFlowCdeclCallArguments(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "calls.c")
	if err := os.WriteFile(src, []byte(cdeclCallsSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cc, pkg string
		flags   []string
	}{
		{"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", []string{"-O0"}},
		{"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", []string{"-O2"}},
		{"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", []string{"-O2", "-maccumulate-outgoing-args"}},
		{"i686-w64-mingw32-gcc", "gcc-mingw-w64-i686", []string{"-O0"}},
		{"i686-w64-mingw32-gcc", "gcc-mingw-w64-i686", []string{"-O2"}},
	} {
		t.Run(tc.cc+strings.Join(tc.flags, ""), func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			exe := filepath.Join(dir, tc.cc+strings.Join(tc.flags, ""))
			if strings.Contains(tc.cc, "mingw") {
				exe += ".exe"
			}
			args := append(append([]string{"-g", "-fno-inline", "-fno-builtin", "-o", exe, src}, tc.flags...), "-lm")
			if b, err := exec.Command(tc.cc, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			a := openNative(t, exe)
			got := cdeclCalls(t, a, "work")
			want := cdeclCallsELF
			if strings.Contains(tc.cc, "mingw") {
				want = cdeclCallsPE
			}
			if !slices.Equal(got, want) {
				t.Errorf("calls of work (callee:stack words:arguments source):\n got %v\nwant %v", got, want)
			}
			// printf(s, i) may pass words past its format: the limitations
			// say so, naming that call alone.
			if !strings.Contains(tc.cc, "mingw") {
				vf := valueFlow(t, a, "work")
				var calls []string
				for _, l := range vf.Limitations {
					if at, ok := strings.CutPrefix(l, "The variadic calls at "); ok {
						calls = append(calls, strings.Fields(at)[0])
					}
				}
				if len(calls) != 1 || mnemonicAt(vf, parseHex(t, calls[0])) != "call" {
					t.Errorf("variadic calls without a constant format: %v, want printf(s, i)'s alone", calls)
				}
			}
		})
	}
}

// cdeclCalls describes each call of procedure name whose callee has a
// name, in order: "callee:words:source", where words is how many stack
// words the call uses, checked to be the consecutive words from its
// [esp] up, each reached by an instruction of name that writes the stack.
func cdeclCalls(t *testing.T, a *native.Analysis, name string) []string {
	t.Helper()
	procs, err := a.Procedures(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	named := map[uint64]string{}
	for _, p := range procs {
		n := strings.TrimPrefix(strings.TrimSuffix(p.Name, "@plt"), "_")
		named[p.Address] = n
	}
	i := slices.IndexFunc(procs, func(p ports.Procedure) bool { return p.Name == name || p.Name == "_"+name })
	if i < 0 {
		var all []string
		for _, p := range procs {
			all = append(all, p.Name)
		}
		t.Fatalf("no %s: %v", name, all)
	}
	p := procs[i]
	vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: p.Address})
	if err != nil {
		t.Fatal(err)
	}
	ops := map[uint64]ports.ValueFlowOperation{}
	for _, op := range vf.Operations {
		ops[op.Address] = op
	}
	var out []string
	for _, e := range vf.Effects {
		callee := named[e.Target]
		if e.Kind != ports.EffectCall || callee == "" || strings.Contains(callee, "get_pc_thunk") || strings.HasPrefix(callee, "_main") {
			continue
		}
		var words []int
		base := "esp"
		for _, u := range ops[e.Address].Uses {
			// "[esp-28]" from the entry, "[esp&-16-28]" or
			// "[(esp-8)&-16-28]" from an aligned stack pointer
			off, ok := strings.CutPrefix(u, "[esp")
			if i := strings.Index(u, "&-16"); i > 0 {
				off, base, ok = u[i+4:], u[1:i+4], true
			}
			var at int
			if _, err := fmt.Sscanf(off, "%d]", &at); ok && err == nil && !strings.HasPrefix(off, "+0x") {
				words = append(words, at)
			}
		}
		for i, at := range words {
			if i > 0 && at != words[i-1]+4 {
				t.Errorf("call 0x%x of %s: words %v are not consecutive", e.Address, callee, words)
			}
			loc := fmt.Sprintf("[%s%+d]", base, at)
			writers := 0
			for _, du := range vf.DefUses {
				if du.Use == e.Address && du.Location == loc {
					def, ok := ops[du.Def]
					if !ok || !slices.ContainsFunc(def.Defs, func(d string) bool {
						return strings.HasPrefix(d, "[esp") || strings.HasPrefix(d, "[ebp") || strings.HasPrefix(d, "[(esp")
					}) {
						t.Errorf("call 0x%x of %s: %s from 0x%x, which writes no stack word", e.Address, callee, loc, du.Def)
					}
					writers++
				}
			}
			if writers == 0 {
				t.Errorf("call 0x%x of %s: nothing in %s writes %s", e.Address, callee, name, loc)
			}
		}
		out = append(out, fmt.Sprintf("%s:%d:%s", callee, len(words), e.ArgumentsSource))
	}
	return out
}

const alignedMainSource = `
#include <stdio.h>
__attribute__((noinline)) int add3(int a, int b, int c) { return a + b * c; }
int main(int argc, char **argv) {
	int r = add3(argc, 2, 3);
	printf("%d %s\n", r, argv[0]);
	return 0;
}
`

// gcc's i686 main realigns its stack ("and esp, -16") before it pushes
// anything, so its height from the entry is lost there; its calls' words
// are placed from the aligned stack pointer instead ("[esp&-16-28]", or
// "[(esp-8)&-16-16]" when it aligns after pushing ebp and ebx), where the
// pushes and stores after the realignment write them: add3 (DWARF) takes
// three, printf its constant format's three.
func TestValueFlowCdeclAlignedMain(t *testing.T) {
	needToolPkg(t, "i686-linux-gnu-gcc", "gcc-i686-linux-gnu")
	dir := t.TempDir()
	src := filepath.Join(dir, "main.c")
	if err := os.WriteFile(src, []byte(alignedMainSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"-O0"}, {"-O2"}, {"-O2", "-maccumulate-outgoing-args"}} {
		t.Run(strings.Join(flags, ""), func(t *testing.T) {
			exe := filepath.Join(dir, "main"+strings.Join(flags, ""))
			if b, err := exec.Command("i686-linux-gnu-gcc", append([]string{"-g", "-fno-inline", "-o", exe, src}, flags...)...).CombinedOutput(); err != nil {
				t.Fatalf("i686-linux-gnu-gcc: %v\n%s", err, b)
			}
			a := openNative(t, exe)
			got := cdeclCalls(t, a, "main")
			if want := []string{"add3:3:dwarf", "printf:3:format"}; !slices.Equal(got, want) {
				t.Errorf("calls of main (callee:stack words:arguments source):\n got %v\nwant %v", got, want)
			}
			vf := valueFlow(t, a, "main")
			aligned := false
			for _, op := range vf.Operations {
				aligned = aligned || slices.ContainsFunc(op.Uses, func(u string) bool { return strings.Contains(u, "esp&-16") || strings.Contains(u, ")&-16") })
			}
			if !aligned {
				t.Errorf("no word of main is named from its aligned stack pointer")
			}
		})
	}
}

func parseHex(t *testing.T, s string) uint64 {
	t.Helper()
	var v uint64
	if _, err := fmt.Sscanf(s, "0x%x", &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

const poppingSource = `
#include <stdio.h>
__attribute__((stdcall, noinline)) int sadd(int a, int b) { return a + b * 3; }
struct big { int x[4]; };
__attribute__((noinline)) struct big mk(int a) { struct big b = {{a, a + 1, a + 2, a + 3}}; return b; }
__attribute__((noinline)) int work(int n, const char *s) {
	int r = sadd(n, 2);
	struct big b = mk(r);
	printf("%d %s\n", b.x[2], s);
	return r + b.x[1];
}
int main(int argc, char **argv) { return work(argc, argv[0]); }
`

// A callee that pops its arguments on return (stdcall's "ret 8", and
// i386 SysV's "ret 4" of one returning a struct through a hidden pointer)
// leaves its caller's stack that much higher: the words after the call are
// placed from there, so work's later call names the words its pushes
// wrote and its parameters are its own two words.
func TestValueFlowCdeclCalleePops(t *testing.T) {
	needToolPkg(t, "i686-linux-gnu-gcc", "gcc-i686-linux-gnu")
	dir := t.TempDir()
	src := filepath.Join(dir, "pop.c")
	if err := os.WriteFile(src, []byte(poppingSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cc := range [][]string{{"i686-linux-gnu-gcc"}, {"clang", "--target=i686-linux-gnu"}} {
		for _, opt := range []string{"-O0", "-O2"} {
			t.Run(cc[0]+opt, func(t *testing.T) {
				needTool(t, cc[0])
				exe := filepath.Join(dir, cc[0]+opt)
				if b, err := exec.Command(cc[0], append(cc[1:], opt, "-g", "-fno-inline", "-o", exe, src)...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc[0], err, b)
				}
				a := openNative(t, exe)
				// mk's DWARF describes no hidden pointer: no exact arity
				if got, want := cdeclCalls(t, a, "work"), []string{"sadd:2:dwarf", "mk:0:", "printf:3:format"}; !slices.Equal(got, want) {
					t.Errorf("calls of work (callee:stack words:arguments source):\n got %v\nwant %v", got, want)
				}
				vf := valueFlow(t, a, "work")
				if ps := paramNames(vf); !slices.Equal(ps, []string{"[esp+4]", "[esp+8]"}) {
					t.Errorf("parameters of work: %v", ps)
				}
			})
		}
	}
}
