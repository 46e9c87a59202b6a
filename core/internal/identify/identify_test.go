package identify_test

import (
	"bytes"
	"os"
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
