package native

import (
	"context"
	"testing"
)

// FuzzDecodeProgram: no entry, however corrupt, panics or decodes into a
// program that breaks the invariants the code queries rely on; a valid
// entry decodes to what was encoded.
func FuzzDecodeProgram(f *testing.F) {
	if a, err := OpenFile(context.Background(), "/usr/bin/ls"); err == nil {
		if p, err := a.program(context.Background()); err == nil {
			f.Add(encodeProgram(p))
		}
		a.Close(context.Background())
	}
	f.Add(append([]byte(nil), cacheMagic...))
	f.Add([]byte("rea-native-discovery\x01\x00\x00\x00\x00\x00\x00\x02\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// An entry read from disk has spare capacity; the decoder must not
		// read into it.
		spare := append(append(make([]byte, 0, 2*len(b)+16), b...), make([]byte, len(b)+16)...)[:len(b)]
		p, err := decodeProgram(spare)
		if err != nil {
			return
		}
		if len(p.procs) != len(p.ranges) {
			t.Fatalf("%d procedures, %d ranges", len(p.procs), len(p.ranges))
		}
		for i := range p.procs {
			if i > 0 && p.procs[i].Address <= p.procs[i-1].Address {
				t.Fatalf("procedure %d out of order", i)
			}
			if r := p.ranges[i]; r.Start != p.procs[i].Address || r.End < r.Start {
				t.Fatalf("range %d is %+v", i, r)
			}
		}
		for k, i := range p.swept {
			if int(i) >= len(p.procs) || k > 0 && i <= p.swept[k-1] {
				t.Fatalf("swept index %d out of order or bounds", i)
			}
		}
		again, err := decodeProgram(encodeProgram(p))
		if err != nil || len(again.procs) != len(p.procs) || len(again.swept) != len(p.swept) {
			t.Fatalf("re-encoding does not decode the same: %v", err)
		}
	})
}
