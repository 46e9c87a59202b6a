package identify_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/matryer/is"

	"rea/core/internal/identify"
)

func TestClassifyKnownFiles(t *testing.T) {
	is := is.New(t)
	b, err := os.ReadFile("/proc/self/exe") // this test binary: an ELF executable of the host
	is.NoErr(err)
	format, kind, arch := identify.Classify(bytes.NewReader(b), int64(len(b)), b[:4096], "/proc/self/exe")
	is.Equal(format, "elf")
	is.True(kind != "")
	is.True(arch != "")
	js := []byte("console.log(1)\n")
	format, _, _ = identify.Classify(bytes.NewReader(js), int64(len(js)), js, "/x/app.js")
	is.Equal(format, "javascript")
	junk := []byte{0, 1, 2, 3}
	format, _, _ = identify.Classify(bytes.NewReader(junk), 4, junk, "/x/blob")
	is.Equal(format, "")
}

// FuzzClassify: headers are untrusted; classifying never panics.
func FuzzClassify(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01"), "/a")
	f.Add([]byte("MZ\x90\x00"), "/a.exe")
	f.Add([]byte("\xcf\xfa\xed\xfe"), "/a")
	f.Add([]byte("\xca\xfe\xba\xbe\x00\x00\x00\x02"), "/a")
	f.Add([]byte("PK\x03\x04"), "/a.zip")
	f.Add([]byte(`{"version":3,"mappings":""}`), "/a.js.map")
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		head := b
		if len(head) > 4096 {
			head = head[:4096]
		}
		identify.Classify(bytes.NewReader(b), int64(len(b)), head, name)
	})
}

// A .NET assembly (IL only) is architecture cil whatever machine its PE
// header names; a mingw program is not.
func TestClassifyDotNet(t *testing.T) {
	is := is.New(t)
	if _, err := exec.LookPath("mcs"); err != nil {
		t.Skip("mcs is not installed: apt install mono-devel")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "a.cs")
	is.NoErr(os.WriteFile(src, []byte("class P { static void Main() { System.Console.WriteLine(1); } }\n"), 0o644))
	for _, platform := range []string{"anycpu", "x64"} {
		out := filepath.Join(dir, platform+".exe")
		if b, err := exec.CommandContext(t.Context(), "mcs", "-platform:"+platform, "-out:"+out, src).CombinedOutput(); err != nil {
			t.Fatalf("mcs: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		is.NoErr(err)
		format, kind, arch := identify.Classify(bytes.NewReader(b), int64(len(b)), b[:min(len(b), 4096)], out)
		is.Equal([]string{format, kind, arch}, []string{"pe", "executable", "cil"})
	}
	if _, err := exec.LookPath("x86_64-w64-mingw32-gcc"); err == nil {
		c := filepath.Join(dir, "n.c")
		is.NoErr(os.WriteFile(c, []byte("int main(void) { return 0; }\n"), 0o644))
		out := filepath.Join(dir, "n.exe")
		if b, err := exec.CommandContext(t.Context(), "x86_64-w64-mingw32-gcc", "-o", out, c).CombinedOutput(); err != nil {
			t.Fatalf("mingw: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		is.NoErr(err)
		_, _, arch := identify.Classify(bytes.NewReader(b), int64(len(b)), b[:min(len(b), 4096)], out)
		is.Equal(arch, "x86_64")
	}
}
