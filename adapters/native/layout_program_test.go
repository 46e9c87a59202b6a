package native_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// TestLayoutStackCanaryOfStrippedStatic: a stripped static program has no
// symbol for main, so the layout asks the analysis before discovery: main
// from the entry point's C library _start, the program's functions as
// those main reaches by direct calls that the installed C library archives
// do not name. The indicator follows the program's build (canarySource:
// under -fstack-protector-strong main has no array, worker and helper do,
// so at -O0 only the functions main reaches load the canary), fortified or
// not; the limitation names main's address (nm's, on the unstripped
// build). With signature libraries off (REA_SIGNATURE_LIBRARIES empty)
// it stays null and says what would decide it.
func TestLayoutStackCanaryOfStrippedStatic(t *testing.T) {
	for _, tc := range []struct{ cc, strip, libc string }{
		{"gcc", "strip", "libc6-dev"},
		{"aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", "libc6-dev-arm64-cross"},
		{"i686-linux-gnu-gcc", "i686-linux-gnu-strip", "libc6-dev-i386-cross"},
	} {
		t.Run(tc.cc, func(t *testing.T) {
			needTool(t, tc.cc)
			needTool(t, tc.strip)
			if out, err := exec.Command(tc.cc, "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
				t.Skipf("static linking needs libc.a, which %s does not find: apt install %s", tc.cc, tc.libc)
			}
			strippedCanaries(t, tc.cc, tc.strip)
		})
	}
}

func strippedCanaries(t *testing.T, cc, strip string) {
	dir := t.TempDir()
	src := filepath.Join(dir, "canary.c")
	if err := os.WriteFile(src, []byte(canarySource), 0o644); err != nil {
		t.Fatal(err)
	}
	installed := native.New(&native.Options{SignatureLibraries: &native.SignatureLibraries{Installed: true}})
	off, err := native.ParseSignatureLibraries("", true) // REA_SIGNATURE_LIBRARIES=""
	if err != nil {
		t.Fatal(err)
	}
	none := native.New(&native.Options{SignatureLibraries: off})
	for _, tc := range []struct {
		name   string
		flags  []string
		canary bool
	}{
		{"strong-O0", []string{"-fstack-protector-strong"}, true},
		{"strong-O2", []string{"-O2", "-fstack-protector-strong"}, true},
		{"none-O0", []string{"-fno-stack-protector"}, false},
		{"none-O2", []string{"-O2", "-fno-stack-protector"}, false},
		{"fortify-strong", []string{"-O2", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong"}, true},
		{"fortify-none", []string{"-O2", "-D_FORTIFY_SOURCE=2", "-fno-stack-protector"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			path := filepath.Join(dir, tc.name)
			args := append([]string{"-static", "-U_FORTIFY_SOURCE"}, tc.flags...)
			if b, err := exec.Command(cc, append(args, "-o", path, src)...).CombinedOutput(); err != nil {
				t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
			}
			main := elfSymbolValue(t, path, "main")
			if b, err := exec.Command(strip, path).CombinedOutput(); err != nil {
				t.Fatalf("strip: %v\n%s", err, b)
			}
			data, err := os.ReadFile(path)
			is.NoErr(err)

			l := layoutWith(t, installed, data)
			is.Equal(l.Dynamic.StackCanaryUnknown, false) // told
			is.Equal(l.Dynamic.StackCanary, tc.canary)
			lim := l.Dynamic.StackCanaryLimit
			is.True(strings.Contains(lim, fmt.Sprintf("main (0x%x, which no symbol names", main))) // how main was found
			is.True(strings.Contains(lim, "libc.a"))                                               // which libraries told libc's code

			l = layoutWith(t, none, data)
			is.Equal(l.Dynamic.StackCanaryUnknown, true)
			is.True(strings.Contains(l.Dynamic.StackCanaryLimit, "signature library matching is off"))
			is.True(strings.Contains(l.Dynamic.StackCanaryLimit, native.EnvSignatureLibraries))
		})
	}
}

func layoutWith(t *testing.T, p *native.Provider, data []byte) *ports.Layout {
	t.Helper()
	l, err := p.ReadLayout(t.Context(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLayoutStackCanaryWhenTooFewNamed: when the signature libraries are
// not the C library the program was linked from (musl's libc.a for a glibc
// program), they name almost nothing, the walk from main would take glibc's
// unnamed functions, which use the canary, for the program's, and so the
// indicator stays null and says why.
func TestLayoutStackCanaryWhenTooFewNamed(t *testing.T) {
	is := is.New(t)
	needTool(t, "gcc")
	const musl = "/usr/lib/x86_64-linux-musl/libc.a"
	if _, err := os.Stat(musl); err != nil {
		t.Skip("musl's libc.a is not installed: apt install musl-dev")
	}
	if out, err := exec.Command("gcc", "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
		t.Skip("static linking needs libc.a, which gcc does not find: apt install libc6-dev")
	}
	dir := t.TempDir()
	src, path := filepath.Join(dir, "canary.c"), filepath.Join(dir, "canary")
	is.NoErr(os.WriteFile(src, []byte(canarySource), 0o644))
	if b, err := exec.Command("gcc", "-static", "-fno-stack-protector", "-s", "-o", path, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	data, err := os.ReadFile(path)
	is.NoErr(err)
	l := layoutWith(t, native.New(&native.Options{SignatureLibraries: &native.SignatureLibraries{Paths: []string{musl}}}), data)
	is.Equal(l.Dynamic.StackCanaryUnknown, true)
	is.True(strings.Contains(l.Dynamic.StackCanaryLimit, "named only"))
	is.True(strings.Contains(l.Dynamic.StackCanaryLimit, musl))
}

// TestLayoutOfTheOpenTarget: the layout of an open target's bytes read
// through its analysis (ports.TargetLayoutReader) tells a stripped static
// program's code by that analysis, which matched the signature libraries
// at open, instead of opening a second one as the provider's ReadLayout
// does; the layout is the same either way, canary and FORTIFY_SOURCE
// included, also once the analysis has run whole-file discovery.
func TestLayoutOfTheOpenTarget(t *testing.T) {
	for _, tc := range []struct{ cc, strip, libc string }{
		{"gcc", "strip", "libc6-dev"},
		{"aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", "libc6-dev-arm64-cross"},
	} {
		t.Run(tc.cc, func(t *testing.T) {
			is := is.New(t)
			needTool(t, tc.cc)
			needTool(t, tc.strip)
			if out, err := exec.Command(tc.cc, "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
				t.Skipf("static linking needs libc.a, which %s does not find: apt install %s", tc.cc, tc.libc)
			}
			dir := t.TempDir()
			src, path := filepath.Join(dir, "fortify.c"), filepath.Join(dir, "fortify")
			is.NoErr(os.WriteFile(src, []byte(fortifySource), 0o644))
			if b, err := exec.Command(tc.cc, "-static", "-O2", "-U_FORTIFY_SOURCE", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong", "-o", path, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			if b, err := exec.Command(tc.strip, path).CombinedOutput(); err != nil {
				t.Fatalf("strip: %v\n%s", err, b)
			}
			data, err := os.ReadFile(path)
			is.NoErr(err)
			// As the server wires it: discovery starts at open.
			p := native.New(&native.Options{SignatureLibraries: &native.SignatureLibraries{Installed: true}, DiscoverOnOpen: true})

			n := native.LayoutAnalysesOpened()
			want := layoutWith(t, p, data) // the path-only call: an analysis of its own
			is.Equal(native.LayoutAnalysesOpened()-n, int64(1))
			is.True(len(want.Dynamic.Fortified) > 0 && !want.Dynamic.StackCanaryUnknown) // the program's code was told

			a, err := p.Open(t.Context(), ports.Target{Path: path})
			is.NoErr(err)
			defer a.Close(t.Context())
			_, err = a.(ports.ProcedureLister).Procedures(t.Context()) // the session has run discovery
			is.NoErr(err)
			n = native.LayoutAnalysesOpened()
			got, err := a.(ports.TargetLayoutReader).ReadTargetLayout(t.Context(), bytes.NewReader(data), int64(len(data)))
			is.NoErr(err)
			is.Equal(native.LayoutAnalysesOpened()-n, int64(0)) // no second analysis
			is.Equal(got, want)
		})
	}
}
