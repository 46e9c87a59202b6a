package native_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// TestTruncatedCopiesNameWhatIsPastTheEnd: a cut-off copy of a binary
// fails with a FormatError that names the first header structure past the
// end, where it starts, and the file's size; FormatFacts reports them.
func TestTruncatedCopiesNameWhatIsPastTheEnd(t *testing.T) {
	whole, err := os.ReadFile(fixturePath(t, "c"))
	if err != nil {
		t.Fatal(err)
	}
	shoff := int64(binary.LittleEndian.Uint64(whole[0x28:]))
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		n      int
		what   string
		offset int64
	}{
		{"elf header", 10, "the ELF header (64 bytes)", 0},
		{"program headers", 100, "the program header table", 64},
		{"section headers", len(whole) - 1, "the section header table", shoff},
		{"section headers gone", int(shoff), "the section header table", shoff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			p := filepath.Join(dir, tc.name)
			is.NoErr(os.WriteFile(p, whole[:tc.n], 0o644))
			_, err := native.OpenFile(t.Context(), p)
			var fe *ports.FormatError
			is.True(errors.As(err, &fe))
			is.True(errors.Is(err, ports.ErrMalformed))
			is.Equal(fe.Format, "elf")
			is.True(fe.Truncated)
			is.Equal(fe.Size, int64(tc.n))
			is.Equal(fe.Offset, tc.offset)
			is.True(strings.HasPrefix(fe.Msg, "truncated: "+tc.what))
			d := ports.FormatFacts(err, map[string]any{"reason": "malformed"})
			is.Equal(d, map[string]any{"reason": "malformed", "format": "elf", "check": fe.Msg, "truncated": true, "offset": tc.offset, "file_size": int64(tc.n)})
		})
	}
}
