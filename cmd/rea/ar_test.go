package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// buildStaticLib compiles sources with gcc and archives them with ar into
// dir/libx.a; a second util.o from another directory is appended with
// "ar q", so the archive holds two members of that name. It skips the test
// when gcc or ar is missing.
func buildStaticLib(t *testing.T, dir string) string {
	t.Helper()
	for _, tool := range []string{"ar", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	cc := func(sub, name, src string) string {
		is.New(t).NoErr(os.MkdirAll(filepath.Join(dir, sub), 0o755))
		c := filepath.Join(dir, sub, strings.TrimSuffix(name, ".o")+".c")
		is.New(t).NoErr(os.WriteFile(c, []byte(src), 0o644))
		obj := filepath.Join(dir, sub, name)
		if out, err := exec.Command("gcc", "-c", "-O1", "-o", obj, c).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		return obj
	}
	lib := filepath.Join(dir, "libx.a")
	run := func(args ...string) {
		if out, err := exec.Command("ar", args...).CombinedOutput(); err != nil {
			t.Fatalf("ar %q: %v\n%s", args, err, out)
		}
	}
	run("rcs", lib, cc("a", "add.o", "int add(int a, int b) { return a + b; }\n"),
		cc("a", "a_member_with_a_long_name.o", "int longname(void) { return 42; }\n"),
		cc("a", "util.o", "int util_a(void) { return 1; }\n"))
	run("q", lib, cc("b", "util.o", "int util_b(int x) { return x * 3; }\n"))
	run("s", lib) // "ar qs" would replace util.o rather than append it
	return lib
}

// rea inventory lists every member of a static library with the size and
// SHA-256 of the bytes "ar p" (and "ar xN 1") gives (the second util.o as
// util.o~2, what "ar xN 2" gives); extract-artifact writes them and rea analyze opens an
// extracted object; rea analyze on the library inventories it.
func TestCLIStaticLibrary(t *testing.T) {
	is := is.New(t)
	tmp := t.TempDir()
	lib := buildStaticLib(t, tmp)
	want := map[string][]string{ // logical path: ar's count and member name
		"add.o": {"1", "add.o"}, "a_member_with_a_long_name.o": {"1", "a_member_with_a_long_name.o"},
		"util.o": {"1", "util.o"}, "util.o~2": {"2", "util.o"},
	}
	// arX is what "ar xN count" extracts (ar p has no count: it prints every copy).
	arX := func(count, name string) []byte {
		dir := t.TempDir()
		cmd := exec.Command("ar", "xN", count, lib, name)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ar xN %s %s: %v\n%s", count, name, err, out)
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		is.NoErr(err)
		return data
	}

	out, errOut, code := runCLI(t, "--format", "json", "inventory", lib)
	is.Equal(errOut, "")
	is.Equal(code, 0)
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	var inv struct {
		Manifest struct {
			RootFormat string `json:"root_format"`
		} `json:"manifest"`
		Nodes []struct {
			ArtifactID string `json:"artifact_id"`
			SHA256     string `json:"sha256"`
			Size       int64  `json:"size"`
		} `json:"nodes"`
		Occurrences []struct {
			ArtifactID  *string `json:"artifact_id"`
			LogicalPath string  `json:"logical_path"`
			EntryKind   string  `json:"entry_kind"`
		} `json:"occurrences"`
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &inv))
	is.Equal(inv.Manifest.RootFormat, "ar")
	files := 0
	for _, o := range inv.Occurrences {
		if o.EntryKind != "file" || o.LogicalPath == "." {
			continue
		}
		files++
		args, ok := want[o.LogicalPath]
		if !ok || o.ArtifactID == nil {
			t.Errorf("unexpected member %q", o.LogicalPath)
			continue
		}
		data := arX(args[0], args[1])
		if args[0] == "1" {
			p, err := exec.Command("ar", "p", lib, args[1]).Output()
			is.NoErr(err)
			if !strings.HasSuffix(o.LogicalPath, "util.o") {
				is.Equal(p, data) // ar p agrees for a name held once
			}
		}
		sum := sha256.Sum256(data)
		found := false
		for _, n := range inv.Nodes {
			if n.ArtifactID == *o.ArtifactID {
				found = true
				if n.SHA256 != hex.EncodeToString(sum[:]) || n.Size != int64(len(data)) {
					t.Errorf("%s: sha256 %s size %d, ar xN %q gives %x (%d bytes)", o.LogicalPath, n.SHA256, n.Size, args, sum, len(data))
				}
			}
		}
		is.True(found)
	}
	is.Equal(files, len(want)) // every member, the symbol index and name table not among them

	out, _, code = runCLI(t, "--format", "json", "extract-artifact", lib)
	is.Equal(code, 0)
	ev, err = core.ParseEvidence([]byte(out))
	is.NoErr(err)
	var res struct {
		OutputRoot string `json:"output_root"`
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &res))
	defer os.RemoveAll(res.OutputRoot)
	out, errOut, code = runCLI(t, "analyze", filepath.Join(res.OutputRoot, "util.o~2"))
	if code != 0 || !strings.Contains(out, "elf object") {
		t.Errorf("rea analyze of an extracted member: exit %d\n%s\n%s", code, out, errOut)
	}

	out, errOut, code = runCLI(t, "analyze", lib)
	if flat := strings.Join(strings.Fields(out), " "); code != 0 || !strings.Contains(flat, "root ar, 4 entries (4 files") {
		t.Errorf("rea analyze: exit %d, not the inventory:\n%s\n%s", code, out, errOut)
	}
}

// TestCLIThinArchiveAdvice: a thin archive's members are files elsewhere;
// the advice says so rather than asking for an ASAR's companion directory.
func TestCLIThinArchiveAdvice(t *testing.T) {
	is := is.New(t)
	p := filepath.Join(t.TempDir(), "thin.a")
	is.NoErr(os.WriteFile(p, []byte("!<thin>\n"), 0o644))
	_, errOut, code := runCLI(t, "inventory", p)
	is.True(code != 0)
	is.True(strings.Contains(errOut, "thin archive"))
	is.True(strings.Contains(errOut, "A thin ar archive names its members' files"))
	is.True(!strings.Contains(errOut, "ASAR"))
}
