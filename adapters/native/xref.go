package native

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"rea/ports"
)

// refIndex is the reference list of a program: every reference made by
// the instructions of the final function ranges, sorted by from, to, kind
// and flags, without duplicates, and the resolved ones by target.
type refIndex struct {
	all  []xref
	byTo []int32 // indexes of resolved refs, sorted by to then from
	held func()  // releases its memory reservation (Analysis.Close)
}

// references sweeps the ranges discovery decoded whole once more, on every
// core, and indexes their references, with the pointer slots of the data
// (pointers.go). Discovery does not keep them: the
// lists and the overview never need them, and on a large binary they
// outweigh everything else it holds. The result is the same whatever the
// number of cores: each range's references land in its own slot and the
// slots are joined in range order.
func (p *program) references(ctx context.Context, src source, img image) (*refIndex, error) {
	return p.refs.get(ctx, func(ctx context.Context) (*refIndex, error) {
		// The pointer slots first, kept at their exact size: their
		// transient garbage and the relocation pages then go before the
		// sweep's slots and the joined list, the peak, are allocated.
		ptrs, err := p.pointerRefs(ctx, src, img)
		if err != nil {
			return nil, err
		}
		ptrs = slices.Clone(ptrs)
		b := &builder{src: src, mm: p.mm, arch: p.arch, code: make([][]byte, len(p.mm.regions)), budget: math.MaxInt64}
		for i, r := range p.mm.regions {
			if !r.exec || r.fileSize == 0 {
				continue
			}
			if n := src.clamp(r.off, r.fileSize); n > 0 {
				if data, err := src.view(r.off, n); err == nil { // pinned by the caller (Analysis.enter)
					b.code[i] = data
				}
			}
		}
		swept := p.sweptRanges()
		rc := newRegCalls(p, img.format())
		slots := make([][]xref, len(swept))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range max(1, min(runtime.GOMAXPROCS(0), len(swept)/32)) {
			wg.Go(func() {
				dec := newDecoder(p.arch, p.mm, src)
				var buf []xref
				for {
					k := int(next.Add(64) - 64)
					if k >= len(swept) || ctx.Err() != nil {
						return
					}
					for j := k; j < min(k+64, len(swept)); j++ {
						buf = p.rangeRefs(b, dec, rc, swept[j], buf[:0])
						slots[j] = slices.Clone(buf)
					}
				}
			})
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		total := len(ptrs)
		for _, s := range slots {
			total += len(s)
		}
		// Each range's references are sorted and ranges come in address
		// order, so the concatenation is sorted unless ranges overlap.
		held, err := ports.Reserve(ctx, "the cross-reference index", int64(total)*(int64(unsafe.Sizeof(xref{}))+4))
		if err != nil {
			return nil, err
		}
		all := make([]xref, 0, total)
		for j, s := range slots {
			all = append(all, s...)
			slots[j] = nil
		}
		if !slices.IsSortedFunc(all, refLess) {
			slices.SortFunc(all, refLess)
		}
		all = mergeRefs(all, ptrs)
		ix := &refIndex{all: slices.Clip(slices.Compact(all)), held: held}
		ix.indexTargets()
		return ix, nil
	})
}

// rangeRefs appends the references the instructions of r make to buf,
// sorted, as discovery's sweep of r found them, with the calls through a
// register holding an import's address resolved to its slot (rc,
// regcall.go).
func (p *program) rangeRefs(b *builder, dec decoder, rc *regCalls, r ports.FunctionRange, buf []xref) []xref {
	code, stop := b.codeFor(r.Start, r.End)
	if code == nil {
		return buf
	}
	n := len(buf)
	first := true // as decodeOne: a leading landing pad contributes nothing
	sweep(dec, code, r.Start, stop, maxFunctionInsns, func(in *insn) bool {
		if first {
			if b.isLandingPad(code[in.addr-r.Start:]) {
				return true
			}
			first = false
		}
		for _, x := range in.refs {
			if (x.kind == kindCall || x.kind == kindJump) && x.flags == flagUnresolved && x.to != 0 && p.labelAt(x.to, "import") != "" {
				x.flags = flagImportSlot
			}
			buf = append(buf, x)
		}
		return true
	})
	rc.resolve(dec, code, r, buf[n:], b.codeFor)
	sortRefs(buf[n:])
	return buf
}

// from returns the references made in [start, end).
func (ix *refIndex) from(start, end uint64) []xref {
	i, _ := slices.BinarySearchFunc(ix.all, start, func(x xref, t uint64) int {
		if x.from < t {
			return -1
		}
		return 1
	})
	j := i
	for j < len(ix.all) && ix.all[j].from < end {
		j++
	}
	return ix.all[i:j]
}

// to returns the resolved references whose target is in [start, end),
// sorted by target then source.
func (ix *refIndex) to(start, end uint64) []xref {
	i, _ := slices.BinarySearchFunc(ix.byTo, start, func(k int32, t uint64) int {
		if ix.all[k].to < t {
			return -1
		}
		return 1
	})
	var out []xref
	for ; i < len(ix.byTo) && ix.all[ix.byTo[i]].to < end; i++ {
		out = append(out, ix.all[ix.byTo[i]])
	}
	return out
}

// indexTargets sorts the resolved references by target with a stable
// radix sort; all is sorted by source, so equal targets stay in source
// order. It sorts packed words, target - lowest above the index into all,
// so no pass reads all out of order, and runs only the 11-bit passes the
// span of the targets needs. The words are first spread by their top
// digit into one list, in order, and each part is then sorted on its own
// (least significant digit first) with scratch the size of the largest
// part: the sort holds about one word per reference, not two. Targets
// too far above the lowest to pack (a few wrapped or absolute addresses)
// sort after all the others, on their own.
func (ix *refIndex) indexTargets() {
	lo := uint64(math.MaxUint64)
	for _, x := range ix.all {
		if x.resolved() {
			lo = min(lo, x.to)
		}
	}
	low := uint(max(bits.Len(uint(len(ix.all)-1)), 1)) // bits of the index
	fits := uint64(math.MaxUint64) >> low              // largest packable target - lo
	n, hi := 0, uint64(0)
	var far []int32
	for i, x := range ix.all {
		if x.resolved() {
			if x.to-lo > fits {
				far = append(far, int32(i))
				continue
			}
			n++
			hi = max(hi, x.to-lo)
		}
	}
	const digit = 11
	span := uint(bits.Len64(hi))
	top := low + span - min(span, digit) // the first bit of the top digit
	part := func(e uint64) uint64 { return (e >> top) & (1<<digit - 1) }
	var starts [1<<digit + 1]int
	for _, x := range ix.all {
		if x.resolved() && x.to-lo <= fits {
			starts[part((x.to-lo)<<low)+1]++
		}
	}
	most := 0
	for b := 1; b < len(starts); b++ {
		most = max(most, starts[b])
		starts[b] += starts[b-1]
	}
	words := make([]uint64, n)
	next := starts
	for i, x := range ix.all {
		if x.resolved() && x.to-lo <= fits {
			e := (x.to-lo)<<low | uint64(i)
			b := part(e)
			words[next[b]] = e
			next[b]++
		}
	}
	if top > low {
		scratch := make([]uint64, most)
		for b := 0; b+1 < len(starts); b++ {
			if src := words[starts[b]:starts[b+1]]; len(src) > 1 {
				sortDigits(src, scratch[:len(src)], low, top, digit)
			}
		}
	}
	ix.byTo = make([]int32, n, n+len(far))
	mask := uint64(1)<<low - 1
	for i, e := range words {
		ix.byTo[i] = int32(e & mask)
	}
	slices.SortStableFunc(far, func(a, b int32) int { return cmp.Compare(ix.all[a].to, ix.all[b].to) })
	ix.byTo = append(ix.byTo, far...)
}

// sortDigits sorts words stably by their bits [from, to), digit bits a
// pass, leaving the result in words (tmp is as long).
func sortDigits(words, tmp []uint64, from, to, digit uint) {
	src, dst := words, tmp
	for shift := from; shift < to; shift += digit {
		w := min(digit, to-shift)
		var count [1<<11 + 1]int
		m := uint64(1)<<w - 1
		for _, e := range src {
			count[(e>>shift)&m+1]++
		}
		for b := 1; b < len(count); b++ {
			count[b] += count[b-1]
		}
		for _, e := range src {
			b := (e >> shift) & m
			dst[count[b]] = e
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &words[0] {
		copy(words, src)
	}
}

// reference converts a compact reference. operand renders the operand of an
// unresolved transfer.
func reference(x xref, operand func(uint64) string) ports.Reference {
	r := ports.Reference{From: x.from, To: x.to, Kind: refKindNames[x.kind]}
	if !x.resolved() {
		r.Unresolved, r.Slot, r.To = true, x.to, 0
		r.Operand = operand(x.from)
	}
	if x.flags&flagImportSlot != 0 {
		r.Slot = x.to
	}
	return r
}
