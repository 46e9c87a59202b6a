package main

import (
	"bytes"
	"debug/pe"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// C programs compiled for Windows by mingw-w64, the compiler most Windows
// software reverse engineered on Linux is built with besides MSVC. The
// cross binutils' objdump is the oracle.

const mingwProg = `#include <stdio.h>
#include <string.h>
#include <windows.h>

static const char *greet = "hello from mingw world";

__attribute__((noinline)) int classify(int x) {
	switch (x) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 37;
	case 3: return 41;
	case 4: return 59;
	case 5: return 61;
	case 6: return 79;
	case 7: return 83;
	default: return -1;
	}
}

__attribute__((noinline)) void report(const char *msg) { printf("report: %s\n", msg); }

int main(int argc, char **argv) {
	DWORD pid = GetCurrentProcessId();
	char buf[64];
	strcpy(buf, greet);
	report(buf);
	printf("secret password check %lu\n", (unsigned long)pid);
	Sleep(classify(argc));
	return (int)strlen(argv[0]);
}
`

const mingwLib = `#include <windows.h>
__declspec(dllexport) int add_numbers(int a, int b) { return a + b; }
__declspec(dllexport) const char *lib_banner(void) { return "library banner string"; }
__declspec(dllexport) int exported_counter = 7;
static int helper(int x) { return x * 3; }
__declspec(dllexport) int triple_it(int x) { return helper(x) + 1; }
BOOL WINAPI DllMain(HINSTANCE h, DWORD r, LPVOID p) { (void)h; (void)r; (void)p; return TRUE; }
`

type mingwFixture struct{ full, stripped string }

// mingwTarget is one mingw-w64 cross toolchain: the fixtures it builds and
// the objdump that is their oracle.
type mingwTarget struct {
	name, triple, packages string
	keys                   []string // the fixtures built, see mingwFixtures
	once                   sync.Once
	set                    map[string]mingwFixture
	err                    error
}

// 32-bit Windows has no .pdata and decorates C symbols (_main, _Sleep@4):
// function starts and names come from the COFF symbols, exports, entry and
// discovery alone.
var mingwTargets = []*mingwTarget{
	{name: "x86_64", triple: "x86_64-w64-mingw32", packages: "gcc-mingw-w64-x86-64 and binutils-mingw-w64-x86-64", keys: []string{"O0", "O2", "dll", "ucrt"}},
	{name: "i686", triple: "i686-w64-mingw32", packages: "gcc-mingw-w64-i686 and binutils-mingw-w64-i686", keys: []string{"O0", "O2", "dll"}},
}

// mingwEach runs f as a subtest per toolchain, skipping one not installed.
func mingwEach(t *testing.T, f func(t *testing.T, tg *mingwTarget, fx map[string]mingwFixture)) {
	for _, tg := range mingwTargets {
		t.Run(tg.name, func(t *testing.T) { f(t, tg, mingwFixtures(t, tg)) })
	}
}

// mingwFixtures builds the program at -O0 and -O2 and the DLL, each with and
// without symbols, once for the package's tests.
func mingwFixtures(t *testing.T, tg *mingwTarget) map[string]mingwFixture {
	t.Helper()
	gcc := tg.triple + "-gcc"
	for _, tool := range []string{gcc, tg.triple + "-objdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian packages %s): the mingw PE fixtures cannot be built", tool, tg.packages)
		}
	}
	tg.once.Do(func() {
		// Beside the rea binary TestMain builds, which it removes at the
		// end, since a fixture shared by tests outlives each of them.
		dir, err := os.MkdirTemp(filepath.Dir(reaBin), "mingw-"+tg.name+"-")
		if err != nil {
			tg.err = err
			return
		}
		for name, src := range map[string]string{"prog.c": mingwProg, "lib.c": mingwLib} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
				tg.err = err
				return
			}
		}
		// The same program against the Universal CRT: the compiler's specs
		// with msvcrt's import library swapped for ucrt's (a toolchain
		// that defaults to the UCRT has no -lmsvcrt to swap).
		specs, err := exec.Command(gcc, "-dumpspecs").Output()
		if err != nil {
			tg.err = fmt.Errorf("%s -dumpspecs: %v", gcc, err)
			return
		}
		ucrtSpecs := filepath.Join(dir, "ucrt.specs")
		if err := os.WriteFile(ucrtSpecs, bytes.ReplaceAll(specs, []byte("-lmsvcrt"), []byte("-lucrt")), 0o644); err != nil {
			tg.err = err
			return
		}
		tg.set = map[string]mingwFixture{}
		builds := map[string]struct {
			src, out string
			flags    []string
		}{
			"O0":   {"prog.c", "prog-O0.exe", []string{"-O0"}},
			"O2":   {"prog.c", "prog-O2.exe", []string{"-O2"}},
			"dll":  {"lib.c", "lib.dll", []string{"-O2", "-shared"}},
			"ucrt": {"prog.c", "prog-ucrt.exe", []string{"-O2", "-specs=" + ucrtSpecs}},
		}
		for _, key := range tg.keys {
			b := builds[key]
			var fx mingwFixture
			for _, strip := range []bool{false, true} {
				// The stripped copy keeps the output name, since GNU ld
				// derives a DLL's image base from it and the oracle
				// addresses of the two copies should agree.
				sub := filepath.Join(dir, key+map[bool]string{false: "-full", true: "-stripped"}[strip])
				if err := os.MkdirAll(sub, 0o755); err != nil {
					tg.err = err
					return
				}
				out := filepath.Join(sub, b.out)
				args := append(append([]string{}, b.flags...), "-o", out, filepath.Join(dir, b.src))
				if strip {
					args = append(args, "-s")
				}
				if msg, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
					tg.err = fmt.Errorf("%s %v: %v\n%s", gcc, args, err, msg)
					return
				}
				if strip {
					fx.stripped = out
				} else {
					fx.full = out
				}
			}
			tg.set[key] = fx
		}
	})
	if tg.err != nil {
		t.Fatal(tg.err)
	}
	return tg.set
}

func mingwObjdump(t *testing.T, triple string, args ...string) string {
	t.Helper()
	out, err := exec.Command(triple+"-objdump", args...).Output()
	if err != nil {
		t.Fatalf("%s-objdump %v: %v", triple, args, err)
	}
	return string(out)
}

// reaResult runs one tool through the CLI and returns its normalized result.
func reaResult(t *testing.T, target, tool string, args map[string]any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(args)
	out, errOut, code := runCLI(t, "call", "--target", target, tool, string(b), "--format", "json")
	if code != 0 {
		t.Fatalf("rea call %s %s on %s: exit %d\n%s", tool, b, target, code, errOut)
	}
	var ev struct {
		NormalizedResult json.RawMessage `json:"normalized_result"`
	}
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var m map[string]any
	if err := json.Unmarshal(ev.NormalizedResult, &m); err != nil {
		// xrefs answers a list
		var l []any
		if err2 := json.Unmarshal(ev.NormalizedResult, &l); err2 != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return map[string]any{"items": l}
	}
	return m
}

// reaItems pages through a list tool.
func reaItems(t *testing.T, target, tool string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for off := 0; ; {
		r := reaResult(t, target, tool, map[string]any{"limit": 500, "offset": off})
		items, _ := r["items"].([]any)
		for _, it := range items {
			out = append(out, it.(map[string]any))
		}
		if more, _ := r["has_more"].(bool); !more || len(items) == 0 {
			return out
		}
		off += len(items)
	}
}

func hexAddr(t *testing.T, v any) uint64 {
	t.Helper()
	s, _ := v.(string)
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		t.Fatalf("address %v: %v", v, err)
	}
	return n
}

// peOracle is what objdump says about a mingw image.
type peOracle struct {
	base      uint64
	triple    string            // the toolchain's, whose objdump reads the image
	ptr       uint64            // pointer size: an IAT slot's
	funcs     map[uint64]string // function symbols (COFF type 0x20)
	labels    map[uint64]string // label symbols (storage class 6) and GNU ld's ctor/dtor lists in .text
	pdata     []uint64          // .pdata BeginAddress
	fdes      map[uint64]bool   // .eh_frame FDE starts (32-bit), of the unstripped build
	imports   map[uint64]string // IAT slot: DLL!name
	exports   map[uint64]string
	stubs     map[uint64]string // jmp *__imp_X stubs: X
	iatCalls  map[uint64]string // call *__imp_X sites: X
	xrefsTo   map[uint64][]uint64
	disasmTxt string
}

var (
	reObjSym     = regexp.MustCompile(`\(sec\s+(\d+)\)\(fl 0x00\)\(ty\s+(\w+)\)\(scl\s+(\d+)\) \(nx \d+\) 0x([0-9a-f]+) (\S+)`)
	reObjSec     = regexp.MustCompile(`(?m)^\s*(\d+)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s`)
	reObjPdata   = regexp.MustCompile(`(?m)^\s*[0-9a-f]+:\s+([0-9a-f]{8,16})\s+([0-9a-f]{8,16})\s+([0-9a-f]{8,16})`)
	reObjImpDir  = regexp.MustCompile(`(?m)^\s*[0-9a-f]{8}\s+[0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} ([0-9a-f]{8})$`)
	reObjImpName = regexp.MustCompile(`^\s*[0-9a-f]+\s+\d+\s+(\S+)`)
	reObjEAT     = regexp.MustCompile(`(?m)^\s*\[\s*(\d+)\] \+base\[\s*\d+\]\s+([0-9a-f]+) Export RVA`)
	reObjENT     = regexp.MustCompile(`(?m)^\s*\[\s*(\d+)\] (\S+)$`)
	reObjInsn    = regexp.MustCompile(`(?m)^\s*([0-9a-f]+):\t[^\t]*\t(\S+)\s+(.*)$`)
	// An absolute operand of 32-bit code, which objdump prints bare: "*0x40e130"
	// (call or jmp through a slot), "0x40e134,%eax" (load), "$0x40a06c,(%esp)"
	// (an address as immediate). A displacement off a register is no address.
	reObjAbs = regexp.MustCompile(`(?:^|[\s,*$])0x([0-9a-f]+)(?:$|,)`)
	reObjFDE = regexp.MustCompile(`FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.`)
)

// peBase is an image's base and size.
func peBase(f *pe.File) (base, size uint64) {
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		return oh.ImageBase, uint64(oh.SizeOfImage)
	case *pe.OptionalHeader32:
		return uint64(oh.ImageBase), uint64(oh.SizeOfImage)
	}
	return 0, 0
}

func newPEOracle(t *testing.T, full, file string) peOracle {
	t.Helper()
	o := peOracle{funcs: map[uint64]string{}, labels: map[uint64]string{}, imports: map[uint64]string{},
		exports: map[uint64]string{}, stubs: map[uint64]string{}, iatCalls: map[uint64]string{}, xrefsTo: map[uint64][]uint64{}}
	f, err := pe.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	var size uint64
	o.base, size = peBase(f)
	o.triple, o.ptr = "x86_64-w64-mingw32", 8
	if f.Machine == pe.IMAGE_FILE_MACHINE_I386 {
		o.triple, o.ptr = "i686-w64-mingw32", 4
	}
	f.Close()
	// GNU ld may give the stripped DLL another image base: the symbols of
	// the unstripped build move with it.
	ff, err := pe.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	fullBase, _ := peBase(ff)
	shift := o.base - fullBase
	ff.Close()
	objdump := func(args ...string) string { return mingwObjdump(t, o.triple, args...) }
	secs := map[int]uint64{}
	for _, m := range reObjSec.FindAllStringSubmatch(objdump("-h", full), -1) {
		i, _ := strconv.Atoi(m[1])
		vma, _ := strconv.ParseUint(m[3], 16, 64)
		secs[i+1] = vma // objdump counts sections from 0, COFF symbols from 1
	}
	for _, m := range reObjSym.FindAllStringSubmatch(objdump("-t", full), -1) {
		sec, _ := strconv.Atoi(m[1])
		val, _ := strconv.ParseUint(m[4], 16, 64)
		addr := secs[sec] + val + shift
		switch {
		case sec == 0:
			// undefined (a weak reference)
		case m[2] == "20":
			o.funcs[addr] = m[5]
		case m[3] == "6" || strings.HasSuffix(m[5], "TOR_LIST__") && sec == 1:
			o.labels[addr] = m[5]
		}
	}
	p := objdump("-p", file)
	if _, tab, ok := strings.Cut(p, "The Function Table"); ok {
		for _, m := range reObjPdata.FindAllStringSubmatch(tab, -1) {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			o.pdata = append(o.pdata, a)
		}
	}
	if _, imp, ok := strings.Cut(p, "The Import Tables"); ok {
		imp, _, _ = strings.Cut(imp, "The Function Table")
		for _, block := range strings.Split(imp, "DLL Name: ")[1:] {
			lines := strings.Split(block, "\n")
			dll := strings.TrimSpace(lines[0])
			// The directory line naming this DLL's first thunk precedes
			// its "DLL Name" line.
			m := reObjImpDir.FindAllStringSubmatch(strings.Split(imp, "DLL Name: "+dll)[0], -1)
			if len(m) == 0 {
				t.Fatalf("no import directory line before %s", dll)
			}
			iat, _ := strconv.ParseUint(m[len(m)-1][1], 16, 64)
			j := uint64(0)
			for _, l := range lines[2:] {
				if strings.TrimSpace(l) == "" {
					break
				}
				if n := reObjImpName.FindStringSubmatch(l); n != nil {
					o.imports[o.base+iat+o.ptr*j] = dll + "!" + n[1]
				}
				j++
			}
		}
	}
	if _, exp, ok := strings.Cut(p, "Export Address Table -- "); ok {
		rvas := map[string]uint64{}
		for _, m := range reObjEAT.FindAllStringSubmatch(exp, -1) {
			rvas[m[1]], _ = strconv.ParseUint(m[2], 16, 64)
		}
		_, names, _ := strings.Cut(exp, "[Ordinal/Name Pointer] Table")
		names, _, _ = strings.Cut(names, "\n\n")
		for _, m := range reObjENT.FindAllStringSubmatch(names, -1) {
			o.exports[o.base+rvas[m[1]]] = m[2]
		}
	}
	// strip cuts the section's name to .eh_fram, which objdump does not
	// read as frames: the unstripped build's, moved with its base.
	o.fdes = map[uint64]bool{}
	for _, m := range reObjFDE.FindAllStringSubmatch(objdump("--dwarf=frames", full), -1) {
		a, _ := strconv.ParseUint(m[1], 16, 64)
		o.fdes[a+shift] = true
	}
	o.disasmTxt = objdump("-d", file)
	// loaded is the import whose IAT slot the previous instruction loaded
	// into a register, and the register ("%rax"): gcc -O0 calls an import
	// as "mov __imp_X(%rip),%rax; call *%rax".
	var loaded, loadedReg string
	for _, m := range reObjInsn.FindAllStringSubmatch(o.disasmTxt, -1) {
		at, _ := strconv.ParseUint(m[1], 16, 64)
		ops := m[3]
		if m[2] == "call" && loaded != "" && strings.TrimSpace(ops) == "*"+loadedReg {
			o.iatCalls[at] = loaded
		}
		loaded, loadedReg = "", ""
		ref := ""
		if i := strings.Index(ops, "# "); i >= 0 {
			// "# 14000d230 <__imp_Sleep>", or "# 0x14000d230" without symbols
			ref = strings.TrimPrefix(strings.Fields(ops[i+2:])[0], "0x")
		} else if o.ptr == 4 {
			op, _, _ := strings.Cut(ops, " <") // "call 4016c0 <___main>" is direct
			if a := reObjAbs.FindStringSubmatch(op); a != nil {
				if v, _ := strconv.ParseUint(a[1], 16, 64); v >= o.base && v < o.base+size {
					ref = a[1]
				}
			}
		}
		if ref != "" {
			if to, err := strconv.ParseUint(ref, 16, 64); err == nil {
				o.xrefsTo[to] = append(o.xrefsTo[to], at)
				if imp, ok := o.imports[to]; ok && strings.HasPrefix(ops, "*") {
					_, name, _ := strings.Cut(imp, "!")
					switch m[2] {
					case "jmp":
						o.stubs[at] = name
					case "call":
						o.iatCalls[at] = name
					}
				}
				if imp, ok := o.imports[to]; ok && m[2] == "mov" {
					_, loaded, _ = strings.Cut(imp, "!")
					_, loadedReg, _ = strings.Cut(strings.Fields(ops)[0], ",")
				}
			}
		}
	}
	return o
}

// TestMingwProcedures: every function symbol of the unstripped build and
// every .pdata unwind entry is a procedure start of both builds, named as
// the symbol table names it (not after GNU ld's input section symbols), and
// no label or data symbol in .text starts one.
func TestMingwProcedures(t *testing.T) {
	mingwEach(t, func(t *testing.T, tg *mingwTarget, fx map[string]mingwFixture) {
		for _, key := range tg.keys {
			for _, file := range []string{fx[key].full, fx[key].stripped} {
				t.Run(key+"/"+filepath.Base(filepath.Dir(file)), func(t *testing.T) {
					o := newPEOracle(t, fx[key].full, file)
					if len(o.funcs) < 40 || o.ptr == 8 && len(o.pdata) < 30 {
						t.Fatalf("oracle read %d function symbols and %d .pdata entries", len(o.funcs), len(o.pdata))
					}
					procs := map[uint64]map[string]any{}
					for _, p := range reaItems(t, file, "list_procedures") {
						procs[hexAddr(t, p["address"])] = p
					}
					stripped := file == fx[key].stripped
					for a, name := range o.funcs {
						p, ok := procs[a]
						switch {
						case !ok:
							t.Errorf("function %s at %#x is no procedure", name, a)
						case !stripped && p["symbol"] != name && p["symbol"] != o.exports[a]:
							// An exported function is named as it is
							// exported: add_numbers, not _add_numbers.
							t.Errorf("procedure at %#x is named %v, its symbol %s", a, p["symbol"], name)
						}
					}
					for a := range o.fdes {
						if _, ok := procs[a]; !ok {
							t.Errorf(".eh_frame function at %#x is no procedure", a)
						}
					}
					for _, a := range o.pdata {
						if _, ok := procs[a]; !ok {
							t.Errorf(".pdata function at %#x is no procedure", a)
						}
					}
					for a, name := range o.labels {
						if p, ok := procs[a]; ok && o.funcs[a] == "" {
							t.Errorf("label %s at %#x starts procedure %v", name, a, p["symbol"])
						}
					}
				})
			}
		}
	})
}

// TestMingwImportsAndCalls: every IAT slot is named after its import, with
// the DLL its import descriptor names as library, and a
// call straight through the IAT (no stub: "call *__imp_X(%rip)" at -O2, or
// at -O0 through a register just loaded from the slot) is a call to the
// import: an external callee at its slot named after the import (not after
// GNU ld's .idata$5 section symbol), and main is among the import's callers.
func TestMingwImportsAndCalls(t *testing.T) {
	mingwEach(t, func(t *testing.T, tg *mingwTarget, fx map[string]mingwFixture) {
		for _, key := range tg.keys {
			for _, file := range []string{fx[key].full, fx[key].stripped} {
				t.Run(key+"/"+filepath.Base(filepath.Dir(file)), func(t *testing.T) {
					o := newPEOracle(t, fx[key].full, file)
					names := map[uint64][]string{}
					for _, n := range reaItems(t, file, "list_names") {
						a := hexAddr(t, n["address"])
						names[a] = append(names[a], fmt.Sprint(n["name"], "/", n["kind"]))
						if lib, ok := n["library"]; ok {
							names[a] = append(names[a], fmt.Sprint(n["name"], "!", lib))
						}
					}
					dlls := map[string]bool{}
					for slot, imp := range o.imports {
						dll, name, _ := strings.Cut(imp, "!")
						dlls[strings.ToLower(dll)] = true
						if !contains(names[slot], name+"/import") || !contains(names[slot], name+"!"+dll) {
							t.Errorf("IAT slot %#x (%s) is named %v", slot, imp, names[slot])
						}
					}
					crt := "msvcrt.dll"
					if key == "ucrt" || !dlls[crt] {
						crt = "api-ms-win-crt-stdio-l1-1-0.dll"
					}
					if !dlls["kernel32.dll"] || !dlls[crt] {
						t.Errorf("oracle imports from %v", dlls)
					}
					if key == "dll" {
						return
					}
					main, end := mainRange(t, fx[key].full)
					mainHex := fmt.Sprintf("0x%x", main)
					r := reaResult(t, file, "procedure_callees", map[string]any{"procedure": mainHex})
					// A call through an import's slot is a call to the import:
					// an external callee at the slot, never an unresolved call.
					slots := map[uint64]string{}
					items, _ := r["items"].([]any)
					for _, it := range items {
						c := it.(map[string]any)
						for _, site := range c["call_sites"].([]any) {
							if slot := hexAddr(t, c["address"]); o.imports[slot] != "" && c["external"] == true && c["procedure"] == false {
								slots[hexAddr(t, site)] = fmt.Sprint(c["name"])
							}
						}
					}
					unresolved, _ := r["unresolved"].([]any)
					for _, it := range unresolved {
						u := it.(map[string]any)
						if name, ok := o.iatCalls[hexAddr(t, u["from"])]; ok {
							t.Errorf("call through the IAT at %v to %s is unresolved", u["from"], name)
						}
					}
					inMain := 0
					for at, name := range o.iatCalls {
						if at > main && at < end {
							inMain++
							if slots[at] != name {
								t.Errorf("call through the IAT at %#x to %s: callee %q", at, name, slots[at])
							}
							// The edge reads the same backward, by the import's
							// name or its slot's address.
							callers := reaResult(t, file, "procedure_callers", map[string]any{"procedure": name})
							found := false
							for _, it := range callers["items"].([]any) {
								if p, _ := it.(map[string]any)["procedure"].(map[string]any); p != nil && hexAddr(t, p["address"]) == main {
									found = true
								}
							}
							if !found {
								t.Errorf("procedure_callers of %s does not list main (call at %#x)", name, at)
							}
						}
					}
					if inMain < 2 {
						t.Errorf("objdump shows %d calls through the IAT in main", inMain)
					}
					if len(slots) == 0 {
						t.Errorf("main calls no import through the IAT")
					}
				})
			}
		}
	})
}

// cName is the COFF symbol of a C function: 32-bit Windows prefixes an
// underscore.
func cName(o peOracle, name string) string {
	if o.ptr == 4 {
		return "_" + name
	}
	return name
}

// mainRange is main's start and the next function symbol's.
func mainRange(t *testing.T, full string) (start, end uint64) {
	t.Helper()
	o := newPEOracle(t, full, full)
	funcs := o.funcs
	for a, n := range funcs {
		if n == cName(o, "main") {
			start = a
		}
	}
	end = ^uint64(0)
	for a := range funcs {
		if a > start && a < end {
			end = a
		}
	}
	if start == 0 {
		t.Fatalf("%s has no main", full)
	}
	return start, end
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestMingwDLLExports: a DLL's exports are named, functions and data alike,
// with or without its symbol table.
func TestMingwDLLExports(t *testing.T) {
	mingwEach(t, func(t *testing.T, tg *mingwTarget, fx map[string]mingwFixture) {
		for _, file := range []string{fx["dll"].full, fx["dll"].stripped} {
			o := newPEOracle(t, fx["dll"].full, file)
			if len(o.exports) != 4 {
				t.Fatalf("%s: oracle exports %v", file, o.exports)
			}
			names := map[uint64][]string{}
			for _, n := range reaItems(t, file, "list_names") {
				a := hexAddr(t, n["address"])
				names[a] = append(names[a], fmt.Sprint(n["name"]))
			}
			for a, name := range o.exports {
				if !contains(names[a], name) {
					t.Errorf("%s: export %s at %#x is named %v", file, name, a, names[a])
				}
			}
		}
	})
}

// TestMingwStringsAndXrefs: the literals are listed at their addresses in
// .rdata, and the code that loads one is its cross-reference.
func TestMingwStringsAndXrefs(t *testing.T) {
	mingwEach(t, func(t *testing.T, tg *mingwTarget, fx map[string]mingwFixture) {
		// At -O0 main reads the greeting through a pointer in .data, so no
		// instruction loads its address; at -O2 the copy is inlined as
		// immediates.
		cases := []struct {
			key, lit string
			loaded   bool
		}{
			{"O0", "secret password check %lu\n", true}, {"O0", "hello from mingw world", false},
			{"O2", "secret password check %lu\n", true}, {"dll", "library banner string", true},
			{"ucrt", "secret password check %lu\n", true},
		}
		for _, c := range cases {
			if _, ok := fx[c.key]; !ok {
				continue
			}
			for _, file := range []string{fx[c.key].full, fx[c.key].stripped} {
				o := newPEOracle(t, fx[c.key].full, file)
				f, err := pe.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				rdata := f.Section(".rdata")
				data, _ := rdata.Data()
				f.Close()
				i := bytes.Index(data, append([]byte(c.lit), 0))
				if i < 0 {
					t.Fatalf("%q is not in .rdata", c.lit)
				}
				addr := o.base + uint64(rdata.VirtualAddress) + uint64(i)
				found := false
				for _, s := range reaItems(t, file, "list_strings") {
					if hexAddr(t, s["address"]) == addr && s["value"] == c.lit {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: %q at %#x is not listed", file, c.lit, addr)
				}
				if !c.loaded {
					continue
				}
				if len(o.xrefsTo[addr]) == 0 {
					t.Fatalf("%s: objdump shows no reference to %#x", file, addr)
				}
				r := reaResult(t, file, "xrefs", map[string]any{"address": fmt.Sprintf("0x%x", addr)})
				got := map[uint64]bool{}
				items, _ := r["items"].([]any)
				for _, x := range items {
					got[hexAddr(t, x)] = true
				}
				for _, from := range o.xrefsTo[addr] {
					if !got[from] {
						t.Errorf("%s: the reference to %q at %#x is missing from %v", file, c.lit, from, items)
					}
				}
			}
		}
	})
}

// TestMingwImportStubs: the import library's stubs (jmp through an IAT
// slot, no .pdata entry) are thunks to their import, named after it as
// objdump's symbol for them is, also in a stripped image; so a call to one
// names the import, as a call to printf@plt does on ELF.
func TestMingwImportStubs(t *testing.T) {
	mingwEach(t, func(t *testing.T, tg *mingwTarget, fx map[string]mingwFixture) {
		for _, key := range tg.keys {
			for _, file := range []string{fx[key].full, fx[key].stripped} {
				t.Run(key+"/"+filepath.Base(filepath.Dir(file)), func(t *testing.T) {
					o := newPEOracle(t, fx[key].full, file)
					if len(o.stubs) < 10 {
						t.Fatalf("oracle found %d import stubs", len(o.stubs))
					}
					procs := map[uint64]map[string]any{}
					for _, p := range reaItems(t, file, "list_procedures") {
						procs[hexAddr(t, p["address"])] = p
					}
					// A stub is named after its import, or after its symbol where
					// it has one (32-bit: _strlen, _Sleep@4).
					stripped := file == fx[key].stripped
					stubName := func(a uint64) string {
						if n := o.funcs[a]; n != "" && !stripped {
							return n
						}
						return o.stubs[a]
					}
					seen, strlen := 0, ""
					for a, name := range o.stubs {
						if name == "strlen" {
							strlen = stubName(a)
						}
						p := procs[a]
						if p == nil {
							continue // a stub no code calls is not discovered
						}
						seen++
						pr, _ := p["procedure"].(map[string]any)
						if p["symbol"] != stubName(a) || pr["thunk_target"] != name || pr["external"] != true {
							t.Errorf("import stub at %#x for %s is %v", a, name, p)
						}
					}
					if seen < 10 {
						t.Errorf("%d of %d import stubs are procedures", seen, len(o.stubs))
					}
					if key == "dll" {
						return
					}
					main, _ := mainRange(t, fx[key].full)
					r := reaResult(t, file, "procedure_callees", map[string]any{"procedure": fmt.Sprintf("0x%x", main)})
					callees := map[string]bool{}
					items, _ := r["items"].([]any)
					for _, it := range items {
						callees[fmt.Sprint(it.(map[string]any)["name"])] = true
					}
					if !callees[strlen] {
						t.Errorf("main's callees %v lack the strlen stub", callees)
					}
				})
			}
		}
	})
}

// TestMingwJumpTable: at -O0 classify's switch is a jump through a table of
// offsets in .rdata; its eight targets are the instructions that load the
// cases' return values, which objdump shows.
func TestMingwJumpTable(t *testing.T) {
	mingwEach(t, func(t *testing.T, tg *mingwTarget, fx map[string]mingwFixture) {
		var start, end uint64
		full := newPEOracle(t, fx["O0"].full, fx["O0"].full)
		for a, n := range full.funcs {
			if n == cName(full, "classify") {
				start = a
			}
		}
		if start == 0 {
			t.Fatal("no classify symbol")
		}
		o := newPEOracle(t, fx["O0"].full, fx["O0"].stripped)
		end = ^uint64(0)
		for a := range o.funcs {
			if a > start && a < end {
				end = a
			}
		}
		want := map[uint64]bool{}
		for _, m := range reObjInsn.FindAllStringSubmatch(o.disasmTxt, -1) {
			at, _ := strconv.ParseUint(m[1], 16, 64)
			if at < start || at >= end || m[2] != "mov" {
				continue
			}
			for _, v := range []string{"0xb", "0x17", "0x25", "0x29", "0x3b", "0x3d", "0x4f", "0x53"} {
				if strings.HasPrefix(m[3], "$"+v+",%eax") {
					want[at] = true
				}
			}
		}
		if len(want) != 8 {
			t.Fatalf("objdump shows %d case loads in classify", len(want))
		}
		for _, file := range []string{fx["O0"].full, fx["O0"].stripped} {
			r := reaResult(t, file, "analyze_function", map[string]any{"procedure": fmt.Sprintf("0x%x", start)})
			var bb struct {
				Items []struct {
					Successors []struct{ Kind, Target string } `json:"successors"`
				} `json:"items"`
			}
			decode(t, r["basic_blocks"].(map[string]any), &bb)
			got := map[uint64]bool{}
			for _, b := range bb.Items {
				for _, s := range b.Successors {
					if s.Kind == "jump-table" {
						got[hexAddr(t, s.Target)] = true
					}
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s: jump-table targets %v, objdump's case loads %v", file, got, want)
			}
			for a := range want {
				if !got[a] {
					t.Errorf("%s: case load at %#x is no jump-table target", file, a)
				}
			}
		}
	})
}

// An agent names a 32-bit Windows program's C functions as they are in the
// source: main answers for _main, the one procedure decorated that way. On
// x86_64 main is main.
func TestMingwDecoratedNames(t *testing.T) {
	mingwEach(t, func(t *testing.T, tg *mingwTarget, fx map[string]mingwFixture) {
		m := reaResult(t, fx["O0"].full, "analyze_function", map[string]any{"procedure": "main"})
		want := "main"
		if tg.name == "i686" {
			want = "_main"
		}
		if got := m["procedure"].(map[string]any)["name"]; got != want {
			t.Errorf("analyze_function main: procedure %v, want %s", got, want)
		}
	})
}
