package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// ordinalSource calls Windows Sockets, OLE Automation (oleaut32) and a
// DLL of its own; the import libraries the test makes import every
// function by ordinal (NONAME).
const ordinalSource = `#include <winsock2.h>
#include <oleauto.h>
__declspec(dllimport) int __stdcall Secret(int a);

__attribute__((noinline)) int work(int n) {
	WSADATA d;
	WSAStartup(0x202, &d);
	SOCKET s = socket(2, 1, 6);
	struct sockaddr sa = {0};
	connect(s, &sa, 0x10);
	return Secret(n);
}

__attribute__((noinline)) int ole(int n) {
	BSTR b = SysAllocString(L"x");
	VARIANT v;
	VariantInit(&v);
	VariantClear(&v);
	SysFreeString(b);
	return n;
}

int main(int argc, char **argv) { return work(argc) + ole(argc); }
`

// Imports by ordinal are named: Windows Sockets' by the ordinals its
// specification fixes and oleaut32's by the ones its DLL has always
// exported them under (objdump -p lists them by ordinal, with no name),
// another DLL's as hidden.dll!Ordinal_N, each with its DLL. On 32-bit x86 the named
// ones then take what the Windows API table says they pop, so the stack
// height stays known across them and connect names its three words.
func TestPEImportsByOrdinal(t *testing.T) {
	for _, c := range []struct{ arch, gcc, dlltool, deco string }{
		{"i686", "i686-w64-mingw32-gcc", "i686-w64-mingw32-dlltool", "@"},
		{"x86-64", "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-dlltool", ""},
	} {
		t.Run(c.arch, func(t *testing.T) {
			needToolPkg(t, c.gcc, "gcc-mingw-w64")
			needToolPkg(t, c.dlltool, "binutils-mingw-w64")
			dir := t.TempDir()
			deco := func(n int) string {
				if c.deco == "" {
					return ""
				}
				return "@" + strconv.Itoa(n)
			}
			src := filepath.Join(dir, "ord.c")
			ws := filepath.Join(dir, "ws2.def")
			hid := filepath.Join(dir, "hidden.def")
			ole := filepath.Join(dir, "oleaut32.def")
			for name, text := range map[string]string{
				src: ordinalSource,
				ws:  "LIBRARY ws2_32.dll\nEXPORTS\nWSAStartup" + deco(8) + " @115 NONAME\nsocket" + deco(12) + " @23 NONAME\nconnect" + deco(12) + " @4 NONAME\n",
				hid: "LIBRARY hidden.dll\nEXPORTS\nSecret" + deco(4) + " @7 NONAME\n",
				ole: "LIBRARY OLEAUT32.dll\nEXPORTS\nSysAllocString" + deco(4) + " @2 NONAME\nSysFreeString" + deco(4) + " @6 NONAME\n" +
					"VariantInit" + deco(4) + " @8 NONAME\nVariantClear" + deco(4) + " @9 NONAME\n",
			} {
				if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			wsLib, hidLib, oleLib := filepath.Join(dir, "libws2ord.a"), filepath.Join(dir, "libhidden.a"), filepath.Join(dir, "liboleord.a")
			runTool(t, c.dlltool, "-k", "-d", ws, "-l", wsLib)
			runTool(t, c.dlltool, "-k", "-d", hid, "-l", hidLib)
			runTool(t, c.dlltool, "-k", "-d", ole, "-l", oleLib)
			exe := filepath.Join(dir, "ord.exe")
			runTool(t, c.gcc, "-O1", "-o", exe, src, wsLib, hidLib, oleLib)
			// The oracle: the import table holds ordinals and no names.
			dump, err := exec.Command(c.dlltool[:strings.LastIndex(c.dlltool, "-")]+"-objdump", "-p", exe).CombinedOutput()
			if err != nil {
				t.Fatalf("objdump -p: %v\n%s", err, dump)
			}
			for _, want := range []string{"DLL Name: ws2_32.dll", "DLL Name: hidden.dll", "DLL Name: OLEAUT32.dll"} {
				if !strings.Contains(string(dump), want) {
					t.Fatalf("objdump -p lists no %q:\n%s", want, dump)
				}
			}
			for _, name := range []string{"WSAStartup", "Secret", "SysAllocString", "VariantClear"} {
				if strings.Contains(string(dump), name) {
					t.Fatalf("the imports are by name, not ordinal:\n%s", dump)
				}
			}

			libs := importLibraries(t, exe)
			for name, lib := range map[string]string{"WSAStartup": "ws2_32.dll", "socket": "ws2_32.dll", "connect": "ws2_32.dll", "hidden.dll!Ordinal_7": "hidden.dll",
				"SysAllocString": "OLEAUT32.dll", "SysFreeString": "OLEAUT32.dll", "VariantInit": "OLEAUT32.dll", "VariantClear": "OLEAUT32.dll"} {
				if libs[name] != lib {
					t.Errorf("import %s: library %q, want %q (imports %v)", name, libs[name], lib, libs)
				}
			}
			if c.arch != "i686" {
				return
			}
			a := openWith(t, exe)
			vf := valueFlowAt(t, a, procAddr(t, a, "_work"))
			// WSAStartup, socket, connect, and Secret, which the table
			// does not hold.
			if got := strings.Join(winapiCalls(t, a, vf, nil), " "); got != "2:winapi 3:winapi 3:winapi 0:" {
				t.Errorf("calls of work: %s, want 2:winapi 3:winapi 3:winapi 0:", got)
			}
			// SysAllocString, VariantInit, VariantClear, SysFreeString:
			// stdcall, a word each.
			vf = valueFlowAt(t, a, procAddr(t, a, "_ole"))
			if got := strings.Join(winapiCalls(t, a, vf, nil), " "); got != "1:winapi 1:winapi 1:winapi 1:winapi" {
				t.Errorf("calls of ole: %s, want 1:winapi 1:winapi 1:winapi 1:winapi", got)
			}
			_ = native.ID
		})
	}
}

// An ordinal that no published table fixes is named with its DLL
// ("one.dll!Ordinal_3"): two DLLs' ordinal 3 are two imports, and the
// callees of a procedure that calls both say which DLL each is. Before,
// both were "Ordinal_3", and procedure_callees listed two callees of one
// name with no DLL.
func TestPEOrdinalNamesCarryTheirDLL(t *testing.T) {
	const gcc, dlltool = "x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-dlltool"
	needToolPkg(t, gcc, "gcc-mingw-w64")
	needToolPkg(t, dlltool, "binutils-mingw-w64")
	dir := t.TempDir()
	src := filepath.Join(dir, "two.c")
	files := map[string]string{
		src: "__declspec(dllimport) int One(int);\n__declspec(dllimport) int Two(int);\n" +
			"__attribute__((noinline)) int both(int n) { return One(n) + Two(n); }\n" +
			"int main(int argc, char **argv) { return both(argc); }\n",
		filepath.Join(dir, "one.def"): "LIBRARY ONE.dll\nEXPORTS\nOne @3 NONAME\n",
		filepath.Join(dir, "two.def"): "LIBRARY two.dll\nEXPORTS\nTwo @3 NONAME\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var libs []string
	for _, d := range []string{"one", "two"} {
		lib := filepath.Join(dir, "lib"+d+".a")
		runTool(t, dlltool, "-k", "-d", filepath.Join(dir, d+".def"), "-l", lib)
		libs = append(libs, lib)
	}
	exe := filepath.Join(dir, "two.exe")
	runTool(t, gcc, append([]string{"-O1", "-o", exe, src}, libs...)...)
	got := importLibraries(t, exe)
	for name, lib := range map[string]string{"one.dll!Ordinal_3": "ONE.dll", "two.dll!Ordinal_3": "two.dll"} {
		if got[name] != lib {
			t.Errorf("import %s: library %q, want %q (imports %v)", name, got[name], lib, got)
		}
	}
	a := openNative(t, exe)
	both := procedureNamed(t, a, "both").Address
	refs, err := a.ReferencesFrom(t.Context(), both, both+32)
	if err != nil {
		t.Fatal(err)
	}
	var names []string // the imports both calls, as its callees name them
	for _, r := range refs {
		if r.Kind == ports.RefCall && !r.Unresolved {
			names = append(names, importAt(t, a, r.To))
		}
	}
	slices.Sort(names)
	if want := []string{"one.dll!Ordinal_3", "two.dll!Ordinal_3"}; !slices.Equal(names, want) {
		t.Errorf("callees of both: %v, want %v", names, want)
	}
}
