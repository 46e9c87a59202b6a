package native_test

import (
	"context"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// noUnwind copies full without its symbols and its unwind tables, so that
// its C library functions are found only by whole-file discovery.
func noUnwind(t testing.TB, tool staticTool, full string) string {
	t.Helper()
	objcopy := strings.TrimSuffix(tool.strip, "strip") + "objcopy"
	if _, err := exec.LookPath(objcopy); err != nil {
		t.Skipf("%s not found: apt install %s", objcopy, tool.pkg)
	}
	out := full + ".nounwind"
	if b, err := exec.Command(objcopy, "--strip-all", "--remove-section", ".eh_frame", "--remove-section", ".eh_frame_hdr", full, out).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", objcopy, err, b)
	}
	return out
}

// A static program without symbols or unwind tables: its C library
// functions are procedures only whole-file discovery finds (call targets,
// gaps), named from the libraries when it completes. Every name is a
// symbol of the unstripped build at that address, and discovery's names
// are most of the names given (at open, only the few procedures the
// program's tables list could be matched).
func TestLibraryNamesDiscovered(t *testing.T) {
	for _, tool := range staticTools {
		t.Run(tool.name, func(t *testing.T) {
			is := is.New(t)
			libs := tool.need(t)
			fromLib := archiveFunctions(t, libs)
			full, _ := staticBuild(t, tool, "larger", libLarger, "-lm", "-pthread")
			a := openLibs(t, noUnwind(t, tool, full), &native.SignatureLibraries{Installed: true})
			s := scoreLibraries(t, a, full, fromLib)
			// The names given at open are labels too; discovery's are not.
			names, err := a.Names(context.Background())
			is.NoErr(err)
			procs, err := a.Procedures(context.Background())
			is.NoErr(err)
			atOpen := 0
			for _, p := range procs {
				if p.Source == "library" && slices.ContainsFunc(names, func(n ports.Name) bool { return n.Address == p.Address && n.Name == p.Name }) {
					atOpen++
				}
			}
			t.Logf("%s without unwind tables: %d named of %d C library functions present (recall %.1f%%), %d at open, %d wrong", tool.name, s.named, s.present, 100*float64(s.named)/float64(max(s.present, 1)), atOpen, len(s.wrong))
			for _, w := range s.wrong {
				t.Errorf("wrong name: %s", w)
			}
			is.True(s.named-atOpen > s.present/2) // most are named after discovery
		})
	}
}

// Discovery's library names are the same on one core as on several.
func TestLibraryNamesDiscoveredDeterministic(t *testing.T) {
	is := is.New(t)
	tool := staticTools[0]
	tool.need(t)
	full, _ := staticBuild(t, tool, "larger", libLarger, "-lm", "-pthread")
	prog := noUnwind(t, tool, full)
	libs := &native.SignatureLibraries{Installed: true}
	a := openLibs(t, prog, libs)
	p1, n1 := procsAndNames(t, a)
	prev := runtime.GOMAXPROCS(1)
	b := openLibs(t, prog, libs)
	p2, n2 := procsAndNames(t, b)
	runtime.GOMAXPROCS(prev)
	is.Equal(p1, p2)
	is.Equal(n1, n2)
	is.Equal(a.Profile(), b.Profile())
	is.True(slices.ContainsFunc(p1, func(p string) bool { return strings.Contains(p, "library") }))
}

// funcSizes maps each address of the program's sized function symbols to
// the largest size given there.
func funcSizes(t testing.TB, path string) map[uint64]uint64 {
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
	out := map[uint64]uint64{}
	for _, s := range syms {
		if typ := elf.ST_TYPE(s.Info); (typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC) && s.Section != elf.SHN_UNDEF {
			out[s.Value] = max(out[s.Value], s.Size)
		}
	}
	return out
}

// strayStarts lists the procedures discovery found, without a name, that
// lie strictly inside a function the libraries named, by the unstripped
// build's symbol sizes.
func strayStarts(procs []ports.Procedure, sizes map[uint64]uint64) []string {
	discovered := map[string]bool{"call-target": true, "jump-target": true, "gap": true, "address-taken": true, "data-pointer": true}
	var out []string
	end, holder := uint64(0), ""
	for _, p := range procs {
		if p.Address < end && p.Name == "" && discovered[p.Source] {
			out = append(out, fmt.Sprintf("%s at 0x%x inside %s", p.Source, p.Address, holder))
		}
		if p.Source == "library" && sizes[p.Address] > 0 && p.Address+sizes[p.Address] > end {
			end, holder = p.Address+sizes[p.Address], p.Name
		}
	}
	return out
}

// Whole-file discovery's starts inside a function the libraries named by
// its whole length (a gap after a jump that does not return, a call of a
// local label) are no function starts: they are parts of that function,
// not procedures. None of them is a function symbol of the unstripped
// build, and the list is the same on one core as on several.
func TestLibraryStrayStarts(t *testing.T) {
	tool := staticTools[0]
	tool.need(t)
	full, stripped := staticBuild(t, tool, "larger", libLarger, "-lm", "-pthread")
	syms, sizes := funcSymbols(t, full), funcSizes(t, full)
	libs := &native.SignatureLibraries{Installed: true}
	for _, prog := range []string{stripped, noUnwind(t, tool, full)} {
		t.Run(filepath.Base(prog), func(t *testing.T) {
			ctx := context.Background()
			a := openLibs(t, prog, libs)
			procs, err := a.Procedures(ctx)
			if err != nil {
				t.Fatal(err)
			}
			parts, err := a.ProcedureParts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			lib := map[uint64]bool{}
			for _, p := range procs {
				lib[p.Address] = p.Source == "library"
			}
			folded := 0
			for _, pt := range parts {
				if pt.Name != "" || !lib[pt.Procedure] || pt.Start <= pt.Procedure {
					continue // gcc's cold parts, before the other functions
				}
				folded++
				if names, ok := syms[pt.Start]; ok {
					t.Errorf("the function start 0x%x (%v) was taken out of the list as a part of 0x%x", pt.Start, names, pt.Procedure)
				}
			}
			strays := strayStarts(procs, sizes)
			t.Logf("%d procedures, %d starts inside library functions taken out, %d left", len(procs), folded, len(strays))
			for _, s := range strays {
				t.Errorf("stray start: %s", s)
			}
			prev := runtime.GOMAXPROCS(1)
			one, err := openLibs(t, prog, libs).Procedures(ctx)
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(one, procs) {
				t.Error("the list differs on one core")
			}
		})
	}
}
