package native_test

import (
	"debug/macho"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A stripped macOS program's LC_MAIN entry is named _main, as its symbol
// named it before stripping, at the same address, for x86-64 and arm64;
// the stripped program's names list it as a function. Linked with -e
// _start, the entry is not main: it is named _start and _main where the
// export trie puts them, or left "entry" when the trie does not name it.
// With exports restricted to another name, the entry is named _main by
// its LC_MAIN role, whether its symbol was _main or -e's _start. A Go program's
// LC_MAIN entry is the runtime's _rt0, which its pclntab names: stripped,
// it is not renamed _main.
func TestMainFromLCMain(t *testing.T) {
	needTool(t, "clang")
	linker, strip := ld64(t), llvmTool(t, "llvm-strip")
	dir := t.TempDir()
	src := filepath.Join(dir, "m.c")
	if err := os.WriteFile(src, []byte("int helper(int x) { return x * 3; }\nint main(int argc, char **argv) { return helper(argc); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"x86_64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			obj, exe, stripped := filepath.Join(dir, arch+".o"), filepath.Join(dir, arch), filepath.Join(dir, arch+"-stripped")
			for _, s := range [][]string{
				{"clang", "-target", arch + "-apple-macos11", "-O1", "-c", src, "-o", obj},
				{linker, "-arch", arch, "-platform_version", "macos", "11.0", "11.0", "-o", exe, obj},
				{strip, "-o", stripped, exe},
			} {
				if b, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", s[0], err, b)
				}
			}
			want := machoSymbolValue(t, exe, "_main")
			if got, source := procNamed(t, exe, "_main"); got != want || source != "entry" {
				t.Fatalf("unstripped: _main at %#x (%s), want %#x", got, source, want)
			}
			if machoHasSymbol(t, stripped, "_main") {
				t.Fatal("llvm-strip kept _main")
			}
			if got, source := procNamed(t, stripped, "_main"); got != want || source != "entry" {
				t.Fatalf("stripped: _main at %#x (%s), want %#x, the LC_MAIN entry", got, source, want)
			}
			if _, source := procNamed(t, stripped, "entry"); source != "" {
				t.Fatal("stripped: the entry is still named entry")
			}
			kinds := map[string]string{}
			for _, n := range namesIn(t, stripped) {
				if n.Address == want {
					kinds[n.Name] = n.Kind
				}
			}
			if kinds["_main"] != "function" || kinds["entry"] != "" {
				t.Fatalf("stripped: names at the entry %v, want _main only", kinds)
			}
		})
	}
	// Linked with -e, the entry is not main: stripped, it keeps the name
	// the export trie gives it (_start), or "entry" when it is not
	// exported, and _main is named where the trie exports it.
	esrc := filepath.Join(dir, "e.c")
	if err := os.WriteFile(esrc, []byte(`int helper(int x) { return x * 3; }
int main(int argc, char **argv) { return helper(argc); }
int start(int argc, char **argv) { return main(argc, argv) + 1; }
__attribute__((visibility("hidden"))) int hidden_start(int argc, char **argv) { return main(argc, argv) + 2; }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"x86_64", "arm64"} {
		for _, c := range []struct{ entry, want string }{{"_start", "_start"}, {"_hidden_start", "entry"}} {
			name := arch + c.entry
			t.Run(name, func(t *testing.T) {
				obj, exe, stripped := filepath.Join(dir, name+".o"), filepath.Join(dir, name), filepath.Join(dir, name+"-stripped")
				for _, s := range [][]string{
					{"clang", "-target", arch + "-apple-macos11", "-O1", "-c", esrc, "-o", obj},
					{linker, "-arch", arch, "-platform_version", "macos", "11.0", "11.0", "-e", c.entry, "-o", exe, obj},
					{strip, "-o", stripped, exe},
				} {
					if b, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
						t.Fatalf("%s: %v\n%s", s[0], err, b)
					}
				}
				entry, main := machoSymbolValue(t, exe, c.entry), machoSymbolValue(t, exe, "_main")
				if got, source := procNamed(t, exe, "_main"); got != main || source != "symbol" {
					t.Fatalf("unstripped: _main at %#x (%s), want %#x", got, source, main)
				}
				if machoHasSymbol(t, stripped, "_main") || machoHasSymbol(t, stripped, c.entry) {
					t.Fatal("llvm-strip kept _main or the entry's symbol")
				}
				if got, source := procNamed(t, stripped, "_main"); got != main || source != "export-trie" {
					t.Fatalf("stripped: _main at %#x (%s), want %#x, where the trie exports it", got, source, main)
				}
				if got, source := procNamed(t, stripped, c.want); got != entry || source != "entry" {
					t.Fatalf("stripped: %s at %#x (%s), want %#x, the LC_MAIN entry", c.want, got, source, entry)
				}
			})
		}
	}
	// Exports restricted to another name (-exported_symbol _helper): the
	// trie names neither the entry nor _main, and a default link cannot be
	// told from one with -e _start, so the entry is named _main, its role
	// under LC_MAIN, in both, and nothing is named start.
	for _, arch := range []string{"x86_64", "arm64"} {
		for _, entrySym := range []string{"_main", "_start"} {
			name := arch + "-restricted" + entrySym
			t.Run(name, func(t *testing.T) {
				obj, exe, stripped := filepath.Join(dir, name+".o"), filepath.Join(dir, name), filepath.Join(dir, name+"-stripped")
				link := []string{linker, "-arch", arch, "-platform_version", "macos", "11.0", "11.0", "-exported_symbol", "_helper", "-o", exe, obj}
				if entrySym != "_main" {
					link = append(link, "-e", entrySym)
				}
				for _, s := range [][]string{
					{"clang", "-target", arch + "-apple-macos11", "-O1", "-c", esrc, "-o", obj},
					link,
					{strip, "-o", stripped, exe},
				} {
					if b, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
						t.Fatalf("%s: %v\n%s", s[0], err, b)
					}
				}
				entry := machoSymbolValue(t, exe, entrySym)
				if got, source := procNamed(t, stripped, "_main"); got != entry || source != "entry" {
					t.Fatalf("stripped: _main at %#x (%s), want %#x, the LC_MAIN entry", got, source, entry)
				}
				if got, source := procNamed(t, stripped, "start"); source != "" {
					t.Fatalf("stripped: start named at %#x (%s), want none", got, source)
				}
			})
		}
	}
	t.Run("go", func(t *testing.T) {
		thin := fixturePath(t, "go-darwin-arm64")
		stripped := filepath.Join(dir, "go-stripped")
		if b, err := exec.Command(strip, "-o", stripped, thin).CombinedOutput(); err != nil {
			t.Fatalf("llvm-strip: %v\n%s", err, b)
		}
		for _, exe := range []string{thin, stripped} {
			if _, source := procNamed(t, exe, "_main"); source != "" {
				t.Fatalf("%s: a Go program's entry is named _main", exe)
			}
			if _, source := procNamed(t, exe, "_rt0_arm64_darwin"); source != "entry" && exe == stripped {
				t.Fatalf("%s: the entry is not the pclntab's _rt0_arm64_darwin", exe)
			}
		}
	})
}

// machoSymbolValue is a symbol's value in a Mach-O file.
func machoSymbolValue(t *testing.T, path, name string) uint64 {
	t.Helper()
	v, ok := machoSymbol(t, path, name)
	if !ok {
		t.Fatalf("%s has no symbol %s", path, name)
	}
	return v
}

// machoHasSymbol reports whether a Mach-O file has a symbol name.
func machoHasSymbol(t *testing.T, path, name string) bool {
	t.Helper()
	_, ok := machoSymbol(t, path, name)
	return ok
}

// machoSymbol is the value of a Mach-O file's symbol name, if it has one.
func machoSymbol(t *testing.T, path, name string) (uint64, bool) {
	t.Helper()
	f, err := macho.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Symtab != nil {
		for _, s := range f.Symtab.Syms {
			if s.Name == name {
				return s.Value, true
			}
		}
	}
	return 0, false
}
