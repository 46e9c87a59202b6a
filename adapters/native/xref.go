package native

import (
	"slices"

	"rea/ports"
)

// refsFrom returns the references made in [start, end).
func (p *program) refsFrom(start, end uint64) []xref {
	i, _ := slices.BinarySearchFunc(p.refs, start, func(x xref, t uint64) int {
		if x.from < t {
			return -1
		}
		return 1
	})
	j := i
	for j < len(p.refs) && p.refs[j].from < end {
		j++
	}
	return p.refs[i:j]
}

// refsTo returns the resolved references whose target is in [start, end),
// sorted by target then source.
func (p *program) refsTo(start, end uint64) []xref {
	p.toOnce.Do(p.indexTargets)
	i, _ := slices.BinarySearchFunc(p.byTo, start, func(k int32, t uint64) int {
		if p.refs[k].to < t {
			return -1
		}
		return 1
	})
	var out []xref
	for ; i < len(p.byTo) && p.refs[p.byTo[i]].to < end; i++ {
		out = append(out, p.refs[p.byTo[i]])
	}
	return out
}

// indexTargets sorts the resolved references by target with a stable LSD
// radix sort on the 64-bit target; refs is sorted by source, so equal
// targets stay in source order.
func (p *program) indexTargets() {
	idx := make([]int32, 0, len(p.refs))
	for i, x := range p.refs {
		if x.resolved() {
			idx = append(idx, int32(i))
		}
	}
	if len(idx) == 0 {
		p.byTo = idx
		return
	}
	tmp := make([]int32, len(idx))
	for shift := uint(0); shift < 64; shift += 8 {
		var count [257]int
		for _, k := range idx {
			count[(p.refs[k].to>>shift)&0xff+1]++
		}
		if count[((p.refs[idx[0]].to>>shift)&0xff)+1] == len(idx) {
			continue // every key has the same byte here
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for _, k := range idx {
			b := (p.refs[k].to >> shift) & 0xff
			tmp[count[b]] = k
			count[b]++
		}
		idx, tmp = tmp, idx
	}
	p.byTo = idx
}

// reference converts a compact reference. operand renders the operand of an
// unresolved transfer.
func reference(x xref, operand func(uint64) string) ports.Reference {
	r := ports.Reference{From: x.from, To: x.to, Kind: refKindNames[x.kind]}
	if !x.resolved() {
		r.Unresolved, r.Slot, r.To = true, x.to, 0
		r.Operand = operand(x.from)
	}
	return r
}
