package native

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// TestCacheEntryRoundTrips: an entry of a real discovery decodes to the
// program that was encoded (every list, string and flag) and encodes back
// to the same bytes, and every cut of it fails to decode instead of
// decoding to something else.
func TestCacheEntryRoundTrips(t *testing.T) {
	ran := 0
	for _, path := range []string{"/usr/bin/ls", "/lib/x86_64-linux-gnu/libc.so.6"} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		ran++
		a, err := OpenFile(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.program(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(path, "libc") && !slices.ContainsFunc(p.procs, func(pr ports.Procedure) bool { return pr.IFunc }) {
			t.Errorf("%s: no procedure is an IFUNC's resolver (memcpy's is): the round trip does not test IFunc", path)
		}
		b := encodeProgram(p)
		got, err := decodeProgram(b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want := &program{insns: p.insns, codeBytes: p.codeBytes, rounds: p.rounds, decoded: p.decoded, truncated: p.truncated,
			limits: p.limits, procs: p.procs, ranges: p.ranges, swept: p.swept, noret: map[uint64]bool{}, parts: p.parts, partsOf: p.partsOf}
		for addr, ok := range p.noret {
			if ok {
				want.noret[addr] = true
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the decoded program differs from the encoded one", path)
		}
		if again := encodeProgram(got); string(again) != string(b) {
			t.Errorf("%s: re-encoding gives %d bytes, not the %d read", path, len(again), len(b))
		}
		for cut := len(cacheMagic); cut < len(b); cut += max(1, len(b)/997) {
			if _, err := decodeProgram(b[:cut]); err == nil {
				t.Fatalf("%s: the entry cut at %d of %d bytes decodes", path, cut, len(b))
			}
		}
		a.Close(context.Background())
	}
	if ran == 0 {
		t.Skip("neither ls nor libc is here")
	}
}

// TestGoBuildID: the ID read from the running test binary is the one the go
// command reports for it; the Mach-O/PE form is read; a file without an ID
// (a C program), an empty ID (-ldflags=-buildid=) and one without a
// content part give "", so the cache key falls back to the executable's
// digest.
func TestGoBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := strings.TrimSpace(string(out))
	if got := goBuildID(f); got != want || want == "" {
		t.Fatalf("goBuildID = %q, go tool buildid = %q", got, want)
	}
	if b := codeBuild(); b != Version+"+go:"+want {
		t.Fatalf("codeBuild = %q", b)
	}
	text := append(make([]byte, 100), "\xff Go build ID: \"a/b/c/d\"\n \xff"...)
	if got := goBuildID(bytes.NewReader(text)); got != "a/b/c/d" {
		t.Fatalf("text form: %q", got)
	}
	note := func(desc string) []byte {
		b := binary.LittleEndian.AppendUint32(make([]byte, 64), 4)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
		b = binary.LittleEndian.AppendUint32(b, 4)
		return append(append(b, "Go\x00\x00"...), desc...)
	}
	if got := goBuildID(bytes.NewReader(note("x/y"))); got != "x/y" {
		t.Fatalf("note form: %q", got)
	}
	for _, bad := range [][]byte{note(""), note("nocontent"), note("x/"), []byte("\x7fELF no id here"), nil} {
		if got := goBuildID(bytes.NewReader(bad)); got != "" {
			t.Fatalf("%q: %q", bad, got)
		}
	}
	if cc, err := exec.LookPath("true"); err == nil {
		g, err := os.Open(cc)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		if got := goBuildID(g); got != "" {
			t.Fatalf("%s: %q", cc, got)
		}
	}
}
