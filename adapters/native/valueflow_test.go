package native_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

var registerVF sync.Once

// vfFixtures registers testdata/valueflow.c built at -O0 and -O2.
func vfFixtures() {
	registerVF.Do(func() {
		fixtures["vf-O0"] = cFixture("vf-O0", "valueflow.c", "-O0")
		fixtures["vf-O2"] = cFixture("vf-O2", "valueflow.c", "-O2")
		fixtures["vf-O0-cet"] = cFixture("vf-O0-cet", "valueflow.c", "-O0", "-fcf-protection=full")
		fixtures["vf-O0-g"] = cFixture("vf-O0-g", "valueflow.c", "-O0", "-g")
		fixtures["vf-O2-g"] = cFixture("vf-O2-g", "valueflow.c", "-O2", "-g")
		// The generated program for AArch64, whose functions read no
		// stack words. (At -O2 a switch's value, x & 15 in w2, reaches
		// the cases' calls as if it were their third argument, so x1
		// looks passed through: not compared yet.)
		fixtures["a64-gen-O0-g"] = genFixture("a64-gen-O0-g", "-O0", "-g")
	})
}

func valueFlow(t *testing.T, a *native.Analysis, name string) ports.ValueFlow {
	t.Helper()
	p := procedureNamed(t, a, name)
	vf, err := a.ValueFlow(context.Background(), ports.FunctionRequest{Address: p.Address})
	if err != nil {
		t.Fatal(err)
	}
	return vf
}

func paramNames(vf ports.ValueFlow) []string {
	var out []string
	for _, p := range vf.Parameters {
		out = append(out, p.Location)
	}
	return out
}

func mnemonicAt(vf ports.ValueFlow, addr uint64) string {
	for _, op := range vf.Operations {
		if op.Address == addr {
			return op.Mnemonic
		}
	}
	return ""
}

// reaches reports whether a chain of def-use edges leads from a use of the
// parameter reg's entry value to an instruction whose mnemonic is want.
func reaches(vf ports.ValueFlow, reg, want string) bool {
	var work []uint64
	seen := map[uint64]bool{}
	for _, u := range vf.ParameterUses {
		if u.Location == reg {
			work = append(work, u.Address)
		}
	}
	for len(work) > 0 {
		at := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[at] {
			continue
		}
		seen[at] = true
		if mnemonicAt(vf, at) == want {
			return true
		}
		for _, e := range vf.DefUses {
			if e.Def == at {
				work = append(work, e.Use)
			}
		}
	}
	return false
}

// TestValueFlowParameters: gcc at -O0 (parameters spilled to the frame and
// reloaded) and -O2 (used in registers) give the same inferred parameters,
// and each parameter's entry value flows into the addition.
func TestValueFlowParameters(t *testing.T) {
	vfFixtures()
	for _, name := range []string{"vf-O0", "vf-O2", "vf-O0-cet", "clang-vf-O0-g", "clang-vf-O2-g"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a := openAnalysis(t, fixturePath(t, name))
			vf := valueFlow(t, a, "add3")
			is.Equal(vf.CallingConvention, "sysv-amd64")
			is.Equal(paramNames(vf), []string{"rdi", "rsi", "rdx"})
			is.True(!vf.Truncated)
			for _, r := range []string{"rdi", "rsi", "rdx"} {
				is.True(reaches(vf, r, "add") || reaches(vf, r, "lea")) // the entry value reaches the sum
			}
			var ret *ports.ValueFlowEffect
			for k := range vf.Effects {
				if vf.Effects[k].Kind == ports.EffectReturn {
					ret = &vf.Effects[k]
				}
			}
			is.True(ret != nil)
			is.Equal(ret.Location, "rax")
			is.True(len(ret.Definitions) > 0) // the sum reaches the return
			for _, e := range vf.Effects {
				is.True(e.Kind != ports.EffectMemoryWrite) // spills to the frame are not effects
			}

			is.Equal(len(valueFlow(t, a, "leaf_noargs").Parameters), 0)

			st := valueFlow(t, a, "store_through")
			is.Equal(paramNames(st), []string{"rdi", "rsi"})
			var writes []ports.ValueFlowEffect
			for _, e := range st.Effects {
				if e.Kind == ports.EffectMemoryWrite {
					writes = append(writes, e)
				}
			}
			is.Equal(len(writes), 1)
			is.True(!writes[0].HasTarget)
			is.True(len(writes[0].Location) > 2 && writes[0].Location[0] == '[') // [rdi] at -O2, [rax] after a reload at -O0

			bump := valueFlow(t, a, "bump")
			is.Equal(len(bump.Parameters), 0)
			var global []ports.ValueFlowEffect
			for _, e := range bump.Effects {
				if e.Kind == ports.EffectMemoryWrite && e.HasTarget {
					global = append(global, e)
				}
			}
			is.Equal(len(global), 1) // counter, at its absolute address
			counter := procedureOrName(t, a, "counter")
			is.Equal(global[0].Target, counter)

			// add3(x, 2, 3): x passes through in rdi, so calls_add3 has one
			// parameter; the constants reach the call as argument uses.
			ca := valueFlow(t, a, "calls_add3")
			is.Equal(paramNames(ca), []string{"rdi"})
			add3 := procedureNamed(t, a, "add3").Address
			var call *ports.ValueFlowEffect
			for k := range ca.Effects {
				if ca.Effects[k].Kind == ports.EffectCall && ca.Effects[k].Target == add3 {
					call = &ca.Effects[k]
				}
			}
			is.True(call != nil)
			is.True(!call.Indirect)
			argDefs := 0
			for _, e := range ca.DefUses {
				if e.Use == call.Address && (e.Location == "rsi" || e.Location == "rdx") {
					argDefs++
				}
			}
			is.True(argDefs >= 2)
			// The call clobbers rax; the product's rax comes from it.
			var mulFromCall bool
			for _, e := range ca.DefUses {
				if e.Def == call.Address && e.Location == "rax" {
					mulFromCall = true
				}
			}
			is.True(mulFromCall)

			sc := valueFlow(t, a, "scale")
			is.Equal(paramNames(sc), []string{"rdi", "xmm0"})

			// Operations cover every instruction, sorted, registers by full name.
			f, err := a.Function(context.Background(), ports.FunctionRequest{Address: procedureNamed(t, a, "add3").Address})
			is.NoErr(err)
			is.Equal(len(vf.Operations), f.InstructionCount)
			is.True(slices.IsSortedFunc(vf.Operations, func(x, y ports.ValueFlowOperation) int { return int(x.Address) - int(y.Address) }))
			for _, op := range vf.Operations {
				for _, l := range append(slices.Clone(op.Defs), op.Uses...) {
					is.True(l != "eax" && l != "edi" && l != "esi" && l != "edx")
				}
			}
		})
	}
}

// procedureOrName returns the address of a data symbol by name.
func procedureOrName(t *testing.T, a *native.Analysis, name string) uint64 {
	t.Helper()
	names, err := a.Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n.Name == name {
			return n.Address
		}
	}
	t.Fatalf("no name %s", name)
	return 0
}

// TestValueFlowErrors: an unknown start is ErrNotFound; a cancelled
// context stops the analysis.
func TestValueFlowErrors(t *testing.T) {
	vfFixtures()
	is := is.New(t)
	a := openAnalysis(t, fixturePath(t, "vf-O2"))
	p := procedureNamed(t, a, "add3")
	_, err := a.ValueFlow(context.Background(), ports.FunctionRequest{Address: p.Address + 1})
	is.True(errors.Is(err, ports.ErrNotFound))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = a.ValueFlow(ctx, ports.FunctionRequest{Address: p.Address})
	is.True(errors.Is(err, context.Canceled))

	// A one-instruction cap truncates and says so.
	vf, err := a.ValueFlow(context.Background(), ports.FunctionRequest{Address: p.Address, MaxInstructions: 1})
	is.NoErr(err)
	is.True(vf.Truncated)
	is.Equal(len(vf.Operations), 1)
	is.True(vf.OmittedOperations >= 1)
	is.True(vf.OmittedOperations <= 2) // add3 at -O2 is three instructions
}

// TestValueFlowWholeBinary: every procedure of the optimised code fixture
// is analysed without error, truncation or an unknown location name.
func TestValueFlowWholeBinary(t *testing.T) {
	codeFixtures()
	is := is.New(t)
	a := openAnalysis(t, fixturePath(t, "code-O2"))
	ranges, err := a.FunctionRanges(context.Background())
	is.NoErr(err)
	for _, r := range ranges {
		vf, err := a.ValueFlow(context.Background(), ports.FunctionRequest{Address: r.Start})
		is.NoErr(err)
		is.True(!vf.Truncated)
		for _, p := range vf.Parameters {
			is.True(slices.Contains([]string{"rdi", "rsi", "rdx", "rcx", "r8", "r9", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7"}, p.Location))
		}
	}
	vf := valueFlow(t, a, "dispatch")
	is.Equal(paramNames(vf)[:2], []string{"rdi", "rsi"}) // dispatch(int c, const char *arg)
}

// TestValueFlowGo: Go binaries follow Go's register ABI on amd64 and arm64
// (main.add(a, b int) takes rax, rbx or x0, x1), whatever the container
// format; every procedure is analysed without error.
func TestValueFlowGo(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		want    []string
	}{{"go-linux-arm64", []string{"x0", "x1"}}, {"go-windows-amd64", []string{"rax", "rbx"}}, {"go-darwin-arm64", []string{"x0", "x1"}}} {
		t.Run(tc.fixture, func(t *testing.T) {
			is := is.New(t)
			a := openAnalysis(t, fixturePath(t, tc.fixture))
			vf := valueFlow(t, a, "main.add")
			is.Equal(vf.CallingConvention, "go-abiinternal")
			is.Equal(paramNames(vf), tc.want)
			// main.main takes nothing; its stack-growth call passes nothing through.
			is.Equal(len(valueFlow(t, a, "main.main").Parameters), 0)
			ranges, err := a.FunctionRanges(context.Background())
			is.NoErr(err)
			for k, r := range ranges {
				if k%7 != 0 { // a sample keeps the test short
					continue
				}
				_, err := a.ValueFlow(context.Background(), ports.FunctionRequest{Address: r.Start})
				is.True(err == nil || errors.Is(err, ports.ErrNotFound))
			}
		})
	}
}

// TestValueFlowAgainstDWARF is differential: at -O0 gcc spills every
// register parameter on entry, so for every procedure that DWARF describes
// with register parameters only, the inferred parameters are exactly the
// registers DWARF's signature assigns. At -O2 an unused parameter is never
// read, so the inferred ones are a subset: never a register DWARF does not
// assign.
func TestValueFlowAgainstDWARF(t *testing.T) {
	vfFixtures()
	codeFixtures()
	for _, name := range []string{"vf-O0-g", "code-O0-g", "vf-O2-g", "code-O2-g", "clang-vf-O0-g", "clang-code-O0-g", "clang-vf-O2-g", "clang-code-O2-g", "clang-code-O2-g4", "gen-O2-g", "clang-gen-O2-g", "gen-Os-g", "clang-gen-Os-g", "a64-gen-O0-g"} {
		exact := strings.Contains(name, "-O0")
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a := openAnalysis(t, fixturePath(t, name))
			procs, err := a.Procedures(context.Background())
			is.NoErr(err)
			compared := 0
			for _, p := range procs {
				sig, err := a.Signature(context.Background(), p.Address)
				if errors.Is(err, ports.ErrNotFound) {
					continue
				}
				is.NoErr(err)
				var want []string
				ok := !sig.Variadic
				for _, prm := range sig.Parameters {
					ok = ok && prm.Location != "" && prm.Location != "stack"
					want = append(want, prm.Location)
				}
				if !ok {
					continue
				}
				vf, err := a.ValueFlow(context.Background(), ports.FunctionRequest{Address: p.Address})
				is.NoErr(err)
				got := paramNames(vf)
				slices.Sort(got)
				slices.Sort(want)
				sub := true
				for _, g := range got {
					sub = sub && slices.Contains(want, g)
				}
				if exact && !slices.Equal(got, want) || !sub {
					t.Errorf("%s: inferred %v, DWARF %v", p.Name, got, want)
				}
				compared++
			}
			is.True(compared >= 6)
		})
	}
}

// TestValueFlowConcurrent: concurrent callers of one Analysis get the same
// value flow.
func TestValueFlowConcurrent(t *testing.T) {
	vfFixtures()
	is := is.New(t)
	a := openAnalysis(t, fixturePath(t, "vf-O2"))
	want := valueFlow(t, a, "main")
	addr := procedureNamed(t, a, "main").Address
	var wg sync.WaitGroup
	got := make([]ports.ValueFlow, 8)
	errs := make([]error, 8)
	for k := range got {
		wg.Go(func() { got[k], errs[k] = a.ValueFlow(context.Background(), ports.FunctionRequest{Address: addr}) })
	}
	wg.Wait()
	for k := range got {
		is.NoErr(errs[k])
		is.Equal(got[k].DefUses, want.DefUses)
		is.Equal(got[k].Parameters, want.Parameters)
	}
}

// throughTableSource calls through a table of function pointers: gcc and
// clang load the table's address into an argument register (rdx, rcx) only
// to address the call's target, call [rdx+rax*8].
const throughTableSource = `typedef int (*fn)(int);
__attribute__((noinline)) int one(int x) { return x + 1; }
__attribute__((noinline)) int two(int x) { return x * 2; }
fn table[4] = {one, two, one, two};
__attribute__((noinline)) int through(int x) { return table[(x + 3) & 3](x) + 1; }
int main(int argc, char **argv) { return through(argc); }
`

// TestValueFlowCallThroughTable: the register that addresses an indirect
// call's target is not an argument written for the call, so the argument
// registers below it are not taken as passed through: through has one
// parameter, as its debug information says, under gcc and clang.
func TestValueFlowCallThroughTable(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "through.c")
	if err := os.WriteFile(src, []byte(throughTableSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cc := range []string{"gcc", "clang"} {
		for _, opt := range []string{"-O2", "-Os"} {
			t.Run(cc+opt, func(t *testing.T) {
				needTool(t, cc)
				exe := filepath.Join(dir, cc+opt)
				if b, err := exec.Command(cc, opt, "-g", "-o", exe, src).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc, err, b)
				}
				a := openAnalysis(t, exe)
				vf := valueFlow(t, a, "through")
				sig, err := a.Signature(t.Context(), procedureNamed(t, a, "through").Address)
				if err != nil {
					t.Fatal(err)
				}
				if got := paramNames(vf); !slices.Equal(got, []string{"rdi"}) || sig.Parameters[0].Location != "rdi" {
					t.Errorf("through: inferred %v, DWARF %+v", got, sig.Parameters)
				}
			})
		}
	}
}

// paddingSource: gcc -Os aligns the stack in sw with "push rcx" and pops
// it into rdx, and keeps the switch's index (x & 15) in rdx through the
// cases' calls; in p7 its "push rcx" is g7's seventh argument.
const paddingSource = `int g(int);
int h(int, int);
long g7(long, long, long, long, long, long, long);
__attribute__((noinline)) int sw(int x) {
	switch (x & 15) {
	case 0: return g(x) + 5;
	case 1: return g(x + 1) + 7;
	case 2: return g(x + 2) + 9;
	case 3: return g(x + 3) + 1;
	case 4: return g(x + 4) + 2;
	case 5: return g(x + 5) + 3;
	case 6: return g(x + 6) + 4;
	case 7: return g(x + 7) + 8;
	case 8: return g(x + 8) + 6;
	case 9: return g(x + 9) + 3;
	default: return x * 3;
	}
}
__attribute__((noinline)) int br(int x, int y) { if (x > 5) return h(x, 3) + 1; return y; }
__attribute__((noinline)) long p7(long a, long b, long c, long d) { return g7(1, 2, 3, 4, 5, 6, d); }
int main(int argc, char **argv) { return sw(argc) + br(argc, 2) + (int)p7(argc, 1, 2, 3); }
`

// paddingCallees are paddingSource's callees, compiled apart so that
// neither compiler sees through them.
const paddingCallees = `int g(int x) { return x * 2; }
int h(int x, int y) { return x - y; }
long g7(long a, long b, long c, long d, long e, long f, long x) { return a + b + c + d + e + f + x; }
`

// TestValueFlowStackPadding: a push that only aligns the stack is no use
// of the register pushed, and a jump table's index no argument of the
// cases' calls; a push that passes a stack argument stays a use. Under
// gcc and clang at -Os and -O2 the inferred parameters are the ones the
// functions read.
func TestValueFlowStackPadding(t *testing.T) {
	dir := t.TempDir()
	src, callees := filepath.Join(dir, "padding.c"), filepath.Join(dir, "callees.c")
	if err := os.WriteFile(src, []byte(paddingSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(callees, []byte(paddingCallees), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cc := range []string{"gcc", "clang"} {
		for _, opt := range []string{"-Os", "-O2"} {
			t.Run(cc+opt, func(t *testing.T) {
				needTool(t, cc)
				exe := filepath.Join(dir, cc+opt)
				if b, err := exec.Command(cc, opt, "-o", exe, src, callees).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", cc, err, b)
				}
				a := openAnalysis(t, exe)
				for name, want := range map[string][]string{"sw": {"rdi"}, "br": {"rdi", "rsi"}, "p7": {"rcx"}} {
					if got := paramNames(valueFlow(t, a, name)); !slices.Equal(got, want) {
						t.Errorf("%s: inferred %v, want %v", name, got, want)
					}
				}
			})
		}
	}
}
