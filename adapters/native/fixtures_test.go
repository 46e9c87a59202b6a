package native_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fixtures are built once per test binary into fixtureDir, on first use.
var fixtureDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rea-native-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtureDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is a binary built from testdata by external tools.
type fixture struct {
	tools []string                                  // executables the build needs
	slow  bool                                      // a Go cross-compile: skipped with -short
	build func(ctx context.Context) (string, error) // returns the path built

	once sync.Once
	path string
	skip string
	err  error
}

func gccFixture(name string, flags ...string) *fixture {
	return &fixture{tools: []string{"gcc"}, build: func(ctx context.Context) (string, error) {
		out := filepath.Join(fixtureDir, name)
		args := append(append([]string{}, flags...), "-o", out, filepath.Join("testdata", "hello.c"))
		_, err := run(ctx, "", nil, "gcc", args...)
		return out, err
	}}
}

// srcFixture compiles one file of testdata with tool (gcc or g++).
func srcFixture(name, tool, file string, flags ...string) *fixture {
	return &fixture{tools: []string{tool}, build: func(ctx context.Context) (string, error) {
		out := filepath.Join(fixtureDir, name)
		args := append(append([]string{}, flags...), "-o", out, filepath.Join("testdata", file))
		_, err := run(ctx, "", nil, tool, args...)
		return out, err
	}}
}

func stripFixture(name, from string, flags ...string) *fixture {
	strip := "strip" // the host's knows x86 only
	if strings.Contains(from, "arm64") {
		strip = "aarch64-linux-gnu-strip"
	}
	return &fixture{tools: []string{"gcc", strip}, build: func(ctx context.Context) (string, error) {
		src, err := buildFixture(ctx, from)
		if err != nil {
			return "", err
		}
		out := filepath.Join(fixtureDir, name)
		_, err = run(ctx, "", nil, strip, append(append([]string{}, flags...), "-o", out, src)...)
		return out, err
	}}
}

func goFixture(goos, goarch string) *fixture {
	name := "go-" + goos + "-" + goarch
	return &fixture{tools: []string{"go"}, slow: true, build: func(ctx context.Context) (string, error) {
		out := filepath.Join(fixtureDir, name)
		env := []string{"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=" + goarch}
		_, err := run(ctx, filepath.Join("testdata", "goprog"), env, "go", "build", "-o", out, "main.go")
		return out, err
	}}
}

// goParamsFixture builds testdata/goparams for linux/goarch.
func goParamsFixture(goarch string) *fixture {
	name := "go-params-" + goarch
	return &fixture{tools: []string{"go"}, slow: true, build: func(ctx context.Context) (string, error) {
		out := filepath.Join(fixtureDir, name)
		env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + goarch}
		_, err := run(ctx, filepath.Join("testdata", "goparams"), env, "go", "build", "-o", out, "main.go")
		return out, err
	}}
}

// goPIEFixture builds testdata/gotable as a linux/arm64 PIE with the extra
// go build flags.
func goPIEFixture(name string, flags ...string) *fixture {
	return &fixture{tools: []string{"go"}, slow: true, build: func(ctx context.Context) (string, error) {
		out := filepath.Join(fixtureDir, name)
		env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64"}
		args := append(append([]string{"build", "-buildmode=pie"}, flags...), "-o", out, "main.go")
		_, err := run(ctx, filepath.Join("testdata", "gotable"), env, "go", args...)
		return out, err
	}}
}

// fixtures is set in init: stripFixture refers back to it.
var fixtures map[string]*fixture

func init() {
	fixtures = map[string]*fixture{
		"c":    gccFixture("c"),
		"c-g":  gccFixture("c-g", "-g"),
		"c-O2": gccFixture("c-O2", "-O2"),
		// IBT: lazy .plt entries jump to PLT0, the named stubs are in .plt.sec.
		"c-ibt": gccFixture("c-ibt", "-fcf-protection=full", "-Wl,-z,ibtplt"),
		// No lazy binding: calls go through the GOT, only .plt.got has a stub.
		"c-noplt":    gccFixture("c-noplt", "-fno-plt", "-Wl,-z,now"),
		"c-stripped": stripFixture("c-stripped", "c"),
		// DWARF but no .symtab: procedures come from debug info.
		"c-dwarf": stripFixture("c-dwarf", "c-g", "--strip-all", "--keep-section=.debug_*"),
		// Function pointers in .data: filled by RELATIVE relocations in
		// a PIE, held as absolute words without -no-pie.
		"ptr-pie":   srcFixture("ptr-pie", "gcc", "pointers.c", "-O0", "-fPIE", "-pie"),
		"ptr-nopie": srcFixture("ptr-nopie", "gcc", "pointers.c", "-O0", "-fno-PIE", "-no-pie"),
		// Thousands of RELATIVE relocations, and a constructor in .init_array.
		"rel-pie": srcFixture("rel-pie", "gcc", "relatives.c", "-O0", "-fPIE", "-pie", "-s"),
		"vtable":  srcFixture("vtable", "g++", "vtable.cc", "-O1"),
		// AArch64 PIEs: 16-byte PLT entries, and 24-byte ones (PLT0 starting
		// with "bti c", entries with "autia1716").
		"c-arm64":          srcFixture("c-arm64", "aarch64-linux-gnu-gcc", "hello.c"),
		"c-arm64-noplt":    srcFixture("c-arm64-noplt", "aarch64-linux-gnu-gcc", "hello.c", "-O2", "-fno-plt"),
		"c-arm64-pac":      srcFixture("c-arm64-pac", "aarch64-linux-gnu-gcc", "hello.c", "-mbranch-protection=standard", "-Wl,-z,force-bti,-z,pac-plt"),
		"go-linux-arm64":   goFixture("linux", "arm64"),
		"go-windows-amd64": goFixture("windows", "amd64"),
		"go-darwin-arm64":  goFixture("darwin", "arm64"),
		"go-params-amd64":  goParamsFixture("amd64"),
		"go-params-arm64":  goParamsFixture("arm64"),
		// A function table in a PIE, with symbols and stripped.
		"go-table-arm64":          goPIEFixture("go-table-arm64"),
		"go-table-arm64-stripped": goPIEFixture("go-table-arm64-stripped", "-ldflags=-s -w"),
	}
	clangFixtures()
}

// clangFixtures adds clang builds of the gcc fixtures' sources, so the same
// expectations apply: DWARF 5 (clang's default: strx/addrx forms,
// .debug_str_offsets, .debug_addr, .debug_rnglists, .debug_loclists, line
// tables v5) and -gdwarf-4, PIE (clang's default here) and not, lld's layout
// (no .plt.sec, its own .got.plt order), clang's jump tables and prologues.
func clangFixtures() {
	arm64 := []string{"--target=aarch64-linux-gnu"}
	i686 := []string{"--target=i686-linux-gnu"}
	for name, fx := range map[string]struct {
		tool, src string
		flags     []string
	}{
		"clang-c":             {"clang", "hello.c", []string{"-O0"}},
		"clang-c-g":           {"clang", "hello.c", []string{"-O0", "-g"}},
		"clang-c-O2":          {"clang", "hello.c", []string{"-O2"}},
		"clang-c-O2-g":        {"clang", "hello.c", []string{"-O2", "-g"}},
		"clang-c-O2-g4":       {"clang", "hello.c", []string{"-O2", "-gdwarf-4"}},
		"clang-c-O3-nopie":    {"clang", "hello.c", []string{"-O3", "-fno-PIE", "-no-pie"}},
		"clang-c-lld":         {"clang", "hello.c", []string{"-O2", "-g", "-fuse-ld=lld"}},
		"clang-c-noplt":       {"clang", "hello.c", []string{"-O2", "-fno-plt", "-Wl,-z,now"}},
		"clang-c-arm64":       {"clang", "hello.c", append([]string{"-O2", "-g"}, arm64...)},
		"clang-c-i686":        {"clang", "hello.c", append([]string{"-O2", "-g"}, i686...)},
		"clang-code-O0":       {"clang", "code.c", []string{"-O0"}},
		"clang-code-O2":       {"clang", "code.c", []string{"-O2"}},
		"clang-code-O3":       {"clang", "code.c", []string{"-O3"}},
		"clang-code-O2-nopie": {"clang", "code.c", []string{"-O2", "-fno-PIE", "-no-pie"}},
		"clang-code-O0-g":     {"clang", "code.c", []string{"-O0", "-g"}},
		"clang-code-O2-g":     {"clang", "code.c", []string{"-O2", "-g"}},
		"clang-code-O2-g4":    {"clang", "code.c", []string{"-O2", "-gdwarf-4"}},
		"clang-code-lld":      {"clang", "code.c", []string{"-O2", "-fuse-ld=lld"}},
		"clang-vf-O0-g":       {"clang", "valueflow.c", []string{"-O0", "-g"}},
		"clang-vf-O2-g":       {"clang", "valueflow.c", []string{"-O2", "-g"}},
		"clang-vtable":        {"clang++", "vtable.cc", []string{"-O1"}},
		"clang-vtable-g":      {"clang++", "vtable.cc", []string{"-O1", "-g"}},
		"vtable-g":            {"g++", "vtable.cc", []string{"-O1", "-g"}},
		"clang-inl-O2-g":      {"clang", "inlined.c", []string{"-O2", "-g"}},
		"clang-inl-O2-g4":     {"clang", "inlined.c", []string{"-O2", "-gdwarf-4"}},
		"inl-O2-g":            {"gcc", "inlined.c", []string{"-O2", "-g"}},
		// lld leaves a RELATIVE relocation's word zero: the addend is the value.
		"clang-ptr-pie-lld": {"clang", "pointers.c", []string{"-O0", "-fPIE", "-pie", "-fuse-ld=lld"}},
		"clang-ptr-nopie":   {"clang", "pointers.c", []string{"-O0", "-fno-PIE", "-no-pie"}},
	} {
		f := srcFixture(name, fx.tool, fx.src, fx.flags...)
		if strings.Contains(name, "lld") {
			f.tools = append(f.tools, "ld.lld")
		}
		fixtures[name] = f
	}
	// DWARF 5 but no .symtab: procedures come from debug info.
	fixtures["clang-c-dwarf"] = stripFixture("clang-c-dwarf", "clang-c-g", "--strip-all", "--keep-section=.debug_*")
	fixtures["clang-c-dwarf4"] = stripFixture("clang-c-dwarf4", "clang-c-O2-g4", "--strip-all", "--keep-section=.debug_*")
	for _, name := range []string{"clang-inl-O2-g", "inl-O2-g", "clang-vtable-g", "vtable-g", "clang-c-arm64", "clang-c-i686"} {
		fixtures[name+"-dwarf"] = stripFixture(name+"-dwarf", name, "--strip-all", "--keep-section=.debug_*")
	}
}

// buildFixture builds a fixture once; it reports a skip reason as an error
// wrapping errSkip.
func buildFixture(ctx context.Context, name string) (string, error) {
	fx := fixtures[name]
	if fx == nil {
		return "", fmt.Errorf("no fixture %q", name)
	}
	fx.once.Do(func() {
		for _, tool := range fx.tools {
			if _, err := exec.LookPath(tool); err != nil {
				fx.skip = fmt.Sprintf("fixture %s needs %s, which is not installed", name, tool)
				if pkg := debianPackages[tool]; pkg != "" {
					fx.skip += ": apt install " + pkg
				}
				return
			}
		}
		fx.path, fx.err = fx.build(context.WithoutCancel(ctx))
	})
	switch {
	case fx.skip != "":
		return "", fmt.Errorf("%s: %w", fx.skip, errSkip)
	case fx.err != nil:
		return "", fmt.Errorf("build fixture %s: %w", name, fx.err)
	}
	return fx.path, nil
}

var errSkip = errors.New("skip")

// debianPackages names the package of a fixture's tool where it is not the
// tool's own name.
var debianPackages = map[string]string{
	"clang": "clang", "clang++": "clang", "musl-gcc": "musl-tools", "ld.lld": "lld", "g++": "g++", "gcc": "gcc", "strip": "binutils",
	"aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu", "aarch64-linux-gnu-strip": "binutils-aarch64-linux-gnu", "aarch64-linux-gnu-objcopy": "binutils-aarch64-linux-gnu",
	"i686-linux-gnu-gcc": "gcc-i686-linux-gnu", "x86_64-w64-mingw32-gcc": "gcc-mingw-w64-x86-64", "i686-w64-mingw32-gcc": "gcc-mingw-w64-i686",
	"addr2line": "binutils", "objcopy": "binutils", "aarch64-linux-gnu-addr2line": "binutils-aarch64-linux-gnu",
	"x86_64-w64-mingw32-addr2line": "binutils-mingw-w64-x86-64", "i686-w64-mingw32-addr2line": "binutils-mingw-w64-i686",
	"objdump": "binutils", "nm": "binutils", "readelf": "binutils", "strings": "binutils",
	"aarch64-linux-gnu-objdump": "binutils-aarch64-linux-gnu", "i686-linux-gnu-objdump": "binutils-i686-linux-gnu",
	"i686-linux-gnu-strip": "binutils-i686-linux-gnu",
}

// fixturePath returns the built fixture, skipping the test when a tool is
// missing (or, for Go cross-compiles, under -short).
func fixturePath(t testing.TB, name string) string {
	t.Helper()
	if fixtures[name] != nil && fixtures[name].slow && testing.Short() {
		t.Skipf("fixture %s is a Go cross-compile; skipped with -short", name)
	}
	p, err := buildFixture(t.Context(), name)
	if errors.Is(err, errSkip) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// needTool skips the test when an external tool is not installed.
func needTool(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if pkg := debianPackages[name]; pkg != "" {
			t.Skipf("%s is not installed: apt install %s", name, pkg)
		}
		t.Skipf("%s is not installed", name)
	}
}

// run runs an external tool and returns its stdout.
func run(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	var stderr []byte
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		stderr = ee.Stderr
	}
	if err != nil {
		return nil, fmt.Errorf("%s %v: %w\n%s", name, args, err, stderr)
	}
	return out, nil
}
