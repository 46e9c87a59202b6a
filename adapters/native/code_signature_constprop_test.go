package native_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// constpropC calls two static functions with a constant argument, so gcc
// -O2 makes specialized copies of them (mul.constprop.0, pre.constprop.0)
// that take no argument for it: its DWARF parameter has DW_AT_const_value
// and no location, and the other parameters take the registers from the
// first.
const constpropC = `
#include <stdio.h>
static __attribute__((noinline)) long mul(long x, long k) { return x * k + (x >> 3); }
static __attribute__((noinline)) long pre(long k, long x, long y) { return x * k - y; }
int main(int argc, char **argv) {
	printf("%ld %ld\n", mul(argc, 7), mul(argc + 1, 7));
	printf("%ld\n", pre(9, argc, 3 * argc) + pre(9, argc * 5, argc));
	return 0;
}
`

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
			src, bin := filepath.Join(dir, "t.c"), filepath.Join(dir, "t")
			is.NoErr(os.WriteFile(src, []byte(constpropC), 0o644))
			_, err := run(t.Context(), "", nil, lane.cc, "-O2", "-g", "-o", bin, src)
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
