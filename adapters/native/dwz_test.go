package native_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
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
	"rea/ports/portstest"
)

// dwzPrograms are the fixtures under testdata/dwz, which share shared.h.
var dwzPrograms = []string{"prog1", "prog2", "prog3"}

// dwzBuild is the dwz fixtures built twice: plain (gcc -g, as built) and
// processed by dwz -m into a supplementary file, then split as Debian
// splits a package: the stripped programs, and their debug files under a
// debug root by build ID.
type dwzBuild struct {
	dir      string
	prefix   string
	plain    map[string]string // unstripped, without dwz
	dwz      map[string]string // unstripped, after dwz (the target carries the altlink)
	stripped map[string]string // stripped after dwz
	debug    map[string]string // the debug files, under root
	root     string            // the debug root
	sup      string            // the supplementary file
	supID    string            // its build ID (checksum), hex
	link     string            // the link as written
}

// buildDWZ builds the fixtures with cc (prefix names the toolchain). The
// link dwz writes is relative to the debug files' directory
// (../../.dwz/common.debug, the supplementary file under the root, as
// Fedora lays it out) unless absolute; dwarf5 asks dwz for .debug_sup.
func buildDWZ(t testing.TB, prefix string, absolute, dwarf5 bool, flags ...string) dwzBuild {
	t.Helper()
	cc, objcopy, strip := prefix+"gcc", prefix+"objcopy", prefix+"strip"
	for _, tool := range []string{cc, objcopy, strip} {
		needTool(t, tool)
	}
	if _, err := exec.LookPath("dwz"); err != nil {
		t.Skip("dwz is not installed: apt install dwz")
	}
	srcDir, err := filepath.Abs(filepath.Join("testdata", "dwz"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	b := dwzBuild{dir: t.TempDir(), prefix: prefix, plain: map[string]string{}, dwz: map[string]string{}, stripped: map[string]string{}, debug: map[string]string{}}
	b.root = filepath.Join(b.dir, "debug-root")
	for _, sub := range []string{"plain", "dwz", "stripped", filepath.Join("debug-root", ".dwz")} {
		if err := os.MkdirAll(filepath.Join(b.dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustRun := func(dir string, args ...string) {
		t.Helper()
		if _, err := run(ctx, dir, nil, args[0], args[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range dwzPrograms {
		b.plain[p] = filepath.Join(b.dir, "plain", p)
		b.dwz[p] = filepath.Join(b.dir, "dwz", p)
		mustRun(b.dir, append(append([]string{cc, "-g", "-O1", "-Wl,--build-id", "-I", srcDir}, flags...), "-o", b.plain[p], filepath.Join(srcDir, p+".c"))...)
		copyFile(t, b.plain[p], b.dwz[p])
	}
	b.sup, b.link = filepath.Join(b.root, ".dwz", "common.debug"), "../../.dwz/common.debug"
	if absolute {
		b.sup = filepath.Join(b.dir, "common.debug")
		b.link = b.sup
	}
	args := []string{"dwz", "-m", b.sup, "-M", b.link}
	if dwarf5 {
		args = append(args, "--dwarf-5")
	}
	mustRun(filepath.Join(b.dir, "dwz"), append(args, dwzPrograms...)...)
	for _, p := range dwzPrograms {
		id := buildIDOf(t, b.dwz[p])
		b.debug[p] = filepath.Join(b.root, ".build-id", id[:2], id[2:]+".debug")
		if err := os.MkdirAll(filepath.Dir(b.debug[p]), 0o755); err != nil {
			t.Fatal(err)
		}
		b.stripped[p] = filepath.Join(b.dir, "stripped", p)
		mustRun(b.dir, objcopy, "--only-keep-debug", b.dwz[p], b.debug[p])
		mustRun(b.dir, strip, "--strip-all", "-o", b.stripped[p], b.dwz[p])
	}
	b.supID = supIDOf(t, b.sup)
	return b
}

// supIDOf is a supplementary file's build ID, or the checksum of its
// .debug_sup, read with debug/elf apart from the engine.
func supIDOf(t testing.TB, path string) string {
	t.Helper()
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		if s := f.Section(".debug_sup"); s != nil && f.Section(".note.gnu.build-id") == nil {
			b, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			// version (2), is_supplementary (1), an empty name, the length, the checksum
			if len(b) < 5 || b[2] != 1 || b[3] != 0 || int(b[4]) != len(b)-5 {
				t.Fatalf("unexpected .debug_sup in %s: %x", path, b)
			}
			return fmt.Sprintf("%x", b[5:])
		}
	}
	return buildIDOf(t, path)
}

// supParam is the profile's record of the supplementary file, or nil.
func supParam(a *native.Analysis) map[string]any {
	s, _ := debugParam(a)["supplementary"].(map[string]any)
	return s
}

// signatures is every DWARF signature of plain's procedures, read at the
// same addresses in a, as text.
func signaturesAt(t *testing.T, plain, a *native.Analysis) (want, got []string) {
	t.Helper()
	ctx := context.Background()
	ps, err := plain.Procedures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		sig, err := plain.Signature(ctx, p.Address)
		if err != nil {
			continue
		}
		want = append(want, fmt.Sprintf("%#x %s %+v", p.Address, sigText(p.Name, sig), sig))
		sig, err = a.Signature(ctx, p.Address)
		got = append(got, fmt.Sprintf("%#x %s %+v", p.Address, sigText(p.Name, sig), sig))
		if err != nil {
			got[len(got)-1] += " " + err.Error()
		}
	}
	return want, got
}

// linesAt is the source position of every procedure's first bytes.
func linesAt(t *testing.T, plain, a *native.Analysis) (want, got []string) {
	t.Helper()
	ctx := context.Background()
	rs, err := plain.FunctionRanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		for addr := r.Start; addr < r.End && addr < r.Start+24; addr += 4 {
			w, errW := plain.SourceAt(ctx, addr)
			g, errG := a.SourceAt(ctx, addr)
			want = append(want, fmt.Sprintf("%#x %+v %v", addr, w, errW != nil))
			got = append(got, fmt.Sprintf("%#x %+v %v", addr, g, errG != nil))
		}
	}
	return want, got
}

// stripSymtab removes a program's symbol tables and keeps its DWARF (and
// the link to the supplementary file): procedures are named from DWARF.
func stripSymtab(t *testing.T, b dwzBuild, from, to string) {
	t.Helper()
	if _, err := run(t.Context(), b.dir, nil, b.prefix+"strip", "--strip-all", "--keep-section=.debug_*",
		"--keep-section=.gnu_debugaltlink", "-o", to, from); err != nil {
		t.Fatal(err)
	}
}

// A program processed by dwz, stripped, with its debug file under a debug
// root, reads as the same program without dwz: every signature (types,
// names and parameter locations that dwz moved to the supplementary file,
// crossing into it through DW_FORM_GNU_ref_alt and _strp_alt, or ref_sup4
// and strp_sup with --dwarf-5), every source line and inlined call, and
// value flow's arities; the profile names the supplementary file. So does
// the unstripped program carrying the link itself, and one without a
// symbol table, whose procedures are named from DWARF.
func TestSupplementaryMatchesPlain(t *testing.T) {
	type variant struct {
		name, prefix     string
		absolute, dwarf5 bool
	}
	var variants []variant
	for _, arch := range []struct{ name, prefix string }{{"x86-64", ""}, {"aarch64", "aarch64-linux-gnu-"}} {
		variants = append(variants,
			variant{arch.name + "/relative", arch.prefix, false, false},
			variant{arch.name + "/absolute", arch.prefix, true, false},
			variant{arch.name + "/dwarf5", arch.prefix, false, true})
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			is := is.New(t)
			b := buildDWZ(t, v.prefix, v.absolute, v.dwarf5)
			ctx := context.Background()
			for _, p := range dwzPrograms {
				plain := openWith(t, b.plain[p])
				with := openWith(t, b.stripped[p], b.root)

				d := debugParam(with)
				is.Equal(d["path"], b.debug[p])
				s := supParam(with)
				is.True(s != nil)
				is.Equal(s["found_by"], "altlink")
				is.Equal(s["sha256"], sha256Of(t, b.sup))
				is.Equal(s["path"], b.sup) // relative: beside the debug file, DIR/.build-id/xx/../../.dwz/common.debug
				lims, err := with.Limitations(ctx)
				is.NoErr(err)
				is.Equal(lims, []string(nil))

				want, got := signaturesAt(t, plain, with)
				is.True(len(want) >= 2)
				is.Equal(got, want)
				wantL, gotL := linesAt(t, plain, with)
				is.Equal(gotL, wantL)
				wantP, wantN := procsAndNames(t, plain)
				gotP, gotN := procsAndNames(t, with)
				is.Equal(gotP, wantP)
				is.Equal(gotN, wantN)
				lims, err = with.Limitations(ctx)
				is.NoErr(err)
				is.Equal(lims, []string(nil)) // the join succeeded

				if p == "prog1" { // value flow's arities come from the joined DWARF
					main := procAddr(t, plain, "main")
					vf := func(a *native.Analysis) string {
						v, err := a.ValueFlow(ctx, ports.FunctionRequest{Address: main})
						is.NoErr(err)
						return fmt.Sprintf("%+v", v)
					}
					is.Equal(vf(with), vf(plain))
				}

				if !v.absolute {
					continue // the unstripped programs' relative link is relative to the debug files
				}
				own := openWith(t, b.dwz[p], b.root)
				is.Equal(debugParam(own), map[string]any{"supplementary": map[string]any{"path": b.sup, "sha256": sha256Of(t, b.sup), "found_by": "altlink"}})
				want, got = signaturesAt(t, plain, own)
				is.Equal(got, want)

				// No symbol table: procedures are named from DWARF.
				noSymPlain, noSymDWZ := filepath.Join(b.dir, p+".nosym-plain"), filepath.Join(b.dir, p+".nosym-dwz")
				stripSymtab(t, b, b.plain[p], noSymPlain)
				stripSymtab(t, b, b.dwz[p], noSymDWZ)
				wantP, wantN = procsAndNames(t, openWith(t, noSymPlain))
				is.True(slices.ContainsFunc(wantP, func(s string) bool {
					return strings.Contains(s, "Name:measure ") || strings.Contains(s, "Name:grow ") || strings.Contains(s, "Name:label ")
				}))
				gotP, gotN = procsAndNames(t, openWith(t, noSymDWZ, t.TempDir())) // a root without its debug file
				is.Equal(gotP, wantP)
				is.Equal(gotN, wantN)
			}
		})
	}
}

// Without the link's file, the supplementary file is found by its build ID
// under the debug root.
func TestSupplementaryByBuildID(t *testing.T) {
	is := is.New(t)
	b := buildDWZ(t, "", false, false)
	byID := filepath.Join(b.root, ".build-id", b.supID[:2], b.supID[2:]+".debug")
	is.NoErr(os.MkdirAll(filepath.Dir(byID), 0o755))
	is.NoErr(os.Rename(b.sup, byID))
	with := openWith(t, b.stripped["prog1"], b.root)
	is.Equal(supParam(with), map[string]any{"path": byID, "sha256": sha256Of(t, byID), "found_by": "build-id"})
	want, got := signaturesAt(t, openWith(t, b.plain["prog1"]), with)
	is.Equal(got, want)
}

// A supplementary file of another build at the link's path is refused and
// said, and so is a missing one; either way the symbols, names and source
// lines are what they are with the debug file alone, the signatures lack
// what dwz moved (today's result), and the warm cache key and the DWARF
// charged to the budget differ from those of the joined analysis.
func TestSupplementaryRefusedOrMissing(t *testing.T) {
	is := is.New(t)
	b := buildDWZ(t, "", false, false)
	other := buildDWZ(t, "", false, false, "-O2", "-DOTHER_BUILD")
	is.True(b.supID != other.supID)
	ctx := context.Background()
	p := "prog1"
	plain := openWith(t, b.plain[p])
	measure := procAddr(t, plain, "measure")
	wantSig, err := plain.Signature(ctx, measure)
	is.NoErr(err)
	is.Equal(sigText("measure", wantSig), "int measure(shape_t * s, counter_t n, const char * label, double k)")

	cache := t.TempDir()
	open := func(ctx context.Context) *native.Analysis {
		an, err := native.New(&native.Options{CacheDir: cache, DebugFileDirectories: []string{b.root}}).Open(ctx, ports.Target{Path: b.stripped[p]})
		is.NoErr(err)
		t.Cleanup(func() { an.Close(context.Background()) })
		return an.(*native.Analysis)
	}
	charged := func() (string, int64) {
		acc := &portstest.MemoryAccount{Max: 1 << 30}
		ctx := ports.WithMemory(context.Background(), acc)
		a := open(ctx)
		_, err := a.Signature(ctx, measure)
		is.NoErr(err)
		return native.CacheProfileDigest(ctx, a), acc.Charged("the DWARF debug information")
	}
	joinedKey, joinedBytes := charged()

	good, err := os.ReadFile(b.sup)
	is.NoErr(err)
	for _, c := range []struct {
		name string
		sup  []byte // nil: removed
		note string
	}{
		{"wrong-build-id", mustRead(t, other.sup), fmt.Sprintf("Supplementary (dwz) file %s (found by altlink) was not used: its build ID %s differs from the %s the link names;", b.sup, other.supID, b.supID)},
		{"missing", nil, fmt.Sprintf("The DWARF of %s names the supplementary (dwz) file %q with build ID %s, which was not found", b.debug[p], b.link, b.supID)},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			is.NoErr(os.Remove(b.sup))
			if c.sup != nil {
				is.NoErr(os.WriteFile(b.sup, c.sup, 0o644))
			}
			defer os.WriteFile(b.sup, good, 0o644)
			a := openWith(t, b.stripped[p], b.root)
			is.Equal(supParam(a), nil)
			is.True(debugParam(a)["path"] == b.debug[p]) // the debug file itself is used
			lims, err := a.Limitations(ctx)
			is.NoErr(err)
			is.Equal(len(lims), 1)
			is.True(strings.HasPrefix(lims[0], c.note))

			wantP, wantN := procsAndNames(t, plain)
			gotP, gotN := procsAndNames(t, a)
			is.Equal(gotP, wantP)
			is.Equal(gotN, wantN)
			wantL, gotL := linesAt(t, plain, a)
			is.Equal(gotL, wantL)
			sig, err := a.Signature(ctx, measure)
			is.NoErr(err)
			is.True(sigText("measure", sig) != sigText("measure", wantSig)) // what dwz moved is missing

			key, bytes := charged()
			is.True(key != "" && key != joinedKey)
			is.True(bytes > 0 && bytes < joinedBytes) // the joined DWARF is charged whole
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// debugSpans are the file spans of an ELF file's .debug_* sections.
func debugSpans(t testing.TB, path string) [][2]int {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]int
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".debug_") && s.Type != elf.SHT_NOBITS {
			out = append(out, [2]int{int(s.Offset), int(s.Offset + s.FileSize)})
		}
	}
	return out
}

// exercise reads every list that uses the supplementary file.
func exercise(t *testing.T, a *native.Analysis) {
	t.Helper()
	ctx := context.Background()
	ps, err := a.Procedures(ctx)
	if err != nil {
		t.Fatalf("procedures: %v", err)
	}
	_, _ = a.Names(ctx)
	for _, p := range ps {
		_, _ = a.Signature(ctx, p.Address)
		_, _ = a.SourceAt(ctx, p.Address)
	}
	_, _ = a.Limitations(ctx)
}

// Hostile supplementary files: one whose build ID matches but whose DWARF
// is corrupted (bytes flipped, unit lengths and abbreviation offsets
// broken), cut short, or not ELF, is refused or read without panicking;
// the lists still answer.
func TestSupplementaryHostile(t *testing.T) {
	for _, dwarf5 := range []bool{false, true} {
		t.Run(map[bool]string{false: "altlink", true: "debug_sup"}[dwarf5], func(t *testing.T) {
			b := buildDWZ(t, "", true, dwarf5)
			good := mustRead(t, b.sup)
			spans := debugSpans(t, b.sup)
			cases := map[string][]byte{"empty": nil, "not-elf": []byte("hello\n"), "header": good[:64], "half": good[:len(good)/2]}
			for _, stride := range []int{7, 31, 97, 389} {
				bad := slices.Clone(good)
				for _, sp := range spans {
					for i := sp[0] + stride%5; i < sp[1]; i += stride {
						bad[i] ^= 0xff
					}
				}
				cases[fmt.Sprintf("flipped-%d", stride)] = bad
			}
			for i, sp := range spans { // each section's first words: unit lengths, versions, offsets
				for _, v := range []uint32{0, 0xffffffff, 0xfffffff0, 7, 1 << 30} {
					bad := slices.Clone(good)
					for off := sp[0]; off+4 <= sp[1] && off < sp[0]+16; off += 4 {
						binary.LittleEndian.PutUint32(bad[off:], v)
					}
					cases[fmt.Sprintf("section-%d-%#x", i, v)] = bad
				}
			}
			for name, content := range cases {
				t.Run(name, func(t *testing.T) {
					if err := os.WriteFile(b.sup, content, 0o644); err != nil {
						t.Fatal(err)
					}
					exercise(t, openWith(t, b.stripped["prog1"], b.root))
					exercise(t, openWith(t, b.dwz["prog2"], b.root))
				})
			}
		})
	}
}

// FuzzSupplementary writes the input as the supplementary file (the link
// names its path) and reads every list that uses it: nothing may panic.
// The seeds are the real file, whole and cut.
func FuzzSupplementary(f *testing.F) {
	b := buildDWZ(f, "", true, false)
	good, err := os.ReadFile(b.sup)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(b.sup, content, 0o644); err != nil {
			t.Fatal(err)
		}
		exercise(t, openWith(t, b.stripped["prog1"], b.root))
	})
}

// With no debug directories (REA_DEBUG_FILE_DIRECTORIES="") nothing
// outside the target is read: the link is not followed either, and the
// signatures lack what dwz moved.
func TestSupplementarySearchOff(t *testing.T) {
	is := is.New(t)
	b := buildDWZ(t, "", true, false)
	own := openWith(t, b.dwz["prog1"])
	is.Equal(debugParam(own), nil)
	want, got := signaturesAt(t, openWith(t, b.plain["prog1"]), own)
	is.True(len(want) > 0)
	is.True(!slices.Equal(got, want))
}

// The source-line index reads the debug file's units only: a
// supplementary file's partial units name line tables of its own
// (.debug_line offsets in the other file), which are not joined.
func TestSupplementaryLineUnits(t *testing.T) {
	is := is.New(t)
	b := buildDWZ(t, "", true, false)
	a := openWith(t, b.stripped["prog1"], b.root)
	units, supAt, err := native.LineUnitOffsets(context.Background(), a)
	is.NoErr(err)
	is.True(supAt > 0)
	is.True(len(units) > 0)
	for _, u := range units {
		is.True(uint64(u) < supAt)
	}
}

// joinSections reads an ELF file's .debug_abbrev, .debug_info and
// .debug_str with debug/elf.
func joinSections(t testing.TB, path string) map[string][]byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	for _, name := range []string{"abbrev", "info", "str", "line_str"} {
		if s := f.Section(".debug_" + name); s != nil {
			if out[name], err = s.Data(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// FuzzJoinSupplementary joins mutated debug and supplementary sections:
// the join never panics, never writes its inputs, and a join it accepts
// holds both files' units. Seeds: the fixtures' real sections (DW_FORM_GNU
// forms and DWARF 5's).
func FuzzJoinSupplementary(f *testing.F) {
	for _, dwarf5 := range []bool{false, true} {
		b := buildDWZ(f, "", true, dwarf5)
		m, s := joinSections(f, b.dwz["prog1"]), joinSections(f, b.sup)
		f.Add(m["info"], m["abbrev"], s["info"], s["abbrev"], s["str"])
		f.Add(m["info"], m["abbrev"], []byte{}, []byte{}, s["str"]) // no entries to refer to, strings to
	}
	f.Fuzz(func(t *testing.T, mainInfo, mainAbbrev, supInfo, supAbbrev, supStr []byte) {
		main := map[string][]byte{"info": mainInfo, "abbrev": mainAbbrev, "str": bytes.Repeat([]byte("name\x00"), 64)}
		sup := map[string][]byte{"info": supInfo, "abbrev": supAbbrev, "str": supStr}
		before := [][]byte{slices.Clone(mainInfo), slices.Clone(mainAbbrev), slices.Clone(supInfo), slices.Clone(supAbbrev)}
		out, at, err := native.JoinSupplementary(binary.LittleEndian, main, sup)
		for i, in := range [][]byte{mainInfo, mainAbbrev, supInfo, supAbbrev} {
			if !bytes.Equal(in, before[i]) {
				t.Fatalf("input %d was written", i)
			}
		}
		if err != nil {
			return
		}
		if at != uint64(len(mainInfo)) || len(out["info"]) != len(mainInfo)+len(supInfo) {
			t.Fatalf("joined info: %d bytes, supplementary at %d, from %d and %d", len(out["info"]), at, len(mainInfo), len(supInfo))
		}
	})
}

// A relative link is relative to where the debug file really is: Fedora's
// .build-id entries are symlinks to the debug files under the program's
// path, and only from there does ../../.dwz/common.debug name the file.
func TestSupplementaryBesideRealDebugFile(t *testing.T) {
	is := is.New(t)
	b := buildDWZ(t, "", false, false)
	real := filepath.Join(b.root, "usr", "lib", "sub", "prog1.debug")
	is.NoErr(os.MkdirAll(filepath.Dir(real), 0o755))
	is.NoErr(os.Rename(b.debug["prog1"], real))
	is.NoErr(os.Symlink(real, b.debug["prog1"]))
	sup := filepath.Join(b.root, "usr", ".dwz", "common.debug") // real/../../.dwz
	is.NoErr(os.MkdirAll(filepath.Dir(sup), 0o755))
	is.NoErr(os.Rename(b.sup, sup))
	with := openWith(t, b.stripped["prog1"], b.root)
	is.Equal(debugParam(with)["path"], b.debug["prog1"])
	is.Equal(supParam(with)["path"], sup)
	want, got := signaturesAt(t, openWith(t, b.plain["prog1"]), with)
	is.Equal(got, want)
}

// libcJoin is libc6-dbg's debug file for libc.so.6 (which names no
// supplementary file) and the fixtures' supplementary file, as sections to
// join; it skips without them.
func libcJoin(tb testing.TB) (main, sup map[string][]byte) {
	id := ""
	if f, err := elf.Open(libc); err == nil {
		f.Close()
		id = buildIDOf(tb, libc)
	}
	path := filepath.Join("/usr/lib/debug/.build-id", id[:min(2, len(id))], id[min(2, len(id)):]+".debug")
	if _, err := os.Stat(path); id == "" || err != nil {
		tb.Skip("libc6-dbg's debug file for libc.so.6 is not installed: apt install libc6-dbg")
	}
	return joinSections(tb, path), joinSections(tb, buildDWZ(tb, "", true, false).sup)
}

// Live: a large real debug file's units are walked whole (libc's 5.8 MB of
// entries, gcc 12's forms: DWARF 5, implicit constants, a ten-byte SLEB128
// constant that binary.Varint refuses).
func TestJoinSupplementaryLibcLive(t *testing.T) {
	is := is.New(t)
	main, sup := libcJoin(t)
	out, at, err := native.JoinSupplementary(binary.LittleEndian, main, sup)
	is.NoErr(err)
	is.Equal(at, uint64(len(main["info"])))
	is.True(bytes.Equal(out["info"][:at], main["info"])) // nothing in it refers to the supplementary file
}

// BenchmarkJoinSupplementary: the join's walk over libc's debug file, the
// cost a dwz'd debug file of that size adds to the DWARF load.
func BenchmarkJoinSupplementary(b *testing.B) {
	main, sup := libcJoin(b)
	b.SetBytes(int64(len(main["info"])))
	for b.Loop() {
		if _, _, err := native.JoinSupplementary(binary.LittleEndian, main, sup); err != nil {
			b.Fatal(err)
		}
	}
}
