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

// TestPIC32SwitchSweepOnly: a switch whose GOT register is reloaded from
// its spill slot, which only the sweep knows (the scan fills the slots at
// its end), is recovered by the sweep alone; its cases are then joins of
// unknown state, so case 1, which case 0 falls into after "call next; pop
// esi", does not take esi's value for [esi+4].
func TestPIC32SwitchSweepOnly(t *testing.T) {
	// push ebx; sub esp, 0x18; call thunk; add ebx, 0x1000 (0x2009);
	// mov [esp+0xc], ebx; xor ebx, ebx; mov ecx, [esp+0xc]; cmp eax, 2;
	// ja case2; mov edx, [ecx+eax*4-0xfcb] (0x103e); add edx, ecx; jmp edx;
	// case0: call next; pop esi; case1: mov eax, [esi+4]; add esp, 0x18;
	// pop ebx; ret; case2: xor eax, eax; add esp, 0x18; pop ebx; ret; the
	// table; the thunk
	code := []byte{0x53, 0x83, 0xec, 0x18, 0xe8, 0x41, 0x00, 0x00, 0x00,
		0x81, 0xc3, 0x00, 0x10, 0x00, 0x00, 0x89, 0x5c, 0x24, 0x0c, 0x31, 0xdb, 0x8b, 0x4c, 0x24, 0x0c,
		0x83, 0xf8, 0x02, 0x77, 0x19, 0x8b, 0x94, 0x81, 0x35, 0xf0, 0xff, 0xff, 0x01, 0xca, 0xff, 0xe2,
		0xe8, 0x00, 0x00, 0x00, 0x00, 0x5e, 0x8b, 0x46, 0x04, 0x83, 0xc4, 0x18, 0x5b, 0xc3,
		0x31, 0xc0, 0x83, 0xc4, 0x18, 0x5b, 0xc3,
		0x20, 0xf0, 0xff, 0xff, 0x26, 0xf0, 0xff, 0xff, 0x2e, 0xf0, 0xff, 0xff,
		0x8b, 0x1c, 0x24, 0xc3}
	mm := pic32Map(len(code))
	src := source{r: bytes.NewReader(code), size: int64(len(code))}
	d := newX86(32, mm, src)
	var table []uint64
	var case1 []xref
	sweep(d, code, 0x1000, 0x1000+uint64(len(code)), 1000, func(in *insn) bool {
		switch in.addr {
		case 0x1027:
			table = slices.Clone(in.table)
		case 0x102f:
			case1 = slices.Clone(in.refs)
		}
		return true
	})
	if want := []uint64{0x1029, 0x102f, 0x1037}; !slices.Equal(table, want) || len(d.pic.tables) != 0 {
		t.Errorf("jmp edx: table %x (the scan's %+v), want %x from the sweep alone", table, d.pic.tables, want)
	}
	if len(case1) != 0 {
		t.Errorf("case 1 refers to %+v: esi is not known where the table's edge joins", case1)
	}
}
