package native

import (
	"bytes"
	"slices"
	"testing"
)

// pic32Seeds are 32-bit code at 0x1000: a thunk at the start (mov ebx,
// [esp]; ret), then functions that call it and add to ebx; call/pop; a
// -fno-plt call; a loop; an epilogue restoring ebx from the frame.
var pic32Seeds = [][]byte{
	// thunk; push ebx; call thunk; add ebx, 0x1000; lea eax, [ebx-0x10]; call [ebx+8]; pop ebx; ret
	{0x8b, 0x1c, 0x24, 0xc3, 0x53, 0xe8, 0xf6, 0xff, 0xff, 0xff, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00,
		0x8d, 0x83, 0xf0, 0xff, 0xff, 0xff, 0xff, 0x93, 0x08, 0x00, 0x00, 0x00, 0x5b, 0xc3},
	// call next; pop eax; add eax, 0x2000; lea eax, [eax+4]; ret
	{0xe8, 0x00, 0x00, 0x00, 0x00, 0x58, 0x05, 0x00, 0x20, 0x00, 0x00, 0x8d, 0x40, 0x04, 0xc3},
	// thunk.cx; call it; add ecx, 0x100; test eax, eax; je +6; mov eax, [ecx+4]; jmp -2; mov edx, [ecx+eax*4+8]; ret
	{0x8b, 0x0c, 0x24, 0xc3, 0xe8, 0xf7, 0xff, 0xff, 0xff, 0x81, 0xc1, 0x00, 0x01, 0x00, 0x00, 0x85, 0xc0,
		0x74, 0x05, 0x8b, 0x41, 0x04, 0xeb, 0xfe, 0x8b, 0x54, 0x81, 0x08, 0xc3},
	// thunk; call it; add ebx, 8; mov eax, [ebx+0x10]; call eax; mov ebx, [ebp-4]; leave; ret
	{0x8b, 0x1c, 0x24, 0xc3, 0xe8, 0xf7, 0xff, 0xff, 0xff, 0x83, 0xc3, 0x08, 0x8b, 0x43, 0x10, 0xff, 0xd0,
		0x8b, 0x5d, 0xfc, 0xc9, 0xc3},
	// gcc -O0's spill: thunk; push ebp; mov ebp, esp; push ebx; call thunk; add ebx, 0x1000;
	// mov [ebp-0x10], ebx; xor ebx, ebx; mov ecx, [ebp-0x10]; lea eax, [ecx+0x10];
	// mov ebx, [ebp-4]; leave; ret
	{0x8b, 0x1c, 0x24, 0xc3, 0x55, 0x89, 0xe5, 0x53, 0xe8, 0xf3, 0xff, 0xff, 0xff, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00,
		0x89, 0x5d, 0xf0, 0x31, 0xdb, 0x8b, 0x4d, 0xf0, 0x8d, 0x81, 0x10, 0x00, 0x00, 0x00, 0x8b, 0x5d, 0xfc, 0xc9, 0xc3},
	// a loop off the range-wide ebx: thunk; push ebx; call thunk; add ebx, 0x1000;
	// L: lea eax, [ebx+0x10]; dec ecx; jne L; pop ebx; ret
	{0x8b, 0x1c, 0x24, 0xc3, 0x53, 0xe8, 0xf6, 0xff, 0xff, 0xff, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00,
		0x8d, 0x83, 0x10, 0x00, 0x00, 0x00, 0x49, 0x75, 0xf7, 0x5b, 0xc3},
	// the same loop off ecx, which a loop's back edge leaves unknown: thunk.cx; call it;
	// add ecx, 0x1000; L: mov eax, [ecx+0x10]; dec edx; jne L; ret
	{0x8b, 0x0c, 0x24, 0xc3, 0xe8, 0xf7, 0xff, 0xff, 0xff, 0x81, 0xc1, 0x00, 0x10, 0x00, 0x00,
		0x8b, 0x41, 0x10, 0x4a, 0x75, 0xfa, 0xc3},
	// gcc -O2's spill off esp, no frame pointer, the thunk after the function: push ebx;
	// sub esp, 0x18; call thunk; add ebx, 0x1000; mov [esp+0xc], ebx; xor ebx, ebx; push 0;
	// mov ecx, [esp+0x10]; lea eax, [ecx+0x20]; add esp, 0x20; pop ebx; ret; thunk
	{0x53, 0x83, 0xec, 0x18, 0xe8, 0x1d, 0x00, 0x00, 0x00, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00,
		0x89, 0x5c, 0x24, 0x0c, 0x31, 0xdb, 0x6a, 0x00, 0x8b, 0x4c, 0x24, 0x10, 0x8d, 0x81, 0x20, 0x00, 0x00, 0x00,
		0x83, 0xc4, 0x20, 0x5b, 0xc3, 0x8b, 0x1c, 0x24, 0xc3},
	// a rotated loop whose body, laid out before its test, only the backward
	// edge reaches, reloading the GOT from [esp+0xc]: push ebx; sub esp, 0x18;
	// call thunk; add ebx, 0x1000; mov [esp+0xc], ebx; xor ebx, ebx; jmp test;
	// body: mov ecx, [esp+0xc]; lea eax, [ecx+0x20]; dec edx; test: test edx, edx;
	// jne body; add esp, 0x18; pop ebx; ret; thunk
	{0x53, 0x83, 0xec, 0x18, 0xe8, 0x22, 0x00, 0x00, 0x00, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00,
		0x89, 0x5c, 0x24, 0x0c, 0x31, 0xdb, 0xeb, 0x0b, 0x8b, 0x4c, 0x24, 0x0c, 0x8d, 0x81, 0x20, 0x00, 0x00, 0x00,
		0x4a, 0x85, 0xd2, 0x75, 0xf1, 0x83, 0xc4, 0x18, 0x5b, 0xc3, 0x8b, 0x1c, 0x24, 0xc3},
}

// pic32Map maps data at 0x1000 as code (with the bytes of the file), and
// a data section and a GOT after it, so that resolved operands land in
// mapped memory.
func pic32Map(n int) *memMap {
	end := 0x1000 + uint64(n)
	return &memMap{regions: []memRegion{
		{name: ".text", addr: 0x1000, size: uint64(n), fileSize: uint64(n), exec: true},
		{name: ".data", addr: end, size: 0x8000, index: 1},
		{name: ".got", addr: end + 0x8000, size: 0x8000, index: 2},
	}, starts: []uint64{0x1000, end, end + 0x8000}}
}

// FuzzPIC32 sweeps bytes as 32-bit code with and without the register
// tracking of pic32.go: it must never panic, must leave every instruction's
// size and flow as they were, and only add references (or name the slot of
// an indirect call or jump that had none).
func FuzzPIC32(f *testing.F) {
	for _, s := range pic32Seeds {
		f.Add(s)
	}
	f.Add(pic32Switch) // a jump table (pic32_switch.go)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			data = data[:4096]
		}
		if len(data) == 0 {
			return
		}
		const base = 0x1000
		mm := pic32Map(len(data))
		src := source{r: bytes.NewReader(data), size: int64(len(data))}
		type step struct {
			in   insn
			refs []xref
		}
		plain := []step{}
		d := newX86(32, mm, src)
		d.reset(data, base)
		for pc := uint64(base); pc-base < uint64(len(data)); {
			var in insn
			d.step(data[pc-base:], pc, &in)
			plain = append(plain, step{in, slices.Clone(in.refs)})
			pc += uint64(in.size)
		}
		k := 0
		sweep(newX86(32, mm, src), data, base, base+uint64(len(data)), len(data)+1, func(in *insn) bool {
			if k >= len(plain) {
				t.Fatalf("more instructions with tracking, at 0x%x", in.addr)
			}
			p := plain[k]
			k++
			if in.addr != p.in.addr || in.size != p.in.size || in.flow != p.in.flow || in.target != p.in.target {
				t.Fatalf("at 0x%x: tracked %+v, plain %+v", in.addr, *in, p.in)
			}
			for _, x := range p.refs {
				if !x.resolved() && x.to == 0 && x.kind == kindJump && len(in.table) > 0 {
					continue // a recovered jump table (pic32_switch.go): its cases replace the unknown target
				}
				found := false
				for _, y := range in.refs {
					found = found || y == x || (!x.resolved() && x.to == 0 && y.from == x.from && y.kind == x.kind && y.flags == x.flags)
				}
				if !found {
					t.Fatalf("at 0x%x: tracking lost %+v (refs %+v)", in.addr, x, in.refs)
				}
			}
			for _, c := range in.table {
				if !slices.Contains(in.refs, xref{from: in.addr, to: c, kind: kindJump}) {
					t.Fatalf("at 0x%x: table target 0x%x is no jump (refs %+v)", in.addr, c, in.refs)
				}
			}
			return true
		})
		if k != len(plain) {
			t.Fatalf("%d instructions with tracking, %d without", k, len(plain))
		}
	})
}

// TestPIC32Seeds checks the seeds' references by hand: the tracking
// resolves what each seed computes.
func TestPIC32Seeds(t *testing.T) {
	type want struct {
		from, to uint64
		kind     uint8
	}
	cases := [][]want{
		{{0x1010, 0x100a + 0x1000 - 0x10, kindAddress}, {0x1016, 0x100a + 0x1000 + 8, kindRead}, {0x1016, 0x100a + 0x1000 + 8, kindCall}},
		{{0x100b, 0x1005 + 0x2000 + 4, kindAddress}},
		{{0x1013, 0x1009 + 0x100 + 4, kindRead}, {0x1018, 0x1009 + 0x100 + 8, kindRead}},
		{{0x100c, 0x1009 + 8 + 0x10, kindRead}, {0x100f, 0x1009 + 8 + 0x10, kindCall}},
		{{0x101b, 0x100d + 0x1000 + 0x10, kindAddress}},
		{{0x1010, 0x100a + 0x1000 + 0x10, kindAddress}},
		{},
		{{0x101b, 0x1009 + 0x1000 + 0x20, kindAddress}},
		{{0x101b, 0x1009 + 0x1000 + 0x20, kindAddress}},
	}
	// What no seed may refer to: seed 6's load at its loop head.
	never := map[int][]uint64{6: {0x100f}}
	for i, data := range pic32Seeds {
		mm := pic32Map(len(data)) // the targets lie past the code
		src := source{r: bytes.NewReader(data), size: int64(len(data))}
		var got []want
		sweep(newX86(32, mm, src), data, 0x1000, 0x1000+uint64(len(data)), 1000, func(in *insn) bool {
			for _, x := range in.refs {
				if x.kind == kindCall && x.resolved() {
					continue // direct calls
				}
				got = append(got, want{x.from, x.to, x.kind})
			}
			return true
		})
		for _, w := range cases[i] {
			if !slices.Contains(got, w) {
				t.Errorf("seed %d: no reference %#x -> %#x kind %d in %+v", i, w.from, w.to, w.kind, got)
			}
		}
		for _, g := range got {
			if slices.Contains(never[i], g.from) {
				t.Errorf("seed %d: reference %+v from a loop head where ecx is unknown", i, g)
			}
		}
	}
}

// TestPIC32GOTWord: a 32-bit load of a .got slot refers to the slot (a
// read) and to the address the slot holds in the file (i386 keeps a
// RELATIVE relocation's value there); a slot holding no mapped address (a
// GLOB_DAT slot's zero) adds nothing.
func TestPIC32GOTWord(t *testing.T) {
	// 0x1000: thunk; call it; add ebx, 0x1000 (ebx = 0x2009); mov eax, [ebx-5]; mov ecx, [ebx-1]; ret
	code := []byte{0x8b, 0x1c, 0x24, 0xc3, 0xe8, 0xf7, 0xff, 0xff, 0xff, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00,
		0x8b, 0x43, 0xfb, 0x8b, 0x4b, 0xff, 0xc3}
	got := []byte{0x00, 0x30, 0x00, 0x00, 0, 0, 0, 0} // 0x2004: 0x3000, 0x2008: 0
	file := append(append([]byte{}, code...), got...)
	mm := &memMap{regions: []memRegion{
		{name: ".text", addr: 0x1000, size: uint64(len(code)), fileSize: uint64(len(code)), exec: true},
		{name: ".got", addr: 0x2004, size: 8, off: uint64(len(code)), fileSize: 8, index: 1},
		{name: ".data", addr: 0x3000, size: 0x100, index: 2},
	}, starts: []uint64{0x1000, 0x2004, 0x3000}}
	src := source{r: bytes.NewReader(file), size: int64(len(file))}
	var refs []xref
	sweep(newX86(32, mm, src), code, 0x1000, 0x1000+uint64(len(code)), 100, func(in *insn) bool {
		refs = append(refs, in.refs...)
		return true
	})
	want := []xref{
		{from: 0x1004, to: 0x1000, kind: kindCall},
		{from: 0x100f, to: 0x2004, kind: kindRead},
		{from: 0x100f, to: 0x3000, kind: kindAddress},
		{from: 0x1012, to: 0x2008, kind: kindRead},
	}
	if !slices.Equal(refs, want) {
		t.Errorf("references %+v, want %+v", refs, want)
	}
}

// TestPIC32ManySlots: a range that writes more distinct frame slots than
// maxFrameSlots follows none (each new slot is inserted into a sorted
// table), and the sweep still ends with every instruction decoded.
func TestPIC32ManySlots(t *testing.T) {
	// push ebp; mov ebp, esp; call thunk; add ebx, 0x1000; mov [ebp-0x10], ebx;
	// 3000 x mov [ebp-disp], eax; mov ecx, [ebp-0x10]; lea eax, [ecx+0x20]; leave; ret; thunk
	code := []byte{0x55, 0x89, 0xe5, 0xe8, 0, 0, 0, 0, 0x81, 0xc3, 0x00, 0x10, 0x00, 0x00, 0x89, 0x5d, 0xf0}
	for i := range 3000 {
		d := uint32(-0x100 - 4*int32(i))
		code = append(code, 0x89, 0x85, byte(d), byte(d>>8), byte(d>>16), byte(d>>24))
	}
	code = append(code, 0x8b, 0x4d, 0xf0, 0x8d, 0x81, 0x20, 0, 0, 0, 0xc9, 0xc3)
	thunk := len(code)
	code = append(code, 0x8b, 0x1c, 0x24, 0xc3)
	rel := uint32(thunk - 8)
	code[4], code[5], code[6], code[7] = byte(rel), byte(rel>>8), byte(rel>>16), byte(rel>>24)
	mm := pic32Map(len(code))
	src := source{r: bytes.NewReader(code), size: int64(len(code))}
	d := newX86(32, mm, src)
	n := 0
	sweep(d, code, 0x1000, 0x1000+uint64(len(code)), 1<<20, func(in *insn) bool { n++; return true })
	if n != 3000+11 {
		t.Errorf("%d instructions swept, want %d", n, 3000+11)
	}
	if !d.pic.frameBad || len(d.pic.slots) > maxFrameSlots {
		t.Errorf("frameBad %v with %d slots (at most %d followed)", d.pic.frameBad, len(d.pic.slots), maxFrameSlots)
	}
}
