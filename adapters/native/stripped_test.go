package native_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestStrippingReadsTheFile: Stripping tells a gcc program with -g, the
// same stripped of its debug information (strip --strip-debug), wholly
// stripped (strip) and built without -g, by the file's .symtab and DWARF,
// and names the debug file the stripped one's .gnu_debuglink names.
func TestStrippingReadsTheFile(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"gcc", "strip", "objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	is.NoErr(os.WriteFile(src, []byte("int helper(int x) { return x * 3; }\nint main(int argc, char **argv) { return helper(argc); }\n"), 0o644))
	run := func(name string, args ...string) {
		t.Helper()
		if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, b)
		}
	}
	withG, noG := filepath.Join(dir, "g"), filepath.Join(dir, "nog")
	run("gcc", "-g", "-o", withG, src)
	run("gcc", "-o", noG, src)
	noDebug, stripped := filepath.Join(dir, "nodebug"), filepath.Join(dir, "stripped")
	run("strip", "--strip-debug", "-o", noDebug, withG)
	run("strip", "-o", stripped, withG)
	linked := filepath.Join(dir, "linked") // stripped, naming its debug file as Debian's packages do
	run("objcopy", "--only-keep-debug", withG, filepath.Join(dir, "p.debug"))
	run("objcopy", "--add-gnu-debuglink="+filepath.Join(dir, "p.debug"), stripped, linked)
	for _, c := range []struct {
		path string
		want ports.Stripping
	}{
		{withG, ports.Stripping{StaticSymbols: true, DebugInfo: true}},
		{noG, ports.Stripping{StaticSymbols: true}},
		{noDebug, ports.Stripping{StaticSymbols: true}},
		{stripped, ports.Stripping{}},
		{linked, ports.Stripping{DebugLink: "p.debug"}},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			is := is.New(t)
			got, err := openNative(t, c.path).Stripping(t.Context())
			is.NoErr(err)
			is.Equal(got, c.want)
		})
	}
}

// TestStrippingReadsThePEFile: a mingw program keeps COFF symbols and
// DWARF sections until strip removes them.
func TestStrippingReadsThePEFile(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-strip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	is.NoErr(os.WriteFile(src, []byte("int main(int argc, char **argv) { return argc * 3; }\n"), 0o644))
	withG, noDebug, stripped := filepath.Join(dir, "g.exe"), filepath.Join(dir, "nodebug.exe"), filepath.Join(dir, "stripped.exe")
	for _, cmd := range [][]string{
		{"x86_64-w64-mingw32-gcc", "-g", "-o", withG, src},
		{"x86_64-w64-mingw32-strip", "--strip-debug", "-o", noDebug, withG},
		{"x86_64-w64-mingw32-strip", "-o", stripped, withG},
	} {
		if b, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, b)
		}
	}
	for path, want := range map[string]ports.Stripping{
		withG:    {StaticSymbols: true, DebugInfo: true},
		noDebug:  {StaticSymbols: true},
		stripped: {},
	} {
		got, err := openNative(t, path).Stripping(t.Context())
		is.NoErr(err)
		is.Equal(got, want) // path
	}
}

// TestStrippingNamesThePDB: a PE whose debug directory holds a CodeView
// (RSDS) record, as MSVC and ld --pdb write it, names its PDB as the
// separate debug file, with or without COFF symbols, and the PDB is not
// read: it is gone before the program is opened.
func TestStrippingNamesThePDB(t *testing.T) {
	is := is.New(t)
	needTool(t, "x86_64-w64-mingw32-gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	is.NoErr(os.WriteFile(src, []byte("int main(int argc, char **argv) { return argc * 3; }\n"), 0o644))
	stripped, symbols := filepath.Join(dir, "stripped.exe"), filepath.Join(dir, "symbols.exe")
	for _, cmd := range [][]string{
		{"x86_64-w64-mingw32-gcc", "-s", "-Wl,--pdb=" + filepath.Join(dir, "stripped.pdb"), "-o", stripped, src},
		{"x86_64-w64-mingw32-gcc", "-Wl,--pdb=" + filepath.Join(dir, "symbols.pdb"), "-o", symbols, src},
	} {
		if b, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Skipf("%v: %v\n%s", cmd, err, b) // ld before binutils 2.40 writes no PDB
		}
	}
	for _, pdb := range []string{"stripped.pdb", "symbols.pdb"} {
		is.NoErr(os.Remove(filepath.Join(dir, pdb)))
	}
	got, err := openNative(t, stripped).Stripping(t.Context())
	is.NoErr(err)
	is.Equal(got, ports.Stripping{DebugLink: "stripped.pdb"}) // ld records the name without its directory
	got, err = openNative(t, symbols).Stripping(t.Context())
	is.NoErr(err)
	is.True(got.StaticSymbols) // the COFF symbol table (and mingw's runtime's DWARF, which it keeps)
	is.Equal(got.DebugLink, "symbols.pdb")
}

// TestStrippingReadsTheMachOFile: a Mach-O object keeps its static
// function as a local symbol and DWARF in __DWARF,__debug_info until
// llvm-strip removes them (--strip-debug the DWARF, -x the locals too).
func TestStrippingReadsTheMachOFile(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"clang", "llvm-strip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "m.c")
	is.NoErr(os.WriteFile(src, []byte("static int helper(int x) { return x * 3; }\nint api(int argc) { return helper(argc); }\n"), 0o644))
	withG, noDebug, noLocals := filepath.Join(dir, "g.o"), filepath.Join(dir, "nodebug.o"), filepath.Join(dir, "nolocals.o")
	for _, cmd := range [][]string{
		{"clang", "-target", "x86_64-apple-macos11", "-g", "-O0", "-c", "-o", withG, src},
		{"llvm-strip", "--strip-debug", "-o", noDebug, withG},
		{"llvm-strip", "-x", "-o", noLocals, withG},
	} {
		if b, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Skipf("%v: %v\n%s", cmd, err, b) // no Mach-O target
		}
	}
	for path, want := range map[string]ports.Stripping{
		withG:    {StaticSymbols: true, DebugInfo: true},
		noDebug:  {StaticSymbols: true},
		noLocals: {},
	} {
		got, err := openNative(t, path).Stripping(t.Context())
		is.NoErr(err)
		is.Equal(got, want) // path
	}
}

// TestStrippingNotToldOfDotNet: a .NET assembly's methods are named by its
// metadata, so whether its PE keeps COFF symbols does not make it
// stripped: Stripping does not say.
func TestStrippingNotToldOfDotNet(t *testing.T) {
	_, err := openNative(t, cilFixture(t, "cil")).Stripping(t.Context())
	if !errors.Is(err, ports.ErrUnsupported) {
		t.Fatalf("Stripping of a .NET assembly: %v, want ErrUnsupported", err)
	}
}
