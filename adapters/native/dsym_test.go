package native_test

import (
	"context"
	"debug/macho"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// dsymSource is the program the dSYM tests build; add is on line 2.
// add is static: not exported, so that only a symbol table (the program's
// or its dSYM's) names it, not the export trie.
const dsymSource = `
static int __attribute__((noinline)) add(int a, int b) { return a + b; }
int main(int argc, char **argv) { return add(argc, 4); }
`

// llvmTool finds one of Debian's llvm tools: name, or its versioned name.
func llvmTool(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if m, _ := filepath.Glob("/usr/bin/" + name + "-*"); len(m) > 0 {
		return m[len(m)-1]
	}
	t.Skipf("%s is not installed: apt install llvm", name)
	return ""
}

// buildDSYM builds src for arch as a macOS program (clang, ld64.lld, which
// leaves the DWARF in the object file) in dir, and its dSYM beside it with
// dsymutil. It returns the program's path and its dSYM's DWARF file.
func buildDSYM(t testing.TB, dir, arch, src string) (exe, dwarfFile string) {
	t.Helper()
	needTool(t, "clang")
	linker, dsymutil := ld64(t), llvmTool(t, "dsymutil")
	ctx := t.Context()
	c := filepath.Join(dir, "prog.c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	obj, exe := filepath.Join(dir, arch+".o"), filepath.Join(dir, "prog")
	steps := [][]string{
		{"clang", "-target", arch + "-apple-macos11", "-g", "-O1", "-c", c, "-o", obj},
		{linker, "-arch", arch, "-platform_version", "macos", "11.0", "11.0", "-o", exe, obj},
		{dsymutil, exe, "-o", exe + ".dSYM"},
	}
	for _, s := range steps {
		if _, err := run(ctx, dir, nil, s[0], s[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	f, err := macho.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Section("__debug_info") != nil {
		t.Fatal("the program carries DWARF of its own")
	}
	return exe, filepath.Join(exe+".dSYM", "Contents", "Resources", "DWARF", "prog")
}

// A macOS program whose DWARF is in its dSYM gets signatures and source
// lines from it, names it in the profile and the cache key, and with the
// search off is what it was.
func TestDSYM(t *testing.T) {
	for _, arch := range []string{"x86_64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			is := is.New(t)
			exe, dw := buildDSYM(t, t.TempDir(), arch, dsymSource)
			cache := t.TempDir()
			open := func(roots ...string) *native.Analysis {
				an, err := native.New(&native.Options{CacheDir: cache, DebugFileDirectories: roots}).Open(context.Background(), ports.Target{Path: exe})
				is.NoErr(err)
				t.Cleanup(func() { an.Close(context.Background()) })
				return an.(*native.Analysis)
			}
			ctx := context.Background()
			with, off := open(t.TempDir()), open()

			d := debugParam(with)
			is.True(d != nil)
			is.Equal(d["path"], dw)
			is.Equal(d["found_by"], "dsym")
			is.Equal(d["sha256"], sha256Of(t, dw))
			is.Equal(d["used_for"], []string{"dwarf"})
			is.Equal(debugParam(off), nil)

			add := procAddr(t, with, "_add")
			sig, err := with.Signature(ctx, add)
			is.NoErr(err)
			is.Equal(sigText("add", sig), "int add(int a, int b)")
			_, err = off.Signature(ctx, add)
			is.True(err != nil) // no DWARF without the dSYM

			loc, err := with.SourceAt(ctx, add)
			is.NoErr(err)
			is.Equal(filepath.Base(loc.File), "prog.c")
			is.Equal(loc.Line, 2)
			_, err = off.SourceAt(ctx, add)
			is.True(err != nil)

			lims, err := with.Limitations(ctx)
			is.NoErr(err)
			is.Equal(len(lims), 0)

			wantP, wantN := procsAndNames(t, off)
			gotP, gotN := procsAndNames(t, with)
			is.Equal(gotP, wantP) // the symbols are the target's own
			is.Equal(gotN, wantN)

			kWith, kOff := native.CacheProfileDigest(ctx, with), native.CacheProfileDigest(ctx, off)
			is.True(kWith != "" && kOff != "")
			is.True(kWith != kOff)
		})
	}
}

// A stripped macOS program (llvm-strip leaves __mh_execute_header) gets
// its symbols back from its dSYM: the same procedures and names as the
// program before stripping, and its signatures.
func TestDSYMStripped(t *testing.T) {
	for _, arch := range []string{"x86_64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			is := is.New(t)
			dir := t.TempDir()
			exe, dw := buildDSYM(t, dir, arch, dsymSource)
			strip := llvmTool(t, "llvm-strip")
			stripped := filepath.Join(dir, "stripped")
			_, err := run(t.Context(), dir, nil, strip, "-o", stripped, exe)
			is.NoErr(err)
			strippedDW := filepath.Join(stripped+".dSYM", "Contents", "Resources", "DWARF", "stripped")
			copyFile(t, dw, strippedDW)
			ctx := context.Background()

			with, off, full := openWith(t, stripped, t.TempDir()), openWith(t, stripped), openWith(t, exe, t.TempDir())
			is.Equal(debugParam(with)["used_for"], []string{"symbols", "dwarf"})
			is.Equal(debugParam(full)["used_for"], []string{"dwarf"}) // its own table is whole
			wantP, wantN := procsAndNames(t, full)
			gotP, gotN := procsAndNames(t, with)
			is.Equal(gotP, wantP)
			is.Equal(gotN, wantN)
			_, offN := procsAndNames(t, off)
			is.True(!slices.ContainsFunc(offN, func(s string) bool { return strings.HasSuffix(s, " _add function") }))

			sig, err := with.Signature(ctx, procAddr(t, with, "_add"))
			is.NoErr(err)
			is.Equal(sigText("add", sig), "int add(int a, int b)")
		})
	}
}

// A dSYM of another build (another source, so another UUID) is refused and
// said; the lists are what they are with the search off.
func TestDSYMWrongUUID(t *testing.T) {
	is := is.New(t)
	exe, dw := buildDSYM(t, t.TempDir(), "x86_64", dsymSource)
	_, otherDW := buildDSYM(t, t.TempDir(), "x86_64", strings.Replace(dsymSource, "a + b", "a - b", 1))
	copyFile(t, otherDW, dw)
	ctx := context.Background()
	a, off := openWith(t, exe, t.TempDir()), openWith(t, exe)
	is.Equal(debugParam(a), nil)
	lims, err := a.Limitations(ctx)
	is.NoErr(err)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], dw))
	is.True(strings.Contains(lims[0], "UUID "+uuidOf(t, otherDW)+" differs from the target's "+uuidOf(t, exe)))
	_, err = a.Signature(ctx, procAddr(t, a, "_add"))
	is.True(err != nil)
	gotP, gotN := procsAndNames(t, a)
	offP, offN := procsAndNames(t, off)
	is.Equal(gotP, offP)
	is.Equal(gotN, offN)
}

// A universal program and its universal dSYM: the program's first slice
// takes the dSYM slice with its UUID; a thin program beside a universal
// dSYM takes its own slice, which is not the dSYM's first.
func TestDSYMUniversal(t *testing.T) {
	is := is.New(t)
	lipo := llvmTool(t, "llvm-lipo")
	dir := t.TempDir()
	x86, x86DW := buildDSYM(t, filepath.Join(dir, "x86"), "x86_64", dsymSource)
	arm, armDW := buildDSYM(t, filepath.Join(dir, "arm"), "arm64", dsymSource)
	thin := map[string]string{"x86_64": x86, "arm64": arm}
	ctx := t.Context()
	universal := func(name string, both bool) (exe, dw string) {
		exe = filepath.Join(dir, name, "prog")
		dw = filepath.Join(exe+".dSYM", "Contents", "Resources", "DWARF", "prog")
		is.NoErr(os.MkdirAll(filepath.Dir(dw), 0o755))
		_, err := run(ctx, dir, nil, lipo, "-create", armDW, x86DW, "-output", dw)
		is.NoErr(err)
		if both {
			_, err = run(ctx, dir, nil, lipo, "-create", x86, arm, "-output", exe)
			is.NoErr(err)
		} else {
			// The architecture that is not the dSYM's first slice.
			ff, err := macho.OpenFat(dw)
			is.NoErr(err)
			first := ff.Arches[0].Cpu
			ff.Close()
			other := x86
			if first == macho.CpuAmd64 {
				other = arm
			}
			copyFile(t, other, exe)
		}
		return exe, dw
	}
	for _, tc := range []struct {
		name string
		both bool
	}{{"universal", true}, {"thin", false}} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			exe, dw := universal(tc.name, tc.both)
			a := openWith(t, exe, t.TempDir())
			is.Equal(debugParam(a)["path"], dw)
			docs, err := a.Documents(ctx)
			is.NoErr(err)
			arch := docs[0].Architecture
			sig, err := a.Signature(ctx, procAddr(t, a, "_add"))
			is.NoErr(err)
			is.Equal(sigText("add", sig), "int add(int a, int b)")
			// The source line is the one the thin program of that
			// architecture gets from its own dSYM: the file is in that
			// architecture's build directory.
			one := openWith(t, thin[arch], t.TempDir())
			want, err := one.SourceAt(ctx, procAddr(t, one, "_add"))
			is.NoErr(err)
			got, err := a.SourceAt(ctx, procAddr(t, a, "_add"))
			is.NoErr(err)
			is.Equal(got, want)
		})
	}
}

// readDSYMLists reads every list the dSYM feeds: nothing may panic.
func readDSYMLists(t testing.TB, exe string) *native.Analysis {
	t.Helper()
	ctx := context.Background()
	an, err := native.New(&native.Options{DebugFileDirectories: []string{"/nonexistent"}}).Open(ctx, ports.Target{Path: exe})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { an.Close(ctx) })
	a := an.(*native.Analysis)
	ps, err := a.Procedures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		_, _ = a.Signature(ctx, p.Address)
		_, _ = a.SourceAt(ctx, p.Address)
		_, _ = a.ValueFlow(ctx, ports.FunctionRequest{Address: p.Address})
	}
	_, _ = a.Limitations(ctx)
	return a
}

// Hostile dSYMs: whatever sits in the bundle (cut, corrupted, not Mach-O,
// a universal header that lies, a directory) is refused or read without
// panicking.
func TestDSYMHostile(t *testing.T) {
	exe, dw := buildDSYM(t, t.TempDir(), "x86_64", dsymSource)
	good, err := os.ReadFile(dw)
	if err != nil {
		t.Fatal(err)
	}
	cases := hostileCopies(good, 32)
	cases["not-macho"] = []byte("hello, world\n")
	cases["fat-lies"] = []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2, 1, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 12}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(dw, content, 0o644); err != nil {
				t.Fatal(err)
			}
			readDSYMLists(t, exe)
		})
	}
	t.Run("directory", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(os.Remove(dw))
		is.NoErr(os.Mkdir(dw, 0o755))
		defer os.Remove(dw)
		lims, _ := readDSYMLists(t, exe).Limitations(context.Background())
		is.True(len(lims) == 1 && strings.Contains(lims[0], "not a regular file"))
	})
}

// FuzzDSYM writes the input as the program's dSYM and reads every list
// that uses it. The seeds are the real dSYM, cut and whole.
func FuzzDSYM(f *testing.F) {
	exe, dw := buildDSYM(f, f.TempDir(), "x86_64", dsymSource)
	good, err := os.ReadFile(dw)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:32])
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(dw, content, 0o644); err != nil {
			t.Fatal(err)
		}
		readDSYMLists(t, exe)
	})
}

// uuidOf is a Mach-O file's UUID as debug/macho reads it, apart from the
// engine, written as Apple's tools write it.
func uuidOf(t *testing.T, path string) string {
	t.Helper()
	f, err := macho.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) >= 24 && f.ByteOrder.Uint32(raw) == 0x1b {
			h := fmt.Sprintf("%X", raw[8:24])
			return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		}
	}
	t.Fatalf("%s has no LC_UUID", path)
	return ""
}

// An application's program (Foo.app/Contents/MacOS/Foo) takes the dSYM
// Xcode writes beside the bundle (Foo.app.dSYM); a dSYM store (dSYMs
// gathered directly under a debug directory) gives the one whose UUID
// matches, found_by dsym-directory, and says the others' refusals only
// when none matched.
func TestDSYMBundleAndStore(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	exe, dw := buildDSYM(t, filepath.Join(dir, "build"), "x86_64", dsymSource)
	_, otherDW := buildDSYM(t, filepath.Join(dir, "other"), "x86_64", strings.Replace(dsymSource, "a + b", "a - b", 1))
	ctx := context.Background()
	signed := func(a *native.Analysis) string {
		sig, err := a.Signature(ctx, procAddr(t, a, "_add"))
		if err != nil {
			return err.Error()
		}
		return sigText("add", sig)
	}

	app := filepath.Join(dir, "Products", "Foo.app")
	prog := filepath.Join(app, "Contents", "MacOS", "Foo")
	copyFile(t, exe, prog)
	bundled := filepath.Join(app+".dSYM", "Contents", "Resources", "DWARF", "Foo")
	copyFile(t, dw, bundled)
	a := openWith(t, prog, t.TempDir())
	is.Equal(debugParam(a)["path"], bundled)
	is.Equal(debugParam(a)["found_by"], "dsym")
	is.Equal(signed(a), "int add(int a, int b)")

	// The store: Foo's dSYM among another build's, none beside the program.
	lone := filepath.Join(dir, "lone", "Foo")
	copyFile(t, exe, lone)
	store := t.TempDir()
	copyFile(t, otherDW, filepath.Join(store, "Foo-1.0.dSYM", "Contents", "Resources", "DWARF", "Foo"))
	copyFile(t, dw, filepath.Join(store, "Foo-1.1.app.dSYM", "Contents", "Resources", "DWARF", "Foo"))
	copyFile(t, dw, filepath.Join(store, "Bar.dSYM", "Contents", "Resources", "DWARF", "Bar")) // another program's name
	s := openWith(t, lone, t.TempDir(), store)
	is.Equal(debugParam(s)["path"], filepath.Join(store, "Foo-1.1.app.dSYM", "Contents", "Resources", "DWARF", "Foo"))
	is.Equal(debugParam(s)["found_by"], "dsym-directory")
	is.Equal(signed(s), "int add(int a, int b)")
	lims, err := s.Limitations(ctx)
	is.NoErr(err)
	is.Equal(len(lims), 0) // the other build's refusal is not said: one matched

	// Only the other build in the store: refused and said.
	only := t.TempDir()
	copyFile(t, otherDW, filepath.Join(only, "Foo.dSYM", "Contents", "Resources", "DWARF", "Foo"))
	o := openWith(t, lone, only)
	is.Equal(debugParam(o), nil)
	lims, err = o.Limitations(ctx)
	is.NoErr(err)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], "UUID "+uuidOf(t, otherDW)+" differs"))
	is.True(signed(o) != "int add(int a, int b)")
}
