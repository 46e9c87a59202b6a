package main

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// cTraceLane is a C compiler and the stub that runs its programs for the
// tracer: gdbserver natively, QEMU's user-mode emulator for the others.
type cTraceLane struct{ name, cc, ccPkg, stub string }

var cTraceLanes = []cTraceLane{
	{"x86-64", "gcc", "gcc", "gdbserver"},
	{"x86", "i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "qemu-i386"},
	{"arm64", "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "qemu-aarch64"},
}

// need skips a test of the lane whose tools are missing, naming the
// Debian package.
func (l cTraceLane) need(t *testing.T) {
	t.Helper()
	for tool, pkg := range map[string]string{l.cc: l.ccPkg, l.stub: map[bool]string{true: "gdbserver", false: "qemu-user"}[l.stub == "gdbserver"], "gdbserver": "gdbserver"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian package %s)", tool, pkg)
		}
	}
}

// floatsC passes and returns floating-point values (xmm, v registers; on
// 32-bit x86 stack words and x87's st0), a float returned as a float, and
// an 8-byte integer, which 32-bit x86 passes in two stack words and
// returns in edx:eax.
const floatsC = `#include <stdio.h>
#include <stdlib.h>
typedef double real;
__attribute__((noinline)) double scale(double x, int k, float y){ return x*k+y; }
__attribute__((noinline)) long long big(long long a, int b){ return a*b; }
__attribute__((noinline)) float third(float v){ return v/3; }
__attribute__((noinline)) real half(const real x){ return x/2; }
__attribute__((noinline)) long double quad(long double x){ return x*3; }
int main(int argc,char**argv){ double d=scale(atof(argv[1]), 3, 0.5f);
  printf("%f %lld %f\n", d, big(1LL<<40, argc), third(1.0f));
  printf("%s %.1f %Lg %d\n", "done", half(d), quad(argc/4.0L), argc); return 0; }
`

// rea trace on each architecture's convention: the parameters debug
// information types as floating point (through a typedef too) are read
// from where they arrive and shown as decimal text (float as float32), the
// results too, and an 8-byte integer is one value; strtod's libc prototype
// types its result; printf's arguments are the ones its format's
// conversions take, a double or long double as decimal text wherever it
// arrives (xmm, v, stack slots, x87's bytes), and no register besides.
// A long double parameter and result are read on 32-bit x86 (three stack
// slots, st0) and AArch64 (a binary128 in v0); x86-64 passes it in memory,
// which is not read.
func TestCLITraceFloats(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	lanes := []struct {
		cTraceLane
		arch string
		// what only JSON shows: where x arrives and the bits of scale's
		// result and third's (an x87 register's 80 bits on 32-bit x86)
		xRegister, scaleBits, thirdBits string
		quad                            bool   // trace quad too
		third                           string // third's result as printf gets it, a double
	}{
		{cTraceLanes[0], "x86-64", "xmm0", "0x4020000000000000", "0x3eaaaaab", false, "0.3333333432674408"},
		// x87 keeps the float result's excess precision: printf gets 1/3 as a double
		{cTraceLanes[1], "x86", "[esp+4],[esp+8]", "0x40028000000000000000", "0x3ffdaaaaaaaaaaaaaaab", true, "0.3333333333333333"},
		{cTraceLanes[2], "arm64", "v0", "0x4020000000000000", "0x3eaaaaab", true, "0.3333333432674408"},
	}
	for _, lane := range lanes {
		t.Run(lane.name, func(t *testing.T) {
			is := is.New(t)
			lane.need(t)
			exe := buildCWith(t, lane.cc, "floats", floatsC, "-O1")
			functions := "scale,big,third,strtod,half,printf"
			if lane.quad {
				functions += ",quad"
			}
			out, stderr, code := runCLI(t, "trace", "--function", functions, "--", exe, "2.5")
			t.Log(out, stderr)
			is.Equal(code, 0)
			var rows []string
			for _, line := range strings.Split(withoutCallSites(out), "\n") {
				if f := strings.Fields(line); len(f) > 1 && f[0] != "#" && f[0] != "evidence" && f[0] != "convention" {
					rows = append(rows, strings.Join(f[1:], " "))
				}
			}
			slices.Sort(rows) // printf's arguments are evaluated in another order on AArch64
			want := []string{
				`big a=0x10000000000, b=0x2 main 0x20000000000`,
				`half x=8 main 4`,
				`printf format="%f %lld %f\n", %f=8, %lld=0x20000000000, %f=` + lane.third + ` main 0x20`,
				`printf format="%s %.1f %Lg %d\n", %s="done", %.1f=4, %Lg=1.5, %d=0x2 main 0xf`,
				`scale x=2.5, k=0x3, y=0.5 main 8`,
				`strtod nptr="2.5", endptr=0x0 main 2.5`,
				`third v=1 main 0.33333334`, // float32's shortest text, not float64's 0.3333333432674408
			}
			if lane.quad {
				want = append(want, `quad x=0.5 main 1.5`)
			}
			slices.Sort(want)
			is.Equal(rows, want)

			out, stderr, code = runCLI(t, "--format", "json", "trace", "--function", "scale,third", "--", exe, "2.5")
			is.Equal(code, 0)
			ev, err := core.ParseEvidence([]byte(out))
			is.NoErr(err)
			var r struct {
				Architecture string `json:"architecture"`
				Hits         []struct {
					Arguments []struct {
						Register string  `json:"register"`
						Value    string  `json:"value"`
						Bits     *string `json:"bits"`
					} `json:"arguments"`
					ReturnValue string  `json:"return_value"`
					ReturnBits  *string `json:"return_bits"`
				} `json:"hits"`
			}
			is.NoErr(json.Unmarshal(ev.NormalizedResult, &r))
			t.Log(stderr, string(ev.NormalizedResult))
			is.Equal(r.Architecture, lane.arch)
			is.Equal(len(r.Hits), 2)
			scale, third := r.Hits[0], r.Hits[1]
			is.Equal(len(scale.Arguments), 3)
			x, k, y := scale.Arguments[0], scale.Arguments[1], scale.Arguments[2]
			is.Equal(x.Register, lane.xRegister)
			is.Equal(*x.Bits, "0x4004000000000000") // 2.5 as a double
			is.Equal(*y.Bits, "0x3f000000")         // 0.5 as a float
			is.Equal(k.Bits, nil)                   // an int has none
			is.Equal(*scale.ReturnBits, lane.scaleBits)
			is.Equal(*third.ReturnBits, lane.thirdBits)
			noDescendants(t)
		})
	}
}

// A Go function under Go's register ABI: its float64 and float32
// parameters arrive in X0 and X1 (xmm0, xmm1 on amd64; v0, v1 on arm64,
// under qemu-aarch64), its float64 result in X0, which debug information
// gives as its one result parameter.
func TestCLITraceGoFloats(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	src := `package main

import (
	"fmt"
	"os"
	"strconv"
)

//go:noinline
func scale(x float64, k int, y float32) float64 { return x*float64(k) + float64(y) }

func main() {
	v, _ := strconv.ParseFloat(os.Args[1], 64)
	fmt.Println(scale(v, 3, 0.5))
}
`
	for goarch, tool := range map[string]string{"amd64": "gdbserver", "arm64": "qemu-aarch64"} {
		t.Run(goarch, func(t *testing.T) {
			is := is.New(t)
			for _, tool := range []string{tool, "gdbserver"} {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s is not installed (Debian package %s)", tool, map[bool]string{true: "gdbserver", false: "qemu-user"}[tool == "gdbserver"])
				}
			}
			exe := goBuild(t, t.TempDir(), goarch, src)
			out, stderr, code := runTraceCLI(t, "trace", "--function", "main.scale", "--", exe, "2.5")
			t.Log(out, stderr)
			is.Equal(code, 0)
			is.True(strings.Contains(strings.Join(strings.Fields(withoutCallSites(out)), " "), "0 main.scale x=2.5, k=0x3, y=0.5 main.main 8"))
			noDescendants(t)
		})
	}
}

// scanC parses with sscanf (glibc's __isoc99_sscanf): text, a set, a
// suppressed field, numbers of several sizes, characters; the second call
// assigns one conversion of two.
const scanC = `#include <stdio.h>
int main(int argc, char **argv) {
  int port = 0, n = 0; char host[32] = {0}; double w = 0; long double q = 0; char c2[2]; unsigned long long big = 0; short h = 0;
  int got = sscanf(argv[1], "%31[^:]:%d %*s %lf %2c %Lf %llx %hd", host, &port, &w, c2, &q, &big, &h);
  printf("%d %s %d %g %Lg %llx %d\n", got, host, port, w, q, big, h);
  got = sscanf("7 x", "%d %d", &port, &n);
  return got;
}
`

// rea trace on a scanf-family call shows, for each conversion, what the
// call stored through its pointer, read at the return as the conversion
// types it, on each architecture's convention; a conversion the call did
// not assign shows its pointer only.
func TestCLITraceScanf(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	for _, lane := range cTraceLanes {
		t.Run(lane.name, func(t *testing.T) {
			is := is.New(t)
			lane.need(t)
			exe := buildCWith(t, lane.cc, "scan", scanC, "-O1")
			out, stderr, code := runCLI(t, "trace", "--function", "__isoc99_sscanf", "--", exe, "example.org:8080 skip 2.5 ab 0.125 ff -3")
			t.Log(out, stderr)
			is.Equal(code, 0)
			is.True(strings.Contains(strings.Join(strings.Fields(withoutCallSites(out)), " "), `str="example.org:8080 skip 2.5 ab 0.125 ff -3", format="%31[^:]:%d %*s %lf %2c %Lf %llx %hd", `+
				`%31[^:]@return="example.org", %d@return=0x1f90, %lf@return=2.5, %2c@return="ab", %Lf@return=0.125, %llx@return=0xff, %hd@return=0xfffd main 0x7`))
			is.True(strings.Contains(out, `str="7 x", format="%d %d", %d@return=0x7, %d=0x`)) // the second %d not assigned
			noDescendants(t)
		})
	}
}

// allocC scans with the m modifier (the call allocates the text and stores
// its pointer) and into wchar_t text, and prints wchar_t text.
const allocC = `#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>
int main(int argc, char **argv) {
  char *word = 0, *set = 0, *three = 0; wchar_t w[16];
  int n = sscanf(argv[1], "%ms %m[a-z] %3mc %15ls", &word, &set, &three, w);
  printf("%d %ls %s\n", n, w, word);
  free(word); free(set); free(three);
  return 0;
}
`

// rea trace reads what a scanf conversion with the m modifier allocated,
// through the pointer the call stored, and wchar_t text (%ls) as UTF-8,
// in scanf and printf alike, on each architecture's convention.
func TestCLITraceAllocatedAndWideText(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	for _, lane := range cTraceLanes {
		t.Run(lane.name, func(t *testing.T) {
			is := is.New(t)
			lane.need(t)
			exe := buildCWith(t, lane.cc, "alloc", allocC, "-O1")
			out, stderr, code := runCLI(t, "trace", "--function", "__isoc99_sscanf,printf", "--", exe, "alpha beta xyz wide")
			t.Log(out, stderr)
			is.Equal(code, 0)
			rows := traceRows(out)
			is.Equal(len(rows), 2)
			is.True(strings.HasPrefix(rows[0], `__isoc99_sscanf str="alpha beta xyz wide", format="%ms %m[a-z] %3mc %15ls", `))
			is.True(strings.HasSuffix(rows[0], `%ms@return="alpha", %m[a-z]@return="beta", %3mc@return="xyz", %15ls@return="wide" main 0x4`))
			is.Equal(rows[1], `printf format="%d %ls %s\n", %d=0x4, %ls="wide", %s="alpha" main 0xd`)
			noDescendants(t)
		})
	}
}

// vaC is a logging wrapper and a scanning one: the arguments reach
// vsnprintf, vfprintf and vsscanf in a va_list, past the registers too
// (five integers after the six in registers, eight doubles after the
// first).
const vaC = `#include <stdio.h>
#include <stdarg.h>
__attribute__((noinline)) void logf_(const char *fmt, ...) {
  char buf[160]; va_list ap; va_start(ap, fmt); vsnprintf(buf, sizeof buf, fmt, ap); va_end(ap);
  va_start(ap, fmt); vfprintf(stdout, fmt, ap); va_end(ap); puts(buf);
}
__attribute__((noinline)) int scanit(const char *in, const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); int n = vsscanf(in, fmt, ap); va_end(ap); return n;
}
int main(int argc, char **argv) {
  logf_("%s %d %.2f %lld %Lg %s %d %d %d %d %d %f %f %f %f %f %f %f %f\n", "ana", 42, 2.5 * argc, 1LL << 40, 1.5L, "zz", 1, 2, 3, 4, 5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
  int a = 0; double d = 0; char w[16];
  return scanit("17 0.5 word", "%d %lf %15s", &a, &d, w) == 3 ? 0 : 1;
}
`

// rea trace on the va_list forms reads the format's arguments through the
// va_list as va_arg would (System V x86-64's and AAPCS64's register save
// areas and overflow area, i386's stack): each conversion's argument typed
// and named by it, an int without the upper half of its 64-bit slot.
func TestCLITraceVaList(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	const args = `%s="ana", %d=0x2a, %.2f=2.5, %lld=0x10000000000, %Lg=1.5, %s="zz", %d=0x1, %d=0x2, %d=0x3, %d=0x4, %d=0x5, %f=1, %f=2, %f=3, %f=4, %f=5, %f=6, %f=7, %f=8`
	for _, lane := range cTraceLanes {
		t.Run(lane.name, func(t *testing.T) {
			is := is.New(t)
			lane.need(t)
			exe := buildCWith(t, lane.cc, "va", vaC, "-O1")
			out, stderr, code := runCLI(t, "trace", "--function", "vsnprintf,vfprintf,__isoc99_vsscanf", "--", exe)
			t.Log(out, stderr)
			is.Equal(code, 0)
			rows := traceRows(out)
			is.Equal(len(rows), 3)
			is.True(strings.HasPrefix(rows[0], "vsnprintf str=0x"))
			is.True(strings.Contains(rows[0], ", ap=0x") && strings.HasSuffix(rows[0], args+" logf_ 0x73"))
			is.True(strings.HasPrefix(rows[1], "vfprintf stream=0x") && strings.HasSuffix(rows[1], args+" logf_ 0x73"))
			is.True(strings.HasPrefix(rows[2], `__isoc99_vsscanf str="17 0.5 word", format="%d %lf %15s", ap=0x`))
			is.True(strings.HasSuffix(rows[2], `%d@return=0x11, %lf@return=0.5, %15s@return="word" scanit 0x3`))
			noDescendants(t)
		})
	}
}

// traceRows is each hit's row of rea trace's text, past the heading and
// the hit's number, its columns' padding squeezed, without the caller's
// call site ("main at 0x1633" reads "main"; TestCLICaptureAndTrace checks
// it is shown).
func traceRows(out string) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n")[3:] {
		line = withoutCallSites(line)
		if f := strings.Fields(line); len(f) > 1 {
			rows = append(rows, strings.Join(f[1:], " "))
		}
	}
	return rows
}

// withoutCallSites is rea trace's text without the callers' call sites
// ("main at 0x1633" reads "main").
func withoutCallSites(out string) string { return callSiteText.ReplaceAllString(out, "$1$2") }

var callSiteText = regexp.MustCompile(`(\S) at 0x[0-9a-f]+( |$)`)
