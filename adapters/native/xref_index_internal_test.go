package native

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// indexTargets (packed keys, 11-bit digits) must give exactly the order of
// the plain 64-bit sort it replaced: by target, then by position in all,
// unresolved references left out.
func TestIndexTargetsMatchesWideSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n    int
		base uint64
		span uint64
	}{{0, 0, 1}, {1, 0x400000, 1}, {50, 0x400000, 1}, {5000, 0x400000, 1 << 12}, {20000, 0x7f0000000000, 1 << 31}, {3000, 0, 1 << 32}, {3000, 16, 1 << 40}, {3000, 0x7f0000000000, 1 << 47}, {3000, 1, 1 << 63}, {3000, 0xffff000000000000, 1 << 60}} {
		all := make([]xref, tc.n)
		for i := range all {
			all[i] = xref{from: uint64(i), to: tc.base + rng.Uint64N(tc.span), kind: uint8(i % 3)}
			if rng.IntN(5) == 0 {
				all[i].flags = flagUnresolved
			}
		}
		got := &refIndex{all: all}
		got.indexTargets()
		want := &refIndex{all: all}
		want.indexTargetsWide()
		if len(want.byTo) == 0 {
			want.byTo = []int32{}
		}
		if !slices.Equal(got.byTo, want.byTo) {
			t.Fatalf("n=%d span=%#x: packed order differs from the wide sort", tc.n, tc.span)
		}
		for i := 1; i < len(got.byTo); i++ {
			a, b := all[got.byTo[i-1]], all[got.byTo[i]]
			if a.to > b.to || a.to == b.to && got.byTo[i-1] > got.byTo[i] {
				t.Fatalf("n=%d: byTo not sorted by target then position at %d", tc.n, i)
			}
		}
	}
}

// indexTargetsWide is the plain sort indexTargets replaced, kept as its
// reference: an LSD radix sort of indexes on the 64-bit target.
func (ix *refIndex) indexTargetsWide() {
	idx := make([]int32, 0, len(ix.all))
	for i, x := range ix.all {
		if x.resolved() {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == 0 {
		ix.byTo = idx
		return
	}
	tmp := make([]int32, len(idx))
	for shift := uint(0); shift < 64; shift += 8 {
		var count [257]int
		for _, k := range idx {
			count[(ix.all[k].to>>shift)&0xff+1]++
		}
		if count[((ix.all[idx[0]].to>>shift)&0xff)+1] == len(idx) {
			continue // every key has the same byte here
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for _, k := range idx {
			b := (ix.all[k].to >> shift) & 0xff
			tmp[count[b]] = k
			count[b]++
		}
		idx, tmp = tmp, idx
	}
	ix.byTo = idx
}
