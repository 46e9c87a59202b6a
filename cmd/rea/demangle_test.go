package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// A C++ program's procedures are listed with their demangled names, a
// qualified search finds them, and a procedure argument may name one
// demangled.
func TestDemangledNames(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not installed (Debian: apt-get install g++): the C++ fixture cannot be built")
	}
	is := is.New(t)
	exe := buildWith(t, gxx, "shapes", ".cpp", `#include <cstdio>
struct Shape { virtual double area() const = 0; virtual ~Shape() {} };
struct Sq : Shape { double s; Sq(double x) : s(x) {} double area() const override { return s * s; } };
double total(Shape **v, int n) { double t = 0; for (int i = 0; i < n; i++) t += v[i]->area(); return t; }
int main(int c, char **) { Sq a(c); Shape *v[] = {&a}; std::printf("%f\n", total(v, 1)); return 0; }
`, "-O1")
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	var page struct {
		Items []struct {
			Value     string
			Demangled *string
		}
	}
	_, m := evidence(t, call(t, cs, "search_procedures", map[string]any{"pattern": "Sq::area"}))
	decode(t, m, &page)
	is.Equal(len(page.Items), 1)
	is.Equal(page.Items[0].Value, "_ZNK2Sq4areaEv")
	is.Equal(*page.Items[0].Demangled, "Sq::area() const")

	_, m = evidence(t, call(t, cs, "search_procedures", map[string]any{"pattern": "main", "mode": "exact"}))
	page.Items = nil
	decode(t, m, &page)
	is.Equal(len(page.Items), 1)
	is.True(page.Items[0].Demangled == nil) // a C name is not mangled

	_, m = evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "total"}))
	is.Equal(m["procedure"].(map[string]any)["name"], "_Z5totalPP5Shapei")
	_, m = evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "Sq::area"}))
	is.Equal(m["procedure"].(map[string]any)["name"], "_ZNK2Sq4areaEv")
}

// buildWith compiles one source file with compiler and flags.
func buildWith(t *testing.T, compiler, name, ext, src string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name+ext)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	if b, err := exec.Command(compiler, append([]string{"-o", out, file}, flags...)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", compiler, err, b)
	}
	return out
}
