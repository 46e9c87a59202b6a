package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// rea names a stripped static program's C library functions from the
// installed libc.a when REA_SIGNATURE_LIBRARIES is unset: the overview's
// profile names the archive (path, SHA-256, procedures it named), its
// Evidence ID is the same on every run (the second from the warm cache)
// and differs from the one with the setting off, rea analyze's text says
// how many were named, and a named library function answers by name.
func TestSignatureLibraries(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"gcc", "strip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: apt install gcc binutils", tool)
		}
	}
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/libc.a"); err != nil {
		t.Skip("no libc.a: apt install libc6-dev")
	}
	dir := t.TempDir()
	full, prog := filepath.Join(dir, "full"), filepath.Join(dir, "prog")
	for _, s := range [][]string{
		{"gcc", "-static", "-O2", "-o", full, "testdata/hello.c"},
		{"strip", "--strip-all", "-o", prog, full},
	} {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", s, err, out)
		}
	}
	run := func(libs *string, args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, reaBin, args...)
		cmd.Env = os.Environ()
		if libs != nil {
			cmd.Env = append(cmd.Env, "REA_SIGNATURE_LIBRARIES="+*libs)
		} else {
			var env []string
			for _, e := range cmd.Env {
				if !strings.HasPrefix(e, "REA_SIGNATURE_LIBRARIES=") {
					env = append(env, e)
				}
			}
			cmd.Env = env
		}
		dieWithTests(cmd)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("rea %v: %v\n%s", args, err, e.String())
		}
		return o.Bytes()
	}
	off := ""
	overview := func(libs *string) (evID string, params map[string]any) {
		var v map[string]any
		is.NoErr(json.Unmarshal(run(libs, "--format", "json", "analyze", prog), &v))
		ov := v["overview"].(map[string]any)
		return ov["evidence_id"].(string), ov["analysis_profile"].(map[string]any)["parameters"].(map[string]any)
	}
	id1, p1 := overview(nil)
	id2, _ := overview(nil)
	idOff, pOff := overview(&off)
	is.Equal(id1, id2) // deterministic, cold and warm
	is.True(id1 != idOff)
	is.Equal(pOff["signature_libraries"], nil)
	libs := p1["signature_libraries"].(map[string]any)["libraries"].([]any)
	first := libs[0].(map[string]any)
	is.Equal(first["path"], "/usr/lib/x86_64-linux-gnu/libc.a")
	is.Equal(len(first["sha256"].(string)), 64)
	is.True(first["matched"].(float64) > 100)

	text := string(run(nil, "analyze", prog))
	is.True(strings.Contains(text, "library functions  ")) // the count line
	is.True(strings.Contains(text, " named from libc.a ("))
	is.True(!strings.Contains(string(run(&off, "analyze", prog)), "library functions"))

	// printf is named, and found by its name.
	var r map[string]any
	is.NoErr(json.Unmarshal(run(nil, "--format", "json", "call", "analyze_function", `{"procedure":"printf"}`, "--target", prog), &r))
	p := r["normalized_result"].(map[string]any)["procedure"].(map[string]any)
	is.Equal(p["name"], "printf")
}

// rea trace takes a stripped static program's C library functions by the
// names the libraries gave them, with their C prototypes: printf's format
// and what it takes, malloc's size.
func TestTraceStaticLibraryFunctions(t *testing.T) {
	is := is.New(t)
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/libc.a"); err != nil {
		t.Skip("no libc.a: apt install libc6-dev")
	}
	if _, err := exec.LookPath("gdbserver"); err != nil {
		t.Skip("gdbserver is not installed: apt install gdbserver")
	}
	exe := buildCWith(t, "gcc", "static", `#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) { char *p = malloc(40); sprintf(p, "%d", argc); printf("%s %s\n", "x", p); free(p); return 0; }
`, "-static", "-O2", "-s")
	out, stderr, code := runCLI(t, "trace", "--function", "printf,malloc", "--", exe)
	t.Log(out, stderr)
	is.Equal(code, 0)
	var mine []string
	for _, r := range traceRows(out) {
		if strings.Contains(r, " main ") { // the program's calls, not the C library's start-up
			mine = append(mine, r)
		}
	}
	is.Equal(len(mine), 2)
	is.True(strings.HasPrefix(mine[0], "malloc size=0x28 main"))
	is.True(strings.HasPrefix(mine[1], `printf format="%s %s\n", %s="x", %s="1" main`))
	noDescendants(t)
}

// The library match is kept in the warm cache: on a stripped static
// program, and on one without unwind tables whose C library functions
// only whole-file discovery finds (printf among them, named when it
// completes), the overview's Evidence ID is the same cold (a fresh cache
// root), warm (the same root, which then holds the match beside the
// discovery), with the cache off, and on one core.
func TestSignatureLibrariesWarmEvidence(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"gcc", "strip", "objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: apt install gcc binutils", tool)
		}
	}
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/libc.a"); err != nil {
		t.Skip("no libc.a: apt install libc6-dev")
	}
	dir := t.TempDir()
	full, prog, nounwind := filepath.Join(dir, "full"), filepath.Join(dir, "prog"), filepath.Join(dir, "nounwind")
	for _, s := range [][]string{
		{"gcc", "-static", "-O2", "-o", full, "testdata/hello.c"},
		{"strip", "--strip-all", "-o", prog, full},
		{"objcopy", "--strip-all", "--remove-section", ".eh_frame", "--remove-section", ".eh_frame_hdr", full, nounwind},
	} {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", s, err, out)
		}
	}
	run := func(env []string, args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, reaBin, args...)
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "REA_SIGNATURE_LIBRARIES=") && !strings.HasPrefix(e, "REA_NATIVE_CACHE_DIR=") && !strings.HasPrefix(e, "GOMAXPROCS=") {
				cmd.Env = append(cmd.Env, e)
			}
		}
		cmd.Env = append(cmd.Env, env...)
		dieWithTests(cmd)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("rea %v: %v\n%s", args, err, e.String())
		}
		return o.Bytes()
	}
	overview := func(path string, env ...string) string {
		var v map[string]any
		is.NoErr(json.Unmarshal(run(env, "--format", "json", "analyze", path), &v))
		return v["overview"].(map[string]any)["evidence_id"].(string)
	}
	for _, path := range []string{prog, nounwind} {
		root := filepath.Join(t.TempDir(), "cache")
		cache := "REA_NATIVE_CACHE_DIR=" + root
		cold := overview(path, cache)
		entries, err := os.ReadDir(root)
		is.NoErr(err)
		is.Equal(len(entries), 2) // the discovery's partition and the libraries'
		is.Equal(overview(path, cache), cold)
		is.Equal(overview(path, "REA_NATIVE_CACHE_DIR=off"), cold)
		is.Equal(overview(path, "REA_NATIVE_CACHE_DIR=off", "GOMAXPROCS=1"), cold)
		is.True(cold != overview(path, "REA_NATIVE_CACHE_DIR=off", "REA_SIGNATURE_LIBRARIES="))
	}
	// printf, found only by discovery, is named (warm, from the cache).
	var r map[string]any
	is.NoErr(json.Unmarshal(run([]string{"REA_NATIVE_CACHE_DIR=" + filepath.Join(dir, "c2")}, "--format", "json", "call", "analyze_function", `{"procedure":"printf"}`, "--target", nounwind), &r))
	p := r["normalized_result"].(map[string]any)["procedure"].(map[string]any)
	is.Equal(p["name"], "printf")
	is.Equal(p["source"], "library")
}
