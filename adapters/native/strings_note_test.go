package native_test

import (
	"context"
	"debug/elf"
	enchex "encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rea/ports"
)

// TestNoteDescriptorsAreNotStrings builds a program whose build ID is
// printable bytes and which carries package metadata, and checks against
// readelf -n that the build ID (a hash, however it reads) is not listed as
// a string while the metadata JSON, a text descriptor, still is.
func TestNoteDescriptorsAreNotStrings(t *testing.T) {
	exe, withPkg := buildNotedProgram(t)
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
		if strings.Contains(s.Value, noteID) {
			t.Errorf("the build ID's bytes are listed as the string %q at %#x in %s", s.Value, s.Address, s.Section)
		}
		sawPkg = sawPkg || (s.Value == notePkg && s.Section == ".note.package")
	}
	if withPkg && !sawPkg {
		t.Errorf("the package metadata %s is no longer listed", notePkg)
	}
}

// TestNoteSegmentsWithoutSections strips the section headers from the
// program of TestNoteDescriptorsAreNotStrings, as sstrip does: the string
// scan then reads the loaded segments, and the PT_NOTE segments inside
// them must be read as notes (their owner names and text descriptors
// only), not as data, and a string found in one is located in its NOTE#k,
// not in the LOAD#n holding it.
func TestNoteSegmentsWithoutSections(t *testing.T) {
	exe, withPkg := buildNotedProgram(t)
	stripped, f := withoutSections(t, exe)
	var notes [][2]uint64 // the k-th PT_NOTE's addresses
	for _, p := range f.Progs {
		if p.Type == elf.PT_NOTE {
			notes = append(notes, [2]uint64{p.Vaddr, p.Vaddr + p.Filesz})
		}
	}
	if len(notes) == 0 {
		t.Fatal("no PT_NOTE segment")
	}
	sawPkg := false
	for _, s := range stringsOf(t, nil, stripped) {
		if strings.Contains(s.Value, noteID) {
			t.Errorf("the build ID's bytes are listed as the string %q at %#x in %s", s.Value, s.Address, s.Section)
		}
		in := false
		for k, n := range notes {
			if s.Address >= n[0] && s.Address < n[1] && !in {
				in = true
				if want := fmt.Sprintf("NOTE#%d", k); s.Section != want { // the note, not the LOAD#n holding it
					t.Errorf("string %q at %#x in a note is located in %s, want %s", s.Value, s.Address, s.Section, want)
				}
			}
		}
		if !in && strings.HasPrefix(s.Section, "NOTE#") {
			t.Errorf("string %q at %#x outside the notes is located in %s", s.Value, s.Address, s.Section)
		}
		if in && s.Value != "GNU" && s.Value != "FDO" && s.Value != notePkg {
			t.Errorf("string %q at %#x is read from a note's header or binary descriptor", s.Value, s.Address)
		}
		sawPkg = sawPkg || s.Value == notePkg
	}
	if withPkg && !sawPkg {
		t.Errorf("the package metadata %s is no longer listed", notePkg)
	}
}

// TestNoteSegmentsAreListed: the segments of the program of
// TestNoteSegmentsWithoutSections, its section headers removed, are its
// PT_LOAD headers, each followed by the PT_NOTE headers whose bytes it
// holds, named NOTE#k as the string scan names them, so that every string
// located in a NOTE#k lies inside the segment of that name.
func TestNoteSegmentsAreListed(t *testing.T) {
	exe, _ := buildNotedProgram(t)
	stripped, f := withoutSections(t, exe)
	ctx := context.Background()
	a := openAnalysis(t, stripped)
	segs, err := a.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ports.Segment{}
	holder := "" // the LOAD#n last listed
	for _, s := range segs {
		if strings.HasPrefix(s.Name, "LOAD#") {
			holder = s.Name
		}
		if strings.HasPrefix(s.Name, "NOTE#") {
			h, ok := byName[holder]
			if !ok || s.Start < h.Start || s.Start+s.Size > h.Start+h.Size {
				t.Errorf("%s %+v is not listed after the load segment holding it (%s %+v)", s.Name, s, holder, h)
			}
		}
		if _, dup := byName[s.Name]; dup {
			t.Errorf("segment %s is listed twice", s.Name)
		}
		byName[s.Name] = s
	}
	k := 0
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		name := fmt.Sprintf("NOTE#%d", k)
		k++
		want := ports.Segment{Name: name, Kind: "segment", Start: p.Vaddr, Size: p.Filesz, FileOffset: p.Off, FileSize: p.Filesz}
		got := byName[name]
		want.Perms = got.Perms
		if got != want || !got.Perms.Read {
			t.Errorf("segment %s = %+v, want %+v, readable", name, got, want)
		}
	}
	if k == 0 {
		t.Fatal("no PT_NOTE segment")
	}
	for _, s := range stringsOf(t, nil, stripped) {
		if !strings.HasPrefix(s.Section, "NOTE#") {
			continue
		}
		n, ok := byName[s.Section]
		if !ok || s.Address < n.Start || s.Address-n.Start >= n.Size {
			t.Errorf("string %q at %#x is located in %s, which the segments list as %+v", s.Value, s.Address, s.Section, n)
		}
	}
}

// withoutSections writes a copy of the ELF64 program exe with its section
// headers removed, as sstrip does, and opens it with debug/elf.
func withoutSections(t *testing.T, exe string) (string, *elf.File) {
	t.Helper()
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 64 || b[4] != 2 || b[5] != 1 {
		t.Skip("gcc did not build a little-endian ELF64 program")
	}
	clear(b[0x28:0x30]) // e_shoff
	clear(b[0x3c:0x40]) // e_shnum, e_shstrndx
	stripped := filepath.Join(t.TempDir(), "m-sstrip")
	if err := os.WriteFile(stripped, b, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(stripped)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if len(f.Sections) != 0 {
		t.Fatalf("%d section headers left after zeroing e_shoff and e_shnum", len(f.Sections))
	}
	return stripped, f
}

const noteID, notePkg = "rea-build-id-as-text", `{"type":"rea-note-package"}`

// buildNotedProgram links a program whose build ID is printable bytes and,
// when the linker can, which carries package metadata; it checks with
// readelf -n that both are there.
func buildNotedProgram(t *testing.T) (exe string, withPkg bool) {
	t.Helper()
	needTool(t, "gcc")
	needTool(t, "readelf")
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "m.c")
	exe = filepath.Join(dir, "m")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const id, pkg = noteID, notePkg
	args := []string{"-o", exe, src, "-Wl,--build-id=0x" + enchex.EncodeToString([]byte(id))}
	withPkg = true
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
	return exe, withPkg
}
