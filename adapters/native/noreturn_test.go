package native_test

import (
	"context"
	"debug/dwarf"
	"debug/elf"
	"debug/pe"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// noReturnC has the cases of no-return inference. die1 and die2 are
// declared noreturn, so gcc gives them DW_AT_noreturn (the oracle); the
// noipa functions are not declared, and gcc neither infers their
// attribute nor their callers': quiet calls exit, tailq tail-jumps to
// quiet, ping and pong tail-jump to each other (mutual recursion) and call
// abort or exit on their other paths. maybe returns on one path, and spin
// loops for ever without calling anything that ends it: neither is
// inferred.
const noReturnC = `#include <stdio.h>
#include <stdlib.h>
volatile int sink;
__attribute__((noreturn, noinline)) void die1(const char *m) { fprintf(stderr, "%s\n", m); exit(2); }
__attribute__((noreturn, noinline)) void die2(int c) { sink = c; die1("two"); }
__attribute__((noinline, noipa)) void quiet(int c) { sink = c; exit(c); }
__attribute__((noinline, noipa)) void tailq(int c) { sink = c + 1; quiet(c); }
__attribute__((noinline)) int maybe(int c) { if (c > 3) die1("big"); return c + 1; }
__attribute__((noinline, noipa)) void ping(int c);
__attribute__((noinline, noipa)) void pong(int c) { if (c == 0) exit(3); sink = c; ping(c - 1); }
__attribute__((noinline, noipa)) void ping(int c) { if (c == 1) abort(); sink = c; pong(c - 1); }
__attribute__((noinline, noipa)) void spin(void) { for (;;) sink++; }
__attribute__((noinline, noipa)) int after(int c) { if (c == 4) quiet(c); if (c == 5) tailq(c); return c * 7; }
int main(int argc, char **argv) {
	if (argc == 9) spin();
	if (argc == 8) ping(argc);
	if (argc == 7) die2(argc);
	return maybe(argc) + after(argc);
}
`

// The inferred and undeclared no-return functions of noReturnC, and those
// that must not be inferred.
var (
	noReturnWant = []string{"die1", "die2", "quiet", "tailq", "ping", "pong"}
	noReturnNot  = []string{"maybe", "spin", "after", "main"}
)

// TestNoReturnInference builds noReturnC with -g for each architecture and
// checks the procedures taken not to return: every subprogram DWARF marks
// DW_AT_noreturn, and the undeclared ones above, are; maybe and spin are
// not; the stripped copy's set is the same; and after's blocks end at its
// calls of quiet and tailq with no successor.
func TestNoReturnInference(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "nr.c")
	if err := os.WriteFile(src, []byte(noReturnC), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, cc, strip string
		flags           []string
	}{
		{"x86-64", "gcc", "strip", nil},
		{"x86-64-nounwind", "gcc", "strip", []string{"-fno-asynchronous-unwind-tables", "-fno-unwind-tables"}},
		{"i386", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", nil},
		{"arm64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", nil},
		{"mingw", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			needTool(t, c.cc)
			needTool(t, c.strip)
			exe := filepath.Join(dir, c.name)
			if c.name == "mingw" {
				exe += ".exe"
			}
			if b, err := exec.Command(c.cc, append([]string{"-O2", "-g", "-o", exe, src}, c.flags...)...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.cc, err, b)
			}
			stripped := exe + ".s"
			if b, err := exec.Command(c.strip, "-o", stripped, exe).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.strip, err, b)
			}
			addrs, declared := dwarfSubprograms(t, exe)
			got := noReturnSet(t, exe)
			for _, n := range declared {
				if !got[addrs[n]] {
					t.Errorf("%s (DW_AT_noreturn, %#x) is not taken not to return", n, addrs[n])
				}
			}
			for _, n := range noReturnWant {
				if !got[addrs[n]] {
					t.Errorf("%s (%#x) is not inferred not to return", n, addrs[n])
				}
			}
			for _, n := range noReturnNot {
				if a, ok := addrs[n]; !ok || got[a] {
					t.Errorf("%s (%#x, found %v) is inferred not to return", n, a, ok)
				}
			}
			// The stripped copy: the same set, over the procedures both
			// list (a cold part is a procedure of its own without its
			// symbol, and a function only a jump reaches may be inside
			// another's range).
			gotS := noReturnSet(t, stripped)
			common := procStarts(t, exe)
			maps.DeleteFunc(common, func(a uint64, _ bool) bool { return !procStarts(t, stripped)[a] })
			in := func(m map[uint64]bool) map[uint64]bool {
				out := maps.Clone(m)
				maps.DeleteFunc(out, func(a uint64, _ bool) bool { return !common[a] })
				return out
			}
			if !mapsEqual(in(got), in(gotS)) {
				t.Errorf("stripped copy: %v, with symbols %v", keysOf(in(gotS)), keysOf(in(got)))
			}
			// after's calls of quiet and tailq end their blocks.
			for _, path := range []string{exe, stripped} {
				a := openAnalysis(t, path)
				fn, err := a.Function(context.Background(), ports.FunctionRequest{Address: addrs["after"]})
				if err != nil {
					t.Fatal(err)
				}
				ends := 0
				for _, b := range fn.Blocks {
					if len(b.Successors) == 0 {
						ends++
					}
					for _, e := range b.Successors {
						if e.Kind == ports.EdgeFallthrough && e.Target >= fn.End {
							t.Errorf("%s: after's block %#x falls through to %#x, past its end", filepath.Base(path), b.Start, e.Target)
						}
					}
				}
				if ends < 3 { // the return and the two calls
					t.Errorf("%s: after has %d blocks without successors, want 3 or more: %+v", filepath.Base(path), ends, fn.Blocks)
				}
			}
		})
	}
}

func noReturnSet(t *testing.T, path string) map[uint64]bool {
	t.Helper()
	a := openAnalysis(t, path)
	list, err := native.NoReturnStarts(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]bool{}
	for _, x := range list {
		out[x] = true
	}
	return out
}

func procStarts(t *testing.T, path string) map[uint64]bool {
	t.Helper()
	procs, err := openAnalysis(t, path).Procedures(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]bool{}
	for _, p := range procs {
		out[p.Address] = true
	}
	return out
}

func mapsEqual(a, b map[uint64]bool) bool {
	return slices.Equal(keysOf(a), keysOf(b))
}

func keysOf(m map[uint64]bool) []uint64 {
	var out []uint64
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// dwarfSubprograms reads the entry of every subprogram with code and the
// names of those with DW_AT_noreturn.
func dwarfSubprograms(t *testing.T, path string) (map[string]uint64, []string) {
	t.Helper()
	var d *dwarf.Data
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		d, err = f.DWARF()
		if err != nil {
			t.Fatal(err)
		}
	} else {
		f, err := pe.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if d, err = f.DWARF(); err != nil {
			t.Fatal(err)
		}
	}
	addrs := map[string]uint64{}
	var declared []string
	// A definition after a prototype names it through
	// DW_AT_specification, and the attribute may be on either.
	type decl struct {
		name     string
		noreturn bool
	}
	decls := map[dwarf.Offset]decl{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		if e.Tag != dwarf.TagSubprogram {
			continue
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		nr, _ := e.Val(dwarf.AttrNoreturn).(bool)
		if spec, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok {
			d := decls[spec]
			name, nr = d.name, nr || d.noreturn
		}
		decls[e.Offset] = decl{name, nr}
		low, ok := e.Val(dwarf.AttrLowpc).(uint64)
		if rs, err := d.Ranges(e); !ok && err == nil && len(rs) > 0 {
			low, ok = rs[0][0], true // a hot part and a cold one: the first is the entry's
		}
		if name == "" || !ok {
			continue
		}
		addrs[name] = low
		if nr {
			declared = append(declared, name)
		}
	}
	return addrs, declared
}

// noReturnGapC's check ends in a call of die, which gcc knows does not
// return (so nothing follows the call but padding), and hidden, after it,
// is reached only through a pointer in data.
const noReturnGapC = `#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static void die(const char *m) { fprintf(stderr, "fatal: %s\n", m); exit(2); }
__attribute__((noinline)) int check(int x) { if (x < 0) die("negative"); return x * 3; }
__attribute__((noinline)) static int hidden(int x) { return x * 5 + 1; }
int (*volatile fp)(int) = hidden;
int main(int argc, char **argv) { return check(argc) + fp(argc); }
`

// TestNoReturnExtents checks that discovery's boundaries use the inferred
// set: in a stripped build without unwind tables, the code after check's
// call of die is a function boundary, so hidden is found (from the data
// pointer) and check's range ends there rather than taking hidden in.
func TestNoReturnExtents(t *testing.T) {
	needTool(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "gap.c")
	if err := os.WriteFile(src, []byte(noReturnGapC), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "gap")
	if b, err := exec.Command("gcc", "-O2", "-fno-toplevel-reorder", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	check, hidden := elfSymbolValue(t, exe, "check"), elfSymbolValue(t, exe, "hidden")
	if b, err := exec.Command("strip", exe).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, b)
	}
	a := openAnalysis(t, exe)
	ranges, err := a.FunctionRanges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range ranges {
		if r.Start == check && r.End != hidden {
			t.Errorf("check's range %#x-%#x (%s), want it to end at hidden, %#x", r.Start, r.End, r.EndSource, hidden)
		}
		found = found || r.Start == hidden
	}
	if !found {
		t.Errorf("hidden (%#x) is not found", hidden)
	}
}

// noReturnLaterS is a program (no unwind tables, no symbol sizes) where
// ff's only path is a jump to tt, code after fa's call of die that no
// start is known at until die is inferred not to return: the first pass
// finds ff out at once (its jump lands inside fa), the rounds after it
// find tt, and the second pass must judge ff again rather than keep the
// first pass's verdict (noreturn.go's cache of out-at-once candidates).
const noReturnLaterS = `	.text
	.globl main
	.type main, @function
main:
	push %rbx
	test %edi, %edi
	je 1f
	call fa
1:	call ff
	xor %eax, %eax
	pop %rbx
	ret
	.p2align 4
die:
	mov $2, %edi
	call exit@PLT
	.p2align 4
fa:
	push %rbx
	mov %edi, %ebx
	call die
	.p2align 4
tt:
	mov $3, %edi
	call exit@PLT
	.p2align 4
ff:
	sub $8, %rsp
	jmp tt
	.section .note.GNU-stack,"",@progbits
`

func TestNoReturnLaterPassJudgesAgain(t *testing.T) {
	exe, addr := buildAsm(t, "later", noReturnLaterS)
	for _, path := range []string{exe, exe + ".s"} {
		got := noReturnSet(t, path)
		for _, n := range []string{"die", "fa", "tt", "ff"} {
			if a, ok := addr[n]; !ok || !got[a] {
				t.Errorf("%s: %s (%#x) is not taken not to return; the set is %x", filepath.Base(path), n, a, keysOf(got))
			}
		}
		if got[addr["main"]] {
			t.Errorf("%s: main is taken not to return", filepath.Base(path))
		}
	}
}

// buildAsm assembles and links src (x86-64 assembly) with gcc into NAME in
// a temporary directory, writes its stripped copy beside it (NAME.s), and
// returns the program's path and its symbols' addresses.
func buildAsm(t *testing.T, name, src string) (string, map[string]uint64) {
	t.Helper()
	needTool(t, "gcc")
	needTool(t, "strip")
	dir := t.TempDir()
	asm, exe := filepath.Join(dir, name+".s"), filepath.Join(dir, name)
	if err := os.WriteFile(asm, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("gcc", "-o", exe, asm).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	if b, err := exec.Command("strip", "-o", exe+".s", exe).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, b)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	addr := map[string]uint64{}
	for _, s := range syms {
		addr[s.Name] = s.Value
	}
	return exe, addr
}
