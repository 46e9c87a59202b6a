package native_test

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// armSwitch is one switch function of armSwitchSource: each case k calls
// its own f_k.
type armSwitch struct {
	name  string
	ks    []int
	holes bool // some entries go to the default or elsewhere (no f_k)
	table bool // every compiler here dispatches it through a table
	// only names the builds whose dispatch is recovered, when not all:
	// the others set the table's address where the path back from the br
	// is not followed (before a loop head a b enters).
	only []string
}

// armSwitchSource generates the C of the AArch64 switch fixtures: dense
// cases 0..11, offset cases 100..140 (step 2, with holes), a char switch,
// a 300-case switch (halfword entries), one whose case 3 is 40000
// instructions long (word entries), a loop whose continue cases go
// back to the loop's head (entries at or before the dispatch's label),
// one whose default is 700 instructions long (the b.ls that far from the
// dispatch), and a loop that sets the table's address before its head.
func armSwitchSource() (string, []armSwitch) {
	var b, fs strings.Builder
	fs.WriteString("#define N __attribute__((noinline, visibility(\"hidden\")))\nvolatile int sink;\n")
	next := 0
	var sws []armSwitch
	deflt := "return 0;"
	sw := func(name, param, pre string, holes, table bool, cases []string, body func(i, k int) string) {
		s := armSwitch{name: name, holes: holes, table: table}
		fmt.Fprintf(&b, "N int %s(%s) {\n%s\tswitch (x) {\n", name, param, pre)
		for i, c := range cases {
			k := next
			next++
			s.ks = append(s.ks, k)
			fmt.Fprintf(&fs, "N void f_%d(void) { sink = %d; }\n", k, k)
			fmt.Fprintf(&b, "\tcase %s: %s\n", c, body(i, k))
		}
		fmt.Fprintf(&b, "\tdefault: %s\n\t}\n}\n", deflt)
		sws = append(sws, s)
	}
	ret := func(i, k int) string { return fmt.Sprintf("f_%d(); return %d;", k, i%7+1) }
	ints := func(from, to, step int) []string {
		var out []string
		for i := from; i <= to; i += step {
			out = append(out, strconv.Itoa(i))
		}
		return out
	}
	sw("sw_dense", "int x", "", false, true, ints(0, 11, 1), ret)
	sw("sw_offset", "int x", "", true, true, ints(100, 140, 2), ret)
	var chars []string
	for _, c := range "abcdeghijklmn" {
		chars = append(chars, "'"+string(c)+"'")
	}
	sw("sw_char", "char x", "", true, true, chars, ret)
	sw("sw_large", "unsigned x", "", false, true, ints(0, 299, 1), ret)
	// gcc sizes an asm by its lines, clang gives up on compressing a
	// table whose blocks hold one (and compiles 40000 lines slowly).
	long := "\n#ifdef __clang__\nasm volatile(\"nop\");\n#else\nasm volatile(\"" + strings.Repeat(`nop\n`, 40000) + "\");\n#endif\n"
	sw("sw_word", "int x", "", false, true, ints(0, 12, 1), func(i, k int) string {
		if i == 3 {
			return fmt.Sprintf("f_%d(); %s return 4;", k, long)
		}
		return ret(i, k)
	})
	// sw_loop's switch is inside a loop: x is the next byte.
	b.WriteString("N int sw_loop(const unsigned char *s) {\n\tint n = 0;\n\tfor (;;) {\n\t\tunsigned x = *s++;\n\t\tswitch (x) {\n\t\tcase 0: return n;\n")
	loop := armSwitch{name: "sw_loop", holes: true}
	for c := 1; c <= 9; c++ {
		if c%4 == 2 {
			fmt.Fprintf(&b, "\t\tcase %d: continue;\n", c)
			continue
		}
		k := next
		next++
		loop.ks = append(loop.ks, k)
		fmt.Fprintf(&fs, "N void f_%d(void) { sink = %d; }\n", k, k)
		fmt.Fprintf(&b, "\t\tcase %d: f_%d(); n += %d; break;\n", c, k, c)
	}
	b.WriteString("\t\tdefault: n *= 2;\n\t\t}\n\t\tn += 7;\n\t}\n}\n")
	sws = append(sws, loop)
	// sw_far's default is 700 instructions long: gcc -O2 puts it between
	// the bound's b.ls and the dispatch (as glibc's vfscanf does).
	deflt = "asm volatile(\"" + strings.Repeat(`nop\n`, 700) + "\"); return 0;"
	sw("sw_far", "int x", "", false, true, ints(0, 11, 1), ret)
	// sw_hoist's table address is set before its loop, whose b.ls jumps
	// out of it to the dispatch at gcc -O2 (as glibc's setlocale does).
	b.WriteString("N int sw_hoist(const unsigned *p, int n, int k) {\n\tint s = 0;\n\tfor (int i = 0; i < n; i++) {\n\t\tif (p[i] > 100) { s--; continue; }\n\t\tswitch (k + i) {\n")
	hoist := armSwitch{name: "sw_hoist", table: true, only: []string{"gcc-O2", "gcc-O2-nopie", "gcc-O3", "gcc-O3-nopie", "gcc-O2-shared"}}
	for c := 0; c <= 11; c++ {
		k := next
		next++
		hoist.ks = append(hoist.ks, k)
		fmt.Fprintf(&fs, "N void f_%d(void) { sink = %d; }\n", k, k)
		fmt.Fprintf(&b, "\t\tcase %d: f_%d(); s += %d; break;\n", c, k, c%5+1)
	}
	b.WriteString("\t\tdefault: s *= 3;\n\t\t}\n\t}\n\treturn s;\n}\n")
	sws = append(sws, hoist)
	b.WriteString("int main(int argc, char **argv) {\n\treturn sw_dense(argc) + sw_offset(argc) + sw_char(argv[0][0]) + sw_large(argc) + sw_word(argc) + sw_loop((const unsigned char *)argv[0]) + sw_far(argc) + sw_hoist((const unsigned *)argv[0], argc, argc);\n}\n")
	return fs.String() + b.String(), sws
}

// armSwitchBuild is one compiler and set of flags.
type armSwitchBuild struct {
	name, cc string
	flags    []string
}

func armSwitchBuilds() []armSwitchBuild {
	var out []armSwitchBuild
	for _, o := range []string{"-O1", "-O2", "-O3", "-Os"} {
		out = append(out, armSwitchBuild{"gcc" + o, "aarch64-linux-gnu-gcc", []string{o}},
			armSwitchBuild{"gcc" + o + "-nopie", "aarch64-linux-gnu-gcc", []string{o, "-fno-PIE", "-no-pie"}})
	}
	out = append(out, armSwitchBuild{"gcc-O2-shared", "aarch64-linux-gnu-gcc", []string{"-O2", "-fPIC", "-shared"}})
	for _, o := range []string{"-O2", "-Os"} {
		out = append(out, armSwitchBuild{"clang" + o, "clang", []string{"--target=aarch64-linux-gnu", o}})
	}
	out = append(out, armSwitchBuild{"clang-O2-shared", "clang", []string{"--target=aarch64-linux-gnu", "-O2", "-fPIC", "-shared"}})
	return out
}

// buildArmSwitches compiles the source with b, without unwind tables (so
// that a stripped copy gives discovery no function starts but the entry
// point's and the calls'), and strips a copy. It returns both paths.
func buildArmSwitches(t *testing.T, dir, src string, b armSwitchBuild) (string, string) {
	t.Helper()
	out := filepath.Join(dir, b.name)
	args := append(append([]string{}, b.flags...), "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-o", out, src)
	if msg, err := exec.Command(b.cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", b.cc, args, err, msg)
	}
	stripped := out + "-stripped"
	if msg, err := exec.Command("aarch64-linux-gnu-strip", "-o", stripped, out).CombinedOutput(); err != nil {
		t.Fatalf("strip %s: %v\n%s", out, err, msg)
	}
	return out, stripped
}

// armOracle is what objdump shows of one function: its indirect jumps and
// its calls to f_k (call site to k).
type armOracle struct {
	brs   []uint64
	calls map[uint64]int
}

var (
	armDumpFunc = regexp.MustCompile(`^([0-9a-f]+) <([^>]+)>:$`)
	armDumpInsn = regexp.MustCompile(`^\s+([0-9a-f]+):\t(\S+)(?:\t(.*))?$`)
	armDumpCall = regexp.MustCompile(`^[0-9a-f]+ <f_(\d+)>$`)
)

// armSwitchOracle reads the switch functions' jumps and calls from
// aarch64-linux-gnu-objdump, without rea.
func armSwitchOracle(t *testing.T, path string) map[string]*armOracle {
	t.Helper()
	text, err := exec.Command("aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatalf("objdump %s: %v", path, err)
	}
	out := map[string]*armOracle{}
	var cur *armOracle
	for _, line := range strings.Split(string(text), "\n") {
		if m := armDumpFunc.FindStringSubmatch(line); m != nil {
			cur = nil
			if strings.HasPrefix(m[2], "sw_") && !strings.Contains(m[2], "@") {
				cur = &armOracle{calls: map[uint64]int{}}
				out[m[2]] = cur
			}
			continue
		}
		m := armDumpInsn.FindStringSubmatch(line)
		if cur == nil || m == nil {
			continue
		}
		at, _ := strconv.ParseUint(m[1], 16, 64)
		switch m[2] {
		case "br":
			cur.brs = append(cur.brs, at)
		case "bl":
			if c := armDumpCall.FindStringSubmatch(strings.TrimSpace(m[3])); c != nil {
				k, _ := strconv.Atoi(c[1])
				cur.calls[at] = k
			}
		}
	}
	return out
}

// TestAArch64SwitchTables: the jump tables gcc (-O1/-O2/-O3/-Os, PIE,
// -no-pie, -fPIC -shared) and clang (-O2/-Os, and -shared) emit for
// AArch64 switches (byte, halfword and word entries, signed and not,
// scaled and not, a bound through b.hi or b.ls, near or 700 instructions
// away, the table's address set before a loop) are recovered: every
// "br" objdump shows in a switch function ends a block whose successors
// are jump-table edges, every f_k is called from a block a table edge
// reaches, and without holes those blocks are exactly the targets. In a
// stripped copy, no procedure starts inside a switch function, and its
// callees are every f_k.
func TestAArch64SwitchTables(t *testing.T) {
	for tool, pkg := range map[string]string{"aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu",
		"aarch64-linux-gnu-objdump": "binutils-aarch64-linux-gnu", "aarch64-linux-gnu-strip": "binutils-aarch64-linux-gnu"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: apt install %s", tool, pkg)
		}
	}
	dir := t.TempDir()
	text, sws := armSwitchSource()
	src := filepath.Join(dir, "sw.c")
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range armSwitchBuilds() {
		t.Run(b.name, func(t *testing.T) {
			if _, err := exec.LookPath(b.cc); err != nil {
				t.Skipf("%s not found: apt install clang", b.cc)
			}
			path, stripped := buildArmSwitches(t, dir, src, b)
			oracle := armSwitchOracle(t, path)
			syms := elfFuncs(t, path)
			var here []armSwitch
			for _, s := range sws {
				if s.only == nil || slices.Contains(s.only, b.name) {
					here = append(here, s)
				}
			}
			checkArmSwitchCFG(t, path, here, oracle, syms)
			checkArmSwitchStripped(t, stripped, here, syms)
		})
	}
}

// elfFuncs returns the function symbols of path by name.
func elfFuncs(t *testing.T, path string) map[string]elf.Symbol {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	list, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]elf.Symbol{}
	for _, s := range list {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			out[s.Name] = s
		}
	}
	return out
}

func checkArmSwitchCFG(t *testing.T, path string, sws []armSwitch, oracle map[string]*armOracle, syms map[string]elf.Symbol) {
	a := openAnalysis(t, path)
	for _, s := range sws {
		t.Run(s.name, func(t *testing.T) {
			is := is.New(t)
			o := oracle[s.name]
			is.True(o != nil) // objdump shows the function
			if s.table {
				is.True(len(o.brs) > 0) // the compiler dispatched through a table
			}
			f, err := a.Function(context.Background(), ports.FunctionRequest{Address: syms[s.name].Value})
			is.NoErr(err)
			starts := map[uint64]bool{}
			var targets []uint64
			for _, blk := range f.Blocks {
				starts[blk.Start] = true
				if !slices.Contains(o.brs, blk.End-4) {
					continue
				}
				is.True(len(blk.Successors) > 0) // the br's block has the table's edges
				for _, e := range blk.Successors {
					if e.Kind != ports.EdgeJumpTable {
						t.Fatalf("br at 0x%x: edge %s to 0x%x, want only jump-table edges", blk.End-4, e.Kind, e.Target)
					}
					targets = append(targets, e.Target)
				}
			}
			slices.Sort(targets)
			targets = slices.Compact(targets)
			if len(o.brs) == 0 {
				return
			}
			for _, tg := range targets {
				is.True(starts[tg]) // a table target starts a block
			}
			// The blocks calling f_k, which objdump's call sites lie in.
			var callers []uint64
			for at, k := range o.calls {
				if !slices.Contains(s.ks, k) {
					t.Fatalf("%s calls f_%d, not one of its own", s.name, k)
				}
				i := slices.IndexFunc(f.Blocks, func(blk ports.BasicBlock) bool { return at >= blk.Start && at < blk.End })
				is.True(i >= 0) // the call is in a block
				if !slices.Contains(targets, f.Blocks[i].Start) {
					t.Errorf("call to f_%d at 0x%x is in block 0x%x, which no table edge reaches (targets %x)", k, at, f.Blocks[i].Start, targets)
				}
				callers = append(callers, f.Blocks[i].Start)
			}
			is.Equal(len(o.calls), len(s.ks)) // every case calls its f_k once
			slices.Sort(callers)
			callers = slices.Compact(callers)
			if !s.holes {
				is.Equal(targets, callers) // the table's targets are exactly the cases
			} else {
				is.True(len(targets) <= len(callers)+2) // the cases, the default, the loop's head
			}
		})
	}
}

func checkArmSwitchStripped(t *testing.T, path string, sws []armSwitch, syms map[string]elf.Symbol) {
	a := openAnalysis(t, path)
	ctx := context.Background()
	procs, err := a.Procedures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ranges, err := a.FunctionRanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sws {
		t.Run(s.name+"-stripped", func(t *testing.T) {
			is := is.New(t)
			sym := syms[s.name]
			for _, p := range procs {
				if p.Address > sym.Value && p.Address < sym.Value+sym.Size {
					t.Errorf("procedure %s at 0x%x starts inside %s [0x%x, 0x%x)", p.Name, p.Address, s.name, sym.Value, sym.Value+sym.Size)
				}
			}
			i := slices.IndexFunc(ranges, func(r ports.FunctionRange) bool { return r.Start == sym.Value })
			is.True(i >= 0) // the switch function is a procedure
			refs, err := a.ReferencesFrom(ctx, ranges[i].Start, ranges[i].End)
			is.NoErr(err)
			called := map[uint64]bool{}
			for _, r := range refs {
				if r.Kind == ports.RefCall && !r.Unresolved {
					called[r.To] = true
				}
			}
			for _, k := range s.ks {
				if f := syms["f_"+strconv.Itoa(k)]; !called[f.Value] {
					t.Errorf("callees of %s miss f_%d (0x%x)", s.name, k, f.Value)
				}
			}
		})
	}
}

// goSwitchProgram is a switch Go compiles to a table of absolute
// addresses on arm64 (cmp; b.hi; adrp/add; ldr x, [t, x, lsl #3]; br).
const goSwitchProgram = `package main

import "os"

//go:noinline
func f(k int) { os.Stdout.Write([]byte{byte(k)}) }

//go:noinline
func sw(x int) int {
	switch x {
	case 0: f(10); return 1
	case 1: f(11); return 2
	case 2: f(12); return 3
	case 3: f(13); return 4
	case 4: f(14); return 5
	case 5: f(15); return 6
	case 6: f(16); return 7
	case 7: f(17); return 8
	case 8: f(18); return 9
	case 9: f(19); return 10
	}
	return 0
}

func main() { os.Exit(sw(len(os.Args))) }
`

// TestAArch64GoSwitchTable: Go's arm64 jump table (absolute entries) is
// recovered: main.sw's br has ten jump-table edges, each to a block that
// calls main.f.
func TestAArch64GoSwitchTable(t *testing.T) {
	is := is.New(t)
	if testing.Short() {
		t.Skip("a Go cross-compile; skipped with -short")
	}
	needTool(t, "go")
	dir := t.TempDir()
	for name, text := range map[string]string{"main.go": goSwitchProgram, "go.mod": "module sw\n\ngo 1.22\n"} {
		is.NoErr(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	out := filepath.Join(dir, "sw")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	syms := elfFuncs(t, out)
	a := openAnalysis(t, out)
	ctx := context.Background()
	fn, err := a.Function(ctx, ports.FunctionRequest{Address: syms["main.sw"].Value})
	is.NoErr(err)
	var targets []uint64
	for _, blk := range fn.Blocks {
		for _, e := range blk.Successors {
			if e.Kind == ports.EdgeJumpTable {
				targets = append(targets, e.Target)
			}
		}
	}
	is.Equal(len(targets), 10) // one edge per case
	for _, tg := range targets {
		i := slices.IndexFunc(fn.Blocks, func(b ports.BasicBlock) bool { return b.Start == tg })
		is.True(i >= 0) // a case starts a block
		refs, err := a.ReferencesFrom(ctx, fn.Blocks[i].Start, fn.Blocks[i].End)
		is.NoErr(err)
		is.True(slices.ContainsFunc(refs, func(r ports.Reference) bool {
			return r.Kind == ports.RefCall && r.To == syms["main.f"].Value
		})) // the case calls main.f
	}
}
