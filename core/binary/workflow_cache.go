package binary

import (
	"context"
	"reflect"
	"runtime"
	"sync"
	"weak"

	"rea/ports"

	"rea/core"
)

// codeLists caches, per open analysis, the complete lists the code
// operations search (procedures, ranges, names, strings): providers return
// a fresh copy on every call, which for a large binary costs more than the
// operation itself. An analysis is immutable while open, so the lists
// never change; the cache holds the analysis weakly and drops its entry
// when the analysis is collected. Callers must not modify the lists. An
// engine that keeps analysts' annotations itself (ports.Annotator) renames
// in place, so its procedures and names are asked for every time.
type codeLists struct {
	mu      sync.Mutex
	procs   []ports.Procedure
	procsOK bool
	ranges  []ports.FunctionRange
	names   []ports.Name
	namesOK bool
	strs    []ports.String
	strsOK  bool

	// The latest value flow, so that paging through one procedure's
	// collections does not recompute it.
	flowMu   sync.Mutex
	flowAddr uint64
	flowMax  int // the instructions it was bounded to (valueFlowUpTo), 0 for none
	flow     *ports.ValueFlow

	// What the provider cannot observe on this architecture (arch.go).
	archMu       sync.Mutex
	archOK       bool
	archNoDecode bool
	archLims     []string
}

var (
	listsMu sync.Mutex
	lists   = map[weak.Pointer[byte]]*codeLists{}
)

// listsOf returns the cache of an analysis (a fresh, unshared one for an
// analysis that is not a pointer).
func listsOf(a ports.Analysis) *codeLists {
	v := reflect.ValueOf(a)
	if a == nil || v.Kind() != reflect.Pointer || v.IsNil() {
		return &codeLists{}
	}
	p := (*byte)(v.UnsafePointer())
	key := weak.Make(p)
	listsMu.Lock()
	defer listsMu.Unlock()
	if l, ok := lists[key]; ok {
		return l
	}
	l := &codeLists{}
	lists[key] = l
	runtime.AddCleanup(p, func(k weak.Pointer[byte]) {
		listsMu.Lock()
		delete(lists, k)
		listsMu.Unlock()
	}, key)
	return l
}

func (l *codeLists) procedures(ctx context.Context, a ports.Analysis) ([]ports.Procedure, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, renames := a.(ports.Annotator); l.procsOK && !renames {
		return l.procs, nil
	}
	pl, ok := a.(ports.ProcedureLister)
	if !ok {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: "the bound provider does not list procedures",
			Details: map[string]any{"reason": "missing_capability:" + string(core.CapProcedures)}}
	}
	p, err := pl.Procedures(ctx)
	if err != nil {
		return nil, err
	}
	l.procs, l.procsOK = p, true
	return p, nil
}

// functionRanges returns the ranges parallel to procs (a procedure the
// engine gives no range gets an empty one).
func (l *codeLists) functionRanges(ctx context.Context, fa ports.FunctionAnalyzer, procs []ports.Procedure) ([]ports.FunctionRange, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ranges != nil && len(l.ranges) == len(procs) {
		return l.ranges, nil
	}
	rs, err := fa.FunctionRanges(ctx)
	if err != nil {
		return nil, err
	}
	aligned := len(rs) == len(procs)
	for i := 0; aligned && i < len(rs); i++ {
		aligned = rs[i].Start == procs[i].Address
	}
	if !aligned {
		byStart := make(map[uint64]ports.FunctionRange, len(rs))
		for _, r := range rs {
			byStart[r.Start] = r
		}
		rs = make([]ports.FunctionRange, len(procs))
		for i, p := range procs {
			r, ok := byStart[p.Address]
			if !ok {
				r = ports.FunctionRange{Start: p.Address, End: p.Address, EndSource: "unknown"}
			}
			rs[i] = r
		}
	}
	l.ranges = rs
	return rs, nil
}

func (l *codeLists) namesOf(ctx context.Context, a ports.Analysis) ([]ports.Name, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, renames := a.(ports.Annotator); l.namesOK && !renames {
		return l.names, nil
	}
	if nl, ok := a.(ports.NameLister); ok {
		n, err := nl.Names(ctx)
		if err != nil {
			return nil, err
		}
		l.names = n
	}
	l.namesOK = true
	return l.names, nil
}

func (l *codeLists) stringsOf(ctx context.Context, a ports.Analysis) ([]ports.String, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.strsOK {
		return l.strs, nil
	}
	if sl, ok := a.(ports.StringLister); ok {
		s, err := sl.Strings(ctx)
		if err != nil {
			return nil, err
		}
		l.strs = s
	}
	l.strsOK = true
	return l.strs, nil
}

// valueFlow returns the value flow of the procedure at addr, reusing the
// latest one computed for this analysis.
func (l *codeLists) valueFlow(ctx context.Context, vfa ports.ValueFlowAnalyzer, addr uint64) (ports.ValueFlow, error) {
	vf, _, err := l.valueFlowUpTo(ctx, vfa, addr, 0)
	return vf, err
}

// valueFlowUpTo is valueFlow bounded to the procedure's first max
// instructions (0: the provider's own bound), or the whole flow when that
// one is the latest computed; whole says which.
func (l *codeLists) valueFlowUpTo(ctx context.Context, vfa ports.ValueFlowAnalyzer, addr uint64, max int) (vf ports.ValueFlow, whole bool, err error) {
	l.flowMu.Lock()
	defer l.flowMu.Unlock()
	if l.flow != nil && l.flowAddr == addr && (l.flowMax == 0 || l.flowMax == max) {
		return *l.flow, l.flowMax == 0, nil
	}
	vf, err = vfa.ValueFlow(ctx, ports.FunctionRequest{Address: addr, MaxInstructions: max})
	if err != nil {
		return vf, false, err
	}
	l.flowAddr, l.flowMax, l.flow = addr, max, &vf
	return vf, max == 0, nil
}
