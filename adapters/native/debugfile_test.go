package native_test

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
	"rea/ports/portstest"
)

// debugBuild is a program built with -g and a build ID, split as
// distributions split their packages: the stripped program with a
// .gnu_debuglink, and its debug file (objcopy --only-keep-debug), placed
// under a debug root as DIR/.build-id/xx/rest.debug.
type debugBuild struct {
	dir      string // the build's directory
	full     string // the program before stripping
	stripped string // stripped, with .gnu_debuglink naming "prog.debug"
	debug    string // the debug file, in dir
	root     string // a debug root holding the debug file under .build-id
	byID     string // the debug file's path under root
	id       string // the build ID, hex
}

// buildDebug builds testdata/hello.c with cc (prefix names the binutils:
// "" or "aarch64-linux-gnu-") and flags, in a directory of its own.
func buildDebug(t testing.TB, prefix string, flags ...string) debugBuild {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("testdata", "hello.c"))
	if err != nil {
		t.Fatal(err)
	}
	return buildDebugFrom(t, prefix, src, flags...)
}

// buildDebugFrom is buildDebug of the C file src.
func buildDebugFrom(t testing.TB, prefix, src string, flags ...string) debugBuild {
	t.Helper()
	cc, objcopy, strip := prefix+"gcc", prefix+"objcopy", prefix+"strip"
	for _, tool := range []string{cc, objcopy, strip} {
		needTool(t, tool)
	}
	ctx := t.Context()
	b := debugBuild{dir: t.TempDir()}
	b.root = filepath.Join(b.dir, "debug-root")
	b.full = filepath.Join(b.dir, "full")
	b.stripped = filepath.Join(b.dir, "prog")
	b.debug = filepath.Join(b.dir, "prog.debug")
	steps := [][]string{
		append(append([]string{cc, "-g", "-O1"}, flags...), "-o", b.full, src),
		{objcopy, "--only-keep-debug", b.full, b.debug},
		{strip, "--strip-all", "-o", b.stripped, b.full},
		{objcopy, "--add-gnu-debuglink=" + b.debug, b.stripped},
	}
	for _, s := range steps {
		if _, err := run(ctx, b.dir, nil, s[0], s[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	b.id = buildIDOf(t, b.stripped)
	if b.id != "" {
		b.byID = filepath.Join(b.root, ".build-id", b.id[:2], b.id[2:]+".debug")
		copyFile(t, b.debug, b.byID)
		if err := os.Rename(b.debug, b.debug+".moved"); err != nil { // found by build ID only
			t.Fatal(err)
		}
		b.debug += ".moved"
	}
	return b
}

// buildIDOf reads the build ID note with debug/elf, apart from the engine.
func buildIDOf(t testing.TB, path string) string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		t.Fatalf("build ID note of %s: %v", path, err)
	}
	namesz := f.ByteOrder.Uint32(b)
	descsz := f.ByteOrder.Uint32(b[4:])
	off := 12 + (namesz+3)&^3
	return fmt.Sprintf("%x", b[off:off+descsz])
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func sha256Of(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// openWith opens path with rea-native and the given debug roots.
func openWith(t *testing.T, path string, roots ...string) *native.Analysis {
	t.Helper()
	an, err := native.New(&native.Options{DebugFileDirectories: roots}).Open(context.Background(), ports.Target{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { an.Close(context.Background()) })
	return an.(*native.Analysis)
}

// procsAndNames is every procedure and name, as text, for comparing two
// analyses of the same code.
func procsAndNames(t *testing.T, a *native.Analysis) (procs, names []string) {
	t.Helper()
	ctx := context.Background()
	ps, err := a.Procedures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		procs = append(procs, fmt.Sprintf("%+v", p))
	}
	rs, err := a.FunctionRanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		procs = append(procs, fmt.Sprintf("range %+v", r))
	}
	ns, err := a.Names(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ns {
		names = append(names, fmt.Sprintf("%#x %s %s", n.Address, n.Name, n.Kind))
	}
	return procs, names
}

// sigText writes a signature as C declares it.
func sigText(name string, sig ports.Signature) string {
	var ps []string
	for _, p := range sig.Parameters {
		ps = append(ps, p.Type+" "+p.Name)
	}
	return sig.ReturnType + " " + name + "(" + strings.Join(ps, ", ") + ")"
}

func procAddr(t *testing.T, a *native.Analysis, name string) uint64 {
	t.Helper()
	ps, err := a.Procedures(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Name == name {
			return p.Address
		}
	}
	t.Fatalf("no procedure %s", name)
	return 0
}

func debugParam(a *native.Analysis) map[string]any {
	d, _ := a.Profile().Parameters["debug_file"].(map[string]any)
	return d
}

// A stripped program whose debug file sits under a debug root by build ID
// gets the debug file's symbols (the same procedures and names as the
// program before stripping), its signatures and source lines, and names it
// in the profile; without the root it is what it was.
func TestDebugFileByBuildID(t *testing.T) {
	for _, arch := range []struct{ name, prefix string }{{"x86-64", ""}, {"aarch64", "aarch64-linux-gnu-"}} {
		t.Run(arch.name, func(t *testing.T) {
			is := is.New(t)
			b := buildDebug(t, arch.prefix, "-Wl,--build-id")
			is.True(b.id != "")
			ctx := context.Background()

			full := openWith(t, b.full)
			with := openWith(t, b.stripped, b.root)
			off := openWith(t, b.stripped)

			wantP, wantN := procsAndNames(t, full)
			gotP, gotN := procsAndNames(t, with)
			is.Equal(gotP, wantP) // the debug file's .symtab, merged as the program's own
			is.Equal(gotN, wantN)
			offP, _ := procsAndNames(t, off)
			is.True(!slices.ContainsFunc(offP, func(s string) bool { return strings.Contains(s, "Name:square ") }))

			d := debugParam(with)
			is.True(d != nil)
			is.Equal(d["path"], b.byID)
			is.Equal(d["found_by"], "build-id")
			is.Equal(d["sha256"], sha256Of(t, b.byID))
			is.Equal(d["used_for"], []string{"symbols", "dwarf"})
			is.Equal(debugParam(off), nil)
			is.Equal(off.Profile().Parameters, map[string]any{"max_string_bytes": native.DefaultMaxStringBytes, "min_string_chars": native.DefaultMinStringChars})

			add := procAddr(t, with, "add")
			sig, err := with.Signature(ctx, add)
			is.NoErr(err)
			is.Equal(sigText("add", sig), "int add(int a, int b)")
			_, err = off.Signature(ctx, add)
			is.True(err != nil) // no DWARF without the debug file

			loc, err := with.SourceAt(ctx, add)
			is.NoErr(err)
			is.Equal(filepath.Base(loc.File), "hello.c")
			is.Equal(loc.Line, 15)
			want, err := full.SourceAt(ctx, add)
			is.NoErr(err)
			is.Equal(loc, want)

			lims, err := with.Limitations(ctx)
			is.NoErr(err)
			is.Equal(len(lims), 0)
		})
	}
}

// unusedArg's pick takes two arguments and reads one: only DWARF says that
// main's call passes both.
const unusedArg = `
int __attribute__((noipa)) pick(int a, int b) { return a * 3; }
int main(int argc, char **argv) { return pick(argc, argc + 5); }
`

// Value flow's callee arities come from the debug file's DWARF: main's
// call of pick uses both argument registers, as in the unstripped program,
// where without it the call uses only the one pick reads.
func TestDebugFileValueFlowArity(t *testing.T) {
	for _, arch := range []struct{ name, prefix string }{{"x86-64", ""}, {"aarch64", "aarch64-linux-gnu-"}} {
		t.Run(arch.name, func(t *testing.T) {
			is := is.New(t)
			src := filepath.Join(t.TempDir(), "unused.c")
			is.NoErr(os.WriteFile(src, []byte(unusedArg), 0o644))
			b := buildDebugFrom(t, arch.prefix, src, "-Wl,--build-id")
			ctx := context.Background()
			with, off := openWith(t, b.stripped, b.root), openWith(t, b.stripped)
			main := procAddr(t, with, "main")
			vf := func(a *native.Analysis) string {
				v, err := a.ValueFlow(ctx, ports.FunctionRequest{Address: main})
				is.NoErr(err)
				return fmt.Sprintf("%+v", v)
			}
			vfWith := vf(with)
			is.Equal(vfWith, vf(openWith(t, b.full)))
			is.True(vfWith != vf(off))
		})
	}
}

// Without a build ID the .gnu_debuglink finds the file, next to the
// program, in its .debug directory or under a root, and its CRC-32 must
// match; a mismatch is refused and said.
func TestDebugFileByDebuglink(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id=none")
	is.Equal(b.id, "")
	ctx := context.Background()
	noRoot := filepath.Join(b.dir, "empty-root")

	// Next to the program (where objcopy left it).
	a := openWith(t, b.stripped, noRoot)
	d := debugParam(a)
	is.True(d != nil)
	is.Equal(d["path"], b.debug)
	is.Equal(d["found_by"], "debuglink")
	sig, err := a.Signature(ctx, procAddr(t, a, "greet"))
	is.NoErr(err)
	is.Equal(sigText("greet", sig), "void greet(const char * who)")

	// In .debug/ beside it.
	dotDebug := filepath.Join(b.dir, ".debug", "prog.debug")
	is.NoErr(os.MkdirAll(filepath.Dir(dotDebug), 0o755))
	is.NoErr(os.Rename(b.debug, dotDebug))
	is.Equal(debugParam(openWith(t, b.stripped, noRoot))["path"], dotDebug)

	// Under a root, at the program's directory.
	under := filepath.Join(b.root, b.dir, "prog.debug")
	copyFile(t, dotDebug, under)
	is.NoErr(os.Remove(dotDebug))
	is.Equal(debugParam(openWith(t, b.stripped, b.root))["path"], under)

	// Another build of the same name: its CRC-32 differs.
	other := buildDebug(t, "", "-Wl,--build-id=none", "-DOTHER_BUILD", "-O2")
	copyFile(t, other.debug, under)
	a = openWith(t, b.stripped, b.root)
	is.Equal(debugParam(a), nil)
	lims, err := a.Limitations(ctx)
	is.NoErr(err)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], under))
	is.True(strings.Contains(lims[0], "CRC-32"))
	gotP, _ := procsAndNames(t, a)
	offP, _ := procsAndNames(t, openWith(t, b.stripped))
	is.Equal(gotP, offP) // refused: today's result
}

// A debug file of another build at the build-ID path is refused and said;
// the lists stay what they are without a search.
func TestDebugFileWrongBuildID(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	other := buildDebug(t, "", "-Wl,--build-id", "-DOTHER_BUILD", "-O2")
	is.True(b.id != other.id)
	copyFile(t, other.byID, b.byID)
	ctx := context.Background()
	a := openWith(t, b.stripped, b.root)
	is.Equal(debugParam(a), nil)
	lims, err := a.Limitations(ctx)
	is.NoErr(err)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], b.byID))
	is.True(strings.Contains(lims[0], "build ID "+other.id+" differs from the target's "+b.id))
	gotP, gotN := procsAndNames(t, a)
	offP, offN := procsAndNames(t, openWith(t, b.stripped))
	is.Equal(gotP, offP)
	is.Equal(gotN, offN)
}

// A program with its own .symtab and DWARF does not look; one with a
// .symtab but no DWARF (strip --strip-debug) takes only the DWARF.
func TestDebugFileOnlyWhatIsMissing(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	ctx := context.Background()
	is.Equal(debugParam(openWith(t, b.full, b.root)), nil)

	noDebug := filepath.Join(b.dir, "nodebug")
	_, err := run(ctx, b.dir, nil, "strip", "--strip-debug", "-o", noDebug, b.full)
	is.NoErr(err)
	a := openWith(t, noDebug, b.root)
	is.Equal(debugParam(a)["used_for"], []string{"dwarf"})
	wantP, _ := procsAndNames(t, openWith(t, noDebug))
	gotP, _ := procsAndNames(t, a)
	is.Equal(gotP, wantP) // its own symbols
	sig, err := a.Signature(ctx, procAddr(t, a, "add"))
	is.NoErr(err)
	is.Equal(sigText("add", sig), "int add(int a, int b)")
}

// Hostile debug files: whatever sits at the build-ID path (truncated,
// corrupted, not ELF, a directory, a FIFO) is refused or read without
// panicking, and never blocks the open.
func TestDebugFileHostile(t *testing.T) {
	b := buildDebug(t, "", "-Wl,--build-id")
	good, err := os.ReadFile(b.byID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	check := func(t *testing.T) *native.Analysis {
		t.Helper()
		a := openWith(t, b.stripped, b.root)
		if _, err := a.Procedures(ctx); err != nil {
			t.Fatalf("procedures: %v", err)
		}
		_, _ = a.Names(ctx)
		addr := uint64(0)
		if ps, _ := a.Procedures(ctx); len(ps) > 0 {
			addr = ps[len(ps)/2].Address
		}
		_, _ = a.Signature(ctx, addr)
		_, _ = a.SourceAt(ctx, addr)
		_, _ = a.Limitations(ctx)
		return a
	}
	cases := hostileCopies(good, 64)
	cases["not-elf"] = []byte("hello, world\n")
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(b.byID, content, 0o644); err != nil {
				t.Fatal(err)
			}
			check(t)
		})
	}
	t.Run("directory", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(os.Remove(b.byID))
		is.NoErr(os.Mkdir(b.byID, 0o755))
		defer os.Remove(b.byID)
		lims, _ := check(t).Limitations(ctx)
		is.True(len(lims) == 1 && strings.Contains(lims[0], "not a regular file"))
	})
	t.Run("fifo", func(t *testing.T) {
		is := is.New(t)
		os.Remove(b.byID)
		if err := syscall.Mkfifo(b.byID, 0o644); err != nil {
			t.Skip(err)
		}
		defer os.Remove(b.byID)
		lims, _ := check(t).Limitations(ctx)
		is.True(len(lims) == 1 && strings.Contains(lims[0], "not a regular file"))
	})
}

// FuzzDebugFile writes the input where the build ID points and reads
// every list that uses the debug file: nothing may panic. The seeds are
// the program's real debug file, cut and whole.
func FuzzDebugFile(f *testing.F) {
	b := buildDebug(f, "", "-Wl,--build-id")
	good, err := os.ReadFile(b.byID)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:64])
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(b.byID, content, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		an, err := native.New(&native.Options{DebugFileDirectories: []string{b.root}}).Open(ctx, ports.Target{Path: b.stripped})
		if err != nil {
			t.Fatal(err)
		}
		defer an.Close(ctx)
		a := an.(*native.Analysis)
		ps, err := a.Procedures(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			_, _ = a.Signature(ctx, p.Address)
			_, _ = a.SourceAt(ctx, p.Address)
		}
		_, _ = a.Limitations(ctx)
	})
}

// The debug file's DWARF is charged to the memory budget as the target's
// own would be, and the warm cache keeps an analysis with a debug file
// apart from one without.
func TestDebugFileBudgetAndCacheKey(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	cache := t.TempDir()
	open := func(ctx context.Context, roots ...string) *native.Analysis {
		an, err := native.New(&native.Options{CacheDir: cache, DebugFileDirectories: roots}).Open(ctx, ports.Target{Path: b.stripped})
		is.NoErr(err)
		t.Cleanup(func() { an.Close(context.Background()) })
		return an.(*native.Analysis)
	}

	acc := &portstest.MemoryAccount{Max: 1 << 30}
	ctx := ports.WithMemory(context.Background(), acc)
	a := open(ctx, b.root)
	_, err := a.SourceAt(ctx, procAddr(t, a, "add"))
	is.NoErr(err)
	is.True(acc.Charged("the DWARF debug information") > 0)

	tiny := ports.WithMemory(context.Background(), &portstest.MemoryAccount{Max: 64})
	_, err = open(tiny, b.root).Signature(tiny, procAddr(t, a, "add"))
	var le *ports.LimitError
	is.True(errors.As(err, &le)) // refused by the budget
	is.Equal(le.What, "the DWARF debug information")

	with, without := native.CacheProfileDigest(ctx, a), native.CacheProfileDigest(ctx, open(ctx))
	is.True(with != "" && without != "")
	is.True(with != without)
	is.Equal(native.CacheProfileDigest(ctx, open(ctx, b.root)), with) // deterministic
}

// Live: this machine's libc.so.6 with libc6-dbg's debug file under
// /usr/lib/debug. Its stripped functions get names, getenv its prototype,
// and its source line is addr2line's (which follows the same debug link).
func TestDebugFileLibcLive(t *testing.T) {
	is := is.New(t)
	needTool(t, "addr2line")
	if _, err := elf.Open(libc); err != nil {
		t.Skip("no x86-64 libc.so.6 here")
	}
	ctx := context.Background()
	with := openWith(t, libc, native.DefaultDebugFileDirectories...)
	if debugParam(with) == nil {
		t.Skip("libc6-dbg's debug file for libc.so.6 is not installed: apt install libc6-dbg")
	}
	is.Equal(debugParam(with)["found_by"], "build-id")
	without := openWith(t, libc)
	unnamed := func(a *native.Analysis) (n int) {
		ps, err := a.Procedures(ctx)
		is.NoErr(err)
		for _, p := range ps {
			if p.Name == "" {
				n++
			}
		}
		return n
	}
	before, after := unnamed(without), unnamed(with)
	t.Logf("unnamed procedures: %d without the debug file, %d with it", before, after)
	is.True(after*10 < before)

	addr := procAddr(t, with, "getenv")
	sig, err := with.Signature(ctx, addr)
	is.NoErr(err)
	is.Equal(sigText("getenv", sig), "char * getenv(const char * name)")
	loc, err := with.SourceAt(ctx, addr)
	is.NoErr(err)
	out, err := run(ctx, "", nil, "addr2line", "-e", libc, fmt.Sprintf("%#x", addr))
	is.NoErr(err)
	file, line, _ := strings.Cut(strings.TrimSpace(string(out)), ":")
	is.Equal(filepath.Base(loc.File), filepath.Base(file))
	is.Equal(fmt.Sprint(loc.Line), line)
}

// BenchmarkDebugFileSearch: what the search costs an open, on a target
// with no debug file (/usr/bin/true) and on libc.so.6 with libc6-dbg's
// (the SHA-256 of 4 MB included), and what the lists cost with it.
func BenchmarkDebugFileSearch(b *testing.B) {
	ctx := context.Background()
	for _, target := range []string{"/usr/bin/true", libc} {
		for _, roots := range [][]string{nil, native.DefaultDebugFileDirectories} {
			name := filepath.Base(target) + map[bool]string{true: "/off", false: "/on"}[roots == nil]
			b.Run("open/"+name, func(b *testing.B) {
				for b.Loop() {
					an, err := native.New(&native.Options{DebugFileDirectories: roots}).Open(ctx, ports.Target{Path: target})
					if err != nil {
						b.Fatal(err)
					}
					an.Close(ctx)
				}
			})
			b.Run("procedures/"+name, func(b *testing.B) {
				for b.Loop() {
					an, err := native.New(&native.Options{DebugFileDirectories: roots}).Open(ctx, ports.Target{Path: target})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := an.(*native.Analysis).Procedures(ctx); err != nil {
						b.Fatal(err)
					}
					an.Close(ctx)
				}
			})
		}
	}
}

// hostileCopies are damaged copies of a good file for a candidate's
// hostile cases: empty, its header alone (header bytes), cut at a quarter,
// a half and 100 bytes short, and bytes flipped past the header at three
// strides.
func hostileCopies(good []byte, header int) map[string][]byte {
	cases := map[string][]byte{"empty": nil, "header": good[:header]}
	for _, cut := range []int{len(good) / 4, len(good) / 2, len(good) - 100} {
		cases[fmt.Sprintf("cut-%d", cut)] = good[:cut]
	}
	for _, stride := range []int{97, 389, 1021} {
		bad := slices.Clone(good)
		for i := header; i < len(bad); i += stride {
			bad[i] ^= 0xff
		}
		cases[fmt.Sprintf("flipped-%d", stride)] = bad
	}
	return cases
}
