package native

import (
	"context"
	"os"
	"reflect"
	"testing"
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
