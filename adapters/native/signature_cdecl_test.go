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
// slots. A struct result's hidden pointer takes [esp+4] and the parameters
// follow from [esp+8] (the System V i386 ABI returns every struct in
// memory); before, a struct result left every parameter "stack", so a trace
// read none of them.
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
__attribute__((noinline)) struct big filled(char c, long long n, const char *s) { struct big b = {{c, (char)n, s[0]}}; return b; }
int main(int argc, char **argv) {
	struct pair p = {1, 2};
	struct big b = {{3}};
	return scalars(argv[0], argc, 'c', 1.5, 2) + byvalue(p, b, argc) + result(argc).b + filled('x', argc, argv[0]).bytes[1];
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
		"result":  {{Name: "a", Type: "int", Location: "[esp+8]"}},
		"filled": {{Name: "c", Type: "char", Location: "[esp+8]"}, {Name: "n", Type: "long long int", Location: "[esp+12],[esp+16]"},
			{Name: "s", Type: "const char *", Location: "[esp+20]"}},
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

const stackArgsSource = `
struct big { long a, b, c; };
__attribute__((noinline)) long many(long a, long b, long c, long d, long e, long f, const char *g, double x, const char *h, long i) { return a + b + c + d + e + f + g[0] + (long)x + h[0] + i; }
__attribute__((noinline)) struct big wide(long a, long b) { struct big r = {a, b, a + b}; return r; }
int main(int argc, char **argv) { return (int)many(argc, 1, 2, 3, 4, 5, argv[0], 1.5, "h", 9) + (int)wide(argc, 2).c; }
`

// Past the argument registers, a 64-bit C function's parameters are stack
// words at the entry, named as a trace reads them: SysV's from [rsp+8] in
// order (a double still takes a vector register), Microsoft x64's at their
// position's home ([rsp+40] for the fifth), AAPCS64's from [sp+0]. A struct
// result returned in memory takes the first integer register for its
// address under SysV (over 16 bytes) and Microsoft x64.
func TestSignatureStackSlots(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "stack.c")
	if err := os.WriteFile(src, []byte(stackArgsSource), 0o644); err != nil {
		t.Fatal(err)
	}
	p := func(name, typ, loc string) ports.Parameter {
		return ports.Parameter{Name: name, Type: typ, Location: loc}
	}
	for _, tc := range []struct {
		cc   string
		many []string // locations of g, x, h, i
		wide []string // locations of a, b
	}{
		{"gcc", []string{"[rsp+8]", "xmm0", "[rsp+16]", "[rsp+24]"}, []string{"rsi", "rdx"}},
		{"x86_64-w64-mingw32-gcc", []string{"[rsp+56]", "[rsp+64]", "[rsp+72]", "[rsp+80]"}, []string{"rdx", "r8"}},
		{"aarch64-linux-gnu-gcc", []string{"x6", "v0", "x7", "[sp+0]"}, []string{"x0", "x1"}},
	} {
		t.Run(tc.cc, func(t *testing.T) {
			needTool(t, tc.cc)
			exe := filepath.Join(dir, tc.cc+".exe")
			if b, err := exec.Command(tc.cc, "-O1", "-g", "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			a := openNative(t, exe)
			sig, err := a.Signature(t.Context(), procedureNamed(t, a, "many").Address)
			if err != nil {
				t.Fatal(err)
			}
			got := sig.Parameters[6:]
			want := []ports.Parameter{p("g", "const char *", tc.many[0]), p("x", "double", tc.many[1]), p("h", "const char *", tc.many[2]), p("i", "long int", tc.many[3])}
			if tc.cc == "x86_64-w64-mingw32-gcc" {
				want[3].Type = "long int" // long is 32 bits there, the slot 8 bytes all the same
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("many: %+v\nwant %+v", got, want)
			}
			sig, err = a.Signature(t.Context(), procedureNamed(t, a, "wide").Address)
			if err != nil {
				t.Fatal(err)
			}
			if sig.Parameters[0].Location != tc.wide[0] || sig.Parameters[1].Location != tc.wide[1] {
				t.Errorf("wide: %+v, want %v", sig.Parameters, tc.wide)
			}
		})
	}
}
