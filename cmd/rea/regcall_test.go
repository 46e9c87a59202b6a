package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const regCallWinSrc = `#include <windows.h>
__attribute__((noinline)) void closeboth(HANDLE a, HANDLE b, HANDLE c, HANDLE d) {
	if (a)
		CloseHandle(a);
	if (b)
		CloseHandle(b);
	if (c)
		CloseHandle(c);
	CloseHandle(d);
}
__attribute__((noinline)) int pick(HANDLE h, int which) {
	BOOL (WINAPI *f)(HANDLE) = CloseHandle;
	if (which)
		f = FindClose;
	return f(h) + f(h);
}
int main(int argc, char **argv) { (void)argv; closeboth((HANDLE)(INT_PTR)argc, 0, 0, 0); return pick(0, argc); }
`

// The empty asm hides f's value: gcc -fno-plt keeps the load of close's
// GOT slot in a callee-saved register and calls it in the loop and after.
const regCallELFSrc = `#include <unistd.h>
__attribute__((noinline)) int closeall(int *fds, int n) {
	int (*f)(int) = close;
	__asm__("" : "+r"(f));
	int k = 0;
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0 && f(fds[i]) == 0)
			k++;
	if (k > 3)
		f(fds[0]);
	return k;
}
int main(int argc, char **argv) { int fds[4] = {-1, -1, -1, -1}; (void)argv; return closeall(fds, argc); }
`

var (
	reRegCallLoad = regexp.MustCompile(`(?m)^\s*[0-9a-f]+:\s+mov\s+([a-z0-9]+),(?:DWORD|QWORD) PTR (?:ds:0x([0-9a-f]+)|\[rip\+0x[0-9a-f]+\]\s+# ([0-9a-f]+))`)
	reRegCallSite = regexp.MustCompile(`(?m)^\s*([0-9a-f]+):\s+call\s+([a-z0-9]+)\s*$`)
)

// objdumpRegisterCalls returns the addresses of fn's "call reg"
// instructions and the slots each called register is loaded from in fn,
// as objdump shows them ("0x..." like the tools).
func objdumpRegisterCalls(t *testing.T, objdump, bin, fn string) (sites []string, slots map[string][]string) {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "-M", "intel", "--no-show-raw-insn", bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	_, body, ok := strings.Cut(string(out), "<"+fn+">:\n")
	if !ok {
		t.Fatalf("objdump shows no %s", fn)
	}
	body, _, _ = strings.Cut(body, "\n\n")
	loads := map[string][]string{}
	for _, m := range reRegCallLoad.FindAllStringSubmatch(body, -1) {
		if s := "0x" + m[2] + m[3]; !slices.Contains(loads[m[1]], s) {
			loads[m[1]] = append(loads[m[1]], s)
		}
	}
	slots = map[string][]string{}
	for _, m := range reRegCallSite.FindAllStringSubmatch(body, -1) {
		site := "0x" + m[1]
		sites = append(sites, site)
		slots[site] = loads[m[2]]
	}
	return sites, slots
}

// TestRegisterImportCallsAreCallees: where the compiler loads an import's
// slot into a register once and calls the register in several blocks
// (mingw-w64's gcc -O2 for i686 and x86-64, gcc -O2 -fno-plt on ELF),
// every call objdump shows is a call of the import: procedure_callees
// lists the import with each call site and none unresolved, and
// find_xrefs_to_name finds each call to the slot. The register that holds
// CloseHandle's slot on one branch and FindClose's on the other (pick,
// built with -Os and no if-conversion) is called unresolved.
func TestRegisterImportCallsAreCallees(t *testing.T) {
	for _, c := range []struct {
		name, cc, objdump, ext, src, fn, imp string
		flags                                []string
	}{
		{"mingw-i686", "i686-w64-mingw32-gcc", "i686-w64-mingw32-objdump", ".exe", regCallWinSrc, "_closeboth", "CloseHandle", []string{"-O2"}},
		{"mingw-x86_64", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-objdump", ".exe", regCallWinSrc, "closeboth", "CloseHandle", []string{"-O2"}},
		{"gcc-fno-plt", "gcc", "objdump", "", regCallELFSrc, "closeall", "close", []string{"-O2", "-fno-plt"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, tool := range []string{c.cc, c.objdump} {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skip(tool + " is not installed")
				}
			}
			bin := buildWith(t, c.cc, "prog"+c.ext, ".c", c.src, c.flags...)
			sites, slots := objdumpRegisterCalls(t, c.objdump, bin, c.fn)
			if len(sites) == 0 {
				t.Fatalf("objdump shows no register call in %s", c.fn)
			}
			slot := ""
			for _, s := range sites {
				if len(slots[s]) != 1 || slot != "" && slots[s][0] != slot {
					t.Fatalf("objdump: the register called at %s is loaded from %v", s, slots[s])
				}
				slot = slots[s][0]
			}
			callees := reaResult(t, bin, "procedure_callees", map[string]any{"procedure": c.fn})
			found := false
			for _, it := range callees["items"].([]any) {
				it := it.(map[string]any)
				if it["address"] != slot {
					continue
				}
				found = true
				var at []string
				for _, s := range it["call_sites"].([]any) {
					at = append(at, s.(string))
				}
				if it["name"] != c.imp || it["external"] != true || it["kind"] != "call" {
					t.Errorf("callee at the slot %s: %v", slot, it)
				}
				for _, s := range sites {
					if !slices.Contains(at, s) {
						t.Errorf("callee %s: call sites %v miss %s", c.imp, at, s)
					}
				}
			}
			if !found {
				t.Errorf("%s's callees %v miss %s at %s", c.fn, callees["items"], c.imp, slot)
			}
			for _, u := range callees["unresolved"].([]any) {
				if u := u.(map[string]any); slices.Contains(sites, u["from"].(string)) {
					t.Errorf("the call at %v is still unresolved: %v", u["from"], u)
				}
			}
			xrefs := reaResult(t, bin, "find_xrefs_to_name", map[string]any{"name": c.imp})
			calls := map[string]bool{}
			for _, r := range xrefs["references"].([]any) {
				if r := r.(map[string]any); r["kind"] == "call" && r["to"] == slot && r["slot"] == slot && r["unresolved"] == false {
					calls[r["from"].(string)] = true
				}
			}
			for _, s := range sites {
				if !calls[s] {
					t.Errorf("find_xrefs_to_name %s misses the call at %s: %v", c.imp, s, xrefs["references"])
				}
			}
			if c.fn != "_closeboth" {
				return
			}
			// Two slots joined: pick's calls stay unresolved, with no slot.
			bin = buildWith(t, c.cc, "mixed"+c.ext, ".c", c.src, "-Os", "-fno-if-conversion", "-fno-if-conversion2")
			sites, slots = objdumpRegisterCalls(t, c.objdump, bin, "_pick")
			if len(sites) == 0 {
				t.Fatal("objdump shows no register call in _pick")
			}
			for _, s := range sites {
				if len(slots[s]) != 2 {
					t.Fatalf("objdump: the register called at %s is loaded from %v, not two slots", s, slots[s])
				}
			}
			callees = reaResult(t, bin, "procedure_callees", map[string]any{"procedure": "_pick"})
			var open []string
			for _, u := range callees["unresolved"].([]any) {
				if u := u.(map[string]any); u["slot"] == nil {
					open = append(open, u["from"].(string))
				}
			}
			for _, s := range sites {
				if !slices.Contains(open, s) {
					t.Errorf("_pick's call at %s is not unresolved: callees %v, unresolved %v", s, callees["items"], callees["unresolved"])
				}
			}
			if items := callees["items"].([]any); len(items) != 0 {
				t.Errorf("_pick calls %v", fmt.Sprint(items))
			}
		})
	}
}
