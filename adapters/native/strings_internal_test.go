package native

import (
	"context"
	"encoding/binary"
	"testing"

	"golang.org/x/arch/arm64/arm64asm"
)

// bitmaskImm agrees with arm64asm on every valid ORR-immediate encoding,
// 64- and 32-bit.
func TestBitmaskImm(t *testing.T) {
	agreed := 0
	for _, sf := range []uint32{0, 1} {
		for n := uint32(0); n <= sf; n++ {
			for immr := uint32(0); immr < 64; immr++ {
				for imms := uint32(0); imms < 64; imms++ {
					w := sf<<31 | 0x32000000 | n<<22 | immr<<16 | imms<<10 | 31<<5 | 3 // ORR x3|w3, zr, #imm
					v, ok := bitmaskImm(n, immr, imms, sf == 1)
					var b [4]byte
					binary.LittleEndian.PutUint32(b[:], w)
					inst, err := arm64asm.Decode(b[:])
					if err != nil || inst.Op != arm64asm.MOV && inst.Op != arm64asm.ORR {
						if ok && err == nil {
							t.Fatalf("%08x: decoded %v as 0x%x, arm64asm says %v", w, ok, v, inst)
						}
						continue
					}
					want, found := uint64(0), false
					for _, a := range inst.Args {
						if imm, isImm := a.(arm64asm.Imm64); isImm {
							want, found = imm.Imm, true
						}
					}
					if !found {
						continue
					}
					if !ok {
						continue // reserved (imms all ones within the element); arm64asm is lenient
					}
					if v != want {
						t.Fatalf("%08x (%v): bitmaskImm = 0x%x; want 0x%x", w, inst, v, want)
					}
					agreed++
				}
			}
		}
	}
	if agreed < 5000 {
		t.Fatalf("%d encodings agreed; the 64-bit and 32-bit forms have more than 5000", agreed)
	}
}

func TestARM64Length(t *testing.T) {
	le := func(ws ...uint32) []byte {
		var b []byte
		for _, w := range ws {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	tests := []struct {
		name string
		code []byte
		reg  uint32
		want uint64
	}{
		{"movz", le(0xd28001c1), 0, 14},                      // mov x1, #14
		{"orr", le(0xb24003e3), 2, 1},                        // orr x3, xzr, #1
		{"later", le(0x910163e2, 0xd2800283), 2, 20},         // add x2, sp, #88; mov x3, #20
		{"other register", le(0xd28001c2), 0, 0},             // mov x2, #14
		{"after a branch", le(0x14000001, 0xd28001c1), 0, 0}, // b; mov x1, #14
	}
	for _, tt := range tests {
		if got := arm64Length(tt.code, tt.reg); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestX86Length(t *testing.T) {
	tests := []struct {
		name string
		code []byte
		reg  int
		abi  map[int]int
		want uint64
	}{
		{"go ax bx", []byte{0xbb, 0x0e, 0, 0, 0}, 0, goLenReg, 14},                                         // mov ebx, 14
		{"go cx di", []byte{0xbf, 0x0e, 0, 0, 0}, 1, goLenReg, 14},                                         // mov edi, 14
		{"sysv after a lea", []byte{0x48, 0x8d, 0x15, 0, 0, 0, 0, 0xbe, 0x35, 0, 0, 0}, 7, sysvLenReg, 53}, // lea rdx; mov esi, 53
		{"stored pair", []byte{0x48, 0x89, 0x44, 0x24, 0x28, 0x48, 0xc7, 0x44, 0x24, 0x30, 0x12, 0, 0, 0}, 0, sysvLenReg, 18},
		{"wrong register", []byte{0xb9, 0x0e, 0, 0, 0}, 0, goLenReg, 0}, // mov ecx, 14
		{"after a call", []byte{0xe8, 0, 0, 0, 0, 0xbb, 0x0e, 0, 0, 0}, 0, goLenReg, 0},
		{"truncated", []byte{0xbb, 0x0e}, 0, goLenReg, 0},
	}
	for _, tt := range tests {
		if got := x86Length(tt.code, tt.reg, tt.abi); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// FuzzLiteralScan feeds arbitrary code and data to the literal scanners:
// nothing panics and every string lies inside the region.
func FuzzLiteralScan(f *testing.F) {
	f.Add([]byte("rea-a-literalrea-b-literal\x00\x00"), []byte{0x48, 0x8d, 0x05, 0xf0, 0xff, 0xff, 0xff, 0xbb, 0x0c, 0, 0, 0}, uint8(0))
	f.Add([]byte("abcdefghij\nabcdefghijklmnop"), []byte{0x90, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x91, 0xc1, 0x01, 0x80, 0xd2}, uint8(1))
	f.Fuzz(func(t *testing.T, data, code []byte, mode uint8) {
		const base = 0x1000
		r := region{name: ".rodata", addr: base, off: 0, size: uint64(len(data))}
		idx := newRegionIndex([]region{r})
		codeBase := uint64(base + len(data) + 16)
		var refs []litRef
		if mode&1 == 0 {
			refs = scanX8664(context.Background(), code, codeBase-0x2000, toolchain(1+mode>>1&1), idx, refs)
			refs = scanX8664(context.Background(), code, base-8, tcRust, idx, refs)
		} else {
			refs = scanARM64(context.Background(), code, base&^0xfff, tcRust, idx, refs)
		}
		if len(data) >= 16 {
			refs = scanPairs(data, base, 8, []reloc{{base, base + 1}}, idx, refs)
		}
		for i := 0; i+9 <= len(code); i += 9 {
			refs = append(refs, litRef{addr: base + uint64(code[i])%uint64(len(data)+1), n: uint64(code[i+1]), tagged: code[i+2]&1 == 1})
		}
		refs = sortLitRefs(refs)
		opts := (*Options)(nil).withDefaults()
		out, err := scanLiterals(context.Background(), data, r, opts, refsIn(refs, base, uint64(len(data))), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range out {
			if rec.off+uint64(rec.n) > uint64(len(data)) {
				t.Fatalf("string %+v outside the region", rec)
			}
			s := stringAt(data, rec, r, opts)
			if s.Address < base || s.Address+uint64(s.ByteLength) > base+uint64(len(data)) || s.ByteLength < opts.MinStringChars {
				t.Fatalf("string %+v outside the region or too short", s)
			}
		}
	})
}
