package native

import (
	"bytes"
	"slices"
	"testing"
)

// pic32Switch is a 32-bit PIC switch at 0x1000, as gcc compiles one: thunk;
// push ebx; call thunk; add ebx, 0x1000 (ebx = 0x200a, the GOT); cmp eax, 2;
// ja default; mov edx, [ebx+eax*4-0xfd1] (the table at 0x1039); add edx,
// ebx; jmp edx; three cases and the default (mov eax, n; pop ebx; ret); the
// table of the cases' offsets from the GOT.
var pic32Switch = []byte{
	0x8b, 0x1c, 0x24, 0xc3, 0x53, 0xe8, 0xf6, 0xff, 0xff, 0xff, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00,
	0x83, 0xf8, 0x02, 0x77, 0x20, 0x8b, 0x94, 0x83, 0x2f, 0xf0, 0xff, 0xff, 0x01, 0xda, 0xff, 0xe2,
	0xb8, 0x00, 0x00, 0x00, 0x00, 0x5b, 0xc3, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x5b, 0xc3,
	0xb8, 0x02, 0x00, 0x00, 0x00, 0x5b, 0xc3, 0x31, 0xc0, 0x5b, 0xc3,
	0x16, 0xf0, 0xff, 0xff, 0x1d, 0xf0, 0xff, 0xff, 0x24, 0xf0, 0xff, 0xff,
}

// TestPIC32SwitchSeed: the jump of pic32Switch is a jump table of its
// three cases, also in the "mov edx, ebx; add edx, [ebx+eax*4-0xfd1]"
// form; a table with an entry outside the code section, or a bound that
// reaches past the file, is no table (and nothing outside the image is
// read), and nor is a jump swept without the tracking.
func TestPIC32SwitchSeed(t *testing.T) {
	variant := func(at int, b ...byte) []byte {
		v := slices.Clone(pic32Switch)
		copy(v[at:], b)
		return v
	}
	cases := []struct {
		name string
		code []byte
		want []uint64
	}{
		{"gcc", pic32Switch, []uint64{0x1020, 0x1027, 0x102e}},
		{"add-from-table", variant(0x15, 0x89, 0xda, 0x03, 0x94, 0x83, 0x2f, 0xf0, 0xff, 0xff), []uint64{0x1020, 0x1027, 0x102e}},
		{"entry-outside-code", variant(0x41, 0xf6, 0x00, 0x00, 0x00), nil},
		{"bound-past-the-file", variant(0x12, 0x7f), nil},
		{"no-bound", variant(0x10, 0x90, 0x90, 0x90), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mm := pic32Map(len(c.code))
			src := source{r: bytes.NewReader(c.code), size: int64(len(c.code))}
			var table []uint64
			unresolved := false
			sweep(newX86(32, mm, src), c.code, 0x1000, 0x1000+uint64(len(c.code)), 1000, func(in *insn) bool {
				if in.addr == 0x101e {
					table = slices.Clone(in.table)
					for _, x := range in.refs {
						unresolved = unresolved || !x.resolved()
					}
				}
				return true
			})
			if !slices.Equal(table, c.want) || unresolved != (c.want == nil) {
				t.Errorf("jmp edx: table %x (unresolved %v), want %x", table, unresolved, c.want)
			}
			// Without the tracking (no range end) the jump stays unresolved.
			d := newX86(32, mm, src)
			d.reset(c.code, 0x1000)
			for pc := uint64(0x1000); pc <= 0x101e; {
				var in insn
				d.step(c.code[pc-0x1000:], pc, &in)
				if pc == 0x101e && len(in.table) != 0 {
					t.Errorf("untracked jmp edx: table %x", in.table)
				}
				pc += uint64(in.size)
			}
		})
	}
}
