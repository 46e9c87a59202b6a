package native

import (
	"context"
	"debug/elf"
	"math/rand/v2"
	"os"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// fastAgrees checks fastX86 against x86asm on one instruction: when the
// fast path accepts, x86asm decodes the same length and flow.
func fastAgrees(t *testing.T, d *x86Decoder, b []byte, pc uint64) (int, bool) {
	t.Helper()
	f, ok := fastX86(b, d.mode, d.mm)
	slow := *d
	slow.fast = false
	var in insn
	slow.reset(b, pc)
	slow.step(b, pc, &in)
	if !ok {
		return in.size, false
	}
	inst, err := x86asm.Decode(b, d.mode)
	if err != nil || inst.Op == 0 {
		return f.size, true // x86asm lacks it (adcx, ...): the fast tables measure it
	}
	if f.size != in.size || f.flow != in.flow || (f.hasRel && (!in.hasTarget || d.wrap(pc+uint64(f.size)+uint64(f.rel)) != in.target)) {
		t.Fatalf("fast path disagrees at 0x%x on % x: fast %+v, full %+v (x86asm %v %v)", pc, b[:min(len(b), 15)], f, in, inst, err)
	}
	return f.size, true
}

func TestFastX86MatchesX86asm(t *testing.T) {
	for _, path := range []string{"/usr/bin/ls", "/usr/lib/x86_64-linux-gnu/libc.so.6"} {
		f, err := elf.Open(path)
		if err != nil {
			continue
		}
		text := f.Section(".text")
		if text == nil || f.Machine != elf.EM_X86_64 {
			f.Close()
			continue
		}
		data, err := text.Data()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		d := newX86(64, &memMap{}, source{})
		accepted, total := 0, 0
		for off := 0; off < len(data); {
			n, ok := fastAgrees(t, d, data[off:], text.Addr+uint64(off))
			total++
			if ok {
				accepted++
			}
			off += max(n, 1)
		}
		t.Logf("%s: fast path took %d of %d instructions (%.0f%%)", path, accepted, total, 100*float64(accepted)/float64(total))
	}
	// Random bytes, and random bytes after common prefixes.
	r := rand.New(rand.NewPCG(1, 2))
	for _, mode := range []int{32, 64} {
		d := newX86(mode, &memMap{}, source{})
		b := make([]byte, 16)
		for range 200_000 {
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			fastAgrees(t, d, b, 0x401000)
		}
	}
	_ = context.Background
	_ = os.Getenv
}
