package annotate

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"rea/core"
	"rea/core/codeloc"
	"rea/ports"
)

// view is what the navigation and annotation tools read of the bound
// target: its documents, segments, procedures with their extents, and the
// engine's names. It is built once per analysis and kept in the session.
type view struct {
	docs   []ports.Document
	segs   []ports.Segment
	loads  []ports.Segment       // load segments (loadSegmentLister): mapped too
	procs  []ports.Procedure     // sorted by address
	ranges []ports.FunctionRange // parallel to procs; empty when unknown
	names  []ports.Name          // sorted by address
	byName map[string]uint64     // engine display names (procedures, labels)
	err    map[string]string     // why a list is unavailable, by list
}

type viewCache struct {
	mu sync.Mutex
	a  ports.Analysis
	v  *view
}

func viewOf(ctx context.Context, c *core.Call) (*view, error) {
	a, _, t := c.Bound()
	cache := c.State("annotate.view", func() any { return &viewCache{} }).(*viewCache)
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if cache.v != nil && cache.a == a {
		return cache.v, nil
	}
	v := &view{byName: map[string]uint64{}, err: map[string]string{}}
	if dl, ok := a.(ports.DocumentLister); ok {
		docs, err := dl.Documents(ctx)
		if err != nil {
			return nil, notFound(c.Op.Name, "documents", nil, err)
		}
		base := core.NewSubject(t.Path, "", "", "").Name
		for _, d := range docs { // named by content, as list_documents does
			switch {
			case d.Name == base:
				d.Name = d.Format
			case strings.HasPrefix(d.Name, base+"#"):
				d.Name = d.Format + strings.TrimPrefix(d.Name, base)
			}
			v.docs = append(v.docs, d)
		}
	}
	if len(v.docs) == 0 {
		v.docs = []ports.Document{{Name: t.Format, Format: t.Format, Architecture: t.Architecture}}
	}
	if sl, ok := a.(ports.SegmentLister); ok {
		segs, err := sl.Segments(ctx)
		if err != nil {
			return nil, notFound(c.Op.Name, "segments", nil, err)
		}
		v.segs = segs
		if ll, ok := a.(loadSegmentLister); ok {
			loads, err := ll.LoadSegments(ctx)
			if err != nil {
				return nil, notFound(c.Op.Name, "load segments", nil, err)
			}
			v.loads = loads
		}
	} else {
		v.err["segments"] = "the provider does not list segments"
	}
	if pl, ok := a.(ports.ProcedureLister); ok {
		procs, err := pl.Procedures(ctx)
		if err != nil {
			return nil, notFound(c.Op.Name, "procedures", nil, err)
		}
		v.procs = procs // shared: sorted into a copy only when out of order
		if !slices.IsSortedFunc(procs, func(a, b ports.Procedure) int { return cmp.Compare(a.Address, b.Address) }) {
			v.procs = slices.Clone(procs)
			sort.SliceStable(v.procs, func(i, j int) bool { return v.procs[i].Address < v.procs[j].Address })
		}
		if fa, ok := a.(ports.FunctionAnalyzer); ok {
			rs, err := fa.FunctionRanges(ctx)
			if err != nil {
				return nil, notFound(c.Op.Name, "procedures' extents", nil, err)
			}
			byStart := make(map[uint64]ports.FunctionRange, len(rs))
			for _, r := range rs {
				byStart[r.Start] = r
			}
			v.ranges = make([]ports.FunctionRange, len(v.procs))
			for i, p := range v.procs {
				r, ok := byStart[p.Address]
				if !ok {
					r = ports.FunctionRange{Start: p.Address, End: p.Address + p.Size}
				}
				v.ranges[i] = r
			}
		}
		for _, p := range v.procs {
			if p.Name != "" {
				v.byName[p.Name] = p.Address
			}
		}
	} else {
		v.err["procedures"] = "the provider does not list procedures"
	}
	if nl, ok := a.(ports.NameLister); ok {
		ns, err := nl.Names(ctx)
		if err != nil {
			return nil, notFound(c.Op.Name, "names", nil, err)
		}
		v.names = ns // shared: sorted into a copy only when out of order
		if !slices.IsSortedFunc(ns, func(a, b ports.Name) int { return cmp.Compare(a.Address, b.Address) }) {
			v.names = slices.Clone(ns)
			sort.SliceStable(v.names, func(i, j int) bool { return v.names[i].Address < v.names[j].Address })
		}
		for _, n := range v.names {
			if _, dup := v.byName[n.Name]; !dup {
				v.byName[n.Name] = n.Address
			}
		}
	} else {
		v.err["names"] = "the provider does not list names"
	}
	cache.a, cache.v = a, v
	return v, nil
}

// loadSegmentLister is an analysis that also lists the segments its loader
// maps (rea-native's ELF PT_LOAD entries, PE headers, Mach-O segments),
// which cover bytes no section does: list_segments and read_bytes take
// them as mapped, and so do the analyst's tools.
type loadSegmentLister interface {
	LoadSegments(ctx context.Context) ([]ports.Segment, error)
}

// containing returns the index of the procedure whose extent holds addr
// (the innermost of nested ones), or -1.
func (v *view) containing(addr uint64) int {
	i := sort.Search(len(v.procs), func(i int) bool { return v.procs[i].Address > addr })
	for j := i - 1; j >= 0 && j >= i-16; j-- {
		start, end := v.procs[j].Address, v.procs[j].Address+v.procs[j].Size
		if v.ranges != nil {
			start, end = v.ranges[j].Start, v.ranges[j].End
		}
		if addr == start || (addr >= start && addr < end) {
			return j
		}
	}
	return -1
}

// engineName is the engine's name at addr: a procedure's, else a label's.
func (v *view) engineName(addr uint64) string {
	i := sort.Search(len(v.procs), func(i int) bool { return v.procs[i].Address >= addr })
	if i < len(v.procs) && v.procs[i].Address == addr && v.procs[i].Name != "" {
		return v.procs[i].Name
	}
	j := sort.Search(len(v.names), func(j int) bool { return v.names[j].Address >= addr })
	if j < len(v.names) && v.names[j].Address == addr {
		return v.names[j].Name
	}
	return ""
}

// document returns the document an argument names (the cursor's when
// absent), or an invalid_request for a name the target does not have.
func (v *view) document(op string, name string, ok bool, cur string) (string, error) {
	if !ok {
		return cur, nil
	}
	for _, d := range v.docs {
		if d.Name == name {
			return name, nil
		}
	}
	names := make([]string, len(v.docs))
	for i, d := range v.docs {
		names[i] = d.Name
	}
	return "", core.InvalidRequest(op, core.Issue{Path: []any{"document"}, Reason: core.ReasonInvalidValue,
		Message: fmt.Sprintf("unknown document %q", name), Expected: names})
}

// viewTarget is codeloc's view of the bound target as the annotation
// tools see it: the overlay's names, the view's procedures, labels,
// sections and load segments.
type viewTarget struct {
	v  *view
	ov *overlay
}

func (t viewTarget) AnalystNames(context.Context) (map[uint64]string, error) {
	var out map[uint64]string
	for k, e := range t.ov.entries {
		if k.kind == ports.AnnotationName {
			if out == nil {
				out = map[uint64]string{}
			}
			out[k.addr] = e.value
		}
	}
	return out, nil
}

func (t viewTarget) EngineNames(context.Context) ([]ports.Procedure, []ports.Name, error) {
	return t.v.procs, t.v.names, nil
}

func (t viewTarget) Segments(context.Context) ([]ports.Segment, bool, error) {
	if _, missing := t.v.err["segments"]; missing {
		return nil, false, nil
	}
	return append(t.v.segs[:len(t.v.segs):len(t.v.segs)], t.v.loads...), true, nil
}

// resolveAddress reads an address argument (codeloc.Resolve: 0x hex or
// decimal, an analyst's name, a procedure's, a label's, sub_<hex>,
// NAME+OFFSET), which must be mapped.
func resolveAddress(ctx context.Context, op string, v *view, ov *overlay, s string, path []any) (uint64, error) {
	return codeloc.Resolve(ctx, op, path, s, viewTarget{v, ov}, nil)
}
