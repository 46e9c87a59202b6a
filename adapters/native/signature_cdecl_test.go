package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"rea/ports"
)

// A 32-bit x86 function's parameters are stack slots at its entry under
// cdecl, named as a trace reads them: the first at [esp+4], each taking its
// size rounded up to a word, a value of several words in each ("[esp+8],
// [esp+12]"), one over 16 bytes "stack" while the later ones keep their
// slots. A struct result leaves every parameter "stack" (its hidden pointer
// comes first only under some options), as does an unsized one.
func TestSignatureCdeclSlots(t *testing.T) {
	const cc = "i686-linux-gnu-gcc"
	needTool(t, cc)
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "sig.c"), filepath.Join(dir, "sig")
	if err := os.WriteFile(src, []byte(`struct pair { int a, b; };
struct big { char bytes[20]; };
__attribute__((noinline)) int scalars(const char *s, long long x, char c, double d, short h) { return s[0] + (int)x + c + (int)d + h; }
__attribute__((noinline)) int byvalue(struct pair p, struct big b, int after) { return p.a + b.bytes[0] + after; }
__attribute__((noinline)) struct pair result(int a) { struct pair p = {a, a}; return p; }
int main(int argc, char **argv) {
	struct pair p = {1, 2};
	struct big b = {{3}};
	return scalars(argv[0], argc, 'c', 1.5, 2) + byvalue(p, b, argc) + result(argc).b;
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(cc, "-O1", "-g", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	a := openNative(t, exe)
	for name, want := range map[string][]ports.Parameter{
		"scalars": {{Name: "s", Type: "const char *", Location: "[esp+4]"}, {Name: "x", Type: "long long int", Location: "[esp+8],[esp+12]"},
			{Name: "c", Type: "char", Location: "[esp+16]"}, {Name: "d", Type: "double", Location: "[esp+20],[esp+24]"}, {Name: "h", Type: "short int", Location: "[esp+28]"}},
		"byvalue": {{Name: "p", Type: "struct pair", Location: "[esp+4],[esp+8]"}, {Name: "b", Type: "struct big", Location: "stack"}, {Name: "after", Type: "int", Location: "[esp+32]"}},
		"result":  {{Name: "a", Type: "int", Location: "stack"}},
	} {
		sig, err := a.Signature(t.Context(), procedureNamed(t, a, name).Address)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sig.CallingConvention != "cdecl" || !reflect.DeepEqual(sig.Parameters, want) {
			t.Errorf("%s: %s %+v\nwant %+v", name, sig.CallingConvention, sig.Parameters, want)
		}
	}
}
