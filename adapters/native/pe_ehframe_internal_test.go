package native

import (
	"context"
	"encoding/binary"
	"testing"
)

// A PE image's .eh_frame, which GNU ld concatenates unmerged, may hold
// crtend's zero terminator before more CIEs and FDEs (32-bit mingw-w64's
// register_frame_ctor): the PE reader reads past it, ELF's stops there.
func TestFDEStartsPastZeroTerminator(t *testing.T) {
	const at = 0x20000 // the section's address
	le := binary.LittleEndian
	var data []byte
	cie := func() int {
		pos := len(data)
		data = le.AppendUint32(data, 16)
		data = le.AppendUint32(data, 0)                          // CIE id
		data = append(data, 1, 'z', 'R', 0, 1, 0x7c, 8, 1, 0x1b) // version, "zR", 1, -4, r8, pcrel|sdata4
		data = append(data, 0, 0, 0)                             // DW_CFA_nop
		return pos
	}
	fde := func(cie int, begin, size uint32) {
		data = le.AppendUint32(data, 16)
		data = le.AppendUint32(data, uint32(len(data)-cie))
		data = le.AppendUint32(data, begin-uint32(at+len(data)))
		data = le.AppendUint32(data, size)
		data = append(data, 0, 0, 0, 0) // no augmentation data, DW_CFA_nop
	}
	fde(cie(), 0x1100, 0x20)
	data = le.AppendUint32(data, 0) // the terminator
	fde(cie(), 0x1200, 5)
	mm := &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x1000, fileSize: 0x1000, exec: true}}, starts: []uint64{0x1000}}
	for _, pastZero := range []bool{false, true} {
		got, err := fdeStarts(context.Background(), &ehReader{data: data, addr: at, ptr: 4, bo: le}, mm, 0, pastZero)
		if err != nil {
			t.Fatal(err)
		}
		want := []candidate{{addr: 0x1100, size: 0x20, source: "eh-frame", rank: rankUnnamed}}
		if pastZero {
			want = append(want, candidate{addr: 0x1200, size: 5, source: "eh-frame", rank: rankUnnamed})
		}
		if len(got) != len(want) {
			t.Fatalf("pastZero %v: %+v, want %+v", pastZero, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("pastZero %v: FDE %d is %+v, want %+v", pastZero, i, got[i], want[i])
			}
		}
	}
}
