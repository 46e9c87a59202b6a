package diff

import (
	"testing"

	"github.com/matryer/is"
)

// TestNextBigHex: the address-in-image rule reads the hex literals from
// 1 MiB up that stand as words of their own, as numberRe and parseNumber
// read them (a negated one is no address), without a regular expression.
func TestNextBigHex(t *testing.T) {
	is := is.New(t)
	all := func(s string) []uint64 {
		var out []uint64
		for {
			v, rest, ok := nextBigHex(s)
			if !ok {
				return out
			}
			out, s = append(out, v), rest
		}
	}
	is.Equal(all("call dword ptr [4*ebx+0x409850]"), []uint64{0x409850})
	is.Equal(all("mov eax, 0x100000; mov ebx, 0xfffff"), []uint64{0x100000})
	is.Equal(all("lea rax, [rip-0x123456]"), []uint64(nil))
	is.Equal(all("mov x0, #0x4000000, cmp x1, 0x0123456"), []uint64{0x4000000, 0x123456})
	is.Equal(all("sub_0x1234567 0x1234567g 0x12345678901234567"), []uint64(nil))
}
