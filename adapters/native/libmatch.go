package native

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"slices"
	"strings"
)

// Matching a target's procedures against signature library patterns
// (libpattern.go), as IDA's FLIRT and Ghidra's Function ID do: a procedure
// with no name from a symbol takes a function's name when its bytes equal
// the function's over the function's whole length, the bits relocations
// fill in excepted.
//
// Cost: patterns are indexed by a masked 16-byte prefix under a bounded
// set of key masks (the most common prefix masks, and for the rest the
// prefix up to the first masked byte), so each procedure costs a fixed
// number of lookups plus the comparisons of the patterns its prefix
// selects; the comparisons are bounded by a budget linear in the target's
// and the libraries' sizes.

const (
	// minFixedBits is the least a pattern must fix to name anything: 16
	// bytes. Shorter functions are common shapes (a return of a constant,
	// a jump to another function, a comparison of two loaded words) that
	// equal unrelated code. Measured with libmatch_test.go's programs: at
	// 12 bytes (and at 10, and with no threshold) the i686 program's own
	// qsort comparator, return *a - *b, was named glibc's rangecmp, and
	// with none musl's archive gave 5 wrong names in a glibc program; at
	// 16 no name was wrong, for 2 to 5 points of recall (x86-64 hello:
	// 791 of 956 named, 806 at 12 bytes, 840 with no threshold).
	minFixedBits = 16 * 8
	// keyBytes is the prefix the index keys on.
	keyBytes = 16
	// maxKeyMasks bounds the distinct key masks tried per procedure.
	maxKeyMasks = 48
	// maxCallRounds bounds the rounds in which calls refute candidates.
	maxCallRounds = 8
	// maxShortRounds bounds the rounds in which short patterns name
	// procedures whose calls land on names given in earlier rounds.
	maxShortRounds = 8
)

// libIndex finds the patterns whose prefix equals a procedure's.
type libIndex struct {
	pats    []libPattern
	masks   [][keyBytes]byte
	buckets map[libKey][]int32
	byName  map[string][]int32 // patterns by each of their aliases
	maxLen  int
}

type libKey struct {
	mask int
	key  [keyBytes]byte
}

// newLibIndex indexes pats (which it keeps).
func newLibIndex(pats []libPattern) *libIndex {
	ix := &libIndex{pats: pats, buckets: map[libKey][]int32{}, byName: map[string][]int32{}}
	prefix := func(p *libPattern) (m [keyBytes]byte) {
		copy(m[:], p.mask)
		return m
	}
	count := map[[keyBytes]byte]int{}
	for i := range pats {
		count[prefix(&pats[i])]++
		ix.maxLen = max(ix.maxLen, len(pats[i].code))
		for _, a := range pats[i].aliases {
			ix.byName[a] = append(ix.byName[a], int32(i))
		}
	}
	type mc struct {
		m [keyBytes]byte
		n int
	}
	var common []mc
	for m, n := range count {
		common = append(common, mc{m, n})
	}
	slices.SortFunc(common, func(a, b mc) int {
		return cmp.Or(cmp.Compare(b.n, a.n), slices.Compare(a.m[:], b.m[:]))
	})
	maskIdx := map[[keyBytes]byte]int{}
	add := func(m [keyBytes]byte) int {
		if k, ok := maskIdx[m]; ok {
			return k
		}
		maskIdx[m] = len(ix.masks)
		ix.masks = append(ix.masks, m)
		return len(ix.masks) - 1
	}
	// Room is kept for the 17 prefix-only masks the rest fall back to.
	for _, c := range common[:min(len(common), maxKeyMasks-keyBytes-1)] {
		add(c.m)
	}
	for i := range pats {
		p := &pats[i]
		m := prefix(p)
		k, ok := maskIdx[m]
		if !ok {
			// The prefix up to the first byte not wholly fixed: a coarser
			// key, so a larger bucket, but one of at most 17 masks.
			var c [keyBytes]byte
			for j := 0; j < keyBytes && m[j] == 0xff; j++ {
				c[j] = 0xff
			}
			k = add(c)
		}
		key := libKey{mask: k}
		for j := 0; j < keyBytes && j < len(p.code); j++ {
			key.key[j] = p.code[j] & ix.masks[k][j]
		}
		ix.buckets[key] = append(ix.buckets[key], int32(i))
	}
	return ix
}

// lookup calls visit with each pattern whose bytes equal code's over the
// pattern's length, masked bits excepted; code holds at least the longest
// pattern's bytes or all the bytes the procedure's region has. It returns
// the bytes compared.
func (ix *libIndex) lookup(code []byte, visit func(i int32)) int {
	work := 0
	for k, m := range ix.masks {
		key := libKey{mask: k}
		for j := 0; j < keyBytes && j < len(code); j++ {
			key.key[j] = code[j] & m[j]
		}
		for _, i := range ix.buckets[key] {
			p := &ix.pats[i]
			if len(p.code) > len(code) {
				continue
			}
			work += len(p.code)
			if equalMasked(code[:len(p.code)], p.code, p.mask) {
				visit(i)
			}
		}
	}
	return work
}

// equalMasked reports whether b equals code where mask is set.
func equalMasked(b, code, mask []byte) bool {
	for i, c := range code {
		if b[i]&mask[i] != c {
			return false
		}
	}
	return true
}

// landing is where the call c of a pattern placed at addr goes in the
// target, or false when its bytes cannot be read.
func (res *libResult) landing(src source, mm *memMap, addr uint64, c libCall) (uint64, bool) {
	if c.next {
		return addr + uint64(c.off), mm.isCode(addr + uint64(c.off))
	}
	at := addr + uint64(c.off)
	b, err := mm.view(src, at, 4)
	if err != nil || len(b) < 4 {
		return 0, false
	}
	w := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	var to uint64
	if c.arm {
		to = at + uint64(sext(uint64(w&0x3ffffff)<<2, 28))
	} else {
		to = at + 4 + uint64(int64(int32(w)))
	}
	if res.addr32 {
		to &= 0xffffffff
	}
	return to, true
}

// callsNamed reports whether every call p's object aims at a function
// lands, with p at addr, on a procedure named as that function (or one of
// its aliases), by a symbol or by the names given so far, or on an
// IRELATIVE stub whose resolver is so named.
func (res *libResult) callsNamed(src source, mm *memMap, ix *libIndex, addr uint64, p *libPattern, ms *matchSet, given map[uint64]candidate) bool {
	for _, c := range p.calls {
		to, ok := res.landing(src, mm, addr, c)
		if !ok {
			return false
		}
		if r, ok := ms.stubs[to]; ok && len(ms.names[to]) == 0 {
			to = r // a static link's call of an IFUNC (libcallers.go)
		}
		if g, ok := given[to]; ok {
			if !ix.isAlias(c.target, g.name) {
				return false
			}
			continue
		}
		if !slices.ContainsFunc(ms.names[to], func(n string) bool { return !strings.HasPrefix(n, "*ABS*") && ix.isAlias(c.target, plainName(n)) }) {
			return false
		}
	}
	return len(p.calls) > 0
}

// padding reports whether b is what a linker or assembler fills the room
// between functions with: x86 nops (0x90, the 0f 1f and 66 forms, with
// their ModRM, SIB and zero displacement bytes), int3 and zeros; AArch64
// nops and zero words.
func padding(b []byte, m elf.Machine) bool {
	if m == elf.EM_AARCH64 {
		if len(b)%4 != 0 {
			return false
		}
		for i := 0; i < len(b); i += 4 {
			if w := binary.LittleEndian.Uint32(b[i:]); w != 0xd503201f && w != 0 {
				return false
			}
		}
		return true
	}
	for _, c := range b {
		switch c {
		case 0x90, 0xcc, 0x00, 0x0f, 0x1f, 0x66, 0x2e, 0x40, 0x44, 0x80, 0x84:
		default:
			return false
		}
	}
	return true
}
