package native_test

import (
	"bufio"
	"context"
	"debug/elf"
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

// The sources of the static programs the library tests build.
const (
	libHello = `#include <stdio.h>
int main(void) { puts("hello"); return 0; }
`
	libLarger = `#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static void *work(void *arg) { int *v = arg; *v *= 2; return NULL; }

int main(int argc, char **argv) {
	int n = argc + 16;
	int *a = malloc(n * sizeof *a);
	for (int i = 0; i < n; i++) a[i] = rand() % 100;
	qsort(a, n, sizeof *a, cmp);
	char buf[64];
	snprintf(buf, sizeof buf, "%d %s %g", a[0], argv[0], sqrt((double)a[1]) + sin(argc));
	pthread_t t;
	pthread_create(&t, NULL, work, a);
	pthread_join(t, NULL);
	printf("%s %d %ld %f\n", buf, a[0], (long)time(NULL), strtod(argv[0], NULL));
	char *s = strdup(buf);
	printf("%zu\n", strlen(s));
	free(s);
	free(a);
	return 0;
}
`
)

// staticTool is a C compiler for one machine and its C library archives.
type staticTool struct {
	name, cc, strip string
	machine         elf.Machine
	pkg             string // the Debian package that installs cc and libc.a
}

var staticTools = []staticTool{
	{"x86-64", "gcc", "strip", elf.EM_X86_64, "gcc libc6-dev"},
	{"aarch64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", elf.EM_AARCH64, "gcc-aarch64-linux-gnu"},
	{"i686", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", elf.EM_386, "gcc-i686-linux-gnu"},
}

// need skips unless the compiler and the installed C library archives for
// its machine exist.
func (tool staticTool) need(t testing.TB) []string {
	t.Helper()
	if _, err := exec.LookPath(tool.cc); err != nil {
		t.Skipf("%s not found: apt install %s", tool.cc, tool.pkg)
	}
	libs := native.InstalledLibraries(tool.machine)
	if len(libs) == 0 {
		t.Skipf("no libc.a for %s: apt install %s", tool.name, tool.pkg)
	}
	return libs
}

// staticBuild compiles src statically and returns the program and its
// stripped copy.
func staticBuild(t testing.TB, tool staticTool, name, src string, flags ...string) (full, stripped string) {
	t.Helper()
	dir := t.TempDir()
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	full = filepath.Join(dir, name)
	args := append([]string{"-static", "-O2", "-o", full, c}, flags...)
	if out, err := exec.Command(tool.cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", tool.cc, args, err, out)
	}
	stripped = full + ".stripped"
	if out, err := exec.Command(tool.strip, "-o", stripped, full).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tool.strip, err, out)
	}
	return full, stripped
}

// openLibs opens path with the given signature libraries (nil: off).
func openLibs(t testing.TB, path string, libs *native.SignatureLibraries) *native.Analysis {
	t.Helper()
	an, err := native.New(&native.Options{SignatureLibraries: libs}).Open(context.Background(), ports.Target{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { an.Close(context.Background()) })
	return an.(*native.Analysis)
}

// funcSymbols maps each address of the program's function symbols to
// their names.
func funcSymbols(t testing.TB, path string) map[uint64][]string {
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
	out := map[uint64][]string{}
	for _, s := range syms {
		if typ := elf.ST_TYPE(s.Info); (typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC) && s.Section != elf.SHN_UNDEF {
			out[s.Value] = append(out[s.Value], s.Name)
		}
	}
	return out
}

// archiveFunctions is the names nm lists as defined functions of the
// archives.
func archiveFunctions(t testing.TB, libs []string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, l := range libs {
		cmd := exec.Command("nm", "--defined-only", l)
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Skipf("nm: %v: apt install binutils", err)
		}
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 3 && strings.ContainsAny(f[1], "TtWi") {
				out[f[2]] = true
			}
		}
		_ = cmd.Wait()
	}
	return out
}

// libScore compares the library names an analysis of the stripped program
// gave with the unstripped program's symbols.
type libScore struct {
	named, present int
	wrong          []string
}

func scoreLibraries(t testing.TB, a *native.Analysis, full string, fromLib map[string]bool) libScore {
	t.Helper()
	truth := funcSymbols(t, full)
	var s libScore
	for _, names := range truth {
		if slices.ContainsFunc(names, func(n string) bool { return fromLib[n] }) {
			s.present++
		}
	}
	ps, err := a.Procedures(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Source != "library" {
			continue
		}
		s.named++
		if !slices.Contains(truth[p.Address], p.Name) {
			s.wrong = append(s.wrong, p.Name+" at "+hexAddr(p.Address)+" is "+strings.Join(truth[p.Address], "|"))
		}
	}
	return s
}

func hexAddr(v uint64) string { return "0x" + strings.TrimLeft(strings.ToLower(elfHex(v)), "0") }

func elfHex(v uint64) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b)
}

// A stripped static program's C library functions are named from the
// archives it was linked from: every name given is a symbol of the
// unstripped build at that address (aliases count), and most of the C
// library functions present are named.
func TestLibraryNamesStatic(t *testing.T) {
	for _, tool := range staticTools {
		t.Run(tool.name, func(t *testing.T) {
			libs := tool.need(t)
			fromLib := archiveFunctions(t, libs)
			for _, prog := range []struct{ name, src string }{{"hello", libHello}, {"larger", libLarger}} {
				t.Run(prog.name, func(t *testing.T) {
					is := is.New(t)
					full, stripped := staticBuild(t, tool, prog.name, prog.src, "-lm", "-pthread")
					a := openLibs(t, stripped, &native.SignatureLibraries{Installed: true})
					s := scoreLibraries(t, a, full, fromLib)
					t.Logf("%s %s: %d named of %d C library functions present (recall %.1f%%), %d wrong", tool.name, prog.name, s.named, s.present, 100*float64(s.named)/float64(max(s.present, 1)), len(s.wrong))
					for _, w := range s.wrong {
						t.Errorf("wrong name: %s", w)
					}
					is.True(s.named*2 > s.present) // most are named
					lims, err := a.Limitations(context.Background())
					is.NoErr(err)
					is.True(slices.ContainsFunc(lims, func(l string) bool { return strings.HasPrefix(l, "Library functions: ") }))
					prof, _ := a.Profile().Parameters["signature_libraries"].(map[string]any)
					is.True(prof != nil)
				})
			}
		})
	}
}
