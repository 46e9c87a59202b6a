package annotate

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"rea/core"
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
			return nil, err
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
			return nil, err
		}
		v.segs = segs
		if ll, ok := a.(loadSegmentLister); ok {
			loads, err := ll.LoadSegments(ctx)
			if err != nil {
				return nil, err
			}
			v.loads = loads
		}
	} else {
		v.err["segments"] = "the provider does not list segments"
	}
	if pl, ok := a.(ports.ProcedureLister); ok {
		procs, err := pl.Procedures(ctx)
		if err != nil {
			return nil, err
		}
		v.procs = procs // shared: sorted into a copy only when out of order
		if !slices.IsSortedFunc(procs, func(a, b ports.Procedure) int { return cmp.Compare(a.Address, b.Address) }) {
			v.procs = slices.Clone(procs)
			sort.SliceStable(v.procs, func(i, j int) bool { return v.procs[i].Address < v.procs[j].Address })
		}
		if fa, ok := a.(ports.FunctionAnalyzer); ok {
			rs, err := fa.FunctionRanges(ctx)
			if err != nil {
				return nil, err
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
			return nil, err
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

// mapped reports whether addr lies in a segment or a load segment (true
// when the provider lists none: then nothing can be checked).
func (v *view) mapped(addr uint64) bool {
	if _, missing := v.err["segments"]; missing {
		return true
	}
	for _, segs := range [][]ports.Segment{v.segs, v.loads} {
		for _, s := range segs {
			if addr >= s.Start && addr-s.Start < max(s.Size, 1) {
				return true
			}
		}
	}
	return false
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

// subAddress reads sub_<hex>, the name every address argument gives an
// address with no name of its own.
func subAddress(s string) (uint64, bool) {
	hexPart, ok := strings.CutPrefix(s, "sub_")
	if !ok {
		return 0, false
	}
	a, err := strconv.ParseUint(hexPart, 16, 64)
	return a, err == nil
}

// resolveAddress reads an address argument: 0x hex or decimal, else a name
// (an analyst's name, a procedure's, a label's, or sub_<hex>). It must lie
// in a segment.
func resolveAddress(op string, v *view, ov *overlay, s string, path []any) (uint64, error) {
	addr, err := core.ParseHex(s)
	if err != nil {
		found := false
		for k, e := range ov.entries {
			if k.kind == ports.AnnotationName && e.value == s {
				addr, found = k.addr, true
				break
			}
		}
		if !found {
			addr, found = v.byName[s]
		}
		if a, ok := subAddress(s); !found && ok {
			addr, found = a, true
		}
		if !found {
			return 0, core.InvalidRequest(op, core.Issue{Path: path, Reason: core.ReasonInvalidValue,
				Message: fmt.Sprintf("%q is neither an address nor a known name", s), Expected: "0x hex, decimal, or a name from list_names or list_procedures"})
		}
	}
	if !v.mapped(addr) {
		return 0, &core.Error{Code: core.CodeInvalidRequest,
			Message:     fmt.Sprintf("%s: %s lies outside every segment of the target", op, core.Hex(addr)),
			Remediation: "Use an address inside a segment (list_segments).",
			Details: map[string]any{"operation": op, "reason": "address_unmapped", "address": core.Hex(addr),
				"issues": []core.Issue{{Path: path, Reason: core.ReasonOutOfRange, Message: "outside every segment"}}}}
	}
	return addr, nil
}
