package native

import (
	"encoding/binary"
	"testing"
)

// aarch64PLT reads untrusted section bytes: any bytes at any address give
// entries inside the section, in address order, each at least one
// instruction long, and never a panic.
func FuzzAArch64PLT(f *testing.F) {
	word := func(ws ...uint32) []byte {
		var b []byte
		for _, w := range ws {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	// PLT0 and two 16-byte entries of binutils' PLT (from a gcc build).
	f.Add(word(0xa9bf7bf0, 0xf00000f0, 0xf947fe11, 0x913fe210, 0xd61f0220, 0xd503201f, 0xd503201f, 0xd503201f,
		0x90000110, 0xf9400211, 0x91000210, 0xd61f0220, 0x90000110, 0xf9400611, 0x91002210, 0xd61f0220), uint64(0x640))
	// A BTI entry and a truncated pair at the end.
	f.Add(word(a64BTIC, 0x90000110, 0xf9400211, 0x91000210, 0xd61f0220, 0x90000110), uint64(0xfffffffffffff000))
	f.Fuzz(func(t *testing.T, data []byte, addr uint64) {
		es := aarch64PLT(data, addr)
		for i, e := range es {
			if e.addr-addr > uint64(len(data)) || e.size < 4 {
				t.Fatalf("entry %d at %#x size %d outside a %d-byte section at %#x", i, e.addr, e.size, len(data), addr)
			}
			if i > 0 && e.addr <= es[i-1].addr {
				t.Fatalf("entries out of order: %#x after %#x", e.addr, es[i-1].addr)
			}
		}
	})
}

// binutils' PLT decodes as objdump reads it: PLT0 is no entry, and each
// entry's slot is its adrp page plus its ldr offset.
func TestAArch64PLTEntries(t *testing.T) {
	word := func(ws ...uint32) []byte {
		var b []byte
		for _, w := range ws {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	es := aarch64PLT(word(0xa9bf7bf0, 0xf00000f0, 0xf947fe11, 0x913fe210, 0xd61f0220, 0xd503201f, 0xd503201f, 0xd503201f,
		0x90000110, 0xf9400211, 0x91000210, 0xd61f0220, 0x90000110, 0xf9400611, 0x91002210, 0xd61f0220), 0x640)
	want := []pltEntry{{addr: 0x660, size: 16, slot: 0x20000}, {addr: 0x670, size: 16, slot: 0x20008}}
	if len(es) != len(want) || es[0] != want[0] || es[1] != want[1] {
		t.Fatalf("got %+v, want %+v", es, want)
	}
}
