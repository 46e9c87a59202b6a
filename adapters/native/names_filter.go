package native

import "math/bits"

// addrFilter answers "is addr possibly named?" without touching the name
// map. On chromium about 93% of the name lookups made while writing the
// text (branch targets inside functions, RIP-relative data addresses) find
// no name, and each such miss in a map of 650k entries costs a few cache
// misses; the filter is a few bits per name and rejects most of them with
// one load. It has no false negatives, so the map still decides every
// lookup it passes.
type addrFilter struct {
	words []uint64
	shift uint // 64 - log2(len(words))
}

// newAddrFilter sizes a filter for n addresses: about 16 bits each,
// rounded up to a power of two of 64-bit words.
func newAddrFilter(n int) addrFilter {
	w := max(n/4, 1)
	lg := bits.Len(uint(w - 1))
	return addrFilter{words: make([]uint64, 1<<lg), shift: uint(64 - lg)}
}

// addrHash mixes addr so that its high bits pick the word and two groups
// of its low bits pick the bits set in it.
func addrHash(addr uint64) uint64 {
	h := addr * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

func (f *addrFilter) add(addr uint64) {
	h := addrHash(addr)
	f.words[(h>>f.shift)&uint64(len(f.words)-1)] |= 1<<(h&63) | 1<<(h>>6&63)
}

// mayHave is false only for an address never added.
func (f *addrFilter) mayHave(addr uint64) bool {
	if len(f.words) == 0 {
		return false
	}
	h := addrHash(addr)
	m := uint64(1)<<(h&63) | uint64(1)<<(h>>6&63)
	return f.words[(h>>f.shift)&uint64(len(f.words)-1)]&m == m
}
