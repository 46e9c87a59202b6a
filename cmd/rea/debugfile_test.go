package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// rea finds a stripped program's separate debug file under
// REA_DEBUG_FILE_DIRECTORIES by build ID: the overview's analysis profile
// names it (path, SHA-256, how it was found), its Evidence ID is the same
// on every run (the second from the warm cache) and differs from the one
// without, rea analyze's text names it (and says the program itself is
// stripped), and analyze_function has the signature from its DWARF.
func TestDebugFileDirectories(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"gcc", "objcopy", "strip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: apt install %s", tool, map[string]string{"gcc": "gcc"}[tool]+map[bool]string{true: "binutils"}[tool != "gcc"])
		}
	}
	dir := t.TempDir()
	full, prog, dbg := filepath.Join(dir, "full"), filepath.Join(dir, "prog"), filepath.Join(dir, "prog.debug")
	for _, s := range [][]string{
		{"gcc", "-g", "-O1", "-Wl,--build-id", "-o", full, "testdata/hello.c"},
		{"objcopy", "--only-keep-debug", full, dbg},
		{"strip", "--strip-all", "-o", prog, full},
		{"objcopy", "--add-gnu-debuglink=" + dbg, prog},
	} {
		out, err := exec.Command(s[0], s[1:]...).CombinedOutput()
		is.True(err == nil || t.Failed())
		if err != nil {
			t.Fatalf("%v: %v\n%s", s, err, out)
		}
	}
	out, err := exec.Command("readelf", "-n", prog).Output()
	is.NoErr(err)
	_, id, _ := strings.Cut(string(out), "Build ID: ")
	id = strings.TrimSpace(strings.SplitN(id, "\n", 2)[0])
	is.True(len(id) > 2)
	root := filepath.Join(dir, "root")
	byID := filepath.Join(root, ".build-id", id[:2], id[2:]+".debug")
	is.NoErr(os.MkdirAll(filepath.Dir(byID), 0o755))
	is.NoErr(os.Rename(dbg, byID)) // only the build ID finds it

	rea := func(dirs string, args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, reaBin, append([]string{"--format", "json"}, args...)...)
		cmd.Env = append(os.Environ(), "REA_DEBUG_FILE_DIRECTORIES="+dirs)
		dieWithTests(cmd)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("rea %v: %v\n%s", args, err, e.String())
		}
		var v map[string]any
		is.NoErr(json.Unmarshal(o.Bytes(), &v))
		return v
	}
	overview := func(dirs string) (evID string, params map[string]any) {
		ov := rea(dirs, "analyze", prog)["overview"].(map[string]any)
		return ov["evidence_id"].(string), ov["analysis_profile"].(map[string]any)["parameters"].(map[string]any)
	}
	id1, p1 := overview(root)
	id2, _ := overview(root)
	idOff, pOff := overview("")
	is.Equal(id1, id2) // deterministic, cold and warm
	is.True(id1 != idOff)
	d := p1["debug_file"].(map[string]any)
	is.Equal(d["path"], byID)
	is.Equal(d["found_by"], "build-id")
	is.Equal(len(d["sha256"].(string)), 64)
	is.Equal(pOff["debug_file"], nil)

	// rea analyze's text names the debug file it used, and none without.
	textOf := func(dirs, file string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, reaBin, "analyze", file)
		cmd.Env = append(os.Environ(), "REA_DEBUG_FILE_DIRECTORIES="+dirs)
		dieWithTests(cmd)
		out, err := cmd.Output()
		is.NoErr(err)
		return string(out)
	}
	text := func(dirs string) string { t.Helper(); return textOf(dirs, prog) }
	is.True(strings.Contains(text(root), "debug file  "+byID+" (by build-id; symbols, dwarf)\n"))
	// (A stripped file's limitation may mention separate debug files; the
	// field line is what says one was used.)
	is.True(!regexp.MustCompile(`(?m)^\s*debug file\s`).MatchString(text("")))
	// Its symbols line says what the file itself keeps and names, found
	// debug file or not; the build before strip keeps both.
	symbols := func(text string) string {
		m := regexp.MustCompile(`(?m)^\s*symbols\s+(.*)$`).FindStringSubmatch(text)
		if m == nil {
			return "(no symbols line)"
		}
		return m[1]
	}
	// The stripped program names its debug file (.gnu_debuglink), found or not.
	is.Equal(symbols(text("")), `stripped: no static symbol table, no debug information; names the separate debug file "prog.debug"`)
	is.Equal(symbols(text(root)), `stripped: no static symbol table, no debug information; names the separate debug file "prog.debug"`)
	is.Equal(symbols(textOf("", full)), "static symbol table, debug information (DWARF)")

	proc := func(dirs, which string) map[string]any {
		r := rea(dirs, "call", "analyze_function", `{"procedure":"`+which+`"}`, "--target", prog)
		return r["normalized_result"].(map[string]any)["procedure"].(map[string]any)
	}
	with := proc(root, "helper")
	is.Equal(with["signature"], "int helper(int x)")
	without := proc("", with["address"].(string)) // the same code, unnamed
	is.Equal(without["signature"], nil)
	is.True(without["name"] != "helper")
}
