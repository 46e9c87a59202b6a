package ar_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hdr formats one member header.
func hdr(name string, size int) string {
	return fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "644", size)
}

// pad is the byte that evens an odd-sized member.
func pad(n int) string {
	if n%2 == 1 {
		return "\n"
	}
	return ""
}

// bsd builds a BSD-format archive by hand: a __.SYMDEF index, then each
// member named "#1/N" with its name leading its data (as macOS ar writes).
func bsd(members ...[2]string) []byte {
	var b strings.Builder
	b.WriteString("!<arch>\n")
	sym := "#1/12"
	idx := "__.SYMDEF\x00\x00\x00" + "\x00\x00\x00\x00"
	b.WriteString(hdr(sym, len(idx)) + idx)
	for _, m := range members {
		name := m[0] + strings.Repeat("\x00", 4-len(m[0])%4)
		body := name + m[1]
		b.WriteString(hdr(fmt.Sprintf("#1/%d", len(name)), len(body)) + body + pad(len(body)))
	}
	return []byte(b.String())
}

// gnu builds a GNU-format archive with ar and gcc from C sources named by
// their object's name; it skips the test when either tool is missing.
// It returns the archive's path and bytes.
func gnu(t testing.TB, objects map[string]string) (string, []byte) {
	t.Helper()
	for _, tool := range []string{"ar", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	dir := t.TempDir()
	args := []string{"rcs", filepath.Join(dir, "libx.a")}
	for name, src := range objects {
		c := filepath.Join(dir, strings.TrimSuffix(name, ".o")+".c")
		if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		obj := filepath.Join(dir, name)
		if out, err := exec.Command("gcc", "-c", "-O1", "-o", obj, c).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		args = append(args, obj)
	}
	if out, err := exec.Command("ar", args...).CombinedOutput(); err != nil {
		t.Fatalf("ar: %v\n%s", err, out)
	}
	b, err := os.ReadFile(args[1])
	if err != nil {
		t.Fatal(err)
	}
	return args[1], b
}

// objects are the sources of a small library, one with a GNU long name.
var objects = map[string]string{
	"add.o":                         "int add(int a, int b) { return a + b; }\n",
	"mul.o":                         "int mul(int a, int b) { return a * b; }\n",
	"a_rather_long_object_name.o":   "int longname(void) { return 42; }\n",
	"another_very_long_member_nm.o": "const char *greet(void) { return \"hello\"; }\n",
}
