package native_test

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// pic32Switches are switches gcc compiles to jump tables of GOT-relative
// offsets in 32-bit position-independent code: a dense one with a
// default, one over 10..19 (a sub before the cmp), nested ones, and one in
// a loop that calls out, so that its GOT register lives in a callee-saved
// register across the calls and the loop's back edge.
const pic32Switches = `#include <stdio.h>
__attribute__((noinline)) int dense(int x) {
	switch (x) { case 0: return puts("zero"); case 1: return puts("one"); case 2: return puts("two");
	case 3: return puts("three"); case 4: return puts("four"); case 5: return puts("five"); case 6: return 66; default: return -1; }
}
__attribute__((noinline)) int offset(int x) {
	switch (x) { case 10: return puts("ten"); case 11: return x * 3; case 12: return puts("twelve"); case 13: return x ^ 5;
	case 14: return puts("fourteen"); case 15: return x + 7; case 17: return puts("seventeen"); case 19: return x - 2; }
	return 0;
}
__attribute__((noinline)) int nested(int x, int y) {
	switch (x) {
	case 0: switch (y) { case 0: return puts("a"); case 1: return puts("b"); case 2: return puts("c"); case 3: return puts("d"); case 4: return 4; default: return 5; }
	case 1: return puts("one");
	case 2: switch (y) { case 5: return puts("e"); case 6: return puts("f"); case 7: return puts("g"); case 8: return puts("h"); case 9: return 9; }
		/* fall through */
	case 3: return puts("three");
	case 4: return y * 2;
	case 5: return puts("five");
	}
	return -1;
}
__attribute__((noinline)) int loop(const char *s) {
	int n = 0;
	for (; *s; s++) {
		switch (*s) { case 'a': n += puts("A"); break; case 'b': n -= 2; break; case 'c': n += puts("C"); break; case 'd': n *= 3; break;
		case 'e': n += puts("E"); break; case 'f': n ^= 1; break; case 'g': n += puts("G"); break; default: n++; }
	}
	return n;
}
int main(int argc, char **argv) { return dense(argc) + offset(argc + 9) + nested(argc, argc) + loop(argv[0]); }
`

// pic32SwitchFuncs are the functions of pic32Switches with a switch.
var pic32SwitchFuncs = []string{"dense", "offset", "nested", "loop"}

// buildSwitches builds pic32Switches with the cross gcc (or, for a name
// with "clang" in it, clang for i686 linking through it) and -Wl,-q (which
// keeps the tables' relocations for the oracle) and the given flags.
func buildSwitches(t *testing.T, name string, flags ...string) string {
	t.Helper()
	cc := "i686-linux-gnu-gcc"
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("%s is not installed (Debian package gcc-i686-linux-gnu)", cc)
	}
	if strings.Contains(name, "clang") {
		cc = "clang"
		if _, err := exec.LookPath(cc); err != nil {
			t.Skip("clang is not installed: apt install clang")
		}
		flags = append([]string{"--target=i686-linux-gnu"}, flags...)
	}
	dir := t.TempDir()
	src, out := filepath.Join(dir, "sw.c"), filepath.Join(dir, name)
	if err := os.WriteFile(src, []byte(pic32Switches), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"-Wl,-q"}, flags...), "-o", out, src)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
	return out
}

// switchOracle reads the jump tables of a -Wl,-q build from the file,
// without rea: every R_386_GOTOFF relocation the linker kept in a section
// that is not code is a table entry, whose word is its case's offset from
// _GLOBAL_OFFSET_TABLE_. It returns the cases (GOT + word) by the function
// symbol they lie in (a .cold part counted with its function).
func switchOracle(t *testing.T, path string) map[string][]uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var got uint64
	var funcs []elf.Symbol
	for _, s := range syms {
		switch {
		case s.Name == "_GLOBAL_OFFSET_TABLE_":
			got = s.Value
		case elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0:
			funcs = append(funcs, s)
		}
	}
	if got == 0 {
		t.Fatal("no _GLOBAL_OFFSET_TABLE_")
	}
	out := map[string][]uint64{}
	for _, rs := range f.Sections {
		if rs.Type != elf.SHT_REL || int(rs.Info) >= len(f.Sections) {
			continue
		}
		to := f.Sections[rs.Info]
		if to.Flags&elf.SHF_EXECINSTR != 0 || to.Flags&elf.SHF_ALLOC == 0 || to.Type != elf.SHT_PROGBITS {
			continue
		}
		rel, err := rs.Data()
		if err != nil {
			t.Fatal(err)
		}
		body, err := to.Data()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+8 <= len(rel); i += 8 {
			at, info := uint64(binary.LittleEndian.Uint32(rel[i:])), binary.LittleEndian.Uint32(rel[i+4:])
			if elf.R_386(info&0xff) != elf.R_386_GOTOFF {
				continue
			}
			k := at - to.Addr
			if at < to.Addr || k+4 > uint64(len(body)) {
				t.Fatalf("GOTOFF relocation at 0x%x outside %s", at, to.Name)
			}
			target := uint64(uint32(got) + binary.LittleEndian.Uint32(body[k:]))
			i := slices.IndexFunc(funcs, func(s elf.Symbol) bool { return target >= s.Value && target < s.Value+s.Size })
			if i < 0 {
				t.Fatalf("table entry at 0x%x: case 0x%x in no function", at, target)
			}
			name, _, _ := strings.Cut(funcs[i].Name, ".")
			out[name] = append(out[name], target)
		}
	}
	for name, ts := range out {
		slices.Sort(ts)
		out[name] = slices.Compact(ts)
	}
	return out
}

// TestPIC32SwitchTables: gcc's 32-bit PIC switches (a table of GOT-relative
// offsets, loaded off the GOT register and added to it) are jump tables:
// each function's jump-table edges are exactly the cases the oracle reads
// from the file (switchOracle), and no jump is left unresolved; as a PIE at
// -O0, -O1, -O2, -O3 and -Os and as a -fPIC shared library.
func TestPIC32SwitchTables(t *testing.T) {
	cases := []struct {
		name  string
		flags []string
	}{
		{"O0", []string{"-O0", "-fPIE", "-pie"}},
		{"O1", []string{"-O1", "-fPIE", "-pie"}},
		{"O2", []string{"-O2", "-fPIE", "-pie"}},
		{"O3", []string{"-O3", "-fPIE", "-pie"}},
		{"Os", []string{"-Os", "-fPIE", "-pie"}},
		{"O2-shared", []string{"-O2", "-fPIC", "-shared"}},
		{"O3-shared", []string{"-O3", "-fPIC", "-shared"}},
		// clang: the same GOT-relative tables; at -O0 "sub" bounds the
		// index and both the GOT register and the index are reloaded
		// from the frame before the load.
		{"clang-O0", []string{"-O0", "-fPIE", "-pie"}},
		{"clang-O2", []string{"-O2", "-fPIE", "-pie"}},
		{"clang-O3", []string{"-O3", "-fPIE", "-pie"}},
		{"clang-Os", []string{"-Os", "-fPIE", "-pie"}},
		{"clang-O2-shared", []string{"-O2", "-fPIC", "-shared"}},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := buildSwitches(t, "sw-"+c.name, c.flags...)
			oracle := switchOracle(t, path)
			if len(oracle) == 0 {
				t.Fatal("the oracle finds no jump table")
			}
			a := openAnalysis(t, path)
			for _, name := range pic32SwitchFuncs {
				p := procedureNamed(t, a, name)
				f, err := a.Function(ctx, ports.FunctionRequest{Address: p.Address})
				if err != nil {
					t.Fatal(err)
				}
				var got []uint64
				unresolved := 0
				for _, b := range f.Blocks {
					for _, e := range b.Successors {
						switch e.Kind {
						case ports.EdgeJumpTable:
							got = append(got, e.Target)
						case ports.EdgeUnresolved:
							unresolved++
						}
					}
				}
				slices.Sort(got)
				got = slices.Compact(got)
				if !slices.Equal(got, oracle[name]) || unresolved != 0 {
					t.Errorf("%s: jump-table cases %x, %d unresolved jumps; the file's tables give %x", name, got, unresolved, oracle[name])
				}
			}
		})
	}
}

// TestPIC32SwitchDiscovery: in a stripped build without .eh_frame, a
// function's extent comes from the code it reaches, so the cases its
// switch reaches only through its table (and the padding gas lays
// between them, lea esi, [esi+0]) belong to it: the range discovery gives
// the function holds every case the file's tables name within the
// function's symbol.
func TestPIC32SwitchDiscovery(t *testing.T) {
	needTool(t, "i686-linux-gnu-strip")
	ctx := context.Background()
	for _, opt := range []string{"-O2", "-Os"} {
		t.Run(opt, func(t *testing.T) {
			built := buildSwitches(t, "sw"+opt, opt, "-fPIE", "-pie", "-fno-asynchronous-unwind-tables")
			stripped := built + "-stripped"
			if b, err := exec.Command("i686-linux-gnu-strip", "-o", stripped, built).CombinedOutput(); err != nil {
				t.Fatalf("strip: %v\n%s", err, b)
			}
			oracle := switchOracle(t, built)
			f, err := elf.Open(built)
			if err != nil {
				t.Fatal(err)
			}
			syms, err := f.Symbols()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			ranges, err := openAnalysis(t, stripped).FunctionRanges(ctx)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, name := range pic32SwitchFuncs {
				i := slices.IndexFunc(syms, func(s elf.Symbol) bool { return s.Name == name })
				if i < 0 {
					t.Fatalf("no symbol %s", name)
				}
				s := syms[i]
				k := slices.IndexFunc(ranges, func(r ports.FunctionRange) bool { return r.Start == s.Value })
				if k < 0 {
					t.Errorf("%s at 0x%x: no function discovered there", name, s.Value)
					continue
				}
				for _, c := range oracle[name] {
					if c < s.Value || c >= s.Value+s.Size {
						continue // a .cold part, a function of its own
					}
					checked++
					if c >= ranges[k].End {
						t.Errorf("%s: case 0x%x lies past the discovered range [0x%x, 0x%x)", name, c, ranges[k].Start, ranges[k].End)
					}
				}
			}
			if checked < 10 {
				t.Errorf("only %d cases checked", checked)
			}
		})
	}
}

// TestPIC32SwitchTablesOf compares, on the 32-bit -Wl,-q builds listed in
// REA_PIC32_SWITCH_Q (separated by the path list separator), every
// function's jump-table cases with the file's tables, for checking larger
// programs by hand: it logs how many functions agree.
func TestPIC32SwitchTablesOf(t *testing.T) {
	list := os.Getenv("REA_PIC32_SWITCH_Q")
	if list == "" {
		t.Skip("REA_PIC32_SWITCH_Q names no -Wl,-q builds")
	}
	ctx := context.Background()
	for _, path := range filepath.SplitList(list) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			oracle := switchOracle(t, path)
			a := openAnalysis(t, path)
			procs, err := a.Procedures(ctx)
			if err != nil {
				t.Fatal(err)
			}
			agree, extra, missing := 0, 0, 0
			for name, want := range oracle {
				i := slices.IndexFunc(procs, func(p ports.Procedure) bool { return p.Name == name })
				if i < 0 {
					continue
				}
				f, err := a.Function(ctx, ports.FunctionRequest{Address: procs[i].Address})
				if err != nil {
					t.Fatal(err)
				}
				var got []uint64
				for _, b := range f.Blocks {
					for _, e := range b.Successors {
						if e.Kind == ports.EdgeJumpTable {
							got = append(got, e.Target)
						}
					}
				}
				slices.Sort(got)
				got = slices.Compact(got)
				for _, g := range got {
					if !slices.Contains(want, g) {
						extra++
						t.Errorf("%s: case 0x%x is in no table of the file", name, g)
					}
				}
				for _, w := range want {
					if !slices.Contains(got, w) {
						missing++
					}
				}
				if slices.Equal(got, want) {
					agree++
				} else {
					t.Logf("%s: %d of %d cases", name, len(got), len(want))
				}
			}
			t.Logf("%d of %d functions with tables agree; %d cases missing, %d not in the file's tables", agree, len(oracle), missing, extra)
		})
	}
}
