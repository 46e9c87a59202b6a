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
		// stack words. At -O2 gcc compiles its switches as compare trees
		// that keep the index (x & 15, in w2) through the cases' calls,
		// which pass only what their callees take (valueflow_callee.go).
		fixtures["a64-gen-O0-g"] = genFixture("a64-gen-O0-g", "-O0", "-g")
		fixtures["a64-gen-O2-g"] = genFixture("a64-gen-O2-g", "-O2", "-g")
		fixtures["clang-a64-gen-O2-g"] = genFixture("clang-a64-gen-O2-g", "-O2", "-g")
		// The same without DWARF: callees' arities are inferred.
		fixtures["gen-O2"] = genFixture("gen-O2", "-O2")
		fixtures["a64-gen-O2"] = genFixture("a64-gen-O2", "-O2")
		fixtures["clang-a64-gen-O2"] = genFixture("clang-a64-gen-O2", "-O2")
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
	for _, name := range []string{"vf-O0-g", "code-O0-g", "vf-O2-g", "code-O2-g", "clang-vf-O0-g", "clang-code-O0-g", "clang-vf-O2-g", "clang-code-O2-g", "clang-code-O2-g4", "gen-O2-g", "clang-gen-O2-g", "gen-Os-g", "clang-gen-Os-g", "a64-gen-O0-g", "a64-gen-O2-g", "clang-a64-gen-O2-g"} {
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

// TestValueFlowWithoutDWARF: built without -g, the generated program's
// inferred parameters are still the registers DWARF assigns (from the same
// program built with -g, by name) or fewer: a direct call passes only what
// its callee's own inferred parameters take (valueflow_callee.go), so gcc's
// AArch64 compare trees add no parameter.
func TestValueFlowWithoutDWARF(t *testing.T) {
	vfFixtures()
	codeFixtures()
	for _, name := range []string{"gen-O2", "a64-gen-O2", "clang-a64-gen-O2"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			a, g := openAnalysis(t, fixturePath(t, name)), openAnalysis(t, fixturePath(t, name+"-g"))
			procs, err := g.Procedures(t.Context())
			is.NoErr(err)
			stripped, err := a.Procedures(t.Context())
			is.NoErr(err)
			byName := map[string]uint64{}
			for _, p := range stripped {
				byName[p.Name] = p.Address
			}
			compared := 0
			for _, p := range procs {
				sig, err := g.Signature(t.Context(), p.Address)
				addr, ok := byName[p.Name]
				if errors.Is(err, ports.ErrNotFound) || !ok || sig.Variadic {
					continue
				}
				is.NoErr(err)
				var want []string
				for _, prm := range sig.Parameters {
					want = append(want, prm.Location)
				}
				vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: addr})
				is.NoErr(err)
				for _, got := range paramNames(vf) {
					if !slices.Contains(want, got) {
						t.Errorf("%s: inferred %v, DWARF %v", p.Name, paramNames(vf), want)
						break
					}
				}
				compared++
			}
			is.True(compared >= 100)
		})
	}
}

// calleeSource: tree's switch is a compare tree on AArch64 (gcc -O2: the
// index x & 15 in w2 through the cases' calls, the case-0 call writing no
// other argument register); wrap only tail-calls g2 with its own two
// arguments, writing none; gap passes its second argument through between
// two it computes; sg tests a flag loaded into x1 before tail-calling gs
// (glibc's secure_getenv); even and odd call each other, fact itself;
// ping's compare tree calls pong, which calls ping, and tp's calls ping.
const calleeSource = `extern int flag;
int g1(int);
int g2(int, int);
int g(int, int, int);
int gs(const char *);
__attribute__((noinline)) int tree(int x) {
	switch (x & 15) {
	case 0: return g1(x) + 1;
	case 1: return g1(x + 1) + 2;
	case 2: return g1(x + 2) + 3;
	case 3: return g1(x + 3) + 5;
	case 4: return g1(x + 4) + 7;
	default: return x * 3;
	}
}
__attribute__((noinline)) int wrap(int a, int b) { return g2(a, b); }
__attribute__((noinline)) int gap(int a, int b, int c) { return g(a + 1, b, c * 2); }
__attribute__((noinline)) int sg(const char *s) { if (flag) return 0; return gs(s); }
__attribute__((noinline)) int odd(int n, int k);
__attribute__((noinline)) int even(int n, int k) { return n == 0 ? k : odd(n - 1, k + g1(n)); }
__attribute__((noinline)) int odd(int n, int k) { return n == 0 ? -k : even(n - 1, k * 3); }
__attribute__((noinline)) int fact(int n, int m) { return n <= 1 ? m : g1(fact(n - 1, m * n)); }
int ping(int n);
__attribute__((noinline)) int pong(int n) { return n > 100 ? ping(n - 7) : n; }
__attribute__((noinline)) int ping(int n) {
	switch (n & 15) {
	case 0: return pong(n) + 1;
	case 1: return pong(n + 1) + 2;
	case 2: return g1(n + 2) + 3;
	case 3: return pong(n + 3) + 5;
	case 4: return g1(n + 4) + 7;
	default: return n * 3;
	}
}
__attribute__((noinline)) int tp(int x) {
	switch (x & 15) {
	case 0: return ping(x) + 1;
	case 1: return ping(x + 1) + 2;
	case 2: return g1(x + 2) + 3;
	case 3: return ping(x + 3) + 5;
	case 4: return g1(x + 4) + 7;
	default: return x * 3;
	}
}
int main(int argc, char **argv) {
	return tree(argc) + wrap(argc, 2) + gap(argc, 1, argc) + sg(argv[0]) + even(argc, 1) + fact(argc, 1) + tp(argc);
}
`

const calleeCallees = `int flag;
int g1(int a) { return a * 3; }
int g2(int a, int b) { return a * b; }
int g(int a, int b, int c) { return a + b + c; }
int gs(const char *s) { return s[0]; }
`

// buildCallees compiles calleeSource and calleeCallees with cc and args
// into dir.
func buildCallees(t *testing.T, dir, exe, cc string, args ...string) string {
	t.Helper()
	src, callees := filepath.Join(dir, "calls.c"), filepath.Join(dir, "callees.c")
	if err := os.WriteFile(src, []byte(calleeSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(callees, []byte(calleeCallees), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, exe)
	if b, err := exec.Command(cc, append(args, "-o", out, src, callees)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	return out
}

// TestValueFlowCalleeArity: a direct call passes the argument registers
// its callee takes, from DWARF or from the callee's inferred parameters,
// under gcc and clang, for x86-64 and AArch64, with and without -g: the
// inferred parameters are DWARF's or fewer; a call below the callee's
// arity writing nothing passes them all (wrap, sg); with DWARF every
// register below it is passed, a gap included (gap).
func TestValueFlowCalleeArity(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, cc, pkg string
		flags         []string
		args          []string
	}{
		{"gcc", "gcc", "gcc", nil, []string{"rdi", "rsi", "rdx"}},
		{"clang", "clang", "clang", nil, []string{"rdi", "rsi", "rdx"}},
		{"a64-gcc", "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", nil, []string{"x0", "x1", "x2"}},
		{"a64-clang", "clang", "clang", []string{"--target=aarch64-linux-gnu"}, []string{"x0", "x1", "x2"}},
	} {
		for _, opt := range []string{"-O2", "-Os"} {
			t.Run(tc.name+opt, func(t *testing.T) {
				needToolPkg(t, tc.cc, tc.pkg)
				if strings.Contains(tc.name, "a64") {
					needToolPkg(t, "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu") // clang links with its libraries
				}
				g := openAnalysis(t, buildCallees(t, dir, tc.name+opt+"-g", tc.cc, append(slices.Clone(tc.flags), opt, "-g")...))
				a := openAnalysis(t, buildCallees(t, dir, tc.name+opt, tc.cc, append(slices.Clone(tc.flags), opt)...))
				for _, name := range []string{"tree", "wrap", "gap", "sg", "even", "odd", "fact", "pong", "ping", "tp"} {
					sig, err := g.Signature(t.Context(), procedureNamed(t, g, name).Address)
					if err != nil {
						t.Fatal(err)
					}
					var want []string
					for _, p := range sig.Parameters {
						want = append(want, p.Location)
					}
					for build, an := range map[string]*native.Analysis{"-g": g, "stripped": a} {
						got := paramNames(valueFlow(t, an, name))
						for _, r := range got {
							if !slices.Contains(want, r) {
								t.Errorf("%s (%s): inferred %v, DWARF %v", name, build, got, want)
								break
							}
						}
						exact := map[string][]string{"tree": tc.args[:1], "wrap": tc.args[:2], "ping": tc.args[:1], "tp": tc.args[:1]}[name]
						if name == "sg" && strings.Contains(tc.name, "a64") {
							exact = tc.args[:1] // clang -Os for x86-64 tail-calls gs conditionally (je gs), no call
						}
						if exact != nil && !slices.Equal(got, exact) {
							t.Errorf("%s (%s): inferred %v, want %v", name, build, got, exact)
						}
					}
				}
				if got := paramNames(valueFlow(t, g, "gap")); !slices.Equal(got, tc.args) {
					t.Errorf("gap (-g): inferred %v, want %v", got, tc.args)
				}
			})
		}
	}
}

// TestValueFlowCalleeOrder: callees' arities are summarised once, callees
// first, with calls inside a cycle of calls knowing none, so the
// parameters do not depend on the order in which procedures are asked
// for, nor on how many goroutines ask.
func TestValueFlowCalleeOrder(t *testing.T) {
	vfFixtures()
	dir := t.TempDir()
	for _, name := range []string{"a64-gcc", "gcc", "a64-gen-O2"} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			var path string
			switch name {
			case "a64-gcc": // ping and pong's cycle, tp's compare tree
				needToolPkg(t, "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu")
				path = buildCallees(t, dir, name, "aarch64-linux-gnu-gcc", "-O2")
			case "gcc":
				needToolPkg(t, "gcc", "gcc")
				path = buildCallees(t, dir, name, "gcc", "-O2")
			default:
				path = fixturePath(t, name)
			}
			params := func(a *native.Analysis, procs []ports.Procedure, workers int) map[uint64][]string {
				out := make([][]string, len(procs))
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						for k := w; k < len(procs); k += workers {
							vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: procs[k].Address})
							is.NoErr(err)
							out[k] = paramNames(vf)
						}
					})
				}
				wg.Wait()
				m := map[uint64][]string{}
				for k, p := range procs {
					m[p.Address] = out[k]
				}
				return m
			}
			a := openAnalysis(t, path)
			procs, err := a.Procedures(t.Context())
			is.NoErr(err)
			forward := params(a, procs, 1)
			b := openAnalysis(t, path)
			reversed := slices.Clone(procs)
			slices.Reverse(reversed)
			backward := params(b, reversed, 1)
			c := openAnalysis(t, path)
			rest := slices.Clone(procs[len(procs)/2:])
			concurrent := params(c, append(rest, procs[:len(procs)/2]...), 4)
			for _, p := range procs {
				if !slices.Equal(forward[p.Address], backward[p.Address]) || !slices.Equal(forward[p.Address], concurrent[p.Address]) {
					t.Errorf("%s: %v in address order, %v in reverse, %v concurrently", p.Name, forward[p.Address], backward[p.Address], concurrent[p.Address])
				}
			}
			if name == "a64-gen-O2" {
				return
			}
			// Each procedure of a cycle asked for first.
			for _, first := range []string{"pong", "ping", "tp", "even", "odd", "fact"} {
				d := openAnalysis(t, path)
				at := slices.IndexFunc(procs, func(p ports.Procedure) bool { return p.Name == first })
				is.True(at >= 0)
				got := params(d, append([]ports.Procedure{procs[at]}, procs...), 1)
				for _, p := range procs {
					if !slices.Equal(forward[p.Address], got[p.Address]) {
						t.Errorf("%s: %v in address order, %v after %s", p.Name, forward[p.Address], got[p.Address], first)
					}
				}
			}
		})
	}
}

// BenchmarkValueFlowBinary: the value flow of every procedure of a whole
// binary, in address order, on a fresh analysis each time (discovery not
// timed): $REA_VF_BENCH, or the AArch64 and x86-64 C libraries.
//
//	go test ./adapters/native -run '^$' -bench ValueFlowBinary -benchmem -benchtime 1x
func BenchmarkValueFlowBinary(b *testing.B) {
	files := []string{"/usr/aarch64-linux-gnu/lib/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"}
	if f := os.Getenv("REA_VF_BENCH"); f != "" {
		files = strings.Split(f, ",")
	}
	for _, f := range files {
		b.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(b *testing.B) {
			if _, err := os.Stat(f); err != nil {
				b.Skipf("%s is missing", f)
			}
			for b.Loop() {
				b.StopTimer()
				a, err := native.OpenFile(b.Context(), f)
				if err != nil {
					b.Fatal(err)
				}
				procs, err := a.Procedures(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for _, p := range procs {
					if _, err := a.ValueFlow(b.Context(), ports.FunctionRequest{Address: p.Address}); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				a.Close(b.Context())
				b.StartTimer()
			}
		})
	}
}
