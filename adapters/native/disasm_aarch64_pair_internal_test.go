package native

import (
	"encoding/binary"
	"slices"
	"testing"
)

// TestARM64PairReadsBothWords: ldp and stp read or write two words, and
// each is a reference. gcc -O2 loads two adjacent globals with one ldp
// (handle_stats' stats_errors and stats_requests, ldp x4, x3, [x3, #8]
// after adrp and add). Before, only the first word was referenced, so
// xrefs missed the read of the second and compare_binaries saw a build
// whose linker swapped the two as "references removed stats_errors,
// added stats_requests".
func TestARM64PairReadsBothWords(t *testing.T) {
	var d arm64Decoder
	code := []uint32{0xf00000e3 /* adrp x3, 0x20000 (at 0x16b0) */, 0x9103c063 /* add x3, x3, #0xf0 */, 0xa9408c64, /* ldp x4, x3, [x3, #8] */
		0xf00000e3 /* adrp x3, 0x20000 */, 0x29008c64 /* stp w4, w3, [x3, #4] */}
	var b []byte
	for _, w := range code {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	d.reset(b, 0x16b0)
	var got [][]uint64
	for k := range code {
		var in insn
		d.step(b[4*k:], 0x16b0+uint64(4*k), &in)
		var to []uint64
		for _, r := range in.refs {
			to = append(to, r.to)
		}
		got = append(got, to)
	}
	if want := []uint64{0x200f8, 0x20100}; !slices.Equal(got[2], want) {
		t.Errorf("ldp x4, x3, [x3, #8] references %#x, want %#x", got[2], want)
	}
	if want := []uint64{0x20004, 0x20008}; !slices.Equal(got[4], want) {
		t.Errorf("stp w4, w3, [x3, #4] references %#x, want %#x", got[4], want)
	}
}
