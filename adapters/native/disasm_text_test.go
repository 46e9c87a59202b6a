package native_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"rea/adapters/native"
	"rea/ports"
)

// windowText is the text disassembly as consecutive Disassemble windows
// give it: every executable section with file bytes, swept from its start,
// one line per instruction. WriteDisassembly must write exactly this.
func windowText(t testing.TB, ctx context.Context, a *native.Analysis) []byte {
	t.Helper()
	segs, err := a.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The bytes column is padded to seven bytes' room, as objdump -d's on
	// x86, or AArch64's four.
	n := 7
	if docs, err := a.Documents(ctx); err == nil && len(docs) > 0 && docs[0].Architecture == "arm64" {
		n = 4
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	for _, s := range segs {
		if !s.Perms.Execute || s.FileSize == 0 {
			continue
		}
		fmt.Fprintf(w, "\nDisassembly of section %s:\n", s.Name)
		end := s.Start + min(s.FileSize, s.Size)
		for addr := s.Start; addr < end; {
			d, err := a.Disassemble(ctx, ports.DisassembleRequest{Address: addr, End: end, MaxInstructions: 100000})
			if err != nil || len(d.Instructions) == 0 {
				break
			}
			for _, in := range d.Instructions {
				fmt.Fprintf(w, "%8x:\t%-*s\t%s\n", in.Address, 3*n, fmt.Sprintf("% x", in.Bytes), in.Text)
			}
			last := d.Instructions[len(d.Instructions)-1]
			addr = last.Address + uint64(len(last.Bytes))
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// textTargets are real binaries built in the test (C at -O0 and -O2, with
// IBT, Go for linux/arm64 and windows/amd64) and /usr/bin/ls.
func textTargets(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, name := range []string{"c", "c-O2", "c-ibt", "go-linux-arm64", "go-windows-amd64"} {
		t.Run("build "+name, func(t *testing.T) { out[name] = fixturePath(t, name) })
	}
	if _, err := os.Stat("/usr/bin/ls"); err == nil {
		out["ls"] = "/usr/bin/ls"
	}
	return out
}

// firstDiff describes the first line where two texts differ.
func firstTextDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, wl[i], gl[i])
		}
	}
	return fmt.Sprintf("want %d lines, got %d", len(wl), len(gl))
}

// TestWriteDisassemblyMatchesWindows compares WriteDisassembly, over every
// instruction of each target, with the text of Disassemble windows: with
// the default chunks, with chunks small and odd enough that most start
// inside an instruction (the sweep must rejoin the true stream), and with
// one core.
func TestWriteDisassemblyMatchesWindows(t *testing.T) {
	ctx := context.Background()
	for name, path := range textTargets(t) {
		t.Run(name, func(t *testing.T) {
			a, err := native.OpenFile(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(ctx)
			want := windowText(t, ctx, a)
			lines := bytes.Count(want, []byte("\n"))
			if lines < 100 {
				t.Fatalf("only %d lines of reference text", lines)
			}
			check := func(label string) {
				var got bytes.Buffer
				st, err := a.WriteDisassembly(ctx, &got, "")
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Fatalf("%s: text differs from Disassemble windows at %s", label, firstTextDiff(want, got.Bytes()))
				}
				if insns := lines - 2*st.Sections; st.Instructions != insns {
					t.Errorf("%s: %d instructions counted, %d lines written", label, st.Instructions, insns)
				}
			}
			check("default chunks")
			for _, n := range []int{4099, 64} {
				restore := native.SetTextChunkBytes(n)
				check(fmt.Sprintf("%d-byte chunks", n))
				restore()
			}
			prev := runtime.GOMAXPROCS(1)
			restore := native.SetTextChunkBytes(1000)
			check("GOMAXPROCS=1, 1000-byte chunks")
			restore()
			runtime.GOMAXPROCS(prev)
		})
	}
}

// TestWriteDisassemblyOneSection writes one section, and fails with
// ErrNotFound for a name that is not an executable section.
func TestWriteDisassemblyOneSection(t *testing.T) {
	ctx := context.Background()
	a, err := native.OpenFile(ctx, fixturePath(t, "c"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	var all, text bytes.Buffer
	if _, err := a.WriteDisassembly(ctx, &all, ""); err != nil {
		t.Fatal(err)
	}
	st, err := a.WriteDisassembly(ctx, &text, ".text")
	if err != nil {
		t.Fatal(err)
	}
	if st.Sections != 1 || !strings.HasPrefix(text.String(), "\nDisassembly of section .text:\n") || !bytes.Contains(all.Bytes(), text.Bytes()) {
		t.Fatalf("section .text: %+v\n%.200s", st, text.String())
	}
	for _, bad := range []string{".data", ".nothing"} {
		if _, err := a.WriteDisassembly(ctx, io.Discard, bad); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("section %s: %v, want ErrNotFound", bad, err)
		}
	}
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

func (f *failWriter) Write(b []byte) (int, error) {
	if f.n < len(b) {
		return 0, errors.New("disk full")
	}
	f.n -= len(b)
	return len(b), nil
}

// TestWriteDisassemblyStops returns the writer's error and a cancelled
// context's, leaving no worker behind.
func TestWriteDisassemblyStops(t *testing.T) {
	ctx := context.Background()
	a, err := native.OpenFile(ctx, "/usr/bin/ls")
	if err != nil {
		t.Skip(err)
	}
	defer a.Close(ctx)
	defer native.SetTextChunkBytes(512)()
	if _, err := a.WriteDisassembly(ctx, &failWriter{n: 5000}, ""); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	w := &cancelWriter{after: 5000, cancel: cancel}
	if _, err := a.WriteDisassembly(cctx, w, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// cancelWriter cancels a context once it has taken after bytes.
type cancelWriter struct {
	after  int
	cancel func()
}

func (c *cancelWriter) Write(b []byte) (int, error) {
	c.after -= len(b)
	if c.after < 0 {
		c.cancel()
	}
	return len(b), nil
}
