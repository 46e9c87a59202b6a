package native

import (
	"encoding/binary"
	"math/bits"
)

// Word-at-a-time byte classes for the strings scan: each helper looks at 8
// bytes at once and returns a mask with the high bit of every byte that
// belongs to the class set, so a scan skips 8 bytes that hold no transition
// with one test and finds the first one with a trailing-zero count.

const (
	lo7  = 0x7f7f7f7f7f7f7f7f
	hi1  = 0x8080808080808080
	ones = 0x0101010101010101
)

// zeroMask marks the zero bytes of v, exactly (no borrow between bytes).
func zeroMask(v uint64) uint64 {
	return ^(((v & lo7) + lo7) | v) & hi1
}

// asciiMask marks the bytes of v for which isASCII holds: 0x20 through
// 0x7e, tab, line feed or carriage return.
func asciiMask(v uint64) uint64 {
	x := v & lo7                      // the low 7 bits: sums below cannot carry into the next byte
	ge20 := (x + 0x6060606060606060)  // high bit set when x >= 0x20
	le7e := ^(x + ones)               // high bit set when x <= 0x7e
	ge09 := (x + 0x7777777777777777)  // high bit set when x >= 0x09
	le0a := ^(x + 0x7575757575757575) // high bit set when x <= 0x0a
	return ^v&(ge20&le7e|ge09&le0a)&hi1 | zeroMask(v^0x0d0d0d0d0d0d0d0d)
}

// nextASCII is the first index from i whose byte is ASCII text, or
// len(data).
func nextASCII(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		if m := asciiMask(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(data) && !asciiByte[data[i]]; i++ {
	}
	return i
}

// nextNonASCII is the first index from i whose byte is not ASCII text, or
// len(data).
func nextNonASCII(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		if m := ^asciiMask(binary.LittleEndian.Uint64(data[i:])) & hi1; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(data) && asciiByte[data[i]]; i++ {
	}
	return i
}

// nextZero is the first index from i whose byte is zero, or len(data).
func nextZero(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		if m := zeroMask(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(data) && data[i] != 0; i++ {
	}
	return i
}

// latinByte is isLatin as a table.
var latinByte = func() (t [256]bool) {
	for b := range t {
		t[b] = isLatin(byte(b))
	}
	return t
}()

// asciiBits is a bit per byte of the 64 bytes of data at base (fewer at the
// end of data): bit k is set when data[base+k] is ASCII text.
func asciiBits(data []byte, base int) uint64 {
	if base+64 <= len(data) {
		var a uint64
		for w := 0; w < 8; w++ {
			m := asciiMask(binary.LittleEndian.Uint64(data[base+8*w:]))
			a |= ((m >> 7) * 0x0102040810204080 >> 56) << (8 * w)
		}
		return a
	}
	var a uint64
	for k := 0; base+k < len(data) && k < 64; k++ {
		if asciiByte[data[base+k]] {
			a |= 1 << k
		}
	}
	return a
}

// maxFastRun is the longest minimum run length asciiRuns handles.
const maxFastRun = 64

// asciiRuns calls emit with every maximal run of ASCII text of data at
// least minChars (1 to maxFastRun) bytes long, in order. It works on 64
// bytes at a time: the bytes that start minChars ASCII bytes in a row,
// spread over the minChars bytes each starts, are exactly the bytes of the
// long runs, so only the ends of strings cost more than a few operations.
func asciiRuns(data []byte, minChars int, check func() error, emit func(span)) error {
	var cur, next uint64 // ASCII bits of the chunk and of the one after it
	var prevLong uint64  // the starts of long windows in the previous chunk
	start, inRun := 0, false
	if len(data) > 0 {
		next = asciiBits(data, 0)
	}
	for base := 0; base < len(data); base += 64 {
		if base&(1<<20-1) == 0 {
			if err := check(); err != nil {
				return err
			}
		}
		cur = next
		next = 0
		if base+64 < len(data) {
			next = asciiBits(data, base+64)
		}
		if cur == 0 && !inRun {
			prevLong = 0
			continue
		}
		// s: bit k when bytes k .. k+minChars-1 are all ASCII.
		s := cur
		for j := 1; j < minChars; j++ {
			s &= cur>>j | next<<(64-j)
		}
		// l: bit k when byte k is in such a window.
		l := s
		for j := 1; j < minChars; j++ {
			l |= s<<j | prevLong>>(64-j)
		}
		prevLong = s
		t := l ^ (l << 1)
		if inRun {
			t ^= 1 // bit 0 continues the run when set
		}
		for t != 0 {
			k := bits.TrailingZeros64(t)
			t &= t - 1
			if inRun {
				emit(span{start, base + k})
			} else {
				start = base + k
			}
			inRun = !inRun
		}
	}
	if inRun {
		emit(span{start, len(data)})
	}
	return nil
}

// wideBits are the bits of a 64-byte chunk the UTF-16LE scan needs: its
// Latin-1 bytes and its zero bytes (none past the end of data).
func wideBits(data []byte, base int) (latin, zero uint64) {
	if base+64 <= len(data) {
		for w := 0; w < 8; w++ {
			v := binary.LittleEndian.Uint64(data[base+8*w:])
			high := v & ((v & lo7) + 0x6060606060606060) & hi1 // 0xa0 and above
			l, z := asciiMask(v)|high, zeroMask(v)
			latin |= ((l >> 7) * 0x0102040810204080 >> 56) << (8 * w)
			zero |= ((z >> 7) * 0x0102040810204080 >> 56) << (8 * w)
		}
		return latin, zero
	}
	for k := 0; base+k < len(data) && k < 64; k++ {
		b := data[base+k]
		if latinByte[b] {
			latin |= 1 << k
		}
		if b == 0 {
			zero |= 1 << k
		}
	}
	return latin, zero
}

// maxFastWide is the longest minimum run, in characters, wideRuns handles.
const maxFastWide = 32

// wideRuns returns the UTF-16LE runs of data of at least minChars (1 to
// maxFastWide) characters of each byte parity, each parity's in order, as
// asciiRuns finds ASCII ones: a character starts at a Latin-1 byte followed
// by a zero byte, and a run's characters are 2 bytes apart.
func wideRuns(data []byte, minChars int, check func() error) (runs [2][]span, err error) {
	// Characters of the chunk and the next; a chunk's characters need the
	// zero bytes of the chunk after it.
	chars := func(latin, zero, zeroNext uint64) uint64 { return latin & (zero>>1 | zeroNext<<63) }
	lat1, zero1 := wideBits(data, 0)
	lat2, zero2 := wideBits(data, 64)
	next := chars(lat1, zero1, zero2)
	var prevLong, prevL uint64
	var start [2]int
	for base := 0; base < len(data)+64; base += 64 {
		if base&(1<<20-1) == 0 {
			if err := check(); err != nil {
				return runs, err
			}
		}
		cur := next
		lat1, zero1 = lat2, zero2
		lat2, zero2 = wideBits(data, base+128)
		next = chars(lat1, zero1, zero2)
		if cur == 0 && prevL == 0 {
			prevLong = 0
			continue
		}
		s := cur
		for j := 1; j < minChars; j++ {
			s &= cur>>(2*j) | next<<(64-2*j)
		}
		l := s
		for j := 1; j < minChars; j++ {
			l |= s<<(2*j) | prevLong>>(64-2*j)
		}
		prevLong = s
		t := l ^ (l<<2 | prevL>>62)
		prevL = l
		for t != 0 {
			k := bits.TrailingZeros64(t)
			t &= t - 1
			p := k & 1
			if l&(1<<k) != 0 {
				start[p] = base + k
			} else {
				runs[p] = append(runs[p], span{start[p], base + k})
			}
		}
	}
	return runs, nil
}
