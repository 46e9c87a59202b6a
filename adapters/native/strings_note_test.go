package native_test

import (
	"context"
	"debug/elf"
	enchex "encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoteDescriptorsAreNotStrings builds a program whose build ID is
// printable bytes and which carries package metadata, and checks against
// readelf -n that the build ID (a hash, however it reads) is not listed as
// a string while the metadata JSON, a text descriptor, still is.
func TestNoteDescriptorsAreNotStrings(t *testing.T) {
	needTool(t, "gcc")
	needTool(t, "readelf")
	ctx := context.Background()
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "m.c"), filepath.Join(dir, "m")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const id, pkg = "rea-build-id-as-text", `{"type":"rea-note-package"}`
	args := []string{"-o", exe, src, "-Wl,--build-id=0x" + enchex.EncodeToString([]byte(id))}
	withPkg := true
	if _, err := run(ctx, dir, nil, "gcc", append(args, "-Wl,--package-metadata="+pkg)...); err != nil {
		withPkg = false // a linker older than binutils 2.39
		if _, err := run(ctx, dir, nil, "gcc", args...); err != nil {
			t.Fatal(err)
		}
	}
	notes, err := run(ctx, dir, nil, "readelf", "-n", exe)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`Build ID: ([0-9a-f]+)`).FindSubmatch(notes); m == nil || string(m[1]) != enchex.EncodeToString([]byte(id)) {
		t.Fatalf("readelf -n does not show the build ID %x:\n%s", id, notes)
	}
	if withPkg && !strings.Contains(string(notes), "Packaging Metadata: "+pkg) {
		t.Fatalf("readelf -n does not show the package metadata:\n%s", notes)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".note.gnu.build-id")
	if sec == nil {
		t.Fatal("no .note.gnu.build-id")
	}
	sawPkg := false
	for _, s := range stringsOf(t, nil, exe) {
		if s.Address >= sec.Addr && s.Address < sec.Addr+sec.Size {
			t.Errorf("string %q at %#x is read from the build ID note", s.Value, s.Address)
		}
		if strings.Contains(s.Value, id) {
			t.Errorf("the build ID's bytes are listed as the string %q at %#x in %s", s.Value, s.Address, s.Section)
		}
		sawPkg = sawPkg || (s.Value == pkg && s.Section == ".note.package")
	}
	if withPkg && !sawPkg {
		t.Errorf("the package metadata %s is no longer listed", pkg)
	}
}
