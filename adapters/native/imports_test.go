package native_test

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// importLibraries returns the library of each import name (by name).
func importLibraries(t *testing.T, path string) map[string]string {
	t.Helper()
	names := namesIn(t, path)
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
	oracle := map[string]string{}
	for _, s := range dynamicSymbols(t, prog) {
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

var reObjdumpSlotCall = regexp.MustCompile(`(?m)^\s*([0-9a-f]+):\s+call\s+\*0x[0-9a-f]+\(%rip\)\s+# ([0-9a-f]+) <([^@>+]+)@`)

// A register loaded from a GOT slot, and a call through a register
// (regcall.go resolves the call to the slot when every path loads it).
var (
	reObjdumpGOTLoad    = regexp.MustCompile(`(?m)^\s*[0-9a-f]+:\s+mov\s+0x[0-9a-f]+\(%rip\),%(\w+)\s+# ([0-9a-f]+) <`)
	reObjdumpATTRegCall = regexp.MustCompile(`(?m)^\s*([0-9a-f]+):\s+call\s+\*%(\w+)\s*$`)
)

// objdumpRegisterSlotCalls maps each "call *%reg" of an objdump -d
// listing whose register its function loads from exactly one slot to that
// slot.
func objdumpRegisterSlotCalls(listing string) map[uint64]uint64 {
	out := map[uint64]uint64{}
	for _, fn := range strings.Split(listing, "\n\n") {
		loads := map[string][]uint64{}
		for _, m := range reObjdumpGOTLoad.FindAllStringSubmatch(fn, -1) {
			slot, _ := strconv.ParseUint(m[2], 16, 64)
			if !slices.Contains(loads[m[1]], slot) {
				loads[m[1]] = append(loads[m[1]], slot)
			}
		}
		for _, m := range reObjdumpATTRegCall.FindAllStringSubmatch(fn, -1) {
			if l := loads[m[2]]; len(l) == 1 {
				site, _ := strconv.ParseUint(m[1], 16, 64)
				out[site] = l[0]
			}
		}
	}
	return out
}

// TestELFNoPLTImportCalls: gcc -fno-plt calls an import through its GOT slot
// ("call *puts@GOTPCREL(%rip)"); each such call objdump shows is a resolved
// call to the slot, found again from the slot, and the slot is an import
// named after the symbol. A call through a register its function loads
// from a slot (_init's "call *%rax" of __gmon_start__'s, clang's puts
// loaded once into a register) is a call to that slot too; no other call
// resolves to an import.
func TestELFNoPLTImportCalls(t *testing.T) {
	for _, name := range []string{"c-noplt", "clang-c-noplt"} {
		t.Run(name, func(t *testing.T) {
			path := fixturePath(t, name)
			if _, err := exec.LookPath("objdump"); err != nil {
				t.Skip("objdump is not installed")
			}
			out, err := exec.Command("objdump", "-d", "--no-show-raw-insn", path).Output()
			if err != nil {
				t.Fatal(err)
			}
			a, err := native.OpenFile(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(t.Context())
			names, err := a.Names(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			imports := map[uint64]string{} // the slots; a PLT stub carries name@plt
			for _, n := range names {
				if n.Kind == "import" && !strings.HasSuffix(n.Name, "@plt") {
					imports[n.Address] = n.Name
				}
			}
			calls := reObjdumpSlotCall.FindAllStringSubmatch(string(out), -1)
			if len(calls) < 3 {
				t.Fatalf("objdump shows %d calls through the GOT", len(calls))
			}
			sites := map[uint64]bool{}
			for _, m := range calls {
				site, _ := strconv.ParseUint(m[1], 16, 64)
				slot, _ := strconv.ParseUint(m[2], 16, 64)
				sites[site] = true
				if imports[slot] != m[3] {
					t.Errorf("GOT slot %#x of %s is named %q", slot, m[3], imports[slot])
				}
				from, err := a.ReferencesFrom(t.Context(), site, site+1)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(from, func(r ports.Reference) bool {
					return r.Kind == ports.RefCall && !r.Unresolved && r.To == slot && r.Slot == slot
				}) {
					t.Errorf("call at %#x through %s's slot %#x: references %+v", site, m[3], slot, from)
				}
				to, err := a.ReferencesTo(t.Context(), slot, slot+1)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(to, func(r ports.Reference) bool { return r.Kind == ports.RefCall && r.From == site }) {
					t.Errorf("references to %s's slot %#x miss the call at %#x", m[3], slot, site)
				}
			}
			all, err := a.ReferencesFrom(t.Context(), 0, ^uint64(0))
			if err != nil {
				t.Fatal(err)
			}
			viaReg := objdumpRegisterSlotCalls(string(out))
			if len(viaReg) == 0 { // _init's "call *%rax" after testing the __gmon_start__ slot
				t.Error("objdump shows no call through a register loaded from a slot")
			}
			for _, r := range all {
				if r.Kind == ports.RefCall && !r.Unresolved && !sites[r.From] && imports[r.To] != "" && viaReg[r.From] != r.To {
					t.Errorf("call at %#x to import %s at %#x: objdump shows no call through that slot there", r.From, imports[r.To], r.To)
				}
				if slot, ok := viaReg[r.From]; ok && r.Kind == ports.RefCall && imports[slot] != "" && (r.Unresolved || r.To != slot) {
					t.Errorf("call at %#x through a register loaded from %s's slot %#x: %+v", r.From, imports[slot], slot, r)
				}
			}
		})
	}
}
