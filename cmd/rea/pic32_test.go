package main

import (
	"fmt"
	"strings"
	"testing"
)

// pic32Program passes a string literal to snprintf and calls puts and
// strlen: in a 32-bit x86 PIE every one of those is reached through the
// GOT register (ebx after __x86.get_pc_thunk.bx and an add).
const pic32Program = `#include <stdio.h>
#include <string.h>
int greet(const char *who, int n) { char buf[64]; snprintf(buf, sizeof buf, "hi %s %d", who, n); puts(buf); return (int)strlen(buf); }
int main(int argc, char **argv) { return greet(argc > 1 ? argv[1] : "world", argc) > 100; }
`

// buildPic32 builds pic32Program with the cross gcc (Debian's
// gcc-i686-linux-gnu), a PIE as Debian's i386 gcc makes by default.
func buildPic32(t *testing.T, name string, flags ...string) string {
	t.Helper()
	return buildCWith(t, "i686-linux-gnu-gcc", name, pic32Program, append([]string{"-fPIE", "-pie"}, flags...)...)
}

// TestPic32FindCodeForString: the format string of a 32-bit PIE is loaded
// by lea eax, [ebx-disp] off the GOT register; find_code_for_string finds
// greet through it, and procedure_assembly shows the address it resolves.
func TestPic32FindCodeForString(t *testing.T) {
	for _, opt := range []string{"-O1", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			bin := buildPic32(t, "p32"+opt, opt)
			r := reaResult(t, bin, "find_code_for_string", map[string]any{"query": "hi %s"})
			found := ""
			for _, it := range r["procedures"].([]any) {
				p := it.(map[string]any)
				if p["name"] == "greet" {
					found = fmt.Sprint(p["sites"])
				}
			}
			if found == "" {
				t.Fatalf("find_code_for_string hi %%s: procedures %v", r["procedures"])
			}
			text, errOut, code := runCLI(t, "call", "--target", bin, "procedure_assembly", `{"procedure":"greet"}`)
			if code != 0 {
				t.Fatalf("procedure_assembly: exit %d\n%s", code, errOut)
			}
			var str string
			for _, s := range r["strings"].([]any) {
				str = fmt.Sprint(s.(map[string]any)["string"].(map[string]any)["address"])
			}
			if str == "" || !strings.Contains(text, "  # "+str) {
				t.Errorf("greet's assembly does not show the string's address %s:\n%s", str, text)
			}
		})
	}
}

// TestPic32NoPLTCallees: with -fno-plt, 32-bit code calls its imports by
// call [ebx+disp] through their GOT slots; procedure_callees lists them as
// external callees, not as unresolved calls, and find_xrefs_to_name finds
// the call.
func TestPic32NoPLTCallees(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			bin := buildPic32(t, "p32-noplt"+opt, opt, "-fno-plt")
			callees := reaResult(t, bin, "procedure_callees", map[string]any{"procedure": "greet"})
			external := map[string]string{}
			for _, it := range callees["items"].([]any) {
				c := it.(map[string]any)
				if c["external"] == true && c["procedure"] == false && c["kind"] == "call" {
					external[fmt.Sprint(c["name"])] = fmt.Sprint(c["address"])
				}
			}
			for _, name := range []string{"snprintf", "puts", "strlen"} {
				if external[name] == "" {
					t.Errorf("greet's callees have no external %s: %v (unresolved: %v)", name, callees["items"], callees["unresolved"])
				}
			}
			if u, _ := callees["unresolved"].([]any); len(u) != 0 {
				t.Errorf("greet has unresolved calls: %v", u)
			}
			xrefs := reaResult(t, bin, "find_xrefs_to_name", map[string]any{"name": "puts"})
			calls := 0
			for _, r := range xrefs["references"].([]any) {
				if r := r.(map[string]any); r["kind"] == "call" && r["to"] == external["puts"] && r["unresolved"] == false {
					calls++
				}
			}
			if calls != 1 {
				t.Errorf("find_xrefs_to_name puts: %d calls through its slot in %v", calls, xrefs["references"])
			}
		})
	}
}

// pic32SwitchProgram's sw is a dense switch of seven cases, which a
// 32-bit PIE jumps through a table of GOT-relative offsets: mov edx,
// [ebx+eax*4-T]; add edx, ebx; jmp edx.
const pic32SwitchProgram = `#include <stdio.h>
__attribute__((noinline)) int sw(int x) {
	switch (x) { case 0: return puts("zero"); case 1: return puts("one"); case 2: return puts("two");
	case 3: return puts("three"); case 4: return puts("four"); case 5: return puts("five"); case 6: return 66; default: return -1; }
}
int main(int argc, char **argv) { return sw(argc); }
`

// TestPic32SwitchCallees: the switch's jump is no unresolved jump in
// procedure_callees, and analyze_function's blocks have its seven cases as
// jump-table successors, each the start of a block of sw.
func TestPic32SwitchCallees(t *testing.T) {
	for _, opt := range []string{"-O2", "-O1"} {
		t.Run(opt, func(t *testing.T) {
			bin := buildCWith(t, "i686-linux-gnu-gcc", "sw32"+opt, pic32SwitchProgram, "-fPIE", "-pie", opt)
			callees := reaResult(t, bin, "procedure_callees", map[string]any{"procedure": "sw"})
			if u, _ := callees["unresolved"].([]any); len(u) != 0 || callees["unresolved_total"] != float64(0) {
				t.Errorf("sw's unresolved: %v (total %v)", callees["unresolved"], callees["unresolved_total"])
			}
			r := reaResult(t, bin, "analyze_function", map[string]any{"procedure": "sw", "limit": 100})
			var bb struct {
				Items []struct {
					Start      string                          `json:"start"`
					Successors []struct{ Kind, Target string } `json:"successors"`
				} `json:"items"`
			}
			decode(t, r["basic_blocks"].(map[string]any), &bb)
			starts, cases := map[string]bool{}, map[string]bool{}
			for _, b := range bb.Items {
				starts[b.Start] = true
				for _, s := range b.Successors {
					if s.Kind == "jump-table" {
						cases[s.Target] = true
					}
				}
			}
			if len(cases) != 7 {
				t.Errorf("sw's jump-table successors %v, want its seven cases", cases)
			}
			for c := range cases {
				if !starts[c] {
					t.Errorf("case %s starts no block of sw", c)
				}
			}
		})
	}
}
