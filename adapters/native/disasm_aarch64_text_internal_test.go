package native

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestARM64TextHasNoTrailingSpace: an instruction with no operands (nop,
// ret with its default register printed or not) reads without a space
// after its mnemonic, in the text and the operands.
func TestARM64TextHasNoTrailingSpace(t *testing.T) {
	var d arm64Decoder
	for _, w := range []uint32{0xd503201f /* nop */, 0xd65f03c0 /* ret */, 0xd503233f /* paciasp */} {
		b := binary.LittleEndian.AppendUint32(nil, w)
		in := insn{size: 4}
		out := d.format(b, 0x1000, &in, func(uint64) string { return "" })
		if out.Text == "" || strings.TrimSpace(out.Text) != out.Text || strings.TrimSpace(out.Operands) != out.Operands {
			t.Errorf("%#08x: text %q, operands %q", w, out.Text, out.Operands)
		}
	}
}
