package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// ld64 finds lld's Mach-O linker: ld64.lld, or Debian's versioned name.
func ld64(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("ld64.lld"); err == nil {
		return p
	}
	if m, _ := filepath.Glob("/usr/bin/ld64.lld-*"); len(m) > 0 {
		return m[len(m)-1]
	}
	t.Skip("ld64.lld is not installed: apt install lld")
	return ""
}

// A Mach-O executable's linker symbol __mh_execute_header, which ld64 and
// lld put in section 1 (__text) at the Mach-O header's address, is a label
// and not a procedure; the functions around it stay procedures.
func TestMachOHeaderSymbolIsNoProcedure(t *testing.T) {
	needTool(t, "clang")
	linker := ld64(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "m.c")
	if err := os.WriteFile(src, []byte("int helper(int x) { return x * 3; }\nint main(void) { return helper(4); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"x86_64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			obj, exe := filepath.Join(dir, arch+".o"), filepath.Join(dir, arch)
			if b, err := exec.Command("clang", "-target", arch+"-apple-macos11", "-O1", "-c", src, "-o", obj).CombinedOutput(); err != nil {
				t.Fatalf("clang: %v\n%s", err, b)
			}
			if b, err := exec.Command(linker, "-arch", arch, "-platform_version", "macos", "11.0", "11.0", "-o", exe, obj).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", linker, err, b)
			}
			names := map[string]string{}
			for _, n := range namesIn(t, exe) {
				names[n.Name] = n.Kind
			}
			if names["__mh_execute_header"] != "label" {
				t.Errorf("__mh_execute_header is %q, want a label", names["__mh_execute_header"])
			}
			procs := map[string]bool{}
			for _, p := range proceduresIn(t, exe) {
				procs[p.Name] = true
			}
			if procs["__mh_execute_header"] || !procs["_helper"] || !procs["_main"] {
				t.Errorf("procedures %v: want _helper and _main and not the header", procs)
			}
		})
	}
}

// namesIn is an ELF, PE or Mach-O file's names.
func namesIn(t *testing.T, path string) []ports.Name {
	t.Helper()
	a, err := native.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(t.Context())
	names, err := a.Names(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// proceduresIn is a file's procedures.
func proceduresIn(t *testing.T, path string) []ports.Procedure {
	t.Helper()
	a, err := native.OpenFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(t.Context())
	procs, err := a.Procedures(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return procs
}
