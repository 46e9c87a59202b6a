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

// Two programs sharing a header, for dwz -m.
var dwzSources = map[string]string{
	"shared.h": `typedef struct shape { const char *name; int corner[2]; double scale; struct shape *next; } shape_t;
typedef long long counter_t;
`,
	"one.c": `#include <stdio.h>
#include "shared.h"
int __attribute__((noinline)) measure(shape_t *s, counter_t n, const char *label) { printf("%s %lld\n", label, n); return s->corner[0]; }
int main(int argc, char **argv) { shape_t s = {"one", {argc, 2}, 1.5, 0}; return measure(&s, argc, argv[0]); }
`,
	"two.c": `#include <stdio.h>
#include "shared.h"
double __attribute__((noinline)) grow(shape_t *s, counter_t times) { return s->scale * times; }
int main(int argc, char **argv) { shape_t s = {"two", {argc, 3}, 2.5, 0}; printf("%f\n", grow(&s, argc)); return 0; }
`,
}

// A stripped program whose debug file was processed by dwz: rea follows
// the debug file's .gnu_debugaltlink to the supplementary file, rea
// analyze's text names both, the Evidence ID differs from the one without
// the supplementary file, and analyze_function has the signature whose
// types and names dwz moved there.
func TestSupplementaryDebugFile(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"gcc", "objcopy", "strip", "dwz"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: apt install %s", tool, map[string]string{"gcc": "gcc", "dwz": "dwz"}[tool]+map[bool]string{true: "binutils"}[tool == "objcopy" || tool == "strip"])
		}
	}
	dir := t.TempDir()
	for name, src := range dwzSources {
		is.NoErr(os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	sup := filepath.Join(dir, "common.debug")
	prog, dbg := filepath.Join(dir, "prog"), filepath.Join(dir, "one.debug")
	for _, s := range [][]string{
		{"gcc", "-g", "-O1", "-Wl,--build-id", "-o", "one", "one.c"},
		{"gcc", "-g", "-O1", "-Wl,--build-id", "-o", "two", "two.c"},
		{"dwz", "-m", sup, "-M", sup, "one", "two"},
		{"objcopy", "--only-keep-debug", "one", dbg},
		{"strip", "--strip-all", "-o", prog, "one"},
	} {
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
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
	is.NoErr(os.Rename(dbg, byID))

	rea := func(format string, args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, reaBin, append([]string{"--format", format}, args...)...)
		cmd.Env = append(os.Environ(), "REA_DEBUG_FILE_DIRECTORIES="+root)
		dieWithTests(cmd)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("rea %v: %v\n%s", args, err, e.String())
		}
		return o.Bytes()
	}
	overviewID := func() string {
		var v struct {
			Overview struct {
				EvidenceID string `json:"evidence_id"`
			} `json:"overview"`
		}
		is.NoErr(json.Unmarshal(rea("json", "analyze", prog), &v))
		return v.Overview.EvidenceID
	}
	signature := func() string {
		var v struct {
			Result struct {
				Procedure struct {
					Signature string `json:"signature"`
				} `json:"procedure"`
			} `json:"normalized_result"`
		}
		is.NoErr(json.Unmarshal(rea("json", "call", "analyze_function", `{"procedure":"measure"}`, "--target", prog), &v))
		return v.Result.Procedure.Signature
	}

	is.True(strings.Contains(string(rea("text", "analyze", prog)), "debug file  "+byID+" (by build-id; symbols, dwarf); supplementary "+sup+" (by altlink)\n"))
	with := overviewID()
	is.Equal(signature(), "int measure(shape_t * s, counter_t n, const char * label)")

	is.NoErr(os.Rename(sup, sup+".away"))
	text := string(rea("text", "analyze", prog))
	is.True(strings.Contains(text, "debug file  "+byID+" (by build-id; symbols, dwarf)\n"))
	is.True(strings.Contains(text, "which was not found"))
	is.True(overviewID() != with)
	is.True(signature() != "int measure(shape_t * s, counter_t n, const char * label)")
}
