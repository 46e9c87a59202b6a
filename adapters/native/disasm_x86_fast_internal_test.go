package native

import (
	"context"
	"math/rand/v2"
	"testing"
)

// wideMap maps most of the low 4 GiB, so that immediates and absolute
// operands there are addresses.
func wideMap() *memMap {
	return &memMap{regions: []memRegion{{name: ".text", addr: 0x1000, size: 0x7fff_0000, exec: true}}, starts: []uint64{0x1000}}
}

// stepsAgree decodes b at pc with the fast path and with x86asm alone and
// fails when what a sweep learns differs.
func stepsAgree(t *testing.T, mode int, mm *memMap, b []byte, pc uint64) bool {
	t.Helper()
	fast, full := newX86(mode, mm, source{}), newX86(mode, mm, source{})
	full.fast = false
	fast.reset(b, pc)
	full.reset(b, pc)
	var x, y insn
	fast.step(b, pc, &x)
	full.step(b, pc, &y)
	if err := sameInsn(&x, &y); err != nil {
		t.Fatalf("mode %d at 0x%x on % x: %v", mode, pc, b[:min(len(b), 15)], err)
	}
	_, ok := fastX86(b, mode, mm)
	return ok
}

// TestFastStepMatchesFullStep compares the two paths on random encodings
// built around memory operands that are references (RIP-relative and
// absolute), immediates that may be addresses and indirect transfers, and
// on random bytes.
func TestFastStepMatchesFullStep(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mm := wideMap()
	prefixes := []byte{0x66, 0xf2, 0xf3, 0x2e, 0x3e, 0x26, 0x36, 0x67}
	modrms := []byte{0x05, 0x0d, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x04, 0x0c, 0x14, 0x24, 0x3c, 0xc0, 0xd8, 0x44, 0x84}
	b := make([]byte, 16)
	for _, mode := range []int{32, 64} {
		taken := 0
		for range 300_000 {
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			i := 0
			for range r.IntN(3) {
				b[i] = prefixes[r.IntN(len(prefixes))]
				i++
			}
			if mode == 64 && r.IntN(2) == 0 {
				b[i] = 0x40 | byte(r.IntN(16))
				i++
			}
			if r.IntN(3) == 0 {
				b[i] = 0x0f
				i++
			}
			i++ // the opcode, random
			b[i] = modrms[r.IntN(len(modrms))]
			if b[i]&7 == 4 && r.IntN(2) == 0 {
				b[i+1] = 0x25 | byte(r.IntN(8))<<3 | byte(r.IntN(4))<<6 // absolute, or indexed without a base
			}
			if stepsAgree(t, mode, mm, b, 0x401000) {
				taken++
			}
		}
		for range 200_000 {
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			stepsAgree(t, mode, mm, b, 0x401000)
		}
		if taken == 0 {
			t.Fatalf("mode %d: the fast path took none", mode)
		}
		t.Logf("mode %d: the fast path took %d of the built encodings", mode, taken)
	}
}

// BenchmarkSweepX86 sweeps the .text of /usr/bin/ls with the discovery
// decoder (fast) and with x86asm alone (full); it reports ns per
// instruction.
func BenchmarkSweepX86(b *testing.B) {
	mm, src, text, code := benchText(b, "/usr/bin/ls", archX8664)
	for _, fast := range []bool{true, false} {
		name := "full"
		if fast {
			name = "fast"
		}
		b.Run(name, func(b *testing.B) {
			d := newX86(64, mm, src)
			d.fast = fast
			n := 0
			for b.Loop() {
				k, _ := sweep(d, code, text.addr, text.addr+uint64(len(code)), len(code), func(*insn) bool { return true })
				n += k
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/insn")
		})
	}
}

// benchText opens path for a benchmark and returns its memory map, its
// source, its .text region and bytes; it skips when the file is missing or
// its .text is not arch's.
func benchText(b *testing.B, path string, want arch) (*memMap, source, *memRegion, []byte) {
	b.Helper()
	a, err := OpenFile(b.Context(), path)
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(func() { a.Close(context.Background()) })
	mm := newMemMap(a.img)
	var text *memRegion
	for i := range mm.regions {
		if mm.regions[i].name == ".text" {
			text = &mm.regions[i]
		}
	}
	if text == nil || archOf(a.docs[0].Architecture) != want {
		b.Skipf("no .text of the wanted architecture in %s", path)
	}
	code, err := mm.view(a.src, text.addr, text.fileSize)
	if err != nil {
		b.Fatal(err)
	}
	return mm, a.src, text, code
}
