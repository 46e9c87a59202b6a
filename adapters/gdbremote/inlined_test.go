package gdbremote_test

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// inlinedSource has a static function gcc -O2 inlines into main (scale)
// and one it keeps only as a copy specialized for its constant argument
// (mul.constprop.0).
const inlinedSource = `#include <stdio.h>
#include <stdlib.h>
static int scale(int x) { return x * 3 + 1; }
static __attribute__((noinline)) int mul(int x, int k) { return x * k + (x >> 3); }
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 2;
	printf("%d %d %d\n", scale(n), mul(n, 7), mul(n + 1, 7));
	return 0;
}
`

// foldedSource has a static function gcc -O2 inlines into main and folds
// to a constant: its debug information keeps the function (DW_AT_inline),
// but no DW_TAG_inlined_subroutine, and it has no symbol.
const foldedSource = `#include <stdio.h>
#include <stdlib.h>
static int helper(int x) { return x * 5 + 2; }
int main(void) { if (helper(3) != 17) abort(); printf("ok\n"); return 0; }
`

// weakSource calls a function only through a weak declaration, which no
// library defines.
const weakSource = `#include <stdio.h>
extern int plugin_hook(int) __attribute__((weak));
int main(void) { if (plugin_hook) printf("%d\n", plugin_hook(1)); else printf("none\n"); return 0; }
`

// methodSource has a C++ method (internal: no symbol) g++ -O2 inlines into
// main.
const methodSource = `#include <cstdio>
#include <cstdlib>
namespace { struct Scaler { int k; int apply(int x); }; }
int Scaler::apply(int x) { return x * k + 1; }
int main(int argc, char **argv) {
	Scaler s{argc > 1 ? atoi(argv[1]) : 3};
	std::printf("%d\n", s.apply(argc));
	return 0;
}
`

// buildSource compiles src, written to a file, with gcc and flags.
func buildSource(t *testing.T, src, out string, flags ...string) string {
	t.Helper()
	needTool(t, "gcc")
	dir := t.TempDir()
	c := filepath.Join(dir, out+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, out)
	args := append([]string{"-o", bin, c}, flags...)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return bin
}

// A static function the compiler inlined has no procedure: the refusal
// says it was inlined, names the caller it was copied into, and advises
// tracing that caller or building with -fno-inline; a function kept only
// as specialized copies names them. Without debug information nothing
// tells, and the refusal stays as it was. Before, each said only that the
// name is neither a procedure of the program nor a library's function.
func TestTraceInlinedStaticFunction(t *testing.T) {
	needServer(t)
	bin := buildSource(t, inlinedSource, "inlined", "-O2", "-g")
	refusal := func(t *testing.T, bin, name string) string {
		t.Helper()
		is := is.New(t)
		_, err := traceOne(t, bin, []ports.TraceBreakpoint{{Symbol: name, Name: name}}, "")
		is.True(errors.Is(err, ports.ErrAddressNotMapped))
		t.Log(err)
		return err.Error()
	}
	t.Run("inlined", func(t *testing.T) {
		msg := refusal(t, bin, "scale")
		for _, want := range []string{"scale is neither a procedure", "inlined it", "copied into main at 0x", "trace that caller", "-fno-inline"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the refusal does not say %q: %s", want, msg)
			}
		}
	})
	// The address the note names is where the copy starts, inside its
	// caller, and a breakpoint there is hit: an agent can trace it as
	// it is. Before, the note named the caller only.
	t.Run("the copy's address is traceable", func(t *testing.T) {
		is := is.New(t)
		msg := refusal(t, bin, "scale")
		m := regexp.MustCompile(`copied into main at (0x[0-9a-f]+)`).FindStringSubmatch(msg)
		is.True(m != nil)
		addr, err := strconv.ParseUint(m[1], 0, 64)
		is.NoErr(err)
		f, err := elf.Open(bin)
		is.NoErr(err)
		defer f.Close()
		syms, err := f.Symbols()
		is.NoErr(err)
		in := false
		for _, s := range syms {
			in = in || s.Name == "main" && addr >= s.Value && addr < s.Value+s.Size
		}
		is.True(in) // inside main
		res, err := traceOne(t, bin, []ports.TraceBreakpoint{{Address: addr, Name: "scale copy"}}, "")
		is.NoErr(err)
		hit := false
		for _, h := range res.Hits {
			hit = hit || h.Name == "scale copy"
		}
		is.True(hit)
	})
	t.Run("specialized", func(t *testing.T) {
		msg := refusal(t, bin, "mul")
		if !strings.Contains(msg, "specialized copies") || !strings.Contains(msg, "mul.constprop.0") {
			t.Errorf("the refusal does not name mul's specialized copy: %s", msg)
		}
		if strings.Contains(msg, "inlined") {
			t.Errorf("mul was not inlined, it was specialized: %s", msg)
		}
	})
	t.Run("no debug information", func(t *testing.T) {
		plain := buildSource(t, inlinedSource, "inlined-nodebug", "-O2", "-g0")
		msg := refusal(t, plain, "scale")
		if strings.Contains(msg, "inlined") {
			t.Errorf("without debug information nothing says scale was inlined: %s", msg)
		}
	})
	// A static function inlined and then folded away (its result is a
	// constant) leaves debug information naming it as inlined, with no
	// inlined copy left to name a caller by: the refusal says so and
	// still advises.
	t.Run("inlined and folded away", func(t *testing.T) {
		folded := buildSource(t, foldedSource, "folded", "-O2", "-g")
		msg := refusal(t, folded, "helper")
		for _, want := range []string{"helper is neither a procedure", "debug information names it", "inlined it into its caller or removed it", "-fno-inline"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the refusal does not say %q: %s", want, msg)
			}
		}
		if strings.Contains(msg, "copied into") {
			t.Errorf("no caller holds a copy of helper: %s", msg)
		}
	})
	// A function the program only declares (a weak reference no library
	// defined) is in its debug information as a declaration: the compiler
	// neither inlined nor removed it, so the refusal stays as it was.
	t.Run("declared only", func(t *testing.T) {
		weak := buildSource(t, weakSource, "weak", "-O2", "-g")
		msg := refusal(t, weak, "plugin_hook")
		if strings.Contains(msg, "inlined") || strings.Contains(msg, "debug information") {
			t.Errorf("a declared function was not inlined: %s", msg)
		}
	})
	// A C++ method's inlined copies name it through its definition's
	// DW_AT_specification, a declaration in the class: that declaration
	// counts when a definition leads to it.
	t.Run("C++ method", func(t *testing.T) {
		needTool(t, "g++")
		dir := t.TempDir()
		src, method := filepath.Join(dir, "method.cc"), filepath.Join(dir, "method")
		if err := os.WriteFile(src, []byte(methodSource), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command("g++", "-O2", "-g", "-o", method, src).CombinedOutput(); err != nil {
			t.Fatalf("g++: %v\n%s", err, b)
		}
		msg := refusal(t, method, "apply")
		if !strings.Contains(msg, "copied into main") {
			t.Errorf("the refusal does not name main, which apply was copied into: %s", msg)
		}
	})
	t.Run("unknown name", func(t *testing.T) {
		msg := refusal(t, bin, "no_such_function_anywhere")
		if strings.Contains(msg, "inlined") || strings.Contains(msg, "copies") {
			t.Errorf("a name nothing holds is not called inlined: %s", msg)
		}
	})
}
