package ar_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"

	"rea/adapters/ar"
	"rea/ports"
)

// FuzzOpen opens arbitrary bytes as an ar archive and reads every member
// within small limits: no panic, no more bytes than the limits allow, every
// entry listed safe, unique and inside the input, and every failure a
// *ports.ContainerError.
func FuzzOpen(f *testing.F) {
	long := "a_rather_long_member_name.o/\nsecond_long_name_here.o/\n"
	f.Add([]byte("!<arch>\n" + hdr("/", 4) + "\x00\x00\x00\x00" + hdr("//", len(long)) + long +
		hdr("short.o/", 3) + "abc\n" + hdr("/29", 2) + "de" + hdr("short.o/", 1) + "f\n"))
	f.Add(bsd([2]string{"x.o", "one"}, [2]string{"a_long_bsd_member_name.o", "second"}))
	f.Add([]byte("!<thin>\n" + hdr("a.o/", 3)))
	f.Add([]byte("!<arch>\n" + hdr("big.o/", 1<<40) + strings.Repeat("x", 64)))
	const maxEntry, maxTotal = 1 << 16, 1 << 18
	lim := ports.ContainerLimits{MaxEntries: 200, MaxEntryBytes: maxEntry, MaxTotalBytes: maxTotal, MaxPathBytes: 1024}
	f.Fuzz(func(t *testing.T, b []byte) {
		ar.Opener{}.Recognize(b[:min(len(b), 4096)], "x.a")
		c, err := ar.Opener{}.OpenContainer(context.Background(), ports.ContainerRequest{Name: "x.a", ReaderAt: bytes.NewReader(b), Size: int64(len(b)), Limits: lim})
		if err != nil {
			var ce *ports.ContainerError
			if !errors.As(err, &ce) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		defer c.Close()
		seen := map[string]bool{}
		var total int64
		for _, e := range c.Entries() {
			if !fs.ValidPath(e.Path) || e.Path == "." || seen[e.Path] {
				t.Fatalf("entry %q listed: unsafe or repeated", e.Path)
			}
			seen[e.Path] = true
			if e.Offset < 0 || e.Length != e.Size || e.Offset+e.Length > int64(len(b)) {
				t.Fatalf("entry %+v outside %d bytes", e, len(b))
			}
			rc, err := c.Open(context.Background(), e.Path)
			if err != nil {
				t.Fatalf("open %q: %v", e.Path, err)
			}
			n, _ := io.Copy(io.Discard, rc)
			rc.Close()
			if n > maxEntry {
				t.Fatalf("%s yielded %d bytes, over the entry limit", e.Path, n)
			}
			total += n
		}
		if total > maxTotal {
			t.Fatalf("yielded %d bytes in total, over the limit", total)
		}
	})
}
