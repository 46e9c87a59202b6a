package native_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

const typedefsC = `typedef double real;
typedef const char *cstr;
typedef unsigned long count;
__attribute__((noinline)) real weigh(const real x, cstr tag, count n, long double q) { return x * n + (tag[0] ? q : 0); }
int main(int argc, char **argv) { return (int)weigh(argc, argv[0], 2, 1.5L); }
`

// TestSignatureTypedefUnderlying: a C typedef's parameter and result keep
// their names and say what they stand for (qualifiers and typedefs
// removed), so a trace reads a typedef of double as a double; a long
// double is passed in a v register under AAPCS64 (a binary128), while
// x86-64 passes it in memory and places it nowhere.
func TestSignatureTypedefUnderlying(t *testing.T) {
	for _, lane := range []struct {
		cc   string
		want []ports.Parameter
	}{
		{"gcc", []ports.Parameter{
			{Name: "x", Type: "const real", Underlying: "double", Location: "xmm0"},
			{Name: "tag", Type: "cstr", Underlying: "const char *", Location: "rdi"},
			{Name: "n", Type: "count", Underlying: "long unsigned int", Location: "rsi"},
			{Name: "q", Type: "long double"},
		}},
		{"aarch64-linux-gnu-gcc", []ports.Parameter{
			{Name: "x", Type: "const real", Underlying: "double", Location: "v0"},
			{Name: "tag", Type: "cstr", Underlying: "const char *", Location: "x0"},
			{Name: "n", Type: "count", Underlying: "long unsigned int", Location: "x1"},
			{Name: "q", Type: "long double", Location: "v1"},
		}},
	} {
		t.Run(lane.cc, func(t *testing.T) {
			needTool(t, lane.cc)
			is := is.New(t)
			dir := t.TempDir()
			src, bin := filepath.Join(dir, "t.c"), filepath.Join(dir, "t")
			is.NoErr(os.WriteFile(src, []byte(typedefsC), 0o644))
			_, err := run(t.Context(), "", nil, lane.cc, "-O1", "-g", "-o", bin, src)
			is.NoErr(err)
			a := openAnalysis(t, bin)
			sig, err := a.Signature(context.Background(), procedureNamed(t, a, "weigh").Address)
			is.NoErr(err)
			is.Equal(sig.ReturnType, "real")
			is.Equal(sig.ReturnUnderlying, "double")
			is.Equal(sig.Parameters, lane.want)
		})
	}
}
