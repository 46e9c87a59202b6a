package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

const mingwLib = "/usr/i686-w64-mingw32/lib"

// TestTableCurrent: the committed table is what the generator reads from
// this machine's import libraries.
func TestTableCurrent(t *testing.T) {
	if _, err := os.Stat(filepath.Join(mingwLib, "libkernel32.a")); err != nil {
		t.Skip("mingw-w64's i686 import libraries not found: apt install mingw-w64-i686-dev")
	}
	want, st, err := generate(mingwLib)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../table.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("table.gz is stale (%d bytes; the libraries give %d: %d DLLs, %d exports): go generate ./adapters/native/internal/winapi",
			len(got), len(want), st.DLLs, st.Entries)
	}
	if st.DLLs < 100 || st.Entries < 10000 {
		t.Errorf("%d DLLs, %d exports: the import libraries were not read", st.DLLs, st.Entries)
	}
}

// TestReadLibrary: the DLL comes from the descriptor, not the archive's
// name: libws2_32.a's members name WS2_32.dll, and libwindowsapp.a's
// several DLLs.
func TestReadLibrary(t *testing.T) {
	if _, err := os.Stat(filepath.Join(mingwLib, "libkernel32.a")); err != nil {
		t.Skip("mingw-w64's i686 import libraries not found: apt install mingw-w64-i686-dev")
	}
	read := func(lib string) []stub {
		b, err := os.ReadFile(filepath.Join(mingwLib, lib))
		if err != nil {
			t.Fatal(err)
		}
		s, err := readLibrary(b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	found := false
	for _, s := range read("libws2_32.a") {
		if s.name == "connect" {
			found = true
			if s.dll != "WS2_32.dll" || s.code != "12" {
				t.Errorf("connect: %+v", s)
			}
		}
	}
	if !found {
		t.Error("libws2_32.a: no connect")
	}
	dlls := map[string]bool{}
	for _, s := range read("libwindowsapp.a") {
		dlls[s.dll] = true
	}
	if len(dlls) < 10 {
		t.Errorf("libwindowsapp.a names %d DLLs: %v", len(dlls), dlls)
	}
	if _, err := readLibrary([]byte("!<arch>\nshort")); err != nil {
		t.Errorf("a truncated member: %v", err)
	}
	if _, err := readLibrary([]byte("not an archive")); err == nil {
		t.Error("not an archive: no error")
	}
}

func TestDecoration(t *testing.T) {
	for sym, want := range map[string][2]string{
		"_CreateFileA@28":       {"28", "CreateFileA"},
		"@ExAcquireFastMutex@4": {"f4", "ExAcquireFastMutex"},
		"_printf":               {"c", "printf"},
		"_Sleep@0":              {"0", "Sleep"},
	} {
		code, name, ok := decoration(sym)
		if !ok || code != want[0] || name != want[1] {
			t.Errorf("%s: %q %q %v", sym, code, name, ok)
		}
	}
	for _, sym := range []string{"", "_", "noUnderscore", "_Odd@3", "@x"} {
		if _, _, ok := decoration(sym); ok {
			t.Errorf("%q: decorated", sym)
		}
	}
}
