package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A Mach-O stripped of its symbol table keeps the export trie, which dyld
// binds through: the exported functions of a dylib and of a program are
// named from it, at the addresses the unstripped symbols give, and
// nothing else is (a hidden function, an exported variable).
func TestMachOExportNames(t *testing.T) {
	needTool(t, "clang")
	linker, strip := ld64(t), llvmTool(t, "llvm-strip")
	dir := t.TempDir()
	src := filepath.Join(dir, "api.c")
	if err := os.WriteFile(src, []byte(`int api_counter = 7;
__attribute__((visibility("hidden"))) int hidden_step(int x) { return x * 5 + api_counter; }
int api_open(int x) { return hidden_step(x) + 1; }
int api_close(int x) { return hidden_step(x) - 1; }
int main(int argc, char **argv) { return api_open(argc) + api_close(argc); }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arch := range []string{"x86_64", "arm64"} {
		for _, kind := range []string{"program", "dylib"} {
			name := arch + "-" + kind
			t.Run(name, func(t *testing.T) {
				obj, out, stripped := filepath.Join(dir, name+".o"), filepath.Join(dir, name), filepath.Join(dir, name+"-stripped")
				link := []string{linker, "-arch", arch, "-platform_version", "macos", "11.0", "11.0", "-o", out, obj}
				if kind == "dylib" {
					link = append(link, "-dylib", "-install_name", "@rpath/libapi.dylib")
				}
				for _, s := range [][]string{
					{"clang", "-target", arch + "-apple-macos11", "-O1", "-fno-inline", "-c", src, "-o", obj},
					link,
					{strip, "-o", stripped, out},
				} {
					if b, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
						t.Fatalf("%s: %v\n%s", s[0], err, b)
					}
				}
				for _, sym := range []string{"_api_open", "_api_close", "_hidden_step"} {
					if machoHasSymbol(t, stripped, sym) {
						t.Fatalf("llvm-strip kept %s", sym)
					}
				}
				for _, fn := range []string{"_api_open", "_api_close"} {
					want := machoSymbolValue(t, out, fn)
					if got, source := procNamed(t, stripped, fn); got != want || source != "export-trie" {
						t.Errorf("stripped: %s at %#x (%s), want %#x from the export trie", fn, got, source, want)
					}
				}
				if _, source := procNamed(t, stripped, "_hidden_step"); source != "" {
					t.Error("stripped: the hidden function is named")
				}
				for _, n := range namesIn(t, stripped) {
					if n.Name == "_api_counter" {
						t.Errorf("stripped: the exported variable is named %+v", n)
					}
				}
			})
		}
	}
}
