package winapi_test

import (
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native/internal/winapi"
)

// TestLookup: the import table's spelling of a DLL (upper case, no
// extension) finds its exports; the DLL decides, and an API set not in
// the table is looked up by name.
func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		dll, name string
		want      winapi.Entry
		ok        bool
	}{
		{"KERNEL32.dll", "CreateFileA", winapi.Entry{Convention: winapi.Stdcall, Bytes: 28}, true},
		{"kernel32", "WriteFile", winapi.Entry{Convention: winapi.Stdcall, Bytes: 20}, true},
		{"Kernel32.DLL", "CloseHandle", winapi.Entry{Convention: winapi.Stdcall, Bytes: 4}, true},
		{"USER32.dll", "MessageBoxA", winapi.Entry{Convention: winapi.Stdcall, Bytes: 16}, true},
		{"USER32.dll", "wsprintfA", winapi.Entry{Convention: winapi.Cdecl}, true},
		{"WS2_32.dll", "connect", winapi.Entry{Convention: winapi.Stdcall, Bytes: 12}, true},
		{"ADVAPI32.dll", "RegOpenKeyExA", winapi.Entry{Convention: winapi.Stdcall, Bytes: 20}, true},
		{"ntdll.dll", "NtQueryInformationProcess", winapi.Entry{Convention: winapi.Stdcall, Bytes: 20}, true},
		{"msvcrt.dll", "printf", winapi.Entry{Convention: winapi.Cdecl}, true},
		{"HAL.dll", "ExAcquireFastMutex", winapi.Entry{Convention: winapi.Fastcall, Bytes: 4}, true},
		// not under this DLL: unknown, though kernel32 exports it
		{"mylib.dll", "CreateFileA", winapi.Entry{}, false},
		{"KERNEL32.dll", "NoSuchFunction", winapi.Entry{}, false},
		{"", "CreateFileA", winapi.Entry{}, false},
		// an API set the table lacks: by name, where the DLLs agree
		{"api-ms-win-core-nosuchset-l9-9-9.dll", "CreateFileA", winapi.Entry{Convention: winapi.Stdcall, Bytes: 28}, true},
	} {
		t.Run(tc.dll+"!"+tc.name, func(t *testing.T) {
			is := is.New(t)
			got, ok := winapi.Lookup(tc.dll, tc.name)
			is.Equal(ok, tc.ok)
			is.Equal(got, tc.want)
		})
	}
}

func TestPops(t *testing.T) {
	is := is.New(t)
	is.Equal(winapi.Entry{Convention: winapi.Stdcall, Bytes: 28}.Pops(), 28)
	is.Equal(winapi.Entry{Convention: winapi.Cdecl}.Pops(), 0)
	is.Equal(winapi.Entry{Convention: winapi.Fastcall, Bytes: 4}.Pops(), 0)
	is.Equal(winapi.Entry{Convention: winapi.Fastcall, Bytes: 16}.Pops(), 8)
}

func TestNormalizeDLL(t *testing.T) {
	is := is.New(t)
	is.Equal(winapi.NormalizeDLL("KERNEL32"), "kernel32.dll")
	is.Equal(winapi.NormalizeDLL(" Ws2_32.DLL "), "ws2_32.dll")
	is.Equal(winapi.NormalizeDLL("ntoskrnl.exe"), "ntoskrnl.exe")
	is.Equal(winapi.NormalizeDLL(""), "")
}

func TestSize(t *testing.T) {
	is := is.New(t)
	dlls, exports := winapi.Size()
	is.True(dlls > 500)
	is.True(exports > 60000)
}
