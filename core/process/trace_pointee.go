package process

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"rea/core"
	"rea/ports"
)

// An argument whose value is an address in the traced program's own image
// (a global's, a string constant's, a callback's) is given at its
// link-time address too, with the label and procedure the other tools know
// there, so that a trace hands the static tools an address they can use.
// The program's load bias, which the tracer reports, is the only runtime
// fact it rests on. One in a library is given where the tracer placed it
// (ports.TracePlace: the library's file, its link-time address, section and
// dynamic symbol); one the tracer found in a thread's stack, the heap or
// another mapping of the process (ports.TraceRegister's Stack, Heap and
// Mapping) is given so.

// Where the tracer could not read the process's memory map (a dialed
// server), a value in the main thread's stack is still given as an offset
// from the stack pointer at the call. The stack runs from the stack pointer (less the
// red zone below it) to its end, which the tracer reads from the auxiliary
// vector (ports.TraceResult.StackEnd), when the stack pointer itself lies
// within mainStackReach of that end: Linux keeps every mapping at least
// 128 MiB below the main stack's end, so the memory between such a stack
// pointer and the end is the stack, while a goroutine's, a thread's or a
// signal stack lies far below it and is not placed (nor is the heap).

// mainStackReach is how far below its end a main-thread stack pointer may
// lie: the default stack limit, 8 MiB (deeper stacks are not placed).
const mainStackReach = 8 << 20

// redZone is the space below the stack pointer a leaf function may use
// (the x86-64 System V ABI's 128 bytes; more than i386's and AArch64's 0).
const redZone = 128

// onStack is value's offset from the stack pointer at the hit, when it
// lies in the main thread's stack.
func onStack(value uint64, h ports.TraceHit, end uint64) (string, bool) {
	sp := h.StackPointer
	if end == 0 || !h.MainThread || sp >= end || end-sp > mainStackReach || sp < redZone ||
		value < sp-redZone || value >= end {
		return "", false
	}
	return spOffset(value, sp), true
}

// tpOffset is an offset from a thread pointer: "tp-0x80", "tp+0x10".
func tpOffset(off int64) string {
	if off < 0 {
		return "tp-" + core.Hex(uint64(-off))
	}
	return "tp+" + core.Hex(uint64(off))
}

// spOffset is value as an offset from the stack pointer sp.
func spOffset(value, sp uint64) string {
	if value < sp {
		return "sp-" + core.Hex(sp-value)
	}
	return "sp+" + core.Hex(value-sp)
}

// pointees maps a runtime address to the place in the program's image it
// lies in.
type pointees struct {
	bias   uint64
	stack  uint64            // the main thread's stack end, 0 when unknown
	segs   []ports.Segment   // the image's sections (segments when it lists none)
	labels map[uint64]string // a label for each address that has one
	sized  sizedNames        // objects the image gives a size, for an address inside one
	idx    *procIndex
}

// sizedNames are data objects with a size, by address (the larger first
// at one address), with the furthest end of any object up to each, so that
// a lookup walks back only over objects that may hold the address.
type sizedNames struct {
	names []ports.Name
	ends  []uint64 // ends[i]: the largest Address+Size of names[:i+1]
}

func newSizedNames(names []ports.Name) sizedNames {
	var out sizedNames
	for _, n := range names {
		if n.Kind == "object" && n.Size != 0 && n.Address+n.Size > n.Address {
			out.names = append(out.names, n)
		}
	}
	slices.SortFunc(out.names, func(a, b ports.Name) int {
		return cmp.Or(cmp.Compare(a.Address, b.Address), cmp.Compare(b.Size, a.Size), cmp.Compare(a.Name, b.Name))
	})
	out.ends = make([]uint64, len(out.names))
	var end uint64
	for i, n := range out.names {
		end = max(end, n.Address+n.Size)
		out.ends[i] = end
	}
	return out
}

// inside is the innermost sized object that holds addr past its start,
// as "name+0xoffset".
func (s sizedNames) inside(addr uint64) (string, bool) {
	i, _ := slices.BinarySearchFunc(s.names, addr+1, func(n ports.Name, a uint64) int { return cmp.Compare(n.Address, a) })
	for i--; i >= 0 && s.ends[i] > addr; i-- {
		if n := s.names[i]; addr-n.Address < n.Size {
			return n.Name + "+" + core.Hex(addr-n.Address), true
		}
	}
	return "", false
}

// newPointees is nil when the analysis lists no sections or segments.
func newPointees(ctx context.Context, a ports.Analysis, idx *procIndex) *pointees {
	sl, ok := a.(ports.SegmentLister)
	if !ok {
		return nil
	}
	segs, err := sl.Segments(ctx)
	if err != nil || len(segs) == 0 {
		return nil
	}
	var secs []ports.Segment
	for _, s := range segs {
		if s.Kind == "section" && s.Start != 0 && s.Size != 0 && (s.Perms.Read || s.Perms.Execute) {
			secs = append(secs, s)
		}
	}
	if len(secs) == 0 {
		secs = segs
	}
	pt := &pointees{segs: secs, labels: map[uint64]string{}, idx: idx}
	if nl, ok := a.(ports.NameLister); ok {
		if names, err := nl.Names(ctx); err == nil {
			pt.sized = newSizedNames(names)
			for _, n := range names {
				if _, dup := pt.labels[n.Address]; !dup && (n.Kind == "function" || n.Kind == "object") {
					pt.labels[n.Address] = n.Name
				}
			}
		}
	}
	for addr, n := range idx.analyst {
		pt.labels[addr] = n // an analyst's name first, as elsewhere
	}
	return pt
}

// withBias is pt for a trace whose program was loaded at bias (and whose
// main thread's stack ends where the tracer says); without a main module
// only the stack and the tracer's library places are known.
func (pt *pointees) withBias(res *ports.TraceResult) *pointees {
	for _, m := range res.Modules {
		if m.Name == "" && pt != nil {
			out := *pt
			out.bias, out.stack = m.LoadBias, res.StackEnd
			return &out
		}
	}
	return &pointees{stack: res.StackEnd}
}

// of is where a value points in the image, or nil.
func (pt *pointees) of(value uint64) *TracePointee {
	if pt == nil || value < pt.bias || pt.segs == nil {
		return nil
	}
	addr := value - pt.bias
	seg := ports.Holding(pt.segs, addr)
	if seg == nil {
		return nil
	}
	out := &TracePointee{Address: core.Hex(addr), Section: seg.Name}
	if seg.Perms.Execute {
		if p, ok := pt.idx.containing(addr); ok {
			out.Procedure = pt.idx.procName(p, true)
			if p.Address == addr {
				out.Name = out.Procedure.Name
			}
		}
	}
	if n, ok := pt.labels[addr]; ok && out.Name == nil {
		out.Name = core.OptString(n)
	}
	if n, ok := pt.sized.inside(addr); ok && out.Name == nil && out.Procedure == nil {
		out.Name = &n
	}
	return out
}

// inLibrary is the pointee of a value the tracer placed in a library.
func inLibrary(p *ports.TracePlace) *TracePointee {
	out := &TracePointee{Address: core.Hex(p.Address), Section: p.Section, Module: core.OptString(p.Module)}
	if p.Symbol != "" {
		name := p.Symbol
		if p.Offset != 0 {
			name += "+" + core.Hex(p.Offset)
		}
		out.Name = &name
	}
	return out
}

// annotate gives each argument of a hit that may hold an address (a
// pointer's, or one of unknown type) the place it points at: in the
// program's image, or where the tracer placed it (a library, a thread's
// TLS, a thread's stack, the heap, a mapping). thread numbers a thread as
// raw_result does.
func (pt *pointees) annotate(argv []TraceArgument, sig *traceSig, h ports.TraceHit, thread func(int) int) {
	if pt == nil {
		pt = &pointees{}
	}
	regs := map[string]ports.TraceRegister{}
	for _, r := range h.Arguments {
		regs[r.Name] = r
	}
	types := map[string]string{}
	if sig != nil {
		for _, p := range sig.params {
			types[p.Name] = cmp.Or(p.Underlying, p.Type)
		}
	}
	for _, p := range h.Variadic {
		types[p.Name] = cmp.Or(p.Underlying, p.Type)
	}
	for i := range argv {
		a := &argv[i]
		if a.Bits != nil {
			continue // a floating-point value
		}
		if a.Parameter != nil && !mayPoint(types[*a.Parameter]) {
			continue
		}
		v, err := core.ParseHex(a.Value)
		if err != nil {
			continue
		}
		r := regs[a.Register]
		a.PointsTo = pt.of(v)
		if a.PointsTo != nil {
			continue
		}
		switch {
		case r.Place != nil:
			a.PointsTo = inLibrary(r.Place)
		case r.TLS != nil:
			off := tpOffset(r.TLS.Offset)
			a.TLS = &off
			if r.TLS.Thread != h.ThreadID {
				n := thread(r.TLS.Thread)
				a.TLSThread = &n
			}
		case r.Stack != nil:
			off := spOffset(v, r.Stack.StackPointer)
			a.Stack = &off
			if r.Stack.Thread != h.ThreadID {
				n := thread(r.Stack.Thread)
				a.StackThread = &n
			}
		case r.Heap:
			a.Heap = true
		default:
			if off, ok := onStack(v, h, pt.stack); ok {
				a.Stack = &off
			} else if m := r.Mapping; m != nil {
				a.Mapping = &TraceMapping{File: core.OptString(m.Path), Offset: core.Hex(m.Offset)}
			}
		}
	}
}

// mayPoint reports whether a value of type typ may be an address: a C or
// Go pointer, function, slice, map or channel, uintptr, or an unknown type.
func mayPoint(typ string) bool {
	if typ == "" || strings.ContainsAny(typ, "*(") {
		return true
	}
	for _, p := range []string{"func", "[]", "map[", "chan ", "unsafe.Pointer", "uintptr", "string"} {
		if strings.HasPrefix(typ, p) {
			return true
		}
	}
	return false
}
