package native_test

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// Differential tests against binutils. Each skips when its tool is absent.

const ls = "/usr/bin/ls"

// elfTargets are the ELF files compared with binutils: the gcc fixtures and
// /usr/bin/ls (stripped, so compared through its dynamic symbols).
func elfTargets(t *testing.T, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		if n == "ls" || n == "libc" || n == "libc-arm64" {
			path := map[string]string{"ls": ls, "libc": "/lib/x86_64-linux-gnu/libc.so.6", "libc-arm64": "/usr/aarch64-linux-gnu/lib/libc.so.6"}[n]
			if _, err := elf.Open(path); err != nil {
				continue
			}
			out[n] = path
			continue
		}
		out[n] = fixturePath(t, n)
	}
	return out
}

func openAnalysis(t *testing.T, path string) *native.Analysis {
	t.Helper()
	a, err := native.OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

// nmSymbol is one defined symbol as nm prints it.
type nmSymbol struct {
	addr, size uint64
	hasSize    bool
	name       string
}

// nmFunctions runs nm -S and keeps the defined text symbols (T, t, W, i)
// inside executable sections; nm shows weak data symbols as W too.
func nmFunctions(t *testing.T, path string, dynamic bool) map[uint64][]nmSymbol {
	t.Helper()
	args := []string{"-S", "--defined-only"}
	if dynamic {
		args = append(args, "-D")
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The host's nm lists AArch64 mapping symbols ($x, $d) as text
	// symbols; the target's hides them, as it does other special symbols.
	nm := "nm"
	if f.Machine == elf.EM_AARCH64 {
		nm = "aarch64-linux-gnu-nm"
		needTool(t, nm)
	}
	out, err := run(t.Context(), "", nil, nm, append(args, path)...)
	if err != nil {
		t.Fatal(err)
	}
	inCode := func(addr uint64) bool {
		return slices.ContainsFunc(f.Sections, func(s *elf.Section) bool {
			return s.Flags&elf.SHF_EXECINSTR != 0 && addr >= s.Addr && addr < s.Addr+s.Size
		})
	}
	syms := map[uint64][]nmSymbol{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		var s nmSymbol
		var typ string
		switch len(f) {
		case 3:
			typ, s.name = f[1], f[2]
		case 4:
			typ, s.name, s.hasSize = f[2], f[3], true
			s.size, err = strconv.ParseUint(f[1], 16, 64)
		default:
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if s.addr, err = strconv.ParseUint(f[0], 16, 64); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains("TtWi", typ) || !inCode(s.addr) {
			continue
		}
		s.name, _, _ = strings.Cut(s.name, "@") // nm -D prints versions
		syms[s.addr] = append(syms[s.addr], s)
	}
	return syms
}

func TestProceduresMatchNM(t *testing.T) {
	needTool(t, "nm")
	for name, path := range elfTargets(t, "c", "c-g", "c-O2", "ls", "clang-c", "clang-c-g", "clang-c-O2", "clang-c-O2-g4", "clang-c-O3-nopie", "clang-c-lld", "clang-c-noplt", "clang-c-arm64", "clang-c-i686", "clang-vtable") {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			want := nmFunctions(t, path, name == "ls")
			is.True(len(want) > 0)
			procs, err := openAnalysis(t, path).Procedures(context.Background())
			is.NoErr(err)
			got := map[uint64]ports.Procedure{}
			for _, p := range procs {
				got[p.Address] = p
				if p.Source == "symbol" || p.Source == "dynamic-symbol" {
					_, ok := want[p.Address]
					is.True(ok) // a procedure from a symbol is a text symbol for nm
				}
			}
			for addr, syms := range want {
				p, ok := got[addr]
				if !ok {
					t.Errorf("nm symbol %s at 0x%x is not a procedure", syms[0].name, addr)
					continue
				}
				i := slices.IndexFunc(syms, func(s nmSymbol) bool { return s.name == p.Name })
				if i < 0 {
					t.Errorf("procedure at 0x%x is %q; nm names it %v", addr, p.Name, syms)
					continue
				}
				if syms[i].hasSize {
					is.Equal(p.Size, syms[i].size) // procedure size is the symbol's
				}
			}
		})
	}
}

// TestDWARFProceduresMatchNM checks the DWARF fallback on a file with debug
// info but no .symtab against nm on the same program before stripping.
// The files are gcc's DWARF and clang's DWARF 5 (strx/addrx forms) and 4;
// an inlined function's out-of-line copy, whose entry refers to the
// abstract one for its name; C++ methods, named by their linkage names as
// their symbols are.
func TestDWARFProceduresMatchNM(t *testing.T) {
	needTool(t, "nm")
	hello := []string{"add", "greet", "main", "square"}
	for _, tc := range []struct {
		stripped, unstripped string
		names                []string
	}{
		{"c-dwarf", "c-g", hello},
		{"clang-c-dwarf", "clang-c-g", hello},
		{"clang-c-dwarf4", "clang-c-O2-g4", hello},
		{"clang-c-arm64-dwarf", "clang-c-arm64", hello},
		{"clang-c-i686-dwarf", "clang-c-i686", hello},
		{"inl-O2-g-dwarf", "inl-O2-g", []string{"main", "scaled"}},
		{"clang-inl-O2-g-dwarf", "clang-inl-O2-g", []string{"main", "scaled"}},
		{"vtable-g-dwarf", "vtable-g", []string{"_Z3usePK5Shape", "_ZN2SqD0Ev", "_ZN2SqD2Ev", "_ZNK2Sq4areaEv", "main"}},
		{"clang-vtable-g-dwarf", "clang-vtable-g", []string{"_Z3usePK5Shape", "_ZN2SqD0Ev", "_ZN5ShapeD2Ev", "_ZNK2Sq4areaEv", "main"}},
	} {
		stripped, unstripped := tc.stripped, tc.unstripped
		t.Run(stripped, func(t *testing.T) {
			is := is.New(t)
			want := nmFunctions(t, fixturePath(t, unstripped), false)
			procs, err := openAnalysis(t, fixturePath(t, stripped)).Procedures(context.Background())
			is.NoErr(err)
			var names []string
			for _, p := range procs {
				if p.Source != "dwarf" {
					continue
				}
				names = append(names, p.Name)
				syms := want[p.Address]
				is.True(slices.ContainsFunc(syms, func(s nmSymbol) bool { return s.name == p.Name && s.size == p.Size })) // DWARF subprogram is an nm symbol
			}
			slices.Sort(names)
			is.Equal(names, tc.names)
		})
	}
}

var readelfSection = regexp.MustCompile(`^\s*\[\s*(\d+)\]\s+(.*)$`)

func TestSegmentsMatchReadelf(t *testing.T) {
	needTool(t, "readelf")
	targets := elfTargets(t, "c", "c-g", "c-stripped", "ls", "clang-c-g", "clang-c-O3-nopie", "clang-c-lld", "clang-c-arm64", "clang-c-i686")
	if !testing.Short() {
		targets["go-linux-arm64"] = fixturePath(t, "go-linux-arm64")
	}
	for name, path := range targets {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			out, err := run(t.Context(), "", nil, "readelf", "-S", "-W", path)
			is.NoErr(err)
			var want []ports.Segment
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				m := readelfSection.FindStringSubmatch(sc.Text())
				if m == nil || m[1] == "0" {
					continue
				}
				f := strings.Fields(m[2]) // name type address offset size ...
				is.True(len(f) >= 5)
				want = append(want, ports.Segment{Name: f[0], Start: hex(t, f[2]), FileOffset: hex(t, f[3]), Size: hex(t, f[4])})
			}
			is.True(len(want) > 20)
			segs, err := openAnalysis(t, path).Segments(context.Background())
			is.NoErr(err)
			is.Equal(len(segs), len(want))
			for i, s := range segs {
				is.Equal(s.Kind, "section")
				is.Equal(ports.Segment{Name: s.Name, Start: s.Start, FileOffset: s.FileOffset, Size: s.Size}, want[i])
			}
		})
	}
}

func hex(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var objdumpPLT = regexp.MustCompile(`^([0-9a-f]+) <(.+@plt)>:$`)

func TestPLTMatchesObjdump(t *testing.T) {
	for name, path := range elfTargets(t, "c", "c-O2", "c-stripped", "c-ibt", "c-noplt", "ls", "libc", "c-arm64", "c-arm64-pac", "libc-arm64",
		"clang-c", "clang-c-O2", "clang-c-O3-nopie", "clang-c-lld", "clang-c-noplt", "clang-c-arm64", "clang-vtable") {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			objdump := "objdump"
			if strings.Contains(name, "arm64") {
				objdump = "aarch64-linux-gnu-objdump"
			}
			needTool(t, objdump)
			out, err := run(t.Context(), "", nil, objdump, "-d", path)
			is.NoErr(err)
			want := map[uint64]string{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if m := objdumpPLT.FindStringSubmatch(sc.Text()); m != nil {
					want[hex(t, m[1])] = m[2]
				}
			}
			is.True(len(want) > 0)

			a := openAnalysis(t, path)
			procs, err := a.Procedures(context.Background())
			is.NoErr(err)
			got := map[uint64]string{}
			for _, p := range procs {
				if p.Source == "plt" {
					got[p.Address] = p.Name
					is.True(p.Thunk)
					if strings.HasPrefix(p.Name, "*ABS*") {
						// libc's IRELATIVE stubs reach its own ifuncs
						// (*ABS*+0x9f550@plt is strnlen): no import.
						is.True(!p.External)
						is.True(p.ThunkTarget != "" && !strings.HasPrefix(p.ThunkTarget, "*ABS*"))
						continue
					}
					is.True(p.External)
					is.Equal(p.ThunkTarget+"@plt", p.Name)
				}
			}
			is.Equal(got, want)

			// The stubs are imports, and so are the GOT slots a GLOB_DAT
			// or JUMP_SLOT relocation fills with an undefined symbol's
			// address, named after the symbol.
			for slot, name := range gotImportSlots(t, path) {
				want[slot] = name
			}
			names, err := a.Names(context.Background())
			is.NoErr(err)
			imports := map[uint64]string{}
			for _, n := range names {
				if n.Kind == "import" {
					imports[n.Address] = n.Name
				}
			}
			is.Equal(imports, want)
		})
	}
}

var readelfGOTImport = regexp.MustCompile(`^([0-9a-f]+)\s+[0-9a-f]+\s+R_(?:X86_64|AARCH64)_(?:GLOB_DAT|JUMP_SLOT)\s+[0-9a-f]+\s+([^@\s]+)\S*\s+\+\s+0$`)

// gotImportSlots reads readelf's dynamic relocations: the slots a GLOB_DAT
// or JUMP_SLOT relocation fills with the address of a symbol the file does
// not define (debug/elf says which), and the symbol.
func gotImportSlots(t *testing.T, path string) map[uint64]string {
	t.Helper()
	defined := map[string]bool{}
	for _, s := range dynamicSymbols(t, path) {
		if s.Section != elf.SHN_UNDEF {
			defined[s.Name] = true
		}
	}
	out, err := run(t.Context(), "", nil, "readelf", "-rW", path)
	if err != nil {
		t.Fatal(err)
	}
	slots := map[uint64]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if m := readelfGOTImport.FindStringSubmatch(strings.TrimSpace(l)); m != nil && !defined[m[2]] {
			slots[hex(t, m[1])] = m[2]
		}
	}
	return slots
}

// dynamicSymbols is an ELF file's dynamic symbol table as debug/elf reads it.
func dynamicSymbols(t *testing.T, path string) []elf.Symbol {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	return syms
}
