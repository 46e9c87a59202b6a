package portstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// maxSamples bounds the procedures each code case examines, so the suite
// stays cheap on binaries with thousands of functions.
const maxSamples = 8

// codeView is what the code cases know about the target before asking the
// code capabilities: procedure starts and ranges, segments, and addresses
// that name nothing.
type codeView struct {
	procs     []ports.Procedure
	hasProcs  bool
	ranges    []ports.FunctionRange // from FunctionRanges, or procedures with their sizes
	segs      []ports.Segment
	samples   []ports.FunctionRange // a spread of ranges, bodies first
	notStart  uint64                // an address where no procedure starts, inside a procedure when one has a body
	unmapped  uint64                // an address in no segment
	hasBodies bool                  // some sample has End > Start
}

func newCodeView(ctx context.Context, a ports.Analysis) (*codeView, error) {
	v := &codeView{}
	var err error
	if l, ok := a.(ports.ProcedureLister); ok {
		v.hasProcs = true
		if v.procs, err = l.Procedures(ctx); err != nil {
			return nil, fmt.Errorf("procedures: %w", err)
		}
	}
	if l, ok := a.(ports.SegmentLister); ok {
		if v.segs, err = l.Segments(ctx); err != nil {
			return nil, fmt.Errorf("segments: %w", err)
		}
	}
	if fa, ok := a.(ports.FunctionAnalyzer); ok {
		if v.ranges, err = fa.FunctionRanges(ctx); err != nil {
			return nil, fmt.Errorf("function ranges: %w", err)
		}
	} else {
		for _, p := range v.procs {
			v.ranges = append(v.ranges, ports.FunctionRange{Start: p.Address, End: p.Address + p.Size})
		}
	}
	starts := map[uint64]bool{}
	var bodies, empty []ports.FunctionRange
	for _, r := range v.ranges {
		starts[r.Start] = true
		if r.End > r.Start {
			bodies = append(bodies, r)
		} else {
			empty = append(empty, r)
		}
	}
	v.samples = append(spread(bodies, maxSamples-1), spread(empty, 1)...)
	v.hasBodies = len(bodies) > 0
	v.notStart = 1
	for _, r := range append(bodies, empty...) {
		if !starts[r.Start+1] {
			v.notStart = r.Start + 1
			break
		}
	}
	for _, c := range []uint64{math.MaxUint64 - 0xf, 0xdead_beef_0000, 0x7} {
		if !slices.ContainsFunc(v.segs, func(s ports.Segment) bool { return c >= s.Start && c-s.Start < max(s.Size, s.FileSize) }) && !starts[c] {
			v.unmapped = c
			break
		}
	}
	return v, nil
}

// spread picks up to n elements of s, evenly spaced, first included.
func spread[T any](s []T, n int) []T {
	if len(s) <= n {
		return slices.Clone(s)
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, s[i*len(s)/n])
	}
	return out
}

// noPanic runs f and reports a panic as a failure of the named call.
func noPanic(t testing.TB, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	f()
}

// runCode checks every code capability a fresh analysis of target offers.
func runCode(t *testing.T, p ports.Provider, target ports.Target) {
	ctx := t.Context()
	a, err := p.Open(ctx, target)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer a.Close(context.WithoutCancel(ctx))
	v, err := newCodeView(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(ports.CapabilitiesOf(a)) == 0 {
		t.Fatal("the analysis implements no capability")
	}

	if d, ok := a.(ports.Disassembler); ok {
		t.Run("Disassemble", func(t *testing.T) { testDisassemble(t, d, a, v) })
	}
	if fa, ok := a.(ports.FunctionAnalyzer); ok {
		t.Run("Functions", func(t *testing.T) { testFunctions(t, fa, a, v) })
	}
	if cr, ok := a.(ports.CrossReferencer); ok {
		t.Run("References", func(t *testing.T) { testReferences(t, cr, v) })
	}
	if br, ok := a.(ports.ByteReader); ok {
		t.Run("Bytes", func(t *testing.T) { testBytes(t, br, v, target.Size) })
	}
	if sr, ok := a.(ports.SignatureReader); ok {
		t.Run("Signatures", func(t *testing.T) { testSignatures(t, sr, v) })
	}
	if dc, ok := a.(ports.Decompiler); ok {
		t.Run("Decompile", func(t *testing.T) { testDecompile(t, dc, v) })
	}
	if vfa, ok := a.(ports.ValueFlowAnalyzer); ok {
		t.Run("ValueFlow", func(t *testing.T) { testValueFlow(t, vfa, v) })
	}
	if sl, ok := a.(ports.SourceLocator); ok {
		t.Run("SourceLines", func(t *testing.T) { testSourceLines(t, sl, v) })
	}
	if ar, ok := a.(ports.ArchitectureReporter); ok {
		t.Run("ArchitectureSupport", func(t *testing.T) {
			is := is.New(t)
			sup, err := ar.ArchitectureSupport(ctx)
			is.NoErr(err)
			is.NoErr(checkArchitectureSupport(ctx, a, sup, v))
		})
	}
}

// checkArchitectureSupport checks an ArchitectureReporter's answer against
// what decoding the first procedure with a body says.
func checkArchitectureSupport(ctx context.Context, a ports.Analysis, sup ports.ArchitectureSupport, v *codeView) error {
	if sup.ValueFlow && !sup.Decodes {
		return errors.New("architecture support: value flow without decoding")
	}
	var probe *ports.FunctionRange
	for i, r := range v.ranges {
		if r.End > r.Start {
			probe = &v.ranges[i]
			break
		}
	}
	if probe == nil {
		return nil
	}
	if fa, ok := a.(ports.FunctionAnalyzer); ok {
		_, err := fa.Function(ctx, ports.FunctionRequest{Address: probe.Start, MaxInstructions: 1})
		if unsupported := errors.Is(err, ports.ErrUnsupported); unsupported == sup.Decodes {
			return fmt.Errorf("architecture support: Decodes %v, but Function at 0x%x: %v", sup.Decodes, probe.Start, err)
		}
	}
	if vfa, ok := a.(ports.ValueFlowAnalyzer); ok && sup.Decodes {
		_, err := vfa.ValueFlow(ctx, ports.FunctionRequest{Address: probe.Start, MaxInstructions: 1})
		if unsupported := errors.Is(err, ports.ErrUnsupported); unsupported == sup.ValueFlow {
			return fmt.Errorf("architecture support: ValueFlow %v, but ValueFlow at 0x%x: %v", sup.ValueFlow, probe.Start, err)
		}
	}
	return nil
}

func testDisassemble(t *testing.T, d ports.Disassembler, a ports.Analysis, v *codeView) {
	is := is.New(t)
	ctx := t.Context()
	br, hasBytes := a.(ports.ByteReader)
	decoded := 0
	for _, r := range v.samples {
		for _, req := range []ports.DisassembleRequest{
			{Address: r.Start, MaxInstructions: 16},
			{Address: r.Start, End: r.Start + 8},
		} {
			var dis ports.Disassembly
			var err error
			noPanic(t, "Disassemble", func() { dis, err = d.Disassemble(ctx, req) })
			if errors.Is(err, ports.ErrUnsupported) {
				t.Skipf("disassembly unsupported: %v", err)
			}
			if errors.Is(err, ports.ErrNotFound) {
				continue // a procedure outside code (an import)
			}
			is.NoErr(err)
			is.NoErr(checkDisassembly(dis, req))
			decoded++
			if !hasBytes {
				continue
			}
			for _, in := range dis.Instructions {
				b, err := br.ReadBytes(ctx, in.Address, len(in.Bytes))
				is.NoErr(err)
				if !bytes.Equal(b, in.Bytes) {
					t.Errorf("instruction at 0x%x has bytes % x, ReadBytes gives % x", in.Address, in.Bytes, b)
				}
			}
		}
	}
	if v.hasBodies {
		is.True(decoded > 0) // no procedure with a body could be disassembled
	}
	_, err := d.Disassemble(ctx, ports.DisassembleRequest{Address: v.unmapped})
	is.True(errors.Is(err, ports.ErrNotFound)) // an address in no code section is ErrNotFound
	if len(v.samples) == 0 {
		return
	}
	s := v.samples[0].Start
	for _, req := range []ports.DisassembleRequest{
		{Address: s, End: s - 1, MaxInstructions: -5},
		{Address: s, End: 1},
		{Address: s, MaxInstructions: math.MaxInt},
		{Address: math.MaxUint64, End: math.MaxUint64},
	} {
		noPanic(t, fmt.Sprintf("Disassemble(%+v)", req), func() {
			dis, err := d.Disassemble(ctx, req)
			if err == nil {
				is.NoErr(checkDisassembly(dis, ports.DisassembleRequest{Address: req.Address}))
			}
		})
	}
}

func testFunctions(t *testing.T, fa ports.FunctionAnalyzer, a ports.Analysis, v *codeView) {
	is := is.New(t)
	ctx := t.Context()
	is.NoErr(checkRanges(v.ranges, v.procs, v.hasProcs))
	cr, hasRefs := a.(ports.CrossReferencer)
	var parts []ports.ProcedurePart
	if pl, ok := a.(ports.PartLister); ok {
		var err error
		parts, err = pl.ProcedureParts(ctx)
		is.NoErr(err)
		is.NoErr(checkParts(parts, v.ranges))
	}
	for _, r := range v.samples {
		for _, n := range []int{0, 3, -1} {
			req := ports.FunctionRequest{Address: r.Start, MaxInstructions: n}
			var f ports.Function
			var err error
			noPanic(t, "Function", func() { f, err = fa.Function(ctx, req) })
			if errors.Is(err, ports.ErrUnsupported) {
				t.Skipf("function decoding unsupported: %v", err)
			}
			is.NoErr(err)
			is.NoErr(checkFunction(f, r, req, parts...))
			if !hasRefs || n != 0 {
				continue
			}
			// Every direct call the body shows is a call reference.
			for _, in := range f.Instructions {
				if in.Flow != ports.FlowCall || !in.HasTarget {
					continue
				}
				refs, err := cr.ReferencesFrom(ctx, in.Address, in.Address+1)
				is.NoErr(err)
				if !slices.ContainsFunc(refs, func(x ports.Reference) bool { return x.Kind == ports.RefCall && x.To == in.Target }) {
					t.Errorf("the call at 0x%x to 0x%x has no call reference (references %+v)", in.Address, in.Target, refs)
				}
			}
		}
	}
	for _, addr := range []uint64{v.notStart, v.unmapped} {
		_, err := fa.Function(ctx, ports.FunctionRequest{Address: addr})
		if !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("Function(0x%x), where no procedure starts: %v, want ErrNotFound", addr, err)
		}
	}
}

func testReferences(t *testing.T, cr ports.CrossReferencer, v *codeView) {
	is := is.New(t)
	ctx := t.Context()
	from, err := cr.ReferencesFrom(ctx, 0, math.MaxUint64)
	is.NoErr(err)
	is.NoErr(checkRefsFrom(from, 0, math.MaxUint64))
	to, err := cr.ReferencesTo(ctx, 0, math.MaxUint64)
	is.NoErr(err)
	is.NoErr(checkRefsTo(to, 0, math.MaxUint64))
	is.NoErr(checkRefsAgree(from, to))
	for _, r := range v.samples {
		end := max(r.End, r.Start+1)
		sub, err := cr.ReferencesFrom(ctx, r.Start, end)
		is.NoErr(err)
		want := slices.DeleteFunc(slices.Clone(from), func(x ports.Reference) bool { return x.From < r.Start || x.From >= end })
		is.True(reflect.DeepEqual(nonNil(sub), nonNil(want))) // a sub-range lists what the whole range lists there
		sub, err = cr.ReferencesTo(ctx, r.Start, end)
		is.NoErr(err)
		want = slices.DeleteFunc(slices.Clone(to), func(x ports.Reference) bool { return x.To < r.Start || x.To >= end })
		is.True(reflect.DeepEqual(nonNil(sub), nonNil(want))) // a sub-range lists what the whole range lists there
	}
	for _, rg := range [][2]uint64{{0x2000, 0x1000}, {0x1000, 0x1000}, {math.MaxUint64, 0}} {
		noPanic(t, "References", func() {
			f, err := cr.ReferencesFrom(ctx, rg[0], rg[1])
			is.NoErr(err)
			is.Equal(len(f), 0) // an empty or reversed range lists nothing
			tt, err := cr.ReferencesTo(ctx, rg[0], rg[1])
			is.NoErr(err)
			is.Equal(len(tt), 0) // an empty or reversed range lists nothing
		})
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func testBytes(t *testing.T, br ports.ByteReader, v *codeView, size int64) {
	is := is.New(t)
	ctx := t.Context()
	read := 0
	for _, s := range v.segs {
		if s.Start == 0 || s.FileSize == 0 || s.Size == 0 {
			continue // not mapped, or no file bytes
		}
		b, err := br.ReadBytes(ctx, s.Start, 16)
		if err != nil {
			t.Errorf("ReadBytes at the start of %s (0x%x, %d file bytes): %v", s.Name, s.Start, s.FileSize, err)
			continue
		}
		if len(b) < 1 || len(b) > 16 {
			t.Errorf("ReadBytes(0x%x, 16) in %s: %d bytes", s.Start, s.Name, len(b))
		}
		read++
		for _, n := range []int{0, -1, math.MinInt} {
			b, err := br.ReadBytes(ctx, s.Start, n)
			is.NoErr(err)       // n <= 0 is no error
			is.Equal(len(b), 0) // n <= 0 reads nothing
		}
		var huge []byte
		noPanic(t, "ReadBytes(huge)", func() { huge, err = br.ReadBytes(ctx, s.Start, math.MaxInt) })
		is.NoErr(err)
		if size > 0 && int64(len(huge)) > size {
			t.Errorf("ReadBytes(0x%x, MaxInt) returned %d bytes from a %d-byte file", s.Start, len(huge), size)
		}
	}
	if len(v.segs) > 0 && read == 0 {
		t.Log("no segment with file bytes to read")
	}
	_, err := br.ReadBytes(ctx, v.unmapped, 4)
	is.True(errors.Is(err, ports.ErrNotFound)) // an unmapped address is ErrNotFound
}

func testSignatures(t *testing.T, sr ports.SignatureReader, v *codeView) {
	is := is.New(t)
	ctx := t.Context()
	for _, r := range v.samples {
		var err error
		noPanic(t, "Signature", func() { _, err = sr.Signature(ctx, r.Start) })
		if err != nil && !isAny(err, ports.ErrNotFound, ports.ErrUnsupported) {
			t.Errorf("Signature(0x%x): %v, want a signature, ErrNotFound or ErrUnsupported", r.Start, err)
		}
	}
	for _, addr := range []uint64{v.notStart, v.unmapped} {
		_, err := sr.Signature(ctx, addr)
		is.True(errors.Is(err, ports.ErrNotFound)) // no procedure starts there
	}
}

func testDecompile(t *testing.T, dc ports.Decompiler, v *codeView) {
	is := is.New(t)
	ctx := t.Context()
	done := 0
	for _, r := range v.samples {
		var pc ports.Pseudocode
		var err error
		noPanic(t, "Decompile", func() { pc, err = dc.Decompile(ctx, r.Start) })
		switch {
		case err == nil:
			is.True(pc.Text != "") // decompiled text
			done++
		case !isAny(err, ports.ErrNotFound, ports.ErrUnsupported):
			t.Errorf("Decompile(0x%x): %v", r.Start, err)
		}
	}
	if v.hasBodies {
		is.True(done > 0) // no procedure could be decompiled
	}
	for _, addr := range []uint64{v.notStart, v.unmapped} {
		_, err := dc.Decompile(ctx, addr)
		is.True(errors.Is(err, ports.ErrNotFound)) // no procedure starts there
	}
}

func testValueFlow(t *testing.T, vfa ports.ValueFlowAnalyzer, v *codeView) {
	is := is.New(t)
	ctx := t.Context()
	done := 0
	for _, r := range v.samples {
		for _, n := range []int{0, 2, -1} {
			var vf ports.ValueFlow
			var err error
			noPanic(t, "ValueFlow", func() { vf, err = vfa.ValueFlow(ctx, ports.FunctionRequest{Address: r.Start, MaxInstructions: n}) })
			if errors.Is(err, ports.ErrUnsupported) {
				t.Skipf("value flow unsupported: %v", err)
			}
			if errors.Is(err, ports.ErrNotFound) && r.End == r.Start {
				continue
			}
			is.NoErr(err)
			is.NoErr(checkValueFlow(vf, r))
			done++
		}
	}
	if v.hasBodies {
		is.True(done > 0) // no procedure had a value flow
	}
	for _, addr := range []uint64{v.notStart, v.unmapped} {
		_, err := vfa.ValueFlow(ctx, ports.FunctionRequest{Address: addr})
		is.True(errors.Is(err, ports.ErrNotFound)) // no procedure starts there
	}
}

// testSourceLines checks SourceAt at every procedure sampled and at
// addresses that hold no code: an answer, ErrNotFound or ErrUnsupported,
// never negative numbers, and no panic.
func testSourceLines(t *testing.T, sl ports.SourceLocator, v *codeView) {
	ctx := t.Context()
	addrs := []uint64{0, v.notStart, v.unmapped, math.MaxUint64}
	for _, r := range v.samples {
		addrs = append(addrs, r.Start, r.End-min(r.End-r.Start, 1))
	}
	for _, addr := range addrs {
		var loc ports.SourceLocation
		var err error
		noPanic(t, "SourceAt", func() { loc, err = sl.SourceAt(ctx, addr) })
		if err != nil {
			if !isAny(err, ports.ErrNotFound, ports.ErrUnsupported) {
				t.Errorf("SourceAt(0x%x): %v, want a location, ErrNotFound or ErrUnsupported", addr, err)
			}
			continue
		}
		if err := checkSourceLocation(loc); err != nil {
			t.Errorf("SourceAt(0x%x): %v", addr, err)
		}
	}
	if _, err := sl.SourceAt(ctx, v.unmapped); err == nil {
		t.Errorf("SourceAt(0x%x), an unmapped address: a location, want ErrNotFound or ErrUnsupported", v.unmapped)
	}
}

// checkSourceLocation checks what SourceLocator promises of a location.
func checkSourceLocation(loc ports.SourceLocation) error {
	if loc.Line < 0 || loc.Column < 0 {
		return fmt.Errorf("negative line or column: %+v", loc)
	}
	for _, c := range loc.Inlined {
		if c.CallLine < 0 || c.CallColumn < 0 {
			return fmt.Errorf("an inlined call at a negative line or column: %+v", c)
		}
	}
	return nil
}

// codeCalls are one call of each code capability, at addresses from v; each
// reports false when a lacks the capability, and returns its result.
func codeCalls(v *codeView) []struct {
	name string
	call func(context.Context, ports.Analysis) (bool, any, error)
} {
	addr := v.unmapped
	starts := []uint64{v.notStart}
	if len(v.samples) > 0 {
		addr = v.samples[0].Start
		starts = starts[:0]
		for _, r := range v.samples {
			starts = append(starts, r.Start)
		}
	}
	type entry = struct {
		name string
		call func(context.Context, ports.Analysis) (bool, any, error)
	}
	return []entry{
		{"Disassemble", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			d, ok := a.(ports.Disassembler)
			if !ok {
				return false, nil, nil
			}
			r, err := d.Disassemble(ctx, ports.DisassembleRequest{Address: addr, MaxInstructions: 32})
			if errors.Is(err, ports.ErrNotFound) {
				err = nil // the sample may be an import; the call still ran
			}
			return true, r, err
		}},
		{"FunctionRanges", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			fa, ok := a.(ports.FunctionAnalyzer)
			if !ok {
				return false, nil, nil
			}
			r, err := fa.FunctionRanges(ctx)
			return true, r, err
		}},
		{"Function", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			fa, ok := a.(ports.FunctionAnalyzer)
			if !ok {
				return false, nil, nil
			}
			var out []any
			for _, start := range starts {
				f, err := fa.Function(ctx, ports.FunctionRequest{Address: start})
				if err != nil && !isAny(err, ports.ErrNotFound, ports.ErrUnsupported) {
					return true, out, err
				}
				out = append(out, f, err != nil)
			}
			return true, out, nil
		}},
		{"ReferencesFrom", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			cr, ok := a.(ports.CrossReferencer)
			if !ok {
				return false, nil, nil
			}
			r, err := cr.ReferencesFrom(ctx, 0, math.MaxUint64)
			return true, r, err
		}},
		{"ReferencesTo", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			cr, ok := a.(ports.CrossReferencer)
			if !ok {
				return false, nil, nil
			}
			r, err := cr.ReferencesTo(ctx, 0, math.MaxUint64)
			return true, r, err
		}},
		{"ReadBytes", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			br, ok := a.(ports.ByteReader)
			if !ok {
				return false, nil, nil
			}
			r, err := br.ReadBytes(ctx, addr, 64)
			if errors.Is(err, ports.ErrNotFound) {
				err = nil // the sample may be an import; the call still ran
			}
			return true, r, err
		}},
		{"Signature", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			sr, ok := a.(ports.SignatureReader)
			if !ok {
				return false, nil, nil
			}
			var out []any
			for _, start := range starts {
				s, err := sr.Signature(ctx, start)
				if err != nil && !isAny(err, ports.ErrNotFound, ports.ErrUnsupported) {
					return true, out, err
				}
				out = append(out, s, err != nil)
			}
			return true, out, nil
		}},
		{"Decompile", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			dc, ok := a.(ports.Decompiler)
			if !ok {
				return false, nil, nil
			}
			var out []any
			for _, start := range starts {
				pc, err := dc.Decompile(ctx, start)
				if err != nil && !isAny(err, ports.ErrNotFound, ports.ErrUnsupported) {
					return true, out, err
				}
				out = append(out, pc, err != nil)
			}
			return true, out, nil
		}},
		{"SourceAt", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			sl, ok := a.(ports.SourceLocator)
			if !ok {
				return false, nil, nil
			}
			var out []any
			for _, start := range starts {
				loc, err := sl.SourceAt(ctx, start)
				if err != nil && !isAny(err, ports.ErrNotFound, ports.ErrUnsupported) {
					return true, out, err
				}
				out = append(out, loc, err != nil)
			}
			return true, out, nil
		}},
		{"ValueFlow", func(ctx context.Context, a ports.Analysis) (bool, any, error) {
			vfa, ok := a.(ports.ValueFlowAnalyzer)
			if !ok {
				return false, nil, nil
			}
			var out []any
			for _, start := range starts {
				vf, err := vfa.ValueFlow(ctx, ports.FunctionRequest{Address: start})
				if err != nil && !isAny(err, ports.ErrNotFound, ports.ErrUnsupported) {
					return true, out, err
				}
				out = append(out, vf, err != nil)
			}
			return true, out, nil
		}},
	}
}

// runCodeConcurrent checks that concurrent callers of one analysis see what
// a sequential caller of another sees.
func runCodeConcurrent(t *testing.T, p ports.Provider, target ports.Target) {
	is := is.New(t)
	ctx := t.Context()
	ref, err := p.Open(ctx, target)
	is.NoErr(err)
	defer ref.Close(context.WithoutCancel(ctx))
	v, err := newCodeView(ctx, ref)
	is.NoErr(err)
	calls := codeCalls(v)
	snapshot := func(a ports.Analysis) ([]any, error) {
		var out []any
		for _, c := range calls {
			ok, r, err := c.call(ctx, a)
			if !ok {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			out = append(out, r)
		}
		return out, nil
	}
	want, err := snapshot(ref)
	is.NoErr(err)
	a, err := p.Open(ctx, target)
	is.NoErr(err)
	defer a.Close(context.WithoutCancel(ctx))
	const workers = 4
	got := make([][]any, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() { got[i], errs[i] = snapshot(a) })
	}
	wg.Wait()
	for i := range workers {
		is.NoErr(errs[i])
		if !reflect.DeepEqual(got[i], want) {
			for k := range min(len(got[i]), len(want)) {
				if !reflect.DeepEqual(got[i][k], want[k]) {
					t.Errorf("worker %d: result %d differs from the sequential one:\n got %+v\nwant %+v", i, k, got[i][k], want[k])
					break
				}
			}
		}
		is.True(reflect.DeepEqual(got[i], want)) // concurrent code results equal the sequential ones
	}
}

// runCodeCancelled checks that each code capability of a fresh analysis
// fails with context.Canceled under a cancelled context, and that each
// fails after Close.
func runCodeCancelled(t *testing.T, p ports.Provider, target ports.Target) {
	ctx := t.Context()
	ref, err := p.Open(ctx, target)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	v, err := newCodeView(ctx, ref)
	ref.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range codeCalls(v) {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			a, err := p.Open(ctx, target)
			is.NoErr(err)
			defer a.Close(ctx)
			ok, _, err := c.call(cancelled, a)
			if !ok {
				t.Skipf("%s not implemented", c.name)
			}
			is.True(errors.Is(err, context.Canceled)) // a cancelled context fails the call
		})
		t.Run(c.name+"AfterClose", func(t *testing.T) {
			is := is.New(t)
			a, err := p.Open(ctx, target)
			is.NoErr(err)
			is.NoErr(a.Close(ctx))
			ok, _, err := c.call(ctx, a)
			if !ok {
				t.Skipf("%s not implemented", c.name)
			}
			is.True(err != nil) // a call after Close fails
		})
	}
}
