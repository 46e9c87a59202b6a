package native_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// frameSource calls nine, whose 7th to 9th arguments SysV passes on the
// stack (AAPCS64 its 9th), with constants whose low halves (0x4567,
// 0x5678, 0x6789) mark their writers, and printf with ten integers past
// its format (SysV's last five on the stack, AAPCS64's last three). saved
// keeps a value in a callee-saved register across its calls (gcc -O2:
// "push rbx" ... "pop rbx" with the calls' pushes between), and vla's
// frame has a variable size (gcc -O0 saves rbx with "push rbx" and
// restores it with "mov rbx, [rbp-0x8]").
const frameSource = `
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) long nine(long a, long b, long c, long d, long e, long f, long g, long h, long i) {
	return a + b + c + d + e + f + g * 3 + h * 5 + i * 7;
}
__attribute__((noinline)) long calls(long x, const char *s) {
	long r = nine(x, 2, 3, 4, 5, 6, 0x1234567, 0x2345678, 0x3456789);
	printf("%d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, (int)r);
	return r + (long)strlen(s);
}
__attribute__((noinline)) long saved(long x, long y) {
	long a = nine(x, y, x, y, x, y, x, y, x);
	long b = nine(a, x, y, a, x, y, a, x, y);
	return a * b + x * y;
}
__attribute__((noinline)) long vla(int n, long x) {
	long buf[n];
	for (int i = 0; i < n; i++)
		buf[i] = x + i;
	return nine(buf[0], n, x, 1, 2, 3, buf[n - 1], x, n);
}
int main(int argc, char **argv) {
	return (int)(calls(argc, argv[0]) + saved(argc, 3) + vla(argc + 2, 5));
}
`

// A call's stack arguments on x86-64 (SysV) and AArch64 are its uses, as
// cdecl's are: nine (DWARF) takes its 7th to 9th words on x86-64 and its
// 9th on AArch64, each reached by the instruction that wrote the constant
// passed there (a push of it, a store of it, or a store of the register a
// mov/movk set); printf takes the words its constant format places past
// the registers; strlen none.
func TestValueFlowStackArguments(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "frame.c")
	if err := os.WriteFile(src, []byte(frameSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cc, pkg string
		opt     string
		want    []string
	}{
		{"gcc", "gcc", "-O0", []string{"nine:3:dwarf", "printf:5:format", "strlen:0:libc-prototype"}},
		{"gcc", "gcc", "-O2", []string{"nine:3:dwarf", "printf:5:format", "strlen:0:libc-prototype"}},
		{"clang", "clang", "-O0", []string{"nine:3:dwarf", "printf:5:format", "strlen:0:libc-prototype"}},
		{"clang", "clang", "-O2", []string{"nine:3:dwarf", "printf:5:format", "strlen:0:libc-prototype"}},
		{"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "-O0", []string{"nine:1:dwarf", "printf:3:format", "strlen:0:libc-prototype"}},
		{"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "-O2", []string{"nine:1:dwarf", "printf:3:format", "strlen:0:libc-prototype"}},
	} {
		t.Run(tc.cc+tc.opt, func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			exe := filepath.Join(dir, tc.cc+tc.opt)
			if b, err := exec.Command(tc.cc, "-g", "-fno-inline", tc.opt, "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			a := openNative(t, exe)
			got, writers := stackCalls(t, a, "calls")
			if !slices.Equal(got, tc.want) {
				t.Errorf("calls of calls (callee:stack words:arguments source):\n got %v\nwant %v", got, tc.want)
			}
			// nine's last three arguments: the constants' writers.
			marks := []string{"4567", "5678", "6789"}
			ws := writers["nine"]
			if len(ws) < 1 {
				t.Fatalf("nine takes no stack word")
			}
			marks = marks[3-min(3, len(ws)):]
			for i, m := range marks {
				if !slices.ContainsFunc(ws[i], func(text string) bool { return strings.Contains(text, m) }) {
					t.Errorf("nine's word %d: written by %q, none with 0x...%s", len(ws)-len(marks)+i, ws[i], m)
				}
			}
			// saved's two calls of nine pass the same three (one) words.
			if got, _ := stackCalls(t, a, "saved"); len(got) != 2 || got[0] != got[1] || got[0] != tc.want[0] {
				t.Errorf("calls of saved: %v, want two of %s", got, tc.want[0])
			}
		})
	}
}

// Microsoft x64 passes the 5th and later arguments past the 32-byte home
// area ([rsp+0x20] at the call): six (DWARF) takes two words, nine five,
// each written by "mov qword [rsp+0x20], 0x1234567"; CreateFileA (called
// through its IAT slot) has no C library prototype, so its words are not
// named.
func TestValueFlowMicrosoftStackArguments(t *testing.T) {
	const cc = "x86_64-w64-mingw32-gcc"
	needToolPkg(t, cc, "gcc-mingw-w64-x86-64")
	const winSource = `
#include <windows.h>
__attribute__((noinline)) long long six(long long a, long long b, long long c, long long d, long long e, long long f) {
	return a + b * 3 + c * 5 + d * 7 + e * 11 + f * 13;
}
__attribute__((noinline)) long long nine(long long a, long long b, long long c, long long d, long long e, long long f,
	long long g, long long h, long long i) {
	return a + b + c + d + e + f + g * 3 + h * 5 + i * 7;
}
__attribute__((noinline)) long long calls(long long x, const char *s) {
	long long r = six(x, 2, 3, 4, 0x1234567, 0x2345678);
	r += nine(r, x, 3, 4, 0x1234567, 0x2345678, 0x3456789, 0x4567891, 0x5678912);
	HANDLE h = CreateFileA(s, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	return r + (long long)(h != INVALID_HANDLE_VALUE);
}
int main(int argc, char **argv) { return (int)calls(argc, argv[0]); }
`
	dir := t.TempDir()
	src := filepath.Join(dir, "win.c")
	if err := os.WriteFile(src, []byte(winSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			exe := filepath.Join(dir, "win"+opt+".exe")
			if b, err := exec.Command(cc, "-g", "-fno-inline", opt, "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", cc, err, b)
			}
			a := openNative(t, exe)
			got, writers := stackCalls(t, a, "calls")
			if want := []string{"six:2:dwarf", "nine:5:dwarf", "?:0:"}; !slices.Equal(got, want) {
				t.Errorf("calls of calls (callee:stack words:arguments source):\n got %v\nwant %v", got, want)
			}
			for callee, marks := range map[string][]string{"six": {"1234567", "2345678"}, "nine": {"1234567", "2345678", "3456789", "4567891", "5678912"}} {
				ws := writers[callee]
				for i, m := range marks {
					if i >= len(ws) || !slices.ContainsFunc(ws[i], func(text string) bool { return strings.Contains(text, m) }) {
						t.Errorf("%s's stack word %d: writers %q, none with 0x%s", callee, i, ws, m)
					}
				}
			}
		})
	}
}

// A callee-saved register's push and pop meet through their stack word
// although pushes move the stack pointer between (gcc -O2's saved: "push
// rbx" ... "pop rbx"), and a word pushed through the stack pointer and
// read back through the frame pointer is one location (gcc -O0's vla:
// "push rbx" ... "mov rbx, [rbp-0x8]").
func TestValueFlowFrameWords(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "frame.c")
	if err := os.WriteFile(src, []byte(frameSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opt, proc, restore, want string
	}{
		{"-O2", "saved", "pop", "[rsp-8]"},
		{"-O0", "vla", "mov", "[rsp-16]"}, // below push rbp
	} {
		t.Run(tc.opt+tc.proc, func(t *testing.T) {
			needToolPkg(t, "gcc", "gcc")
			exe := filepath.Join(dir, "gcc"+tc.opt)
			if b, err := exec.Command("gcc", "-g", "-fno-inline", tc.opt, "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, b)
			}
			a := openNative(t, exe)
			vf := valueFlow(t, a, tc.proc)
			texts := instructionTexts(t, a, tc.proc)
			var push, restore uint64
			for _, op := range vf.Operations {
				switch text := texts[op.Address]; {
				case text == "push rbx":
					push = op.Address
				case strings.HasPrefix(text, tc.restore+" rbx") && op.Address > push && push != 0:
					restore = op.Address
				}
			}
			if push == 0 || restore == 0 {
				t.Fatalf("%s: no push rbx and %s rbx in %v", tc.proc, tc.restore, texts)
			}
			var locs []string
			for _, du := range vf.DefUses {
				if du.Def == push && du.Use == restore {
					locs = append(locs, du.Location)
				}
			}
			if !slices.Equal(locs, []string{tc.want}) {
				t.Errorf("%s: push rbx (%#x) reaches %s (%#x) through %v, want %s", tc.proc, push, texts[restore], restore, locs, tc.want)
			}
		})
	}
}

// stackWordRE matches a stack word named by its place from the entry
// ("[rsp-72]", "[sp-64]", "[esp+4]").
var stackWordRE = regexp.MustCompile(`^\[(rsp|sp|esp)([+-]\d+)\]$`)

// stackCalls describes each call of procedure name whose callee has a
// name, or that is indirect ("?"), in order: "callee:words:source", where words is how many stack
// words the call uses, checked to be consecutive, each reached by an
// instruction of name that writes that word; writers gives, per callee
// (its last call) and word, the texts of the instructions whose values
// reach the word: its writers and the instructions defining what they
// store, two steps back.
func stackCalls(t *testing.T, a *native.Analysis, name string) ([]string, map[string][][]string) {
	t.Helper()
	procs, err := a.Procedures(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	named := map[uint64]string{}
	for _, p := range procs {
		named[p.Address] = strings.TrimPrefix(strings.TrimSuffix(p.Name, "@plt"), "__imp_")
	}
	vf := valueFlow(t, a, name)
	texts := instructionTexts(t, a, name)
	ops := map[uint64]ports.ValueFlowOperation{}
	for _, op := range vf.Operations {
		ops[op.Address] = op
	}
	into := map[uint64][]ports.DefUse{}
	for _, du := range vf.DefUses {
		into[du.Use] = append(into[du.Use], du)
	}
	var out []string
	writers := map[string][][]string{}
	for _, e := range vf.Effects {
		callee := named[e.Target]
		switch {
		case e.Kind != ports.EffectCall:
			continue
		case e.Indirect:
			callee = "?"
		case callee == "":
			continue
		}
		var words []int
		for _, u := range ops[e.Address].Uses {
			var at int
			if m := stackWordRE.FindStringSubmatch(u); m != nil {
				fmt.Sscanf(m[2], "%d", &at)
				words = append(words, at)
			}
		}
		var ws [][]string
		for i, at := range words {
			if i > 0 && at != words[i-1]+8 {
				t.Errorf("call %#x of %s: words %v are not consecutive", e.Address, callee, words)
			}
			loc := ops[e.Address].Uses[slices.IndexFunc(ops[e.Address].Uses, func(u string) bool { return stackWordRE.MatchString(u) })+i]
			var seen []string
			for _, du := range into[e.Address] {
				if du.Location != loc {
					continue
				}
				if !slices.Contains(ops[du.Def].Defs, loc) {
					t.Errorf("call %#x of %s: %s from %#x, which does not write it", e.Address, callee, loc, du.Def)
				}
				seen = append(seen, texts[du.Def])
				for _, back := range into[du.Def] {
					if back.Location[0] != '[' {
						seen = append(seen, texts[back.Def])
						for _, back2 := range into[back.Def] {
							if back2.Location[0] != '[' {
								seen = append(seen, texts[back2.Def])
							}
						}
					}
				}
			}
			if len(seen) == 0 {
				t.Errorf("call %#x of %s: nothing in %s writes %s", e.Address, callee, name, loc)
			}
			ws = append(ws, seen)
		}
		writers[callee] = ws
		out = append(out, fmt.Sprintf("%s:%d:%s", callee, len(words), e.ArgumentsSource))
	}
	return out, writers
}

// instructionTexts gives the text of each instruction of procedure name.
func instructionTexts(t *testing.T, a *native.Analysis, name string) map[uint64]string {
	t.Helper()
	procs, err := a.Procedures(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(procs, func(p ports.Procedure) bool { return p.Name == name })
	if i < 0 {
		t.Fatalf("no procedure %s", name)
	}
	d, err := a.Disassemble(t.Context(), ports.DisassembleRequest{Address: procs[i].Address, MaxInstructions: 4096})
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]string{}
	for _, in := range d.Instructions {
		if in.Address >= procs[i].Address && (procs[i].Size == 0 || in.Address < procs[i].Address+procs[i].Size) {
			out[in.Address] = in.Text
		}
	}
	return out
}
