package native_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// partsFixture builds testdata/parts.c with cc and strips a copy with
// strip; it returns both paths.
func partsFixture(t *testing.T, cc, strip, pkg string) (string, string) {
	t.Helper()
	for _, tool := range []string{cc, strip} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: apt install %s", tool, pkg)
		}
	}
	dir := t.TempDir()
	exe, stripped := filepath.Join(dir, "parts"), filepath.Join(dir, "parts-stripped")
	if b, err := exec.Command(cc, "-O2", "-freorder-blocks-and-partition", "-o", exe, filepath.Join("testdata", "parts.c")).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	if b, err := exec.Command(strip, "-o", stripped, exe).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strip, err, b)
	}
	return exe, stripped
}

// TestProcedureParts: gcc's cold parts (work.cold, and two.cold and
// two.cold.1 of the hand-written two) are parts of their procedures, with
// and without symbols, on x86-64 and AArch64: they are not listed as
// procedures, ProcedureParts names their parent, the parent's blocks take
// them in with the branch to them an edge inside the function, value flow
// follows into them, and their references are still reported. The piece
// both sa and sb branch to (shared.cold) and the cold but called report
// stay procedures, as does lone.cold, which only sb branches to but whose
// name says it is no part of sb.
func TestProcedureParts(t *testing.T) {
	for _, tc := range []struct{ arch, cc, strip, pkg, arg0 string }{
		{"x86-64", "gcc", "strip", "gcc binutils", "rdi"},
		{"aarch64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", "gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu", "x0"},
	} {
		t.Run(tc.arch, func(t *testing.T) {
			exe, stripped := partsFixture(t, tc.cc, tc.strip, tc.pkg)
			sym := symbolsOf(t, openNative(t, exe))
			for _, n := range []string{"work", "work.cold", "two", "two.cold", "two.cold.1", "shared.cold", "lone.cold", "sa", "sb", "report"} {
				if sym[n] == 0 {
					t.Fatalf("no symbol %s: %v", n, sym)
				}
			}
			for _, path := range []string{exe, stripped} {
				t.Run(filepath.Base(path), func(t *testing.T) {
					is := is.New(t)
					a := openNative(t, path)
					procs, err := a.Procedures(t.Context())
					is.NoErr(err)
					starts := map[uint64]bool{}
					for _, p := range procs {
						starts[p.Address] = true
					}
					for _, n := range []string{"work.cold", "two.cold", "two.cold.1"} {
						if starts[sym[n]] {
							t.Errorf("%s (%#x) is listed as a procedure", n, sym[n])
						}
					}
					for _, n := range []string{"work", "two", "sa", "sb", "shared.cold", "lone.cold", "report"} {
						if !starts[sym[n]] {
							t.Errorf("%s (%#x) is not listed as a procedure", n, sym[n])
						}
					}

					parts, err := a.ProcedureParts(t.Context())
					is.NoErr(err)
					owner := map[uint64]uint64{}
					for _, p := range parts {
						owner[p.Start] = p.Procedure
					}
					is.Equal(owner[sym["work.cold"]], sym["work"])
					is.Equal(owner[sym["two.cold"]], sym["two"])
					is.Equal(owner[sym["two.cold.1"]], sym["two"])
					_, shared := owner[sym["shared.cold"]]
					is.True(!shared) // two procedures branch to it: a part of neither

					for _, n := range []string{"work", "two"} {
						fn, err := a.Function(t.Context(), ports.FunctionRequest{Address: sym[n]})
						is.NoErr(err)
						blockAt := map[uint64]bool{}
						for _, b := range fn.Blocks {
							blockAt[b.Start] = true
							for _, e := range b.Successors {
								if e.Kind == ports.EdgeTailCall && owner[e.Target] != 0 {
									t.Errorf("%s: block %#x tail-calls its part %#x", n, b.Start, e.Target)
								}
							}
						}
						listed := map[uint64]int{} // instruction address -> index in the listing
						for k, in := range fn.Instructions {
							listed[in.Address] = k
						}
						for part, parent := range owner {
							if parent == sym[n] && !blockAt[part] {
								t.Errorf("%s: no block at its part %#x: %+v", n, part, fn.Blocks)
							}
							// The part's instructions follow the range's.
							if k, ok := listed[part]; parent == sym[n] && (!ok || k == 0 || fn.Instructions[k-1].Address >= fn.End && fn.Instructions[k-1].Address > part) {
								t.Errorf("%s: its part %#x is not listed after its range: %v", n, part, ok)
							}
						}
						is.Equal(len(fn.Instructions), fn.InstructionCount) // the parts are counted
					}
					_, err = a.Function(t.Context(), ports.FunctionRequest{Address: sym["work.cold"]})
					is.True(errors.Is(err, ports.ErrNotFound)) // a part starts no procedure

					// two's parts read the second argument register its
					// own range set: no parameter of two, and no value
					// flow of a part's own.
					vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: sym["two"]})
					is.NoErr(err)
					var locs []string
					for _, p := range vf.Parameters {
						locs = append(locs, p.Location)
					}
					is.Equal(locs, []string{tc.arg0})
					if !slices.ContainsFunc(vf.Operations, func(o ports.ValueFlowOperation) bool { return o.Address == sym["two.cold"] }) {
						t.Errorf("two's value flow has no operation in two.cold (%#x)", sym["two.cold"])
					}
					_, err = a.ValueFlow(t.Context(), ports.FunctionRequest{Address: sym["two.cold"]})
					is.True(errors.Is(err, ports.ErrNotFound))

					// The part's references are still swept: its call of report.
					refs, err := a.ReferencesTo(t.Context(), sym["report"], sym["report"]+1)
					is.NoErr(err)
					from := func(lo, hi uint64) bool {
						return slices.ContainsFunc(refs, func(r ports.Reference) bool { return r.Kind == ports.RefCall && r.From >= lo && r.From < hi })
					}
					is.True(from(sym["work.cold"], sym["work.cold"]+64))
					is.True(from(sym["two.cold"], sym["two.cold.1"]))
				})
			}
		})
	}
}

// symbolsOf maps the first name at each address of a's labels and
// procedures to its address.
func symbolsOf(t *testing.T, a *native.Analysis) map[string]uint64 {
	t.Helper()
	names, err := a.Names(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, n := range names {
		if _, ok := out[n.Name]; !ok {
			out[n.Name] = n.Address
		}
	}
	return out
}
