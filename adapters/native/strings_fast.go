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

// asciiMask marks the bytes of v for which isASCII holds: tab, or 0x20
// through 0x7e.
func asciiMask(v uint64) uint64 {
	x := v & lo7                     // the low 7 bits: sums below cannot carry into the next byte
	ge20 := (x + 0x6060606060606060) // high bit set when x >= 0x20
	le7e := ^(x + ones)              // high bit set when x <= 0x7e
	in := ^v & ge20 & le7e & hi1
	return in | zeroMask(v^0x0909090909090909)
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
