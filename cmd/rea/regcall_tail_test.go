package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRegisterTailCallsAreCallees: a jump through a register that holds
// an import's slot is a tail call of the import, as "jmp [S]" is.
// mingw-w64's gcc -O2 ends closethree with "mov rax, rsi; ... jmp rax"
// (rsi loaded from CloseHandle's slot): procedure_callees lists the jump
// among CloseHandle's call sites and none unresolved, and
// find_xrefs_to_name finds the jump to the slot. tailonly (hand-written,
// adapters/native/testdata/regcall) only jumps through a register loaded
// from close's GOT slot: its one callee is close, a tail call.
func TestRegisterTailCallsAreCallees(t *testing.T) {
	reJump := regexp.MustCompile(`(?m)^\s*([0-9a-f]+):\s+(?:rex\.W\s+)?jmp\s+r[a-z0-9]+\s*$`)
	reLoad := regexp.MustCompile(`(?m)^\s*[0-9a-f]+:\s+mov\s+r[a-z0-9]+,QWORD PTR \[rip\+0x[0-9a-f]+\]\s+# ([0-9a-f]+)`)
	for _, c := range []struct {
		name, cc, objdump, ext, lang, fn, imp, kind string
		src                                         func(t *testing.T) string
	}{
		{"mingw-x86_64", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-objdump", ".exe", ".c", "closethree", "CloseHandle", "call", func(*testing.T) string {
			return `#include <windows.h>
__attribute__((noinline)) BOOL WINAPI closethree(HANDLE a) {
	CloseHandle(a);
	CloseHandle(a);
	return CloseHandle(a);
}
int main(int argc, char **argv) { (void)argv; return closethree((HANDLE)(INT_PTR)argc); }
`
		}},
		{"gcc-s", "gcc", "objdump", "", ".s", "tailonly", "close", "tail-call", func(t *testing.T) string {
			b, err := os.ReadFile("../../adapters/native/testdata/regcall/copies_amd64.s")
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, tool := range []string{c.cc, c.objdump} {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skip(tool + " is not installed")
				}
			}
			bin := buildWith(t, c.cc, "prog"+c.ext, c.lang, c.src(t), "-O2")
			out, err := exec.Command(c.objdump, "-d", "-M", "intel", "--no-show-raw-insn", bin).Output()
			if err != nil {
				t.Fatal(err)
			}
			_, body, _ := strings.Cut(string(out), "<"+c.fn+">:\n")
			body, _, _ = strings.Cut(body, "\n\n")
			jumps, loads := reJump.FindAllStringSubmatch(body, -1), reLoad.FindAllStringSubmatch(body, -1)
			if len(jumps) != 1 || len(loads) != 1 {
				t.Fatalf("objdump: %s has %d register jumps and %d slot loads", c.fn, len(jumps), len(loads))
			}
			site, slot := "0x"+jumps[0][1], "0x"+loads[0][1]
			callees := reaResult(t, bin, "procedure_callees", map[string]any{"procedure": c.fn})
			var item map[string]any
			for _, it := range callees["items"].([]any) {
				if it := it.(map[string]any); it["address"] == slot {
					item = it
				}
			}
			if item == nil || item["name"] != c.imp || item["external"] != true || item["kind"] != c.kind {
				t.Fatalf("%s's callees %v: want %s at %s, %s", c.fn, callees["items"], c.imp, slot, c.kind)
			}
			if !slices.Contains(item["call_sites"].([]any), any(site)) {
				t.Errorf("callee %s: call sites %v miss the jump at %s", c.imp, item["call_sites"], site)
			}
			for _, u := range callees["unresolved"].([]any) {
				if u := u.(map[string]any); u["from"] == site {
					t.Errorf("the jump at %s is still unresolved: %v", site, u)
				}
			}
			xrefs := reaResult(t, bin, "find_xrefs_to_name", map[string]any{"name": c.imp})
			if !slices.ContainsFunc(xrefs["references"].([]any), func(r any) bool {
				m := r.(map[string]any)
				return m["kind"] == "jump" && m["from"] == site && m["to"] == slot && m["slot"] == slot && m["unresolved"] == false
			}) {
				t.Errorf("find_xrefs_to_name %s misses the jump at %s: %v", c.imp, site, xrefs["references"])
			}
		})
	}
}
