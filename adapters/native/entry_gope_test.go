package native_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A Go program for Windows stripped with -ldflags=-s -w has no symbol for
// its pclntab: it is found in .rdata by its header, behind the build ID
// that begins .text, and names main.main and main.add where the same
// build without -s has their symbols, for amd64, 386 and arm64; linked
// without a build ID (-buildid=), behind the build information blob that
// begins .data. A C program holding a copy of that pclntab and the blob's
// magic in its .rdata, but no Go build ID, does not take the Go program's
// names.
func TestGoPEStrippedPCLNTab(t *testing.T) {
	needTool(t, "go")
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("testdata", "goprog"))
	if err != nil {
		t.Fatal(err)
	}
	build := func(t *testing.T, goarch, out, ldflags string) {
		t.Helper()
		cmd := exec.Command("go", "build", "-ldflags="+ldflags, "-o", out, "main.go")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=windows", "GOARCH="+goarch)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
	}
	for _, c := range []struct{ goarch, buildID string }{
		{"amd64", ""}, {"386", ""}, {"arm64", ""},
		// Linked without a build ID: .data's build information blob
		// tells instead.
		{"amd64", " -buildid="}, {"386", " -buildid="}, {"arm64", " -buildid="},
	} {
		goarch := c.goarch
		name := goarch + strings.ReplaceAll(c.buildID, " -buildid=", "-no-buildid")
		t.Run(name, func(t *testing.T) {
			full, stripped := filepath.Join(dir, name+".exe"), filepath.Join(dir, name+"-stripped.exe")
			build(t, goarch, full, "-w"+c.buildID)
			build(t, goarch, stripped, "-s -w"+c.buildID)
			for _, name := range []string{"main.main", "main.add", "runtime.main"} {
				want, source := procNamed(t, full, name)
				if source != "symbol" {
					t.Fatalf("unstripped: %s (%s), want its symbol", name, source)
				}
				if got, source := procNamed(t, stripped, name); got != want || source != "gopclntab" {
					t.Fatalf("stripped: %s at %#x (%s), want %#x from the pclntab", name, got, source, want)
				}
			}
		})
	}
	t.Run("c-with-pclntab", func(t *testing.T) {
		needTool(t, "x86_64-w64-mingw32-gcc")
		gobin := filepath.Join(dir, "amd64-stripped.exe")
		if _, err := os.Stat(gobin); err != nil {
			build(t, "amd64", gobin, "-s -w")
		}
		b, err := os.ReadFile(gobin)
		if err != nil {
			t.Fatal(err)
		}
		at := bytes.Index(b, []byte{0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8})
		if at < 0 {
			t.Fatal("no pclntab header in the Go program")
		}
		tab := b[at:min(len(b), at+1<<20)]
		var c strings.Builder
		c.WriteString("const unsigned char tab[] __attribute__((aligned(8))) = {")
		for _, x := range tab {
			fmt.Fprintf(&c, "%d,", x)
		}
		c.WriteString("};\nconst char info[] = \"\\xff Go buildinf:\";\n")
		c.WriteString("int main(int argc, char **argv) { return tab[argc] + info[argc]; }\n")
		csrc, exe := filepath.Join(dir, "tab.c"), filepath.Join(dir, "tab.exe")
		if err := os.WriteFile(csrc, []byte(c.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("x86_64-w64-mingw32-gcc", "-O1", "-s", "-o", exe, csrc).CombinedOutput(); err != nil {
			t.Fatalf("x86_64-w64-mingw32-gcc: %v\n%s", err, out)
		}
		for _, p := range proceduresIn(t, exe) {
			if p.Source == "gopclntab" {
				t.Fatalf("a C program has %s at %#x from a pclntab", p.Name, p.Address)
			}
		}
	})
}
