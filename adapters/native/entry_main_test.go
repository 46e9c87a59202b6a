package native_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// mainC's main is not the first function of its text, and a helper
// before it takes a pointer, so that no other rule finds main by chance.
const mainC = `#include <stdio.h>
__attribute__((noinline)) void shout(const char *s) { puts(s); }
int main(int argc, char **argv) { shout(argc > 1 ? argv[1] : "hi"); return 0; }
`

// A stripped C program's main is the first argument its entry point
// passes to __libc_start_main: it is named main (source libc-start-main)
// at the address the unstripped file's symbol gives, for gcc's and clang's
// x86-64, i386 and AArch64 programs, PIE (main's address from a lea, an
// i386 GOT slot read off the PC thunk's register, an AArch64 GOT slot's
// RELATIVE relocation) or not (an immediate, adrp+add to AArch64's
// __wrap_main, whose branch is followed). An entry point that is not
// glibc's start names nothing, and a symbol named main keeps its source.
func TestMainFromLibcStartMain(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "m.c")
	if err := os.WriteFile(src, []byte(mainC), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, cc, strip string
		flags           []string
	}{
		{"x86-64-pie", "gcc", "strip", nil},
		{"x86-64", "gcc", "strip", []string{"-no-pie"}},
		{"x86-64-noplt", "gcc", "strip", []string{"-fno-plt"}},
		{"clang", "clang", "strip", nil},
		{"i386-pie", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", []string{"-fpie", "-pie"}},
		{"i386", "i686-linux-gnu-gcc", "i686-linux-gnu-strip", []string{"-no-pie"}},
		{"arm64-pie", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", nil},
		{"arm64", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-strip", []string{"-no-pie"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			needTool(t, c.cc)
			exe := filepath.Join(dir, c.name)
			args := append([]string{"-O2", "-o", exe, src}, c.flags...)
			if b, err := exec.Command(c.cc, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.cc, err, b)
			}
			want := elfSymbolValue(t, exe, "main")
			if got, source := mainOf(t, exe); got != want || source != "symbol" {
				t.Fatalf("unstripped: main at %#x (%s), want %#x from the symbol", got, source, want)
			}
			if b, err := exec.Command(c.strip, exe).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.strip, err, b)
			}
			if got, source := mainOf(t, exe); got != want || source != "libc-start-main" {
				t.Fatalf("stripped: main at %#x (%s), want %#x from __libc_start_main's argument", got, source, want)
			}
		})
	}
	t.Run("own-start", func(t *testing.T) {
		needTool(t, "gcc")
		own := filepath.Join(dir, "own.c")
		if err := os.WriteFile(own, []byte(`#include <stdlib.h>
int work(int x) { return x * 3; }
void _start(void) { exit(work(2)); }
`), 0o644); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "own")
		if b, err := exec.Command("gcc", "-O1", "-nostartfiles", "-o", exe, own).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		if b, err := exec.Command("strip", exe).CombinedOutput(); err != nil {
			t.Fatalf("strip: %v\n%s", err, b)
		}
		if got, source := mainOf(t, exe); source != "" {
			t.Fatalf("a program without glibc's start has main at %#x (%s)", got, source)
		}
	})
}

// elfSymbolValue is a symbol's value in an ELF file's .symtab.
func elfSymbolValue(t *testing.T, path, name string) uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name == name && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			return s.Value
		}
	}
	t.Fatalf("%s has no symbol %s", path, name)
	return 0
}

// mainOf is the address and source of the procedure named main, or "".
func mainOf(t *testing.T, path string) (uint64, string) {
	t.Helper()
	for _, p := range proceduresIn(t, path) {
		if p.Name == "main" {
			return p.Address, p.Source
		}
	}
	return 0, ""
}
