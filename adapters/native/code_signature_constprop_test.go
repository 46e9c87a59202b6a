package native_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// constpropC is testdata/constprop.c (cmd/rea's tests build it too).
const constpropC = "testdata/constprop.c"

// A parameter a specialized copy has as a constant is passed nowhere
// ("none"), takes no register from the parameters after it, and has the
// constant's value. Before, mul.constprop.0's k was placed in rsi (a trace
// read it from there), and pre.constprop.0's k in rdx; then its value was
// not reported. The parameters come in the source's order (pre's k, x, y),
// not the copy's DWARF order, which lists its constants last (x, y, k).
func TestSignatureConstantParameterOfSpecializedCopy(t *testing.T) {
	for _, lane := range []struct {
		cc       string
		mul, pre []string // name:location
	}{
		{"gcc", []string{"x:rdi", "k:none=7"}, []string{"k:none=9", "x:rdi", "y:rsi"}},
		{"aarch64-linux-gnu-gcc", []string{"x:x0", "k:none=7"}, []string{"k:none=9", "x:x0", "y:x1"}},
	} {
		t.Run(lane.cc, func(t *testing.T) {
			needTool(t, lane.cc)
			is := is.New(t)
			dir := t.TempDir()
			bin := filepath.Join(dir, "t")
			_, err := run(t.Context(), "", nil, lane.cc, "-O2", "-g", "-o", bin, constpropC)
			is.NoErr(err)
			a := openAnalysis(t, bin)
			for name, want := range map[string][]string{"mul.constprop.0": lane.mul, "pre.constprop.0": lane.pre} {
				sig, err := a.Signature(context.Background(), procedureNamed(t, a, name).Address)
				is.NoErr(err)
				var got []string
				for _, p := range sig.Parameters {
					s := p.Name + ":" + p.Location
					if p.Constant != "" {
						s += "=" + p.Constant
					}
					got = append(got, s)
				}
				is.Equal(got, want) // name's parameters
			}
		})
	}
}
