package native_test

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rea/adapters/native"
)

// importLibraries returns the library of each import name (by name).
func importLibraries(t *testing.T, path string) map[string]string {
	t.Helper()
	a, err := native.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(t.Context())
	names, err := a.Names(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range names {
		if n.Kind == "import" {
			out[n.Name] = n.Library
		}
	}
	return out
}

// TestELFImportLibrary: a PLT import's library is the file of its symbol's
// version need (debug/elf's Library is the oracle), and an import from a
// library without symbol versions has none, whatever DT_NEEDED lists.
func TestELFImportLibrary(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gcc := func(args ...string) {
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, b)
		}
	}
	gcc("-shared", "-fPIC", "-o", filepath.Join(dir, "libplain.so"), write("plain.c", "int plain_add(int x) { return x + 1; }\n"))
	prog := filepath.Join(dir, "prog")
	gcc("-O2", "-o", prog, write("prog.c", `#include <stdio.h>
#include <math.h>
int plain_add(int);
int main(int argc, char **argv) { printf("%f %d\n", cos(argc), plain_add(argc)); puts(argv[0]); return 0; }
`), "-L"+dir, "-lplain", "-lm")

	libs := importLibraries(t, prog)
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	oracle := map[string]string{}
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF {
			oracle[s.Name+"@plt"] = s.Library
		}
	}
	for name, want := range map[string]string{"puts@plt": "libc.so.6", "cos@plt": "libm.so.6", "plain_add@plt": ""} {
		if got, ok := libs[name]; !ok || got != want {
			t.Errorf("%s: library %q (listed %v), want %q", name, got, ok, want)
		}
	}
	for name, got := range libs {
		if want, ok := oracle[name]; ok && got != want {
			t.Errorf("%s: library %q, debug/elf says %q", name, got, want)
		}
	}
}

// TestMachOImportLibrary: in a two-level namespace image an import's
// library is the dylib its symbol's library ordinal names. No toolchain
// here links one (Go links darwin programs in the flat namespace), so the
// Go darwin fixture is made two-level by hand: the MH_TWOLEVEL flag, and
// ordinal 2 (its second LC_LOAD_DYLIB) on _write, 1 on the other imports.
func TestMachOImportLibrary(t *testing.T) {
	data, err := os.ReadFile(fixturePath(t, "go-darwin-arm64"))
	if err != nil {
		t.Fatal(err)
	}
	flat := filepath.Join(t.TempDir(), "flat")
	if err := os.WriteFile(flat, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, lib := range importLibraries(t, flat) {
		if lib != "" {
			t.Errorf("flat namespace: %s has library %q", name, lib)
		}
	}

	le := binary.LittleEndian
	var dylibs []string
	var symoff, nsyms, stroff uint32
	for off, i := uint32(32), uint32(0); i < le.Uint32(data[16:]); i++ { // ncmds
		cmd, size := le.Uint32(data[off:]), le.Uint32(data[off+4:])
		switch cmd {
		case 0xc: // LC_LOAD_DYLIB
			name, _, _ := strings.Cut(string(data[off+le.Uint32(data[off+8:]):off+size]), "\x00")
			dylibs = append(dylibs, name)
		case 0x2: // LC_SYMTAB
			symoff, nsyms, stroff = le.Uint32(data[off+8:]), le.Uint32(data[off+12:]), le.Uint32(data[off+16:])
		}
		off += size
	}
	if len(dylibs) < 2 || nsyms == 0 {
		t.Fatalf("fixture loads %v and has %d symbols", dylibs, nsyms)
	}
	le.PutUint32(data[24:], le.Uint32(data[24:])|0x80) // MH_TWOLEVEL
	for i := uint32(0); i < nsyms; i++ {
		e := data[symoff+16*i:]
		if e[4]&0xee != 0 { // not an undefined symbol
			continue
		}
		name, _, _ := strings.Cut(string(data[stroff+le.Uint32(e):]), "\x00")
		ord := uint16(1)
		if name == "_write" {
			ord = 2
		}
		le.PutUint16(e[6:], le.Uint16(e[6:])&0xff|ord<<8)
	}
	two := filepath.Join(t.TempDir(), "twolevel")
	if err := os.WriteFile(two, data, 0o644); err != nil {
		t.Fatal(err)
	}
	libs := importLibraries(t, two)
	if len(libs) == 0 {
		t.Fatal("no imports")
	}
	for name, lib := range libs {
		want := dylibs[0]
		if name == "_write" {
			want = dylibs[1]
		}
		if lib != want {
			t.Errorf("%s: library %q, want %q", name, lib, want)
		}
	}
}
