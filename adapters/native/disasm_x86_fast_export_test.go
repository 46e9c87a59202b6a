package native

import (
	"context"
	"fmt"
	"slices"
)

// X86PathStats counts what CompareX86Paths swept.
type X86PathStats struct {
	Instructions int // instructions decoded
	Fast         int // of them, taken by the fast path
	Refs         int // references found
}

// CompareX86Paths sweeps every executable section of the x86 file at path
// twice in lockstep, with the fast path and with x86asm alone, and returns
// an error at the first instruction where the two disagree on anything a
// sweep learns (size, flow, target, references, jump table).
func CompareX86Paths(ctx context.Context, path string) (X86PathStats, error) {
	var st X86PathStats
	a, err := OpenFile(ctx, path)
	if err != nil {
		return st, err
	}
	defer a.Close(ctx)
	ar := archOf(a.docs[0].Architecture)
	if ar != archX86 && ar != archX8664 {
		return st, fmt.Errorf("%s is not x86", path)
	}
	mm := newMemMap(a.img)
	for _, r := range mm.regions {
		if !r.exec || r.fileSize == 0 {
			continue
		}
		b, err := mm.view(a.src, r.addr, r.fileSize)
		if err != nil {
			return st, err
		}
		fast := newDecoder(ar, mm, a.src).(*x86Decoder)
		full := newDecoder(ar, mm, a.src).(*x86Decoder)
		full.fast = false
		fast.reset(b, r.addr)
		full.reset(b, r.addr)
		for off := 0; off < len(b); {
			pc := r.addr + uint64(off)
			var x, y insn
			fast.step(b[off:], pc, &x)
			full.step(b[off:], pc, &y)
			if _, ok := fastX86(b[off:], fast.mode, mm); ok {
				st.Fast++
			}
			if err := sameInsn(&x, &y); err != nil {
				return st, fmt.Errorf("%s 0x%x (% x): %w", r.name, pc, b[off:min(len(b), off+15)], err)
			}
			st.Instructions++
			st.Refs += len(x.refs)
			off += max(x.size, 1)
		}
	}
	return st, nil
}

// sameInsn reports how the fast path's insn x differs from the full
// decoder's y.
func sameInsn(x, y *insn) error {
	if x.addr != y.addr || x.size != y.size || x.flow != y.flow || x.target != y.target ||
		x.hasTarget != y.hasTarget || x.invalid != y.invalid {
		return fmt.Errorf("fast %+v, full %+v", *x, *y)
	}
	if !slices.Equal(x.refs, y.refs) {
		return fmt.Errorf("references: fast %+v, full %+v", x.refs, y.refs)
	}
	if !slices.Equal(x.table, y.table) {
		return fmt.Errorf("jump table: fast %x, full %x", x.table, y.table)
	}
	return nil
}

// X86FullOnly makes the x86 decoders created while it is set use x86asm
// alone; it returns the function that restores the fast path.
func X86FullOnly() (restore func()) {
	x86FullOnly.Store(true)
	return func() { x86FullOnly.Store(false) }
}

// SweepAllocs measures the allocations of sweeping the .text section of the
// x86 file at path with the decoder discovery uses: per sweep of the whole
// section, and per sweep of the section's instructions that the fast path
// takes, laid end to end. It also returns the instruction count.
func SweepAllocs(ctx context.Context, path string, allocsPerRun func(func()) float64) (section, fastOnly float64, insns int, err error) {
	a, err := OpenFile(ctx, path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer a.Close(ctx)
	ar := archOf(a.docs[0].Architecture)
	mm := newMemMap(a.img)
	var text *memRegion
	for i := range mm.regions {
		if mm.regions[i].name == ".text" && mm.regions[i].fileSize > 0 {
			text = &mm.regions[i]
		}
	}
	if text == nil || (ar != archX86 && ar != archX8664) {
		return 0, 0, 0, fmt.Errorf("%s: no x86 .text", path)
	}
	b, err := mm.view(a.src, text.addr, text.fileSize)
	if err != nil {
		return 0, 0, 0, err
	}
	d := newDecoder(ar, mm, a.src)
	var fast []byte
	insns, _ = sweep(d, b, text.addr, text.addr+uint64(len(b)), len(b), func(in *insn) bool {
		off := in.addr - text.addr
		if _, ok := fastX86(b[off:], d.(*x86Decoder).mode, mm); ok {
			fast = append(fast, b[off:off+uint64(in.size)]...)
		}
		return true
	})
	visit := func(*insn) bool { return true }
	section = allocsPerRun(func() { sweep(d, b, text.addr, text.addr+uint64(len(b)), len(b), visit) })
	fastOnly = allocsPerRun(func() { sweep(d, fast, text.addr, text.addr+uint64(len(fast)), len(fast), visit) })
	return section, fastOnly, insns, nil
}
