package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestDirectOutputWritesWhatWasWritten writes texts of sizes around the
// block and buffer boundaries, in odd pieces, to a regular file at offset
// 0, at an aligned offset after earlier output and at an unaligned one,
// and to an appending descriptor; the file must hold exactly the bytes
// written, and output written after finish must follow them.
func TestDirectOutputWritesWhatWasWritten(t *testing.T) {
	sizes := []int{0, 1, directBlock - 1, directBlock, directBuf - 1, directBuf, directBuf + 1, 2*directBuf + 3*directBlock + 123}
	for _, prefix := range []int{0, 2 * directBlock, 5} {
		for _, appending := range []bool{false, true} {
			for _, n := range sizes {
				text := make([]byte, n)
				for i := range text {
					text[i] = byte('a' + (i*7+i/4096)%26)
				}
				path := filepath.Join(t.TempDir(), "out.txt")
				flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
				if appending {
					flags |= os.O_APPEND
				}
				f, err := os.OpenFile(path, flags, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				head := bytes.Repeat([]byte{'h'}, prefix)
				if _, err := f.Write(head); err != nil {
					t.Fatal(err)
				}
				w, finish := directOutput(f)
				if _, isFile := w.(*os.File); !isFile && (appending || prefix%directBlock != 0) {
					t.Fatalf("prefix %d appending %v: an unaligned or appending descriptor must be written as it is", prefix, appending)
				}
				for rest, k := text, 1; len(rest) > 0; k = k*3%100003 + 1 {
					m := min(k, len(rest))
					if wrote, err := w.Write(rest[:m]); err != nil || wrote != m {
						t.Fatalf("write: %d, %v", wrote, err)
					}
					rest = rest[m:]
				}
				if err := finish(); err != nil {
					t.Fatalf("finish: %v", err)
				}
				if _, err := f.WriteString("end\n"); err != nil {
					t.Fatal(err)
				}
				f.Close()
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				want := append(append(head, text...), "end\n"...)
				if !bytes.Equal(got, want) {
					t.Fatalf("prefix %d appending %v size %d: file has %d bytes, want %d (or other bytes)", prefix, appending, n, len(got), len(want))
				}
			}
		}
	}
}

// TestDirectOutputLeavesPipesAlone: only regular files are written
// around the writer given.
func TestDirectOutputLeavesPipesAlone(t *testing.T) {
	r, wp, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer wp.Close()
	if w, _ := directOutput(wp); w != io.Writer(wp) {
		t.Fatalf("a pipe was wrapped in %T", w)
	}
	var b bytes.Buffer
	if w, _ := directOutput(&b); w != io.Writer(&b) {
		t.Fatalf("a buffer was wrapped in %T", w)
	}
}
