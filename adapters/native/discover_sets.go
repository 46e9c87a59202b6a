package native

import (
	"cmp"
	"math/bits"
	"slices"
	"sync/atomic"
)

// codeSet is a set of code addresses with one bit per byte of every
// executable region that has file bytes: membership is two index
// operations, and the whole set costs an eighth of the code size, however
// many addresses it holds. Addresses outside such regions are never
// members.
type codeSet struct {
	mm    *memMap
	bits  [][]uint64 // parallel to mm.regions; nil for regions without code
	spans []codeSpan // the code regions, largest first, for region
}

// codeSpan is where memMap.code finds one region: [addr, addr+n).
type codeSpan struct {
	addr, n uint64
	reg     *memRegion
}

func newCodeSet(mm *memMap) *codeSet {
	s := &codeSet{mm: mm, bits: make([][]uint64, len(mm.regions))}
	for i := range mm.regions {
		r := &mm.regions[i]
		if r.exec && r.fileSize > 0 {
			s.bits[i] = make([]uint64, (r.fileSize+63)/64)
			if end := ownedEnd(mm, r); end > r.addr {
				s.spans = append(s.spans, codeSpan{addr: r.addr, n: end - r.addr, reg: r})
			}
		}
	}
	slices.SortStableFunc(s.spans, func(a, b codeSpan) int { return cmp.Compare(b.n, a.n) })
	return s
}

// region is memMap.code(addr), found first among the few code regions.
func (s *codeSet) region(addr uint64) *memRegion {
	for i := range s.spans {
		if addr-s.spans[i].addr < s.spans[i].n {
			return s.spans[i].reg
		}
	}
	return s.mm.code(addr)
}

// slot returns the words and bit index of addr, or nil.
func (s *codeSet) slot(addr uint64) ([]uint64, uint64) {
	r := s.region(addr)
	if r == nil {
		return nil, 0
	}
	return s.bits[r.index], addr - r.addr
}

func (s *codeSet) has(addr uint64) bool {
	w, i := s.slot(addr)
	return w != nil && w[i/64]&(1<<(i%64)) != 0
}

// add inserts addr and reports whether it was absent (false for addresses
// outside code).
func (s *codeSet) add(addr uint64) bool {
	w, i := s.slot(addr)
	if w == nil || w[i/64]&(1<<(i%64)) != 0 {
		return false
	}
	w[i/64] |= 1 << (i % 64)
	return true
}

// addRange inserts [start, end), clipped to the region holding start.
func (s *codeSet) addRange(start, end uint64) {
	r := s.mm.code(start)
	if r == nil || end <= start {
		return
	}
	w := s.bits[r.index]
	lo, hi := start-r.addr, min(end-r.addr, r.fileSize)
	for lo < hi && lo%64 != 0 {
		w[lo/64] |= 1 << (lo % 64)
		lo++
	}
	for ; lo+64 <= hi; lo += 64 {
		w[lo/64] = ^uint64(0)
	}
	for ; lo < hi; lo++ {
		w[lo/64] |= 1 << (lo % 64)
	}
}

// addAtomic inserts addr; several goroutines may add and clear at once
// (addresses of one word may belong to ranges decoded by two workers).
func (s *codeSet) addAtomic(addr uint64) {
	if w, i := s.slot(addr); w != nil {
		atomic.OrUint64(&w[i/64], 1<<(i%64))
	}
}

// clearRange removes [start, end), clipped to the region holding start,
// like addAtomic safe beside other goroutines working on other addresses.
func (s *codeSet) clearRange(start, end uint64) {
	r := s.mm.code(start)
	if r == nil || end <= start {
		return
	}
	w := s.bits[r.index]
	lo, hi := start-r.addr, min(end-r.addr, r.fileSize)
	for lo < hi {
		n := min(64-lo%64, hi-lo) // bits left in this word
		mask := ^uint64(0) >> (64 - n) << (lo % 64)
		atomic.AndUint64(&w[lo/64], ^mask)
		lo += n
	}
}

// countRange is the number of members in [start, end), clipped to the
// region holding start.
func (s *codeSet) countRange(start, end uint64) int {
	r := s.mm.code(start)
	if r == nil || end <= start {
		return 0
	}
	w := s.bits[r.index]
	lo, hi := start-r.addr, min(end-r.addr, r.fileSize)
	c := 0
	for lo < hi {
		n := min(64-lo%64, hi-lo)
		mask := ^uint64(0) >> (64 - n) << (lo % 64)
		c += bits.OnesCount64(w[lo/64] & mask)
		lo += n
	}
	return c
}

// next returns the first member in [start, end), clipped to the region
// holding start.
func (s *codeSet) next(start, end uint64) (uint64, bool) {
	r := s.mm.code(start)
	if r == nil || end <= start {
		return 0, false
	}
	w := s.bits[r.index]
	lo, hi := start-r.addr, min(end-r.addr, r.fileSize)
	for lo < hi {
		n := min(64-lo%64, hi-lo)
		mask := ^uint64(0) >> (64 - n) << (lo % 64)
		if x := w[lo/64] & mask; x != 0 {
			return r.addr + lo/64*64 + uint64(bits.TrailingZeros64(x)), true
		}
		lo += n
	}
	return 0, false
}

// ownedEnd is where the addresses that memMap.code finds in reg end: its
// file bytes, up to the next region's start (of overlapping regions, only
// in malformed files, the one starting last wins).
func ownedEnd(mm *memMap, reg *memRegion) uint64 {
	end := reg.addr + reg.fileSize
	if reg.index+1 < len(mm.regions) {
		end = min(end, mm.regions[reg.index+1].addr)
	}
	return max(end, reg.addr)
}

// hasIn is has for an address that memMap.code finds in reg (end is
// ownedEnd), without looking the region up; other addresses go through
// has.
func (s *codeSet) hasIn(reg *memRegion, end, addr uint64) bool {
	if addr < reg.addr || addr >= end {
		return s.has(addr)
	}
	o := addr - reg.addr
	return s.bits[reg.index][o/64]&(1<<(o%64)) != 0
}

// setWriter adds rising addresses of one region to a codeSet beside other
// goroutines (like addAtomic), with one atomic OR per word rather than
// per address; flush ends it.
type setWriter struct {
	s    *codeSet
	reg  *memRegion
	end  uint64 // ownedEnd of reg
	word uint64 // the word pend is for
	pend uint64
}

func (s *codeSet) writer(mm *memMap, reg *memRegion) setWriter {
	return setWriter{s: s, reg: reg, end: ownedEnd(mm, reg)}
}

func (w *setWriter) add(addr uint64) {
	if addr < w.reg.addr || addr >= w.end {
		w.s.addAtomic(addr)
		return
	}
	o := addr - w.reg.addr
	if o/64 != w.word {
		w.flush()
		w.word = o / 64
	}
	w.pend |= 1 << (o % 64)
}

func (w *setWriter) flush() {
	if w.pend != 0 {
		atomic.OrUint64(&w.s.bits[w.reg.index][w.word], w.pend)
		w.pend = 0
	}
}
