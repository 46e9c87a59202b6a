package native_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
)

// fortifySource makes _FORTIFY_SOURCE=2 check calls in main (read,
// memcpy and printf; clang's leaves read) and in functions main reaches
// (snprintf, strcpy),
// whose sizes the compiler knows but cannot prove safe.
const fortifySource = `#include <stdio.h>
#include <string.h>
#include <unistd.h>
static int helper(const char *s) { char buf[32]; strcpy(buf, s); return (int)strlen(buf); }
int worker(int n) { char b[64]; snprintf(b, sizeof b, "%d", n); return helper(b); }
int main(int c, char **v) {
	char r[16], d[24];
	if (read(0, r, c) < 0) return 1;
	memcpy(d, v[0], c);
	printf("%d %s\n", worker(c), d);
	return 0;
}
`

// TestLayoutFortify: a dynamic build imports glibc's checked functions
// (nm -D's undefined __*_chk is the oracle); a static one links them
// whatever it was built with, so there the program's own code is read for
// calls of them: main and, with DWARF, its compile units' functions; in a
// stripped one, the functions main reaches that the installed C library
// archives do not name. Each build lists what the dynamic build imports.
// Without _FORTIFY_SOURCE every build says false.
func TestLayoutFortify(t *testing.T) {
	for _, tc := range []struct{ cc, nm, strip, libc string }{
		{"gcc", "nm", "strip", "libc6-dev"},
		{"clang", "nm", "strip", "libc6-dev"},
		{"aarch64-linux-gnu-gcc", "aarch64-linux-gnu-nm", "aarch64-linux-gnu-strip", "libc6-dev-arm64-cross"},
		{"i686-linux-gnu-gcc", "i686-linux-gnu-nm", "i686-linux-gnu-strip", "libc6-dev-i386-cross"},
	} {
		t.Run(tc.cc, func(t *testing.T) {
			needTool(t, tc.cc)
			needTool(t, tc.nm)
			needTool(t, tc.strip)
			if out, err := exec.Command(tc.cc, "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
				t.Skipf("static linking needs libc.a, which %s does not find: apt install %s", tc.cc, tc.libc)
			}
			fortifyBuilds(t, tc.cc, tc.nm, tc.strip)
		})
	}
}

func fortifyBuilds(t *testing.T, cc, nm, strip string) {
	dir := t.TempDir()
	src := filepath.Join(dir, "fortify.c")
	if err := os.WriteFile(src, []byte(fortifySource), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, flags ...string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		if b, err := exec.Command(cc, append(append([]string{"-U_FORTIFY_SOURCE"}, flags...), "-o", out, src)...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", cc, flags, err, b)
		}
		return out
	}
	// The oracle: what the dynamic build imports, by nm.
	out, err := exec.Command(nm, "-D", "--undefined-only", build("oracle", "-O2", "-D_FORTIFY_SOURCE=2")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range strings.Fields(string(out)) {
		if n, _, _ := strings.Cut(f, "@"); strings.HasPrefix(n, "__") && strings.HasSuffix(n, "_chk") {
			want = append(want, n)
		}
	}
	slices.Sort(want)
	if !slices.Contains(want, "__printf_chk") || !slices.Contains(want, "__snprintf_chk") {
		t.Fatalf("%s -D_FORTIFY_SOURCE=2 imports %v: not the checked printf and snprintf the test expects", cc, want)
	}
	installed := native.New(&native.Options{SignatureLibraries: &native.SignatureLibraries{Installed: true}})
	for _, tc := range []struct {
		name    string
		flags   []string
		strip   bool
		fortify bool
		limited string // what the limitation says ("" for none, "-" unchecked)
	}{
		{"dynamic", []string{"-O2", "-D_FORTIFY_SOURCE=2"}, false, true, ""},
		{"dynamic-none", []string{"-O2"}, false, false, ""},
		{"static-g", []string{"-static", "-g", "-O2", "-D_FORTIFY_SOURCE=2"}, false, true, ""},
		{"static-none-g", []string{"-static", "-g", "-O2"}, false, false, ""},
		// Without DWARF only main is read: it calls read, memcpy and
		// printf checked, and the limitation says the rest was not read.
		{"static", []string{"-static", "-O2", "-D_FORTIFY_SOURCE=2"}, false, true, "are main's"},
		// Without checked functions in the image nothing could call one;
		// with some (i686's libc.a pulls in a few), main alone was read.
		{"static-none", []string{"-static", "-O2"}, false, false, "-"},
		// Stripped: the checked functions the libraries name; x86-64's
		// __memcpy_chk and __read_chk are too short to be named.
		{"static-stripped", []string{"-static", "-O2", "-D_FORTIFY_SOURCE=2"}, true, true, "fortify_source_indicator is true from the program's code"},
		{"static-none-stripped", []string{"-static", "-O2"}, true, false, "fortify_source_indicator is false from the program's code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			path := build(tc.name, tc.flags...)
			if tc.strip {
				if b, err := exec.Command(strip, path).CombinedOutput(); err != nil {
					t.Fatalf("strip: %v\n%s", err, b)
				}
			}
			data, err := os.ReadFile(path)
			is.NoErr(err)
			l := layoutWith(t, installed, data)
			d := l.Dynamic
			t.Logf("fortified %v; limit %q", d.Fortified, d.FortifyLimit)
			is.Equal(d.FortifyUnknown, false)
			switch tc.limited {
			case "":
				is.Equal(d.FortifyLimit, "")
			case "-":
			default:
				is.True(strings.Contains(d.FortifyLimit, tc.limited))
			}
			switch {
			case !tc.fortify:
				is.Equal(len(d.Fortified), 0)
			case tc.name == "static", tc.name == "static-stripped":
				// Some of the imports: main's own calls (printf's at least),
				// or those the libraries name (printf's and snprintf's).
				must := map[string][]string{"static": {"__printf_chk"}, "static-stripped": {"__printf_chk", "__snprintf_chk"}}[tc.name]
				for _, n := range must {
					is.True(slices.Contains(d.Fortified, n))
				}
				for _, n := range d.Fortified {
					is.True(slices.Contains(want, n))
				}
			default:
				is.Equal(d.Fortified, want)
			}
		})
	}
}

// shortCheckedSource calls only checked functions too short for the
// signature libraries to name on x86-64 (__read_chk and __memcpy_chk).
const shortCheckedSource = `#include <string.h>
#include <unistd.h>
int main(int c, char **v) {
	char r[16], d[24];
	if (read(0, r, c) < 0) return 1;
	memcpy(d, v[0], c);
	return d[c] + r[c];
}
`

// TestLayoutFortifyUnnamedChecked: a stripped static program that calls
// only checked functions too short for the libraries to name by their
// bytes. On x86-64 (__read_chk and __memcpy_chk: a compare, a jump to
// __chk_fail and a jump to read or memcpy) they are named by their calls
// once the libraries name what they call by where the named functions
// call it (__chk_fail, memcpy's resolver behind its IRELATIVE stub), so
// the indicator is true and lists both, at nm's addresses on the
// unstripped build. On i686 __read_chk is named so, and __memcpy_chk,
// which jumps to __chk_fail only conditionally and falls through into
// memcpy, by that jump and that fall (libpattern.go's fallThrough): both
// are listed, also when the program calls only memcpy checked (before,
// the indicator was null there).
func TestLayoutFortifyUnnamedChecked(t *testing.T) {
	const onlyMemcpy = `#include <string.h>
int main(int c, char **v) { char d[8]; memcpy(d, v[0], c + 3); return d[1]; }
`
	for _, tc := range []struct {
		name, cc, strip, libc, src string
		fortified                  []string
		maybe                      []string // unnamed checked functions whose addresses the limit names
	}{
		{"x86-64", "gcc", "strip", "libc6-dev", shortCheckedSource, []string{"__memcpy_chk", "__read_chk"}, nil},
		{"i686", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", "libc6-dev-i386-cross", shortCheckedSource, []string{"__memcpy_chk", "__read_chk"}, nil},
		{"i686-memcpy", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", "libc6-dev-i386-cross", onlyMemcpy, []string{"__memcpy_chk"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			needTool(t, tc.cc)
			needTool(t, tc.strip)
			if out, err := exec.Command(tc.cc, "-print-file-name=libc.a").Output(); err != nil || !filepath.IsAbs(strings.TrimSpace(string(out))) {
				t.Skipf("static linking needs libc.a, which %s does not find: apt install %s", tc.cc, tc.libc)
			}
			dir := t.TempDir()
			src, path := filepath.Join(dir, "short.c"), filepath.Join(dir, "short")
			is.NoErr(os.WriteFile(src, []byte(tc.src), 0o644))
			if b, err := exec.Command(tc.cc, "-U_FORTIFY_SOURCE", "-D_FORTIFY_SOURCE=2", "-O2", "-static", "-o", path, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			var at []uint64
			for _, n := range tc.maybe {
				at = append(at, elfSymbolValue(t, path, n))
			}
			if b, err := exec.Command(tc.strip, path).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.strip, err, b)
			}
			data, err := os.ReadFile(path)
			is.NoErr(err)
			d := layoutWith(t, native.New(&native.Options{SignatureLibraries: &native.SignatureLibraries{Installed: true}}), data).Dynamic
			t.Logf("fortified %v unknown %v; limit %q", d.Fortified, d.FortifyUnknown, d.FortifyLimit)
			is.Equal(d.FortifyUnknown, false)
			is.Equal(d.Fortified, tc.fortified)
			for _, a := range at {
				is.True(strings.Contains(d.FortifyLimit, fmt.Sprintf("0x%x", a))) // the short functions that may be checked ones
			}
		})
	}
}

// TestLayoutFortifyMusl: musl has no checked functions, so its programs
// say false, dynamic or static; stripped and read against the installed
// (glibc) archives, which name too little of musl's code, it is null and
// says why.
func TestLayoutFortifyMusl(t *testing.T) {
	needTool(t, "musl-gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "fortify.c")
	if err := os.WriteFile(src, []byte(fortifySource), 0o644); err != nil {
		t.Fatal(err)
	}
	installed := native.New(&native.Options{SignatureLibraries: &native.SignatureLibraries{Installed: true}})
	for _, tc := range []struct {
		name    string
		flags   []string
		unknown bool
	}{
		{"dynamic", []string{"-O2", "-D_FORTIFY_SOURCE=2"}, false},
		{"static", []string{"-static", "-O2", "-D_FORTIFY_SOURCE=2"}, false},
		{"static-stripped", []string{"-static", "-s", "-O2", "-D_FORTIFY_SOURCE=2"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			path := filepath.Join(dir, tc.name)
			if b, err := exec.Command("musl-gcc", append(tc.flags, "-o", path, src)...).CombinedOutput(); err != nil {
				t.Fatalf("musl-gcc: %v\n%s", err, b)
			}
			data, err := os.ReadFile(path)
			is.NoErr(err)
			d := layoutWith(t, installed, data).Dynamic
			t.Logf("fortified %v unknown %v; limit %q", d.Fortified, d.FortifyUnknown, d.FortifyLimit)
			is.Equal(len(d.Fortified), 0)
			is.Equal(d.FortifyUnknown, tc.unknown)
			if tc.unknown {
				is.True(strings.Contains(d.FortifyLimit, native.EnvSignatureLibraries)) // what would decide it
			}
		})
	}
}
