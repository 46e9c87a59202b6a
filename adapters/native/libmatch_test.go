package native_test

import (
	"bufio"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
	"rea/ports/portstest"
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

// BenchmarkLibraryMatch opens a stripped static hello with the installed
// C library archives: reading libc.a and libm.a into patterns, and
// matching the program's procedures against them.
func BenchmarkLibraryMatch(b *testing.B) {
	tool := staticTools[0]
	tool.need(b)
	_, stripped := staticBuild(b, tool, "hello", libHello)
	libs := &native.SignatureLibraries{Installed: true}
	b.ResetTimer()
	for b.Loop() {
		an, err := native.New(&native.Options{SignatureLibraries: libs}).Open(context.Background(), ports.Target{Path: stripped})
		if err != nil {
			b.Fatal(err)
		}
		an.Close(context.Background())
	}
}

// Off (nil) is today's result: the same procedures and names as an
// analysis that never heard of libraries, and no profile entry; an
// unstripped program, whose every function has a symbol, gets no library
// name at all (a symbol's name is never replaced).
func TestLibraryOffAndSymbols(t *testing.T) {
	is := is.New(t)
	tool := staticTools[0]
	tool.need(t)
	full, stripped := staticBuild(t, tool, "hello", libHello)
	off := openLibs(t, stripped, nil)
	base := openWith(t, stripped)
	p1, n1 := procsAndNames(t, off)
	p2, n2 := procsAndNames(t, base)
	is.Equal(p1, p2)
	is.Equal(n1, n2)
	_, has := off.Profile().Parameters["signature_libraries"]
	is.True(!has)

	on := openLibs(t, full, &native.SignatureLibraries{Installed: true})
	pf, nf := procsAndNames(t, on)
	pb, nb := procsAndNames(t, openWith(t, full))
	is.Equal(pf, pb)
	is.Equal(nf, nb)

	// With names, the stripped program's list differs, and so does its
	// profile (so its Evidence IDs).
	named := openLibs(t, stripped, &native.SignatureLibraries{Installed: true})
	p3, _ := procsAndNames(t, named)
	is.True(!slices.Equal(p1, p3))
	prof := named.Profile().Parameters["signature_libraries"].(map[string]any)
	libs := prof["libraries"].([]any)
	first := libs[0].(map[string]any)
	is.Equal(first["path"], native.InstalledLibraries(tool.machine)[0])
	is.Equal(first["sha256"], sha256Of(t, native.InstalledLibraries(tool.machine)[0]))
	is.True(first["matched"].(int) > 100)
}

// A dynamic program is matched only against libraries named explicitly:
// the installed C library archives are for statically linked targets.
func TestLibraryDynamicNeedsExplicitPaths(t *testing.T) {
	is := is.New(t)
	tool := staticTools[0]
	libs := tool.need(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "d.c")
	is.NoErr(os.WriteFile(src, []byte(libHello), 0o644))
	prog := filepath.Join(dir, "d")
	if out, err := exec.Command("gcc", "-O2", "-s", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	a := openLibs(t, prog, &native.SignatureLibraries{Installed: true})
	_, has := a.Profile().Parameters["signature_libraries"]
	is.True(!has) // not static: the installed archives are not read
	b := openLibs(t, prog, &native.SignatureLibraries{Paths: libs[:1]})
	_, has = b.Profile().Parameters["signature_libraries"]
	is.True(has) // explicit: read for any ELF target
}

// An archive for another machine names nothing and says why; another C
// library (musl's libc.a) names nothing wrongly.
func TestLibraryOtherMachineAndLibc(t *testing.T) {
	tool := staticTools[0]
	tool.need(t)
	full, stripped := staticBuild(t, tool, "larger", libLarger, "-lm", "-pthread")
	t.Run("other machine", func(t *testing.T) {
		is := is.New(t)
		other := native.InstalledLibraries(elf.EM_AARCH64)
		if len(other) == 0 {
			t.Skip("no AArch64 libc.a: apt install gcc-aarch64-linux-gnu")
		}
		a := openLibs(t, stripped, &native.SignatureLibraries{Paths: other[:1]})
		s := scoreLibraries(t, a, full, map[string]bool{})
		is.Equal(s.named, 0)
		lims, err := a.Limitations(context.Background())
		is.NoErr(err)
		is.True(slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "built for another machine (arm64)") }))
		_, has := a.Profile().Parameters["signature_libraries"]
		is.True(!has)
	})
	t.Run("musl", func(t *testing.T) {
		const musl = "/usr/lib/x86_64-linux-musl/libc.a"
		if _, err := os.Stat(musl); err != nil {
			t.Skip("no musl libc.a: apt install musl-dev")
		}
		a := openLibs(t, stripped, &native.SignatureLibraries{Paths: []string{musl}})
		s := scoreLibraries(t, a, full, archiveFunctions(t, []string{musl}))
		t.Logf("glibc program, musl archive: %d named, %d wrong", s.named, len(s.wrong))
		for _, w := range s.wrong {
			t.Errorf("wrong name: %s", w)
		}
	})
}

// Hostile library files never fail the open or panic: each is a
// limitation naming it, and the target's lists are today's.
func TestLibraryHostile(t *testing.T) {
	tool := staticTools[0]
	libs := tool.need(t)
	_, stripped := staticBuild(t, tool, "hello", libHello)
	dir := t.TempDir()
	lib, err := os.ReadFile(libs[0])
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"thin.a":      []byte("!<thin>\n/       0           0     0     0       4         `\nabcd"),
		"garbage.a":   []byte("not an archive at all"),
		"cut.a":       lib[:4096],
		"size.a":      []byte("!<arch>\nx.o/            0           0     0     644     99999999999`\n"),
		"negsize.a":   []byte("!<arch>\nx.o/            0           0     0     644     -5        `\n"),
		"longname.a":  []byte("!<arch>\n/99             0           0     0     644     4         `\nabcd"),
		"badelf.a":    append([]byte("!<arch>\nx.o/            0           0     0     644     64        `\n\x7fELF\x02\x01\x01"), make([]byte, 57)...),
		"script.a":    []byte("/* GNU ld script */\nGROUP ( " + dir + "/script.a )\n"),
		"notabs.a":    []byte("/* GNU ld script */\nGROUP ( libc.a )\n"),
		"empty.a":     []byte("!<arch>\n"),
		"bsd.a":       []byte("!<arch>\n#1/99999         0           0     0     644     4         `\nabcd"),
		"truncelf.o":  lib[8+60 : 8+60+200],
		"directory.a": nil,
	}
	var paths []string
	for name, b := range files {
		p := filepath.Join(dir, name)
		if b == nil {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	paths = append(paths, filepath.Join(dir, "missing.a"))
	is := is.New(t)
	a := openLibs(t, stripped, &native.SignatureLibraries{Paths: paths})
	p1, n1 := procsAndNames(t, a)
	p2, n2 := procsAndNames(t, openWith(t, stripped))
	is.Equal(p1, p2)
	is.Equal(n1, n2)
	lims, err := a.Limitations(context.Background())
	is.NoErr(err)
	for _, p := range paths {
		if strings.HasSuffix(p, "script.a") || strings.HasSuffix(p, "empty.a") {
			continue
		}
		is.True(slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, p+" ") }))
	}
	is.True(slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "thin archive") }))
}

// The names and the profile are the same on one core as on several.
func TestLibraryDeterministic(t *testing.T) {
	is := is.New(t)
	tool := staticTools[0]
	tool.need(t)
	_, stripped := staticBuild(t, tool, "larger", libLarger, "-lm", "-pthread")
	libs := &native.SignatureLibraries{Installed: true}
	p1, n1 := procsAndNames(t, openLibs(t, stripped, libs))
	prev := runtime.GOMAXPROCS(1)
	a := openLibs(t, stripped, libs)
	p2, n2 := procsAndNames(t, a)
	runtime.GOMAXPROCS(prev)
	is.Equal(p1, p2)
	is.Equal(n1, n2)
	is.Equal(a.Profile(), openLibs(t, stripped, libs).Profile())
}

// The warm cache key includes the libraries: a run with them and one
// without have different entries, the same libraries the same one; and
// the patterns are charged to the call's memory budget, which can refuse
// them (a limitation, not a failed open).
func TestLibraryCacheKeyAndBudget(t *testing.T) {
	is := is.New(t)
	tool := staticTools[0]
	tool.need(t)
	_, stripped := staticBuild(t, tool, "hello", libHello)
	cache := t.TempDir()
	ctx := context.Background()
	open := func(ctx context.Context, libs *native.SignatureLibraries) *native.Analysis {
		return openLibsCached(t, ctx, cache, stripped, libs)
	}
	on := &native.SignatureLibraries{Installed: true}
	cold := open(ctx, on)
	with, without := native.CacheProfileDigest(ctx, cold), native.CacheProfileDigest(ctx, open(ctx, nil))
	is.True(with != "" && without != "")
	is.True(with != without)
	is.Equal(native.CacheProfileDigest(ctx, open(ctx, on)), with)

	// A fresh cache root: the one above holds the match, which a warm
	// open reads without making patterns. The cold open, not discovered,
	// holds its patterns, which an open of the same libraries would share
	// (libshare.go) without reserving them again: closed first.
	cold.Close(ctx)
	tiny := ports.WithMemory(ctx, &portstest.MemoryAccount{Max: 1 << 20})
	a := openLibsCached(t, tiny, t.TempDir(), stripped, on)
	is.Equal(a.Profile().Parameters["signature_libraries"], nil)
	lims, err := a.Limitations(ctx)
	is.NoErr(err)
	is.True(slices.ContainsFunc(lims, func(l string) bool { return strings.Contains(l, "were not matched") }))
}

// openLibsCached opens path with the warm cache at root and the given
// signature libraries.
func openLibsCached(t testing.TB, ctx context.Context, root, path string, libs *native.SignatureLibraries) *native.Analysis {
	t.Helper()
	an, err := native.New(&native.Options{CacheDir: root, SignatureLibraries: libs}).Open(ctx, ports.Target{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { an.Close(context.Background()) })
	return an.(*native.Analysis)
}

// A function the libraries name goes by its C API name where an alias has
// a C library prototype (puts, not glibc's global _IO_puts beside the weak
// puts), else by its exported name (qsort_r, not the hidden __qsort_r),
// and a call of it takes what the prototype places, as an import's
// does: fwd's "xor eax, eax; jmp printf" passes the format alone, where the
// body of the unnamed printf (which spills every argument register for its
// va_list) said nothing usable.
func TestLibraryPrototypes(t *testing.T) {
	is := is.New(t)
	tool := staticTools[0]
	tool.need(t)
	const src = `#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) void fwd(const char *fmt) { printf(fmt); }
static int cmp(const void *a, const void *b) { return *(const char *)a - *(const char *)b; }
int main(int argc, char **argv) { fwd(argv[0]); puts("x"); qsort(argv[0], 3, 1, cmp); return 0; }
`
	full, stripped := staticBuild(t, tool, "fwd", src)
	syms := funcSymbols(t, full)
	var fwd, puts, qsortR uint64
	for addr, names := range syms {
		for _, n := range names {
			switch n {
			case "fwd":
				fwd = addr
			case "_IO_puts":
				puts = addr
			case "__qsort_r":
				qsortR = addr
			}
		}
	}
	is.True(fwd != 0 && puts != 0 && qsortR != 0)
	named := openLibs(t, stripped, &native.SignatureLibraries{Installed: true})
	off := openLibs(t, stripped, nil)
	ps, err := named.Procedures(t.Context())
	is.NoErr(err)
	i := slices.IndexFunc(ps, func(p ports.Procedure) bool { return p.Address == puts })
	is.True(i >= 0)
	is.Equal(ps[i].Name, "puts")
	is.Equal(ps[i].Source, "library")
	// No prototype for qsort_r: its exported name before the hidden
	// __qsort_r.
	i = slices.IndexFunc(ps, func(p ports.Procedure) bool { return p.Address == qsortR })
	is.True(i >= 0)
	is.Equal(ps[i].Name, "qsort_r")

	params := func(a *native.Analysis) []string {
		vf, err := a.ValueFlow(t.Context(), ports.FunctionRequest{Address: fwd})
		is.NoErr(err)
		return paramNames(vf)
	}
	is.Equal(params(named), []string{"rdi"})
	is.True(!slices.Equal(params(off), []string{"rdi"})) // unnamed, printf's body says otherwise
}

// A function under 16 fixed bytes is named when its calls land on
// procedures already named as it expects: glibc's qsort is 8 bytes,
// "xor r8d, r8d; jmp __qsort_r", the jump resolved by the assembler, and
// lands on the procedure named qsort_r.
func TestLibraryShortFunctions(t *testing.T) {
	is := is.New(t)
	tool := staticTools[0]
	tool.need(t)
	const src = `#include <stdlib.h>
static int cmp(const void *a, const void *b) { return *(const char *)a - *(const char *)b; }
int main(int argc, char **argv) { qsort(argv[0], 3, 1, cmp); return 0; }
`
	full, stripped := staticBuild(t, tool, "short", src)
	var qsort uint64
	for addr, names := range funcSymbols(t, full) {
		if slices.Contains(names, "qsort") {
			qsort = addr
		}
	}
	is.True(qsort != 0)
	ps, err := openLibs(t, stripped, &native.SignatureLibraries{Installed: true}).Procedures(t.Context())
	is.NoErr(err)
	i := slices.IndexFunc(ps, func(p ports.Procedure) bool { return p.Address == qsort })
	is.True(i >= 0)
	is.Equal(ps[i].Name, "qsort")
	is.Equal(ps[i].Source, "library")
}

// shortChecked calls glibc's checked read and memcpy (built with
// _FORTIFY_SOURCE=2), which are too short to name by their bytes.
const shortChecked = `#include <string.h>
#include <unistd.h>
int main(int c, char **v) {
	char r[16], d[24];
	if (read(0, r, c) < 0) return 1;
	memcpy(d, v[0], c);
	return d[c] + r[c];
}
`

// Functions whose bytes do not tell which function they are are named by
// where the functions already named call them: __stack_chk_fail and
// __chk_fail (the same bytes: a load of a message and a call of
// __fortify_fail), __fortify_fail (the same bytes as __libc_fatal, which
// the callers place elsewhere), memcpy's IFUNC resolver (the same bytes as
// memmove's and mempcpy's; a static link's calls of memcpy land on the
// IRELATIVE stub whose slot it fills); then, by their calls, the checked
// functions that call them (__read_chk; __memcpy_chk on x86-64, where it
// jumps to memcpy, and on AArch64, where its bytes equal __memmove_chk's
// and __memset_chk's and its jump lands on the stub of the memcpy the
// callers named; on i686, where it makes no call, by its conditional jump
// to __chk_fail and its fall into memcpy). Every name is the unstripped
// build's symbol at that address, and the limitations count the names
// given so.
func TestLibraryNamesByCallers(t *testing.T) {
	for _, tc := range []struct {
		tool  staticTool
		names []string
	}{
		{staticTools[0], []string{"__stack_chk_fail", "__chk_fail", "__fortify_fail", "memcpy", "__memcpy_chk", "__read_chk"}},
		{staticTools[1], []string{"__stack_chk_fail", "__chk_fail", "__fortify_fail", "memcpy", "__memcpy_chk", "__read_chk"}},
		{staticTools[2], []string{"__stack_chk_fail", "__chk_fail", "__fortify_fail", "memcpy", "__memcpy_chk", "__read_chk"}},
	} {
		t.Run(tc.tool.name, func(t *testing.T) {
			tc.tool.need(t)
			full, stripped := staticBuild(t, tc.tool, "checked", shortChecked, "-U_FORTIFY_SOURCE", "-D_FORTIFY_SOURCE=2")
			truth := funcSymbols(t, full)
			a := openLibs(t, stripped, &native.SignatureLibraries{Installed: true})
			ps, err := a.Procedures(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			named := map[string]uint64{}
			for _, p := range ps {
				if p.Source == "library" {
					named[p.Name] = p.Address
				}
			}
			for _, n := range tc.names {
				at, ok := named[n]
				t.Logf("%s: %v at %#x, symbols there %v", n, ok, at, truth[at])
				if !ok || !slices.Contains(truth[at], n) {
					t.Errorf("%s is not named at its symbol's address", n)
				}
			}
			lims, err := a.Limitations(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(lims, func(l string) bool {
				return strings.HasPrefix(l, "Library functions: ") && strings.Contains(l, "by where the functions named call them")
			}) {
				t.Errorf("the limitations do not count the names given by callers: %q", lims)
			}
		})
	}
}
