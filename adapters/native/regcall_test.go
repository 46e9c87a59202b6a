package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// Sources whose compilers load an import's slot into a register once and
// call the register in several blocks (hoisted), or load one of two slots
// on two branches and call the register after the join (mixed).
const (
	// gcc -O2 for mingw-w64: "mov ebx, [__imp__CloseHandle@4]" (rbp on
	// x86-64) in the entry block, "call ebx" after each test.
	regCallWinHoisted = `#include <windows.h>
__attribute__((noinline)) void closeboth(HANDLE a, HANDLE b, HANDLE c, HANDLE d) {
	if (a)
		CloseHandle(a);
	if (b)
		CloseHandle(b);
	if (c)
		CloseHandle(c);
	CloseHandle(d);
}
int main(int argc, char **argv) { (void)argv; closeboth((HANDLE)(INT_PTR)argc, 0, 0, 0); return 0; }
`
	// With -Os and no if-conversion: CloseHandle's slot on one branch,
	// FindClose's on the other, then "call esi" twice after the join.
	// With -O2 gcc loads one and "cmovne"s the other into the register.
	regCallWinMixed = `#include <windows.h>
__attribute__((noinline)) int pick(HANDLE h, int which) {
	BOOL (WINAPI *f)(HANDLE) = CloseHandle;
	if (which)
		f = FindClose;
	return f(h) + f(h);
}
int main(int argc, char **argv) { (void)argv; return pick(0, argc); }
`
	// clang -O2 -fno-plt: "mov r12, [rip+close@GOTPCREL]" before the
	// loop, "call r12" in it (and a "call [rip+...]" after it).
	regCallELFLoop = `#include <unistd.h>
__attribute__((noinline)) int closeall(int *fds, int n) {
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		if (close(fds[i]) == 0)
			k++;
	}
	if (k > 3)
		close(fds[0]);
	return k;
}
int main(int argc, char **argv) { int fds[4] = {-1, -1, -1, -1}; (void)argv; return closeall(fds, argc); }
`
	// gcc -O2 -fno-plt calls an import through its slot each time; the
	// empty asm hides the pointer's value, so gcc keeps the slot's load in
	// a callee-saved register and calls it in the loop and after it.
	regCallELFGCC = `#include <unistd.h>
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
	regCallELFMixed = `#include <unistd.h>
__attribute__((noinline)) int pick(int fd, int which) {
	int (*f)(int) = close;
	if (which)
		f = dup;
	return f(fd) + f(fd);
}
int main(int argc, char **argv) { (void)argv; return pick(0, argc); }
`
)

// regCallCase is one program: built by cc with flags, fn the function
// objdump shows the register calls of, resolved when every such call goes
// to the slot its register was loaded from.
type regCallCase struct {
	name, cc, pkg, objdump, src, fn string
	flags                           []string
	resolved                        bool
}

var regCallCases = []regCallCase{
	{name: "mingw-i686-O2", cc: "i686-w64-mingw32-gcc", pkg: "gcc-mingw-w64-i686", objdump: "i686-w64-mingw32-objdump", src: regCallWinHoisted, fn: "_closeboth", flags: []string{"-O2"}, resolved: true},
	{name: "mingw-x86_64-O2", cc: "x86_64-w64-mingw32-gcc", pkg: "gcc-mingw-w64-x86-64", objdump: "x86_64-w64-mingw32-objdump", src: regCallWinHoisted, fn: "closeboth", flags: []string{"-O2"}, resolved: true},
	{name: "gcc-O2-fno-plt", cc: "gcc", pkg: "gcc", objdump: "objdump", src: regCallELFGCC, fn: "closeall", flags: []string{"-O2", "-fno-plt"}, resolved: true},
	{name: "clang-O2-fno-plt", cc: "clang", pkg: "clang", objdump: "objdump", src: regCallELFLoop, fn: "closeall", flags: []string{"-O2", "-fno-plt"}, resolved: true},
	{name: "mingw-i686-mixed", cc: "i686-w64-mingw32-gcc", pkg: "gcc-mingw-w64-i686", objdump: "i686-w64-mingw32-objdump", src: regCallWinMixed, fn: "_pick", flags: []string{"-Os", "-fno-if-conversion", "-fno-if-conversion2"}},
	{name: "mingw-i686-cmov", cc: "i686-w64-mingw32-gcc", pkg: "gcc-mingw-w64-i686", objdump: "i686-w64-mingw32-objdump", src: regCallWinMixed, fn: "_pick", flags: []string{"-O2"}},
	{name: "mingw-x86_64-mixed", cc: "x86_64-w64-mingw32-gcc", pkg: "gcc-mingw-w64-x86-64", objdump: "x86_64-w64-mingw32-objdump", src: regCallWinMixed, fn: "pick", flags: []string{"-Os", "-fno-if-conversion", "-fno-if-conversion2"}},
	{name: "gcc-mixed-fno-plt", cc: "gcc", pkg: "gcc", objdump: "objdump", src: regCallELFMixed, fn: "pick", flags: []string{"-Os", "-fno-if-conversion", "-fno-if-conversion2", "-fno-plt"}},
}

var (
	// "4015b6:  mov ebx,DWORD PTR ds:0x4070e4" and "140001538:  mov
	// rbp,QWORD PTR [rip+0x6c39]  # 140008178 <...>": a register loaded
	// from an absolute or RIP-relative slot.
	reObjdumpSlotLoad = regexp.MustCompile(`^\s*([0-9a-f]+):\s+mov\s+([a-z0-9]+),(?:DWORD|QWORD) PTR (?:ds:0x([0-9a-f]+)|\[rip\+0x[0-9a-f]+\]\s+# ([0-9a-f]+))`)
	reObjdumpCmov     = regexp.MustCompile(`^\s*[0-9a-f]+:\s+cmov[a-z]+\s+([a-z0-9]+),`)
	reObjdumpRegCall  = regexp.MustCompile(`^\s*([0-9a-f]+):\s+call\s+([a-z0-9]+)\s*$`)
)

// regCallSite is a "call reg" objdump shows, with the slot its register
// was loaded from in the function (0 when it was not, or from two slots)
// and whether the load is the instruction just before it.
type regCallSite struct {
	at, slot uint64
	adjacent bool
}

// objdumpRegCalls lists the register calls of function fn in path.
func objdumpRegCalls(t *testing.T, objdump, path, fn string) []regCallSite {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "-M", "intel", "--no-show-raw-insn", path).Output()
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	_, body, ok := strings.Cut(string(out), "<"+fn+">:\n")
	if !ok {
		t.Fatalf("objdump shows no %s", fn)
	}
	body, _, _ = strings.Cut(body, "\n\n")
	lines := strings.Split(body, "\n")
	loaded := map[string]uint64{} // register: the slot it is loaded from (0: from two, or moved into conditionally)
	for _, line := range lines {
		if m := reObjdumpSlotLoad.FindStringSubmatch(line); m != nil {
			slot, _ := strconv.ParseUint(m[3]+m[4], 16, 64)
			if old, ok := loaded[m[2]]; ok && old != slot {
				slot = 0
			}
			loaded[m[2]] = slot
		}
		if m := reObjdumpCmov.FindStringSubmatch(line); m != nil {
			loaded[m[1]] = 0 // one slot or another
		}
	}
	var sites []regCallSite
	for i, line := range lines {
		if m := reObjdumpRegCall.FindStringSubmatch(line); m != nil {
			at, _ := strconv.ParseUint(m[1], 16, 64)
			p := reObjdumpSlotLoad.FindStringSubmatch(lines[max(i-1, 0)])
			sites = append(sites, regCallSite{at: at, slot: loaded[m[2]], adjacent: i > 0 && p != nil && p[2] == m[2]})
		}
	}
	return sites
}

// TestRegisterImportCalls: a function that loads an import's slot into a
// register once and calls the register in several blocks (gcc -O2 for
// mingw-w64, i686 and x86-64; gcc and clang -O2 -fno-plt on ELF) makes
// each of those calls a call to the slot, as "call [S]" is: objdump
// shows the load and the calls, and the references from each call and to
// the slot, which is the import's, say so. A register loaded from two
// slots on two branches (or one slot and a cmov of another) and called
// after the join stays unresolved.
func TestRegisterImportCalls(t *testing.T) {
	for _, c := range regCallCases {
		t.Run(c.name, func(t *testing.T) {
			needToolPkg(t, c.cc, c.pkg)
			needToolPkg(t, c.objdump, "binutils")
			dir := t.TempDir()
			src, bin := filepath.Join(dir, "p.c"), filepath.Join(dir, "p")
			if strings.Contains(c.cc, "mingw") {
				bin += ".exe" // mingw's gcc adds it
			}
			if err := os.WriteFile(src, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			runTool(t, c.cc, append(append([]string{}, c.flags...), "-o", bin, src)...)
			sites := objdumpRegCalls(t, c.objdump, bin, c.fn)
			a := openNative(t, bin)
			names, err := a.Names(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			isImport := func(addr uint64) bool {
				return slices.ContainsFunc(names, func(n ports.Name) bool { return n.Address == addr && n.Kind == "import" })
			}
			checkRegCalls(t, a, c, sites, isImport)
		})
	}
}

func checkRegCalls(t *testing.T, a *native.Analysis, c regCallCase, sites []regCallSite, isImport func(uint64) bool) {
	t.Helper()
	if len(sites) == 0 {
		t.Fatalf("objdump shows %d register calls in %s: %+v", len(sites), c.fn, sites)
	}
	far := 0
	for _, s := range sites {
		from, err := a.ReferencesFrom(t.Context(), s.at, s.at+1)
		if err != nil {
			t.Fatal(err)
		}
		if !c.resolved {
			if s.slot != 0 {
				t.Errorf("objdump: the register called at %#x is loaded from one slot, %#x", s.at, s.slot)
			}
			if !slices.ContainsFunc(from, func(r ports.Reference) bool { return r.Kind == ports.RefCall && r.Unresolved && r.Slot == 0 }) {
				t.Errorf("call at %#x: references %+v, want one unresolved call with no slot", s.at, from)
			}
			continue
		}
		if s.slot == 0 || !isImport(s.slot) {
			t.Fatalf("objdump: the register called at %#x is loaded from %#x, not one import's slot", s.at, s.slot)
		}
		if !s.adjacent {
			far++
		}
		if !slices.ContainsFunc(from, func(r ports.Reference) bool {
			return r.Kind == ports.RefCall && !r.Unresolved && r.To == s.slot && r.Slot == s.slot
		}) {
			t.Errorf("call at %#x through a register loaded from %#x: references %+v", s.at, s.slot, from)
		}
		to, err := a.ReferencesTo(t.Context(), s.slot, s.slot+1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(to, func(r ports.Reference) bool { return r.Kind == ports.RefCall && r.From == s.at }) {
			t.Errorf("references to the slot %#x miss the call at %#x: %+v", s.slot, s.at, to)
		}
	}
	if c.resolved && far == 0 {
		t.Errorf("every register call of %s directly follows its load: %+v", c.fn, sites)
	}
}
