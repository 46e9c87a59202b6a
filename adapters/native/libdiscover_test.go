package native_test

import (
	"context"
	"os/exec"
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
