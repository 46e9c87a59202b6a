package native_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// ifuncSource declares pick as a GNU indirect function: its symbol
// (STT_GNU_IFUNC) names resolve_pick's code, which the dynamic loader runs
// to choose the implementation that pick's callers reach.
const ifuncSource = `
static int plus_one(int x) { return x + 1; }
static int plus_two(int x) { return x + 2; }
static int (*resolve_pick(void))(int) { return __builtin_cpu_supports("avx2") ? plus_two : plus_one; }
int pick(int) __attribute__((ifunc("resolve_pick")));
int main(int argc, char **argv) { return pick(argc); }
`

// TestIFuncResolverIsMarked: the procedure at an STT_GNU_IFUNC symbol's
// value is marked IFunc (its code is the resolver), whichever of the
// names there wins; an ordinary function is not. Before, the IFUNC symbol
// read as STT_FUNC and nothing said so.
func TestIFuncResolverIsMarked(t *testing.T) {
	is := is.New(t)
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "ifunc.c")
	is.NoErr(os.WriteFile(src, []byte(ifuncSource), 0o644))
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			is := is.New(t)
			exe := filepath.Join(dir, "ifunc"+opt)
			if b, err := exec.Command("gcc", opt, "-fno-inline", "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, b)
			}
			a := openNative(t, exe)
			procs, err := a.Procedures(context.Background())
			is.NoErr(err)
			pick := procedureNamed(t, a, "pick")
			is.True(pick.IFunc) // pick's code is its resolver
			for _, p := range procs {
				if p.IFunc && p.Address != pick.Address {
					t.Errorf("%s at %#x is marked IFunc; only pick is an IFUNC", p.Name, p.Address)
				}
			}
			is.True(!procedureNamed(t, a, "main").IFunc)
		})
	}
}

// TestIFuncResolverIsMarkedStripped: without a symbol table the IRELATIVE
// relocations name the resolvers (the relocation's addend), so a stripped
// program, dynamic or static (whose C library brings its own IFUNCs:
// memcpy, strlen, ...), marks the same procedures IFunc as the unstripped
// one. Before, the static one's resolvers were named by the signature
// libraries ("strlen") with nothing saying the code is a resolver.
func TestIFuncResolverIsMarkedStripped(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	src, ptr := filepath.Join(dir, "ifunc.c"), filepath.Join(dir, "ifunc-pointer.c")
	if err := os.WriteFile(src, []byte(ifuncSource), 0o644); err != nil {
		t.Fatal(err)
	}
	// pick only taken as a pointer: its IRELATIVE relocation is the last
	// of .rela.dyn, none in .rela.plt
	pointer := strings.Replace(ifuncSource, "int main(int argc, char **argv) { return pick(argc); }",
		"int (*fp)(int) = pick;\nint main(int argc, char **argv) { return fp(argc); }", 1)
	if err := os.WriteFile(ptr, []byte(pointer), 0o644); err != nil {
		t.Fatal(err)
	}
	ifuncs := func(t *testing.T, exe string) []uint64 {
		procs, err := openNative(t, exe).Procedures(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, p := range procs {
			if p.IFunc {
				out = append(out, p.Address)
			}
		}
		return out
	}
	for _, tc := range []struct{ name, link, src string }{{"pie", "-pie", src}, {"pie-pointer", "-pie", ptr}, {"static", "-static", src}} {
		t.Run(tc.name, func(t *testing.T) {
			link := tc.link
			full, stripped := filepath.Join(dir, "full-"+tc.name), filepath.Join(dir, "stripped-"+tc.name)
			for _, b := range []struct {
				exe   string
				flags []string
			}{{full, nil}, {stripped, []string{"-s"}}} {
				args := append([]string{"-O2", "-fno-inline", link, "-o", b.exe, tc.src}, b.flags...)
				if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
					t.Skipf("gcc %s: %v\n%s", link, err, out) // no static C library
				}
			}
			want, got := ifuncs(t, full), ifuncs(t, stripped)
			if len(want) == 0 {
				t.Fatalf("no IFUNC resolver in the unstripped %s program", link)
			}
			if !slices.Equal(got, want) {
				t.Errorf("stripped, the IFUNC resolvers are %#x; with symbols %#x", got, want)
			}
		})
	}
}

// TestDocumentSaysStatic: a program linked -static or -static-pie is
// Static (its C library's start-up code, not a dynamic loader, runs its
// IFUNCs' resolvers); a dynamic program and a shared library are not.
func TestDocumentSaysStatic(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "ifunc.c")
	if err := os.WriteFile(src, []byte(ifuncSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		flags  []string
		static bool
	}{
		{"pie", []string{"-pie"}, false},
		{"no-pie", []string{"-no-pie"}, false},
		{"shared", []string{"-shared", "-fPIC"}, false},
		{"static", []string{"-static"}, true},
		{"static-pie", []string{"-static-pie"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			exe := filepath.Join(dir, tc.name)
			if out, err := exec.Command("gcc", append(append([]string{"-O2"}, tc.flags...), "-o", exe, src)...).CombinedOutput(); err != nil {
				t.Skipf("gcc %v: %v\n%s", tc.flags, err, out) // no static C library
			}
			docs, err := openNative(t, exe).Documents(t.Context())
			is.NoErr(err)
			is.Equal(len(docs), 1)
			is.Equal(docs[0].Static, tc.static)
		})
	}
	// The dynamic loader has no DT_NEEDED either, but is a library.
	if ld := "/lib64/ld-linux-x86-64.so.2"; fileExists(ld) {
		docs, err := openNative(t, ld).Documents(t.Context())
		if err != nil || docs[0].Static {
			t.Errorf("%s: documents %+v, err %v; want not Static", ld, docs, err)
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
